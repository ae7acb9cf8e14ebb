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
    balance_ratio, equivalence, games_for_tost, side_advantage, side_constancy, trend_test, wilson,
    Equivalence, Level, Look, Ratio, SequentialDecision, SideAdvantage, SideConstancy, SideGames,
    SideOptions, TrendTest, TrendVerdict, Verdict, Z95,
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
    /// The defenders' advantage in Elo in this level's games (a Bradley–Terry side parameter;
    /// draws half a point), with its 95% interval.
    pub side_advantage: Option<SideAdvantage>,
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
    /// On the strongest level of a sequential study (`tavlei balance --sequential`): its looks
    /// and decision. Absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequential: Option<SequentialReport>,
}

/// A sequential study of a variant's two strongest levels: both play rounds of games until
/// their attackers' and defenders' shares are shown equivalent within the margin or different,
/// or the cap is reached (`stats::SequentialDesign::for_pairs`, α spent by O'Brien–Fleming).
#[derive(Clone, Debug, Serialize)]
pub struct SequentialReport {
    /// Games a level each round adds, and the most a level plays.
    pub round: u64,
    pub cap: u64,
    pub margin: f64,
    pub alpha: f64,
    /// Games a level at each look the design plans (the last is the cap).
    pub planned: Vec<u64>,
    /// The looks taken, in order; the last decided (or reached the cap).
    pub looks: Vec<SequentialLook>,
}

/// One look of a sequential study: the strongest level against the one below it.
#[derive(Clone, Debug, Serialize)]
pub struct SequentialLook {
    /// Games a level so far.
    pub games: u64,
    pub decision: SequentialDecision,
    /// The attackers' share, strongest level minus the one below, with both tests' statistics
    /// and bounds at this look; the defenders' alike.
    pub attackers: Look,
    pub defenders: Look,
    /// The nominal α spent by this look: by each side of each TOST, and by the difference test
    /// over both shares.
    pub equivalence_alpha_spent: f64,
    pub difference_alpha_spent: f64,
}

impl SequentialReport {
    /// The look that ended the study (none before the first look is taken).
    pub fn last(&self) -> Option<&SequentialLook> {
        self.looks.last()
    }

    /// The study's decision in the one vocabulary: equivalent, different or undecided (a study
    /// stopped before its decision also reads undecided).
    pub fn verdict(&self) -> Verdict {
        match self.last().map(|l| l.decision) {
            Some(SequentialDecision::Equivalent) => Verdict::Equivalent,
            Some(SequentialDecision::Different) => Verdict::Different,
            _ => Verdict::Undecided,
        }
    }

    /// The decision with the look it came at, the games used and the α spent.
    pub fn describe(&self) -> String {
        let Some(last) = self.last() else {
            return "sequential: no look taken".into();
        };
        format!(
            "sequential: {} at look {} of {} ({} of {} games a level, rounds of {}; nominal alpha spent: equivalence {:.4}, difference {:.4})",
            self.verdict(),
            self.looks.len(),
            self.planned.len(),
            last.games,
            self.cap,
            self.round,
            last.equivalence_alpha_spent,
            last.difference_alpha_spent
        )
    }
}

/// The agent of a study that names none (a user's own variant file, say): alpha-beta with a
/// quiescence search of 4 plies, at the fixed depths of `DEFAULT_LEVELS`. Plain alpha-beta's
/// share follows the parity of the depth where its search stops (Copenhagen's attackers 78 / 76 %
/// at depths 2 / 4, 20 / 2 % at 3 / 5; time levels mix the parities), so the default's levels
/// are fixed depths of one parity, and quiescence narrows what is left of the horizon effect
/// (Sea Tafl's even-odd gap 46 points plain, 14 with it; experiments/balance-study/README.md).
/// The settings file is the repository's, built into the binary, so the default works from any
/// directory.
pub const DEFAULT_AGENT: &str = "ab:4:eval=configs/alphabeta/quiescence.toml";
/// The default agent's levels: even depths, weakest first.
pub const DEFAULT_LEVELS: [&str; 2] = ["2", "4"];

/// The default equivalence margin of the two strongest levels: ±7.5 points of share.
pub const EQUIVALENCE_MARGIN: f64 = 0.075;

