//! The handoff (P12-handoff): 8 KiB rented on one thread and given back on another, through a
//! channel between a producer and a consumer, at 1 and 2 pairs of threads, from the shared pool
//! and from the allocator (a fresh buffer, unzeroed and zeroed).

use lab::fmt::round_significant;
use lab::protocol::Allocator;
use lab::publish::Verdict;
use lab::report::{Function, Run};
use lab::table::Columns;
use lab::timing::{Measured, Schedule, Timing};
use lab::{Cell, Kind, Table};

use crate::workloads::{
    HANDOFF_BATCH, HANDOFF_BATCHES, HANDOFF_ITEMS, HANDOFF_PAIRS, Handoff, HandoffWorkers,
};

pub(super) const P12_HANDOFF: Function = lab::function!(p12_handoff);

const FLOOR: &str = "release the pairs and wait for them, no items";

/// One number of pairs: its timing run and what the shared pool allocated during it.
struct Pairs {
    pairs: usize,
    m: Measured,
    /// Allocations the shared pool counted over the whole timing run, calibration included.
    pool_allocations: u64,
}

fn time_pairs(run: &Run, pairs: usize) -> Pairs {
    // Every thread switches counting off on itself, as the timing does on this one.
    let workers = HandoffWorkers::with_each_thread(pairs, lab::alloc::pause);
    for source in Handoff::ALL {
        // Warm-up: each thread's cache and the pool's buffers in flight, outside the timing.
        workers.run(source, HANDOFF_ITEMS);
    }
    let before = pool::shared().stats().allocations;
    // The threads' instructions are not the batch loop's: callgrind's window sees only this
    // thread releasing and waiting for them.
    let mut timing = Timing::new(run.config().without_instructions());
    let workers = &workers;
    for source in Handoff::ALL {
        timing.method(source.label(), move || {
            workers.run(source, HANDOFF_ITEMS).total_items()
        });
    }
    timing.floor(FLOOR, move || {
        workers.run(Handoff::SharedPool, 0).total_items()
    });
    let m = timing.run(Schedule::Interleaved);
    Pairs {
        pairs,
        m,
        pool_allocations: pool::shared().stats().allocations - before,
    }
}

struct Row<'a> {
    p: &'a Pairs,
    source: Handoff,
}

/// Items per second through each pair, from the run's time minus the floor's, or `None` where
/// that difference is not resolvable.
fn items_per_second(m: &Measured, source: Handoff) -> Option<f64> {
    match m.difference(source.label(), FLOOR) {
        Verdict::Published(ns) if ns > 0.0 => Some(HANDOFF_ITEMS as f64 * 1e9 / ns),
        _ => None,
    }
}

/// Whether the shared pool was faster per run than `source`, in every process (empty for the
/// pool's own row).
fn pool_faster(m: &Measured, source: Handoff) -> Cell {
    if source == Handoff::SharedPool {
        return Cell::Empty;
    }
    Cell::Claim(m.faster_of(Handoff::SharedPool.label(), "yes", source.label(), "no"))
}

fn threads_label(pairs: usize) -> String {
    format!(
        "{} threads ({pairs} pair{})",
        2 * pairs,
        if pairs == 1 { "" } else { "s" }
    )
}

fn p12_handoff(run: &Run) -> Vec<Table> {
    let all: Vec<Pairs> = HANDOFF_PAIRS
        .iter()
        .map(|&pairs| time_pairs(run, pairs))
        .collect();
    let rows: Vec<Row<'_>> = all
        .iter()
        .flat_map(|p| Handoff::ALL.iter().map(move |&source| Row { p, source }))
        .collect();
    let mimalloc = all[0].m.under(Allocator::Mimalloc).is_some();
    let mut table = run.own(
        Columns::new()
            .col("threads", |r: &Row<'_>| Cell::count(2 * r.p.pairs))
            .col("source of each 8 KiB", |r: &Row<'_>| {
                Cell::text(r.source.label())
            })
            .col("items per second, per pair", |r: &Row<'_>| {
                items_per_second(&r.p.m, r.source).map_or(Cell::NotResolvable, |ops| {
                    Cell::Count(round_significant(ops, 3) as u64)
                })
            })
            .col("`pool::shared()` faster per run?", |r: &Row<'_>| {
                pool_faster(&r.p.m, r.source)
            })
            .col_if(mimalloc, "… under mimalloc", |r: &Row<'_>| {
                r.p.m
                    .under(Allocator::Mimalloc)
                    .map_or(Cell::Empty, |mm| pool_faster(mm, r.source))
            })
            .col("between processes", |r: &Row<'_>| {
                r.p.m.expect(r.source.label()).spread_cell()
            })
            .table("P12-handoff", Kind::Time, "", &rows),
    );
    table.note(all[0].m.protocol_note());
    table.note(format!(
        "One timed operation is one run: this thread releases the waiting pairs, each producer gets {} buffers of 8 KiB from its source, touches each (writes its first and last byte and reads them back) and sends them to its consumer through a channel, {HANDOFF_BATCH} at a time (a batch is one message; {HANDOFF_BATCHES} batches circulate, made once, so no channel allocates per message); the consumer touches each again and drops it, and sends the emptied batch back. No thread sleeps waiting for another: a receiver polls its channel and yields its core while it is empty, and each channel has room for every batch, so a send never waits (a thread woken through the kernel costs microseconds, more than the buffer; every source runs the same pipeline). This thread waits for the last consumer. The pool's buffer is rented on the producer's thread and given back on the consumer's; a fresh buffer is allocated on one and freed on the other. The floor is a run of no items: the release, one end-of-run batch per pair, and the wait.",
        lab::fmt::thousands(HANDOFF_ITEMS)
    ));
    table.note(format!(
        "Buffers the shared pool allocated during the timed runs, warm-up excluded (this process's `stats().allocations`): {}. A buffer that comes back on the consumer goes to its thread's cache, and the one the cache held before goes to a shard of the bucket's stack, from which the producer takes it.",
        all.iter()
            .map(|p| format!("{} at {}", lab::fmt::thousands(p.pool_allocations), threads_label(p.pairs)))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let most = 2 * HANDOFF_PAIRS[HANDOFF_PAIRS.len() - 1];
    table.note(if most > cores {
        format!("This machine has {cores} logical cores: with {most} threads, threads take turns on each core. Compare the sources within a thread count, not one thread count with another.")
    } else {
        format!("This machine has {cores} logical cores: every thread has a core of its own.")
    });
    for p in &all {
        let threads = 2 * p.pairs;
        let pool = Handoff::SharedPool.label();
        for (other, name) in [
            (
                Handoff::FreshUnzeroed,
                "a fresh, unzeroed `Vec::with_capacity(8192)`",
            ),
            (Handoff::FreshVec, "a fresh, zeroed `vec![0u8; 8192]`"),
        ] {
            p.m.conclude_under_each(
                &mut table,
                |allocator| {
                    format!(
                        "under {}, {threads} threads: the faster of `pool::shared()` and {name} per item handed to another thread",
                        allocator.short()
                    )
                },
                |under| under.faster_of(pool, "the pool", other.label(), "the fresh buffer"),
            );
        }
        table.conclude(
            format!(
                "under {}, {threads} threads: a fresh, zeroed `vec![0u8; 8192]` per item handed to another thread / `pool::shared()`",
                Allocator::System.short()
            ),
            p.m.bound(Handoff::FreshVec.label(), pool),
        );
    }
    vec![table]
}
