//! Errors of the data layer. Each names the file (or the sample) and what is wrong with it.

use std::path::PathBuf;

use crate::rules::RulesError;

#[derive(Debug, thiserror::Error)]
pub enum DataError {
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// What was being done: `read`, `write`, `rename`, `list directory`, ...
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("shard {path} is truncated: {detail}")]
    Truncated { path: PathBuf, detail: String },
    #[error("{path} is not a tavlei shard (wrong magic bytes)")]
    WrongMagic { path: PathBuf },
    #[error("shard {path} has format version {found}; this build reads versions 1 to {expected}")]
    FormatVersion {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    #[error(
        "shard {path} claims encoding version {found}; its format goes with encoding version {expected}"
    )]
    EncodingVersion {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    #[error("shard {path} has a bad checksum (stored {stored:016x}, computed {computed:016x}): the file is corrupted")]
    BadChecksum {
        path: PathBuf,
        stored: u64,
        computed: u64,
    },
    #[error("shard {path} is corrupted: {detail}")]
    Corrupt { path: PathBuf, detail: String },
    #[error("shard {path}: variant name `{name}` cannot be stored: {reason}")]
    VariantName {
        path: PathBuf,
        name: String,
        reason: String,
    },
    #[error("cannot encode sample {index} for {path}: {message}")]
    Encode {
        path: PathBuf,
        index: usize,
        message: String,
    },
    #[error("sample of game {game_id} at ply {ply}: {reason}")]
    BadSample {
        game_id: u64,
        ply: u32,
        reason: String,
    },
    #[error("dataset variant `{name}`: {source}")]
    Variant { name: String, source: RulesError },
    #[error("teacher `{spec}`: {message}")]
    Teacher { spec: String, message: String },
    #[error("{path} was written by another run ({message}); use a new output directory")]
    RunMismatch { path: PathBuf, message: String },
    #[error("{0}")]
    EmptyDataset(String),
    #[error("cannot write archive {path}: {source}")]
    Zip {
        path: PathBuf,
        source: zip::result::ZipError,
    },
}

impl From<crate::atomic::WriteError> for DataError {
    fn from(e: crate::atomic::WriteError) -> DataError {
        DataError::Io {
            action: e.action,
            path: e.path,
            source: e.source,
        }
    }
}

impl DataError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        DataError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
