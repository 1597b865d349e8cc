//! Chapter 4's experiments (A1–A7), run by `arena-experiments` under `cargo xtask report`.
//! Built only with the `experiments` feature.

use std::hint::black_box;

use allocator_api2::alloc::Global;
use lab::report::{Experiment, Settings};
use lab::timing::publish;
use lab::timing::{Config, Schedule, Timing};
use lab::{AllocStats, Cell, Kind, Table, count};

use crate::allocators::{Counting, NeverInPlace, push_in};
use crate::*;

/// Every experiment of chapter 4, in the order the chapter presents them.
pub const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        id: "A1",
        kind: Kind::Time,
        run: a1_the_seed_table,
    },
    Experiment {
        id: "A2",
        kind: Kind::Count,
        run: a2_growth,
    },
    Experiment {
        id: "A3",
        kind: Kind::Count,
        run: a3_reserve_once,
    },
    Experiment {
        id: "A4",
        kind: Kind::Fact,
        run: a4_allocators,
    },
    Experiment {
        id: "A5",
        kind: Kind::Fact,
        run: a5_any_allocator,
    },
    Experiment {
        id: "A6",
        kind: Kind::Time,
        run: a6_pool_vs_arena,
    },
    Experiment {
        id: "A6-bytes",
        kind: Kind::Count,
        run: a6_bytes,
    },
    Experiment {
        id: "A7",
        kind: Kind::Count,
        run: a7_drop,
    },
];

/// The precision a ratio must hold under twin swap to be printed in chapter 4.
pub const RATIO_PRECISION: f64 = 0.10;

const SEED_001: &str = "Seed figures (*italic*) are the Zig article's (`001`): Apple M5 Pro, macOS, Zig 0.16.0, `-O ReleaseFast`, `init.gpa`, N = 200,000 `u64`s, median of 15 runs; its counts are alloc / remap / resize / free through the allocator interface.";

