//! Shard files: a batch of samples with a header and a checksum, written atomically.
//!
//! Layout (integers little-endian):
//!
//! | bytes    | field                                                   |
//! |----------|---------------------------------------------------------|
//! | 8        | magic `TAVLSHRD`                                        |
//! | 4        | format version (`FORMAT_VERSION`)                       |
//! | 4 + L    | variant name: length L (at most `MAX_VARIANT_NAME`), UTF-8 |
//! | 4        | `encode::ENCODING_VERSION` the samples were made under  |
//! | 8        | sample count                                            |
//! | 8        | payload length in bytes                                 |
//! | payload  | the samples, each bincode 2 (serde, standard config)    |
//! | 8        | checksum of every byte before it: XXH3-64 (FNV-1a 64 in formats 1 and 2) |
//!
//! The payload length lets a reader tell a truncated file from a corrupted one.
//!
//! Every older format is still read. Format 1 (encoding 1) samples lack the pass and occurrence
//! counts of later formats (encoding 2); they are read as first occurrences without passes.
//! Format 3 changed only the checksum (XXH3-64 for FNV-1a).

use std::io::Write;
use std::path::Path;

use crate::encode::ENCODING_VERSION;

use super::checksum::shard_checksum;
use super::error::DataError;
use super::sample::{Sample, SampleV1};
use crate::atomic::AtomicFile;

pub const MAGIC: [u8; 8] = *b"TAVLSHRD";
/// The format written; every format from 1 up to it is read.
pub const FORMAT_VERSION: u32 = 3;
// format 3 holds encoding-2 samples: a new encoding needs a new format (and the reader's map)
const _: () = assert!(ENCODING_VERSION == 2);
/// Longest variant name a shard stores, in bytes.
pub const MAX_VARIANT_NAME: usize = 1024;
/// The file extension of complete shards.
pub const EXTENSION: &str = "shard";

/// The most bytes one sample may claim while being decoded (a guard against absurd lengths).
const SAMPLE_LIMIT: usize = 1 << 26;
/// The fewest bytes a bincode-encoded sample takes (for bounding preallocation).
const MIN_SAMPLE_BYTES: usize = 16;

/// A shard's contents.
#[derive(Clone, Debug, PartialEq)]
pub struct Shard {
    pub variant: String,
    pub samples: Vec<Sample>,
}

/// The bytes of a shard holding `samples` of `variant_name`; `path` only names errors.
pub fn encode_shard(
    path: &Path,
    variant_name: &str,
    samples: &[Sample],
) -> Result<Vec<u8>, DataError> {
    if variant_name.len() > MAX_VARIANT_NAME {
        return Err(DataError::VariantName {
            path: path.to_path_buf(),
            name: variant_name.to_string(),
            reason: format!("longer than {MAX_VARIANT_NAME} bytes"),
        });
    }
    let mut payload = Vec::with_capacity(samples.len() * 128);
    for (index, sample) in samples.iter().enumerate() {
        bincode::serde::encode_into_std_write(sample, &mut payload, bincode::config::standard())
            .map_err(|e| DataError::Encode {
                path: path.to_path_buf(),
                index,
                message: e.to_string(),
            })?;
    }
    let mut out = Vec::with_capacity(payload.len() + 48 + variant_name.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&(variant_name.len() as u32).to_le_bytes());
    out.extend_from_slice(variant_name.as_bytes());
    out.extend_from_slice(&ENCODING_VERSION.to_le_bytes());
    out.extend_from_slice(&(samples.len() as u64).to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&payload);
    let sum = shard_checksum(FORMAT_VERSION, &out);
    out.extend_from_slice(&sum.to_le_bytes());
    Ok(out)
}

/// Writes a shard atomically: to `PATH.tmp`, synced to disk, then renamed to `path`.
pub fn write_shard(path: &Path, variant_name: &str, samples: &[Sample]) -> Result<(), DataError> {
    let bytes = encode_shard(path, variant_name, samples)?;
    let mut file = AtomicFile::create(path)?;
    let tmp = file.tmp().to_path_buf();
    file.file()
        .write_all(&bytes)
        .map_err(|e| DataError::io("write", tmp, e))?;
    Ok(file.commit()?)
}

/// Reads and validates a shard file.
pub fn read_shard(path: &Path) -> Result<Shard, DataError> {
    let bytes = std::fs::read(path).map_err(|e| DataError::io("read", path, e))?;
    decode_shard(&bytes, path)
}

