//! One verdict vocabulary for every balance table: `tavlei balance`, the study's readings
//! (`experiments/balance-study/balance_stats.py` spells the same labels) and the sequential
//! mode. A column of verdicts holds these labels and no others.

use std::fmt;

use serde::{Serialize, Serializer};

use super::equivalence::Equivalence;
use super::trend_test::{TrendTest, TrendVerdict};

/// A verdict on a share (or on a ladder's shares).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// A ladder whose shares neither trend nor differ between levels, and whose two strongest
    /// levels are equivalent: the balance of these players is measured.
    Measured,
    /// Two shares agree within the margin (TOST).
    Equivalent,
    /// Two shares differ (a difference shown at 95 %).
    Different,
    /// TOST fails although the games sufficed for 80 % power at the margin.
    NotEquivalent,
    /// A share moves with the budget (the overdispersion-aware slope excludes 0).
    Trending,
    /// No slope, but the levels' shares are not one share.
    LevelsDiffer,
    /// TOST fails with fewer games a level than 80 % power at the margin needs.
    Underpowered { games: u64, needed: u64 },
    /// A sequential study reached its cap of games with neither equivalence nor a difference
    /// shown.
    Undecided,
}

impl Verdict {
    /// Every label, as a table prints it (the underpowered one without its figures).
    pub const LABELS: [&'static str; 8] = [
        "measured",
        "equivalent",
        "different",
        "not equivalent",
        "trending",
        "levels differ without a trend",
        "underpowered",
        "undecided",
    ];

    /// A ladder's verdict from the trend tests of its attacker and defender shares and the
    /// equivalence of its two strongest levels (one per share), `games` the fewer games of
    /// those two levels and `needed` the games a level 80 % power needs
    /// (`games_for_tost`). A trend outranks levels that differ, which outrank the
    /// equivalence test.
    pub fn of_ladder(
        trends: [&TrendTest; 2],
        strongest: [&Equivalence; 2],
        games: u64,
        needed: u64,
    ) -> Verdict {
        if trends.iter().any(|t| t.verdict == TrendVerdict::Trending) {
            Verdict::Trending
        } else if trends
            .iter()
            .any(|t| t.verdict == TrendVerdict::LevelsDiffer)
        {
            Verdict::LevelsDiffer
        } else {
            Self::of_equivalence(strongest, games, needed).promote()
        }
    }

    /// Two shares compared on both sides: equivalent when every TOST passes, otherwise
    /// underpowered or not equivalent by the games.
    pub fn of_equivalence(tests: [&Equivalence; 2], games: u64, needed: u64) -> Verdict {
        if tests.iter().all(|e| e.equivalent) {
            Verdict::Equivalent
        } else if games < needed {
            Verdict::Underpowered { games, needed }
        } else {
            Verdict::NotEquivalent
        }
    }

    /// A ladder's equivalent strongest levels are a measured ladder.
    fn promote(self) -> Verdict {
        match self {
            Verdict::Equivalent => Verdict::Measured,
            v => v,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = |i: usize| Verdict::LABELS[i];
        match *self {
            Verdict::Measured => f.write_str(label(0)),
            Verdict::Equivalent => f.write_str(label(1)),
            Verdict::Different => f.write_str(label(2)),
            Verdict::NotEquivalent => f.write_str(label(3)),
            Verdict::Trending => f.write_str(label(4)),
            Verdict::LevelsDiffer => f.write_str(label(5)),
            Verdict::Underpowered { games, needed } => {
                write!(f, "{} ({games} of {needed} games a level needed)", label(6))
            }
            Verdict::Undecided => f.write_str(label(7)),
        }
    }
}

/// Written as its label, so a JSON report reads like the table.
impl Serialize for Verdict {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::stats::{equivalence, trend_test, Level, Z95};

    fn ladder(wins: &[f64], games: f64) -> TrendTest {
        let levels: Vec<Level> = wins
            .iter()
            .enumerate()
            .map(|(i, &k)| Level {
                log2_budget: 3.3 + 2.0 * i as f64,
                successes: k,
                games,
            })
            .collect();
        trend_test(&levels, Z95, 0.05).expect("fits")
    }

    #[test]
    fn a_ladder_gets_one_label() {
        let flat = ladder(&[30.0, 31.0, 30.0], 100.0);
        let zigzag = ladder(&[24.0, 39.0, 23.0, 24.0], 100.0);
        let rising = ladder(&[10.0, 30.0, 50.0], 100.0);
        let close = equivalence(300.0, 1000.0, 305.0, 1000.0, 0.075);
        let loose = equivalence(30.0, 100.0, 31.0, 100.0, 0.075);
        assert_eq!(
            Verdict::of_ladder([&flat, &flat], [&close, &close], 1000, 540),
            Verdict::Measured
        );
        assert_eq!(
            Verdict::of_ladder([&flat, &zigzag], [&close, &close], 1000, 540),
            Verdict::LevelsDiffer
        );
        assert_eq!(
            Verdict::of_ladder([&zigzag, &rising], [&close, &close], 1000, 540),
            Verdict::Trending
        );
        let v = Verdict::of_ladder([&flat, &flat], [&loose, &close], 100, 540);
        assert_eq!(
            v,
            Verdict::Underpowered {
                games: 100,
                needed: 540
            }
        );
        assert_eq!(
            v.to_string(),
            "underpowered (100 of 540 games a level needed)"
        );
        assert_eq!(
            Verdict::of_ladder([&flat, &flat], [&loose, &close], 600, 540),
            Verdict::NotEquivalent
        );
        assert_eq!(
            serde_json::to_string(&Verdict::LevelsDiffer).expect("json"),
            "\"levels differ without a trend\""
        );
    }

    // The study's Python readings spell the same vocabulary: every label here is in
    // balance_stats.py's LABELS, in this order.
    #[test]
    fn the_study_scripts_use_these_labels() {
        let script = include_str!("../../../experiments/balance-study/balance_stats.py");
        let listed: String = Verdict::LABELS
            .iter()
            .map(|l| format!("    \"{l}\",\n"))
            .collect();
        assert!(
            script.contains(&format!("LABELS = (\n{listed})")),
            "balance_stats.py's LABELS differ from Verdict::LABELS"
        );
        for v in [
            Verdict::Measured,
            Verdict::Equivalent,
            Verdict::Different,
            Verdict::NotEquivalent,
            Verdict::Trending,
            Verdict::LevelsDiffer,
            Verdict::Undecided,
        ] {
            assert!(Verdict::LABELS.contains(&v.to_string().as_str()));
        }
    }
}
