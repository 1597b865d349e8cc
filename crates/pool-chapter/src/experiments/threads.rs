//! Contention (P12): 1, 2 and 4 threads renting, touching and giving back 8 KiB at the same
//! time, from each thread's own reused `Vec`, the shared pool, a fresh buffer (unzeroed and
//! zeroed), and the same pool without thread caches.

use lab::fmt::round_significant;
use lab::plot::Plot;
use lab::protocol::Allocator;
use lab::publish::Verdict;
use lab::report::{Function, Run};
use lab::table::Claim;
use lab::table::Columns;
use lab::timing::{Measured, Schedule, Timing, agree};
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

/// Operations per second on each thread, from the run's time minus the floor's (the release
/// and the wait), or `None` where that difference is not resolvable.
fn ops_per_second(m: &Measured, source: Source) -> Option<f64> {
    match m.difference(source.label(), FLOOR) {
        Verdict::Published(ns) if ns > 0.0 => Some(CONTENTION_OPS as f64 * 1e9 / ns),
        _ => None,
    }
}

/// P12's column heading for a source (its row label in the other tables is longer).
fn heading(source: Source) -> &'static str {
    match source {
        Source::Reused => "reused `Vec` per thread",
        Source::SharedPool => "`pool::shared()`",
        Source::FreshUnzeroed => "fresh, unzeroed",
        Source::FreshVec => "fresh, zeroed (`vec!`)",
        Source::NoThreadCache => "pool, no thread cache",
    }
}

/// The thread counts at which `a` was faster than `b`, in every process of each run (`runs`:
/// a thread count and its run under one allocator), printed where every process agrees.
fn thread_counts_where(runs: &[(usize, &Measured)], a: Source, b: Source) -> Claim {
    agree(runs[0].1.process_count(), |p| {
        let faster: Vec<usize> = runs
            .iter()
            .filter(|(_, m)| m.processes[p].faster(a.label(), b.label()) == Some(true))
            .map(|&(threads, _)| threads)
            .collect();
        Some(match faster.len() {
            0 => "at no thread count".to_owned(),
            n if n == runs.len() => "at every thread count".to_owned(),
            1 => format!("with {}", threads_label(faster[0])),
            n => {
                let most: Vec<String> = faster[..n - 1].iter().map(usize::to_string).collect();
                format!("with {} and {} threads", most.join(", "), faster[n - 1])
            }
        })
    })
}

fn p12_contention(run: &Run) -> Vec<Table> {
    let all: Vec<Threads> = CONTENTION_THREADS
        .iter()
        .map(|&threads| time_threads(run, threads))
        .collect();
    for t in &all {
        run.keep(t.threads, &t.m);
    }
    let mut columns = Columns::new().col("threads", |t: &Threads| Cell::count(t.threads));
    for source in Source::ALL {
        columns = columns.col(heading(source), move |t: &Threads| {
            ops_per_second(&t.m, source).map_or(Cell::NotResolvable, |ops| {
                Cell::Count(round_significant(ops, 3) as u64)
            })
        });
    }
    let mut table = run.own(columns.table("P12", Kind::Time, "", &all));
    table.note(all[0].m.protocol_note());
    table.note(format!(
        "Each cell: operations per second on one thread, where an operation gets 8 KiB from the column's source, writes and reads its first and last byte, and gives it back or frees it. One timed operation is one run of {} operations per worker; the workers are spawned and warmed up once per thread count, and the floor (releasing them and waiting, no operations) is subtracted.",
        lab::fmt::thousands(CONTENTION_OPS)
    ));
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let most = CONTENTION_THREADS[CONTENTION_THREADS.len() - 1];
    if most > cores {
        table.note(format!("This machine has {cores} logical cores: above {cores} threads, threads take turns on a core, so compare the columns within a row."));
    }
    let pools_allocated: u64 = all
        .iter()
        .flat_map(|t| t.pool_allocations.iter().flatten())
        .sum();
    table.note(format!(
        "The pool without thread caches is `pool::shared()`'s configuration with `thread_cache_max_len: 0`: every rent takes a lock of one of the 8 shards of its bucket's stack. The two pools allocated {} in all timed runs (`stats().allocations`).",
        if pools_allocated == 0 {
            "nothing".to_owned()
        } else {
            format!("{pools_allocated} buffers")
        }
    ));
    table.note(noise_note(&all));
    let under = |allocator: Allocator| -> Option<Vec<(usize, &Measured)>> {
        all.iter()
            .map(|t| t.m.under(allocator).map(|m| (t.threads, m)))
            .collect()
    };
    for allocator in Allocator::ALL {
        let Some(runs) = under(allocator) else {
            continue;
        };
        let name = allocator.short();
        table.conclude(
            format!("under {name}, the thread counts at which `pool::shared()` beats a fresh, unzeroed `Vec::with_capacity(8192)`"),
            thread_counts_where(&runs, Source::SharedPool, Source::FreshUnzeroed),
        );
        table.conclude(
            format!("under {name}, the thread counts at which one reused `Vec` per thread beats `pool::shared()`"),
            thread_counts_where(&runs, Source::Reused, Source::SharedPool),
        );
        if allocator == Allocator::System {
            table.conclude(
                format!("under {name}, the thread counts at which `pool::shared()` beats the same pool without thread caches"),
                thread_counts_where(&runs, Source::SharedPool, Source::NoThreadCache),
            );
        }
    }
    table.plots.push(plot(&all));
    vec![table]
}

/// The largest twin disagreement and between-process spread of any source at any thread count.
fn noise_note(all: &[Threads]) -> String {
    let worst = |f: fn(&Measured) -> f64| {
        all.iter()
            .map(|t| (f(&t.m), t.threads))
            .fold((0.0f64, 0), |a, b| if b.0 > a.0 { b } else { a })
    };
    let (twin, twin_at) = worst(Measured::worst_twin_pct);
    let mut note = format!(
        "Noise, over every source and thread count: the largest twin disagreement is {} (at {})",
        Cell::Percent(twin).render(),
        threads_label(twin_at)
    );
    if all[0].m.process_count() > 1 {
        let (spread, spread_at) = worst(Measured::worst_spread_pct);
        note.push_str(&format!(
            ", the largest spread between processes {} (at {})",
            Cell::Percent(spread).render(),
            threads_label(spread_at)
        ));
    }
    note.push('.');
    note
}

/// `1 thread`, `4 threads`.
fn threads_label(n: usize) -> String {
    format!("{n} thread{}", if n == 1 { "" } else { "s" })
}

/// Throughput against threads, one line per source, under the system allocator.
fn plot(all: &[Threads]) -> Plot {
    let mut plot = Plot::lines(
        "p12-threads",
        "Operations per second on each thread, 8 KiB per operation, by thread count (median over processes)",
        "threads",
        "operations per second, per thread (log scale)",
    );
    plot.log_y = true;
    for source in Source::ALL {
        let points: Vec<(f64, f64)> = all
            .iter()
            .filter_map(|t| ops_per_second(&t.m, source).map(|ops| (t.threads as f64, ops)))
            .collect();
        plot = plot.series(heading(source).replace('`', ""), points);
    }
    plot
}