/// Validates and decodes the bytes of a shard; `path` names it in errors. Never panics.
pub fn decode_shard(bytes: &[u8], path: &Path) -> Result<Shard, DataError> {
    let truncated = |detail: String| DataError::Truncated {
        path: path.to_path_buf(),
        detail,
    };
    let corrupt = |detail: String| DataError::Corrupt {
        path: path.to_path_buf(),
        detail,
    };
    if bytes.len() < MAGIC.len() {
        return Err(if MAGIC.starts_with(bytes) {
            truncated(format!(
                "{} bytes, shorter than its {}-byte magic",
                bytes.len(),
                MAGIC.len()
            ))
        } else {
            DataError::WrongMagic {
                path: path.to_path_buf(),
            }
        });
    }
    let mut r = Cursor {
        bytes,
        pos: 0,
        path,
    };
    if r.take(MAGIC.len(), "magic")? != MAGIC {
        return Err(DataError::WrongMagic {
            path: path.to_path_buf(),
        });
    }
    let format = r.u32("format version")?;
    if !(1..=FORMAT_VERSION).contains(&format) {
        return Err(DataError::FormatVersion {
            path: path.to_path_buf(),
            found: format,
            expected: FORMAT_VERSION,
        });
    }
    let name_len = r.u32("variant name length")? as usize;
    if name_len > MAX_VARIANT_NAME {
        return Err(corrupt(format!(
            "variant name of {name_len} bytes (at most {MAX_VARIANT_NAME})"
        )));
    }
    let name = r.take(name_len, "variant name")?;
    let encoding = r.u32("encoding version")?;
    let count = r.u64("sample count")?;
    let payload_len = r.u64("payload length")?;
    let header_len = r.pos;
    let expected_len = (header_len as u64)
        .checked_add(payload_len)
        .and_then(|n| n.checked_add(8))
        .ok_or_else(|| corrupt(format!("impossible payload length {payload_len}")))?;
    let actual_len = bytes.len() as u64;
    if actual_len < expected_len {
        return Err(truncated(format!(
            "{actual_len} bytes, the header announces {expected_len} ({count} samples)"
        )));
    }
    if actual_len > expected_len {
        return Err(corrupt(format!(
            "{} bytes after the checksum (the header announces {expected_len} bytes in all)",
            actual_len - expected_len
        )));
    }
    // The lengths agree with the file, so these slices are in bounds.
    let checked_len = bytes.len() - 8;
    let mut stored = [0u8; 8];
    stored.copy_from_slice(&bytes[checked_len..]);
    let stored = u64::from_le_bytes(stored);
    let computed = shard_checksum(format, &bytes[..checked_len]);
    if stored != computed {
        return Err(DataError::BadChecksum {
            path: path.to_path_buf(),
            stored,
            computed,
        });
    }
    let variant = std::str::from_utf8(name)
        .map_err(|_| corrupt("the variant name is not UTF-8".into()))?
        .to_string();
    // each format's samples hold what one encoding needs: encoding 1 in format 1, encoding 2
    // in formats 2 and 3 (format 3 changed only the checksum)
    let expected = if format == 1 { 1 } else { 2 };
    if encoding != expected {
        return Err(DataError::EncodingVersion {
            path: path.to_path_buf(),
            found: encoding,
            expected,
        });
    }
    let payload = &bytes[header_len..checked_len];
    let config = bincode::config::standard().with_limit::<SAMPLE_LIMIT>();
    let capacity = count.min((payload.len() / MIN_SAMPLE_BYTES) as u64) as usize;
    let mut samples = Vec::with_capacity(capacity);
    let mut offset = 0;
    for index in 0..count {
        let bad = |e: bincode::error::DecodeError| {
            corrupt(format!(
                "sample {index} of {count} (payload byte {offset}): {e}"
            ))
        };
        let rest = &payload[offset..];
        let (sample, used) = if format == 1 {
            let (old, used): (SampleV1, usize) =
                bincode::serde::decode_from_slice(rest, config).map_err(bad)?;
            (Sample::from(old), used)
        } else {
            bincode::serde::decode_from_slice(rest, config).map_err(bad)?
        };
        offset += used;
        samples.push(sample);
    }
    if offset != payload.len() {
        return Err(corrupt(format!(
            "{} payload bytes left after the {count} samples the header announces",
            payload.len() - offset
        )));
    }
    Ok(Shard { variant, samples })
}

