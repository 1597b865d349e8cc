//! Chapter 4's counted tables as published: each test reads a cell of the committed snapshot
//! (`docs/data/arena.json`), which `cargo xtask report --check` keeps equal to what the release
//! experiments binary counts. A table and its pin therefore cannot disagree, and a count the
//! optimiser removes in release (a value dropped unused inside `count`) fails here even when the
//! test profile, which keeps it, passes the tests in `arena.rs`.

use arena_chapter::{N, WAYS, Way, ways};
use lab::report::Snapshot;
use lab::{Cell, count};

#[global_allocator]
static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();

/// The committed snapshot.
fn published() -> Snapshot {
    Snapshot::published("arena").unwrap()
}

/// The published cell of table `id` at `row` and `column`.
fn cell(snapshot: &Snapshot, id: &str, row: &str, column: &str) -> Cell {
    snapshot.published_cell(id, row, column).unwrap().clone()
}

/// The published counts of table `id` at `row`, in `columns`.
fn counts(snapshot: &Snapshot, id: &str, row: &str, columns: &[&str]) -> Vec<Cell> {
    columns
        .iter()
        .map(|column| cell(snapshot, id, row, column))
        .collect()
}

/// `Cell::Count`s.
fn n(values: &[u64]) -> Vec<Cell> {
    values.iter().copied().map(Cell::Count).collect()
}

const CALLS: [&str; 3] = ["allocations", "reallocations", "deallocations"];

/// A1-counts as published: the seed's headline, one `Box` per item, is 200,001 allocations and
/// 200,001 deallocations (the nodes and the `Vec` of pointers); the arena is 2 chunks.
#[test]
#[cfg_attr(miri, ignore = "reads docs/data; Miri isolates the file system")]
fn a1_counts_published_box_per_item_is_200001_allocations_and_bumpalo_2() {
    let a1 = published();
    let row = |way: Way| counts(&a1, "A1-counts", way.label, &CALLS);
    assert_eq!(row(ways::BOX_PER_ITEM), n(&[200_001, 0, 200_001]));
    assert_eq!(row(ways::BUMP_PER_ITEM), n(&[2, 0, 2]));
    assert_eq!(row(ways::BUMP_THROUGH_DYN), n(&[2, 0, 2]));
    assert_eq!(row(ways::BUMP_WITH_CAPACITY), n(&[1, 0, 1]));
}

/// A1-counts as published: every contiguous row is one allocation and one free, not zero — the
/// release build keeps each of them — and the reused `Vec` none in its run.
#[test]
#[cfg_attr(miri, ignore = "reads docs/data; Miri isolates the file system")]
fn a1_counts_published_contiguous_rows_are_one_allocation_and_the_reused_vec_none() {
    let a1 = published();
    let row = |way: Way| counts(&a1, "A1-counts", way.label, &CALLS);
    for way in [
        ways::PUSH_RESERVED,
        ways::ONE_ALLOCATION,
        ways::U64S_EXTENDED,
    ] {
        assert_eq!(row(way), n(&[1, 0, 1]), "{}", way.name);
    }
    assert_eq!(row(ways::PUSH_NO_RESERVE), n(&[1, 16, 1]));
    assert_eq!(row(ways::REUSED_VEC), n(&[0, 0, 0]));
}

/// A1-counts as published, every row: the release binary's counts equal this test binary's for
/// every way, so no way's allocation is an artefact of the profile it was counted in.
#[test]
#[cfg_attr(miri, ignore = "reads docs/data; Miri isolates the file system")]
fn a1_counts_published_rows_are_what_the_test_profile_counts() {
    let a1 = published();
    let mut differ = Vec::new();
    for way in WAYS {
        let mut runner = way.runner(N);
        let (_, s) = count(|| runner.run(N));
        let here = n(&[s.allocs, s.reallocs, s.deallocs]);
        let row: Result<Vec<Cell>, String> = CALLS
            .iter()
            .map(|column| a1.published_cell("A1-counts", way.label, column).cloned())
            .collect();
        if row.as_ref() != Ok(&here) {
            differ.push(format!("{}: published {row:?}, counted {here:?}", way.name));
        }
    }
    assert!(differ.is_empty(), "{differ:#?}");
}

/// A2 as published: 200,000 pushes of 16-byte nodes are the first allocation and 16 growths to a
/// 4 MiB block; chapter 1's `u64` pushes are 15 growths at 100,000 and 16 at 200,000; Zig's
/// growth rule gives 19 and the seed's 21.
#[test]
#[cfg_attr(miri, ignore = "reads docs/data; Miri isolates the file system")]
fn a2_published_growths_are_16_for_200000_pushes_and_zigs_rule_21() {
    let a2 = published();
    let row = |label: &str| {
        counts(
            &a2,
            "A2",
            label,
            &["allocations", "growths", "bytes allocated"],
        )
    };
    assert_eq!(
        row("200,000 × `Vec<Node>::push` (16-byte nodes)"),
        [Cell::Count(1), Cell::Count(16), Cell::Bytes(4_194_304)]
    );
    assert_eq!(
        row("100,000 × `Vec<u64>::push`"),
        [Cell::Count(1), Cell::Count(15), Cell::Bytes(1_048_576)]
    );
    assert_eq!(
        row("200,000 × `Vec<u64>::push`"),
        [Cell::Count(1), Cell::Count(16), Cell::Bytes(2_097_152)]
    );
    for (n, growths) in [("100,000", 19), ("200,000", 21)] {
        let label = format!("{n} appends to Zig's `ArrayList(u64)`, computed from its growth rule");
        assert_eq!(cell(&a2, "A2", &label, "growths"), Cell::Count(growths));
    }
}

