//! A variant ready to play: its `Rules` plus everything derived from them once (board geometry,
//! special squares, the start position, Zobrist keys, the symmetries the rules allow).

use std::path::Path;
use std::sync::Arc;

use super::bitboard::Bitboard;
use super::error::RulesError;
use super::piece::{Piece, PieceKind, CELL_CODES, EMPTY};
use super::presets;
use super::rules::{Dice, Rules};
use super::square::{parse_square, Square, MAX_SIZE};
use super::symmetry::Symmetry;

/// Flags of special squares.
pub const THRONE: u8 = 1;
pub const CORNER: u8 = 2;
pub const CAMP: u8 = 4;

#[derive(Clone, Debug)]
pub struct Variant {
    pub rules: Rules,
    pub size: usize,
    /// Number of squares, `size * size`.
    pub squares: usize,
    /// The start position, one byte per square (see `piece`).
    pub start: Vec<u8>,
    pub throne: Option<Square>,
    /// Special-square flags per square (0 for plain squares).
    pub flags: Vec<u8>,
    /// Camp number + 1 per square (0 outside camps).
    pub camp_of: Vec<u8>,
    /// For each square and direction, how many steps stay on the board.
    pub reach: Vec<[u8; 4]>,
    /// Square offsets of the four directions.
    pub steps: [i32; 4],
    pub board: Bitboard,
    pub edge: Bitboard,
    pub corners: Bitboard,
    pub not_west: Bitboard,
    pub not_east: Bitboard,
    pub zobrist: Zobrist,
    /// The D4 elements that map every special square onto one of its kind.
    pub symmetries: Vec<Symmetry>,
}

#[derive(Clone, Debug)]
pub struct Zobrist {
    pub pieces: Vec<[u64; CELL_CODES]>,
    pub defenders_to_move: u64,
    pub berserk: Vec<u64>,
    pub roll: [u64; 7],
}

impl Variant {
    /// Loads a preset by name or a variant file by path. (OpenTafl rules strings, `dim:...`, are
    /// a file format of their own: tavlei's `interop::load_variant` reads them too.)
    pub fn load(spec: &str) -> Result<Arc<Variant>, RulesError> {
        if let Some(text) = presets::preset_text(spec) {
            return Variant::from_toml(text, &format!("preset {spec}"));
        }
        let path = Path::new(spec);
        if path.exists() || spec.ends_with(".toml") {
            let text = std::fs::read_to_string(path).map_err(|source| RulesError::Io {
                path: path.to_path_buf(),
                source,
            })?;
            return Variant::from_toml(&text, &path.display().to_string());
        }
        Err(RulesError::UnknownVariant(spec.to_string()))
    }

    pub fn from_toml(text: &str, origin: &str) -> Result<Arc<Variant>, RulesError> {
        let rules: Rules = toml::from_str(text).map_err(|e| {
            let place = e.span().map_or(String::new(), |span| {
                let line = text[..span.start].matches('\n').count() + 1;
                format!("line {line}: ")
            });
            RulesError::Toml {
                origin: origin.to_string(),
                message: format!("{place}{}", e.message()),
            }
        })?;
        Variant::new(rules).map(Arc::new)
    }

