//! Time per buffer by size (P10): one interleaved run per size, a log-scale figure of all of
//! them, the crossover with a fresh buffer under each allocator, and seed 003's question at its
//! own sizes (P10-seed).

use std::hint::black_box;

use lab::plot::{Plot, Series};
use lab::protocol::Allocator;
use lab::report::{Function, Run};
use lab::table::Columns;
use lab::timing::{BySize, Measured, Schedule, Timing};
use lab::{Cell, Kind, Table};
use pool::shared;

use super::{bytes, bytes_label, warm};
use crate::workloads::{self, P10_SIZES};

pub(super) const P10: Function = lab::function!(p10_by_size);

pub(super) const FRESH: &str = "fresh `vec![0u8; n]`";
pub(super) const SHARED: &str = "`pool.rent(n)` (`pool::shared()`)";
const SIZED: &str = "pool sized for n";

/// Seed 003's figures at one size: allocate, rent and return on `Shared`, and which it found
/// faster, in its own words.
struct SeedSize {
    n: usize,
    allocate: &'static str,
    shared: &'static str,
    faster: &'static str,
}

const SEED: [SeedSize; 4] = [
    SeedSize {
        n: 100,
        allocate: "8.078 ns",
        shared: "44.219 ns",
        faster: "allocation",
    },
    SeedSize {
        n: 1000,
        allocate: "41.330 ns",
        shared: "43.739 ns",
        faster: "about the same",
    },
    SeedSize {
        n: 10_000,
        allocate: "374.564 ns",
        shared: "44.223 ns",
        faster: "the pool",
    },
    SeedSize {
        n: 100_000,
        allocate: "3,637.110 ns",
        shared: "46.649 ns",
        faster: "the pool",
    },
];

fn time_size(run: &Run, size: usize) -> Measured {
    let sized = workloads::pool_sized_for(size);
    let pool = shared();
    warm(&sized, size);
    warm(pool, size);
    // One callgrind child per copy and size would add minutes; P10-hit counts the 8 KiB case.
    let mut timing = Timing::new(run.config().without_instructions());
    let sized = &sized;
    // Two closures per method, one per copy (see P10-hit).
    let (a, b) = lab::twins!(move || workloads::fresh_touch(black_box(size)));
    timing.method_pair(FRESH, a, b);
    let (a, b) = lab::twins!(move || workloads::rent_touch(pool, black_box(size)));
    timing.method_pair(SHARED, a, b);
    let (a, b) = lab::twins!(move || workloads::rent_touch(sized, black_box(size)));
    timing.method_pair(SIZED, a, b);
    let mut existing = vec![0u8; size];
    timing.floor("touch an existing buffer", move || {
        workloads::touch(&mut existing)
    });
    timing.run(Schedule::Interleaved)
}

fn p10_by_size(run: &Run) -> Vec<Table> {
    let runs = run.time_by_size(&P10_SIZES, |size| time_size(run, size));
    let mimalloc = BySize::under(&runs, Allocator::Mimalloc);
    let on_mimalloc = |s: &BySize, name: &str| {
        s.m.under(Allocator::Mimalloc)
            .map_or(Cell::Empty, |mm| mm.expect(name).median_cell())
    };
    let mut table = run.own(
        Columns::new()
            .col("n bytes", |s: &BySize| Cell::count(s.size))
            .col("fresh", |s: &BySize| s.m.expect(FRESH).median_cell())
            .col("`pool::shared()`", |s: &BySize| {
                s.m.expect(SHARED).median_cell()
            })
            .col("shared pool / fresh", |s: &BySize| {
                s.m.ratio_cell(SHARED, FRESH)
            })
            .col_if(mimalloc.is_some(), "fresh, mimalloc", |s: &BySize| {
                on_mimalloc(s, FRESH)
            })
            .col_if(
                mimalloc.is_some(),
                "`pool::shared()`, mimalloc",
                |s: &BySize| on_mimalloc(s, SHARED),
            )
            .col("largest twin disagreement", |s: &BySize| {
                s.m.worst_twin_cell()
            })
            .col("between processes", |s: &BySize| s.m.worst_spread_cell())
            .table("P10", Kind::Time, "", &runs),
    );
    table.note(runs[0].m.protocol_note());
    table.note("Every size is its own interleaved run with its own calibration (the line above is the first size's): a fresh buffer, the shared pool, a pool sized for n (seed 003's `ArrayPool.Create(n + 1, 10)`) and a floor that touches an existing buffer of that size, each with its twin. Every buffer gets the same touch: write the first and last byte, read them back. Both pools are warm. No instruction counts: P10-hit counts the 8 KiB case.");
    table.note(format!("Up to {} bytes a rent is the hit path, served from the thread's own cache; above it (the 10,000,000-byte row) threads do not cache, so a warm rent takes the buffer from its bucket's shared stack, behind that stack's lock.", lab::fmt::thousands(shared().largest_cached_bucket() as u64)));
    table.note(bytes_note());
    table.note("The pool sized for n is drawn in the figure below the table rather than printed; the last conclusion compares it with the shared pool. The mimalloc columns are the same runs in processes of `pool-experiments-mimalloc`; X1-pool draws the conclusion for each size.");
    let all: Vec<&BySize> = runs.iter().collect();
    table.conclude(
        "under glibc, the size from which a warm rent from the shared pool is faster than a fresh `vec![0u8; n]`, and stays faster at every larger size measured (seed 003: from 10,000 B; at 1,000 B it found the two about the same)",
        BySize::crossover_claim(&all, SHARED, FRESH, bytes_label),
    );
    if let Some(mm) = &mimalloc {
        let all: Vec<&BySize> = mm.iter().collect();
        table.conclude(
            "under mimalloc, the same crossover",
            BySize::crossover_claim(&all, SHARED, FRESH, bytes_label),
        );
    }
    table.conclude(
        "under glibc, the sizes at which a fresh `vec![0u8; n]` is faster than a warm rent from the shared pool (seed 003: 100 B)",
        BySize::sizes_where_faster(&all, FRESH, SHARED, bytes_label),
    );
    table.conclude(
        "under glibc, the sizes at which the pool sized for n is faster than the shared pool",
        BySize::sizes_where_faster(&all, SIZED, SHARED, bytes_label),
    );
    table.plots.push(plot(&runs, mimalloc.as_deref()));
    vec![table, p10_seed(&runs)]
}

