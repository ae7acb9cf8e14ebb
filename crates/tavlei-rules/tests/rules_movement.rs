//! Movement: rook moves, the throne (who may pass, stop, return), corner squares (king only,
//! 2×2 blocks), Tablut's camps, move-length limits, dice, Berserk jumps and berserk chains.

mod common;

use common::*;
use tavlei_rules::Reason;

// ---------------------------------------------------------------- rook moves

#[test]
fn pieces_move_like_rooks_and_never_jump_in_plain_variants() {
    let pos = setup(
        "tavlei",
        "
        9 # . . . . . . . #
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . . . + . . . .
        4 . . . . . . . . .
        3 . . D . . . . . .
        2 . . A . D . . K .
        1 # . . . . . . . #
          a b c d e f g h i",
        Attackers,
    );
    // c2: c1 below, b2 and a2 to the left, d2 to the right (e2 blocks), nothing up (c3 blocks)
    assert_eq!(destinations(&pos, "c2"), names(&["a2", "b2", "c1", "d2"]));
    assert!(illegal(&pos, "c2-d3").contains("not on one rank or file"));
    assert!(illegal(&pos, "c2-f2").contains("blocked at e2"));
    assert!(illegal(&pos, "c2-c4").contains("blocked at c3"));
    assert!(
        illegal(&pos, "e2-e3").contains("defenders"),
        "not the attackers' piece"
    );
}

// ---------------------------------------------------------------- the throne

#[test]
fn tavlei_taflmen_may_not_pass_the_throne_the_king_may() {
    let pos = setup(
        "tavlei",
        "
        9 # . . . . . . . #
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . A . . + . . . .
        4 . . . . . . . . .
        3 . . . . K . . . .
        2 . . . . . . . . .
        1 # . . . . . . . #
          a b c d e f g h i",
        Attackers,
    );
    assert_eq!(
        destinations(&pos, "b5")
            .iter()
            .filter(|s| s.ends_with('5'))
            .cloned()
            .collect::<Vec<_>>(),
        names(&["a5", "c5", "d5"])
    );
    assert!(illegal(&pos, "b5-e5").contains("throne"));
    assert!(illegal(&pos, "b5-g5").contains("throne"));
    let mut king = pos.clone();
    play(&mut king, "b5-b6");
    assert!(is_legal(&king, "e3-e5"), "the king stops on the throne");
    assert!(is_legal(&king, "e3-e8"), "and passes it");
}

#[test]
fn hnefatafl_taflmen_pass_the_empty_throne_but_do_not_stop_on_it() {
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . A . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . K .
     2 . . . . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";
    let pos = setup("hnefatafl", b, Attackers);
    assert!(is_legal(&pos, "b6-j6"));
    assert!(illegal(&pos, "b6-f6").contains("throne"));
    // with the king on it, the throne blocks like any piece
    let occupied = b.replace("+", "K").replace(". K .\n", ". . .\n");
    let pos = setup("hnefatafl", &occupied, Attackers);
    assert!(illegal(&pos, "b6-j6").contains("blocked at f6"));
    assert!(is_legal(&pos, "b6-e6"));
}

#[test]
fn hnefatafl_king_may_return_to_the_throne_tablut_king_may_not() {
    let hnef = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . K . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . A . . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";
    let mut pos = setup("hnefatafl", hnef, Defenders);
    play_all(&mut pos, &["f6-f4", "b2-b3"]);
    assert!(is_legal(&pos, "f4-f6"));
    assert!(is_legal(&pos, "f4-f9"), "the king passes the empty throne");

    let tablut = "
        9 . . . , , , . . .
        8 . . . . , . . . .
        7 . . . . . . . . .
        6 , . . . . . . . ,
        5 , , . . K . . , ,
        4 , . . . . . . . ,
        3 . . . . . . . . .
        2 . A . . , . . . .
        1 . . . , , , . . .
          a b c d e f g h i";
    let mut pos = setup("tablut", tablut, Defenders);
    play_all(&mut pos, &["e5-e4", "b2-b3"]);
    assert!(illegal(&pos, "e4-e5").contains("throne"));
    assert!(
        illegal(&pos, "e4-e7").contains("throne"),
        "nobody passes the castle"
    );
    assert!(is_legal(&pos, "e4-e3"));
}

#[test]
fn tablut_taflmen_never_pass_the_castle() {
    let pos = setup(
        "tablut",
        "
        9 . . . , , , . . .
        8 . . . . , . . . .
        7 . . . . . . . . .
        6 , . . . . . . . ,
        5 , , . D + . . , ,
        4 , . . . . . . . ,
        3 . . . . . . . . .
        2 . . . . , . K . .
        1 . . . , , , . . .
          a b c d e f g h i",
        Defenders,
    );
    assert!(illegal(&pos, "d5-f5").contains("throne"));
    assert!(is_legal(&pos, "d5-c5"));
}

