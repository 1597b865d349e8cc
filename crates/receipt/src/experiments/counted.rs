//! R1: what a whole run allocates, counted exactly, beside the seed's one buffer per line.

use std::hint::black_box;
use std::io::sink;

use lab::report::{Function, Run};
use lab::table::Columns;
use lab::{AllocStats, Cell, Kind, Table, count};

use super::SEED_ITALIC;
use crate::generate::generated;
use crate::workloads::fresh_pooled;
use crate::{Processor, STRATEGIES, Strategy};

pub(super) const R1: Function = lab::function!(r1_bytes_per_run);

/// The input sizes of R1, as in the seed's table: 1 to 1,000,000 lines.
const R1_LINES: [u64; 7] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];

/// The seed of R1's generated input.
const R1_SEED: u64 = 2026;

/// One input size and what a run of each strategy allocated, in [`STRATEGIES`] order.
struct Counted {
    lines: u64,
    runs: Vec<AllocStats>,
}

/// A new processor for `strategy`, as a command would make one: the pooled one with a pool of
/// its own, so that it starts cold on every row whatever ran before.
fn new_processor(strategy: Strategy) -> Processor {
    match strategy {
        Strategy::Pooled => fresh_pooled(),
        other => Processor::new(other),
    }
}

fn counted(lines: u64) -> Counted {
    let input = generated(lines, R1_SEED);
    let runs = STRATEGIES
        .iter()
        .map(|&strategy| {
            count(|| {
                new_processor(strategy)
                    .run(black_box(&input), &mut sink(), &mut sink())
                    .expect("a sink cannot fail")
            })
            .1
        })
        .collect();
    Counted { lines, runs }
}

/// The seed's bytes for N lines: `new byte[128]` per line is 152 bytes with its header.
const SEED_BYTES_PER_LINE: u64 = 152;

fn r1_bytes_per_run(run: &Run) -> Vec<Table> {
    // The first pool a thread uses sets up the thread's list of pool caches, once per thread:
    // done here, so that the first row counts what every other row counts.
    drop(fresh_pooled().run(b"1|a|1|1\n", &mut sink(), &mut sink()));
    let rows: Vec<Counted> = R1_LINES.iter().map(|&n| counted(n)).collect();
    let by_strategy = |stat: fn(&AllocStats) -> Cell| {
        let mut columns = Columns::new().col("N lines", |r: &Counted| Cell::Count(r.lines));
        for (idx, strategy) in STRATEGIES.iter().enumerate() {
            columns = columns.col(format!("`{strategy}`"), move |r: &Counted| {
                stat(&r.runs[idx])
            });
        }
        columns
    };
    let mut bytes = run.own(
        by_strategy(|s| Cell::Bytes(s.bytes_allocated))
            .col("seed: `new byte[128]` per line", |r: &Counted| {
                Cell::Seed(Cell::Bytes(SEED_BYTES_PER_LINE * r.lines).render())
            })
            .col("seed: `Rent(128)` / `Return` per line", |_: &Counted| {
                Cell::Seed(Cell::Bytes(0).render())
            })
            .table("R1", Kind::Count, "", &rows),
    );
    bytes.note("Every byte the run asked the allocator for (a reallocation counts its growth), counted by `lab::CountingAlloc` on the experiment's thread; the input is generated before counting starts (`receipt gen`, seed 2026), the receipts go to `std::io::sink()`.");
    bytes.note("Each run starts with a new processor, created inside the count: the pooled one rents from a pool of its own (`workloads::fresh_pooled`), so no row inherits a warm pool from the row before it.");
    bytes.note("A processor that has run once allocates nothing on its next run, for every strategy but `naive` (`streaming_pooled_stack_and_arena_allocate_0_bytes_per_line_once_warm`, over 100,000 lines).");
    bytes.note("The seed's columns are its loop over one 128-byte buffer per order line, not a receipt pipeline.");
    bytes.note(SEED_ITALIC);
    let mut allocs = by_strategy(|s| Cell::Count(s.allocs)).table(
        "R1-allocs",
        Kind::Count,
        "Allocations of the same runs",
        &rows,
    );
    allocs.note("Calls to `alloc` (a reallocation is not counted here); the same runs as R1.");
    vec![bytes, allocs]
}
