//! `--device auto|cpu|cuda`: where networks run, and the loading of libtorch's CUDA half.
//!
//! The binary does not link `libtorch_cuda`: loading it and its CUDA libraries cost every process
//! ~0.2 s and ~400 MB at start, on machines without a GPU too (measured: 0.52 s and 510 MB against
//! 0.33 s and 117 MB; the test suite starts hundreds of processes). It is loaded instead when a GPU driver is present or CUDA is asked for
//! ([`load_cuda`]), before libtorch's first question about CUDA: libtorch decides once per process
//! whether CUDA exists.

use std::ffi::CString;
use std::path::Path;
use std::str::FromStr;
use std::sync::OnceLock;

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

/// Where `libtorch_cuda.so` was at build time (set by build.rs when the installed torch has one).
const BUILT_TORCH_CUDA_LIBRARY: Option<&str> = option_env!("TAVLEI_TORCH_CUDA_LIBRARY");

/// The variable that names `libtorch_cuda.so` at run time, for a binary run on another machine
/// than the one it was built on (a GPU node of a cluster, with its own torch).
pub const TORCH_CUDA_LIBRARY_VAR: &str = "TAVLEI_TORCH_CUDA_LIBRARY";

/// The `libtorch_cuda.so` to load: [`TORCH_CUDA_LIBRARY_VAR`] when set, else the build's.
pub fn torch_cuda_library() -> Option<String> {
    std::env::var(TORCH_CUDA_LIBRARY_VAR)
        .ok()
        .filter(|path| !path.is_empty())
        .or_else(|| BUILT_TORCH_CUDA_LIBRARY.map(String::from))
}

static CUDA_LOADED: OnceLock<bool> = OnceLock::new();

/// True when libtorch's CUDA half is mapped into this process, however it got there (read off
/// `/proc/self/maps`; false where that cannot be read). It does not try to load it.
pub fn cuda_library_mapped() -> bool {
    std::fs::read_to_string("/proc/self/maps").is_ok_and(|maps| maps.contains("libtorch_cuda"))
}

/// True when an NVIDIA driver is loaded on this machine (cheap: no library is touched).
pub fn gpu_driver_present() -> bool {
    Path::new("/proc/driver/nvidia/version").exists()
}

/// Loads libtorch's CUDA half once per process (later calls return the first answer): true when
/// it is loaded. Call it before anything asks libtorch about CUDA; the CLI does at start when
/// [`gpu_driver_present`], and [`DeviceChoice::resolve`] does for `auto` (with a driver) and `cuda`.
pub fn load_cuda() -> bool {
    *CUDA_LOADED.get_or_init(|| {
        let Some(path) = torch_cuda_library() else {
            return false;
        };
        let Ok(path) = CString::new(path) else {
            return false;
        };
        // SAFETY: a NUL-terminated path; the library stays loaded for the life of the process
        // (the handle is never closed), so nothing it registers can dangle.
        let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
        if handle.is_null() {
            // SAFETY: dlerror's message is a NUL-terminated string valid until the next dl call
            let why = unsafe {
                let e = libc::dlerror();
                if e.is_null() {
                    String::new()
                } else {
                    std::ffi::CStr::from_ptr(e).to_string_lossy().into_owned()
                }
            };
            tracing::warn!(
                "could not load {}: {why}; CUDA stays off",
                path.to_string_lossy()
            );
        }
        !handle.is_null()
    })
}

impl DeviceChoice {
    pub fn resolve(self) -> Result<tch::Device, DeviceError> {
        if self == DeviceChoice::Cuda || (self == DeviceChoice::Auto && gpu_driver_present()) {
            load_cuda();
        }
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
