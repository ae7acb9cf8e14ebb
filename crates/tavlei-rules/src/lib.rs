//! The rules of the tafl family of board games: variants as data (21 presets and any variant
//! file), positions, move generation, captures, end conditions, notation of moves and positions,
//! symmetries, perft and random playouts. It knows nothing of search, networks or file formats
//! beyond its own variant files.
//!
//! ```
//! use tavlei_rules::{perft::perft, Position, Side, Variant};
//!
//! let brandubh = Variant::load("brandubh")?;
//! let mut pos = Position::start(&brandubh);
//! let mut moves = Vec::new();
//! pos.legal_moves(&mut moves);
//! assert_eq!(moves.len(), 40);
//! assert_eq!(perft(&pos, 2), 960);
//!
//! let captured = pos.play("d2-c2")?; // checked against the rules; returns the captures
//! assert!(captured.is_empty());
//! assert_eq!(pos.side_to_move(), Side::Defenders);
//! assert!(pos.play("a1-a2").is_err()); // a corner is empty: nothing to move
//! # Ok::<(), tavlei_rules::RulesError>(())
//! ```

pub mod bitboard;
pub mod error;
pub mod moves;
pub mod notation;
pub mod openings;
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
