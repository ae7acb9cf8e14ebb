//! The self-play loop on a tiny configuration: every stage leaves its files, the report and plots
//! are written, and a rerun resumes instead of starting over.

use tavlei::eval::matches::Ends;
use tavlei::pipeline::ladder::generation_ladder;
use tavlei::pipeline::run::{generation_dir, model_path};
use tavlei::pipeline::{run_pipeline, PipelineConfig, PipelineProgress};

struct Quiet;

impl PipelineProgress for Quiet {
    fn stage(&mut self, _: u32, _: &str, _: u64) {}
    fn advance(&mut self, _: u64, _: &str) {}
}

fn tiny(generations: u32) -> PipelineConfig {
    let text = std::fs::read_to_string("configs/pipeline/brandubh.toml").expect("shipped config");
    let mut cfg = PipelineConfig::parse(&text, "brandubh.toml").expect("the shipped config parses");
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
    cfg.eval.anchor_pairs = 1;
    cfg.eval.anchor = "ab:t=1ms".into();
    cfg.eval.ladder_pairs = 1;
    cfg
}

#[test]
fn generations_run_report_and_resume() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = tmp.path().join("run");
    let first = run_pipeline(&tiny(1), &run, tch::Device::Cpu, &mut Quiet).expect("one generation");
    assert_eq!(first.len(), 1);
    let g1 = model_path(&run, 1);
    for file in ["match.json", "vs-gen0.json", "vs-anchor.json"] {
        assert!(generation_dir(&run, 1).join(file).exists(), "{file}");
    }
    // the direct measurements: both sides played, from the candidate's view
    let anchor = first[0].against_anchor.as_ref().expect("anchor match");
    assert_eq!(anchor.b, "ab:t=1ms");
    assert!(
        anchor.a.starts_with("net:") && anchor.a.ends_with(":t=1ms"),
        "{}",
        anchor.a
    );
    let side_games = |w: &tavlei::eval::matches::Wdl| w.wins + w.draws + w.losses;
    assert_eq!(side_games(&anchor.as_attacker), 1);
    assert_eq!(side_games(&anchor.as_defender), 1);
    let first_match = first[0].against_first.as_ref().expect("gen 0 match");
    assert!(first_match.b.contains("gen-000"), "{}", first_match.b);
    assert!(generation_dir(&run, 0)
        .join("selfplay")
        .join("shard-00000.shard")
        .exists());
    let stamp = std::fs::metadata(&g1)
        .and_then(|m| m.modified())
        .expect("mtime");
    // what a killed invocation was writing when its stage was already done (a time book, a
    // shard) is not written again, so the next invocation removes it
    let leftovers = [
        run.join("time.json.tmp"),
        generation_dir(&run, 1).join("time.json.tmp"),
        generation_dir(&run, 0).join("selfplay/shard-00001.shard.tmp"),
    ];
    for file in &leftovers {
        std::fs::write(file, "torn").expect("plant a leftover");
    }
    // the same run asked for two generations keeps the first and adds one
    let records =
        run_pipeline(&tiny(2), &run, tch::Device::Cpu, &mut Quiet).expect("two generations");
    for file in &leftovers {
        assert!(!file.exists(), "{} was left", file.display());
    }
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
    let cfg = tiny(2);
    let ladder = generation_ladder(&cfg, &run, 2, tch::Device::Cpu, &mut Quiet)
        .expect("ladder")
        .expect("two generations make a ladder");
    assert_eq!(ladder.generations, vec![0, 1, 2]);
    assert_eq!(ladder.ratings[0].elo, 0.0, "relative to generation 0");
    // each interval is that of a difference to generation 0: generation 0's is empty, the
    // others wider than their mean-centred ones (generation 0's uncertainty is in them)
    assert_eq!(ladder.ratings[0].low, ladder.ratings[0].high);
    for g in 1..3 {
        let width = |r: &tavlei::eval::stats::Rating| r.high - r.low;
        assert!(
            width(&ladder.ratings[g]) > width(&ladder.report.ratings[g]),
            "{:?} {:?}",
            ladder.ratings[g],
            ladder.report.ratings[g]
        );
    }
    assert_eq!(ladder.report.games, 3 * 2);
    let stamp = std::fs::metadata(run.join("ladder.json"))
        .and_then(|m| m.modified())
        .expect("ladder.json");
    generation_ladder(&cfg, &run, 2, tch::Device::Cpu, &mut Quiet).expect("stored ladder");
    assert_eq!(
        std::fs::metadata(run.join("ladder.json"))
            .and_then(|m| m.modified())
            .expect("mtime"),
        stamp,
        "the same networks are not rated again"
    );
    // the closing balance table: the last network on both sides, stored and resumed
    let balance =
        tavlei::pipeline::balance::closing_balance(&cfg, &run, 2, 4, tch::Device::Cpu, &mut Quiet)
            .expect("balance");
    assert_eq!(balance.games, 4);
    assert!(balance.agent.contains("gen-002"), "{}", balance.agent);
    assert_eq!(
        balance.attacker_wins + balance.defender_wins + balance.draws,
        4
    );
    let again =
        tavlei::pipeline::balance::closing_balance(&cfg, &run, 2, 4, tch::Device::Cpu, &mut Quiet)
            .expect("stored balance");
    assert_eq!(again.reasons, balance.reasons, "read back from its store");
    let text = tavlei::pipeline::report::write_report(
        &run,
        "brandubh",
        &cfg.eval,
        &records,
        Some(&ladder),
        1.0,
    )
    .expect("report");
    assert!(text.contains("| 1 | gen 1 | 6 |"), "{text}");
    assert!(
        text.contains("## Ladder of the measured generations"),
        "{text}"
    );
    assert!(text.contains("| gen 2 | "), "{text}");
    // each side's W-D-L says how its wins ended (a win by repetition is not an attack)
    let mut described = 0;
    for m in records
        .iter()
        .flat_map(|r| [&r.against_first, &r.against_anchor])
        .flatten()
    {
        for (w, ends) in [
            (&m.as_attacker, &m.ends.attacking),
            (&m.as_defender, &m.ends.defending),
        ] {
            let mut cell = format!("{}-{}-{}", w.wins, w.draws, w.losses);
            if w.wins > 0 {
                cell += &format!(" ({})", Ends::describe(&ends.wins));
                described += 1;
            }
            assert!(text.contains(&format!("| {cell} |")), "{cell}: {text}");
        }
    }
    assert!(described > 0, "no candidate won a game: {text}");
    // without gating every candidate is taken, and the table says so instead of "yes"
    assert!(
        text.contains("| no gating |") && !text.contains("| yes |"),
        "{text}"
    );
    assert!(text.contains("It is not a direct measurement"), "{text}");
    for plot in [
        "elo.svg",
        "elo.png",
        "attacker_rate.svg",
        "attacker_rate.png",
        "losses.svg",
        "losses.png",
        "summary.md",
    ] {
        assert!(run.join(plot).exists(), "{plot} missing");
    }
    // another network size in the same directory is refused
    let mut other = tiny(2);
    other.network.channels = 16;
    let err = run_pipeline(&other, &run, tch::Device::Cpu, &mut Quiet)
        .expect_err("config change refused");
    assert!(err.to_string().contains("another configuration"), "{err}");
}

