//! The alpha-beta agent's static evaluation, read off the variant's own rules so that one set of
//! weights serves every preset: material (each side weighted by its starting numbers), the
//! king's way out (distance, free lines, squares one move from a free line), the pressure on the
//! king (his neighbours that count against him, relative to how many his capture needs), and
//! mobility. Scores are integers, 100 = one attacker, from the side to move's point of view.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::rules::piece::{side_of, EMPTY};
use crate::rules::rules::{KingCapture, ThronePass};
use crate::rules::variant::{CAMP, CORNER, THRONE};
use crate::rules::{Piece, Position, Side, Square, Variant};

/// Bound on static scores, far below the win scores of the search.
pub const EVAL_LIMIT: i32 = 30_000;

/// Evaluation weights; `configs/alphabeta.toml` documents each one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalWeights {
    pub material: i32,
    pub king_distance: i32,
    pub escape_now: i32,
    pub escape_fork: i32,
    pub escape_line: i32,
    pub king_routes: i32,
    pub king_pressure: i32,
    pub defender_mobility: i32,
    pub attacker_mobility: i32,
}

/// The weights in the order of [`EvalWeights::to_array`] and [`Heuristic::terms`].
pub const WEIGHT_NAMES: [&str; 9] = [
    "material",
    "king_distance",
    "escape_now",
    "escape_fork",
    "escape_line",
    "king_routes",
    "king_pressure",
    "defender_mobility",
    "attacker_mobility",
];

impl EvalWeights {
    /// The weights in the order of [`WEIGHT_NAMES`].
    pub fn to_array(&self) -> [f64; 9] {
        [
            self.material,
            self.king_distance,
            self.escape_now,
            self.escape_fork,
            self.escape_line,
            self.king_routes,
            self.king_pressure,
            self.defender_mobility,
            self.attacker_mobility,
        ]
        .map(f64::from)
    }

    /// Weights from values in the order of [`WEIGHT_NAMES`], rounded to integers.
    pub fn from_array(w: &[f64; 9]) -> EvalWeights {
        let r = |x: f64| x.round() as i32;
        EvalWeights {
            material: r(w[0]),
            king_distance: r(w[1]),
            escape_now: r(w[2]),
            escape_fork: r(w[3]),
            escape_line: r(w[4]),
            king_routes: r(w[5]),
            king_pressure: r(w[6]),
            defender_mobility: r(w[7]),
            attacker_mobility: r(w[8]),
        }
    }
}

impl Default for EvalWeights {
    fn default() -> Self {
        EvalWeights {
            material: 100,
            king_distance: 12,
            escape_now: 8_000,
            escape_fork: 6_000,
            escape_line: 250,
            king_routes: 40,
            king_pressure: 30,
            defender_mobility: 2,
            attacker_mobility: 1,
        }
    }
}

/// The terms of one evaluation, from the attackers' point of view before weighting; exposed
/// so tests and analysis can see why a position scores as it does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    pub attackers: i32,
    pub defenders: i32,
    /// Manhattan distance from the king to the nearest escape square.
    pub king_distance: i32,
    /// Escape squares the king reaches in one move.
    pub free_lines: i32,
    /// Squares the king reaches in one move from which an escape square is one more move.
    pub routes: i32,
    /// The king's neighbours that count against him (attackers, hostile squares, the edge).
    pub hostile_neighbours: i32,
    /// How many such neighbours his capture needs where he stands.
    pub needed: i32,
    pub defender_mobility: i32,
    pub attacker_mobility: i32,
}

/// Weights prepared for one variant (piece values, escape distances), cheap to evaluate with.
pub struct Heuristic {
    weights: EvalWeights,
    variant: Arc<Variant>,
    attacker_value: i32,
    defender_value: i32,
    /// Attackers per defender at the start (what a defender is worth in attackers).
    defender_ratio: f64,
    /// Manhattan distance to the nearest escape square, per square.
    escape_distance: Vec<i32>,
    /// Whether some escape square shares the square's rank or file (a cheap filter).
    escape_aligned: Vec<bool>,
}