/// Whether a variant's balance has stopped moving with the players' strength: on its strongest
/// level, the trend test of each share over all its levels, the equivalence (TOST) of its two
/// strongest levels, the games that test needs, and the defenders' advantage over all levels.
#[derive(Clone, Debug, Serialize)]
pub struct Convergence {
    /// Each share's log-odds slope per doubling of the budget with its goodness of fit and
    /// overdispersion-aware interval (`stats::trend_test`, 95%).
    pub attacker_trend: TrendTest,
    pub defender_trend: TrendTest,
    /// The strongest level's share minus the one below it (90% interval, TOST at the margin).
    pub attacker_equivalence: Equivalence,
    pub defender_equivalence: Equivalence,
    /// Games a level for 80% power of that TOST were the two levels' shares equal (the larger
    /// of the two sides').
    pub games_needed: u64,
    /// The defenders' advantage in Elo over every level's games (one player a level), and
    /// whether it holds across the levels.
    pub side_advantage: Option<SideConstancy>,
    /// One label of `stats::Verdict`: measured, trending, levels differ without a trend,
    /// underpowered (n of N games a level needed) or not equivalent.
    pub verdict: Verdict,
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
        let sides = [("att", &self.attacker_trend), ("def", &self.defender_trend)];
        let which = |v: TrendVerdict| sides.iter().find(|(_, t)| t.verdict == v);
        let figure = match self.verdict {
            Verdict::Trending => which(TrendVerdict::Trending).map(|(side, t)| {
                format!(
                    "{side} {:+.2} [{:+.2}, {:+.2}] a doubling",
                    t.slope, t.quasi_low, t.quasi_high
                )
            }),
            Verdict::LevelsDiffer => which(TrendVerdict::LevelsDiffer).map(|(side, t)| {
                format!(
                    "{side} levels p = {:.2}, line fit p = {:.2}",
                    t.levels_p, t.fit_p
                )
            }),
            Verdict::NotEquivalent | Verdict::Underpowered { .. } => Some(format!(
                "att {}, def {} pts",
                pts(&self.attacker_equivalence),
                pts(&self.defender_equivalence)
            )),
            _ => None,
        };
        let mut text = match (figure, self.verdict) {
            (Some(f), Verdict::Underpowered { games, needed }) => {
                format!("underpowered ({games} of {needed} games a level needed; {f})")
            }
            (Some(f), v) => format!("{v} ({f})"),
            (None, v) => v.to_string(),
        };
        if let Some(side) = &self.side_advantage {
            text += &format!(
                "; defenders {:+.0} [{:+.0}, {:+.0}] Elo over the levels{}",
                side.pooled.elo,
                side.pooled.low,
                side.pooled.high,
                if side.drifts { ", drifting" } else { "" }
            );
        }
        text
    }
}

/// Tests, for each variant studied at two or more budgets, whether its balance has converged
/// (`BalanceReport::convergence` on its strongest level): the trend test of the attacker and
/// defender shares over the levels, TOST between the two strongest at `margin` with the games
/// 80% power needs, and the defenders' advantage in Elo over all levels. Levels are taken in
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
            trend_test(&levels(|r| r.attacker_wins), Z95, 0.05),
            trend_test(&levels(|r| r.defender_wins), Z95, 0.05),
        ) else {
            continue; // levels of one budget: no trend to fit
        };
        let (b, t) = (&reports[below], &reports[top]);
        let tost = |tk: u64, bk: u64| {
            equivalence(tk as f64, t.games as f64, bk as f64, b.games as f64, margin)
        };
        let attacker_equivalence = tost(t.attacker_wins, b.attacker_wins);
        let defender_equivalence = tost(t.defender_wins, b.defender_wins);
        // the pooled share, regularised so a side that never won still needs games
        let needed = |wins: fn(&BalanceReport) -> u64| {
            let share = (wins(t) + wins(b)) as f64 + 0.5;
            games_for_tost(share / (t.games + b.games + 1) as f64, margin, 0.80).unwrap_or(0)
        };
        let games_needed = needed(|r| r.attacker_wins).max(needed(|r| r.defender_wins));
        let verdict = Verdict::of_ladder(
            [&attacker_trend, &defender_trend],
            [&attacker_equivalence, &defender_equivalence],
            t.games.min(b.games),
            games_needed,
        );
        // one player a level, its self-play games its own band
        let games: Vec<SideGames> = mine
            .iter()
            .enumerate()
            .map(|(level, &i)| self_play(level, &reports[i]))
            .collect();
        let side_advantage = side_constancy(mine.len(), &games, &SideOptions::default()).ok();
        reports[top].convergence = Some(Convergence {
            attacker_trend,
            defender_trend,
            attacker_equivalence,
            defender_equivalence,
            games_needed,
            side_advantage,
            verdict,
        });
    }
}

