//! Stores of finished games (a balance study's, a match's): each game is appended as one JSON
//! line when it ends, so a killed run loses at most the games in flight, and a rerun reads the
//! store back and plays only the rest. A store is reused only by the games it was made by: a
//! match keeps the settings that decide its games beside its store, a balance study the hashes
//! of the files its agent reads (a network retrained under the same path is another agent), and
//! both are compared on every rerun.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::agent::EvalError;
use super::arena::GameResult;
use crate::data::checksum::content_hash;
use crate::store::StoreError;

/// Games already stored (none when the store does not exist). A torn last line (a run killed
/// mid-write) is cut off with a warning; any other line that does not parse is an error.
pub fn load_stored(path: &Path) -> Result<Vec<GameResult>, StoreError> {
    let lines = crate::store::read_lines(path)?;
    crate::store::parse_lines(path, &lines, |l| {
        serde_json::from_str::<GameResult>(l).map_err(|e| e.to_string())
    })
}

/// The ids of the games already in a store (none when it does not exist; a torn last line is
/// cut off, as a rerun would).
pub fn stored_ids(store: &Path) -> Result<std::collections::BTreeSet<u64>, EvalError> {
    Ok(load_stored(store)?.into_iter().map(|r| r.id).collect())
}

fn io_error(path: &Path, e: &std::io::Error) -> EvalError {
    EvalError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Appends finished games to a store, each flushed as it ends.
pub struct GameAppender {
    path: PathBuf,
    file: std::fs::File,
    error: Option<std::io::Error>,
}

impl GameAppender {
    /// Opens `path` for appending (its directory and the file are made when missing).
    pub fn open(path: &Path) -> Result<Self, EvalError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io_error(path, &e))?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| io_error(path, &e))?;
        Ok(Self {
            path: path.to_path_buf(),
            file,
            error: None,
        })
    }

    /// Appends one game; false once a write has failed (the run should stop: no game is played
    /// for nothing), and the failure is kept for `finish`.
    pub fn append(&mut self, game: &GameResult) -> bool {
        if self.error.is_none() {
            let written = serde_json::to_string(game)
                .map_err(std::io::Error::other)
                .and_then(|line| writeln!(self.file, "{line}"))
                .and_then(|()| self.file.flush());
            self.error = written.err();
        }
        self.error.is_none()
    }

    /// The first write failure, naming the store.
    pub fn finish(self) -> Result<(), EvalError> {
        match self.error {
            Some(e) => Err(io_error(&self.path, &e)),
            None => Ok(()),
        }
    }
}

/// What decides a match's games besides the pair ids: a stored game is reused only by a match
/// with the same settings. (Pairs, threads and the device are not among them: a match asked
/// for more pairs plays on from the stored ones.)
#[derive(Debug, Serialize)]
pub struct MatchSettings {
    pub variant: String,
    pub a: String,
    pub b: String,
    pub seed: u64,
    pub opening_plies: u32,
    pub opening_policy: Option<String>,
    pub temperature: f32,
    pub temperature_plies: u32,
    pub c_puct: f32,
    pub fpu_reduction: f32,
    pub c_uct: f32,
    pub draw_value: f32,
    pub leaf_batch: Option<usize>,
    /// Each file the games read (networks, alpha-beta settings, the opening policy) with a hash
    /// of its bytes: a network retrained under the same path plays another match.
    pub files: BTreeMap<String, String>,
}

/// `files` for `MatchSettings`: each path with the XXH3-64 hash of its bytes.
pub fn file_hashes<'a>(
    paths: impl IntoIterator<Item = &'a Path>,
) -> Result<BTreeMap<String, String>, EvalError> {
    paths
        .into_iter()
        .map(|path| {
            // a built-in settings file hashes as its repository copy, so stores continue anywhere
            let bytes = match crate::search::alphabeta::config::built_in(path) {
                Some(text) => text.as_bytes().to_vec(),
                None => std::fs::read(path).map_err(|e| io_error(path, &e))?,
            };
            Ok((path.display().to_string(), content_hash(&bytes)))
        })
        .collect()
}

