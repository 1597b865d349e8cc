//! A1: the seed's table in Rust, timed and counted, and the seed's ranking of what to fix first
//! with this chapter's figures (A1-rank).

use std::hint::black_box;

use lab::fmt::significant;
use lab::protocol::Allocator;
use lab::report::{Function, Run};
use lab::table::{Cell, Columns};
use lab::timing::{Measured, Measurements, Schedule, Timing};
use lab::{AllocStats, Kind, Table, count};

use super::{SEED_ITALIC, instructions, keep, no_instructions};
use crate::ways::{
    BOX_PER_ITEM, BUMP_PER_ITEM, ONE_ALLOCATION, POOL_PER_ITEM, PUSH_NO_RESERVE, PUSH_RESERVED,
};
use crate::{N, WAYS, Way};

pub(super) const A1: Function = lab::function!(a1_the_seed_table);

/// A row of the seed's table.
struct SeedRow {
    /// The way it corresponds to (its name).
    way: &'static str,
    /// Its median, as the seed prints it, and in nanoseconds.
    median: &'static str,
    median_ns: f64,
    /// Its alloc / remap / resize / free counts.
    counts: &'static str,
}

const fn seed_row(
    way: &'static str,
    median: &'static str,
    median_ns: f64,
    counts: &'static str,
) -> SeedRow {
    SeedRow {
        way,
        median,
        median_ns,
        counts,
    }
}

/// The seed's rows. The free-list pool's is the seed's `MemoryPool`, a different structure with
/// the same purpose.
const SEED: [SeedRow; 6] = [
    seed_row(
        PUSH_NO_RESERVE.name,
        "0.153 ms",
        153_000.0,
        "1 / 21 / 0 / 1",
    ),
    seed_row(PUSH_RESERVED.name, "0.102 ms", 102_000.0, "1 / 0 / 0 / 1"),
    seed_row(ONE_ALLOCATION.name, "0.102 ms", 102_000.0, "1 / 0 / 0 / 1"),
    seed_row(
        BOX_PER_ITEM.name,
        "2.929 ms",
        2_929_000.0,
        "200,001 / 0 / 0 / 200,001",
    ),
    seed_row(BUMP_PER_ITEM.name, "0.950 ms", 950_000.0, "2 / 0 / 523 / 2"),
    seed_row(
        POOL_PER_ITEM.name,
        "1.007 ms",
        1_007_000.0,
        "19 / 0 / 4,746 / 19",
    ),
];

fn seed_of(way: &Way) -> Option<&'static SeedRow> {
    SEED.iter().find(|row| row.way == way.name)
}

/// The contiguous rows: one block for every node.
const CONTIGUOUS: [Way; 3] = [PUSH_NO_RESERVE, PUSH_RESERVED, ONE_ALLOCATION];

/// How far apart two machines' figures must be before a row counts as slower or faster there.
const ABOUT_EQUAL: f64 = 1.5;

/// This machine's figure against the seed's, in words.
fn against_seed(ns: f64, seed_ns: f64) -> &'static str {
    let ratio = ns / seed_ns;
    if ratio > ABOUT_EQUAL {
        "slower here"
    } else if ratio < 1.0 / ABOUT_EQUAL {
        "faster here"
    } else {
        "about equal"
    }
}

/// In one process: every one of `ways` against its seed figure, or `mixed`.
fn rows_against_seed(p: &Measurements, ways: &[Way]) -> String {
    let mut words = ways.iter().map(|way| {
        seed_of(way).map_or("no seed figure", |seed| {
            against_seed(p.expect(way.label).median_ns, seed.median_ns)
        })
    });
    let first = words.next().unwrap_or("mixed");
    if words.all(|w| w == first) {
        first
    } else {
        "mixed"
    }
    .to_owned()
}

fn counted(way: &Way) -> AllocStats {
    count(|| black_box((way.run)(black_box(N)))).1
}

