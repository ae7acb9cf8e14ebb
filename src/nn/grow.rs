//! Growing a trained network into a larger one that computes the same function, so a run that
//! outgrows its network continues from it instead of starting again (issue 44).
//!
//! Wider (more channels in the tower) and deeper (more residual blocks): every weight the smaller
//! network has is copied into the leading slice of the larger one's, and the rest keep the larger
//! network's seeded random initialisation, with two exceptions that make the function the same.
//! The new channels are live (random, so they learn from the first step), but every weight by
//! which an old channel or a head would read a new channel is zero: the old channels and the
//! outputs compute what they did. A new block's second batch norm has zero scale and shift, so
//! the block adds 0 to the residual stream, whose values are non-negative: the ReLU after the sum
//! returns them unchanged, and its gradient reaches the zero scale wherever a value is positive.
//! (Silencing a new channel itself, by a zero scale, would leave it dead: ReLU's gradient at 0 is
//! 0.) The outputs are the same in evaluation and in training mode.

use std::collections::HashMap;

use tch::{Device, Tensor};
use thiserror::Error;

use super::checkpoint::Network;
use super::model::Architecture;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum GrowError {
    #[error(
        "cannot grow a {from} network into {to}: growing keeps every block and channel, so \
         neither may shrink"
    )]
    Shrinks {
        from: Architecture,
        to: Architecture,
    },
    #[error("cannot grow the network: its weight {name} {message}")]
    Weights { name: String, message: String },
}

/// `net` grown into `to` (at least as many blocks and channels), its new weights drawn from
/// `seed`; its metadata (variant, encoding, step, generation) carries over.
pub fn grow(net: &Network, to: Architecture, seed: u64) -> Result<Network, GrowError> {
    let from = net.meta.architecture;
    if to.blocks < from.blocks || to.channels < from.channels {
        return Err(GrowError::Shrinks { from, to });
    }
    let encoding = net.encoding();
    let device: Device = net.device();
    let mut grown = Network::with_encoding(&net.meta.variant, to, encoding, device, seed);
    grown.meta = net.meta.clone();
    grown.meta.architecture = to;
    let old = net.vs.variables();
    let new = grown.vs.variables();
    tch::no_grad(|| -> Result<(), GrowError> {
        for (name, target) in &new {
            if let Some(source) = old.get(name) {
                copy_leading(name, source, target)?;
            }
        }
        silence_new_parts(&new, from, to);
        Ok(())
    })?;
    Ok(grown)
}

/// Copies `source` into the leading slice of `target` (equal rank, no dimension smaller).
fn copy_leading(name: &str, source: &Tensor, target: &Tensor) -> Result<(), GrowError> {
    let (s, t) = (source.size(), target.size());
    if s.len() != t.len() || s.iter().zip(&t).any(|(a, b)| a > b) {
        return Err(GrowError::Weights {
            name: name.to_string(),
            message: format!("has shape {s:?}, which does not fit in {t:?}"),
        });
    }
    let mut slice = target.shallow_clone();
    for (dim, &len) in s.iter().enumerate() {
        slice = slice.narrow(dim as i64, 0, len);
    }
    slice.copy_(source);
    Ok(())
}

/// Zeroes the weights by which an old channel or a head reads a new channel, and the second
/// batch norm's scale and shift of each new block.
fn silence_new_parts(vars: &HashMap<String, Tensor>, from: Architecture, to: Architecture) {
    let new_channels = to.channels - from.channels;
    let unread = |conv: &str, rows: Option<i64>| {
        if let Some(w) = vars.get(&format!("{conv}.conv.weight")) {
            let rows = rows.unwrap_or(w.size()[0]);
            let _ = w
                .narrow(0, 0, rows)
                .narrow(1, from.channels, new_channels)
                .fill_(0.0);
        }
    };
    for i in 0..from.blocks {
        unread(&format!("block{i}.a"), Some(from.channels));
        unread(&format!("block{i}.b"), Some(from.channels));
    }
    unread("policy", None);
    unread("value", None);
    for i in from.blocks..to.blocks {
        for part in ["weight", "bias"] {
            if let Some(t) = vars.get(&format!("block{i}.b.bn.{part}")) {
                let _ = t.shallow_clone().zero_();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::{Kind, Tensor};

    fn arch(blocks: usize, channels: i64) -> Architecture {
        Architecture { blocks, channels }
    }

    /// A network whose batch norms hold non-trivial statistics (as a trained one's do), so that
    /// copying them is tested too.
    fn trained_looking(a: Architecture) -> Network {
        let net = Network::new("brandubh", a, Device::Cpu, 5);
        crate::nn::seeded::with_seed(6, || {
            tch::no_grad(|| {
                for (name, mut t) in net.vs.variables() {
                    if name.ends_with("running_var") {
                        t.copy_(&(t.rand_like() + 0.5));
                    } else if name.ends_with("running_mean") || name.ends_with("bn.bias") {
                        t.copy_(&(t.randn_like() * 0.3));
                    }
                }
            })
        });
        net
    }

    fn planes(net: &Network, n: i64) -> Tensor {
        crate::nn::seeded::with_seed(9, || {
            Tensor::rand(
                [n, net.meta.planes as i64, 7, 7],
                (Kind::Float, Device::Cpu),
            )
            .round()
        })
    }

    fn largest_difference(a: &Tensor, b: &Tensor) -> f64 {
        (a - b).abs().max().double_value(&[])
    }

    #[test]
    fn a_grown_network_computes_what_it_grew_from() {
        let small = trained_looking(arch(2, 8));
        let x = planes(&small, 6);
        for to in [arch(2, 12), arch(4, 8), arch(3, 16)] {
            let grown = grow(&small, to, 11).expect("grows");
            assert_eq!(grown.meta.architecture, to);
            assert_eq!(grown.net.blocks.len(), to.blocks);
            for train in [false, true] {
                let (p0, v0) = small.net.forward(&x, train);
                let (p1, v1) = grown.net.forward(&x, train);
                let (dp, dv) = (largest_difference(&p0, &p1), largest_difference(&v0, &v1));
                assert!(
                    dp < 1e-5 && dv < 1e-5,
                    "{to:?}, train {train}: policy off by {dp}, value by {dv}"
                );
            }
        }
    }

    #[test]
    fn the_grown_parts_are_not_dead() {
        // the first backward pass reaches what reads the new channels and the new block
        let small = trained_looking(arch(1, 8));
        let grown = grow(&small, arch(2, 12), 11).expect("grows");
        let x = planes(&small, 6);
        let (policy, value) = grown.net.forward(&x, true);
        (policy.square().mean(Kind::Float) + value.square().mean(Kind::Float)).backward();
        let vars = grown.vs.variables();
        for name in [
            "value.conv.weight",
            "policy.conv.weight",
            "block0.a.conv.weight",
        ] {
            let grad = vars[name].grad().narrow(1, 8, 4);
            assert!(
                grad.abs().sum(Kind::Float).double_value(&[]) > 0.0,
                "{name} gets no gradient from the new channels"
            );
        }
        let grad = vars["block1.b.bn.weight"].grad();
        assert!(
            grad.abs().sum(Kind::Float).double_value(&[]) > 0.0,
            "the new block's zero scale gets no gradient"
        );
    }

    #[test]
    fn growing_never_shrinks() {
        let net = Network::new("brandubh", arch(2, 8), Device::Cpu, 1);
        for to in [arch(1, 8), arch(2, 4)] {
            let err = grow(&net, to, 1).err().expect("refused");
            assert!(err.to_string().contains("neither may shrink"), "{err}");
        }
    }
}
