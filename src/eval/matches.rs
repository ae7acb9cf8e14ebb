//! Paired matches (each pair plays one opening twice, sides swapped, so the asymmetry of the game
//! cancels) with Elo, pentanomial statistics and SPRT; and round-robin ladders rated by
//! Bradley–Terry.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::agent::Agent;
use super::arena::{play_games, GameResult, GameSetup, PlayOptions};
use super::clock::{clock_overruns, ClockOverrun};
use super::openings::{evaluation_openings, OpeningsUsed};
use super::stats::{
    elo_interval_trinomial, pair_dispersion, sprt_bounds, sprt_llr, try_bradley_terry,
    BradleyTerryOptions, EloEstimate, Pentanomial, Rating, SprtDecision, StatsError, Z95,
};
use crate::rules::Position;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
}

/// Why SPRT settings were refused.
#[derive(Debug, thiserror::Error)]
pub enum SprtError {
    #[error("`{text}` is not four numbers elo0,elo1,alpha,beta")]
    NotNumbers { text: String },
    #[error("`{text}` has {count} numbers, not four (elo0,elo1,alpha,beta)")]
    Count { text: String, count: usize },
    #[error("`{text}`: {source}")]
    Invalid {
        text: String,
        source: crate::eval::stats::StatsError,
    },
}

impl Sprt {
    /// Parses `elo0,elo1,alpha,beta`, checked by the one SPRT validator
    /// ([`crate::eval::stats::validate_sprt`]); the error says what is wrong.
    pub fn parse(text: &str) -> Result<Sprt, SprtError> {
        let v: Vec<f64> = text
            .split(',')
            .map(|s| s.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| SprtError::NotNumbers { text: text.into() })?;
        let &[elo0, elo1, alpha, beta] = v.as_slice() else {
            return Err(SprtError::Count {
                text: text.into(),
                count: v.len(),
            });
        };
        crate::eval::stats::validate_sprt(elo0, elo1, alpha, beta).map_err(|source| {
            SprtError::Invalid {
                text: text.into(),
                source,
            }
        })?;
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }
}

impl std::str::FromStr for Sprt {
    type Err = SprtError;

