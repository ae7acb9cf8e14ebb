//! A game state: the board, the side to move, and the history the end conditions need.

mod capture;
mod end_conditions;
mod legality;
mod movegen;

use std::sync::Arc;

use crate::bitboard::Bitboard;
use crate::moves::{Move, MoveKind};
use crate::outcome::{Outcome, Reason};
use crate::piece::{side_of, Piece, PieceKind, Side, EMPTY};
use crate::rules::{Dice, Repetition};
use crate::square::{Square, MAX_SQUARES};
use crate::symmetry::Symmetry;
use crate::variant::Variant;

/// Receives the squares of captured pieces; `()` ignores them at no cost.
pub trait CaptureSink {
    fn captured(&mut self, sq: Square);
}

impl CaptureSink for () {
    #[inline]
    fn captured(&mut self, _: Square) {}
}

impl CaptureSink for Vec<Square> {
    fn captured(&mut self, sq: Square) {
        self.push(sq);
    }
}

#[derive(Clone)]
pub struct Position {
    variant: Arc<Variant>,
    cells: [u8; MAX_SQUARES],
    /// Occupancy of each side (the king counts among the defenders).
    occupied: [Bitboard; 2],
    king: Option<Square>,
    side: Side,
    ply: u32,
    /// Forced passes among those plies (parity die): they count toward no cap.
    passes: u32,
    plies_since_capture: u32,
    /// Hash of the board, side to move and pending berserk piece (not the die roll).
    hash: u64,
    /// Hashes since the last capture, the current one included: positions before a capture
    /// can never recur, so repetition looks no further back.
    history: Vec<u64>,
    /// The piece that captured and may go on capturing (Berserk chains).
    berserk: Option<Square>,
    /// The die roll for the coming move (0 = not rolled).
    roll: u8,
    /// Set once a move has ended the game (everything but "no legal moves", found on demand).
    status: Option<Outcome>,
}

/// Why a board cannot be a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    #[error("{given} squares given, the board has {squares}")]
    Size { given: usize, squares: usize },
    #[error("an attackers' king on {0}: the king is the defenders' (`K` in OTN)")]
    AttackersKing(String),
    #[error("more than one king")]
    TwoKings,
    #[error("a taflman stands on {0}, which only the king may occupy")]
    KingOnlySquare(String),
    #[error("no king on the board")]
    NoKing,
}

#[inline]
fn side_index(side: Side) -> usize {
    match side {
        Side::Attackers => 0,
        Side::Defenders => 1,
    }
}

impl Position {
    /// Makes this position a copy of `other`, reusing this one's history allocation and its
    /// variant handle when both play the same variant: what a search does at every node,
    /// where `clone` would allocate a history and touch the variant's reference count.
    pub fn copy_from(&mut self, other: &Position) {
        // every field named, so a new one cannot be forgotten here
        let Position {
            variant,
            cells,
            occupied,
            king,
            side,
            ply,
            passes,
            plies_since_capture,
            hash,
            history,
            berserk,
            roll,
            status,
        } = other;
        if !Arc::ptr_eq(&self.variant, variant) {
            self.variant = Arc::clone(variant);
        }
        self.cells = *cells;
        self.occupied = *occupied;
        self.king = *king;
        self.side = *side;
        self.ply = *ply;
        self.passes = *passes;
        self.plies_since_capture = *plies_since_capture;
        self.hash = *hash;
        self.history.clear();
        self.history.extend_from_slice(history);
        self.berserk = *berserk;
        self.roll = *roll;
        self.status = *status;
    }

    /// The variant's start position.
    pub fn start(variant: &Arc<Variant>) -> Position {
        Position::from_cells(variant, &variant.start, variant.rules.movement.first)
            .expect("a variant's start layout was validated when it was loaded")
    }

