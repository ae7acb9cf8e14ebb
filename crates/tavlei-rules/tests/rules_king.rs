//! How the king is captured, variant by variant: like a taflman (tavlei, skalk) except on and
//! next to the throne; on 4 sides with the empty throne helping (hnefatafl, copenhagen, brown);
//! on 4 sides only (fetlar, sea tafl); with the castle and camps helping (tablut); with the edge,
//! corners and throne helping (old tablut, reconstruction); the reconstruction's king-and-defender
//! pair; Berserk's commanders.

mod common;

use common::*;
use tavlei_rules::{Position, Reason};

/// Plays an attacker move that must capture the king on `king`.
fn king_captured(pos: &mut Position, mv: &str, king: &str) {
    let captured = play(pos, mv);
    assert!(
        captured.contains(&king.to_string()),
        "`{mv}` should capture the king on {king}: {captured:?}"
    );
    assert_eq!(pos.king(), None);
    assert_eq!(pos.outcome(), win(Attackers, Reason::KingCaptured));
}

/// Plays an attacker move that must leave the king on `king`, the game going on.
fn king_survives(pos: &mut Position, mv: &str, king: &str) {
    play(pos, mv);
    assert_eq!(
        at(pos, king),
        'K',
        "`{mv}` should not capture the king on {king}"
    );
    assert_eq!(pos.status(), None);
}

// ---------------------------------------------------------------- tavlei, skalk: throne-sensitive

#[test]
fn tavlei_king_captured_on_two_sides_away_from_the_throne() {
    let b = "
        9 # . . . . . . . #
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . . . + . . . .
        4 . . . . . . . . .
        3 . A K . . . . . .
        2 . . . A . . . . .
        1 # . . . . . . . #
          a b c d e f g h i";
    king_captured(&mut setup("tavlei", b, Attackers), "d2-d3", "c3");
    // one attacker beside him is not enough
    king_survives(
        &mut setup("tavlei", &b.replace("3 . A K", "3 . . K"), Attackers),
        "d2-d3",
        "c3",
    );
}

#[test]
fn tavlei_king_captured_against_a_corner() {
    let b = "
        9 # . . . . . . . #
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . . . + . . . .
        4 . . . . . . . . .
        3 . . . . . . . . .
        2 . . . . . . . . .
        1 # K . . . A . . #
          a b c d e f g h i";
    king_captured(&mut setup("tavlei", b, Attackers), "f1-c1", "b1");
}

#[test]
fn tavlei_king_on_the_throne_needs_four_attackers() {
    let three = "
        9 # . . . . . . . #
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . . A . . . .
        5 . . . A K . . . .
        4 . . . . . . . . .
        3 . . . . . . . . .
        2 . . . . . A . . .
        1 # . . . . . . . #
          a b c d e f g h i";
    // f5 makes a 2-sided sandwich d5 K f5 and the third attacker, but not four
    king_survives(&mut setup("tavlei", three, Attackers), "f2-f5", "e5");
    let four = three.replace("4 . . . . . . . . .", "4 . . . . A . . . .");
    king_captured(&mut setup("tavlei", &four, Attackers), "f2-f5", "e5");
}

#[test]
fn tavlei_king_next_to_the_throne_needs_the_three_other_sides() {
    let two = "
        9 # . . . . . . . #
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . A K . . . .
        5 . . . . + . . . .
        4 . . . . . . . . .
        3 . . . . . . . . .
        2 . . . . . A . . .
        1 # . . . . . . . #
          a b c d e f g h i";
    // d6 K f6 would capture elsewhere, not next to the throne
    king_survives(&mut setup("tavlei", two, Attackers), "f2-f6", "e6");
    let three = two.replace("7 . . . . . . . . .", "7 . . . . A . . . .");
    king_captured(&mut setup("tavlei", &three, Attackers), "f2-f6", "e6");
}

#[test]
fn skalk_11_king_next_to_the_throne_and_elsewhere() {
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . A K . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . . A . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";
    king_survives(&mut setup("skalk", b, Attackers), "g2-g7", "f7");
    let three = b.replace("8 . . . . . . . . . . .", "8 . . . . . A . . . . .");
    king_captured(&mut setup("skalk", &three, Attackers), "g2-g7", "f7");
    // two squares from the throne he is a taflman again
    let away = b
        .replace("7 . . . . A K", "7 . . . . . .")
        .replace("8 . . . . . . . . . . .", "8 . . . . A K . . . . .");
    let mut pos = setup("skalk", &away, Attackers);
    king_captured(&mut pos, "g2-g8", "f8");
}

