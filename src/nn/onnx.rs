//! ONNX export: a checkpoint rebuilt in PyTorch and written as ONNX by `python/tavlei_onnx.py`
//! (embedded in the binary and run with the venv's python), then checked: onnxruntime, in a
//! process without PyTorch, must give the policy logits and values that tch gives on the same
//! seeded random planes, within [`TOLERANCE`]. The file is written under a temporary name and
//! renamed into place only once the check has passed.
//!
//! Planes and outputs travel between Rust and Python as `.npy` files in a temporary directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use tch::Device;

use super::checkpoint::{CheckpointError, Network};
use crate::atomic::{tmp_path, WriteError};
use crate::encode::policy::policy_size;
use crate::npy::{npy_header, parse_npy_header};
use crate::rules::{Position, Variant};

/// The largest absolute difference allowed between onnxruntime's and tch's outputs.
pub const TOLERANCE: f32 = 1e-4;
/// The make target that installs PyTorch, onnx and onnxruntime into the venv.
pub const SETUP_TARGET: &str = "make setup-onnx";
/// The venv `make setup` creates, under `$HOME`, unless `TAVLEI_VENV` names another: the
/// Makefile's `TAVLEI_VENV` default (a test checks the two agree).
const DEFAULT_VENV: &str = ".cache/tavlei/torch-2.13.0";
const SCRIPT: &str = include_str!("../../python/tavlei_onnx.py");
/// Exit statuses of the script (see its docstring).
const EXIT_MISSING_PACKAGE: i32 = 3;
const EXIT_BAD_CHECKPOINT: i32 = 4;

#[derive(Debug, thiserror::Error)]
pub enum OnnxError {
    #[error("no python at {}: run `{SETUP_TARGET}` (it installs PyTorch, onnx and onnxruntime into the venv), or name one with TAVLEI_PYTHON or TAVLEI_VENV", python.display())]
    NoPython { python: PathBuf },
    #[error("{message}: run `{SETUP_TARGET}` to install the ONNX packages")]
    MissingPackages { message: String },
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error("checkpoint {}: {message}", path.display())]
    BadCheckpoint { path: PathBuf, message: String },
    #[error("the ONNX {step} failed ({} exited with {status}): {stderr}", python.display())]
    Python {
        step: &'static str,
        python: PathBuf,
        status: String,
        stderr: String,
    },
    #[error("onnxruntime's output {name} for the batch of {batch}: {message}")]
    Output {
        name: String,
        batch: usize,
        message: String,
    },
    #[error("onnxruntime and tch disagree on {} at a batch of {}: largest differences {:.2e} (policy logits) and {:.2e} (value), tolerance {TOLERANCE:.0e}; {} was not written", checkpoint.display(), check.batch, check.policy_max_abs_diff, check.value_max_abs_diff, out.display())]
    Disagreement {
        checkpoint: PathBuf,
        out: PathBuf,
        check: BatchCheck,
    },
    #[error("cannot {action} {}: {message}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        message: String,
    },
    #[error(transparent)]
    Write(#[from] WriteError),
}

impl OnnxError {
    fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> OnnxError {
        let path = path.to_path_buf();
        move |e| OnnxError::Io {
            action,
            path,
            message: e.to_string(),
        }
    }
}

/// The project's venv: `TAVLEI_VENV` (`make -s env` exports it), else the default under `$HOME`.
/// Everything that runs the venv's python finds it here.
pub fn venv() -> PathBuf {
    let env = |key: &str| std::env::var_os(key).filter(|v| !v.is_empty());
    match env("TAVLEI_VENV") {
        Some(venv) => PathBuf::from(venv),
        None => env("HOME")
            .map(PathBuf::from)
            .unwrap_or_default()
            .join(DEFAULT_VENV),
    }
}

/// The python that runs the export: `TAVLEI_PYTHON` (a path, or a name looked up on `PATH` when
/// it runs), else `TAVLEI_VENV/bin/python`, else the default venv's. An error (naming the make
/// target) when the venv's python does not exist.
pub fn find_python() -> Result<PathBuf, OnnxError> {
    let env = |key: &str| std::env::var_os(key).filter(|v| !v.is_empty());
    if let Some(python) = env("TAVLEI_PYTHON") {
        return Ok(PathBuf::from(python));
    }
    let python = venv().join("bin/python");
    if python.is_file() {
        Ok(python)
    } else {
        Err(OnnxError::NoPython { python })
    }
}

#[derive(Clone, Debug)]
pub struct ExportOptions {
    pub python: PathBuf,
    /// Seeds the random planes of the check.
    pub seed: u64,
    /// Positions in the check's larger batch (the other has one).
    pub check_batch: usize,
}

/// What an export wrote and how closely onnxruntime followed tch.
#[derive(Clone, Debug, Serialize)]
pub struct ExportReport {
    pub onnx: PathBuf,
    pub variant: String,
    pub board_size: usize,
    pub planes: usize,
    pub policy_size: usize,
    /// The file as onnxruntime sees it.
    pub session: SessionView,
    pub checks: Vec<BatchCheck>,
    pub tolerance: f32,
}

