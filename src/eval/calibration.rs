//! How well a network's value head predicts results, each side to move apart (issue 44, item 2:
//! per-side value calibration). Where one side wins almost every self-play game, a value head
//! can say "the defenders win" everywhere and still score a fair loss; split by the side to
//! move, its predictions against the results show whether each side's value means what it says:
//! the mean prediction against the mean result (a bias), the Brier score against that of the
//! base rate, how often the sign is right, and a reliability table (predictions in bins against
//! the results they came with).

use std::sync::Arc;

use serde::Serialize;

use crate::data::{DataError, Sample};
use crate::nn::{CheckpointError, Network};
use crate::rules::{Position, Side, Variant};

/// Predictions in one bin of the value range, with the results they came with.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bin {
    /// The bin's value range, `[low, high)` (the last one closed).
    pub low: f64,
    pub high: f64,
    pub samples: u64,
    pub mean_value: f64,
    pub mean_result: f64,
}

/// One side to move's predictions against its results (both in [-1, 1], that side's view).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SideCalibration {
    pub side: Side,
    pub samples: u64,
    pub mean_value: f64,
    pub mean_result: f64,
    /// Mean of ((value - result) / 2)^2: the Brier score of the win probability (value + 1) / 2.
    pub brier: f64,
    /// The Brier score of predicting `mean_result` everywhere: a value head that knows nothing
    /// of the position, only how often this side wins, scores this.
    pub brier_base_rate: f64,
    /// Samples of games won or lost (not drawn).
    pub decisive: u64,
    /// Share of the decisive samples whose value has the result's sign (a value of 0 counts
    /// half).
    pub sign_agreement: f64,
    /// The non-empty bins of `bins` equal parts of [-1, 1].
    pub bins: Vec<Bin>,
}

/// The calibration of each side to move that has samples, attackers first. `points` are
/// (side to move, predicted value, result), `bins` at least 1.
pub fn calibrate(points: &[(Side, f32, f32)], bins: usize) -> Vec<SideCalibration> {
    let bins = bins.max(1);
    [Side::Attackers, Side::Defenders]
        .into_iter()
        .filter_map(|side| {
            let mine: Vec<(f64, f64)> = points
                .iter()
                .filter(|p| p.0 == side)
                .map(|p| (f64::from(p.1), f64::from(p.2)))
                .collect();
            (!mine.is_empty()).then(|| side_calibration(side, &mine, bins))
        })
        .collect()
}

fn side_calibration(side: Side, points: &[(f64, f64)], bins: usize) -> SideCalibration {
    let n = points.len() as f64;
    let mean = |f: &dyn Fn(&(f64, f64)) -> f64| points.iter().map(f).sum::<f64>() / n;
    let mean_value = mean(&|p| p.0);
    let mean_result = mean(&|p| p.1);
    let decisive: Vec<_> = points.iter().filter(|p| p.1 != 0.0).collect();
    let agree: f64 = decisive
        .iter()
        .map(|p| match p.0 * p.1 {
            x if x > 0.0 => 1.0,
            x if x < 0.0 => 0.0,
            _ => 0.5,
        })
        .sum();
    SideCalibration {
        side,
        samples: points.len() as u64,
        mean_value,
        mean_result,
        brier: mean(&|p| ((p.0 - p.1) / 2.0).powi(2)),
        brier_base_rate: mean(&|p| ((mean_result - p.1) / 2.0).powi(2)),
        decisive: decisive.len() as u64,
        sign_agreement: if decisive.is_empty() {
            f64::NAN
        } else {
            agree / decisive.len() as f64
        },
        bins: reliability(points, bins),
    }
}

fn reliability(points: &[(f64, f64)], bins: usize) -> Vec<Bin> {
    let width = 2.0 / bins as f64;
    let mut sums = vec![(0u64, 0.0, 0.0); bins];
    for &(value, result) in points {
        let k = (((value.clamp(-1.0, 1.0) + 1.0) / width) as usize).min(bins - 1);
        sums[k].0 += 1;
        sums[k].1 += value;
        sums[k].2 += result;
    }
    sums.into_iter()
        .enumerate()
        .filter(|(_, s)| s.0 > 0)
        .map(|(k, (count, value, result))| Bin {
            low: -1.0 + k as f64 * width,
            high: -1.0 + (k + 1) as f64 * width,
            samples: count,
            mean_value: value / count as f64,
            mean_result: result / count as f64,
        })
        .collect()
}

