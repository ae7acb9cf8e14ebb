//! File formats and protocols around the rules: OpenTafl rules strings and game files, and
//! tavlei's own game records. Above the rules (which know nothing of them), below everything that
//! reads or writes a game.

pub mod otg;
pub mod otn_rules;
pub mod record;

use std::path::Path;
use std::sync::Arc;

use crate::rules::{RulesError, Variant};

/// A variant from what a user names: a preset, a variant file, an OpenTafl rules string
/// (`dim:...`) or a file holding one.
pub fn load_variant(spec: &str) -> Result<Arc<Variant>, RulesError> {
    if spec.trim_start().starts_with("dim:") {
        return otn_rules::variant(spec);
    }
    let path = Path::new(spec);
    if crate::rules::presets::preset_text(spec).is_none() && path.is_file() {
        let text = std::fs::read_to_string(path).map_err(|source| RulesError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        if text.trim_start().starts_with("dim:") {
            return otn_rules::variant(&text);
        }
        // read once: the variant file parsed here, as `Variant::load` would
        return Variant::from_toml(&text, &path.display().to_string());
    }
    Variant::load(spec)
}
