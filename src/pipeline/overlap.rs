//! The overlapped schedule (`overlap = true`): a generation's training (and the next one's
//! teacher games) on the cores beside the next generation's self-play.

use std::path::{Path, PathBuf};

use super::config::PipelineConfig;
use super::error::PipelineError;
use super::progress::{PipelineProgress, Unseen};
use super::stages::selfplay::{selfplay_stage, teacher_games, Player, SelfplayRunner};
use super::stages::train::train_stage;
use super::summary::SelfplaySummary;
use super::timing::{self, Stopwatch};
use crate::rules::Position;
use crate::selfplay::Seats;

/// Cores for the work beside self-play: every core but the one self-play takes.
fn cores_beside_selfplay() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1).max(1))
}

/// The pool the work beside self-play runs in: `cores` threads, each a trainer with `cores`
/// libtorch threads. The role is given as each worker starts: the work runs on whichever worker
/// `install` picks, never on the thread that built the pool.
fn pool_beside_selfplay(cores: usize) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(cores)
        .start_handler(move |_| crate::nn::threads::train_here(cores))
        .build()
}

/// Generation `g`'s candidate trained (and generation g + 1's teacher games played) on the
/// cores beside the self-play of generation g + 1, which plays with `next_player` on the
/// calling thread. Returns that self-play, when there is a next generation.
#[allow(clippy::too_many_arguments)]
pub(crate) fn train_beside_selfplay(
    cfg: &PipelineConfig,
    run: &Path,
    g: u32,
    (init, next_player): (u32, Player),
    plan: (&[PathBuf], &crate::train::TrainConfig),
    (start, device): (&Position, tch::Device),
    progress: &mut dyn PipelineProgress,
    runner: Option<&mut (dyn SelfplayRunner + '_)>,
) -> Result<Option<SelfplaySummary>, PipelineError> {
    use std::sync::atomic::{AtomicU64, Ordering};
    let next = g + 1;
    let more = next < cfg.generations;
    let step = AtomicU64::new(0);
    let variant = start.variant().name().to_string();
    // the self-play workers take the cores the work beside leaves, and all of them once it ends
    let workers = cfg.selfplay.worker_threads();
    let seats = Seats::new(workers.saturating_sub(cores_beside_selfplay()));
    std::thread::scope(|scope| {
        let beside = scope.spawn(|| -> Result<(), PipelineError> {
            let pool =
                pool_beside_selfplay(cores_beside_selfplay()).map_err(|e| PipelineError::Io {
                    path: run.to_path_buf(),
                    message: format!("a thread pool beside self-play: {e}"),
                })?;
            let done = pool.install(|| {
                train_stage(
                    cfg,
                    run,
                    (g, "train_beside"),
                    init,
                    plan,
                    &variant,
                    device,
                    &mut |s, _| step.store(s, Ordering::Relaxed),
                )?;
                if more {
                    let start = start.with_own_variant();
                    teacher_games(cfg, &start, run, (next, "teacher_beside"), &mut Unseen)?;
                }
                Ok(())
            });
            seats.open(workers);
            done
        });
        let selfplay = if more {
            let player = (next, next_player);
            Some(selfplay_stage(
                cfg,
                run,
                player,
                (start, device),
                progress,
                runner,
                &seats,
            ))
        } else {
            None
        };
        // what is left of the training once self-play is done, shown and timed as waiting
        let watch = Stopwatch::start();
        let waited = !beside.is_finished();
        if waited {
            progress.stage(g, "train (beside self-play)", plan.1.steps);
            while !beside.is_finished() {
                progress.advance(step.load(Ordering::Relaxed), "");
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
        }
        let done = beside.join().map_err(|_| PipelineError::Io {
            path: run.to_path_buf(),
            message: "the training beside self-play panicked".into(),
        })?;
        done?;
        if waited {
            timing::record(run, Some(g), "train", watch.stop())?;
        }
        selfplay.transpose()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::threads::{current, ensure_training_thread, train_threads};

    #[test]
    fn training_in_the_pool_beside_self_play_keeps_to_its_cores() {
        // one more than the process-wide training count, so the two cannot agree by chance
        let cores = train_threads() + 1;
        let pool = pool_beside_selfplay(cores).expect("a pool");
        let installed = pool.install(|| {
            ensure_training_thread();
            current()
        });
        let every_worker = pool.broadcast(|_| {
            ensure_training_thread();
            current()
        });
        assert_eq!(installed, cores, "the training step's libtorch threads");
        assert_eq!(
            every_worker,
            vec![cores; cores],
            "each worker's libtorch threads"
        );
    }
}
