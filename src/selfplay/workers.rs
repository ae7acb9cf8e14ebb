//! Worker threads that play a run's lanes (`lane`): each worker takes whichever lane is ready,
//! plays one round of it (its games to their next leaves, one forward pass) and puts it back,
//! so every seated worker stays busy while any lane has games left. Finished games go to the
//! calling thread, which writes the shards. The games do not depend on the number of workers:
//! a lane's rounds are the same whichever thread plays them.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::config::SelfplayConfig;
use super::game::FinishedGame;
use super::lane::{thread_cpu_seconds, thread_queued_seconds, Lane, LaneCounters};
use crate::data::DataError;
use crate::rules::Position;
use crate::search::Evaluator;

/// How many workers may play now: worker `w` plays while `w < open`, and waits otherwise (the
/// pipeline keeps a seat closed while training runs beside self-play, and opens it after).
#[derive(Debug)]
pub struct Seats(AtomicUsize);

impl Seats {
    pub fn new(open: usize) -> Seats {
        Seats(AtomicUsize::new(open.max(1)))
    }

    /// Lets `open` workers play from now on.
    pub fn open(&self, open: usize) {
        self.0.store(open.max(1), Ordering::Relaxed);
    }

    fn seated(&self, worker: usize) -> bool {
        worker < self.0.load(Ordering::Relaxed)
    }
}

/// What the workers spent, summed over them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WorkerTimes {
    /// Core-seconds of the worker threads.
    pub cpu: f64,
    /// Wall seconds seated workers waited for a lane (every lane being played elsewhere).
    pub idle: f64,
    /// Seconds workers were ready to run but had no core (others held them).
    pub queued: f64,
}

type Job = (Lane, Box<dyn Evaluator + Send>);

struct Pool {
    ready: VecDeque<Job>,
    /// Lanes with games left, ready or being played.
    live: usize,
    counters: LaneCounters,
    times: WorkerTimes,
}

/// Plays every lane to its end on `threads` workers (as `seats` allow), handing each round's
/// finished games to `finished` on the calling thread. Stops at the first error `finished`
/// returns. Returns the lanes' counters summed and the workers' times.
pub fn play_lanes(
    lanes: Vec<Job>,
    threads: usize,
    seats: &Seats,
    (start, seed): (&Position, u64),
    cfg: &SelfplayConfig,
    finished: &mut dyn FnMut(Vec<FinishedGame>) -> Result<(), DataError>,
) -> Result<(LaneCounters, WorkerTimes), DataError> {
    let pool = Mutex::new(Pool {
        live: lanes.len(),
        ready: lanes.into(),
        counters: LaneCounters::default(),
        times: WorkerTimes::default(),
    });
    let turn = Condvar::new();
    let stop = AtomicBool::new(false);
    let lock = || pool.lock().unwrap_or_else(|e| e.into_inner());
    let (tx, rx) = mpsc::channel::<Vec<FinishedGame>>();
    let outcome = std::thread::scope(|scope| {
        for w in 0..threads.max(1) {
            let tx = tx.clone();
            let (turn, stop, lock) = (&turn, &stop, &lock);
            scope.spawn(move || {
                let (cpu, queued) = (thread_cpu_seconds(), thread_queued_seconds());
                let mut idle = 0.0;
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    if !seats.seated(w) {
                        if lock().live == 0 {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(20));
                        continue;
                    }
                    let job = {
                        let mut p = lock();
                        loop {
                            if let Some(job) = p.ready.pop_front() {
                                break Some(job);
                            }
                            if p.live == 0 || stop.load(Ordering::Relaxed) {
                                break None;
                            }
                            let waited = Instant::now();
                            p = turn
                                .wait_timeout(p, Duration::from_millis(50))
                                .unwrap_or_else(|e| e.into_inner())
                                .0;
                            idle += waited.elapsed().as_secs_f64();
                        }
                    };
                    let Some((mut lane, mut evaluator)) = job else {
                        break;
                    };
                    match lane.round((start, seed), cfg, evaluator.as_mut()) {
                        Some(done) => {
                            if !done.is_empty() && tx.send(done).is_err() {
                                // the caller stopped taking games: an error ends the run
                                stop.store(true, Ordering::Relaxed);
                            }
                            lock().ready.push_back((lane, evaluator));
                            turn.notify_one();
                        }
                        None => {
                            let mut p = lock();
                            p.live -= 1;
                            p.counters.add(&lane.counters());
                            turn.notify_all();
                        }
                    }
                }
                let mut p = lock();
                p.times.cpu += thread_cpu_seconds() - cpu;
                p.times.idle += idle;
                p.times.queued += thread_queued_seconds() - queued;
                turn.notify_all();
            });
        }
        drop(tx);
        // every worker's sender gone: every lane is over (or the run stopped)
        for done in rx {
            if let Err(e) = finished(done) {
                stop.store(true, Ordering::Relaxed);
                turn.notify_all();
                return Err(e);
            }
        }
        Ok(())
    });
    outcome?;
    let p = pool.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok((p.counters, p.times))
}
