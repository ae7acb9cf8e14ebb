//! Every shipped config parses, and its defaults match the library's (so the commented file
//! documents what a run without --config does).

use tavlei::config::ConfigError;
use tavlei::pipeline::PipelineConfig;
use tavlei::search::alphabeta::AlphaBetaConfig;
use tavlei::selfplay::SelfplayConfig;
use tavlei::train::TrainConfig;

#[test]
fn selfplay_and_train_files_are_the_defaults() {
    let selfplay =
        SelfplayConfig::load(std::path::Path::new("configs/selfplay.toml")).expect("parses");
    assert_eq!(selfplay, SelfplayConfig::default());
    let train = TrainConfig::load(std::path::Path::new("configs/train.toml")).expect("parses");
    assert_eq!(train, TrainConfig::default());
}

#[test]
fn every_pipeline_config_parses_and_documents_its_fields() {
    let mut seen = 0;
    for entry in std::fs::read_dir("configs/pipeline").expect("configs/pipeline") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        PipelineConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
        // each setting line is preceded by a comment, or belongs to a commented group
        let text = std::fs::read_to_string(&path).expect("reads");
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.contains(" = ") && !line.starts_with('#') {
                let documented = lines[..i]
                    .iter()
                    .rev()
                    .take_while(|l| !l.is_empty() && !l.starts_with('['))
                    .any(|l| l.starts_with('#'));
                assert!(
                    documented,
                    "{}: `{line}` has no comment above it",
                    path.display()
                );
            }
        }
        seen += 1;
    }
    assert!(seen >= 2);
}

#[test]
fn a_typo_in_a_config_is_an_error_naming_it() {
    let text = std::fs::read_to_string("configs/pipeline/brandubh.toml")
        .expect("reads")
        .replace("generations = 4", "generatoins = 4");
    let err = PipelineConfig::parse(&text, "brandubh.toml").expect_err("unknown field");
    assert!(err.to_string().contains("generatoins"), "{err}");
}

/// One loader serves every settings kind: each names the file, and the line of a syntax or type
/// error; a value out of range names the setting; a missing file is a read error.
#[test]
fn every_config_kind_reports_file_and_line() {
    let tmp = tempfile::tempdir().expect("dir");
    let dir = tmp.path();
    let broken = |file: &str, from: &str, to: &str| {
        let text = std::fs::read_to_string(format!("configs/{file}")).expect("reads");
        assert!(text.contains(from), "{file}: {from}");
        let path = dir.join(file.replace('/', "-"));
        std::fs::write(&path, text.replacen(from, to, 1)).expect("writes");
        let line = text[..text.find(from).expect("found")]
            .matches('\n')
            .count()
            + 1;
        (path, line)
    };
    let cases: Vec<(&str, &str, &str)> = vec![
        (
            "selfplay.toml",
            "simulations = 64",
            "simulations = \"many\"",
        ),
        ("train.toml", "batch_size = ", "batch_sise = "),
        ("alphabeta.toml", "material = 100", "material = 1.5"),
        ("pipeline/brandubh.toml", "seed = 1", "seed = -"),
    ];
    for (file, from, to) in cases {
        let (path, line) = broken(file, from, to);
        let err = match file {
            "selfplay.toml" => SelfplayConfig::load(&path).map(|_| ()),
            "train.toml" => TrainConfig::load(&path).map(|_| ()),
            "alphabeta.toml" => AlphaBetaConfig::load(&path).map(|_| ()),
            _ => PipelineConfig::load(&path).map(|_| ()),
        }
        .expect_err(file);
        assert!(
            matches!(err, ConfigError::Syntax { line: l, .. } if l == line),
            "{file}: {err}"
        );
        let text = err.to_string();
        assert!(
            text.contains(&path.display().to_string()) && text.contains(&format!("line {line}")),
            "{text}"
        );
    }
    // a value out of its range: named, with the file
    let (path, _) = broken("selfplay.toml", "temperature = 1.0", "temperature = -1.0");
    let err = SelfplayConfig::load(&path).expect_err("negative temperature");
    assert!(matches!(err, ConfigError::Invalid { .. }), "{err}");
    assert!(
        err.to_string().contains("temperature must be positive"),
        "{err}"
    );
    let (path, _) = broken("selfplay.toml", "draw_value = 0.0", "draw_value = -1.0");
    let err = SelfplayConfig::load(&path).expect_err("a draw worth a loss");
    assert!(err.to_string().contains("draw_value must lie"), "{err}");
    let (path, _) = broken(
        "selfplay.toml",
        "draw_value = 0.0",
        "draw_value = 0.0\nleaf_batch = 0",
    );
    let err = SelfplayConfig::load(&path).expect_err("no leaves per call");
    assert!(
        err.to_string().contains("leaf_batch must be at least 1"),
        "{err}"
    );
    let err = TrainConfig::load(&dir.join("missing.toml")).expect_err("missing");
    assert!(matches!(err, ConfigError::Read { .. }), "{err}");
}

/// Each tuned alpha-beta file is the settings its experiment's fit wrote (only its comments
/// differ), so the figures quoted beside it are those of these weights.
#[test]
fn tuned_alphabeta_files_are_their_experiments_fits() {
    let tuned = AlphaBetaConfig::load(std::path::Path::new("configs/alphabeta/brandubh.toml"))
        .expect("parses");
    let fit = AlphaBetaConfig::load(std::path::Path::new(
        "experiments/texel/brandubh/ridge-3/alphabeta.toml",
    ))
    .expect("parses");
    assert_eq!(tuned, fit);
    assert_ne!(tuned.eval, AlphaBetaConfig::default().eval);
}

/// The shipped hybrid with late move reductions is the settings file its 1 s matches played
/// (only the comments differ), and it differs from the quiescence hybrid by the reductions alone.
#[test]
fn the_reductions_hybrid_is_the_file_its_matches_played() {
    let load = |path: &str| AlphaBetaConfig::load(std::path::Path::new(path)).expect(path);
    let shipped = load("configs/alphabeta/hybrid-reductions.toml");
    let played = load("experiments/nnue/copenhagen/gen3-s1/reductions/hybrid-quiescence-lmr2.toml");
    assert_eq!(shipped, played);
    let mut without = shipped.clone();
    without.search.late_move_reduction = 0;
    assert_eq!(without, load("configs/alphabeta/hybrid-quiescence.toml"));
    assert_eq!(shipped.search.late_move_reduction, 2);
}

#[test]
fn late_move_reductions_out_of_range_are_named() {
    let shipped = std::fs::read_to_string("configs/alphabeta.toml").expect("the shipped file");
    for (from, to, says) in [
        (
            "late_move_reduction = 0",
            "late_move_reduction = 5",
            "late_move_reduction must lie in 0..=4",
        ),
        (
            "late_move_start = 4",
            "late_move_start = 0",
            "late_move_start must be at least 1",
        ),
    ] {
        assert!(shipped.contains(from), "{from}");
        let err =
            AlphaBetaConfig::parse(&shipped.replace(from, to), "reductions.toml").expect_err(to);
        assert!(matches!(err, ConfigError::Invalid { .. }), "{to}: {err}");
        assert!(err.to_string().contains(says), "{to}: {err}");
    }
}
