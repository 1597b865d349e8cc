//! The counted tables as published: each test reads the committed snapshot
//! (`docs/data/pool.json`), which `cargo xtask report --check` keeps equal to what the release
//! experiments binary counts, and checks its headline rows against what the counts must be. So a
//! figure the optimiser changed in release (an allocation deleted because its value was dropped
//! inside `count`) fails here, not only in the test profile, where the other pins run.
//!
//! Miri isolates the file system, so these tests do not run under it.

use lab::Cell;
use lab::report::Snapshot;

fn published() -> Snapshot {
    Snapshot::published("pool").unwrap()
}

/// The published cell of table `id` at the row whose first cell renders as `row`.
fn cell(snapshot: &Snapshot, id: &str, row: &str, column: &str) -> Cell {
    snapshot.published_cell(id, row, column).unwrap().clone()
}

/// The published cell of table `id` at the row whose first two cells render as `key`.
fn cell_at(snapshot: &Snapshot, id: &str, key: [&str; 2], column: &str) -> Cell {
    let table = snapshot.table(id).unwrap();
    let row = table
        .rows
        .iter()
        .position(|r| r.len() > 1 && [r[0].render(), r[1].render()] == key)
        .unwrap_or_else(|| panic!("{id} has no row {key:?}"));
    table.cell(row, column).unwrap().clone()
}

fn bytes(cell: &Cell) -> u64 {
    match cell {
        Cell::Bytes(n) => *n,
        other => panic!("not a byte count: {other:?}"),
    }
}

/// P1 as published: one fresh 128-byte buffer per line is 128 bytes per line at every N, a
/// warm rent and give-back 0, and a stack array 0.
#[test]
#[cfg_attr(miri, ignore = "reads the snapshot: Miri isolates the file system")]
fn p1_published_fresh_lines_cost_128_bytes_each_and_pooled_or_stack_lines_0() {
    let snapshot = published();
    for e in 0..=6 {
        let n = 10u64.pow(e);
        let row = Cell::Count(n).render();
        assert_eq!(
            cell(&snapshot, "P1", &row, "fresh `vec![0u8; 128]`"),
            Cell::Bytes(128 * n),
            "N = {n}"
        );
        for column in [
            "rent/give back (`pool::shared()`)",
            "stack array `[0u8; 128]`",
        ] {
            assert_eq!(
                cell(&snapshot, "P1", &row, column),
                Cell::Bytes(0),
                "{column}, N = {n}"
            );
        }
    }
}

/// P3 and P3-curve as published: the baseline `vec![0u8; 128]` is one allocation of 128 bytes;
/// a thread's first rent is 3 allocations for its cache plus the buffer, and every later rent
/// of the size is free; the curve's pooled line is the one-off total of P3's first three steps,
/// and it falls below the fresh line at the first round whose 128 bytes per round exceed it.
#[test]
#[cfg_attr(miri, ignore = "reads the snapshot: Miri isolates the file system")]
fn p3_published_the_one_off_cost_is_paid_once_and_the_curve_crosses_where_it_must() {
    let snapshot = published();
    let step = |row: &str, column: &str| cell(&snapshot, "P3", row, column);
    let baseline = "baseline: `vec![0u8; 128]`";
    assert_eq!(step(baseline, "bytes allocated"), Cell::Bytes(128));
    assert_eq!(step(baseline, "allocations"), Cell::Count(1));
    let first = "first `rent(128)` on this thread";
    assert_eq!(step(first, "allocations"), Cell::Count(3 + 1));
    assert!(bytes(&step(first, "bytes allocated")) > 128);
    for later in ["… its give-back", "second `rent(128)`", "third `rent(128)`"] {
        assert_eq!(step(later, "bytes allocated"), Cell::Bytes(0), "{later}");
        assert_eq!(step(later, "allocations"), Cell::Count(0), "{later}");
    }
    assert_eq!(
        step("first `rent(1024)` in the warm pool", "bytes allocated"),
        Cell::Bytes(1024)
    );
    let one_off: u64 = [
        "`BufferPool::<u8>::new(PoolConfig::default())`",
        first,
        "… its give-back",
    ]
    .iter()
    .map(|row| bytes(&step(row, "bytes allocated")))
    .sum();
    let curve = snapshot.table("P3-curve").unwrap();
    for (i, row) in curve.rows.iter().enumerate() {
        let round = i as u64 + 1;
        assert_eq!(row[0], Cell::Count(round));
        assert_eq!(row[1], Cell::Bytes(128 * round), "fresh, round {round}");
        assert_eq!(row[2], Cell::Bytes(one_off), "pooled, round {round}");
        assert_eq!(row[3], Cell::Bool(one_off < 128 * round), "round {round}");
    }
}

