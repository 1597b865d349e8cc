//! A2–A4: how a growing vector uses its allocator, counted.

use std::hint::black_box;

use allocator_api2::alloc::Global;
use lab::fmt::thousands;
use lab::report::{Function, Run};
use lab::table::{Cell, Columns};
use lab::{AllocStats, Kind, Table, count};

use super::SEED_ITALIC;
use crate::allocators::{Calls, Counting, NeverInPlace, Through, push_in};
use crate::growth::{
    BumpGrowth, ZIG_CACHE_LINE, bump_vec_grown_across_chunks, bump_vec_grown_alone,
    bump_vec_grown_with_a_neighbour, push_growth, zig_array_list_growth,
};
use crate::{N, bump_with_capacity, one_allocation, push_no_reserve, push_reserved};

pub(super) const A2: Function = lab::function!(a2_growth);
pub(super) const A3: Function = lab::function!(a3_reserve_once);
pub(super) const A4: Function = lab::function!(a4_allocators);
pub(super) const A4_BUMP: Function = lab::function!(a4_bump_growth);

fn a2_growth(run: &Run) -> Vec<Table> {
    let mut table = run.table(&[
        "workload",
        "allocations",
        "growths",
        "bytes allocated",
        "seed",
    ]);
    let counted = |label: String, s: AllocStats, seed: Option<&str>| {
        vec![
            Cell::text(label),
            Cell::Count(s.allocs),
            Cell::Count(s.reallocs),
            Cell::Bytes(s.bytes_allocated),
            seed.map_or(Cell::Empty, |text| Cell::Seed(text.into())),
        ]
    };
    let (_, nodes) = count(|| black_box(push_no_reserve::<0>(black_box(N))));
    table.row(counted(
        "200,000 × `Vec<Node>::push` (16-byte nodes)".to_owned(),
        nodes,
        None,
    ));
    // Chapter 1's workload, the same function M1 counts.
    for (n, seed) in [
        (100_000usize, "its test: allocs + remaps > 10"),
        (200_000, "its test: 15 < growths < 40"),
    ] {
        let (_, s) = count(|| black_box(lab_chapter::workloads::push_u64(black_box(n))).capacity());
        table.row(counted(
            format!("{} × `Vec<u64>::push`", thousands(n as u64)),
            s,
            Some(seed),
        ));
    }
    for (n, seed) in [
        (
            100_000usize,
            "its first test expected 1 alloc + 21 remaps here, and counted 19 allocs",
        ),
        (200_000, "its benchmark: 1 alloc + 21 remaps"),
    ] {
        let zig = zig_array_list_growth(n, size_of::<u64>());
        table.row(vec![
            Cell::text(format!(
                "{} appends to Zig's `ArrayList(u64)`, computed from its growth rule",
                thousands(n as u64)
            )),
            Cell::Count(1),
            Cell::count(zig.growths()),
            Cell::Empty,
            Cell::Seed(seed.into()),
        ]);
    }
    let growth = push_growth(N);
    table.note(format!(
        "`Vec` starts at 4 elements (for elements of 2 bytes to 1 KiB) and doubles — `std`'s current implementation, not a documented guarantee: `arena::growth::push_growth(200,000)` sees the first allocation and {} growths, up to {} nodes.",
        growth.growths(),
        thousands(growth.final_capacity as u64),
    ));
    table.note(format!(
        "Zig's `ArrayList` grows to `old + old / 2 + init_capacity`, where `init_capacity` is {} bytes (the cache line, `std.atomic.cache_line`) over the element size: {} `u64`s.",
        ZIG_CACHE_LINE,
        ZIG_CACHE_LINE / size_of::<u64>(),
    ));
    table.note(format!(
        "`arena::growth::zig_array_list_growth` computes its rows: it gives the seed's 21 remaps at 200,000, and shows that 100,000 appends grow only {} times, so the seed's first test could not count 21 under any allocator.",
        zig_array_list_growth(100_000, size_of::<u64>()).growths(),
    ));
    table.note(format!(
        "What reserving saves: {} calls to the allocator; the nodes the growths carry over, at most {} if every growth copied its block (a growth in place, or glibc's `mremap` of a large block, copies nothing: A4); and memory: {} nodes pushed end in a block of {} nodes, reserved they take exactly {} (A3).",
        growth.growths(),
        thousands(growth.elements_carried as u64),
        thousands(N as u64),
        thousands(growth.final_capacity as u64),
        thousands(N as u64),
    ));
    table.note("*Bytes allocated* is the counter's sum of allocation sizes and growths, which for a vector that only grows is its final capacity in bytes; a growth is a capacity change after the first allocation (the seed's test counts both).");
    table.note(SEED_ITALIC);
    vec![table]
}

