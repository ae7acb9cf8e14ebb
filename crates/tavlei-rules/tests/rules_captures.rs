//! Captures of taflmen: custodial captures and safe entry, several captures in one move, hostile
//! and non-hostile squares (corners, throne, camps), the armed and unarmed king, shieldwalls.
//! Boards are drawn top rank first; `#` an empty corner, `+` the empty throne, `,` an empty camp.

mod common;

use common::*;

// ---------------------------------------------------------------- custodial capture, safe entry

#[test]
fn tavlei_custodial_capture_of_a_defender() {
    let mut pos = setup(
        "tavlei",
        "
        9 # . . . . . . . #
        8 . . . . . . . K .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . . . + . . . .
        4 . . . . . . . . .
        3 . . A D . . . . .
        2 . . . . . . . . .
        1 # . . . A . . . #
          a b c d e f g h i",
        Attackers,
    );
    // e1-e3 closes c3 D e3 on rank 3
    assert_eq!(play(&mut pos, "e1-e3"), names(&["d3"]));
    assert_eq!(at(&pos, "d3"), '.');
    assert_eq!(at(&pos, "e3"), 'A');
}

#[test]
fn tavlei_no_capture_without_an_anvil() {
    let mut pos = setup(
        "tavlei",
        "
        9 # . . . . . . . #
        8 . . . . . . . K .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . . . + . . . .
        4 . . . . . . . . .
        3 . . . D . . . . .
        2 . . A . . . . . .
        1 # . . . A . . . #
          a b c d e f g h i",
        Attackers,
    );
    // c3 is empty: e1-e3 sandwiches nothing; c2 is diagonal and does not count
    assert_eq!(play(&mut pos, "e1-e3"), none());
    assert_eq!(at(&pos, "d3"), 'D');
}

#[test]
fn tavlei_defenders_capture_an_attacker_on_a_file() {
    let mut pos = setup(
        "tavlei",
        "
        9 # . . . . . . . #
        8 . . . . . . . K .
        7 . . . . . . . . .
        6 . . . D . . . . .
        5 . . . A + . . . .
        4 . . . . . . . . .
        3 . . . . . . . . .
        2 . . . . . . . . .
        1 # . . D . . . . #
          a b c d e f g h i",
        Defenders,
    );
    // d6 D, d5 A, d4 <- the defender from d1: vertical sandwich
    assert_eq!(play(&mut pos, "d1-d4"), names(&["d5"]));
}

#[test]
fn taflman_between_enemy_and_own_piece_is_not_captured() {
    let mut pos = setup(
        "tavlei",
        "
        9 # . . . . . . . #
        8 . . . . . . . K .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . . . + . . . .
        4 . . . . . . . . .
        3 . . D D . . . . .
        2 . . . . . . . . .
        1 # . . . A . . . #
          a b c d e f g h i",
        Attackers,
    );
    assert_eq!(play(&mut pos, "e1-e3"), none());
    assert_eq!(at(&pos, "d3"), 'D');
    assert_eq!(at(&pos, "c3"), 'D');
}

#[test]
fn safe_entry_between_two_enemies_and_no_retroactive_capture() {
    let mut pos = setup(
        "tavlei",
        "
        9 # . . . . . . . #
        8 . . . . . . . K .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . . . + . . . .
        4 . . . . . . . . .
        3 . . A . A . . . .
        2 . . . . . . . . .
        1 # . . D . . A . #
          a b c d e f g h i",
        Defenders,
    );
    // the defender moves itself between c3 and e3: it survives
    assert_eq!(play(&mut pos, "d1-d3"), none());
    assert_eq!(at(&pos, "d3"), 'D');
    // a later attacker move elsewhere does not capture it retroactively
    assert_eq!(play(&mut pos, "g1-g2"), none());
    assert_eq!(at(&pos, "d3"), 'D');
    // but reopening and closing the sandwich does
    play(&mut pos, "h8-h7");
    assert_eq!(play(&mut pos, "e3-e4"), none());
    play(&mut pos, "h7-h8");
    assert_eq!(play(&mut pos, "e4-e3"), names(&["d3"]));
}