// ---------------------------------------------------------------- corners

#[test]
fn corners_are_for_the_king_only() {
    let b = "
        9 # . . . . . . . #
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 A . . . + . . . .
        4 . . . . . . . . .
        3 . . . . . . . . .
        2 . . . . . . . . .
        1 # . . . . . . K #
          a b c d e f g h i";
    let pos = setup("tavlei", b, Attackers);
    assert!(illegal(&pos, "a5-a1").contains("corner"));
    assert!(illegal(&pos, "a5-a9").contains("corner"));
    assert!(is_legal(&pos, "a5-a2"));
    let pos = setup("tavlei", &b.replace("5 A", "5 D"), Defenders);
    assert!(illegal(&pos, "a5-a1").contains("corner"));
    assert!(is_legal(&pos, "h1-i1"));
}

const ALEA: &str = "
    19 # # . . . . . . . . . . . . . . . # #
    18 # # . . . . . . . . . . . . . . . # #
    17 . . . . . . . . . . . . . . . . . . .
    16 . . . . . . . . . . . . . . . . . . .
    15 . . . . . . . . . . . . . . . . . . .
    14 . . . . . . . . . . . . . . . . . . .
    13 . . . . . . . . . . . . . . . . . . .
    12 . . . . . . . . . . . . . . . . . . .
    11 . . . . . . . . . . . . . . . . . . .
    10 . . . . . . . . . + . . . . . . . . .
     9 . . . . . . . . . . . . . . . . . . .
     8 . . . . . . . . . . . . . . . . . . .
     7 . . . . . . . . . . . . . . . . . . .
     6 . . . . . . . . . . . . . . . . . . .
     5 . . . . . . . . . . . . . . . . . . .
     4 . . . . . . . . . . . . . . . . . . .
     3 . . . . . . . . . . . . . . . . . . .
     2 # # . . . . . . . . . . . . . . . # #
     1 # # . . . . . . . . . . . . . . . # #
       a b c d e f g h i j k l m n o p q r s";

/// The Alea Evangelii board above with pieces placed on it (square, letter).
fn alea(pieces: &[(&str, char)]) -> String {
    let mut rows: Vec<String> = ALEA.lines().map(str::to_string).collect();
    for &(name, c) in pieces {
        let file = (name.as_bytes()[0] - b'a') as usize;
        let rank: usize = name[1..].parse().unwrap();
        let line = rows
            .iter_mut()
            .find(|l| l.trim_start().starts_with(&format!("{rank} ")))
            .unwrap();
        let start = line.len() - 19 * 2 + 1;
        line.replace_range(start + file * 2..start + file * 2 + 1, &c.to_string());
    }
    rows.join("\n")
}

#[test]
fn alea_evangelii_king_escapes_on_any_square_of_a_2x2_corner_block() {
    for (from, to) in [
        ("b7", "b2"),
        ("g1", "b1"),
        ("a6", "a2"),
        ("r12", "r18"),
        ("m19", "r19"),
    ] {
        let mut pos = setup(
            "alea_evangelii",
            &alea(&[(from, 'K'), ("j15", 'A')]),
            Defenders,
        );
        play(&mut pos, &format!("{from}-{to}"));
        assert_eq!(
            pos.outcome(),
            win(Defenders, tavlei_rules::Reason::KingEscaped),
            "{from}-{to}"
        );
    }
    // next to a block but outside it is no escape
    let mut pos = setup(
        "alea_evangelii",
        &alea(&[("c7", 'K'), ("j15", 'A')]),
        Defenders,
    );
    play(&mut pos, "c7-c3");
    assert_eq!(pos.outcome(), None);
}

#[test]
fn alea_evangelii_taflmen_may_not_enter_the_corner_blocks() {
    let pos = setup(
        "alea_evangelii",
        &alea(&[("b7", 'A'), ("g1", 'A'), ("j12", 'K')]),
        Attackers,
    );
    assert!(illegal(&pos, "b7-b2").contains("corner"));
    assert!(illegal(&pos, "g1-b1").contains("corner"));
    let b_file: Vec<String> = destinations(&pos, "b7")
        .into_iter()
        .filter(|s| s.starts_with('b'))
        .collect();
    assert!(
        b_file.contains(&"b3".to_string()) && !b_file.contains(&"b2".to_string()),
        "{b_file:?}"
    );
    assert!(is_legal(&pos, "g1-c1"));
}

