//! How games end: escape to a corner or to the edge, the edge fort, encirclement, no legal move,
//! repetition (draw, defenders' loss, or an illegal move) and the length caps.

mod common;

use common::*;
use tavlei_rules::Reason;

// ---------------------------------------------------------------- escape

#[test]
fn corner_escape_wins_an_edge_square_does_not() {
    let b = "
        9 # . . . . . . . #
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . . . + . . . .
        4 . . . . . . . . .
        3 . . . . . . . . .
        2 . K . . . . . A .
        1 # . . . . . . . #
          a b c d e f g h i";
    for name in ["tavlei", "skalk_9", "old_tablut"] {
        let mut pos = setup(name, b, Defenders);
        play(&mut pos, "b2-b1");
        assert_eq!(
            pos.outcome(),
            None,
            "{name}: b1 is an edge square, not a corner"
        );
        play_all(&mut pos, &["h2-h3", "b1-a1"]);
        assert_eq!(pos.outcome(), win(Defenders, Reason::KingEscaped), "{name}");
    }
}

#[test]
fn edge_escape_wins_on_any_edge_square() {
    let b = "
        9 . . . . . . . . .
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . . . . . . . .
        4 . . . . . . . . .
        3 . . . K . . . . .
        2 . . . . . . . A .
        1 . . . . . . . . .
          a b c d e f g h i";
    for name in ["sea_tafl", "tablut", "sea_tafl_king4"] {
        let mut pos = setup(name, b, Defenders);
        play(&mut pos, "d3-c3");
        assert_eq!(pos.outcome(), None, "{name}");
        play_all(&mut pos, &["h2-h3", "c3-c1"]);
        assert_eq!(pos.outcome(), win(Defenders, Reason::KingEscaped), "{name}");
    }
    // saami tablut has corner squares; a plain edge square is enough to win
    let saami = b
        .replace("9 . . . . . . . . .", "9 # . . . . . . . #")
        .replace("1 . . . . . . . . .", "1 # . . . . . . . #");
    let mut pos = setup("saami_tablut", &saami, Defenders);
    play(&mut pos, "d3-d1");
    assert_eq!(pos.outcome(), win(Defenders, Reason::KingEscaped));
}

#[test]
fn a_taflman_on_the_edge_wins_nothing() {
    let mut pos = setup(
        "sea_tafl",
        "
        9 . . . . . . . . .
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . . . K . . . .
        4 . . . . . . . . .
        3 . . . D . . . . .
        2 . . . . . . . A .
        1 . . . . . . . . .
          a b c d e f g h i",
        Defenders,
    );
    play(&mut pos, "d3-d1");
    assert_eq!(pos.outcome(), None);
}

// ---------------------------------------------------------------- edge fort (Copenhagen)

const FORT: &str = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . A . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . D . . . . .
     4 . . . . . . . . . . .
     3 . . . . D . . . . . .
     2 . . . D . . D . . . .
     1 # . . D K . D . . . #
       a b c d e f g h i j k";

#[test]
fn copenhagen_edge_fort_that_holds_wins_for_the_defenders() {
    // f5-f3 closes the fort around e1, f1, e2, f2: every wall piece is covered on both lines
    let mut pos = setup("copenhagen", FORT, Defenders);
    assert_eq!(pos.outcome(), None);
    play(&mut pos, "f5-f3");
    assert_eq!(pos.outcome(), win(Defenders, Reason::EdgeFort));
}

#[test]
fn copenhagen_edge_fort_that_can_be_broken_does_not_win() {
    // the same fort one square smaller on top: e3 alone closes e2, and attackers on d3 and f3
    // could capture it
    let b = FORT
        .replace("2 . . . D . . D", "2 . . . D . D .")
        .replace("1 # . . D K . D", "1 # . . D K D .");
    let b = b
        .replace("5 . . . . . D", "5 . . . . D .")
        .replace("3 . . . . D .", "3 . . . . . .");
    let mut pos = setup("copenhagen", &b, Defenders);
    play(&mut pos, "e5-e3");
    assert_eq!(at(&pos, "e3"), 'D');
    assert_eq!(pos.outcome(), None);
}

#[test]
fn copenhagen_edge_fort_needs_a_king_who_can_move() {
    // e1 walled in by d1, f1 and e2 with no room: no fort
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . A . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . D D D . . . . .
     1 # . . D K . . . . . #
       a b c d e f g h i j k";
    let mut pos = setup("copenhagen", b, Defenders);
    play(&mut pos, "f2-f1");
    assert_eq!(pos.outcome(), None);
}

/// The position of a recorded game where the old, merely sufficient test missed a real fort
/// (defenders to move; OTN ranks from rank 1 up).
const REAL_FORT: &str = "/4TK5/5TT4/11/7T3/2t8/11/11/11/1t6t2/11/11/";