/// `(label, workload, seed median, seed counts)`.
type Workload = (&'static str, fn(usize) -> u64, &'static str, &'static str);

const WORKLOADS: [Workload; 8] = [
    (
        "`Vec::push`, no reserve",
        push_no_reserve,
        "0.153 ms",
        "1 / 21 / 0 / 1",
    ),
    (
        "`Vec::with_capacity` then push",
        push_reserved,
        "0.102 ms",
        "1 / 0 / 0 / 1",
    ),
    (
        "one allocation (`Box<[Node]>`)",
        one_allocation,
        "0.102 ms",
        "1 / 0 / 0 / 1",
    ),
    (
        "one `Box` per item",
        box_per_item,
        "2.929 ms",
        "200,001 / 0 / 0 / 200,001",
    ),
    (
        "`bumpalo`, one `alloc` per item",
        bump_per_item,
        "0.950 ms",
        "2 / 0 / 523 / 2",
    ),
    (
        "`bumpalo`, `Bump::with_capacity`",
        bump_with_capacity,
        "",
        "",
    ),
    (
        "`typed-arena`, one `alloc` per item",
        typed_arena_per_item,
        "",
        "",
    ),
    (
        "free-list pool (`slab`), one slot per item",
        pool_per_item,
        "1.007 ms",
        "19 / 0 / 4,746 / 19",
    ),
];

fn counted(f: fn(usize) -> u64) -> AllocStats {
    count(|| black_box(f(black_box(N)))).1
}

fn a1_the_seed_table(settings: &Settings) -> Vec<Table> {
    let mut timing = Timing::new(Config::for_settings(settings));
    for (label, f, _, _) in WORKLOADS {
        timing.method(label, move || f(black_box(N)));
    }
    let m = timing.run(Schedule::Interleaved);
    let mut table = Table::new(
        "A1",
        Kind::Time,
        "N = 200,000 nodes, eight ways: time and what the allocator saw",
        &[
            "workload",
            "median",
            "twin disagreement",
            "allocations",
            "reallocations",
            "deallocations",
            "seed median",
            "seed alloc / remap / resize / free",
        ],
    );
    for (label, f, seed_time, seed_counts) in WORKLOADS {
        let r = m.method(label).expect("registered");
        let s = counted(f);
        let seed = |t: &str| {
            if t.is_empty() {
                Cell::Empty
            } else {
                Cell::Seed(t.into())
            }
        };
        table.row(vec![
            Cell::text(label),
            Cell::Nanos(r.median_ns),
            Cell::Percent(r.twin_disagreement_pct()),
            Cell::Count(s.allocs),
            Cell::Count(s.reallocs),
            Cell::Count(s.deallocs),
            seed(seed_time),
            seed(seed_counts),
        ]);
    }
    table.twins = m.methods.iter().map(|r| r.twin_record()).collect();
    table.note(m.protocol_note());
    let pair = |label: &str| m.method(label).expect("registered").pair();
    let boxed = pair(WORKLOADS[3].0);
    let bumped = pair(WORKLOADS[4].0);
    table.note(publish::ratio_note(
        "One `Box` per item / `bumpalo` per item",
        boxed,
        bumped,
        RATIO_PRECISION,
        "≥ 5×; the seed's Zig arena: 3.1×",
    ));
    table.note("Counts are from `lab::CountingAlloc` (a `realloc` is one reallocation, whether it grew in place or moved); a node is 16 bytes (two `u64`s), the seed's objects are single `u64`s.");
    table.note(SEED_001);
    vec![table]
}

fn a2_growth(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "A2",
        Kind::Count,
        "Growth is geometric: pushes without reserving",
        &[
            "workload",
            "allocations",
            "reallocations",
            "final capacity (bytes)",
            "seed",
        ],
    );
    // Chapter 1's workload, the same function M1 counts.
    let push_u64 = |n: usize| count(|| lab::workloads::push_u64(black_box(n)).capacity());
    let (_, nodes) = count(|| black_box(push_no_reserve(N)));
    table.row(vec![
        Cell::text("200,000 × `Vec<Node>::push` (16-byte nodes)"),
        Cell::Count(nodes.allocs),
        Cell::Count(nodes.reallocs),
        Cell::Bytes(nodes.bytes_allocated),
        Cell::Seed("ArrayList(u64), 200,000: 21 remaps".into()),
    ]);
    for n in [100_000usize, 200_000] {
        let (capacity, s) = push_u64(n);
        table.row(vec![
            Cell::text(format!(
                "{} × `Vec<u64>::push`",
                lab::table::thousands(n as u64)
            )),
            Cell::Count(s.allocs),
            Cell::Count(s.reallocs),
            Cell::bytes(capacity * 8),
            if n == 100_000 {
                Cell::Seed("test: 15 < growths < 40".into())
            } else {
                Cell::Empty
            },
        ]);
    }
    table.note("`Vec` starts at 4 elements (for element sizes from 2 bytes to 1 KiB) and doubles, so 200,000 pushes cost ⌈log₂(200,000 / 4)⌉ = 16 growths. Zig's `ArrayList` grows by a smaller factor, hence more growths (21) in the seed.");
    table.note("Pinned by `pushes_grow_geometrically_between_10_and_40_reallocations`.");
    vec![table]
}

fn a3_reserve_once(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "A3",
        Kind::Count,
        "Reserve once: one allocation, no growth",
        &[
            "workload",
            "allocations",
            "reallocations",
            "deallocations",
            "bytes allocated",
        ],
    );
    for (label, f) in [
        (
            "`Vec::with_capacity(200,000)` then push",
            push_reserved as fn(usize) -> u64,
        ),
        (
            "`(0..n).map(node).collect::<Box<[Node]>>()`",
            one_allocation,
        ),
        (
            "`Bump::with_capacity` then one `alloc` per item",
            bump_with_capacity,
        ),
    ] {
        let s = counted(f);
        table.row(vec![
            Cell::text(label),
            Cell::Count(s.allocs),
            Cell::Count(s.reallocs),
            Cell::Count(s.deallocs),
            Cell::Bytes(s.bytes_allocated),
        ]);
    }
    table.note("The bump arena's chunk is the requested capacity plus bumpalo's own footer, rounded; everything else is exactly N × 16 bytes. Pinned by `reserving_once_is_one_allocation_and_no_reallocation`.");
    vec![table]
}

