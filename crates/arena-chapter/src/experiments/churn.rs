//! A6: churn, timed under every allocator, and the memory each store holds, counted (A6-bytes).
//! The create-only comparison is timed once, in A1's run.

use std::hint::black_box;

use lab::fmt::thousands;
use lab::plot::Plot;
use lab::publish::Agreement;
use lab::report::{Function, Run};
use lab::table::{Cell, Claim};
use lab::timing::{Schedule, Timing};
use lab::{Table, count};

use super::{timed_columns, timed_note};
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
    table.note(timed_note(&m));
    table.note("Each step frees a pseudo-random object and creates one in its place; the three stores free and create the same objects. The seed did not measure churn.");
    m.conclude_under_each(
        &mut table,
        |allocator| {
            format!(
                "under {}: the free-list pool faster than the arena under churn",
                allocator.short()
            )
        },
        |under| under.target(|p| p.faster(CHURN_POOL.label, CHURN_ARENA.label)),
    );
    vec![table]
}

/// Bytes in a MiB, for the figure's axis.
const MIB: f64 = 1024.0 * 1024.0;

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
    let mut plot = Plot::bars(
        "a6-memory-under-churn",
        &format!(
            "Peak live memory: {} objects created, or {} live under {} steps of churn",
            thousands(N as u64),
            thousands(CHURN_LIVE as u64),
            thousands(CHURN_STEPS as u64)
        ),
        "peak live MiB (log scale)",
    );
    plot.log_x = true;
    for (way, live, steps) in rows {
        let (_, stats) = count(|| black_box((way.run)(black_box(live), steps)));
        peaks.push(stats.peak_live_bytes);
        let label = if steps == 0 {
            way.label.replacen("churn", "create only", 1)
        } else {
            way.label.to_owned()
        };
        plot = plot.bar(
            label
                .replace('`', "")
                .replace(" (nothing can be freed)", ""),
            stats.peak_live_bytes as f64 / MIB,
        );
        table.row(vec![
            Cell::text(label),
            Cell::Count(stats.allocs),
            Cell::Bytes(stats.peak_live_bytes),
        ]);
    }
    let share = peaks[4] as f64 / peaks[3] as f64;
    table.note(format!(
        "Under churn the pool's peak is {} of the arena's: the pool holds the live objects, the arena every object it ever created.",
        Cell::Percent(100.0 * share).render(),
    ));
    table.note(format!(
        "Create only: the churn functions with zero steps, {} objects kept. Peaks include the `Vec` of handles.",
        thousands(N as u64)
    ));
    table.conclude(
        "under churn, the free-list pool's peak at most a tenth of the arena's",
        Claim::verdict(Agreement::All(
            if share <= PEAK_TARGET {
                "met"
            } else {
                "missed"
            }
            .to_owned(),
        )),
    );
    table.plots.push(plot);
    vec![table]
}
