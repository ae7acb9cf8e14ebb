//! Captures made by a move: custodial captures of taflmen, the king's capture in all its modes,
//! and shieldwalls. Only the moved piece is a hammer, so a piece moving between two enemies is safe.

use crate::outcome::{Outcome, Reason};
use crate::piece::{side_of, Piece, PieceKind, Side, EMPTY};
use crate::position::{CaptureSink, Position};
use crate::rules::{Hostility, KingCapture};
use crate::square::Square;
use crate::variant::{CAMP, CORNER, THRONE};

impl Position {
    /// Removes every piece the piece now on `to` captures; returns how many.
    pub(super) fn capture_from<S: CaptureSink>(
        &mut self,
        to: Square,
        mover: Piece,
        sink: &mut S,
    ) -> u32 {
        let v = self.variant.clone();
        let armed = v.rules.king.armed;
        let is_king = mover.kind == PieceKind::King;
        let mut count = 0;
        for dir in 0..4 {
            let Some(victim) = v.neighbour(to, dir) else {
                continue;
            };
            let code = self.cells[victim as usize];
            if side_of(code) != Some(mover.side.opponent()) {
                continue;
            }
            if code == Piece::KING.code() {
                if self.king_captured(victim, dir, mover) {
                    self.remove(victim);
                    self.king = None;
                    sink.captured(victim);
                    self.status = Some(Outcome::win(Side::Attackers, Reason::KingCaptured));
                }
                continue;
            }
            if is_king && !armed.hammer() {
                continue;
            }
            let Some(anvil) = v.neighbour(victim, dir) else {
                continue;
            };
            if self.is_anvil(anvil, mover.side) {
                self.remove(victim);
                sink.captured(victim);
                count += 1;
            }
        }
        if mover.side == Side::Attackers && v.rules.king.pair_capture && self.status.is_none() {
            if let Some(pair) = self.captured_pair(to) {
                for sq in pair {
                    self.remove(sq);
                    sink.captured(sq);
                }
                self.king = None;
                count += 1;
                self.status = Some(Outcome::win(Side::Attackers, Reason::KingCaptured));
            }
        }
        if v.rules.capture.shieldwall && v.is_edge(to) {
            count += self.capture_shieldwalls(to, mover, sink);
        }
        count
    }

    /// Whether `sq` closes a sandwich against a taflman of `captor`'s opponent.
    fn is_anvil(&self, sq: Square, captor: Side) -> bool {
        let v = &self.variant;
        let code = self.cells[sq as usize];
        let flags = v.flags[sq as usize];
        if flags & THRONE != 0 {
            let hostility = match captor {
                Side::Defenders => v.rules.capture.throne_hostile_to_attackers,
                Side::Attackers => v.rules.capture.throne_hostile_to_defenders,
            };
            match hostility {
                Hostility::Always => return true,
                Hostility::WhenEmpty if code == EMPTY => return true,
                _ => {}
            }
        }
        if flags & CORNER != 0 && v.rules.capture.corners_hostile {
            return true;
        }
        self.is_anvil_piece(sq, captor)
    }

    /// A piece of `side` on `sq` that may close a capture it did not move into (an unarmed or
    /// hammer-only king may not).
    fn is_anvil_piece(&self, sq: Square, side: Side) -> bool {
        let code = self.cells[sq as usize];
        side_of(code) == Some(side)
            && (code != Piece::KING.code() || self.variant.rules.king.armed.anvil())
    }

    /// Whether a square (or the edge, `None`) counts as an attacker around the king.
    fn hostile_to_king(&self, sq: Option<Square>) -> bool {
        let v = &self.variant;
        let king = &v.rules.king;
        let Some(sq) = sq else {
            return king.hostile_edge;
        };
        let code = self.cells[sq as usize];
        if side_of(code) == Some(Side::Attackers) {
            return true;
        }
        let flags = v.flags[sq as usize];
        code == EMPTY
            && ((flags & THRONE != 0 && king.hostile_throne)
                || (flags & CORNER != 0 && king.hostile_corners)
                || (flags & CAMP != 0 && king.hostile_camps))
    }

    fn attackers_around(&self, sq: Square, skip: Option<Square>) -> bool {
        (0..4).all(|d| match self.variant.neighbour(sq, d) {
            Some(n) if Some(n) == skip => true,
            Some(n) => side_of(self.cells[n as usize]) == Some(Side::Attackers),
            None => false,
        })
    }