#[test]
fn evaluation_every_k_generations_and_where_the_time_went() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = tmp.path().join("run");
    let mut cfg = tiny(3);
    cfg.eval.every = 2;
    let records =
        run_pipeline(&cfg, &run, tch::Device::Cpu, &mut Quiet).expect("three generations");
    // generation 0's candidate is not measured; generation 1's is (every 2nd), and the last
    let measured: Vec<bool> = records
        .iter()
        .map(|r| r.against_anchor.is_some() && r.against_first.is_some())
        .collect();
    assert_eq!(measured, vec![false, true, true]);
    assert!(records[0].candidate_match.is_none() && records[1].candidate_match.is_some());
    assert!(!generation_dir(&run, 1).join("vs-anchor.json").exists());
    // every stage that ran left its wall and CPU time in its generation's book
    for (g, stages) in [
        (0, vec!["selfplay", "train"]),
        (1, vec!["anchors", "evaluate", "selfplay", "train"]),
    ] {
        let book = tavlei::pipeline::timing::read_book(&run, Some(g)).expect("time.json");
        let names: Vec<&str> = book.keys().map(String::as_str).collect();
        assert_eq!(names, stages, "generation {g}");
        assert!(
            book.values().all(|t| t.wall > 0.0 && t.cpu >= 0.0),
            "{book:?}"
        );
    }
    let text =
        tavlei::pipeline::report::write_report(&run, "brandubh", &cfg.eval, &records, None, 1.0)
            .expect("report");
    assert!(text.contains("## Where the time went"), "{text}");
    assert!(text.contains("| **all** | "), "{text}");
    assert!(text.contains("positions per hour of self-play"), "{text}");
    // an every of 0 is refused by name
    let text = std::fs::read_to_string("configs/pipeline/brandubh.toml").expect("config");
    let err = PipelineConfig::parse(&text.replace("\nevery = 1", "\nevery = 0"), "brandubh.toml")
        .expect_err("every 0");
    assert!(err.to_string().contains("eval.every"), "{err}");
}

