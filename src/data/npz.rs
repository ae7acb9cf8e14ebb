//! Export to NumPy: an `.npz` archive (a zip of `.npy` files) that `numpy.load` opens.
//!
//! | array          | dtype   | shape            | meaning                                      |
//! |----------------|---------|------------------|----------------------------------------------|
//! | `cells`        | uint8   | [N, S*S]         | `Position::cells()`: rank-major from a1      |
//! | `side_to_move` | uint8   | [N]              | 0 attackers, 1 defenders                     |
//! | `policy`       | float32 | [N, P]           | dense policy target, P = `policy_size(S)`    |
//! | `result`       | float32 | [N]              | game result, side to move's view             |
//! | `search_value` | float32 | [N]              | root value, side to move's view              |
//! | `game_id`      | uint64  | [N]              |                                              |
//! | `ply`          | uint32  | [N]              |                                              |
//! | `planes`       | float32 | [N, 14, S, S]    | `encode::planes` (rank, then file), see [`Sample::planes`] |
//!
//! Arrays are written one after another in chunks of rows, so the export needs little memory
//! beyond the samples themselves; entries are stored uncompressed (zip64 past 4 GiB).

use std::fs::File;
use std::io::{BufWriter, Seek, Write};
use std::path::Path;
use std::sync::Arc;

use ndarray::{Array2, ArrayViewMut1};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use crate::encode::policy::policy_size;
use crate::encode::Encoding;
use crate::rules::{Side, Variant};

use super::error::DataError;
use super::sample::Sample;
use crate::atomic::AtomicFile;
use crate::npy::npy_header;

/// The arrays of an export, in the order they are written.
pub const ARRAYS: [&str; 9] = [
    "cells",
    "side_to_move",
    "policy",
    "result",
    "search_value",
    "game_id",
    "ply",
    "occurrences",
    "planes",
];

/// Rows built at once per array.
const CHUNK: usize = 256;

/// What an export wrote.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct NpzSummary {
    pub samples: usize,
    pub board_size: usize,
    pub policy_size: usize,
    pub bytes: u64,
}

/// A type `.npy` can store.
pub trait NpyElement: Copy + Default {
    /// The NumPy dtype string.
    const DESCR: &'static str;
    const SIZE: usize;
    fn put_le(self, out: &mut Vec<u8>);
}

