//! Squares: an index `rank * size + file`, with rank 0 the bottom row (OpenTafl's rank 1).

/// The largest board side the engine supports.
pub const MAX_SIZE: usize = 19;
/// The number of squares on the largest board.
pub const MAX_SQUARES: usize = MAX_SIZE * MAX_SIZE;

/// A square index on a board of some size; the size travels with the variant, not the square.
pub type Square = u16;

/// The four orthogonal directions, in the order the engine walks them: east, west, north, south.
pub const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];

/// Prints a square as `a1` (files `a..s` left to right, ranks from 1 at the bottom).
pub fn square_name(sq: Square, size: usize) -> String {
    let (file, rank) = (sq as usize % size, sq as usize / size);
    format!("{}{}", (b'a' + file as u8) as char, rank + 1)
}

/// Parses `a1`-style names; `None` when the text is not a square of a board of this size.
pub fn parse_square(text: &str, size: usize) -> Option<Square> {
    let mut chars = text.chars();
    let file_char = chars.next()?;
    if !file_char.is_ascii_lowercase() {
        return None;
    }
    let file = (file_char as u8 - b'a') as usize;
    let digits = chars.as_str();
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if digits.starts_with('0') {
        return None;
    }
    let rank: usize = digits.parse().ok()?;
    if file >= size || rank == 0 || rank > size {
        return None;
    }
    Some(((rank - 1) * size + file) as Square)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_on_every_board_size() {
        for size in [7, 9, 11, 13, 19] {
            for sq in 0..(size * size) as Square {
                assert_eq!(parse_square(&square_name(sq, size), size), Some(sq));
            }
        }
    }

    #[test]
    fn rejects_squares_off_the_board() {
        assert_eq!(parse_square("h1", 7), None);
        assert_eq!(parse_square("a8", 7), None);
        assert_eq!(parse_square("a0", 7), None);
        assert_eq!(parse_square("a01", 7), None);
        assert_eq!(parse_square("A1", 7), None);
        assert_eq!(parse_square("s19", 19), Some(360));
    }
}
