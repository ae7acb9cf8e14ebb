//! Berserk Hnefatafl's special moves: the king, the knight and the commanders jump an adjacent
//! enemy; the knight captures what it jumps; berserk chains (after a capture the same piece goes on
//! capturing or stops). The commanders' capture of the king is in `rules_king.rs`.

mod common;

use common::*;
use tavlei_rules::Reason;

/// An empty Berserk board: corners a1, k1, a11, k11, the throne f6. Rows 1..4 are filled in by
/// each test with `berserk(rows)` (rank 4 first).
fn berserk(rank4: &str, rank3: &str, rank2: &str, rank1: &str) -> String {
    format!(
        "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . . . . . . .
     4 {rank4}
     3 {rank3}
     2 {rank2}
     1 {rank1}
       a b c d e f g h i j k"
    )
}

const EMPTY: &str = ". . . . . . . . . . .";
const EMPTY_1: &str = "# . . . . . . . . . #";

// ---------------------------------------------------------------- jumps

#[test]
fn king_jumps_an_adjacent_enemy_without_capturing_it() {
    let b = berserk(
        ". . . K A . . . . . .",
        EMPTY,
        ". . . . . . . . . A .",
        EMPTY_1,
    );
    let mut pos = setup("berserk", &b, Defenders);
    assert!(destinations(&pos, "d4").contains(&"f4".to_string()));
    assert_eq!(play(&mut pos, "d4^f4"), none());
    assert_eq!(
        (at(&pos, "d4"), at(&pos, "e4"), at(&pos, "f4")),
        ('.', 'A', 'K')
    );
}

#[test]
fn jumps_need_an_adjacent_enemy_and_an_empty_landing_square() {
    // d5 is a friend, c4 A has b4 A behind it; e4 is empty (nothing to jump)
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . D . . . . . . .
     4 . A A K . . . . . . .
     3 . . . . . . . . . . .
     2 . . . . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";
    let pos = setup("berserk", b, Defenders);
    assert!(!is_legal(&pos, "d4^d6"), "no jumping a friend");
    assert!(!is_legal(&pos, "d4^b4"), "no landing on a piece");
    assert!(!is_legal(&pos, "d4^f4"), "no jump over an empty square");
    assert!(
        !legal(&pos).iter().any(|m| m.contains('^')),
        "{:?}",
        legal(&pos)
    );
}

#[test]
fn knight_captures_the_piece_it_jumps() {
    let b = berserk(
        ". . . N A . . . . . .",
        EMPTY,
        ". . . . . . . . . . .",
        "# . . . . . . . . K #",
    );
    let b = b.replace("7 . . . . . . . . . . .", "7 . . . . . . . . A . .");
    let mut pos = setup("berserk", &b, Defenders);
    assert_eq!(play(&mut pos, "d4^f4"), names(&["e4"]));
    assert_eq!(at(&pos, "f4"), 'N');
}

#[test]
fn commander_jumps_a_defender_without_capturing_it() {
    let b = berserk(
        ". . . C D . . . . . .",
        EMPTY,
        ". . . . . . . . . . .",
        "# . . . . . . . . K #",
    );
    let mut pos = setup("berserk", &b, Attackers);
    assert_eq!(play(&mut pos, "d4^f4"), none());
    assert_eq!((at(&pos, "e4"), at(&pos, "f4")), ('D', 'C'));
}

#[test]
fn taflmen_do_not_jump() {
    let b = berserk(
        ". . . A D . . . . . .",
        EMPTY,
        ". . . . . . . . . . .",
        "# . . . . . . . . K #",
    );
    let pos = setup("berserk", &b, Attackers);
    assert!(illegal(&pos, "d4^f4").contains("may not jump"));
    // a plain rook move past the defender is blocked too
    assert!(illegal(&pos, "d4-f4").contains("blocked at e4"));
}

#[test]
fn the_landing_square_closes_sandwiches() {
    // the king jumps e4 and lands on f4: g4 A is caught between the king and h4 D; the jumped e4
    // stays
    let b = berserk(
        ". . . K A . A D . . .",
        EMPTY,
        ". . . . . . . . . A .",
        EMPTY_1,
    );
    let mut pos = setup("berserk", &b, Defenders);
    assert_eq!(play(&mut pos, "d4^f4"), names(&["g4"]));
    assert_eq!(at(&pos, "e4"), 'A');
}

#[test]
fn only_the_king_lands_on_the_throne_or_a_corner() {
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . . . + . . . . .
     5 . . . . . A . . . . .
     4 . . . . . X . . . . .
     3 . . . . . . . . . . .
     2 . . . . . . . . . . .
     1 # A Y . . . . . . . #
       a b c d e f g h i j k";
    let knights = b
        .replace(['X', 'Y'], "N")
        .replace("7 . . . . . . . . . . .", "7 . . . . . . . . . K .");
    let pos = setup("berserk", &knights, Defenders);
    assert!(
        !is_legal(&pos, "f4^f6"),
        "a knight may not land on the throne"
    );
    assert!(!is_legal(&pos, "c1^a1"), "nor on a corner");
    let king = b.replace('X', "K").replace('Y', ".");
    let pos = setup("berserk", &king, Defenders);
    assert!(is_legal(&pos, "f4^f6"));
    let mut pos = setup("berserk", &b.replace('X', ".").replace('Y', "K"), Defenders);
    play(&mut pos, "c1^a1");
    assert_eq!(pos.outcome(), win(Defenders, Reason::KingEscaped));
}

