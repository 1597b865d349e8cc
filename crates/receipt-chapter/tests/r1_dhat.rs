//! R1 measured by a second instrument: dhat, in its testing mode, on every row and strategy of
//! the table, compared with the bytes (R1) and allocations (R1-allocs) `lab::CountingAlloc`
//! published for the same warm runs (`docs/data/receipt.json`, which `cargo xtask report
//! --check` keeps equal to the release binary's run). Chapter 1's section "Two instruments" says
//! what each counts.
//!
//! One test in this binary, and dhat fed only the test's thread (chapter 1's helper,
//! `crates/lab-chapter/tests/common/dhat.rs`): dhat's counts are process-wide. Not under Miri:
//! dhat walks the stack at every allocation.
#![cfg(not(miri))]

use std::hint::black_box;
use std::io::sink;

use lab::Cell;
use receipt::generate::generated;
use receipt::{Processor, STRATEGIES, Strategy};
use receipt_chapter::workloads::fresh_pooled;

#[path = "../../lab-chapter/tests/common/dhat.rs"]
mod dhat_seen;

use dhat_seen::{DhatOnThisThread, seen};

#[global_allocator]
static ALLOC: DhatOnThisThread = DhatOnThisThread;

/// The seed of R1's generated input (its table's note: `receipt gen`, seed 2026).
const R1_SEED: u64 = 2026;

/// A new processor as R1 makes one: the pooled one with a pool of its own.
fn new_processor(strategy: Strategy) -> Processor {
    match strategy {
        Strategy::Pooled => fresh_pooled(),
        other => Processor::new(other),
    }
}

/// The published count or byte figure of `table` in the row of `lines` lines, column `column`.
fn published(table: &lab::Table, lines: u64, column: &str) -> u64 {
    let row = table
        .rows
        .iter()
        .position(|row| row.first() == Some(&Cell::Count(lines)))
        .unwrap_or_else(|| panic!("{}: no row of {lines} lines", table.id));
    match table.cell(row, column) {
        Some(Cell::Count(n) | Cell::Bytes(n)) => *n,
        other => panic!(
            "{} at {lines} lines, {column}: not a count: {other:?}",
            table.id
        ),
    }
}

/// R1: for every input size and strategy, dhat sees the bytes (R1) and allocations (R1-allocs)
/// `CountingAlloc` published for a warm processor's next run. dhat counts a reallocation as a
/// block of its own at its new size, so where `naive` reallocates its blocks and bytes are larger
/// by the reallocations and by what they kept (`Seen::allocs`, `Seen::bytes_allocated`); the
/// strategies that allocate nothing once warm read 0 in both.
#[test]
fn r1_dhat_agrees_with_counting_alloc_on_every_row_and_strategy() {
    let snapshot = lab::report::Snapshot::published("receipt").unwrap();
    let (bytes, allocs) = (
        snapshot.table("R1").unwrap(),
        snapshot.table("R1-allocs").unwrap(),
    );
    // As the experiment does: the first pool this thread uses sets up its list of pool caches.
    drop(fresh_pooled().run(b"1|a|1|1\n", &mut sink(), &mut sink()));
    let sizes: Vec<u64> = bytes
        .rows
        .iter()
        .map(|row| match row.first() {
            Some(Cell::Count(lines)) => *lines,
            other => panic!("R1: a row of {other:?} lines"),
        })
        .collect();
    // Every strategy R1 shows a column for (R1-per-line has the others).
    let shown: Vec<Strategy> = STRATEGIES
        .into_iter()
        .filter(|s| bytes.columns.contains(&format!("`{s}`")))
        .collect();
    assert_eq!(
        shown.len(),
        bytes.columns.iter().filter(|c| c.starts_with('`')).count(),
        "R1's columns: {:?}",
        bytes.columns
    );
    for lines in sizes {
        let input = generated(lines, R1_SEED);
        for &strategy in &shown {
            let column = format!("`{strategy}`");
            let counting_alloc = (
                published(allocs, lines, &column),
                published(bytes, lines, &column),
            );
            let mut processor = new_processor(strategy);
            drop(processor.run(&input, &mut sink(), &mut sink()));
            let (_, dhat) = seen(|| {
                black_box(processor.run(black_box(&input), &mut sink(), &mut sink())).is_ok()
            });
            assert_eq!(
                (dhat.allocs(), dhat.bytes_allocated()),
                counting_alloc,
                "R1, {lines} lines, {strategy}: dhat saw {dhat:?}"
            );
            if dhat.reallocs == 0 {
                assert_eq!((dhat.blocks, dhat.bytes), counting_alloc);
            }
        }
    }
}
