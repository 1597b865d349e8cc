//! M1 measured by a second instrument: dhat, in its testing mode, on every row of the table,
//! compared with the figures `lab::CountingAlloc` published (`docs/data/lab.json`, which
//! `cargo xtask report --check` keeps equal to the release binary's run).
//!
//! One test in this binary, and dhat fed only the test's thread (`common/dhat.rs`): dhat's
//! counts are process-wide. Not under Miri: dhat walks the stack at every allocation.
#![cfg(not(miri))]

use std::hint::black_box;

use lab::Cell;
use lab_chapter::workloads;

#[path = "common/dhat.rs"]
mod dhat_seen;

use dhat_seen::{DhatOnThisThread, Seen, seen};

#[global_allocator]
static ALLOC: DhatOnThisThread = DhatOnThisThread;

/// The published figure of M1 at `row` and `column`, as a number.
fn published(snapshot: &lab::report::Snapshot, row: &str, column: &str) -> u64 {
    match snapshot.published_cell("M1", row, column).unwrap() {
        Cell::Count(n) | Cell::Bytes(n) => *n,
        other => panic!("M1 at {row}, {column}: not a count: {other:?}"),
    }
}

/// M1: dhat sees what `CountingAlloc` published on every row but the one the optimiser removes
/// in release. Where a row reallocates, dhat counts each reallocation as a block of its new
/// size: its blocks are the allocations plus the reallocations, and its bytes exceed the bytes
/// allocated by what the reallocations kept (`Seen::allocs`, `Seen::bytes_allocated`).
#[test]
fn m1_dhat_agrees_with_counting_alloc_on_every_row() {
    let m1 = lab::report::Snapshot::published("lab").unwrap();
    // The rows of `lab_chapter::experiments::m1_rows`, measured the same way (each value kept
    // alive across the measurement by `black_box`), under dhat.
    let rows: [(&str, Seen); 5] = [
        (
            "`Box::new(0u64)`",
            seen(|| black_box(workloads::box_u64())).1,
        ),
        (
            "`Vec::<u8>::with_capacity(128)`",
            seen(|| black_box(workloads::vec_with_capacity_128())).1,
        ),
        (
            "`String::from(\"ต้มยำกุ้ง\")`",
            seen(|| black_box(workloads::thai_string())).1,
        ),
        (
            "200,000 × `Vec::<u64>::push`, no reserve",
            seen(|| black_box(workloads::push_u64(workloads::PUSHES))).1,
        ),
        (
            "`format!(\"{order_id}|{item}|{qty}|{unit_price}\\n\")`",
            seen(|| black_box(workloads::format_order_line())).1,
        ),
    ];
    for (row, dhat) in rows {
        let published = |column| published(&m1, row, column);
        let counting_alloc = (
            published("allocations"),
            published("reallocations"),
            published("deallocations"),
            published("bytes allocated"),
            published("peak live bytes"),
        );
        let from_dhat = (
            dhat.allocs(),
            dhat.reallocs,
            dhat.deallocs(),
            dhat.bytes_allocated(),
            dhat.peak_bytes,
        );
        assert_eq!(from_dhat, counting_alloc, "M1 row {row}: dhat saw {dhat:?}");
    }
    // Where they differ, exactly: dhat's own totals on the two rows that reallocate.
    let [.., (_, push), (_, format)] = rows;
    // The 200,000 pushes: 17 blocks, 4, 8, …, 262,144 `u64`s, so 32 B + 64 B + … + 2,097,152 B.
    assert_eq!((push.blocks, push.bytes), (17, 4_194_272));
    // `format!`: 3 blocks of 8, 32 and 64 bytes.
    assert_eq!((format.blocks, format.bytes), (3, 104));

    // The second row, `drop(Box::new(0u64))` inside the closure: in the release binary the
    // optimiser removed the allocation (published: 0); without the optimiser, as in the test
    // profile, the call allocates, and dhat sees it. The difference is the build, not the
    // instrument. (`cargo test --release` is left out: there the optimiser decides.)
    let unobserved = "`drop(Box::new(0u64))`, the value never observed";
    assert_eq!(published(&m1, unobserved, "allocations"), 0);
    if cfg!(debug_assertions) {
        let ((), dhat) = seen(workloads::box_u64_unobserved);
        assert_eq!(
            (dhat.allocs(), dhat.bytes_allocated(), dhat.deallocs()),
            (1, 8, 1)
        );
    }
}
