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

/// M1 as published: the release binary's `Box::new(0u64)` row is one allocation of 8 bytes, so
/// an optimiser that deletes the box (a value dropped inside `count`) fails here, not only in the
/// test profile.
#[test]
#[cfg_attr(
    miri,
    ignore = "reads the committed snapshot; Miri isolates the file system"
)]
fn m1_published_box_u64_row_is_one_allocation_of_8_bytes() {
    let m1 = lab::report::Snapshot::published("lab").unwrap();
    let cell = |column: &str| {
        m1.published_cell("M1", "`Box::new(0u64)`", column)
            .unwrap()
            .clone()
    };
    assert_eq!(cell("allocations"), lab::Cell::Count(1));
    assert_eq!(cell("bytes allocated"), lab::Cell::Bytes(8));
    assert_eq!(cell("reallocations"), lab::Cell::Count(0));
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
