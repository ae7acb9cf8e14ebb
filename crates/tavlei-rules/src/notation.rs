//! OpenTafl notation (OTN): positions (`/3t3/.../`, rank 1 first, attackers lowercase), moves
//! (`e5-e8`, `e5-e8xe9/f8`, `e5-e8xe9xf8`, jumps `e5^e7`) and an ASCII board. Game records and
//! OpenTafl rules strings are file formats, written above the rules (tavlei's `interop`).

use std::sync::Arc;

use super::error::RulesError;
use super::moves::{Move, MoveKind};
use super::piece::{Piece, Side, EMPTY};
use super::position::Position;
use super::square::{parse_square, square_name, Square};
use super::variant::{Variant, CAMP, CORNER, THRONE};

/// The board as an OTN position record.
pub fn position_to_otn(pos: &Position) -> String {
    cells_to_otn(pos.cells(), pos.variant().size)
}

pub fn cells_to_otn(cells: &[u8], size: usize) -> String {
    let mut out = String::from("/");
    for rank in 0..size {
        let mut empty = 0;
        for file in 0..size {
            match Piece::from_code(cells[rank * size + file]) {
                None => empty += 1,
                Some(piece) => {
                    if empty > 0 {
                        out += &empty.to_string();
                        empty = 0;
                    }
                    out.push(piece.otn_char());
                }
            }
        }
        if empty > 0 {
            out += &empty.to_string();
        }
        out.push('/');
    }
    out
}

/// Parses an OTN position record for this variant, with the given side to move.
pub fn parse_otn(variant: &Arc<Variant>, text: &str, side: Side) -> Result<Position, RulesError> {
    let cells = parse_otn_cells(text, variant.size)?;
    Position::from_cells(variant, &cells, side).map_err(|e| RulesError::Position {
        input: text.to_string(),
        index: 0,
        reason: e.to_string(),
    })
}

/// The squares of an OTN position record on a `size` x `size` board, a1 first, as cell codes;
/// no check beyond the record's shape and its piece letters.
pub fn parse_otn_cells(text: &str, size: usize) -> Result<Vec<u8>, RulesError> {
    let err = |index: usize, reason: String| RulesError::Position {
        input: text.to_string(),
        index,
        reason,
    };
    let trimmed = text.trim();
    if !trimmed.starts_with('/') || !trimmed.ends_with('/') || trimmed.len() < 2 {
        return Err(err(0, "a position record starts and ends with `/`".into()));
    }
    let mut cells = vec![EMPTY; size * size];
    let (mut rank, mut file) = (0usize, 0usize);
    let bytes = trimmed.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        let c = bytes[i] as char;
        if c == '/' {
            if file != size {
                return Err(err(
                    i,
                    format!("rank {} has {file} squares, expected {size}", rank + 1),
                ));
            }
            rank += 1;
            file = 0;
            i += 1;
            continue;
        }
        if rank >= size {
            return Err(err(i, format!("more than {size} ranks")));
        }
        if c.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let n: usize = trimmed[start..i]
                .parse()
                .map_err(|_| err(start, "bad count".into()))?;
            if n == 0 || file + n > size {
                return Err(err(
                    start,
                    format!(
                        "{n} empty squares do not fit rank {} ({size} wide)",
                        rank + 1
                    ),
                ));
            }
            file += n;
            continue;
        }
        let piece = Piece::from_otn_char(c).ok_or_else(|| {
            err(
                i,
                format!("`{c}` is not a piece (t k c n; attackers lowercase)"),
            )
        })?;
        if file >= size {
            return Err(err(
                i,
                format!("rank {} is longer than {size} squares", rank + 1),
            ));
        }
        cells[rank * size + file] = piece.code();
        file += 1;
        i += 1;
    }
    if rank != size {
        return Err(err(trimmed.len(), format!("{rank} ranks, expected {size}")));
    }
    Ok(cells)
}

/// A move as written: squares and the captures it claims.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveText {
    pub mv: Move,
    /// Capture markers (`xe9`), deduplicated, in the order written.
    pub captures: Vec<Square>,
}