    /// Whether the attacker that just moved next to the king, in direction `dir` from it
    /// reversed, captures him.
    fn king_captured(&self, king: Square, dir: usize, mover: Piece) -> bool {
        let v = &self.variant;
        let rules = &v.rules.king;
        let throne = v.throne;
        let next_to_throne =
            throne.is_some_and(|t| (0..4).any(|d| v.neighbour(king, d) == Some(t)));
        let beyond = v.neighbour(king, dir);
        if rules.commanders_capture
            && mover.kind == PieceKind::Commander
            && Some(king) != throne
            && !next_to_throne
        {
            if let Some(b) = beyond {
                let code = self.cells[b as usize];
                if code == Piece::new(Side::Attackers, PieceKind::Commander).code()
                    || v.flags[b as usize] & CORNER != 0
                {
                    return true;
                }
            }
        }
        match rules.capture {
            KingCapture::Custodial => self.hostile_to_king(beyond),
            KingCapture::ThroneSensitive => {
                if Some(king) == throne {
                    self.attackers_around(king, None)
                } else if next_to_throne {
                    self.attackers_around(king, throne)
                } else {
                    self.hostile_to_king(beyond)
                }
            }
            KingCapture::Enclosed => (0..4).all(|d| self.hostile_to_king(v.neighbour(king, d))),
        }
    }

    /// Reconstruction rule: the king and one adjacent defender, both enclosed on every outer
    /// side by attackers or king-hostile squares, with the moved attacker among them.
    fn captured_pair(&self, hammer: Square) -> Option<[Square; 2]> {
        let v = &self.variant;
        let king = self.king?;
        for d in 0..4 {
            let Some(mate) = v.neighbour(king, d) else {
                continue;
            };
            if side_of(self.cells[mate as usize]) != Some(Side::Defenders) {
                continue;
            }
            let outer = |sq: Square, other: Square| {
                (0..4).filter_map(move |dd| {
                    let n = v.neighbour(sq, dd);
                    (n != Some(other)).then_some(n)
                })
            };
            let mut touches_hammer = false;
            let enclosed = outer(king, mate).chain(outer(mate, king)).all(|n| {
                touches_hammer |= n == Some(hammer);
                self.hostile_to_king(n)
            });
            if enclosed && touches_hammer {
                return Some([king, mate]);
            }
        }
        None
    }

    /// Shieldwalls closed by the piece that moved to the edge square `to`.
    fn capture_shieldwalls<S: CaptureSink>(
        &mut self,
        to: Square,
        mover: Piece,
        sink: &mut S,
    ) -> u32 {
        let v = self.variant.clone();
        if mover.kind == PieceKind::King && !v.rules.king.armed.hammer() {
            return 0;
        }
        let inward = match (0..4).find(|&d| v.neighbour(to, d ^ 1).is_none()) {
            Some(d) => d,
            None => return 0,
        };
        let enemy = mover.side.opponent();
        let mut total = 0;
        // the two directions along the edge are the other axis
        for dir in if inward < 2 { [2, 3] } else { [0, 1] } {
            let mut row: Vec<Square> = Vec::new();
            let mut cur = v.neighbour(to, dir);
            while let Some(sq) = cur {
                if side_of(self.cells[sq as usize]) != Some(enemy) {
                    break;
                }
                row.push(sq);
                cur = v.neighbour(sq, dir);
            }
            let Some(end) = cur else { continue };
            let closed =
                v.flags[end as usize] & CORNER != 0 || self.is_anvil_piece(end, mover.side);
            if row.len() < 2 || !closed {
                continue;
            }
            let pressed = row.iter().all(|&sq| {
                v.neighbour(sq, inward)
                    .is_some_and(|inner| self.is_anvil_piece(inner, mover.side))
            });
            if !pressed {
                continue;
            }
            for sq in row {
                if self.cells[sq as usize] != Piece::KING.code() {
                    self.remove(sq);
                    sink.captured(sq);
                    total += 1;
                }
            }
        }
        total
    }

    /// Whether the piece on `sq` has a move that captures (continuing a berserk chain).
    pub(super) fn can_capture_from(&self, sq: Square) -> bool {
        let mut moves = Vec::new();
        self.piece_moves(sq, &mut moves);
        moves.into_iter().any(|mv| self.captures_with(mv))
    }

    /// Whether `mv` would capture anything, the king included (played on a copy).
    pub(super) fn captures_with(&self, mv: crate::moves::Move) -> bool {
        let mut copy = self.clone();
        copy.berserk = None;
        let code = copy.remove(mv.from());
        copy.put(mv.to(), code);
        let piece = Piece::from_code(code).expect("moves start on a piece");
        let mut n = copy.capture_from(mv.to(), piece, &mut ());
        if mv.kind() == crate::moves::MoveKind::Jump && piece.kind == PieceKind::Knight {
            n += 1;
        }
        // `capture_from` counts taflmen only; taking the king ends the game and is a capture too
        n > 0 || copy.king.is_none()
    }
}
