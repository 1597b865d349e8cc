//! Time per buffer by size (P10): one interleaved run per size, set against three baselines
//! (one reused `Vec`, a fresh unzeroed buffer, a fresh zeroed one), the same runs under mimalloc
//! (P10-mimalloc), a log-scale figure of all of them, the crossover with a fresh buffer under each
//! allocator, and seed 003's question at its own sizes (P10-seed).

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

pub(super) const REUSED: &str = "one reused `Vec<u8>` (`clear()` per use)";
pub(super) const UNZEROED: &str = "fresh, unzeroed `Vec::with_capacity(n)`";
pub(super) const FRESH: &str = "fresh, zeroed `vec![0u8; n]`";
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
    // Each copy of the reused buffer owns its own `Vec`, made once, here.
    let (mut a_buf, mut b_buf) = (Vec::with_capacity(size), Vec::with_capacity(size));
    timing.method_pair(
        REUSED,
        move || workloads::reused_touch(&mut a_buf, black_box(size)),
        move || workloads::reused_touch(&mut b_buf, black_box(size)),
    );
    // Two closures per method, one per copy (see P10-hit).
    let (a, b) = lab::twins!(move || workloads::unzeroed_touch(black_box(size)));
    timing.method_pair(UNZEROED, a, b);
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

/// P10's columns, for the runs under one allocator: the three baselines, the shared pool, and
/// the pool's ratio to the fair fresh buffer, the unzeroed one.
fn columns<'a>() -> Columns<'a, BySize> {
    Columns::new()
        .col("n bytes", |s: &BySize| Cell::count(s.size))
        .col("reused `Vec`", |s: &BySize| {
            s.measured.expect(REUSED).median_cell()
        })
        .col("fresh, unzeroed", |s: &BySize| {
            s.measured.expect(UNZEROED).median_cell()
        })
        .col("fresh, zeroed (`vec!`)", |s: &BySize| {
            s.measured.expect(FRESH).median_cell()
        })
        .col("`pool::shared()`", |s: &BySize| {
            s.measured.expect(SHARED).median_cell()
        })
        .col("shared pool / unzeroed", |s: &BySize| {
            s.measured.ratio_cell(SHARED, UNZEROED)
        })
}

/// The largest twin disagreement and between-process spread of any method at any size, in one
/// sentence (the by-size tables have no room for a column of each).
fn noise_note(runs: &[BySize]) -> String {
    let worst = |f: fn(&Measured) -> f64| {
        runs.iter()
            .map(|s| (f(&s.measured), s.size))
            .fold((0.0f64, 0), |a, b| if b.0 > a.0 { b } else { a })
    };
    let (twin, twin_at) = worst(Measured::worst_twin_pct);
    let mut note = format!(
        "Noise, over every method and size: the largest twin disagreement is {} (at {})",
        Cell::Percent(twin).render(),
        bytes_label(twin_at)
    );
    if runs[0].measured.process_count() > 1 {
        let (spread, spread_at) = worst(Measured::worst_spread_pct);
        note.push_str(&format!(
            ", the largest spread between processes {} (at {})",
            Cell::Percent(spread).render(),
            bytes_label(spread_at)
        ));
    }
    note.push('.');
    note
}

fn p10_by_size(run: &Run) -> Vec<Table> {
    let runs = run.time_by_size(&P10_SIZES, |size| time_size(run, size));
    let mimalloc = BySize::under(&runs, Allocator::Mimalloc);
    let mut table = run.own(columns().table("P10", Kind::Time, "", &runs));
    table.note(runs[0].measured.protocol_note());
    table.note(format!("Each size is its own run. Every buffer gets the same touch (first and last byte written, then read). The shared pool and the pool sized for n (drawn in the figure) are warm: up to {} B a rent is served from the thread's own cache, above it (the last row) from its bucket's shared stack, behind a lock. The touch writes two bytes, so a fresh buffer's cost here is its allocation and at most two first-touched pages: a program that writes all n bytes of a fresh large buffer also pays a page fault for every page it first writes, which a warm buffer, already written, does not; P10 does not time that.", lab::fmt::thousands(shared().largest_cached_bucket() as u64)));
    table.note(bytes_note());
    table.note(noise_note(&runs));
    table.note("The ratio is taken against the unzeroed buffer, since a rent zeroes nothing. A pool sized for n (seed 003's `ArrayPool.Create(n + 1, 10)`) is drawn in the figure, not printed. The same runs under mimalloc: P10-mimalloc, in the appendix.");
    table.note("seed 003: the pool faster than `new byte[n]` (zeroed) from 10,000 B, allocation faster at 100 B (Core i7-6600U, .NET Core 2.0 preview); here: the crossover against `vec![0u8; n]` below.");
    let all: Vec<&BySize> = runs.iter().collect();
    table.conclude(
        "under glibc, the sizes at which a warm rent beats a fresh, unzeroed `Vec::with_capacity(n)`",
        BySize::sizes_where_faster(&all, SHARED, UNZEROED, bytes_label),
    );
    table.conclude(
        "under glibc, the sizes at which a fresh, unzeroed `Vec::with_capacity(n)` beats a warm rent",
        BySize::sizes_where_faster(&all, UNZEROED, SHARED, bytes_label),
    );
    table.conclude(
        "under glibc, the sizes at which one reused `Vec` beats a warm rent",
        BySize::sizes_where_faster(&all, REUSED, SHARED, bytes_label),
    );
    table.conclude(
        "under glibc, the sizes at which a warm rent is measurably faster than one reused `Vec`",
        BySize::sizes_where_faster(&all, SHARED, REUSED, bytes_label),
    );
    table.conclude(
        "under glibc, the size from which a warm rent beats a fresh, zeroed `vec![0u8; n]` at every larger size",
        BySize::crossover_claim(&all, SHARED, FRESH, bytes_label),
    );
    if let Some(mm) = &mimalloc {
        let all: Vec<&BySize> = mm.iter().collect();
        table.conclude(
            "under mimalloc, the same crossover against `vec![0u8; n]`",
            BySize::crossover_claim(&all, SHARED, FRESH, bytes_label),
        );
    }
    table.conclude(
        "under glibc, zeroing's share: the sizes at which a fresh, unzeroed buffer beats a zeroed one",
        BySize::sizes_where_faster(&all, UNZEROED, FRESH, bytes_label),
    );
    table.conclude(
        "under glibc, allocation's share: the sizes at which one reused `Vec` beats a fresh, unzeroed buffer",
        BySize::sizes_where_faster(&all, REUSED, UNZEROED, bytes_label),
    );
    table.conclude(
        "under glibc, the sizes at which the pool sized for n beats the shared pool",
        BySize::sizes_where_faster(&all, SIZED, SHARED, bytes_label),
    );
    table.plots.push(plot(&runs, "glibc", "p10-by-size"));
    vec![table, p10_mimalloc(mimalloc.as_deref()), p10_seed(&runs)]
}

