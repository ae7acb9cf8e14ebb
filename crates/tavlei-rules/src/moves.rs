//! A move packed in 32 bits: from, to and kind.

use super::square::{square_name, Square};
use super::symmetry::Symmetry;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Move(u32);

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum MoveKind {
    /// A rook move along a rank or file.
    Slide,
    /// A jump over one adjacent enemy (Berserk: king, knight, commander).
    Jump,
    /// Ends a berserk chain: the turn passes to the opponent.
    Stop,
    /// An odd parity die roll: the side to move passes.
    Pass,
}

impl Move {
    #[inline]
    pub fn slide(from: Square, to: Square) -> Move {
        Move(from as u32 | (to as u32) << 9)
    }

    #[inline]
    pub fn jump(from: Square, to: Square) -> Move {
        Move(from as u32 | (to as u32) << 9 | 1 << 18)
    }

    pub const STOP: Move = Move(2 << 18);
    pub const PASS: Move = Move(3 << 18);

    #[inline]
    pub fn from(self) -> Square {
        (self.0 & 0x1ff) as Square
    }

    #[inline]
    pub fn to(self) -> Square {
        (self.0 >> 9 & 0x1ff) as Square
    }

    #[inline]
    pub fn kind(self) -> MoveKind {
        match self.0 >> 18 {
            0 => MoveKind::Slide,
            1 => MoveKind::Jump,
            2 => MoveKind::Stop,
            _ => MoveKind::Pass,
        }
    }

    /// Whether the move changes the board (stop and pass do not).
    pub fn moves_a_piece(self) -> bool {
        matches!(self.kind(), MoveKind::Slide | MoveKind::Jump)
    }

    /// Squares travelled, for slides and jumps.
    pub fn distance(self, size: usize) -> usize {
        let (f1, r1) = (self.from() as usize % size, self.from() as usize / size);
        let (f2, r2) = (self.to() as usize % size, self.to() as usize / size);
        f1.abs_diff(f2) + r1.abs_diff(r2)
    }

    pub fn transformed(self, sym: Symmetry, size: usize) -> Move {
        match self.kind() {
            MoveKind::Slide => {
                Move::slide(sym.apply(self.from(), size), sym.apply(self.to(), size))
            }
            MoveKind::Jump => Move::jump(sym.apply(self.from(), size), sym.apply(self.to(), size)),
            _ => self,
        }
    }

    /// The move in notation without captures: `e5-e8`, `e5^e7`, `stop`, `pass`.
    pub fn name(self, size: usize) -> String {
        match self.kind() {
            MoveKind::Slide => format!(
                "{}-{}",
                square_name(self.from(), size),
                square_name(self.to(), size)
            ),
            MoveKind::Jump => format!(
                "{}^{}",
                square_name(self.from(), size),
                square_name(self.to(), size)
            ),
            MoveKind::Stop => "stop".into(),
            MoveKind::Pass => "pass".into(),
        }
    }

    /// Raw bits, for compact storage.
    pub fn bits(self) -> u32 {
        self.0
    }

    pub fn from_bits(bits: u32) -> Move {
        Move(bits)
    }
}