// ---------------------------------------------------------------- hnefatafl, copenhagen

/// The king on d3, away from the throne, with attackers on three sides and a fourth coming.
const HNEF_AWAY: &str = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . A . . . . . . .
     3 . . A K A . . . . . .
     2 . . . . . . . A . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";

#[test]
fn hnefatafl_and_copenhagen_king_captured_on_four_sides() {
    for name in ["hnefatafl", "copenhagen"] {
        king_captured(&mut setup(name, HNEF_AWAY, Attackers), "h2-d2", "d3");
    }
}

#[test]
fn hnefatafl_and_copenhagen_king_not_captured_on_three_sides_or_two() {
    for name in ["hnefatafl", "copenhagen"] {
        let three = HNEF_AWAY.replace("3 . . A K", "3 . . . K");
        king_survives(&mut setup(name, &three, Attackers), "h2-d2", "d3");
        // c3 A, K, e3 A is a taflman's sandwich, not the king's
        let two = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . A K . . . A . . .
     2 . . . . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";
        king_survives(&mut setup(name, two, Attackers), "h3-e3", "d3");
    }
}

#[test]
fn hnefatafl_and_copenhagen_king_next_to_the_empty_throne_on_three_sides() {
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . A K A . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . A . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";
    for name in ["hnefatafl", "copenhagen"] {
        king_captured(&mut setup(name, b, Attackers), "f2-f4", "f5");
        // two attackers and the throne are not enough
        let two = b.replace("5 . . . . A K A", "5 . . . . . K A");
        king_survives(&mut setup(name, &two, Attackers), "f2-f4", "f5");
    }
}

#[test]
fn hnefatafl_and_copenhagen_king_on_the_throne_needs_four() {
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . A . . . . .
     6 . . . . A K A . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . A . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";
    for name in ["hnefatafl", "copenhagen"] {
        king_captured(&mut setup(name, b, Attackers), "f2-f5", "f6");
        let three = b.replace("7 . . . . . A", "7 . . . . . .");
        king_survives(&mut setup(name, &three, Attackers), "f2-f5", "f6");
    }
}

#[test]
fn hnefatafl_and_copenhagen_king_not_captured_against_the_edge_or_a_corner() {
    let edge = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 A . . . . + . . . . .
     5 K A . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . . . . . . .
     1 # . . . . . . . . A #
       a b c d e f g h i j k";
    let corner = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . A . . . . . . . . .
     1 # K . . . . . . . A #
       a b c d e f g h i j k";
    for name in ["hnefatafl", "copenhagen"] {
        // a6 A, b5 A and the edge: the hammer arriving on a4 makes three sides and the edge
        let mut pos = setup(
            name,
            &edge.replace("4 . . . . . . . . . . .", "4 . . . . . . A . . . ."),
            Attackers,
        );
        king_survives(&mut pos, "g4-a4", "a5");
        king_survives(&mut setup(name, corner, Attackers), "j1-c1", "b1");
    }
}

// ---------------------------------------------------------------- fetlar, sea tafl: four sides only

#[test]
fn fetlar_king_captured_on_four_sides_and_beside_the_throne_on_three() {
    king_captured(&mut setup("fetlar", HNEF_AWAY, Attackers), "h2-d2", "d3");
    let next_to_throne = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . A K A . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . A . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";
    // beside the throne the empty throne is the fourth attacker: no sanctuary there
    king_captured(
        &mut setup("fetlar", next_to_throne, Attackers),
        "f2-f4",
        "f5",
    );
    // two attackers and the throne are not enough
    king_survives(
        &mut setup(
            "fetlar",
            &next_to_throne.replace("5 . . . . A K", "5 . . . . . K"),
            Attackers,
        ),
        "f2-f4",
        "f5",
    );
    let on_throne = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . A . . . . .
     6 . . . . A K A . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . A . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";
    king_captured(&mut setup("fetlar", on_throne, Attackers), "f2-f5", "f6");
    // three attackers around the king elsewhere do not capture him
    let away_three = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . A K A . . . . .
     2 . . . . . . . . . A .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";
    king_survives(&mut setup("fetlar", away_three, Attackers), "j2-e2", "e3");
    // nor does the edge count: the king on the edge with three attackers stays
    let on_edge = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . . . . . . A
     1 # . . . A K A . . . #
       a b c d e f g h i j k";
    king_survives(&mut setup("fetlar", on_edge, Attackers), "k2-f2", "f1");
}

