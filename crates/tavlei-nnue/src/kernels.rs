//! The two inner loops of inference, over fixed-size chunks so that the compiler turns them into
//! vector instructions: accumulator rows added and subtracted (i16), and the head's dot products
//! (clamped activations times i8 weights, both held as i16, summed in i32).

use crate::network::Network;
use crate::{QA, QB_SHIFT};

/// Accumulator columns handled at once (one 512-bit register of i16); rows in memory are padded
/// to whole chunks.
pub const CHUNK: usize = 32;

/// `out = base + sum of rows in added - sum of rows in removed`, rows `n` wide in `weights`.
/// Sums wrap like the vector instructions do, so the result does not depend on the order.
#[inline(always)]
pub fn apply_rows(out: &mut [i16], base: &[i16], weights: &[i16], added: &[u32], removed: &[u32]) {
    let n = out.len();
    for c in (0..n).step_by(CHUNK) {
        let mut sum = [0i16; CHUNK];
        sum.copy_from_slice(&base[c..c + CHUNK]);
        for &f in added {
            let row = &weights[f as usize * n + c..][..CHUNK];
            for (s, w) in sum.iter_mut().zip(row) {
                *s = s.wrapping_add(*w);
            }
        }
        for &f in removed {
            let row = &weights[f as usize * n + c..][..CHUNK];
            for (s, w) in sum.iter_mut().zip(row) {
                *s = s.wrapping_sub(*w);
            }
        }
        out[c..c + CHUNK].copy_from_slice(&sum);
    }
}

/// `sum clamp(acc[i], 0, 127) * w[i]` in i32: the clipped-ReLU activations times one row of the
/// head (each product below 2^14 in size: no overflow below 2^16 columns). Clamping inside the
/// loop costs two vector instructions and spares a buffer of activations.
#[inline(always)]
pub fn clamped_dot(acc: &[i16], w: &[i16]) -> i32 {
    let mut lanes = [0i32; CHUNK];
    for (a, w) in acc.chunks_exact(CHUNK).zip(w.chunks_exact(CHUNK)) {
        for ((l, a), w) in lanes.iter_mut().zip(a).zip(w) {
            *l += (*a).clamp(0, QA as i16) as i32 * *w as i32;
        }
    }
    lanes.iter().sum()
}

/// The head on the accumulator `acc` for side index `s`: `y_q`, 127 * 64 per logit.
#[inline(always)]
pub fn head(net: &Network, acc: &[i16], s: usize) -> i64 {
    let (n, h) = (acc.len(), net.meta.hidden);
    let mut y = net.out_bias[s] as i64;
    for k in s * h..(s + 1) * h {
        let pre = clamped_dot(acc, &net.l1_weight[k * n..][..n]) as i64 + net.l1_bias[k] as i64;
        // arithmetic shift: floor division by QB, the contract's rounding
        let hidden = (pre >> QB_SHIFT).clamp(0, QA as i64);
        y += hidden * net.out_weight[k] as i64;
    }
    y
}

// The same generic code compiled with wider vector instructions; `dispatch_*` picks one at run
// time (the feature test is a cached atomic load).
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::*;

    /// SAFETY (callers): the CPU must support AVX-512BW.
    #[target_feature(enable = "avx512bw")]
    pub unsafe fn apply_rows_avx512(
        out: &mut [i16],
        base: &[i16],
        weights: &[i16],
        added: &[u32],
        removed: &[u32],
    ) {
        apply_rows(out, base, weights, added, removed)
    }

    /// SAFETY (callers): the CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn apply_rows_avx2(
        out: &mut [i16],
        base: &[i16],
        weights: &[i16],
        added: &[u32],
        removed: &[u32],
    ) {
        apply_rows(out, base, weights, added, removed)
    }

    /// SAFETY (callers): the CPU must support AVX-512BW.
    #[target_feature(enable = "avx512bw")]
    pub unsafe fn head_avx512(net: &Network, acc: &[i16], s: usize) -> i64 {
        head(net, acc, s)
    }

    /// SAFETY (callers): the CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn head_avx2(net: &Network, acc: &[i16], s: usize) -> i64 {
        head(net, acc, s)
    }
}

/// `apply_rows` with the widest vector instructions the CPU has.
pub fn dispatch_apply_rows(
    out: &mut [i16],
    base: &[i16],
    weights: &[i16],
    added: &[u32],
    removed: &[u32],
) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the CPU was just checked for AVX-512BW.
            return unsafe { x86::apply_rows_avx512(out, base, weights, added, removed) };
        }
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU was just checked for AVX2.
            return unsafe { x86::apply_rows_avx2(out, base, weights, added, removed) };
        }
    }
    apply_rows(out, base, weights, added, removed)
}

/// `head` with the widest vector instructions the CPU has.
pub fn dispatch_head(net: &Network, acc: &[i16], s: usize) -> i64 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the CPU was just checked for AVX-512BW.
            return unsafe { x86::head_avx512(net, acc, s) };
        }
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU was just checked for AVX2.
            return unsafe { x86::head_avx2(net, acc, s) };
        }
    }
    head(net, acc, s)
}
