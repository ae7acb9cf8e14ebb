//! Bad input, fuzzed: every parser a user feeds gets arbitrary text and mutations of valid input
//! (OTN positions, moves and rules strings, variant TOML, game records, OpenTafl game files, agent specs, SPRT settings, every
//! settings file, shard bytes and checkpoint sidecars). None may panic; each refusal is an
//! error with a message. `make fuzz` runs the same properties with many more cases
//! (`PROPTEST_CASES`).

use std::path::Path;

use proptest::prelude::*;
use tavlei::config::ConfigError;
use tavlei::data::shard::{decode_shard, write_shard};
use tavlei::data::Sample;
use tavlei::eval::matches::Sprt;
use tavlei::eval::AgentSpec;
use tavlei::interop::otg;
use tavlei::interop::otn_rules::{export, import};
use tavlei::interop::record::game_record;
use tavlei::nn::checkpoint::CheckpointMeta;
use tavlei::pipeline::PipelineConfig;
use tavlei::rules::notation::{parse_move_text, parse_otn, position_to_otn};
use tavlei::rules::playout::{game_rng, random_game_record};
use tavlei::rules::presets::PRESET_NAMES;
use tavlei::rules::replay::{game_lines, recorded_games, replay_record};
use tavlei::rules::{Position, Side, Variant};
use tavlei::search::alphabeta::AlphaBetaConfig;

/// A named refusal: an error whose message says something.
fn named<T, E: std::fmt::Display>(result: Result<T, E>) {
    if let Err(e) = result {
        assert!(
            !e.to_string().trim().is_empty(),
            "an error without a message"
        );
    }
}

fn preset(i: usize) -> std::sync::Arc<Variant> {
    Variant::load(PRESET_NAMES[i % PRESET_NAMES.len()]).expect("preset")
}

/// Text made of the pieces a parser looks for, so mutations reach deep into it.
fn tokens(alphabet: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(alphabet), 0..max)
        .prop_map(|parts| parts.concat())
}