#[test]
fn alea_evangelii_corner_blocks_are_hostile() {
    // c1 D between the attacker arriving on d1 and the block square b1
    let mut pos = setup(
        "alea_evangelii",
        &alea(&[("c1", 'D'), ("f1", 'A'), ("j12", 'K')]),
        Attackers,
    );
    assert_eq!(play(&mut pos, "f1-d1"), names(&["c1"]));
    // c3 D against b3, a plain square next to the block: nothing
    let mut pos = setup(
        "alea_evangelii",
        &alea(&[("c3", 'D'), ("f3", 'A'), ("j12", 'K')]),
        Attackers,
    );
    assert_eq!(play(&mut pos, "f3-d3"), none());
}

// ---------------------------------------------------------------- tablut camps

const CAMPS: &str = "
        9 . . . , , , . . .
        8 . . . . , . . . .
        7 . . . . . . . . .
        6 , . . . . . . . ,
        5 , , . . + . . , ,
        4 A . . . . . . . ,
        3 . . . . . . . . .
        2 . . D . , . K . .
        1 . . . A , , . . .
          a b c d e f g h i";

#[test]
fn tablut_attacker_moves_inside_its_camp_and_leaves_it() {
    let pos = setup("tablut", CAMPS, Attackers);
    // d1 in the south camp: through e1 and f1 (its own camp) and beyond, and out up the
    // d-file, which stops short of the north camp on d9
    assert_eq!(
        destinations(&pos, "d1"),
        names(&[
            "a1", "b1", "c1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "e1", "f1", "g1", "h1",
            "i1"
        ])
    );
    // e1 -> e2 stays in the camp; then out of it
    let mut p = pos.clone();
    play_all(&mut p, &["d1-e1", "g2-g3", "e1-e2", "g3-g2"]);
    assert_eq!(at(&p, "e2"), 'A');
    play_all(&mut p, &["e2-e3", "g2-g3"]);
    // once out, the attacker may not re-enter its camp
    assert!(illegal(&p, "e3-e2").contains("camp"));
    assert!(illegal(&p, "e3-e1").contains("camp"));
}

#[test]
fn tablut_attacker_may_not_enter_or_pass_another_camp() {
    let pos = setup("tablut", CAMPS, Attackers);
    // a4 in the west camp: along rank 4 up to h4, but not into i4 of the east camp
    assert!(is_legal(&pos, "a4-h4"));
    assert!(illegal(&pos, "a4-i4").contains("camp"));
}

#[test]
fn tablut_defenders_and_king_may_not_enter_or_pass_a_camp() {
    let pos = setup("tablut", CAMPS, Defenders);
    assert!(illegal(&pos, "c2-e2").contains("camp"));
    assert!(
        illegal(&pos, "c2-f2").contains("camp"),
        "passing e2 is forbidden too"
    );
    assert!(is_legal(&pos, "c2-d2"));
    assert!(illegal(&pos, "g2-e2").contains("camp"));
    assert!(illegal(&pos, "g2-d2").contains("camp"));
    assert!(is_legal(&pos, "g2-f2"));
}

// ---------------------------------------------------------------- move length limits

#[test]
fn sea_tafl_king4_king_moves_at_most_four_squares_taflmen_any() {
    let b = "
        9 . . . . . . . . .
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . K . . . . . . .
        4 . . . . . . . . .
        3 . . . . . . . . .
        2 A . . . . . . . .
        1 . . . . . . . . .
          a b c d e f g h i";
    let pos = setup("sea_tafl_king4", b, Defenders);
    assert!(is_legal(&pos, "b5-f5"));
    assert!(illegal(&pos, "b5-g5").contains("at most 4"));
    let pos = setup("sea_tafl_king4", b, Attackers);
    assert!(is_legal(&pos, "a2-i2"), "attackers are not limited");
    // plain sea tafl has no limit
    let pos = setup("sea_tafl", b, Defenders);
    assert!(is_legal(&pos, "b5-h5"));
}

#[test]
fn sea_tafl_11_every_piece_moves_at_most_five_squares() {
    let b = "
    11 . . . . . . . . . . .
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . K . . . . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . A . . . . . . . . .
     1 . . . . . . . . . . .
       a b c d e f g h i j k";
    let pos = setup("sea_tafl_11", b, Attackers);
    assert!(is_legal(&pos, "b2-g2"));
    assert!(illegal(&pos, "b2-h2").contains("at most 5"));
    let pos = setup("sea_tafl_11", b, Defenders);
    assert!(is_legal(&pos, "c6-h6"));
    assert!(illegal(&pos, "c6-i6").contains("at most 5"));
}

// ---------------------------------------------------------------- dice

const DICE: &str = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . K .
     2 . A . . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";

