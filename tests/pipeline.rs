//! The self-play loop on a tiny configuration: every stage leaves its files, the report and plots
//! are written, and a rerun resumes instead of starting over.

use tavlei::pipeline::run::{generation_dir, model_path};
use tavlei::pipeline::{run_pipeline, PipelineConfig, PipelineProgress};

struct Quiet;

impl PipelineProgress for Quiet {
    fn stage(&mut self, _: u32, _: &str, _: u64) {}
    fn advance(&mut self, _: u64, _: &str) {}
}

fn tiny(generations: u32) -> PipelineConfig {
    let text = std::fs::read_to_string("configs/pipeline/brandubh.toml").expect("shipped config");
    let mut cfg = PipelineConfig::parse(&text).expect("the shipped config parses");
    cfg.generations = generations;
    cfg.games_per_generation = 6;
    cfg.network.blocks = 1;
    cfg.network.channels = 8;
    cfg.selfplay.simulations = 8;
    cfg.selfplay.fast_simulations = 4;
    cfg.selfplay.concurrent_games = 6;
    cfg.selfplay.games_per_shard = 3;
    cfg.train.steps = 6;
    cfg.train.batch_size = 16;
    cfg.train.log_every = 3;
    cfg.eval.pairs = 2;
    cfg.eval.simulations = 4;
    cfg
}

#[test]
fn generations_run_report_and_resume() {
    let run = std::env::temp_dir().join(format!("tavlei-pipeline-{}", std::process::id()));
    std::fs::remove_dir_all(&run).ok();
    let first = run_pipeline(&tiny(1), &run, tch::Device::Cpu, &mut Quiet).expect("one generation");
    assert_eq!(first.len(), 1);
    let g1 = model_path(&run, 1);
    assert!(g1.exists() && generation_dir(&run, 1).join("match.json").exists());
    assert!(generation_dir(&run, 0)
        .join("selfplay")
        .join("shard-00000.shard")
        .exists());
    let stamp = std::fs::metadata(&g1)
        .and_then(|m| m.modified())
        .expect("mtime");
    // the same run asked for two generations keeps the first and adds one
    let records =
        run_pipeline(&tiny(2), &run, tch::Device::Cpu, &mut Quiet).expect("two generations");
    assert_eq!(records.len(), 2);
    assert_eq!(
        std::fs::metadata(&g1)
            .and_then(|m| m.modified())
            .expect("mtime"),
        stamp,
        "generation 1 was redone"
    );
    assert!(model_path(&run, 2).exists());
    assert_eq!(records[0].selfplay.games, 6);
    let text = tavlei::pipeline::report::write_report(
        &run,
        "brandubh",
        tavlei::pipeline::config::Gating::None,
        &records,
        None,
        1.0,
    )
    .expect("report");
    assert!(text.contains("| 1 | 6 |"), "{text}");
    // without gating every candidate is taken, and the table says so instead of "yes"
    assert!(
        text.contains("| no gating |") && !text.contains("| yes |"),
        "{text}"
    );
    assert!(text.contains("not a direct measurement"), "{text}");
    for plot in ["elo.svg", "attacker_rate.svg", "losses.svg", "summary.md"] {
        assert!(run.join(plot).exists(), "{plot} missing");
    }
    // another network size in the same directory is refused
    let mut other = tiny(2);
    other.network.channels = 16;
    let err = run_pipeline(&other, &run, tch::Device::Cpu, &mut Quiet)
        .expect_err("config change refused");
    assert!(err.to_string().contains("another configuration"), "{err}");
    std::fs::remove_dir_all(&run).ok();
}
