//! Contention (P12): 1, 2 and 4 threads renting, touching and giving back 8 KiB at the same
//! time, from each thread's own reused `Vec`, the shared pool, a fresh buffer (unzeroed and
//! zeroed), and the same pool without thread caches.

use lab::fmt::round_significant;
use lab::protocol::Allocator;
use lab::publish::Verdict;
use lab::report::{Function, Run};
use lab::table::Columns;
use lab::timing::{Measured, Schedule, Timing};
use lab::{Cell, Kind, Table};

use crate::workloads::{CONTENTION_OPS, CONTENTION_THREADS, ContentionWorkers, HIT_BYTES, Source};

pub(super) const P12: Function = lab::function!(p12_contention);

const FLOOR: &str = "release the workers and wait for them, no operations";

/// One thread count: its workers' timing run and what the pools allocated during it.
struct Threads {
    threads: usize,
    m: Measured,
    /// Allocations each pool counted over the whole timing run (all its rounds, calibration
    /// included), in [`Source::ALL`]'s order; `None` for the reused and the fresh buffers,
    /// which are no pool.
    pool_allocations: [Option<u64>; 5],
}

fn time_threads(run: &Run, threads: usize) -> Threads {
    // Each worker switches counting off on its own thread, as the timing does on this one.
    let workers = ContentionWorkers::with_each_worker(threads, lab::alloc::pause);
    // One buffer per worker on the pool without thread caches, so that no interleaving of the
    // workers finds its stack empty; the shared pool's workers warm their own caches below.
    let no_cache = workers.no_cache_pool();
    drop(Vec::from_iter(
        (0..threads).map(|_| no_cache.rent(HIT_BYTES)),
    ));
    for source in Source::ALL {
        // Warm-up: each worker's cache and first buffer, outside the timing.
        workers.run(source, CONTENTION_OPS);
    }
    let allocations = || {
        Source::ALL.map(|source| match source {
            Source::SharedPool => Some(pool::shared().stats().allocations),
            Source::NoThreadCache => Some(no_cache.stats().allocations),
            Source::Reused | Source::FreshUnzeroed | Source::FreshVec => None,
        })
    };
    let before = allocations();
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
    let after = allocations();
    let mut pool_allocations = [None; 5];
    for (i, delta) in pool_allocations.iter_mut().enumerate() {
        *delta = after[i].zip(before[i]).map(|(a, b)| a - b);
    }
    Threads {
        threads,
        m,
        pool_allocations,
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

/// Whether the shared pool was faster per run than `source`, in every process of `m` (empty
/// for the shared pool's own row).
fn shared_faster(m: &Measured, source: Source) -> Cell {
    if source == Source::SharedPool {
        return Cell::Empty;
    }
    Cell::Claim(m.faster_of(Source::SharedPool.label(), "yes", source.label(), "no"))
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
    let mut table = run.own(
        Columns::new()
            .col("threads", |r: &Row<'_>| Cell::count(r.t.threads))
            .col("source of each 8 KiB", |r: &Row<'_>| {
                Cell::text(r.source.label())
            })
            .col("operations per second, per thread", |r: &Row<'_>| {
                ops_per_second(&r.t.m, r.source).map_or(Cell::NotResolvable, |ops| {
                    Cell::Count(round_significant(ops, 3) as u64)
                })
            })
            .col("`pool::shared()` faster per run?", |r: &Row<'_>| {
                shared_faster(&r.t.m, r.source)
            })
            .col_if(mimalloc, "… under mimalloc", |r: &Row<'_>| {
                r.t.m
                    .under(Allocator::Mimalloc)
                    .map_or(Cell::Empty, |mm| shared_faster(mm, r.source))
            })
            .col("the pool's allocations, whole timed run", |r: &Row<'_>| {
                r.t.pool_allocations[r.index].map_or(Cell::Empty, Cell::Count)
            })
            .col("twin disagreement", |r: &Row<'_>| {
                Cell::Percent(r.t.m.expect(r.source.label()).twin_disagreement_pct())
            })
            .col("between processes", |r: &Row<'_>| {
                r.t.m.expect(r.source.label()).spread_cell()
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
    table.note("Every source gets the same touch: write the first and last byte of its 8 KiB, read them back; the reused and the unzeroed buffers are written through their spare capacity, as P10 does. Each worker's reused `Vec` is made with `Vec::with_capacity(8192)` once, when the worker starts, and gets `clear()` and `reserve(8192)` per operation. The fresh buffers differ in one thing: the unzeroed one is `Vec::with_capacity(8192)`, the allocation alone; the zeroed one is `vec![0u8; 8192]`, which asks `calloc` for zeroed memory.");
    table.note("\"Faster per run\" is a verdict reached in every process: *yes* where the shared pool was resolvably faster than that row's source, *no* where it was resolvably slower. The pools' allocations are their own counts (`stats().allocations`) over the whole timed run, every worker included; a fresh buffer allocates on every operation, a reused one never after it is made. The pool without thread caches is the shared pool's configuration with `thread_cache_max_len: 0`: every rent and give-back takes the lock of the bucket's stack, which all threads share. The allocator is paused on the workers as it is here.");
    for t in &all {
        let threads = t.threads;
        let shared = Source::SharedPool.label();
        t.m.conclude_under_each(
            &mut table,
            |allocator| {
                format!(
                    "under {}, {threads} thread{}: the faster of `pool::shared()` and a fresh, unzeroed `Vec::with_capacity(8192)` (the allocation without the zeroing)",
                    allocator.short(),
                    if threads == 1 { "" } else { "s" }
                )
            },
            |under| {
                under.faster_of(
                    shared,
                    "the pool",
                    Source::FreshUnzeroed.label(),
                    "the fresh, unzeroed buffer",
                )
            },
        );
        t.m.conclude_under_each(
            &mut table,
            |allocator| {
                format!(
                    "under {}, {threads} thread{}: the faster of one reused `Vec` per thread and `pool::shared()`",
                    allocator.short(),
                    if threads == 1 { "" } else { "s" }
                )
            },
            |under| {
                under.faster_of(
                    Source::Reused.label(),
                    "the reused `Vec`",
                    shared,
                    "the pool",
                )
            },
        );
    }
    vec![table]
}
