//! How a game ends: the winner (or a draw) and the reason.

use serde::{Deserialize, Serialize};

use super::piece::Side;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    KingEscaped,
    KingCaptured,
    Encirclement,
    EdgeFort,
    NoLegalMoves,
    Repetition,
    LengthCap,
}

impl Reason {
    pub const ALL: [Reason; 7] = [
        Reason::KingEscaped,
        Reason::KingCaptured,
        Reason::Encirclement,
        Reason::EdgeFort,
        Reason::NoLegalMoves,
        Reason::Repetition,
        Reason::LengthCap,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Reason::KingEscaped => "king_escaped",
            Reason::KingCaptured => "king_captured",
            Reason::Encirclement => "encirclement",
            Reason::EdgeFort => "edge_fort",
            Reason::NoLegalMoves => "no_legal_moves",
            Reason::Repetition => "repetition",
            Reason::LengthCap => "length_cap",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Outcome {
    /// `None` for a draw.
    pub winner: Option<Side>,
    pub reason: Reason,
}

impl Outcome {
    pub fn win(side: Side, reason: Reason) -> Outcome {
        Outcome {
            winner: Some(side),
            reason,
        }
    }

    pub fn draw(reason: Reason) -> Outcome {
        Outcome {
            winner: None,
            reason,
        }
    }

    /// `attackers`, `defenders` or `draw`.
    pub fn result_name(&self) -> &'static str {
        self.winner.map_or("draw", Side::name)
    }
}