    pub fn new(rules: Rules) -> Result<Variant, RulesError> {
        let field = |field: &str, reason: String| RulesError::Field {
            variant: rules.name.clone(),
            field: field.to_string(),
            reason,
        };
        let size = rules.board.layout.len();
        if !(7..=MAX_SIZE).contains(&size) || size.is_multiple_of(2) {
            return Err(field(
                "board.layout",
                format!("{size} rows: the board must be odd, 7 to 19"),
            ));
        }
        let squares = size * size;
        let mut start = vec![EMPTY; squares];
        let mut corner_marks = Vec::new();
        for (row_index, row) in rules.board.layout.iter().enumerate() {
            let cells: Vec<&str> = row.split_whitespace().collect();
            if cells.len() != size {
                return Err(field(
                    "board.layout",
                    format!(
                        "row {} has {} squares, expected {size}",
                        row_index + 1,
                        cells.len()
                    ),
                ));
            }
            let rank = size - 1 - row_index;
            for (file, cell) in cells.iter().enumerate() {
                let sq = rank * size + file;
                let mut chars = cell.chars();
                let (Some(c), None) = (chars.next(), chars.next()) else {
                    return Err(field(
                        "board.layout",
                        format!("row {}: `{cell}` is not one character", row_index + 1),
                    ));
                };
                match c {
                    '.' => {}
                    '#' => corner_marks.push(sq as Square),
                    _ => match Piece::from_layout_char(c) {
                        Some(piece) => start[sq] = piece.code(),
                        None => {
                            return Err(field(
                                "board.layout",
                                format!(
                                    "row {}, square {}: unknown piece `{c}` (use A D K C N # .)",
                                    row_index + 1,
                                    file + 1
                                ),
                            ))
                        }
                    },
                }
            }
        }
        let kings = start.iter().filter(|&&c| c == Piece::KING.code()).count();
        if kings != 1 {
            return Err(field(
                "board.layout",
                format!("{kings} kings; exactly one is needed"),
            ));
        }

        let mut flags = vec![0u8; squares];
        let centre = (squares / 2) as Square;
        let throne = rules.board.throne.then_some(centre);
        if let Some(t) = throne {
            flags[t as usize] |= THRONE;
        }
        let corner_squares = corner_squares(size, rules.board.corners).ok_or_else(|| {
            field(
                "board.corners",
                format!("{} is not 0, 1 or 2", rules.board.corners),
            )
        })?;
        for &sq in &corner_squares {
            flags[sq as usize] |= CORNER;
            if start[sq as usize] != EMPTY {
                return Err(field(
                    "board.layout",
                    "a corner square holds a piece".into(),
                ));
            }
        }
        let mut marks_sorted = corner_marks.clone();
        marks_sorted.sort_unstable();
        if !corner_marks.is_empty() && marks_sorted != corner_squares {
            return Err(field(
                "board.layout",
                "`#` marks do not match board.corners".into(),
            ));
        }
        let mut camp_of = vec![0u8; squares];
        if rules.board.camps.len() > 64 {
            return Err(field(
                "board.camps",
                format!("{} camps; at most 64", rules.board.camps.len()),
            ));
        }
        for (i, camp) in rules.board.camps.iter().enumerate() {
            for name in camp {
                let sq = parse_square(name, size).ok_or_else(|| {
                    field(
                        "board.camps",
                        format!("`{name}` is not a square of a {size}×{size} board"),
                    )
                })?;
                if flags[sq as usize] != 0 {
                    let what = if flags[sq as usize] & CAMP != 0 {
                        "in another camp (or listed twice)"
                    } else {
                        "a throne or corner"
                    };
                    return Err(field("board.camps", format!("{name} is already {what}")));
                }
                flags[sq as usize] |= CAMP;
                camp_of[sq as usize] = i as u8 + 1;
            }
        }
        if rules.movement.jumps && rules.movement.dice != Dice::Off {
            return Err(field(
                "movement.dice",
                "dice with jumps are not supported".into(),
            ));
        }
        if rules.end.repetition_count < 2 {
            return Err(field("end.repetition_count", "must be at least 2".into()));
        }
        let has = |kind: PieceKind| {
            start
                .iter()
                .any(|&c| Piece::from_code(c).is_some_and(|p| p.kind == kind))
        };
        if (has(PieceKind::Commander) || has(PieceKind::Knight)) && !rules.movement.jumps {
            tracing::debug!(
                "variant {} has knights or commanders but no jumps",
                rules.name
            );
        }

        let steps = [1, -1, size as i32, -(size as i32)];
        let reach = (0..squares)
            .map(|sq| {
                let (f, r) = (sq % size, sq / size);
                [(size - 1 - f) as u8, f as u8, (size - 1 - r) as u8, r as u8]
            })
            .collect();
        let board = Bitboard::from_squares(0..squares as Square);
        let edge = Bitboard::from_squares(
            (0..squares)
                .filter(|&s| {
                    s % size == 0 || s % size == size - 1 || s / size == 0 || s / size == size - 1
                })
                .map(|s| s as Square),
        );
        let not_west =
            Bitboard::from_squares((0..squares).filter(|s| s % size != 0).map(|s| s as Square));
        let not_east = Bitboard::from_squares(
            (0..squares)
                .filter(|s| s % size != size - 1)
                .map(|s| s as Square),
        );
        let corners = Bitboard::from_squares(corner_squares.iter().copied());
        let symmetries = Symmetry::ALL
            .into_iter()
            .filter(|s| {
                (0..squares).all(|sq| {
                    let image = s.apply(sq as Square, size) as usize;
                    flags[image] == flags[sq] && camps_match(&camp_of, sq, image, s, size)
                })
            })
            .collect();
        Ok(Variant {
            zobrist: Zobrist::new(squares),
            rules,
            size,
            squares,
            start,
            throne,
            flags,
            camp_of,
            reach,
            steps,
            board,
            edge,
            corners,
            not_west,
            not_east,
            symmetries,
        })
    }