#[test]
fn bad_anchor_or_encoding_settings_are_refused_by_name() {
    let text = std::fs::read_to_string("configs/pipeline/brandubh.toml").expect("shipped config");
    for (from, to, expected) in [
        ("encoding = 2", "encoding = 9", "encoding 9"),
        (
            "anchor = \"ab:t=20ms\"",
            "anchor = \"ab:3\"",
            "must be a classical agent with a time per move",
        ),
        (
            "anchor = \"ab:t=20ms\"",
            "anchor = \"net:models/brandubh.safetensors:t=20ms\"",
            "must be a classical agent",
        ),
        (
            "anchor = \"ab:t=20ms\"",
            "anchor = \"ab:t=fast\"",
            "eval.anchor",
        ),
    ] {
        assert!(text.contains(from), "{from}");
        let err = PipelineConfig::parse(&text.replace(from, to), "changed.toml").expect_err(to);
        assert!(err.to_string().contains(expected), "{to}: {err}");
    }
}

#[test]
fn a_run_may_keep_the_older_encoding_to_measure_against() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = tmp.path().join("run");
    let mut cfg = tiny(1);
    cfg.encoding = 1;
    cfg.eval.anchor_pairs = 0;
    run_pipeline(&cfg, &run, tch::Device::Cpu, &mut Quiet).expect("one generation");
    for g in [0, 1] {
        let net =
            tavlei::nn::Network::load(&model_path(&run, g), None, tch::Device::Cpu).expect("loads");
        assert_eq!(
            net.encoding(),
            tavlei::encode::Encoding::V1,
            "generation {g}"
        );
    }
}

#[test]
fn a_damaged_stage_file_stops_the_run_and_is_kept() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = tmp.path().join("run");
    let mut cfg = tiny(1);
    cfg.eval.anchor_pairs = 0;
    run_pipeline(&cfg, &run, tch::Device::Cpu, &mut Quiet).expect("one generation");
    for file in [
        run.join("config.json"),
        generation_dir(&run, 0).join("selfplay.json"),
    ] {
        let good = std::fs::read_to_string(&file).expect("stage file");
        std::fs::write(&file, "{ damaged").expect("writes");
        let err = run_pipeline(&cfg, &run, tch::Device::Cpu, &mut Quiet)
            .expect_err("a damaged stage file is refused");
        assert!(
            err.to_string().contains(&file.display().to_string()),
            "{err}"
        );
        assert_eq!(
            std::fs::read_to_string(&file).expect("kept"),
            "{ damaged",
            "not overwritten"
        );
        std::fs::write(&file, good).expect("restores");
    }
}

#[test]
fn teacher_games_are_played_reported_and_trained_on() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = tmp.path().join("run");
    let mut cfg = tiny(1);
    cfg.eval.anchor_pairs = 0;
    cfg.teacher.games = 4;
    cfg.teacher.agent = "ab:2".into();
    let records = run_pipeline(&cfg, &run, tch::Device::Cpu, &mut Quiet).expect("one generation");
    let teacher = records[0].teacher.as_ref().expect("teacher games");
    assert_eq!(teacher.games, 4);
    assert_eq!(
        teacher.attacker_wins + teacher.defender_wins + teacher.draws,
        4
    );
    let gen0 = generation_dir(&run, 0);
    assert!(gen0.join("teacher").join("shard-00000.shard").exists());
    assert!(gen0.join("teacher.json").exists());
    // the network trained on both kinds of games
    let trained: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(generation_dir(&run, 1).join("train.json")).expect("train.json"),
    )
    .expect("json");
    let used = trained["train_samples"].as_u64().expect("count")
        + trained["validation_samples"].as_u64().expect("count");
    assert_eq!(used, records[0].selfplay.samples + teacher.samples);
    let text =
        tavlei::pipeline::report::write_report(&run, "brandubh", &cfg.eval, &records, None, 1.0)
            .expect("report");
    assert!(text.contains("| 0 | teacher | 4 |"), "{text}");
    // a rerun reads the teacher's games back instead of playing them again
    let again = run_pipeline(&cfg, &run, tch::Device::Cpu, &mut Quiet).expect("resumed");
    assert_eq!(
        again[0].teacher.as_ref().expect("teacher").seconds,
        teacher.seconds
    );
}