#[test]
fn one_move_captures_in_three_directions() {
    let mut pos = setup(
        "tavlei",
        "
        9 # . A . . . . . #
        8 . . . . . . . K .
        7 A D . D A . . . .
        6 . . D . . . . . .
        5 . . A . + . . . .
        4 . . . . . . . . .
        3 . . . . . . . . .
        2 . . . . . . . . .
        1 # . . . . . . . #
          a b c d e f g h i",
        Attackers,
    );
    // c9-c7 closes a7 D c7, c7 D e7 and c7 D c5 at once
    assert_eq!(play(&mut pos, "c9-c7"), names(&["b7", "c6", "d7"]));
    assert_eq!(pos.count(Defenders), 1, "only the king is left");
}

// ---------------------------------------------------------------- corners and the board edge

#[test]
fn tavlei_defender_captured_against_a_corner() {
    let mut pos = setup(
        "tavlei",
        "
        9 # . . . . . . . #
        8 . . . . . . . K .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . . . + . . . .
        4 . . A . . . . . .
        3 . . . . . . . . .
        2 . . . . . . . . .
        1 # D . . . . . . #
          a b c d e f g h i",
        Attackers,
    );
    assert_eq!(play(&mut pos, "c4-c1"), names(&["b1"]));
}

#[test]
fn tavlei_attacker_captured_against_a_corner() {
    let mut pos = setup(
        "tavlei",
        "
        9 # A . . . . . . #
        8 . . . . . . . K .
        7 . . . . . . . . .
        6 . . D . . . . . .
        5 . . . . + . . . .
        4 . . . . . . . . .
        3 . . . . . . . . .
        2 . . . . . . . . .
        1 # . . . . . . . #
          a b c d e f g h i",
        Defenders,
    );
    assert_eq!(play(&mut pos, "c6-c9"), names(&["b9"]));
}

#[test]
fn sea_tafl_corner_square_is_not_hostile() {
    // the same shape as `tavlei_defender_captured_against_a_corner`, but sea tafl has no
    // corner squares: a1 is a plain empty square
    let mut pos = setup(
        "sea_tafl",
        "
        9 . . . . . . . . .
        8 . . . . . . . K .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . . . . . . . .
        4 . . A . . . . . .
        3 . . . . . . . . .
        2 . . . . . . . . .
        1 . D . . . . . . .
          a b c d e f g h i",
        Attackers,
    );
    assert_eq!(play(&mut pos, "c4-c1"), none());
    assert_eq!(at(&pos, "b1"), 'D');
}

#[test]
fn the_board_edge_is_not_hostile_to_taflmen() {
    let mut pos = setup(
        "tavlei",
        "
        9 # . . . . . . . #
        8 . . . . . . . K .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . . . + . . . .
        4 D . . . . . . . .
        3 . . . . . . . . .
        2 . A . . . . . . .
        1 # . . . . . . . #
          a b c d e f g h i",
        Attackers,
    );
    // b4 next to a4 on the edge: nothing beyond a4, so no sandwich
    assert_eq!(play(&mut pos, "b2-b4"), none());
    assert_eq!(at(&pos, "a4"), 'D');
}

// ---------------------------------------------------------------- the throne

const HNEF_EMPTY: &str = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . A . . . . . . . . .
     7 . . . . . D . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . K .
     2 . . . . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";

const HNEF_KING_ON_THRONE: &str = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . A . . . . . . . . .
     7 . . . . . D . . . . .
     6 . . . . . K . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";

/// The two boards above with the roles swapped: an attacker on f7, a defender on b8.
fn swapped(board: &str) -> String {
    board
        .replace(" A . . . . . . . . .", " X . . . . . . . . .")
        .replace('D', "A")
        .replace('X', "D")
}

#[test]
fn hnefatafl_defender_captured_against_the_empty_throne() {
    let mut pos = setup("hnefatafl", HNEF_EMPTY, Attackers);
    assert_eq!(play(&mut pos, "b8-f8"), names(&["f7"]));
}

#[test]
fn hnefatafl_defender_not_captured_against_the_occupied_throne() {
    let mut pos = setup("hnefatafl", HNEF_KING_ON_THRONE, Attackers);
    assert_eq!(play(&mut pos, "b8-f8"), none());
    assert_eq!(at(&pos, "f7"), 'D');
}

#[test]
fn hnefatafl_attacker_captured_against_the_throne_empty_or_not() {
    let mut pos = setup("hnefatafl", &swapped(HNEF_EMPTY), Defenders);
    assert_eq!(at(&pos, "f7"), 'A');
    assert_eq!(play(&mut pos, "b8-f8"), names(&["f7"]));
    let mut pos = setup("hnefatafl", &swapped(HNEF_KING_ON_THRONE), Defenders);
    assert_eq!(play(&mut pos, "b8-f8"), names(&["f7"]));
}