/// P10's columns for the same runs in the mimalloc processes.
fn p10_mimalloc(mimalloc: Option<&[BySize]>) -> Table {
    let title = "The same runs under mimalloc: time per buffer by size";
    let mut table = match mimalloc {
        Some(mm) => {
            let mut table = columns().table("P10-mimalloc", Kind::Time, title, mm);
            table
                .plots
                .push(plot(mm, "mimalloc", "p10-by-size-mimalloc"));
            table.note(mm[0].measured.protocol_note());
            table.note(noise_note(mm));
            let all: Vec<&BySize> = mm.iter().collect();
            table.conclude(
                "under mimalloc, the sizes at which a warm rent from the shared pool is faster than a fresh, unzeroed `Vec::with_capacity(n)`",
                BySize::sizes_where_faster(&all, SHARED, UNZEROED, bytes_label),
            );
            table
        }
        None => {
            let empty: Vec<BySize> = Vec::new();
            let mut table = columns().table("P10-mimalloc", Kind::Time, title, &empty);
            table.note("No mimalloc processes in this run (an `--only` or partial run): the table is empty.");
            table
        }
    };
    table.note("Processes of `pool-experiments-mimalloc` ran P10's runs, method for method: under mimalloc only the two fresh buffers change allocator, as a hit of the pool and the reused `Vec` call none.");
    table
}

/// "Bytes per operation, counted": a fresh buffer allocates its n bytes, zeroed or not; a warm
/// pool and the reused `Vec` nothing.
fn bytes_note() -> String {
    let pool = shared();
    let off: Vec<String> = P10_SIZES
        .iter()
        .filter(|&&n| {
            warm(pool, n);
            let mut reused = Vec::with_capacity(n);
            workloads::reused_touch(&mut reused, n);
            bytes(|| workloads::fresh_touch(n)) != n as u64
                || bytes(|| workloads::unzeroed_touch(n)) != n as u64
                || bytes(|| workloads::rent_touch(pool, n)) != 0
                || bytes(|| workloads::reused_touch(&mut reused, n)) != 0
        })
        .map(|&n| bytes_label(n))
        .collect();
    let rule = "Bytes per operation, counted: a fresh buffer, zeroed or not, exactly its n; a warm rent and the reused `Vec` 0 B";
    if off.is_empty() {
        format!("{rule}, at every size.")
    } else {
        format!("{rule}, except at {}.", off.join(", "))
    }
}

fn plot(runs: &[BySize], allocator: &str, file: &str) -> Plot {
    let series = |name: &str, method: &str| Series {
        name: name.to_owned(),
        points: runs
            .iter()
            .map(|s| (s.size as f64, s.measured.expect(method).median_ns()))
            .collect(),
    };
    let mut lines = vec![
        series("fresh, zeroed vec![0u8; n]", FRESH),
        series("fresh, unzeroed Vec::with_capacity(n)", UNZEROED),
        series("pool::shared()", SHARED),
        series("pool sized for n", SIZED),
        series("one reused Vec", REUSED),
    ];
    lines.retain(|l| !l.points.is_empty());
    Plot {
        file: file.into(),
        title: format!(
            "Time per buffer by size under {allocator}: fresh buffers, zeroed and unzeroed, a warm rent from the pool and one reused Vec (median over processes)"
        ),
        x_label: "n bytes (log scale)".into(),
        y_label: "ns per operation (log scale)".into(),
        log_x: true,
        log_y: true,
        series: lines,
        bars: false,
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
            "faster here, under glibc: the shared pool or a fresh, zeroed buffer?",
            |(s, _): &Row<'_>| {
                Cell::Claim(
                    s.measured
                        .faster_of(SHARED, "the pool", FRESH, "allocation"),
                )
            },
        )
        .col("… or a fresh, unzeroed one?", |(s, _): &Row<'_>| {
            Cell::Claim(
                s.measured
                    .faster_of(SHARED, "the pool", UNZEROED, "allocation"),
            )
        })
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
    table.note(runs[0].measured.protocol_note());
    table.note("Each verdict is read from P10's run at that size. The seed's allocation is `new byte[n]`, which .NET zeroes, so the like-for-like column is the zeroed one; the unzeroed one is the comparison a Rust programmer can make, where every byte read is written first. The seed's figures are from one BenchmarkDotNet run on another machine and runtime, with .NET's allocator, whose gen-0 allocation is a pointer bump paid for later by the collector; compare which one wins, not the nanoseconds.");
    table.note("*Italic*: seed `003`'s figures (machine under *Sources*).");
    table
}
