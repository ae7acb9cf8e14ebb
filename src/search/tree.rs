//! The search tree: an arena of nodes, walked from a root position. `select` hands out one leaf
//! at a time (or resolves a terminal one by itself); `expand` takes that leaf's evaluation.
//! Values on a node are from the point of view of the side that chose it (the side to move at
//! its parent), so berserk chains, where the same side moves twice, need no special case.

use rand::seq::SliceRandom;
use rand::Rng;
use rand_distr::{Distribution, Gamma};

use super::evaluator::Evaluation;
use crate::rules::{Move, Position, Side};

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchConfig {
    /// Exploration constant of PUCT.
    pub c_puct: f32,
    /// First-play urgency: an unvisited child is valued at the parent's value minus this.
    pub fpu_reduction: f32,
    /// Dirichlet noise mixed into the root priors (alpha, and weight; weight 0 disables it).
    pub dirichlet_alpha: f32,
    pub dirichlet_epsilon: f32,
    /// Gumbel sequential halving at the root instead of PUCT (better with few simulations).
    pub gumbel: bool,
    /// Actions Gumbel search considers at the root.
    pub gumbel_actions: usize,
    pub gumbel_c_visit: f32,
    pub gumbel_c_scale: f32,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            c_puct: 1.5,
            fpu_reduction: 0.2,
            dirichlet_alpha: 0.3,
            dirichlet_epsilon: 0.25,
            gumbel: false,
            gumbel_actions: 16,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 1.0,
        }
    }
}

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Edge {
    Root,
    Move(Move),
    Roll(u8),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    Unexpanded,
    Expanded,
    /// A die must be rolled here: children are the six rolls.
    Chance,
    /// Game over; the value for the side to move here.
    Terminal(f32),
}

#[derive(Clone, Debug)]
struct Node {
    edge: Edge,
    parent: u32,
    first_child: u32,
    children: u32,
    prior: f32,
    visits: u32,
    /// Sum of backed-up values from the chooser's point of view.
    value_sum: f32,
    chooser: Side,
    state: State,
    /// The evaluation's value, for the side to move here.
    eval_value: f32,
}

/// What `select` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selected {
    /// A leaf waits for evaluation: see `pending`.
    Leaf,
    /// A terminal position was reached and backed up; no evaluation needed.
    Resolved,
}

struct Pending {
    path: Vec<u32>,
    position: Position,
    moves: Vec<Move>,
}

pub struct Tree {
    nodes: Vec<Node>,
    root_position: Position,
    pending: Option<Pending>,
}

/// One root child's statistics.
#[derive(Clone, Copy, Debug)]
pub struct ChildStats {
    pub mv: Move,
    pub visits: u32,
    /// Mean value for the side to move at the root (None when unvisited).
    pub q: Option<f32>,
    pub prior: f32,
}

fn leaf_value_for(side_to_move: Side, winner: Option<Side>) -> f32 {
    match winner {
        Some(w) if w == side_to_move => 1.0,
        Some(_) => -1.0,
        None => 0.0,
    }
}

