//! Settings of the alpha-beta agent (`configs/alphabeta.toml`): the evaluation's weights and the
//! search's table size, clock checks, value scale, opening noise and quiescence.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::heuristic::EvalWeights;
use crate::config::{ConfigError, Invalid, Settings};

/// Settings of the alpha-beta agent; `configs/alphabeta.toml` documents every field, and
/// `Default` equals that file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlphaBetaConfig {
    pub eval: EvalWeights,
    pub search: SearchSettings,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchSettings {
    /// Transposition table size in MiB.
    pub tt_megabytes: usize,
    /// Nodes between looks at the clock (or node budget).
    pub check_every: u64,
    /// With a time limit, no new iteration starts after this share of the time has passed.
    pub new_iteration_share: f32,
    /// With a time or node limit, no new iteration starts whose first root move is predicted
    /// not to finish (`clock`); false starts every one the share allows. Missing from older
    /// files: true.
    #[serde(default = "default_predict_iterations")]
    pub predict_iterations: bool,
    /// Scores map to values in [-1, 1] as tanh(score / value_scale).
    pub value_scale: f32,
    /// Largest evaluation offset in a game's sampling phase (see `AlphaBeta::vary`), at
    /// temperature 1. Missing from older files: the default.
    #[serde(default = "default_opening_noise")]
    pub opening_noise: i32,
    /// Plies of captures (and immediate wins) searched past the depth before a leaf is
    /// evaluated; 0 evaluates at the depth. Missing from older files: 0.
    #[serde(default)]
    pub quiescence: u32,
    /// In the quiescence search, the king's escape threats are searched too: attackers facing
    /// an open line to an escape square may only block it (or take the king), and the
    /// defenders may move the king where two lines open (a fork). Missing from older files:
    /// false.
    #[serde(default)]
    pub escape_threats: bool,
    /// With a learned evaluation (`nnue=`), the compiled evaluation is added to its score at
    /// this weight when the searching player holds the attackers (`blend_attacking`) or the
    /// defenders (`blend_defending`), both read as logits (a compiled score `s` is the logit
    /// `2 s / value_scale`, the one its value `tanh(s / value_scale)` implies). The weight is the
    /// root's, the same at every node of one search, so scores stay comparable across the
    /// tree. 0: the learned score alone. Missing from older files: 0.
    #[serde(default)]
    pub blend_attacking: f32,
    #[serde(default)]
    pub blend_defending: f32,
    /// Late move reductions: where three or more plies are left to search, quiet moves ordered
    /// after the first `late_move_start` (no capture, win, table or killer move, and not the
    /// king's) are first searched this many plies shallower with a null window, and again at
    /// full depth only when they beat alpha. 0: every move at full depth. Missing from older
    /// files: 0 (and 4 for `late_move_start`).
    #[serde(default)]
    pub late_move_reduction: u32,
    #[serde(default = "default_late_move_start")]
    pub late_move_start: u32,
}

fn default_late_move_start() -> u32 {
    SearchSettings::default().late_move_start
}

fn default_predict_iterations() -> bool {
    SearchSettings::default().predict_iterations
}

fn default_opening_noise() -> i32 {
    SearchSettings::default().opening_noise
}

/// The largest weight of the compiled evaluation beside a learned one.
pub const MAX_BLEND: f32 = 8.0;

/// The most quiescence plies a settings file may ask for.
pub const MAX_QUIESCENCE: u32 = 32;

/// The most plies a late move reduction may take off.
pub const MAX_REDUCTION: u32 = 4;

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            tt_megabytes: 16,
            check_every: 1024,
            new_iteration_share: 1.0,
            predict_iterations: true,
            value_scale: 600.0,
            opening_noise: 50,
            quiescence: 0,
            escape_threats: false,
            blend_attacking: 0.0,
            blend_defending: 0.0,
            late_move_reduction: 0,
            late_move_start: 4,
        }
    }
}

