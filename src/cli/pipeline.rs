//! `tavlei pipeline --config FILE --run-dir DIR`: the self-play loop with its direct measurements,
//! the closing ladder of all generations, a balance table of the last network, and the report.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use tavlei::eval::balance::{run_balance, store_path};
use tavlei::eval::{Agent, AgentSpec, PlayOptions};
use tavlei::nn::device::DeviceChoice;
use tavlei::pipeline::ladder::generation_ladder;
use tavlei::pipeline::report::write_report;
use tavlei::pipeline::run::model_path;
use tavlei::pipeline::{run_pipeline, PipelineConfig, PipelineProgress};
use tavlei::report::table::render;
use tavlei::rules::{Position, Variant};

#[derive(Args)]
pub struct PipelineArgs {
    /// The pipeline settings (see configs/pipeline/*.toml).
    #[arg(long)]
    config: PathBuf,
    /// Everything the run makes goes here; rerun the same command to resume.
    #[arg(long)]
    run_dir: PathBuf,
    /// Self-play games of the last network for the closing balance table (0 skips it).
    #[arg(long, default_value_t = 100)]
    balance_games: u64,
    #[arg(long, default_value = "auto")]
    device: DeviceChoice,
}

struct Display {
    bar: ProgressBar,
    generations: u32,
}

impl PipelineProgress for Display {
    fn stage(&mut self, generation: u32, stage: &str, len: u64) {
        self.bar.reset();
        self.bar.set_length(len);
        self.bar.set_prefix(format!(
            "gen {}/{} {stage:<9}",
            generation + 1,
            self.generations
        ));
        self.bar.set_message("");
    }

    fn advance(&mut self, done: u64, message: &str) {
        self.bar.set_position(done);
        if !message.is_empty() {
            self.bar.set_message(message.to_string());
        }
    }
}

pub fn run(args: PipelineArgs) -> Result<()> {
    let clock = std::time::Instant::now();
    let cfg = PipelineConfig::load(&args.config).map_err(anyhow::Error::msg)?;
    let run_info = serde_json::json!({
        "config": args.config.display().to_string(),
        "seed": cfg.seed,
        "git_revision": option_env!("TAVLEI_GIT_REV").unwrap_or("unknown"),
        "tavlei_version": env!("CARGO_PKG_VERSION"),
    });
    std::fs::create_dir_all(&args.run_dir)
        .with_context(|| format!("creating {}", args.run_dir.display()))?;
    tavlei::atomic::write(
        &args.run_dir.join("run.json"),
        &serde_json::to_string_pretty(&run_info)?,
    )?;
    let bar = ProgressBar::new(1);
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len}  {msg}  {elapsed}")?
            .progress_chars("=> "),
    );
    let mut display = Display {
        bar,
        generations: cfg.generations,
    };
    let device = args.device.resolve()?;
    let records = run_pipeline(&cfg, &args.run_dir, device, &mut display)?;
    let variant = Variant::load(&cfg.variant)?;
    let start = Position::start(&variant);
    let best = records
        .iter()
        .rev()
        .find(|r| r.accepted)
        .map_or(0, |r| r.generation + 1);
    let best_model = model_path(&args.run_dir, best);
    let sims = cfg.eval.simulations;
    let last = records.last().map_or(0, |r| r.generation + 1);
    let ladder = generation_ladder(&cfg, &args.run_dir, last, device, &mut display)?;
    let mut balance = None;
    if args.balance_games > 0 {
        display.stage(cfg.generations - 1, "balance", args.balance_games);
        let spec = AgentSpec::parse(&format!("net:{}:{sims}", best_model.display()))?;
        let agent = Agent::load(&spec, variant.name(), device, cfg.seed)?;
        let store = store_path(
            &args.run_dir.join("balance"),
            variant.name(),
            &format!("gen{best}-{sims}"),
        );
        let opts = PlayOptions {
            concurrent: cfg.eval.concurrent,
            ..PlayOptions::default()
        };
        let mut n = 0;
        balance = Some(run_balance(
            &start,
            agent,
            args.balance_games,
            &opts,
            cfg.seed,
            &store,
            &mut |_| {
                n += 1;
                display.advance(n, "");
            },
        )?);
    }
    display.bar.finish_and_clear();
    let summary = write_report(
        &args.run_dir,
        variant.name(),
        &cfg.eval,
        &records,
        ladder.as_ref(),
        clock.elapsed().as_secs_f64(),
    )?;
    println!("{summary}");
    if let Some(b) = balance {
        let pct = |s: &tavlei::eval::balance::Share| {
            format!(
                "{:.1} [{:.1}, {:.1}]",
                100.0 * s.value,
                100.0 * s.low,
                100.0 * s.high
            )
        };
        let ratio = b
            .ratio
            .value
            .map_or("n/a".to_string(), |v| format!("{v:.2}"));
        println!("Balance of {} with the last network (generation {best}, {sims} simulations) playing both sides:", variant.name());
        print!(
            "{}",
            render(
                &[
                    "games",
                    "attackers %",
                    "defenders %",
                    "draws %",
                    "def/att",
                    "mean length"
                ],
                &[vec![
                    b.games.to_string(),
                    pct(&b.attackers),
                    pct(&b.defenders),
                    pct(&b.draw),
                    ratio,
                    format!("{:.0}", b.mean_length)
                ]]
            )
        );
    }
    println!(
        "\nReport: {}  (plots: elo.svg, attacker_rate.svg, losses.svg)",
        args.run_dir.join("summary.md").display()
    );
    Ok(())
}
