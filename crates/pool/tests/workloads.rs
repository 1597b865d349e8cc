//! The workloads of P12 (contention) and P13 (other pool crates), pinned: each does the work it
//! says, the pools among them reach a steady state of 0 allocations, and a fresh buffer costs
//! one allocation per operation.

use lab::count;
use pool::workloads::{self, ContentionWorkers, HIT_BYTES, P10_SIZES, Source};

mod common;

/// [`common::scaled`], as an operation count.
const fn scaled(native: u64, miri: u64) -> u64 {
    common::scaled(native as usize, miri as usize) as u64
}

/// P9-time, P10, P10-hit: every way the timed tables get a buffer does the same touch (the
/// first and last byte written, then read back), so they differ only in where the buffer
/// comes from.
#[test]
fn every_timed_way_to_get_a_buffer_does_the_same_touch() {
    let shared = pool::shared();
    for n in P10_SIZES
        .into_iter()
        .filter(|&n| !cfg!(miri) || n <= 10_000)
    {
        let sized = workloads::pool_sized_for(n);
        assert_eq!(workloads::fresh_touch(n), 3, "fresh, {n} B");
        for _ in 0..2 {
            assert_eq!(workloads::rent_touch(shared, n), 3, "shared, {n} B");
            assert_eq!(workloads::rent_touch(&sized, n), 3, "sized, {n} B");
        }
        assert_eq!(sized.largest_bucket(), n.next_power_of_two().max(16));
    }
    assert_eq!(workloads::zeroed_stack_touch::<64>(), 3);
    assert_eq!(workloads::zeroed_stack_touch::<HIT_BYTES>(), 3);
    assert_eq!(workloads::uninit_stack_touch::<HIT_BYTES>(), 3);
}

/// P12: one run is `ops` operations on each of `threads` workers, and a worker set serves many
/// runs (spawning is not part of a run).
#[test]
fn p12_each_of_1_2_and_4_workers_does_its_operations_for_every_source() {
    let ops = scaled(2_000, 5);
    for threads in [1, 2, 4] {
        let workers = ContentionWorkers::new(threads);
        assert_eq!(workers.threads(), threads);
        for source in Source::ALL {
            for _ in 0..2 {
                let run = workers.run(source, ops);
                assert_eq!(run.threads.len(), threads);
                assert!(run.threads.iter().all(|t| t.ops == ops));
                assert_eq!(run.total_ops(), ops * threads as u64);
                // Every touch writes 1 and 2 and reads them back: 1 ^ 2 = 3, folded `ops`
                // times.
                let expected = if ops % 2 == 1 { 3 } else { 0 };
                assert!(run.threads.iter().all(|t| t.checksum == expected));
            }
        }
    }
}

/// P12's counts: once warm, the pools allocate nothing per operation, whatever the threads;
/// the fresh buffer allocates 8 KiB every time. (Counted on one thread: the counting allocator
/// counts the calling thread; the pool's own counters cover the workers.)
#[test]
fn p12_the_pools_allocate_nothing_per_operation_and_a_fresh_vec_8_kib() {
    let workers = ContentionWorkers::new(2);
    for source in Source::ALL {
        workers.op(source);
        let ((), stats) = count(|| {
            workers.op(source);
        });
        let expected = match source {
            Source::FreshVec => (1, HIT_BYTES as u64),
            Source::SharedPool | Source::NoThreadCache => (0, 0),
        };
        assert_eq!(
            (stats.allocs, stats.bytes_allocated),
            expected,
            "{source:?}"
        );
    }
    // Warm for two workers at once: each holds at most one buffer, so two on the shared stack
    // serve every interleaving (a warm-up run alone may never have had both out at once).
    let no_cache = workers.no_cache_pool();
    drop((no_cache.rent(HIT_BYTES), no_cache.rent(HIT_BYTES)));
    let ops = scaled(1_000, 5);
    workers.run(Source::NoThreadCache, ops);
    let before = workers.no_cache_pool().stats();
    workers.run(Source::NoThreadCache, ops);
    let after = workers.no_cache_pool().stats();
    assert_eq!(after.rents - before.rents, 2 * ops);
    assert_eq!(after.allocations, before.allocations, "warm: no allocation");
}

#[cfg(feature = "experiments")]
mod p13 {
    use super::*;
    use pool::workloads::{Contender, Contenders};

    /// P13: every contender hands out a buffer of the requested size and does the same touch.
    #[test]
    fn p13_every_contender_touches_a_buffer_of_the_requested_size() {
        for n in [128, HIT_BYTES] {
            let mut contenders = Contenders::new(n);
            assert_eq!(contenders.buffer_len(), n);
            for contender in Contender::ALL {
                assert_eq!(contenders.run(contender), 3, "{contender:?} at {n} B");
            }
        }
    }

    /// P13's bytes: every pool — this crate's and the published ones — and the reused `Vec`
    /// allocate nothing once warm; a fresh `vec!` allocates its `n` bytes every time.
    #[test]
    fn p13_only_the_fresh_vec_allocates_per_operation() {
        for n in [128, HIT_BYTES] {
            let mut contenders = Contenders::new(n);
            for contender in Contender::ALL {
                let (_, stats) = count(|| {
                    for _ in 0..scaled(100, 3) {
                        contenders.run(contender);
                    }
                });
                let per_op = match contender {
                    Contender::FreshVec => n as u64,
                    _ => 0,
                };
                assert_eq!(
                    stats.bytes_allocated,
                    per_op * scaled(100, 3),
                    "{contender:?} at {n} B"
                );
            }
        }
    }

    #[test]
    fn p13_names_each_contender_once() {
        let labels: std::collections::HashSet<_> =
            Contender::ALL.iter().map(|c| c.label()).collect();
        assert_eq!(labels.len(), Contender::ALL.len());
    }
}

#[test]
fn the_contention_helper_runs_once_on_fresh_workers() {
    let run = workloads::contention(Source::SharedPool, 2, scaled(100, 3));
    assert_eq!(run.total_ops(), 2 * scaled(100, 3));
}
