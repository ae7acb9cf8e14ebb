//! Shard checksums: XXH3-64 (format 3 on) against the byte-wise FNV-1a of formats 1 and 2, on
//! a buffer the size of a typical shard (1 MiB), in the same run.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use tavlei::data::checksum::shard_checksum;

fn checksums(c: &mut Criterion) {
    let bytes: Vec<u8> = (0..1u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let mut group = c.benchmark_group("shard_checksum");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    for (name, format) in [("fnv1a (format 2)", 2), ("xxh3 (format 3)", 3)] {
        group.bench_with_input(BenchmarkId::from_parameter(name), &format, |b, &format| {
            b.iter(|| shard_checksum(format, black_box(&bytes)))
        });
    }
    group.finish();
}

criterion_group!(benches, checksums);
criterion_main!(benches);
