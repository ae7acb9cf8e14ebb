//! Perft of a variant's start position: `cargo run --release -p tavlei-rules --example perft -- copenhagen 4`.

use tavlei_rules::{perft::perft, Position, Variant};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let variant = Variant::load(&args.next().unwrap_or_else(|| "brandubh".into()))?;
    let depth: u32 = args.next().map_or(Ok(3), |d| d.parse())?;
    let start = Position::start(&variant);
    for d in 1..=depth {
        println!("{} perft({d}) = {}", variant.rules.name, perft(&start, d));
    }
    Ok(())
}
