//! A set of squares wide enough for a 19×19 board (361 of 384 bits), with the shifts that
//! flood fills need. Boards of every size share this one type.

use super::square::Square;

const WORDS: usize = 6;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Bitboard([u64; WORDS]);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard([0; WORDS]);

    pub fn from_squares(squares: impl IntoIterator<Item = Square>) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        for sq in squares {
            bb.set(sq);
        }
        bb
    }

    #[inline]
    pub fn contains(&self, sq: Square) -> bool {
        self.0[sq as usize >> 6] >> (sq & 63) & 1 != 0
    }

    #[inline]
    pub fn set(&mut self, sq: Square) {
        self.0[sq as usize >> 6] |= 1 << (sq & 63);
    }

    #[inline]
    pub fn clear(&mut self, sq: Square) {
        self.0[sq as usize >> 6] &= !(1 << (sq & 63));
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    pub fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    pub fn intersects(&self, other: &Bitboard) -> bool {
        self.0.iter().zip(other.0.iter()).any(|(a, b)| a & b != 0)
    }

    /// Every square one step east, west, north or south of a member, within `board`.
    /// `not_west_edge`/`not_east_edge` stop the ±1 shifts wrapping across rows.
    pub fn neighbours(
        &self,
        size: usize,
        not_west_edge: &Bitboard,
        not_east_edge: &Bitboard,
    ) -> Bitboard {
        let east = (*self & *not_east_edge).shl(1);
        let west = (*self & *not_west_edge).shr(1);
        east | west | self.shl(size as u32) | self.shr(size as u32)
    }

    fn shl(&self, n: u32) -> Bitboard {
        let mut out = [0u64; WORDS];
        for i in (0..WORDS).rev() {
            out[i] = self.0[i] << n;
            if i > 0 {
                out[i] |= self.0[i - 1] >> (64 - n);
            }
        }
        Bitboard(out)
    }

    fn shr(&self, n: u32) -> Bitboard {
        let mut out = [0u64; WORDS];
        for (i, word) in out.iter_mut().enumerate() {
            *word = self.0[i] >> n;
            if i + 1 < WORDS {
                *word |= self.0[i + 1] << (64 - n);
            }
        }
        Bitboard(out)
    }

    pub fn iter(&self) -> BitIter {
        BitIter {
            words: self.0,
            index: 0,
        }
    }
}

/// Iterates the members of a bitboard in increasing square order.
pub struct BitIter {
    words: [u64; WORDS],
    index: usize,
}

impl Iterator for BitIter {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        while self.index < WORDS {
            let w = self.words[self.index];
            if w != 0 {
                self.words[self.index] = w & (w - 1);
                return Some((self.index * 64 + w.trailing_zeros() as usize) as Square);
            }
            self.index += 1;
        }
        None
    }
}

macro_rules! bit_op {
    ($trait:ident, $method:ident, $op:path) => {
        impl std::ops::$trait for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $method(self, rhs: Bitboard) -> Bitboard {
                let mut out = self.0;
                for (o, r) in out.iter_mut().zip(rhs.0.iter()) {
                    *o = $op(*o, *r);
                }
                Bitboard(out)
            }
        }
    };
}
bit_op!(BitAnd, bitand, std::ops::BitAnd::bitand);
bit_op!(BitOr, bitor, std::ops::BitOr::bitor);
bit_op!(BitXor, bitxor, std::ops::BitXor::bitxor);

impl std::ops::Not for Bitboard {
    type Output = Bitboard;
    fn not(self) -> Bitboard {
        Bitboard(self.0.map(|w| !w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_clear_iterate() {
        let bb = Bitboard::from_squares([0, 63, 64, 360]);
        assert_eq!(bb.iter().collect::<Vec<_>>(), vec![0, 63, 64, 360]);
        assert_eq!(bb.count(), 4);
        let mut cleared = bb;
        cleared.clear(63);
        assert!(!cleared.contains(63) && cleared.contains(64));
    }

    #[test]
    fn neighbours_do_not_wrap_rows() {
        let size = 7;
        let all = Bitboard::from_squares(0..49);
        let west = Bitboard::from_squares((0..49).filter(|s| s % 7 != 0));
        let east = Bitboard::from_squares((0..49).filter(|s| s % 7 != 6));
        // a square on the east edge (g1 = 6): its neighbours are f1 and g2 only.
        let n = Bitboard::from_squares([6]).neighbours(size, &west, &east) & all;
        assert_eq!(n.iter().collect::<Vec<_>>(), vec![5, 13]);
        // crossing a word boundary: square 63 on a 19 board (a4 = 57 .. ) shifts north to 82.
        let board19 = Bitboard::from_squares(0..361);
        let n = Bitboard::from_squares([63]).neighbours(19, &board19, &board19);
        assert!(n.contains(82) && n.contains(64) && n.contains(62) && n.contains(44));
    }
}
