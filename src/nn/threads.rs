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
//! start; 1 if nobody configured anything). The same first call flushes denormal floats to zero
//! on that thread, which makes the shipped networks' forward passes 2 to 4.5 times faster.

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
    /// This thread's own training count (0: the process-wide one).
    static TRAIN_HERE: Cell<usize> = const { Cell::new(0) };
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

/// Sets this thread's libtorch threads to `n`, unless they already are (the first time, also
/// flushing denormal numbers to zero on this thread).
fn use_threads(n: usize) {
    fix_interop();
    THIS_THREAD.with(|current| {
        if current.get() == 0 {
            flush_denormals();
            // libtorch initialises a thread's count lazily, at its first use, from the count
            // last set by any thread: done now, so a trainer setting its own count on another
            // thread meanwhile cannot overwrite this thread's
            tch::get_num_threads();
        }
        if current.get() != n {
            tch::set_num_threads(n as i32);
            current.set(n);
        }
    });
}

/// Flushes denormal floats to zero in this thread's arithmetic (x86-64's FTZ and DAZ bits of
/// MXCSR, which are per thread, as `torch.set_flush_denormal` sets them). Trained weights and
/// activations hold numbers below 1.2e-38 that the CPU handles a hundred times slower than others:
/// measured on the shipped networks on one thread, a forward pass took 2 to 4.5 times longer
/// with them (benches/inference_torch.py). Their values change by less than 1.2e-38.
fn flush_denormals() {
    #[cfg(target_arch = "x86_64")]
    {
        const FLUSH_TO_ZERO: u32 = 1 << 15;
        const DENORMALS_ARE_ZERO: u32 = 1 << 6;
        let mut csr: u32 = 0;
        // SAFETY: stmxcsr and ldmxcsr read and write this thread's SSE control register through
        // a pointer to a local u32; setting FTZ and DAZ changes only how tiny floats round.
        unsafe {
            std::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack, preserves_flags));
            csr |= FLUSH_TO_ZERO | DENORMALS_ARE_ZERO;
            std::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack, preserves_flags, readonly));
        }
    }
}

/// Whether this thread flushes denormal floats to zero (false off x86-64).
pub fn flushes_denormals() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let mut csr: u32 = 0;
        // SAFETY: as in `flush_denormals`, a read of this thread's SSE control register.
        unsafe {
            std::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack, preserves_flags));
        }
        csr & (1 << 15) != 0
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Before a forward pass in a search: this thread's libtorch threads are the search count.
pub fn ensure_this_thread() {
    use_threads(search_threads());
}

/// Before a training step: this thread's libtorch threads are the training count (this
/// thread's own, where `train_here` set one).
pub fn ensure_training_thread() {
    match TRAIN_HERE.with(Cell::get) {
        0 => use_threads(train_threads()),
        n => use_threads(n),
    }
}

/// Training steps on this thread use `n` libtorch threads whatever the process-wide count: a
/// trainer beside self-play takes the cores self-play leaves.
pub fn train_here(n: usize) {
    TRAIN_HERE.with(|c| c.set(n.max(1)));
}

/// The libtorch threads this thread runs with now.
pub fn current() -> usize {
    tch::get_num_threads().max(1) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trainer_beside_self_play_keeps_its_own_thread_count() {
        let (here, elsewhere) = std::thread::spawn(|| {
            train_here(1);
            ensure_training_thread();
            let here = current();
            let elsewhere = std::thread::spawn(|| {
                ensure_training_thread();
                current()
            })
            .join()
            .expect("the thread ends");
            (here, elsewhere)
        })
        .join()
        .expect("the thread ends");
        assert_eq!(here, 1);
        assert_eq!(elsewhere, train_threads());
    }

    #[test]
    fn a_search_thread_gets_one_libtorch_thread_and_flushes_denormals() {
        // a fresh thread, as a search worker is
        let (threads, flushes, product) = std::thread::spawn(|| {
            ensure_this_thread();
            let tiny = tch::Tensor::from_slice(&[1e-39f32, 2.0]);
            let product: Vec<f32> = Vec::try_from(&tiny * 1.5).expect("floats");
            (current(), flushes_denormals(), product)
        })
        .join()
        .expect("the thread ends");
        assert_eq!(threads, search_threads());
        assert_eq!(search_threads(), 1, "the default is one thread per search");
        if cfg!(target_arch = "x86_64") {
            assert!(flushes);
            assert_eq!(product, vec![0.0, 3.0], "a denormal input counts as zero");
        }
    }
}
