//! A1: the seed's table in Rust, timed (A1) and counted (A1-counts); the reused `Vec` timed in
//! pairs, each block as warm as the other (A1-reuse); and the seed's ranking of what to fix
//! first with this chapter's figures (A1-rank).

use std::hint::black_box;

use lab::fmt::{significant, thousands};
use lab::plot::Plot;
use lab::protocol::Allocator;
use lab::report::{Function, Run};
use lab::table::{Cell, Columns};
use lab::timing::{Measured, Schedule, Timing};
use lab::{AllocStats, Kind, Table, count};

use super::{SEED_ITALIC, noise_columns, noise_note};
use crate::ways::{
    BOX_PER_ITEM, BUMP_PER_ITEM, BUMP_RESET, BUMP_THROUGH_DYN, ONE_ALLOCATION, POOL_PER_ITEM,
    PUSH_NO_RESERVE, PUSH_RESERVED, REUSED_VEC, TYPED_ARENA_PER_ITEM, U64S_EXTENDED,
};
use crate::{N, WAYS, Way};

pub(super) const A1: Function = lab::function!(a1_the_seed_table);
pub(super) const A1_COUNTS: Function = lab::function!(a1_counts);

/// A row of the seed's table: the way it corresponds to (its name), its median in milliseconds
/// and its alloc / remap / resize / free counts.
struct SeedRow {
    way: &'static str,
    ms: f64,
    counts: [u64; 4],
}

impl SeedRow {
    /// The median as the seed prints it.
    fn median(&self) -> String {
        format!("{:.3} ms", self.ms)
    }
}

const fn seed(way: Way, ms: f64, counts: [u64; 4]) -> SeedRow {
    SeedRow {
        way: way.name,
        ms,
        counts,
    }
}

/// The seed's six rows. Its `MemoryPool` is an arena and a free list, as
/// [`arena::pool::FreeListPool`] is.
const SEED: [SeedRow; 6] = [
    seed(PUSH_NO_RESERVE, 0.153, [1, 21, 0, 1]),
    seed(PUSH_RESERVED, 0.102, [1, 0, 0, 1]),
    seed(ONE_ALLOCATION, 0.102, [1, 0, 0, 1]),
    seed(BOX_PER_ITEM, 2.929, [200_001, 0, 0, 200_001]),
    seed(BUMP_PER_ITEM, 0.950, [2, 0, 523, 2]),
    seed(POOL_PER_ITEM, 1.007, [19, 0, 4_746, 19]),
];

/// The seed's row for the way labelled `label`, if it has one.
fn seed_of(label: &str) -> Option<&'static SeedRow> {
    let way = WAYS.iter().find(|way| way.label == label)?;
    SEED.iter().find(|row| row.way == way.name)
}

/// `a / b` from the seed's medians, said to be computed (the seed prints neither ratio).
///
/// # Panics
/// If the seed has no row for `a` or `b` (a bug: the ways are constants).
fn seed_ratio(a: &Way, b: &Way) -> String {
    let [a, b] = [a, b].map(|way| {
        seed_of(way.label).unwrap_or_else(|| panic!("the seed has no row for {}", way.name))
    });
    format!(
        "{}×, computed from its {} / {}",
        significant(a.ms / b.ms, 3),
        a.median(),
        b.median()
    )
}

fn a1_the_seed_table(run: &Run) -> Vec<Table> {
    let mut timing = Timing::new(run.config());
    for way in WAYS {
        // Made here, before any timed run: the reused `Vec`'s allocation is not timed.
        let [mut original, mut twin] = way.runners(N);
        timing.method_pair(
            way.label,
            move || original.run(black_box(N)),
            move || twin.run(black_box(N)),
        );
    }
    let m = timing.run(Schedule::Interleaved);
    run.keep(0, &m);
    let mut table = run.own(m.table_with("A1", "", &noise_columns(&m, "workload")));
    table.note(noise_note(&m));
    if let Some(note) = instructions_per_node(&m) {
        table.note(note);
    }
    table.note(SAME_WORK);
    table.note(COLDER);
    table.note(seed_line());
    table.plots.push(cost_plot(&m));
    a1_conclusions(&mut table, &m);
    // Each pair after the round of twelve, in the order of `PAIRS`, kept as 1, 2, ….
    let pairs: Vec<Measured> = PAIRS
        .iter()
        .zip(1..)
        .map(|(other, label)| {
            let pair = time_pair(run, other);
            run.keep(label, &pair);
            pair
        })
        .collect();
    vec![table, reuse_table(&pairs), rank_table(&m, &pairs)]
}

