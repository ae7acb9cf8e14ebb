//! How the games of a match, ladder or balance study are played, as plain data (what a command
//! line or a script gives), and the arena's `PlayOptions` made from it.

use std::path::PathBuf;

use super::RunError;
use crate::eval::openings::OpeningPolicy;
use crate::eval::PlayOptions;
use crate::nn::device::DeviceChoice;
use crate::nn::{Network, NetworkEvaluator};
use crate::search::SearchConfig;

#[derive(Clone, Debug)]
pub struct PlaySettings {
    /// Seeds the agents, the draw of the openings and every game.
    pub seed: u64,
    /// Games in flight at once (their network evaluations are batched).
    pub concurrent: usize,
    /// Plies of each game's opening (0: from the start position); `None`: the run's default.
    pub opening_plies: Option<u32>,
    /// A checkpoint of the variant played whose raw policy draws the openings, move by move.
    pub opening_policy: Option<PathBuf>,
    /// Moves are sampled with this temperature for the first `temperature_plies`.
    pub temperature: f32,
    /// `None`: the run's default.
    pub temperature_plies: Option<u32>,
    pub c_puct: f32,
    pub fpu_reduction: f32,
    pub c_uct: f32,
    /// Value of a drawn end for the side to move at the root (contempt), in (-1, 1).
    pub draw_value: f32,
    /// Leaves a network agent's search gathers per network call (`None`: the search's default).
    pub leaf_batch: Option<usize>,
    /// Where the agents' networks run.
    pub device: DeviceChoice,
}

impl Default for PlaySettings {
    fn default() -> Self {
        let search = SearchConfig::default();
        PlaySettings {
            seed: 0,
            concurrent: 32,
            opening_plies: None,
            opening_policy: None,
            temperature: 1.0,
            temperature_plies: None,
            c_puct: search.c_puct,
            fpu_reduction: search.fpu_reduction,
            c_uct: search.c_uct,
            draw_value: 0.0,
            leaf_batch: None,
            device: DeviceChoice::Auto,
        }
    }
}

impl PlaySettings {
    /// The options of games of `variants` (the opening policy must be a checkpoint of each),
    /// with a run's defaults for the opening and the sampled plies.
    pub fn options(
        &self,
        opening_plies: u32,
        temperature_plies: u32,
        variants: &[&str],
    ) -> Result<PlayOptions, RunError> {
        let opening_policy = match &self.opening_policy {
            None => None,
            Some(path) => {
                let mut net = None;
                for v in variants {
                    net = Some(Network::load(path, Some(v), tch::Device::Cpu)?);
                }
                let net = net.ok_or(RunError::NoVariant)?;
                Some(OpeningPolicy::new(
                    &path.display().to_string(),
                    Box::new(NetworkEvaluator::new(net)),
                ))
            }
        };
        let options = PlayOptions {
            concurrent: self.concurrent,
            opening_plies: self.opening_plies.unwrap_or(opening_plies),
            opening_policy,
            temperature: self.temperature,
            temperature_plies: self.temperature_plies.unwrap_or(temperature_plies),
            search: SearchConfig {
                c_puct: self.c_puct,
                fpu_reduction: self.fpu_reduction,
                c_uct: self.c_uct,
                draw_value: self.draw_value,
                leaf_batch: self.leaf_batch,
                dirichlet_epsilon: 0.0,
                ..SearchConfig::default()
            },
            ..PlayOptions::default()
        };
        options.search.check().map_err(RunError::Search)?;
        Ok(options)
    }

    /// The device the agents' networks run on.
    pub fn device(&self) -> Result<tch::Device, RunError> {
        Ok(self.device.resolve()?)
    }
}
