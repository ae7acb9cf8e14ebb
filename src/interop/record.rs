//! tavlei's game records: tags (the variant, its OpenTafl rules string, the result), then the
//! move line that `rules::replay` reads back.

use crate::rules::{Outcome, Variant};

use super::otn_rules;

/// A game as an OTN-style record: tags, then numbered moves (the move line is what `replay` reads).
pub fn game_record(v: &Variant, moves: &[String], outcome: Option<Outcome>) -> String {
    let mut out = format!(
        "[variant \"{}\"]\n[rules \"{}\"]\n",
        v.rules.name,
        otn_rules::export(v).text
    );
    let result = outcome.map_or("*".to_string(), |o| {
        format!("{} {}", o.result_name(), o.reason.name())
    });
    out += &format!("[result \"{result}\"]\n");
    out += &moves.join(" ");
    out.push('\n');
    out
}