    /// A position from one byte per square; checks what would make the engine misbehave.
    pub fn from_cells(
        variant: &Arc<Variant>,
        cells: &[u8],
        side: Side,
    ) -> Result<Position, BoardError> {
        if cells.len() != variant.squares {
            return Err(BoardError::Size {
                given: cells.len(),
                squares: variant.squares,
            });
        }
        let mut pos = Position {
            variant: variant.clone(),
            cells: [EMPTY; MAX_SQUARES],
            occupied: [Bitboard::EMPTY; 2],
            king: None,
            side,
            ply: 0,
            passes: 0,
            plies_since_capture: 0,
            hash: 0,
            history: Vec::with_capacity(256),
            berserk: None,
            roll: 0,
            status: None,
        };
        for (sq, &code) in cells.iter().enumerate() {
            let Some(piece) = Piece::from_code(code) else {
                continue;
            };
            let sq = sq as Square;
            let flags = variant.flags[sq as usize];
            if piece.kind == PieceKind::King {
                if piece.side != Side::Defenders {
                    return Err(BoardError::AttackersKing(super::square::square_name(
                        sq,
                        variant.size,
                    )));
                }
                if pos.king.is_some() {
                    return Err(BoardError::TwoKings);
                }
                pos.king = Some(sq);
            } else if flags & (super::variant::THRONE | super::variant::CORNER) != 0 {
                return Err(BoardError::KingOnlySquare(super::square::square_name(
                    sq,
                    variant.size,
                )));
            }
            pos.put(sq, code);
        }
        if pos.king.is_none() {
            return Err(BoardError::NoKing);
        }
        pos.hash = pos.compute_hash();
        pos.history.push(pos.hash);
        pos.status = pos.static_outcome();
        Ok(pos)
    }

    /// The same position on a copy of its variant of its own: positions made from it (every
    /// clone a search makes) count references on a handle no other thread touches. Games played
    /// side by side on different threads each take one; sharing one handle, every clone's
    /// reference count bounced one cache line between the cores.
    pub fn with_own_variant(&self) -> Position {
        Position {
            variant: Arc::new(Variant::clone(&self.variant)),
            ..self.clone()
        }
    }

    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    pub fn side_to_move(&self) -> Side {
        self.side
    }

    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Plies since the last capture that count toward the cap (a forced pass does not).
    pub fn plies_since_capture(&self) -> u32 {
        self.plies_since_capture
    }

    /// Plies that count toward `max_plies`: every ply but the passes a parity die forced.
    pub fn counted_plies(&self) -> u32 {
        self.ply - self.passes
    }

    pub fn king(&self) -> Option<Square> {
        self.king
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::from_code(self.cells[sq as usize])
    }

    /// One byte per square, `variant.squares` long.
    pub fn cells(&self) -> &[u8] {
        &self.cells[..self.variant.squares]
    }

    pub fn occupied(&self, side: Side) -> Bitboard {
        self.occupied[side_index(side)]
    }

    pub fn count(&self, side: Side) -> u32 {
        self.occupied(side).count()
    }

    /// The piece that must go on capturing or stop (Berserk chains).
    pub fn berserk_piece(&self) -> Option<Square> {
        self.berserk
    }

    pub fn roll(&self) -> u8 {
        self.roll
    }

    /// Whether a die must be rolled (`set_roll`) before the next move.
    pub fn needs_roll(&self) -> bool {
        self.variant.rules.movement.dice != Dice::Off && self.roll == 0 && self.status.is_none()
    }

    /// Sets the die for the coming move (1..=6); 0 clears it.
    pub fn set_roll(&mut self, roll: u8) {
        self.roll = roll.min(6);
    }

    /// Hash of board, side to move and berserk state; the key for repetition.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Hash including the die roll: a key for caching evaluations.
    pub fn key(&self) -> u64 {
        self.hash ^ self.variant.zobrist.roll[self.roll as usize]
    }

    /// Recomputes the hash from the board (tests compare it with the incremental one).
    pub fn compute_hash(&self) -> u64 {
        let z = &self.variant.zobrist;
        let mut h = 0;
        for sq in 0..self.variant.squares {
            h ^= z.pieces[sq][self.cells[sq] as usize];
        }
        if self.side == Side::Defenders {
            h ^= z.defenders_to_move;
        }
        if let Some(b) = self.berserk {
            h ^= z.berserk[b as usize];
        }
        h
    }

    /// How often the current position has occurred (since the last capture).
    pub fn occurrences(&self) -> usize {
        self.history.iter().filter(|&&h| h == self.hash).count()
    }