impl Heuristic {
    pub fn new(weights: EvalWeights, variant: &Arc<Variant>) -> Heuristic {
        let v = &**variant;
        let count = |side: Side| {
            v.start
                .iter()
                .filter(|&&c| {
                    Piece::from_code(c).is_some_and(|p| p.side == side && p != Piece::KING)
                })
                .count()
                .max(1) as i32
        };
        let (a0, d0) = (count(Side::Attackers), count(Side::Defenders));
        // Defenders start fewer: each is worth as much of the attackers' force as its share
        // of the defenders' force, so trades are judged relative to the starting numbers.
        let attacker_value = weights.material;
        let defender_value = weights.material * a0 / d0;
        let escapes: Vec<Square> = (0..v.squares as Square)
            .filter(|&s| v.is_escape(s))
            .collect();
        let size = v.size as i32;
        let coords = |s: Square| (s as i32 % size, s as i32 / size);
        let escape_distance = (0..v.squares as Square)
            .map(|s| {
                let (f, r) = coords(s);
                escapes
                    .iter()
                    .map(|&e| {
                        let (ef, er) = coords(e);
                        (f - ef).abs() + (r - er).abs()
                    })
                    .min()
                    .unwrap_or(0)
            })
            .collect();
        let escape_aligned = (0..v.squares as Square)
            .map(|s| {
                let (f, r) = coords(s);
                escapes.iter().any(|&e| {
                    let (ef, er) = coords(e);
                    ef == f || er == r
                })
            })
            .collect();
        Heuristic {
            weights,
            variant: variant.clone(),
            attacker_value,
            defender_value,
            defender_ratio: f64::from(a0) / f64::from(d0),
            escape_distance,
            escape_aligned,
        }
    }

    /// Whether this was prepared for `variant` (the same loaded variant, not just the name).
    pub fn is_for(&self, variant: &Arc<Variant>) -> bool {
        Arc::ptr_eq(&self.variant, variant)
    }

    pub fn weights(&self) -> &EvalWeights {
        &self.weights
    }

    /// The static score from the side to move's point of view, within ±`EVAL_LIMIT`. The
    /// position must not be over (its king on the board).
    pub fn evaluate(&self, pos: &Position) -> i32 {
        self.score(pos, &self.features(pos))
    }

    /// The weighted sum of features already computed for `pos`, as `evaluate` gives it.
    pub fn score(&self, pos: &Position, f: &Features) -> i32 {
        let w = &self.weights;
        let mut score = self.attacker_value * f.attackers - self.defender_value * f.defenders;
        score += w.king_distance * f.king_distance;
        let defenders_to_move = pos.side_to_move() == Side::Defenders;
        score -= match (f.free_lines, defenders_to_move) {
            (0, _) => 0,
            // the king walks out next move unless the search sees otherwise
            (_, true) => w.escape_now,
            // one attacker move blocks one line only
            (1, false) => w.escape_line,
            (_, false) => w.escape_fork,
        };
        score -= w.king_routes * f.routes;
        if f.needed > 0 {
            // closing in matters more the nearer the capture: square of the count
            score += w.king_pressure * f.hostile_neighbours * f.hostile_neighbours / f.needed;
        }
        score += w.attacker_mobility * f.attacker_mobility;
        score -= w.defender_mobility * f.defender_mobility;
        let score = score.clamp(-EVAL_LIMIT, EVAL_LIMIT);
        if defenders_to_move {
            -score
        } else {
            score
        }
    }

    /// What each weight multiplies, in the order of [`WEIGHT_NAMES`], from the attackers' point of
    /// view: their dot product with the weights is the attackers' score before the clamp, up to
    /// the integer rounding of the defenders' value and of the pressure term (Texel tuning fits
    /// the weights on these).
    pub fn terms(&self, pos: &Position, f: &Features) -> [f64; 9] {
        let defenders_to_move = pos.side_to_move() == Side::Defenders;
        let flag = |b: bool| -f64::from(u8::from(b));
        let pressure = if f.needed > 0 {
            f64::from(f.hostile_neighbours * f.hostile_neighbours) / f64::from(f.needed)
        } else {
            0.0
        };
        [
            f64::from(f.attackers) - self.defender_ratio * f64::from(f.defenders),
            f64::from(f.king_distance),
            flag(f.free_lines > 0 && defenders_to_move),
            flag(f.free_lines > 1 && !defenders_to_move),
            flag(f.free_lines == 1 && !defenders_to_move),
            -f64::from(f.routes),
            pressure,
            -f64::from(f.defender_mobility),
            f64::from(f.attacker_mobility),
        ]
    }