fn a3_reserve_once(run: &Run) -> Vec<Table> {
    let mut table = run.table(&[
        "workload",
        "allocations",
        "reallocations",
        "deallocations",
        "bytes allocated",
    ]);
    for (label, f) in [
        (
            "`Vec::with_capacity(200,000)` then push",
            push_reserved::<0> as fn(usize) -> u64,
        ),
        (
            "`(0..n).map(node).collect::<Box<[Node]>>()`",
            one_allocation::<0>,
        ),
        (
            "`Bump::with_capacity` then one `alloc` per item",
            bump_with_capacity::<0>,
        ),
    ] {
        let s = count(|| black_box(f(black_box(N)))).1;
        table.row(vec![
            Cell::text(label),
            Cell::Count(s.allocs),
            Cell::Count(s.reallocs),
            Cell::Count(s.deallocs),
            Cell::Bytes(s.bytes_allocated),
        ]);
    }
    table.note("The bump arena's chunk is the requested capacity plus bumpalo's own footer, rounded; everything else is exactly N × 16 bytes.");
    vec![table]
}

/// The same 200,000 pushes through an allocator passed as a parameter.
fn calls_through<A: allocator_api2::alloc::Allocator>(alloc: A) -> Calls {
    let counting = Counting::new(alloc);
    black_box(push_in(N, &counting));
    counting.calls()
}