/// Parses `e5-e8`, `e5-e8xe9/f8`, `e5-e8xe9xf8`, `e5^e7`, `stop`, `pass`.
pub fn parse_move_text(text: &str, size: usize) -> Result<MoveText, RulesError> {
    let err = |reason: String| RulesError::MoveSyntax {
        input: text.to_string(),
        reason,
    };
    let t = text.trim();
    match t {
        "stop" => {
            return Ok(MoveText {
                mv: Move::STOP,
                captures: vec![],
            })
        }
        "pass" => {
            return Ok(MoveText {
                mv: Move::PASS,
                captures: vec![],
            })
        }
        _ => {}
    }
    // an OTN move may carry a leading piece letter (`te5-e8`); drop it
    let body = t
        .strip_prefix(|c: char| "tkcnmgTKCNMG".contains(c))
        .filter(|rest| rest.starts_with(|c: char| c.is_ascii_lowercase()))
        .unwrap_or(t);
    let (main, capture_part) = match body.find('x') {
        Some(i) => (&body[..i], Some(&body[i..])),
        None => (body, None),
    };
    let (sep, jump) = if main.contains('^') {
        ('^', true)
    } else {
        ('-', false)
    };
    let (from_text, to_text) = main
        .split_once(sep)
        .ok_or_else(|| err("expected `from-to`, e.g. `e5-e8`".into()))?;
    let square = |s: &str| {
        parse_square(s, size)
            .ok_or_else(|| err(format!("`{s}` is not a square of a {size}×{size} board")))
    };
    let from = square(from_text)?;
    let to = square(to_text.trim_end_matches(|c: char| "+#!?".contains(c)))?;
    let mut captures = Vec::new();
    if let Some(part) = capture_part {
        for name in part.split(['x', '/']).filter(|s| !s.is_empty()) {
            let sq = square(name.trim_end_matches(|c: char| "+#!?".contains(c)))?;
            if !captures.contains(&sq) {
                captures.push(sq);
            }
        }
    }
    let mv = if jump {
        Move::jump(from, to)
    } else {
        Move::slide(from, to)
    };
    Ok(MoveText { mv, captures })
}

/// A recorded move's die roll and the move: `3:e5-e7` is `(Some(3), "e5-e7")`; a token without a
/// roll 1 to 6 in front is returned whole.
pub fn split_roll(token: &str) -> (Option<u8>, &str) {
    match token.split_once(':') {
        Some((r, m)) if matches!(r, "1" | "2" | "3" | "4" | "5" | "6") => (r.parse().ok(), m),
        _ => (None, token),
    }
}

/// A move with its captures in OTN: `e5-e8xe9/f8`.
pub fn move_with_captures(mv: Move, captures: &[Square], size: usize) -> String {
    let mut text = mv.name(size);
    for (i, &sq) in captures.iter().enumerate() {
        text.push(if i == 0 { 'x' } else { '/' });
        text += &square_name(sq, size);
    }
    text
}

impl Position {
    /// Parses a move and checks it is legal here; the error says why not.
    pub fn parse_move(&self, text: &str) -> Result<MoveText, RulesError> {
        let parsed = parse_move_text(text, self.variant().size)?;
        let mut legal = Vec::new();
        self.legal_moves(&mut legal);
        if legal.contains(&parsed.mv) {
            return Ok(parsed);
        }
        // a plain slide written where the engine knows it as a jump, or the reverse
        if parsed.mv.moves_a_piece() {
            let jump = Move::jump(parsed.mv.from(), parsed.mv.to());
            if parsed.mv.kind() == MoveKind::Slide && legal.contains(&jump) {
                return Ok(MoveText { mv: jump, ..parsed });
            }
        }
        Err(RulesError::IllegalMove {
            input: text.to_string(),
            reason: self.why_illegal(parsed.mv),
        })
    }

    /// Plays a move given in notation after checking it; returns the captured squares.
    pub fn play(&mut self, text: &str) -> Result<Vec<Square>, RulesError> {
        let parsed = self.parse_move(text)?;
        let mut captured = Vec::new();
        self.play_with(parsed.mv, &mut captured);
        Ok(captured)
    }