/// A level's self-play games as games of player `level` against itself, in band `level`.
fn self_play(level: usize, r: &BalanceReport) -> SideGames {
    SideGames {
        attacker: level,
        defender: level,
        band: level,
        defender_points: r.defender_wins as f64 + 0.5 * r.draws as f64,
        games: r.games as f64,
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
    let mut report = BalanceReport {
        convergence: None,
        sequential: None,
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
        side_advantage: None,
        mean_length: lengths.iter().map(|&l| l as f64).sum::<f64>() / n.max(1) as f64,
        median_length: median,
        reasons,
        seconds,
    };
    report.side_advantage = side_advantage(1, &[self_play(0, &report)], &SideOptions::default())
        .ok()
        .map(|fit| fit.advantage);
    report
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
    let openings = balance_openings(start, games, opts, seed);
    run_balance_from(
        start,
        &mut [agent],
        games,
        openings.as_ref(),
        opts,
        seed,
        store,
        progress,
    )
}

/// As `run_balance`, from the openings given: a sequential study draws them once for its cap,
/// so a game's opening does not depend on the look that played it.
#[allow(clippy::too_many_arguments)]
pub fn run_balance_from(
    start: &Position,
    agents: &mut [Agent; 1],
    games: u64,
    openings: Option<&DrawnOpenings>,
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
    let results = play_balance_games(
        start,
        agents,
        games,
        0..games,
        opts,
        openings,
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
    report.openings = openings.map(DrawnOpenings::used).unwrap_or_default();
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
            level("x", 5.0, 60, 40),
            level("x", 20.0, 40, 60),
            level("x", 80.0, 22, 78),
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
        let verdicts: Vec<Option<String>> = reports
            .iter()
            .map(|r| r.convergence.as_ref().map(|c| c.verdict.to_string()))
            .collect();
        let some = |v: &str| Some(v.to_string());
        assert_eq!(
            verdicts,
            vec![
                None,
                None,
                some("trending"),
                None,
                None,
                some("measured"),
                None,
                some("underpowered (20 of 762 games a level needed)"),
                None
            ],
            "only the strongest level of a variant with two or more is marked"
        );
        let x = reports[2].convergence.as_ref().expect("marked");
        assert!(x.attacker_trend.slope < 0.0 && x.attacker_trend.quasi_high < 0.0);
        assert!(
            x.describe().starts_with("trending (att"),
            "{}",
            x.describe()
        );
        let n = reports[7].convergence.as_ref().expect("marked");
        assert_eq!(n.attacker_equivalence.difference, 0.0);
        assert!(n.attacker_equivalence.high > EQUIVALENCE_MARGIN);
        // the defenders' edge: 50 % over all of m's levels is 0 Elo, constant; x's drifts
        let m = reports[5].convergence.as_ref().expect("marked");
        let side = m.side_advantage.as_ref().expect("fits");
        assert!(side.pooled.elo.abs() < 1e-6 && !side.drifts, "{side:?}");
        assert!(x.side_advantage.as_ref().expect("fits").drifts);
        assert!(
            x.describe().contains("Elo over the levels, drifting"),
            "{}",
            x.describe()
        );
        // each level's own: 90 of 100 to the defenders is about +380 Elo
        let z = reports[8].side_advantage.expect("fits");
        assert!(
            (300.0..400.0).contains(&z.elo) && z.low < z.elo && z.elo < z.high,
            "{z:?}"
        );
    }

    // The Copenhagen and Brandubh alpha-beta ladders as stored (experiments/balance-study/
    // ladders/*/ab/balance.json): the zigzags the old verdicts called "trending" (Copenhagen)
    // and "not equivalent" (Brandubh) are levels that differ without a trend.
    #[test]
    fn stored_ladders_read_as_levels_that_differ() {
        let draws = |r: &mut BalanceReport, x: u64| {
            r.draws = x;
            r.games += x;
        };
        let mut reports = Vec::new();
        for (ms, a, d, x) in [
            (10.0, 2, 47, 1),
            (40.0, 1, 46, 3),
            (160.0, 39, 11, 0),
            (640.0, 0, 50, 0),
        ] {
            let mut r = level("copenhagen", ms, a, d);
            draws(&mut r, x);
            reports.push(r);
        }
        for (ms, a, d, x) in [
            (10.0, 24, 74, 2),
            (40.0, 39, 61, 0),
            (160.0, 23, 76, 1),
            (640.0, 24, 76, 0),
        ] {
            let mut r = level("brandubh", ms, a, d);
            draws(&mut r, x);
            reports.push(r);
        }
        mark_convergence(&mut reports, EQUIVALENCE_MARGIN);
        for top in [3, 7] {
            let c = reports[top].convergence.as_ref().expect("marked");
            assert_eq!(c.verdict, Verdict::LevelsDiffer, "{}", c.describe());
            assert_eq!(c.attacker_trend.verdict, TrendVerdict::LevelsDiffer);
        }
    }
}
