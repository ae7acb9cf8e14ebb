//! Seeded initial weights when several trainings share a process.
//!
//! libtorch has one random generator per process: `tch::manual_seed` followed by a model's
//! initialisation gives the seed's weights only if no other thread draws from the generator in
//! between. Two trainings started side by side (the test suite does it; so may a library user)
//! would otherwise interleave their draws and each get weights that follow neither seed.
use std::sync::Mutex;

/// Held from the seeding to the end of the draws that must follow it.
static GENERATOR: Mutex<()> = Mutex::new(());

/// Runs `initialise` with libtorch's generator seeded to `seed` and no other user of it between.
pub fn with_seed<T>(seed: u64, initialise: impl FnOnce() -> T) -> T {
    exclusive(|| {
        tch::manual_seed(seed as i64);
        initialise()
    })
}

/// Runs `draw` as the generator's only user. For draws that follow no seed (a model built only
/// to be overwritten by a load): they must still not fall between another thread's seeding and
/// its draws.
pub fn exclusive<T>(draw: impl FnOnce() -> T) -> T {
    // a panic elsewhere while holding it leaves the generator as usable as before
    let _only_user = GENERATOR
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    draw()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::{Kind, Tensor};

    fn draws(seed: u64) -> Vec<f32> {
        with_seed(seed, || {
            let t = Tensor::randn([4096], (Kind::Float, tch::Device::Cpu));
            Vec::<f32>::try_from(t).expect("floats")
        })
    }

    #[test]
    fn side_by_side_initialisations_each_follow_their_own_seed() {
        let expected = [draws(1), draws(2)];
        let racing: Vec<_> = (0..2u64)
            .map(|i| std::thread::spawn(move || (0..200).map(|_| draws(i + 1)).collect::<Vec<_>>()))
            .collect();
        for (i, thread) in racing.into_iter().enumerate() {
            let runs = thread.join().expect("the thread ends");
            assert!(
                runs.iter().all(|run| *run == expected[i]),
                "a draw under seed {} followed another seed",
                i + 1
            );
        }
    }
}
