//! Training positions for the learned evaluation: boards labelled with a search score and the
//! game's result, in one binary file (`*.positions`) written atomically.
//!
//! Layout (little-endian), format version 1:
//! - magic `TAVLPOS\0` (8 bytes), format version (u32)
//! - variant name (u16 length, UTF-8 bytes), board size (u32), score per logit (f32),
//!   labeler (u16 length, UTF-8 bytes), number of positions (u64)
//! - each position: `board_size²` cell bytes (the rules' piece codes), side to move (u8: 0
//!   attackers, 1 defenders), result (i8: +1, 0, -1 for the side to move), ply (u16), score (i32)
//! - XXH3-64 of every byte before it (u64): it detects accidental damage, not tampering.

use std::path::Path;

use crate::nnue::error::NnueDataError;
use crate::rules::piece::CELL_CODES;

/// The first bytes of every positions file.
pub const MAGIC: [u8; 8] = *b"TAVLPOS\0";
/// The format this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// The largest board a file may claim (a damaged size is refused before anything is allocated).
pub const MAX_BOARD_SIZE: usize = 64;

/// Bytes of a position after its cells: side, result, ply, score.
const RECORD_TAIL: usize = 1 + 1 + 2 + 4;

/// Labelled positions of one variant.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionSet {
    pub variant: String,
    pub board_size: usize,
    /// Search-score units per logit (1000 for a learned evaluation; for the compiled one, the
    /// scale the labeler fitted).
    pub score_per_logit: f32,
    /// How the scores were made, e.g. "ab:d=3" or "ab:d=3:nnue=models/x.nnue".
    pub labeler: String,
    pub positions: Vec<LabelledPosition>,
}

/// One position with its labels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelledPosition {
    /// One byte per square, `board_size²` long (the rules' piece codes, 0 empty).
    pub cells: Vec<u8>,
    /// 0 attackers to move, 1 defenders.
    pub side: u8,
    /// Search score from the side to move's view; wins are ±(WIN − n).
    pub score: i32,
    /// +1 the side to move won the game, 0 draw, −1 lost.
    pub result: i8,
    pub ply: u16,
}

/// Writes `set` to `path` atomically (a temporary file renamed into place).
pub fn write_positions(path: &Path, set: &PositionSet) -> Result<(), NnueDataError> {
    let bytes = encode(path, set)?;
    crate::atomic::write(path, bytes)?;
    Ok(())
}

/// Reads a positions file, checking its magic, version, length, checksum and every record.
pub fn read_positions(path: &Path) -> Result<PositionSet, NnueDataError> {
    let bytes = std::fs::read(path).map_err(|source| NnueDataError::Io {
        action: "read",
        path: path.to_path_buf(),
        source,
    })?;
    decode(path, &bytes)
}

/// The file's bytes; `path` is only named in errors.
pub fn encode(path: &Path, set: &PositionSet) -> Result<Vec<u8>, NnueDataError> {
    let invalid = |detail: String| NnueDataError::Invalid {
        path: path.to_path_buf(),
        detail,
    };
    if set.board_size == 0 || set.board_size > MAX_BOARD_SIZE {
        return Err(invalid(format!(
            "board size {} is not in 1..={MAX_BOARD_SIZE}",
            set.board_size
        )));
    }
    if !(set.score_per_logit.is_finite() && set.score_per_logit > 0.0) {
        return Err(invalid(format!(
            "score per logit {} is not a positive number",
            set.score_per_logit
        )));
    }
    let squares = set.board_size * set.board_size;
    let mut out = Vec::with_capacity(64 + set.positions.len() * (squares + RECORD_TAIL));
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    put_str(&mut out, "variant name", &set.variant).map_err(invalid)?;
    out.extend_from_slice(&(set.board_size as u32).to_le_bytes());
    out.extend_from_slice(&set.score_per_logit.to_le_bytes());
    put_str(&mut out, "labeler", &set.labeler).map_err(invalid)?;
    out.extend_from_slice(&(set.positions.len() as u64).to_le_bytes());
    for (i, p) in set.positions.iter().enumerate() {
        check_record(p, squares).map_err(|e| invalid(format!("position {i}: {e}")))?;
        out.extend_from_slice(&p.cells);
        out.push(p.side);
        out.push(p.result as u8);
        out.extend_from_slice(&p.ply.to_le_bytes());
        out.extend_from_slice(&p.score.to_le_bytes());
    }
    let sum = xxhash_rust::xxh3::xxh3_64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    Ok(out)
}

/// A string field: u16 length, then its bytes.
fn put_str(out: &mut Vec<u8>, what: &str, s: &str) -> Result<(), String> {
    let len = u16::try_from(s.len()).map_err(|_| format!("{what} is {} bytes long", s.len()))?;
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(s.as_bytes());
    Ok(())
}

