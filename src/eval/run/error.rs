//! Why a match, ladder or balance study run stopped. Each variant keeps its cause's own words
//! (or names the file it was writing), so a command prints the message the library gives.

use std::path::PathBuf;

use crate::atomic::WriteError;
use crate::eval::agent::EvalError;
use crate::eval::stats::StatsError;
use crate::eval::study::StudyError;
use crate::nn::device::DeviceError;
use crate::nn::CheckpointError;
use crate::report::plot::PlotError;
use crate::rules::RulesError;
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Variant(#[from] RulesError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An agent that does not load, a store of other games, a store that takes no more.
    #[error(transparent)]
    Eval(#[from] EvalError),
    #[error(transparent)]
    Device(#[from] DeviceError),
    /// The opening policy's checkpoint (a missing file, or one of another variant).
    #[error(transparent)]
    OpeningPolicy(#[from] CheckpointError),
    #[error("--opening-policy: no variant to draw openings for")]
    NoVariant,
    /// Search settings out of range (`SearchConfig::check`).
    #[error("{0}")]
    Search(String),
    #[error(transparent)]
    Stats(#[from] StatsError),
    #[error(transparent)]
    Study(#[from] StudyError),
    #[error("writing {}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: WriteError,
    },
    #[error("writing {}", path.display())]
    Plot {
        path: PathBuf,
        #[source]
        source: PlotError,
    },
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Csv(#[from] csv::Error),
    #[error("a ladder needs at least two agents, got {0}")]
    TooFewAgents(usize),
    #[error("a sequential study compares the two strongest levels: give at least two, got {0}")]
    SequentialLevels(usize),
    #[error("--units {study}: the study has {parts} parts (0..{parts})")]
    NoStudy { study: usize, parts: usize },
    /// A cluster unit of a match asked for without a directory to keep its games.
    #[error("a match's units of work need a directory for their games")]
    NoStore,
}