/// P6 as published: a `?` gives every buffer back (0 bytes); forgetting the guard on 10,000
/// failing lines allocates one 128-byte buffer for every line past the pool's 51 spares, none of
/// them freed, and leaves 10,000 buffers never given back.
#[test]
#[cfg_attr(miri, ignore = "reads the snapshot: Miri isolates the file system")]
fn p6_published_forgetting_the_guard_costs_128_bytes_per_line_past_the_spares() {
    let snapshot = published();
    let forgot = ["10,000", "`mem::forget(buf)` on the error path"];
    let leaked = Cell::Bytes((10_000 - 51) * 128);
    assert_eq!(cell_at(&snapshot, "P6", forgot, "bytes allocated"), leaked);
    assert_eq!(
        cell_at(&snapshot, "P6", forgot, "bytes still live after"),
        leaked
    );
    assert_eq!(
        cell_at(&snapshot, "P6", forgot, "buffers never given back"),
        Cell::Count(10_000)
    );
    for n in ["10", "10,000"] {
        let early = [n, "`?` early return (the guard gives back)"];
        assert_eq!(
            cell_at(&snapshot, "P6", early, "bytes allocated"),
            Cell::Bytes(0)
        );
        assert_eq!(
            cell_at(&snapshot, "P6", early, "buffers never given back"),
            Cell::Count(0)
        );
        let panicked = [n, "panic, caught (the guard gives back while unwinding)"];
        assert_eq!(
            cell_at(&snapshot, "P6", panicked, "bytes still live after"),
            Cell::Bytes(0)
        );
    }
}

/// P7 as published: up to the limit a round costs nothing; beyond it, every extra buffer costs
/// exactly its 128 bytes per round, in both pools.
#[test]
#[cfg_attr(miri, ignore = "reads the snapshot: Miri isolates the file system")]
fn p7_published_every_buffer_beyond_the_limit_costs_128_bytes_per_round() {
    let snapshot = published();
    for excess in [-1i64, 0, 1, 3, 255] {
        let row = Cell::Signed(excess).render();
        let expected = Cell::Bytes(128 * excess.max(0) as u64);
        for column in [
            "bytes per round (`PoolConfig::default()`)",
            "bytes per round (shared configuration)",
        ] {
            assert_eq!(
                cell(&snapshot, "P7", &row, column),
                expected,
                "{row}, {column}"
            );
        }
    }
}

/// P8 as published: the largest bucket is kept and rented again for nothing; one element above
/// it is an exact-size allocation that is not kept.
#[test]
#[cfg_attr(miri, ignore = "reads the snapshot: Miri isolates the file system")]
fn p8_published_the_largest_bucket_is_kept_and_one_more_byte_is_exact_size() {
    let snapshot = published();
    let ceiling = |row: &str, column: &str| cell(&snapshot, "P8", row, column);
    for kept in [
        "shared configuration, `rent(16 MiB)`",
        "`PoolConfig::default()`, `rent(1 MiB)`",
    ] {
        assert_eq!(ceiling(kept, "kept when given back?"), Cell::Bool(true));
        assert_eq!(
            ceiling(kept, "bytes allocated by the second rent"),
            Cell::Bytes(0)
        );
    }
    for (above, n) in [
        ("shared configuration, `rent(16 MiB + 1)`", (16 << 20) + 1),
        ("`PoolConfig::default()`, `rent(1 MiB + 1)`", (1 << 20) + 1),
    ] {
        assert_eq!(ceiling(above, "kept when given back?"), Cell::Bool(false));
        assert_eq!(
            ceiling(above, "bytes allocated by the second rent"),
            Cell::Bytes(n)
        );
        assert_eq!(ceiling(above, "capacity"), Cell::Count(n));
    }
}

/// P9 as published: a `vec![0u8; 64]` per call is 64 bytes allocated and freed, a warm rent
/// and a stack array nothing; one 8 MiB rent allocates at least its buffer, which the pool holds
/// until `trim()` frees everything it allocated.
#[test]
#[cfg_attr(miri, ignore = "reads the snapshot: Miri isolates the file system")]
fn p9_published_small_buffers_and_the_8_mib_rent_count_what_they_must() {
    let snapshot = published();
    let kept = |row: &str, column: &str| cell(&snapshot, "P9", row, column);
    let fresh = "`vec![0u8; 64]`, per call";
    assert_eq!(kept(fresh, "bytes allocated"), Cell::Bytes(64));
    assert_eq!(kept(fresh, "bytes freed"), Cell::Bytes(64));
    for free in [
        "`rent(64)` + give back, per call (a warm pool, 1,000 calls)",
        "stack array `[0u8; 64]`, per call",
        "the per-rent object, per call: a `Rented<u8>` guard, which lives on the stack",
    ] {
        assert_eq!(kept(free, "bytes allocated"), Cell::Bytes(0), "{free}");
    }
    let big =
        "`rent(8 MiB)` + give back, once: above the thread-cache limit, so onto the shared stack";
    let allocated = bytes(&kept(big, "bytes allocated"));
    assert!(allocated >= 8 << 20);
    assert_eq!(
        kept(big, "bytes the pool holds after"),
        Cell::Bytes(8 << 20)
    );
    // The first "… then `trim()`" row is the one after the 8 MiB rent.
    let trim = "… then `trim()`";
    assert_eq!(kept(trim, "bytes freed"), Cell::Bytes(allocated));
    assert_eq!(kept(trim, "bytes the pool holds after"), Cell::Bytes(0));
}
