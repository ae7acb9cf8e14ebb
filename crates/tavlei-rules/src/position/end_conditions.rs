//! The positional end conditions: encirclement and the edge fort.

use crate::bitboard::Bitboard;
use crate::piece::Side;
use crate::position::Position;
use crate::rules::{Hostility, ThronePass};

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

    /// Defenders' win: the king on an edge, able to move, inside a fort that no attacker can ever
    /// break. The fort is the king's empty region (where he can move) walled by defenders. Exact
    /// test, a fixed point: every defender outside the region stands at first; a standing piece
    /// falls when attackers could capture it with the others still standing (custodially, between
    /// two squares attackers can reach and stand on, or one such square and a square hostile to
    /// defenders; or in a shieldwall row along the edge, both ends reachable or a corner and each
    /// piece pressed from a reachable square inside); a fallen piece opens its square to the
    /// attackers. The fort holds when no wall piece ever falls. It assumes the attackers have
    /// pieces enough for every such capture, so a fort is never declared where one could fall.
    pub fn king_in_edge_fort(&self) -> bool {
        let v = &self.variant;
        let Some(king) = self.king else { return false };
        if !v.is_edge(king) {
            return false;
        }
        let grow = |b: Bitboard| b.neighbours(v.size, &v.not_west, &v.not_east) & v.board;
        let attackers = self.occupied(Side::Attackers);
        let empty = !(attackers | self.occupied(Side::Defenders)) & v.board;
        let mut region = Bitboard::from_squares([king]);
        loop {
            let grown = region | (grow(region) & empty);
            if grown == region {
                break;
            }
            region = grown;
        }
        let wall = grow(region) & !region;
        if region.count() < 2 || wall.intersects(&attackers) {
            return false;
        }
        let throne = Bitboard::from_squares(v.throne);
        // attackers stop on neither; they pass over the empty throne only where the rules allow
        let king_only = v.corners | throne;
        let passable = if v.rules.movement.throne_pass == ThronePass::All {
            v.board & !region & !v.corners
        } else {
            v.board & !region & !king_only
        };
        let mut hostile = Bitboard::EMPTY;
        if v.rules.capture.corners_hostile {
            hostile = hostile | v.corners;
        }
        if v.rules.capture.throne_hostile_to_defenders != Hostility::Never {
            hostile = hostile | throne;
        }
        let mut standing = self.occupied(Side::Defenders) & !region;
        loop {
            let open = passable & !standing;
            let mut reach = attackers;
            loop {
                let grown = reach | (grow(reach) & open);
                if grown == reach {
                    break;
                }
                reach = grown;
            }
            let stand = reach & !king_only;
            let fallen = self.falling(standing, stand, hostile);
            if fallen.is_empty() {
                return true;
            }
            if fallen.intersects(&wall) {
                return false;
            }
            standing = standing & !fallen;
        }
    }

    /// The standing defenders attackers could capture: `stand` holds the squares attackers can
    /// reach and stop on, `hostile` the squares that capture defenders against them.
    fn falling(&self, standing: Bitboard, stand: Bitboard, hostile: Bitboard) -> Bitboard {
        let v = &self.variant;
        let hammer = |n: Option<u16>| n.is_some_and(|s| stand.contains(s));
        let anvil = |n: Option<u16>| n.is_some_and(|s| stand.contains(s) || hostile.contains(s));
        let mut fallen = Bitboard::EMPTY;
        for sq in standing.iter() {
            let custodial = [0, 2].iter().any(|&d| {
                let (a, b) = (v.neighbour(sq, d), v.neighbour(sq, d ^ 1));
                (hammer(a) && anvil(b)) || (hammer(b) && anvil(a))
            });
            if custodial {
                fallen.set(sq);
            }
        }
        if !v.rules.capture.shieldwall {
            return fallen;
        }
        // shieldwall rows: standing pieces along an edge, each pressed from inside
        let closes = |n: Option<u16>| n.is_some_and(|s| stand.contains(s) || v.corners.contains(s));
        for sq in (standing & v.edge).iter() {
            for inward in (0..4).filter(|&d| v.neighbour(sq, d ^ 1).is_none()) {
                let along = if inward < 2 { 2 } else { 0 };
                let mut row = vec![sq];
                let mut ends = [None, None];
                for (k, dir) in [along, along ^ 1].into_iter().enumerate() {
                    let mut cur = v.neighbour(sq, dir);
                    while let Some(s) = cur.filter(|&s| standing.contains(s)) {
                        row.push(s);
                        cur = v.neighbour(s, dir);
                    }
                    ends[k] = cur;
                }
                let pressed = row.iter().all(|&s| hammer(v.neighbour(s, inward)));
                let closed =
                    (hammer(ends[0]) && closes(ends[1])) || (hammer(ends[1]) && closes(ends[0]));
                if row.len() >= 2 && pressed && closed {
                    for s in row {
                        fallen.set(s);
                    }
                }
            }
        }
        fallen
    }
}
