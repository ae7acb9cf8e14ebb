//! One training sample: a position as self-play saw it, the search's policy and value there, and
//! the game's result.

use std::sync::Arc;

use crate::encode::Encoding;
use crate::rules::piece::{side_of, CELL_CODES};
use crate::rules::{Position, RecordedState, Side, Variant};

use super::error::DataError;

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sample {
    pub game_id: u64,
    pub ply: u32,
    /// One byte per square, as `Position::cells()` (rank-major from a1; 0 empty, pieces 1..=8).
    pub cells: Vec<u8>,
    pub side_to_move: crate::rules::Side,
    pub berserk: Option<u16>,
    pub roll: u8,
    pub plies_since_capture: u32,
    /// Forced passes among `ply` (parity die): the length cap does not count them.
    pub passes: u32,
    /// How often the position had occurred since the last capture, this time included (1 for
    /// samples of shard format 1, which did not record it).
    pub occurrences: u8,
    /// (policy index, probability) over legal moves only; probabilities sum to 1.
    pub policy: Vec<(u32, f32)>,
    /// The game's final result from the side to move's view: 1 win, 0 draw, -1 loss.
    pub result: f32,
    /// The search's root value from the side to move's view.
    pub search_value: f32,
    /// Length of the whole game in plies, and its end reason (`Reason::name()`), for statistics.
    pub game_length: u32,
    pub reason: String,
}

/// A sample of shard format 1, which recorded neither passes nor occurrences.
#[derive(serde::Deserialize)]
pub(crate) struct SampleV1 {
    game_id: u64,
    ply: u32,
    cells: Vec<u8>,
    side_to_move: crate::rules::Side,
    berserk: Option<u16>,
    roll: u8,
    plies_since_capture: u32,
    policy: Vec<(u32, f32)>,
    result: f32,
    search_value: f32,
    game_length: u32,
    reason: String,
}

impl From<SampleV1> for Sample {
    /// Format 1 samples become first occurrences with no passes: what an encoding that looks at
    /// repetition sees of them.
    fn from(s: SampleV1) -> Sample {
        Sample {
            game_id: s.game_id,
            ply: s.ply,
            cells: s.cells,
            side_to_move: s.side_to_move,
            berserk: s.berserk,
            roll: s.roll,
            plies_since_capture: s.plies_since_capture,
            passes: 0,
            occurrences: 1,
            policy: s.policy,
            result: s.result,
            search_value: s.search_value,
            game_length: s.game_length,
            reason: s.reason,
        }
    }
}

/// A sample of game `game` at `ply` (attackers to move on even plies) with no board, its search
/// value and result from the side to move's view, in a game of `length` plies: for the tests of
/// what training computes from results and values.
#[cfg(test)]
pub(crate) fn sample_at(game: u64, ply: u32, value: f32, result: f32, length: u32) -> Sample {
    Sample {
        game_id: game,
        ply,
        cells: vec![],
        side_to_move: if ply.is_multiple_of(2) {
            crate::rules::Side::Attackers
        } else {
            crate::rules::Side::Defenders
        },
        berserk: None,
        roll: 0,
        plies_since_capture: 0,
        passes: 0,
        occurrences: 1,
        policy: vec![],
        result,
        search_value: value,
        game_length: length,
        reason: String::new(),
    }
}

impl Sample {
    /// Rebuilds the position: board, side to move, die roll, counters, a pending berserk piece
    /// and how often it had occurred (the earlier positions themselves are not recorded).
    pub fn position(&self, variant: &Arc<Variant>) -> Result<Position, DataError> {
        self.check(variant)?;
        let mut pos = Position::from_cells(variant, &self.cells, self.side_to_move)
            .map_err(|e| self.bad(e.to_string()))?;
        pos.set_roll(self.roll);
        pos.restore_state(&RecordedState {
            ply: self.ply,
            passes: self.passes,
            plies_since_capture: self.plies_since_capture,
            berserk: self.berserk,
            occurrences: self.occurrences,
        });
        Ok(pos)
    }

    /// The network input planes of this sample's position under `encoding`.
    pub fn planes(
        &self,
        variant: &Arc<Variant>,
        encoding: Encoding,
    ) -> Result<Vec<f32>, DataError> {
        Ok(encoding.encode(&self.position(variant)?))
    }

    /// The winner of the game this sample comes from (`None` for a draw).
    pub fn winner(&self) -> Option<Side> {
        if self.result > 0.5 {
            Some(self.side_to_move)
        } else if self.result < -0.5 {
            Some(self.side_to_move.opponent())
        } else {
            None
        }
    }

    fn bad(&self, reason: impl Into<String>) -> DataError {
        DataError::BadSample {
            game_id: self.game_id,
            ply: self.ply,
            reason: reason.into(),
        }
    }