fn otn(name: &str, text: &str, side: tavlei_rules::Side) -> tavlei_rules::Position {
    tavlei_rules::notation::parse_otn(&variant(name), text, side).expect("a valid OTN position")
}

#[test]
fn copenhagen_edge_fort_the_old_test_missed() {
    // h4-h1 walls the king's region {f1, g1} with e1, f2, g2 and h1: e1 has the king beside it
    // and the edge below, g2 and h1 face the unreachable g1, so none of them can ever be taken
    let mut pos = otn("copenhagen", REAL_FORT, Defenders);
    play(&mut pos, "h4-h1");
    assert_eq!(pos.outcome(), win(Defenders, Reason::EdgeFort));
}

#[test]
fn copenhagen_edge_fort_with_a_wall_piece_that_can_fall_is_no_fort() {
    // the king's region is {f1, g1, g2}; its top, g3, has f3 and h3 open to the attackers
    let mut pos = otn(
        "copenhagen",
        "/4TK1T3/5T1T3/11/6T4/2t8/11/11/11/1t6t2/11/11/",
        Defenders,
    );
    play(&mut pos, "g4-g3");
    assert_eq!(at(&pos, "g3"), 'D');
    assert_eq!(pos.outcome(), None);
}

#[test]
fn copenhagen_edge_fort_whose_wall_holds_only_because_of_the_edge() {
    // the king's region {a5, a6} on the west edge: a4 and a7 can be attacked from inside the
    // board only along the edge, which is no anvil
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 D . . . . . . . A . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . D . . . + . . . . .
     5 K D . . . . . . . . .
     4 D . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . . . . . . .
     1 # . . . . . . . . A #
       a b c d e f g h i j k";
    let mut pos = setup("copenhagen", b, Defenders);
    assert_eq!(pos.outcome(), None);
    play(&mut pos, "a9-a7");
    assert_eq!(pos.outcome(), win(Defenders, Reason::EdgeFort));
}

#[test]
fn copenhagen_king_walled_in_with_an_attacker_is_no_fort() {
    // the king's region {e1, f1, g1} touches the attacker on d1: encircled, not fortified
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . A . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . D . . .
     2 . . . . D D D . . . .
     1 # . . A K . . . . . #
       a b c d e f g h i j k";
    let mut pos = setup("copenhagen", b, Defenders);
    play(&mut pos, "h3-h1");
    assert_eq!(pos.outcome(), None);
    // the same walls with a defender on d1 are a fort
    let mut pos = setup(
        "copenhagen",
        &b.replace("1 # . . A K", "1 # . . D K"),
        Defenders,
    );
    play(&mut pos, "h3-h1");
    assert_eq!(pos.outcome(), win(Defenders, Reason::EdgeFort));
}

#[test]
fn hnefatafl_has_no_edge_fort() {
    let mut pos = setup("hnefatafl", FORT, Defenders);
    play(&mut pos, "f5-f3");
    assert_eq!(pos.outcome(), None);
}

// ---------------------------------------------------------------- encirclement

const RING: &str = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . A .
     8 . . . . A . A . . . .
     7 . . . . A D A . . . .
     6 . . . . A K A . . . .
     5 . . . . . A . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";

#[test]
fn encirclement_wins_for_the_attackers() {
    for name in ["copenhagen", "brown"] {
        let b = if name == "brown" {
            RING.replace('#', ".")
        } else {
            RING.to_string()
        };
        let mut pos = setup(name, &b, Attackers);
        // j9-f9 closes the ring around the king, f7 and the empty f8
        assert_eq!(play(&mut pos, "j9-f9"), none());
        assert_eq!(
            pos.outcome(),
            win(Attackers, Reason::Encirclement),
            "{name}"
        );
    }
}

#[test]
fn no_encirclement_while_a_defender_can_reach_the_edge() {
    for name in ["copenhagen", "brown"] {
        let b = if name == "brown" {
            RING.replace('#', ".")
        } else {
            RING.to_string()
        };
        // g7 open: the defender on f7 can walk out
        let b = b.replace("7 . . . . A D A", "7 . . . . A D .");
        let mut pos = setup(name, &b, Attackers);
        play(&mut pos, "j9-f9");
        assert_eq!(pos.outcome(), None, "{name}");
        // a defender outside the ring, far from the edge but free to reach it
        let b = RING.replace("3 . . . . . . . . . . .", "3 . . . . . . . . D . .");
        let b = if name == "brown" {
            b.replace('#', ".")
        } else {
            b
        };
        let mut pos = setup(name, &b, Attackers);
        play(&mut pos, "j9-f9");
        assert_eq!(pos.outcome(), None, "{name}");
    }
}

