//! The feature set `psk1`: which sparse inputs a position switches on.
//!
//! Two groups, both indexed by the board byte of a piece (`code - 1`, eight classes: attackers'
//! taflman, king, commander, knight, then the defenders' four):
//! - piece-square: `class * squares + square`, one per piece;
//! - king-relative: for every piece other than the king, its offset from the defenders' king,
//!   `PS + class * D² + (drank + size - 1) * D + (dfile + size - 1)` with `D = 2 * size - 1`.
//!   Tafl positions turn on the king's surroundings (escape lanes, the pieces closing on it), so
//!   the same piece means something else next to the king than across the board; absolute
//!   squares alone cannot say that to a single linear layer. With no king on the board (captured)
//!   the group is empty.
//!
//! A move that does not move or remove the king changes only the squares it touches, so the
//! accumulator is updated by those features alone; a king move changes every king-relative
//! feature, and the accumulator is recomputed (as chess NNUEs do on a king move).

use tavlei_rules::piece::{Piece, EMPTY};

/// The name written into evaluation files; a file with another feature set is refused.
pub const NAME: &str = "psk1";

/// The eight piece classes (board bytes 1..=8).
pub const CLASSES: usize = 8;

/// The defenders' king's board byte.
const KING_CODE: u8 = Piece::KING.code();

/// The features of one board size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureSet {
    size: usize,
}

/// What a move did to the active features.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FeatureChange {
    /// The lists hold every feature switched off and on.
    Incremental,
    /// The king moved or left the board: recompute from the board.
    Refresh,
}

impl FeatureSet {
    pub fn new(size: usize) -> FeatureSet {
        FeatureSet { size }
    }

    pub fn size(&self) -> usize {
        self.size
    }

    fn squares(&self) -> usize {
        self.size * self.size
    }

    fn span(&self) -> usize {
        2 * self.size - 1
    }

    /// How many piece-square features there are (the king-relative ones follow).
    pub fn piece_square_count(&self) -> usize {
        CLASSES * self.squares()
    }

    /// Inputs of the first layer.
    pub fn count(&self) -> usize {
        self.piece_square_count() + CLASSES * self.span() * self.span()
    }

    /// The most features one position can switch on (two per square).
    pub fn max_active(&self) -> usize {
        2 * self.squares()
    }

    /// The king's square on `cells` (one byte per square, `size²` long).
    pub fn king_square(cells: &[u8]) -> Option<usize> {
        cells.iter().position(|&c| c == KING_CODE)
    }

    #[inline]
    fn piece_square(&self, code: u8, sq: usize) -> u32 {
        ((code as usize - 1) * self.squares() + sq) as u32
    }

    #[inline]
    fn king_relative(&self, code: u8, sq: usize, king: usize) -> u32 {
        let (size, span) = (self.size, self.span());
        let rank = sq / size + size - 1 - king / size;
        let file = sq % size + size - 1 - king % size;
        (self.piece_square_count() + (code as usize - 1) * span * span + rank * span + file) as u32
    }

    /// Appends the features `cells` switches on (the order is the board's).
    pub fn active(&self, cells: &[u8], out: &mut Vec<u32>) {
        let king = Self::king_square(cells);
        for (sq, &code) in cells.iter().enumerate() {
            if code == EMPTY {
                continue;
            }
            out.push(self.piece_square(code, sq));
            if let Some(king) = king.filter(|_| code != KING_CODE) {
                out.push(self.king_relative(code, sq, king));
            }
        }
    }

