//! A directory of shards read as one dataset, and the replay window over it.

use std::path::{Path, PathBuf};

use super::error::DataError;
use super::sample::Sample;
use super::shard::{read_shard, EXTENSION};

/// One shard that was loaded.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ShardInfo {
    pub path: PathBuf,
    pub samples: usize,
}

/// The samples of every readable shard of a directory, in shard-name order then sample order.
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    pub dir: PathBuf,
    /// The variant of every loaded shard (`None` when nothing was loaded).
    pub variant: Option<String>,
    pub shards: Vec<ShardInfo>,
    pub samples: Vec<Sample>,
    /// Shards left out, with the reason (corrupted, another variant, another encoding...).
    pub skipped: Vec<(PathBuf, String)>,
}

impl Dataset {
    /// The most recent `n` samples (the last shards' last samples), or all if there are fewer.
    pub fn window(&self, n: usize) -> &[Sample] {
        &self.samples[self.samples.len().saturating_sub(n)..]
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }
}

/// The complete shard files (`*.shard`) of `dir`, sorted by name; shards in progress
/// (`*.tmp`) and other files are left out.
pub fn shard_paths(dir: &Path) -> Result<Vec<PathBuf>, DataError> {
    let entries = std::fs::read_dir(dir).map_err(|e| DataError::io("read directory", dir, e))?;
    let mut paths = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| DataError::io("read directory", dir, e))?;
        let path = entry.path();
        if path.extension().is_some_and(|e| e == EXTENSION) && path.is_file() {
            paths.push(path);
        }
    }
    paths.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    Ok(paths)
}

/// Reads every shard of `dir` in name order. Shards that cannot be read, are corrupted, or are
/// of another variant than `variant` are skipped with a warning and listed in
/// `Dataset::skipped`. With `variant` `None`, the first readable shard's variant is kept.
/// Fails only when the directory itself cannot be listed.
pub fn read_dir(dir: &Path, variant: Option<&str>) -> Result<Dataset, DataError> {
    let mut data = Dataset {
        dir: dir.to_path_buf(),
        variant: variant.map(str::to_string),
        ..Dataset::default()
    };
    for path in shard_paths(dir)? {
        let mut skip = |path: PathBuf, reason: String| {
            tracing::warn!(file = %path.display(), "skipping shard: {reason}");
            data.skipped.push((path, reason));
        };
        let shard = match read_shard(&path) {
            Ok(shard) => shard,
            Err(e) => {
                skip(path, e.to_string());
                continue;
            }
        };
        match &data.variant {
            Some(v) if *v != shard.variant => {
                let reason = format!(
                    "shard {} holds variant `{}`, not `{v}`",
                    path.display(),
                    shard.variant
                );
                skip(path, reason);
                continue;
            }
            Some(_) => {}
            None => data.variant = Some(shard.variant.clone()),
        }
        data.shards.push(ShardInfo {
            path,
            samples: shard.samples.len(),
        });
        data.samples.extend(shard.samples);
    }
    if data.shards.is_empty() && variant.is_none() {
        data.variant = None;
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::sample::tests::start_sample;
    use crate::data::shard::write_shard;
    use crate::rules::Variant;

    /// A fresh scratch directory, removed when the returned value is dropped.
    fn scratch() -> tempfile::TempDir {
        tempfile::tempdir().expect("scratch dir")
    }

    fn games(first: u64, n: u64) -> Vec<Sample> {
        let v = Variant::load("brandubh").expect("preset");
        (first..first + n).map(|g| start_sample(&v, g, 0)).collect()
    }

    #[test]
    fn reads_in_name_order_and_skips_the_rest() {
        let tmp = scratch();
        let dir = tmp.path();
        write_shard(&dir.join("0002.shard"), "brandubh", &games(2, 2)).expect("write");
        write_shard(&dir.join("0001.shard"), "brandubh", &games(0, 2)).expect("write");
        write_shard(&dir.join("0003.shard"), "tablut", &games(9, 1)).expect("write");
        std::fs::write(dir.join("0004.shard.tmp"), b"in progress").expect("write");
        std::fs::write(dir.join("notes.txt"), b"not a shard").expect("write");
        std::fs::write(dir.join("0000.shard"), b"TAVLSH").expect("write");

        let data = read_dir(dir, None).expect("reads");
        assert_eq!(data.variant.as_deref(), Some("brandubh"));
        let ids: Vec<u64> = data.samples.iter().map(|s| s.game_id).collect();
        assert_eq!(ids, [0, 1, 2, 3]);
        assert_eq!(data.shards.len(), 2);
        let skipped: Vec<_> = data
            .skipped
            .iter()
            .map(|(p, _)| p.file_name().expect("name").to_string_lossy().into_owned())
            .collect();
        assert_eq!(skipped, ["0000.shard", "0003.shard"]);
        assert!(
            data.skipped[0].1.contains("truncated"),
            "{}",
            data.skipped[0].1
        );
        assert!(
            data.skipped[1].1.contains("tablut"),
            "{}",
            data.skipped[1].1
        );

        let tablut = read_dir(dir, Some("tablut")).expect("reads");
        assert_eq!(tablut.samples.len(), 1);
        assert_eq!(tablut.skipped.len(), 3);
    }

    #[test]
    fn window_takes_the_latest() {
        let tmp = scratch();
        let dir = tmp.path();
        write_shard(&dir.join("a.shard"), "brandubh", &games(0, 3)).expect("write");
        write_shard(&dir.join("b.shard"), "brandubh", &games(3, 3)).expect("write");
        let data = read_dir(dir, Some("brandubh")).expect("reads");
        let ids = |s: &[Sample]| s.iter().map(|s| s.game_id).collect::<Vec<_>>();
        assert_eq!(ids(data.window(4)), [2, 3, 4, 5]);
        assert_eq!(ids(data.window(100)), [0, 1, 2, 3, 4, 5]);
        assert!(data.window(0).is_empty());
    }

    #[test]
    fn missing_directory_is_an_error() {
        let tmp = scratch();
        let dir = tmp.path().join("nope");
        let e = read_dir(&dir, None).expect_err("missing");
        assert!(e.to_string().contains("nope"), "{e}");
    }

    #[test]
    fn empty_directory_is_an_empty_dataset() {
        let tmp = scratch();
        let dir = tmp.path();
        let data = read_dir(dir, None).expect("reads");
        assert!(data.is_empty() && data.variant.is_none() && data.skipped.is_empty());
    }
}
