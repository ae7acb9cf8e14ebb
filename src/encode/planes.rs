//! Input planes: one `size × size` plane per feature, the same features for every variant so one
//! network definition serves all boards.

use crate::rules::piece::{Piece, PieceKind, Side};
use crate::rules::rules::Repetition;
use crate::rules::variant::{CAMP, CORNER, THRONE};
use crate::rules::Position;

/// The features of encoding version 1, in plane order.
const PLANE_NAMES_V1: [&str; 14] = [
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

/// Version 2: version 1's planes (the length plane counting only the plies the cap counts, so a
/// parity die's passes no longer move it), and two that let the network see repetition.
const PLANE_NAMES_V2: [&str; 16] = [
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
    "counted plies / length cap",
    "plies without capture / cap",
    "ones (board mask)",
    "earlier occurrences / (repetition count - 1)",
    "one more occurrence triggers the repetition rule",
];

/// The most input planes of any encoding (for buffers sized before the network is known).
pub const MAX_PLANES: usize = PLANE_NAMES_V2.len();

/// An input encoding: which planes a network sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    V1,
    V2,
}

impl Encoding {
    /// The encoding of new networks and datasets.
    pub const CURRENT: Encoding = Encoding::V2;

    /// The encoding with this version number, if this build knows it.
    pub fn from_version(version: u32) -> Option<Encoding> {
        match version {
            1 => Some(Encoding::V1),
            2 => Some(Encoding::V2),
            _ => None,
        }
    }

    pub fn version(self) -> u32 {
        match self {
            Encoding::V1 => 1,
            Encoding::V2 => 2,
        }
    }

