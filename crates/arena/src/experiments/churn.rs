//! A6: pool vs arena under churn, timed under every allocator, and the memory each holds,
//! counted (A6-bytes). The create-only comparison is timed once, in A1's run.

use std::hint::black_box;

use lab::fmt::thousands;
use lab::protocol::Allocator;
use lab::report::{Function, Run};
use lab::table::{Cell, Columns};
use lab::timing::{Method, Schedule, Timing};
use lab::{Kind, Table, count};

use super::{instructions, keep, no_instructions};
use crate::{CHURN_LIVE, CHURN_STEPS, Churn, N, churn_arena, churn_pool};

pub(super) const A6: Function = lab::function!(a6_churn);
pub(super) const A6_BYTES: Function = lab::function!(a6_bytes);

const CREATE_ARENA: &str = "create only: `bumpalo`, one `alloc` per item";
const CREATE_POOL: &str = "create only: free-list pool (`slab`)";
pub(super) const CHURN_ARENA: &str = "churn: `bumpalo` (nothing can be freed)";
pub(super) const CHURN_POOL: &str = "churn: free-list pool (`slab`)";

fn a6_churn(run: &Run) -> Vec<Table> {
    let mut timing = Timing::new(run.config());
    timing.method(CHURN_ARENA, || {
        churn_arena(black_box(CHURN_LIVE), CHURN_STEPS)
    });
    timing.method(CHURN_POOL, || {
        churn_pool(black_box(CHURN_LIVE), CHURN_STEPS)
    });
    let m = timing.run(Schedule::Interleaved);
    keep("A6", &m);
    let mimalloc = m.under(Allocator::Mimalloc);
    let rows: Vec<Method<'_>> = m.methods().collect();
    let mut table = run.own(
        Columns::new()
            .col("method", |r: &Method<'_>| Cell::text(r.name()))
            .col("median", Method::median_cell)
            .col("twin disagreement", |r: &Method<'_>| {
                Cell::Percent(r.twin_disagreement_pct())
            })
            .col("between processes", |r: &Method<'_>| {
                if m.process_count() > 1 {
                    Cell::Percent(r.spread_pct())
                } else {
                    Cell::Empty
                }
            })
            .col("median under mimalloc", |r: &Method<'_>| {
                mimalloc.map_or(Cell::Empty, |mm| mm.expect(r.name()).median_cell())
            })
            .col("instructions (twin)", |r: &Method<'_>| {
                r.instructions()
                    .map_or(Cell::Empty, |[original, twin]| Cell::Instructions {
                        original,
                        twin,
                    })
            })
            .table("A6", Kind::Time, "", &rows),
    );
    table.note(m.protocol_note());
    match (instructions(&m, CHURN_POOL), instructions(&m, CHURN_ARENA)) {
        (Some(pool), Some(arena)) => table.note(format!(
            "Instructions per churn run, counted by callgrind under glibc: {} for the pool, {} for the arena; they do not depend on the clock.",
            thousands(pool.round() as u64),
            thousands(arena.round() as u64)
        )),
        _ => table.note(no_instructions(&m)),
    };
    table.note("The seed did not measure churn.");
    table.note("The create-only comparison is timed once, in A1's run: see its conclusions.");
    m.conclude_under_each(
        &mut table,
        |allocator| {
            let allocator = allocator.short();
            format!(
                "under churn and {allocator}, the faster of the free-list pool (it reuses the slot just freed) and the arena (every new object is fresh arena memory)"
            )
        },
        |under| under.faster_of(CHURN_POOL, "the pool", CHURN_ARENA, "the arena"),
    );
    vec![table]
}

/// A labelled run of the churn functions (A6-bytes).
type ChurnRow = (&'static str, fn() -> Churn);

/// The pool's peak under churn may be at most this fraction of the arena's.
const PEAK_TARGET: f64 = 0.1;

fn a6_bytes(run: &Run) -> Vec<Table> {
    let mut table = run.table(&[
        "workload",
        "allocations",
        "peak live bytes (counted)",
        "bytes held at the end (the structure's own figure)",
    ]);
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
    let share = peaks[3] as f64 / peaks[2] as f64;
    table.note(format!(
        "Under churn the pool's peak is {} of the arena's (target ≤ 1/10, because the pool holds only the live objects and the arena every object ever created: {}). The create-only rows here keep all N objects with the pointers held in a `Vec` (the churn functions with zero steps), so they differ slightly from A1's workloads.",
        Cell::Percent(100.0 * share).render(),
        if share <= PEAK_TARGET { "met" } else { "missed" }
    ));
    table.note("Peak live bytes are the most the workload held at once, from `lab::CountingAlloc`; \"bytes held\" is `Bump::allocated_bytes()` for the arena and slots × slot size for the pool. Pinned by `under_churn_the_pool_holds_a_tenth_of_the_arena_or_less`.");
    vec![table]
}
