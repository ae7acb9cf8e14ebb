//! The alpha-beta search of the classical reference opponent: iterative deepening negamax with
//! alpha-beta and principal variation search, a transposition table on the engine's Zobrist key,
//! move ordering (table move, wins, captures, killers, history), a static evaluation read off the
//! variant's rules (`heuristic`), and expectimax over the die in dice variants.
//!
//! Two things differ from chess-style negamax. A berserk chain keeps the turn with the same
//! side, so a score changes sign only where the side to move changes. And a position carries
//! its repetition history: a table hit is taken for the board alone, which can miss a repetition
//! that only this path would make (the usual approximation); an outcome already recorded on the
//! position is always checked before the table.

use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::clock::IterationClock;
use super::config::AlphaBetaConfig;
use super::heuristic::{Heuristic, EVAL_LIMIT};
use super::learned::{LearnedEval, LEARNED_PER_LOGIT};
use super::ttable::{Bound, TTable, TtEntry};
use crate::numeric::splitmix64;
use crate::rules::piece::{side_of, EMPTY};
use crate::rules::rules::Hostility;
use crate::rules::variant::{CORNER, THRONE};
use crate::rules::{Move, MoveKind, Outcome, Piece, PieceKind, Position, Side, Square};
use crate::search::tactics::{escape_lines, open_lines_from, wins_at_once};
use crate::search::{Budget, SearchCap};

/// The score of a win on the board now; a win `n` plies ahead scores `WIN - n`.
pub const WIN: i32 = 1_000_000;
/// Scores beyond this are wins or losses found by the search.
pub const WIN_BOUND: i32 = WIN - 10_000;
const INFINITY: i32 = WIN + 1;
/// Deepest ply the search reaches (iterative deepening stops here in any case).
pub const MAX_PLY: usize = 128;

/// How long to search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Complete iterations up to this many plies.
    Depth(u32),
    /// Deepen until the time is spent; depth 1 always completes.
    Time(Duration),
    /// Deepen until this many nodes are spent (reproducible, unlike time); depth 1 always
    /// completes.
    Nodes(u64),
}

