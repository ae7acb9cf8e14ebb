//! The search tree: an arena of nodes, walked from a root position. `select` hands out one leaf
//! at a time (or resolves a terminal one by itself); `expand` takes that leaf's evaluation.
//! Values on a node are from the point of view of the side that chose it (the side to move at
//! its parent), so berserk chains, where the same side moves twice, need no special case.
//!
//! Proven results (the solver's, `solver.rs`) are stored on the nodes: `select` backs up a
//! proven node's exact value instead of searching it further and never picks a proven loss while
//! anything else is left.

use rand::seq::SliceRandom;
use rand::Rng;
use rand_distr::{Distribution, Gamma};

use super::config::{Fpu, SearchConfig, Selection};
use super::evaluator::Evaluation;
use super::solver::{result_for, Proof};
use crate::rules::{Move, Position, Side};

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Edge {
    Root,
    Move(Move),
    Roll(u8),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum State {
    Unexpanded,
    Expanded,
    /// A die must be rolled here: children are the six rolls.
    Chance,
    /// Game over; the value for the side to move here.
    Terminal(f32),
}

#[derive(Clone, Debug)]
pub(super) struct Node {
    pub(super) edge: Edge,
    parent: u32,
    first_child: u32,
    children: u32,
    pub(super) prior: f32,
    visits: u32,
    /// Sum of backed-up values from the chooser's point of view.
    value_sum: f32,
    pub(super) chooser: Side,
    pub(super) state: State,
    /// The evaluation's value, for the side to move here.
    eval_value: f32,
    /// Proven result from the chooser's point of view (at the root: for its side to move).
    pub(super) proof: Option<Proof>,
    /// Plies to the end of the game under the proof (shortest win, longest loss).
    pub(super) proof_plies: u16,
    /// Leaves below (or at) this node waiting for an evaluation: each counts as a lost visit
    /// for the chooser until it is backed up (virtual loss).
    in_flight: u32,
}

impl Node {
    fn new(edge: Edge, parent: u32, prior: f32, chooser: Side) -> Node {
        Node {
            edge,
            parent,
            first_child: NONE,
            children: 0,
            prior,
            visits: 0,
            value_sum: 0.0,
            chooser,
            state: State::Unexpanded,
            eval_value: 0.0,
            proof: None,
            proof_plies: 0,
            in_flight: 0,
        }
    }

    /// Visits, counting those on their way.
    pub(super) fn seen(&self) -> u32 {
        self.visits + self.in_flight
    }
}

/// What `select` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selected {
    /// A leaf waits for evaluation: see `pending`.
    Leaf,
    /// A terminal or proven position was reached and backed up; no evaluation needed.
    Resolved,
    /// The walk reached a leaf already waiting for its evaluation: nothing was done.
    Collision,
}

/// What the driver tells `select` about this search.
#[derive(Clone, Copy, Debug, Default)]
pub struct SelectContext {
    /// An index into the root's children that overrides the choice there (Gumbel search).
    pub forced_root_child: Option<usize>,
    /// Simulations this search may still run, when counted in nodes (widening at the root).
    pub root_budget: Option<u32>,
    /// KataGo's forced playouts at the root (`SearchConfig::forces_playouts`, decided once per
    /// search): a root child short of its forced visits is chosen first.
    pub forced_playouts: bool,
}

struct Pending {
    path: Vec<u32>,
    position: Position,
    moves: Vec<Move>,
}

pub struct Tree {
    pub(super) nodes: Vec<Node>,
    pub(super) root_position: Position,
    /// Leaves waiting for an evaluation, oldest first.
    pending: std::collections::VecDeque<Pending>,
    /// `SearchConfig::draw_value` this tree's values were backed up with.
    pub(super) draw_value: f32,
}

/// One root child's statistics.
#[derive(Clone, Copy, Debug)]
pub struct ChildStats {
    pub mv: Move,
    pub visits: u32,
    /// Value for the side to move at the root: the proven value when proven, else the mean
    /// (None when unvisited and unproven).
    pub q: Option<f32>,
    pub prior: f32,
    /// Proven result for the side to move at the root, and plies to the end under it.
    pub proof: Option<Proof>,
    pub proof_plies: u16,
}

