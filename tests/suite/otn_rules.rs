//! OpenTafl rules strings: every preset round-trips where OpenTafl can express it (and names what
//! it cannot), OpenTafl's own examples import with their differences from our presets named, and
//! bad strings are refused with the key at fault.

use tavlei::interop::otn_rules::{export, import, nearest_preset, variant_file, Difference};
use tavlei::rules::presets::PRESET_NAMES;
use tavlei::rules::{RulesError, Variant};

/// OpenTafl's Brandub as OpenTafl itself sends it (INTEROP.md), its Copenhagen and its Sea Battle
/// (from OpenTafl's sources).
const BRANDUB: &str =
    "dim:7 name:Brandub surf:n atkf:y ks:w cenh: cenhe: start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/";
const COPENHAGEN: &str = "dim:11 name:Copenhagen atkf:y tfr:w sw:s efe:y start:/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/";
const SEA_BATTLE: &str = "dim:9 name:Sea_Battle esc:e atkf:y ka:n nj:n cj:n cor: cen: start:/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/";

/// The words an export uses for the rule behind each field it cannot carry.
fn named_by(field: &str) -> &'static str {
    match field {
        "end.max_plies" => "length cap",
        "end.max_plies_without_capture" => "without a capture",
        "end.repetition_count" => "occur",
        "end.no_moves" => "without a legal move",
        "board.camps" | "king.hostile_camps" => "camps",
        "king.hostile_edge" => "board edge",
        "king.pair_capture" => "captured together",
        "king.commanders_capture" => "commanders capture",
        "movement.dice" => "die roll",
        "movement.king_max" | "movement.taflman_max" => "the king moves at most",
        other => panic!("{other} should survive a round trip"),
    }
}

#[test]
fn every_preset_round_trips_except_what_the_export_names() {
    for name in PRESET_NAMES {
        let v = Variant::load(name).expect("preset");
        let exported = export(&v);
        let back = import(&exported.text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back.rules.board.layout, v.rules.board.layout, "{name}");
        let diffs = tavlei::interop::otn_rules::differences(&back.rules, &v.rules);
        for d in &diffs {
            let words = named_by(&d.field);
            assert!(
                exported.inexpressible.iter().any(|r| r.contains(words)),
                "{name}: {} differs ({} / {}) but the export does not name it: {:?}",
                d.field,
                d.here,
                d.there,
                exported.inexpressible
            );
        }
        // what the string carries, it carries exactly: the imported rules export to the same text
        let again = export(&Variant::new(back.rules.clone()).expect("a playable variant"));
        assert_eq!(again.text, exported.text, "{name}");
    }
}

#[test]
fn rules_opentafl_cannot_express_are_named() {
    let named = |variant: &str, words: &str| {
        let otn = export(&Variant::load(variant).expect("preset"));
        assert!(
            otn.inexpressible.iter().any(|r| r.contains(words)),
            "{variant}: {words}: {:?}",
            otn.inexpressible
        );
    };
    named("reconstruction_dice", "die roll");
    named("tablut", "camps");
    named("berserk", "commanders capture the king");
    named("reconstruction", "captured together");
    named("old_tablut", "board edge");
    named("fetlar", "without a legal move draws");
    named("sea_tafl_king4", "the king moves at most 4");
    named(
        "copenhagen",
        "defenders lose when a position occurs 4 times",
    );
}

fn field<'a>(diffs: &'a [Difference], name: &str) -> Option<&'a Difference> {
    diffs.iter().find(|d| d.field == name)
}

#[test]
fn opentafl_brandub_has_a_weak_king_unlike_ours() {
    let imported = import(BRANDUB).expect("imports");
    let v = Variant::new(imported.rules.clone()).expect("playable");
    assert_eq!(v.size, 7);
    let (preset, diffs) = nearest_preset(&imported.rules).expect("a preset");
    assert_eq!(preset, "brandubh");
    let king = field(&diffs, "king.capture").expect("the king's capture differs");
    assert_eq!(
        (king.here.as_str(), king.there.as_str()),
        ("\"custodial\"", "\"throne_sensitive\"")
    );
    // `cenh:` and `cenhe:` are empty: the throne is hostile to nobody
    assert!(field(&diffs, "capture.throne_hostile_to_attackers").is_some());
    assert!(!imported.rules.end.encirclement);
    let file = variant_file(&imported, BRANDUB);
    assert!(file.contains("nearest preset, `brandubh`") && file.contains("king.capture"));
    // the commented file is a variant file tavlei loads
    Variant::from_toml(&file, "imported").expect("loads");
}