macro_rules! npy_element {
    ($t:ty, $descr:expr) => {
        impl NpyElement for $t {
            const DESCR: &'static str = $descr;
            const SIZE: usize = std::mem::size_of::<$t>();
            fn put_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    };
}
npy_element!(u8, "|u1");
npy_element!(u32, "<u4");
npy_element!(u64, "<u8");
npy_element!(f32, "<f4");

/// Writes `samples` of `variant` to the `.npz` file `path` (atomically: `PATH.tmp`, then
/// renamed). `progress` receives the rows written, `samples.len() * ARRAYS.len()` in all.
/// A sample that does not fit the variant is an error, and nothing is left at `path`.
pub fn export_npz(
    samples: &[Sample],
    variant: &Arc<Variant>,
    path: &Path,
    mut progress: impl FnMut(u64),
) -> Result<NpzSummary, DataError> {
    let size = variant.size;
    let squares = variant.squares;
    let p = policy_size(size);
    for s in samples {
        check(s, squares, p)?;
    }
    let mut atomic = AtomicFile::create(path)?;
    let tmp = atomic.tmp().to_path_buf();
    let zip_err = |source| DataError::Zip {
        path: tmp.clone(),
        source,
    };
    let mut zip = ZipWriter::new(BufWriter::new(atomic.take_file()));
    let n = samples.len();
    let mut out = Out {
        zip: &mut zip,
        samples,
        tmp: &tmp,
        progress: &mut progress,
    };
    out.array::<u8>("cells", &[squares], |s, mut row| {
        row.iter_mut().zip(&s.cells).for_each(|(r, &c)| *r = c);
        Ok(())
    })?;
    out.array::<u8>("side_to_move", &[], |s, mut row| {
        row[0] = u8::from(s.side_to_move == Side::Defenders);
        Ok(())
    })?;
    out.array::<f32>("policy", &[p], |s, mut row| {
        for &(i, prob) in &s.policy {
            row[i as usize] += prob;
        }
        Ok(())
    })?;
    out.array::<f32>("result", &[], |s, mut row| {
        row[0] = s.result;
        Ok(())
    })?;
    out.array::<f32>("search_value", &[], |s, mut row| {
        row[0] = s.search_value;
        Ok(())
    })?;
    out.array::<u64>("game_id", &[], |s, mut row| {
        row[0] = s.game_id;
        Ok(())
    })?;
    out.array::<u32>("ply", &[], |s, mut row| {
        row[0] = s.ply;
        Ok(())
    })?;
    out.array::<u8>("occurrences", &[], |s, mut row| {
        row[0] = s.occurrences;
        Ok(())
    })?;
    let encoding = Encoding::CURRENT;
    out.array::<f32>("planes", &[encoding.planes(), size, size], |s, mut row| {
        let planes = s.planes(variant, encoding)?;
        row.iter_mut().zip(planes).for_each(|(r, x)| *r = x);
        Ok(())
    })?;
    let writer = zip.finish().map_err(zip_err)?;
    let file = writer
        .into_inner()
        .map_err(|e| DataError::io("write", &tmp, e.into_error()))?;
    let bytes = file
        .metadata()
        .map_err(|e| DataError::io("stat", &tmp, e))?
        .len();
    atomic.commit_file(file)?;
    Ok(NpzSummary {
        samples: n,
        board_size: size,
        policy_size: p,
        bytes,
    })
}

/// What the arrays need of a sample before anything is written.
fn check(s: &Sample, squares: usize, policy: usize) -> Result<(), DataError> {
    let bad = |reason: String| DataError::BadSample {
        game_id: s.game_id,
        ply: s.ply,
        reason,
    };
    if s.cells.len() != squares {
        return Err(bad(format!(
            "{} cells, the board has {squares}",
            s.cells.len()
        )));
    }
    if let Some(&(i, _)) = s.policy.iter().find(|(i, _)| *i as usize >= policy) {
        return Err(bad(format!(
            "policy index {i} is out of range (policy size {policy})"
        )));
    }
    Ok(())
}

struct Out<'a, W: Write + Seek, P: FnMut(u64)> {
    zip: &'a mut ZipWriter<W>,
    samples: &'a [Sample],
    tmp: &'a Path,
    progress: &'a mut P,
}

impl<W: Write + Seek, P: FnMut(u64)> Out<'_, W, P> {
    /// Writes `NAME.npy` of shape `[N, row_shape...]`, each row filled from its sample.
    fn array<T: NpyElement>(
        &mut self,
        name: &str,
        row_shape: &[usize],
        fill: impl Fn(&Sample, ArrayViewMut1<T>) -> Result<(), DataError>,
    ) -> Result<(), DataError> {
        let n = self.samples.len();
        let row_len: usize = row_shape.iter().product();
        let mut shape = vec![n];
        shape.extend_from_slice(row_shape);
        let header = npy_header(T::DESCR, &shape);
        let entry_bytes = header.len() as u64 + (n * row_len * T::SIZE) as u64;
        let options = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Stored)
            .large_file(entry_bytes >= u64::from(u32::MAX));
        let io = |e| DataError::io("write", self.tmp, e);
        self.zip
            .start_file(format!("{name}.npy"), options)
            .map_err(|source| DataError::Zip {
                path: self.tmp.to_path_buf(),
                source,
            })?;
        self.zip.write_all(&header).map_err(io)?;
        let mut chunk = Array2::<T>::default((CHUNK.min(n.max(1)), row_len));
        let mut bytes = Vec::with_capacity(chunk.len() * T::SIZE);
        for samples in self.samples.chunks(CHUNK) {
            chunk.fill(T::default());
            for (s, row) in samples.iter().zip(chunk.rows_mut()) {
                fill(s, row)?;
            }
            bytes.clear();
            // Standard (C) layout: rows in order; only the rows of this chunk.
            for &x in chunk.iter().take(samples.len() * row_len) {
                x.put_le(&mut bytes);
            }
            self.zip.write_all(&bytes).map_err(io)?;
            (self.progress)(samples.len() as u64);
        }
        Ok(())
    }
}