    /// What `Position::from_cells` does not check but the engine or the encoder rely on.
    fn check(&self, variant: &Variant) -> Result<(), DataError> {
        if self.cells.len() != variant.squares {
            return Err(self.bad(format!(
                "{} cells, the {} board has {}",
                self.cells.len(),
                variant.name(),
                variant.squares
            )));
        }
        if let Some((sq, code)) = self
            .cells
            .iter()
            .enumerate()
            .find(|(_, &c)| c as usize >= CELL_CODES)
        {
            return Err(self.bad(format!("cell {sq} holds {code}, not a piece code (0..=8)")));
        }
        if let Some(b) = self.berserk {
            if b as usize >= variant.squares {
                return Err(self.bad(format!(
                    "berserk square {b} is off the {}-square board",
                    variant.squares
                )));
            }
            if side_of(self.cells[b as usize]) != Some(self.side_to_move) {
                return Err(self.bad(format!(
                    "berserk square {b} holds no piece of the side to move ({})",
                    self.side_to_move.name()
                )));
            }
        }
        if self.occurrences == 0 {
            return Err(self.bad("occurrence count 0 (a position has occurred at least once)"));
        }
        if self.passes > self.ply {
            return Err(self.bad(format!("{} passes in {} plies", self.passes, self.ply)));
        }
        if self.roll > 6 {
            return Err(self.bad(format!("die roll {} is not 0..=6", self.roll)));
        }
        let size = crate::encode::policy::policy_size(variant.size);
        if let Some(&(index, p)) = self
            .policy
            .iter()
            .find(|&&(i, p)| i as usize >= size || !p.is_finite() || p < 0.0)
        {
            return Err(self.bad(format!(
                "policy entry ({index}, {p}) is not an index below {size} with a probability"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A sample of brandubh's start position.
    pub(crate) fn start_sample(v: &Arc<Variant>, game_id: u64, ply: u32) -> Sample {
        let pos = Position::start(v);
        Sample {
            game_id,
            ply,
            cells: pos.cells().to_vec(),
            side_to_move: pos.side_to_move(),
            berserk: None,
            roll: 0,
            plies_since_capture: ply,
            passes: 0,
            occurrences: 1,
            policy: vec![(3, 0.25), (17, 0.75)],
            result: 1.0,
            search_value: 0.125,
            game_length: 40,
            reason: "king_captured".into(),
        }
    }

    #[test]
    fn position_round_trips_the_board() {
        let v = Variant::load("brandubh").expect("preset");
        let mut s = start_sample(&v, 1, 0);
        s.side_to_move = Side::Defenders;
        let pos = s.position(&v).expect("valid");
        assert_eq!(pos.cells(), &s.cells[..]);
        assert_eq!(pos.side_to_move(), Side::Defenders);
        assert_eq!(pos.roll(), 0);
    }

    #[test]
    fn bad_samples_are_errors_not_panics() {
        let v = Variant::load("brandubh").expect("preset");
        let good = start_sample(&v, 7, 3);
        let cases: Vec<(Sample, &str)> = vec![
            (
                Sample {
                    cells: vec![0; 5],
                    ..good.clone()
                },
                "5 cells",
            ),
            (
                Sample {
                    cells: vec![0; v.squares],
                    ..good.clone()
                },
                "no king",
            ),
            (
                Sample {
                    cells: {
                        let mut c = good.cells.clone();
                        c[0] = 9;
                        c
                    },
                    ..good.clone()
                },
                "not a piece code",
            ),
            (
                Sample {
                    berserk: Some(49),
                    ..good.clone()
                },
                "berserk square 49",
            ),
            (
                Sample {
                    roll: 7,
                    ..good.clone()
                },
                "die roll 7",
            ),
            (
                Sample {
                    occurrences: 0,
                    ..good.clone()
                },
                "occurrence count 0",
            ),
            (
                Sample {
                    passes: 4,
                    ..good.clone()
                },
                "4 passes in 3 plies",
            ),
        ];
        for (sample, needle) in cases {
            let err = sample.position(&v).expect_err(needle).to_string();
            assert!(err.contains(needle), "{err}");
            assert!(err.contains("game 7 at ply 3"), "{err}");
        }
    }

    #[test]
    fn winner_follows_result_and_side() {
        let v = Variant::load("brandubh").expect("preset");
        let mut s = start_sample(&v, 0, 0);
        for (side, result, winner) in [
            (Side::Attackers, 1.0, Some(Side::Attackers)),
            (Side::Attackers, -1.0, Some(Side::Defenders)),
            (Side::Defenders, 1.0, Some(Side::Defenders)),
            (Side::Defenders, -1.0, Some(Side::Attackers)),
            (Side::Defenders, 0.0, None),
        ] {
            s.side_to_move = side;
            s.result = result;
            assert_eq!(s.winner(), winner, "{side:?} {result}");
        }
    }

    #[test]
    fn position_restores_counters_and_berserk() {
        let v = Variant::load("brandubh").expect("preset");
        let n = v.squares;
        let mut s = start_sample(&v, 0, 0);
        s.ply = 12;
        s.passes = 2;
        s.plies_since_capture = 5;
        s.occurrences = 2;
        // d1 holds an attacker, and attackers are to move.
        s.berserk = Some(3);
        s.roll = 4;
        let pos = s.position(&v).expect("valid");
        assert_eq!(pos.ply(), 12);
        assert_eq!(pos.plies_since_capture(), 5);
        assert_eq!(pos.berserk_piece(), Some(3));
        assert_eq!(pos.roll(), 4);
        assert_eq!(pos.counted_plies(), 10);
        assert_eq!(pos.occurrences(), 2);
        assert_eq!(pos.recorded_state().occurrences, 2);

        let enc = Encoding::CURRENT;
        let out = s.planes(&v, enc).expect("valid");
        assert_eq!(out.len(), enc.planes() * n);
        assert_eq!(out, enc.encode(&pos));
        let plane = |name: &str| {
            enc.plane_names()
                .iter()
                .position(|&p| p == name)
                .expect("name")
        };
        let b = plane("berserk piece");
        assert_eq!(out[b * n + 3], 1.0);
        assert_eq!(out[b * n..(b + 1) * n].iter().sum::<f32>(), 1.0);
        let r = plane("die roll / 6");
        assert_eq!(out[r * n], 4.0 / 6.0);
        let o = plane("earlier occurrences / (repetition count - 1)");
        assert_eq!(out[o * n], 1.0 / 3.0);

        s.berserk = Some(0);
        let e = s.position(&v).expect_err("a1 is an empty corner");
        assert!(e.to_string().contains("holds no piece"), "{e}");
    }
}