fn a4_allocators(run: &Run) -> Vec<Table> {
    let (_, glibc) = count(|| black_box(push_no_reserve::<0>(black_box(N))));
    let seen_by_lab = Calls {
        allocs: glibc.allocs,
        grown_in_place: glibc.grown_in_place,
        extended: 0,
        moved: glibc.moved,
        shrunk: glibc.shrunk,
        frees: glibc.deallocs,
    };
    let bump = bumpalo::Bump::new();
    // The label, the calls, and whether the counter sees blocks (not only pointers).
    let rows: [(&str, Calls, bool); 5] = [
        (
            "the global allocator (glibc `realloc`), seen by `lab::CountingAlloc`",
            seen_by_lab,
            false,
        ),
        (
            "`Global` through `allocator_api2` (the same glibc `realloc`)",
            calls_through(Global),
            true,
        ),
        (
            "mimalloc's `realloc` through `allocator_api2` (`Through(Mimalloc)`)",
            calls_through(Through(lab::alloc::Mimalloc)),
            true,
        ),
        (
            "`NeverInPlace`: every growth is allocate, copy, free (the extreme case of Zig's `DebugAllocator`)",
            calls_through(NeverInPlace),
            true,
        ),
        (
            "`&bumpalo::Bump` (`Bump::new()`: its first chunks are small)",
            calls_through(&bump),
            true,
        ),
    ];
    type Row<'a> = (&'a str, Calls, bool);
    let mut table = run.own(
        Columns::new()
            .col("allocator", |(label, ..): &Row<'_>| Cell::text(*label))
            .col("allocations", |(_, c, _): &Row<'_>| Cell::Count(c.allocs))
            .col("grown in place", |(_, c, _): &Row<'_>| {
                Cell::Count(c.grown_in_place)
            })
            .col(
                "extended (new start, same block)",
                |(_, c, sees_blocks): &Row<'_>| {
                    if *sees_blocks {
                        Cell::Count(c.extended)
                    } else {
                        Cell::Empty
                    }
                },
            )
            .col("moved to a new address", |(_, c, _): &Row<'_>| {
                Cell::Count(c.moved)
            })
            .col("frees", |(_, c, _): &Row<'_>| Cell::Count(c.frees))
            .table("A4", Kind::Fact, "", &rows),
    );
    table.note("Whether glibc grows a block in place depends on the heap at that moment, so the split of the first two rows can differ between runs and between processes; the total number of growths cannot.");
    table.note("*Moved* is not *copied* for glibc: a block above its mmap threshold (`M_MMAP_THRESHOLD`, `mallopt(3)`) is a mapping of its own, and `realloc` grows it with `mremap`, which may give the same pages a new address without copying a byte.");
    table.note("The threshold rises each time the process frees such a block, so whether a growth is a copy, an `mremap` or in place also depends on what the process did before.");
    table.note("The other rows do not depend on the heap: mimalloc's `realloc` keeps a block only when the new size fits in it, which no doubling here does; `NeverInPlace` never keeps one; a `Bump` extends its last allocation while the chunk has room.");
    table.note("That is why this table is a fact of this run and not re-checked, and why the tests pin glibc's totals and the other rows' splits.");
    table.note("*Extended*: the new block starts lower in the same chunk and contains the old one, so nothing is left behind, although the data still moves down (one `memmove`); `lab::CountingAlloc` compares pointers only, so the first row cannot tell (—).");
    table.note("The seed's lesson: its test expected \"1 alloc + 21 remaps\", as its benchmark had measured, and counted 19 allocations, because `std.testing.allocator` is a `DebugAllocator`, which deliberately does not reuse addresses, so growing in place usually fails.");
    table.note(format!(
        "The test also ran 100,000 appends, not the benchmark's 200,000: by `ArrayList`'s growth rule those grow only {} times (A2), so its 21 could not have held under any allocator.",
        zig_array_list_growth(100_000, size_of::<u64>()).growths(),
    ));
    vec![table]
}

fn a4_bump_growth(run: &Run) -> Vec<Table> {
    let rows: [(&str, BumpGrowth); 3] = [
        ("alone in an arena sized up front", bump_vec_grown_alone(N)),
        (
            "one small allocation after every capacity change",
            bump_vec_grown_with_a_neighbour(N),
        ),
        ("alone in `Bump::new()`", bump_vec_grown_across_chunks(N)),
    ];
    let mut table = run.own(
        Columns::new()
            .col("how the vector grew", |(label, _): &(&str, BumpGrowth)| {
                Cell::text(*label)
            })
            .col("growths", |(_, g): &(&str, BumpGrowth)| {
                Cell::count(g.growths)
            })
            .col("extended in place", |(_, g): &(&str, BumpGrowth)| {
                Cell::count(g.extended)
            })
            .col("chunks", |(_, g): &(&str, BumpGrowth)| {
                Cell::count(g.chunks)
            })
            .col("final capacity", |(_, g): &(&str, BumpGrowth)| {
                Cell::bytes(g.final_capacity_bytes)
            })
            .col(
                "garbage left in the arena",
                |(_, g): &(&str, BumpGrowth)| Cell::bytes(g.garbage_bytes),
            )
            .table("A4-bump", Kind::Count, "", &rows),
    );
    let alone = &rows[0].1;
    table.note(format!(
        "A `bumpalo::collections::Vec` starts at one element and doubles: the first allocation and {} growths, to {} nodes.",
        alone.growths,
        thousands((alone.final_capacity_bytes / size_of::<arena::Node>()) as u64),
    ));
    table.note("A growth extends the block in place only if the vector is the arena's last allocation and its chunk has room; otherwise it copies the vector to a new block and the old one stays behind as garbage until the arena is reset or dropped.");
    table.note("Garbage is every byte the arena handed out that no live value uses; the \"sized up front\" arenas have room for every block the vector ever needs.");
    vec![table]
}