#[test]
fn sea_tafl_king_captured_on_four_sides_not_three() {
    let b = "
        9 . . . . . . . . .
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . . . . . . . .
        4 . . . A . . . . .
        3 . . A K A . . . .
        2 . . . . . . . A .
        1 . . . . . . . . .
          a b c d e f g h i";
    king_captured(&mut setup("sea_tafl", b, Attackers), "h2-d2", "d3");
    king_survives(
        &mut setup("sea_tafl", &b.replace("3 . . A K", "3 . . . K"), Attackers),
        "h2-d2",
        "d3",
    );
}

// ---------------------------------------------------------------- tablut: castle and camps

#[test]
fn tablut_king_next_to_the_empty_castle_on_three_sides() {
    let b = "
        9 . . . , , , . . .
        8 . . . . , . . . .
        7 . . . . . . . . .
        6 . . . A K A . . .
        5 , , . . + . . , ,
        4 , . . . . . . . ,
        3 . . . . . . . . .
        2 . . . . , . . . .
        1 . . . , , , . . .
          a b c d e f g h i";
    let b = b.replace("7 . . . . . . . . .", "7 . . . . . . . A .");
    king_captured(&mut setup("tablut", &b, Attackers), "h7-e7", "e6");
    let two = b.replace("6 . . . A K A", "6 . . . . K A");
    king_survives(&mut setup("tablut", &two, Attackers), "h7-e7", "e6");
}

#[test]
fn tablut_empty_camp_squares_count_as_attackers_against_the_king() {
    // b4 touches the camp squares a4 and b5: two attackers finish him
    let b = "
        9 . . . , , , . . .
        8 . . . . , . . . .
        7 . . . . . . . . .
        6 , . . . . . . . ,
        5 , , . . + . . , ,
        4 , K A . . . . . ,
        3 . . . . . . . . .
        2 . . . . , . . . .
        1 . . . , , , . . .
          a b c d e f g h i";
    let b = b.replace("3 . . . . . . . . .", "3 . . . . . . . A .");
    king_captured(&mut setup("tablut", &b, Attackers), "h3-b3", "b4");
    // the camps and one attacker are not enough
    king_survives(
        &mut setup("tablut", &b.replace("4 , K A", "4 , K ."), Attackers),
        "h3-b3",
        "b4",
    );
}

#[test]
fn tablut_king_on_the_castle_needs_four() {
    let b = "
        9 . . . , , , . . .
        8 . . . . , . . . .
        7 . . . . . . . . .
        6 . . . . A . . . .
        5 , , . A K A . , ,
        4 , . . . . . . A ,
        3 . . . . . . . . .
        2 . . . . , . . . .
        1 . . . , , , . . .
          a b c d e f g h i";
    king_captured(&mut setup("tablut", b, Attackers), "h4-e4", "e5");
    king_survives(
        &mut setup(
            "tablut",
            &b.replace("6 . . . . A", "6 . . . . ."),
            Attackers,
        ),
        "h4-e4",
        "e5",
    );
}

// ---------------------------------------------------------------- brown: the throne counts

#[test]
fn brown_king_captured_on_four_sides_or_three_and_the_throne() {
    let b = "
    11 . . . . . . . . . . .
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . A K A . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . A . . . . .
     1 . . . . . . . . . . .
       a b c d e f g h i j k";
    king_captured(&mut setup("brown", b, Attackers), "f2-f4", "f5");
    let away = HNEF_AWAY.replace('#', ".");
    king_captured(&mut setup("brown", &away, Attackers), "h2-d2", "d3");
    king_survives(
        &mut setup("brown", &away.replace("3 . . A K", "3 . . . K"), Attackers),
        "h2-d2",
        "d3",
    );
}

// ---------------------------------------------------------------- old tablut: edge, throne, corner

#[test]
fn old_tablut_king_captured_against_the_edge() {
    let b = "
        9 # . . . . . . . #
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 A . . . . . . . .
        5 K A . . . . . . .
        4 . . . . . . A . .
        3 . . . . . . . . .
        2 . . . . . . . . .
        1 # . . . . . . . #
          a b c d e f g h i";
    king_captured(&mut setup("old_tablut", b, Attackers), "g4-a4", "a5");
    king_survives(
        &mut setup("old_tablut", &b.replace("6 A", "6 ."), Attackers),
        "g4-a4",
        "a5",
    );
}

