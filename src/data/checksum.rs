//! Shard checksums. They detect accidental damage (truncation, flipped bits), not tampering.
//! Formats 1 and 2 used 64-bit FNV-1a, which hashes a byte at a time; format 3 on uses XXH3-64,
//! many times faster on large shards and better mixed. Old shards are checked with their own.

const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// The first shard format whose checksum is XXH3-64.
pub const XXH3_FROM_FORMAT: u32 = 3;

/// The checksum a shard of `format` stores after `bytes`.
pub fn shard_checksum(format: u32, bytes: &[u8]) -> u64 {
    if format >= XXH3_FROM_FORMAT {
        xxhash_rust::xxh3::xxh3_64(bytes)
    } else {
        fnv1a(bytes)
    }
}

/// How stores and manifests name a file's contents: `xxh3:` and the XXH3-64 of its bytes in
/// hex (a network retrained under the same path gets another name).
pub fn content_hash(bytes: &[u8]) -> String {
    format!("xxh3:{:016x}", xxhash_rust::xxh3::xxh3_64(bytes))
}

/// The FNV-1a hash of `bytes` (the checksum of formats 1 and 2).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV_OFFSET_BASIS, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(FNV_PRIME)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_published_test_vectors() {
        // FNV: the reference vectors of Fowler, Noll and Vo; XXH3: the empty input of the
        // xxHash reference.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(shard_checksum(3, b""), 0x2d06_8005_38d3_94c2);
    }

    #[test]
    fn each_format_uses_its_own_checksum() {
        let bytes = b"TAVLSHRD and some payload";
        assert_eq!(shard_checksum(1, bytes), fnv1a(bytes));
        assert_eq!(shard_checksum(2, bytes), fnv1a(bytes));
        assert_ne!(shard_checksum(3, bytes), fnv1a(bytes));
        // one flipped bit anywhere changes it
        for i in 0..bytes.len() {
            let mut flipped = *bytes;
            flipped[i] ^= 1;
            assert_ne!(
                shard_checksum(3, &flipped),
                shard_checksum(3, bytes),
                "byte {i}"
            );
        }
    }
}
