//! `tavlei init-model` and `tavlei selfplay`.

use std::path::PathBuf;

use super::args::{SeedArg, VariantArg};
use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use tavlei::nn::device::DeviceChoice;
use tavlei::nn::NetworkEvaluator;
use tavlei::nn::{Architecture, Network};
use tavlei::rules::Position;
use tavlei::search::{Evaluator, RolloutEvaluator};
use tavlei::selfplay::{
    generate_shards_on_workers, shard_count, shard_plan, GenerateSummary, Progress, Seats,
    SelfplayConfig,
};
use tavlei::units::Units;

#[derive(Args)]
pub struct InitModelArgs {
    #[command(flatten)]
    variant: VariantArg,
    #[arg(long, default_value_t = Architecture::default().blocks)]
    blocks: usize,
    #[arg(long, default_value_t = Architecture::default().channels)]
    channels: i64,
    /// Where to write the weights (`.safetensors`; the sidecar `.json` goes beside it). A file,
    /// unlike `--out` elsewhere, which is always a directory.
    #[arg(long)]
    checkpoint: PathBuf,
    #[command(flatten)]
    seed: SeedArg,
}

pub fn init_model(args: InitModelArgs) -> Result<()> {
    let v = args.variant.load()?;
    if args.checkpoint.extension().and_then(|e| e.to_str()) != Some("safetensors") {
        bail!(
            "--checkpoint {} must end in .safetensors",
            args.checkpoint.display()
        );
    }
    let arch = Architecture {
        blocks: args.blocks,
        channels: args.channels,
    };
    let net = Network::new(v.name(), arch, tch::Device::Cpu, args.seed.seed);
    net.save(&args.checkpoint)?;
    println!(
        "wrote {} ({} blocks x {} channels, variant {})",
        args.checkpoint.display(),
        arch.blocks,
        arch.channels,
        v.name()
    );
    Ok(())
}

#[derive(Args)]
pub struct SelfplayArgs {
    #[command(flatten)]
    variant: VariantArg,
    /// Network checkpoint guiding the search.
    #[arg(long, conflicts_with_all = ["rollouts", "teacher"])]
    model: Option<PathBuf>,
    /// Teacher games instead of self-play: alpha-beta to depth D (`ab:D`) plays both sides and
    /// every move becomes a sample (a one-hot policy target on its move, its score as the search
    /// value). `ab:D:eval=FILE` takes the alpha-beta settings of FILE, `ab:D:nnue=FILE` a learned
    /// evaluation. The shards are read like self-play's.
    #[arg(long, value_name = "ab:D", conflicts_with_all = ["rollouts", "units", "plan"])]
    teacher: Option<String>,
    /// Pure MCTS: random rollouts per leaf instead of a network.
    #[arg(long)]
    rollouts: Option<usize>,
    /// Seed of the rollouts' random numbers (default: --seed); the pipeline's bootstrap uses the
    /// run's seed here and a generation's seed for the games.
    #[arg(long, requires = "rollouts")]
    rollout_seed: Option<u64>,
    #[arg(long, default_value_t = 64)]
    games: u64,
    /// Output directory (rerun with the same one to continue an interrupted run).
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    seed: SeedArg,
    /// Settings; the defaults are those of configs/selfplay.toml.
    #[arg(long)]
    config: Option<PathBuf>,
    #[arg(long, default_value = "auto")]
    device: DeviceChoice,
    /// Print the run's units of work as JSON (for `cluster/tavlei_cluster.py`): its shard count
    /// and the shards --out lacks. Checks (or writes) the manifest; plays nothing.
    #[arg(long, conflicts_with = "units")]
    plan: bool,
    /// Play only shards K..L of the run into --out: a cluster unit, whose files are those the
    /// whole run writes for them.
    #[arg(long, value_name = "K..L")]
    units: Option<Units>,
}

struct Bar(ProgressBar);

impl Bar {
    fn new(games: u64) -> Result<Bar> {
        let bar = ProgressBar::new(games);
        bar.set_style(
            ProgressStyle::with_template(
                "selfplay [{bar:30}] {pos}/{len} games  {msg}  eta {eta}",
            )?
            .progress_chars("=> "),
        );
        Ok(Bar(bar))
    }
}

impl Progress for Bar {
    fn game_finished(&mut self, s: &GenerateSummary) {
        self.0.inc(1);
        let share = |n: u64| 100.0 * n as f64 / s.games.max(1) as f64;
        self.0.set_message(format!(
            "{} positions, {:.0} pos/s, att {:.0}% def {:.0}% draw {:.0}%",
            s.positions,
            s.positions as f64 / s.seconds.max(1e-9),
            share(s.attacker_wins),
            share(s.defender_wins),
            share(s.draws)
        ));
    }
}

