//! Outcomes and searches in words, for the lines a play session prints.

use std::time::Duration;

use crate::engine::player::{SearchSummary, Thought};
use crate::rules::{Outcome, Position, Reason};
use crate::search::Proof;

/// Why the game ended, read from the final position: `the king escaped`, `the defenders have no
/// legal move`, `the length cap: 400 plies`.
pub fn reason_text(outcome: &Outcome, end: &Position) -> String {
    let rules = &end.variant().rules.end;
    match outcome.reason {
        Reason::KingEscaped => "the king escaped".into(),
        Reason::KingCaptured => "the king was captured".into(),
        Reason::Encirclement => "the attackers encircled the defenders".into(),
        Reason::EdgeFort => "the king holds an edge fort".into(),
        Reason::NoLegalMoves => {
            format!("the {} have no legal move", end.side_to_move().name())
        }
        Reason::Repetition => format!(
            "the same position occurred {} times",
            rules.repetition_count
        ),
        Reason::LengthCap => {
            if rules.max_plies > 0 && end.counted_plies() >= rules.max_plies {
                format!("the length cap: {} plies", rules.max_plies)
            } else {
                format!(
                    "the length cap: {} plies without a capture",
                    rules.max_plies_without_capture
                )
            }
        }
    }
}

/// `the defenders win: the king escaped` or `a draw: ...`.
pub fn outcome_text(outcome: &Outcome, end: &Position) -> String {
    let who = match outcome.winner {
        Some(side) => format!("the {} win", side.name()),
        None => "a draw".into(),
    };
    format!("{who}: {}", reason_text(outcome, end))
}

fn duration_text(t: Duration) -> String {
    if t < Duration::from_secs(10) {
        format!("{} ms", t.as_millis())
    } else {
        format!("{:.1} s", t.as_secs_f64())
    }
}

/// One short line on a search, for the side that was to move in `pos`: `depth 3, 1520 nodes,
/// value +0.12 for the attackers, line d6-c6 e4-e3, 4 ms`.
pub fn search_text(thought: &Thought, pos: &Position) -> String {
    let size = pos.variant().size;
    let side = pos.side_to_move().name();
    let value = |v: f32| format!("value {v:+.2} for the {side}");
    let mut parts = match &thought.search {
        SearchSummary::Random => vec!["a random legal move".to_string()],
        SearchSummary::AlphaBeta {
            depth,
            nodes,
            value: v,
            line,
        } => {
            let mut parts = vec![format!("depth {depth}, {nodes} nodes"), value(*v)];
            if line.len() > 1 {
                let shown: Vec<String> = line.iter().take(6).map(|m| m.name(size)).collect();
                parts.push(format!("line {}", shown.join(" ")));
            }
            parts
        }
        SearchSummary::Tree {
            simulations,
            value: v,
            proof,
        } => {
            let mut parts = vec![
                match simulations {
                    0 => "the network's policy".to_string(),
                    n => format!("{n} simulations"),
                },
                value(*v),
            ];
            if let Some(p) = proof {
                parts.push(
                    match p {
                        Proof::Win => "a proven win",
                        Proof::Draw => "a proven draw",
                        Proof::Loss => "a proven loss",
                    }
                    .to_string(),
                );
            }
            parts
        }
    };
    parts.push(duration_text(thought.elapsed));
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::notation::parse_otn;
    use crate::rules::{Move, Side, Variant};

    #[test]
    fn reasons_name_what_ended_the_game() {
        let v = Variant::load("brandubh").expect("preset");
        let mut pos = parse_otn(&v, "/7/7/K6/7/7/4t2/7/", Side::Defenders).expect("position");
        pos.play("a3-a1").expect("legal");
        let outcome = pos.outcome().expect("over");
        assert_eq!(
            outcome_text(&outcome, &pos),
            "the defenders win: the king escaped"
        );
        let cap = Outcome::draw(Reason::LengthCap);
        assert!(outcome_text(&cap, &pos).starts_with("a draw: the length cap: "));
    }

    #[test]
    fn a_search_line_names_depth_nodes_value_and_line() {
        let v = Variant::load("brandubh").expect("preset");
        let pos = Position::start(&v);
        let d6c6 = pos.parse_move("d6-c6").expect("legal").mv;
        let e4e3 = Move::slide(
            crate::rules::square::parse_square("e4", 7).expect("square"),
            crate::rules::square::parse_square("e3", 7).expect("square"),
        );
        let thought = Thought {
            mv: d6c6,
            search: SearchSummary::AlphaBeta {
                depth: 3,
                nodes: 1520,
                value: 0.12,
                line: vec![d6c6, e4e3],
            },
            elapsed: Duration::from_millis(4),
        };
        assert_eq!(
            search_text(&thought, &pos),
            "depth 3, 1520 nodes, value +0.12 for the attackers, line d6-c6 e4-e3, 4 ms"
        );
        let tree = Thought {
            search: SearchSummary::Tree {
                simulations: 200,
                value: -1.0,
                proof: Some(Proof::Loss),
            },
            elapsed: Duration::from_millis(12_500),
            ..thought
        };
        assert_eq!(
            search_text(&tree, &pos),
            "200 simulations, value -1.00 for the attackers, a proven loss, 12.5 s"
        );
    }
}
