//! Contention (P12): 1, 2 and 4 threads renting, touching and giving back 8 KiB at the same
//! time, from the shared pool, a fresh `vec!`, and the same pool without thread caches.

use lab::fmt::round_significant;
use lab::protocol::Allocator;
use lab::publish::Verdict;
use lab::report::{Function, Run};
use lab::table::Columns;
use lab::timing::{Measured, Schedule, Timing};
use lab::{Cell, Kind, Table, count};

use crate::workloads::{CONTENTION_OPS, CONTENTION_THREADS, ContentionWorkers, Source};

pub(super) const P12: Function = lab::function!(p12_contention);

const FLOOR: &str = "release the workers and wait for them, no operations";

/// One thread count: its workers' timing run and what one operation allocates.
struct Threads {
    threads: usize,
    m: Measured,
    bytes_per_op: [u64; 3],
}

fn time_threads(run: &Run, threads: usize) -> Threads {
    // Each worker switches counting off on its own thread, as the timing does on this one.
    let workers = ContentionWorkers::with_each_worker(threads, lab::alloc::pause);
    for source in Source::ALL {
        // Warm-up: each worker's cache and first buffer, outside the timing.
        workers.run(source, CONTENTION_OPS);
    }
    // The workers' instructions are not the batch loop's: callgrind's window sees only this
    // thread releasing and waiting for them.
    let mut timing = Timing::new(run.config().without_instructions());
    let workers = &workers;
    for source in Source::ALL {
        timing.method(source.label(), move || {
            workers.run(source, CONTENTION_OPS).total_ops()
        });
    }
    timing.floor(FLOOR, move || {
        workers.run(Source::SharedPool, 0).total_ops()
    });
    let m = timing.run(Schedule::Interleaved);
    let bytes_per_op = Source::ALL.map(|source| {
        workers.op(source);
        count(|| workers.op(source)).1.bytes_allocated
    });
    Threads {
        threads,
        m,
        bytes_per_op,
    }
}

/// One row of P12: a thread count and a source.
struct Row<'a> {
    t: &'a Threads,
    index: usize,
    source: Source,
}

/// Operations per second on each thread, from the run's time minus the floor's (the release
/// and the wait), or `None` where that difference is not resolvable.
fn ops_per_second(m: &Measured, source: Source) -> Option<f64> {
    match m.difference(source.label(), FLOOR) {
        Verdict::Published(ns) if ns > 0.0 => Some(CONTENTION_OPS as f64 * 1e9 / ns),
        _ => None,
    }
}

fn p12_contention(run: &Run) -> Vec<Table> {
    let all: Vec<Threads> = CONTENTION_THREADS
        .iter()
        .map(|&threads| time_threads(run, threads))
        .collect();
    for t in &all {
        run.keep(t.threads, &t.m);
    }
    let rows: Vec<Row<'_>> = all
        .iter()
        .flat_map(|t| {
            Source::ALL
                .iter()
                .enumerate()
                .map(move |(index, &source)| Row { t, index, source })
        })
        .collect();
    let mimalloc = all[0].m.under(Allocator::Mimalloc).is_some();
    let fresh = Source::FreshVec.label();
    let mut table = run.own(
        Columns::new()
            .col("threads", |r: &Row<'_>| Cell::count(r.t.threads))
            .col("source of each 8 KiB", |r: &Row<'_>| {
                Cell::text(r.source.label())
            })
            .col("per run", |r: &Row<'_>| {
                r.t.m.expect(r.source.label()).median_cell()
            })
            .col("operations per second, per thread", |r: &Row<'_>| {
                ops_per_second(&r.t.m, r.source).map_or(Cell::NotResolvable, |ops| {
                    Cell::Count(round_significant(ops, 3) as u64)
                })
            })
            .col("time / fresh `vec!`", |r: &Row<'_>| {
                if r.source == Source::FreshVec {
                    Cell::Empty
                } else {
                    r.t.m.ratio_cell(r.source.label(), fresh)
                }
            })
            .col_if(mimalloc, "per run, mimalloc", |r: &Row<'_>| {
                r.t.m
                    .under(Allocator::Mimalloc)
                    .map_or(Cell::Empty, |mm| mm.expect(r.source.label()).median_cell())
            })
            .col("bytes allocated per operation", |r: &Row<'_>| {
                Cell::Bytes(r.t.bytes_per_op[r.index])
            })
            .col("twin disagreement", |r: &Row<'_>| {
                Cell::Percent(r.t.m.expect(r.source.label()).twin_disagreement_pct())
            })
            .col("between processes", |r: &Row<'_>| {
                if r.t.m.process_count() > 1 {
                    Cell::Percent(r.t.m.expect(r.source.label()).spread_pct())
                } else {
                    Cell::Empty
                }
            })
            .table("P12", Kind::Time, "", &rows),
    );
    table.note(all[0].m.protocol_note());
    table.note(format!(
        "One timed operation is one run: this thread releases the waiting workers, each does {} operations (8 KiB from its source, touched, given back or freed) and this thread waits for the last one. The workers are spawned once per thread count and warmed up before timing, so a run contains no spawning. Each thread count is its own interleaved run, whose floor is a run of no operations: the release and the wait alone. Operations per second per thread are the operations of one worker over the run's time minus that floor.",
        lab::fmt::thousands(CONTENTION_OPS)
    ));
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let most = CONTENTION_THREADS[CONTENTION_THREADS.len() - 1];
    table.note(if most > cores {
        format!("This machine has {cores} logical cores: with {most} threads, threads take turns on each core, so a run takes longer even where nothing is shared. Compare the sources within a thread count, not one thread count with another.")
    } else {
        format!("This machine has {cores} logical cores: every thread has a core of its own.")
    });
    table.note("Bytes allocated per operation are counted on this thread, one operation each, after warm-up. The pool without thread caches is the shared pool's configuration with `thread_cache: false`: every rent and give-back takes the lock of the bucket's stack, which all threads share. The allocator is paused on the workers as it is here.");
    let last = all.last().expect("at least one thread count");
    last.m.conclude_under_each(
        &mut table,
        |allocator| {
            format!(
                "with {most} threads on {cores} logical cores, under {}, the faster per run: the shared pool or a fresh `vec!`",
                allocator.short()
            )
        },
        |under| {
            under.faster_of(
                Source::SharedPool.label(),
                "the shared pool",
                fresh,
                "a fresh `vec!`",
            )
        },
    );
    last.m.conclude_under_each(
        &mut table,
        |allocator| {
            format!(
                "with {most} threads, under {}, the faster per run: the shared pool or the pool without thread caches",
                allocator.short()
            )
        },
        |under| {
            under.faster_of(
                Source::SharedPool.label(),
                "the shared pool",
                Source::NoThreadCache.label(),
                "without thread caches",
            )
        },
    );
    vec![table]
}
