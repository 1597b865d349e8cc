//! Chapter 2's workloads under criterion: `cargo bench -p benches --bench stack_buffer`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use stack_buffer::{AIR_FACTOR, BOX_KG, Scratch, generate_order, pack_boxes, workloads};

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
    let order = generate_order(100, 42);
    for strategy in [
        Scratch::Heap,
        Scratch::Pool,
        Scratch::Stack,
        Scratch::StackUninit,
        Scratch::Hybrid,
    ] {
        group.bench_function(format!("{strategy:?}"), |b| {
            b.iter(|| pack_boxes(black_box(&order), BOX_KG, AIR_FACTOR, strategy))
        });
    }
    group.finish();
}

criterion_group!(benches, s3_factorial, s7_pack_boxes);
criterion_main!(benches);
