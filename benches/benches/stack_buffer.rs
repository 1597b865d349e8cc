//! Chapter 2's workloads under criterion: `cargo bench -p benches --bench stack_buffer`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use stack_buffer::{AIR_FACTOR, BOX_KG, MAX_STACK_ITEMS, Scratch, heap, pack_boxes, workloads};

fn s1_reach_a_buffer(c: &mut Criterion) {
    let mut group = c.benchmark_group("S1");
    for n in workloads::S1_ITEMS {
        drop(stack_buffer::scratch_pool().rent(2 * n)); // warm: the pool's hit path
        group.bench_function(BenchmarkId::new("heap", n), |b| {
            b.iter(|| workloads::s1_heap(black_box(n)))
        });
        if n <= MAX_STACK_ITEMS {
            group.bench_function(BenchmarkId::new("stack", n), |b| {
                b.iter(|| workloads::s1_stack(black_box(n)))
            });
        }
        group.bench_function(BenchmarkId::new("pool", n), |b| {
            b.iter(|| workloads::s1_pool(black_box(n)))
        });
    }
    group.finish();
}

fn s3_factorial(c: &mut Criterion) {
    let mut group = c.benchmark_group("S3");
    for (bytes, fns) in workloads::S3 {
        for (name, f) in fns {
            group.bench_function(BenchmarkId::new(name, bytes), |b| b.iter(f));
        }
    }
    group.finish();
}

fn s7_pack_boxes(c: &mut Criterion) {
    let mut group = c.benchmark_group("S7");
    let order = workloads::s7_order();
    for strategy in Scratch::ALL {
        group.bench_function(format!("{strategy:?}"), |b| {
            b.iter(|| pack_boxes(black_box(&order), BOX_KG, AIR_FACTOR, strategy))
        });
    }
    group.finish();
}

fn s3_around_the_cache_limit(c: &mut Criterion) {
    let mut group = c.benchmark_group("S3-heap");
    for bytes in heap::AROUND_THE_CACHE_LIMIT {
        group.bench_function(BenchmarkId::new("malloc_free", bytes), |b| {
            b.iter(|| heap::malloc_free(black_box(bytes)))
        });
    }
    group.finish();
}

fn s4_around_the_memset_limit(c: &mut Criterion) {
    let mut group = c.benchmark_group("S4");
    for (bytes, name, f) in workloads::S4_ZEROED {
        group.bench_function(BenchmarkId::new(name, bytes), |b| b.iter(f));
    }
    group.finish();
}

fn s12_smallvec_vs_hybrid(c: &mut Criterion) {
    let mut group = c.benchmark_group("S12");
    for n in workloads::S12_ITEMS {
        group.bench_function(BenchmarkId::new("SmallVec<[f64; 256]>", n), |b| {
            b.iter(|| workloads::s12_smallvec_256(black_box(n)))
        });
        group.bench_function(BenchmarkId::new("SmallVec<[f64; 32]>", n), |b| {
            b.iter(|| workloads::s12_smallvec_32(black_box(n)))
        });
        group.bench_function(BenchmarkId::new("hybrid", n), |b| {
            b.iter(|| workloads::s12_hybrid(black_box(n)))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    s1_reach_a_buffer,
    s3_factorial,
    s3_around_the_cache_limit,
    s4_around_the_memset_limit,
    s7_pack_boxes,
    s12_smallvec_vs_hybrid
);
criterion_main!(benches);
