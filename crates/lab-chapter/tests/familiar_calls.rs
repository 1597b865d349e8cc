//! M1: what familiar calls cost, counted exactly by `lab::CountingAlloc`: the workloads of the
//! M1 table, one test per row.

use lab::count;
use lab_chapter::workloads;

#[global_allocator]
static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();

/// Miri interprets every instruction: the growth claim holds from 20,000 pushes on (13 growths),
/// so Miri checks it there and the native run checks the seed's 200,000.
const PUSHES: usize = if cfg!(miri) {
    20_000
} else {
    workloads::PUSHES
};

/// M1: `format!` of the order line starts from nothing and grows 8 → 32 → 64 bytes.
#[test]
fn format_of_the_order_line_is_one_allocation_and_two_reallocations() {
    let (line, stats) = count(workloads::format_order_line);
    assert_eq!(line.len(), 41);
    assert_eq!(
        (stats.allocs, stats.reallocs, stats.bytes_allocated),
        (1, 2, 64)
    );
}

/// M1's published counts of one row (the committed snapshot, which `cargo xtask report --check`
/// keeps equal to the release binary's run): allocations, reallocations, deallocations, bytes
/// allocated, peak live bytes.
fn published_m1_row(row: &str) -> (u64, u64, u64, u64, u64) {
    let snapshot = lab::report::Snapshot::published("lab").unwrap();
    let number = |column: &str| match snapshot.published_cell("M1", row, column).unwrap() {
        lab::Cell::Count(n) | lab::Cell::Bytes(n) => *n,
        other => panic!("M1 at {row}, {column}: not a count: {other:?}"),
    };
    (
        number("allocations"),
        number("reallocations"),
        number("deallocations"),
        number("bytes allocated"),
        number("peak live bytes"),
    )
}

/// M1's first row and what it must read: one allocation of 8 bytes, live to the end of the count.
const BOX_ROW: &str = "`Box::new(0u64)`";
const ONE_BOX: (u64, u64, u64, u64, u64) = (1, 0, 0, 8, 8);

/// M1's second row: the first row's call with its value dropped inside `count`.
const UNOBSERVED_ROW: &str = "`drop(Box::new(0u64))`, the value never observed";

/// M1 as published: the release binary's `Box::new(0u64)` row is one allocation of 8 bytes, so
/// an optimiser that deletes the box (a value dropped inside `count`) fails here, not only in the
/// test profile.
#[test]
#[cfg_attr(miri, ignore = "reads docs/data; Miri isolates the file system")]
fn m1_published_box_u64_row_is_one_allocation_of_8_bytes() {
    assert_eq!(published_m1_row(BOX_ROW), ONE_BOX);
}

/// M1 as published: the other rows the chapter explains, as the release binary counted them.
#[test]
#[cfg_attr(miri, ignore = "reads docs/data; Miri isolates the file system")]
fn m1_published_rows_are_the_counts_the_chapter_explains() {
    let rows = [
        ("`Vec::<u8>::with_capacity(128)`", (1, 0, 0, 128, 128)),
        // Nine Thai characters, three bytes of UTF-8 each.
        ("`String::from(\"ต้มยำกุ้ง\")`", (1, 0, 0, 27, 27)),
        // Capacity 4 doubled 16 times to 262,144 `u64`s; growth adds up to the final capacity.
        (
            "200,000 × `Vec::<u64>::push`, no reserve",
            (1, 16, 0, 2_097_152, 2_097_152),
        ),
        // 8, then 32, then 64 bytes for the 41-byte line.
        (
            "`format!(\"{order_id}|{item}|{qty}|{unit_price}\\n\")`",
            (1, 2, 0, 64, 64),
        ),
    ];
    for (row, counts) in rows {
        assert_eq!(published_m1_row(row), counts, "M1 row {row}");
    }
}

/// M1: the regression the published pin exists for. The second row is the first row's call with
/// its value dropped inside `count`: the release binary counted 0 allocations there, which the
/// first row's pin (`ONE_BOX`) rejects, while the same call counted in the test profile, where
/// no optimiser runs, still allocates, so a pin re-derived in a test would have passed.
#[test]
#[cfg_attr(miri, ignore = "reads docs/data; Miri isolates the file system")]
fn m1_published_pin_catches_a_box_dropped_inside_count_that_a_test_profile_count_misses() {
    let regressed = published_m1_row(UNOBSERVED_ROW);
    assert_eq!(
        regressed,
        (0, 0, 0, 0, 0),
        "the release build removed the box"
    );
    assert_ne!(regressed, ONE_BOX);
    if cfg!(debug_assertions) {
        // The test profile (`cargo test --release` is left out: there the optimiser decides).
        let ((), stats) = count(workloads::box_u64_unobserved);
        assert_eq!((stats.allocs, stats.bytes_allocated), (1, 8));
    }
}

/// M1: `Box::new(0u64)` is one allocation of 8 bytes, freed by one deallocation.
#[test]
fn box_u64_is_one_allocation_of_8_bytes() {
    let (boxed, stats) = count(workloads::box_u64);
    assert_eq!(
        (stats.allocs, stats.bytes_allocated, stats.reallocs),
        (1, 8, 0)
    );
    let ((), freed) = count(|| drop(boxed));
    assert_eq!((freed.deallocs, freed.bytes_freed, freed.allocs), (1, 8, 0));
}

/// M1: `Vec::<u8>::with_capacity(128)` is one allocation of 128 bytes.
#[test]
fn vec_with_capacity_128_is_one_allocation_of_128_bytes() {
    let (vec, stats) = count(workloads::vec_with_capacity_128);
    assert_eq!((stats.allocs, stats.bytes_allocated), (1, 128));
    assert_eq!(vec.capacity(), 128);
}

/// M1: nine Thai characters are 27 bytes of UTF-8, one allocation.
#[test]
fn thai_string_is_27_bytes() {
    let (s, stats) = count(workloads::thai_string);
    assert_eq!((stats.allocs, stats.bytes_allocated), (1, 27));
    assert_eq!(s.chars().count(), 9);
}

/// M1: 200,000 pushes are one allocation and a few reallocations, never alloc/free pairs.
#[test]
fn a_grown_vec_reports_reallocations_not_alloc_free_pairs() {
    let (values, stats) = count(|| workloads::push_u64(PUSHES));
    assert_eq!(stats.allocs, 1, "only the first push allocates");
    assert_eq!(stats.deallocs, 0, "growth never frees: realloc is one call");
    if !cfg!(miri) {
        // 200,000 pushes: capacity 4 doubled 16 times to 262,144.
        assert_eq!(stats.reallocs, 16);
        assert_eq!(stats.bytes_allocated, 2_097_152);
    }
    assert!(
        stats.reallocs > 10 && stats.reallocs < 40,
        "{} reallocations",
        stats.reallocs
    );
    assert_eq!(
        stats.reallocs,
        stats.grown_in_place + stats.moved + stats.shrunk
    );
    assert_eq!(stats.shrunk, 0);
    // Growth bytes add up to the final capacity.
    assert_eq!(stats.bytes_allocated, values.capacity() as u64 * 8);
    assert_eq!(stats.peak_live_bytes, stats.bytes_allocated);
}