    /// The outcome if the game has ended, checking for "no legal move" too.
    pub fn outcome(&self) -> Option<Outcome> {
        if self.status.is_some() {
            return self.status;
        }
        if self.needs_roll() || self.has_legal_move() {
            return None;
        }
        Some(self.no_moves_outcome())
    }

    /// The outcome recorded by the last move (does not look for "no legal move").
    pub fn status(&self) -> Option<Outcome> {
        self.status
    }

    /// The result when the side to move has no legal move.
    pub fn no_moves_outcome(&self) -> Outcome {
        match self.variant.rules.end.no_moves {
            super::rules::NoMoves::Loss => Outcome::win(self.side.opponent(), Reason::NoLegalMoves),
            super::rules::NoMoves::Draw => Outcome::draw(Reason::NoLegalMoves),
        }
    }

    #[inline]
    fn put(&mut self, sq: Square, code: u8) {
        self.cells[sq as usize] = code;
        if let Some(side) = side_of(code) {
            self.occupied[side_index(side)].set(sq);
        }
        self.hash ^= self.variant.zobrist.pieces[sq as usize][code as usize];
    }

    #[inline]
    fn remove(&mut self, sq: Square) -> u8 {
        let code = self.cells[sq as usize];
        self.cells[sq as usize] = EMPTY;
        if let Some(side) = side_of(code) {
            self.occupied[side_index(side)].clear(sq);
        }
        self.hash ^= self.variant.zobrist.pieces[sq as usize][code as usize];
        code
    }

    /// Plays a legal move; no checks (use `play` for moves from outside).
    #[inline]
    pub fn play_unchecked(&mut self, mv: Move) {
        self.play_with(mv, &mut ());
    }

    /// Plays a legal move and reports each captured square to `sink` (the king too).
    pub fn play_with<S: CaptureSink>(&mut self, mv: Move, sink: &mut S) {
        let z_side = self.variant.zobrist.defenders_to_move;
        if let Some(b) = self.berserk.take() {
            self.hash ^= self.variant.zobrist.berserk[b as usize];
        }
        self.roll = 0;
        self.ply += 1;
        if mv == Move::PASS {
            // a pass forced by the parity die: no position for the repetition rule, no step
            // toward the length caps (else four odd rolls would end most parity games)
            self.passes += 1;
            self.side = self.side.opponent();
            self.hash ^= z_side;
            return;
        }
        let mut captures = 0;
        let mut keep_turn = false;
        if mv.moves_a_piece() {
            let code = self.remove(mv.from());
            self.put(mv.to(), code);
            let piece = Piece::from_code(code).expect("a legal move moves a piece");
            if piece.kind == PieceKind::King {
                self.king = Some(mv.to());
            }
            if mv.kind() == MoveKind::Jump && piece.kind == PieceKind::Knight {
                let over = ((mv.from() as u32 + mv.to() as u32) / 2) as Square;
                self.remove(over);
                sink.captured(over);
                captures += 1;
            }
            captures += self.capture_from(mv.to(), piece, sink);
            if piece.kind == PieceKind::King && self.variant.is_escape(mv.to()) {
                self.status = Some(Outcome::win(Side::Defenders, Reason::KingEscaped));
            }
            if captures > 0 && self.status.is_none() && self.variant.rules.movement.berserk_chains {
                keep_turn = self.can_capture_from(mv.to());
            }
        }
        if captures > 0 {
            self.plies_since_capture = 0;
            self.history.clear();
        } else {
            self.plies_since_capture += 1;
        }
        if keep_turn {
            self.berserk = Some(mv.to());
            self.hash ^= self.variant.zobrist.berserk[mv.to() as usize];
        } else {
            self.side = self.side.opponent();
            self.hash ^= z_side;
        }
        self.history.push(self.hash);
        if self.status.is_none() {
            self.status = self.after_move_outcome(mv);
        }
    }