/// A text with one edit: a line dropped, a line duplicated, a value replaced, or bytes cut.
fn mutated(text: String, edit: u8, at: usize, with: String) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let i = at % lines.len().max(1);
    match edit % 4 {
        0 => lines
            .iter()
            .enumerate()
            .filter(|(k, _)| *k != i)
            .map(|(_, l)| *l)
            .collect::<Vec<_>>()
            .join("\n"),
        1 => {
            let mut v = lines.clone();
            if let Some(l) = lines.get(i) {
                v.insert(i, l);
            }
            v.join("\n")
        }
        2 => lines
            .iter()
            .enumerate()
            .map(|(k, l)| match l.split_once(" = ") {
                Some((key, _)) if k == i => format!("{key} = {with}"),
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => {
            let mut cut = at % (text.len() + 1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text[..cut].to_string()
        }
    }
}

const VALUES: &[&str] = &[
    "0",
    "-1",
    "1e309",
    "nan",
    "\"\"",
    "\"x\"",
    "true",
    "[]",
    "[1, \"a\"]",
    "{}",
    "18446744073709551616",
    "0.5",
    "\"brandubh\"",
    "\"ab:0\"",
    "1",
];

fn value() -> impl Strategy<Value = String> {
    proptest::sample::select(VALUES).prop_map(str::to_string)
}

proptest! {
    #[test]
    fn otn_positions_never_panic(
        variant in 0..PRESET_NAMES.len(),
        text in "\\PC{0,60}",
        shaped in tokens(&["/", "1", "2", "9", "10", "t", "T", "K", "k", "c", "n", "N", " ", "x"], 40),
    ) {
        let v = preset(variant);
        named(parse_otn(&v, &text, Side::Attackers));
        named(parse_otn(&v, &shaped, Side::Defenders));
    }

    #[test]
    fn otn_positions_with_one_edit_never_panic(
        variant in 0..PRESET_NAMES.len(),
        at in 0usize..400,
        with in proptest::sample::select(&['t', 'T', 'K', '1', '9', '/', 'c', 'n', 'x', '0'][..]),
    ) {
        let v = preset(variant);
        let mut otn: Vec<char> = position_to_otn(&Position::start(&v)).chars().collect();
        let i = at % otn.len();
        otn[i] = with;
        let text: String = otn.into_iter().collect();
        named(parse_otn(&v, &text, Side::Attackers));
    }

    #[test]
    fn moves_never_panic(
        variant in 0..PRESET_NAMES.len(),
        text in "\\PC{0,24}",
        shaped in tokens(&["a", "k", "s", "1", "11", "19", "-", "x", "/", ":", "3", "pass", "stop", "e", "^"], 10),
    ) {
        let v = preset(variant);
        let mut pos = Position::start(&v);
        if pos.needs_roll() {
            pos.set_roll(3);
        }
        for t in [&text, &shaped] {
            named(parse_move_text(t, v.size));
            named(pos.parse_move(t));
            let mut copy = pos.clone();
            named(copy.play(t));
        }
    }

    #[test]
    fn game_records_never_panic(
        variant in 0..PRESET_NAMES.len(),
        text in "\\PC{0,120}",
        shaped in tokens(&["d6-c6", " ", "1.", "e4-e3", "x", "c5", "timeout", "3:", "a1-a2", "\n", "[", "#", "pass"], 30),
    ) {
        let v = preset(variant);
        let start = Position::start(&v);
        for t in [&text, &shaped] {
            for (i, line) in game_lines(t).enumerate() {
                let report = replay_record(i, &start, line);
                prop_assert!(report.legal == report.illegal.is_none());
                if let Some(illegal) = &report.illegal {
                    prop_assert!(!illegal.reason.is_empty());
                }
            }
        }
    }

    #[test]
    fn otn_rules_strings_never_panic(text in "\\PC{0,200}") {
        named(import(&text));
    }

    #[test]
    fn otn_rules_strings_with_one_edit_never_panic(
        variant in 0..PRESET_NAMES.len(),
        at in 0usize..64,
        drop: bool,
        with in tokens(&["dim:", "ks:", "tfr:", "spd:", "cor:", "cen:", "cenh:", "start:", "m", "c", "y", "n", "l", "-1", "0", "9", "19", "300", "a1,", "k11,", "z9,", "/", "3t3", "K", "k", "q", ",", ":"], 8),
    ) {
        let text = export(&preset(variant)).text;
        let mut words: Vec<String> = text.split_whitespace().map(String::from).collect();
        let i = at % words.len();
        if drop {
            words.remove(i);
        } else {
            words[i] = with;
        }
        named(import(&words.join(" ")));
    }

    #[test]
    fn otg_files_never_panic(
        text in "\\PC{0,200}",
        shaped in tokens(&OTG_PIECES, 40),
    ) {
        for t in [&text, &shaped] {
            named(otg::import(t, None));
            named(otg::read_games(t, false));
        }
    }

    #[test]
    fn otg_files_with_one_edit_never_panic(
        game in 0usize..6,
        edit: u8,
        at in 0usize..4000,
        with in tokens(&OTG_PIECES, 3),
    ) {
        let text = &otg_fixtures()[game];
        let edited = otg_edit(text, edit, at, &with);
        let result = otg::import(&edited, None);
        if edited == *text {
            prop_assert!(result.is_ok(), "{:?}", result.err());
        }
        named(result);
        named(otg::read_games(&edited, false));
    }

    #[test]
    fn variant_files_never_panic(text in "\\PC{0,200}") {
        named(Variant::from_toml(&text, "fuzz.toml"));
    }

    #[test]
    fn variant_files_with_one_edit_never_panic(
        variant in 0..PRESET_NAMES.len(),
        edit: u8,
        at in 0usize..4000,
        with in value(),
    ) {
        let name = PRESET_NAMES[variant];
        let text = std::fs::read_to_string(format!("configs/variants/{name}.toml")).expect("preset file");
        named(Variant::from_toml(&mutated(text, edit, at, with), "edited.toml"));
    }

    #[test]
    fn agent_specs_and_sprt_settings_never_panic(
        text in "\\PC{0,30}",
        shaped in tokens(&["net", "mcts", "ab", "gumbel", "random", ":", "t=", "ms", "s", "0", "64", "-1", "x.safetensors", "1e9", ","], 8),
    ) {
        for t in [&text, &shaped] {
            named(AgentSpec::parse(t));
            named(Sprt::parse(t));
        }
    }

    #[test]
    fn settings_files_with_one_edit_never_panic(
        file in proptest::sample::select(&[
            "configs/selfplay.toml",
            "configs/train.toml",
            "configs/alphabeta.toml",
            "configs/pipeline/brandubh.toml",
        ][..]),
        edit: u8,
        at in 0usize..4000,
        with in value(),
    ) {
        let text = mutated(std::fs::read_to_string(file).expect("config"), edit, at, with);
        let origin = "edited.toml";
        let result: Result<(), ConfigError> = match file {
            "configs/alphabeta.toml" => AlphaBetaConfig::parse(&text, origin).map(|_| ()),
            "configs/pipeline/brandubh.toml" => PipelineConfig::parse(&text, origin).map(|_| ()),
            "configs/selfplay.toml" => {
                tavlei::config::parse::<tavlei::selfplay::SelfplayConfig>(&text, origin).map(|_| ())
            }
            _ => tavlei::config::parse::<tavlei::train::TrainConfig>(&text, origin).map(|_| ()),
        };
        if let Err(e) = result {
            prop_assert!(e.to_string().contains(origin), "{}", e);
        }
    }

    #[test]
    fn shard_bytes_with_damage_never_panic(
        flips in proptest::collection::vec((0usize..4096, any::<u8>()), 0..6),
        cut in proptest::option::of(0usize..4096),
        extra in proptest::collection::vec(any::<u8>(), 0..8),
    ) {
        let bytes = shard_fixture();
        let mut damaged = bytes.clone();
        for (at, x) in flips {
            let i = at % damaged.len();
            damaged[i] ^= x;
        }
        if let Some(c) = cut {
            damaged.truncate(c % (damaged.len() + 1));
        }
        damaged.extend_from_slice(&extra);
        let result = decode_shard(&damaged, Path::new("fuzz.shard"));
        if damaged == bytes {
            prop_assert!(result.is_ok());
        } else if let Err(e) = result {
            prop_assert!(e.to_string().contains("fuzz.shard"), "{}", e);
        }
    }

    #[test]
    fn checkpoint_sidecars_never_panic(
        text in "\\PC{0,80}",
        field in 0usize..7,
        with in value(),
    ) {
        let path = Path::new("model.safetensors");
        named(CheckpointMeta::parse(&text, path));
        // a valid sidecar with one field's value replaced
        let valid = serde_json::json!({
            "format": 1, "variant": "brandubh",
            "architecture": {"blocks": 2, "channels": 8},
            "encoding_version": 2, "planes": 16, "step": 0, "generation": 0
        });
        let keys = ["format", "variant", "architecture", "encoding_version", "planes", "step", "generation"];
        let mut edited = valid.clone();
        let replacement: serde_json::Value =
            serde_json::from_str(&with).unwrap_or(serde_json::Value::Null);
        edited[keys[field]] = replacement;
        let result = CheckpointMeta::parse(&edited.to_string(), path);
        if edited == valid {
            prop_assert!(result.is_ok());
        } else if let Err(e) = result {
            prop_assert!(e.to_string().contains("model"), "{}", e);
        }
    }
}

/// The pieces an `.otg` parser looks for.
const OTG_PIECES: [&str; 24] = [
    "[",
    "]",
    "rules:",
    "result:",
    "-1",
    "?",
    "1. ",
    "2. ",
    "\n",
    "d6-c6",
    "e4-e3",
    "x",
    "c5",
    "K",
    "=",
    "^",
    "---",
    "+",
    "|",
    "dim:7 start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/",
    "2a.1.1a.",
    ":",
    " ",
    "position:",
];

/// A text with one edit: a line dropped or duplicated, a word replaced, text inserted, or bytes
/// cut.
fn otg_edit(text: &str, edit: u8, at: usize, with: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let words: Vec<&str> = text.split(' ').collect();
    let mut cut = at % (text.len() + 1);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    match edit % 5 {
        0 => {
            let mut v = lines.clone();
            v.remove(at % lines.len());
            v.join("\n")
        }
        1 => {
            let mut v = lines.clone();
            v.insert(at % lines.len(), lines[at % lines.len()]);
            v.join("\n")
        }
        2 => {
            let mut v = words.clone();
            v[at % words.len()] = with;
            v.join(" ")
        }
        3 => format!("{}{with}{}", &text[..cut], &text[cut..]),
        _ => text[..cut].to_string(),
    }
}

/// Random Brandubh and Berserk games written as `.otg` files, made once.
fn otg_fixtures() -> &'static [String] {
    static FILES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        (0..6)
            .map(|i| {
                let v =
                    Variant::load(if i % 2 == 0 { "brandubh" } else { "berserk" }).expect("preset");
                let (moves, outcome) =
                    random_game_record(&Position::start(&v), &mut game_rng(5, i));
                let record = game_record(&v, &moves, Some(outcome));
                otg::export(&v, &recorded_games(&record)[0])
                    .expect("exports")
                    .text
            })
            .collect()
    })
}

/// The bytes of a small real shard, made once.
fn shard_fixture() -> Vec<u8> {
    static BYTES: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BYTES
        .get_or_init(|| {
            let dir = tempfile::tempdir().expect("dir");
            let path = dir.path().join("x.shard");
            let v = Variant::load("brandubh").expect("preset");
            let pos = Position::start(&v);
            let samples: Vec<Sample> = (0..3)
                .map(|i| Sample {
                    game_id: i,
                    ply: 0,
                    cells: pos.cells().to_vec(),
                    side_to_move: Side::Attackers,
                    berserk: None,
                    roll: 0,
                    plies_since_capture: 0,
                    passes: 0,
                    occurrences: 1,
                    policy: vec![(3, 0.5), (7, 0.5)],
                    result: 1.0,
                    search_value: 0.1,
                    game_length: 30,
                    reason: "king_escaped".into(),
                })
                .collect();
            write_shard(&path, "brandubh", &samples).expect("writes");
            std::fs::read(&path).expect("reads")
        })
        .clone()
}
