//! Stored games labelled for training: every position of every game (after its opening plies,
//! optionally only quiet ones) gets its game's result and an alpha-beta score, both from the side
//! to move's view.
//!
//! Two passes. The first replays the games in the order given and keeps the first occurrence of
//! each position (same cells and side to move): a position reached again, in the same game or
//! another, is dropped and counted, whatever its result there (keeping the first is simple and
//! reproducible; averaging results would mix games). The second searches the kept positions, in
//! parallel over games: each game gets a fresh search, so a score depends on the game and its
//! earlier positions (through the transposition table) but never on the thread that ran it, and
//! the output is the same for every thread count.

use std::collections::HashSet;
use std::sync::Arc;

use rayon::prelude::*;

use crate::eval::texel::{self, Source};
use crate::nnue::error::NnueDataError;
use crate::nnue::positions::LabelledPosition;
use crate::rules::replay::steps;
use crate::rules::{Position, Side, Variant};
use crate::search::alphabeta::{
    is_quiet, AlphaBeta, AlphaBetaConfig, LearnedEval, Limit, WIN_BOUND,
};

/// Which positions of a game are labelled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Selection {
    /// Positions before this ply are left out.
    pub skip_plies: usize,
    /// Only quiet positions (`alphabeta::is_quiet`): those a search with quiescence evaluates.
    pub quiet_only: bool,
}

/// The positions of one game to label: the steps' indices (`None` for the start).
#[derive(Debug)]
pub struct GamePlan<'a> {
    pub source: &'a str,
    pub game: &'a crate::eval::GameResult,
    pub picks: Vec<Option<usize>>,
}

/// What the first pass found.
#[derive(Debug, Default)]
pub struct Plan<'a> {
    pub games: Vec<GamePlan<'a>>,
    /// Positions kept (each distinct).
    pub positions: usize,
    /// Positions left out as seen before (same cells and side to move).
    pub duplicates: usize,
    /// Positions left out as not quiet.
    pub not_quiet: usize,
}

/// The key a position is deduplicated by: its cells and the side to move.
fn key(pos: &Position) -> Vec<u8> {
    let mut k = pos.cells().to_vec();
    k.push(side_code(pos.side_to_move()));
    k
}

fn side_code(side: Side) -> u8 {
    match side {
        Side::Attackers => 0,
        Side::Defenders => 1,
    }
}

/// The first pass: the positions of `sources`' games that `select` keeps, each distinct position
/// once (its first occurrence in the order given). An illegal move is an error naming the game.
pub fn plan<'a>(
    variant: &Arc<Variant>,
    sources: &'a [Source],
    select: Selection,
) -> Result<Plan<'a>, NnueDataError> {
    let start = Position::start(variant);
    let mut seen = HashSet::new();
    let mut out = Plan::default();
    for source in sources {
        for game in &source.games {
            let mut picks = Vec::new();
            let mut consider = |pos: &Position, pick: Option<usize>| {
                if pos.outcome().is_some()
                    || pos.king().is_none()
                    || (pos.ply() as usize) < select.skip_plies
                {
                    return;
                }
                if select.quiet_only && !is_quiet(pos) {
                    out.not_quiet += 1;
                } else if seen.insert(key(pos)) {
                    picks.push(pick);
                } else {
                    out.duplicates += 1;
                }
            };
            consider(&start, None);
            for step in steps(&start, &game.moves.join(" ")) {
                let step = step.map_err(|e| illegal(&source.name, game.id, e))?;
                consider(&step.position, Some(step.ply));
            }
            out.positions += picks.len();
            out.games.push(GamePlan {
                source: &source.name,
                game,
                picks,
            });
        }
    }
    Ok(out)
}

fn illegal(source: &str, id: u64, e: crate::rules::replay::Illegal) -> NnueDataError {
    NnueDataError::Illegal {
        source_name: source.to_string(),
        id,
        ply: e.ply,
        mv: e.mv,
        reason: e.reason,
    }
}

