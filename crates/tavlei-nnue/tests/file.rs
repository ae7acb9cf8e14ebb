//! The `.nnue` file: a bit-identical round trip, and a clear error for every kind of wrong file.

mod common;

use std::path::{Path, PathBuf};

use tavlei_nnue::{Network, NnueError};
use tavlei_rules::{Side, Variant};

fn network(variant: &str) -> Network {
    let variant = Variant::load(variant).unwrap();
    Network::quantise(&common::random_float(common::meta(&variant, 64, 8), 3)).unwrap()
}

/// The file's bytes with its JSON header rewritten by `edit` (the length prefix follows).
fn edit_header(bytes: &[u8], edit: impl Fn(&str) -> String) -> Vec<u8> {
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header = edit(std::str::from_utf8(&bytes[8..8 + n]).unwrap());
    assert_ne!(
        header.as_bytes(),
        &bytes[8..8 + n],
        "the edit changed nothing"
    );
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&bytes[8 + n..]);
    out
}

fn load_bytes(dir: &Path, bytes: &[u8]) -> (PathBuf, NnueError) {
    let path = dir.join("wrong.nnue");
    std::fs::write(&path, bytes).unwrap();
    let err = Network::load(&path).unwrap_err();
    (path, err)
}

#[test]
fn a_saved_network_loads_identical_and_saves_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let net = network("copenhagen");
    let (a, b) = (dir.path().join("a.nnue"), dir.path().join("b.nnue"));
    net.save(&a).unwrap();
    let loaded = Network::load(&a).unwrap();
    assert_eq!(loaded, net);
    assert_eq!(loaded.meta().provenance["seed"], "7");
    loaded.save(&b).unwrap();
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let start = &Variant::load("copenhagen").unwrap().start;
    assert_eq!(
        loaded.evaluate_cells(start, Side::Defenders),
        net.evaluate_cells(start, Side::Defenders)
    );
    // the atomic save leaves no temporary file behind
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn each_wrong_file_is_a_clear_error_naming_the_file_and_the_fault() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.nnue");
    network("brandubh").save(&good).unwrap();
    let bytes = std::fs::read(&good).unwrap();

    let metadata_cases = [
        (
            "format",
            "\"format\":\"tavlei-nnue\"",
            "\"format\":\"other\"",
        ),
        ("version", "\"version\":\"1\"", "\"version\":\"2\""),
        ("features", "\"features\":\"psk1\"", "\"features\":\"psk2\""),
        ("width", "\"width\":\"64\"", "\"width\":\"sixty\""),
        ("hidden", "\"hidden\":\"8\",", ""),
    ];
    for (key, from, to) in metadata_cases {
        let (path, err) = load_bytes(
            dir.path(),
            &edit_header(&bytes, |h| h.replacen(from, to, 1)),
        );
        assert!(
            matches!(&err, NnueError::Metadata { key: k, .. } if k == key),
            "{key}: {err:?}"
        );
        let message = err.to_string();
        assert!(
            message.contains(&path.display().to_string()) && message.contains(key),
            "{message}"
        );
    }

    let (_, err) = load_bytes(
        dir.path(),
        &edit_header(&bytes, |h| h.replacen("\"out.bias\"", "\"out.bias2\"", 1)),
    );
    assert!(
        matches!(&err, NnueError::MissingTensor { tensor, .. } if tensor == "out.bias"),
        "{err:?}"
    );

    // same size, other type: only the dtype check can catch it
    let (_, err) = load_bytes(
        dir.path(),
        &edit_header(&bytes, |h| {
            h.replacen("\"dtype\":\"I32\"", "\"dtype\":\"F32\"", 1)
        }),
    );
    assert!(
        matches!(&err, NnueError::Dtype { tensor, found, .. } if tensor == "l1.bias" && found == "F32"),
        "{err:?}"
    );

    // [2, 8] read as [8, 2]: the same bytes, a transposed meaning
    let (_, err) = load_bytes(
        dir.path(),
        &edit_header(&bytes, |h| {
            h.replacen("\"shape\":[2,8]", "\"shape\":[8,2]", 1)
        }),
    );
    assert!(
        matches!(&err, NnueError::Shape { tensor, .. } if tensor == "l1.bias"),
        "{err:?}"
    );

    let (path, err) = load_bytes(dir.path(), &bytes[..bytes.len() - 1]);
    assert!(matches!(&err, NnueError::Format { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&path.display().to_string())
            && err.to_string().contains("truncated")
    );

    let (_, err) = load_bytes(dir.path(), b"not a network");
    assert!(matches!(&err, NnueError::Format { .. }), "{err:?}");

    let missing = dir.path().join("absent.nnue");
    let err = Network::load(&missing).unwrap_err();
    assert!(
        matches!(&err, NnueError::Io { path, .. } if path == &missing),
        "{err:?}"
    );
}

#[test]
fn check_variant_refuses_another_variant_or_board_size() {
    let net = network("copenhagen");
    net.check_variant(&Variant::load("copenhagen").unwrap())
        .unwrap();
    // same size, other rules
    let err = net
        .check_variant(&Variant::load("fetlar").unwrap())
        .unwrap_err();
    assert!(
        matches!(&err, NnueError::Variant { network, requested } if network == "copenhagen" && requested == "fetlar"),
        "{err:?}"
    );
    // a network named copenhagen but made for 7x7 boards
    let brandubh = Variant::load("brandubh").unwrap();
    let mut meta = common::meta(&brandubh, 32, 4);
    meta.variant = "copenhagen".into();
    let small = Network::quantise(&common::random_float(meta, 1)).unwrap();
    let err = small
        .check_variant(&Variant::load("copenhagen").unwrap())
        .unwrap_err();
    assert!(
        matches!(
            err,
            NnueError::BoardSize {
                network: 7,
                requested: 11
            }
        ),
        "{err:?}"
    );
}
