//! Legal move generation. Pieces slide like rooks; the special squares (throne, corners, camps),
//! move-length limits, dice, jumps, berserk chains and the repetition ban shape the list.

use crate::moves::Move;
use crate::piece::{side_of, Piece, PieceKind, EMPTY};
use crate::position::Position;
use crate::rules::{Dice, Repetition, ThronePass};
use crate::square::Square;
use crate::variant::{CAMP, CORNER, THRONE};

/// What a moving piece may do on a square that is empty.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Access {
    /// Stop there and pass over it.
    Open,
    /// Pass over it, but not stop there.
    PassOnly,
    /// Stop there, but go no further.
    StopOnly,
    /// Neither.
    Closed,
}

impl Position {
    /// Fills `out` with every legal move (empty when the game is over or no move exists).
    pub fn legal_moves(&self, out: &mut Vec<Move>) {
        out.clear();
        if self.status.is_some() {
            return;
        }
        if let Some(piece) = self.berserk {
            self.piece_moves(piece, out);
            out.retain(|&mv| self.captures_with(mv));
            out.push(Move::STOP);
            return;
        }
        let rules = &self.variant.rules;
        if rules.movement.dice == Dice::Parity && self.roll % 2 == 1 {
            out.push(Move::PASS);
            return;
        }
        for sq in self.occupied(self.side).iter() {
            self.piece_moves(sq, out);
        }
        if rules.end.repetition == Repetition::Illegal {
            self.drop_repeating(out);
        }
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self) -> bool {
        let mut moves = Vec::with_capacity(64);
        self.legal_moves(&mut moves);
        !moves.is_empty()
    }

    /// The longest move the piece may make now (move limits and the die).
    pub(super) fn move_limit(&self, code: u8) -> u8 {
        let movement = &self.variant.rules.movement;
        let limit = if code == Piece::KING.code() {
            movement.king_max
        } else {
            movement.taflman_max
        };
        let mut limit = if limit == 0 { u8::MAX } else { limit };
        if movement.dice == Dice::Distance && self.roll > 0 {
            limit = limit.min(self.roll);
        }
        limit
    }

    /// Slides (and jumps) of the piece on `from`, appended to `out`.
    pub(super) fn piece_moves(&self, from: Square, out: &mut Vec<Move>) {
        let v = &*self.variant;
        let code = self.cells[from as usize];
        let is_king = code == Piece::KING.code();
        let limit = self.move_limit(code);
        let reach = v.reach[from as usize];
        for (&step, &room) in v.steps.iter().zip(reach.iter()) {
            let mut t = from as i32;
            for _ in 0..room.min(limit) {
                t += step;
                let to = t as Square;
                if self.cells[to as usize] != EMPTY {
                    break;
                }
                if v.flags[to as usize] == 0 {
                    out.push(Move::slide(from, to));
                    continue;
                }
                match self.access(is_king, from, to) {
                    Access::Open => out.push(Move::slide(from, to)),
                    Access::PassOnly => {}
                    Access::StopOnly => {
                        out.push(Move::slide(from, to));
                        break;
                    }
                    Access::Closed => break,
                }
            }
        }
        if v.rules.movement.jumps {
            self.jumps(from, code, out);
        }
    }

    fn jumps(&self, from: Square, code: u8, out: &mut Vec<Move>) {
        let v = &*self.variant;
        let Some(piece) = Piece::from_code(code) else {
            return;
        };
        if piece.kind == PieceKind::Taflman {
            return;
        }
        for dir in 0..4 {
            let Some(over) = v.neighbour(from, dir) else {
                continue;
            };
            if side_of(self.cells[over as usize]) != Some(piece.side.opponent()) {
                continue;
            }
            let Some(land) = v.neighbour(over, dir) else {
                continue;
            };
            if self.cells[land as usize] == EMPTY
                && matches!(
                    self.access(piece.kind == PieceKind::King, from, land),
                    Access::Open | Access::StopOnly
                )
            {
                out.push(Move::jump(from, land));
            }
        }
    }

    /// What a piece from `from` may do on the special square `to`.
    pub(super) fn access(&self, is_king: bool, from: Square, to: Square) -> Access {
        let v = &*self.variant;
        let flags = v.flags[to as usize];
        if flags & CORNER != 0 {
            return if is_king {
                Access::StopOnly
            } else {
                Access::Closed
            };
        }
        if flags & THRONE != 0 {
            let movement = &v.rules.movement;
            let pass = match movement.throne_pass {
                ThronePass::All => true,
                ThronePass::King => is_king,
                ThronePass::Nobody => false,
            };
            let stop = is_king && movement.king_reenters_throne;
            return match (stop, pass) {
                (true, true) => Access::Open,
                (true, false) => Access::StopOnly,
                (false, true) => Access::PassOnly,
                (false, false) => Access::Closed,
            };
        }
        if flags & CAMP != 0 && v.camp_of[to as usize] != v.camp_of[from as usize] {
            return Access::Closed;
        }
        Access::Open
    }

    /// Removes moves that would make a position occur `repetition_count` times, unless that
    /// would leave no move at all.
    fn drop_repeating(&self, moves: &mut Vec<Move>) {
        let v = &*self.variant;
        let limit = v.rules.end.repetition_count as usize;
        let z = &v.zobrist;
        let repeats = |mv: &Move| {
            if !mv.moves_a_piece() {
                return false;
            }
            let code = self.cells[mv.from() as usize] as usize;
            let after = self.hash
                ^ z.pieces[mv.from() as usize][code]
                ^ z.pieces[mv.to() as usize][code]
                ^ z.defenders_to_move;
            // a cheap look first; a capturing move never repeats, so confirm on a copy
            if self.history.iter().filter(|&&h| h == after).count() + 1 < limit {
                return false;
            }
            let mut copy = self.clone();
            copy.play_unchecked(*mv);
            copy.occurrences() >= limit
        };
        if moves.iter().any(repeats) {
            let kept: Vec<Move> = moves.iter().copied().filter(|mv| !repeats(mv)).collect();
            if !kept.is_empty() {
                *moves = kept;
            }
        }
    }
}