#[test]
fn a_teacher_must_be_alpha_beta_at_a_depth() {
    let text = std::fs::read_to_string("configs/pipeline/brandubh.toml").expect("shipped config");
    for agent in ["ab:t=20ms", "mcts:64", "ab"] {
        let changed = format!("{text}\n[teacher]\ngames = 10\nagent = \"{agent}\"\n");
        let err = PipelineConfig::parse(&changed, "teacher.toml").expect_err(agent);
        assert!(err.to_string().contains("teacher.agent"), "{agent}: {err}");
    }
    // a settings file that does not exist is named
    let missing = format!("{text}\n[teacher]\ngames = 10\nagent = \"ab:3:eval=no/such.toml\"\n");
    let err = PipelineConfig::parse(&missing, "teacher.toml").expect_err("no file");
    assert!(err.to_string().contains("no/such.toml"), "{err}");
    let fine = format!("{text}\n[teacher]\ngames = 10\nagent = \"ab:4\"\n");
    let cfg = PipelineConfig::parse(&fine, "teacher.toml").expect("a depth");
    let teacher = cfg.teacher.teacher().expect("checked").expect("games");
    assert_eq!(teacher.depth, 4);
    let quiet = "ab:3:eval=configs/alphabeta/quiescence.toml";
    let with_file = format!("{text}\n[teacher]\ngames = 10\nagent = \"{quiet}\"\n");
    let cfg = PipelineConfig::parse(&with_file, "teacher.toml").expect("a depth and a file");
    let teacher = cfg.teacher.teacher().expect("checked").expect("games");
    assert_eq!(teacher.settings.search.quiescence, 4);
}

#[test]
fn overlap_plays_the_next_self_play_beside_training_on_a_growing_window() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = tmp.path().join("run");
    let mut cfg = tiny(3);
    cfg.overlap = true;
    cfg.window_generations = 100;
    cfg.teacher.games = 2;
    cfg.teacher.agent = "ab:2".into();
    cfg.replay.window_min = 20;
    cfg.replay.window_exponent = 0.75;
    cfg.replay.window_growth = 0.4;
    cfg.replay.reuse = 2.0;
    cfg.eval.every = 3;
    cfg.eval.anchor_pairs = 0;
    let records =
        run_pipeline(&cfg, &run, tch::Device::Cpu, &mut Quiet).expect("three generations");
    // generation 1's self-play ran beside the first training: the bootstrap still played it;
    // generation 2's ran beside the second, with generation 1's network
    let players: Vec<Option<u32>> = records.iter().map(|r| r.player).collect();
    assert_eq!(players, vec![None, None, Some(1)]);
    // what ran beside self-play is booked apart; generation 0's teacher games ran before
    for (g, stages) in [
        (0, vec!["selfplay", "teacher", "train_beside"]),
        (1, vec!["selfplay", "teacher_beside", "train_beside"]),
    ] {
        let book = tavlei::pipeline::timing::read_book(&run, Some(g)).expect("time.json");
        let names: Vec<&str> = book
            .keys()
            .map(String::as_str)
            .filter(|s| *s != "train")
            .collect();
        assert_eq!(names, stages, "generation {g}");
    }
    // each generation trained its new samples twice over, on a window that grew with the run
    let made: Vec<u64> = records
        .iter()
        .map(|r| r.selfplay.samples + r.teacher.as_ref().expect("teacher").samples)
        .collect();
    for (g, _) in records.iter().enumerate() {
        let trained: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(generation_dir(&run, g as u32 + 1).join("train.json"))
                .expect("train.json"),
        )
        .expect("json");
        let steps = trained["steps"].as_u64().expect("steps");
        assert_eq!(steps, (made[g] * 2).div_ceil(16), "generation {g}");
        let used = trained["train_samples"].as_u64().expect("count")
            + trained["validation_samples"].as_u64().expect("count");
        let so_far: u64 = made[..=g].iter().sum();
        let window = cfg.replay.window(so_far, cfg.train.window) as u64;
        assert_eq!(used, window.min(so_far), "generation {g}");
    }
    // only the last candidate was measured, and the closing ladder rates 0 and it
    assert_eq!(
        records
            .iter()
            .map(|r| r.candidate_match.is_some())
            .collect::<Vec<_>>(),
        vec![false, false, true]
    );
    assert_eq!(
        tavlei::pipeline::ladder::rated_generations(&cfg, 3),
        vec![0, 3]
    );
    // a rerun finds everything done and tells the same story
    let stamp = |g| {
        std::fs::metadata(model_path(&run, g))
            .and_then(|m| m.modified())
            .expect("mtime")
    };
    let before = stamp(3);
    let again = run_pipeline(&cfg, &run, tch::Device::Cpu, &mut Quiet).expect("resumed");
    let again_players: Vec<Option<u32>> = again.iter().map(|r| r.player).collect();
    assert_eq!(again_players, players);
    assert_eq!(stamp(3), before);
    // the report books the work beside self-play apart from the run's own time
    let text =
        tavlei::pipeline::report::write_report(&run, "brandubh", &cfg.eval, &records, None, 1.0)
            .expect("report");
    assert!(text.contains("| beside self-play |"), "{text}");
}

