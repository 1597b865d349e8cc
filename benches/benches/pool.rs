//! Chapter 3's workloads under criterion: `cargo bench -p benches --bench pool`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use pool::workloads::{self, Contender, Contenders, ContentionWorkers, FIRST_LINE, Source};
use pool::{BufferPool, PoolConfig};

fn p1_one_line(c: &mut Criterion) {
    let mut group = c.benchmark_group("P1");
    let shared = pool::shared();
    group.bench_function("fresh", |b| {
        b.iter(|| workloads::line_fresh(black_box(FIRST_LINE)))
    });
    group.bench_function("pooled", |b| {
        b.iter(|| workloads::line_pooled(shared, black_box(FIRST_LINE)))
    });
    group.bench_function("stack", |b| {
        b.iter(|| workloads::line_stack(black_box(FIRST_LINE)))
    });
    group.finish();
}

fn p10_by_size(c: &mut Criterion) {
    let mut group = c.benchmark_group("P10");
    for size in [100usize, 1000, 8192, 100_000, 1_000_000] {
        let sized = BufferPool::<u8>::new(PoolConfig {
            max_len: size,
            max_per_bucket: 10,
            ..PoolConfig::default()
        });
        group.bench_with_input(BenchmarkId::new("fresh", size), &size, |b, &n| {
            b.iter(|| workloads::fresh_touch(black_box(n)))
        });
        group.bench_with_input(BenchmarkId::new("shared", size), &size, |b, &n| {
            b.iter(|| workloads::rent_touch(pool::shared(), black_box(n)))
        });
        group.bench_with_input(BenchmarkId::new("sized", size), &size, |b, &n| {
            b.iter(|| workloads::rent_touch(&sized, black_box(n)))
        });
    }
    group.bench_function("uninit_stack_8k", |b| {
        b.iter(workloads::uninit_stack_touch::<8192>)
    });
    group.finish();
}

/// P12: one iteration is one operation on each worker thread, all at once; the time is the wall
/// time of the whole run (spawning is outside it: the workers wait between runs).
fn p12_contention(c: &mut Criterion) {
    let mut group = c.benchmark_group("P12");
    for threads in [1usize, 2, 4] {
        let workers = ContentionWorkers::new(threads);
        for source in Source::ALL {
            workers.run(source, 100); // warm-up: each worker's cache and first buffer
            let id = BenchmarkId::new(format!("{source:?}"), threads);
            group.bench_function(id, |b| {
                b.iter_custom(|iters| workers.run(source, iters).wall)
            });
        }
    }
    group.finish();
}

/// P13: the same rent, touch and give-back with the pool crates a Rust user would pick.
fn p13_other_pools(c: &mut Criterion) {
    let mut group = c.benchmark_group("P13");
    for n in [128usize, workloads::HIT_BYTES] {
        let mut contenders = Contenders::new(n);
        for contender in Contender::ALL {
            let id = BenchmarkId::new(format!("{contender:?}"), n);
            group.bench_function(id, |b| b.iter(|| contenders.run(contender)));
        }
    }
    group.finish();
}

criterion_group!(
    benches,
    p1_one_line,
    p10_by_size,
    p12_contention,
    p13_other_pools
);
criterion_main!(benches);