/// Reads the header fields in order, reporting where the file ends too early.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    path: &'a Path,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], DataError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(DataError::Truncated {
                path: self.path.to_path_buf(),
                detail: format!(
                    "{} bytes, it ends inside the header's {what}",
                    self.bytes.len()
                ),
            });
        };
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn u32(&mut self, what: &str) -> Result<u32, DataError> {
        let mut b = [0u8; 4];
        b.copy_from_slice(self.take(4, what)?);
        Ok(u32::from_le_bytes(b))
    }

    fn u64(&mut self, what: &str) -> Result<u64, DataError> {
        let mut b = [0u8; 8];
        b.copy_from_slice(self.take(8, what)?);
        Ok(u64::from_le_bytes(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::sample::tests::start_sample;
    use crate::rules::Variant;
    use proptest::prelude::*;
    use std::path::PathBuf;

    fn samples(n: usize) -> Vec<Sample> {
        let v = Variant::load("brandubh").expect("preset");
        (0..n)
            .map(|i| {
                let mut s = start_sample(&v, i as u64 / 3, i as u32 % 3);
                s.reason = format!("reason {i}");
                s
            })
            .collect()
    }

    fn shard_bytes() -> Vec<u8> {
        encode_shard(Path::new("x.shard"), "brandubh", &samples(5)).expect("encodes")
    }

    fn origin() -> PathBuf {
        PathBuf::from("dir/0001.shard")
    }

    /// Byte offset of the field after the variant name ("brandubh").
    const AFTER_NAME: usize = 8 + 4 + 4 + 8;

    #[test]
    fn bytes_round_trip() {
        let s = samples(5);
        let bytes = encode_shard(Path::new("x"), "brandubh", &s).expect("encodes");
        assert_eq!(&bytes[..8], b"TAVLSHRD");
        let shard = decode_shard(&bytes, &origin()).expect("decodes");
        assert_eq!(shard.variant, "brandubh");
        assert_eq!(shard.samples, s);
    }

    #[test]
    fn empty_shard_round_trips() {
        let bytes = encode_shard(Path::new("x"), "tablut", &[]).expect("encodes");
        let shard = decode_shard(&bytes, &origin()).expect("decodes");
        assert_eq!(shard.variant, "tablut");
        assert!(shard.samples.is_empty());
    }

    fn err(bytes: &[u8]) -> DataError {
        decode_shard(bytes, &origin()).expect_err("must be rejected")
    }

    #[test]
    fn each_defect_has_its_own_error() {
        let good = shard_bytes();
        assert!(matches!(
            err(&good[..good.len() - 1]),
            DataError::Truncated { .. }
        ));
        assert!(matches!(err(&good[..5]), DataError::Truncated { .. }));
        assert!(matches!(err(&good[..20]), DataError::Truncated { .. }));
        assert!(matches!(err(b""), DataError::Truncated { .. }));
        assert!(matches!(
            err(b"PK\x03\x04 a zip"),
            DataError::WrongMagic { .. }
        ));

        let mut v = good.clone();
        v[8] = 4;
        assert!(matches!(
            err(&v),
            DataError::FormatVersion {
                found: 4,
                expected: 3,
                ..
            }
        ));

        let mut flipped = good.clone();
        let mid = good.len() - 20;
        flipped[mid] ^= 0x10;
        assert!(matches!(err(&flipped), DataError::BadChecksum { .. }));

        let mut longer = good.clone();
        longer.push(0);
        assert!(matches!(err(&longer), DataError::Corrupt { .. }));
    }

    /// Rewrites a header field and the checksum, as a shard made by another build would be.
    fn resealed(mut bytes: Vec<u8>, at: usize, value: &[u8]) -> Vec<u8> {
        bytes[at..at + value.len()].copy_from_slice(value);
        let n = bytes.len() - 8;
        let format = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
        let sum = shard_checksum(format, &bytes[..n]);
        bytes[n..].copy_from_slice(&sum.to_le_bytes());
        bytes
    }

    #[test]
    fn other_encoding_version_is_named() {
        let v = resealed(shard_bytes(), AFTER_NAME, &7u32.to_le_bytes());
        let e = err(&v);
        assert!(
            matches!(e, DataError::EncodingVersion { found: 7, .. }),
            "{e}"
        );
        let text = e.to_string();
        assert!(
            text.contains("dir/0001.shard") && text.contains("encoding version 7"),
            "{text}"
        );
    }

    /// A shard written by the format-2 build (FNV-1a checksum): one pure-MCTS game of brandubh.
    #[test]
    fn format_2_shards_are_still_read_with_their_checksum() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shard-format-2.shard");
        let bytes = std::fs::read(&path).expect("fixture");
        assert_eq!(bytes[8..12], 2u32.to_le_bytes());
        let shard = read_shard(&path).expect("format 2 reads");
        assert_eq!(
            (shard.variant.as_str(), shard.samples.len()),
            ("brandubh", 5)
        );
        let v = Variant::load("brandubh").expect("preset");
        for s in &shard.samples {
            assert!(s.position(&v).is_ok() && !s.policy.is_empty());
        }
        // damage is caught by its FNV-1a checksum
        let mut flipped = bytes.clone();
        flipped[bytes.len() - 20] ^= 0x04;
        assert!(matches!(err(&flipped), DataError::BadChecksum { .. }));
        // and the format written now seals with XXH3
        let now = shard_bytes();
        let n = now.len() - 8;
        assert_eq!(
            now[n..],
            super::super::checksum::shard_checksum(3, &now[..n]).to_le_bytes()
        );
        assert_ne!(
            now[n..],
            super::super::checksum::fnv1a(&now[..n]).to_le_bytes()
        );
    }

    /// A shard written by the format-1 build (before samples recorded passes and occurrences):
    /// one pure-MCTS game of brandubh.
    #[test]
    fn format_1_shards_are_still_read() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/shard-format-1.shard");
        let shard = read_shard(&path).expect("format 1 reads");
        assert_eq!(shard.variant, "brandubh");
        assert_eq!(shard.samples.len(), 5);
        let v = Variant::load("brandubh").expect("preset");
        for s in &shard.samples {
            assert_eq!((s.passes, s.occurrences), (0, 1));
            let pos = s.position(&v).expect("a valid position");
            assert_eq!(pos.occurrences(), 1);
            assert!(!s.policy.is_empty());
        }
        // its header says encoding 1; a format-1 shard claiming encoding 2 is refused
        let bytes = std::fs::read(&path).expect("fixture");
        let at = 8 + 4 + 4 + "brandubh".len();
        let e = err(&resealed(bytes, at, &2u32.to_le_bytes()));
        assert!(
            matches!(
                e,
                DataError::EncodingVersion {
                    found: 2,
                    expected: 1,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn wrong_count_with_good_checksum_is_corrupt() {
        for count in [4u64, 6, u64::MAX] {
            let v = resealed(shard_bytes(), AFTER_NAME + 4, &count.to_le_bytes());
            assert!(
                matches!(err(&v), DataError::Corrupt { .. }),
                "count {count}"
            );
        }
    }

    #[test]
    fn messages_name_the_file() {
        let good = shard_bytes();
        for bytes in [&good[..30], &b"nonsense!"[..]] {
            let text = err(bytes).to_string();
            assert!(text.contains("dir/0001.shard"), "{text}");
        }
        assert!(err(&good[..30]).to_string().contains("truncated"));
    }

    #[test]
    fn write_is_atomic_and_reads_back() {
        let tmp = tempfile::tempdir().expect("dir");
        let dir = tmp.path();
        let path = dir.join("0001.shard");
        let s = samples(4);
        write_shard(&path, "brandubh", &s).expect("writes");
        assert!(!dir.join("0001.shard.tmp").exists());
        assert_eq!(read_shard(&path).expect("reads").samples, s);
        let missing = read_shard(&dir.join("none.shard")).expect_err("missing");
        assert!(missing.to_string().contains("none.shard"), "{missing}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = decode_shard(&bytes, &origin());
            let mut with_magic = MAGIC.to_vec();
            with_magic.extend_from_slice(&bytes);
            let _ = decode_shard(&with_magic, &origin());
        }

        #[test]
        fn truncation_is_always_reported(cut in 0usize..10_000) {
            let good = shard_bytes();
            let cut = cut % good.len();
            let e = decode_shard(&good[..cut], &origin()).expect_err("truncated");
            prop_assert!(matches!(e, DataError::Truncated { .. }), "{}", e);
        }

        #[test]
        fn any_bit_flip_is_rejected(byte in 0usize..10_000, bit in 0u8..8) {
            let mut bytes = shard_bytes();
            let at = byte % bytes.len();
            bytes[at] ^= 1 << bit;
            prop_assert!(decode_shard(&bytes, &origin()).is_err());
        }

        #[test]
        fn resealed_garbage_payload_never_panics(
            garbage in proptest::collection::vec(any::<u8>(), 0..300),
            count in 0u64..20,
        ) {
            // A valid header and checksum around a payload that is not samples.
            let mut bytes = encode_shard(Path::new("x"), "brandubh", &[]).expect("encodes");
            bytes.truncate(bytes.len() - 8 - 8 - 8);
            bytes.extend_from_slice(&count.to_le_bytes());
            bytes.extend_from_slice(&(garbage.len() as u64).to_le_bytes());
            bytes.extend_from_slice(&garbage);
            let sum = shard_checksum(FORMAT_VERSION, &bytes);
            bytes.extend_from_slice(&sum.to_le_bytes());
            let _ = decode_shard(&bytes, &origin());
        }
    }
}
