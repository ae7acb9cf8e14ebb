//! The board as the rule parameters describe it: special squares found by their coordinates
//! (throne at the centre, corners by `board.corners`, camps by their names), not through the
//! engine's precomputed flags.

use std::sync::Arc;

use tavlei_rules::rules::{Escape, Rules};
use tavlei_rules::{Piece, Square, Variant};

/// (file, rank), both from 0: `a1` is (0, 0).
pub type Coord = (usize, usize);

/// East, west, north, south.
pub const DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];

pub struct Geo {
    /// Kept to build an engine position for the one predicate the reference borrows (edge fort).
    pub variant: Arc<Variant>,
    pub size: usize,
    throne: Option<Coord>,
    camps: Vec<Vec<Coord>>,
}

/// `d9` -> (3, 8); the reference's own reading of square names.
fn parse_name(name: &str) -> Coord {
    let bytes = name.as_bytes();
    let file = (bytes[0] - b'a') as usize;
    let rank: usize = name[1..].parse().expect("a square name");
    (file, rank - 1)
}

impl Geo {
    pub fn new(variant: &Arc<Variant>) -> Geo {
        let rules = &variant.rules;
        let size = rules.board.layout.len();
        let throne = rules.board.throne.then_some((size / 2, size / 2));
        let camps = rules
            .board
            .camps
            .iter()
            .map(|camp| camp.iter().map(|n| parse_name(n)).collect())
            .collect();
        Geo {
            variant: variant.clone(),
            size,
            throne,
            camps,
        }
    }

    pub fn rules(&self) -> &Rules {
        &self.variant.rules
    }

    pub fn throne(&self) -> Option<Coord> {
        self.throne
    }

    pub fn step(&self, (f, r): Coord, (df, dr): (i32, i32)) -> Option<Coord> {
        let (f, r) = (f as i32 + df, r as i32 + dr);
        let n = self.size as i32;
        (f >= 0 && r >= 0 && f < n && r < n).then_some((f as usize, r as usize))
    }

    /// The four neighbours, `None` where the board ends.
    pub fn around(&self, c: Coord) -> [Option<Coord>; 4] {
        DIRS.map(|d| self.step(c, d))
    }

    pub fn is_throne(&self, c: Coord) -> bool {
        self.throne == Some(c)
    }

    pub fn is_corner(&self, (f, r): Coord) -> bool {
        let last = self.size - 1;
        let near = |x: usize| match self.rules().board.corners {
            1 => x == 0 || x == last,
            2 => x <= 1 || x >= last - 1,
            _ => false,
        };
        near(f) && near(r)
    }

    pub fn camp(&self, c: Coord) -> Option<usize> {
        self.camps.iter().position(|camp| camp.contains(&c))
    }

    pub fn on_edge(&self, (f, r): Coord) -> bool {
        let last = self.size - 1;
        f == 0 || r == 0 || f == last || r == last
    }

    /// Where the king's arrival wins.
    pub fn is_escape(&self, c: Coord) -> bool {
        match self.rules().end.escape {
            Escape::Corners => self.is_corner(c),
            Escape::Edge => self.on_edge(c),
        }
    }

    /// The engine's square index, to build and compare engine moves and capture lists.
    pub fn index(&self, (f, r): Coord) -> Square {
        (r * self.size + f) as Square
    }

    pub fn coord(&self, sq: Square) -> Coord {
        (sq as usize % self.size, sq as usize / self.size)
    }

    pub fn name(&self, (f, r): Coord) -> String {
        format!("{}{}", (b'a' + f as u8) as char, r + 1)
    }

    pub fn all(&self) -> impl Iterator<Item = Coord> + '_ {
        (0..self.size).flat_map(move |r| (0..self.size).map(move |f| (f, r)))
    }
}

/// The pieces, one cell per square.
#[derive(Clone, PartialEq, Eq)]
pub struct Grid {
    size: usize,
    cells: Vec<Option<Piece>>,
}

impl Grid {
    pub fn empty(size: usize) -> Grid {
        Grid {
            size,
            cells: vec![None; size * size],
        }
    }

    pub fn at(&self, (f, r): Coord) -> Option<Piece> {
        self.cells[r * self.size + f]
    }

    pub fn set(&mut self, (f, r): Coord, piece: Option<Piece>) {
        self.cells[r * self.size + f] = piece;
    }

    pub fn take(&mut self, c: Coord) -> Option<Piece> {
        let piece = self.at(c);
        self.set(c, None);
        piece
    }
}
