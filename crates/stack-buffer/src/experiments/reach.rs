//! Reaching a usable buffer (S1) and the fixed cap's crossovers (S2): the seed's first
//! benchmark, the work reduced to a touch.

use std::hint::black_box;

use lab::protocol::Allocator;
use lab::report::{Function, Run};
use lab::table::Columns;
use lab::timing::{Measured, Schedule, Timing};
use lab::{Cell, Kind, Table};

use lab::timing::BySize;

use super::{SEED_CELLS, items};
use crate::{MAX_STACK_ITEMS, workloads};

pub(super) const S1: Function = lab::function!(s1_reach_a_buffer);

const HEAP: &str = "heap `vec![0.0; 2N]`";
const STACK: &str = "stack `[0.0; 256]`";
const POOL: &str = "pool `rent(2N)`";
const FLOOR: &str = "touch an existing buffer";

/// The seed's verdicts for its literal 2 KiB cap (`FixedCapOnly`), by items: against
/// `new double[2N]`, from the grouped mean of its seven replicas (a 29 % noise floor).
const SEED_CAP_VS_HEAP: [(usize, &str); 7] = [
    (1, "the heap (4.6×)"),
    (4, "the heap (2.8×)"),
    (8, "the heap (1.8×)"),
    (16, "within the noise (1.2×)"),
    (32, "the stack"),
    (64, "the stack"),
    (128, "the stack"),
];

fn fits(n: usize) -> bool {
    n <= MAX_STACK_ITEMS
}

fn time_size(run: &Run, n: usize) -> Measured {
    drop(crate::scratch_pool().rent(2 * n)); // warm: the pool's hit path
    // A callgrind child per size, method and copy would add minutes: no instruction counts.
    let mut timing = Timing::new(run.config().without_instructions());
    timing.method(HEAP, move || workloads::s1_heap(black_box(n)));
    if fits(n) {
        timing.method(STACK, move || workloads::s1_stack(black_box(n)));
    }
    timing.method(POOL, move || workloads::s1_pool(black_box(n)));
    let mut existing = vec![0.0f64; 2 * n];
    timing.floor(FLOOR, move || workloads::touch(&mut existing));
    timing.run(Schedule::Interleaved)
}

