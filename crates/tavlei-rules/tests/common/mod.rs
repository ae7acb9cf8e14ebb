//! Shared helpers for the rules tests: positions written as ASCII boards, moves played by name,
//! captures and legal moves reported as square names.
#![allow(dead_code, unused_imports)]

use std::sync::Arc;

use tavlei_rules::notation::ascii_board;
use tavlei_rules::presets::preset_text;
use tavlei_rules::square::{parse_square, square_name};
use tavlei_rules::{Outcome, Piece, Position, Reason, Side, Variant};

pub use tavlei_rules::Side::{Attackers, Defenders};

/// A preset variant by name.
pub fn variant(name: &str) -> Arc<Variant> {
    Variant::load(name).unwrap_or_else(|e| panic!("preset {name}: {e}"))
}

/// A preset with some lines of its file replaced (each `from` must occur in the file).
pub fn custom(preset: &str, edits: &[(&str, &str)]) -> Arc<Variant> {
    let mut text = preset_text(preset)
        .unwrap_or_else(|| panic!("no preset {preset}"))
        .to_string();
    for (from, to) in edits {
        assert!(text.contains(from), "preset {preset} has no `{from}`");
        text = text.replace(from, to);
    }
    Variant::from_toml(&text, &format!("custom {preset}"))
        .unwrap_or_else(|e| panic!("custom {preset}: {e}"))
}

/// A position from an ASCII board, top rank first. Squares may be separated by spaces; a
/// leading rank number and a trailing file-letter line are ignored. `A` attacker, `D`
/// defender, `K` king, `C` commander, `N` knight; `.`, `#` (corner), `+` (throne) and `,`
/// (camp) are empty squares.
pub fn board(variant: &Arc<Variant>, rows: &str, side: Side) -> Position {
    let size = variant.size;
    let rows: Vec<Vec<char>> = rows
        .lines()
        .map(|line| {
            line.trim()
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect::<Vec<char>>()
        })
        .filter(|row| !row.is_empty() && !row.iter().all(|c| c.is_ascii_lowercase()))
        .collect();
    assert_eq!(rows.len(), size, "the board needs {size} rows");
    let mut cells = vec![0u8; variant.squares];
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(
            row.len(),
            size,
            "row {} has {} squares, expected {size}",
            i + 1,
            row.len()
        );
        let rank = size - 1 - i;
        for (file, &c) in row.iter().enumerate() {
            cells[rank * size + file] = match c {
                '.' | '#' | '+' | ',' => 0,
                _ => Piece::from_layout_char(c)
                    .unwrap_or_else(|| panic!("unknown board char `{c}`"))
                    .code(),
            };
        }
    }
    Position::from_cells(variant, &cells, side).unwrap_or_else(|e| panic!("bad test board: {e}"))
}

/// A preset variant and a position on it in one call.
pub fn setup(name: &str, rows: &str, side: Side) -> Position {
    board(&variant(name), rows, side)
}

pub fn sq(pos: &Position, name: &str) -> u16 {
    parse_square(name, pos.variant().size).unwrap_or_else(|| panic!("`{name}` is not a square"))
}

/// The letter of the piece on a square (`.` when empty).
pub fn at(pos: &Position, name: &str) -> char {
    pos.piece_at(sq(pos, name)).map_or('.', |p| p.layout_char())
}

/// Plays a move that must be legal; returns the captured squares, sorted, by name.
pub fn play(pos: &mut Position, mv: &str) -> Vec<String> {
    let captured = pos
        .play(mv)
        .unwrap_or_else(|e| panic!("`{mv}` should be legal: {e}\n{}", ascii_board(pos)));
    let mut names: Vec<String> = captured
        .iter()
        .map(|&s| square_name(s, pos.variant().size))
        .collect();
    names.sort();
    names
}

/// Plays a sequence of legal moves, ignoring captures.
pub fn play_all(pos: &mut Position, moves: &[&str]) {
    for mv in moves {
        play(pos, mv);
    }
}

/// Asserts a move is illegal; returns the engine's reason.
pub fn illegal(pos: &Position, mv: &str) -> String {
    match pos.parse_move(mv) {
        Ok(_) => panic!("`{mv}` should be illegal here:\n{}", ascii_board(pos)),
        Err(e) => e.to_string(),
    }
}

/// Whether a move is legal here.
pub fn is_legal(pos: &Position, mv: &str) -> bool {
    pos.parse_move(mv).is_ok()
}

/// Every legal move by name, sorted.
pub fn legal(pos: &Position) -> Vec<String> {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let mut names: Vec<String> = moves.iter().map(|m| m.name(pos.variant().size)).collect();
    names.sort();
    names
}

/// The legal moves of the piece on `from`, as destination squares, sorted.
pub fn destinations(pos: &Position, from: &str) -> Vec<String> {
    let prefix = format!("{from}-");
    let jump = format!("{from}^");
    let mut out: Vec<String> = legal(pos)
        .into_iter()
        .filter_map(|m| {
            m.strip_prefix(&prefix)
                .or_else(|| m.strip_prefix(&jump))
                .map(str::to_string)
        })
        .collect();
    out.sort();
    out
}

pub fn win(side: Side, reason: Reason) -> Option<Outcome> {
    Some(Outcome::win(side, reason))
}

pub fn draw(reason: Reason) -> Option<Outcome> {
    Some(Outcome::draw(reason))
}

/// Names as owned strings, for comparing with `play`'s result.
pub fn names(list: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// No squares: `play` captured nothing.
pub fn none() -> Vec<String> {
    Vec::new()
}