/// Where A1's reused row differs from its neighbours in more than its memory strategy.
const COLDER: &str = "Skip the reused `Vec`'s row here: its block waits a whole round between uses, out of the CPU's caches, while a fresh block is usually the one just freed (appendix). Its fair test is A1-reuse, which times it in pairs.";

/// A1's one line on the seed: its medians for the rows it has, and where to find ours.
fn seed_line() -> String {
    let medians: Vec<String> = [
        (BOX_PER_ITEM, "one `create` per item"),
        (BUMP_PER_ITEM, "its arena"),
        (POOL_PER_ITEM, "its pool"),
        (PUSH_NO_RESERVE, "`append`"),
        (ONE_ALLOCATION, "one `alloc`"),
    ]
    .iter()
    .map(|(way, what)| {
        let row =
            seed_of(way.label).unwrap_or_else(|| panic!("the seed has a row for {}", way.name));
        format!("{what} {}", row.median())
    })
    .collect();
    format!(
        "seed 001 (Apple M5 Pro, Zig 0.16.0, `u64`s): {}; here: the rows of the same names.",
        medians.join(", ")
    )
}

/// A short name for a way, for the bars of A1's figure.
fn short(way: &Way) -> &'static str {
    match way.name {
        "reused_vec" => "reused Vec (clear, push)",
        "push_no_reserve" => "Vec::push, no reserve",
        "push_reserved" => "Vec::with_capacity, push",
        "one_allocation" => "one allocation (collect)",
        "u64s_extended" => "the seed's shape (bare u64s)",
        "box_per_item" => "one Box per item",
        "bump_per_item" => "bumpalo alloc",
        "bump_through_dyn" => "bumpalo via &dyn Allocator",
        "bump_with_capacity" => "bumpalo, Bump::with_capacity",
        "typed_arena_per_item" => "typed-arena alloc",
        "pool_per_item" => "free-list pool create",
        "slab_per_item" => "slab insert",
        other => other,
    }
}

/// A1's figure: each way's median per node, under the report's allocator.
fn cost_plot(m: &Measured) -> Plot {
    let mut plot = Plot::bars(
        "a1-cost-per-way",
        &format!(
            "Cost per node, {} nodes, {} (median over processes)",
            thousands(N as u64),
            m.allocator.short()
        ),
        "ns per node (log scale)",
    );
    plot.log_x = true;
    for way in WAYS {
        plot = plot.bar(short(&way), m.expect(way.label).median_ns() / N as f64);
    }
    plot
}

/// A1-reuse's pairs: each way timed against the reused `Vec` in a run of its own.
const PAIRS: [Way; 3] = [PUSH_RESERVED, BUMP_PER_ITEM, BUMP_RESET];

/// A pair: the reused `Vec` and `other`, alone in one timing run. With two ways the round
/// alternates between the reused `Vec`'s buffer (both of its copies fill the same one) and the
/// block the allocator hands `other` (its copies usually get the same block back), so each is
/// written every other run.
fn time_pair(run: &Run, other: &Way) -> Measured {
    let mut timing = Timing::new(run.config());
    for way in [REUSED_VEC, *other] {
        let [mut original, mut twin] = way.runners(N);
        timing.method_pair(
            way.label,
            move || original.run(black_box(N)),
            move || twin.run(black_box(N)),
        );
    }
    timing.run(Schedule::Interleaved)
}

