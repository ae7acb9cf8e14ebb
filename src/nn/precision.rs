//! The number format of a network's forward passes at inference: `f32` as trained, `bf16`
//! (bfloat16 weights and activations, results read back as f32) or `int8` (8-bit weights and
//! activations, `nn::int8`). bf16 halves the bytes a convolution moves and runs on the CPU's bf16
//! dot-product instructions (avx512_bf16) where there are some; int8 runs four products to a
//! 32-bit lane (AVX-512 VNNI). Their outputs differ from f32's by the rounding (bf16: 8
//! significant bits; int8: 256 levels per layer), so each is a choice a run makes and reports
//! (`benches/inference.rs` measures them), never a silent one.

use serde::{Deserialize, Serialize};
use tch::Kind;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    #[default]
    F32,
    Bf16,
    Int8,
}

impl Precision {
    /// The tensor kind of weights and activations in libtorch (int8 runs its own kernels; what
    /// it asks of libtorch, the calibration of its scales, runs in f32).
    pub fn kind(self) -> Kind {
        match self {
            Precision::F32 | Precision::Int8 => Kind::Float,
            Precision::Bf16 => Kind::BFloat16,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::Bf16 => "bf16",
            Precision::Int8 => "int8",
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A precision name that is not `f32`, `bf16` or `int8`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("precision `{0}` is not f32, bf16 or int8")]
pub struct UnknownPrecision(pub String);

impl std::str::FromStr for Precision {
    type Err = UnknownPrecision;

    fn from_str(text: &str) -> Result<Precision, UnknownPrecision> {
        match text {
            "f32" => Ok(Precision::F32),
            "bf16" => Ok(Precision::Bf16),
            "int8" => Ok(Precision::Int8),
            other => Err(UnknownPrecision(other.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_others_are_refused() {
        for p in [Precision::F32, Precision::Bf16, Precision::Int8] {
            assert_eq!(p.name().parse::<Precision>(), Ok(p));
            assert_eq!(serde_json::to_string(&p).expect("json"), format!("\"{p}\""));
        }
        let err = "fp16".parse::<Precision>().expect_err("not a precision");
        assert!(err.to_string().contains("fp16"), "{err}");
    }
}