#[test]
fn the_ladder_rates_the_measured_generations() {
    let mut cfg = tiny(5);
    assert_eq!(
        tavlei::pipeline::ladder::rated_generations(&cfg, 5),
        vec![0, 1, 2, 3, 4, 5]
    );
    cfg.eval.every = 2;
    assert_eq!(
        tavlei::pipeline::ladder::rated_generations(&cfg, 5),
        vec![0, 2, 4, 5]
    );
    // a run stopped early still rates its newest network
    assert_eq!(
        tavlei::pipeline::ladder::rated_generations(&cfg, 3),
        vec![0, 2, 3]
    );
}

#[test]
fn a_replay_window_that_cannot_grow_is_refused_by_name() {
    let text = std::fs::read_to_string("configs/pipeline/brandubh-overlap.toml").expect("config");
    let cfg = PipelineConfig::parse(&text, "brandubh-overlap.toml").expect("the shipped config");
    assert!(cfg.overlap && cfg.replay.reuse > 0.0 && cfg.replay.window_min > 0);
    for (from, to, name) in [
        (
            "window_exponent = 0.75",
            "window_exponent = 0",
            "replay.window_exponent",
        ),
        ("reuse = 4.0", "reuse = -1.0", "replay.reuse"),
    ] {
        let err = PipelineConfig::parse(&text.replace(from, to), "bad.toml").expect_err(to);
        assert!(err.to_string().contains(name), "{to}: {err}");
    }
}

