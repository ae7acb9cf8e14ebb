//! Game records read back: each move checked against the rules, captures written in the record
//! compared with the engine's, and the outcome found. `tavlei replay` prints what this finds.

use serde::Serialize;

use super::notation::position_to_otn;
use super::square::square_name;
use super::{Move, Position, RulesError, Square};

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

/// One ply of a record played: the move, the captures written with it and the engine's (the
/// king's capture shows in the outcome, not here), and the position after it.
#[derive(Clone, Debug)]
pub struct Step {
    pub ply: usize,
    pub mv: Move,
    /// The die roll the move was played with (0 without dice).
    pub roll: u8,
    /// Captures written in the record (`xc3/d4`), if any were.
    pub written: Option<Vec<Square>>,
    pub captured: Vec<Square>,
    pub position: Position,
}

/// The plies of a game record (moves separated by spaces, as `game_record` and OpenTafl write
/// them: move numbers `12.` skipped, `timeout` ending the record, `R:` die rolls before moves in
/// dice variants) played from `start`, each checked, until the record or the game ends; the
/// first illegal move is the last item.
pub fn steps<'a>(
    start: &Position,
    line: &'a str,
) -> impl Iterator<Item = Result<Step, Illegal>> + 'a {
    let mut pos = start.clone();
    let mut ply = 0;
    let mut done = false;
    let mut tokens = move_tokens(line);
    std::iter::from_fn(move || {
        if done || pos.outcome().is_some() {
            return None;
        }
        let token = tokens.next()?;
        let (roll, move_text) = super::notation::split_roll(token);
        if pos.needs_roll() {
            // without a written roll, the largest one (the move is checked without a die cap)
            pos.set_roll(roll.unwrap_or(6));
        }
        let parsed = match pos.parse_move(move_text) {
            Ok(p) => p,
            Err(e) => {
                done = true;
                let reason = match e {
                    RulesError::IllegalMove { reason, .. }
                    | RulesError::MoveSyntax { reason, .. } => reason,
                    other => other.to_string(),
                };
                return Some(Err(Illegal {
                    ply,
                    mv: token.to_string(),
                    reason,
                }));
            }
        };
        let roll = pos.roll();
        let king_before = pos.king();
        let mut captured = Vec::new();
        pos.play_with(parsed.mv, &mut captured);
        let king_taken = king_before.filter(|_| pos.king().is_none());
        let without_king = |squares: Vec<Square>| {
            let mut kept: Vec<Square> = squares
                .into_iter()
                .filter(|&sq| Some(sq) != king_taken)
                .collect();
            kept.sort_unstable();
            kept
        };
        let step = Step {
            ply,
            mv: parsed.mv,
            roll,
            written: (!parsed.captures.is_empty()).then(|| without_king(parsed.captures)),
            captured: without_king(captured),
            position: pos.clone(),
        };
        ply += 1;
        Some(Ok(step))
    })
}

/// The move tokens of a record's move line, as [`steps`] plays them: move numbers (`12.`) are
/// skipped, and `timeout` ends the record without a result.
pub fn move_tokens(line: &str) -> impl Iterator<Item = &str> {
    line.split_whitespace()
        .filter(|t| !t.ends_with('.') || t.contains('-'))
        .take_while(|&t| t != "timeout")
}

/// Replays one game record from `start` (see [`steps`]), checking every move and any captures
/// written with it. It never fails: what it finds, an illegal move included, is in the report.
pub fn replay_record(game: usize, start: &Position, line: &str) -> GameReport {
    let size = start.variant().size;
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
        final_position: position_to_otn(start),
    };
    let names = |squares: &[Square]| {
        squares
            .iter()
            .map(|&sq| square_name(sq, size))
            .collect::<Vec<_>>()
    };
    for step in steps(start, line) {
        let step = match step {
            Ok(step) => step,
            Err(illegal) => {
                report.legal = false;
                report.illegal = Some(illegal);
                break;
            }
        };
        report.plies += 1;
        if let Some(expected) = &step.written {
            if *expected != step.captured {
                report.capture_mismatches.push(Mismatch {
                    ply: step.ply,
                    expected: names(expected),
                    actual: names(&step.captured),
                });
            }
        }
        report.captures.push(names(&step.captured));
        if let Some(outcome) = step.position.outcome() {
            report.outcome = Some(outcome.result_name());
            report.reason = Some(outcome.reason.name());
            report.ended_at_ply = Some(step.ply);
        }
        report.final_position = position_to_otn(&step.position);
    }
    report
}

/// One game of a record file: its comment lines, its `[name "value"]` tags and its moves.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordedGame {
    pub comments: Vec<String>,
    pub tags: Vec<(String, String)>,
    pub moves: String,
}

impl RecordedGame {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The games of a record file with the comments and tags before each (every record tavlei
/// writes: self-play, matches, balance studies); a game is its move line, as in [`game_lines`].
pub fn recorded_games(text: &str) -> Vec<RecordedGame> {
    let mut games = Vec::new();
    let mut next = RecordedGame::default();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(comment) = line.strip_prefix('#') {
            next.comments.push(comment.trim().to_string());
        } else if let Some(tag) = line.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            let (name, value) = tag.split_once(' ').unwrap_or((tag, ""));
            next.tags
                .push((name.to_string(), value.trim().trim_matches('"').to_string()));
        } else {
            next.moves = line.to_string();
            games.push(std::mem::take(&mut next));
        }
    }
    games
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
    use crate::Variant;

    fn replay(text: &str) -> Vec<GameReport> {
        let start = Position::start(&Variant::load("brandubh").expect("preset"));
        game_lines(text)
            .enumerate()
            .map(|(i, line)| replay_record(i, &start, line))
            .collect()
    }

    #[test]
    fn recorded_games_keep_their_comments_and_tags() {
        let text = "# game 0\n[variant \"brandubh\"]\n[result \"defenders king_escaped\"]\nd6-c6\n\n# game 1\ne4-e3 d5-d6\n";
        let games = recorded_games(text);
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].comments, ["game 0"]);
        assert_eq!(games[0].tag("result"), Some("defenders king_escaped"));
        assert_eq!(games[0].moves, "d6-c6");
        assert_eq!(
            (games[1].tag("result"), games[1].moves.as_str()),
            (None, "e4-e3 d5-d6")
        );
        let lines: Vec<&str> = game_lines(text).collect();
        assert_eq!(lines, ["d6-c6", "e4-e3 d5-d6"]);
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
