//! Game records read back: each move checked against the rules, captures written in the record
//! compared with the engine's, and the outcome found. `tavlei replay` prints what this finds.

use serde::Serialize;

use super::notation::position_to_otn;
use super::square::square_name;
use super::{Position, RulesError, Square};

/// The first move of a record that could not be played, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Illegal {
    pub ply: usize,
    #[serde(rename = "move")]
    pub mv: String,
    pub reason: String,
}

/// A move whose written captures (`xc3/d4`) differ from the engine's.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mismatch {
    pub ply: usize,
    pub expected: Vec<String>,
    pub actual: Vec<String>,
}

/// What replaying one record found: legality, captures, and how the game ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameReport {
    pub game: usize,
    pub legal: bool,
    pub plies: usize,
    pub illegal: Option<Illegal>,
    pub capture_mismatches: Vec<Mismatch>,
    pub captures: Vec<Vec<String>>,
    pub outcome: Option<&'static str>,
    pub reason: Option<&'static str>,
    pub ended_at_ply: Option<usize>,
    #[serde(rename = "final")]
    pub final_position: String,
}

/// Replays one game record (moves separated by spaces, as `game_record` and OpenTafl write
/// them: move numbers `12.` skipped, `timeout` ending the record, `R:` die rolls before moves in
/// dice variants) from `start`, checking every move and any captures written with it. It never
/// fails: what it finds, an illegal move included, is in the report.
pub fn replay_record(game: usize, start: &Position, line: &str) -> GameReport {
    let size = start.variant().size;
    let mut pos = start.clone();
    let mut report = GameReport {
        game,
        legal: true,
        plies: 0,
        illegal: None,
        capture_mismatches: vec![],
        captures: vec![],
        outcome: None,
        reason: None,
        ended_at_ply: None,
        final_position: String::new(),
    };
    // move numbers (`12.`) are skipped; `timeout` ends the record without a result
    let tokens = line
        .split_whitespace()
        .filter(|t| !t.ends_with('.') || t.contains('-'));
    for token in tokens {
        if token == "timeout" {
            break;
        }
        if report.ended_at_ply.is_some() {
            break;
        }
        let ply = report.plies;
        let (roll, move_text) = match token.split_once(':') {
            Some((r, m)) if r.len() == 1 && r.as_bytes()[0].is_ascii_digit() => {
                (r.parse::<u8>().ok(), m)
            }
            _ => (None, token),
        };
        if pos.needs_roll() {
            // without a written roll, the largest one (the move is checked without a die cap)
            pos.set_roll(roll.unwrap_or(6));
        }
        let parsed = match pos.parse_move(move_text) {
            Ok(p) => p,
            Err(e) => {
                let reason = match e {
                    RulesError::IllegalMove { reason, .. }
                    | RulesError::MoveSyntax { reason, .. } => reason,
                    other => other.to_string(),
                };
                report.legal = false;
                report.illegal = Some(Illegal {
                    ply,
                    mv: token.to_string(),
                    reason,
                });
                break;
            }
        };
        let king_before = pos.king();
        let mut captured = Vec::new();
        pos.play_with(parsed.mv, &mut captured);
        report.plies += 1;
        // the king's capture shows in the outcome, not as a capture marker
        let king_taken = king_before.filter(|_| pos.king().is_none());
        let mut actual: Vec<Square> = captured
            .into_iter()
            .filter(|&sq| Some(sq) != king_taken)
            .collect();
        actual.sort_unstable();
        let names = |squares: &[Square]| {
            squares
                .iter()
                .map(|&sq| square_name(sq, size))
                .collect::<Vec<_>>()
        };
        if !parsed.captures.is_empty() {
            let mut expected: Vec<Square> = parsed
                .captures
                .into_iter()
                .filter(|&sq| Some(sq) != king_taken)
                .collect();
            expected.sort_unstable();
            if expected != actual {
                report.capture_mismatches.push(Mismatch {
                    ply,
                    expected: names(&expected),
                    actual: names(&actual),
                });
            }
        }
        report.captures.push(names(&actual));
        if let Some(outcome) = pos.outcome() {
            report.outcome = Some(outcome.result_name());
            report.reason = Some(outcome.reason.name());
            report.ended_at_ply = Some(ply);
        }
    }
    report.final_position = position_to_otn(&pos);
    report
}

/// The game lines of a record file: blank lines, `#` comments and `[tag "value"]` headers are
/// skipped, each other line is one game.
pub fn game_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('['))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    fn replay(text: &str) -> Vec<GameReport> {
        let start = Position::start(&Variant::load("brandubh").expect("preset"));
        game_lines(text)
            .enumerate()
            .map(|(i, line)| replay_record(i, &start, line))
            .collect()
    }

    #[test]
    fn the_first_illegal_move_is_named_with_its_reason() {
        // attackers first: d6-c6 and e4-e3 are legal; a4-a7 would stop on a corner
        let r = replay("# comment\n[result \"none\"]\n\n1. d6-c6 e4-e3 2. a4-a7 d4-d5\n");
        assert_eq!(r.len(), 1);
        let illegal = r[0].illegal.as_ref().expect("an illegal move");
        assert_eq!((illegal.ply, illegal.mv.as_str()), (2, "a4-a7"));
        assert!(illegal.reason.contains("corner"), "{}", illegal.reason);
        assert_eq!((r[0].legal, r[0].plies, r[0].outcome), (false, 2, None));
    }

    #[test]
    fn written_captures_are_compared_with_the_engines() {
        let r = replay("d6-c6xc5");
        assert!(r[0].legal);
        assert_eq!(
            r[0].capture_mismatches,
            vec![Mismatch {
                ply: 0,
                expected: vec!["c5".into()],
                actual: vec![],
            }]
        );
        // a record that stops early is not an outcome, and `timeout` ends it
        let r = replay("d6-c6 timeout e4-e3");
        assert_eq!((r[0].plies, r[0].outcome), (1, None));
    }
}
