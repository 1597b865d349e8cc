//! Reaching a usable buffer (S1) and the fixed cap's crossovers (S2): the seed's first
//! benchmark, the work reduced to a touch.

use std::hint::black_box;

use lab::plot::Plot;
use lab::protocol::Allocator;
use lab::report::{Function, Run};
use lab::table::{Columns, Table};
use lab::timing::{BySize, Measured, Schedule, Timing};
use lab::{Cell, Kind};
use stack_buffer::MAX_STACK_ITEMS;

use super::{SEED_CELLS, items, pair};
use crate::workloads;

pub(super) const S1: Function = lab::function!(s1_reach_a_buffer);

pub(super) const HEAP: &str = "heap `vec![0.0; 2N]`";
pub(super) const HEAP_UNINIT: &str = "heap `Vec::with_capacity(2N)`";
pub(super) const REUSED: &str = "reused `Vec`, `clear()`";
pub(super) const STACK: &str = "stack `[0.0; 256]`";
pub(super) const STACK_UNINIT: &str = "stack `[MaybeUninit<f64>; 256]`";
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
    drop(stack_buffer::scratch_pool().rent(2 * n)); // warm: the pool's hit path
    // A callgrind child per size, method and copy would add minutes: no instruction counts.
    let mut timing = Timing::new(run.config().without_instructions());
    // The caller's own buffers, one per copy, allocated here, outside the timed loop.
    let (mut original, mut twin) = (Vec::with_capacity(2 * n), Vec::with_capacity(2 * n));
    timing.method_pair(
        REUSED,
        move || workloads::s1_reused::<0>(&mut original, black_box(n)),
        move || workloads::s1_reused::<1>(&mut twin, black_box(n)),
    );
    pair!(timing, HEAP_UNINIT, workloads::s1_heap_uninit(n));
    pair!(timing, HEAP, workloads::s1_heap(n));
    if fits(n) {
        pair!(timing, STACK, workloads::s1_stack(n));
        pair!(timing, STACK_UNINIT, workloads::s1_stack_uninit(n));
    }
    pair!(timing, POOL, workloads::s1_pool(n));
    let (mut original, mut twin) = (vec![0.0f64; 2 * n], vec![0.0f64; 2 * n]);
    timing.floor_pair(
        FLOOR,
        move || workloads::floor::<0>(&mut original),
        move || workloads::floor::<1>(&mut twin),
    );
    timing.run(Schedule::Interleaved)
}

fn s1_reach_a_buffer(run: &Run) -> Vec<Table> {
    let runs = run.time_by_size(&workloads::S1_ITEMS, |n| time_size(run, n));
    vec![
        s1_table(run, &runs),
        baselines_table(&runs),
        s2_table(&runs),
    ]
}

