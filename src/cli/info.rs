//! `tavlei info [--device auto|cpu|cuda]`.

use anyhow::Result;
use clap::Args;
use tavlei::nn::device::{
    cuda_library_mapped, gpu_driver_present, torch_cuda_library, DeviceChoice,
    TORCH_CUDA_LIBRARY_VAR,
};

#[derive(Args)]
pub struct InfoArgs {
    /// Where networks would run: auto, cpu or cuda.
    #[arg(long, default_value = "auto")]
    device: DeviceChoice,
}

pub fn run(args: InfoArgs) -> Result<()> {
    println!("tavlei {}", env!("CARGO_PKG_VERSION"));
    // resolving first: it loads libtorch's CUDA half where a GPU driver is (or cuda is asked for)
    let device = args.device.resolve()?;
    println!(
        "libtorch: CUDA library {}, CUDA available: {}, CUDA devices: {}",
        if cuda_library_mapped() {
            "loaded"
        } else if gpu_driver_present() {
            "not loadable"
        } else {
            "not loaded (no NVIDIA driver)"
        },
        tch::Cuda::is_available(),
        tch::Cuda::device_count()
    );
    match torch_cuda_library() {
        Some(path) => println!("CUDA library path: {path} ({TORCH_CUDA_LIBRARY_VAR} overrides it)"),
        None => println!(
            "CUDA library path: none (the torch built against has no CUDA; {TORCH_CUDA_LIBRARY_VAR} names one)"
        ),
    }
    println!("device for networks: {device:?}");
    // int8 inference (`precision = "int8"`, `:int8`) is fast only with these instructions
    println!(
        "int8 inference: {}",
        tavlei::nn::int8::Kernel::best().describe()
    );
    println!("presets: {}", tavlei::rules::presets::PRESET_NAMES.len());
    Ok(())
}
