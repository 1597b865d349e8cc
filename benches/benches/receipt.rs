//! Chapter 5's strategies under criterion: `cargo bench -p benches --bench receipt`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use receipt::{Processor, STRATEGIES};

fn r2_strategies(c: &mut Criterion) {
    let input = receipt::generate::generated(10_000, 7);
    let mut group = c.benchmark_group("R2");
    for strategy in STRATEGIES {
        let mut processor = Processor::new(strategy);
        group.bench_function(strategy.name(), |b| {
            b.iter(|| {
                processor
                    .run(
                        black_box(&input),
                        &mut std::io::sink(),
                        &mut std::io::sink(),
                    )
                    .map(|s| s.printed)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, r2_strategies);
criterion_main!(benches);