/// "Bytes per operation, counted": a fresh buffer allocates its n bytes, a warm pool nothing.
fn bytes_note() -> String {
    let pool = shared();
    let off: Vec<String> = P10_SIZES
        .iter()
        .filter(|&&n| {
            warm(pool, n);
            bytes(|| workloads::fresh_touch(n)) != n as u64
                || bytes(|| workloads::rent_touch(pool, n)) != 0
        })
        .map(|&n| bytes_label(n))
        .collect();
    let rule = "Bytes per operation, counted: a fresh buffer allocates exactly its n bytes, a rent from the warm shared pool 0 B";
    if off.is_empty() {
        format!("{rule}, at every size.")
    } else {
        format!("{rule}, except at {}.", off.join(", "))
    }
}

fn plot(runs: &[BySize], mimalloc: Option<&[BySize]>) -> Plot {
    let series = |name: &str, runs: &[BySize], method: &str| Series {
        name: name.to_owned(),
        points: runs
            .iter()
            .map(|s| (s.size as f64, s.m.expect(method).median_ns()))
            .collect(),
    };
    let mut lines = vec![
        series("fresh vec![0u8; n], glibc", runs, FRESH),
        series("pool::shared(), glibc", runs, SHARED),
        series("pool sized for n, glibc", runs, SIZED),
    ];
    if let Some(mm) = mimalloc {
        lines.push(series("fresh vec![0u8; n], mimalloc", mm, FRESH));
        lines.push(series("pool::shared(), mimalloc", mm, SHARED));
    }
    Plot {
        file: "p10-by-size".into(),
        title:
            "Time per buffer by size: a fresh buffer vs a warm rent from the pool (median over processes)"
                .into(),
        x_label: "n bytes (log scale)".into(),
        y_label: "ns per operation (log scale)".into(),
        log_x: true,
        log_y: true,
        series: lines,
    }
}

/// Seed 003's question at its own sizes: which was faster here, beside what it found.
fn p10_seed(runs: &[BySize]) -> Table {
    type Row<'a> = (&'a BySize, &'a SeedSize);
    let rows: Vec<Row<'_>> = SEED
        .iter()
        .filter_map(|seed| runs.iter().find(|s| s.size == seed.n).map(|s| (s, seed)))
        .collect();
    let mut table = Columns::new()
        .col("n bytes", |(s, _): &Row<'_>| Cell::count(s.size))
        .col(
            "faster here, under glibc: the shared pool or a fresh buffer?",
            |(s, _): &Row<'_>| Cell::Claim(s.m.faster_of(SHARED, "the pool", FRESH, "allocation")),
        )
        .col("seed: allocate", |(_, seed): &Row<'_>| {
            Cell::Seed(seed.allocate.into())
        })
        .col("seed: rent and return (`Shared`)", |(_, seed): &Row<'_>| {
            Cell::Seed(seed.shared.into())
        })
        .col("seed: faster", |(_, seed): &Row<'_>| {
            Cell::Seed(seed.faster.into())
        })
        .table(
            "P10-seed",
            Kind::Time,
            "Seed 003's question at its own sizes: the pool or a fresh allocation?",
            &rows,
        );
    table.note(runs[0].m.protocol_note());
    table.note("Each verdict here is reached in every process of P10's run at that size, or the cell says the processes did not agree. The seed's figures are from one BenchmarkDotNet run on another machine and runtime, with .NET's allocator, whose gen-0 allocation is a pointer bump paid for later by the collector; compare which one wins, not the nanoseconds.");
    table.note("*Italic*: seed `003`'s figures (machine under *Sources*).");
    table
}