    /// The features switched off (`removed`) and on (`added`) from `before` to `after`, both one
    /// byte per square; or `Refresh` when the king moved or left, which changes them all.
    pub fn change(
        &self,
        before: &[u8],
        after: &[u8],
        removed: &mut Vec<u32>,
        added: &mut Vec<u32>,
    ) -> FeatureChange {
        // Eight squares at a time: a move changes a handful of squares, so most words compare
        // equal and are skipped (this scan is most of an update's cost).
        let n = before.len().min(after.len());
        let mut changed = [0usize; 16];
        let (mut count, mut overflow) = (0, false);
        let mut king = None;
        for start in (0..n).step_by(8) {
            let (old, new) = (word(before, start), word(after, start));
            if king.is_none() {
                king = first_byte(old, KING_CODE).map(|i| start + i);
            }
            let mut diff = old ^ new;
            while diff != 0 {
                let i = diff.trailing_zeros() as usize / 8;
                diff &= !(0xff << (8 * i));
                let sq = start + i;
                if before[sq] == KING_CODE || after[sq] == KING_CODE {
                    return FeatureChange::Refresh;
                }
                if count < changed.len() {
                    changed[count] = sq;
                    count += 1;
                } else {
                    overflow = true;
                }
            }
        }
        // the king stood still: every change is a piece leaving or arriving on a square
        let mut emit = |sq: usize| {
            let (old, new) = (before[sq], after[sq]);
            if old != EMPTY {
                removed.push(self.piece_square(old, sq));
                if let Some(king) = king {
                    removed.push(self.king_relative(old, sq, king));
                }
            }
            if new != EMPTY {
                added.push(self.piece_square(new, sq));
                if let Some(king) = king {
                    added.push(self.king_relative(new, sq, king));
                }
            }
        };
        if overflow {
            (0..n).filter(|&sq| before[sq] != after[sq]).for_each(emit);
        } else {
            changed[..count].iter().for_each(|&sq| emit(sq));
        }
        FeatureChange::Incremental
    }
}

/// Up to eight bytes of `cells` from `start` as one little-endian word, zero (empty) padded.
#[inline]
fn word(cells: &[u8], start: usize) -> u64 {
    if let Some(full) = cells.get(start..start + 8) {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(full);
        return u64::from_le_bytes(bytes);
    }
    let mut bytes = [EMPTY; 8];
    let len = (cells.len() - start).min(8);
    bytes[..len].copy_from_slice(&cells[start..start + len]);
    u64::from_le_bytes(bytes)
}

/// The index of the first byte of `w` equal to `code` (the lowest zero byte of `w ^ code*ONES`
/// is exact; only bytes above it can be false positives).
#[inline]
fn first_byte(w: u64, code: u8) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let x = w ^ (code as u64 * ONES);
    let zero = x.wrapping_sub(ONES) & !x & (ONES << 7);
    (zero != 0).then(|| zero.trailing_zeros() as usize / 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use tavlei_rules::{Position, Variant};

    #[test]
    fn a_piece_beside_the_king_has_its_square_and_its_offset() {
        let fs = FeatureSet::new(7);
        let mut cells = vec![EMPTY; 49];
        cells[24] = KING_CODE; // d4
        cells[25] = 1; // an attacker on e4, one file east of the king
        let mut active = Vec::new();
        fs.active(&cells, &mut active);
        let span = 13;
        let east_of_king = 49 * 8 + 6 * span + 7;
        assert_eq!(active, vec![(5 * 49 + 24) as u32, 25, east_of_king as u32]);
        assert!(active.iter().all(|&f| (f as usize) < fs.count()));
    }

    /// `change` must switch exactly the features that differ between the two boards.
    #[test]
    fn the_change_of_a_move_is_the_difference_of_the_two_feature_sets() {
        for name in ["brandubh", "copenhagen", "tablut"] {
            let variant = Variant::load(name).unwrap();
            let fs = FeatureSet::new(variant.size);
            let mut pos = Position::start(&variant);
            let mut moves = Vec::new();
            for ply in 0..80usize {
                pos.legal_moves(&mut moves);
                if pos.outcome().is_some() || moves.is_empty() {
                    break;
                }
                let before = pos.cells().to_vec();
                pos.play_unchecked(moves[(ply * 7919) % moves.len()]);
                let (mut removed, mut added) = (Vec::new(), Vec::new());
                let (mut old, mut new) = (Vec::new(), Vec::new());
                fs.active(&before, &mut old);
                fs.active(pos.cells(), &mut new);
                let (old, new): (BTreeSet<u32>, BTreeSet<u32>) =
                    (old.into_iter().collect(), new.into_iter().collect());
                match fs.change(&before, pos.cells(), &mut removed, &mut added) {
                    FeatureChange::Refresh => assert_ne!(
                        FeatureSet::king_square(&before),
                        FeatureSet::king_square(pos.cells())
                    ),
                    FeatureChange::Incremental => {
                        let removed: BTreeSet<u32> = removed.into_iter().collect();
                        let added: BTreeSet<u32> = added.into_iter().collect();
                        assert_eq!(removed, &old - &new, "{name} ply {ply}");
                        assert_eq!(added, &new - &old, "{name} ply {ply}");
                    }
                }
            }
        }
    }
}
