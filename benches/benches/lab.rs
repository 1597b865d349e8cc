//! Chapter 1's workloads under criterion: `cargo bench -p benches --bench lab`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use lab_chapter::workloads;

fn m1_familiar_allocations(c: &mut Criterion) {
    let mut group = c.benchmark_group("M1");
    group.bench_function("box_u64", |b| b.iter(workloads::box_u64));
    group.bench_function("vec_with_capacity_128", |b| {
        b.iter(workloads::vec_with_capacity_128)
    });
    group.bench_function("thai_string", |b| b.iter(workloads::thai_string));
    group.bench_function("format_order_line", |b| {
        b.iter(workloads::format_order_line)
    });
    group.bench_function("push_u64_200k", |b| {
        b.iter(|| workloads::push_u64(black_box(workloads::PUSHES)))
    });
    group.finish();
}

criterion_group!(benches, m1_familiar_allocations);
criterion_main!(benches);