    /// End conditions a move can create, other than escape and king capture.
    fn after_move_outcome(&self, mv: Move) -> Option<Outcome> {
        let rules = &self.variant.rules;
        let mover = if self.berserk.is_some() {
            self.side
        } else {
            self.side.opponent()
        };
        if mv.moves_a_piece() {
            if mover == Side::Attackers && rules.end.encirclement && self.defenders_encircled() {
                return Some(Outcome::win(Side::Attackers, Reason::Encirclement));
            }
            if rules.end.edge_fort && self.king_in_edge_fort() {
                return Some(Outcome::win(Side::Defenders, Reason::EdgeFort));
            }
        }
        if matches!(
            rules.end.repetition,
            Repetition::Draw | Repetition::DefendersLose
        ) && self.occurrences() >= rules.end.repetition_count as usize
        {
            return Some(match rules.end.repetition {
                Repetition::DefendersLose => Outcome::win(Side::Attackers, Reason::Repetition),
                _ => Outcome::draw(Reason::Repetition),
            });
        }
        self.cap_outcome()
    }

    fn cap_outcome(&self) -> Option<Outcome> {
        let end = &self.variant.rules.end;
        let over = |cap: u32, n: u32| cap > 0 && n >= cap;
        (over(end.max_plies, self.counted_plies())
            || over(end.max_plies_without_capture, self.plies_since_capture))
        .then_some(Outcome::draw(Reason::LengthCap))
    }

    /// Whether a set-up position is already over (the king on an escape square).
    fn static_outcome(&self) -> Option<Outcome> {
        let king = self.king?;
        self.variant
            .is_escape(king)
            .then_some(Outcome::win(Side::Defenders, Reason::KingEscaped))
    }

    /// Restores the counters, the pending berserk piece and the occurrence count of a recorded
    /// position (a training sample, say). The earlier positions are not known: the repetition
    /// history holds this position `occurrences` times (at least once) and nothing else.
    pub fn restore_state(&mut self, state: &RecordedState) {
        self.ply = state.ply;
        self.passes = state.passes.min(state.ply);
        self.plies_since_capture = state.plies_since_capture;
        if let Some(b) = self.berserk.take() {
            self.hash ^= self.variant.zobrist.berserk[b as usize];
        }
        if let Some(b) = state.berserk {
            self.berserk = Some(b);
            self.hash ^= self.variant.zobrist.berserk[b as usize];
        }
        self.history = vec![self.hash; state.occurrences.max(1) as usize];
    }

    /// The counters `restore_state` takes back, as this position has them.
    pub fn recorded_state(&self) -> RecordedState {
        RecordedState {
            ply: self.ply,
            passes: self.passes,
            plies_since_capture: self.plies_since_capture,
            berserk: self.berserk,
            occurrences: self.occurrences().min(u8::MAX as usize) as u8,
        }
    }

    /// The position under a symmetry of the variant (earlier positions are not carried over; the
    /// occurrence count of this one is).
    pub fn transformed(&self, sym: Symmetry) -> Position {
        let size = self.variant.size;
        let mut cells = vec![EMPTY; self.variant.squares];
        for (sq, &code) in self.cells().iter().enumerate() {
            cells[sym.apply(sq as Square, size) as usize] = code;
        }
        let mut pos = Position::from_cells(&self.variant, &cells, self.side)
            .expect("a symmetry of the variant maps legal positions to legal positions");
        pos.ply = self.ply;
        pos.passes = self.passes;
        pos.plies_since_capture = self.plies_since_capture;
        pos.roll = self.roll;
        pos.status = self.status;
        if let Some(b) = self.berserk {
            let image = sym.apply(b, size);
            pos.berserk = Some(image);
            pos.hash ^= self.variant.zobrist.berserk[image as usize];
        }
        // the earlier positions are not carried over, but how often this one occurred is
        pos.history = vec![pos.hash; self.occurrences().max(1)];
        pos
    }
}

/// What a recorded position needs besides its board and side to move: the counters the caps and
/// the network look at, a pending berserk piece, and how often the position had occurred.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordedState {
    pub ply: u32,
    /// Forced passes among `ply` (parity die).
    pub passes: u32,
    pub plies_since_capture: u32,
    pub berserk: Option<Square>,
    /// Occurrences of the position since the last capture, this one included.
    pub occurrences: u8,
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} to move",
            super::notation::position_to_otn(self),
            self.side.name()
        )
    }
}