/// Where two settings (as JSON objects) differ, each as `key was, now new` (nested objects by
/// their inner keys, so a changed file is named).
fn differences(stored: &serde_json::Value, now: &serde_json::Value, prefix: &str) -> Vec<String> {
    let keys: std::collections::BTreeSet<&String> = [stored, now]
        .iter()
        .filter_map(|v| v.as_object())
        .flat_map(|o| o.keys())
        .collect();
    let mut found = Vec::new();
    for key in keys {
        let (was, is) = (stored.get(key.as_str()), now.get(key.as_str()));
        let name = format!("{prefix}{key}");
        match (was, is) {
            (Some(w), Some(i)) if w == i => {}
            (Some(w), Some(i)) if w.is_object() && i.is_object() => {
                found.extend(differences(w, i, &format!("{name} ")));
            }
            _ => {
                let show =
                    |v: Option<&serde_json::Value>| v.map_or("nothing".into(), |v| v.to_string());
                found.push(format!("{name} {}, now {}", show(was), show(is)));
            }
        }
    }
    found
}

impl MatchSettings {
    /// The file beside a match's store that keeps its settings.
    pub fn path(dir: &Path) -> PathBuf {
        dir.join("settings.json")
    }

    /// Records these settings in `dir`, or checks them against those recorded there: a store
    /// played under other settings is an error naming each difference. A store without a
    /// settings file (gathered from cluster units, or written before this file existed) is
    /// taken as it is, and these settings are recorded for it.
    pub fn claim(&self, dir: &Path) -> Result<(), EvalError> {
        claim(&Self::path(dir), dir, self)
    }
}

/// The file beside a balance study's store that keeps the hashes of the files its agent reads.
pub fn files_path(store: &Path) -> PathBuf {
    store.with_extension("files.json")
}

/// For a balance study's store: records the hashes of the files its agent reads beside it, or
/// checks them against those recorded (a network retrained under the same path is refused,
/// naming the file). Nothing is recorded for an agent that reads no file; a store without the
/// file is taken as it is.
pub fn claim_files(store: &Path, files: &BTreeMap<String, String>) -> Result<(), EvalError> {
    if files.is_empty() {
        return Ok(());
    }
    claim(
        &files_path(store),
        store,
        &serde_json::json!({ "files": files }),
    )
}

