//! Every shipped config parses, and its defaults match the library's (so the commented file
//! documents what a run without --config does).

use tavlei::pipeline::PipelineConfig;
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
    let err = PipelineConfig::parse(&text).expect_err("unknown field");
    assert!(err.contains("generatoins"), "{err}");
}