    pub fn name(&self) -> &str {
        &self.rules.name
    }

    #[inline]
    pub fn is_edge(&self, sq: Square) -> bool {
        self.edge.contains(sq)
    }

    /// The squares where the king's arrival wins for the defenders.
    pub fn is_escape(&self, sq: Square) -> bool {
        match self.rules.end.escape {
            super::rules::Escape::Corners => self.flags[sq as usize] & CORNER != 0,
            super::rules::Escape::Edge => self.is_edge(sq),
        }
    }

    /// The neighbour of `sq` one step in direction `dir`, if on the board.
    #[inline]
    pub fn neighbour(&self, sq: Square, dir: usize) -> Option<Square> {
        (self.reach[sq as usize][dir] > 0).then(|| (sq as i32 + self.steps[dir]) as Square)
    }

    pub fn is_symmetric(&self) -> bool {
        self.symmetries.len() == 8
    }
}

/// Camps must map onto camps as whole groups, not just square by square.
fn camps_match(camp_of: &[u8], sq: usize, image: usize, sym: &Symmetry, size: usize) -> bool {
    if camp_of[sq] == 0 {
        return camp_of[image] == 0;
    }
    // every square of the same camp must land in the image's camp
    (0..camp_of.len())
        .filter(|&o| camp_of[o] == camp_of[sq])
        .all(|o| camp_of[sym.apply(o as Square, size) as usize] == camp_of[image])
}

pub fn corner_squares(size: usize, corners: u8) -> Option<Vec<Square>> {
    let last = size - 1;
    let at = |f: usize, r: usize| (r * size + f) as Square;
    let mut squares = match corners {
        0 => vec![],
        1 => vec![at(0, 0), at(last, 0), at(0, last), at(last, last)],
        2 => {
            let mut v = Vec::new();
            for (f, r) in [(0, 0), (last - 1, 0), (0, last - 1), (last - 1, last - 1)] {
                v.extend([at(f, r), at(f + 1, r), at(f, r + 1), at(f + 1, r + 1)]);
            }
            v
        }
        _ => return None,
    };
    squares.sort_unstable();
    Some(squares)
}

impl Zobrist {
    fn new(squares: usize) -> Zobrist {
        // SplitMix64 from a fixed seed: the same keys in every run, so hashes are reproducible.
        let mut state = 0x7461_766c_6569_u64;
        let mut next = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let pieces = (0..squares)
            .map(|_| {
                let mut keys = [0u64; CELL_CODES];
                for k in keys.iter_mut().skip(1) {
                    *k = next();
                }
                keys
            })
            .collect();
        let defenders_to_move = next();
        let berserk = (0..squares).map(|_| next()).collect();
        let mut roll = [0u64; 7];
        for r in roll.iter_mut().skip(1) {
            *r = next();
        }
        Zobrist {
            pieces,
            defenders_to_move,
            berserk,
            roll,
        }
    }
}
