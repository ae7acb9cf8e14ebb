//! OpenTafl game files: tavlei records go out as `.otg` and come back the same (moves, captures,
//! result, variant) for several presets and every kind of ending; a file written by hand in
//! OpenTafl's manner is read; bad files are refused with the move or tag at fault.

use std::sync::Arc;

use tavlei::interop::otg::{export, import, is_otg, parse, read_games, OtgError, OtgResult};
use tavlei::interop::record::game_record;
use tavlei::rules::playout::{game_rng, random_game_record};
use tavlei::rules::replay::{recorded_games, RecordedGame};
use tavlei::rules::{Move, MoveKind, Outcome, Position, Reason, Variant};

fn variant(name: &str) -> Arc<Variant> {
    Variant::load(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A record as self-play writes it: a comment, the tags and the move line.
fn record(v: &Variant, id: u64, moves: &[String], outcome: Outcome) -> String {
    format!("# game {id}\n") + &game_record(v, moves, Some(outcome))
}

fn only_game(text: &str) -> RecordedGame {
    let games = recorded_games(text);
    assert_eq!(games.len(), 1, "{text}");
    games[0].clone()
}

/// Record → `.otg` → record: the same text, so the same moves (with their captures), result,
/// variant and rules; returns the `.otg` text.
fn round_trip(v: &Arc<Variant>, record_text: &str) -> String {
    let otg = export(v, &only_game(record_text))
        .unwrap_or_else(|e| panic!("export: {e}\n{record_text}"))
        .text;
    assert!(is_otg(&otg), "{otg}");
    let back = import(&otg, None).unwrap_or_else(|e| panic!("import: {e}\n{otg}"));
    assert!(back.preset, "a preset's rules tag names the preset");
    assert_eq!(back.record(), record_text, "{otg}");
    otg
}

/// The first seeded random game of `name` that ends for `reason` (seeds 0..400).
fn random_game_ending(name: &str, reason: Reason) -> (Arc<Variant>, String) {
    let v = variant(name);
    let start = Position::start(&v);
    for seed in 0..400 {
        let (moves, outcome) = random_game_record(&start, &mut game_rng(7, seed));
        if outcome.reason == reason {
            return (v.clone(), record(&v, seed, &moves, outcome));
        }
    }
    panic!("no random {name} game ended by {reason:?}");
}

#[test]
fn random_games_of_several_presets_come_back_unchanged() {
    for name in [
        "brandubh",
        "tablut",
        "copenhagen",
        "berserk",
        "reconstruction_dice",
    ] {
        let v = variant(name);
        let start = Position::start(&v);
        let mut captures = 0;
        for seed in 0..4 {
            let (moves, outcome) = random_game_record(&start, &mut game_rng(1, seed));
            captures += moves.iter().filter(|m| m.contains('x')).count();
            let otg = round_trip(&v, &record(&v, seed, &moves, outcome));
            // OpenTafl's shape: tags first, the rules tag last, then numbered lines of two moves
            let rules_tag = otg
                .lines()
                .position(|l| l.starts_with("[rules:"))
                .expect("rules");
            assert!(otg.lines().take(rules_tag).all(|l| l.starts_with('[')));
            assert!(otg.contains(&format!("[variant:{name}]")), "{otg}");
            assert!(otg.contains("\n1. "), "{otg}");
        }
        assert!(captures > 0, "{name}: no capture in the sample games");
    }
}

#[test]
fn king_captured_escaped_and_length_cap_endings_map_to_opentafl_results() {
    for (reason, result) in [
        (Reason::KingCaptured, "[result:1]"),
        (Reason::KingEscaped, "[result:-1]"),
        (Reason::LengthCap, "[result:0]"),
    ] {
        let (v, text) = random_game_ending("brandubh", reason);
        let otg = round_trip(&v, &text);
        assert!(otg.contains(result), "{reason:?}: {otg}");
        let back = import(&otg, None).expect("imports");
        assert_eq!(back.outcome.map(|o| o.reason), Some(reason));
    }
    // the king's moves carry his letter, as OpenTafl writes them
    let (v, text) = random_game_ending("brandubh", Reason::KingEscaped);
    let otg = export(&v, &only_game(&text)).expect("exports").text;
    assert!(otg.contains(" Kd4-") || otg.contains(". Kd4-"), "{otg}");
}

#[test]
fn a_repetition_draw_comes_back_as_a_draw() {
    // fetlar: a third occurrence draws; two pieces shuffle back and forth
    let v = variant("fetlar");
    let start = Position::start(&v);
    let quiet = |pos: &Position, mv: Move| {
        let mut after = pos.clone();
        let mut captured = Vec::new();
        after.play_with(mv, &mut captured);
        captured.is_empty().then_some(after)
    };
    let mut legal = Vec::new();
    start.legal_moves(&mut legal);
    let (a, b) = legal
        .iter()
        .filter(|m| m.kind() == MoveKind::Slide)
        .find_map(|&a| {
            let after_a = quiet(&start, a)?;
            let mut replies = Vec::new();
            after_a.legal_moves(&mut replies);
            replies
                .into_iter()
                .filter(|m| m.kind() == MoveKind::Slide)
                .find(|&b| quiet(&after_a, b).is_some())
                .map(|b| (a, b))
        })
        .expect("two quiet moves");
    let back = |m: Move| Move::slide(m.to(), m.from());
    let mut pos = start.clone();
    let mut moves = Vec::new();
    for mv in [a, b, back(a), back(b)].into_iter().cycle() {
        if pos.outcome().is_some() {
            break;
        }
        moves.push(pos.play_recorded(mv));
    }
    let outcome = pos.outcome().expect("ended");
    assert_eq!((outcome.winner, outcome.reason), (None, Reason::Repetition));
    let otg = round_trip(&v, &record(&v, 0, &moves, outcome));
    assert!(otg.contains("[result:0]") && otg.contains("[termination:draw: repetition]"));
}

/// A game written in OpenTafl's manner: its tags in OpenTafl's order and spelling, a
/// multi-line starting comment, comment blocks after move lines, a variation, the king's letter,
/// an info symbol and a resignation. The moves are a real Brandub game (2015); the notes are
/// ours.
const HAND_WRITTEN: &str = "[date:2015.05.04]
[event:Tafl Triathlon 2015]
[round:Brandub]
[site:aagenielsen.dk]
[result:-1]
[attackers:Xerxes]
[defenders:Animals]
[termination:Black resigns]
[compiler:A. Compiler]
[annotator:A. Notator]
[start-comment:A short game of Brandub.

The king is strong on and next to the throne.]
[rules:dim:7 name:Brandub_Strong_Center_King surf:n atkf:y ks:c nj:n cj:n cenh: cenhe: start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]

1. d2-e2 c4-c5
[The attackers open.|The defenders double up.]

2. f4-f5 c5-a5
[|]

2a.1.1a. f4-f6 c5-a5
[A variation, skipped.|]

3. d6-a6xa5 d5-a5xa6
[A capture|and one back.]

4. f5-d5 d3-a3xa4
5. e2-c2 a5-b5
6. b4-c4 b5-b4xc4
7. d1-d3 e4-e2
8. d3-d2 Kd4-d3
9. g4-g3 Kd3-f3
10. d2-d1 Kf3-f2+ ---
[|The attackers resign.]
";

#[test]
fn a_file_written_in_opentafls_manner_is_read_and_played() {
    let file = parse(HAND_WRITTEN).expect("parses");
    assert_eq!(file.turns.len(), 10);
    assert_eq!(file.variations, 1);
    assert!(file.resigned);
    assert_eq!(file.result, Some(OtgResult::Defenders));
    assert_eq!(
        file.turns[0].comments,
        ["The attackers open.", "The defenders double up."]
    );
    assert_eq!(file.tag("attackers"), Some("Xerxes"));

    let game = import(HAND_WRITTEN, None).expect("imports");
    assert!(!game.preset, "OpenTafl's own Brandub is no preset");
    assert_eq!(game.variant.size, 7);
    assert_eq!(game.moves.len(), 20);
    assert_eq!(game.moves[4], "d6-a6xa5");
    assert_eq!(game.moves[15], "d4-d3", "the king's letter is dropped");
    assert_eq!(game.moves[19], "f3-f2", "the info symbol is dropped");
    assert_eq!(game.outcome, None, "the game was resigned, not played out");
    let record = game.record();
    assert!(
        record.starts_with("# A short game of Brandub. The king is strong"),
        "{record}"
    );
    assert!(
        record.contains("# attackers: Xerxes\n# defenders: Animals\n"),
        "{record}"
    );
    assert!(
        record.contains("# OpenTafl result: defenders (Black resigns)"),
        "{record}"
    );
    assert!(record.contains("[result \"*\"]"), "{record}");
    // the record replays under the variant its rules tag names
    let again = recorded_games(&record);
    let v = tavlei::interop::load_variant(again[0].tag("rules").expect("rules")).expect("loads");
    let report = tavlei::rules::replay::replay_record(0, &Position::start(&v), &again[0].moves);
    assert!(
        report.legal && report.capture_mismatches.is_empty(),
        "{report:?}"
    );

    // replay, render and viewer read the file directly: the moves rewritten, not yet played
    let games = read_games(HAND_WRITTEN, false).expect("reads");
    assert_eq!(games.len(), 1);
    assert!(games[0]
        .moves
        .starts_with("d2-e2 c4-c5 f4-f5 c5-a5 d6-a6xa5"));
    assert!(games[0].moves.ends_with("Kf3-f2"), "{}", games[0].moves);
    assert_eq!(games[0].tag("result"), Some("defenders"));
}

#[test]
fn a_game_from_its_own_position_is_not_read_from_the_wrong_board() {
    let text = edited(
        "[rules:",
        "[position:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/]\n[rules:",
    );
    match read_games(&text, false) {
        Err(OtgError::StartsElsewhere(p)) => assert!(p.starts_with("/3t3/"), "{p}"),
        other => panic!("read without its start: {other:?}"),
    }
    assert_eq!(
        read_games(&text, true)
            .expect("the caller gives the start")
            .len(),
        1
    );
}

/// `HAND_WRITTEN` with one piece of text replaced.
fn edited(from: &str, to: &str) -> String {
    assert!(HAND_WRITTEN.contains(from), "{from}");
    HAND_WRITTEN.replacen(from, to, 1)
}

fn import_error(text: &str) -> OtgError {
    match import(text, None) {
        Ok(game) => panic!("accepted: {:?}", game.moves),
        Err(e) => e,
    }
}

#[test]
fn an_illegal_move_is_named_with_its_move_number_and_reason() {
    // the taflman on d7 cannot stop on a corner
    let e = import_error(&edited("3. d6-a6xa5", "3. d7-a7"));
    let text = e.to_string();
    assert!(matches!(e, OtgError::Move { turn: 3, .. }), "{text}");
    assert!(text.starts_with("move 3 (attackers: `d7-a7`)"), "{text}");
    assert!(text.contains("corner"), "{text}");
    // a capture written where tavlei's rules capture nothing
    let e = import_error(&edited("7. d1-d3 e4-e2", "7. d1-d3xc3 e4-e2"));
    assert!(
        e.to_string().contains(
            "move 7 (attackers: `d1-d3xc3`): it captures c3, tavlei's rules capture nothing"
        ),
        "{e}"
    );
    // not a move at all
    let e = import_error(&edited("5. e2-c2", "5. e2c2"));
    assert!(
        e.to_string().starts_with("move 5 (attackers: `e2c2`)"),
        "{e}"
    );
}

#[test]
fn unknown_malformed_and_missing_tags_are_refused() {
    let e = import_error(&edited("[round:Brandub]", "[player:Someone]"));
    assert!(matches!(e, OtgError::UnknownTag { line: 3, .. }), "{e}");
    assert!(e.to_string().contains("unknown tag `player`"), "{e}");
    let e = import_error(&edited("[round:Brandub]", "[round Brandub]"));
    assert!(
        e.to_string()
            .starts_with("line 3: `[round Brandub]` is not a tag"),
        "{e}"
    );
    let e = import_error(&edited("[result:-1]", "[result:black]"));
    assert!(e.to_string().contains("`[result:black]`"), "{e}");
    let e = import_error(&edited(
        "[date:2015.05.04]",
        "[date:2015.05.04]\n[date:2016.01.01]",
    ));
    assert!(e.to_string().contains("`date` is given twice"), "{e}");
    let e = import_error(&edited("[round:Brandub]", "[round:Brandub"));
    assert!(
        e.to_string()
            .starts_with("line 4: a `[` on line 3 is not closed"),
        "{e}"
    );
    let rules_line = HAND_WRITTEN
        .lines()
        .find(|l| l.starts_with("[rules:"))
        .expect("rules");
    let e = import_error(&edited(rules_line, ""));
    assert!(matches!(e, OtgError::MissingRules), "{e}");
    let e = import_error(&edited("dim:7 name:Brandub", "dim:7 name:Brandub ks:q"));
    assert!(e.to_string().starts_with("the rules tag: "), "{e}");
    // the move lines are numbered in order
    let e = import_error(&edited("4. f5-d5", "5. f5-d5"));
    assert!(
        e.to_string()
            .contains("move line 5 where move line 4 was expected"),
        "{e}"
    );
    let e = import_error(&edited("6. b4-c4", "six b4-c4"));
    assert!(e.to_string().contains("found `six`"), "{e}");
}

#[test]
fn a_result_the_moves_contradict_is_refused() {
    let (v, text) = random_game_ending("brandubh", Reason::KingEscaped);
    let otg = export(&v, &only_game(&text)).expect("exports").text;
    for wrong in ["[result:1]", "[result:0]"] {
        let e = import_error(&otg.replace("[result:-1]", wrong));
        assert!(matches!(e, OtgError::Result { .. }), "{e}");
        assert!(
            e.to_string()
                .contains("but the moves end with defenders (king_escaped) at move"),
            "{e}"
        );
    }
    // `?` claims nothing
    assert!(import(&otg.replace("[result:-1]", "[result:?]"), None).is_ok());
    // a move after the end
    let last_line = otg.lines().last().expect("moves").to_string();
    let lines = otg
        .lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()));
    let extra = if last_line.split_whitespace().count() == 3 {
        format!("{last_line}\n{}. d1-e1", lines.count() + 1)
    } else {
        format!("{last_line} d1-e1")
    };
    let e = import_error(&otg.replace(&last_line, &extra));
    assert!(
        e.to_string()
            .contains("played after the game ended (defenders won, king_escaped"),
        "{e}"
    );
}

