//! A6: churn, timed under every allocator, and the memory each store holds, counted (A6-bytes).
//! The create-only comparison is timed once, in A1's run.

use std::hint::black_box;

use lab::fmt::thousands;
use lab::report::{Function, Run};
use lab::table::Cell;
use lab::timing::{Schedule, Timing};
use lab::{Table, count};

use super::{noise_note, timed_columns};
use crate::N;
use crate::churn::{CHURN_ARENA, CHURN_BOX, CHURN_LIVE, CHURN_POOL, CHURN_STEPS, CHURNS, ChurnWay};

pub(super) const A6: Function = lab::function!(a6_churn);
pub(super) const A6_BYTES: Function = lab::function!(a6_bytes);

fn a6_churn(run: &Run) -> Vec<Table> {
    let title = run.experiment.title;
    for n in [CHURN_LIVE, CHURN_STEPS] {
        let n = thousands(n as u64);
        assert!(title.contains(&n), "A6's title must say {n}: {title}");
    }
    let mut timing = Timing::new(run.config());
    for way in CHURNS {
        timing.method_pair(
            way.label,
            move || (way.run)(black_box(CHURN_LIVE), CHURN_STEPS),
            move || (way.twin)(black_box(CHURN_LIVE), CHURN_STEPS),
        );
    }
    let m = timing.run(Schedule::Interleaved);
    run.keep(0, &m);
    let mut table = run.own(m.table_with("A6", "", &timed_columns(&m, "store")));
    table.note(noise_note(&m));
    table.note("The seed did not measure churn.");
    table.note("Each step frees the object in a pseudo-random slot and creates a new one there; the three stores free and create the same objects (memory: A6-bytes).");
    m.conclude_under_each(
        &mut table,
        |allocator| {
            format!(
                "expectation, under {}: the free-list pool faster than the arena under churn (the pool reuses the slot just freed; the arena takes fresh memory for every object)",
                allocator.short()
            )
        },
        |under| under.target(|p| p.faster(CHURN_POOL.label, CHURN_ARENA.label)),
    );
    vec![table]
}

/// The pool's peak under churn may be at most this fraction of the arena's.
const PEAK_TARGET: f64 = 0.1;

fn a6_bytes(run: &Run) -> Vec<Table> {
    let mut table = run.table(&["workload", "allocations", "peak live bytes"]);
    let create_only = |way: ChurnWay| (way, N, 0);
    let churn = |way: ChurnWay| (way, CHURN_LIVE, CHURN_STEPS);
    let rows = [
        create_only(CHURN_ARENA),
        create_only(CHURN_POOL),
        create_only(CHURN_BOX),
        churn(CHURN_ARENA),
        churn(CHURN_POOL),
        churn(CHURN_BOX),
    ];
    let mut peaks = Vec::new();
    for (way, live, steps) in rows {
        let (_, stats) = count(|| black_box((way.run)(black_box(live), steps)));
        peaks.push(stats.peak_live_bytes);
        let label = if steps == 0 {
            way.label.replacen("churn", "create only", 1)
        } else {
            way.label.to_owned()
        };
        table.row(vec![
            Cell::text(label),
            Cell::Count(stats.allocs),
            Cell::Bytes(stats.peak_live_bytes),
        ]);
    }
    let share = peaks[4] as f64 / peaks[3] as f64;
    table.note(format!(
        "Under churn the pool's peak is {} of the arena's (target ≤ 1/10, because the pool holds only the live objects and the arena every object ever created: {}).",
        Cell::Percent(100.0 * share).render(),
        if share <= PEAK_TARGET { "met" } else { "missed" }
    ));
    table.note(format!(
        "The create-only rows are the churn functions with zero steps: {} objects created and kept, their handles in a `Vec` (so they differ slightly from A1's workloads).",
        thousands(N as u64)
    ));
    table.note("Peak live bytes are the most the workload held at once, counted by `lab::CountingAlloc`: every store's memory and the `Vec` of handles, through the same instrument.");
    vec![table]
}
