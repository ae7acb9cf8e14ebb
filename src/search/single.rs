//! Searching one position alone (batches of one): for agents, tests and analysis. Self-play
//! instead interleaves many games to batch their evaluations.

use rand::Rng;

use super::evaluator::Evaluator;
use super::gumbel::GumbelRoot;
use super::tree::{SearchConfig, Selected, Tree};
use crate::rules::Move;

/// The result of a search at the root.
#[derive(Clone, Debug)]
pub struct Decision {
    pub best: Move,
    /// Policy target over the root's legal moves (visit shares, or Gumbel's improved policy).
    pub policy: Vec<(Move, f32)>,
    /// Root value for the side to move.
    pub value: f32,
}

/// Runs `simulations` simulations from the tree's root and picks the most visited move (or, with
/// Gumbel search, the sequential-halving winner). `None` when the root has no legal move.
pub fn think<R: Rng>(
    tree: &mut Tree,
    evaluator: &mut dyn Evaluator,
    simulations: u32,
    cfg: &SearchConfig,
    rng: &mut R,
) -> Option<Decision> {
    let mut gumbel: Option<GumbelRoot> = None;
    let mut done = 0;
    while done < simulations.max(1) || !tree.root_is_expanded() {
        if cfg.gumbel && gumbel.is_none() && tree.root_is_expanded() {
            gumbel = Some(GumbelRoot::new(tree, cfg, simulations, rng));
        }
        let forced = gumbel.as_mut().map(|g| g.next_forced(tree, cfg));
        if tree.select(cfg, forced) == Selected::Leaf {
            let eval = {
                let (pos, moves) = tree.pending().expect("a pending leaf");
                evaluator
                    .evaluate(&[(pos, moves)])
                    .pop()
                    .expect("one evaluation")
            };
            tree.expand(&eval, cfg, rng);
        } else if !tree.root_is_expanded() {
            return None; // the root itself is terminal
        }
        done += 1;
    }
    let children = tree.root_children();
    if children.is_empty() {
        return None;
    }
    let (policy, best) = match &gumbel {
        Some(g) => (g.improved_policy(tree, cfg), g.chosen(tree, cfg)),
        None => {
            let total = children.iter().map(|c| c.visits).sum::<u32>().max(1) as f32;
            let best = (0..children.len())
                .max_by_key(|&i| children[i].visits)
                .unwrap_or(0);
            (
                children.iter().map(|c| c.visits as f32 / total).collect(),
                best,
            )
        }
    };
    Some(Decision {
        best: children[best].mv,
        policy: children
            .iter()
            .zip(policy)
            .map(|(c, p)| (c.mv, p))
            .collect(),
        value: tree.root_value(),
    })
}
