//! Independent jobs on as many worker threads as rayon has (`--threads`), heard in their given
//! order: a caller's output then does not depend on the number of threads or on which job
//! finished first.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// Runs `work` on every job; `on_result` hears the results in the order of `jobs` and returns
/// whether to go on. After a stop the jobs not yet heard are dropped (workers start no new
/// ones), so what is kept is the same on any number of threads.
pub fn run_in_order<J: Sync, R: Send>(
    jobs: &[J],
    work: impl Fn(&J) -> R + Sync,
    on_result: &mut dyn FnMut(&R) -> bool,
) -> Vec<R> {
    let workers = rayon::current_num_threads().clamp(1, jobs.len().max(1));
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (sender, finished) = mpsc::channel::<(usize, R)>();
    let mut heard: Vec<R> = Vec::with_capacity(jobs.len());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let sender = sender.clone();
            let (next, stop, work) = (&next, &stop, &work);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else {
                        break;
                    };
                    if sender.send((i, work(job))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        // jobs finish in any order; they are heard in the order given
        let mut waiting = BTreeMap::new();
        let mut go_on = true;
        for (i, result) in finished {
            waiting.insert(i, result);
            while go_on {
                let Some(result) = waiting.remove(&heard.len()) else {
                    break;
                };
                go_on = on_result(&result);
                heard.push(result);
                if !go_on {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    heard
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_arrive_in_order_and_a_stop_keeps_the_same_prefix() {
        let jobs: Vec<u64> = (0..50).collect();
        // later jobs finish first
        let work = |&j: &u64| {
            std::thread::sleep(std::time::Duration::from_micros(50 * (50 - j)));
            j * j
        };
        let mut seen = Vec::new();
        let all = run_in_order(&jobs, work, &mut |&r| {
            seen.push(r);
            true
        });
        let squares: Vec<u64> = jobs.iter().map(|j| j * j).collect();
        assert_eq!(all, squares);
        assert_eq!(seen, squares);
        let kept = run_in_order(&jobs, work, &mut |&r| r < 100);
        assert_eq!(kept, vec![0, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100]);
    }
}