#[test]
fn exports_refuse_records_that_do_not_replay() {
    let (v, text) = random_game_ending("brandubh", Reason::KingCaptured);
    let game = only_game(&text);
    let wrong_result = RecordedGame {
        tags: vec![("result".into(), "defenders king_escaped".into())],
        ..game.clone()
    };
    let e = export(&v, &wrong_result).expect_err("contradicted");
    assert!(e.to_string().contains("`defenders king_escaped`"), "{e}");
    let illegal = RecordedGame {
        moves: format!("a4-a7 {}", game.moves),
        ..game.clone()
    };
    let e = export(&v, &illegal).expect_err("illegal");
    assert!(e.to_string().starts_with("ply 0 (`a4-a7`)"), "{e}");
    let e = export(&variant("tablut"), &game).expect_err("another variant");
    assert!(matches!(e, OtgError::WrongVariant { .. }), "{e}");
}

#[test]
fn berserk_chains_and_dice_are_written_in_opentafls_notation_and_named() {
    // berserk: the later moves of a chain are berserk moves (`=`), commanders and knights carry
    // their letters; dice: the roll stays before its move, and the export says OpenTafl will
    // not read it
    let v = variant("berserk");
    let start = Position::start(&v);
    let mut chain = false;
    for seed in 0..20 {
        let (moves, outcome) = random_game_record(&start, &mut game_rng(3, seed));
        let text = record(&v, seed, &moves, outcome);
        let otg = round_trip(&v, &text);
        chain |= otg.contains('=');
    }
    assert!(chain, "no berserk chain in 20 random berserk games");
    let v = variant("reconstruction_dice");
    let (moves, outcome) = random_game_record(&Position::start(&v), &mut game_rng(3, 0));
    let out = export(&v, &only_game(&record(&v, 0, &moves, outcome))).expect("exports");
    assert!(
        out.text.contains("\n1. ") && out.text.contains(':'),
        "{}",
        out.text
    );
    assert!(
        out.notes.iter().any(|n| n.contains("die rolls")),
        "{:?}",
        out.notes
    );
    assert!(
        out.notes.iter().any(|n| n.contains("cannot state")),
        "{:?}",
        out.notes
    );
}