/// A3 as published: reserved or collected, the nodes are one allocation of exactly N × 16 bytes
/// and no growth; the sized arena is one chunk, the same bytes as this test binary's.
#[test]
#[cfg_attr(miri, ignore = "reads docs/data; Miri isolates the file system")]
fn a3_published_reserving_is_one_allocation_of_n_nodes() {
    let a3 = published();
    let columns = [
        "allocations",
        "reallocations",
        "deallocations",
        "bytes allocated",
    ];
    let nodes = Cell::Bytes(N as u64 * 16);
    for label in [
        "`Vec::with_capacity(200,000)` then push",
        "`(0..n).map(node).collect::<Box<[Node]>>()`",
    ] {
        assert_eq!(
            counts(&a3, "A3", label, &columns),
            [
                Cell::Count(1),
                Cell::Count(0),
                Cell::Count(1),
                nodes.clone()
            ],
            "{label}"
        );
    }
    let mut sized = ways::BUMP_WITH_CAPACITY.runner(N);
    let (_, s) = count(|| sized.run(N));
    assert_eq!(
        counts(
            &a3,
            "A3",
            "`Bump::with_capacity` then one `alloc` per item",
            &columns
        ),
        [
            Cell::Count(1),
            Cell::Count(0),
            Cell::Count(1),
            Cell::Bytes(s.bytes_allocated)
        ]
    );
}

/// A4-bump as published: a vector grown alone in a sized arena extends in place 18 times and
/// leaves nothing; a neighbour after each growth leaves every old block; `Bump::new()`'s small
/// chunks, 15 of them, leave nearly as much.
#[test]
#[cfg_attr(miri, ignore = "reads docs/data; Miri isolates the file system")]
fn a4_bump_published_a_vector_grown_alone_leaves_no_garbage() {
    let a4 = published();
    let row = |label: &str| {
        counts(
            &a4,
            "A4-bump",
            label,
            &[
                "growths",
                "extended in place",
                "chunks",
                "final capacity",
                "garbage left in the arena",
            ],
        )
    };
    let grown = |extended, chunks, garbage| {
        vec![
            Cell::Count(18),
            Cell::Count(extended),
            Cell::Count(chunks),
            Cell::Bytes(4_194_304),
            Cell::Bytes(garbage),
        ]
    };
    assert_eq!(row("alone in an arena sized up front"), grown(18, 1, 0));
    assert_eq!(
        row("one small allocation after every capacity change"),
        grown(0, 1, 4_194_288)
    );
    assert_eq!(row("alone in `Bump::new()`"), grown(4, 15, 4_194_048));
}

/// A6-bytes as published: under churn the pool's peak is at most a tenth of the arena's, and one
/// `Box` per object allocates once per object (10,000 live, 1,000,000 created, and the `Vec` of
/// handles); create only, 200,000 objects and the `Vec`.
#[test]
#[cfg_attr(miri, ignore = "reads docs/data; Miri isolates the file system")]
fn a6_bytes_published_the_pool_holds_a_tenth_of_the_arena_under_churn() {
    let a6 = published();
    let peak = |label: &str| match cell(&a6, "A6-bytes", label, "peak live bytes") {
        Cell::Bytes(b) => b,
        other => panic!("{label}: {other:?}"),
    };
    let (pool, arena) = (
        peak("churn: free-list pool"),
        peak("churn: `bumpalo` (nothing can be freed)"),
    );
    assert!(pool * 10 <= arena, "{pool} vs {arena}");
    let allocations = |label: &str| cell(&a6, "A6-bytes", label, "allocations");
    assert_eq!(
        allocations("churn: one `Box` per object"),
        Cell::Count(1_010_001)
    );
    assert_eq!(
        allocations("create only: one `Box` per object"),
        Cell::Count(200_001)
    );
    assert_eq!(
        peak("create only: one `Box` per object"),
        N as u64 * (16 + 8),
        "the nodes and the `Vec` of handles"
    );
}

/// A7 as published: `Bump` runs no destructor, `typed-arena` and `bumpalo::boxed::Box` run all
/// 1,000; a `Vec` inside a `Bump` leaks its 8,000-byte buffer.
#[test]
#[cfg_attr(miri, ignore = "reads docs/data; Miri isolates the file system")]
fn a7_published_destructors_are_0_1000_1000_0_and_one_leak() {
    let a7 = published();
    let row = |label: &str| {
        counts(
            &a7,
            "A7",
            label,
            &["destructors run", "bytes still live after"],
        )
    };
    let freed = Cell::Bytes(0);
    assert_eq!(
        row("`bumpalo::Bump::alloc`"),
        [Cell::Count(0), freed.clone()]
    );
    assert_eq!(
        row("`typed_arena::Arena::alloc`"),
        [Cell::Count(1000), freed.clone()]
    );
    assert_eq!(
        row("`bumpalo::boxed::Box::new_in`"),
        [Cell::Count(1000), freed]
    );
    assert_eq!(
        row("a `Vec` of the values, the `Vec` itself in a `Bump`"),
        [Cell::Count(0), Cell::Bytes(8000)]
    );
}