/// Records `settings` at `path` (making its directory), or checks them against those recorded
/// there; a difference is an error about the games at `games`.
fn claim(path: &Path, games: &Path, settings: &impl Serialize) -> Result<(), EvalError> {
    // compared as the JSON text reads back (an f32 turned straight into a JSON value is not
    // the number its text gives)
    let text =
        serde_json::to_string_pretty(settings).map_err(|e| EvalError::Invalid(e.to_string()))?;
    let now: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| EvalError::Invalid(e.to_string()))?;
    let Some(recorded) = crate::store::read_optional(path)? else {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io_error(dir, &e))?;
        }
        crate::atomic::write(path, &text).map_err(StoreError::from)?;
        return Ok(());
    };
    let stored: serde_json::Value = serde_json::from_str(&recorded).map_err(|e| EvalError::Io {
        path: path.to_path_buf(),
        message: format!("not the settings of stored games: {e}"),
    })?;
    let changed = differences(&stored, &now, "");
    if changed.is_empty() {
        return Ok(());
    }
    Err(EvalError::OtherGames {
        games: games.to_path_buf(),
        differences: changed.join("; "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> MatchSettings {
        MatchSettings {
            variant: "brandubh".into(),
            a: "mcts:16".into(),
            b: "mcts:4".into(),
            seed: 5,
            opening_plies: 2,
            opening_policy: None,
            temperature: 1.0,
            temperature_plies: 8,
            c_puct: 1.5,
            fpu_reduction: 0.2,
            c_uct: 1.0,
            draw_value: 0.0,
            leaf_batch: None,
            files: BTreeMap::from([("net.safetensors".into(), "xxh3:0000000000000001".into())]),
        }
    }

    #[test]
    fn a_match_store_is_reused_only_under_its_own_settings() {
        let tmp = tempfile::tempdir().expect("scratch");
        let dir = tmp.path().join("m");
        settings().claim(&dir).expect("a new directory is claimed");
        assert!(MatchSettings::path(&dir).exists());
        settings().claim(&dir).expect("the same match again");
        let other = MatchSettings {
            seed: 6,
            b: "mcts:8".into(),
            ..settings()
        };
        let err = other
            .claim(&dir)
            .expect_err("another match's games")
            .to_string();
        assert!(
            err.contains("b \"mcts:4\", now \"mcts:8\"") && err.contains("seed 5, now 6"),
            "{err}"
        );
        assert!(err.contains(&dir.display().to_string()), "{err}");
        // the same path with other bytes is another match, and the file is named
        let retrained = MatchSettings {
            files: BTreeMap::from([("net.safetensors".into(), "xxh3:0000000000000002".into())]),
            ..settings()
        };
        let err = retrained.claim(&dir).expect_err("other bytes").to_string();
        assert!(
            err.contains(
                "files net.safetensors \"xxh3:0000000000000001\", now \"xxh3:0000000000000002\""
            ),
            "{err}"
        );
        // a broken settings file is named, never overwritten
        std::fs::write(MatchSettings::path(&dir), "{").expect("writes");
        let err = settings().claim(&dir).expect_err("broken").to_string();
        assert!(err.contains("settings.json") && err.contains("not the settings of stored games"));
    }

    #[test]
    fn a_files_hash_follows_its_bytes() {
        let tmp = tempfile::tempdir().expect("scratch");
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        std::fs::write(&a, "one").expect("writes");
        std::fs::write(&b, "one").expect("writes");
        let hashes = file_hashes([a.as_path(), b.as_path()]).expect("hashes");
        assert_eq!(hashes.len(), 2);
        assert_eq!(
            hashes[&a.display().to_string()],
            hashes[&b.display().to_string()]
        );
        std::fs::write(&b, "two").expect("writes");
        let again = file_hashes([b.as_path()]).expect("hashes");
        assert_ne!(
            again[&b.display().to_string()],
            hashes[&b.display().to_string()]
        );
        let missing = tmp.path().join("gone");
        let err = file_hashes([missing.as_path()])
            .expect_err("missing")
            .to_string();
        assert!(err.contains("gone"), "{err}");
    }

    #[test]
    fn appended_games_read_back_and_a_failed_write_is_named() {
        let tmp = tempfile::tempdir().expect("scratch");
        let path = tmp.path().join("sub").join("games.jsonl");
        let game = |id| {
            GameResult {
            id,
            ..serde_json::from_str(
                r#"{"id":0,"attacker":0,"defender":1,"outcome":{"winner":"defenders","reason":"king_escaped"},"plies":1,"moves":["d2-g2"]}"#,
            )
            .expect("a game")
        }
        };
        let mut store = GameAppender::open(&path).expect("opens");
        assert!(store.append(&game(0)) && store.append(&game(3)));
        store.finish().expect("written");
        let ids: Vec<u64> = load_stored(&path)
            .expect("reads")
            .iter()
            .map(|g| g.id)
            .collect();
        assert_eq!(ids, vec![0, 3]);
        assert_eq!(stored_ids(&path).expect("ids").len(), 2);
        // /dev/full takes no bytes: the first append fails and the rest are refused
        let full = Path::new("/dev/full");
        if full.exists() {
            let mut store = GameAppender {
                path: full.to_path_buf(),
                file: std::fs::OpenOptions::new()
                    .write(true)
                    .open(full)
                    .expect("opens"),
                error: None,
            };
            assert!(!store.append(&game(0)));
            assert!(!store.append(&game(1)));
            let err = store.finish().expect_err("full").to_string();
            assert!(err.contains("/dev/full"), "{err}");
        }
    }
}