    /// Plays a legal move and returns it as a record writes it: with its captures (the king's
    /// capture shows in the outcome instead), and the die roll in front (`3:e5-e7`) where one
    /// was rolled.
    pub fn play_recorded(&mut self, mv: Move) -> String {
        let roll = self.roll();
        let king_before = self.king();
        let mut captured = Vec::new();
        self.play_with(mv, &mut captured);
        if self.king().is_none() {
            captured.retain(|&sq| Some(sq) != king_before);
        }
        let text = move_with_captures(mv, &captured, self.variant().size);
        if roll > 0 {
            format!("{roll}:{text}")
        } else {
            text
        }
    }
}

/// An ASCII board with coordinates: pieces as in the variant files, `#` empty corners,
/// `+` the empty throne, `,` empty camp squares.
pub fn ascii_board(pos: &Position) -> String {
    let v = pos.variant();
    let size = v.size;
    let mut out = String::new();
    for rank in (0..size).rev() {
        out += &format!("{:>2} ", rank + 1);
        for file in 0..size {
            let sq = rank * size + file;
            let c = match Piece::from_code(pos.cells()[sq]) {
                Some(piece) => piece.layout_char(),
                None if v.flags[sq] & CORNER != 0 => '#',
                None if v.flags[sq] & THRONE != 0 => '+',
                None if v.flags[sq] & CAMP != 0 => ',',
                None => '.',
            };
            out.push(c);
            if file + 1 < size {
                out.push(' ');
            }
        }
        out.push('\n');
    }
    out += "   ";
    let files: Vec<String> = (0..size)
        .map(|f| ((b'a' + f as u8) as char).to_string())
        .collect();
    out += &files.join(" ");
    out.push('\n');
    out
}

/// The side to move in notation (`attackers`/`defenders`).
pub fn parse_side(text: &str) -> Result<Side, RulesError> {
    Side::parse(text).ok_or_else(|| RulesError::Side(text.to_string()))
}

impl std::str::FromStr for Side {
    type Err = RulesError;

    fn from_str(text: &str) -> Result<Side, RulesError> {
        parse_side(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brandubh_start_prints_as_published() {
        let v = Variant::load("brandubh").expect("preset");
        assert_eq!(
            position_to_otn(&Position::start(&v)),
            "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"
        );
    }

    #[test]
    fn copenhagen_start_prints_as_published() {
        let v = Variant::load("copenhagen").expect("preset");
        assert_eq!(
            position_to_otn(&Position::start(&v)),
            "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"
        );
    }

    #[test]
    fn moves_parse_with_both_capture_styles() {
        let a = parse_move_text("e5-e8xe9/f8", 11).expect("parses");
        let b = parse_move_text("e5-e8xe9xf8", 11).expect("parses");
        assert_eq!(a, b);
        assert_eq!(a.captures.len(), 2);
        let j = parse_move_text("e5^e7", 11).expect("parses");
        assert_eq!(j.mv.kind(), MoveKind::Jump);
        assert!(parse_move_text("e5-z8", 11).is_err());
        assert!(parse_move_text("e5e8", 11).is_err());
    }

    #[test]
    fn otn_errors_name_the_character() {
        let v = Variant::load("brandubh").expect("preset");
        let e = parse_otn(&v, "/3t3/3t3/3T3/ttTKTtq/3T3/3t3/3t3/", Side::Attackers).unwrap_err();
        assert!(e.to_string().contains("`q`"), "{e}");
        let e = parse_otn(&v, "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/", Side::Attackers).unwrap_err();
        assert!(e.to_string().contains("6 ranks"), "{e}");
        let e = parse_otn(&v, "/3t4/3t3/3T3/ttTKTtt/3T3/3t3/3t3/", Side::Attackers).unwrap_err();
        assert!(e.to_string().contains("do not fit"), "{e}");
        // a lowercase `k` would be an attackers' king, which no variant has
        let e = parse_otn(&v, "/3t3/3t3/3T3/ttTkTtt/3T3/3t3/3t3/", Side::Attackers).unwrap_err();
        assert!(e.to_string().contains("attackers' king on d4"), "{e}");
    }
}