/// A1-reuse: one row per pair, the other way against the reused `Vec` of the same run.
fn reuse_table(pairs: &[Measured]) -> Table {
    let reused = REUSED_VEC.label;
    type Row<'a> = (&'a Way, &'a Measured);
    let rows: Vec<Row<'_>> = PAIRS.iter().zip(pairs).collect();
    let here = pairs[0].allocator.short();
    let ratio = |allocator: Allocator| {
        move |(way, m): &Row<'_>| {
            m.under(allocator)
                .map_or(Cell::Empty, |under| under.ratio_cell(way.label, reused))
        }
    };
    let mut columns = Columns::new()
        .col(
            "timed in a pair with the reused `Vec`",
            |(way, _): &Row<'_>| Cell::text(way.label),
        )
        .col(format!("median ({here})"), |(way, m): &Row<'_>| {
            m.expect(way.label).median_cell()
        })
        .col(
            format!("the reused `Vec`, same run ({here})"),
            |(_, m): &Row<'_>| m.expect(reused).median_cell(),
        );
    for allocator in Allocator::ALL {
        columns = columns.col(
            format!("it / the reused `Vec` ({})", allocator.short()),
            ratio(allocator),
        );
    }
    let mut table = columns
        .col(
            "instructions per run, it − the reused `Vec`",
            |(way, m): &Row<'_>| match (
                m.expect(way.label).instructions(),
                m.expect(reused).instructions(),
            ) {
                (Some([it, _]), Some([base, _])) => Cell::Signed((it - base).round() as i64),
                _ => Cell::Empty,
            },
        )
        .table(
            "A1-reuse",
            Kind::Time,
            "The reused `Vec` against a fresh one and against the arena, fresh and reused, timed in pairs",
            &rows,
        );
    table.note(pairs[0].protocol_note());
    if let Some(why) = &pairs[0].live().instructions_note {
        table.note(why.clone());
    }
    table.note("Each row is a timing run of two ways, each block written every other run. Above 1× the reused `Vec` is faster. `Vec::with_capacity` runs the same body on a fresh, unzeroed block. The two `bumpalo` rows run the same body, one on a fresh `Bump::new()` per run, the other on one arena sized once for the run's nodes and `reset()` at its start (it allocates nothing once made). Instructions: callgrind's, per run.");
    for (way, what) in [
        (PUSH_RESERVED, "a fresh `Vec::with_capacity`"),
        (BUMP_PER_ITEM, "`bumpalo`, one `alloc` per item"),
        (BUMP_RESET, "one `bumpalo` arena kept and `reset()` per run"),
    ] {
        let m = pair_of(pairs, &way);
        m.conclude_under_each(
            &mut table,
            |allocator| {
                format!(
                    "under {}: the faster of the reused `Vec` and {what}",
                    allocator.short()
                )
            },
            |under| under.faster_of(reused, "the reused `Vec`", way.label, what),
        );
    }
    table
}

/// The pair run of `way`.
///
/// # Panics
/// If `way` is not one of [`PAIRS`] (a bug: the ways are constants).
fn pair_of<'m>(pairs: &'m [Measured], way: &Way) -> &'m Measured {
    let at = PAIRS
        .iter()
        .position(|pair| pair.name == way.name)
        .unwrap_or_else(|| panic!("{} is not timed in a pair", way.name));
    &pairs[at]
}

/// Instructions per node of the rows the chapter compares, where callgrind counted them.
fn instructions_per_node(m: &Measured) -> Option<String> {
    if m.live().instructions_note.is_some() {
        return None;
    }
    let per_node = |way: &Way| {
        m.expect(way.label)
            .instructions()
            .map_or("—".to_owned(), |[original, _]| {
                significant(original / N as f64, 3)
            })
    };
    Some(format!(
        "Instructions per node, counted by callgrind: {} with one `Box` per item (a `malloc` and a `free` each), {} with `bumpalo`, {} with `bumpalo` through `&dyn Allocator`, {} with one allocation for all of them, {} per value in the seed's shape.",
        per_node(&BOX_PER_ITEM),
        per_node(&BUMP_PER_ITEM),
        per_node(&BUMP_THROUGH_DYN),
        per_node(&ONE_ALLOCATION),
        per_node(&U64S_EXTENDED),
    ))
}