    fn from_str(text: &str) -> Result<Sprt, SprtError> {
        Sprt::parse(text)
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Wdl {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Wdl {
    fn add(&mut self, score: f64) {
        match score {
            s if s > 0.75 => self.wins += 1,
            s if s < 0.25 => self.losses += 1,
            _ => self.draws += 1,
        }
    }
}

/// How A's decided games on one side ended, by end reason (`Reason::name`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ends {
    pub wins: BTreeMap<String, u64>,
    pub losses: BTreeMap<String, u64>,
}

/// A's decided games by side and end reason: a win by the opponent's repetition is not an
/// attack, so a report says which wins came how.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EndsBySide {
    pub attacking: Ends,
    pub defending: Ends,
}

impl EndsBySide {
    fn add(&mut self, r: &GameResult) {
        let ends = if r.attacker == 0 {
            &mut self.attacking
        } else {
            &mut self.defending
        };
        let tally = match r.score_of(0) {
            s if s > 0.75 => &mut ends.wins,
            s if s < 0.25 => &mut ends.losses,
            _ => return,
        };
        *tally
            .entry(r.outcome.reason.name().to_string())
            .or_default() += 1;
    }
}

impl Ends {
    /// `king_captured 33, repetition 2`, or `none`.
    pub fn describe(tally: &BTreeMap<String, u64>) -> String {
        let parts: Vec<String> = tally.iter().map(|(r, n)| format!("{r} {n}")).collect();
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join(", ")
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SprtReport {
    pub test: Sprt,
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub decision: String,
    /// The complete pairs the decision rests on: when the test stops at a bound, the pairs at
    /// that moment (games still in flight then finish, and count in the match's other figures,
    /// but do not overturn the decision).
    #[serde(default)]
    pub pairs: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatchReport {
    pub a: String,
    pub b: String,
    pub pairs: u64,
    pub games: u64,
    /// A's results overall, as attacker and as defender.
    pub total: Wdl,
    pub as_attacker: Wdl,
    pub as_defender: Wdl,
    /// How A's wins and losses on each side ended (absent in reports written before it was
    /// counted).
    #[serde(default)]
    pub ends: EndsBySide,
    pub score: f64,
    /// Elo of A over B from the game results, and from the pairs (pentanomial).
    pub elo_games: EloEstimate,
    pub elo_pairs: EloEstimate,
    pub pentanomial: [u64; 5],
    pub sprt: Option<SprtReport>,
    /// How well each timed agent kept to its clock (none without time budgets).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clock: Vec<ClockOverrun>,
    /// The openings the pairs started from, one distinct opening a pair (none: random plies,
    /// as in dice variants and in reports written before openings were drawn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<OpeningsUsed>,
}

/// `opts` with the openings of a match or ladder of `pairs` pairs: drawn without replacement
/// (`evaluation_openings`), pair `p` taking the `p % len`-th, so a match's pairs do not repeat
/// each other, every two agents of a ladder meet on the same openings and a cluster unit plays
/// the openings the whole match would.
fn with_pair_openings(
    start: &Position,
    pairs: u64,
    opts: &PlayOptions,
    seed: u64,
) -> (PlayOptions, Option<OpeningsUsed>) {
    let drawn = evaluation_openings(
        start,
        pairs,
        opts.opening_plies,
        opts.opening_policy.as_ref(),
        seed ^ OPENINGS_SEED,
    );
    let used = drawn.as_ref().map(|d| d.used());
    let opts = PlayOptions {
        openings: Arc::new(drawn.map_or_else(Vec::new, |d| d.lines)),
        ..opts.clone()
    };
    (opts, used)
}

/// Keeps the draw of a match's openings apart from its pairs' own seeds.
const OPENINGS_SEED: u64 = 0x6F70_656E_696E_6773;

/// The seed of pair `pair` (its opening) and of each of its games.
fn pair_seeds(seed: u64, pair: u64) -> (u64, u64, u64) {
    let base = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ pair.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    (
        base,
        base ^ 0x5851_F42D_4C95_7F2D,
        base ^ 0x1405_7B7E_F767_814F,
    )
}

/// The games of `pairs` pairs between agents `i` and `j`, ids from `first_id`; with `openings`
/// fixed openings (`PlayOptions::openings`), pair `p` starts both its games from the
/// `p % openings`-th, otherwise from random plies of its own.
pub fn pair_setups(
    (i, j): (usize, usize),
    pairs: u64,
    first_id: u64,
    seed: u64,
    openings: usize,
) -> Vec<GameSetup> {
    (0..pairs)
        .flat_map(|p| {
            let (opening_seed, s1, s2) = pair_seeds(seed ^ ((i as u64) << 32 | j as u64), p);
            let opening = (openings > 0).then(|| (p % openings as u64) as usize);
            [
                GameSetup {
                    id: first_id + 2 * p,
                    attacker: i,
                    defender: j,
                    opening_seed,
                    opening,
                    seed: s1,
                },
                GameSetup {
                    id: first_id + 2 * p + 1,
                    attacker: j,
                    defender: i,
                    opening_seed,
                    opening,
                    seed: s2,
                },
            ]
        })
        .collect()
}

/// Summarises the games of agent 0 (A) against agent 1 (B), paired by id (2p, 2p+1).
pub fn summarise(results: &[GameResult], a: &str, b: &str, sprt: Option<Sprt>) -> MatchReport {
    let mut total = Wdl::default();
    let mut as_attacker = Wdl::default();
    let mut as_defender = Wdl::default();
    let mut ends = EndsBySide::default();
    let mut points = 0.0;
    for r in results {
        ends.add(r);
        let s = r.score_of(0);
        points += s;
        total.add(s);
        if r.attacker == 0 {
            as_attacker.add(s)
        } else {
            as_defender.add(s)
        }
    }
    let mut pair_scores = Vec::new();
    for pair in results
        .chunks(2)
        .filter(|c| c.len() == 2 && c[0].id / 2 == c[1].id / 2)
    {
        pair_scores.push(pair[0].score_of(0) + pair[1].score_of(0));
    }
    let penta = Pentanomial::from_pair_scores(&pair_scores);
    let sprt = sprt.map(|test| {
        let llr = sprt_llr(&penta, test.elo0, test.elo1);
        let (lower, upper) = sprt_bounds(test.alpha, test.beta);
        let decision = match SprtDecision::of(llr, lower, upper) {
            SprtDecision::AcceptH1 => {
                format!("H1 accepted: A is stronger by at least {} Elo", test.elo1)
            }
            SprtDecision::AcceptH0 => {
                format!("H0 accepted: A is not stronger by {} Elo", test.elo1)
            }
            SprtDecision::Continue => "no decision yet".to_string(),
        };
        SprtReport {
            test,
            llr,
            lower,
            upper,
            decision,
            pairs: penta.counts.iter().sum(),
        }
    });
    MatchReport {
        a: a.into(),
        b: b.into(),
        pairs: pair_scores.len() as u64,
        games: results.len() as u64,
        score: points / results.len().max(1) as f64,
        elo_games: elo_interval_trinomial(total.wins, total.draws, total.losses),
        elo_pairs: penta.elo_interval(Z95),
        pentanomial: penta.counts,
        total,
        as_attacker,
        as_defender,
        ends,
        sprt,
        clock: clock_overruns(results, &[a.to_string(), b.to_string()]),
        openings: None,
    }
}

/// Plays a paired match of agents[0] (A) against agents[1] (B), stopping early at an SPRT bound.
pub fn run_match(
    start: &Position,
    agents: &mut [Agent],
    pairs: u64,
    sprt: Option<Sprt>,
    opts: &PlayOptions,
    seed: u64,
    progress: &mut dyn FnMut(&GameResult),
) -> (MatchReport, Vec<GameResult>) {
    run_match_stored(start, agents, pairs, sprt, opts, seed, &[], &mut |r| {
        progress(r);
        true
    })
}

/// The games of pairs `only` (of a match of `pairs` pairs), in id order: a cluster unit, whose
/// games are those the whole match plays for them.
pub fn play_pairs(
    start: &Position,
    agents: &mut [Agent],
    pairs: u64,
    only: std::ops::Range<u64>,
    opts: &PlayOptions,
    seed: u64,
) -> Vec<GameResult> {
    let (opts, _) = with_pair_openings(start, pairs, opts, seed);
    let setups: Vec<GameSetup> = pair_setups((0, 1), pairs, 0, seed, opts.openings.len())
        .into_iter()
        .filter(|s| only.contains(&(s.id / 2)))
        .collect();
    play_games(start, agents, &setups, &opts, &mut |_| true)
}

/// `run_match` with some of its games already played (stored by a run that was stopped, or
/// gathered from a cluster's units): they are heard first, in id order, as a single run hears
/// its games played apart, and only the others are played. `progress` hears each game as it
/// ends; false from it stops the match (a store that cannot take more games).
#[allow(clippy::too_many_arguments)]
pub fn run_match_stored(
    start: &Position,
    agents: &mut [Agent],
    pairs: u64,
    sprt: Option<Sprt>,
    opts: &PlayOptions,
    seed: u64,
    stored: &[GameResult],
    progress: &mut dyn FnMut(&GameResult) -> bool,
) -> (MatchReport, Vec<GameResult>) {
    let mut stored: Vec<&GameResult> = stored.iter().filter(|r| r.id < 2 * pairs).collect();
    stored.sort_by_key(|r| r.id);
    stored.dedup_by_key(|r| r.id);
    let have: std::collections::HashSet<u64> = stored.iter().map(|r| r.id).collect();
    let (opts, openings) = with_pair_openings(start, pairs, opts, seed);
    let setups: Vec<GameSetup> = pair_setups((0, 1), pairs, 0, seed, opts.openings.len())
        .into_iter()
        .filter(|s| !have.contains(&s.id))
        .collect();
    let mut done: std::collections::BTreeMap<u64, GameResult> = Default::default();
    // the SPRT's verdict when it reached a bound: games in flight then do not overturn it
    let mut stopped: Option<SprtReport> = None;
    let mut on_result = |r: &GameResult| {
        let going = progress(r);
        done.insert(r.id, r.clone());
        let Some(test) = sprt else { return going };
        if stopped.is_some() {
            return false;
        }
        let complete: Vec<GameResult> = complete_pairs(&done);
        stopped = summarise(&complete, "", "", Some(test))
            .sprt
            .filter(|s| SprtDecision::of(s.llr, s.lower, s.upper) != SprtDecision::Continue);
        going && stopped.is_none()
    };
    let mut results: Vec<GameResult> = Vec::new();
    let mut going = true;
    for r in stored {
        going = on_result(r);
        results.push(r.clone());
        if !going {
            break;
        }
    }
    if going {
        results.extend(play_games(start, agents, &setups, &opts, &mut on_result));
    }
    results.sort_by_key(|r| r.id);
    // an early stop leaves some pairs half played: they do not count
    let complete: Vec<GameResult> =
        complete_pairs(&results.iter().map(|r| (r.id, r.clone())).collect());
    let mut report = summarise(&complete, &agents[0].spec.text, &agents[1].spec.text, sprt);
    if stopped.is_some() {
        report.sprt = stopped;
    }
    report.openings = openings;
    (report, results)
}

fn complete_pairs(done: &std::collections::BTreeMap<u64, GameResult>) -> Vec<GameResult> {
    done.values()
        .filter(|r| done.contains_key(&(r.id ^ 1)))
        .cloned()
        .collect()
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LadderReport {
    pub agents: Vec<String>,
    pub ratings: Vec<Rating>,
    /// Score of row agent against column agent.
    pub scores: Vec<Vec<Option<f64>>>,
    pub games: u64,
    /// How well each timed agent kept to its clock (none without time budgets).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clock: Vec<ClockOverrun>,
    /// The openings every two agents' pairs started from (none: random plies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<OpeningsUsed>,
    /// How much the pairs' scores varied against independent games (`pair_dispersion`): the
    /// ratings' intervals are over pairs, the games' covariance times this. None: over games
    /// (too few pairs to tell, or a ladder stored before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair_dispersion: Option<f64>,
}

/// A round robin: every two agents play `pairs` pairs; Bradley–Terry ratings from all games.
pub fn run_ladder(
    start: &Position,
    agents: &mut [Agent],
    pairs: u64,
    opts: &PlayOptions,
    seed: u64,
    progress: &mut dyn FnMut(&GameResult),
) -> Result<(LadderReport, Vec<GameResult>), StatsError> {
    let n = agents.len();
    let (opts, openings) = with_pair_openings(start, pairs, opts, seed);
    let mut setups = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let first = setups.len() as u64;
            setups.extend(pair_setups((i, j), pairs, first, seed, opts.openings.len()));
        }
    }
    let results = play_games(start, agents, &setups, &opts, &mut |r| {
        progress(r);
        true
    });
    let mut points = vec![vec![0.0; n]; n];
    let mut games = vec![vec![0.0; n]; n];
    for r in &results {
        let (a, d) = (r.attacker, r.defender);
        points[a][d] += r.score_of(a);
        points[d][a] += r.score_of(d);
        games[a][d] += 1.0;
        games[d][a] += 1.0;
    }
    let mut matchups = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            if games[i][j] > 0.0 {
                matchups.push((i, j, points[i][j], games[i][j]));
            }
        }
    }
    // each pair's points for its first agent, by matchup: games 2p and 2p+1 share an opening
    let mut pair_points: std::collections::BTreeMap<(usize, usize), Vec<f64>> = Default::default();
    for game in results
        .chunks(2)
        .filter(|c| c.len() == 2 && c[0].id / 2 == c[1].id / 2)
    {
        let (i, j) = (
            game[0].attacker.min(game[0].defender),
            game[0].attacker.max(game[0].defender),
        );
        pair_points
            .entry((i, j))
            .or_default()
            .push(game[0].score_of(i) + game[1].score_of(i));
    }
    let pentanomials: Vec<Pentanomial> = pair_points
        .values()
        .map(|points| Pentanomial::from_pair_scores(points))
        .collect();
    let dispersion = pair_dispersion(&pentanomials);
    let options = BradleyTerryOptions {
        variance_scale: dispersion.unwrap_or(1.0),
        ..BradleyTerryOptions::default()
    };
    let ratings = try_bradley_terry(n, &matchups, &options)?;
    let scores = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| (games[i][j] > 0.0).then(|| points[i][j] / games[i][j]))
                .collect()
        })
        .collect();
    let names: Vec<String> = agents.iter().map(|a| a.spec.text.clone()).collect();
    let report = LadderReport {
        clock: clock_overruns(&results, &names),
        openings,
        pair_dispersion: dispersion,
        agents: names,
        ratings,
        scores,
        games: results.len() as u64,
    };
    Ok((report, results))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Outcome, Reason, Side};

    /// Game `id` of a pair: A attacks in even games, defends in odd ones.
    fn game(id: u64, winner: Option<Side>) -> GameResult {
        let a_attacks = id.is_multiple_of(2);
        GameResult {
            id,
            attacker: if a_attacks { 0 } else { 1 },
            defender: if a_attacks { 1 } else { 0 },
            outcome: match winner {
                Some(side) => Outcome::win(side, Reason::KingEscaped),
                None => Outcome::draw(Reason::Repetition),
            },
            plies: 40,
            moves: vec![],
            clock: vec![],
        }
    }

    #[test]
    fn results_are_counted_per_side_and_per_pair() {
        use Side::{Attackers as Att, Defenders as Def};
        // pair 0: A wins both; pair 1: the defenders win both (1 - 1); pair 2: A draws as
        // attacker and loses as defender; a lone game 6 (A attacks, wins) is no pair
        let results = [
            game(0, Some(Att)),
            game(1, Some(Def)),
            game(2, Some(Def)),
            game(3, Some(Def)),
            game(4, None),
            game(5, Some(Att)),
            game(6, Some(Att)),
        ];
        let r = summarise(&results, "A", "B", None);
        assert_eq!((r.games, r.pairs), (7, 3));
        assert_eq!(
            (
                r.as_attacker.wins,
                r.as_attacker.draws,
                r.as_attacker.losses
            ),
            (2, 1, 1)
        );
        assert_eq!(
            (
                r.as_defender.wins,
                r.as_defender.draws,
                r.as_defender.losses
            ),
            (2, 0, 1)
        );
        assert_eq!((r.total.wins, r.total.draws, r.total.losses), (4, 1, 2));
        assert!((r.score - 4.5 / 7.0).abs() < 1e-12);
        // pair scores 2, 1, 0.5 -> pentanomial bins [0, 0.5, 1, 1.5, 2]
        assert_eq!(r.pentanomial, [0, 1, 1, 0, 1]);
        assert!(r.sprt.is_none());
    }

    #[test]
    fn decided_games_are_counted_by_side_and_end_reason() {
        use Side::{Attackers as Att, Defenders as Def};
        let ended = |id, winner, reason| GameResult {
            outcome: Outcome::win(winner, reason),
            ..game(id, Some(winner))
        };
        let results = [
            ended(0, Att, Reason::KingCaptured), // A attacks and wins
            ended(1, Att, Reason::Repetition),   // A defends and loses by its repetition
            ended(2, Att, Reason::Repetition),   // A attacks and wins by B's repetition
            ended(3, Def, Reason::KingEscaped),  // A defends and wins
            ended(4, Def, Reason::KingEscaped),  // A attacks and loses
            ended(5, Def, Reason::KingEscaped),  // A defends and wins
            game(6, None),                       // a draw is neither
        ];
        let r = summarise(&results, "A", "B", None);
        let tally = |pairs: &[(&str, u64)]| -> BTreeMap<String, u64> {
            pairs.iter().map(|&(k, n)| (k.to_string(), n)).collect()
        };
        assert_eq!(
            r.ends.attacking.wins,
            tally(&[("king_captured", 1), ("repetition", 1)])
        );
        assert_eq!(r.ends.attacking.losses, tally(&[("king_escaped", 1)]));
        assert_eq!(r.ends.defending.wins, tally(&[("king_escaped", 2)]));
        assert_eq!(r.ends.defending.losses, tally(&[("repetition", 1)]));
        assert_eq!(
            Ends::describe(&r.ends.attacking.wins),
            "king_captured 1, repetition 1"
        );
        assert_eq!(Ends::describe(&BTreeMap::new()), "none");
        // reports written before the count read back with none
        let mut old = serde_json::to_value(&r).expect("json");
        old.as_object_mut().expect("object").remove("ends");
        let back: MatchReport = serde_json::from_value(old).expect("an older report");
        assert_eq!(back.ends, EndsBySide::default());
    }

    #[test]
    fn sprt_decides_on_lopsided_pairs_and_waits_on_few() {
        let wins: Vec<GameResult> = (0..80)
            .map(|id| {
                game(
                    id,
                    Some(if id % 2 == 0 {
                        Side::Attackers
                    } else {
                        Side::Defenders
                    }),
                )
            })
            .collect();
        let test = Sprt::parse("0,50,0.05,0.05").expect("valid");
        let r = summarise(&wins, "A", "B", Some(test));
        let sprt = r.sprt.expect("sprt");
        assert!(sprt.llr > sprt.upper, "{} vs {}", sprt.llr, sprt.upper);
        assert!(
            sprt.decision.starts_with("H1 accepted"),
            "{}",
            sprt.decision
        );
        let few = summarise(&wins[..2], "A", "B", Some(test))
            .sprt
            .expect("sprt");
        assert_eq!(few.decision, "no decision yet");
    }
}