#[test]
fn reconstruction_dice_roll_caps_the_distance() {
    let mut pos = setup("reconstruction_dice", DICE, Attackers);
    assert!(pos.needs_roll());
    assert_eq!(pos.outcome(), None, "waiting for the die is not the end");
    pos.set_roll(2);
    assert!(!pos.needs_roll());
    assert_eq!(
        destinations(&pos, "b2"),
        names(&["a2", "b1", "b3", "b4", "c2", "d2"])
    );
    assert!(illegal(&pos, "b2-e2").contains("at most 2"));
    play(&mut pos, "b2-d2");
    assert!(pos.needs_roll(), "every move needs a new roll");
    pos.set_roll(6);
    assert!(is_legal(&pos, "j3-j9"));
    assert!(illegal(&pos, "j3-j10").contains("at most 6"));
}

#[test]
fn parity_die_odd_roll_passes_even_roll_moves() {
    let v = custom(
        "reconstruction_dice",
        &[("dice = \"distance\"", "dice = \"parity\"")],
    );
    let mut pos = board(&v, DICE, Attackers);
    pos.set_roll(3);
    assert_eq!(legal(&pos), names(&["pass"]));
    assert!(illegal(&pos, "b2-b3").contains("not a legal move") || !is_legal(&pos, "b2-b3"));
    let before = tavlei_rules::notation::position_to_otn(&pos);
    play(&mut pos, "pass");
    assert_eq!(pos.side_to_move(), Defenders);
    assert_eq!(tavlei_rules::notation::position_to_otn(&pos), before);
    // an even roll: a normal move, of any length
    pos.set_roll(2);
    assert!(!legal(&pos).contains(&"pass".to_string()));
    assert!(is_legal(&pos, "j3-j10"));
    assert!(illegal(&pos, "pass").contains("not available"));
}

#[test]
fn parity_die_passes_count_for_neither_repetition_nor_the_caps() {
    // caps of 4 plies: four passes in a row would reach both, and would repeat the position
    let v = custom(
        "reconstruction_dice",
        &[
            ("dice = \"distance\"", "dice = \"parity\""),
            ("max_plies = 400", "max_plies = 4"),
            (
                "max_plies_without_capture = 150",
                "max_plies_without_capture = 4",
            ),
        ],
    );
    let mut pos = board(&v, DICE, Attackers);
    for _ in 0..6 {
        pos.set_roll(5);
        play(&mut pos, "pass");
        assert_eq!(pos.outcome(), None, "a forced pass ends nothing");
    }
    assert_eq!(pos.ply(), 6, "the record still counts every ply");
    assert_eq!((pos.counted_plies(), pos.plies_since_capture()), (0, 0));
    // moves still count: four of them reach the caps
    for mv in ["b2-b3", "j3-j4", "b3-b2", "j4-j3"] {
        assert_eq!(pos.outcome(), None);
        pos.set_roll(2);
        play(&mut pos, mv);
    }
    assert_eq!(pos.outcome(), draw(Reason::LengthCap));
}

#[test]
fn parity_die_passes_between_moves_do_not_make_a_repetition() {
    // the attackers shuffle b2-b3-b2 with the defenders passing in between: the positions after
    // the attackers' moves recur, the positions after the passes are not counted
    let v = custom(
        "reconstruction_dice",
        &[("dice = \"distance\"", "dice = \"parity\"")],
    );
    let mut pos = board(&v, DICE, Attackers);
    for (i, mv) in ["b2-b3", "pass", "b3-b2", "pass", "b2-b3", "pass", "b3-b2"]
        .iter()
        .enumerate()
    {
        pos.set_roll(if *mv == "pass" { 1 } else { 4 });
        play(&mut pos, mv);
        assert_eq!(pos.outcome(), None, "after ply {}", i + 1);
    }
    assert_eq!(pos.occurrences(), 2, "b2 with the defenders to move, twice");
    pos.set_roll(3);
    play(&mut pos, "pass");
    pos.set_roll(6);
    play(&mut pos, "b2-b3");
    assert_eq!(
        pos.outcome(),
        draw(Reason::Repetition),
        "the third real occurrence"
    );
}

#[test]
fn reconstruction_only_the_king_passes_the_throne_on_11x11() {
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . A . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . K . . . . .
     2 . . . . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";
    let pos = setup("reconstruction", b, Attackers);
    assert!(illegal(&pos, "b6-j6").contains("throne"));
    assert!(is_legal(&pos, "b6-e6"));
    let mut pos = pos;
    play(&mut pos, "b6-b7");
    assert!(is_legal(&pos, "f3-f9"), "the king passes");
    assert!(is_legal(&pos, "f3-f6"), "and stops");
}
