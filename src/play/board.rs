//! The board as a person at a terminal reads it: coordinates on all four sides, the special
//! squares marked, and the last move shown by brackets (`(.)` where it came from, `[A]` where it
//! went, `x` where it captured) so that the marks survive without colour. Colour (ANSI codes)
//! only adds to them, and only when the caller says the output is a terminal that wants it.

use super::game::Ply;
use crate::rules::square::Square;
use crate::rules::variant::{CAMP, CORNER, THRONE};
use crate::rules::{Piece, PieceKind, Position, Side};

/// What the last ply changed, to be marked on the board.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    pub from: Option<Square>,
    pub to: Option<Square>,
    /// Squares whose pieces the last ply captured (the king's too).
    pub captured: Vec<Square>,
}

impl Marks {
    /// What the last ply (if any) moved and took.
    pub fn of_last(ply: Option<&Ply>) -> Marks {
        match ply {
            Some(ply) if ply.mv.moves_a_piece() => Marks {
                from: Some(ply.mv.from()),
                to: Some(ply.mv.to()),
                captured: ply.captured.clone(),
            },
            Some(ply) => Marks {
                captured: ply.captured.clone(),
                ..Marks::default()
            },
            None => Marks::default(),
        }
    }
}

const RESET: &str = "\x1b[0m";
const ATTACKER: &str = "\x1b[1;31m";
const DEFENDER: &str = "\x1b[1;34m";
const KING: &str = "\x1b[1;35m";
const SPECIAL: &str = "\x1b[2m";
const MARK: &str = "\x1b[1;33m";
const CAPTURE: &str = "\x1b[1;31m";

fn paint(text: char, code: &str, colour: bool) -> String {
    if colour {
        format!("{code}{text}{RESET}")
    } else {
        text.to_string()
    }
}

/// The character of a square and its colour: a piece's layout letter (`A`, `D`, `K`, `C`, `N`),
/// or for an empty square `#` corner, `+` throne, `,` camp, `.` plain.
fn symbol(pos: &Position, sq: Square) -> (char, &'static str) {
    let flags = pos.variant().flags[sq as usize];
    match pos.piece_at(sq) {
        Some(piece) if piece.kind == PieceKind::King => (piece.layout_char(), KING),
        Some(piece) if piece.side == Side::Attackers => (piece.layout_char(), ATTACKER),
        Some(piece) => (piece.layout_char(), DEFENDER),
        None if flags & CORNER != 0 => ('#', SPECIAL),
        None if flags & THRONE != 0 => ('+', SPECIAL),
        None if flags & CAMP != 0 => (',', SPECIAL),
        None => ('.', ""),
    }
}

fn file_letters(size: usize) -> String {
    let mut out = String::from("   ");
    for file in 0..size {
        out += &format!(" {} ", (b'a' + file as u8) as char);
    }
    out.trim_end().to_string()
}

/// The board with coordinates and the last ply's marks, one rank a line, rank 1 at the bottom;
/// every square three characters wide.
pub fn draw_board(pos: &Position, marks: &Marks, colour: bool) -> String {
    let size = pos.variant().size;
    let letters = file_letters(size);
    let mut out = format!("{letters}\n");
    for rank in (0..size).rev() {
        out += &format!("{:>2} ", rank + 1);
        for file in 0..size {
            let sq = (rank * size + file) as Square;
            let (c, code) = symbol(pos, sq);
            let (open, close) = if marks.to == Some(sq) {
                ('[', ']')
            } else if marks.from == Some(sq) {
                ('(', ')')
            } else {
                (' ', ' ')
            };
            if marks.captured.contains(&sq) && pos.piece_at(sq).is_none() {
                out += &format!(" {} ", paint('x', CAPTURE, colour));
            } else {
                out += &paint(open, MARK, colour && open != ' ');
                out += &paint(c, code, colour && !code.is_empty());
                out += &paint(close, MARK, colour && close != ' ');
            }
        }
        out += &format!(" {}\n", rank + 1);
    }
    out += &letters;
    out.push('\n');
    out
}

