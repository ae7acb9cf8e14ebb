//! `tavlei nnue ...`: the learned evaluation's data and training. `nnue data` labels the
//! positions of stored games with their result and an alpha-beta score (`tavlei::nnue::label`)
//! and writes them as one positions file with a JSON summary beside it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use tavlei::atomic;
use tavlei::eval::game_store::load_stored;
use tavlei::eval::texel::Source;
use tavlei::nnue::label::{self, Labeler, Selection};
use tavlei::nnue::records::read_records;
use tavlei::nnue::{write_positions, PositionSet};
use tavlei::search::alphabeta::{AlphaBetaConfig, LearnedEval, LEARNED_PER_LOGIT};

use super::args::VariantArg;
use super::tune::game_files;

#[derive(Subcommand)]
pub enum NnueCommand {
    /// Label the positions of stored games with their result and an alpha-beta score.
    Data(DataArgs),
    /// Train a learned evaluation on positions files and export it (resumable).
    Train(super::nnue_train::NnueTrainArgs),
}

pub fn run(cmd: NnueCommand) -> Result<()> {
    match cmd {
        NnueCommand::Data(args) => data(args),
        NnueCommand::Train(args) => super::nnue_train::run(args),
    }
}

#[derive(Args)]
pub struct DataArgs {
    #[command(flatten)]
    variant: VariantArg,
    /// Stored games (JSON lines as `tavlei balance` and `match` keep them): files, or
    /// directories whose `*.jsonl` files are read (not their subdirectories); a `*.txt` file is
    /// read as the game records a balance study keeps beside its store.
    #[arg(long, required = true, num_args = 1..)]
    games: Vec<PathBuf>,
    /// The positions file to write; a JSON summary goes beside it (`FILE.json`).
    #[arg(long)]
    out: PathBuf,
    /// Depth of the alpha-beta search that scores each position, in plies.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=64))]
    depth: u32,
    /// Positions before this ply are left out (repeated openings are dropped as duplicates
    /// anyway).
    #[arg(long, default_value_t = 0)]
    skip_plies: usize,
    /// Only quiet positions (no capture or immediate win for the side to move): those a search
    /// with quiescence evaluates.
    #[arg(long)]
    quiet_only: bool,
    /// The evaluation that scores: `eval=FILE` (alpha-beta settings, as `ab:...:eval=FILE`) or
    /// `nnue=FILE` (a learned evaluation); default the compiled one.
    #[arg(long)]
    eval: Option<String>,
    /// Tie-break seed of the searches.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// What `nnue data` writes beside the positions file.
#[derive(Serialize)]
struct DataSummary {
    variant: String,
    sources: Vec<String>,
    labeler: String,
    depth: u32,
    skip_plies: usize,
    quiet_only: bool,
    seed: u64,
    games: usize,
    positions: usize,
    duplicates_dropped: usize,
    not_quiet: usize,
    /// "fitted" (a logistic fit of result on score), "settings" (too few undecided positions:
    /// the settings' value_scale / 2) or "learned" (1000 units a logit).
    score_per_logit_from: &'static str,
    score_per_logit: f32,
    threads: usize,
    seconds: f64,
    positions_per_second: f64,
}

/// The labeler's evaluation from `--eval`: alpha-beta settings (and the file they came from),
/// and a learned evaluation checked against the variant.
struct EvalChoice {
    config: AlphaBetaConfig,
    settings_file: Option<PathBuf>,
    learned: Option<(LearnedEval, PathBuf)>,
}

fn eval_choice(spec: Option<&str>, variant: &str) -> Result<EvalChoice> {
    let mut choice = EvalChoice {
        config: AlphaBetaConfig::default(),
        settings_file: None,
        learned: None,
    };
    let Some(spec) = spec else {
        return Ok(choice);
    };
    match spec.split_once('=') {
        Some(("eval", file)) => {
            choice.config = AlphaBetaConfig::load(file)
                .with_context(|| format!("loading the alpha-beta settings {file}"))?;
            choice.settings_file = Some(PathBuf::from(file));
        }
        Some(("nnue", file)) => {
            let learned = LearnedEval::load(Path::new(file), variant)
                .with_context(|| format!("--eval nnue={file}"))?;
            choice.learned = Some((learned, PathBuf::from(file)));
        }
        _ => bail!("--eval must be eval=FILE or nnue=FILE, got `{spec}`"),
    }
    Ok(choice)
}

/// `FILE.json` beside `FILE`.
fn summary_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".json");
    PathBuf::from(name)
}

