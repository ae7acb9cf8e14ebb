//! The files an alpha-beta spec names after its budget, in either order: `:eval=FILE` (its
//! settings) and `:nnue=FILE` (a learned evaluation), as in `ab:t=1s:eval=q.toml:nnue=c.nnue`.
//! Agents (`eval::agent`) and teachers (`selfplay::teacher`) read them alike.

use std::path::PathBuf;

/// The files of a spec, each where it was named.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpecFiles {
    pub eval: Option<PathBuf>,
    pub nnue: Option<PathBuf>,
}

impl SpecFiles {
    pub fn is_empty(&self) -> bool {
        self.eval.is_none() && self.nnue.is_none()
    }

    /// Takes the trailing `eval=FILE` and `nnue=FILE` parts off a spec split at `:`; one named
    /// twice or naming no file is an error that says which.
    pub fn take(parts: &mut Vec<&str>) -> Result<SpecFiles, String> {
        let mut files = SpecFiles::default();
        while let Some(&last) = parts.last() {
            let (slot, name, file) = if let Some(file) = last.strip_prefix("eval=") {
                (&mut files.eval, "eval", file)
            } else if let Some(file) = last.strip_prefix("nnue=") {
                (&mut files.nnue, "nnue", file)
            } else {
                break;
            };
            if file.is_empty() {
                return Err(format!("`{name}=` names no file"));
            }
            if slot.replace(PathBuf::from(file)).is_some() {
                return Err(format!("`{name}=` is given twice"));
            }
            parts.pop();
        }
        Ok(files)
    }

    /// The first file's key, for an error about a spec that may not name files.
    pub fn first_key(&self) -> &'static str {
        if self.eval.is_some() {
            "eval"
        } else {
            "nnue"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(spec: &str) -> (Vec<&str>, Result<SpecFiles, String>) {
        let mut parts: Vec<&str> = spec.split(':').collect();
        let files = SpecFiles::take(&mut parts);
        (parts, files)
    }

    #[test]
    fn files_come_off_the_end_in_either_order() {
        let both = SpecFiles {
            eval: Some("q.toml".into()),
            nnue: Some("c.nnue".into()),
        };
        for spec in [
            "ab:4:eval=q.toml:nnue=c.nnue",
            "ab:4:nnue=c.nnue:eval=q.toml",
        ] {
            let (rest, files) = take(spec);
            assert_eq!(rest, ["ab", "4"], "{spec}");
            assert_eq!(files.as_ref(), Ok(&both), "{spec}");
        }
        let (rest, files) = take("ab:t=1s");
        assert_eq!(
            (rest, files),
            (vec!["ab", "t=1s"], Ok(SpecFiles::default()))
        );
        // only trailing parts are files
        let (rest, files) = take("ab:eval=q.toml:4");
        assert_eq!(rest.len(), 3);
        assert!(files.expect("none").is_empty());
    }

    #[test]
    fn an_empty_or_repeated_file_is_named() {
        let (_, files) = take("ab:4:nnue=");
        assert_eq!(files, Err("`nnue=` names no file".into()));
        let (_, files) = take("ab:4:eval=a.toml:eval=b.toml");
        assert_eq!(files, Err("`eval=` is given twice".into()));
    }
}
