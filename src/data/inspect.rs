//! Statistics of a dataset: counts, outcome shares, end reasons and game lengths.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use crate::rules::Side;

use super::dataset::Dataset;
use super::sample::Sample;

/// Bins of the game-length histogram.
pub const HISTOGRAM_BINS: u32 = 10;
/// Width of the longest histogram bar, in characters.
const BAR_WIDTH: usize = 40;

/// Games that ended for one reason.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReasonCount {
    pub reason: String,
    pub games: usize,
}

/// Games whose length lies in `from..=to` plies.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LengthBin {
    pub from: u32,
    pub to: u32,
    pub games: usize,
}

/// A shard left out of the dataset, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
}

/// What `tavlei data inspect` reports. Games are told apart by `game_id`; a game's outcome,
/// reason and length come from its first sample.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stats {
    pub dir: PathBuf,
    pub variant: Option<String>,
    pub shards: usize,
    pub skipped: Vec<Skipped>,
    pub samples: usize,
    pub games: usize,
    pub attacker_wins: usize,
    pub defender_wins: usize,
    pub draws: usize,
    /// Shares of games, 0 to 1 (0 when there are no games).
    pub attacker_share: f64,
    pub defender_share: f64,
    pub draw_share: f64,
    /// Most frequent first; ties by name.
    pub reasons: Vec<ReasonCount>,
    pub mean_length: f64,
    pub median_length: f64,
    pub min_length: u32,
    pub max_length: u32,
    pub histogram: Vec<LengthBin>,
}

struct Game<'a> {
    winner: Option<Side>,
    reason: &'a str,
    length: u32,
}

impl Stats {
    /// The statistics of a dataset's samples.
    pub fn of(data: &Dataset) -> Stats {
        let mut stats = Stats::of_samples(&data.samples);
        stats.dir = data.dir.clone();
        stats.variant = data.variant.clone();
        stats.shards = data.shards.len();
        stats.skipped = data
            .skipped
            .iter()
            .map(|(path, reason)| Skipped {
                path: path.clone(),
                reason: reason.clone(),
            })
            .collect();
        stats
    }

    /// The statistics of samples alone (no shard counts).
    pub fn of_samples(samples: &[Sample]) -> Stats {
        let mut games: BTreeMap<u64, Game> = BTreeMap::new();
        for s in samples {
            games.entry(s.game_id).or_insert_with(|| Game {
                winner: s.winner(),
                reason: &s.reason,
                length: s.game_length,
            });
        }
        let n = games.len();
        let count = |w: Option<Side>| games.values().filter(|g| g.winner == w).count();
        let (attacker_wins, defender_wins, draws) = (
            count(Some(Side::Attackers)),
            count(Some(Side::Defenders)),
            count(None),
        );
        let share = |k: usize| if n == 0 { 0.0 } else { k as f64 / n as f64 };

        let mut by_reason: BTreeMap<&str, usize> = BTreeMap::new();
        for g in games.values() {
            *by_reason.entry(g.reason).or_default() += 1;
        }
        let mut reasons: Vec<ReasonCount> = by_reason
            .into_iter()
            .map(|(reason, games)| ReasonCount {
                reason: reason.to_string(),
                games,
            })
            .collect();
        reasons.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.reason.cmp(&b.reason)));

        let mut lengths: Vec<u32> = games.values().map(|g| g.length).collect();
        lengths.sort_unstable();
        let mean_length = if n == 0 {
            0.0
        } else {
            lengths.iter().map(|&l| f64::from(l)).sum::<f64>() / n as f64
        };
        let median_length = match n {
            0 => 0.0,
            _ if n % 2 == 1 => f64::from(lengths[n / 2]),
            _ => (f64::from(lengths[n / 2 - 1]) + f64::from(lengths[n / 2])) / 2.0,
        };

        Stats {
            dir: PathBuf::new(),
            variant: None,
            shards: 0,
            skipped: Vec::new(),
            samples: samples.len(),
            games: n,
            attacker_wins,
            defender_wins,
            draws,
            attacker_share: share(attacker_wins),
            defender_share: share(defender_wins),
            draw_share: share(draws),
            reasons,
            mean_length,
            median_length,
            min_length: lengths.first().copied().unwrap_or(0),
            max_length: lengths.last().copied().unwrap_or(0),
            histogram: histogram(&lengths),
        }
    }
}

/// Up to `HISTOGRAM_BINS` bins of equal integer width from the shortest to the longest game.
fn histogram(sorted: &[u32]) -> Vec<LengthBin> {
    let (Some(&min), Some(&max)) = (sorted.first(), sorted.last()) else {
        return Vec::new();
    };
    let span = u64::from(max - min) + 1;
    let width = span.div_ceil(u64::from(HISTOGRAM_BINS));
    let bins = span.div_ceil(width);
    let mut out: Vec<LengthBin> = (0..bins)
        .map(|i| {
            let from = u64::from(min) + i * width;
            LengthBin {
                from: from as u32,
                to: (from + width - 1).min(u64::from(max)) as u32,
                games: 0,
            }
        })
        .collect();
    for &l in sorted {
        out[(u64::from(l - min) / width) as usize].games += 1;
    }
    out
}

fn bin_label(b: &LengthBin) -> String {
    if b.from == b.to {
        b.from.to_string()
    } else {
        format!("{}-{}", b.from, b.to)
    }
}

