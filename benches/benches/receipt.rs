//! Chapter 5's workloads under criterion: `cargo bench -p benches --bench receipt`.
//!
//! `R2`: one pre-generated chunk of lines through each strategy, next to the two floors.
//! `R5`: the streaming strategy's cumulative stages over the same chunk, each with state of its
//! own (its own item cache), as the experiment runs them.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use receipt::STRATEGIES;
use receipt_chapter::workloads::{
    self, CHUNK_LINES, COPY_FLOOR, ChunkRunner, LINE_ENDS_FLOOR, Stage, Stages,
};

fn r2_strategies(c: &mut Criterion) {
    let input = workloads::chunk();
    let mut group = c.benchmark_group("R2");
    group.throughput(Throughput::Elements(CHUNK_LINES));
    for strategy in STRATEGIES {
        let mut runner = ChunkRunner::new(strategy);
        group.bench_function(strategy.name(), |b| {
            b.iter(|| runner.run::<0>(black_box(&input)))
        });
    }
    group.bench_function(LINE_ENDS_FLOOR, |b| {
        b.iter(|| workloads::line_ends::<0>(black_box(&input)))
    });
    let mut buf = Vec::new();
    group.bench_function(COPY_FLOOR, |b| {
        b.iter(|| workloads::copy_through::<0>(black_box(&input), &mut buf))
    });
    group.finish();
}

fn r5_stages(c: &mut Criterion) {
    let input = workloads::chunk();
    let mut group = c.benchmark_group("R5");
    group.throughput(Throughput::Elements(CHUNK_LINES));
    for stage in Stage::MEASURED {
        let mut stages = Stages::new();
        group.bench_function(stage.name(), |b| {
            b.iter(|| stages.run::<0>(stage, black_box(&input)))
        });
    }
    group.finish();
}

criterion_group!(benches, r2_strategies, r5_stages);
criterion_main!(benches);