impl Tree {
    pub fn new(root: Position) -> Tree {
        let chooser = root.side_to_move();
        Tree {
            nodes: vec![Node::new(Edge::Root, NONE, 1.0, chooser)],
            root_position: root,
            pending: Default::default(),
            draw_value: 0.0,
        }
    }

    /// The memory its nodes hold.
    pub fn allocated_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
    }

    /// Values drawn ends at `v` for the root's side to move (`SearchConfig::draw_value`). A
    /// tree grown under another value starts afresh: its backed-up values assumed that one.
    pub fn use_draw_value(&mut self, v: f32) {
        if v != self.draw_value {
            *self = Tree::new(self.root_position.clone());
            self.draw_value = v;
        }
    }

    pub fn root_position(&self) -> &Position {
        &self.root_position
    }

    pub fn root_visits(&self) -> u32 {
        self.nodes[0].visits
    }

    pub fn root_is_expanded(&self) -> bool {
        self.nodes[0].state == State::Expanded
    }

    /// How many moves the root has (0 before its expansion).
    pub fn root_child_count(&self) -> usize {
        self.nodes[0].children as usize
    }

    /// Whether the root position is over (found once the root was selected).
    pub fn root_is_terminal(&self) -> bool {
        matches!(self.nodes[0].state, State::Terminal(_))
    }

    /// The root's proven result for its side to move.
    pub fn root_proof(&self) -> Option<Proof> {
        self.nodes[0].proof
    }

    /// The root's value for its side to move (its evaluation before any visit; the proven
    /// value once proven).
    pub fn root_value(&self) -> f32 {
        let root = &self.nodes[0];
        if let Some(p) = root.proof {
            return self.proof_value(p, self.root_position.side_to_move());
        }
        let mut total = root.eval_value;
        let mut n = 1.0;
        for c in self.child_range(0) {
            let child = &self.nodes[c];
            total += child.value_sum;
            n += child.visits as f32;
        }
        if root.state == State::Expanded {
            total / n
        } else {
            root.eval_value
        }
    }

    /// The root's own evaluation (the network's value before any search).
    pub fn root_eval_value(&self) -> f32 {
        self.nodes[0].eval_value
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The oldest leaf waiting for evaluation (the next `expand` gives it its evaluation): its
    /// position and legal moves.
    pub fn pending(&self) -> Option<(&Position, &[Move])> {
        self.pending
            .front()
            .map(|p| (&p.position, p.moves.as_slice()))
    }

    /// Every leaf waiting for evaluation, oldest first (the order `expand` takes them in).
    pub fn pending_leaves(&self) -> impl Iterator<Item = (&Position, &[Move])> {
        self.pending
            .iter()
            .map(|p| (&p.position, p.moves.as_slice()))
    }

    /// How many leaves wait for evaluation.
    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }

    /// Visits on their way over the whole tree (the virtual losses of the pending leaves'
    /// paths): 0 whenever no leaf is pending, so after every search.
    pub fn in_flight(&self) -> u64 {
        self.nodes.iter().map(|n| n.in_flight as u64).sum()
    }

    pub(super) fn child_range(&self, node: usize) -> std::ops::Range<usize> {
        let n = &self.nodes[node];
        if n.first_child == NONE {
            0..0
        } else {
            n.first_child as usize..(n.first_child + n.children) as usize
        }
    }

    /// Walks to a leaf, or resolves a terminal or proven node on the way. A leaf found is added
    /// to the pending ones, with a virtual loss along its path until it is expanded.
    pub fn select(&mut self, cfg: &SearchConfig, ctx: SelectContext) -> Selected {
        let mut pos = self.root_position.clone();
        let mut path = vec![0u32];
        let mut cur = 0usize;
        loop {
            if cur != 0 && cfg.solver {
                if let Some(p) = self.nodes[cur].proof {
                    // a proven node is not searched further: its exact value is backed up
                    let chooser = self.nodes[cur].chooser;
                    self.backup(&path, self.proof_value(p, chooser), chooser);
                    return Selected::Resolved;
                }
            }
            match self.nodes[cur].state {
                State::Terminal(v) => {
                    let side = pos.side_to_move();
                    self.backup(&path, v, side);
                    return Selected::Resolved;
                }
                State::Unexpanded if self.nodes[cur].in_flight > 0 => {
                    return Selected::Collision;
                }
                State::Unexpanded => {
                    if let Some(outcome) = pos.outcome() {
                        let side = pos.side_to_move();
                        let v = self.make_terminal(cur, result_for(side, outcome.winner), side);
                        self.backup(&path, v, side);
                        if cfg.solver {
                            self.propagate_proofs(&path);
                        }
                        return Selected::Resolved;
                    }
                    if pos.needs_roll() {
                        self.add_children(
                            cur,
                            (1..=6).map(|r| (Edge::Roll(r), 1.0 / 6.0)).collect(),
                            pos.side_to_move(),
                        );
                        self.nodes[cur].state = State::Chance;
                        continue;
                    }
                    let mut moves = Vec::new();
                    pos.legal_moves(&mut moves);
                    for &i in &path {
                        self.nodes[i as usize].in_flight += 1;
                    }
                    self.pending.push_back(Pending {
                        path,
                        position: pos,
                        moves,
                    });
                    return Selected::Leaf;
                }
                State::Chance => {
                    // stratified: the least visited roll (all rolls are equally likely)
                    let child = self
                        .child_range(cur)
                        .min_by_key(|&c| self.nodes[c].seen())
                        .expect("six rolls");
                    if let Edge::Roll(r) = self.nodes[child].edge {
                        pos.set_roll(r);
                    }
                    cur = child;
                }
                State::Expanded => {
                    let child = if cur != 0 {
                        self.pick_child(cur, cfg, None)
                    } else if let Some(i) = ctx.forced_root_child {
                        self.child_range(0).nth(i).expect("forced child exists")
                    } else {
                        let forced = if ctx.forced_playouts {
                            self.forced_playout_child(cfg, ctx.root_budget)
                        } else {
                            None
                        };
                        forced.unwrap_or_else(|| self.pick_child(0, cfg, ctx.root_budget))
                    };
                    if let Edge::Move(mv) = self.nodes[child].edge {
                        pos.play_unchecked(mv);
                    }
                    cur = child;
                }
            }
            path.push(cur as u32);
        }
    }

    /// How many children (best prior first) a node may choose from: progressive widening.
    pub(super) fn window(&self, node: usize, cfg: &SearchConfig, budget: Option<u32>) -> usize {
        let count = self.nodes[node].children as usize;
        if cfg.widening <= 0.0 || budget.is_some_and(|b| b as usize >= count) {
            return count;
        }
        let n = self.nodes[node].visits as f32;
        ((cfg.widening * (n + 1.0).sqrt()).ceil() as usize).clamp(1, count)
    }

    fn pick_child(&self, node: usize, cfg: &SearchConfig, budget: Option<u32>) -> usize {
        let parent = &self.nodes[node];
        let window = self.window(node, cfg, budget);
        let sqrt_n = (parent.seen().max(1) as f32).sqrt();
        let ln_n = (parent.seen().max(1) as f32).ln();
        let fpu = parent.eval_value - cfg.fpu_reduction;
        let mut best = (f32::NEG_INFINITY, NONE as usize);
        let mut fallback = (f32::NEG_INFINITY, NONE as usize);
        let mut seen = 0;
        for c in self.child_range(node) {
            if seen >= window {
                break;
            }
            let child = &self.nodes[c];
            let proof = if cfg.solver { child.proof } else { None };
            // a proven loss is never chosen while anything else is left (it does not use up the
            // window either); the longest one is kept in case all are lost
            if proof == Some(Proof::Loss) {
                let s = child.proof_plies as f32;
                if s > fallback.0 {
                    fallback = (s, c);
                }
                continue;
            }
            seen += 1;
            // leaves on their way count as lost visits (virtual loss)
            let n = child.seen();
            let q = match proof {
                Some(p) => self.proof_value(p, child.chooser),
                None if n == 0 => match cfg.fpu {
                    // unvisited first, the best prior first among them
                    Fpu::UnvisitedFirst => return c,
                    Fpu::Parent => fpu,
                },
                None => (child.value_sum - child.in_flight as f32) / n as f32,
            };
            let score = match cfg.selection {
                Selection::Puct => q + cfg.c_puct * child.prior * sqrt_n / (1.0 + n as f32),
                Selection::Uct if n == 0 => q + cfg.c_uct * ln_n.max(1.0).sqrt(),
                Selection::Uct => q + cfg.c_uct * (ln_n / n as f32).sqrt(),
            };
            if score > best.0 {
                best = (score, c);
            }
        }
        if best.1 != NONE as usize {
            best.1
        } else if fallback.1 != NONE as usize {
            fallback.1
        } else {
            self.child_range(node).start
        }
    }

    fn add_children(&mut self, node: usize, edges: Vec<(Edge, f32)>, chooser: Side) {
        let first = self.nodes.len() as u32;
        let count = edges.len() as u32;
        for (edge, prior) in edges {
            self.nodes
                .push(Node::new(edge, node as u32, prior, chooser));
        }
        self.nodes[node].first_child = first;
        self.nodes[node].children = count;
    }

    /// Expands the oldest pending leaf with its evaluation (taking back its virtual loss) and
    /// backs the value up. At the root, mixes Dirichlet noise into the priors when the config
    /// asks for it. With the solver, moves that win at once are proven on the spot (and so is
    /// the leaf).
    pub fn expand<R: Rng>(&mut self, eval: &Evaluation, cfg: &SearchConfig, rng: &mut R) {
        self.expand_pending(0, eval, cfg, rng);
    }

    /// The same for the pending leaf at `index` (oldest first), e.g. the newest for a cached
    /// evaluation.
    pub fn expand_pending<R: Rng>(
        &mut self,
        index: usize,
        eval: &Evaluation,
        cfg: &SearchConfig,
        rng: &mut R,
    ) {
        let Pending {
            path,
            position,
            moves,
        } = self.pending.remove(index).expect("a pending leaf");
        for &i in &path {
            self.nodes[i as usize].in_flight -= 1;
        }
        let node = *path.last().expect("non-empty path") as usize;
        // an evaluation meant for another leaf would give this one wrong or missing children
        assert_eq!(
            eval.priors.len(),
            moves.len(),
            "an evaluation with a prior per move of its leaf"
        );
        let side = position.side_to_move();
        let mut priors = eval.priors.clone();
        if node == 0 && !cfg.gumbel && cfg.dirichlet_epsilon > 0.0 && priors.len() > 1 {
            mix_dirichlet(&mut priors, cfg, rng);
        }
        let mut edges: Vec<(Edge, f32)> = moves
            .iter()
            .zip(priors)
            .map(|(&m, p)| (Edge::Move(m), p))
            .collect();
        // children in a seeded random order: equal scores are then tried in no fixed pattern,
        // which would otherwise favour the first pieces generated and make play repetitive
        edges.shuffle(rng);
        if cfg.selection == Selection::Uct || cfg.widening > 0.0 {
            // best prior first (the widening window and unvisited-first follow this order);
            // the sort is stable, so equal priors keep their random order
            edges.sort_by(|a, b| b.1.total_cmp(&a.1));
        }
        let first = self.nodes.len();
        self.add_children(node, edges, side);
        self.nodes[node].state = State::Expanded;
        self.nodes[node].eval_value = eval.value;
        let value = self.settle_expansion(node, first, &position, eval.value, cfg);
        self.backup(&path, value, side);
        if cfg.solver {
            self.propagate_proofs(&path);
        }
    }

    fn backup(&mut self, path: &[u32], value: f32, side: Side) {
        for &i in path {
            let node = &mut self.nodes[i as usize];
            node.visits += 1;
            if i != 0 {
                node.value_sum += if node.chooser == side { value } else { -value };
            }
        }
    }

    /// Statistics of the root's children (empty before the root is expanded).
    pub fn root_children(&self) -> Vec<ChildStats> {
        self.child_range(0)
            .map(|c| {
                let n = &self.nodes[c];
                let mv = match n.edge {
                    Edge::Move(m) => m,
                    _ => Move::PASS,
                };
                ChildStats {
                    mv,
                    visits: n.visits,
                    q: match n.proof {
                        Some(p) => Some(self.proof_value(p, n.chooser)),
                        None => (n.visits > 0).then(|| n.value_sum / n.visits as f32),
                    },
                    prior: n.prior,
                    proof: n.proof,
                    proof_plies: n.proof_plies,
                }
            })
            .collect()
    }

    /// The expected line after the root's `k`-th child (in `root_children` order): its move,
    /// then at each node the most visited child, until an unvisited node or a die roll.
    pub fn principal_variation(&self, k: usize) -> Vec<Move> {
        let mut line = Vec::new();
        let mut node = self.child_range(0).nth(k);
        while let Some(n) = node {
            let Edge::Move(mv) = self.nodes[n].edge else {
                break;
            };
            line.push(mv);
            node = self
                .child_range(n)
                .filter(|&c| self.nodes[c].visits > 0)
                .max_by_key(|&c| self.nodes[c].visits);
        }
        line
    }

    /// Plays `mv` at the root and keeps its subtree (tree reuse). After a move into a chance
    /// node, `roll` picks the subtree of the die that was rolled.
    pub fn advance(&mut self, mv: Move, roll: Option<u8>) {
        // leaves never evaluated leave no virtual loss behind
        for p in std::mem::take(&mut self.pending) {
            for &i in &p.path {
                self.nodes[i as usize].in_flight -= 1;
            }
        }
        let mut next = self.root_position.clone();
        next.play_unchecked(mv);
        let mut keep = self
            .child_range(0)
            .find(|&c| self.nodes[c].edge == Edge::Move(mv));
        if let (Some(k), Some(r)) = (keep, roll) {
            next.set_roll(r);
            keep = self
                .child_range(k)
                .find(|&c| self.nodes[c].edge == Edge::Roll(r));
        }
        match keep {
            // under contempt the kept values were for the other side's draws
            Some(k) if self.nodes[k].state != State::Unexpanded && self.draw_value == 0.0 => {
                self.reroot(k, next)
            }
            _ => {
                let draw_value = self.draw_value;
                *self = Tree::new(next);
                self.draw_value = draw_value;
            }
        }
    }

    /// Keeps only the subtree under `new_root`, renumbered.
    fn reroot(&mut self, new_root: usize, position: Position) {
        let mut nodes = Vec::with_capacity(self.nodes.len());
        let mut queue = std::collections::VecDeque::from([(new_root, NONE)]);
        while let Some((old, parent)) = queue.pop_front() {
            let mut node = self.nodes[old].clone();
            node.parent = parent;
            node.first_child = NONE;
            node.children = 0;
            let new_index = nodes.len() as u32;
            nodes.push(node);
            for c in self.child_range(old) {
                queue.push_back((c, new_index));
            }
        }
        // breadth first, each parent's children arrive together and in order
        for i in 1..nodes.len() {
            let p = nodes[i].parent as usize;
            if nodes[p].first_child == NONE {
                nodes[p].first_child = i as u32;
            }
            nodes[p].children += 1;
        }
        // the root's proof is kept for its side to move
        let mover = position.side_to_move();
        let root = &mut nodes[0];
        if root.chooser != mover {
            root.proof = root.proof.map(Proof::flip);
            root.chooser = mover;
        }
        root.edge = Edge::Root;
        root.prior = 1.0;
        self.nodes = nodes;
        self.root_position = position;
    }

    /// Mixes Dirichlet noise into a reused root (a fresh root gets it when expanded).
    pub fn noise_reused_root<R: Rng>(&mut self, cfg: &SearchConfig, rng: &mut R) {
        if cfg.gumbel || cfg.dirichlet_epsilon <= 0.0 || self.nodes[0].state != State::Expanded {
            return;
        }
        let range = self.child_range(0);
        let mut priors: Vec<f32> = range.clone().map(|c| self.nodes[c].prior).collect();
        if priors.len() > 1 {
            mix_dirichlet(&mut priors, cfg, rng);
            for (c, p) in range.zip(priors) {
                self.nodes[c].prior = p;
            }
        }
    }
}

