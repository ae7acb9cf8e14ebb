//! Sides and pieces, and their one-byte encoding on the board.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Attackers,
    Defenders,
}

impl Side {
    pub fn opponent(self) -> Side {
        match self {
            Side::Attackers => Side::Defenders,
            Side::Defenders => Side::Attackers,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Side::Attackers => "attackers",
            Side::Defenders => "defenders",
        }
    }

    pub fn parse(text: &str) -> Option<Side> {
        match text {
            "attackers" | "a" | "black" => Some(Side::Attackers),
            "defenders" | "d" | "white" => Some(Side::Defenders),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum PieceKind {
    Taflman,
    King,
    Commander,
    Knight,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    pub side: Side,
    pub kind: PieceKind,
}

/// The board byte of an empty square; pieces are 1..=8.
pub const EMPTY: u8 = 0;
/// How many distinct board bytes there are (for Zobrist tables).
pub const CELL_CODES: usize = 9;

impl Piece {
    pub const fn new(side: Side, kind: PieceKind) -> Piece {
        Piece { side, kind }
    }

    pub const KING: Piece = Piece::new(Side::Defenders, PieceKind::King);

    #[inline]
    pub const fn code(self) -> u8 {
        let kind = match self.kind {
            PieceKind::Taflman => 1,
            PieceKind::King => 2,
            PieceKind::Commander => 3,
            PieceKind::Knight => 4,
        };
        match self.side {
            Side::Attackers => kind,
            Side::Defenders => kind + 4,
        }
    }

    #[inline]
    pub fn from_code(code: u8) -> Option<Piece> {
        let side = match code {
            1..=4 => Side::Attackers,
            5..=8 => Side::Defenders,
            _ => return None,
        };
        let kind = match (code - 1) % 4 {
            0 => PieceKind::Taflman,
            1 => PieceKind::King,
            2 => PieceKind::Commander,
            _ => PieceKind::Knight,
        };
        Some(Piece { side, kind })
    }

    /// OpenTafl letter: attackers lowercase, defenders uppercase.
    pub fn otn_char(self) -> char {
        let c = match self.kind {
            PieceKind::Taflman => 't',
            PieceKind::King => 'k',
            PieceKind::Commander => 'c',
            PieceKind::Knight => 'n',
        };
        match self.side {
            Side::Attackers => c,
            Side::Defenders => c.to_ascii_uppercase(),
        }
    }

    pub fn from_otn_char(c: char) -> Option<Piece> {
        let side = if c.is_ascii_lowercase() {
            Side::Attackers
        } else {
            Side::Defenders
        };
        let kind = match c.to_ascii_lowercase() {
            't' => PieceKind::Taflman,
            'k' => PieceKind::King,
            'c' => PieceKind::Commander,
            'n' => PieceKind::Knight,
            _ => return None,
        };
        Some(Piece { side, kind })
    }

    /// The letter of the ASCII layouts in RULES.md and the variant files.
    pub fn layout_char(self) -> char {
        match (self.side, self.kind) {
            (_, PieceKind::King) => 'K',
            (_, PieceKind::Commander) => 'C',
            (_, PieceKind::Knight) => 'N',
            (Side::Attackers, PieceKind::Taflman) => 'A',
            (Side::Defenders, PieceKind::Taflman) => 'D',
        }
    }

    pub fn from_layout_char(c: char) -> Option<Piece> {
        Some(match c {
            'A' => Piece::new(Side::Attackers, PieceKind::Taflman),
            'D' => Piece::new(Side::Defenders, PieceKind::Taflman),
            'K' => Piece::KING,
            'C' => Piece::new(Side::Attackers, PieceKind::Commander),
            'N' => Piece::new(Side::Defenders, PieceKind::Knight),
            _ => return None,
        })
    }
}

#[inline]
pub fn side_of(code: u8) -> Option<Side> {
    match code {
        1..=4 => Some(Side::Attackers),
        5..=8 => Some(Side::Defenders),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for code in 1..CELL_CODES as u8 {
            let piece = Piece::from_code(code).expect("valid code");
            assert_eq!(piece.code(), code);
            assert_eq!(Piece::from_otn_char(piece.otn_char()), Some(piece));
        }
        assert_eq!(Piece::from_code(EMPTY), None);
    }
}
