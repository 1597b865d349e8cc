//! R1: what a whole run allocates, counted exactly — once the processor is warm, beside the
//! seed's one buffer per line (R1, R1-allocs), and with a new processor per run (R1-new).

use std::hint::black_box;
use std::io::sink;

use lab::report::{Function, Run};
use lab::table::Columns;
use lab::{AllocStats, Cell, Kind, Table, count};
use receipt::generate::generated;
use receipt::{Processor, STRATEGIES, Strategy};

use super::SEED_ITALIC;
use crate::workloads::fresh_pooled;

pub(super) const R1: Function = lab::function!(r1_bytes_per_run);

/// The input sizes of R1, as in the seed's table: 1 to 1,000,000 lines.
const R1_LINES: [u64; 7] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];

/// The seed of R1's generated input.
const R1_SEED: u64 = 2026;

/// What one strategy allocated on one input: its first run, with a new processor, and the same
/// processor's next run.
struct Runs {
    new: AllocStats,
    warm: AllocStats,
}

/// One input size and what each strategy allocated, in [`STRATEGIES`] order.
struct Counted {
    lines: u64,
    runs: Vec<Runs>,
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
            let (mut processor, new) = count(|| {
                let mut processor = new_processor(strategy);
                drop(processor.run(black_box(&input), &mut sink(), &mut sink()));
                processor
            });
            let (_, warm) = count(|| processor.run(black_box(&input), &mut sink(), &mut sink()));
            Runs { new, warm }
        })
        .collect();
    Counted { lines, runs }
}

/// The seed's bytes for N lines: `new byte[128]` per line is 152 bytes with its header.
const SEED_BYTES_PER_LINE: u64 = 152;

/// A column per strategy, after "N lines".
fn by_strategy<'a>(stat: fn(&Runs) -> Cell) -> Columns<'a, Counted> {
    let mut columns = Columns::new().col("N lines", |r: &Counted| Cell::Count(r.lines));
    for (idx, strategy) in STRATEGIES.iter().enumerate() {
        columns = columns.col(format!("`{strategy}`"), move |r: &Counted| {
            stat(&r.runs[idx])
        });
    }
    columns
}

fn r1_bytes_per_run(run: &Run) -> Vec<Table> {
    // The first pool a thread uses sets up the thread's list of pool caches, once per thread:
    // done here, so that the first row counts what every other row counts.
    drop(fresh_pooled().run(b"1|a|1|1\n", &mut sink(), &mut sink()));
    let rows: Vec<Counted> = R1_LINES.iter().map(|&n| counted(n)).collect();
    let seed = |bytes: u64| Cell::Seed(Cell::Bytes(bytes).render());
    let mut warm = run.own(
        by_strategy(|r| Cell::Bytes(r.warm.bytes_allocated))
            .col("seed: `new byte[128]` per line", move |r: &Counted| {
                seed(SEED_BYTES_PER_LINE * r.lines)
            })
            .col(
                "seed: `Rent(128)` / `Return` per line",
                move |_: &Counted| seed(0),
            )
            .col(
                "seed: `stackalloc byte[128]` per line",
                move |_: &Counted| seed(0),
            )
            .table("R1", Kind::Count, "", &rows),
    );
    warm.note("Every byte the run asked the allocator for (a reallocation counts its growth), counted by `lab::CountingAlloc` on the experiment's thread; the input is generated before counting starts (`receipt gen`, seed 2026), the receipts go to `std::io::sink()`.");
    warm.note("Each strategy's processor ran once over the same N lines before this count, so its buffers, its pool and its arena are warm, as the seed's pool was: the seed's columns are its loop over one 128-byte buffer per order line, rented from the warm `ArrayPool<byte>.Shared` or on the stack, not a receipt pipeline.");
    warm.note(SEED_ITALIC);
    let mut allocs = by_strategy(|r| Cell::Count(r.warm.allocs)).table(
        "R1-allocs",
        Kind::Count,
        "Allocations of the same runs",
        &rows,
    );
    allocs.note("Calls to `alloc` (a reallocation is not counted here); the same warm runs as R1.");
    let mut new = by_strategy(|r| Cell::Bytes(r.new.bytes_allocated)).table(
        "R1-new",
        Kind::Count,
        "Bytes allocated by a whole run of N lines with a new processor (and a new pool): the one-offs",
        &rows,
    );
    new.note("The first run of each processor of R1, the processor created inside the count: the pooled one rents from a pool of its own (`workloads::fresh_pooled`), so no row inherits a warm pool from the row before it. The same bytes as R1 plus what the processor allocates once: its output buffer, the start of a line cut by a chunk's end, the item-name cache, the pool's bucket table and first buffers, the arena's first chunk.");
    new.note("The seed measured a cold pool too: the first read of `ArrayPool<Q1>.Shared` allocated *608 B* and its first `Rent(128)` *184 B*, once; every later `Rent(128)`, *0 B*.");
    new.note(SEED_ITALIC);
    vec![warm, allocs, new]
}
