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
//!
//! Forward passes and training steps also run with denormal floats flushed to zero
//! (`DenormalsFlushed`), which makes the shipped networks' forward passes 2 to 4.5 times faster;
//! only while they run, so the rest of the thread's arithmetic (softmax, noise, statistics, and
//! whatever a pooled thread runs next) keeps IEEE semantics.

use std::cell::Cell;
use std::marker::PhantomData;
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

/// Sets this thread's libtorch threads to `n`, unless they already are.
fn use_threads(n: usize) {
    fix_interop();
    THIS_THREAD.with(|current| {
        if current.get() == 0 {
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

/// x86-64's MXCSR bits that flush denormal results to zero (FTZ) and read denormal inputs as
/// zero (DAZ), as `torch.set_flush_denormal` sets them.
#[cfg(target_arch = "x86_64")]
const FLUSH_BITS: u32 = (1 << 15) | (1 << 6);

/// This thread's SSE control and status register.
#[cfg(target_arch = "x86_64")]
fn read_csr() -> u32 {
    let mut csr: u32 = 0;
    // SAFETY: stmxcsr stores this thread's MXCSR through a pointer to a local u32.
    unsafe {
        std::arch::asm!("stmxcsr [{}]", in(reg) &mut csr, options(nostack, preserves_flags));
    }
    csr
}

#[cfg(target_arch = "x86_64")]
fn write_csr(csr: u32) {
    // SAFETY: ldmxcsr loads this thread's MXCSR from a local u32; callers change only the
    // FTZ and DAZ bits of a value just read, which change how tiny floats round, nothing else.
    unsafe {
        std::arch::asm!("ldmxcsr [{}]", in(reg) &csr, options(nostack, preserves_flags, readonly));
    }
}

/// Denormal floats flushed to zero on this thread while the guard lives; dropping it puts back
/// the FTZ and DAZ bits it found (so guards nest). Trained weights and activations hold numbers
/// below 1.2e-38 that the CPU handles a hundred times slower than others: measured on the
/// shipped networks on one thread, a forward pass took 2 to 4.5 times longer with them
/// (benches/inference.rs, benches/inference_torch.py). Their values change by less than 1.2e-38.
/// Only this thread: libtorch's intra-op workers keep their own setting. A no-op off x86-64.
/// Not `Send`: it must be dropped on the thread whose register it changed. Rust's own float
/// arithmetic assumes IEEE floats (the compiler may move it across the guard's ends), so the
/// guard is for libtorch's work, not for Rust code.
pub struct DenormalsFlushed {
    #[cfg(target_arch = "x86_64")]
    saved: u32,
    _this_thread: PhantomData<*const ()>,
}

impl DenormalsFlushed {
    #[allow(clippy::new_without_default)]
    pub fn new() -> DenormalsFlushed {
        #[cfg(target_arch = "x86_64")]
        {
            let csr = read_csr();
            write_csr(csr | FLUSH_BITS);
            DenormalsFlushed {
                saved: csr & FLUSH_BITS,
                _this_thread: PhantomData,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        DenormalsFlushed {
            _this_thread: PhantomData,
        }
    }
}

impl Drop for DenormalsFlushed {
    fn drop(&mut self) {
        // only the two bits: the status flags the pass raised stay as they are
        #[cfg(target_arch = "x86_64")]
        write_csr((read_csr() & !FLUSH_BITS) | self.saved);
    }
}

/// `work` run with denormal floats flushed to zero on this thread (`DenormalsFlushed`).
pub fn flushed<T>(work: impl FnOnce() -> T) -> T {
    let _flushed = DenormalsFlushed::new();
    work()
}

/// Whether this thread flushes denormal floats to zero now (false off x86-64).
pub fn flushes_denormals() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        read_csr() & FLUSH_BITS == FLUSH_BITS
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
    use std::hint::black_box;

    /// A product whose IEEE result is a denormal: 1.5e-39, or 0 where denormals are flushed
    /// (the outer `black_box` keeps the compiler from moving the multiplication past the next
    /// change of the register).
    fn denormal_product() -> f32 {
        black_box(black_box(1e-39f32) * black_box(1.5f32))
    }

    #[test]
    fn train_here_sets_only_this_threads_training_count() {
        // the mechanism; the pipeline's pool gives its workers the role (`pipeline::overlap`)
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
    fn a_search_thread_gets_one_libtorch_thread_and_keeps_ieee_floats() {
        // a fresh thread, as a search worker is
        let (threads, flushes, product) = std::thread::spawn(|| {
            ensure_this_thread();
            (current(), flushes_denormals(), denormal_product())
        })
        .join()
        .expect("the thread ends");
        assert_eq!(threads, search_threads());
        assert_eq!(search_threads(), 1, "the default is one thread per search");
        assert!(
            !flushes,
            "setting the threads leaves the float environment alone"
        );
        assert_eq!(product, 1.5e-39);
    }

    #[test]
    fn denormals_are_flushed_inside_the_guard_and_restored_after_it() {
        let seen = std::thread::spawn(|| {
            let before = (flushes_denormals(), denormal_product());
            let guard = DenormalsFlushed::new();
            let inside = flushes_denormals();
            let tiny = tch::Tensor::from_slice(&[1e-39f32, 2.0]);
            let tensor: Vec<f32> = Vec::try_from(&tiny * 1.5).expect("floats");
            // a nested guard leaves the outer one's setting in place
            let nested = flushed(flushes_denormals);
            let still = flushes_denormals();
            drop(guard);
            let after = (flushes_denormals(), denormal_product());
            (before, [inside, nested, still], tensor, after)
        })
        .join()
        .expect("the thread ends");
        let (before, inside, tensor, after) = seen;
        assert_eq!(before, (false, 1.5e-39), "a fresh thread has IEEE floats");
        assert_eq!(after, (false, 1.5e-39), "the guard restores what it found");
        if cfg!(target_arch = "x86_64") {
            assert_eq!(inside, [true; 3], "flushed inside the guard, nested or not");
            assert_eq!(
                tensor,
                vec![0.0, 3.0],
                "libtorch reads a denormal input as zero"
            );
        }
    }
}