/// An agent's budget as an alpha-beta limit: a count is a depth (at least 1), a time a time.
impl From<Budget> for Limit {
    fn from(budget: Budget) -> Limit {
        match budget {
            Budget::Nodes(depth) => Limit::Depth(depth.max(1)),
            Budget::Time(t) => Limit::Time(t),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct AbResult {
    /// The move to play; `None` when the game is over, or when the die must be rolled first.
    pub best: Option<Move>,
    /// From the side to move's point of view: `WIN - n` for a win in `n` plies, `-(WIN - n)`
    /// for a loss, otherwise the evaluation (see `AlphaBeta::value`).
    pub score: i32,
    /// The deepest iteration completed.
    pub depth: u32,
    /// Nodes visited over the whole search.
    pub nodes: u64,
    /// The expected line, starting with `best`.
    pub pv: Vec<Move>,
}

pub struct AlphaBeta {
    config: AlphaBetaConfig,
    seed: u64,
    /// The current game's seed (set by `vary`), mixed into tie-breaks and the noise.
    game_seed: u64,
    /// Largest offset added to static evaluations (0: none).
    noise: i32,
    tt: TTable,
    heuristic: Option<Heuristic>,
    /// The learned evaluation, when it replaces the heuristic's score (`with_learned`).
    learned: Option<LearnedEval>,
    /// The compiled evaluation's weight beside the learned one in this search (the root
    /// side's `blend_attacking` or `blend_defending`).
    blend: f32,
    /// Two quiet moves per ply that caused a cut-off.
    killers: Vec<[Option<Move>; 2]>,
    /// Cut-off credit per (from, to), for ordering quiet moves.
    history: Vec<i32>,
    /// Board squares of the prepared variant (the history table is squares × squares).
    squares: usize,
    /// Move lists per ply, reused.
    lists: Vec<Vec<(i32, Move)>>,
    /// The squares of the king's open escape lines at the current quiescence node (scratch).
    escape_squares: Vec<Square>,
    /// Child positions per ply (two slots a ply: moves, die rolls), reused through
    /// `Position::copy_from` so no node allocates.
    children: Vec<Option<Position>>,
    moves: Vec<Move>,
    pv: Vec<[Move; MAX_PLY]>,
    pv_len: [usize; MAX_PLY + 1],
    nodes: u64,
    deadline: Option<Instant>,
    /// A clock over every search, whatever its limit (`set_cap`).
    cap: SearchCap,
    node_budget: Option<u64>,
    /// When iterative deepening starts another iteration (reset by each search).
    clock: IterationClock,
    can_stop: bool,
    stopped: bool,
}

/// Ordering bands: each far above what the next can reach.
const ORDER_TT: i32 = 1 << 30;
const ORDER_WIN: i32 = 1 << 29;
const ORDER_CAPTURE: i32 = 1 << 24;
const ORDER_KILLER: i32 = 1 << 22;
const HISTORY_MAX: i32 = 1 << 20;

impl AlphaBeta {
    /// An agent; `seed` decides, reproducibly, among moves the search finds equal.
    pub fn new(config: AlphaBetaConfig, seed: u64) -> AlphaBeta {
        AlphaBeta {
            tt: TTable::new(config.search.tt_megabytes),
            config,
            seed,
            game_seed: 0,
            noise: 0,
            heuristic: None,
            learned: None,
            blend: 0.0,
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: Vec::new(),
            squares: 0,
            // the buffers grow at the first search: an agent that never searches (a server keeps
            // one per game) holds next to nothing
            lists: vec![Vec::new(); MAX_PLY + 1],
            escape_squares: Vec::new(),
            children: Vec::new(),
            moves: Vec::with_capacity(512),
            pv: Vec::new(),
            pv_len: [0; MAX_PLY + 1],
            nodes: 0,
            deadline: None,
            node_budget: None,
            clock: IterationClock::new(Instant::now(), None, None, 1.0, false),
            can_stop: false,
            stopped: false,
            cap: SearchCap::default(),
        }
    }

    /// The same agent scoring leaves with a learned network instead of the heuristic (whose
    /// weights then go unused; the search settings still apply). The network must be for the
    /// variant searched: `LearnedEval::load` checks it.
    pub fn with_learned(mut self, learned: LearnedEval) -> AlphaBeta {
        self.learned = Some(learned);
        self
    }

    /// The learned evaluation, when it has one.
    pub fn learned(&self) -> Option<&LearnedEval> {
        self.learned.as_ref()
    }

    pub fn config(&self) -> &AlphaBetaConfig {
        &self.config
    }

    /// A copy of `pos` from the reusable child slot `slot` (give it back with `put_child`).
    fn take_child(&mut self, slot: usize, pos: &Position) -> Position {
        match self.children.get_mut(slot).and_then(Option::take) {
            Some(mut child) => {
                child.copy_from(pos);
                child
            }
            None => pos.clone(),
        }
    }

    fn put_child(&mut self, slot: usize, child: Position) {
        if let Some(s) = self.children.get_mut(slot) {
            *s = Some(child);
        }
    }

    /// Makes the searches that follow vary with a game: `game_seed` joins the tie-breaks, and
    /// each static evaluation gets an offset in [-noise, noise] drawn from the game seed and the
    /// position (so a transposition sees the same offset). Without it alpha-beta plays every
    /// game from one start alike, and a balance study of a hundred games is one game a hundred
    /// times; a small noise in the opening varies the games while every move stays close to the
    /// best the search sees. `noise = 0` leaves only the tie-breaks.
    pub fn vary(&mut self, game_seed: u64, noise: i32) {
        self.game_seed = game_seed;
        self.noise = noise.max(0);
    }

    /// `vary`'s noise for a sampling phase at `temperature` (0 when it is over).
    pub fn opening_noise(&self, temperature: f32) -> i32 {
        (self.config.search.opening_noise as f32 * temperature.max(0.0)).round() as i32
    }

    /// Forgets what earlier searches learnt (table, killers, history): a search then depends
    /// only on the position, the limit and the seed.
    pub fn clear(&mut self) {
        self.tt.clear();
        self.killers.fill([None; 2]);
        self.history.fill(0);
    }

    /// The memory its transposition table holds: none until its first search.
    pub fn table_bytes(&self) -> usize {
        self.tt.allocated_bytes()
    }

    /// Bounds every later search by `cap`'s clock, whatever its limit (its memory is the table's,
    /// fixed by the settings).
    pub fn set_cap(&mut self, cap: SearchCap) {
        self.cap = cap;
    }

    /// A score as a value in [-1, 1] for the side to move: ±1 for a found win or loss,
    /// otherwise tanh(score / value_scale); a learned score is a logit, so its value is the
    /// expected result 2σ(logit) - 1 = tanh(logit / 2).
    pub fn value(&self, score: i32) -> f32 {
        if score.abs() >= WIN_BOUND {
            return score.signum() as f32;
        }
        let scale = match self.learned {
            Some(_) => 2.0 * LEARNED_PER_LOGIT as f32,
            None => self.config.search.value_scale,
        };
        (score as f32 / scale).tanh()
    }

    /// The static evaluation of a position, from the side to move's point of view.
    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        self.prepare(pos);
        self.static_score(pos, 0)
    }

    /// Readies the search for `pos` as its root: the variant's heuristic and tables, and the
    /// learned evaluation's root accumulator.
    fn prepare(&mut self, pos: &Position) {
        let variant = pos.variant();
        if !self.heuristic.as_ref().is_some_and(|h| h.is_for(variant)) {
            if let Some(learned) = &self.learned {
                assert!(
                    learned.fits(variant),
                    "the learned evaluation is for variant {} (checked when it was loaded), not {}",
                    learned.network().meta().variant,
                    variant.rules.name
                );
            }
            self.heuristic = Some(Heuristic::new(self.config.eval.clone(), variant));
            self.squares = variant.squares;
            self.history = vec![0; variant.squares * variant.squares];
            self.tt.clear();
        }
        if let Some(learned) = &mut self.learned {
            learned.refresh(pos.cells(), 0);
        }
        let search = &self.config.search;
        self.blend = match pos.side_to_move() {
            Side::Attackers => search.blend_attacking,
            Side::Defenders => search.blend_defending,
        };
    }

    /// Searches `pos` within `limit` and returns the best move found.
    pub fn search(&mut self, pos: &Position, limit: Limit) -> AbResult {
        self.prepare(pos);
        if self.pv.is_empty() {
            self.pv = vec![[Move::STOP; MAX_PLY]; MAX_PLY + 1];
            self.children = (0..2 * (MAX_PLY + 1)).map(|_| None).collect();
        }
        self.tt.new_search();
        self.killers.fill([None; 2]);
        for h in &mut self.history {
            *h /= 8;
        }
        self.nodes = 0;
        self.stopped = false;
        self.can_stop = false;
        let start = Instant::now();
        let (max_depth, time) = match limit {
            Limit::Depth(d) => (d.clamp(1, MAX_PLY as u32 - 1), None),
            Limit::Time(t) => (MAX_PLY as u32 - 1, Some(t)),
            Limit::Nodes(_) => (MAX_PLY as u32 - 1, None),
        };
        let time = match (time, self.cap.time) {
            (Some(t), Some(cap)) => Some(t.min(cap)),
            (t, cap) => t.or(cap),
        };
        self.deadline = time.map(|t| start + t);
        self.node_budget = match limit {
            Limit::Nodes(n) => Some(n),
            _ => None,
        };
        let settings = &self.config.search;
        self.clock = IterationClock::new(
            start,
            time,
            self.node_budget,
            settings.new_iteration_share,
            settings.predict_iterations,
        );

        let mut result = AbResult {
            best: None,
            score: 0,
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
        };
        if let Some(outcome) = pos.outcome() {
            result.score = terminal_score(outcome, pos.side_to_move(), 0);
            return result;
        }
        if pos.needs_roll() {
            // no move can be chosen before the roll: give the expected score only
            for depth in 1..=max_depth {
                self.can_stop = depth > 1;
                self.clock.begin(self.nodes);
                let score = self.chance(pos, depth, 0, -INFINITY, INFINITY);
                if self.stopped {
                    break;
                }
                self.clock.end(self.nodes);
                result.score = score;
                result.depth = depth;
                if !self.clock.start_another(self.nodes) {
                    break;
                }
            }
            result.nodes = self.nodes;
            return result;
        }

        let mut root = Vec::new();
        pos.legal_moves(&mut root);
        // shuffle first: the stable sort below keeps this order among equal moves, and the
        // first of equally scored moves is the one kept
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed ^ self.game_seed ^ pos.key());
        root.shuffle(&mut rng);
        let mut scored: Vec<(i32, Move)> = root
            .iter()
            .map(|&mv| (self.order_score(pos, mv, None, 0), mv))
            .collect();
        scored.sort_by_key(|&(s, _)| std::cmp::Reverse(s));
        let mut root: Vec<Move> = scored.into_iter().map(|(_, mv)| mv).collect();
        let single = root.len() == 1;

        for depth in 1..=max_depth {
            self.can_stop = depth > 1;
            self.clock.begin(self.nodes);
            let (score, best, searched) = self.root(pos, &mut root, depth);
            if self.stopped {
                // a move that beat the previous best at the new depth is trusted; the previous
                // best is searched first, so any `best` here was compared against it
                if searched > 0 {
                    if let Some(best) = best {
                        if Some(best) != result.best {
                            result.best = Some(best);
                            result.score = score;
                            result.pv = self.pv[0][..self.pv_len[0]].to_vec();
                        }
                    }
                }
                break;
            }
            self.clock.end(self.nodes);
            result.best = best;
            result.score = score;
            result.depth = depth;
            result.pv = self.pv[0][..self.pv_len[0]].to_vec();
            let proven = score.abs() >= WIN_BOUND && (WIN - score.abs()) as u32 <= depth;
            if proven || (single && time.is_some()) || !self.clock.start_another(self.nodes) {
                break;
            }
        }
        result.nodes = self.nodes;
        result
    }

    /// One iteration at the root: returns the score, the best move and how many moves were
    /// searched to the end; moves the best move to the front for the next iteration.
    fn root(
        &mut self,
        pos: &Position,
        root: &mut [Move],
        depth: u32,
    ) -> (i32, Option<Move>, usize) {
        let mut alpha = -INFINITY;
        let beta = INFINITY;
        let mut best: Option<(usize, Move)> = None;
        let mut searched = 0;
        self.pv_len[0] = 0;
        let mut child = self.take_child(0, pos);
        for (i, &mv) in root.iter().enumerate() {
            child.copy_from(pos);
            child.play_unchecked(mv);
            self.advance(pos, &child, 1);
            let score = if i == 0 {
                self.child(pos, &child, depth - 1, 1, alpha, beta)
            } else {
                let s = self.child(pos, &child, depth - 1, 1, alpha, alpha + 1);
                if s > alpha && !self.stopped {
                    self.child(pos, &child, depth - 1, 1, alpha, beta)
                } else {
                    s
                }
            };
            if self.stopped {
                break;
            }
            if i == 0 {
                self.clock.first_move_done(self.nodes);
            }
            searched += 1;
            if score > alpha {
                alpha = score;
                best = Some((i, mv));
                self.update_pv(0, mv);
            }
        }
        self.put_child(0, child);
        if let Some((i, _)) = best {
            root[..=i].rotate_right(1);
        }
        if !self.stopped {
            if let Some((_, mv)) = best {
                self.tt.store(
                    pos.key(),
                    TtEntry {
                        score: alpha,
                        depth,
                        bound: Bound::Exact,
                        mv: Some(mv),
                    },
                );
            }
        }
        (alpha, best.map(|(_, mv)| mv), searched)
    }

    /// Searches a child and returns its score from the parent's side to move.
    fn child(
        &mut self,
        parent: &Position,
        child: &Position,
        depth: u32,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        if child.side_to_move() == parent.side_to_move() {
            // berserk chain (or a pass that keeps the side): same point of view
            self.negamax(child, depth, ply, alpha, beta)
        } else {
            -self.negamax(child, depth, ply, -beta, -alpha)
        }
    }

    /// Brings the learned evaluation's accumulator at `ply` to `child` (a move from `parent`).
    fn advance(&mut self, parent: &Position, child: &Position, ply: usize) {
        if let Some(learned) = &mut self.learned {
            learned.advance(parent.cells(), child.cells(), ply);
        }
    }

    fn tick(&mut self) {
        self.nodes += 1;
        if self.can_stop && self.nodes.is_multiple_of(self.config.search.check_every) {
            let late = self.deadline.is_some_and(|d| Instant::now() >= d);
            let spent = self.node_budget.is_some_and(|n| self.nodes >= n);
            self.stopped |= late || spent;
        }
    }

    fn negamax(
        &mut self,
        pos: &Position,
        depth: u32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.tick();
        if self.stopped {
            return 0;
        }
        self.pv_len[ply] = 0;
        if let Some(outcome) = pos.status() {
            return terminal_score(outcome, pos.side_to_move(), ply);
        }
        // the evaluation ignores the die, so a leaf needs no chance node
        if depth == 0 || ply >= MAX_PLY - 1 {
            let plies = self.config.search.quiescence;
            return self.quiesce(pos, plies, ply, alpha, beta);
        }
        if pos.needs_roll() {
            return self.chance(pos, depth, ply, alpha, beta);
        }
        let key = pos.key();
        let mut tt_move = None;
        if let Some(entry) = self.tt.probe(key) {
            tt_move = entry.mv;
            if entry.depth >= depth {
                let score = from_tt(entry.score, ply);
                let usable = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if usable {
                    return score;
                }
            }
        }

        let mut list = std::mem::take(&mut self.lists[ply]);
        pos.legal_moves(&mut self.moves);
        if self.moves.is_empty() {
            self.lists[ply] = list;
            return terminal_score(pos.no_moves_outcome(), pos.side_to_move(), ply);
        }
        list.clear();
        for i in 0..self.moves.len() {
            let mv = self.moves[i];
            list.push((self.order_score(pos, mv, tt_move, ply), mv));
        }
        list.sort_unstable_by_key(|&(s, _)| std::cmp::Reverse(s));

        let alpha_in = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        let mut child = self.take_child(2 * ply, pos);
        for (i, &(order, mv)) in list.iter().enumerate() {
            child.copy_from(pos);
            child.play_unchecked(mv);
            self.advance(pos, &child, ply + 1);
            let score = if i == 0 {
                self.child(pos, &child, depth - 1, ply + 1, alpha, beta)
            } else {
                // principal variation search: prove the rest worse with a null window, late
                // quiet moves first at a reduced depth
                let reduced = self.reduction(pos, mv, order, i, depth);
                let mut s = self.child(pos, &child, depth - 1 - reduced, ply + 1, alpha, alpha + 1);
                if reduced > 0 && s > alpha && !self.stopped {
                    s = self.child(pos, &child, depth - 1, ply + 1, alpha, alpha + 1);
                }
                if s > alpha && s < beta && !self.stopped {
                    self.child(pos, &child, depth - 1, ply + 1, alpha, beta)
                } else {
                    s
                }
            };
            if self.stopped {
                self.lists[ply] = list;
                self.put_child(2 * ply, child);
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                }
            }
            if alpha >= beta {
                if order < ORDER_CAPTURE {
                    self.reward_quiet(mv, depth, ply);
                }
                break;
            }
        }
        self.lists[ply] = list;
        self.put_child(2 * ply, child);
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_in {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(
            key,
            TtEntry {
                score: to_tt(best, ply),
                depth,
                bound,
                mv: best_move,
            },
        );
        best
    }

    /// Plies a late move reduction takes off the `i`-th move (ordered at `order`) at a node with
    /// `depth` plies left: none for the first moves, forcing, table and killer moves, the
    /// king's moves (escapes and forks start there) and near the leaves.
    fn reduction(&self, pos: &Position, mv: Move, order: i32, i: usize, depth: u32) -> u32 {
        let search = &self.config.search;
        let late = i >= search.late_move_start as usize && order < ORDER_KILLER;
        if search.late_move_reduction == 0 || depth < 3 || !late || !mv.moves_a_piece() {
            return 0;
        }
        if Some(mv.from()) == pos.king() {
            return 0;
        }
        search.late_move_reduction.min(depth - 2)
    }

    /// A leaf searched on through captures and immediate wins for up to `plies` more plies, so
    /// that it is not judged in the middle of an exchange: the side to move may stand on the
    /// static score or take; quiet moves are not searched. With `escape_threats`, attackers
    /// facing an open escape line may not stand (they block it or take the king), and the
    /// defenders' king may also move to a fork. With `plies` 0 it is the static score.
    fn quiesce(
        &mut self,
        pos: &Position,
        plies: u32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        if let Some(outcome) = pos.status() {
            return terminal_score(outcome, pos.side_to_move(), ply);
        }
        let stand = self.static_score(pos, ply);
        if plies == 0 || ply >= MAX_PLY - 1 || pos.needs_roll() {
            return stand;
        }
        let threats = self.config.search.escape_threats;
        let attackers = pos.side_to_move() == Side::Attackers;
        let must_block = threats && attackers && escape_lines(pos, &mut self.escape_squares) > 0;
        if !must_block && stand >= beta {
            return stand;
        }
        // a fork needs three plies to pay: the king's move, one block, the escape
        let forks = threats && !attackers && plies >= 3;
        let king = pos.king();
        let mut list = std::mem::take(&mut self.lists[ply]);
        list.clear();
        pos.legal_moves(&mut self.moves);
        for i in 0..self.moves.len() {
            let mv = self.moves[i];
            let mut gain = forcing(pos, mv);
            if must_block && gain != ORDER_WIN {
                gain = i32::from(self.escape_squares.contains(&mv.to()));
            } else if forks && gain == 0 && mv.moves_a_piece() && Some(mv.from()) == king {
                gain = i32::from(open_lines_from(pos, mv.from(), mv.to()) >= 2);
            }
            if gain > 0 {
                list.push((gain, mv));
            }
        }
        list.sort_unstable_by_key(|&(s, _)| std::cmp::Reverse(s));
        // with no block the line may be overstated (a king with limited moves): stand after all
        let stands = !must_block || list.is_empty();
        if stands && stand >= beta {
            self.lists[ply] = list;
            return stand;
        }
        let mut best = if stands { stand } else { -INFINITY };
        if stands {
            alpha = alpha.max(stand);
        }
        let mut child = self.take_child(2 * ply, pos);
        for &(_, mv) in &list {
            child.copy_from(pos);
            child.play_unchecked(mv);
            self.advance(pos, &child, ply + 1);
            self.tick();
            if self.stopped {
                break;
            }
            // a berserk chain keeps the side to move: the same point of view
            let score = if child.side_to_move() == pos.side_to_move() {
                self.quiesce(&child, plies - 1, ply + 1, alpha, beta)
            } else {
                -self.quiesce(&child, plies - 1, ply + 1, -beta, -alpha)
            };
            if score > best {
                best = score;
                alpha = alpha.max(score);
                if alpha >= beta {
                    break;
                }
            }
        }
        self.lists[ply] = list;
        self.put_child(2 * ply, child);
        if self.stopped {
            return 0;
        }
        best
    }

    /// A chance node (the die is rolled next): the mean over the six rolls, searched with the
    /// Star1 bounds so that a mean that must fall outside the window stops early.
    fn chance(&mut self, pos: &Position, depth: u32, ply: usize, alpha: i32, beta: i32) -> i32 {
        const ROLLS: i64 = 6;
        let (lo, hi) = (-(WIN as i64), WIN as i64);
        let (alpha, beta) = (alpha as i64, beta as i64);
        let mut sum = 0i64;
        let mut child = self.take_child(2 * ply + 1, pos);
        let mut early = None;
        for roll in 1..=ROLLS {
            child.copy_from(pos);
            child.set_roll(roll as u8);
            let rest = ROLLS - roll;
            // the mean stays <= alpha if this roll scores <= a, whatever the rest score
            let a = ROLLS * alpha - sum - hi * rest;
            let b = ROLLS * beta - sum - lo * rest;
            let window = (a.max(lo - 1) as i32, b.min(hi + 1) as i32);
            let score = self.negamax(&child, depth, ply, window.0, window.1) as i64;
            if self.stopped {
                early = Some(0);
            } else if score <= a {
                early = Some(alpha as i32);
            } else if score >= b {
                early = Some(beta as i32);
            }
            if early.is_some() {
                break;
            }
            sum += score;
        }
        self.put_child(2 * ply + 1, child);
        early.unwrap_or((sum / ROLLS) as i32)
    }

    /// The evaluation at a leaf, with the one terminal case a leaf can hide: no legal move.
    fn static_score(&mut self, pos: &Position, ply: usize) -> i32 {
        let side = pos.side_to_move();
        let score = match &mut self.learned {
            Some(learned) => {
                if pos.berserk_piece().is_none() && !pos.has_legal_move() {
                    return terminal_score(pos.no_moves_outcome(), side, ply);
                }
                let learned_score = learned.score(ply, pos.cells(), side);
                let blend = self.blend;
                if blend == 0.0 {
                    learned_score
                } else {
                    let heuristic = self
                        .heuristic
                        .as_ref()
                        .expect("prepare() sets the heuristic before any evaluation");
                    let compiled = heuristic.score(pos, &heuristic.features(pos)) as f32;
                    // both as logits of the side to move's win, in the learned units
                    let per_logit = LEARNED_PER_LOGIT as f32;
                    let added = blend * 2.0 * compiled / self.config.search.value_scale;
                    (learned_score as f32 + added * per_logit)
                        .clamp(-EVAL_LIMIT as f32, EVAL_LIMIT as f32) as i32
                }
            }
            None => {
                let heuristic = self
                    .heuristic
                    .as_ref()
                    .expect("prepare() sets the heuristic before any evaluation");
                let f = heuristic.features(pos);
                let mobility = match side {
                    Side::Attackers => f.attacker_mobility,
                    Side::Defenders => f.defender_mobility,
                };
                // zero slides may still leave a legal move (throne, corner, jump, pass): ask the
                // rules
                if mobility == 0 && pos.berserk_piece().is_none() && !pos.has_legal_move() {
                    return terminal_score(pos.no_moves_outcome(), side, ply);
                }
                heuristic.score(pos, &f)
            }
        };
        if self.noise == 0 {
            return score;
        }
        let span = 2 * self.noise as u64 + 1;
        let draw = splitmix64(self.game_seed ^ pos.key().rotate_left(17)) % span;
        score + draw as i32 - self.noise
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        // callers stop at MAX_PLY - 1, so the child's line exists
        let child_len = self.pv_len[ply + 1];
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line[0] = mv;
        let n = child_len.min(MAX_PLY - 1);
        line[1..=n].copy_from_slice(&tail[0][..n]);
        self.pv_len[ply] = n + 1;
    }

    fn reward_quiet(&mut self, mv: Move, depth: u32, ply: usize) {
        let k = &mut self.killers[ply];
        if k[0] != Some(mv) {
            k[1] = k[0];
            k[0] = Some(mv);
        }
        if let Some(i) = self.history_index(mv) {
            let bonus = (depth * depth) as i32;
            self.history[i] += bonus;
            if self.history[i] >= HISTORY_MAX {
                for h in &mut self.history {
                    *h /= 2;
                }
            }
        }
    }

    fn history_index(&self, mv: Move) -> Option<usize> {
        mv.moves_a_piece()
            .then(|| mv.from() as usize * self.squares + mv.to() as usize)
    }

    /// Ordering key: table move, then wins now, captures (more first), killers, history.
    fn order_score(&self, pos: &Position, mv: Move, tt_move: Option<Move>, ply: usize) -> i32 {
        if Some(mv) == tt_move {
            return ORDER_TT;
        }
        let Some(piece) = moved_piece(pos, mv) else {
            return 0;
        };
        match forcing_gain(pos, mv, piece) {
            ORDER_WIN => return ORDER_WIN,
            captures if captures > 0 => return ORDER_CAPTURE + captures,
            _ => {}
        }
        let k = &self.killers[ply];
        if k[0] == Some(mv) {
            return ORDER_KILLER + 1;
        }
        if k[1] == Some(mv) {
            return ORDER_KILLER;
        }
        self.history_index(mv)
            .and_then(|i| self.history.get(i).copied())
            .unwrap_or(0)
    }
}

/// Whether a position is quiet: the side to move has no move that wins at once or likely
/// captures, so its static evaluation is not judging an exchange half played (the positions
/// Texel's method fits the evaluation on for a search with quiescence).
pub fn is_quiet(pos: &Position) -> bool {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    moves.into_iter().all(|mv| forcing(pos, mv) == 0)
}

/// The piece a move slides or jumps (none for a pass or a roll).
fn moved_piece(pos: &Position, mv: Move) -> Option<Piece> {
    if !mv.moves_a_piece() {
        return None;
    }
    Piece::from_code(pos.cells()[mv.from() as usize])
}

/// `forcing_gain` of any move: 0 for one that moves no piece (a pass or a roll).
fn forcing(pos: &Position, mv: Move) -> i32 {
    moved_piece(pos, mv).map_or(0, |piece| forcing_gain(pos, mv, piece))
}

/// How forcing a move is: `ORDER_WIN` when it wins at once, else the taflmen it likely captures
/// (0 for a quiet move). Orders the full search's moves and picks the quiescence search's.
fn forcing_gain(pos: &Position, mv: Move, piece: Piece) -> i32 {
    if wins_at_once(pos, mv) {
        ORDER_WIN
    } else {
        likely_captures(pos, mv, piece)
    }
}

/// Taflmen the move would likely capture, judged without playing it (ordering only: it sees
/// plain sandwiches against pieces, corners and the throne, not shieldwalls).
fn likely_captures(pos: &Position, mv: Move, piece: Piece) -> i32 {
    let v = pos.variant();
    let rules = &v.rules;
    let cells = pos.cells();
    let mut n = 0;
    if mv.kind() == MoveKind::Jump && piece.kind == PieceKind::Knight {
        n += 1;
    }
    if piece == Piece::KING && !rules.king.armed.hammer() {
        return n;
    }
    let enemy = piece.side.opponent();
    for d in 0..4 {
        let Some(victim) = v.neighbour(mv.to(), d) else {
            continue;
        };
        let code = cells[victim as usize];
        if side_of(code) != Some(enemy) || code == Piece::KING.code() {
            continue;
        }
        let Some(anvil) = v.neighbour(victim, d) else {
            continue;
        };
        if anvil == mv.from() {
            continue;
        }
        let anvil_code = cells[anvil as usize];
        let flags = v.flags[anvil as usize];
        let hostile = if side_of(anvil_code) == Some(piece.side) {
            anvil_code != Piece::KING.code() || rules.king.armed.anvil()
        } else if flags & CORNER != 0 {
            rules.capture.corners_hostile
        } else if flags & THRONE != 0 {
            let hostility = match piece.side {
                Side::Defenders => rules.capture.throne_hostile_to_attackers,
                Side::Attackers => rules.capture.throne_hostile_to_defenders,
            };
            hostility == Hostility::Always
                || (hostility == Hostility::WhenEmpty && anvil_code == EMPTY)
        } else {
            false
        };
        n += i32::from(hostile);
    }
    n
}

/// The score of a finished game `ply` plies from the root, for `to_move`.
fn terminal_score(outcome: Outcome, to_move: Side, ply: usize) -> i32 {
    match outcome.winner {
        None => 0,
        Some(w) if w == to_move => WIN - ply as i32,
        Some(_) => -(WIN - ply as i32),
    }
}

/// Win scores count plies from the root; the table keeps them counted from the node.
fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score + ply as i32
    } else if score <= -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score - ply as i32
    } else if score <= -WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}
