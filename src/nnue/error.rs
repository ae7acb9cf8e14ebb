//! Errors of the training positions: each names the file (or the game) and what is wrong.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum NnueDataError {
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// `read`, `create`, `write`, `rename into place`, ...
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a tavlei positions file (wrong magic bytes)")]
    WrongMagic { path: PathBuf },
    #[error(
        "positions file {path} has format version {found}; this build reads version {expected}"
    )]
    FormatVersion {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    #[error("positions file {path} is truncated: {detail}")]
    Truncated { path: PathBuf, detail: String },
    #[error("positions file {path} has a bad checksum (stored {stored:016x}, computed {computed:016x}): the file is corrupted")]
    BadChecksum {
        path: PathBuf,
        stored: u64,
        computed: u64,
    },
    #[error("positions file {path} is corrupted: {detail}")]
    Corrupt { path: PathBuf, detail: String },
    #[error("cannot write positions to {path}: {detail}")]
    Invalid { path: PathBuf, detail: String },
    #[error("{source_name}: game {id}: ply {ply} (`{mv}`) is illegal here: {reason}")]
    Illegal {
        source_name: String,
        id: u64,
        ply: usize,
        mv: String,
        reason: String,
    },
    #[error("{path}:{line}: {detail}")]
    Record {
        path: PathBuf,
        line: usize,
        detail: String,
    },
}

impl From<crate::atomic::WriteError> for NnueDataError {
    fn from(e: crate::atomic::WriteError) -> NnueDataError {
        NnueDataError::Io {
            action: e.action,
            path: e.path,
            source: e.source,
        }
    }
}