    /// The raw terms of the evaluation.
    pub fn features(&self, pos: &Position) -> Features {
        let v = &*self.variant;
        let defenders = pos.count(Side::Defenders) as i32;
        let mut f = Features {
            attackers: pos.count(Side::Attackers) as i32,
            defenders: defenders - i32::from(pos.king().is_some()),
            attacker_mobility: self.mobility(pos, Side::Attackers),
            defender_mobility: self.mobility(pos, Side::Defenders),
            ..Features::default()
        };
        let Some(king) = pos.king() else {
            return f;
        };
        f.king_distance = self.escape_distance[king as usize];
        let mut stops = [0 as Square; 4 * 19];
        let mut n = 0;
        self.king_stops(pos, king, king, |s| {
            stops[n] = s;
            n += 1;
        });
        for &s in &stops[..n] {
            if v.is_escape(s) {
                f.free_lines += 1;
            } else if self.escape_aligned[s as usize] {
                let mut reaches = false;
                // the king has left his square, so it no longer blocks the second move
                self.king_stops(pos, s, king, |t| reaches |= v.is_escape(t));
                f.routes += i32::from(reaches);
            }
        }
        let (hostile, needed) = self.king_pressure(pos, king);
        f.hostile_neighbours = hostile;
        f.needed = needed;
        f
    }

    /// The squares where a king on `from` may stop in one move (`vacated` counts as empty),
    /// following the variant's throne, corner, camp and move-length rules (not the die).
    fn king_stops(
        &self,
        pos: &Position,
        from: Square,
        vacated: Square,
        mut visit: impl FnMut(Square),
    ) {
        let v = &*self.variant;
        let movement = &v.rules.movement;
        let limit = if movement.king_max == 0 {
            u8::MAX
        } else {
            movement.king_max
        };
        let cells = pos.cells();
        for (&step, &room) in v.steps.iter().zip(v.reach[from as usize].iter()) {
            let mut t = from as i32;
            for _ in 0..room.min(limit) {
                t += step;
                let to = t as Square;
                if cells[to as usize] != EMPTY && to != vacated {
                    break;
                }
                let flags = v.flags[to as usize];
                if flags == 0 {
                    visit(to);
                } else if flags & CORNER != 0 {
                    visit(to);
                    break;
                } else if flags & THRONE != 0 {
                    if movement.king_reenters_throne {
                        visit(to);
                    }
                    if movement.throne_pass == ThronePass::Nobody {
                        break;
                    }
                } else if flags & CAMP != 0 && v.camp_of[to as usize] != v.camp_of[from as usize] {
                    break;
                } else {
                    visit(to);
                }
            }
        }
    }

    /// The king's neighbours that count against him, and how many his capture needs there.
    fn king_pressure(&self, pos: &Position, king: Square) -> (i32, i32) {
        let v = &*self.variant;
        let rules = &v.rules.king;
        let cells = pos.cells();
        let mut hostile = 0;
        let mut next_to_throne = false;
        for d in 0..4 {
            let counts = match v.neighbour(king, d) {
                None => rules.hostile_edge,
                Some(n) => {
                    next_to_throne |= Some(n) == v.throne;
                    let code = cells[n as usize];
                    let flags = v.flags[n as usize];
                    side_of(code) == Some(Side::Attackers)
                        || (code == EMPTY
                            && ((flags & THRONE != 0 && rules.hostile_throne)
                                || (flags & CORNER != 0 && rules.hostile_corners)
                                || (flags & CAMP != 0 && rules.hostile_camps)))
                }
            };
            hostile += i32::from(counts);
        }
        let needed = match rules.capture {
            KingCapture::Custodial => 2,
            KingCapture::Enclosed => 4,
            KingCapture::ThroneSensitive if Some(king) == v.throne => 4,
            // beside the throne: the three other sides, plus the throne where it counts
            KingCapture::ThroneSensitive if next_to_throne => 3 + i32::from(rules.hostile_throne),
            KingCapture::ThroneSensitive => 2,
        };
        (hostile, needed)
    }

    /// Squares the side's pieces could slide to, stopping at pieces and special squares: a cheap
    /// stand-in for the legal move count. A first step onto a plain empty square is always
    /// legal, so a count above zero means the side has a legal move.
    fn mobility(&self, pos: &Position, side: Side) -> i32 {
        let v = &*self.variant;
        let cells = pos.cells();
        let mut total = 0;
        for from in pos.occupied(side).iter() {
            for (&step, &room) in v.steps.iter().zip(v.reach[from as usize].iter()) {
                let mut t = from as i32;
                for _ in 0..room {
                    t += step;
                    if cells[t as usize] != EMPTY || v.flags[t as usize] != 0 {
                        break;
                    }
                    total += 1;
                }
            }
        }
        total
    }
}