#[test]
fn opentafl_copenhagen_matches_ours_but_for_repetition_corners_and_throne_passage() {
    let imported = import(COPENHAGEN).expect("imports");
    let (preset, diffs) = nearest_preset(&imported.rules).expect("a preset");
    assert_eq!(preset, "copenhagen");
    let fields: Vec<&str> = diffs.iter().map(|d| d.field.as_str()).collect();
    // OpenTafl counts three occurrences, we four; its corners are hostile to the king too
    // (`corh` defaults to every piece); only its king may pass the empty throne (`cenp`
    // defaults to the king); and it has no length caps
    assert!(fields.contains(&"end.repetition_count"), "{fields:?}");
    assert!(fields.contains(&"king.hostile_corners"), "{fields:?}");
    assert!(fields.contains(&"movement.throne_pass"), "{fields:?}");
    for d in &diffs {
        assert!(
            [
                "end.repetition_count",
                "king.hostile_corners",
                "movement.throne_pass",
                "end.max_plies",
                "end.max_plies_without_capture"
            ]
            .contains(&d.field.as_str()),
            "unexpected difference {d:?}"
        );
    }
    assert!(imported.approximations.iter().any(|n| n.contains("tfr:w")));
}

#[test]
fn opentafl_sea_battle_imports_as_an_edge_escape_game_without_throne() {
    let imported = import(SEA_BATTLE).expect("imports");
    let r = &imported.rules;
    assert!(!r.board.throne && r.board.corners == 0);
    assert_eq!(r.end.escape, tavlei::rules::rules::Escape::Edge);
    assert_eq!(r.king.armed, tavlei::rules::rules::Armed::No);
    let (preset, diffs) = nearest_preset(r).expect("a preset");
    let nearest = Variant::load(preset).expect("preset");
    assert_eq!(nearest.size, 9, "{preset}");
    let escape = field(&diffs, "end.escape");
    assert!(
        escape.is_some() || nearest.rules.end.escape == r.end.escape,
        "{diffs:?}"
    );
}

#[test]
fn a_rules_string_is_a_variant_wherever_one_is_accepted() {
    let load = tavlei::interop::load_variant;
    let v = load(BRANDUB).expect("an inline string");
    assert_eq!(v.size, 7);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("brandub.otn");
    std::fs::write(&path, format!("{COPENHAGEN}\n")).expect("writes");
    let v = load(path.to_str().expect("utf-8")).expect("a file holding a string");
    assert_eq!(v.size, 11);
    assert_eq!(load("brandubh").expect("a preset").rules.name, "brandubh");
    assert!(
        Variant::load(BRANDUB).is_err(),
        "the rules crate reads no OpenTafl strings"
    );
}

#[test]
fn bad_strings_name_the_key_at_fault() {
    let key_of = |text: &str| match import(text) {
        Err(RulesError::OtnRules { key, .. }) => key,
        other => panic!("{text}: {other:?}"),
    };
    let start = "start:/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/";
    assert_eq!(key_of(start), "dim");
    assert_eq!(key_of(&format!("dim:8 {start}")), "dim");
    assert_eq!(key_of(&format!("dim:7 ks:m {start}")), "ks");
    assert_eq!(key_of(&format!("dim:7 esc:x {start}")), "esc");
    assert_eq!(key_of(&format!("dim:7 afor:a4, {start}")), "afor");
    assert_eq!(key_of(&format!("dim:7 linc:y {start}")), "linc");
    assert_eq!(key_of(&format!("dim:7 cor:a1,b2, {start}")), "cor");
    assert_eq!(key_of(&format!("dim:7 cenh:x {start}")), "cenh");
    assert_eq!(key_of("dim:7 start:/3t3/3t3/"), "start");
    assert_eq!(
        key_of("dim:7 start:/3t3/3t3/3T3/ttTqTtt/3T3/3t3/3t3/"),
        "start"
    );
    // two kings: the rules are read, the variant is not playable
    assert!(matches!(
        import("dim:7 start:/3t3/3t3/3T3/ttKKTtt/3T3/3t3/3t3/"),
        Err(RulesError::Field { .. })
    ));
}
