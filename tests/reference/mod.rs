//! A slow, independent move generator for checking the engine's. It reads the rule parameters
//! directly (squares by name, corners and camps recomputed) and walks the board square by square,
//! sharing nothing with `src/rules/movegen.rs`.

use tavlei::rules::rules::{Dice, Repetition, ThronePass};
use tavlei::rules::square::square_name;
use tavlei::rules::{Move, PieceKind, Position};

fn is_corner(file: usize, rank: usize, size: usize, corners: u8) -> bool {
    let near = |x: usize| match corners {
        1 => x == 0 || x == size - 1,
        2 => x <= 1 || x >= size - 2,
        _ => false,
    };
    near(file) && near(rank)
}

fn camp_of(name: &str, camps: &[Vec<String>]) -> Option<usize> {
    camps.iter().position(|camp| camp.iter().any(|s| s == name))
}

/// Every legal move, sorted by its bits.
pub fn reference_moves(pos: &Position) -> Vec<Move> {
    let mut moves = Vec::new();
    if pos.status().is_some() {
        return moves;
    }
    let variant = pos.variant().clone();
    let rules = &variant.rules;
    let size = variant.size;
    if let Some(from) = pos.berserk_piece() {
        for mv in piece_moves(pos, from as usize) {
            let mut copy = pos.clone();
            let mut captured = Vec::new();
            copy.play_with(mv, &mut captured);
            if !captured.is_empty() {
                moves.push(mv);
            }
        }
        moves.push(Move::STOP);
        moves.sort_by_key(|m| m.bits());
        return moves;
    }
    if rules.movement.dice == Dice::Parity && pos.roll() % 2 == 1 {
        return vec![Move::PASS];
    }
    for sq in 0..size * size {
        if pos
            .piece_at(sq as u16)
            .is_some_and(|p| p.side == pos.side_to_move())
        {
            moves.extend(piece_moves(pos, sq));
        }
    }
    if rules.end.repetition == Repetition::Illegal {
        let limit = rules.end.repetition_count as usize;
        let kept: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|&mv| {
                let mut copy = pos.clone();
                copy.play_unchecked(mv);
                copy.occurrences() < limit
            })
            .collect();
        if !kept.is_empty() {
            moves = kept;
        }
    }
    moves.sort_by_key(|m| m.bits());
    moves
}

fn piece_moves(pos: &Position, from: usize) -> Vec<Move> {
    let variant = pos.variant();
    let rules = &variant.rules;
    let size = variant.size;
    let piece = pos.piece_at(from as u16).expect("a piece");
    let is_king = piece.kind == PieceKind::King;
    let centre = (size / 2, size / 2);
    let from_camp = camp_of(&square_name(from as u16, size), &rules.board.camps);
    let mut limit = if is_king {
        rules.movement.king_max
    } else {
        rules.movement.taflman_max
    } as usize;
    if limit == 0 {
        limit = usize::MAX;
    }
    if rules.movement.dice == Dice::Distance && pos.roll() > 0 {
        limit = limit.min(pos.roll() as usize);
    }
    // what the piece may do on an empty square: (may stop, may go on)
    let allowed = |file: usize, rank: usize| -> (bool, bool) {
        let name = square_name((rank * size + file) as u16, size);
        if is_corner(file, rank, size, rules.board.corners) {
            return (is_king, false);
        }
        if rules.board.throne && (file, rank) == centre {
            let pass = match rules.movement.throne_pass {
                ThronePass::All => true,
                ThronePass::King => is_king,
                ThronePass::Nobody => false,
            };
            return (is_king && rules.movement.king_reenters_throne, pass);
        }
        match camp_of(&name, &rules.board.camps) {
            Some(c) if Some(c) != from_camp => (false, false),
            _ => (true, true),
        }
    };
    let (f0, r0) = ((from % size) as i32, (from / size) as i32);
    let mut out = Vec::new();
    for (df, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
        let mut k = 1;
        loop {
            let (f, r) = (f0 + k * df, r0 + k * dr);
            if f < 0 || r < 0 || f >= size as i32 || r >= size as i32 || k as usize > limit {
                break;
            }
            let sq = (r as usize * size + f as usize) as u16;
            if pos.piece_at(sq).is_some() {
                break;
            }
            let (stop, go_on) = allowed(f as usize, r as usize);
            if stop {
                out.push(Move::slide(from as u16, sq));
            }
            if !go_on {
                break;
            }
            k += 1;
        }
        if rules.movement.jumps && piece.kind != PieceKind::Taflman {
            let (fo, ro, fl, rl) = (f0 + df, r0 + dr, f0 + 2 * df, r0 + 2 * dr);
            let on = |f: i32, r: i32| f >= 0 && r >= 0 && f < size as i32 && r < size as i32;
            if on(fl, rl) {
                let over = (ro as usize * size + fo as usize) as u16;
                let land = (rl as usize * size + fl as usize) as u16;
                let enemy = pos.piece_at(over).is_some_and(|p| p.side != piece.side);
                if enemy && pos.piece_at(land).is_none() && allowed(fl as usize, rl as usize).0 {
                    out.push(Move::jump(from as u16, land));
                }
            }
        }
    }
    out
}