fn data(args: DataArgs) -> Result<()> {
    let variant = args.variant.load()?;
    let choice = eval_choice(args.eval.as_deref(), variant.name())?;
    let mut sources = Vec::new();
    for path in &args.games {
        for file in game_files(path)? {
            let games = if file.extension().is_some_and(|e| e == "txt") {
                read_records(&file)?
            } else {
                load_stored(&file)?
            };
            sources.push(Source {
                games,
                name: file.display().to_string(),
            });
        }
    }
    let select = Selection {
        skip_plies: args.skip_plies,
        quiet_only: args.quiet_only,
    };
    let plan = label::plan(&variant, &sources, select)?;
    if plan.positions == 0 {
        bail!(
            "{} games leave no position to label after {} plies{}",
            plan.games.len(),
            args.skip_plies,
            if args.quiet_only {
                " that is quiet"
            } else {
                ""
            }
        );
    }
    let mut labeler_name = format!("ab:d={}", args.depth);
    if let Some(file) = &choice.settings_file {
        labeler_name.push_str(&format!(":eval={}", file.display()));
    }
    if let Some((_, file)) = &choice.learned {
        labeler_name.push_str(&format!(":nnue={}", file.display()));
    }
    let value_scale = choice.config.search.value_scale;
    let learned = choice.learned.map(|(learned, _)| learned);
    // without a fit: the learned scale is exact (a logit per 1000), the compiled one a guess
    let fallback = match learned {
        Some(_) => (LEARNED_PER_LOGIT as f32, "learned"),
        None => (value_scale / 2.0, "settings"),
    };
    let labeler = Labeler {
        config: choice.config,
        depth: args.depth,
        seed: args.seed,
        learned,
    };
    let bar = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        let bar = ProgressBar::new(plan.games.len() as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "labelling [{bar:30}] {pos}/{len} games  {per_sec}  eta {eta}",
            )
            .expect("a fixed template parses")
            .progress_chars("=> "),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let began = Instant::now();
    let positions = label::label(&variant, &plan, &labeler, || bar.inc(1))?;
    let seconds = began.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let (score_per_logit, from) = match label::fit_score_per_logit(&positions) {
        Some(s) => (s as f32, "fitted"),
        None => fallback,
    };
    let set = PositionSet {
        variant: variant.name().to_string(),
        board_size: variant.size,
        score_per_logit,
        labeler: labeler_name,
        positions,
    };
    write_positions(&args.out, &set)?;
    let summary = DataSummary {
        variant: set.variant.clone(),
        sources: sources.iter().map(|s| s.name.clone()).collect(),
        labeler: set.labeler.clone(),
        depth: args.depth,
        skip_plies: args.skip_plies,
        quiet_only: args.quiet_only,
        seed: args.seed,
        games: plan.games.len(),
        positions: set.positions.len(),
        duplicates_dropped: plan.duplicates,
        not_quiet: plan.not_quiet,
        score_per_logit_from: from,
        score_per_logit,
        threads: rayon::current_num_threads(),
        seconds,
        positions_per_second: set.positions.len() as f64 / seconds.max(1e-9),
    };
    atomic::write(
        &summary_path(&args.out),
        serde_json::to_string_pretty(&summary)?,
    )?;
    println!(
        "{}: {} games, {} positions labelled by {} ({} duplicates dropped{}) in {:.1} s: \
         {:.0} positions/s on {} threads",
        summary.variant,
        summary.games,
        summary.positions,
        summary.labeler,
        summary.duplicates_dropped,
        if args.quiet_only {
            format!(", {} not quiet", summary.not_quiet)
        } else {
            String::new()
        },
        seconds,
        summary.positions_per_second,
        summary.threads
    );
    println!(
        "score per logit: {score_per_logit:.1} ({})",
        match from {
            "fitted" => "fitted: logistic fit of result on score".to_string(),
            "learned" => "too few undecided positions to fit: the network's own scale".to_string(),
            _ => format!("too few undecided positions to fit: value_scale {value_scale} / 2"),
        }
    );
    println!("wrote {}", args.out.display());
    Ok(())
}
