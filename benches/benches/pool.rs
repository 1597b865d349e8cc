//! Chapter 3's workloads under criterion: `cargo bench -p benches --bench pool`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use pool_chapter::workloads::{
    self, CONTENTION_OPS, CONTENTION_THREADS, Contender, Contenders, ContentionWorkers, FIRST_LINE,
    HANDOFF_ITEMS, HANDOFF_PAIRS, HIT_BYTES, Handoff, HandoffWorkers, P10_SIZES, P13_SIZES,
    SMALL_ROOM, Source, WRITE_ROOM,
};

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

/// P10: the experiment's sizes (`workloads::P10_SIZES`), each with its three baselines (one
/// reused `Vec`, a fresh unzeroed buffer, a fresh zeroed one), the shared pool taken once, as
/// the experiment does, and a pool sized for the request.
fn p10_by_size(c: &mut Criterion) {
    let mut group = c.benchmark_group("P10");
    let shared = pool::shared();
    for size in P10_SIZES {
        let sized = workloads::pool_sized_for(size);
        let mut reused = Vec::with_capacity(size);
        group.bench_with_input(BenchmarkId::new("reused", size), &size, |b, &n| {
            b.iter(|| workloads::reused_touch(&mut reused, black_box(n)))
        });
        group.bench_with_input(BenchmarkId::new("unzeroed", size), &size, |b, &n| {
            b.iter(|| workloads::unzeroed_touch(black_box(n)))
        });
        group.bench_with_input(BenchmarkId::new("fresh", size), &size, |b, &n| {
            b.iter(|| workloads::fresh_touch(black_box(n)))
        });
        group.bench_with_input(BenchmarkId::new("shared", size), &size, |b, &n| {
            b.iter(|| workloads::rent_touch(shared, black_box(n)))
        });
        group.bench_with_input(BenchmarkId::new("sized", size), &size, |b, &n| {
            b.iter(|| workloads::rent_touch(&sized, black_box(n)))
        });
    }
    group.bench_function("uninit_stack_8k", |b| {
        b.iter(workloads::uninit_stack_touch::<HIT_BYTES>)
    });
    group.bench_function("zeroed_stack_8k", |b| {
        b.iter(workloads::zeroed_stack_touch::<HIT_BYTES>)
    });
    group.finish();
}

/// P12: one iteration is one run, as in the experiment: each worker does `CONTENTION_OPS`
/// operations at once; spawning is outside it (the workers wait between runs).
fn p12_contention(c: &mut Criterion) {
    let mut group = c.benchmark_group("P12");
    for threads in CONTENTION_THREADS {
        let workers = ContentionWorkers::new(threads);
        for source in Source::ALL {
            workers.run(source, CONTENTION_OPS); // warm-up: each worker's cache and first buffer
            let id = BenchmarkId::new(format!("{source:?}"), threads);
            group.bench_function(id, |b| {
                b.iter(|| workers.run(source, CONTENTION_OPS).total_ops())
            });
        }
    }
    group.finish();
}

/// P12-handoff: one iteration is one run, as in the experiment: each producer sends
/// `HANDOFF_ITEMS` items to its consumer; spawning is outside it.
fn p12_handoff(c: &mut Criterion) {
    let mut group = c.benchmark_group("P12-handoff");
    for pairs in HANDOFF_PAIRS {
        let workers = HandoffWorkers::new(pairs);
        for source in Handoff::ALL {
            workers.run(source, HANDOFF_ITEMS); // warm-up
            let id = BenchmarkId::new(format!("{source:?}"), 2 * pairs);
            group.bench_function(id, |b| {
                b.iter(|| workers.run(source, HANDOFF_ITEMS).total_items())
            });
        }
    }
    group.finish();
}

/// P13: the same rent, touch and give-back with the pool crates a Rust user would pick.
fn p13_other_pools(c: &mut Criterion) {
    let mut group = c.benchmark_group("P13");
    for n in P13_SIZES {
        let mut contenders = Contenders::new(n);
        for contender in Contender::ALL {
            let id = BenchmarkId::new(format!("{contender:?}"), n);
            group.bench_function(id, |b| b.iter(|| contenders.run(contender)));
        }
    }
    group.finish();
}

/// P14: the order line written with `writeln!` into a rented buffer that grows, one reused
/// `Vec` and a fresh one.
fn p14_write(c: &mut Criterion) {
    let mut group = c.benchmark_group("P14");
    let shared = pool::shared();
    let mut reused = Vec::with_capacity(WRITE_ROOM);
    group.bench_function("reused", |b| {
        b.iter(|| workloads::write_reused(&mut reused))
    });
    for room in [WRITE_ROOM, SMALL_ROOM] {
        group.bench_function(BenchmarkId::new("rent_buf", room), |b| {
            b.iter(|| workloads::write_rented(shared, black_box(room)))
        });
    }
    group.bench_function("fresh", |b| b.iter(workloads::write_fresh));
    group.finish();
}

criterion_group!(
    benches,
    p1_one_line,
    p10_by_size,
    p12_contention,
    p12_handoff,
    p13_other_pools,
    p14_write
);
criterion_main!(benches);
