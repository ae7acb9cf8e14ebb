//! The run directory: where each generation keeps its files, and how a stage's result is written
//! and read back.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::PipelineError;

pub(crate) fn io(path: &Path) -> impl Fn(std::io::Error) -> PipelineError + '_ {
    move |e| PipelineError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

pub(crate) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), PipelineError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| PipelineError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    crate::atomic::write(path, text + "\n").map_err(|e| io(path)(e.into()))
}

/// A stage's saved result; a missing one is `None`. One that cannot be read or parsed is an
/// error naming the file: stage files are written atomically, so it was damaged, and the run
/// stops rather than redo the stage over it.
pub fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Option<T>, PipelineError> {
    let Some(text) = crate::store::read_optional(path).map_err(|e| PipelineError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?
    else {
        return Ok(None);
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| PipelineError::Io {
            path: path.to_path_buf(),
            message: format!("unreadable ({e}); restore or delete it to redo its stage"),
        })
}

pub fn generation_dir(run: &Path, g: u32) -> PathBuf {
    run.join(format!("gen-{g:03}"))
}

pub fn model_path(run: &Path, g: u32) -> PathBuf {
    generation_dir(run, g).join("model.safetensors")
}