fn a1_conclusions(table: &mut Table, m: &Measured) {
    let (boxed, bumped) = (BOX_PER_ITEM.label, BUMP_PER_ITEM.label);
    let (pushed, one) = (PUSH_NO_RESERVE.label, ONE_ALLOCATION.label);
    let (pool, typed) = (POOL_PER_ITEM.label, TYPED_ARENA_PER_ITEM.label);
    let conclusions = [
        (
            "one `Box` per item / `bumpalo`, one `alloc` per item",
            m.bound(boxed, bumped),
        ),
        (
            "`Vec::push` without reserving / `Vec::with_capacity` then push",
            m.bound(pushed, PUSH_RESERVED.label),
        ),
        (
            "`Vec::push` without reserving / one allocation from an exact-size iterator",
            m.bound(pushed, one),
        ),
        (
            "create only, the faster of the arena and the free-list pool",
            m.faster_of(bumped, "the arena", pool, "the pool"),
        ),
        (
            "the free-list pool / `typed-arena`, the arena it is built on",
            m.bound(pool, typed),
        ),
        (
            "`bumpalo`, one `alloc` per item / one allocation",
            m.bound(bumped, one),
        ),
        (
            "one allocation of nodes / the seed's shape (bare `u64`s)",
            m.bound(one, U64S_EXTENDED.label),
        ),
        (
            "`bumpalo` through `&dyn Allocator` / `bumpalo` inlined",
            m.bound(BUMP_THROUGH_DYN.label, bumped),
        ),
    ];
    for (claim, result) in conclusions {
        table.conclude(claim, result);
    }
}

fn a1_counts(run: &Run) -> Vec<Table> {
    let rows: Vec<(Way, AllocStats)> = WAYS
        .iter()
        .map(|way| {
            // Made before the count, as before A1's timed runs: the count is one run's.
            let mut runner = way.runner(N);
            (*way, count(|| black_box(runner.run(black_box(N)))).1)
        })
        .collect();
    type Row = (Way, AllocStats);
    let seed = |k: usize| {
        move |(way, _): &Row| {
            SEED.iter()
                .find(|row| row.way == way.name)
                .map_or(Cell::Empty, |row| Cell::Seed(thousands(row.counts[k])))
        }
    };
    let mut table = run.own(
        Columns::new()
            .col("workload", |(way, _): &Row| Cell::text(way.label))
            .col("allocations", |(_, s): &Row| Cell::Count(s.allocs))
            .col("reallocations", |(_, s): &Row| Cell::Count(s.reallocs))
            .col("deallocations", |(_, s): &Row| Cell::Count(s.deallocs))
            .col("seed: alloc", seed(0))
            .col("seed: remap", seed(1))
            .col("seed: resize", seed(2))
            .col("seed: free", seed(3))
            .table("A1-counts", Kind::Count, "", &rows),
    );
    table.note("Counts are from `lab::CountingAlloc`, one run of each way: a `realloc` is one reallocation, whether it kept its address or not (A4).");
    table.note("The reused `Vec` is reserved once, before its first run (one allocation of N × 16 bytes, in no row), as before A1's timed runs; its row is one run's, like every other row, and so is every run after it.");
    table.note("The seed counted calls through Zig's allocator interface, where a `remap` may move a block and a `resize` never does.");
    table.note(SEED_ITALIC);
    vec![table]
}

/// What every row of A1 but the seed's shape does, and where the rows differ in more than where
/// their nodes live.
const SAME_WORK: &str = "Every way but the seed's shape builds the same nodes and checksum; the `Box`, arena and pool rows also keep a pointer per node, the `Vec` rows an index (appendix).";

/// One item of the seed's ranking (`rank: None`: a row this chapter adds).
struct Fix {
    rank: Option<u64>,
    advice: &'static str,
    /// The figure the seed's list gives, if any.
    seed: Option<&'static str>,
    /// What this chapter compares (what the seed advises against / what it advises), and the
    /// two methods when A1 measures it.
    here: &'static str,
    ratio: Option<(&'static str, &'static str)>,
    /// The A1-reuse pair whose run the ratio is from (`None`: A1's run of twelve).
    pair: Option<Way>,
}

