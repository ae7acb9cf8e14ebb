//! Files that appear complete or not at all: written under `NAME.tmp`, synced, then renamed.

use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};

use super::error::DataError;

/// The temporary name a file is written under: `NAME.tmp` beside it.
pub fn tmp_path(path: &Path) -> PathBuf {
    let mut name = OsString::from(path.as_os_str());
    name.push(".tmp");
    PathBuf::from(name)
}

/// A file being written under its temporary name. [`AtomicFile::commit`] syncs it and renames
/// it into place; dropping it uncommitted removes the temporary file.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    file: Option<File>,
    committed: bool,
}

impl AtomicFile {
    pub fn create(path: &Path) -> Result<AtomicFile, DataError> {
        let tmp = tmp_path(path);
        let file = File::create(&tmp).map_err(|e| DataError::io("create", &tmp, e))?;
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

    /// Takes the open file out (for writers that own it); give it back with [`AtomicFile::commit_file`].
    pub fn take_file(&mut self) -> File {
        self.file.take().expect("the file is open until commit")
    }

    /// Flushes the data to disk and renames the file to its final name.
    pub fn commit(mut self) -> Result<(), DataError> {
        let file = self.take_file();
        self.commit_file(file)
    }

    /// As [`AtomicFile::commit`], for a file taken out with [`AtomicFile::take_file`].
    pub fn commit_file(mut self, file: File) -> Result<(), DataError> {
        file.sync_all()
            .map_err(|e| DataError::io("sync", &self.tmp, e))?;
        drop(file);
        std::fs::rename(&self.tmp, &self.path)
            .map_err(|e| DataError::io("rename into place", &self.tmp, e))?;
        self.committed = true;
        // Make the rename itself durable; not every platform can open a directory, so this is
        // best effort.
        if let Some(dir) = self.path.parent() {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
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
    use std::io::Write;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tavlei-atomic-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

    #[test]
    fn commit_renames_and_drop_cleans_up() {
        let dir = scratch("commit");
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
        let _ = std::fs::remove_dir_all(&dir);
    }
}
