//! Lets every binary built from this crate find libtorch at run time without `LD_LIBRARY_PATH`,
//! and tells it where the CUDA half of libtorch is when the installed torch has one.
use std::path::PathBuf;
use std::process::Command;

fn main() {
    // the revision a pipeline run records
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs");
    if let Ok(out) = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
    {
        if out.status.success() {
            println!(
                "cargo:rustc-env=TAVLEI_GIT_REV={}",
                String::from_utf8_lossy(&out.stdout).trim()
            );
        }
    }
    println!("cargo:rerun-if-env-changed=LIBTORCH");
    println!("cargo:rerun-if-env-changed=LIBTORCH_USE_PYTORCH");
    println!("cargo:rerun-if-env-changed=PATH");
    let Some(lib_dir) = torch_lib_dir() else {
        println!("cargo:warning=libtorch not located: the binary will need LD_LIBRARY_PATH");
        return;
    };
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib_dir.display());
    // libtorch_cuda is not linked (Rust links with --as-needed and nothing names its symbols):
    // nn::device loads it at run time where a GPU driver is, so CPU-only machines do not pay
    // for loading it in every process.
    let cuda = lib_dir.join("libtorch_cuda.so");
    if cuda.exists() {
        println!(
            "cargo:rustc-env=TAVLEI_TORCH_CUDA_LIBRARY={}",
            cuda.display()
        );
    }
}

/// The `lib` folder of libtorch: from `LIBTORCH`, else from the Python torch package.
fn torch_lib_dir() -> Option<PathBuf> {
    if let Ok(root) = std::env::var("LIBTORCH") {
        return Some(PathBuf::from(root).join("lib"));
    }
    let python = std::env::var("PYTHON_SYS_EXECUTABLE").unwrap_or_else(|_| "python3".into());
    let out = Command::new(python)
        .args([
            "-c",
            "import torch, os; print(os.path.dirname(torch.__file__))",
        ])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let root = String::from_utf8(out.stdout).ok()?;
    Some(PathBuf::from(root.trim()).join("lib"))
}
