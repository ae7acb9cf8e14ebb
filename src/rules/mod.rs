//! The rules engine: variants as data, positions, move generation, captures, end conditions,
//! notation, symmetries, perft and random playouts. It knows nothing of search or networks.

pub mod bitboard;
pub mod error;
pub mod moves;
pub mod notation;
pub mod otg;
pub mod otn_rules;
pub mod outcome;
pub mod perft;
pub mod piece;
pub mod playout;
pub mod position;
pub mod presets;
pub mod replay;
#[allow(clippy::module_inception)]
pub mod rules;
pub mod square;
pub mod symmetry;
pub mod variant;

pub use error::RulesError;
pub use moves::{Move, MoveKind};
pub use outcome::{Outcome, Reason};
pub use piece::{Piece, PieceKind, Side};
pub use position::{BoardError, Position, RecordedState};
pub use rules::Rules;
pub use square::Square;
pub use symmetry::Symmetry;
pub use variant::Variant;
