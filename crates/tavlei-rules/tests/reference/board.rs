//! The reference game state: its own board, side to move, berserk piece, die, ply counters and
//! a repetition history of its own board keys, and the end conditions decided from them.

use std::collections::VecDeque;
use std::sync::Arc;

use tavlei_rules::rules::{Dice, NoMoves, Repetition};
use tavlei_rules::{Move, MoveKind, Outcome, Piece, PieceKind, Position, Reason, Side, Square};

use super::captures::make_move;
use super::geometry::{Coord, Geo, Grid};
use super::movegen::piece_moves;

#[derive(Clone)]
pub struct RefBoard {
    pub geo: Arc<Geo>,
    pub grid: Grid,
    pub side: Side,
    /// The piece that captured and may capture again (berserk chains).
    pub berserk: Option<Coord>,
    /// The die for the coming move (0 = not rolled).
    pub roll: u8,
    /// Plies toward `max_plies`, and since the last capture; a parity pass counts for neither.
    pub plies: u32,
    pub since_capture: u32,
    /// Keys of the positions since the last capture, the current one included.
    history: Vec<String>,
    /// The end a move brought about (no-legal-move endings are found from the move list).
    status: Option<Outcome>,
}

impl RefBoard {
    /// Copies an engine position once; from then on the reference keeps its own state.
    pub fn from_position(pos: &Position) -> RefBoard {
        let geo = Arc::new(Geo::new(pos.variant()));
        let mut grid = Grid::empty(geo.size);
        for c in geo.all() {
            grid.set(c, pos.piece_at(geo.index(c)));
        }
        let mut board = RefBoard {
            berserk: pos.berserk_piece().map(|sq| geo.coord(sq)),
            geo,
            grid,
            side: pos.side_to_move(),
            roll: pos.roll(),
            plies: pos.ply(),
            since_capture: pos.plies_since_capture(),
            history: Vec::new(),
            status: None,
        };
        board.history.push(board.key());
        if board.king().is_some_and(|k| board.geo.is_escape(k)) {
            board.status = Some(Outcome::win(Side::Defenders, Reason::KingEscaped));
        }
        board
    }

    /// Board, side to move and berserk piece: what makes a position the same for repetition.
    fn key(&self) -> String {
        let mut key: String = self
            .geo
            .all()
            .map(|c| self.grid.at(c).map_or('.', |p| p.otn_char()))
            .collect();
        key.push(if self.side == Side::Attackers {
            'a'
        } else {
            'd'
        });
        if let Some(b) = self.berserk {
            key += &self.geo.name(b);
        }
        key
    }

    pub fn king(&self) -> Option<Coord> {
        self.geo
            .all()
            .find(|&c| self.grid.at(c) == Some(Piece::KING))
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.grid.at(self.geo.coord(sq))
    }

    pub fn needs_roll(&self) -> bool {
        self.geo.rules().movement.dice != Dice::Off && self.roll == 0 && self.status.is_none()
    }

    /// How often the current position has occurred since the last capture.
    fn occurrences(&self) -> usize {
        let now = self.key();
        self.history.iter().filter(|k| **k == now).count()
    }

    /// The squares `mv` would capture from here, the king's included.
    pub fn captures_of(&self, mv: Move) -> Vec<Square> {
        if !mv.moves_a_piece() {
            return Vec::new();
        }
        let mut grid = self.grid.clone();
        let taken = make_move(&self.geo, &mut grid, mv);
        taken.squares.iter().map(|&c| self.geo.index(c)).collect()
    }