/// One line naming the symbols this board uses: its pieces, its special squares, the marks.
pub fn legend(pos: &Position) -> String {
    let v = pos.variant();
    let mut parts = Vec::new();
    let pieces = [
        (Piece::new(Side::Attackers, PieceKind::Taflman), "attacker"),
        (
            Piece::new(Side::Attackers, PieceKind::Commander),
            "commander",
        ),
        (Piece::new(Side::Defenders, PieceKind::Taflman), "defender"),
        (Piece::new(Side::Defenders, PieceKind::Knight), "knight"),
        (Piece::KING, "king"),
    ];
    let on_board = |piece: Piece| {
        pos.cells()
            .iter()
            .any(|&c| Piece::from_code(c) == Some(piece))
    };
    for (piece, name) in pieces {
        if on_board(piece) || piece == Piece::KING {
            parts.push(format!("{} {name}", piece.layout_char()));
        }
    }
    for (flag, c, name) in [
        (CORNER, '#', "corner"),
        (THRONE, '+', "throne"),
        (CAMP, ',', "camp"),
    ] {
        if v.flags.iter().any(|&f| f & flag != 0) {
            parts.push(format!("{c} {name}"));
        }
    }
    parts.push("(.) from, [A] to, x captured".into());
    parts.join("  ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::notation::parse_otn;
    use crate::rules::square::parse_square;
    use crate::rules::Variant;

    fn sq(name: &str) -> Square {
        parse_square(name, 7).expect("a square")
    }

    #[test]
    fn brandubh_start_has_coordinates_on_all_sides_and_its_special_squares() {
        let pos = Position::start(&Variant::load("brandubh").expect("preset"));
        let board = draw_board(&pos, &Marks::default(), false);
        let lines: Vec<&str> = board.lines().collect();
        assert_eq!(lines.len(), 9);
        assert_eq!(lines[0], "    a  b  c  d  e  f  g");
        assert_eq!(lines[8], lines[0]);
        assert_eq!(lines[1], " 7  #  .  .  A  .  .  #  7");
        assert_eq!(lines[4], " 4  A  A  D  K  D  A  A  4");
        assert_eq!(lines[7], " 1  #  .  .  A  .  .  #  1");
        assert!(!board.contains('\x1b'), "no colour unless asked");
    }

    #[test]
    fn the_last_move_and_its_captures_are_marked() {
        let v = Variant::load("brandubh").expect("preset");
        // d6-d5 takes the defender on c5 between b5 and d5
        let mut pos = parse_otn(&v, "/7/7/7/3K3/1tT4/3t3/7/", Side::Attackers).expect("position");
        let mv = pos.parse_move("d6-d5").expect("legal").mv;
        let mut captured = Vec::new();
        pos.play_with(mv, &mut captured);
        assert_eq!(captured, [sq("c5")]);
        let marks = Marks {
            from: Some(sq("d6")),
            to: Some(sq("d5")),
            captured,
        };
        let board = draw_board(&pos, &marks, false);
        let lines: Vec<&str> = board.lines().collect();
        assert_eq!(lines[2], " 6  .  .  . (.) .  .  .  6");
        assert_eq!(lines[3], " 5  .  A  x [A] .  .  .  5");
        assert_eq!(lines[4], " 4  .  .  .  K  .  .  .  4");
        let coloured = draw_board(&pos, &marks, true);
        assert!(
            coloured.contains("\x1b[1;33m[\x1b[0m\x1b[1;31mA"),
            "{coloured:?}"
        );
        assert!(coloured.contains("\x1b[1;31mx\x1b[0m"), "{coloured:?}");
    }

    #[test]
    fn the_legend_names_only_what_the_board_has() {
        let pos = Position::start(&Variant::load("brandubh").expect("preset"));
        let text = legend(&pos);
        assert!(
            text.starts_with("A attacker  D defender  K king  # corner  + throne"),
            "{text}"
        );
        assert!(!text.contains("camp") && !text.contains("knight"), "{text}");
    }
}