#[test]
fn throne_hostile_to_attackers_always_even_when_the_unarmed_king_sits_on_it() {
    // with an unarmed king the king on the throne is no anvil; the throne still is
    let v = custom("hnefatafl", &[("armed = \"yes\"", "armed = \"no\"")]);
    let mut pos = board(&v, &swapped(HNEF_KING_ON_THRONE), Defenders);
    assert_eq!(play(&mut pos, "b8-f8"), names(&["f7"]));
    // and with hostility `when_empty` the occupied throne does not capture
    let v = custom(
        "hnefatafl",
        &[
            ("armed = \"yes\"", "armed = \"no\""),
            (
                "throne_hostile_to_attackers = \"always\"",
                "throne_hostile_to_attackers = \"when_empty\"",
            ),
        ],
    );
    let mut pos = board(&v, &swapped(HNEF_KING_ON_THRONE), Defenders);
    assert_eq!(play(&mut pos, "b8-f8"), none());
}

#[test]
fn tavlei_throne_hostility() {
    let empty = "
        9 # . . . . . . . #
        8 . . . . . . . K .
        7 . A . . . . . . .
        6 . . . . D . . . .
        5 . . . . + . . . .
        4 . . . . . . . . .
        3 . . . . . . . . .
        2 . . . . . . . . .
        1 # . . . . . . . #
          a b c d e f g h i";
    // a defender against the empty throne is captured
    let mut pos = setup("tavlei", empty, Attackers);
    assert_eq!(play(&mut pos, "b7-e7"), names(&["e6"]));
    // ... but not against the throne the king sits on
    let occupied = empty.replace("K .\n", ". .\n").replace("+", "K");
    let mut pos = setup("tavlei", &occupied, Attackers);
    assert_eq!(play(&mut pos, "b7-e7"), none());
    // an attacker is captured against the throne, empty or occupied
    let att = |b: &str| {
        b.replace(" A . .", " X . .")
            .replace('D', "A")
            .replace('X', "D")
    };
    let mut pos = setup("tavlei", &att(empty), Defenders);
    assert_eq!(play(&mut pos, "b7-e7"), names(&["e6"]));
    let mut pos = setup("tavlei", &att(&occupied), Defenders);
    assert_eq!(play(&mut pos, "b7-e7"), names(&["e6"]));
}

#[test]
fn fetlar_taflmen_of_both_sides_captured_against_the_empty_throne() {
    let mut pos = setup("fetlar", HNEF_EMPTY, Attackers);
    assert_eq!(play(&mut pos, "b8-f8"), names(&["f7"]));
    let mut pos = setup("fetlar", &swapped(HNEF_EMPTY), Defenders);
    assert_eq!(play(&mut pos, "b8-f8"), names(&["f7"]));
    // the occupied throne does not capture a defender
    let mut pos = setup("fetlar", HNEF_KING_ON_THRONE, Attackers);
    assert_eq!(play(&mut pos, "b8-f8"), none());
}

#[test]
fn old_tablut_occupied_throne_is_not_hostile_to_attackers() {
    // old_tablut: the empty throne is hostile to everyone; the king is unarmed, so an attacker
    // next to the king on the throne is safe
    let board_with = |centre: char| {
        format!(
            "
        9 # . . . . . . . #
        8 . . . . . . . . .
        7 . D . . . . . . .
        6 . . . . A . . . .
        5 . . . . {centre} . . . .
        4 . . . . . . . . .
        3 . . . . . . . . .
        2 . . . . . . . K .
        1 # . . . . . . . #
          a b c d e f g h i"
        )
    };
    let mut pos = setup("old_tablut", &board_with('+'), Defenders);
    assert_eq!(play(&mut pos, "b7-e7"), names(&["e6"]));
    let on_throne = board_with('K').replace(". K .\n", ". . .\n");
    let mut pos = setup("old_tablut", &on_throne, Defenders);
    assert_eq!(pos.king(), Some(sq(&pos, "e5")));
    assert_eq!(play(&mut pos, "b7-e7"), none());
}

