//! The self-play loop: generations of self-play with the best network, training on the replay
//! window, a paired match of the new network against the best (optionally gating), direct matches
//! against fixed anchors, and a closing ladder of all generations. Every stage leaves its result
//! on disk, so rerunning the same command resumes a killed run.

pub mod balance;
pub mod config;
pub mod error;
pub mod files;
pub mod ladder;
pub mod matches;
mod overlap;
pub mod progress;
pub mod rate;
pub mod report;
pub mod run;
pub mod stages;
pub mod summary;
pub mod timing;

pub use config::PipelineConfig;
pub use error::PipelineError;
pub use progress::PipelineProgress;
pub use run::{run_pipeline, run_pipeline_with};
pub use stages::selfplay::{SelfplayJob, SelfplayRunner};
