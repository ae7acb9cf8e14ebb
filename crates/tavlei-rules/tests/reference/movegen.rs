//! Moves of one piece, walked square by square: rook slides limited by the special squares,
//! move-length caps and the distance die, and the jumps of kings, knights and commanders.

use tavlei_rules::rules::{Dice, ThronePass};
use tavlei_rules::{Move, PieceKind};

use super::geometry::{Coord, Geo, Grid, DIRS};

/// What a piece from `from` may do on the empty square `c`: (stop there, go past it).
fn access(geo: &Geo, c: Coord, from: Coord, is_king: bool) -> (bool, bool) {
    let movement = &geo.rules().movement;
    if geo.is_corner(c) {
        return (is_king, false);
    }
    if geo.is_throne(c) {
        let pass = match movement.throne_pass {
            ThronePass::All => true,
            ThronePass::King => is_king,
            ThronePass::Nobody => false,
        };
        return (is_king && movement.king_reenters_throne, pass);
    }
    match geo.camp(c) {
        // a piece may move inside the camp it stands in, and enter no other
        Some(camp) if Some(camp) != geo.camp(from) => (false, false),
        _ => (true, true),
    }
}

/// Every slide and jump of the piece on `from`, with the die `roll` (0 = none).
pub fn piece_moves(geo: &Geo, grid: &Grid, from: Coord, roll: u8) -> Vec<Move> {
    let movement = &geo.rules().movement;
    let piece = grid.at(from).expect("a piece");
    let is_king = piece.kind == PieceKind::King;
    let cap = if is_king {
        movement.king_max
    } else {
        movement.taflman_max
    };
    let mut limit = if cap == 0 { usize::MAX } else { cap as usize };
    if movement.dice == Dice::Distance && roll > 0 {
        limit = limit.min(roll as usize);
    }
    let mut out = Vec::new();
    for d in DIRS {
        let mut cur = from;
        for _ in 0..limit.min(geo.size) {
            let Some(c) = geo.step(cur, d) else { break };
            if grid.at(c).is_some() {
                break;
            }
            let (stop, go_on) = access(geo, c, from, is_king);
            if stop {
                out.push(Move::slide(geo.index(from), geo.index(c)));
            }
            if !go_on {
                break;
            }
            cur = c;
        }
        if movement.jumps && piece.kind != PieceKind::Taflman {
            let over = geo.step(from, d);
            let land = over.and_then(|o| geo.step(o, d));
            if let (Some(over), Some(land)) = (over, land) {
                let enemy = grid.at(over).is_some_and(|p| p.side != piece.side);
                if enemy && grid.at(land).is_none() && access(geo, land, from, is_king).0 {
                    out.push(Move::jump(geo.index(from), geo.index(land)));
                }
            }
        }
    }
    out
}
