//! `tavlei info [--device auto|cpu|cuda]`.

use anyhow::Result;
use clap::Args;
use tavlei::nn::device::DeviceChoice;

#[derive(Args)]
pub struct InfoArgs {
    /// Where networks would run: auto, cpu or cuda.
    #[arg(long, default_value = "auto")]
    device: DeviceChoice,
}

pub fn run(args: InfoArgs) -> Result<()> {
    println!("tavlei {}", env!("CARGO_PKG_VERSION"));
    println!(
        "libtorch: CUDA available: {}, CUDA devices: {}",
        tch::Cuda::is_available(),
        tch::Cuda::device_count()
    );
    println!("device for networks: {:?}", args.device.resolve()?);
    println!("presets: {}", tavlei::rules::presets::PRESET_NAMES.len());
    Ok(())
}
