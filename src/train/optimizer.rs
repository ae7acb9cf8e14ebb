//! SGD with momentum and Adam, written over tch tensors so that their state (momenta) can be
//! saved with a checkpoint and an interrupted run resumes exactly. L2 regularisation enters as
//! `weight_decay * w` added to each gradient (the gradient of `weight_decay/2 * |w|^2`).

use std::path::Path;

use tch::nn::VarStore;
use tch::{Kind, Tensor};

use super::config::{OptimizerKind, TrainConfig};

const BETA1: f64 = 0.9;
const BETA2: f64 = 0.999;
const EPS: f64 = 1e-8;

pub struct Optimizer {
    kind: OptimizerKind,
    momentum: f64,
    weight_decay: f64,
    /// Trainable parameters, sorted by name so state files line up.
    params: Vec<(String, Tensor)>,
    /// SGD: momentum buffers; Adam: first moments.
    first: Vec<Tensor>,
    /// Adam: second moments.
    second: Vec<Tensor>,
    /// Updates applied so far (Adam's bias correction).
    pub updates: u64,
}

impl Optimizer {
    pub fn new(vs: &VarStore, cfg: &TrainConfig) -> Optimizer {
        let mut params: Vec<(String, Tensor)> = vs
            .variables()
            .into_iter()
            .filter(|(_, t)| t.requires_grad())
            .collect();
        params.sort_by(|a, b| a.0.cmp(&b.0));
        let zeros = |params: &[(String, Tensor)]| {
            params
                .iter()
                .map(|(_, t)| t.zeros_like())
                .collect::<Vec<_>>()
        };
        Optimizer {
            kind: cfg.optimizer,
            momentum: cfg.momentum,
            weight_decay: cfg.weight_decay,
            first: zeros(&params),
            second: if cfg.optimizer == OptimizerKind::Adam {
                zeros(&params)
            } else {
                vec![]
            },
            params,
            updates: 0,
        }
    }

    pub fn zero_grad(&mut self) {
        for (_, p) in &mut self.params {
            let mut g = p.grad();
            if g.defined() {
                let _ = g.zero_();
            }
        }
    }

    /// One update with learning rate `lr` from the gradients in place. Adam updates its moments in
    /// place (as `torch.optim.Adam` does): ten kernels and four temporaries per parameter, where
    /// the textbook formula takes sixteen and eleven.
    pub fn step(&mut self, lr: f64) {
        self.updates += 1;
        let t = self.updates as i32;
        let correction1 = 1.0 - BETA1.powi(t);
        let sqrt_correction2 = (1.0 - BETA2.powi(t)).sqrt();
        tch::no_grad(|| {
            for (i, (_, p)) in self.params.iter_mut().enumerate() {
                let g = p.grad();
                if !g.defined() {
                    continue;
                }
                let g = if self.weight_decay > 0.0 {
                    &g + &*p * self.weight_decay
                } else {
                    g
                };
                match self.kind {
                    OptimizerKind::Sgd => {
                        let buf = &mut self.first[i];
                        let _ = buf.g_mul_scalar_(self.momentum).g_add_(&g);
                        let _ = p.g_sub_(&(&*buf * lr));
                    }
                    OptimizerKind::Adam => {
                        let (m, v) = (&mut self.first[i], &mut self.second[i]);
                        // m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2
                        let _ = m.lerp_(&g, 1.0 - BETA1);
                        let _ = v.lerp_(&g.square(), 1.0 - BETA2);
                        // p <- p - lr m_hat / (sqrt(v_hat) + eps), as p + m / denom with
                        // denom = -(sqrt(v) / sqrt(c2) + eps) * c1 / lr
                        if lr == 0.0 {
                            continue;
                        }
                        let mut denom = v.sqrt();
                        let _ = denom
                            .g_div_scalar_(sqrt_correction2)
                            .g_add_scalar_(EPS)
                            .g_mul_scalar_(-correction1 / lr);
                        let _ = p.addcdiv_(&*m, &denom);
                    }
                }
            }
        });
    }

    /// Saves the momenta (safetensors) under a temporary name, then puts them in place atomically.
    pub fn save(&self, path: &Path) -> Result<(), tch::TchError> {
        let mut named: Vec<(String, Tensor)> = Vec::new();
        for (i, (name, _)) in self.params.iter().enumerate() {
            named.push((format!("first.{name}"), self.first[i].to_kind(Kind::Float)));
            if let Some(s) = self.second.get(i) {
                named.push((format!("second.{name}"), s.to_kind(Kind::Float)));
            }
        }
        named.push(("updates".into(), Tensor::from_slice(&[self.updates as i64])));
        let tmp = path.with_extension("tmp.safetensors");
        Tensor::write_safetensors(&named, &tmp)?;
        crate::atomic::persist(&tmp, path).map_err(|e| tch::TchError::FileFormat(e.to_string()))
    }

    pub fn load(&mut self, path: &Path) -> Result<(), tch::TchError> {
        let named: std::collections::HashMap<String, Tensor> =
            Tensor::read_safetensors(path)?.into_iter().collect();
        let missing = |name: &str| {
            tch::TchError::FileFormat(format!("optimizer state {} lacks {name}", path.display()))
        };
        tch::no_grad(|| -> Result<(), tch::TchError> {
            for (i, (name, p)) in self.params.iter().enumerate() {
                let first = named
                    .get(&format!("first.{name}"))
                    .ok_or_else(|| missing(name))?;
                self.first[i].copy_(&first.to_device(p.device()));
                if let Some(s) = self.second.get_mut(i) {
                    let second = named
                        .get(&format!("second.{name}"))
                        .ok_or_else(|| missing(name))?;
                    s.copy_(&second.to_device(p.device()));
                }
            }
            Ok(())
        })?;
        let updates = named.get("updates").ok_or_else(|| missing("updates"))?;
        self.updates = updates.int64_value(&[0]) as u64;
        Ok(())
    }
}