fn percent(x: f64) -> String {
    format!("{:5.1} %", 100.0 * x)
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let variant = self.variant.as_deref().unwrap_or("-");
        writeln!(f, "{:<16}{}", "dataset", self.dir.display())?;
        writeln!(f, "{:<16}{variant}", "variant")?;
        writeln!(
            f,
            "{:<16}{} ({} skipped)",
            "shards",
            self.shards,
            self.skipped.len()
        )?;
        for s in &self.skipped {
            // The reason names the file.
            writeln!(f, "  skipped: {}", s.reason)?;
        }
        writeln!(f, "{:<16}{}", "samples", self.samples)?;
        let per_game = if self.games == 0 {
            0.0
        } else {
            self.samples as f64 / self.games as f64
        };
        writeln!(
            f,
            "{:<16}{} ({per_game:.1} samples per game)",
            "games", self.games
        )?;
        for (label, n, share) in [
            ("attackers won", self.attacker_wins, self.attacker_share),
            ("defenders won", self.defender_wins, self.defender_share),
            ("draws", self.draws, self.draw_share),
        ] {
            writeln!(f, "  {label:<14}{n:>8}  {}", percent(share))?;
        }
        if !self.reasons.is_empty() {
            writeln!(f, "end reasons")?;
            let share = |k: usize| k as f64 / self.games.max(1) as f64;
            for r in &self.reasons {
                writeln!(
                    f,
                    "  {:<14}{:>8}  {}",
                    r.reason,
                    r.games,
                    percent(share(r.games))
                )?;
            }
        }
        writeln!(
            f,
            "{:<16}mean {:.1}  median {:.1}  min {}  max {}",
            "game length", self.mean_length, self.median_length, self.min_length, self.max_length
        )?;
        let most = self.histogram.iter().map(|b| b.games).max().unwrap_or(0);
        if most > 0 {
            writeln!(f, "length histogram (plies)")?;
            let label_width = self
                .histogram
                .iter()
                .map(|b| bin_label(b).len())
                .max()
                .unwrap_or(0);
            for b in &self.histogram {
                let bar = (b.games * BAR_WIDTH).div_ceil(most);
                let label = bin_label(b);
                writeln!(
                    f,
                    "  {label:>label_width$} |{:<BAR_WIDTH$}| {}",
                    "#".repeat(bar),
                    b.games
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::sample::tests::start_sample;
    use crate::rules::Variant;

    /// One sample per game: (side to move, result, length, reason).
    fn games(spec: &[(Side, f32, u32, &str)]) -> Vec<Sample> {
        let v = Variant::load("brandubh").expect("preset");
        spec.iter()
            .enumerate()
            .map(|(i, &(side, result, len, reason))| Sample {
                side_to_move: side,
                result,
                game_length: len,
                reason: reason.into(),
                ..start_sample(&v, i as u64, 0)
            })
            .collect()
    }

    #[test]
    fn counts_games_not_samples() {
        let mut samples = games(&[
            (Side::Attackers, 1.0, 10, "king_captured"),
            (Side::Attackers, -1.0, 20, "king_escaped"),
            (Side::Defenders, 0.0, 30, "repetition"),
            (Side::Defenders, 1.0, 41, "king_escaped"),
        ]);
        // A second sample of game 1, from the other side: same outcome.
        let mut extra = samples[1].clone();
        extra.side_to_move = Side::Defenders;
        extra.result = 1.0;
        samples.push(extra);
        let s = Stats::of_samples(&samples);
        assert_eq!((s.samples, s.games), (5, 4));
        assert_eq!((s.attacker_wins, s.defender_wins, s.draws), (1, 2, 1));
        assert_eq!(
            (s.attacker_share, s.defender_share, s.draw_share),
            (0.25, 0.5, 0.25)
        );
        assert_eq!(
            s.reasons[0],
            ReasonCount {
                reason: "king_escaped".into(),
                games: 2
            }
        );
        assert_eq!(s.reasons.len(), 3);
        assert_eq!(s.mean_length, 25.25);
        assert_eq!(s.median_length, 25.0);
        assert_eq!((s.min_length, s.max_length), (10, 41));
        // 32 lengths 10..=41 in bins of 4.
        assert_eq!(s.histogram.len(), 8);
        assert_eq!((s.histogram[0].from, s.histogram[0].to), (10, 13));
        assert_eq!((s.histogram[7].from, s.histogram[7].to), (38, 41));
        let counts: Vec<usize> = s.histogram.iter().map(|b| b.games).collect();
        assert_eq!(counts, [1, 0, 1, 0, 0, 1, 0, 1]);
        let text = s.to_string();
        assert!(
            text.contains("king_escaped") && text.contains(" 50.0 %"),
            "{text}"
        );
        assert!(
            text.contains("38-41 |") && text.contains("median 25.0"),
            "{text}"
        );
    }

    #[test]
    fn histogram_covers_every_length() {
        for lengths in [vec![5], vec![1, 100], (0..=57).collect::<Vec<u32>>()] {
            let h = histogram(&lengths);
            assert!(h.len() as u32 <= HISTOGRAM_BINS);
            assert_eq!(h.iter().map(|b| b.games).sum::<usize>(), lengths.len());
            assert_eq!(h[0].from, lengths[0]);
            assert_eq!(h.last().expect("bin").to, *lengths.last().expect("len"));
            for w in h.windows(2) {
                assert_eq!(w[0].to + 1, w[1].from);
            }
        }
    }

    #[test]
    fn empty_dataset_has_zero_stats() {
        let s = Stats::of_samples(&[]);
        assert_eq!((s.games, s.attacker_share, s.mean_length), (0, 0.0, 0.0));
        assert!(s.histogram.is_empty());
        let _ = s.to_string();
        let json = serde_json::to_value(&s).expect("serializes");
        assert_eq!(json["games"], 0);
    }
}