/// Why a network's values could not be had.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationError {
    #[error(transparent)]
    Sample(#[from] DataError),
    #[error(transparent)]
    Network(#[from] CheckpointError),
}

/// The network's raw value (no search) for each sample's position, from its side to move's
/// view, evaluated `batch` at a time; `done` hears how many are done after each batch.
pub fn predicted_values(
    network: &Network,
    samples: &[&Sample],
    variant: &Arc<Variant>,
    batch: usize,
    done: &mut dyn FnMut(usize),
) -> Result<Vec<f32>, CalibrationError> {
    let mut values = Vec::with_capacity(samples.len());
    for chunk in samples.chunks(batch.max(1)) {
        let positions = chunk
            .iter()
            .map(|s| s.position(variant))
            .collect::<Result<Vec<Position>, _>>()?;
        let refs: Vec<&Position> = positions.iter().collect();
        let (_, chunk_values) = network.evaluate(&refs)?;
        values.extend(chunk_values);
        done(values.len());
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_side_is_measured_apart() {
        // attackers: calibrated (0.5 predicted where they win 3 of 4: +0.5 on average);
        // defenders: sure of winning (0.9) where they win half their games
        let mut points = Vec::new();
        for result in [1.0, 1.0, 1.0, -1.0] {
            points.push((Side::Attackers, 0.5, result));
        }
        for result in [1.0, -1.0, 1.0, -1.0, 0.0] {
            points.push((Side::Defenders, 0.9, result));
        }
        let c = calibrate(&points, 4);
        assert_eq!(c.len(), 2);
        let (att, def) = (&c[0], &c[1]);
        assert_eq!(
            (att.side, att.samples, def.side, def.samples),
            (Side::Attackers, 4, Side::Defenders, 5)
        );
        assert!((att.mean_value - 0.5).abs() < 1e-6 && (att.mean_result - 0.5).abs() < 1e-12);
        assert!((def.mean_value - 0.9).abs() < 1e-6 && def.mean_result.abs() < 1e-12);
        // ((0.5 - 1) / 2)^2 = 0.0625 three times, ((0.5 + 1) / 2)^2 = 0.5625 once
        assert!(
            (att.brier - (3.0 * 0.0625 + 0.5625) / 4.0).abs() < 1e-6,
            "{}",
            att.brier
        );
        assert!(
            (att.brier - att.brier_base_rate).abs() < 1e-6,
            "a constant at the base rate"
        );
        assert!(
            def.brier > def.brier_base_rate,
            "overconfident: worse than the base rate"
        );
        assert_eq!((att.decisive, def.decisive), (4, 4));
        assert!((att.sign_agreement - 0.75).abs() < 1e-12);
        assert!((def.sign_agreement - 0.5).abs() < 1e-12);
        // four bins of width 0.5: 0.5 and 0.9 both fall in [0.5, 1]
        assert_eq!(att.bins.len(), 1);
        assert_eq!((att.bins[0].low, att.bins[0].high), (0.5, 1.0));
        assert_eq!(def.bins[0].samples, 5);
    }

    #[test]
    fn bins_cover_the_range_ends_included() {
        let points: Vec<_> = [-1.0, -0.95, 0.0, 0.999, 1.0]
            .iter()
            .map(|&v| (Side::Attackers, v, 1.0))
            .collect();
        let c = calibrate(&points, 10);
        let bins = &c[0].bins;
        let counts: Vec<(f64, u64)> = bins.iter().map(|b| (b.low, b.samples)).collect();
        assert_eq!(counts.len(), 3, "{counts:?}");
        assert!(
            (counts[0].0 + 1.0).abs() < 1e-12 && counts[0].1 == 2,
            "{counts:?}"
        );
        assert!(counts[1].0.abs() < 1e-12 && counts[1].1 == 1, "{counts:?}");
        assert!(
            (counts[2].0 - 0.8).abs() < 1e-9 && counts[2].1 == 2,
            "{counts:?}"
        );
        assert_eq!(c.len(), 1, "no defender samples, no defender row");
        assert!(calibrate(&[(Side::Defenders, 0.2, 0.0)], 3)[0]
            .sign_agreement
            .is_nan());
    }
}
