//! Append-only line stores (a balance study's games, training metrics), read back when a run
//! resumes. "Not found" is an empty store; a file that cannot be read is an error, never "empty";
//! and only a torn last line (a run killed while writing it: no newline at its end) may be
//! dropped, with a warning, by cutting the file back to its whole lines. A whole line that does not
//! parse is an error naming the file and line, and nothing is rewritten.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}, line {line}: {message}", path.display())]
    BadLine {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("cannot cut the torn last line off {}: {source}", path.display())]
    Truncate {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Write(#[from] crate::atomic::WriteError),
}

/// The text of `path`, or `None` when it does not exist; any other failure is an error (a file
/// that cannot be read is never taken for a missing one).
pub fn read_optional(path: &Path) -> Result<Option<String>, StoreError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(StoreError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The whole lines of `path`, each with its 1-based line number (none when the file does not
/// exist). A torn last line is cut off the file, so that appending continues on a line boundary.
pub fn read_lines(path: &Path) -> Result<Vec<(usize, String)>, StoreError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
        Err(source) => {
            return Err(StoreError::Read {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if whole < bytes.len() {
        tracing::warn!(
            "{}: dropping its torn last line ({} bytes without a newline)",
            path.display(),
            bytes.len() - whole
        );
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|f| f.set_len(whole as u64).and_then(|()| f.sync_all()));
        file.map_err(|source| StoreError::Truncate {
            path: path.to_path_buf(),
            source,
        })?;
    }
    let text = std::str::from_utf8(&bytes[..whole]).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        StoreError::BadLine {
            path: path.to_path_buf(),
            line,
            message: "not UTF-8".into(),
        }
    })?;
    Ok(text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.to_string()))
        .collect())
}

/// Parses lines read by [`read_lines`]; the first that does not parse is an error naming it.
pub fn parse_lines<T>(
    path: &Path,
    lines: &[(usize, String)],
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Vec<T>, StoreError> {
    lines
        .iter()
        .map(|(line, text)| {
            parse(text).map_err(|message| StoreError::BadLine {
                path: path.to_path_buf(),
                line: *line,
                message,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh scratch directory, removed when the returned value is dropped.
    fn scratch() -> tempfile::TempDir {
        tempfile::tempdir().expect("scratch dir")
    }

    fn number(text: &str) -> Result<u32, String> {
        text.parse().map_err(|e| format!("`{text}`: {e}"))
    }

    #[test]
    fn missing_is_empty_and_a_torn_tail_is_cut() {
        let tmp = scratch();
        let dir = tmp.path();
        let path = dir.join("games.jsonl");
        assert!(read_lines(&path).expect("missing is empty").is_empty());
        std::fs::write(&path, "1\n2\n3").expect("write");
        let lines = read_lines(&path).expect("reads");
        assert_eq!(
            parse_lines(&path, &lines, number).expect("parses"),
            vec![1, 2]
        );
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "1\n2\n");
    }

    #[test]
    fn a_bad_whole_line_is_an_error_and_the_file_is_kept() {
        let tmp = scratch();
        let dir = tmp.path();
        let path = dir.join("metrics.csv");
        std::fs::write(&path, "1\nx\n3\n").expect("write");
        let lines = read_lines(&path).expect("reads");
        let err = parse_lines(&path, &lines, number).expect_err("line 2");
        assert!(err.to_string().contains("metrics.csv, line 2"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "1\nx\n3\n");
        // a directory where the file should be is unreadable, not empty
        let err = read_lines(dir).expect_err("a directory");
        assert!(matches!(err, StoreError::Read { .. }), "{err}");
    }
}
