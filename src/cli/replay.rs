//! `tavlei replay --variant V [FILE|-] [--json]`: checks recorded games move by move.

use std::io::Read;

use anyhow::{Context, Result};
use clap::Args;
use tavlei::interop::otg::{is_otg, read_games};
use tavlei::rules::replay::{game_lines, replay_record, GameReport};

use super::args::{StartArgs, VariantArg};

#[derive(Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    variant: VariantArg,
    /// Games, one per line (moves separated by spaces), or an OpenTafl game file (`.otg`); `-` or
    /// nothing reads standard input.
    file: Option<String>,
    /// One JSON object per game and line.
    #[arg(long)]
    json: bool,
    /// Every game starts from `--position` when given.
    #[command(flatten)]
    start: StartArgs,
}

pub fn run(args: ReplayArgs) -> Result<()> {
    let v = args.variant.load()?;
    let start = args.start.position(&v)?;
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
    let lines: Vec<String> = if is_otg(&text) {
        read_games(&text, args.start.position.is_some())?
            .into_iter()
            .map(|g| g.moves)
            .collect()
    } else {
        game_lines(&text).map(String::from).collect()
    };
    for (index, line) in lines.iter().enumerate() {
        let report = replay_record(index, &start, line);
        if args.json {
            println!("{}", serde_json::to_string(&report)?);
        } else {
            print_report(&report);
        }
    }
    Ok(())
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
