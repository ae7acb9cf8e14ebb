//! Errors of the rules layer. Each names what is wrong and where.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error("cannot read variant file {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("variant file {origin}: {message}")]
    Toml { origin: String, message: String },
    #[error("variant {variant}: field `{field}`: {reason}")]
    Field {
        variant: String,
        field: String,
        reason: String,
    },
    #[error("unknown variant `{0}` (not a preset, and no such file); `tavlei rules list` shows the presets")]
    UnknownVariant(String),
    #[error("bad position `{input}` at character {index}: {reason}")]
    Position {
        input: String,
        index: usize,
        reason: String,
    },
    #[error("bad move `{input}`: {reason}")]
    MoveSyntax { input: String, reason: String },
    #[error("illegal move `{input}`: {reason}")]
    IllegalMove { input: String, reason: String },
    #[error("`{0}` is not a side: expected `attackers` or `defenders`")]
    Side(String),
    #[error("OpenTafl rules string: `{key}`: {reason}")]
    OtnRules { key: String, reason: String },
}
