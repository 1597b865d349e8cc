//! Chapter 4's workloads under criterion: `cargo bench -p benches --bench arena`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

fn a1_two_hundred_thousand_nodes(c: &mut Criterion) {
    let mut group = c.benchmark_group("A1");
    group.sample_size(20);
    // A1's round, and the arena kept and reset per run that A1-reuse adds.
    for way in arena_chapter::WAYS
        .into_iter()
        .chain([arena_chapter::ways::BUMP_RESET])
    {
        // Made outside the measured loop: the reused `Vec` (or arena) is reserved here, once.
        let mut runner = way.runner(arena_chapter::N);
        group.bench_function(way.name, |b| {
            b.iter(|| runner.run(black_box(arena_chapter::N)))
        });
    }
    group.finish();
}

fn a6_churn(c: &mut Criterion) {
    let mut group = c.benchmark_group("A6");
    group.sample_size(10);
    for way in arena_chapter::churn::CHURNS {
        group.bench_function(way.name, |b| {
            b.iter(|| {
                (way.run)(
                    black_box(arena_chapter::churn::CHURN_LIVE),
                    arena_chapter::churn::CHURN_STEPS,
                )
            })
        });
    }
    group.finish();
}

fn a4_bump_vector_growth(c: &mut Criterion) {
    let mut group = c.benchmark_group("A4");
    group.sample_size(20);
    group.bench_function("bump_vec_grown_alone", |b| {
        b.iter(|| arena_chapter::growth::bump_vec_grown_alone(black_box(arena_chapter::N)))
    });
    group.bench_function("bump_vec_grown_with_a_neighbour", |b| {
        b.iter(|| {
            arena_chapter::growth::bump_vec_grown_with_a_neighbour(black_box(arena_chapter::N))
        })
    });
    group.bench_function("bump_vec_grown_across_chunks", |b| {
        b.iter(|| arena_chapter::growth::bump_vec_grown_across_chunks(black_box(arena_chapter::N)))
    });
    group.finish();
}

criterion_group!(
    benches,
    a1_two_hundred_thousand_nodes,
    a4_bump_vector_growth,
    a6_churn
);
criterion_main!(benches);