const FIXES: [Fix; 6] = [
    Fix {
        rank: None,
        advice: "not the seed's: when you own the loop, keep the nodes in a `Vec` you reserve once and `clear()` per run, indices instead of pointers",
        seed: None,
        here: "`bumpalo` per item / the reused `Vec`, timed in a pair (A1-reuse)",
        ratio: Some((BUMP_PER_ITEM.label, REUSED_VEC.label)),
        pair: Some(BUMP_PER_ITEM),
    },
    Fix {
        rank: Some(0),
        advice: "check the build mode first",
        seed: Some("Debug tens of times slower"),
        here: "chapter 1 (M6): the dev profile against release",
        ratio: None,
        pair: None,
    },
    Fix {
        rank: Some(1),
        advice: "take allocation out of the hot loop; if you do only one thing, do this",
        seed: Some("3× or more"),
        here: "one `Box` per item / one allocation",
        ratio: Some((BOX_PER_ITEM.label, ONE_ALLOCATION.label)),
        pair: None,
    },
    Fix {
        rank: Some(2),
        advice: "use an arena when the work has a clear end",
        seed: None,
        here: "one `Box` per item / `bumpalo` per item",
        ratio: Some((BOX_PER_ITEM.label, BUMP_PER_ITEM.label)),
        pair: None,
    },
    Fix {
        rank: Some(3),
        advice: "reserve when you know the count",
        seed: Some("1.5×"),
        here: "`Vec::push` without reserving / `Vec::with_capacity`",
        ratio: Some((PUSH_NO_RESERVE.label, PUSH_RESERVED.label)),
        pair: None,
    },
    Fix {
        rank: Some(4),
        advice: "do not switch to a pool because you heard it is fast: measure",
        seed: None,
        here: "free-list pool / `bumpalo`, create only (churn: A6)",
        ratio: Some((POOL_PER_ITEM.label, BUMP_PER_ITEM.label)),
        pair: None,
    },
];

fn rank_table(m: &Measured, pairs: &[Measured]) -> Table {
    let ratio = |fix: &Fix, allocator: Allocator| {
        let run = fix.pair.map_or(m, |way| pair_of(pairs, &way));
        match (fix.ratio, run.under(allocator)) {
            (Some((against, advised)), Some(under)) => under.ratio_cell(against, advised),
            _ => Cell::Empty,
        }
    };
    let mut columns = Columns::new()
        .col("#", |fix: &Fix| fix.rank.map_or(Cell::Empty, Cell::Count))
        .col("the seed's advice", |fix: &Fix| Cell::text(fix.advice))
        .col("the seed's figure", |fix: &Fix| {
            fix.seed
                .map_or(Cell::Empty, |figure| Cell::Seed(figure.into()))
        })
        .col("measured here: advised against / advised", |fix: &Fix| {
            Cell::text(fix.here)
        });
    for allocator in Allocator::ALL {
        columns = columns.col(allocator.short(), move |fix: &Fix| ratio(fix, allocator));
    }
    let mut table = columns.table(
        "A1-rank",
        Kind::Time,
        "What to fix first: the seed's ranking, with this chapter's figures",
        &FIXES,
    );
    table.note(m.protocol_note());
    table.note("Each ratio is what the seed advises against over what it advises, from A1's run under that allocator: above 1× the advice pays on this workload.");
    table.note("The first row is not the seed's: it is what a Rust programmer has before any of the seed's advice, a `Vec` reserved once outside the loop and cleared at each run, so no run allocates; its ratio, from A1-reuse's pair run (each block as warm as the other), says whether the arena of item 2 beats it: above 1× it does not. The other ratios are from A1's run.");
    table.note("Item 0's figure is from the seed's previous chapter; items 2 and 4 have none (item 2: \"speed and shorter code\").");
    table.note(format!(
        "Item 1's \"3× or more\" is the seed's loop over its arena (3.1×); its loop over its one allocation, the pair measured here, is {}.",
        seed_ratio(&BOX_PER_ITEM, &ONE_ALLOCATION)
    ));
    table.note(format!(
        "Item 4 follows the seed's create-only pool and arena: its pool over its arena is {}.",
        seed_ratio(&POOL_PER_ITEM, &BUMP_PER_ITEM)
    ));
    table.note(SEED_ITALIC);
    for fix in &FIXES {
        let run = fix.pair.map_or(m, |way| pair_of(pairs, &way));
        if let (Some((against, advised)), Some(rank)) = (fix.ratio, fix.rank) {
            table.conclude(
                format!("item {rank} under glibc, {}: does the advice pay", fix.here),
                run.faster_of(advised, "it pays", against, "it does not"),
            );
        }
    }
    table
}
