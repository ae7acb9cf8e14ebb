//! `tavlei random --variant V --games N --seed S [--json]`: random playouts on every worker thread.

use std::time::Instant;

use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use tavlei::interop::record::game_record;
use tavlei::rules::playout::{game_rng, random_game_record, random_playouts, PlayoutStats};
use tavlei::rules::{Position, Variant};

use super::args::{SeedArg, VariantArg};

#[derive(Args)]
pub struct RandomArgs {
    #[command(flatten)]
    variant: VariantArg,
    #[arg(long, default_value_t = 1000)]
    games: u64,
    #[command(flatten)]
    seed: SeedArg,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// Also write every game as an OTN record (tags and a move line `replay` reads) to FILE.
    #[arg(long, value_name = "FILE")]
    record: Option<std::path::PathBuf>,
}

/// Plays `games` random games from `start` on every worker thread, advancing `bar`; returns the
/// totals and seconds.
pub fn playouts(start: &Position, games: u64, seed: u64, bar: &ProgressBar) -> (PlayoutStats, f64) {
    let t = Instant::now();
    let stats = random_playouts(start, games, seed, &|| bar.inc(1));
    (stats, t.elapsed().as_secs_f64())
}

pub fn progress_bar(len: u64, hidden: bool) -> ProgressBar {
    if hidden {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix:>14} [{bar:30}] {pos}/{len} games {per_sec} eta {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar
}

/// The same games as the statistics (same seed), written as records; atomically.
fn write_records(
    v: &Variant,
    start: &Position,
    games: u64,
    seed: u64,
    path: &std::path::Path,
) -> Result<()> {
    let mut text = String::new();
    for game in 0..games {
        let (moves, outcome) = random_game_record(start, &mut game_rng(seed, game));
        text += &format!("# game {game}\n");
        text += &game_record(v, &moves, Some(outcome));
    }
    tavlei::atomic::write(path, text)?;
    Ok(())
}

pub fn run(args: RandomArgs) -> Result<()> {
    let v = args.variant.load()?;
    let start = Position::start(&v);
    if let Some(path) = &args.record {
        write_records(&v, &start, args.games, args.seed.seed, path)?;
    }
    let bar = progress_bar(args.games, args.json);
    let (stats, seconds) = playouts(&start, args.games, args.seed.seed, &bar);
    bar.finish_and_clear();
    let plies_per_s = stats.plies as f64 / seconds.max(1e-9);
    let moves_per_s = stats.legal_moves as f64 / seconds.max(1e-9);
    if args.json {
        let reasons: serde_json::Map<String, serde_json::Value> = stats
            .reasons
            .iter()
            .map(|(k, n)| (k.clone(), (*n).into()))
            .collect();
        let out = serde_json::json!({
            "variant": v.name(),
            "seed": args.seed.seed,
            "games": stats.games,
            "plies": stats.plies,
            "legal_moves": stats.legal_moves,
            "seconds": seconds,
            "plies_per_s": plies_per_s,
            "legal_moves_per_s": moves_per_s,
            "attacker_wins": stats.attacker_wins,
            "defender_wins": stats.defender_wins,
            "draws": stats.draws,
            "reasons": reasons,
            "mean_length": stats.mean_length(),
            "median_length": stats.median_length(),
        });
        println!("{out}");
        return Ok(());
    }
    let share = |n: u64| 100.0 * n as f64 / stats.games.max(1) as f64;
    println!(
        "{} random games of {} (seed {})",
        stats.games, v.rules.title, args.seed.seed
    );
    println!(
        "  attackers {:5.1} %   defenders {:5.1} %   draws {:5.1} %",
        share(stats.attacker_wins),
        share(stats.defender_wins),
        share(stats.draws)
    );
    println!("  reasons:");
    for (reason, n) in stats.reasons.iter().filter(|(_, n)| *n > 0) {
        println!("    {reason:<16} {n:>8}  {:5.1} %", share(*n));
    }
    let (min, max) = (
        stats.lengths.iter().min().unwrap_or(&0),
        stats.lengths.iter().max().unwrap_or(&0),
    );
    println!(
        "  length: mean {:.1}, median {:.1}, min {min}, max {max} plies",
        stats.mean_length(),
        stats.median_length()
    );
    println!("  speed: {plies_per_s:.0} plies/s, {moves_per_s:.0} legal moves/s ({seconds:.2} s, one thread)");
    Ok(())
}
