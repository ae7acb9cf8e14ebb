//! A paired match as one run: the variant, the two agents and the games already stored in its
//! directory, then (as a whole, or as a cluster's unit of pairs) the games played, each stored
//! as it ends, and the report and records written.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use super::{records, write_file, PlaySettings, RunError};
use crate::eval::game_store::{file_hashes, load_stored, GameAppender, MatchSettings};
use crate::eval::matches::{play_pairs, run_match_stored, MatchReport, Sprt};
use crate::eval::{Agent, AgentSpec, GameResult, PlayOptions};
use crate::rules::{Position, Variant};
use crate::units::Units;

/// A match's opening plies and sampled plies when its request leaves them to the run.
const OPENING_PLIES: u32 = 2;
const TEMPERATURE_PLIES: u32 = 8;

/// What a match is: plain data.
#[derive(Clone, Debug)]
pub struct MatchRequest {
    /// A preset's name or a variant file.
    pub variant: String,
    /// Agent A (agent 0 of the games), and agent B.
    pub a: AgentSpec,
    pub b: AgentSpec,
    /// Pairs of games (each opening played twice, sides swapped).
    pub pairs: u64,
    /// Stop early at a bound of this test.
    pub sprt: Option<Sprt>,
    pub play: PlaySettings,
    /// Where the games (`games.jsonl`, as they end), their settings (`settings.json`), the report
    /// (`match.json`) and the records (`games.txt`) go; `None`: nothing is written.
    pub out: Option<PathBuf>,
}

/// The pairs of a match and those whose games its store lacks (for a cluster's driver). The
/// fields are in the order of their names: the JSON is the one `--plan` has always printed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchPlan {
    pub missing: Vec<u64>,
    pub pairs: u64,
}

/// A match ready to play: its variant loaded and its stored games read.
pub struct MatchRun {
    request: MatchRequest,
    variant: Arc<Variant>,
    stored: Vec<GameResult>,
}

/// Where a match keeps its games as they end (and gathers those of cluster units).
fn store_path(out: &Path) -> PathBuf {
    out.join("games.jsonl")
}

impl MatchRun {
    /// Loads the variant and the games already stored in the request's directory (none without
    /// one, or when it holds no store yet).
    pub fn open(request: MatchRequest) -> Result<MatchRun, RunError> {
        let variant = crate::interop::load_variant(&request.variant)?;
        let stored = match &request.out {
            Some(dir) => load_stored(&store_path(dir))?,
            None => Vec::new(),
        };
        Ok(MatchRun {
            request,
            variant,
            stored,
        })
    }

    pub fn variant(&self) -> &Variant {
        &self.variant
    }

    /// The games of the whole match (each heard by `play`'s progress, stored ones included).
    pub fn games(&self) -> u64 {
        2 * self.request.pairs
    }

    /// The match's pairs, and those of them whose two games the store lacks. Plays nothing.
    pub fn plan(&self) -> MatchPlan {
        let have: HashSet<u64> = self.stored.iter().map(|r| r.id).collect();
        let missing = (0..self.request.pairs)
            .filter(|p| !(have.contains(&(2 * p)) && have.contains(&(2 * p + 1))))
            .collect();
        MatchPlan {
            missing,
            pairs: self.request.pairs,
        }
    }

    fn agents(&self) -> Result<Vec<Agent>, RunError> {
        let play = &self.request.play;
        let specs = [self.request.a.clone(), self.request.b.clone()];
        Ok(Agent::load_all(
            &specs,
            self.variant.name(),
            play.device()?,
            play.seed,
        )?)
    }

    fn options(&self) -> Result<PlayOptions, RunError> {
        let name = self.variant.name();
        self.request
            .play
            .options(OPENING_PLIES, TEMPERATURE_PLIES, &[name])
    }

    /// Plays pairs `units` only, the games the whole match plays for them, and writes them (in
    /// id order) as the directory's `games.jsonl`, replacing it: a cluster's unit of work. No
    /// report is written and no settings claimed; the driver gathers the units' stores.
    pub fn play_units(&self, units: Units) -> Result<Vec<GameResult>, RunError> {
        let dir = self.request.out.as_ref().ok_or(RunError::NoStore)?;
        let mut agents = self.agents()?;
        let opts = self.options()?;
        let games = play_pairs(
            &Position::start(&self.variant),
            &mut agents,
            self.request.pairs,
            units.range(),
            &opts,
            self.request.play.seed,
        );
        let mut lines = String::new();
        for g in &games {
            lines += &serde_json::to_string(g)?;
            lines.push('\n');
        }
        write_file(&store_path(dir), &lines)?;
        Ok(games)
    }

    /// Plays the match: with a directory, its settings are claimed first (a store of another
    /// match is refused before any game), the stored games are heard first and only the others
    /// played, each appended to the store as it ends; then `match.json` and `games.txt` are
    /// written. `progress` hears every game of the report, stored ones first.
    pub fn play(&self, progress: &mut dyn FnMut(&GameResult)) -> Result<MatchReport, RunError> {
        let request = &self.request;
        let mut agents = self.agents()?;
        let opts = self.options()?;
        // every game is appended to the store as it ends, so a stopped match resumes where it was
        let mut appender = match &request.out {
            Some(dir) => {
                self.settings(&opts)?.claim(dir)?;
                Some(GameAppender::open(&store_path(dir))?)
            }
            None => None,
        };
        let have: HashSet<u64> = self.stored.iter().map(|r| r.id).collect();
        let (report, results) = run_match_stored(
            &Position::start(&self.variant),
            &mut agents,
            request.pairs,
            request.sprt,
            &opts,
            request.play.seed,
            &self.stored,
            &mut |r| {
                progress(r);
                match &mut appender {
                    Some(store) if !have.contains(&r.id) => store.append(r),
                    _ => true,
                }
            },
        );
        if let Some(store) = appender {
            store.finish()?;
        }
        if let Some(dir) = &request.out {
            let specs = [request.a.clone(), request.b.clone()];
            write_file(
                &dir.join("match.json"),
                &serde_json::to_string_pretty(&report)?,
            )?;
            write_file(
                &dir.join("games.txt"),
                &records(&self.variant, &results, &specs),
            )?;
        }
        Ok(report)
    }

    /// The settings that decide the match's games, kept beside its store.
    fn settings(&self, opts: &PlayOptions) -> Result<MatchSettings, RunError> {
        let request = &self.request;
        let files = request
            .a
            .files()
            .into_iter()
            .chain(request.b.files())
            .chain(request.play.opening_policy.as_deref());
        Ok(MatchSettings {
            variant: self.variant.name().to_string(),
            a: request.a.text.clone(),
            b: request.b.text.clone(),
            seed: request.play.seed,
            opening_plies: opts.opening_plies,
            opening_policy: request
                .play
                .opening_policy
                .as_ref()
                .map(|p| p.display().to_string()),
            temperature: opts.temperature,
            temperature_plies: opts.temperature_plies,
            c_puct: opts.search.c_puct,
            fpu_reduction: opts.search.fpu_reduction,
            c_uct: opts.search.c_uct,
            draw_value: opts.search.draw_value,
            leaf_batch: opts.search.leaf_batch,
            files: file_hashes(files)?,
        })
    }
}
