//! `--device auto|cpu|cuda`: where networks run.

use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DeviceChoice {
    /// CUDA when available, else the CPU.
    #[default]
    Auto,
    Cpu,
    Cuda,
}

#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    #[error("unknown device `{0}`: expected auto, cpu or cuda")]
    Unknown(String),
    #[error(
        "--device cuda, but libtorch sees no CUDA device (is the CUDA build of torch installed?)"
    )]
    NoCuda,
}

impl FromStr for DeviceChoice {
    type Err = DeviceError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(DeviceChoice::Auto),
            "cpu" => Ok(DeviceChoice::Cpu),
            "cuda" | "gpu" => Ok(DeviceChoice::Cuda),
            other => Err(DeviceError::Unknown(other.to_string())),
        }
    }
}

impl DeviceChoice {
    pub fn resolve(self) -> Result<tch::Device, DeviceError> {
        match self {
            DeviceChoice::Cpu => Ok(tch::Device::Cpu),
            DeviceChoice::Auto => Ok(tch::Device::cuda_if_available()),
            DeviceChoice::Cuda if tch::Cuda::is_available() => Ok(tch::Device::Cuda(0)),
            DeviceChoice::Cuda => Err(DeviceError::NoCuda),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_resolves() {
        assert_eq!("cpu".parse::<DeviceChoice>().ok(), Some(DeviceChoice::Cpu));
        assert!("tpu"
            .parse::<DeviceChoice>()
            .unwrap_err()
            .to_string()
            .contains("tpu"));
        assert_eq!(DeviceChoice::Cpu.resolve().ok(), Some(tch::Device::Cpu));
        assert_eq!(
            DeviceChoice::Cuda.resolve().is_ok(),
            tch::Cuda::is_available()
        );
    }
}
