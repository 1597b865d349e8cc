//! A1-counts measured by a second instrument: dhat, in its testing mode, on every way of the
//! table, compared with the counts `lab::CountingAlloc` published (`docs/data/arena.json`, which
//! `cargo xtask report --check` keeps equal to the release binary's run). Chapter 1's section
//! "Two instruments" says what each counts.
//!
//! One test in this binary, and dhat fed only the test's thread (chapter 1's helper,
//! `crates/lab-chapter/tests/common/dhat.rs`): dhat's counts are process-wide. Not under Miri:
//! dhat walks the stack at every allocation.
#![cfg(not(miri))]

use std::hint::black_box;

use arena_chapter::{N, WAYS};
use lab::Cell;

#[path = "../../lab-chapter/tests/common/dhat.rs"]
mod dhat_seen;

use dhat_seen::{DhatOnThisThread, seen};

#[global_allocator]
static ALLOC: DhatOnThisThread = DhatOnThisThread;

/// A1-counts: dhat sees the allocations, reallocations and deallocations `CountingAlloc`
/// published for each of the eleven ways at N = 200,000, run as the experiment runs them. dhat
/// counts a reallocation as a block of its own: its blocks are the allocations plus the
/// reallocations (`Seen::allocs`).
#[test]
fn a1_counts_dhat_agrees_with_counting_alloc_on_every_way() {
    let snapshot = lab::report::Snapshot::published("arena").unwrap();
    for way in WAYS {
        let published = |column: &str| match snapshot
            .published_cell("A1-counts", way.label, column)
            .unwrap()
        {
            Cell::Count(n) => *n,
            other => panic!(
                "A1-counts at {}, {column}: not a count: {other:?}",
                way.name
            ),
        };
        let counting_alloc = (
            published("allocations"),
            published("reallocations"),
            published("deallocations"),
        );
        // A reused `Vec` is reserved before the count, as A1-counts does.
        let mut runner = way.runner(N);
        let ((), dhat) = seen(|| {
            black_box(runner.run(black_box(N)));
        });
        assert_eq!(
            (dhat.allocs(), dhat.reallocs, dhat.deallocs()),
            counting_alloc,
            "A1-counts, {}: dhat saw {dhat:?}",
            way.name
        );
        assert_eq!(dhat.blocks, counting_alloc.0 + counting_alloc.1);
        assert_eq!(dhat.live_blocks, 0, "{}: every node is freed", way.name);
    }
}
