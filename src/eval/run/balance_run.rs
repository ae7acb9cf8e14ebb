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
    balance_openings, mark_convergence, play_balance_games, run_balance, store_path, BalanceReport,
};
use crate::eval::game_store::stored_ids;
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
    /// Where the games (`games/`, resumable), the tables and the plots go.
    pub out: PathBuf,
    pub play: PlaySettings,
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
                    games: request
                        .strongest_games
                        .filter(|_| strongest)
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

    /// Each study with the ids its store still lacks. Plays nothing.
    pub fn plan(&self) -> Result<Vec<StudyPlan>, RunError> {
        let games_dir = self.games_dir();
        let base = games_dir.parent().unwrap_or(&games_dir);
        let mut plan = Vec::new();
        for (index, s) in self.studies.iter().enumerate() {
            let store = self.store(s);
            let have: BTreeSet<u64> = stored_ids(&store)?;
            plan.push(StudyPlan {
                agent: s.spec.text.clone(),
                games: s.games,
                level: s.level.clone(),
                missing: (0..s.games).filter(|id| !have.contains(id)).collect(),
                store: store.strip_prefix(base).unwrap_or(&store).to_path_buf(),
                study: index,
                variant: s.variant.name().to_string(),
            });
        }
        Ok(plan)
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
        for s in &self.studies {
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
}