fn a1_the_seed_table(run: &Run) -> Vec<Table> {
    let mut timing = Timing::new(run.config());
    for way in WAYS {
        timing.method(way.label, move || (way.run)(black_box(N)));
    }
    let m = timing.run(Schedule::Interleaved);
    keep("A1", &m);
    let rows: Vec<(Way, AllocStats)> = WAYS.iter().map(|way| (*way, counted(way))).collect();
    let mimalloc = m.under(Allocator::Mimalloc);
    let seed = |way: &Way, pick: fn(&SeedRow) -> &'static str| {
        seed_of(way).map_or(Cell::Empty, |row| Cell::Seed(pick(row).into()))
    };
    let mut table = run.own(
        Columns::new()
            .col("workload", |(way, _): &(Way, AllocStats)| {
                Cell::text(way.label)
            })
            .col("median", |(way, _): &(Way, AllocStats)| {
                m.expect(way.label).median_cell()
            })
            .col("twin disagreement", |(way, _): &(Way, AllocStats)| {
                Cell::Percent(m.expect(way.label).twin_disagreement_pct())
            })
            .col("between processes", |(way, _): &(Way, AllocStats)| {
                if m.process_count() > 1 {
                    Cell::Percent(m.expect(way.label).spread_pct())
                } else {
                    Cell::Empty
                }
            })
            .col("median under mimalloc", |(way, _): &(Way, AllocStats)| {
                mimalloc.map_or(Cell::Empty, |mm| mm.expect(way.label).median_cell())
            })
            .col("allocations", |(_, s): &(Way, AllocStats)| {
                Cell::Count(s.allocs)
            })
            .col("reallocations", |(_, s): &(Way, AllocStats)| {
                Cell::Count(s.reallocs)
            })
            .col("deallocations", |(_, s): &(Way, AllocStats)| {
                Cell::Count(s.deallocs)
            })
            .col("seed median", |(way, _): &(Way, AllocStats)| {
                seed(way, |row| row.median)
            })
            .col(
                "seed alloc / remap / resize / free",
                |(way, _): &(Way, AllocStats)| seed(way, |row| row.counts),
            )
            .table("A1", Kind::Time, "", &rows),
    );
    table.note(m.protocol_note());
    table.note(instructions_note(&m));
    table.note("Counts are from `lab::CountingAlloc` (a `realloc` is one reallocation, whether it grew in place or moved); a node is 16 bytes (two `u64`s), the seed's objects are single `u64`s.");
    table.note(SEED_ITALIC);
    a1_conclusions(&mut table, &m);
    let rank = rank_table(&m);
    vec![table, rank]
}

/// Instructions per node of the three kinds of allocation, or why there are none.
fn instructions_note(m: &Measured) -> String {
    let per_node = |way: &Way| instructions(m, way.label).map(|n| significant(n / N as f64, 3));
    match (
        per_node(&BOX_PER_ITEM),
        per_node(&BUMP_PER_ITEM),
        per_node(&ONE_ALLOCATION),
    ) {
        (Some(boxed), Some(bumped), Some(one)) => format!(
            "Instructions per node, counted by callgrind under glibc: {boxed} with one `Box` per item (a `malloc` and a `free` each), {bumped} with `bumpalo`, {one} with one allocation for all of them."
        ),
        _ => no_instructions(m),
    }
}

fn a1_conclusions(table: &mut Table, m: &Measured) {
    let (boxed, bumped, pool) = (BOX_PER_ITEM.label, BUMP_PER_ITEM.label, POOL_PER_ITEM.label);
    table.conclude(
        "one `Box` per item / `bumpalo`, one `alloc` per item (the seed's Zig arena: 3.1×)",
        m.ratio(boxed, bumped),
    );
    table.conclude(
        "target: `bumpalo` at least 5× faster than one `Box` per item, because a bump allocation is a subtraction and a bounds check where a `Box` costs a `malloc` and a `free`, each a call into glibc",
        m.target_speedup(bumped, boxed, 5.0),
    );
    table.conclude(
        "`Vec::push` without reserving / `Vec::with_capacity` then push (the seed: 1.5×; why so little: A2)",
        m.ratio(PUSH_NO_RESERVE.label, PUSH_RESERVED.label),
    );
    table.conclude(
        "create only, the faster of the arena and the free-list pool (the seed: its arena, narrowly)",
        m.faster_of(bumped, "the arena", pool, "the pool"),
    );
    table.conclude(
        "`bumpalo`, one `alloc` per item / one allocation (the seed's arena / its one allocation: 9.3×)",
        m.ratio(bumped, ONE_ALLOCATION.label),
    );
    table.conclude(
        "the three contiguous rows against the seed's (more than 1.5× apart counts as slower or faster)",
        m.verdict(|p| Some(rows_against_seed(p, &CONTIGUOUS))),
    );
    table.conclude(
        "`bumpalo` per item against the seed's arena row (the same rule)",
        m.verdict(|p| Some(rows_against_seed(p, &[BUMP_PER_ITEM]))),
    );
}

