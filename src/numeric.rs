//! Small numeric helpers shared by the search, the networks and the evaluation: a softmax, the
//! splitmix64 mixer and Gumbel noise, each defined once.

use rand::Rng;

/// Softmax of scores (shifted by their maximum, so large logits do not overflow).
pub fn softmax(scores: &[f32]) -> Vec<f32> {
    let max = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps: Vec<f32> = scores.iter().map(|s| (s - max).exp()).collect();
    let sum: f32 = exps.iter().sum();
    exps.into_iter().map(|e| e / sum).collect()
}

/// splitmix64 (Steele, Lea and Flood 2014): spreads any 64-bit input over all 64 bits, so that
/// nearby counters or keys give unrelated values.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `n` draws of standard Gumbel noise, `-ln(-ln u)` for `u` uniform in (0, 1).
pub fn gumbel_noise<R: Rng>(n: usize, rng: &mut R) -> Vec<f32> {
    (0..n)
        .map(|_| {
            let u: f32 = rng.random_range(1e-9..1.0);
            -(-u.ln()).ln()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn softmax_sums_to_one_and_keeps_the_order() {
        let p = softmax(&[1000.0, 999.0, 0.0]);
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        // e^1 / (e^1 + e^0) with the third term vanishing
        assert!((p[0] - 0.731_058_6).abs() < 1e-6, "{p:?}");
        assert!(p[0] > p[1] && p[1] > p[2]);
    }

    #[test]
    fn splitmix64_matches_the_reference_sequence() {
        // the first outputs of the reference generator seeded with 0 (state advanced by the
        // golden gamma before each mix)
        assert_eq!(splitmix64(0), 0xE220_A839_7B1D_CDAF);
        assert_eq!(splitmix64(0x9E37_79B9_7F4A_7C15), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn gumbel_noise_has_the_gumbel_mean() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let draws = gumbel_noise(200_000, &mut rng);
        let mean = draws.iter().map(|&g| g as f64).sum::<f64>() / draws.len() as f64;
        // the Euler-Mascheroni constant
        assert!((mean - 0.577_215_7).abs() < 0.01, "{mean}");
    }
}
