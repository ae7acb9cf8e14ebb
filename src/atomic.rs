//! Files that appear whole or not at all, for every writer in the crate: the bytes go to
//! `NAME.tmp` in the same directory, are synced to disk and renamed over `NAME`, and then the
//! directory is synced so that the rename itself survives a crash. A failure at any step leaves
//! the previous `NAME` untouched and removes the temporary file.

use std::ffi::OsString;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A step of an atomic write that failed, naming the file.
#[derive(Debug, thiserror::Error)]
#[error("cannot {action} {}: {source}", path.display())]
pub struct WriteError {
    /// `create`, `write`, `sync`, `rename into place`, ...
    pub action: &'static str,
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

impl WriteError {
    fn new<'a>(
        action: &'static str,
        path: &'a Path,
    ) -> impl FnOnce(std::io::Error) -> WriteError + 'a {
        move |source| WriteError {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}

impl From<WriteError> for std::io::Error {
    fn from(e: WriteError) -> std::io::Error {
        std::io::Error::new(e.source.kind(), e.to_string())
    }
}

/// The temporary name a file is written under: `NAME.tmp` beside it.
pub fn tmp_path(path: &Path) -> PathBuf {
    let mut name = OsString::from(path.as_os_str());
    name.push(".tmp");
    PathBuf::from(name)
}

/// Writes `bytes` to `path` atomically, creating its directory if needed.
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), WriteError> {
    let mut file = AtomicFile::create(path)?;
    let tmp = file.tmp().to_path_buf();
    file.file()
        .write_all(bytes.as_ref())
        .map_err(WriteError::new("write", &tmp))?;
    file.commit()
}

/// Puts a file that another library wrote under `tmp` (in `path`'s directory) in place: synced,
/// renamed over `path`, the directory synced. On failure `tmp` is removed and `path` untouched.
pub fn persist(tmp: &Path, path: &Path) -> Result<(), WriteError> {
    let result = File::open(tmp)
        .and_then(|f| f.sync_all())
        .map_err(WriteError::new("sync", tmp))
        .and_then(|()| {
            std::fs::rename(tmp, path).map_err(WriteError::new("rename into place", tmp))
        });
    if result.is_err() {
        let _ = std::fs::remove_file(tmp);
    }
    result?;
    sync_dir(path);
    Ok(())
}

/// Whether `name` is a temporary name of this module's writers: `NAME.tmp`, or
/// `NAME.tmp.EXT` for libraries that insist on an extension (safetensors).
fn is_temporary(name: &str) -> bool {
    name.ends_with(".tmp") || name.contains(".tmp.")
}