    /// Every legal move, sorted by its bits.
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.status.is_some() {
            return Vec::new();
        }
        let rules = self.geo.rules();
        if let Some(b) = self.berserk {
            let mut moves: Vec<Move> = piece_moves(&self.geo, &self.grid, b, self.roll)
                .into_iter()
                .filter(|&mv| !self.captures_of(mv).is_empty())
                .collect();
            moves.push(Move::STOP);
            moves.sort_by_key(|m| m.bits());
            return moves;
        }
        if rules.movement.dice == Dice::Parity && self.roll % 2 == 1 {
            return vec![Move::PASS];
        }
        let mut moves = Vec::new();
        for c in self.geo.all() {
            if self.grid.at(c).is_some_and(|p| p.side == self.side) {
                moves.extend(piece_moves(&self.geo, &self.grid, c, self.roll));
            }
        }
        let limit = rules.end.repetition_count as usize;
        // a move can only complete `limit` occurrences of a position already seen `limit - 1` times
        let crowded = || {
            self.history
                .iter()
                .any(|k| self.history.iter().filter(|o| *o == k).count() + 1 >= limit)
        };
        if rules.end.repetition == Repetition::Illegal && crowded() {
            let fresh: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|&mv| {
                    let mut child = self.clone();
                    child.play(mv);
                    child.occurrences() < limit
                })
                .collect();
            // the repeating move stays legal when nothing else is
            if !fresh.is_empty() {
                moves = fresh;
            }
        }
        moves.sort_by_key(|m| m.bits());
        moves
    }

    /// The result, given the legal moves of this position (empty: the side to move is stuck).
    pub fn outcome(&self, legal: &[Move]) -> Option<Outcome> {
        if self.status.is_some() {
            return self.status;
        }
        if !legal.is_empty() {
            return None;
        }
        Some(match self.geo.rules().end.no_moves {
            NoMoves::Loss => Outcome::win(self.side.opponent(), Reason::NoLegalMoves),
            NoMoves::Draw => Outcome::draw(Reason::NoLegalMoves),
        })
    }

    /// Plays a legal move; returns the captured squares.
    pub fn play(&mut self, mv: Move) -> Vec<Square> {
        self.roll = 0;
        let mover = self.side;
        match mv.kind() {
            MoveKind::Pass => {
                // a pass forced by the die is no position for repetition and no ply for the caps
                self.side = mover.opponent();
                return Vec::new();
            }
            MoveKind::Stop => {
                self.berserk = None;
                self.side = mover.opponent();
                self.plies += 1;
                self.since_capture += 1;
                self.history.push(self.key());
                self.status = self.repetition_or_cap();
                return Vec::new();
            }
            MoveKind::Slide | MoveKind::Jump => {}
        }
        self.berserk = None;
        let to = self.geo.coord(mv.to());
        let piece = self.grid.at(self.geo.coord(mv.from())).expect("a piece");
        let taken = make_move(&self.geo, &mut self.grid, mv);
        self.plies += 1;
        if taken.squares.is_empty() {
            self.since_capture += 1;
        } else {
            self.since_capture = 0;
            // no position before a capture can come back
            self.history.clear();
        }
        if taken.king {
            self.status = Some(Outcome::win(Side::Attackers, Reason::KingCaptured));
        } else if piece.kind == PieceKind::King && self.geo.is_escape(to) {
            self.status = Some(Outcome::win(Side::Defenders, Reason::KingEscaped));
        }
        let chain = self.status.is_none()
            && !taken.squares.is_empty()
            && self.geo.rules().movement.berserk_chains
            && piece_moves(&self.geo, &self.grid, to, 0)
                .into_iter()
                .any(|next| !self.captures_of(next).is_empty());
        if chain {
            self.berserk = Some(to);
        } else {
            self.side = mover.opponent();
        }
        self.history.push(self.key());
        if self.status.is_none() {
            self.status = self
                .positional_end(mover)
                .or_else(|| self.repetition_or_cap());
        }
        taken.squares.iter().map(|&c| self.geo.index(c)).collect()
    }

    /// Encirclement after an attackers' move, edge fort after any move.
    fn positional_end(&self, mover: Side) -> Option<Outcome> {
        let end = &self.geo.rules().end;
        if end.encirclement && mover == Side::Attackers && self.encircled() {
            return Some(Outcome::win(Side::Attackers, Reason::Encirclement));
        }
        if end.edge_fort && self.edge_fort() {
            return Some(Outcome::win(Side::Defenders, Reason::EdgeFort));
        }
        None
    }

    fn repetition_or_cap(&self) -> Option<Outcome> {
        let end = &self.geo.rules().end;
        if self.occurrences() >= end.repetition_count as usize {
            match end.repetition {
                Repetition::Draw => return Some(Outcome::draw(Reason::Repetition)),
                Repetition::DefendersLose => {
                    return Some(Outcome::win(Side::Attackers, Reason::Repetition))
                }
                Repetition::Ignore | Repetition::Illegal => {}
            }
        }
        let over = |cap: u32, n: u32| cap > 0 && n >= cap;
        (over(end.max_plies, self.plies) || over(end.max_plies_without_capture, self.since_capture))
            .then(|| Outcome::draw(Reason::LengthCap))
    }

    /// No defender (king included) can reach an edge square through squares free of attackers.
    fn encircled(&self) -> bool {
        let geo = &self.geo;
        let mut seen = vec![false; geo.size * geo.size];
        let mut queue: VecDeque<Coord> = geo
            .all()
            .filter(|&c| self.grid.at(c).is_some_and(|p| p.side == Side::Defenders))
            .collect();
        for &c in &queue {
            seen[geo.index(c) as usize] = true;
        }
        while let Some(c) = queue.pop_front() {
            if geo.on_edge(c) {
                return false;
            }
            for n in geo.around(c).into_iter().flatten() {
                let free = !self.grid.at(n).is_some_and(|p| p.side == Side::Attackers);
                if free && !seen[geo.index(n) as usize] {
                    seen[geo.index(n) as usize] = true;
                    queue.push_back(n);
                }
            }
        }
        true
    }

    /// The edge fort is the one end condition the reference does not decide by itself: it asks
    /// the engine's public predicate `Position::king_in_edge_fort` about this board.
    fn edge_fort(&self) -> bool {
        if self.king().is_none() {
            return false;
        }
        let cells: Vec<u8> = self
            .geo
            .all()
            .map(|c| self.grid.at(c).map_or(0, |p| p.code()))
            .collect();
        Position::from_cells(&self.geo.variant, &cells, self.side)
            .expect("a reference board is a valid position")
            .king_in_edge_fort()
    }
}
