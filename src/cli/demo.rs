//! `tavlei demo`: what `make run` shows today: every preset loaded, checked and played.
//! For each variant: random playouts with outcome shares and the engine's speed.

use anyhow::Result;
use clap::Args;
use tavlei::rules::presets::PRESET_NAMES;
use tavlei::rules::Position;

use super::args::SeedArg;
use super::random::{playouts, progress_bar};

#[derive(Args)]
pub struct DemoArgs {
    /// Random games per variant.
    #[arg(long, default_value_t = 1000)]
    games: u64,
    #[command(flatten)]
    seed: SeedArg,
}

pub fn run(args: DemoArgs) -> Result<()> {
    println!(
        "tavlei demo: {} random games of each of the {} preset variants (seed {})\n",
        args.games,
        PRESET_NAMES.len(),
        args.seed.seed
    );
    let mut rows = Vec::new();
    for name in PRESET_NAMES {
        let v = tavlei::interop::load_variant(name)?;
        let bar = progress_bar(args.games, false);
        bar.set_prefix(name.to_string());
        let (stats, seconds) = playouts(&Position::start(&v), args.games, args.seed.seed, &bar);
        bar.finish_and_clear();
        rows.push((v, stats, seconds));
    }
    println!(
        "{:<20} {:>5} {:>7} {:>7} {:>7} {:>8} {:>11} {:>13}",
        "variant", "size", "att %", "def %", "draw %", "plies", "plies/s", "moves/s"
    );
    for (v, s, seconds) in &rows {
        let share = |n: u64| 100.0 * n as f64 / s.games.max(1) as f64;
        println!(
            "{:<20} {:>5} {:>7.1} {:>7.1} {:>7.1} {:>8.1} {:>11.0} {:>13.0}",
            v.name(),
            format!("{0}x{0}", v.size),
            share(s.attacker_wins),
            share(s.defender_wins),
            share(s.draws),
            s.mean_length(),
            s.plies as f64 / seconds,
            s.legal_moves as f64 / seconds,
        );
    }
    println!(
        "\nRandom play is far from balanced play: these shares say how the rules treat a blind"
    );
    println!(
        "player, not who a skilled one favours. Balance between trained players comes with the"
    );
    println!("self-play and evaluation stages.");
    Ok(())
}