fn a4_allocators(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "A4",
        Kind::Fact,
        "Same code, different allocator, different calls: 200,000 pushes without reserving",
        &[
            "allocator",
            "allocations",
            "grown in place",
            "moved",
            "frees",
        ],
    );
    let (_, glibc) = count(|| black_box(push_no_reserve(N)));
    table.row(vec![
        Cell::text("the global allocator (glibc `realloc`), seen by `lab::CountingAlloc`"),
        Cell::Count(glibc.allocs),
        Cell::Count(glibc.grown_in_place),
        Cell::Count(glibc.moved),
        Cell::Count(glibc.deallocs),
    ]);
    let global = Counting::new(Global);
    black_box(push_in(N, &global));
    let never = Counting::new(NeverInPlace);
    black_box(push_in(N, &never));
    let bump = bumpalo::Bump::new();
    let in_bump = Counting::new(&bump);
    black_box(push_in(N, &in_bump));
    for (label, calls) in [
        (
            "`Global` through `allocator_api2` (the same glibc `realloc`)",
            global.calls(),
        ),
        (
            "`NeverInPlace`: every growth is allocate, copy, free (like Zig's `DebugAllocator`)",
            never.calls(),
        ),
        ("`&bumpalo::Bump`", in_bump.calls()),
    ] {
        table.row(vec![
            Cell::text(label),
            Cell::Count(calls.allocs),
            Cell::Count(calls.grown_in_place),
            Cell::Count(calls.moved + calls.extended),
            Cell::Count(calls.frees),
        ]);
    }
    table.note("Whether glibc grows a block in place depends on what lies after it in the heap at that moment, so the split between the first two rows can differ between runs and between processes; the total number of growths cannot. That is why this table is a fact of this run and not re-checked, and why the tests pin totals only (`never_in_place_moves_every_growth`).");
    table.note("The seed's lesson exactly: its test expected \"1 alloc + 21 remap\" and got something else, because `std.testing.allocator` is a `DebugAllocator` that never reuses an address.");
    vec![table]
}

const A5: [[&str; 3]; 5] = [
    [
        "Zig (the seed)",
        "every allocating function takes `std.mem.Allocator`; `buildNodes(arena.allocator(), n)` and `buildNodes(gpa, n)` are the same code",
        "the norm: the standard library is written this way",
    ],
    [
        "Rust `std`",
        "one global allocator per program (`#[global_allocator]`); `Vec<T, A>` with an allocator parameter exists only on nightly (`allocator_api`)",
        "stable code cannot pass an allocator to a `std` collection",
    ],
    [
        "`allocator-api2` (stable)",
        "the same `Allocator` trait and its own `Vec<T, A>` / `Box<T, A>`; `fn build_nodes<A: Allocator>(n, alloc: A)` in `crates/arena/src/allocators.rs` runs with `Global`, `&Bump` and `NeverInPlace`",
        "used by this chapter (A4); collections from other crates must opt in",
    ],
    [
        "`bumpalo::collections`",
        "a fork of `std`'s `Vec` and `String` that allocate in a `Bump`",
        "bumpalo's README says the module will be removed once `std` collections take an allocator; pinned here as `bumpalo = \"~3.20\"`",
    ],
    [
        "a typed arena (`typed-arena`)",
        "`Arena<T>::alloc(value) -> &mut T` for one type",
        "no allocator parameter: the arena is the allocator",
    ],
];

fn a5_any_allocator(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "A5",
        Kind::Fact,
        "One function, any allocator: what Rust offers compared with Zig's allocator parameter",
        &["where", "how", "status"],
    );
    for row in A5 {
        table.row(row.iter().map(|s| Cell::text(*s)).collect());
    }
    table.note("The example compiles and runs as a doctest of `arena::allocators::build_nodes`, once with the global allocator and once with a `Bump`.");
    vec![table]
}

const CREATE_ARENA: &str = "create only: `bumpalo`, one `alloc` per item";
const CREATE_POOL: &str = "create only: free-list pool (`slab`)";
const CHURN_ARENA: &str = "churn: `bumpalo` (nothing can be freed)";
const CHURN_POOL: &str = "churn: free-list pool (`slab`)";

