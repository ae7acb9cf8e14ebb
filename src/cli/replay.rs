//! `tavlei replay VARIANT [FILE|-] [--json]`: checks recorded games move by move.

use std::io::Read;

use anyhow::{Context, Result};
use clap::Args;
use serde::Serialize;
use tavlei::rules::notation::position_to_otn;
use tavlei::rules::square::square_name;
use tavlei::rules::{Position, RulesError, Square, Variant};

#[derive(Args)]
pub struct ReplayArgs {
    /// A preset name or a path to a variant file.
    variant: String,
    /// Games, one per line (moves separated by spaces); `-` or nothing reads standard input.
    file: Option<String>,
    /// One JSON object per game and line.
    #[arg(long)]
    json: bool,
    /// Start every game from this OTN position.
    #[arg(long)]
    from: Option<String>,
    /// Side to move in `--from` (default: the variant's first mover).
    #[arg(long)]
    to_move: Option<String>,
}

#[derive(Serialize)]
struct Illegal {
    ply: usize,
    #[serde(rename = "move")]
    mv: String,
    reason: String,
}

#[derive(Serialize)]
struct Mismatch {
    ply: usize,
    expected: Vec<String>,
    actual: Vec<String>,
}

#[derive(Serialize)]
struct GameReport {
    game: usize,
    legal: bool,
    plies: usize,
    illegal: Option<Illegal>,
    capture_mismatches: Vec<Mismatch>,
    captures: Vec<Vec<String>>,
    outcome: Option<&'static str>,
    reason: Option<&'static str>,
    ended_at_ply: Option<usize>,
    #[serde(rename = "final")]
    final_position: String,
}

pub fn run(args: ReplayArgs) -> Result<()> {
    let v = Variant::load(&args.variant)?;
    let start = super::start_position(&v, args.from.as_deref(), args.to_move.as_deref())?;
    let text = match args.file.as_deref() {
        None | Some("-") => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .context("reading standard input")?;
            s
        }
        Some(path) => std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?,
    };
    let games = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('['));
    for (index, line) in games.enumerate() {
        let report = replay_game(index, &start, line);
        if args.json {
            println!("{}", serde_json::to_string(&report)?);
        } else {
            print_report(&report);
        }
    }
    Ok(())
}

fn replay_game(game: usize, start: &Position, line: &str) -> GameReport {
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

fn print_report(r: &GameReport) {
    let status = match &r.illegal {
        None => "all moves legal".to_string(),
        Some(i) => format!("illegal move {} at ply {}: {}", i.mv, i.ply, i.reason),
    };
    println!("game {}: {} ({} plies)", r.game, status, r.plies);
    for m in &r.capture_mismatches {
        println!(
            "  ply {}: captures written {:?}, engine captured {:?}",
            m.ply, m.expected, m.actual
        );
    }
    match (r.outcome, r.reason) {
        (Some(o), Some(reason)) => {
            let at = r
                .ended_at_ply
                .map_or(String::new(), |p| format!(" at ply {p}"));
            println!("  outcome: {o} ({reason}){at}");
        }
        _ => println!("  outcome: none (game not finished)"),
    }
    println!("  final: {}", r.final_position);
}
