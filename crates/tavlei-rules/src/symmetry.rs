//! The eight symmetries of the square (the dihedral group D4), acting on squares and moves.

use super::square::Square;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symmetry {
    Identity,
    Rotate90,
    Rotate180,
    Rotate270,
    FlipFiles,
    FlipRanks,
    Transpose,
    AntiTranspose,
}

impl Symmetry {
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::Rotate90,
        Symmetry::Rotate180,
        Symmetry::Rotate270,
        Symmetry::FlipFiles,
        Symmetry::FlipRanks,
        Symmetry::Transpose,
        Symmetry::AntiTranspose,
    ];

    /// Where `sq` lands on a board of side `size`.
    #[inline]
    pub fn apply(self, sq: Square, size: usize) -> Square {
        let (f, r) = (sq as usize % size, sq as usize / size);
        let l = size - 1;
        let (f2, r2) = match self {
            Symmetry::Identity => (f, r),
            Symmetry::Rotate90 => (r, l - f),
            Symmetry::Rotate180 => (l - f, l - r),
            Symmetry::Rotate270 => (l - r, f),
            Symmetry::FlipFiles => (l - f, r),
            Symmetry::FlipRanks => (f, l - r),
            Symmetry::Transpose => (r, f),
            Symmetry::AntiTranspose => (l - r, l - f),
        };
        (r2 * size + f2) as Square
    }

    /// The symmetry that undoes this one.
    pub fn inverse(self) -> Symmetry {
        match self {
            Symmetry::Rotate90 => Symmetry::Rotate270,
            Symmetry::Rotate270 => Symmetry::Rotate90,
            other => other,
        }
    }

    /// Direction index (east, west, north, south) that direction `dir` maps to.
    pub fn apply_direction(self, dir: usize, size: usize) -> usize {
        // map the step from the centre and read the direction back
        let (df, dr) = super::square::DIRECTIONS[dir];
        let c = size as i32 / 2;
        let from = ((c + dr) * size as i32 + c + df) as Square;
        let to = self.apply(from, size) as i32;
        let (tf, tr) = (to % size as i32 - c, to / size as i32 - c);
        super::square::DIRECTIONS
            .iter()
            .position(|&d| d == (tf, tr))
            .unwrap_or(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_symmetry_is_a_bijection_undone_by_its_inverse() {
        for size in [7, 11, 19] {
            for s in Symmetry::ALL {
                let mut seen = vec![false; size * size];
                for sq in 0..(size * size) as Square {
                    let image = s.apply(sq, size);
                    assert!(!seen[image as usize], "{s:?} maps two squares onto {image}");
                    seen[image as usize] = true;
                    assert_eq!(s.inverse().apply(image, size), sq);
                }
            }
        }
    }

    #[test]
    fn rotate90_moves_a1_to_the_top_left() {
        // (file 0, rank 0) -> (file 0, rank 6): a1 -> a7 on 7x7
        assert_eq!(Symmetry::Rotate90.apply(0, 7), 42);
    }
}
