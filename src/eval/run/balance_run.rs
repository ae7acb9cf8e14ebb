//! A balance study as one run: each variant at each strength level is a study of its own, with
//! its own store of games (resumed where it stopped); the run plays them in turn, marks which
//! variants' balance has converged and writes the study's tables and plots. A cluster plans its
//! studies' missing games and plays blocks of them apart.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

use super::{PlaySettings, RunError};
use crate::eval::balance::{
    balance_openings, mark_convergence, play_balance_games, run_balance, run_balance_from,
    store_path, summarise, BalanceReport, SequentialLook, SequentialReport,
};
use crate::eval::game_store::{load_stored, stored_ids};
use crate::eval::stats::{rounds, PairsLook, SequentialDecision, SequentialDesign};
use crate::eval::study::write_study;
use crate::eval::{Agent, AgentSpec, GameResult, PlayOptions};
use crate::rules::{Position, Variant};
use crate::search::Budget;
use crate::units::StudyUnits;

/// A study's opening plies and sampled plies when its request leaves them to the run.
const OPENING_PLIES: u32 = 2;
const TEMPERATURE_PLIES: u32 = 6;

/// One strength level: the agent's budget, under the name the study gives it.
#[derive(Clone, Debug)]
pub struct BalanceLevel {
    pub name: String,
    pub budget: Budget,
}

/// What a balance study is: plain data.
#[derive(Clone, Debug)]
pub struct BalanceRequest {
    /// Presets' names or variant files, at least one.
    pub variants: Vec<String>,
    /// The agent playing both sides.
    pub agent: AgentSpec,
    /// Its budgets, weakest first (none: the agent's own budget, one level).
    pub levels: Vec<BalanceLevel>,
    /// Games per level.
    pub games: u64,
    /// Games per level on boards larger than 9x9 (`None`: `games`).
    pub large_games: Option<u64>,
    /// Games at the strongest of two or more levels (`None`: as the others').
    pub strongest_games: Option<u64>,
    /// The equivalence margin of the two strongest levels, as a share (0.075: 7.5 points).
    pub margin: f64,
    /// Play the two strongest levels in rounds until they are shown equivalent or different
    /// (or reach their cap, `games`); `None`: every level plays its games at once.
    pub sequential: Option<SequentialSettings>,
    /// Where the games (`games/`, resumable), the tables and the plots go.
    pub out: PathBuf,
    pub play: PlaySettings,
}

/// How a sequential study adds games: `round` a level each round, up to the levels' games, with
/// both errors (equivalence called for levels a margin apart, difference for equal levels) at
/// most `alpha`.
#[derive(Clone, Copy, Debug)]
pub struct SequentialSettings {
    pub round: u64,
    pub alpha: f64,
}

/// One variant at one level of a balance study.
#[derive(Clone, Debug)]
pub struct Study {
    pub variant: Arc<Variant>,
    /// The level's name (none when the agent plays at its own budget).
    pub level: Option<String>,
    pub spec: AgentSpec,
    pub games: u64,
}

/// A study as a cluster's driver sees it: its game count, its store and the ids the store lacks.
/// The fields are in the order of their names: the JSON is the one `--plan` has always printed.
#[derive(Clone, Debug, Serialize)]
pub struct StudyPlan {
    pub agent: String,
    pub games: u64,
    pub level: Option<String>,
    pub missing: Vec<u64>,
    /// The store, relative to the study's directory.
    pub store: PathBuf,
    pub study: usize,
    pub variant: String,
}

/// The games a unit played (with those its store held for its ids), and where they are.
pub struct PlayedUnit<'a> {
    pub study: &'a Study,
    pub store: PathBuf,
    pub games: Vec<GameResult>,
}