fn s1_table(run: &Run, runs: &[BySize]) -> Table {
    let mimalloc = runs[0].measured.under(Allocator::Mimalloc).is_some();
    let stack = |s: &BySize, cell: &dyn Fn(&Measured) -> Cell| {
        if fits(s.size) {
            cell(&s.measured)
        } else {
            Cell::text("does not fit")
        }
    };
    let under_mimalloc = |s: &BySize, cell: &dyn Fn(&Measured) -> Cell| {
        s.measured
            .under(Allocator::Mimalloc)
            .map_or(Cell::Empty, cell)
    };
    let mut s1 = run.own(
        Columns::new()
            .col("N items", |s: &BySize| Cell::count(s.size))
            .col("bytes (2N values)", |s: &BySize| Cell::bytes(16 * s.size))
            .col("heap, zeroed", |s: &BySize| {
                s.measured.expect(HEAP).median_cell()
            })
            .col("stack 2 KiB cap, zeroed", |s: &BySize| {
                stack(s, &|m| m.expect(STACK).median_cell())
            })
            .col("stack 2 KiB cap, not zeroed", |s: &BySize| {
                stack(s, &|m| m.expect(STACK_UNINIT).median_cell())
            })
            .col("pool, not zeroed", |s: &BySize| {
                s.measured.expect(POOL).median_cell()
            })
            .col("floor: the touch of an existing 2N buffer", |s: &BySize| {
                s.measured.floor().map_or(Cell::Empty, |f| f.median_cell())
            })
            .col("zeroed cap / heap", |s: &BySize| {
                stack(s, &|m| m.ratio_cell(STACK, HEAP))
            })
            .col_if(mimalloc, "heap under mimalloc", |s: &BySize| {
                under_mimalloc(s, &|m| m.expect(HEAP).median_cell())
            })
            .col_if(
                mimalloc,
                "zeroed cap / heap, both in the mimalloc processes",
                |s: &BySize| stack(s, &|_| under_mimalloc(s, &|m| m.ratio_cell(STACK, HEAP))),
            )
            .col("largest twin disagreement", |s: &BySize| {
                s.measured.worst_twin_cell()
            })
            .col("between processes", |s: &BySize| {
                s.measured.worst_spread_cell()
            })
            .table("S1", Kind::Time, "", runs),
    );
    s1.note(runs[0].measured.protocol_note());
    s1.note("Every size is its own interleaved run with its own calibration (the line above is the first size's): compare within a row; differences between rows also contain what changed between runs. No instruction counts: a callgrind child per size, method and copy would add minutes.");
    s1.note("Every method is a call of its own (`#[inline(never)]`) that reaches its buffer and calls the one touch (`touch_raw`, also a call of its own: write the first and last value, read them back); the floor is a call that does the same touch on an existing buffer of 2N values, so the floor counts the same two calls. Each twin runs a second copy of the measured function (`s1_heap::<1>` beside `s1_heap::<0>`).");
    s1.note("The same runs time a `Vec` the caller owns and reuses and a fresh unzeroed one: S1-baselines, in the chapter.");
    s1.note("Both stack columns are a 2 KiB array whatever N is: stable Rust has no variable-size stack allocation, so the seed's `stackalloc double[2N]` has no counterpart; the fixed cap is the Rust pattern. The zeroed one writes 2 KiB of zeros on every call; the other is `[MaybeUninit<f64>; 256]`, the seed's `FixedCapOnlyNoInit` (a literal cap under `[SkipLocalsInit]`). The heap's `vec![0.0; 2N]` is a `calloc` of exactly 2N values. The pool is warm (its hit path) and hands back what its last user wrote: it zeroes nothing.");
    s1.note("The seed's stack/heap ratio was between 0.38 and 0.53 over eight sizes (mean 0.415), with a variable-size `stackalloc` zeroed to exactly 2N values: not comparable size by size with a fixed cap.");
    if mimalloc {
        s1.note("The mimalloc columns are the same runs in processes of `stack-buffer-experiments-mimalloc`: both sides of the ratio ran there. S2 and X1-stack draw the conclusions.");
    }
    let largest = runs.last().expect("S1 has sizes");
    s1.conclude(
        format!(
            "at the largest size, N = {}, the faster of the warm pool (not zeroed) and the zeroed heap",
            lab::fmt::thousands(largest.size as u64)
        ),
        largest
            .measured
            .faster_of(POOL, "the pool", HEAP, "the heap"),
    );
    if let Some(mimalloc) = BySize::under(runs, Allocator::Mimalloc) {
        let every: Vec<&BySize> = mimalloc.iter().collect();
        s1.conclude(
            "under mimalloc, the sizes at which the reused `Vec` is faster than a fresh unzeroed one",
            BySize::sizes_where_faster(&every, REUSED, HEAP_UNINIT, items),
        );
        s1.conclude(
            "under mimalloc, the sizes at which a fresh unzeroed `Vec` is faster than a fresh zeroed one",
            BySize::sizes_where_faster(&every, HEAP_UNINIT, HEAP, items),
        );
    }
    s1
}

