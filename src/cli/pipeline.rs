//! `tavlei pipeline --config FILE --run-dir DIR`: the self-play loop with its direct measurements,
//! the closing ladder of all generations, a balance table of the last network, and the report.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use tavlei::eval::study::balance_table;
use tavlei::nn::device::DeviceChoice;
use tavlei::pipeline::balance::closing_balance;
use tavlei::pipeline::ladder::generation_ladder;
use tavlei::pipeline::report::write_report;
use tavlei::pipeline::{
    run_pipeline_with, PipelineConfig, PipelineProgress, SelfplayJob, SelfplayRunner,
};

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
    /// Play each generation's self-play on this Ray cluster (the head's HOST:PORT) through
    /// `cluster/tavlei_cluster.py`; training and evaluation stay here.
    #[arg(long, value_name = "ADDRESS")]
    cluster: Option<String>,
    /// The cluster driver (default: cluster/tavlei_cluster.py under the current directory), run
    /// with the venv's python (TAVLEI_PYTHON or TAVLEI_VENV pick another).
    #[arg(long, requires = "cluster")]
    cluster_driver: Option<PathBuf>,
}

/// Self-play through the Ray driver: `tavlei selfplay` arguments that make the pipeline's shards.
struct ClusterSelfplay {
    address: String,
    driver: PathBuf,
    python: PathBuf,
    device: String,
}

impl SelfplayRunner for ClusterSelfplay {
    fn run(&mut self, job: &SelfplayJob) -> Result<(), String> {
        let Some(parent) = job.out.parent() else {
            return Err(format!("{} has no parent directory", job.out.display()));
        };
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        let config = parent.join("selfplay.toml");
        let text = toml::to_string(job.config).map_err(|e| e.to_string())?;
        tavlei::atomic::write(&config, text).map_err(|e| e.to_string())?;
        let exe = std::env::current_exe().map_err(|e| format!("the tavlei binary: {e}"))?;
        let mut cmd = std::process::Command::new(&self.python);
        cmd.arg(&self.driver)
            .args(["--address", &self.address, "--tavlei"])
            .arg(exe)
            .args(["selfplay", "--", "--variant", job.variant]);
        match (&job.model, job.rollouts) {
            (Some(model), _) => {
                cmd.arg("--model")
                    .arg(model)
                    .args(["--device", &self.device]);
            }
            (None, Some((n, seed))) => {
                cmd.args([
                    "--rollouts",
                    &n.to_string(),
                    "--rollout-seed",
                    &seed.to_string(),
                ]);
            }
            (None, None) => return Err("neither a model nor rollouts".into()),
        }
        cmd.args([
            "--games",
            &job.games.to_string(),
            "--seed",
            &job.seed.to_string(),
        ])
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(job.out)
        .stdout(std::process::Stdio::null());
        let status = cmd
            .status()
            .map_err(|e| format!("running {}: {e}", self.python.display()))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("{} exited with {status}", self.driver.display()))
        }
    }
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
    let mut cluster = match &args.cluster {
        Some(address) => Some(ClusterSelfplay {
            address: address.clone(),
            driver: args
                .cluster_driver
                .clone()
                .unwrap_or_else(|| PathBuf::from("cluster/tavlei_cluster.py")),
            python: tavlei::nn::onnx::find_python()?,
            device: match args.device {
                DeviceChoice::Cpu => "cpu".into(),
                _ => "auto".into(),
            },
        }),
        None => None,
    };
    let runner = cluster.as_mut().map(|c| c as &mut dyn SelfplayRunner);
    let records = run_pipeline_with(&cfg, &args.run_dir, device, &mut display, runner)?;
    let best = records
        .iter()
        .rev()
        .find(|r| r.accepted)
        .map_or(0, |r| r.generation + 1);
    let last = records.last().map_or(0, |r| r.generation + 1);
    let ladder = generation_ladder(&cfg, &args.run_dir, last, device, &mut display)?;
    let balance = (args.balance_games > 0)
        .then(|| {
            closing_balance(
                &cfg,
                &args.run_dir,
                best,
                args.balance_games,
                device,
                &mut display,
            )
        })
        .transpose()?;
    display.bar.finish_and_clear();
    let variant = tavlei::interop::load_variant(&cfg.variant)?;
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
        println!(
            "Balance of {} with the last network (generation {best}, {} simulations) playing both sides:",
            b.variant, cfg.eval.simulations
        );
        print!("{}", balance_table(&[b]));
    }
    println!(
        "\nReport: {}  (plots: elo.svg, attacker_rate.svg, losses.svg)",
        args.run_dir.join("summary.md").display()
    );
    Ok(())
}