// ---------------------------------------------------------------- berserk chains

const CHAIN: &str = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . K . .
     8 . . . . . . . . . . .
     7 . . A . . . . . . . .
     6 . . D . . + . . . . .
     5 . . . . . . . . . . .
     4 . . . D A . . . . . .
     3 . . . . . . . . . . .
     2 . . A . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";

#[test]
fn after_a_capture_the_same_piece_must_capture_again_or_stop() {
    let mut pos = setup("berserk", CHAIN, Attackers);
    // c2-c4 takes d4; from c4 the attacker can take c6 by c4-c5
    assert_eq!(play(&mut pos, "c2-c4"), names(&["d4"]));
    assert_eq!(pos.side_to_move(), Attackers);
    assert_eq!(pos.berserk_piece(), Some(sq(&pos, "c4")));
    assert_eq!(legal(&pos), names(&["c4-c5", "stop"]));
    assert!(illegal(&pos, "e4-e5").contains("must go on capturing or `stop`"));
    assert!(illegal(&pos, "c4-b4").contains("must capture"));
    // the continuation captures, and with nothing left to take the turn passes
    assert_eq!(play(&mut pos, "c4-c5"), names(&["c6"]));
    assert_eq!(pos.side_to_move(), Defenders);
    assert_eq!(pos.berserk_piece(), None);
}

#[test]
fn stop_ends_the_chain_and_passes_the_turn() {
    let mut pos = setup("berserk", CHAIN, Attackers);
    play(&mut pos, "c2-c4");
    assert_eq!(play(&mut pos, "stop"), none());
    assert_eq!(pos.side_to_move(), Defenders);
    assert_eq!(pos.berserk_piece(), None);
    assert_eq!(at(&pos, "c6"), 'D');
    assert!(is_legal(&pos, "i9-i8"));
}

#[test]
fn no_chain_when_the_piece_cannot_capture_again() {
    let mut pos = setup("berserk", &CHAIN.replace("7 . . A", "7 . . ."), Attackers);
    assert_eq!(play(&mut pos, "c2-c4"), names(&["d4"]));
    assert_eq!(pos.side_to_move(), Defenders);
    assert_eq!(pos.berserk_piece(), None);
    assert!(!is_legal(&pos, "stop"));
}

#[test]
fn no_chains_outside_berserk() {
    let mut pos = setup("hnefatafl", CHAIN, Attackers);
    assert_eq!(play(&mut pos, "c2-c4"), names(&["d4"]));
    assert_eq!(pos.side_to_move(), Defenders);
    assert_eq!(pos.berserk_piece(), None);
}

#[test]
fn a_knight_chains_jump_captures() {
    // N d4 jumps e4 (capturing it) to f4, then g4 to h4
    let b = berserk(
        ". . . N A . A . . . .",
        EMPTY,
        ". . . . . . . . . . .",
        "# . . . . . . . . K #",
    );
    let b = b.replace("7 . . . . . . . . . . .", "7 . . . . . . . . A . .");
    let mut pos = setup("berserk", &b, Defenders);
    assert_eq!(play(&mut pos, "d4^f4"), names(&["e4"]));
    assert_eq!(pos.berserk_piece(), Some(sq(&pos, "f4")));
    assert!(legal(&pos).contains(&"f4^h4".to_string()));
    assert_eq!(play(&mut pos, "f4^h4"), names(&["g4"]));
    assert_eq!(pos.side_to_move(), Attackers);
}

#[test]
fn a_chain_may_go_on_to_capture_the_king() {
    // C h4-d4 takes d5 (against d6); then d4-d3 closes b3 C, K c3, d3 C
    let b = "
    11 # . . . . . . . . . #
    10 . . . . . . . . . . .
     9 . . . . . . . . . . .
     8 . . . . . . . . . . .
     7 . . . . . . . . . . .
     6 . . . A . + . . . . .
     5 . . . D . . . . . . .
     4 . . . . . . . C . . .
     3 . C K . . . . . . . .
     2 . . . . . . . . . . .
     1 # . . . . . . . . . #
       a b c d e f g h i j k";
    let mut pos = setup("berserk", b, Attackers);
    assert_eq!(play(&mut pos, "h4-d4"), names(&["d5"]));
    assert_eq!(
        pos.berserk_piece(),
        Some(sq(&pos, "d4")),
        "capturing the king is a capture"
    );
    assert!(legal(&pos).contains(&"d4-d3".to_string()));
    assert_eq!(play(&mut pos, "d4-d3"), names(&["c3"]));
    assert_eq!(pos.outcome(), win(Attackers, Reason::KingCaptured));
}
