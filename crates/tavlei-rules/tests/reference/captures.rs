//! What a move captures, decided square by square from the rule parameters: custodial captures
//! against pieces and hostile squares, the knight's jump, the king in every capture mode, the
//! king-and-defender pair, and shieldwalls.

use tavlei_rules::rules::{Armed, Hostility, KingCapture};
use tavlei_rules::{Move, MoveKind, Piece, PieceKind, Side};

use super::geometry::{Coord, Geo, Grid, DIRS};

/// What one move removed.
#[derive(Default)]
pub struct Taken {
    /// Every removed piece, the king included.
    pub squares: Vec<Coord>,
    pub king: bool,
}

fn hammer(armed: Armed) -> bool {
    matches!(armed, Armed::Yes | Armed::Hammer)
}

fn anvil(armed: Armed) -> bool {
    matches!(armed, Armed::Yes | Armed::Anvil)
}

fn is_attacker(p: Option<Piece>) -> bool {
    p.is_some_and(|p| p.side == Side::Attackers)
}

/// A piece of `side` standing still on `c` that closes a sandwich (a king only when armed as
/// an anvil).
fn holds(geo: &Geo, grid: &Grid, c: Coord, side: Side) -> bool {
    grid.at(c).is_some_and(|p| {
        p.side == side && (p.kind != PieceKind::King || anvil(geo.rules().king.armed))
    })
}

/// Whether the square beyond a victim (of the side opposite `captor`) closes the sandwich.
fn closes(geo: &Geo, grid: &Grid, beyond: Option<Coord>, captor: Side) -> bool {
    // the board edge never captures a taflman
    let Some(c) = beyond else { return false };
    let cap = &geo.rules().capture;
    if geo.is_throne(c) {
        let hostility = match captor {
            Side::Defenders => cap.throne_hostile_to_attackers,
            Side::Attackers => cap.throne_hostile_to_defenders,
        };
        if hostility == Hostility::Always
            || (hostility == Hostility::WhenEmpty && grid.at(c).is_none())
        {
            return true;
        }
    }
    if geo.is_corner(c) && cap.corners_hostile {
        return true;
    }
    holds(geo, grid, c, captor)
}

/// A square (or the edge, `None`) that counts as an attacker around the king.
fn against_king(geo: &Geo, grid: &Grid, c: Option<Coord>) -> bool {
    let king = &geo.rules().king;
    let Some(c) = c else { return king.hostile_edge };
    let piece = grid.at(c);
    if is_attacker(piece) {
        return true;
    }
    piece.is_none()
        && ((geo.is_throne(c) && king.hostile_throne)
            || (geo.is_corner(c) && king.hostile_corners)
            || (geo.camp(c).is_some() && king.hostile_camps))
}

/// Whether the attacker just arrived on `hammer` (a neighbour of the king) captures him.
fn king_falls(geo: &Geo, grid: &Grid, king: Coord, hammer: Coord) -> bool {
    let rules = &geo.rules().king;
    let dir = (
        king.0 as i32 - hammer.0 as i32,
        king.1 as i32 - hammer.1 as i32,
    );
    let beyond = geo.step(king, dir);
    let throne = geo.throne();
    let beside_throne = throne.is_some_and(|t| king.0.abs_diff(t.0) + king.1.abs_diff(t.1) == 1);
    let mover = grid.at(hammer).expect("the hammer stands there");
    if rules.commanders_capture
        && mover.kind == PieceKind::Commander
        && throne != Some(king)
        && !beside_throne
    {
        if let Some(b) = beyond {
            let commander = Piece::new(Side::Attackers, PieceKind::Commander);
            if grid.at(b) == Some(commander) || geo.is_corner(b) {
                return true;
            }
        }
    }
    let ring = geo.around(king);
    match rules.capture {
        KingCapture::Custodial => against_king(geo, grid, beyond),
        KingCapture::ThroneSensitive => {
            if throne == Some(king) || beside_throne {
                // attackers on every side but the throne's
                ring.iter()
                    .flatten()
                    .filter(|&&n| Some(n) != throne)
                    .all(|&n| is_attacker(grid.at(n)))
            } else {
                against_king(geo, grid, beyond)
            }
        }
        KingCapture::Enclosed => ring.iter().all(|&n| against_king(geo, grid, n)),
    }
}

