//! What the page is sent: a game as JSON (the board, whose turn, the legal moves, the last move and
//! what it took, the end and its reason, the agent's analysis) and a variant's board.

use std::sync::Arc;

use serde::Serialize;

use crate::engine::analysis::Analysis;
use crate::play::game::Game;
use crate::report::viewer::board_cells;
use crate::rules::notation::move_with_captures;
use crate::rules::{Move, Position, Side, Square, Variant};

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BoardView {
    pub variant: String,
    pub title: String,
    pub size: usize,
    /// Per square: 1 throne, 2 corner, 4 camp.
    pub flags: Vec<u8>,
    /// The start position's cells.
    pub start: String,
    /// The side that moves first.
    pub first: Side,
}

impl BoardView {
    pub fn of(variant: &Arc<Variant>) -> BoardView {
        let start = Position::start(variant);
        BoardView {
            variant: variant.name().to_string(),
            title: variant.rules.title.clone(),
            size: variant.size,
            flags: variant.flags.clone(),
            start: board_cells(&start),
            first: variant.rules.movement.first,
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct MoveView {
    /// As a record writes it (`d1-d3`; `pass`).
    pub name: String,
    /// Squares (a1 = 0), absent for a pass.
    pub from: Option<Square>,
    pub to: Option<Square>,
}

impl MoveView {
    pub fn of(mv: Move, size: usize) -> MoveView {
        let slides = mv.moves_a_piece();
        MoveView {
            name: mv.name(size),
            from: slides.then(|| mv.from()),
            to: slides.then(|| mv.to()),
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CandidateView {
    pub mv: MoveView,
    /// Simulations through the move (0 where the agent does not count them).
    pub visits: u32,
    pub prior: Option<f32>,
    /// For the side to move, in [-1, 1].
    pub value: Option<f32>,
    /// The expected line, from this move on.
    pub line: Vec<MoveView>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AnalysisView {
    pub agent: String,
    /// The ply it was made at (0 = the start) and the side it thought for.
    pub ply: usize,
    pub side: Side,
    pub best: MoveView,
    /// The position's value for that side, in [-1, 1].
    pub value: f32,
    /// Simulations, or alpha-beta's nodes.
    pub work: u64,
    pub depth: Option<u32>,
    /// The first candidates, best first.
    pub candidates: Vec<CandidateView>,
}

/// Candidates shown in the panel.
const SHOWN: usize = 8;

impl AnalysisView {
    pub fn of(a: &Analysis, pos: &Position, agent: &str) -> AnalysisView {
        let size = pos.variant().size;
        AnalysisView {
            agent: agent.to_string(),
            ply: pos.ply() as usize,
            side: pos.side_to_move(),
            best: MoveView::of(a.best, size),
            value: a.value,
            work: a.work,
            depth: a.depth,
            candidates: a
                .candidates
                .iter()
                .take(SHOWN)
                .map(|c| CandidateView {
                    mv: MoveView::of(c.mv, size),
                    visits: c.visits,
                    prior: c.prior,
                    value: c.value,
                    line: c.pv.iter().map(|&m| MoveView::of(m, size)).collect(),
                })
                .collect(),
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlyView {
    /// As a record writes it, captures included (`d1-d3xe3`).
    pub text: String,
    pub mv: MoveView,
    pub captured: Vec<Square>,
    /// `person`, `agent` or `forced` (a pass the die forced).
    pub by: &'static str,
    /// The board after it.
    pub cells: String,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EndView {
    /// In words: who won and why.
    pub text: String,
    /// None for a draw.
    pub winner: Option<Side>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GameView {
    pub id: u64,
    pub board: BoardView,
    pub person: Side,
    pub agent: String,
    pub to_move: Side,
    /// The die's roll for this move (0: none).
    pub roll: u8,
    /// The current board and the start's.
    pub cells: String,
    pub plies: Vec<PlyView>,
    /// The person's legal moves (empty when it is not their turn or the game is over).
    pub legal: Vec<MoveView>,
    /// The agent is to move: the page asks for its reply.
    pub agent_to_move: bool,
    pub end: Option<EndView>,
    pub analysis: Option<AnalysisView>,
}

impl GameView {
    pub fn of(
        id: u64,
        game: &Game,
        person: Side,
        agent: &str,
        analysis: Option<&AnalysisView>,
    ) -> GameView {
        let pos = game.position();
        let size = pos.variant().size;
        let end = game.end().map(|text| EndView {
            text,
            winner: game.winner().flatten(),
        });
        let mut legal = Vec::new();
        if end.is_none() && pos.side_to_move() == person {
            pos.legal_moves(&mut legal);
        }
        let plies = game
            .plies()
            .iter()
            .enumerate()
            .map(|(i, ply)| {
                let after = game.plies().get(i + 1).map_or(pos, |next| &next.before);
                PlyView {
                    text: move_with_captures(ply.mv, &ply.captured, size),
                    mv: MoveView::of(ply.mv, size),
                    captured: ply.captured.clone(),
                    by: match ply.mover {
                        crate::play::game::Mover::Person => "person",
                        crate::play::game::Mover::Agent => "agent",
                        crate::play::game::Mover::Forced => "forced",
                    },
                    cells: board_cells(after),
                }
            })
            .collect();
        GameView {
            id,
            board: BoardView::of(pos.variant()),
            person,
            agent: agent.to_string(),
            to_move: pos.side_to_move(),
            roll: pos.roll(),
            cells: board_cells(pos),
            plies,
            legal: legal.iter().map(|&m| MoveView::of(m, size)).collect(),
            agent_to_move: game.end().is_none() && pos.side_to_move() != person,
            end,
            analysis: analysis.cloned(),
        }
    }
}
