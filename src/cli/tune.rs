//! `tavlei tune --variant V --games FILE|DIR... --out DIR`: the alpha-beta evaluation's weights
//! fitted to the outcomes of stored games (Texel's method, `tavlei::eval::texel`).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use tavlei::atomic;
use tavlei::eval::game_store::load_stored;
use tavlei::eval::texel::{self, Source, TuneReport};
use tavlei::search::alphabeta::AlphaBetaConfig;
use tavlei::search::alphabeta::EvalWeights;

use super::args::VariantArg;

#[derive(Args)]
pub struct TuneArgs {
    #[command(flatten)]
    variant: VariantArg,
    /// Stored games (JSON lines as `tavlei balance` and match units keep them): files, or
    /// directories whose `*.jsonl` files are read (not their subdirectories).
    #[arg(long, required = true, num_args = 1..)]
    games: Vec<PathBuf>,
    /// Writes `alphabeta.toml` (the tuned settings, for `ab:B:eval=DIR/alphabeta.toml`) and
    /// `tune.json` (games, positions, losses before and after, weights).
    #[arg(long)]
    out: PathBuf,
    /// Settings whose weights are the start and the ridge's anchor (default: the compiled ones,
    /// `configs/alphabeta.toml`); their search settings are kept.
    #[arg(long)]
    base: Option<PathBuf>,
    /// Positions before this ply are left out (the drawn openings and their noise).
    #[arg(long, default_value_t = 4)]
    skip_plies: usize,
    /// Only quiet positions (no capture or immediate win for the side to move): those whose
    /// static evaluation a search with quiescence reads (`--base` with `search.quiescence`).
    #[arg(long)]
    quiet_positions: bool,
    /// Share of the games held out to measure the fit on.
    #[arg(long, default_value_t = 0.2)]
    holdout: f64,
    /// Pull of each weight towards its base value, in logits per standard deviation of its term.
    #[arg(long, default_value_t = 3.0)]
    ridge: f64,
    /// Seed of the split into training and held-out games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The `*.jsonl` files of `path` (a file is itself).
pub(super) fn game_files(path: &Path) -> Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .with_context(|| format!("reading {}", path.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    if files.is_empty() {
        bail!("{}: no *.jsonl game files here", path.display());
    }
    Ok(files)
}

pub fn run(args: TuneArgs) -> Result<()> {
    let variant = args.variant.load()?;
    let base = match &args.base {
        Some(path) => AlphaBetaConfig::load(path)?,
        None => AlphaBetaConfig::default(),
    };
    let mut sources = Vec::new();
    for path in &args.games {
        for file in game_files(path)? {
            sources.push(Source {
                games: load_stored(&file)?,
                name: file.display().to_string(),
            });
        }
    }
    let select = texel::Selection {
        skip_plies: args.skip_plies,
        quiet_only: args.quiet_positions,
    };
    let data = texel::samples(&variant, &sources, select, args.holdout, args.seed)?;
    let prior = base.eval.to_array();
    let scale_before = f64::from(base.search.value_scale);
    let scale = texel::fit_scale(&data.train, &prior);
    let fitted = texel::fit(&data.train, &prior, scale, args.ridge);
    let tuned = EvalWeights::from_array(&fitted);
    let report = TuneReport {
        variant: variant.name().to_string(),
        sources: sources.into_iter().map(|s| s.name).collect(),
        games_train: data.train_games,
        games_held_out: data.held_out_games,
        duplicate_games: data.duplicates,
        positions_train: data.train.len(),
        positions_held_out: data.held_out.len(),
        skip_plies: args.skip_plies,
        quiet_only: args.quiet_positions,
        positions_not_quiet: data.not_quiet,
        holdout: args.holdout,
        ridge: args.ridge,
        seed: args.seed,
        value_scale_before: scale_before,
        value_scale: scale,
        weights: texel::weight_changes(&base.eval, &tuned),
        loss_constant: texel::constant_losses(&data),
        loss_before: texel::losses(&data, &prior, scale_before),
        loss_before_calibrated: texel::losses(&data, &prior, scale),
        loss_after: texel::losses(&data, &tuned.to_array(), scale),
    };
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let mut search = base.search.clone();
    search.value_scale = scale.round() as f32;
    // the opening noise is a share of a taflman's value: it follows the material weight
    if base.eval.material > 0 {
        search.opening_noise = search.opening_noise * tuned.material / base.eval.material;
    }
    let settings = AlphaBetaConfig {
        eval: tuned,
        search,
    };
    let toml = format!(
        "# Alpha-beta settings with evaluation weights fitted by `tavlei tune` to {} games of {}\n\
         # (Texel's method; tune.json beside this file has the losses before and after).\n{}",
        data.train_games,
        variant.name(),
        toml::to_string(&settings).context("writing the settings as TOML")?
    );
    atomic::write(&args.out.join("alphabeta.toml"), &toml)?;
    atomic::write(
        &args.out.join("tune.json"),
        &serde_json::to_string_pretty(&report)?,
    )?;
    print_report(&report);
    Ok(())
}

fn print_report(r: &TuneReport) {
    println!(
        "{}: {} training games ({} positions), {} held out ({} positions), {} duplicates left out",
        r.variant,
        r.games_train,
        r.positions_train,
        r.games_held_out,
        r.positions_held_out,
        r.duplicate_games
    );
    if r.quiet_only {
        println!("{} positions left out as not quiet", r.positions_not_quiet);
    }
    println!(
        "value scale (score for tanh = 0.76): {} before, {:.0} fitted to the weights before",
        r.value_scale_before, r.value_scale
    );
    println!("| weight | before | after |\n| --- | --- | --- |");
    for w in &r.weights {
        println!("| {} | {} | {} |", w.name, w.before, w.after);
    }
    let held = |l: &texel::Losses| l.held_out.map_or("-".into(), |x| format!("{x:.4}"));
    println!("\n| log loss | training | held out |\n| --- | --- | --- |");
    for (name, l) in [
        ("constant (mean result)", &r.loss_constant),
        ("weights before", &r.loss_before),
        (
            "weights before, value scale fitted",
            &r.loss_before_calibrated,
        ),
        ("weights after", &r.loss_after),
    ] {
        println!("| {name} | {:.4} | {} |", l.train, held(l));
    }
}