/// The king and a defender beside him, both shut in on their six outer sides, one of them
/// the attacker that just moved to `hammer`.
fn pair_falls(geo: &Geo, grid: &Grid, hammer: Coord) -> Option<[Coord; 2]> {
    let king = geo.all().find(|&c| grid.at(c) == Some(Piece::KING))?;
    for mate in geo.around(king).into_iter().flatten() {
        if !grid.at(mate).is_some_and(|p| p.side == Side::Defenders) {
            continue;
        }
        let outer: Vec<Option<Coord>> = geo
            .around(king)
            .into_iter()
            .filter(|&n| n != Some(mate))
            .chain(geo.around(mate).into_iter().filter(|&n| n != Some(king)))
            .collect();
        if outer.contains(&Some(hammer)) && outer.iter().all(|&n| against_king(geo, grid, n)) {
            return Some([king, mate]);
        }
    }
    None
}

/// Rows of enemies along an edge that the piece just arrived on the edge square `to` closes.
/// A row is at least two enemies long, shut at the far end by a corner or a piece of the
/// mover's side, and every member has a mover's piece right behind it (inward). The king may
/// stand in the row but is not taken.
fn shieldwalls(geo: &Geo, grid: &Grid, to: Coord, side: Side) -> Vec<Coord> {
    let last = geo.size - 1;
    let mut inwards = Vec::new();
    if to.0 == 0 {
        inwards.push((1, 0));
    }
    if to.0 == last {
        inwards.push((-1, 0));
    }
    if to.1 == 0 {
        inwards.push((0, 1));
    }
    if to.1 == last {
        inwards.push((0, -1));
    }
    let mut out = Vec::new();
    for inward in inwards {
        let along = if inward.0 == 0 {
            [(1, 0), (-1, 0)]
        } else {
            [(0, 1), (0, -1)]
        };
        for dir in along {
            let mut row = Vec::new();
            let mut cur = geo.step(to, dir);
            while let Some(c) = cur {
                if !grid.at(c).is_some_and(|p| p.side != side) {
                    break;
                }
                row.push(c);
                cur = geo.step(c, dir);
            }
            let Some(end) = cur else { continue };
            let shut = geo.is_corner(end) || holds(geo, grid, end, side);
            let pressed = row.iter().all(|&c| {
                geo.step(c, inward)
                    .is_some_and(|inner| holds(geo, grid, inner, side))
            });
            if row.len() >= 2 && shut && pressed {
                out.extend(row.into_iter().filter(|&c| grid.at(c) != Some(Piece::KING)));
            }
        }
    }
    out
}

/// Moves the piece of `mv` (a slide or a jump) and removes everything the move captures.
pub fn make_move(geo: &Geo, grid: &mut Grid, mv: Move) -> Taken {
    let rules = geo.rules();
    let (from, to) = (geo.coord(mv.from()), geo.coord(mv.to()));
    let piece = grid.take(from).expect("a move starts on a piece");
    grid.set(to, Some(piece));
    let mut taken = Taken::default();
    if mv.kind() == MoveKind::Jump && piece.kind == PieceKind::Knight {
        let over = ((from.0 + to.0) / 2, (from.1 + to.1) / 2);
        grid.set(over, None);
        taken.squares.push(over);
    }
    let enemy = piece.side.opponent();
    let king_hammers = piece.kind != PieceKind::King || hammer(rules.king.armed);
    // decide every sandwich on the board as the move left it, then remove
    let mut victims = Vec::new();
    for d in DIRS {
        let Some(v) = geo.step(to, d) else { continue };
        let Some(target) = grid.at(v) else { continue };
        if target.side != enemy {
            continue;
        }
        if target.kind == PieceKind::King {
            if king_falls(geo, grid, v, to) {
                taken.king = true;
                victims.push(v);
            }
        } else if king_hammers && closes(geo, grid, geo.step(v, d), piece.side) {
            victims.push(v);
        }
    }
    for &v in &victims {
        grid.set(v, None);
    }
    taken.squares.extend(victims);
    if piece.side == Side::Attackers && rules.king.pair_capture && !taken.king {
        if let Some(pair) = pair_falls(geo, grid, to) {
            for c in pair {
                grid.set(c, None);
                taken.squares.push(c);
            }
            taken.king = true;
        }
    }
    if rules.capture.shieldwall && geo.on_edge(to) && king_hammers {
        for c in shieldwalls(geo, grid, to, piece.side) {
            grid.set(c, None);
            taken.squares.push(c);
        }
    }
    taken
}