fn s1_reach_a_buffer(run: &Run) -> Vec<Table> {
    let runs: Vec<BySize> = workloads::S1_ITEMS
        .iter()
        .map(|&n| BySize {
            size: n,
            m: time_size(run, n),
        })
        .collect();
    let mimalloc = runs[0].m.under(Allocator::Mimalloc).is_some();
    let stack = |s: &BySize, cell: &dyn Fn(&Measured) -> Cell| {
        if fits(s.size) {
            cell(&s.m)
        } else {
            Cell::text("does not fit")
        }
    };
    let under_mimalloc = |s: &BySize, cell: &dyn Fn(&Measured) -> Cell| {
        s.m.under(Allocator::Mimalloc).map_or(Cell::Empty, cell)
    };
    let mut s1 = run.own(
        Columns::new()
            .col("N items", |s: &BySize| Cell::count(s.size))
            .col("bytes", |s: &BySize| Cell::bytes(16 * s.size))
            .col("heap, zeroed", |s: &BySize| s.m.expect(HEAP).median_cell())
            .col("stack (2 KiB cap), zeroed", |s: &BySize| {
                stack(s, &|m| m.expect(STACK).median_cell())
            })
            .col("pool, not zeroed", |s: &BySize| {
                s.m.expect(POOL).median_cell()
            })
            .col("floor", |s: &BySize| {
                s.m.floor().map_or(Cell::Empty, |f| f.median_cell())
            })
            .col("stack / heap", |s: &BySize| {
                stack(s, &|m| m.ratio_cell(STACK, HEAP))
            })
            .col_if(mimalloc, "heap under mimalloc", |s: &BySize| {
                under_mimalloc(s, &|m| m.expect(HEAP).median_cell())
            })
            .col_if(mimalloc, "stack / heap under mimalloc", |s: &BySize| {
                if fits(s.size) {
                    under_mimalloc(s, &|m| m.ratio_cell(STACK, HEAP))
                } else {
                    Cell::text("does not fit")
                }
            })
            .col("largest twin disagreement", |s: &BySize| {
                s.m.worst_twin_cell()
            })
            .col("between processes", |s: &BySize| s.m.worst_spread_cell())
            .table("S1", Kind::Time, "", &runs),
    );
    s1.note(runs[0].m.protocol_note());
    s1.note("Every size is its own interleaved run with its own calibration (the line above is the first size's): compare within a row; differences between rows also contain what changed between runs. No instruction counts: a callgrind child per size, method and copy would add minutes.");
    s1.note("The stack column is always a 2 KiB array zeroed in full, whatever N is: stable Rust has no variable-size stack allocation, so the seed's `stackalloc double[2N]` has no counterpart; the fixed cap is the Rust pattern. The heap's `vec![0.0; 2N]` zeroes exactly 2N values. The pool is warm (its hit path) and hands back what its last user wrote: it zeroes nothing.");
    s1.note("The seed's stack/heap ratio was between 0.38 and 0.53 over eight sizes (mean 0.415), with a variable-size `stackalloc` zeroed to exactly 2N values: not comparable size by size with a fixed cap.");
    if mimalloc {
        s1.note("The mimalloc columns are the same runs in processes of `stack-buffer-experiments-mimalloc`; X1-stack draws the conclusion.");
    }

    let fitting: Vec<&BySize> = runs.iter().filter(|s| fits(s.size)).collect();
    let seed = |n: usize| {
        SEED_CAP_VS_HEAP
            .iter()
            .find(|(items, _)| *items == n)
            .map_or(Cell::Empty, |(_, verdict)| {
                Cell::Seed((*verdict).to_owned())
            })
    };
    let mut s2 = Columns::new()
        .col("N items", |s: &&BySize| Cell::count(s.size))
        .col("faster: the zeroed stack or the zeroed heap?", |s: &&BySize| {
            Cell::Claim(s.m.faster_of(STACK, "the stack", HEAP, "the heap"))
        })
        .col("seed: literal 2 KiB cap or `new double[2N]`", |s: &&BySize| {
            seed(s.size)
        })
        .col("faster: the zeroed stack or the warm pool?", |s: &&BySize| {
            Cell::Claim(s.m.faster_of(STACK, "the stack", POOL, "the pool"))
        })
        .col("seed: literal 2 KiB cap or `ArrayPool`", |_: &&BySize| {
            Cell::Seed("the pool".to_owned())
        })
        .table(
            "S2",
            Kind::Time,
            "The fixed cap's crossovers, size by size, from S1's runs: which is faster in every process",
            &fitting,
        );
    s2.note(runs[0].m.protocol_note());
    s2.note("Each cell is a verdict: a method is named when it was resolvably faster in every process (its difference beat both twins' disagreement and the absolute floor in that process). *Varies between runs (k of n)* means the processes did not agree: k reached the most common answer. That is the honest answer where the two are close, and the reason a single run's crossover is not a result.");
    s2.note("The seed's cap is a literal-size `stackalloc` of 2 KiB, zeroed, against `new double[2N]` and `ArrayPool`, one process, with a 29 % noise floor of its own.");
    s2.note(SEED_CELLS);
    s2.conclude(
        "the size from which the zeroed 2 KiB stack array is faster than a zeroed heap buffer of exactly 2N values, and stays faster at every larger size that fits (the seed: between 16 and 32 items)",
        BySize::crossover_claim(&fitting, STACK, HEAP, items),
    );
    s2.conclude(
        "the sizes at which the zeroed heap buffer is faster than the zeroed 2 KiB stack array (the seed: 1, 4 and 8 items)",
        BySize::sizes_where_faster(&fitting, HEAP, STACK, items),
    );
    s2.conclude(
        "the sizes at which the warm pool is faster than the zeroed 2 KiB stack array, which zeroes 2 KiB on every call (the seed: all 7 sizes)",
        BySize::sizes_where_faster(&fitting, POOL, STACK, items),
    );
    vec![s1, s2]
}
