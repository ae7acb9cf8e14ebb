//! Input planes: one `size × size` plane per feature, the same features for every variant so one
//! network definition serves all boards.

use crate::rules::piece::{Piece, PieceKind, Side};
use crate::rules::variant::{CAMP, CORNER, THRONE};
use crate::rules::Position;

/// The features, in plane order.
pub const PLANE_NAMES: [&str; 14] = [
    "attacker taflmen",
    "defender taflmen",
    "king",
    "commanders",
    "knights",
    "defenders to move",
    "throne",
    "corners",
    "camps",
    "berserk piece",
    "die roll / 6",
    "plies / length cap",
    "plies without capture / cap",
    "ones (board mask)",
];

pub const PLANES: usize = PLANE_NAMES.len();

/// Writes the planes of `pos` into `out` (`PLANES * size * size` floats, plane-major).
pub fn encode_into(pos: &Position, out: &mut [f32]) {
    let v = pos.variant();
    let n = v.squares;
    assert_eq!(out.len(), PLANES * n, "plane buffer of the wrong size");
    out.fill(0.0);
    for (sq, &code) in pos.cells().iter().enumerate() {
        let Some(piece) = Piece::from_code(code) else {
            continue;
        };
        let plane = match (piece.side, piece.kind) {
            (_, PieceKind::King) => 2,
            (_, PieceKind::Commander) => 3,
            (_, PieceKind::Knight) => 4,
            (Side::Attackers, PieceKind::Taflman) => 0,
            (Side::Defenders, PieceKind::Taflman) => 1,
        };
        out[plane * n + sq] = 1.0;
    }
    let end = &v.rules.end;
    let ratio = |x: u32, cap: u32| {
        if cap == 0 {
            0.0
        } else {
            (x as f32 / cap as f32).min(1.0)
        }
    };
    let constants = [
        (
            5,
            if pos.side_to_move() == Side::Defenders {
                1.0
            } else {
                0.0
            },
        ),
        (10, pos.roll() as f32 / 6.0),
        (11, ratio(pos.ply(), end.max_plies)),
        (
            12,
            ratio(pos.plies_since_capture(), end.max_plies_without_capture),
        ),
        (13, 1.0),
    ];
    for (plane, value) in constants {
        out[plane * n..(plane + 1) * n].fill(value);
    }
    for sq in 0..n {
        let flags = v.flags[sq];
        for (plane, flag) in [(6, THRONE), (7, CORNER), (8, CAMP)] {
            if flags & flag != 0 {
                out[plane * n + sq] = 1.0;
            }
        }
    }
    if let Some(b) = pos.berserk_piece() {
        out[9 * n + b as usize] = 1.0;
    }
}

/// The planes of `pos` in a new vector.
pub fn encode(pos: &Position) -> Vec<f32> {
    let mut out = vec![0.0; PLANES * pos.variant().squares];
    encode_into(pos, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    #[test]
    fn start_planes_count_the_pieces() {
        let v = Variant::load("brandubh").expect("preset");
        let planes = encode(&Position::start(&v));
        let n = v.squares;
        let sum = |p: usize| planes[p * n..(p + 1) * n].iter().sum::<f32>();
        assert_eq!(sum(0), 8.0);
        assert_eq!(sum(1), 4.0);
        assert_eq!(sum(2), 1.0);
        assert_eq!(sum(5), 0.0, "attackers move first");
        assert_eq!(sum(6), 1.0);
        assert_eq!(sum(7), 4.0);
        assert_eq!(sum(13), n as f32);
    }

    #[test]
    fn symmetry_permutes_every_plane() {
        let v = Variant::load("tablut").expect("preset");
        let pos = Position::start(&v);
        let n = v.squares;
        let planes = encode(&pos);
        for &sym in &v.symmetries {
            let image = encode(&pos.transformed(sym));
            for p in 0..PLANES {
                for sq in 0..n {
                    let to = sym.apply(sq as u16, v.size) as usize;
                    assert_eq!(
                        planes[p * n + sq],
                        image[p * n + to],
                        "plane {p} under {sym:?}"
                    );
                }
            }
        }
        assert_eq!(v.symmetries.len(), 8);
    }
}