/// S1-baselines: the caps against what a Rust programmer already has, from S1's runs: a buffer
/// the caller owns and reuses, a fresh unzeroed one, a fresh zeroed one.
fn baselines_table(runs: &[BySize]) -> Table {
    let cap = |cap: &'static str| {
        move |s: &BySize| {
            if fits(s.size) {
                s.measured.expect(cap).median_cell()
            } else {
                Cell::text("does not fit")
            }
        }
    };
    let mut table = Columns::new()
        .col("N items", |s: &BySize| Cell::count(s.size))
        .col("reused `Vec`, passed down", |s: &BySize| {
            s.measured.expect(REUSED).median_cell()
        })
        .col("fresh `Vec::with_capacity(2N)`", |s: &BySize| {
            s.measured.expect(HEAP_UNINIT).median_cell()
        })
        .col("fresh `vec![0.0; 2N]`", |s: &BySize| {
            s.measured.expect(HEAP).median_cell()
        })
        .col("stack 2 KiB cap, `MaybeUninit`", cap(STACK_UNINIT))
        .col("stack 2 KiB cap, zeroed", cap(STACK))
        .table(
            "S1-baselines",
            Kind::Time,
            "A buffer the caller owns and reuses, a fresh one, a fresh zeroed one, and the 2 KiB stack caps, from S1's runs",
            runs,
        );
    table.note(runs[0].measured.protocol_note());
    table.note("The reused `Vec` is one per copy of the measured function, allocated before the run and `clear()`ed on every call; `vec![0.0; 2N]` is a `calloc`. Every method touches the same two values through one `touch_raw`. Noise: S1's last two columns (appendix).");
    table.note("seed `002`: stack/heap between 0.38 and 0.53 over eight sizes, with a `stackalloc` of exactly 2N (Core i7-8665U, .NET 10); here the cap is a fixed 2 KiB: S1's *zeroed cap / heap* column (appendix).");
    let fitting: Vec<&BySize> = runs.iter().filter(|s| fits(s.size)).collect();
    let every: Vec<&BySize> = runs.iter().collect();
    table.conclude(
        "the sizes at which the unzeroed 2 KiB cap is faster than the reused `Vec`",
        BySize::sizes_where_faster(&fitting, STACK_UNINIT, REUSED, items),
    );
    table.conclude(
        "the sizes at which the reused `Vec` is faster than the zeroed 2 KiB cap",
        BySize::sizes_where_faster(&fitting, REUSED, STACK, items),
    );
    table.conclude(
        "the sizes at which the reused `Vec` is faster than a fresh unzeroed one (the allocation)",
        BySize::sizes_where_faster(&every, REUSED, HEAP_UNINIT, items),
    );
    table.conclude(
        "the sizes at which a fresh unzeroed `Vec` is faster than a fresh zeroed one (the zeroing, on `calloc`'s path)",
        BySize::sizes_where_faster(&every, HEAP_UNINIT, HEAP, items),
    );
    table.plots.push(s1_plot(runs));
    table
}

/// S1's figure: every way to reach the buffer, time per call against N (log axes: the sizes
/// span more than two decades, the times more than one).
fn s1_plot(runs: &[BySize]) -> Plot {
    let line = |method: &str, only_fitting: bool| {
        runs.iter()
            .filter(|s| !only_fitting || fits(s.size))
            .map(|s| (s.size as f64, s.measured.expect(method).median_ns()))
            .collect::<Vec<_>>()
    };
    let mut plot = Plot::lines(
        "s1-reach-by-size",
        "Time to reach a usable buffer of 2N f64s and touch it, by order size (median over processes, glibc)",
        "N items (log scale)",
        "ns per call (log scale)",
    )
    .series("fresh, zeroed: vec![0.0; 2N]", line(HEAP, false))
    .series("fresh, unzeroed: Vec::with_capacity(2N)", line(HEAP_UNINIT, false))
    .series("stack 2 KiB cap, zeroed", line(STACK, true))
    .series("warm pool, not zeroed", line(POOL, false))
    .series("reused Vec, clear()", line(REUSED, false))
    .series("stack 2 KiB cap, not zeroed", line(STACK_UNINIT, true));
    plot.log_x = true;
    plot.log_y = true;
    plot
}

