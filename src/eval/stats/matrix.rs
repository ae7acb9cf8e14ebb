//! The small dense linear algebra and log-likelihood helpers the rating fits share.

/// `ln(1 + e^x)` without overflow.
pub(super) fn softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

/// Inverse of the row-major `n × n` matrix `m` by Gauss–Jordan elimination with partial
/// pivoting; `None` when a pivot is negligible against the matrix's largest entry.
pub(super) fn invert(mut m: Vec<f64>, n: usize) -> Option<Vec<f64>> {
    let scale = m.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    if !(scale.is_finite() && scale > 0.0) {
        return None;
    }
    let mut inv = vec![0.0; n * n];
    for i in 0..n {
        inv[i * n + i] = 1.0;
    }
    for col in 0..n {
        let pivot_row =
            (col..n).max_by(|&a, &b| m[a * n + col].abs().total_cmp(&m[b * n + col].abs()))?;
        let pivot = m[pivot_row * n + col];
        if pivot.is_nan() || pivot.abs() <= scale * 1e-15 {
            return None;
        }
        if pivot_row != col {
            for k in 0..n {
                m.swap(col * n + k, pivot_row * n + k);
                inv.swap(col * n + k, pivot_row * n + k);
            }
        }
        for k in 0..n {
            m[col * n + k] /= pivot;
            inv[col * n + k] /= pivot;
        }
        for row in 0..n {
            let factor = m[row * n + col];
            if row != col && factor != 0.0 {
                for k in 0..n {
                    m[row * n + k] -= factor * m[col * n + k];
                    inv[row * n + k] -= factor * inv[col * n + k];
                }
            }
        }
    }
    Some(inv)
}
