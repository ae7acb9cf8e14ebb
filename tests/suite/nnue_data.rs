//! Training positions for the learned evaluation: the `*.positions` file read back equal, every
//! kind of damage a clear error naming the file, and `tavlei nnue data` labelling stored games.

use std::path::Path;

use tavlei::nnue::{read_positions, write_positions, LabelledPosition, NnueDataError, PositionSet};
use tavlei::rules::{Position, Variant};

/// A fresh scratch directory, removed when the returned value is dropped (a failing test too).
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("scratch dir")
}

/// Three brandubh positions with labels of every sign.
fn small_set() -> PositionSet {
    let v = Variant::load("brandubh").expect("preset");
    let start = Position::start(&v).cells().to_vec();
    let mut other = start.clone();
    other.swap(0, 3);
    PositionSet {
        variant: "brandubh".into(),
        board_size: 7,
        score_per_logit: 412.5,
        labeler: "ab:d=3".into(),
        positions: vec![
            LabelledPosition {
                cells: start.clone(),
                side: 0,
                score: 17,
                result: 1,
                ply: 0,
            },
            LabelledPosition {
                cells: other,
                side: 1,
                score: -999_990,
                result: -1,
                ply: 65_535,
            },
            LabelledPosition {
                cells: start,
                side: 1,
                score: i32::MIN,
                result: 0,
                ply: 7,
            },
        ],
    }
}

fn written(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("b.positions");
    write_positions(&path, &small_set()).expect("write");
    path
}

#[test]
fn nnue_data_positions_read_back_equal() {
    let tmp = scratch();
    let path = written(tmp.path());
    assert_eq!(read_positions(&path).expect("read"), small_set());
    assert!(!tmp.path().join("b.positions.tmp").exists());
}

#[test]
fn nnue_data_truncated_file_is_named() {
    let tmp = scratch();
    let path = written(tmp.path());
    let bytes = std::fs::read(&path).expect("read");
    for keep in [4, 20, bytes.len() - 1, bytes.len() - 60] {
        std::fs::write(&path, &bytes[..keep]).expect("write");
        let err = read_positions(&path).expect_err("truncated");
        assert!(
            matches!(err, NnueDataError::Truncated { .. }),
            "{keep} bytes: {err}"
        );
        assert!(err.to_string().contains("b.positions"), "{err}");
    }
}

#[test]
fn nnue_data_flipped_byte_fails_the_checksum() {
    let tmp = scratch();
    let path = written(tmp.path());
    let mut bytes = std::fs::read(&path).expect("read");
    // a cell of the second position: nothing but the checksum can see it
    let at = bytes.len() - 8 - (49 + 8) - 10;
    bytes[at] ^= 0x04;
    std::fs::write(&path, &bytes).expect("write");
    let err = read_positions(&path).expect_err("damaged");
    assert!(matches!(err, NnueDataError::BadChecksum { .. }), "{err}");
    assert!(err.to_string().contains("b.positions") && err.to_string().contains("checksum"));
}

#[test]
fn nnue_data_wrong_magic_version_and_size_are_named() {
    let tmp = scratch();
    let path = written(tmp.path());
    let good = std::fs::read(&path).expect("read");

    let mut bytes = good.clone();
    bytes[0] = b'X';
    std::fs::write(&path, &bytes).expect("write");
    let err = read_positions(&path).expect_err("magic");
    assert!(matches!(err, NnueDataError::WrongMagic { .. }), "{err}");
    assert!(err.to_string().contains("b.positions"), "{err}");

    let mut bytes = good.clone();
    bytes[8] = 2;
    std::fs::write(&path, &bytes).expect("write");
    let err = read_positions(&path).expect_err("version");
    assert!(
        matches!(
            err,
            NnueDataError::FormatVersion {
                found: 2,
                expected: 1,
                ..
            }
        ),
        "{err}"
    );

    // trailing bytes: the positions do not fill the file at board_size² cells each
    let mut bytes = good.clone();
    bytes.extend_from_slice(&[0; 3]);
    std::fs::write(&path, &bytes).expect("write");
    let err = read_positions(&path).expect_err("trailing");
    assert!(
        matches!(err, NnueDataError::Corrupt { .. }) && err.to_string().contains("board_size²"),
        "{err}"
    );

    // and a record with the wrong number of cells is refused when written
    let mut set = small_set();
    set.positions[1].cells.pop();
    let err = write_positions(&path, &set).expect_err("48 cells");
    assert!(
        err.to_string().contains("position 1") && err.to_string().contains("49"),
        "{err}"
    );
}
