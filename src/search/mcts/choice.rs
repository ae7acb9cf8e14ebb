//! Choosing a move from search statistics.

use rand::Rng;

/// Index drawn with probability proportional to `weight^(1/temperature)`; the first index when
/// every weight is zero.
pub fn sample_with_temperature<R: Rng>(weights: &[f64], temperature: f32, rng: &mut R) -> usize {
    let powered: Vec<f64> = weights
        .iter()
        .map(|&w| w.max(0.0).powf(1.0 / temperature.max(1e-3) as f64))
        .collect();
    let total: f64 = powered.iter().sum();
    if total <= 0.0 || !total.is_finite() {
        return 0;
    }
    let mut x = rng.random::<f64>() * total;
    for (i, w) in powered.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    powered.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn follows_the_weights() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut counts = [0; 3];
        for _ in 0..3000 {
            counts[sample_with_temperature(&[1.0, 0.0, 3.0], 1.0, &mut rng)] += 1;
        }
        assert_eq!(counts[1], 0);
        assert!((600..900).contains(&counts[0]), "{counts:?}");
        // a low temperature sharpens towards the largest weight
        let sharp = (0..1000)
            .filter(|_| sample_with_temperature(&[1.0, 3.0], 0.1, &mut rng) == 1)
            .count();
        assert!(sharp > 990, "{sharp}");
    }
}