/// What a study run reports as it goes.
pub enum BalanceProgress<'a> {
    /// A study starts (its agent loaded).
    Started(&'a Study),
    /// A game of the study in progress ended, or was read from its store.
    Game(&'a GameResult),
    /// The study's games are all there and its records written.
    Finished(&'a Study),
}

/// A balance study ready to play: its variants loaded and its studies laid out.
pub struct BalanceRun {
    request: BalanceRequest,
    studies: Vec<Study>,
}

impl BalanceRun {
    /// Loads the variants and lays out the studies: every level of the first variant, then of
    /// the next.
    pub fn open(request: BalanceRequest) -> Result<BalanceRun, RunError> {
        if request.sequential.is_some() && request.levels.len() < 2 {
            return Err(RunError::SequentialLevels(request.levels.len()));
        }
        let levels: Vec<(Option<String>, AgentSpec)> = if request.levels.is_empty() {
            vec![(None, request.agent.clone())]
        } else {
            request
                .levels
                .iter()
                .map(|l| (Some(l.name.clone()), request.agent.with_budget(l.budget)))
                .collect()
        };
        let mut studies = Vec::new();
        for name in &request.variants {
            let variant = crate::interop::load_variant(name)?;
            let games = match request.large_games {
                Some(n) if variant.size > 9 => n,
                _ => request.games,
            };
            for (k, (level, spec)) in levels.iter().enumerate() {
                let strongest = k + 1 == levels.len() && levels.len() > 1;
                studies.push(Study {
                    variant: variant.clone(),
                    level: level.clone(),
                    spec: spec.clone(),
                    // a sequential study's two strongest levels share one cap
                    games: request
                        .strongest_games
                        .filter(|_| strongest && request.sequential.is_none())
                        .unwrap_or(games),
                });
            }
        }
        Ok(BalanceRun { request, studies })
    }

    pub fn studies(&self) -> &[Study] {
        &self.studies
    }

    fn games_dir(&self) -> PathBuf {
        self.request.out.join("games")
    }

    fn store(&self, study: &Study) -> PathBuf {
        store_path(&self.games_dir(), study.variant.name(), &study.spec.text)
    }

    /// Each study with the ids its store still lacks. Plays nothing. A sequential study's two
    /// strongest levels lack those of their current look only: a cluster's driver plans, plays
    /// the units and plans again until nothing is missing.
    pub fn plan(&self) -> Result<Vec<StudyPlan>, RunError> {
        let games_dir = self.games_dir();
        let base = games_dir.parent().unwrap_or(&games_dir);
        let mut plan = Vec::new();
        for (index, s) in self.studies.iter().enumerate() {
            let store = self.store(s);
            let have: BTreeSet<u64> = stored_ids(&store)?;
            let games = match self.sequential_pair(index) {
                Some((below, top, settings)) => self.current_look(below, top, settings)?,
                None => s.games,
            };
            plan.push(StudyPlan {
                agent: s.spec.text.clone(),
                games,
                level: s.level.clone(),
                missing: (0..games).filter(|id| !have.contains(id)).collect(),
                store: store.strip_prefix(base).unwrap_or(&store).to_path_buf(),
                study: index,
                variant: s.variant.name().to_string(),
            });
        }
        Ok(plan)
    }

    /// The two strongest levels of study `index`'s variant when a sequential study plays them
    /// look by look and the study is one of them.
    fn sequential_pair(&self, index: usize) -> Option<(&Study, &Study, SequentialSettings)> {
        let settings = self.request.sequential?;
        let levels = self.request.levels.len().max(1);
        let below = match index % levels + 2 {
            k if k == levels => index,
            k if k == levels + 1 => index - 1,
            _ => return None,
        };
        Some((&self.studies[below], &self.studies[below + 1], settings))
    }

    /// The design of a variant's sequential pair: looks every `round` games up to the cap.
    fn design(
        &self,
        top: &Study,
        settings: SequentialSettings,
    ) -> Result<SequentialDesign, RunError> {
        Ok(SequentialDesign::for_pairs(
            rounds(settings.round, top.games)?,
            self.request.margin,
            settings.alpha,
            2,
        )?)
    }

    /// The games each level of a sequential pair needs now, from its stores alone: those of the
    /// look that decided, or else of the first look whose games are not all stored.
    fn current_look(
        &self,
        below: &Study,
        top: &Study,
        settings: SequentialSettings,
    ) -> Result<u64, RunError> {
        let design = self.design(top, settings)?;
        let below_games = load_stored(&self.store(below))?;
        let top_games = load_stored(&self.store(top))?;
        for (index, &games) in design.looks.iter().enumerate() {
            let at_look = |all: &[GameResult], s: &Study| {
                let played: Vec<GameResult> =
                    all.iter().filter(|r| r.id < games).cloned().collect();
                (played.len() as u64 == games)
                    .then(|| summarise(s.variant.name(), &s.spec.text, 0, &played, 0.0))
            };
            let (Some(b), Some(t)) = (at_look(&below_games, below), at_look(&top_games, top))
            else {
                return Ok(games);
            };
            if decide(&design, index, &b, &t).decision != SequentialDecision::Continue {
                return Ok(games);
            }
        }
        Ok(top.games)
    }

    /// The options of every study's games (an opening policy must be a checkpoint of every
    /// variant studied).
    fn options(&self) -> Result<PlayOptions, RunError> {
        let names: Vec<&str> = self.studies.iter().map(|s| s.variant.name()).collect();
        self.request
            .play
            .options(OPENING_PLIES, TEMPERATURE_PLIES, &names)
    }

    /// Plays the games `unit` names that its study's store lacks, into that store, and writes
    /// no report: a cluster's unit, whose store lines are those the whole study appends.
    pub fn play_unit(&self, unit: StudyUnits) -> Result<PlayedUnit<'_>, RunError> {
        let play = &self.request.play;
        let device = play.device()?;
        let opts = self.options()?;
        let s = self.studies.get(unit.study).ok_or(RunError::NoStudy {
            study: unit.study,
            parts: self.studies.len(),
        })?;
        let agent = Agent::load(&s.spec, s.variant.name(), device, play.seed)?;
        let store = self.store(s);
        let start = Position::start(&s.variant);
        let openings = balance_openings(&start, s.games, &opts, play.seed);
        let games = play_balance_games(
            &start,
            &mut [agent],
            s.games,
            unit.games.range(),
            &opts,
            openings.as_ref(),
            play.seed,
            &store,
            &mut |_| {},
        )?;
        Ok(PlayedUnit {
            study: s,
            store,
            games,
        })
    }

    /// Plays (or finishes) every study in turn, each resumed from its store, marks the
    /// convergence of each variant's strongest level, and writes the study's tables and plots
    /// (`eval::study::write_study`). The reports are in the order of the studies.
    pub fn play(
        &self,
        progress: &mut dyn FnMut(BalanceProgress<'_>),
    ) -> Result<Vec<BalanceReport>, RunError> {
        let play = &self.request.play;
        let device = play.device()?;
        let opts = self.options()?;
        let mut reports = Vec::new();
        for (i, s) in self.studies.iter().enumerate() {
            // the level below the strongest plays beside it, look by look
            match self.sequential_pair(i) {
                Some((below, top, settings)) if std::ptr::eq(below, s) => {
                    reports.extend(self.play_sequential(below, top, settings, progress)?);
                    continue;
                }
                Some(_) => continue,
                None => {}
            }
            let agent = Agent::load(&s.spec, s.variant.name(), device, play.seed)?;
            progress(BalanceProgress::Started(s));
            let report = run_balance(
                &Position::start(&s.variant),
                agent,
                s.games,
                &opts,
                play.seed,
                &self.store(s),
                &mut |r| progress(BalanceProgress::Game(r)),
            )?;
            progress(BalanceProgress::Finished(s));
            reports.push(report);
        }
        mark_convergence(&mut reports, self.request.margin);
        write_study(&self.request.out, &reports)?;
        Ok(reports)
    }

    /// Plays a variant's two strongest levels in rounds, each look extending both stores to
    /// the look's games (stored games are reused, so a stopped study resumes), until the
    /// design decides or the cap is reached. The strongest level's report carries the looks.
    fn play_sequential(
        &self,
        below: &Study,
        top: &Study,
        settings: SequentialSettings,
        progress: &mut dyn FnMut(BalanceProgress<'_>),
    ) -> Result<[BalanceReport; 2], RunError> {
        let play = &self.request.play;
        let device = play.device()?;
        let opts = self.options()?;
        let cap = top.games;
        let design = self.design(top, settings)?;
        let start = Position::start(&top.variant);
        // drawn once for the cap: a game's opening is the same whichever look plays it
        let openings = balance_openings(&start, cap, &opts, play.seed);
        let load = |s: &Study| Agent::load(&s.spec, s.variant.name(), device, play.seed);
        let mut agents = [[load(below)?], [load(top)?]];
        let mut sequential = SequentialReport {
            round: settings.round,
            cap,
            margin: self.request.margin,
            alpha: settings.alpha,
            planned: design.looks.clone(),
            looks: Vec::new(),
        };
        let mut seconds = [0.0; 2];
        for (index, &games) in design.looks.iter().enumerate() {
            let mut pair = Vec::with_capacity(2);
            for (k, s) in [below, top].into_iter().enumerate() {
                let at_look = Study { games, ..s.clone() };
                progress(BalanceProgress::Started(&at_look));
                let report = run_balance_from(
                    &start,
                    &mut agents[k],
                    games,
                    openings.as_ref(),
                    &opts,
                    play.seed,
                    &self.store(s),
                    &mut |r| progress(BalanceProgress::Game(r)),
                )?;
                progress(BalanceProgress::Finished(&at_look));
                seconds[k] += report.seconds;
                pair.push(report);
            }
            let look = decide(&design, index, &pair[0], &pair[1]);
            let (equivalence_alpha_spent, difference_alpha_spent) = design.alpha_spent(index);
            sequential.looks.push(SequentialLook {
                games,
                decision: look.decision,
                attackers: look.pairs[0],
                defenders: look.pairs[1],
                equivalence_alpha_spent,
                difference_alpha_spent,
            });
            if look.decision != SequentialDecision::Continue {
                let [mut b, mut t]: [BalanceReport; 2] =
                    pair.try_into().expect("two levels a look");
                b.seconds = seconds[0];
                t.seconds = seconds[1];
                t.sequential = Some(sequential);
                return Ok([b, t]);
            }
        }
        unreachable!("a design's last look decides")
    }
}

/// A look's decision on the two levels' games so far: the attackers' and the defenders' wins.
fn decide(
    design: &SequentialDesign,
    index: usize,
    below: &BalanceReport,
    top: &BalanceReport,
) -> PairsLook {
    let counts = |k: fn(&BalanceReport) -> u64| {
        (
            k(top) as f64,
            top.games as f64,
            k(below) as f64,
            below.games as f64,
        )
    };
    design.decide_pairs(
        index,
        &[counts(|r| r.attacker_wins), counts(|r| r.defender_wins)],
    )
}