/// What is wrong with a record, if anything.
fn check_record(p: &LabelledPosition, squares: usize) -> Result<(), String> {
    if p.cells.len() != squares {
        return Err(format!(
            "{} cells, the board has {squares} (board_size²)",
            p.cells.len()
        ));
    }
    if let Some(c) = p.cells.iter().find(|&&c| usize::from(c) >= CELL_CODES) {
        return Err(format!("cell code {c} is not a piece code"));
    }
    if p.side > 1 {
        return Err(format!("side to move {} is neither 0 nor 1", p.side));
    }
    if !(-1..=1).contains(&p.result) {
        return Err(format!("result {} is not -1, 0 or 1", p.result));
    }
    Ok(())
}

/// Reads fields from the front of a file's bytes, naming the field a short file lacks.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        match self.bytes.get(self.at..self.at + n) {
            Some(s) => {
                self.at += n;
                Ok(s)
            }
            None => Err(format!(
                "{} bytes end inside the {what} (at byte {})",
                self.bytes.len(),
                self.at
            )),
        }
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], String> {
        let s = self.take(N, what)?;
        let mut a = [0; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    fn string(&mut self, what: &str) -> Result<&'a [u8], String> {
        let len = u16::from_le_bytes(self.array(what)?);
        self.take(usize::from(len), what)
    }
}

/// Parses a file's bytes; `path` is only named in errors.
pub fn decode(path: &Path, bytes: &[u8]) -> Result<PositionSet, NnueDataError> {
    let truncated = |detail: String| NnueDataError::Truncated {
        path: path.to_path_buf(),
        detail,
    };
    let corrupt = |detail: String| NnueDataError::Corrupt {
        path: path.to_path_buf(),
        detail,
    };
    let mut c = Cursor { bytes, at: 0 };
    if bytes.len() >= MAGIC.len() && bytes[..MAGIC.len()] != MAGIC
        || bytes.len() < MAGIC.len() && !MAGIC.starts_with(bytes)
    {
        return Err(NnueDataError::WrongMagic {
            path: path.to_path_buf(),
        });
    }
    c.take(MAGIC.len(), "magic bytes").map_err(truncated)?;
    let version = u32::from_le_bytes(c.array("format version").map_err(truncated)?);
    if version != FORMAT_VERSION {
        return Err(NnueDataError::FormatVersion {
            path: path.to_path_buf(),
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    let variant = c.string("variant name").map_err(truncated)?;
    let board_size = u32::from_le_bytes(c.array("board size").map_err(truncated)?) as usize;
    let score_per_logit = f32::from_le_bytes(c.array("score per logit").map_err(truncated)?);
    let labeler = c.string("labeler").map_err(truncated)?;
    let count = u64::from_le_bytes(c.array("number of positions").map_err(truncated)?);
    // the header is read before the checksum is checked, so a damaged size or count must not
    // make a huge allocation: both are checked against the bytes there are
    if board_size == 0 || board_size > MAX_BOARD_SIZE {
        return Err(corrupt(format!(
            "board size {board_size} is not in 1..={MAX_BOARD_SIZE}"
        )));
    }
    let squares = board_size * board_size;
    let record = squares + RECORD_TAIL;
    let header = c.at;
    let expected = u128::from(count) * record as u128 + header as u128 + 8;
    if (bytes.len() as u128) < expected {
        return Err(truncated(format!(
            "{} bytes, but {count} positions of a {board_size}×{board_size} board and the \
             checksum need {expected}",
            bytes.len()
        )));
    }
    if (bytes.len() as u128) > expected {
        return Err(corrupt(format!(
            "{} bytes, {} more than {count} positions of {squares} cells (board_size²) and the \
             checksum take",
            bytes.len(),
            bytes.len() as u128 - expected
        )));
    }
    let body_end = bytes.len() - 8;
    let mut stored = [0; 8];
    stored.copy_from_slice(&bytes[body_end..]);
    let stored = u64::from_le_bytes(stored);
    let computed = xxhash_rust::xxh3::xxh3_64(&bytes[..body_end]);
    if stored != computed {
        return Err(NnueDataError::BadChecksum {
            path: path.to_path_buf(),
            stored,
            computed,
        });
    }
    let text = |what: &str, b: &[u8]| {
        String::from_utf8(b.to_vec()).map_err(|_| corrupt(format!("the {what} is not UTF-8")))
    };
    if !(score_per_logit.is_finite() && score_per_logit > 0.0) {
        return Err(corrupt(format!(
            "score per logit {score_per_logit} is not a positive number"
        )));
    }
    let mut positions = Vec::with_capacity(count as usize);
    for (i, r) in bytes[header..body_end].chunks_exact(record).enumerate() {
        let (cells, tail) = r.split_at(squares);
        let p = LabelledPosition {
            cells: cells.to_vec(),
            side: tail[0],
            result: tail[1] as i8,
            ply: u16::from_le_bytes([tail[2], tail[3]]),
            score: i32::from_le_bytes([tail[4], tail[5], tail[6], tail[7]]),
        };
        check_record(&p, squares).map_err(|e| corrupt(format!("position {i}: {e}")))?;
        positions.push(p);
    }
    Ok(PositionSet {
        variant: text("variant name", variant)?,
        board_size,
        score_per_logit,
        labeler: text("labeler", labeler)?,
        positions,
    })
}
