//! Subcommands: thin adapters that parse arguments, call the library and print results.

mod analyze;
mod args;
mod data;
mod demo;
mod engine;
mod eval;
mod grow;
mod info;
mod nnue;
mod nnue_train;
mod onnx;
mod perft;
mod pictures;
mod pipeline;
mod play;
mod random;
mod record;
mod replay;
mod rules;
mod selfplay;
mod serve;
mod train;
mod tune;

use std::io::IsTerminal;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "tavlei",
    version,
    about = "Self-play, training and balance measurement for tafl games"
)]
struct Cli {
    /// More log output (-v info, -vv debug); RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    /// Worker threads for games played apart (pure MCTS, alpha-beta, random) and other parallel
    /// work; default: RAYON_NUM_THREADS, else every core. Results do not depend on it.
    #[arg(long, global = true, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// libtorch threads for each network forward pass in a search (self-play, matches, engines,
    /// analysis: default 1, one per search worker) and for each training step (default: every
    /// core, or --threads). More than 1 beside other work is slower, often many times over.
    #[arg(long, global = true, value_parser = clap::value_parser!(u16).range(1..))]
    torch_threads: Option<u16>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the preset variants or show one.
    #[command(subcommand)]
    Rules(rules::RulesCommand),
    /// Count move sequences to a depth (checks the move generator).
    Perft(perft::PerftArgs),
    /// Uniformly random playouts: outcome shares and engine speed.
    Random(random::RandomArgs),
    /// Check recorded games move by move.
    Replay(replay::ReplayArgs),
    /// Draw a position, or a recorded game at a ply, as SVG and PNG.
    Render(pictures::RenderArgs),
    /// Recorded games as one self-contained HTML page to step through.
    Viewer(pictures::ViewerArgs),
    /// Game records to and from OpenTafl game files (`.otg`).
    #[command(subcommand)]
    Record(record::RecordCommand),
    /// Version, libtorch and the device networks would run on.
    Info(info::InfoArgs),
    /// A randomly initialised network checkpoint, so self-play can start from nothing.
    InitModel(selfplay::InitModelArgs),
    /// Self-play games with MCTS: training shards and game records.
    Selfplay(selfplay::SelfplayArgs),
    /// Shard directories: statistics, and export to NumPy.
    #[command(subcommand)]
    Data(data::DataCommand),
    /// Train a network on self-play shards (resumable).
    Train(train::TrainArgs),
    /// A trained network grown into a larger one (more blocks or channels) that computes the
    /// same function, so training continues at the larger size.
    Grow(grow::GrowArgs),
    /// A paired match between two agents: score, Elo, pentanomial statistics, SPRT.
    Match(eval::MatchArgs),
    /// A round robin between agents, rated by Bradley-Terry.
    Ladder(eval::LadderArgs),
    /// Attacker/defender balance of variants, at one or several strengths.
    Balance(eval::BalanceArgs),
    /// The learned evaluation (NNUE-style): training positions from stored games.
    #[command(subcommand)]
    Nnue(nnue::NnueCommand),
    /// Fit the alpha-beta evaluation's weights to the outcomes of stored games (Texel's method).
    Tune(tune::TuneArgs),
    /// The self-play loop: generations of self-play, training and evaluation (resumable).
    Pipeline(pipeline::PipelineArgs),
    /// Random games of every preset: outcome shares and the engine's speed, in one table.
    Demo(demo::DemoArgs),
    /// Analysis on JSON lines: queries in, candidate moves with visits, values and lines out.
    Analyze(analyze::AnalyzeArgs),
    /// An engine for other programs on standard input and output (HTP of hnefatafl.org, or
    /// OpenTafl's engine protocol).
    Engine(engine::EngineArgs),
    /// A checkpoint as an ONNX file, checked against tch through onnxruntime.
    ExportOnnx(onnx::ExportOnnxArgs),
    /// Play against an agent at the terminal.
    Play(play::PlayArgs),
    /// Play and analyse in the browser, and browse balance studies: a local web page.
    Serve(serve::ServeArgs),
}

pub fn run() -> Result<()> {
    let cli = Cli::parse();
    init_logging(cli.verbose);
    // a GPU machine gets libtorch's CUDA half before libtorch is first asked about CUDA
    if tavlei::nn::device::gpu_driver_present() {
        tavlei::nn::device::load_cuda();
    }
    // before any tensor op: libtorch's defaults spin for cores they do not get
    tavlei::nn::threads::configure(
        cli.torch_threads.map(usize::from),
        cli.torch_threads.or(cli.threads).map(usize::from),
    );
    if let Some(n) = cli.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n as usize)
            .build_global()
            .context("setting up the worker threads")?;
    }
    match cli.command {
        Command::Rules(cmd) => rules::run(cmd),
        Command::Perft(args) => perft::run(args),
        Command::Random(args) => random::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Render(args) => pictures::render(args),
        Command::Viewer(args) => pictures::viewer(args),
        Command::Record(cmd) => record::run(cmd),
        Command::Data(cmd) => data::run(cmd),
        Command::Demo(args) => demo::run(args),
        Command::Info(args) => info::run(args),
        Command::InitModel(args) => selfplay::init_model(args),
        Command::Selfplay(args) => selfplay::selfplay(args),
        Command::Train(args) => train::run(args),
        Command::Grow(args) => grow::run(args),
        Command::Match(args) => eval::run_match_cmd(args),
        Command::Ladder(args) => eval::run_ladder_cmd(args),
        Command::Balance(args) => eval::run_balance_cmd(args),
        Command::Tune(args) => tune::run(args),
        Command::Nnue(cmd) => nnue::run(cmd),
        Command::Pipeline(args) => pipeline::run(args),
        Command::Engine(args) => engine::run(args),
        Command::Analyze(args) => analyze::run(args),
        Command::ExportOnnx(args) => onnx::run(args),
        Command::Play(args) => play::run(args),
        Command::Serve(args) => serve::run(args),
    }
}

fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    // colour codes only for a person at a terminal, never into a log file
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .init();
}