#[test]
fn old_tablut_king_captured_next_to_a_corner_by_two() {
    let b = "
        9 # . . . . . . . #
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . . . + . . . .
        4 . . . . . . . . .
        3 . . . . . . . . .
        2 . A . . . . . . .
        1 # K . . . . A . #
          a b c d e f g h i";
    king_captured(&mut setup("old_tablut", b, Attackers), "g1-c1", "b1");
    king_survives(
        &mut setup("old_tablut", &b.replace("2 . A", "2 . ."), Attackers),
        "g1-c1",
        "b1",
    );
}

#[test]
fn old_tablut_king_captured_against_the_empty_throne() {
    let b = "
        9 # . . . . . . . #
        8 . . . . . . . . .
        7 . . . . . . . A .
        6 . . . A K A . . .
        5 . . . . + . . . .
        4 . . . . . . . . .
        3 . . . . . . . . .
        2 . . . . . . . . .
        1 # . . . . . . . #
          a b c d e f g h i";
    king_captured(&mut setup("old_tablut", b, Attackers), "h7-e7", "e6");
    // away from edge, throne and corners three attackers do not capture
    let away = b
        .replace("6 . . . A K A", "6 . . . . . .")
        .replace("8 . . . . . . . . .", "8 . . . A K A . . .");
    king_survives(&mut setup("old_tablut", &away, Attackers), "h7-e7", "e8");
}

// ---------------------------------------------------------------- reconstruction

/// Sets a die roll where the variant has dice (reconstruction_dice), so that the move is legal.
fn ready(mut pos: Position) -> Position {
    if pos.needs_roll() {
        pos.set_roll(6);
    }
    pos
}

#[test]
fn reconstruction_king_captured_against_the_edge() {
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 A . . . . + . . . . .
     5 K A . . . . . . . . .
     4 . . . . A . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";
    for name in ["reconstruction", "reconstruction_dice"] {
        king_captured(&mut ready(setup(name, b, Attackers)), "e4-a4", "a5");
        king_survives(
            &mut ready(setup(name, &b.replace("6 A", "6 ."), Attackers)),
            "e4-a4",
            "a5",
        );
    }
}

#[test]
fn reconstruction_king_captured_against_a_corner() {
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . A . . . . . . . . .
     1 # K . . . A . . . . #
       a b c d e f g h i j k";
    for name in ["reconstruction", "reconstruction_dice"] {
        king_captured(&mut ready(setup(name, b, Attackers)), "f1-c1", "b1");
        king_survives(
            &mut ready(setup(name, &b.replace("2 . A", "2 . ."), Attackers)),
            "f1-c1",
            "b1",
        );
    }
}

#[test]
fn reconstruction_king_captured_against_the_throne() {
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . A . .
     7 . . . . A K A . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";
    for name in ["reconstruction", "reconstruction_dice"] {
        king_captured(&mut ready(setup(name, b, Attackers)), "i8-f8", "f7");
        king_survives(
            &mut ready(setup(
                name,
                &b.replace("7 . . . . A K", "7 . . . . . K"),
                Attackers,
            )),
            "i8-f8",
            "f7",
        );
    }
}

#[test]
fn reconstruction_13_king_captured_against_the_edge() {
    let b = "
    13 # . . . . . . . . . . . #
    12 . . . . . . . . . . . . .
    11 . . . . . . . . . . . . .
    10 . . . . . . . . . . . . .
     9 . . . . . . . . . . . . .
     8 . . . . . . . . . . . . .
     7 . . . . . . + . . . . . .
     6 . . . . . . . . . . . . .
     5 . . . . . . . . . . . . .
     4 . . . . . . . . . . . . .
     3 . . . . . . . . . . . . .
     2 . . . . . . A . . . . . .
     1 # . . A K A . . . . . . #
       a b c d e f g h i j k l m";
    king_captured(&mut setup("reconstruction_13", b, Attackers), "g2-e2", "e1");
}

const PAIR: &str = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . A A . . . . . . .
     3 . A K D . . . . A . .
     2 . . A A . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";

