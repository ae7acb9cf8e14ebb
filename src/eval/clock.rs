//! How well timed agents kept to their clock: each timed move's wall time over its budget
//! (`GameResult::clock`), summarised per agent as the mean, the 99th percentile and the worst.

use serde::{Deserialize, Serialize};

use super::arena::GameResult;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClockOverrun {
    pub agent: String,
    /// Timed moves measured.
    pub moves: u64,
    /// Wall time ÷ budget: mean, 99th percentile (nearest rank) and maximum.
    pub mean: f64,
    pub p99: f64,
    pub max: f64,
}

/// One row per agent (named by `names`, by index) that played timed moves in `results`.
pub fn clock_overruns(results: &[GameResult], names: &[String]) -> Vec<ClockOverrun> {
    names
        .iter()
        .enumerate()
        .filter_map(|(agent, name)| {
            let mut ratios: Vec<f64> = results
                .iter()
                .flat_map(|r| r.clock.iter())
                .filter(|(a, _)| *a == agent)
                .map(|&(_, ratio)| ratio as f64)
                .collect();
            if ratios.is_empty() {
                return None;
            }
            ratios.sort_by(f64::total_cmp);
            let n = ratios.len();
            let rank = ((0.99 * n as f64).ceil() as usize).clamp(1, n);
            Some(ClockOverrun {
                agent: name.clone(),
                moves: n as u64,
                mean: ratios.iter().sum::<f64>() / n as f64,
                p99: ratios[rank - 1],
                max: ratios[n - 1],
            })
        })
        .collect()
}

/// One line per agent, e.g. `clock of ab:t=20ms: wall time / budget mean 1.01, 99th percentile
/// 1.09, max 1.31 over 812 moves`.
pub fn describe(rows: &[ClockOverrun]) -> String {
    rows.iter()
        .map(|c| {
            format!(
                "clock of {}: wall time / budget mean {:.2}, 99th percentile {:.2}, max {:.2} over {} moves\n",
                c.agent, c.mean, c.p99, c.max, c.moves
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Outcome, Reason, Side};

    fn game(clock: Vec<(usize, f32)>) -> GameResult {
        GameResult {
            id: 0,
            attacker: 0,
            defender: 1,
            outcome: Outcome::win(Side::Defenders, Reason::KingEscaped),
            plies: 10,
            moves: vec![],
            clock,
        }
    }

    #[test]
    fn summarises_each_timed_agent_and_skips_the_others() {
        // agent 0: 1.0 x 99 and one 3.0; agent 1 untimed
        let mut first: Vec<(usize, f32)> = vec![(0, 1.0); 60];
        first.push((0, 3.0));
        let results = [game(first), game(vec![(0, 1.0); 39])];
        let rows = clock_overruns(&results, &["a".into(), "b".into()]);
        assert_eq!(rows.len(), 1);
        let a = &rows[0];
        assert_eq!((a.agent.as_str(), a.moves), ("a", 100));
        assert!((a.mean - 1.02).abs() < 1e-6, "{}", a.mean);
        // the 99th of 100 sorted ratios is still 1.0; the worst is 3.0
        assert_eq!((a.p99, a.max), (1.0, 3.0));
        let both = clock_overruns(&[game(vec![(1, 2.0), (0, 0.5)])], &["a".into(), "b".into()]);
        assert_eq!(both.len(), 2);
        assert_eq!((both[0].p99, both[1].p99), (0.5, 2.0));
        assert!(describe(&both).contains("clock of b: wall time / budget mean 2.00"));
    }
}