#[test]
fn tablut_castle_and_camps_are_not_hostile_to_taflmen() {
    // `,` empty camp squares, `+` the empty castle
    let defenders_in_danger = "
        9 . . . , , , . . .
        8 . . . . , . . . .
        7 . . . A . . . A .
        6 , . . . D . . . ,
        5 , , D . + . . , ,
        4 , . . . . . . . ,
        3 . . . . . . . . .
        2 . . . . , . . K .
        1 . . . , , , . . .
          a b c d e f g h i";
    let pos = setup("tablut", defenders_in_danger, Attackers);
    // e6 D between the attacker arriving on e7 and the empty castle
    let mut p = pos.clone();
    assert_eq!(play(&mut p, "h7-e7"), none());
    // c5 D between the attacker arriving on d5 and the empty camp square b5
    let mut p = pos.clone();
    assert_eq!(play(&mut p, "d7-d5"), none());
    // control: an attacker standing in the camp on b5 is an anvil
    let mut p = setup(
        "tablut",
        &defenders_in_danger.replace("5 , , D", "5 , A D"),
        Attackers,
    );
    assert_eq!(play(&mut p, "d7-d5"), names(&["c5"]));

    let attackers_in_danger = defenders_in_danger
        .replace('D', "X")
        .replace('A', "D")
        .replace('X', "A");
    let pos = setup("tablut", &attackers_in_danger, Defenders);
    let mut p = pos.clone();
    assert_eq!(play(&mut p, "h7-e7"), none());
    let mut p = pos.clone();
    assert_eq!(play(&mut p, "d7-d5"), none());
    // control: the (armed) king on the castle is an anvil
    let with_king = attackers_in_danger
        .replace("+", "K")
        .replace(". . K .", ". . . .");
    let mut p = setup("tablut", &with_king, Defenders);
    assert_eq!(play(&mut p, "h7-e7"), names(&["e6"]));
}

#[test]
fn brown_throne_never_captures_taflmen() {
    let b = HNEF_EMPTY.replace('#', ".");
    let mut pos = setup("brown", &b, Attackers);
    assert_eq!(play(&mut pos, "b8-f8"), none());
    let mut pos = setup("brown", &swapped(&b), Defenders);
    assert_eq!(play(&mut pos, "b8-f8"), none());
}

// ---------------------------------------------------------------- armed and unarmed king

#[test]
fn hnefatafl_king_captures_as_hammer() {
    let mut pos = setup(
        "hnefatafl",
        "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . A D . . . . .
     3 . . . . . . . . . . .
     2 . . . K . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k",
        Defenders,
    );
    assert_eq!(play(&mut pos, "d2-d4"), names(&["e4"]));
}

#[test]
fn hnefatafl_king_captures_as_anvil() {
    let mut pos = setup(
        "hnefatafl",
        "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . K A . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . D . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k",
        Defenders,
    );
    assert_eq!(play(&mut pos, "f2-f4"), names(&["e4"]));
}

#[test]
fn sea_tafl_king_is_neither_hammer_nor_anvil() {
    let hammer = "
        9 . . . . . . . . .
        8 . . . . . . . . .
        7 . . . . . . . . .
        6 . . . . . . . . .
        5 . . . . . . . . .
        4 . . . A D . . . .
        3 . . . . . . . . .
        2 . . K . . . . . .
        1 . . . . . . . . .
          a b c d e f g h i";
    let mut pos = setup("sea_tafl", hammer, Defenders);
    assert_eq!(play(&mut pos, "c2-c4"), none());
    assert_eq!(at(&pos, "d4"), 'A');

    let anvil = "
        9 . . . . . . . . .
        8 . . . . . . . . .
        7 . . . . . . K . .
        6 . . . . . . . . .
        5 . . . . . . . . .
        4 . . X A . . . . .
        3 . . . . . . . . .
        2 . . . . D . . . .
        1 . . . . . . . . .
          a b c d e f g h i";
    // the king on c4 is no anvil
    let mut pos = setup(
        "sea_tafl",
        &anvil
            .replace('X', "K")
            .replace(". . K . .\n", ". . . . .\n"),
        Defenders,
    );
    assert_eq!(pos.king(), Some(sq(&pos, "c4")));
    assert_eq!(play(&mut pos, "e2-e4"), none());
    assert_eq!(at(&pos, "d4"), 'A');
    // control: a defender on c4 is
    let mut pos = setup("sea_tafl", &anvil.replace('X', "D"), Defenders);
    assert_eq!(play(&mut pos, "e2-e4"), names(&["d4"]));
}

// ---------------------------------------------------------------- shieldwall (Copenhagen)

const WALL: &str = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . K . . .
     6 . . . . . + . . . . .
     5 . . . . . . A . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . . . A A A . . . . .
     1 # . A D D D . . . . #
       a b c d e f g h i j k";