#[test]
fn reconstruction_king_and_adjacent_defender_captured_together() {
    // K c3 and D d3 enclosed by b3, c4, c2, d4, d2 and the hammer arriving on e3
    let mut pos = setup("reconstruction", PAIR, Attackers);
    assert_eq!(play(&mut pos, "i3-e3"), names(&["c3", "d3"]));
    assert_eq!(pos.outcome(), win(Attackers, Reason::KingCaptured));
}

#[test]
fn reconstruction_pair_not_captured_with_a_gap() {
    let mut pos = setup(
        "reconstruction",
        &PAIR.replace("2 . . A A", "2 . . . A"),
        Attackers,
    );
    assert_eq!(play(&mut pos, "i3-e3"), none());
    assert_eq!((at(&pos, "c3"), at(&pos, "d3")), ('K', 'D'));
    assert_eq!(pos.status(), None);
}

#[test]
fn reconstruction_pair_captured_against_the_edge() {
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . A . . . . . .
     6 D A . . . + . . . . .
     5 K A . . . . . . . . .
     4 A . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";
    let mut pos = setup("reconstruction", b, Attackers);
    assert_eq!(play(&mut pos, "e7-a7"), names(&["a5", "a6"]));
    assert_eq!(pos.outcome(), win(Attackers, Reason::KingCaptured));
}

#[test]
fn hnefatafl_has_no_pair_capture() {
    let mut pos = setup("hnefatafl", PAIR, Attackers);
    assert_eq!(play(&mut pos, "i3-e3"), none());
    assert_eq!(pos.status(), None);
}

// ---------------------------------------------------------------- berserk: commanders

const BERSERK_TWO: &str = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . C K . . . . C . . .
     2 . . . . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";

#[test]
fn berserk_two_commanders_capture_the_king_away_from_the_throne() {
    king_captured(&mut setup("berserk", BERSERK_TWO, Attackers), "h3-d3", "c3");
}

#[test]
fn berserk_commander_needs_another_commander_not_a_taflman() {
    // a plain attacker on b3 is no partner for the commander
    king_survives(
        &mut setup(
            "berserk",
            &BERSERK_TWO.replace("3 . C K", "3 . A K"),
            Attackers,
        ),
        "h3-d3",
        "c3",
    );
    // and a plain attacker arriving next to a commander is no hammer
    king_survives(
        &mut setup(
            "berserk",
            &BERSERK_TWO.replace("C . . .\n", "A . . .\n"),
            Attackers,
        ),
        "h3-d3",
        "c3",
    );
}

#[test]
fn berserk_commander_captures_the_king_against_a_corner() {
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . . . . . . .
     1 # K . . . C . . . . #
       a b c d e f g h i j k";
    king_captured(&mut setup("berserk", b, Attackers), "f1-c1", "b1");
    king_survives(
        &mut setup(
            "berserk",
            &b.replace("1 # K . . . C", "1 # K . . . A"),
            Attackers,
        ),
        "f1-c1",
        "b1",
    );
}

#[test]
fn berserk_commanders_do_not_capture_next_to_the_throne() {
    let next = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . C K . . C . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";
    king_survives(&mut setup("berserk", next, Attackers), "i7-g7", "f7");
    // one rank further up, the same pair captures
    let away = next
        .replace("7 . . . . C K . . C", "7 . . . . . . . . .")
        .replace("8 . . . . . . . . . . .", "8 . . . . C K . . C . .");
    king_captured(&mut setup("berserk", &away, Attackers), "i8-g8", "f8");
}

#[test]
fn berserk_king_captured_on_four_sides() {
    let b = HNEF_AWAY;
    king_captured(&mut setup("berserk", b, Attackers), "h2-d2", "d3");
    king_survives(
        &mut setup("berserk", &b.replace("3 . . A K", "3 . . . K"), Attackers),
        "h2-d2",
        "d3",
    );
}

#[test]
fn tavlei_king_may_move_between_two_attackers() {
    let mut pos = setup(
        "tavlei",
        "
        9 # . . . . . . . #
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . . . + . . . .
        4 . . . . . . . . .
        3 . A . A . . . . .
        2 . . . . . . . . .
        1 # . K . . . . . #
          a b c d e f g h i",
        Defenders,
    );
    // safe entry: the king steps between b3 and d3 and is not taken
    play(&mut pos, "c1-c3");
    assert_eq!(at(&pos, "c3"), 'K');
    assert_eq!(pos.status(), None);
    // a later attacker move that does not close a new sandwich takes nothing
    king_survives(&mut pos, "b3-b2", "c3");
}
