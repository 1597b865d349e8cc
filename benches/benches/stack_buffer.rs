//! Chapter 2's workloads under criterion: `cargo bench -p benches --bench stack_buffer`.
//! Each measured function is called as its first copy (`f::<0>`); the report's twins call the
//! second.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use stack_buffer::{MAX_STACK_ITEMS, Scratch};
use stack_buffer_chapter::{heap, workloads};

fn s1_reach_a_buffer(c: &mut Criterion) {
    let mut group = c.benchmark_group("S1");
    for n in workloads::S1_ITEMS {
        drop(stack_buffer::scratch_pool().rent(2 * n)); // warm: the pool's hit path
        let mut mine = Vec::with_capacity(2 * n); // the caller's own, outside the loop
        group.bench_function(BenchmarkId::new("reused", n), |b| {
            b.iter(|| workloads::s1_reused::<0>(&mut mine, black_box(n)))
        });
        group.bench_function(BenchmarkId::new("heap, not zeroed", n), |b| {
            b.iter(|| workloads::s1_heap_uninit::<0>(black_box(n)))
        });
        group.bench_function(BenchmarkId::new("heap", n), |b| {
            b.iter(|| workloads::s1_heap::<0>(black_box(n)))
        });
        if n <= MAX_STACK_ITEMS {
            group.bench_function(BenchmarkId::new("stack", n), |b| {
                b.iter(|| workloads::s1_stack::<0>(black_box(n)))
            });
            group.bench_function(BenchmarkId::new("stack, not zeroed", n), |b| {
                b.iter(|| workloads::s1_stack_uninit::<0>(black_box(n)))
            });
        }
        group.bench_function(BenchmarkId::new("pool", n), |b| {
            b.iter(|| workloads::s1_pool::<0>(black_box(n)))
        });
    }
    group.finish();
}

fn s3_factorial(c: &mut Criterion) {
    let mut group = c.benchmark_group("S3");
    for (bytes, zeroed, uninit) in workloads::HEAP_SIZES {
        for f in [zeroed, uninit] {
            group.bench_function(BenchmarkId::new(f.name, bytes), |b| b.iter(f.copies[0]));
        }
    }
    for (bytes, reused) in workloads::REUSED_SIZES {
        let mut mine = Vec::with_capacity(bytes / 8); // the caller's own, outside the loop
        group.bench_function(BenchmarkId::new(reused.name, bytes), |b| {
            b.iter(|| reused.copies[0](&mut mine))
        });
    }
    group.finish();
}

fn s7_pack_boxes(c: &mut Criterion) {
    let mut group = c.benchmark_group("S7");
    for n in workloads::S7_ITEMS {
        let order = workloads::s7_order(n);
        let mut mine = Vec::with_capacity(2 * n); // the caller's own, outside the loop
        group.bench_function(BenchmarkId::new("reused", n), |b| {
            b.iter(|| workloads::reuse_copy::<0>(black_box(&order), &mut mine))
        });
        group.bench_function(BenchmarkId::new("fresh", n), |b| {
            b.iter(|| workloads::fresh_copy::<0>(black_box(&order)))
        });
        for strategy in Scratch::ALL {
            group.bench_function(BenchmarkId::new(format!("{strategy:?}"), n), |b| {
                b.iter(|| workloads::pack_copy::<0>(black_box(&order), strategy))
            });
        }
    }
    group.finish();
}

fn s3_around_the_cache_limit(c: &mut Criterion) {
    let mut group = c.benchmark_group("S3-heap");
    for bytes in heap::AROUND_THE_CACHE_LIMIT {
        group.bench_function(BenchmarkId::new("malloc_free", bytes), |b| {
            b.iter(|| heap::malloc_free::<0>(black_box(bytes)))
        });
        group.bench_function(BenchmarkId::new("calloc_free", bytes), |b| {
            b.iter(|| heap::calloc_free::<0>(black_box(bytes)))
        });
    }
    group.finish();
}

fn s4_s5_stack_sizes(c: &mut Criterion) {
    let mut group = c.benchmark_group("S5");
    for (bytes, zeroed, uninit) in workloads::STACK_SIZES {
        for f in [zeroed, uninit] {
            group.bench_function(BenchmarkId::new(f.name, bytes), |b| b.iter(f.copies[0]));
        }
    }
    group.finish();
}

fn s12_smallvec_vs_hybrid(c: &mut Criterion) {
    let mut group = c.benchmark_group("S12");
    for n in workloads::S12_ITEMS {
        group.bench_function(BenchmarkId::new("SmallVec<[f64; 256]>", n), |b| {
            b.iter(|| workloads::s12_smallvec_256::<0>(black_box(n)))
        });
        group.bench_function(BenchmarkId::new("SmallVec<[f64; 32]>", n), |b| {
            b.iter(|| workloads::s12_smallvec_32::<0>(black_box(n)))
        });
        group.bench_function(BenchmarkId::new("hybrid", n), |b| {
            b.iter(|| workloads::s12_hybrid::<0>(black_box(n)))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    s1_reach_a_buffer,
    s3_factorial,
    s3_around_the_cache_limit,
    s4_s5_stack_sizes,
    s7_pack_boxes,
    s12_smallvec_vs_hybrid
);
criterion_main!(benches);