/// Inputs, outputs and metadata of an ONNX file, read back by onnxruntime.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionView {
    pub inputs: Vec<TensorView>,
    pub outputs: Vec<TensorView>,
    pub metadata: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TensorView {
    pub name: String,
    pub shape: Vec<Dim>,
    /// onnxruntime's type name, `tensor(float)`.
    #[serde(rename = "type")]
    pub kind: String,
}

/// A dimension: fixed, or named (the dynamic `batch`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Dim {
    Fixed(u64),
    Named(String),
}

/// The largest absolute differences between onnxruntime's and tch's outputs on one batch.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BatchCheck {
    pub batch: usize,
    pub policy_max_abs_diff: f32,
    pub value_max_abs_diff: f32,
}

impl BatchCheck {
    pub fn passes(&self) -> bool {
        self.policy_max_abs_diff <= TOLERANCE && self.value_max_abs_diff <= TOLERANCE
    }
}

/// Writes the checkpoint at `checkpoint` (a network for `variant`) as the ONNX file `out`, after
/// checking it against tch on a batch of one and one of `options.check_batch` random planes
/// (the larger batch starts with the variant's start position). On any error `out` is left as
/// it was.
pub fn export_onnx(
    checkpoint: &Path,
    variant: &Arc<Variant>,
    out: &Path,
    options: &ExportOptions,
) -> Result<ExportReport, OnnxError> {
    let net = Network::load(checkpoint, Some(variant.name()), Device::Cpu)?;
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(OnnxError::io("create", dir))?;
    }
    let tmp = tmp_path(out);
    let report = export_checked(&net, checkpoint, variant, out, &tmp, options);
    match report {
        Ok(report) => {
            crate::atomic::persist(&tmp, out)?;
            Ok(report)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// The export to `tmp` and its check, everything but the rename.
fn export_checked(
    net: &Network,
    checkpoint: &Path,
    variant: &Arc<Variant>,
    out: &Path,
    tmp: &Path,
    options: &ExportOptions,
) -> Result<ExportReport, OnnxError> {
    let work = tempfile::tempdir().map_err(OnnxError::io("create", &std::env::temp_dir()))?;
    let script = work.path().join("tavlei_onnx.py");
    std::fs::write(&script, SCRIPT).map_err(OnnxError::io("write", &script))?;
    let size = variant.size;
    let encoding = net.encoding();
    let plane_names = serde_json::to_string(encoding.plane_names()).map_err(|e| OnnxError::Io {
        action: "describe the planes of",
        path: checkpoint.to_path_buf(),
        message: e.to_string(),
    })?;
    let python = &options.python;
    run_python(
        python,
        "export",
        Command::new(python)
            .arg(&script)
            .arg("export")
            .arg(checkpoint)
            .arg(tmp)
            .arg(format!("--board-size={size}"))
            .arg(format!("--plane-names={plane_names}")),
        checkpoint,
    )?;

    // the same planes through tch here and through onnxruntime there
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let per = encoding.planes() * size * size;
    let mut batches = Vec::new();
    for (k, n) in [1, options.check_batch.max(1)].into_iter().enumerate() {
        let mut planes: Vec<f32> = (0..n * per).map(|_| rng.random::<f32>()).collect();
        if k == 1 {
            encoding.encode_into(&Position::start(variant), &mut planes[..per]);
        }
        let path = work.path().join(format!("batch-{k}.npy"));
        write_npy(&path, &[n, encoding.planes(), size, size], &planes)?;
        let expected = net.evaluate_planes(&planes, n, size)?;
        batches.push((n, path, expected));
    }
    let mut evaluate = Command::new(python);
    evaluate.arg(&script).arg("evaluate").arg(tmp);
    evaluate.args(batches.iter().map(|(_, path, _)| path));
    let stdout = run_python(python, "evaluation", &mut evaluate, checkpoint)?;
    let session: SessionView = serde_json::from_str(&stdout).map_err(|e| OnnxError::Python {
        step: "evaluation",
        python: python.clone(),
        status: "success".into(),
        stderr: format!("its description is not the expected JSON ({e}): {stdout}"),
    })?;

    let p = policy_size(size);
    let mut checks = Vec::new();
    for (n, path, (policy, value)) in &batches {
        let read = |name: &str, shape: &[usize]| {
            read_npy_f32(&path.with_extension(format!("{name}.npy")), shape).map_err(|message| {
                OnnxError::Output {
                    name: name.into(),
                    batch: *n,
                    message,
                }
            })
        };
        let check = BatchCheck {
            batch: *n,
            policy_max_abs_diff: max_abs_diff(&read("policy", &[*n, p])?, policy),
            value_max_abs_diff: max_abs_diff(&read("value", &[*n])?, value),
        };
        if !check.passes() {
            return Err(OnnxError::Disagreement {
                checkpoint: checkpoint.to_path_buf(),
                out: out.to_path_buf(),
                check,
            });
        }
        checks.push(check);
    }
    Ok(ExportReport {
        onnx: out.to_path_buf(),
        variant: variant.name().to_string(),
        board_size: size,
        planes: encoding.planes(),
        policy_size: p,
        session,
        checks,
        tolerance: TOLERANCE,
    })
}

/// Runs one step of the script; its standard output, or an error read from its exit status.
fn run_python(
    python: &Path,
    step: &'static str,
    command: &mut Command,
    checkpoint: &Path,
) -> Result<String, OnnxError> {
    let output = command.output().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => OnnxError::NoPython {
            python: python.to_path_buf(),
        },
        _ => OnnxError::io("run", python)(e),
    })?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    // the script's own errors are its last line, `tavlei_onnx: ...`
    let message = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim_start_matches("tavlei_onnx: ")
        .to_string();
    match output.status.code() {
        Some(0) => Ok(String::from_utf8_lossy(&output.stdout).into_owned()),
        Some(EXIT_MISSING_PACKAGE) => Err(OnnxError::MissingPackages { message }),
        Some(EXIT_BAD_CHECKPOINT) => Err(OnnxError::BadCheckpoint {
            path: checkpoint.to_path_buf(),
            message,
        }),
        status => Err(OnnxError::Python {
            step,
            python: python.to_path_buf(),
            status: status.map_or("a signal".into(), |c| format!("status {c}")),
            stderr: last_lines(&stderr, 12),
        }),
    }
}

fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The largest absolute difference, infinite when a value is NaN or the lengths differ.
pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return f32::INFINITY;
    }
    a.iter().zip(b).fold(0.0, |worst, (x, y)| {
        let d = (x - y).abs();
        if d.is_nan() {
            f32::INFINITY
        } else {
            worst.max(d)
        }
    })
}

/// Writes float32 `data` of `shape` as an `.npy` file.
fn write_npy(path: &Path, shape: &[usize], data: &[f32]) -> Result<(), OnnxError> {
    let mut bytes = npy_header("<f4", shape);
    bytes.reserve(data.len() * 4);
    for x in data {
        bytes.extend_from_slice(&x.to_le_bytes());
    }
    std::fs::write(path, bytes).map_err(OnnxError::io("write", path))
}

/// Reads a little-endian float32 `.npy` file that must have `shape`.
fn read_npy_f32(path: &Path, shape: &[usize]) -> Result<Vec<f32>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let header = parse_npy_header(&bytes)
        .ok_or_else(|| format!("{} is not a version 1.0 .npy file", path.display()))?;
    if header.descr != "<f4" || header.fortran_order || header.shape != shape {
        return Err(format!(
            "{} holds {} {:?}{}, expected <f4 {shape:?}",
            path.display(),
            header.descr,
            header.shape,
            if header.fortran_order {
                " in Fortran order"
            } else {
                ""
            }
        ));
    }
    let data = &bytes[header.data_offset..];
    let len: usize = shape.iter().product();
    if data.len() != 4 * len {
        return Err(format!(
            "{} has {} data bytes, expected {}",
            path.display(),
            data.len(),
            4 * len
        ));
    }
    Ok(data
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_venv_is_the_makefiles() {
        let makefile = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Makefile"))
            .expect("the Makefile");
        let value = |key: &str| {
            makefile
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .map(str::trim)
                .unwrap_or_else(|| panic!("no `{key}` line in the Makefile"))
        };
        let venv = value("TAVLEI_VENV ?=").replace("$(TORCH_VERSION)", value("TORCH_VERSION :="));
        assert_eq!(venv, format!("$(HOME)/{DEFAULT_VENV}"));
    }

    #[test]
    fn npy_files_round_trip_and_wrong_shapes_are_named() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("x.npy");
        let data: Vec<f32> = (0..24).map(|i| i as f32 * 0.5 - 3.0).collect();
        write_npy(&path, &[2, 3, 4], &data).expect("writes");
        assert_eq!(read_npy_f32(&path, &[2, 3, 4]).expect("reads"), data);
        let err = read_npy_f32(&path, &[2, 12]).expect_err("wrong shape");
        assert!(err.contains("[2, 3, 4], expected <f4 [2, 12]"), "{err}");
        std::fs::write(&path, b"not npy").expect("writes");
        let err = read_npy_f32(&path, &[1]).expect_err("not npy");
        assert!(err.contains("not a version 1.0 .npy file"), "{err}");
    }

    #[test]
    fn differences_take_the_worst_and_a_nan_fails() {
        assert_eq!(max_abs_diff(&[1.0, 2.0, 3.0], &[1.0, 2.5, 2.75]), 0.5);
        assert_eq!(max_abs_diff(&[], &[]), 0.0);
        assert_eq!(max_abs_diff(&[1.0, f32::NAN], &[1.0, 0.0]), f32::INFINITY);
        assert_eq!(max_abs_diff(&[1.0], &[1.0, 2.0]), f32::INFINITY);
        let close = BatchCheck {
            batch: 1,
            policy_max_abs_diff: 3e-5,
            value_max_abs_diff: 0.0,
        };
        assert!(close.passes());
        let far = BatchCheck {
            value_max_abs_diff: 2e-4,
            ..close
        };
        assert!(!far.passes());
    }
}
