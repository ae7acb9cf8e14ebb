//! A learned evaluation of tafl positions for alpha-beta, in the NNUE style: sparse board
//! features feed an accumulator that a search updates move by move (only the squares a move
//! changes), then a small clipped-ReLU head gives a score for the side to move, all in integers.
//!
//! The feature set is the contract between this crate (inference) and the trainer (which
//! computes the same indices for its float model): see `features`.
//!
//! # The model and its quantisation
//! Float (as trained, `FloatNetwork`): `acc = b_ft + sum W_ft[f]` over the active features,
//! `a = clamp(acc, 0, 1)`, `h = clamp(W1[s] a + b1[s], 0, 1)`, `y = W2[s] . h + b2[s]`, `s` the
//! side to move; `y` is the logit that the side to move wins.
//!
//! Integer (`Network`): the first layer and the activations are scaled by `QA = 127`, so a
//! clipped activation is a `u8`-sized `0..=127` and the accumulator sums fit i16 (quantise refuses
//! a first layer whose largest possible sum would not). The head's weights are scaled by
//! `QB = 64`, so the trained clip `|W1| <= 127/64` fills i8 while keeping a resolution of 1/64;
//! `(sum a_q * w_q + b1 * 127 * 64) >> 6` is then `127 h` again (the shift floors), and
//! `y_q = sum h_q * round(64 W2) + round(8128 b2)` is `127 * 64 * y`. The search gets
//! `y_q * 1000 / 8128` truncated: `EVAL_PER_LOGIT = 1000` per logit. Rounding the weights costs a
//! few hundredths of a logit on typical nets (tests/quantisation.rs states the bound).
//!
//! # The file (`.nnue`, safetensors)
//! Tensors `ft.weight` I16 `[F, N]`, `ft.bias` I16 `[N]`, `l1.weight` I8 `[2, H, N]`, `l1.bias`
//! I32 `[2, H]`, `out.weight` I32 `[2, H]`, `out.bias` I32 `[2]`; `__metadata__` with `format =
//! "tavlei-nnue"`, `version = "1"`, `features = "psk1"`, `variant`, `board_size`, `width`,
//! `hidden`, `qa = "127"`, `qb = "64"`, `eval_per_logit = "1000"` and any provenance keys.
//! Loading checks every key, dtype and shape and names the file and the fault; `check_variant`
//! refuses another variant or board size. Saving is atomic and byte-deterministic.
//!
//! # Speed
//! The accumulator's row additions and the head's dot products are fixed-size chunk loops the
//! compiler vectorises; they are compiled again for AVX2 and AVX-512BW and picked at run time.

mod accumulator;
mod error;
pub mod features;
mod file;
mod float;
mod kernels;
mod meta;
mod network;

pub use accumulator::Accumulator;
pub use error::NnueError;
pub use features::{FeatureChange, FeatureSet};
pub use file::{FORMAT, VERSION};
pub use float::FloatNetwork;
pub use meta::Meta;
pub use network::{Network, MAX_WIDTH};

/// Score units per logit of the side to move's win.
pub const EVAL_PER_LOGIT: i32 = 1000;
/// Scale of the first layer and of activations (`a_q = 127 a`).
pub const QA: i32 = 127;
/// Scale of the head's weights.
pub const QB: i32 = 64;
/// `log2(QB)`: the head divides by QB with an arithmetic shift.
pub(crate) const QB_SHIFT: u32 = 6;