#[test]
fn a_run_continues_a_trained_network_grows_it_and_never_shrinks_it() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // a "trained" network: the tiny run's own generation 1
    let mut cfg = tiny(1);
    cfg.eval.every = 100;
    cfg.eval.anchor_pairs = 0;
    let earlier = tmp.path().join("earlier");
    run_pipeline(&cfg, &earlier, tch::Device::Cpu, &mut Quiet).expect("the earlier run");
    let trained = model_path(&earlier, 1);

    let mut next = cfg.clone();
    next.overlap = true;
    next.generations = 2;
    next.start_from = Some(trained.clone());
    let run = tmp.path().join("continued");
    let records = run_pipeline(&next, &run, tch::Device::Cpu, &mut Quiet).expect("continued");
    // generation 0 is the trained network, and it (not the bootstrap) plays the first self-play
    let weights = |p: &std::path::Path| std::fs::read(p).expect("weights");
    assert_eq!(weights(&model_path(&run, 0)), weights(&trained));
    let players: Vec<Option<u32>> = records.iter().map(|r| r.player).collect();
    assert_eq!(players, vec![Some(0), Some(0)]);
    // the frozen config records where the run started
    let frozen = std::fs::read_to_string(run.join("config.json")).expect("config.json");
    assert!(frozen.contains("start_from"), "{frozen}");

    // a larger [network] grows the trained one: generation 0 computes what it did
    let mut larger = next.clone();
    larger.generations = 1;
    larger.network.blocks = 2;
    larger.network.channels = 12;
    let grown_run = tmp.path().join("grown");
    run_pipeline(&larger, &grown_run, tch::Device::Cpu, &mut Quiet).expect("grown");
    let grown = tavlei::nn::Network::load(&model_path(&grown_run, 0), None, tch::Device::Cpu)
        .expect("generation 0");
    assert_eq!(grown.meta.architecture, larger.network);
    let original = tavlei::nn::Network::load(&trained, None, tch::Device::Cpu).expect("trained");
    let variant = tavlei::rules::Variant::load(&cfg.variant).expect("preset");
    let start = tavlei::rules::Position::start(&variant);
    let (p0, v0) = original.evaluate(&[&start]).expect("evaluates");
    let (p1, v1) = grown.evaluate(&[&start]).expect("evaluates");
    let off = p0
        .iter()
        .zip(&p1)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    assert!(
        off < 1e-5 && (v0[0] - v1[0]).abs() < 1e-5,
        "policy off by {off}, value {v0:?} {v1:?}"
    );

    // a smaller one is refused by name
    let mut other = next.clone();
    other.network.channels = 4;
    let err = run_pipeline(
        &other,
        &tmp.path().join("other"),
        tch::Device::Cpu,
        &mut Quiet,
    )
    .expect_err("a smaller architecture");
    let message = err.to_string();
    assert!(
        message.contains("start_from") && message.contains("1x8") && message.contains("1x4"),
        "{message}"
    );
}

#[test]
fn side_budgets_give_the_side_that_loses_more_search_the_next_generation() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = tmp.path().join("run");
    let mut cfg = tiny(2);
    cfg.side_budgets = tavlei::pipeline::config::SideBudgets {
        target_attacker_share: 0.99,
        step: 2.0,
        max_ratio: 8.0,
    };
    let records = run_pipeline(&cfg, &run, tch::Device::Cpu, &mut Quiet).expect("two generations");
    let first = &records[0].selfplay;
    assert_eq!(
        first.attacker_search_ratio, 1.0,
        "generation 0 plays the config's"
    );
    assert!(first.attacker_wins < first.games, "{first:?}");
    let expected = cfg
        .side_budgets
        .next_ratio(1.0, first.attacker_wins, first.draws, first.games) as f32;
    let second = records[1].selfplay.attacker_search_ratio;
    assert_eq!(second, expected as f64);
    assert!(
        second > 1.0,
        "the attackers fell short of the target: {second}"
    );
    // the games of generation 1 were played with it: its summary on disk says so, and the
    // report shows the column
    let on_disk: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(generation_dir(&run, 1).join("selfplay.json")).expect("summary"),
    )
    .expect("json");
    assert_eq!(on_disk["attacker_search_ratio"].as_f64(), Some(second));
    let summary =
        tavlei::pipeline::report::write_report(&run, "brandubh", &cfg.eval, &records, None, 1.0)
            .expect("report");
    assert!(summary.contains("attackers' search ratio"), "{summary}");
    assert!(summary.contains(&format!(" {second:.2} |")), "{summary}");
}

#[test]
fn a_pipeline_starts_self_play_from_alpha_beta_and_says_how_often() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = tmp.path().join("run");
    let mut cfg = tiny(1);
    cfg.selfplay.starts = Some(tavlei::selfplay::starts::StartsConfig {
        share: 1.0,
        plies: [2, 6],
        agent: "ab:1".to_string(),
    });
    let records = run_pipeline(&cfg, &run, tch::Device::Cpu, &mut Quiet).expect("a generation");
    let s = &records[0].selfplay;
    assert_eq!(s.games_played, cfg.games_per_generation, "{s:?}");
    assert_eq!(s.alpha_beta_starts, s.games_played, "{s:?}");
    let summary =
        tavlei::pipeline::report::write_report(&run, "brandubh", &cfg.eval, &records, None, 1.0)
            .expect("report");
    let n = s.games_played;
    let line = format!("of the games played (with samples or without), by generation (a resumed stage counts only the games it played after resuming): 0: {n} of {n}.");
    assert!(summary.contains(&line), "{summary}");
}
