//! The balance of a variant: one agent plays both sides against itself; the attacker, defender
//! and draw shares with Wilson intervals, the seeds' ratio (defender wins ÷ attacker wins), game
//! lengths and end reasons. Games are stored as they finish, so a study resumes where it stopped.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use super::agent::{Agent, EvalError};
use super::arena::{play_games, GameResult, GameSetup, PlayOptions};
use super::clock::{clock_overruns, ClockOverrun};
use super::game_store::{claim_files, file_hashes, load_stored, GameAppender};
use super::openings::{evaluation_openings, DrawnOpenings, OpeningsUsed};
use super::stats::{
    balance_ratio, equivalence, trend, wilson, Equivalence, Level, Ratio, Trend, Z95,
};
use crate::interop::record::game_record;
use crate::rules::{Position, Reason, Side};

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Share {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

fn share(count: u64, n: u64) -> Share {
    let (low, high) = wilson(count as f64, n as f64, Z95);
    Share {
        value: count as f64 / n.max(1) as f64,
        low,
        high,
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct BalanceReport {
    pub variant: String,
    pub agent: String,
    /// The agent's simulations per move (0 when it plays on time).
    pub simulations: u32,
    /// The agent's time per move in milliseconds (0 when it plays on simulations).
    #[serde(default)]
    pub time_ms: f64,
    pub games: u64,
    /// Games whose move lists differ from every other game's (copies count once).
    #[serde(default)]
    pub distinct_games: u64,
    /// The openings the games started from.
    #[serde(default)]
    pub openings: OpeningsUsed,
    pub attacker_wins: u64,
    pub defender_wins: u64,
    pub draws: u64,
    pub attackers: Share,
    pub defenders: Share,
    pub draw: Share,
    /// Defender wins ÷ attacker wins, with a 95% interval.
    pub ratio: Ratio,
    pub mean_length: f64,
    pub median_length: f64,
    pub reasons: Vec<(String, u64)>,
    /// Wall seconds this invocation spent on the level: a level resumed from its store counts
    /// only the games it played now (0 when every game was stored).
    pub seconds: f64,
    /// On the strongest level of a variant studied at several budgets: whether its balance has
    /// converged (`mark_convergence`). `None` elsewhere.
    pub convergence: Option<Convergence>,
    /// How well the agent kept to its clock (absent without a time budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockOverrun>,
}

/// The default equivalence margin of the two strongest levels: ±7.5 points of share.
pub const EQUIVALENCE_MARGIN: f64 = 0.075;

/// Whether a variant's balance has stopped moving with the players' strength: on its strongest
/// level, the trend of each share over all its levels and the equivalence (TOST) of its two
/// strongest levels.
#[derive(Clone, Debug, Serialize)]
pub struct Convergence {
    /// The log-odds slope of the attackers' and the defenders' share per doubling of the budget
    /// (95% interval).
    pub attacker_trend: Trend,
    pub defender_trend: Trend,
    /// The strongest level's share minus the one below it (90% interval, TOST at the margin).
    pub attacker_equivalence: Equivalence,
    pub defender_equivalence: Equivalence,
    /// `measured` (both equivalent, neither trending), `trending` or `not equivalent`.
    pub verdict: &'static str,
}

impl Convergence {
    /// The verdict in a few words, with the figure behind it.
    pub fn describe(&self) -> String {
        let pts = |e: &Equivalence| {
            format!(
                "{:+.1} [{:+.1}, {:+.1}]",
                100.0 * e.difference,
                100.0 * e.low,
                100.0 * e.high
            )
        };
        match self.verdict {
            "trending" => format!(
                "trending (slope att {:+.2}, def {:+.2} a doubling)",
                self.attacker_trend.slope, self.defender_trend.slope
            ),
            "not equivalent" => format!(
                "not equivalent (att {}, def {} pts)",
                pts(&self.attacker_equivalence),
                pts(&self.defender_equivalence)
            ),
            v => v.to_string(),
        }
    }
}

/// Tests, for each variant studied at two or more budgets, whether its balance has converged
/// (`BalanceReport::convergence` on its strongest level): the trend of the attacker and defender
/// shares over the levels, and TOST between the two strongest at `margin`. Levels are taken in
/// the order given (weakest first), as `tavlei balance --levels` lists them.
pub fn mark_convergence(reports: &mut [BalanceReport], margin: f64) {
    let mut variants: Vec<String> = reports.iter().map(|r| r.variant.clone()).collect();
    variants.dedup();
    for name in variants {
        let mine: Vec<usize> = (0..reports.len())
            .filter(|&i| reports[i].variant == name)
            .collect();
        let [.., below, top] = mine[..] else {
            continue;
        };
        let levels = |wins: fn(&BalanceReport) -> u64| -> Vec<Level> {
            mine.iter()
                .map(|&i| Level {
                    log2_budget: log2_budget(&reports[i]),
                    successes: wins(&reports[i]) as f64,
                    games: reports[i].games as f64,
                })
                .collect()
        };
        let (Ok(attacker_trend), Ok(defender_trend)) = (
            trend(&levels(|r| r.attacker_wins), Z95),
            trend(&levels(|r| r.defender_wins), Z95),
        ) else {
            continue; // levels of one budget: no trend to fit
        };
        let (b, t) = (&reports[below], &reports[top]);
        let tost = |tk: u64, bk: u64| {
            equivalence(tk as f64, t.games as f64, bk as f64, b.games as f64, margin)
        };
        let attacker_equivalence = tost(t.attacker_wins, b.attacker_wins);
        let defender_equivalence = tost(t.defender_wins, b.defender_wins);
        let verdict = if attacker_trend.trending || defender_trend.trending {
            "trending"
        } else if attacker_equivalence.equivalent && defender_equivalence.equivalent {
            "measured"
        } else {
            "not equivalent"
        };
        reports[top].convergence = Some(Convergence {
            attacker_trend,
            defender_trend,
            attacker_equivalence,
            defender_equivalence,
            verdict,
        });
    }
}

/// A level's budget on a log scale: log2 of its simulations, or of its milliseconds a move.
pub fn log2_budget(r: &BalanceReport) -> f64 {
    if r.time_ms > 0.0 {
        r.time_ms.log2()
    } else {
        (r.simulations.max(1) as f64).log2()
    }
}

pub fn summarise(
    variant: &str,
    agent: &str,
    simulations: u32,
    results: &[GameResult],
    seconds: f64,
) -> BalanceReport {
    let n = results.len() as u64;
    let count =
        |side: Option<Side>| results.iter().filter(|r| r.outcome.winner == side).count() as u64;
    let (a, d, x) = (
        count(Some(Side::Attackers)),
        count(Some(Side::Defenders)),
        count(None),
    );
    let mut lengths: Vec<u32> = results.iter().map(|r| r.plies).collect();
    lengths.sort_unstable();
    let median = match lengths.len() {
        0 => 0.0,
        k if k % 2 == 1 => lengths[k / 2] as f64,
        k => (lengths[k / 2 - 1] + lengths[k / 2]) as f64 / 2.0,
    };
    let reasons = Reason::ALL
        .iter()
        .map(|r| {
            (
                r.name().to_string(),
                results.iter().filter(|g| g.outcome.reason == *r).count() as u64,
            )
        })
        .filter(|(_, k)| *k > 0)
        .collect();
    BalanceReport {
        convergence: None,
        clock: clock_overruns(results, &[agent.to_string()]).pop(),
        variant: variant.into(),
        agent: agent.into(),
        simulations,
        time_ms: 0.0,
        games: n,
        distinct_games: results
            .iter()
            .map(|r| &r.moves)
            .collect::<std::collections::HashSet<_>>()
            .len() as u64,
        openings: OpeningsUsed::default(),
        attacker_wins: a,
        defender_wins: d,
        draws: x,
        attackers: share(a, n),
        defenders: share(d, n),
        draw: share(x, n),
        ratio: balance_ratio(d as f64, a as f64, n as f64),
        mean_length: lengths.iter().map(|&l| l as f64).sum::<f64>() / n.max(1) as f64,
        median_length: median,
        reasons,
        seconds,
    }
}

/// Where a study keeps its games: `DIR/VARIANT__AGENT.jsonl` (and `.txt` records beside it).
pub fn store_path(dir: &Path, variant: &str, agent: &str) -> PathBuf {
    let clean: String = agent
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("{variant}__{clean}.jsonl"))
}

/// The openings of a study of `games` games: drawn without replacement from the distinct
/// openings of at least `opts.opening_plies` plies (`None` for dice variants, whose games start
/// with random plies, and with `opening_plies` 0). Every unit of a study draws the same ones.
pub fn balance_openings(
    start: &Position,
    games: u64,
    opts: &PlayOptions,
    seed: u64,
) -> Option<DrawnOpenings> {
    evaluation_openings(
        start,
        games,
        opts.opening_plies,
        opts.opening_policy.as_ref(),
        seed,
    )
}

/// Plays the games of ids `only` (of a study of `games` games) that `store` lacks, from the
/// study's openings (`balance_openings`; random plies without them), appending each to `store`
/// as it finishes, and returns those ids' games, old and new, in id order. A cluster unit
/// plays a block of ids into a store of its own; its lines are those a whole study appends.
#[allow(clippy::too_many_arguments)]
pub fn play_balance_games(
    start: &Position,
    agents: &mut [Agent; 1],
    games: u64,
    only: std::ops::Range<u64>,
    opts: &PlayOptions,
    openings: Option<&DrawnOpenings>,
    seed: u64,
    store: &Path,
    progress: &mut dyn FnMut(&GameResult),
) -> Result<Vec<GameResult>, EvalError> {
    // a store is named by its agent's text: a network retrained under the same path is refused
    claim_files(store, &file_hashes(agents[0].spec.files())?)?;
    // the stored games are kept as they are (a study asked for fewer games uses the first ones,
    // and one asked for more again finds them all); new games are appended
    let mut results: Vec<GameResult> = load_stored(store)?
        .into_iter()
        .filter(|r| only.contains(&r.id) && r.id < games)
        .collect();
    results.sort_by_key(|r| r.id);
    results.dedup_by_key(|r| r.id);
    let have: std::collections::HashSet<u64> = results.iter().map(|r| r.id).collect();
    let opts = &PlayOptions {
        openings: Arc::new(openings.map_or_else(Vec::new, |d| d.lines.clone())),
        ..opts.clone()
    };
    let setups: Vec<GameSetup> = only
        .filter(|id| *id < games && !have.contains(id))
        .map(|id| {
            let s =
                seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ id.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            GameSetup {
                id,
                attacker: 0,
                defender: 0,
                opening_seed: s,
                opening: openings.map(|d| id as usize % d.lines.len()),
                seed: s.rotate_left(29),
            }
        })
        .collect();
    let mut appender = GameAppender::open(store)?;
    let new = play_games(start, agents, &setups, opts, &mut |r| {
        progress(r);
        // a store that cannot take more games stops the study: no game is played for nothing
        appender.append(r)
    });
    appender.finish()?;
    results.extend(new);
    results.sort_by_key(|r| r.id);
    Ok(results)
}

/// Plays (or finishes) `games` self-play games of `agent` and reports the balance.
pub fn run_balance(
    start: &Position,
    agent: Agent,
    games: u64,
    opts: &PlayOptions,
    seed: u64,
    store: &Path,
    progress: &mut dyn FnMut(&GameResult),
) -> Result<BalanceReport, EvalError> {
    let clock = std::time::Instant::now();
    let io = |e: std::io::Error| EvalError::Io {
        path: store.to_path_buf(),
        message: e.to_string(),
    };
    let mut agents = [agent];
    let openings = balance_openings(start, games, opts, seed);
    let results = play_balance_games(
        start,
        &mut agents,
        games,
        0..games,
        opts,
        openings.as_ref(),
        seed,
        store,
        progress,
    )?;
    // the games as records `tavlei replay` reads
    let variant = start.variant();
    let mut records = String::new();
    for r in &results {
        records += &format!("# game {} ({} vs itself)\n", r.id, agents[0].spec.text);
        records += &game_record(variant, &r.moves, Some(r.outcome));
    }
    crate::atomic::write(&store.with_extension("txt"), &records).map_err(|e| io(e.into()))?;
    let mut report = summarise(
        variant.name(),
        &agents[0].spec.text,
        agents[0].spec.simulations(),
        &results,
        clock.elapsed().as_secs_f64(),
    );
    report.time_ms = agents[0].spec.time().map_or(0.0, |t| t.as_secs_f64() * 1e3);
    report.openings = openings
        .as_ref()
        .map(DrawnOpenings::used)
        .unwrap_or_default();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Outcome;

    /// A level of a study: `a` attacker wins and `d` defender wins.
    fn level(variant: &str, ms: f64, a: u64, d: u64) -> BalanceReport {
        let results: Vec<GameResult> = (0..a + d)
            .map(|id| GameResult {
                id,
                attacker: 0,
                defender: 0,
                outcome: if id < a {
                    Outcome::win(Side::Attackers, Reason::KingCaptured)
                } else {
                    Outcome::win(Side::Defenders, Reason::KingEscaped)
                },
                plies: 40,
                moves: vec![],
                clock: vec![],
            })
            .collect();
        let mut report = summarise(variant, &format!("ab:t={ms}ms"), 0, &results, 1.0);
        report.time_ms = ms;
        report
    }

    #[test]
    fn convergence_is_trend_and_equivalence_on_the_strongest_level() {
        let mut reports = vec![
            // a share that falls with the budget: trending
            level("x", 5.0, 90, 10),
            level("x", 20.0, 45, 55),
            level("x", 80.0, 40, 60),
            // the same shares at every level, 400 games each: measured
            level("m", 10.0, 200, 200),
            level("m", 20.0, 200, 200),
            level("m", 40.0, 200, 200),
            // the same shares in 20 games: intervals wider than the margin
            level("n", 10.0, 10, 10),
            level("n", 20.0, 10, 10),
            level("z", 80.0, 10, 90),
        ];
        mark_convergence(&mut reports, EQUIVALENCE_MARGIN);
        let verdicts: Vec<Option<&str>> = reports
            .iter()
            .map(|r| r.convergence.as_ref().map(|c| c.verdict))
            .collect();
        assert_eq!(
            verdicts,
            vec![
                None,
                None,
                Some("trending"),
                None,
                None,
                Some("measured"),
                None,
                Some("not equivalent"),
                None
            ],
            "only the strongest level of a variant with two or more is marked"
        );
        let x = reports[2].convergence.as_ref().expect("marked");
        assert!(x.attacker_trend.slope < 0.0 && x.attacker_trend.high < 0.0);
        assert!(x.describe().starts_with("trending"), "{}", x.describe());
        let n = reports[7].convergence.as_ref().expect("marked");
        assert_eq!(n.attacker_equivalence.difference, 0.0);
        assert!(n.attacker_equivalence.high > EQUIVALENCE_MARGIN);
    }
}