fn a6_pool_vs_arena(settings: &Settings) -> Vec<Table> {
    let mut config = Config::for_settings(settings);
    // A churn run takes milliseconds: fewer rounds keep the table at a few seconds.
    config.rounds = config.rounds.min(61);
    let mut timing = Timing::new(config);
    timing.method(CREATE_ARENA, || bump_per_item(black_box(N)));
    timing.method(CREATE_POOL, || pool_per_item(black_box(N)));
    timing.method(CHURN_ARENA, || {
        churn_arena(black_box(CHURN_LIVE), CHURN_STEPS)
    });
    timing.method(CHURN_POOL, || {
        churn_pool(black_box(CHURN_LIVE), CHURN_STEPS)
    });
    let m = timing.run(Schedule::Interleaved);
    let mut table = m.table(
        "A6",
        "Pool vs arena: the seed's create-only workload, and churn (10,000 live, 2,000,000 steps)",
    );
    let pair = |label: &str| m.method(label).expect("registered").pair();
    for (what, arena, pool) in [
        ("Create only", CREATE_ARENA, CREATE_POOL),
        ("Churn", CHURN_ARENA, CHURN_POOL),
    ] {
        table.note(format!(
            "{what}, arena − pool: {}.",
            publish::difference(pair(arena), pair(pool))
                .cell(Cell::Nanos)
                .render()
        ));
    }
    table.note("Seed (create only): arena 0.950 ms, `MemoryPool` 1.007 ms. The seed did not measure churn.");
    vec![table]
}

/// A labelled run of the churn functions (A6-bytes).
type ChurnRow = (&'static str, fn() -> Churn);

fn a6_bytes(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "A6-bytes",
        Kind::Count,
        "Pool vs arena: memory held, counted",
        &[
            "workload",
            "allocations",
            "peak live bytes (counted)",
            "bytes held at the end (the structure's own figure)",
        ],
    );
    let rows: [ChurnRow; 4] = [
        (CREATE_ARENA, || churn_arena(N, 0)),
        (CREATE_POOL, || churn_pool(N, 0)),
        (CHURN_ARENA, || churn_arena(CHURN_LIVE, CHURN_STEPS)),
        (CHURN_POOL, || churn_pool(CHURN_LIVE, CHURN_STEPS)),
    ];
    let mut peaks = Vec::new();
    for (label, run) in &rows {
        let (churn, stats) = count(|| black_box(run()));
        peaks.push(stats.peak_live_bytes);
        table.row(vec![
            Cell::text(*label),
            Cell::Count(stats.allocs),
            Cell::Bytes(stats.peak_live_bytes),
            Cell::bytes(churn.bytes_held),
        ]);
    }
    table.note(format!(
        "Under churn the pool's peak is {} of the arena's (target ≤ 1/10). The create-only rows here keep all N objects with the pointers held in a `Vec` (the churn functions with zero steps), so they differ slightly from A1's workloads.",
        Cell::Percent(100.0 * peaks[3] as f64 / peaks[2] as f64).render()
    ));
    table.note("Peak live bytes are the most the workload held at once, from `lab::CountingAlloc`; \"bytes held\" is `Bump::allocated_bytes()` for the arena and slots × slot size for the pool. Pinned by `under_churn_the_pool_holds_a_tenth_of_the_arena_or_less`.");
    vec![table]
}

fn a7_drop(_: &Settings) -> Vec<Table> {
    const K: usize = 1000;
    let mut table = Table::new(
        "A7",
        Kind::Count,
        "Who runs destructors: 1,000 values with a counted `Drop`, then the arena dropped",
        &[
            "where the values live",
            "destructors run",
            "bytes still live after",
        ],
    );
    for (label, f) in [
        ("`bumpalo::Bump::alloc`", drops_bump as fn(usize) -> usize),
        ("`typed_arena::Arena::alloc`", drops_typed_arena),
        ("`bumpalo::boxed::Box::new_in`", drops_bump_box),
    ] {
        let (drops, stats) = count(|| f(K));
        table.row(vec![
            Cell::text(label),
            Cell::count(drops),
            Cell::Bytes(stats.bytes_allocated - stats.bytes_freed),
        ]);
    }
    let (asked, stats) = count(|| arena_value_owning_a_vec(K));
    table.row(vec![
        Cell::text("a `Vec<u64>` of 1,000 elements inside a `Bump`"),
        Cell::Empty,
        Cell::Bytes(stats.bytes_allocated - stats.bytes_freed),
    ]);
    table.note(format!("`Bump` frees its chunks without running destructors; `typed_arena::Arena` runs every one; a `bumpalo::boxed::Box` runs its value's destructor when the box goes out of scope. The last row is the classic leak: the `Vec`'s own heap buffer ({} bytes) is owned by a value nobody drops, so it is never freed — the arena's memory is returned, the `Vec`'s is not.", lab::table::thousands(asked as u64)));
    table.note("Pinned by `bumpalo_runs_no_destructors_typed_arena_and_bumpalo_box_do` and `a_vec_inside_a_bump_leaks_its_buffer`.");
    vec![table]
}