/// Removes the temporary files a killed writer left in `dir` and below, returning how many.
/// A run that resumes calls it before it writes anything: its stages found done are not written
/// again, so their temporary files would otherwise stay. A missing `dir` has none.
pub fn remove_leftovers(dir: &Path) -> std::io::Result<usize> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut removed = 0;
    for entry in entries {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            removed += remove_leftovers(&entry.path())?;
        } else if kind.is_file() && entry.file_name().to_str().is_some_and(is_temporary) {
            std::fs::remove_file(entry.path())?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// Makes a rename in `path`'s directory durable; best effort, as not every platform can open a
/// directory.
fn sync_dir(path: &Path) {
    if let Some(dir) = path.parent() {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
}

/// A file being written under its temporary name, for writers that stream. [`AtomicFile::commit`]
/// syncs it and renames it into place; dropping it uncommitted removes the temporary file.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    file: Option<File>,
    committed: bool,
}

impl AtomicFile {
    /// Opens `NAME.tmp` for writing, creating the directory if needed.
    pub fn create(path: &Path) -> Result<AtomicFile, WriteError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(WriteError::new("create the directory", dir))?;
        }
        let tmp = tmp_path(path);
        let file = File::create(&tmp).map_err(WriteError::new("create", &tmp))?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            file: Some(file),
            committed: false,
        })
    }

    /// The temporary path being written.
    pub fn tmp(&self) -> &Path {
        &self.tmp
    }

    pub fn file(&mut self) -> &mut File {
        self.file.as_mut().expect("the file is open until commit")
    }

    /// Takes the open file out (for writers that own it); give it back with
    /// [`AtomicFile::commit_file`].
    pub fn take_file(&mut self) -> File {
        self.file.take().expect("the file is open until commit")
    }

    /// Flushes the data to disk and renames the file to its final name.
    pub fn commit(mut self) -> Result<(), WriteError> {
        let file = self.take_file();
        self.commit_file(file)
    }

    /// As [`AtomicFile::commit`], for a file taken out with [`AtomicFile::take_file`].
    pub fn commit_file(mut self, file: File) -> Result<(), WriteError> {
        file.sync_all()
            .map_err(WriteError::new("sync", &self.tmp))?;
        drop(file);
        std::fs::rename(&self.tmp, &self.path)
            .map_err(WriteError::new("rename into place", &self.tmp))?;
        self.committed = true;
        sync_dir(&self.path);
        Ok(())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        self.file.take();
        if !self.committed {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh scratch directory, removed when the returned value is dropped.
    fn scratch() -> tempfile::TempDir {
        tempfile::tempdir().expect("scratch dir")
    }

    #[test]
    fn leftovers_of_a_killed_writer_are_removed_and_nothing_else() {
        let tmp = scratch();
        let dir = tmp.path();
        std::fs::create_dir(dir.join("gen.tmp")).expect("mkdir");
        for name in [
            "time.json.tmp",
            "w.tmp.safetensors",
            "time.json",
            "notes.tmpl",
            "gen.tmp/a.bin",
            "gen.tmp/shard.npz.tmp",
        ] {
            std::fs::write(dir.join(name), b"x").expect("write");
        }
        assert_eq!(remove_leftovers(dir).expect("sweep"), 3);
        let names = |d: &Path| {
            let mut names: Vec<String> = std::fs::read_dir(d)
                .expect("read")
                .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        assert_eq!(names(dir), ["gen.tmp", "notes.tmpl", "time.json"]);
        assert_eq!(names(&dir.join("gen.tmp")), ["a.bin"]);
        assert_eq!(remove_leftovers(&dir.join("missing")).expect("none"), 0);
    }

    #[test]
    fn commit_renames_and_drop_cleans_up() {
        let tmp = scratch();
        let dir = tmp.path();
        let path = dir.join("a.bin");
        let mut f = AtomicFile::create(&path).expect("create");
        f.file().write_all(b"hello").expect("write");
        assert!(dir.join("a.bin.tmp").exists() && !path.exists());
        f.commit().expect("commit");
        assert_eq!(std::fs::read(&path).expect("read"), b"hello");
        assert!(!dir.join("a.bin.tmp").exists());

        let mut g = AtomicFile::create(&path).expect("create");
        g.file().write_all(b"half").expect("write");
        drop(g);
        assert!(
            !dir.join("a.bin.tmp").exists(),
            "abandoned temp file removed"
        );
        assert_eq!(
            std::fs::read(&path).expect("read"),
            b"hello",
            "old file kept"
        );
    }

    #[test]
    fn a_failed_write_names_the_file_and_keeps_the_old_one() {
        let tmp = scratch();
        let dir = tmp.path();
        let path = dir.join("summary.json");
        write(&path, "old").expect("first write");
        // the temporary name is taken by a directory: creating it fails
        std::fs::create_dir(tmp_path(&path)).expect("dir");
        let err = write(&path, "new").expect_err("cannot create the temporary file");
        assert!(
            err.to_string().contains("summary.json.tmp") && err.action == "create",
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "old");
        // and a parent that is a file cannot take a directory
        let err = write(&path.join("inner.json"), "x").expect_err("parent is a file");
        assert!(err.to_string().contains("summary.json"), "{err}");
    }

    #[test]
    fn persist_moves_a_finished_file_into_place() {
        let tmp = scratch();
        let dir = tmp.path();
        let path = dir.join("w.safetensors");
        let tmp = dir.join("w.tmp.safetensors");
        std::fs::write(&tmp, b"weights").expect("tmp");
        persist(&tmp, &path).expect("persist");
        assert_eq!(std::fs::read(&path).expect("read"), b"weights");
        assert!(!tmp.exists());
        let err = persist(&tmp, &path).expect_err("nothing to persist");
        assert!(err.to_string().contains("w.tmp.safetensors"), "{err}");
        assert_eq!(std::fs::read(&path).expect("read"), b"weights");
    }
}