/// One item of the seed's ranking.
struct Fix {
    rank: u64,
    advice: &'static str,
    seed: &'static str,
    /// What this chapter compares, and the two methods (slower first) when A1 measures it.
    here: &'static str,
    ratio: Option<(&'static str, &'static str)>,
}

const FIXES: [Fix; 5] = [
    Fix {
        rank: 0,
        advice: "check the build mode first",
        seed: "Debug tens of times slower than ReleaseFast",
        here: "chapter 1 (M6): the dev profile against release",
        ratio: None,
    },
    Fix {
        rank: 1,
        advice: "take allocation out of the hot loop; if you do only one thing, do this",
        seed: "3× or more; per item 20–29× slower than the contiguous rows",
        here: "one `Box` per item / one allocation",
        ratio: Some((BOX_PER_ITEM.label, ONE_ALLOCATION.label)),
    },
    Fix {
        rank: 2,
        advice: "use an arena when the work has a clear end",
        seed: "3.1×",
        here: "one `Box` per item / `bumpalo` per item",
        ratio: Some((BOX_PER_ITEM.label, BUMP_PER_ITEM.label)),
    },
    Fix {
        rank: 3,
        advice: "reserve when you know the count",
        seed: "1.5×",
        here: "`Vec::push` without reserving / `Vec::with_capacity`",
        ratio: Some((PUSH_NO_RESERVE.label, PUSH_RESERVED.label)),
    },
    Fix {
        rank: 4,
        advice: "do not switch to a pool because you heard it is fast: measure",
        seed: "pool / arena 1.06× (create only)",
        here: "free-list pool / `bumpalo`, create only (churn: A6)",
        ratio: Some((POOL_PER_ITEM.label, BUMP_PER_ITEM.label)),
    },
];

/// In one process: does each of fixes 1, 2 and 3 gain more than the next?
fn order_holds(p: &Measurements) -> Option<String> {
    let gains: Vec<f64> = FIXES[1..4]
        .iter()
        .filter_map(|fix| fix.ratio.map(|(slow, fast)| p.ratio(slow, fast)))
        .collect();
    let holds = gains.windows(2).all(|pair| pair[0] > pair[1]);
    Some(if holds { "yes" } else { "no" }.to_owned())
}

fn rank_table(m: &Measured) -> Table {
    let ratio = |fix: &Fix, allocator: Allocator| match (fix.ratio, m.under(allocator)) {
        (Some((slow, fast)), Some(under)) => under.ratio_cell(slow, fast),
        _ => Cell::Empty,
    };
    let mut table = Columns::new()
        .col("#", |fix: &Fix| Cell::Count(fix.rank))
        .col("the seed's advice", |fix: &Fix| Cell::text(fix.advice))
        .col("the seed's figure", |fix: &Fix| Cell::Seed(fix.seed.into()))
        .col("measured here", |fix: &Fix| Cell::text(fix.here))
        .col("glibc", |fix: &Fix| ratio(fix, Allocator::System))
        .col("mimalloc", |fix: &Fix| ratio(fix, Allocator::Mimalloc))
        .table(
            "A1-rank",
            Kind::Time,
            "What to fix first: the seed's ranking, with this chapter's figures",
            &FIXES,
        );
    table.note(m.protocol_note());
    table.note("Each ratio is the slower way over the faster one, from A1's run: how much the fix gains on this workload.");
    table.note(SEED_ITALIC);
    m.conclude_under_each(
        &mut table,
        |allocator| {
            let allocator = allocator.short();
            format!(
                "under {allocator}, the seed's order holds: fix 1 gains more than fix 2, and fix 2 more than fix 3"
            )
        },
        |under| under.verdict(order_holds),
    );
    table
}
