//! One loader for every TOML settings file (self-play, training, pipeline, alpha-beta): a file
//! that cannot be read, a syntax or type error (with its line), and a value out of range are each
//! an error naming the file. Variant files have their own loader in `rules::variant`, with the
//! rules' own checks.

use std::path::Path;

use serde::de::DeserializeOwned;

/// Settings read from TOML, with the checks serde cannot express.
pub trait Settings: DeserializeOwned {
    /// Why these settings cannot be used, if they cannot.
    fn check(&self) -> Result<(), Invalid>;
}

/// A setting out of its range, in words that name it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct Invalid(pub String);

impl From<&str> for Invalid {
    fn from(message: &str) -> Self {
        Invalid(message.to_string())
    }
}

impl From<String> for Invalid {
    fn from(message: String) -> Self {
        Invalid(message)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("config {path}, line {line}: {message}")]
    Syntax {
        path: String,
        line: usize,
        message: String,
    },
    #[error("config {path}: {source}")]
    Invalid { path: String, source: Invalid },
}

/// Keys removed from a settings file, each with where it went: a file that still spells one is
/// told so and where to find it, not only that the key is unknown.
pub const RETIRED_KEYS: &[(&str, &str)] = &[(
    "gumbel_legacy",
    "the Gumbel search before issue 11 is in commit 56237c3; files with `gumbel_legacy = false` \
     loaded until commit 5ecb5c4",
)];

/// A parser's message, or for an unknown key that was removed, where it went.
fn retired_or(message: &str) -> String {
    RETIRED_KEYS
        .iter()
        .find(|(key, _)| message.starts_with(&format!("unknown field `{key}`")))
        .map_or_else(
            || message.to_string(),
            |(key, went)| format!("`{key}` was removed ({went}); drop the line"),
        )
}

/// Reads and checks a settings file.
pub fn load<T: Settings>(path: &Path) -> Result<T, ConfigError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: name.clone(),
        source,
    })?;
    parse(&text, &name)
}

/// Parses and checks settings text; `origin` names it in errors.
pub fn parse<T: Settings>(text: &str, origin: &str) -> Result<T, ConfigError> {
    let settings: T = toml::from_str(text).map_err(|e| ConfigError::Syntax {
        path: origin.to_string(),
        line: e
            .span()
            .map_or(0, |span| text[..span.start].matches('\n').count() + 1),
        message: retired_or(e.message()),
    })?;
    settings.check().map_err(|source| ConfigError::Invalid {
        path: origin.to_string(),
        source,
    })?;
    Ok(settings)
}