/// How the second pass searches.
#[derive(Clone, Debug)]
pub struct Labeler {
    /// The alpha-beta settings (evaluation weights and search options).
    pub config: AlphaBetaConfig,
    /// Depth of each search, in plies.
    pub depth: u32,
    /// Tie-break seed of every search.
    pub seed: u64,
    /// A learned evaluation that scores the leaves instead of the settings' weights (the
    /// previous generation's, for the next one's data).
    pub learned: Option<LearnedEval>,
}

/// The second pass: each planned position with its result and score, in the plan's order (the
/// games in parallel on rayon's pool; `done` is called once a game is labelled).
pub fn label(
    variant: &Arc<Variant>,
    plan: &Plan<'_>,
    labeler: &Labeler,
    done: impl Fn() + Sync,
) -> Result<Vec<LabelledPosition>, NnueDataError> {
    let per_game: Vec<Vec<LabelledPosition>> = plan
        .games
        .par_iter()
        .map(|g| {
            let labelled = label_game(variant, g, labeler);
            done();
            labelled
        })
        .collect::<Result<_, _>>()?;
    Ok(per_game.into_iter().flatten().collect())
}

fn label_game(
    variant: &Arc<Variant>,
    plan: &GamePlan<'_>,
    labeler: &Labeler,
) -> Result<Vec<LabelledPosition>, NnueDataError> {
    if plan.picks.is_empty() {
        return Ok(Vec::new());
    }
    let mut search = AlphaBeta::new(labeler.config.clone(), labeler.seed);
    if let Some(learned) = &labeler.learned {
        search = search.with_learned(learned.clone());
    }
    let winner = plan.game.outcome.winner;
    let mut out = Vec::with_capacity(plan.picks.len());
    let mut record = |pos: &Position| {
        let side = pos.side_to_move();
        let result = match winner {
            None => 0,
            Some(w) if w == side => 1,
            Some(_) => -1,
        };
        let found = search.search(pos, Limit::Depth(labeler.depth));
        out.push(LabelledPosition {
            cells: pos.cells().to_vec(),
            side: side_code(side),
            score: found.score,
            result,
            ply: pos.ply().min(u32::from(u16::MAX)) as u16,
        });
    };
    let start = Position::start(variant);
    let mut picks = plan.picks.iter().peekable();
    if picks.peek() == Some(&&None) {
        record(&start);
        picks.next();
    }
    for step in steps(&start, &plan.game.moves.join(" ")) {
        let Some(&&Some(next)) = picks.peek() else {
            break;
        };
        let step = step.map_err(|e| illegal(plan.source, plan.game.id, e))?;
        if step.ply == next {
            record(&step.position);
            picks.next();
        }
    }
    Ok(out)
}

/// The search-score units per logit that make `σ(score / s)` predict the side to move's result
/// best (least log loss, a draw counting ½): a one-parameter logistic fit over the positions
/// whose score is not a found win or loss (those are outside the model: certain at any scale).
/// `None` when fewer than two such positions remain. It reuses Texel's scale search, whose
/// model is `σ(2·score / value_scale)`, with the score as the only term: `s = value_scale / 2`.
pub fn fit_score_per_logit(positions: &[LabelledPosition]) -> Option<f64> {
    let mut w = [0.0; texel::TERMS];
    w[0] = 1.0;
    let samples: Vec<texel::Sample> = positions
        .iter()
        .filter(|p| p.score.abs() < WIN_BOUND)
        .map(|p| {
            let mut terms = [0.0; texel::TERMS];
            terms[0] = f64::from(p.score);
            texel::Sample {
                terms,
                result: (f64::from(p.result) + 1.0) / 2.0,
            }
        })
        .collect();
    (samples.len() >= 2).then(|| texel::fit_scale(&samples, &w) / 2.0)
}
