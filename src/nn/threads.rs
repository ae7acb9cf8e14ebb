//! How many threads libtorch may use: the project decides, not libtorch's defaults.
//!
//! libtorch's default intra-op pool has one thread per core and spins while it waits for them;
//! when anything else runs on the machine, a batch-1 forward pass of a small network then costs
//! tens to hundreds of milliseconds instead of well under one, and a time budget overruns many
//! times over. So every forward pass and training step runs on a thread whose libtorch thread
//! count was set here first, and the inter-op pool is fixed at one thread before any tensor op.
//!
//! The intra-op count is per OS thread under OpenMP: a search worker sets its own on its first
//! forward pass (`ensure_this_thread`), from the process-wide setting (`configure`, once at
//! start; 1 if nobody configured anything).

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;

/// Threads per forward pass in searches (self-play, matches, engines, analysis).
static SEARCH_THREADS: AtomicUsize = AtomicUsize::new(1);
/// Threads per training step; 0: as many as the machine has cores.
static TRAIN_THREADS: AtomicUsize = AtomicUsize::new(0);
static INTEROP: Once = Once::new();

thread_local! {
    /// The intra-op count this thread last set (0: none yet).
    static THIS_THREAD: Cell<usize> = const { Cell::new(0) };
}

/// The process-wide choice: `search` threads for every network forward pass in a search
/// (default 1, one per search worker), `train` for training steps (default: every core). Call
/// it first thing; later calls change the counts that threads pick up from then on.
pub fn configure(search: Option<usize>, train: Option<usize>) {
    fix_interop();
    if let Some(n) = search {
        SEARCH_THREADS.store(n.max(1), Ordering::Relaxed);
    }
    if let Some(n) = train {
        TRAIN_THREADS.store(n.max(1), Ordering::Relaxed);
    }
}

/// The intra-op threads of a search's forward pass.
pub fn search_threads() -> usize {
    SEARCH_THREADS.load(Ordering::Relaxed)
}

/// The intra-op threads of a training step.
pub fn train_threads() -> usize {
    match TRAIN_THREADS.load(Ordering::Relaxed) {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// Inter-op parallelism (independent ops of one graph side by side) buys nothing for these
/// small sequential networks; libtorch refuses a second setting, hence once.
fn fix_interop() {
    INTEROP.call_once(|| tch::set_num_interop_threads(1));
}

/// Sets this thread's libtorch threads to `n`, unless they already are.
fn use_threads(n: usize) {
    fix_interop();
    THIS_THREAD.with(|current| {
        if current.get() != n {
            tch::set_num_threads(n as i32);
            current.set(n);
        }
    });
}

/// Before a forward pass in a search: this thread's libtorch threads are the search count.
pub fn ensure_this_thread() {
    use_threads(search_threads());
}

/// Before a training step: this thread's libtorch threads are the training count.
pub fn ensure_training_thread() {
    use_threads(train_threads());
}

/// The libtorch threads this thread runs with now.
pub fn current() -> usize {
    tch::get_num_threads().max(1) as usize
}
