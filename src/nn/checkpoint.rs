//! Checkpoints: safetensors weights plus a JSON sidecar (`NAME.safetensors` + `NAME.json`)
//! naming the variant, architecture and encoding version. Both are written atomically.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tch::nn::VarStore;
use tch::{Device, Tensor};

use super::model::{Architecture, PolicyValueNet};
use crate::encode::Encoding;
use crate::rules::Position;

pub const CHECKPOINT_FORMAT: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointMeta {
    pub format: u32,
    pub variant: String,
    pub architecture: Architecture,
    pub encoding_version: u32,
    pub planes: usize,
    /// Training steps behind these weights.
    pub step: u64,
    /// Self-play generation (0 for a fresh network).
    #[serde(default)]
    pub generation: u64,
}

impl CheckpointMeta {
    /// Reads and checks the sidecar text of the checkpoint at `path` (errors name both files):
    /// the format, the architecture's bounds, an encoding this build knows and its plane count.
    pub fn parse(text: &str, path: &Path) -> Result<CheckpointMeta, CheckpointError> {
        let sidecar = sidecar_path(path);
        let invalid = |message: String| CheckpointError::Sidecar {
            path: path.to_path_buf(),
            sidecar: sidecar.clone(),
            message,
        };
        let meta: CheckpointMeta =
            serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
        let arch = meta.architecture;
        if meta.format != CHECKPOINT_FORMAT
            || !(1..=64).contains(&arch.blocks)
            || !(1..=1024).contains(&arch.channels)
        {
            return Err(invalid(format!("format {} (this build reads {CHECKPOINT_FORMAT}), {} blocks x {} channels (1..=64 x 1..=1024)", meta.format, arch.blocks, arch.channels)));
        }
        let Some(encoding) = Encoding::from_version(meta.encoding_version) else {
            return Err(CheckpointError::WrongEncoding {
                path: path.to_path_buf(),
                found: meta.encoding_version,
                newest: Encoding::CURRENT.version(),
            });
        };
        if meta.planes != encoding.planes() {
            return Err(invalid(format!(
                "{} input planes, encoding version {} has {}",
                meta.planes,
                encoding.version(),
                encoding.planes()
            )));
        }
        Ok(meta)
    }

    /// Reads and checks the sidecar of the checkpoint whose weights are at `path`.
    pub fn read(path: &Path) -> Result<CheckpointMeta, CheckpointError> {
        let sidecar = sidecar_path(path);
        let text = std::fs::read_to_string(&sidecar).map_err(|e| CheckpointError::Io {
            path: path.to_path_buf(),
            message: format!("cannot read sidecar {}: {e}", sidecar.display()),
        })?;
        CheckpointMeta::parse(&text, path)
    }

    /// The input encoding of a checked sidecar.
    fn encoding(&self) -> Encoding {
        Encoding::from_version(self.encoding_version)
            .expect("parse() accepts only encodings this build knows")
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("checkpoint {path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("checkpoint {path}: sidecar {sidecar} is not valid: {message}")]
    Sidecar {
        path: PathBuf,
        sidecar: PathBuf,
        message: String,
    },
    #[error("checkpoint {path} is for variant `{found}`, not `{expected}`")]
    WrongVariant {
        path: PathBuf,
        found: String,
        expected: String,
    },
    #[error(
        "checkpoint {path} uses encoding version {found}; this build knows versions 1 to {newest}"
    )]
    WrongEncoding {
        path: PathBuf,
        found: u32,
        newest: u32,
    },
    #[error("checkpoint {path}: weights do not match the architecture in its sidecar ({message})")]
    Weights { path: PathBuf, message: String },
    #[error("the network's output could not be read: {0}")]
    Output(String),
}

/// A network with its weights and description, on one device.
pub struct Network {
    pub vs: VarStore,
    pub net: PolicyValueNet,
    pub meta: CheckpointMeta,
}

/// The sidecar path of a checkpoint: `x.safetensors` -> `x.json`.
pub fn sidecar_path(weights: &Path) -> PathBuf {
    weights.with_extension("json")
}

impl Network {
    /// A randomly initialised network for `variant` under the current encoding, its weights
    /// drawn from `seed` alone.
    pub fn new(variant: &str, architecture: Architecture, device: Device, seed: u64) -> Network {
        Network::with_encoding(variant, architecture, Encoding::CURRENT, device, seed)
    }

    /// The same under a given encoding (an older one, to compare against networks made with it).
    pub fn with_encoding(
        variant: &str,
        architecture: Architecture,
        encoding: Encoding,
        device: Device,
        seed: u64,
    ) -> Network {
        let vs = VarStore::new(device);
        let net = crate::nn::seeded::with_seed(seed, || {
            PolicyValueNet::new(&vs.root(), architecture, encoding.planes())
        });
        let meta = CheckpointMeta {
            format: CHECKPOINT_FORMAT,
            variant: variant.to_string(),
            architecture,
            encoding_version: encoding.version(),
            planes: encoding.planes(),
            step: 0,
            generation: 0,
        };
        Network { vs, net, meta }
    }