fn s2_table(runs: &[BySize]) -> Table {
    let fitting: Vec<&BySize> = runs.iter().filter(|s| fits(s.size)).collect();
    let seed = |n: usize| {
        SEED_CAP_VS_HEAP
            .iter()
            .find(|(items, _)| *items == n)
            .map_or(Cell::Empty, |(_, verdict)| {
                Cell::Seed((*verdict).to_owned())
            })
    };
    let faster =
        |a: &'static str, a_label: &'static str, b: &'static str, b_label: &'static str| {
            move |s: &&BySize| Cell::Claim(s.measured.faster_of(a, a_label, b, b_label))
        };
    let mut s2 = Columns::new()
        .col("N items", |s: &&BySize| Cell::count(s.size))
        .col(
            "zeroed cap or zeroed heap?",
            faster(STACK, "the cap", HEAP, "the heap"),
        )
        .col("seed: literal cap or `new double[2N]`", |s: &&BySize| {
            seed(s.size)
        })
        .col(
            "zeroed cap or warm pool?",
            faster(STACK, "the cap", POOL, "the pool"),
        )
        .col("seed: literal cap or `ArrayPool`", |_: &&BySize| {
            Cell::Seed("the pool".to_owned())
        })
        .col(
            "unzeroed cap or zeroed heap?",
            faster(STACK_UNINIT, "the cap", HEAP, "the heap"),
        )
        .col(
            "unzeroed cap or warm pool?",
            faster(STACK_UNINIT, "the cap", POOL, "the pool"),
        )
        .col("seed: unzeroed literal cap", |_: &&BySize| {
            Cell::Seed("beats both".to_owned())
        })
        .table(
            "S2",
            Kind::Time,
            "The fixed cap's crossovers, size by size, from S1's runs: which is faster in every process",
            &fitting,
        );
    s2.note(runs[0].measured.protocol_note());
    s2.note("Each cell is a verdict; *varies between runs (k of n)*: k processes reached the most common answer, which is why a single run's crossover is not a result.");
    s2.note("These crossovers are the seed's, between buffers that are both zeroed (the unzeroed cap's columns excepted). S1-baselines puts both caps against a buffer the caller owns and reuses, which zeroes and allocates nothing, and against a fresh unzeroed one.");
    s2.note("The cap here is a proxy for the production hybrid, as the seed's `FixedCapOnly` was: the array and the touch, without `Scratch::Hybrid`'s branch and pool fallback. S7 times the real `Hybrid` in the whole operation.");
    s2.note("The seed's cap is a literal-size `stackalloc` of 2 KiB, zeroed (`FixedCapOnly`) or under `[SkipLocalsInit]` (`FixedCapOnlyNoInit`, about 3 ns, faster than everything at all seven sizes), against `new double[2N]` and `ArrayPool`, one process, with a 29 % noise floor of its own.");
    s2.note(SEED_CELLS);
    let crossover = |runs: &[&BySize]| BySize::crossover_claim(runs, STACK, HEAP, items);
    let heap_wins = |runs: &[&BySize]| BySize::sizes_where_faster(runs, HEAP, STACK, items);
    s2.conclude(
        "the size from which the zeroed 2 KiB cap is faster than a zeroed heap buffer of exactly 2N values, and stays faster at every larger size that fits (the seed: between 16 and 32 items)",
        crossover(&fitting),
    );
    s2.conclude(
        "the sizes at which the zeroed heap buffer is faster than the zeroed 2 KiB cap (the seed: 1, 4 and 8 items)",
        heap_wins(&fitting),
    );
    if let Some(mimalloc) = BySize::under(runs, Allocator::Mimalloc) {
        let fitting: Vec<&BySize> = mimalloc.iter().filter(|s| fits(s.size)).collect();
        s2.conclude(
            "under mimalloc, the size from which the zeroed 2 KiB cap is faster than the zeroed heap buffer, and stays faster",
            crossover(&fitting),
        );
        s2.conclude(
            "under mimalloc, the sizes at which the zeroed heap buffer is faster than the zeroed 2 KiB cap",
            heap_wins(&fitting),
        );
    }
    s2.conclude(
        "the sizes at which the warm pool is faster than the zeroed 2 KiB cap, which zeroes 2 KiB on every call (the seed: all 7 sizes)",
        BySize::sizes_where_faster(&fitting, POOL, STACK, items),
    );
    s2.conclude(
        "the sizes at which the unzeroed 2 KiB cap is faster than the zeroed heap buffer (the seed: all 7 sizes)",
        BySize::sizes_where_faster(&fitting, STACK_UNINIT, HEAP, items),
    );
    s2.conclude(
        "the sizes at which the unzeroed 2 KiB cap is faster than the warm pool (the seed: all 7 sizes)",
        BySize::sizes_where_faster(&fitting, STACK_UNINIT, POOL, items),
    );
    s2
}