#[test]
fn old_tablut_encirclement() {
    let ring = "
        9 # . . . . . . . #
        8 . . . . . . . A .
        7 . . . A . A . . .
        6 . . . A D A . . .
        5 . . . A K A . . .
        4 . . . . A . . . .
        3 . . . . . . . . .
        2 . . . . . . . . .
        1 # . . . . . . . #
          a b c d e f g h i";
    let mut pos = setup("old_tablut", ring, Attackers);
    assert_eq!(play(&mut pos, "h8-e8"), none());
    assert_eq!(pos.outcome(), win(Attackers, Reason::Encirclement));
    // with f6 open the defender on e6 still reaches the edge
    let mut pos = setup(
        "old_tablut",
        &ring.replace("6 . . . A D A", "6 . . . A D ."),
        Attackers,
    );
    play(&mut pos, "h8-e8");
    assert_eq!(pos.outcome(), None);
}

#[test]
fn hnefatafl_has_no_encirclement() {
    let mut pos = setup("hnefatafl", RING, Attackers);
    play(&mut pos, "j9-f9");
    assert_eq!(pos.outcome(), None);
}

// ---------------------------------------------------------------- no legal move

const STUCK: &str = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 A . . . . + . . . . .
     5 K A . . . . . . . . .
     4 . . . . . . A . . . .
     3 . . . . . . . . . . .
     2 . . . . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";

#[test]
fn copenhagen_side_without_a_legal_move_loses() {
    // the king on the edge cannot be captured, but after g4-a4 he cannot move either
    let mut pos = setup("copenhagen", STUCK, Attackers);
    assert_eq!(pos.outcome(), None);
    assert_eq!(play(&mut pos, "g4-a4"), none());
    assert_eq!(at(&pos, "a5"), 'K');
    assert!(legal(&pos).is_empty());
    assert_eq!(pos.outcome(), win(Attackers, Reason::NoLegalMoves));
}

#[test]
fn fetlar_side_without_a_legal_move_draws() {
    let mut pos = setup("fetlar", STUCK, Attackers);
    play(&mut pos, "g4-a4");
    assert_eq!(pos.outcome(), draw(Reason::NoLegalMoves));
}

#[test]
fn a_side_with_a_move_left_plays_on() {
    // with a defender that can still move the game goes on
    let mut pos = setup(
        "copenhagen",
        &STUCK.replace("2 . . . . . . . . . . .", "2 . . . . . . . . D . ."),
        Attackers,
    );
    play(&mut pos, "g4-a4");
    assert_eq!(pos.outcome(), None);
}

// ---------------------------------------------------------------- repetition

const SHUFFLE: &str = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . A . . . . . . K . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";

/// Both sides shuffle back and forth: the start position recurs after plies 4 and 8.
const TWO_CYCLES: [&str; 8] = [
    "b2-b3", "i2-i3", "b3-b2", "i3-i2", "b2-b3", "i2-i3", "b3-b2", "i3-i2",
];

#[test]
fn hnefatafl_threefold_repetition_is_a_draw() {
    let mut pos = setup("hnefatafl", SHUFFLE, Attackers);
    play_all(&mut pos, &TWO_CYCLES[..7]);
    assert_eq!(
        pos.outcome(),
        None,
        "every position so far occurred at most twice"
    );
    play(&mut pos, TWO_CYCLES[7]);
    assert_eq!(pos.occurrences(), 3);
    assert_eq!(pos.outcome(), draw(Reason::Repetition));
}

#[test]
fn copenhagen_a_third_occurrence_plays_on_the_fourth_loses_for_the_defenders() {
    let mut pos = setup("copenhagen", SHUFFLE, Attackers);
    play_all(&mut pos, &TWO_CYCLES);
    assert_eq!(pos.occurrences(), 3);
    assert_eq!(pos.outcome(), None, "a third occurrence ends nothing");
    play_all(&mut pos, &TWO_CYCLES[..3]);
    assert_eq!(pos.outcome(), None);
    play(&mut pos, TWO_CYCLES[3]);
    assert_eq!(pos.occurrences(), 4);
    assert_eq!(pos.outcome(), win(Attackers, Reason::Repetition));
}

#[test]
fn copenhagen_the_fourth_occurrence_loses_for_the_defenders_whoever_made_it() {
    // the defenders begin, so the attackers' b3-b2 is what brings the start position back
    let cycle = ["i2-i3", "b2-b3", "i3-i2", "b3-b2"];
    let mut pos = setup("copenhagen", SHUFFLE, Defenders);
    for _ in 0..2 {
        play_all(&mut pos, &cycle);
    }
    play_all(&mut pos, &cycle[..3]);
    assert_eq!(pos.outcome(), None);
    play(&mut pos, "b3-b2");
    assert_eq!(pos.side_to_move(), Defenders);
    assert_eq!(pos.occurrences(), 4);
    assert_eq!(pos.outcome(), win(Attackers, Reason::Repetition));
}

