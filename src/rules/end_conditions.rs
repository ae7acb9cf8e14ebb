//! The positional end conditions: encirclement and the edge fort.

use super::bitboard::Bitboard;
use super::piece::{side_of, Side};
use super::position::Position;

impl Position {
    /// Attackers' win: no defender (king included) can reach the edge through squares free of
    /// attackers.
    pub fn defenders_encircled(&self) -> bool {
        let v = &self.variant;
        let defenders = self.occupied(Side::Defenders);
        if defenders.intersects(&v.edge) {
            return false;
        }
        let passable = !self.occupied(Side::Attackers) & v.board;
        let mut region = defenders;
        loop {
            let grown = (region | region.neighbours(v.size, &v.not_west, &v.not_east)) & passable;
            if grown.intersects(&v.edge) {
                return false;
            }
            if grown == region {
                return true;
            }
            region = grown;
        }
    }

    /// Defenders' win: the king on an edge, able to move, inside a fort of defenders that no
    /// attacker can ever break. The fort is the king's empty region (where he can move) walled by
    /// defenders, each of which has, on both lines through it, a neighbour that is off the board,
    /// inside the region or another wall piece: such a wall has no piece that can be captured
    /// first, so none can ever be captured. With shieldwalls, a wall piece on the edge must also
    /// be covered from inside.
    pub fn king_in_edge_fort(&self) -> bool {
        let v = &self.variant;
        let Some(king) = self.king else { return false };
        if !v.is_edge(king) {
            return false;
        }
        let empty = !(self.occupied(Side::Attackers) | self.occupied(Side::Defenders)) & v.board;
        let mut region = Bitboard::from_squares([king]);
        loop {
            let grown = region | (region.neighbours(v.size, &v.not_west, &v.not_east) & empty);
            if grown == region {
                break;
            }
            region = grown;
        }
        if region.count() < 2 {
            return false;
        }
        let wall = region.neighbours(v.size, &v.not_west, &v.not_east) & v.board & !region;
        if wall
            .iter()
            .any(|sq| side_of(self.cells[sq as usize]) != Some(Side::Defenders))
        {
            return false;
        }
        let safe = |n: Option<u16>| n.is_none_or(|s| region.contains(s) || wall.contains(s));
        wall.iter().all(|sq| {
            let lines_covered = safe(v.neighbour(sq, 0)) || safe(v.neighbour(sq, 1));
            let columns_covered = safe(v.neighbour(sq, 2)) || safe(v.neighbour(sq, 3));
            let edge_covered = !v.rules.capture.shieldwall
                || !v.is_edge(sq)
                || (0..4).all(|d| v.neighbour(sq, d ^ 1).is_some() || safe(v.neighbour(sq, d)));
            lines_covered && columns_covered && edge_covered
        })
    }
}