/// Mixes root noise into `priors`: Dirichlet with the config's concentration for this many
/// moves, weighted by `dirichlet_epsilon`.
fn mix_dirichlet<R: Rng>(priors: &mut [f32], cfg: &SearchConfig, rng: &mut R) {
    let (alpha, epsilon) = (cfg.noise_alpha(priors.len()), cfg.dirichlet_epsilon);
    let Ok(gamma) = Gamma::new(alpha.max(1e-3), 1.0) else {
        return;
    };
    let noise: Vec<f32> = priors.iter().map(|_| gamma.sample(rng)).collect();
    let sum: f32 = noise.iter().sum();
    if sum <= 0.0 {
        return;
    }
    for (p, n) in priors.iter_mut().zip(noise) {
        *p = (1.0 - epsilon) * *p + epsilon * n / sum;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::rules::Variant;
    use crate::search::Evaluation;
    use rand::SeedableRng;

    /// Runs `n` simulations on brandubh's start; every leaf's value (for its side to move) is
    /// `value(position)`, priors uniform.
    fn searched(n: usize, value: impl Fn(&Position) -> f32) -> Tree {
        // no first-play reduction: unvisited moves look as good as their parent, so every
        // move is tried before the values decide
        let cfg = SearchConfig {
            dirichlet_epsilon: 0.0,
            fpu_reduction: 0.0,
            solver: false,
            ..SearchConfig::default()
        };
        let mut tree = Tree::new(Position::start(&Variant::load("brandubh").expect("preset")));
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for _ in 0..n {
            if tree.select(&cfg, SelectContext::default()) == Selected::Leaf {
                let (pos, moves) = tree.pending().expect("a leaf");
                let eval = Evaluation {
                    priors: vec![1.0 / moves.len() as f32; moves.len()],
                    value: value(pos),
                };
                tree.expand(&eval, &cfg, &mut rng);
            }
        }
        tree
    }

    #[test]
    fn visits_add_up_and_values_are_seen_from_the_root() {
        // every leaf is good for the attackers: +0.5 when they are to move, -0.5 otherwise
        let tree = searched(60, |pos| match pos.side_to_move() {
            Side::Attackers => 0.5,
            Side::Defenders => -0.5,
        });
        assert_eq!(tree.root_visits(), 60);
        let children = tree.root_children();
        let child_visits: u32 = children.iter().map(|c| c.visits).sum();
        assert_eq!(child_visits, 59, "the root's own evaluation is one visit");
        // the attackers move first at the root, so every visited child is worth +0.5 to them
        for c in children.iter().filter(|c| c.visits > 0) {
            let q = c.q.expect("visited");
            assert!((q - 0.5).abs() < 1e-5, "{q}");
        }
        assert!(
            (tree.root_value() - 0.5).abs() < 1e-5,
            "{}",
            tree.root_value()
        );
    }

    #[test]
    fn search_prefers_the_move_whose_leaves_are_better() {
        // one move leads to a position worth more to the attackers than every other
        let start = Position::start(&Variant::load("brandubh").expect("preset"));
        let mut moves = Vec::new();
        start.legal_moves(&mut moves);
        let mut good = start.clone();
        good.play_unchecked(moves[3]);
        let good_key = good.key();
        let tree = searched(200, |pos| {
            let attackers_view = if pos.key() == good_key { 0.9 } else { -0.2 };
            match pos.side_to_move() {
                Side::Attackers => attackers_view,
                Side::Defenders => -attackers_view,
            }
        });
        let children = tree.root_children();
        let best = children.iter().max_by_key(|c| c.visits).expect("children");
        assert_eq!(best.mv, moves[3]);
        let runner_up = children
            .iter()
            .filter(|c| c.mv != best.mv)
            .map(|c| c.visits)
            .max()
            .expect("other moves");
        assert!(
            best.visits >= 2 * runner_up,
            "{} vs {runner_up}",
            best.visits
        );
    }

    #[test]
    fn advancing_keeps_the_chosen_subtree() {
        let mut tree = searched(80, |_| 0.0);
        let children = tree.root_children();
        let best = *children.iter().max_by_key(|c| c.visits).expect("children");
        tree.advance(best.mv, None);
        assert_eq!(tree.root_visits(), best.visits);
        let mut expected = Position::start(&Variant::load("brandubh").expect("preset"));
        expected.play_unchecked(best.mv);
        assert_eq!(tree.root_position().key(), expected.key());
    }

    #[test]
    fn noise_concentration_spreads_a_total_over_the_moves() {
        let fixed = SearchConfig::default();
        assert_eq!(fixed.noise_alpha(10), fixed.dirichlet_alpha);
        let scaled = SearchConfig {
            dirichlet_alpha_total: 10.0,
            ..SearchConfig::default()
        };
        assert_eq!(scaled.noise_alpha(40), 0.25);
        assert_eq!(scaled.noise_alpha(100), 0.1);
    }
}
