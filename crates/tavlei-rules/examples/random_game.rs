//! One random game of a variant, written move by move with its captures and its ending:
//! `cargo run -p tavlei-rules --example random_game -- tablut 7` (variant, seed).

use tavlei_rules::notation::ascii_board;
use tavlei_rules::playout::{game_rng, random_game_record};
use tavlei_rules::{Position, Variant};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let variant = Variant::load(&args.next().unwrap_or_else(|| "brandubh".into()))?;
    let seed: u64 = args.next().map_or(Ok(1), |s| s.parse())?;
    let start = Position::start(&variant);
    print!("{}", ascii_board(&start));
    let (moves, outcome) = random_game_record(&start, &mut game_rng(seed, 0));
    println!("{}", moves.join(" "));
    println!(
        "{} after {} plies: {}",
        outcome.result_name(),
        moves.len(),
        outcome.reason.name()
    );
    Ok(())
}