#[test]
fn brandubh_a_third_occurrence_plays_on_the_fourth_loses_for_the_defenders() {
    let b = "
        7 # . . . . . #
        6 . . . . . . .
        5 . . . . . . .
        4 . . . + . . .
        3 . . . . . . .
        2 . A . . . K .
        1 # . . . . . #
          a b c d e f g";
    let cycle = ["b2-b3", "f2-f3", "b3-b2", "f3-f2"];
    let mut pos = setup("brandubh", b, Attackers);
    for round in 1..=2 {
        play_all(&mut pos, &cycle);
        assert_eq!(pos.outcome(), None, "round {round}");
    }
    assert_eq!(pos.occurrences(), 3);
    play_all(&mut pos, &cycle[..3]);
    assert_eq!(pos.outcome(), None);
    play(&mut pos, cycle[3]);
    assert_eq!(pos.outcome(), win(Attackers, Reason::Repetition));
}

#[test]
fn a_capture_wipes_the_repetition_history() {
    // the same shuffle, but the attackers capture d4 on the way: positions before it never count
    let b = SHUFFLE
        .replace("4 . . . . . . . . . . .", "4 . . D A . . . . . . .")
        .replace("2 . A", "2 . .");
    let b = b.replace("3 . . . . . . . . . . .", "3 . . A . . . . . . . .");
    let mut pos = setup("hnefatafl", &b, Attackers);
    play_all(
        &mut pos,
        &["c3-b3", "i2-i3", "b3-c3", "i3-i2", "c3-b3", "i2-i3"],
    );
    assert_eq!(play(&mut pos, "b3-b4"), names(&["c4"]));
    play_all(&mut pos, &["i3-i2", "b4-b3", "i2-i3", "b3-b4", "i3-i2"]);
    assert_eq!(pos.occurrences(), 2);
    assert_eq!(pos.outcome(), None);
}

#[test]
fn tablut_a_move_repeating_a_position_a_third_time_is_illegal_unless_it_is_the_only_move() {
    // the lone attacker on a1 can only shuffle a1-b1-a1; the defenders shuffle g6-g7-g6
    let b = "
        9 . . . , , , . . .
        8 . . . . , . . . .
        7 . . . . . . . . .
        6 , . . . . . D . ,
        5 , , . . K . . , ,
        4 , . . . . . . . ,
        3 . . . . . . . . .
        2 D D . . , . . . .
        1 A . D , , , . . .
          a b c d e f g h i";
    let mut pos = setup("tablut", b, Defenders);
    play_all(
        &mut pos,
        &[
            "g6-g7", "a1-b1", "g7-g6", "b1-a1", "g6-g7", "a1-b1", "g7-g6",
        ],
    );
    // b1-a1 makes the start position a third time, but it is the attackers' only move
    assert_eq!(legal(&pos), names(&["b1-a1"]));
    play(&mut pos, "b1-a1");
    assert_eq!(pos.occurrences(), 3);
    assert_eq!(pos.outcome(), None, "in tablut repetition ends nothing");
    // g6-g7 would make its position a third time: illegal, other moves are fine
    assert!(illegal(&pos, "g6-g7").contains("repeat"));
    assert!(is_legal(&pos, "g6-h6"));
}

// ---------------------------------------------------------------- length caps

#[test]
fn max_plies_draws() {
    let v = custom("hnefatafl", &[("max_plies = 400", "max_plies = 4")]);
    let mut pos = board(&v, SHUFFLE, Attackers);
    play_all(&mut pos, &["b2-b3", "i2-i3", "b3-b4"]);
    assert_eq!(pos.outcome(), None);
    play(&mut pos, "i3-i4");
    assert_eq!(pos.outcome(), draw(Reason::LengthCap));
    assert!(legal(&pos).is_empty());
}

#[test]
fn max_plies_without_capture_draws_and_a_capture_resets_it() {
    let v = custom(
        "hnefatafl",
        &[(
            "max_plies_without_capture = 150",
            "max_plies_without_capture = 3",
        )],
    );
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . D A . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . . . . K . .
     1 # . A . . . . . . . #
       a b c d e f g h i j k";
    let mut pos = board(&v, b, Attackers);
    play_all(&mut pos, &["c1-c2", "i2-i3"]);
    assert_eq!(pos.plies_since_capture(), 2);
    assert_eq!(play(&mut pos, "c2-c4"), names(&["d4"]));
    assert_eq!(pos.plies_since_capture(), 0);
    play_all(&mut pos, &["i3-i2", "c4-c5"]);
    assert_eq!(pos.outcome(), None);
    play(&mut pos, "i2-i3");
    assert_eq!(pos.outcome(), draw(Reason::LengthCap));
}
