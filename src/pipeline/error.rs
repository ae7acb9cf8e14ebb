//! What can stop a pipeline run.

use std::path::PathBuf;

use crate::data::DataError;
use crate::eval::EvalError;
use crate::nn::CheckpointError;
use crate::rules::RulesError;
use crate::selfplay::teacher::TeacherError;
use crate::train::trainer::TrainError;

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Rules(#[from] RulesError),
    #[error(transparent)]
    Data(#[from] DataError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error(transparent)]
    Train(#[from] TrainError),
    #[error(transparent)]
    Eval(#[from] EvalError),
    #[error(transparent)]
    Teacher(#[from] TeacherError),
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("self-play of generation {generation} elsewhere: {message}")]
    Selfplay { generation: u32, message: String },
    #[error("run directory {dir} was made with another configuration ({what} differs); use a new --run-dir")]
    ConfigChanged { dir: PathBuf, what: String },
    #[error("start_from = {path}: {message}")]
    StartFrom { path: PathBuf, message: String },
}