    /// The features, in plane order.
    pub fn plane_names(self) -> &'static [&'static str] {
        match self {
            Encoding::V1 => &PLANE_NAMES_V1,
            Encoding::V2 => &PLANE_NAMES_V2,
        }
    }

    pub fn planes(self) -> usize {
        self.plane_names().len()
    }

    /// Writes the planes of `pos` into `out` (`planes() * size * size` floats, plane-major).
    pub fn encode_into(self, pos: &Position, out: &mut [f32]) {
        let v = pos.variant();
        let n = v.squares;
        assert_eq!(
            out.len(),
            self.planes() * n,
            "plane buffer of the wrong size"
        );
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
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        let plies = match self {
            Encoding::V1 => pos.ply(),
            Encoding::V2 => pos.counted_plies(),
        };
        // the repetition planes (14, 15) exist under encoding 2 only
        let limit = match end.repetition {
            Repetition::Ignore => 0,
            _ => end.repetition_count as u32,
        };
        let earlier = pos.occurrences().saturating_sub(1) as u32;
        let constants = [
            (5, flag(pos.side_to_move() == Side::Defenders)),
            (10, pos.roll() as f32 / 6.0),
            (11, ratio(plies, end.max_plies)),
            (
                12,
                ratio(pos.plies_since_capture(), end.max_plies_without_capture),
            ),
            (13, 1.0),
            (14, ratio(earlier, limit.saturating_sub(1))),
            (15, flag(limit > 0 && earlier + 2 >= limit)),
        ];
        let planes = self.planes();
        for (plane, value) in constants.into_iter().filter(|&(p, _)| p < planes) {
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

    /// The planes of each of `positions` (all of one board size), one after another.
    pub fn encode_batch(self, positions: &[&Position]) -> Vec<f32> {
        let Some(first) = positions.first() else {
            return Vec::new();
        };
        let per = self.planes() * first.variant().squares;
        let mut out = vec![0.0; per * positions.len()];
        for (pos, chunk) in positions.iter().zip(out.chunks_mut(per)) {
            self.encode_into(pos, chunk);
        }
        out
    }

    /// The planes of `pos` in a new vector.
    pub fn encode(self, pos: &Position) -> Vec<f32> {
        let mut out = vec![0.0; self.planes() * pos.variant().squares];
        self.encode_into(pos, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Variant;

    fn plane(planes: &[f32], p: usize, n: usize) -> &[f32] {
        &planes[p * n..(p + 1) * n]
    }

    #[test]
    fn start_planes_count_the_pieces() {
        let v = Variant::load("brandubh").expect("preset");
        let n = v.squares;
        for enc in [Encoding::V1, Encoding::V2] {
            let planes = enc.encode(&Position::start(&v));
            let sum = |p: usize| plane(&planes, p, n).iter().sum::<f32>();
            assert_eq!(sum(0), 8.0);
            assert_eq!(sum(1), 4.0);
            assert_eq!(sum(2), 1.0);
            assert_eq!(sum(5), 0.0, "attackers move first");
            assert_eq!(sum(6), 1.0);
            assert_eq!(sum(7), 4.0);
            assert_eq!(sum(13), n as f32);
        }
        assert_eq!(Encoding::V1.planes(), 14);
        assert_eq!(Encoding::V2.planes(), MAX_PLANES);
        assert_eq!(Encoding::CURRENT.version(), crate::encode::ENCODING_VERSION);
    }

    /// Brandubh: the fourth occurrence ends the game (defenders lose). Shuffling two pieces back
    /// and forth brings the start position back every four plies.
    #[test]
    fn version_2_sees_how_often_the_position_occurred() {
        let v = Variant::load("brandubh").expect("preset");
        assert_eq!(v.rules.end.repetition_count, 4);
        let n = v.squares;
        let mut pos = Position::start(&v);
        let seen = |pos: &Position| {
            let planes = Encoding::V2.encode(pos);
            (plane(&planes, 14, n)[0], plane(&planes, 15, n)[0])
        };
        assert_eq!(seen(&pos), (0.0, 0.0));
        let v1_start = Encoding::V1.encode(&pos);
        for round in 1..=2 {
            for text in ["d1-c1", "d3-c3", "c1-d1", "c3-d3"] {
                pos.play(text).expect("legal move");
            }
            assert_eq!(pos.occurrences(), round + 1);
            let (earlier, last_chance) = seen(&pos);
            assert!((earlier - round as f32 / 3.0).abs() < 1e-6, "round {round}");
            assert_eq!(last_chance, if round == 2 { 1.0 } else { 0.0 });
            // version 1 does not see repetition: only its two ply counters moved
            let v1 = Encoding::V1.encode(&pos);
            let differing: Vec<usize> = (0..Encoding::V1.planes())
                .filter(|&p| plane(&v1, p, n) != plane(&v1_start, p, n))
                .collect();
            assert_eq!(differing, vec![11, 12]);
        }
    }

    #[test]
    fn version_2_counts_plies_the_cap_counts() {
        // a parity die's forced pass advances the ply but not the cap
        let text = crate::rules::presets::preset_text("reconstruction_dice")
            .expect("preset")
            .replace("dice = \"distance\"", "dice = \"parity\"");
        let v = Variant::from_toml(&text, "parity dice").expect("variant");
        let n = v.squares;
        let mut pos = Position::start(&v);
        pos.set_roll(1);
        pos.play("pass").expect("an odd roll passes");
        pos.set_roll(2);
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        pos.play_unchecked(moves[0]);
        assert_eq!((pos.ply(), pos.counted_plies()), (2, 1));
        let cap = v.rules.end.max_plies as f32;
        let v1 = Encoding::V1.encode(&pos);
        let v2 = Encoding::V2.encode(&pos);
        assert!((plane(&v1, 11, n)[0] - 2.0 / cap).abs() < 1e-6);
        assert!((plane(&v2, 11, n)[0] - 1.0 / cap).abs() < 1e-6);
    }

    #[test]
    fn symmetry_permutes_every_plane() {
        let v = Variant::load("tablut").expect("preset");
        let pos = Position::start(&v);
        let n = v.squares;
        for enc in [Encoding::V1, Encoding::V2] {
            let planes = enc.encode(&pos);
            for &sym in &v.symmetries {
                let image = enc.encode(&pos.transformed(sym));
                for p in 0..enc.planes() {
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
        }
        assert_eq!(v.symmetries.len(), 8);
    }
}