#[test]
fn copenhagen_shieldwall_bracketed_and_pressed_is_captured() {
    let mut pos = setup("copenhagen", WALL, Attackers);
    assert_eq!(play(&mut pos, "g5-g1"), names(&["d1", "e1", "f1"]));
}

#[test]
fn shieldwall_is_off_in_hnefatafl() {
    let mut pos = setup("hnefatafl", WALL, Attackers);
    assert_eq!(play(&mut pos, "g5-g1"), none());
    assert_eq!(pos.count(Defenders), 4);
}

#[test]
fn copenhagen_shieldwall_not_captured_when_one_member_is_not_pressed() {
    let mut pos = setup(
        "copenhagen",
        &WALL.replace("2 . . . A A A", "2 . . . A . A"),
        Attackers,
    );
    assert_eq!(play(&mut pos, "g5-g1"), none());
    assert_eq!(pos.count(Defenders), 4);
}

#[test]
fn copenhagen_shieldwall_not_captured_when_one_end_is_open() {
    let mut pos = setup(
        "copenhagen",
        &WALL.replace("1 # . A D", "1 # . . D"),
        Attackers,
    );
    assert_eq!(play(&mut pos, "g5-g1"), none());
    assert_eq!(pos.count(Defenders), 4);
}

#[test]
fn copenhagen_shieldwall_closed_by_a_corner() {
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . K . . .
     6 . . . . . + . . . . .
     5 . . . . A . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . . .
     2 . A A A . . . . . . .
     1 # D D D . . . . . . #
       a b c d e f g h i j k";
    let mut pos = setup("copenhagen", b, Attackers);
    assert_eq!(play(&mut pos, "e5-e1"), names(&["b1", "c1", "d1"]));
}

#[test]
fn copenhagen_shieldwall_spares_the_king() {
    let b = WALL
        .replace("1 # . A D D D", "1 # . A D K D")
        .replace("7 . . . . . . . K", "7 . . . . . . . .");
    let mut pos = setup("copenhagen", &b, Attackers);
    assert_eq!(play(&mut pos, "g5-g1"), names(&["d1", "f1"]));
    assert_eq!(at(&pos, "e1"), 'K');
    assert_eq!(pos.outcome(), None);
}

#[test]
fn copenhagen_defenders_capture_an_attacker_shieldwall() {
    let b = "
    11 # . . . . . . . . . #
    10 . D . . . . . . . . .
     9 A D . . . . . . . . .
     8 A D . . . . . . . . .
     7 A D . . . . . K . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 D . . . . . . . . . .
     2 . . . . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";
    // attackers a7, a8, a9 on the a-file, pressed by b7, b8, b9; a10 is empty, so the defender
    // arriving on a6 brackets one end only: no capture
    let mut pos = setup("copenhagen", b, Defenders);
    assert_eq!(play(&mut pos, "a3-a6"), none());
    // with a defender on a10 the same move captures all three
    let mut pos = setup("copenhagen", &b.replace("10 . D", "10 D D"), Defenders);
    assert_eq!(play(&mut pos, "a3-a6"), names(&["a7", "a8", "a9"]));
}

#[test]
fn tavlei_king_as_hammer_captures_an_attacker_against_the_throne() {
    let mut pos = setup(
        "tavlei",
        "
        9 # . . . . . . . #
        8 . . . . . . . . .
        7 . K . . . . . . .
        6 . . . . A . . . .
        5 . . . . + . . . .
        4 . . . . . . . . .
        3 . . . . . . . . .
        2 . . . . . . . . .
        1 # . . . . . . . #
          a b c d e f g h i",
        Defenders,
    );
    assert_eq!(play(&mut pos, "b7-e7"), names(&["e6"]));
}

// ---------------------------------------------------------------- reconstruction: corners only

#[test]
fn reconstruction_throne_is_not_hostile_corners_are() {
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . A . . . . . . . . .
     7 . . . . . D . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . . . . . . . . .
     3 . . . . . . . . . K .
     2 . . . . . . . . . . .
     1 # D . . . A . . . . #
       a b c d e f g h i j k";
    let mut pos = setup("reconstruction", b, Attackers);
    assert_eq!(
        play(&mut pos, "b8-f8"),
        none(),
        "f7 D against the empty throne survives"
    );
    let mut pos = setup("reconstruction", b, Attackers);
    assert_eq!(
        play(&mut pos, "f1-c1"),
        names(&["b1"]),
        "b1 D against the corner a1 is taken"
    );
}