/// The repository's settings files, built into the binary so that their names work from any
/// directory (the balance study's default agent names one); a file at that path, where there is
/// one, is read instead.
const BUILT_IN: [(&str, &str); 6] = [
    (
        "configs/alphabeta/quiescence.toml",
        include_str!("../../../configs/alphabeta/quiescence.toml"),
    ),
    (
        "configs/alphabeta/threats.toml",
        include_str!("../../../configs/alphabeta/threats.toml"),
    ),
    (
        "configs/alphabeta/brandubh.toml",
        include_str!("../../../configs/alphabeta/brandubh.toml"),
    ),
    (
        "configs/alphabeta/hybrid.toml",
        include_str!("../../../configs/alphabeta/hybrid.toml"),
    ),
    (
        "configs/alphabeta/hybrid-quiescence.toml",
        include_str!("../../../configs/alphabeta/hybrid-quiescence.toml"),
    ),
    (
        "configs/alphabeta/hybrid-reductions.toml",
        include_str!("../../../configs/alphabeta/hybrid-reductions.toml"),
    ),
];

/// The built-in text of the repository's settings file named `path`, when no file is there.
pub fn built_in(path: &Path) -> Option<&'static str> {
    BUILT_IN
        .iter()
        .find(|(name, _)| Path::new(name) == path)
        .filter(|_| !path.exists())
        .map(|(_, text)| *text)
}

impl AlphaBetaConfig {
    /// Reads and checks an alpha-beta settings file, or the built-in copy of one of the
    /// repository's (`configs/alphabeta/NAME.toml`) when no file is at that path.
    pub fn load(path: impl AsRef<Path>) -> Result<AlphaBetaConfig, ConfigError> {
        let path = path.as_ref();
        match built_in(path) {
            Some(text) => AlphaBetaConfig::parse(text, &format!("{} (built in)", path.display())),
            None => crate::config::load(path),
        }
    }

    /// Parses and checks alpha-beta settings; `origin` names them in errors.
    pub fn parse(text: &str, origin: &str) -> Result<AlphaBetaConfig, ConfigError> {
        crate::config::parse(text, origin)
    }
}

impl Settings for AlphaBetaConfig {
    fn check(&self) -> Result<(), Invalid> {
        let s = &self.search;
        if !(1..=65_536).contains(&s.tt_megabytes) {
            return Err("search.tt_megabytes must lie in 1..=65536".into());
        }
        if s.check_every == 0 {
            return Err("search.check_every must be at least 1".into());
        }
        if !(s.new_iteration_share > 0.0 && s.new_iteration_share <= 1.0) {
            return Err("search.new_iteration_share must lie in (0, 1]".into());
        }
        if !(s.value_scale.is_finite() && s.value_scale > 0.0) {
            return Err("search.value_scale must be positive".into());
        }
        if !(0..=self.eval.material * 10).contains(&s.opening_noise) {
            return Err("search.opening_noise must lie in 0..=10 * eval.material".into());
        }
        if s.quiescence > MAX_QUIESCENCE {
            return Err(format!("search.quiescence must lie in 0..={MAX_QUIESCENCE}").into());
        }
        if s.late_move_reduction > MAX_REDUCTION {
            return Err(
                format!("search.late_move_reduction must lie in 0..={MAX_REDUCTION}").into(),
            );
        }
        if s.late_move_start == 0 {
            return Err(
                "search.late_move_start must be at least 1 (the first move is never reduced)"
                    .into(),
            );
        }
        for (name, w) in [
            ("blend_attacking", s.blend_attacking),
            ("blend_defending", s.blend_defending),
        ] {
            if !(w.is_finite() && (0.0..=MAX_BLEND).contains(&w)) {
                return Err(format!("search.{name} must lie in 0..={MAX_BLEND}, not {w}").into());
            }
        }
        if self.eval.material <= 0 {
            return Err("eval.material must be positive".into());
        }
        Ok(())
    }
}