/// An `.npz` file's entry names, for checks (reads only the zip directory).
pub fn npz_entries(path: &Path) -> Result<Vec<String>, DataError> {
    let file = File::open(path).map_err(|e| DataError::io("open", path, e))?;
    let zip =
        zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(|source| DataError::Zip {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(zip
        .file_names_raw()
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::sample::tests::start_sample;
    use crate::npy::parse_npy_header;
    use std::io::Read;

    #[test]
    fn headers_are_aligned_and_parse_back() {
        for shape in [vec![0], vec![7], vec![3, 49], vec![2, 14, 7, 7]] {
            let h = npy_header("<f4", &shape);
            assert_eq!(h.len() % 64, 0, "{shape:?}");
            assert_eq!(*h.last().expect("byte"), b'\n');
            let parsed = parse_npy_header(&h).expect("parses");
            assert_eq!(parsed.shape, shape);
            assert_eq!(parsed.descr, "<f4");
            assert!(!parsed.fortran_order);
            assert_eq!(parsed.data_offset, h.len());
        }
        let one = String::from_utf8(npy_header("|u1", &[5])[10..].to_vec()).expect("ascii");
        assert!(one.contains("'shape': (5,), }"), "{one}");
    }

    fn read_entry(path: &Path, name: &str) -> Vec<u8> {
        let file = File::open(path).expect("open");
        let mut zip = zip::ZipArchive::new(file).expect("zip");
        let mut entry = zip.by_name(name).expect("entry");
        assert_eq!(entry.compression(), CompressionMethod::Stored);
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).expect("read");
        bytes
    }

    #[test]
    fn exports_every_array_with_its_shape() {
        let v = Variant::load("brandubh").expect("preset");
        let samples: Vec<Sample> = (0..300)
            .map(|i| {
                let mut s = start_sample(&v, i / 10, (i % 10) as u32);
                s.side_to_move = if i % 2 == 0 {
                    Side::Attackers
                } else {
                    Side::Defenders
                };
                s
            })
            .collect();
        let tmp = tempfile::tempdir().expect("dir");
        let dir = tmp.path();
        let path = dir.join("out.npz");
        let mut rows = 0;
        let summary = export_npz(&samples, &v, &path, |k| rows += k).expect("exports");
        assert_eq!(rows, 300 * ARRAYS.len() as u64);
        assert_eq!(summary.samples, 300);
        assert!(!dir.join("out.npz.tmp").exists());
        let mut names = npz_entries(&path).expect("entries");
        names.sort();
        let mut want: Vec<String> = ARRAYS.iter().map(|a| format!("{a}.npy")).collect();
        want.sort();
        assert_eq!(names, want);

        let p = policy_size(7);
        let planes = read_entry(&path, "planes.npy");
        let h = parse_npy_header(&planes).expect("npy");
        assert_eq!(
            (h.descr.as_str(), h.shape.clone()),
            ("<f4", vec![300, 16, 7, 7])
        );
        assert_eq!(planes.len() - h.data_offset, 300 * 16 * 49 * 4);

        let policy = read_entry(&path, "policy.npy");
        let h = parse_npy_header(&policy).expect("npy");
        assert_eq!(h.shape, vec![300, p]);
        let f32_at = |i: usize| {
            let o = h.data_offset + 4 * i;
            f32::from_le_bytes(policy[o..o + 4].try_into().expect("4 bytes"))
        };
        // Sample 299, index 17: the last row.
        assert_eq!(f32_at(299 * p + 17), 0.75);
        assert_eq!(f32_at(299 * p + 3), 0.25);
        assert_eq!(f32_at(299 * p + 4), 0.0);

        let side = read_entry(&path, "side_to_move.npy");
        let h = parse_npy_header(&side).expect("npy");
        assert_eq!((h.descr.as_str(), h.shape.clone()), ("|u1", vec![300]));
        assert_eq!(&side[h.data_offset..h.data_offset + 4], [0, 1, 0, 1]);
    }

    #[test]
    fn a_bad_sample_leaves_nothing_behind() {
        let v = Variant::load("brandubh").expect("preset");
        let mut s = start_sample(&v, 4, 2);
        s.policy.push((policy_size(7) as u32, 0.0));
        let tmp = tempfile::tempdir().expect("dir");
        let dir = tmp.path();
        let path = dir.join("bad.npz");
        let e = export_npz(&[s.clone()], &v, &path, |_| {}).expect_err("bad index");
        assert!(e.to_string().contains("policy index"), "{e}");

        // A board without a king passes the cheap checks and fails while encoding planes.
        s.policy.pop();
        s.cells = vec![0; 49];
        let e = export_npz(&[s], &v, &path, |_| {}).expect_err("no king");
        assert!(e.to_string().contains("no king"), "{e}");
        assert!(!path.exists() && !dir.join("bad.npz.tmp").exists());
    }
}