impl Tree {
    pub fn new(root: Position) -> Tree {
        let chooser = root.side_to_move();
        Tree {
            nodes: vec![Node {
                edge: Edge::Root,
                parent: NONE,
                first_child: NONE,
                children: 0,
                prior: 1.0,
                visits: 0,
                value_sum: 0.0,
                chooser,
                state: State::Unexpanded,
                eval_value: 0.0,
            }],
            root_position: root,
            pending: None,
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

    /// The root's value for its side to move (its evaluation before any visit).
    pub fn root_value(&self) -> f32 {
        let root = &self.nodes[0];
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

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The leaf waiting for evaluation: its position and legal moves.
    pub fn pending(&self) -> Option<(&Position, &[Move])> {
        self.pending
            .as_ref()
            .map(|p| (&p.position, p.moves.as_slice()))
    }

    fn child_range(&self, node: usize) -> std::ops::Range<usize> {
        let n = &self.nodes[node];
        if n.first_child == NONE {
            0..0
        } else {
            n.first_child as usize..(n.first_child + n.children) as usize
        }
    }

    /// Walks to a leaf. `forced_root_child` (an index into the root's children) overrides the
    /// choice at the root (Gumbel search decides there).
    pub fn select(&mut self, cfg: &SearchConfig, forced_root_child: Option<usize>) -> Selected {
        assert!(self.pending.is_none(), "the previous leaf was not expanded");
        let mut pos = self.root_position.clone();
        let mut path = vec![0u32];
        let mut cur = 0usize;
        loop {
            match self.nodes[cur].state {
                State::Terminal(v) => {
                    let side = pos.side_to_move();
                    self.backup(&path, v, side);
                    return Selected::Resolved;
                }
                State::Unexpanded => {
                    if let Some(outcome) = pos.outcome() {
                        let side = pos.side_to_move();
                        let v = leaf_value_for(side, outcome.winner);
                        self.nodes[cur].state = State::Terminal(v);
                        self.backup(&path, v, side);
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
                    self.pending = Some(Pending {
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
                        .min_by_key(|&c| self.nodes[c].visits)
                        .expect("six rolls");
                    if let Edge::Roll(r) = self.nodes[child].edge {
                        pos.set_roll(r);
                    }
                    cur = child;
                }
                State::Expanded => {
                    let child = match forced_root_child {
                        Some(i) if cur == 0 => {
                            self.child_range(0).nth(i).expect("forced child exists")
                        }
                        _ => self.puct_child(cur, cfg),
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

    fn puct_child(&self, node: usize, cfg: &SearchConfig) -> usize {
        let parent = &self.nodes[node];
        let sqrt_n = (parent.visits.max(1) as f32).sqrt();
        let fpu = parent.eval_value - cfg.fpu_reduction;
        let mut best = (f32::NEG_INFINITY, 0);
        for c in self.child_range(node) {
            let child = &self.nodes[c];
            let q = if child.visits == 0 {
                fpu
            } else {
                child.value_sum / child.visits as f32
            };
            let score = q + cfg.c_puct * child.prior * sqrt_n / (1.0 + child.visits as f32);
            if score > best.0 {
                best = (score, c);
            }
        }
        best.1
    }

    fn add_children(&mut self, node: usize, edges: Vec<(Edge, f32)>, chooser: Side) {
        let first = self.nodes.len() as u32;
        let count = edges.len() as u32;
        for (edge, prior) in edges {
            self.nodes.push(Node {
                edge,
                parent: node as u32,
                first_child: NONE,
                children: 0,
                prior,
                visits: 0,
                value_sum: 0.0,
                chooser,
                state: State::Unexpanded,
                eval_value: 0.0,
            });
        }
        self.nodes[node].first_child = first;
        self.nodes[node].children = count;
    }

    /// Expands the pending leaf with its evaluation and backs the value up. At the root, mixes
    /// Dirichlet noise into the priors when the config asks for it.
    pub fn expand<R: Rng>(&mut self, eval: &Evaluation, cfg: &SearchConfig, rng: &mut R) {
        let Pending {
            path,
            position,
            moves,
        } = self.pending.take().expect("a pending leaf");
        let node = *path.last().expect("non-empty path") as usize;
        let side = position.side_to_move();
        let mut priors = eval.priors.clone();
        if node == 0 && !cfg.gumbel && cfg.dirichlet_epsilon > 0.0 && priors.len() > 1 {
            mix_dirichlet(&mut priors, cfg.dirichlet_alpha, cfg.dirichlet_epsilon, rng);
        }
        let mut edges: Vec<(Edge, f32)> = moves
            .iter()
            .zip(priors)
            .map(|(&m, p)| (Edge::Move(m), p))
            .collect();
        // children in a seeded random order: equal scores are then tried in no fixed pattern,
        // which would otherwise favour the first pieces generated and make play repetitive
        edges.shuffle(rng);
        self.add_children(node, edges, side);
        self.nodes[node].state = State::Expanded;
        self.nodes[node].eval_value = eval.value;
        self.backup(&path, eval.value, side);
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
                    q: (n.visits > 0).then(|| n.value_sum / n.visits as f32),
                    prior: n.prior,
                }
            })
            .collect()
    }

    /// Plays `mv` at the root and keeps its subtree (tree reuse). After a move into a chance
    /// node, `roll` picks the subtree of the die that was rolled.
    pub fn advance(&mut self, mv: Move, roll: Option<u8>) {
        self.pending = None;
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
            Some(k) if self.nodes[k].state != State::Unexpanded => self.reroot(k, next),
            _ => *self = Tree::new(next),
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
        nodes[0].edge = Edge::Root;
        nodes[0].prior = 1.0;
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
            mix_dirichlet(&mut priors, cfg.dirichlet_alpha, cfg.dirichlet_epsilon, rng);
            for (c, p) in range.zip(priors) {
                self.nodes[c].prior = p;
            }
        }
    }
}

fn mix_dirichlet<R: Rng>(priors: &mut [f32], alpha: f32, epsilon: f32, rng: &mut R) {
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