    /// Loads a checkpoint; `variant` (when given) must match the sidecar's.
    pub fn load(
        path: &Path,
        variant: Option<&str>,
        device: Device,
    ) -> Result<Network, CheckpointError> {
        let meta = CheckpointMeta::read(path)?;
        if let Some(expected) = variant {
            if meta.variant != expected {
                return Err(CheckpointError::WrongVariant {
                    path: path.to_path_buf(),
                    found: meta.variant,
                    expected: expected.into(),
                });
            }
        }
        let encoding = meta.encoding();
        let mut vs = VarStore::new(device);
        let net = crate::nn::seeded::exclusive(|| {
            PolicyValueNet::new(&vs.root(), meta.architecture, encoding.planes())
        });
        if !path.exists() {
            return Err(CheckpointError::Io {
                path: path.to_path_buf(),
                message: "weights file missing".into(),
            });
        }
        vs.load(path).map_err(|e| CheckpointError::Weights {
            path: path.to_path_buf(),
            message: first_line(&e.to_string()),
        })?;
        Ok(Network { vs, net, meta })
    }

    /// Writes weights and sidecar, each under a temporary name first.
    pub fn save(&self, path: &Path) -> Result<(), CheckpointError> {
        let io = |message: String| CheckpointError::Io {
            path: path.to_path_buf(),
            message,
        };
        if path.extension().and_then(|e| e.to_str()) != Some("safetensors") {
            return Err(io(
                "a checkpoint's weights file must end in .safetensors".into()
            ));
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| io(format!("cannot create {}: {e}", dir.display())))?;
        }
        // weights first, the sidecar last: a sidecar's presence means the checkpoint is whole.
        // The weights' temporary name must keep the .safetensors suffix that selects the format
        let tmp = path.with_extension("tmp.safetensors");
        self.vs
            .save(&tmp)
            .map_err(|e| io(first_line(&e.to_string())))?;
        crate::atomic::persist(&tmp, path).map_err(|e| io(e.to_string()))?;
        let sidecar = sidecar_path(path);
        let text = serde_json::to_string_pretty(&self.meta).map_err(|e| io(e.to_string()))?;
        crate::atomic::write(&sidecar, text + "\n").map_err(|e| io(e.to_string()))?;
        Ok(())
    }

    pub fn device(&self) -> Device {
        self.vs.device()
    }

    /// The input encoding these weights were trained on (checked when loaded).
    pub fn encoding(&self) -> Encoding {
        Encoding::from_version(self.meta.encoding_version).unwrap_or(Encoding::CURRENT)
    }

    /// Policy logits and values for a batch of positions of one variant (inference mode).
    pub fn evaluate(
        &self,
        positions: &[&Position],
    ) -> Result<(Vec<f32>, Vec<f32>), CheckpointError> {
        self.evaluate_with(positions, &|x| self.net.forward(x, false))
    }

    /// The same through another forward pass of these weights (the folded network).
    pub fn evaluate_with(
        &self,
        positions: &[&Position],
        forward: &dyn Fn(&Tensor) -> (Tensor, Tensor),
    ) -> Result<(Vec<f32>, Vec<f32>), CheckpointError> {
        let Some(first) = positions.first() else {
            return Ok((vec![], vec![]));
        };
        let size = first.variant().size;
        let input = self.encoding().encode_batch(positions);
        self.evaluate_planes_with(&input, positions.len(), size, forward)
    }

    /// The same from planes already encoded under `self.encoding()` (`n * planes * size * size`
    /// floats).
    /// A conversion that fails, or outputs of the wrong length, are an error (never an empty
    /// vector that a caller would index past).
    pub fn evaluate_planes(
        &self,
        planes: &[f32],
        n: usize,
        size: usize,
    ) -> Result<(Vec<f32>, Vec<f32>), CheckpointError> {
        self.evaluate_planes_with(planes, n, size, &|x| self.net.forward(x, false))
    }

    fn evaluate_planes_with(
        &self,
        planes: &[f32],
        n: usize,
        size: usize,
        forward: &dyn Fn(&Tensor) -> (Tensor, Tensor),
    ) -> Result<(Vec<f32>, Vec<f32>), CheckpointError> {
        let out = |e: tch::TchError| CheckpointError::Output(first_line(&e.to_string()));
        super::threads::ensure_this_thread();
        let (policy, value) = tch::no_grad(|| -> Result<_, CheckpointError> {
            let x = Tensor::from_slice(planes)
                .f_view([n as i64, -1, size as i64, size as i64])
                .map_err(out)?
                .to_device(self.device());
            let (policy, value) = forward(&x);
            let policy = policy.to_device(Device::Cpu).to_kind(tch::Kind::Float);
            let value = value.to_device(Device::Cpu).to_kind(tch::Kind::Float);
            Ok((
                Vec::<f32>::try_from(policy.flatten(0, -1)).map_err(out)?,
                Vec::<f32>::try_from(value).map_err(out)?,
            ))
        })?;
        let p = crate::encode::policy::policy_size(size);
        if policy.len() != n * p || value.len() != n {
            return Err(CheckpointError::Output(format!(
                "{} logits and {} values for {n} positions (expected {} and {n})",
                policy.len(),
                value.len(),
                n * p
            )));
        }
        Ok((policy, value))
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::policy::policy_size;
    use crate::rules::Variant;

    #[test]
    fn outputs_have_the_policy_layout_for_every_board_size() {
        let net = Network::new(
            "any",
            Architecture {
                blocks: 1,
                channels: 8,
            },
            Device::Cpu,
            1,
        );
        for name in ["brandubh", "tavlei", "copenhagen"] {
            let v = Variant::load(name).expect("preset");
            let pos = Position::start(&v);
            let (policy, value) = net.evaluate(&[&pos, &pos]).expect("evaluates");
            assert_eq!(policy.len(), 2 * policy_size(v.size));
            assert_eq!(value.len(), 2);
            assert!(value.iter().all(|v| v.abs() < 1.0));
            // the same input gives the same output up to rounding: oneDNN may sum a batch's rows
            // in different orders on some processors, so bit-equality is too strict
            let (a, b) = policy.split_at(policy_size(v.size));
            let worst = a
                .iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f32::max);
            assert!(
                worst < 1e-5,
                "same input, same output ({name}: off by {worst})"
            );
        }
    }

    #[test]
    fn save_and_load_round_trip_and_refuse_mismatches() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path();
        let path = dir.join("net.safetensors");
        let net = Network::new(
            "brandubh",
            Architecture {
                blocks: 1,
                channels: 8,
            },
            Device::Cpu,
            3,
        );
        net.save(&path).expect("saves");
        assert!(sidecar_path(&path).exists());
        let loaded = Network::load(&path, Some("brandubh"), Device::Cpu).expect("loads");
        let v = Variant::load("brandubh").expect("preset");
        let pos = Position::start(&v);
        assert_eq!(
            net.evaluate(&[&pos]).expect("evaluates"),
            loaded.evaluate(&[&pos]).expect("evaluates")
        );
        let wrong = Network::load(&path, Some("tavlei"), Device::Cpu)
            .err()
            .expect("wrong variant refused");
        assert!(
            wrong.to_string().contains("`brandubh`, not `tavlei`"),
            "{wrong}"
        );
        // a sidecar that claims another architecture
        let mut meta = net.meta.clone();
        meta.architecture.channels = 16;
        std::fs::write(
            sidecar_path(&path),
            serde_json::to_string(&meta).expect("json"),
        )
        .expect("writes");
        let err = Network::load(&path, None, Device::Cpu)
            .err()
            .expect("mismatch refused");
        assert!(err.to_string().contains("do not match"), "{err}");
        std::fs::write(sidecar_path(&path), "{ not json").expect("writes");
        assert!(Network::load(&path, None, Device::Cpu).is_err());
    }

    #[test]
    fn networks_of_the_older_encoding_load_and_read_their_own_planes() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path();
        let path = dir.join("old.safetensors");
        let arch = Architecture {
            blocks: 1,
            channels: 8,
        };
        let old = Network::with_encoding("brandubh", arch, Encoding::V1, Device::Cpu, 5);
        old.save(&path).expect("saves");
        let loaded = Network::load(&path, Some("brandubh"), Device::Cpu).expect("loads");
        assert_eq!(loaded.encoding(), Encoding::V1);
        assert_eq!(loaded.meta.planes, 14);
        let v = Variant::load("brandubh").expect("preset");
        let pos = Position::start(&v);
        assert_eq!(
            old.evaluate(&[&pos]).expect("evaluates"),
            loaded.evaluate(&[&pos]).expect("evaluates")
        );
        // a version this build does not know, and planes that do not fit the version
        for (version, planes, expected) in [
            (9, 14, "knows versions 1 to 2"),
            (1, 16, "16 input planes, encoding version 1 has 14"),
        ] {
            let mut meta = old.meta.clone();
            meta.encoding_version = version;
            meta.planes = planes;
            std::fs::write(
                sidecar_path(&path),
                serde_json::to_string(&meta).expect("json"),
            )
            .expect("writes");
            let err = Network::load(&path, None, Device::Cpu)
                .err()
                .expect("refused");
            assert!(err.to_string().contains(expected), "{err}");
        }
    }

    #[test]
    fn a_batch_of_the_wrong_shape_is_an_error_not_an_empty_output() {
        let arch = Architecture {
            blocks: 1,
            channels: 8,
        };
        let net = Network::new("brandubh", arch, Device::Cpu, 1);
        // 7 floats cannot be one 7x7 position of 16 planes
        let err = net.evaluate_planes(&[0.0; 7], 1, 7).expect_err("refused");
        assert!(
            err.to_string().contains("output could not be read"),
            "{err}"
        );
    }
}
