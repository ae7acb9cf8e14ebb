//! Why a move is illegal, in words: the reasons checked play gives, next to the move generator
//! whose rules they explain.

use super::movegen::Access;
use super::Position;
use crate::moves::{Move, MoveKind};
use crate::piece::{Piece, EMPTY};
use crate::rules::Dice;
use crate::square::{square_name, Square};
use crate::variant::{CAMP, CORNER, THRONE};

impl Position {
    /// Why `mv` is not a legal move here, in words (for a move that is not among `legal_moves`).
    pub fn why_illegal(&self, mv: Move) -> String {
        let v = &*self.variant;
        let name = |sq: Square| square_name(sq, v.size);
        if let Some(outcome) = self.status {
            return format!(
                "the game is over ({} won: {})",
                outcome.result_name(),
                outcome.reason.name()
            );
        }
        if self.needs_roll() {
            return "roll the die first".into();
        }
        if let Some(b) = self.berserk {
            if !mv.moves_a_piece() || mv.from() != b {
                return format!("the piece on {} must go on capturing or `stop`", name(b));
            }
            return format!("a berserk continuation from {} must capture", name(b));
        }
        if !mv.moves_a_piece() {
            return format!("`{}` is not available now", mv.name(v.size));
        }
        if v.rules.movement.dice == Dice::Parity && self.roll % 2 == 1 {
            return format!("the die shows {}: the only move is `pass`", self.roll);
        }
        let (from, to) = (mv.from(), mv.to());
        if from == to {
            return "a move must leave its square".into();
        }
        let Some(piece) = self.piece_at(from) else {
            return format!("no piece on {}", name(from));
        };
        if piece.side != self.side {
            return format!(
                "{} holds a piece of the {}, but the {} are to move",
                name(from),
                piece.side.name(),
                self.side.name()
            );
        }
        if self.cells[to as usize] != EMPTY {
            return format!("{} is occupied", name(to));
        }
        let (f1, r1, f2, r2) = (
            from as usize % v.size,
            from as usize / v.size,
            to as usize % v.size,
            to as usize / v.size,
        );
        if f1 != f2 && r1 != r2 {
            return format!(
                "{} and {} are not on one rank or file",
                name(from),
                name(to)
            );
        }
        if mv.kind() == MoveKind::Jump {
            return "no enemy piece to jump, or this piece may not jump".into();
        }
        let dir = if f2 > f1 {
            0
        } else if f2 < f1 {
            1
        } else if r2 > r1 {
            2
        } else {
            3
        };
        let distance = mv.distance(v.size);
        let limit = self.move_limit(self.cells[from as usize]);
        if distance > limit as usize {
            return format!("this piece may move at most {limit} squares now");
        }
        let is_king = piece == Piece::KING;
        let mut sq = from;
        while let Some(next) = v.neighbour(sq, dir) {
            sq = next;
            if self.cells[sq as usize] != EMPTY {
                return format!("the path is blocked at {}", name(sq));
            }
            let flags = v.flags[sq as usize];
            let access = if flags == 0 {
                Access::Open
            } else {
                self.access(is_king, from, sq)
            };
            let what = if flags & THRONE != 0 {
                "the throne"
            } else if flags & CORNER != 0 {
                "a corner"
            } else if flags & CAMP != 0 {
                "a camp"
            } else {
                "that square"
            };
            use Access::*;
            if sq == to {
                return match access {
                    Open | StopOnly => "it would repeat a position too often".into(),
                    _ => format!("this piece may not stop on {what} ({})", name(sq)),
                };
            }
            if matches!(access, Closed | StopOnly) {
                return format!("this piece may not pass through {what} ({})", name(sq));
            }
        }
        "not a legal move here".into()
    }
}