pub fn selfplay(args: SelfplayArgs) -> Result<()> {
    let v = args.variant.load()?;
    let cfg = match &args.config {
        Some(path) => SelfplayConfig::load(path)?,
        None => SelfplayConfig::default(),
    };
    if args.plan {
        let (shards, missing) = shard_plan(v.name(), &cfg, args.games, args.seed.seed, &args.out)?;
        let plan = serde_json::json!({ "shards": shards, "missing": missing });
        println!("{plan}");
        return Ok(());
    }
    if let Some(teacher) = &args.teacher {
        return teacher_games(&args, teacher, &v, &cfg);
    }
    // one evaluator for each lane (`selfplay::lane`), played on the config's workers
    let make = || -> Result<Box<dyn Evaluator + Send>> {
        Ok(match (&args.model, args.rollouts) {
            (Some(path), _) => {
                let device = args.device.resolve()?;
                let net = Network::load(path, Some(v.name()), device)
                    .with_context(|| format!("loading {}", path.display()))?;
                Box::new(NetworkEvaluator::with_precision(net, cfg.precision))
            }
            (None, Some(n)) => Box::new(RolloutEvaluator::new(
                n,
                args.rollout_seed.unwrap_or(args.seed.seed),
            )),
            (None, None) => bail!("give --model CKPT or --rollouts N"),
        })
    };
    let evaluators = (0..cfg.lanes.max(1))
        .map(|_| make())
        .collect::<Result<Vec<_>>>()?;
    let player = evaluators[0].describe();
    let mut progress = Bar::new(args.games)?;
    let shards = match args.units {
        Some(units) => units.range(),
        None => 0..shard_count(args.games, &cfg),
    };
    let summary = generate_shards_on_workers(
        &Position::start(&v),
        evaluators,
        &Seats::new(cfg.worker_threads()),
        &cfg,
        args.games,
        args.seed.seed,
        &args.out,
        shards,
        &mut progress,
    )?;
    progress.0.finish_and_clear();
    print_summary(&summary, v.name(), &player, &args.out);
    println!(
        "{} evaluations in {} batches, {} cache hits",
        summary.evaluations, summary.batches, summary.cache_hits
    );
    println!(
        "{} workers: {:.1} core-seconds ({:.1} in forward passes, {:.1} in tree work), {:.1} s waiting for a lane, {:.1} s for a core, {:.1} s writing; batches by size 2^k: {:?}",
        summary.workers,
        summary.cpu_seconds,
        summary.forward_seconds,
        summary.tree_seconds,
        summary.idle_seconds,
        summary.queued_seconds,
        summary.write_seconds,
        summary.batch_sizes
    );
    Ok(())
}

/// `--teacher ab:D[:eval=FILE][:nnue=FILE]`: alpha-beta's games against itself as training data.
fn teacher_games(
    args: &SelfplayArgs,
    teacher: &str,
    v: &std::sync::Arc<tavlei::rules::Variant>,
    cfg: &SelfplayConfig,
) -> Result<()> {
    let teacher = tavlei::selfplay::teacher::Teacher::parse(teacher)
        .with_context(|| format!("--teacher {teacher}"))?;
    let mut progress = Bar::new(args.games)?;
    let summary = tavlei::selfplay::generate_teacher(
        &Position::start(v),
        &teacher,
        cfg,
        args.games,
        args.seed.seed,
        &args.out,
        &mut progress,
    )?;
    progress.0.finish_and_clear();
    print_summary(
        &summary,
        v.name(),
        &format!(
            "alpha-beta to depth {}{} (teacher games)",
            teacher.depth,
            teacher
                .learned
                .as_ref()
                .map(|l| format!(" with the learned evaluation {}", l.file.display()))
                .unwrap_or_default()
        ),
        &args.out,
    );
    Ok(())
}

fn print_summary(summary: &GenerateSummary, variant: &str, player: &str, out: &std::path::Path) {
    let share = |n: u64| 100.0 * n as f64 / summary.games.max(1) as f64;
    if summary.resumed_games > 0 {
        println!(
            "{} games were already written by an earlier run; played the rest",
            summary.resumed_games
        );
    }
    println!(
        "{} games of {} with {} in {:.1} s: {} positions ({:.0}/s, {:.0} games/hour), {} training samples",
        summary.games,
        variant,
        player,
        summary.seconds,
        summary.positions,
        summary.positions as f64 / summary.seconds.max(1e-9),
        summary.games as f64 * 3600.0 / summary.seconds.max(1e-9),
        summary.samples
    );
    println!(
        "attackers {:.1} %, defenders {:.1} %, draws {:.1} %",
        share(summary.attacker_wins),
        share(summary.defender_wins),
        share(summary.draws),
    );
    if summary.alpha_beta_starts > 0 {
        println!(
            "{} games started after alpha-beta's first plies ([starts]; those plies are not in the positions)",
            summary.alpha_beta_starts
        );
    }
    println!("shards and game records in {}", out.display());
}
