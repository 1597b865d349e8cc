//! The workloads of P12 (contention) and P13 (other pool crates), pinned: each does the work it
//! says, the pools among them reach a steady state of 0 allocations, and a fresh buffer costs
//! one allocation per operation.

use lab::count;
use pool_chapter::workloads::{self, ContentionWorkers, HIT_BYTES, P10_SIZES, Source};

mod common;

/// [`common::scaled`], as an operation count.
const fn scaled(native: u64, miri: u64) -> u64 {
    common::scaled(native as usize, miri as usize) as u64
}

/// P9-time, P10, P10-hit, P12: every timed way to get a buffer hands the one touch a buffer of the
/// size it names, and the touch writes 1 and 2 at that buffer's two ends and reads them back,
/// so the ways differ only in where the buffer comes from. Each `with_*` function is a timed
/// function without its touch (the timed function is `with_*` applied to `touch`): the test
/// touches what it gives and checks where the bytes landed, then that the timed function
/// returns what the touch does. The reused and the unzeroed buffers are touched through their
/// spare capacity, at the two ends of `n` bytes, as the unzeroed stack array is. P12's sources
/// are these same functions at 8 KiB (checked at every size here): each of its operations
/// returns what the touch does, and its reused buffer is cleared, never grown.
#[test]
fn every_timed_way_to_get_a_buffer_does_the_same_touch() {
    fn touched(buf: &mut [u8]) -> (usize, u8, u8, u8) {
        let result = workloads::touch(buf);
        (buf.len(), result, buf[0], buf[buf.len() - 1])
    }
    fn ends(first: &mut u8, last: &mut u8) -> (usize, u8, u8, u8) {
        let result = workloads::touch_ends(first, last);
        let distance = std::ptr::from_ref(last) as usize - std::ptr::from_ref(first) as usize;
        (distance + 1, result, *first, *last)
    }
    let shared = pool::shared();
    for n in P10_SIZES
        .into_iter()
        .filter(|&n| !cfg!(miri) || n <= 10_000)
    {
        assert_eq!(
            workloads::with_fresh(n, touched),
            (n, 3, 1, 2),
            "fresh, {n} B"
        );
        assert_eq!(workloads::fresh_touch(n), 3, "fresh, {n} B");
        assert_eq!(
            workloads::with_unzeroed(n, ends),
            Some((n, 3, 1, 2)),
            "unzeroed, {n} B"
        );
        assert_eq!(workloads::unzeroed_touch(n), 3, "unzeroed, {n} B");
        let mut reused = Vec::with_capacity(n);
        for _ in 0..2 {
            assert_eq!(
                workloads::with_reused(&mut reused, n, ends),
                Some((n, 3, 1, 2)),
                "reused, {n} B"
            );
            assert_eq!(workloads::reused_touch(&mut reused, n), 3, "reused, {n} B");
            assert_eq!(reused.len(), 0, "a reused buffer is cleared, not grown");
            assert!(reused.capacity() >= n);
        }
        let sized = workloads::pool_sized_for(n);
        assert_eq!(sized.largest_bucket(), n.next_power_of_two().max(16));
        for (name, pool) in [("shared", shared), ("sized", &sized)] {
            assert_eq!(touched(&mut pool.rent(n)), (n, 3, 1, 2), "{name}, {n} B");
            assert_eq!(workloads::rent_touch(pool, n), 3, "{name}, {n} B");
        }
    }
    assert_eq!(
        workloads::with_zeroed_stack::<64, _>(touched),
        (64, 3, 1, 2)
    );
    assert_eq!(
        workloads::with_zeroed_stack::<HIT_BYTES, _>(touched),
        (HIT_BYTES, 3, 1, 2)
    );
    assert_eq!(workloads::zeroed_stack_touch::<64>(), 3);
    assert_eq!(workloads::zeroed_stack_touch::<HIT_BYTES>(), 3);
    let unzeroed = workloads::with_unzeroed_stack_ends::<HIT_BYTES, _>(|first, last| {
        let result = workloads::touch_ends(first, last);
        let distance = std::ptr::from_ref(last) as usize - std::ptr::from_ref(first) as usize;
        (distance + 1, result, *first, *last)
    });
    assert_eq!(
        unzeroed,
        Some((HIT_BYTES, 3, 1, 2)),
        "the two ends of 8 KiB"
    );
    assert_eq!(workloads::uninit_stack_touch::<HIT_BYTES>(), 3);
    let mut existing = [0u8; 64];
    assert_eq!(touched(&mut existing), (64, 3, 1, 2), "the floor");
    let workers = ContentionWorkers::new(1);
    let mut reused = Vec::with_capacity(HIT_BYTES);
    for source in Source::ALL {
        for _ in 0..2 {
            assert_eq!(
                workloads::contention_op(source, workers.no_cache_pool(), &mut reused),
                3,
                "P12, {source:?}"
            );
            assert_eq!(workers.op(source, &mut reused), 3, "P12, {source:?}");
        }
        assert_eq!(reused.len(), 0, "P12's reused buffer is cleared, not grown");
        assert!(reused.capacity() >= HIT_BYTES);
    }
}

/// P9-time, P10, P10-hit: the three baselines' bytes, counted: a fresh buffer allocates exactly
/// its `n` bytes, unzeroed (`Vec::with_capacity`) or zeroed (`vec!`), once per use, and frees
/// them; one reused `Vec` allocates nothing after it is made, whatever it is asked to hold up to
/// its capacity.
#[test]
fn p10_a_fresh_buffer_allocates_its_n_bytes_zeroed_or_not_and_a_reused_one_nothing() {
    for n in [64, HIT_BYTES]
        .into_iter()
        .chain(P10_SIZES)
        .filter(|&n| !cfg!(miri) || n <= 10_000)
    {
        for (name, f) in [
            ("unzeroed", workloads::unzeroed_touch as fn(usize) -> u8),
            ("zeroed", workloads::fresh_touch),
        ] {
            let (result, stats) = count(|| f(n));
            assert_eq!(result, 3);
            assert_eq!(
                (
                    stats.allocs,
                    stats.bytes_allocated,
                    stats.deallocs,
                    stats.bytes_freed
                ),
                (1, n as u64, 1, n as u64),
                "{name}, {n} B"
            );
        }
        let mut reused = Vec::with_capacity(n);
        let (_, stats) = count(|| {
            for _ in 0..3 {
                workloads::reused_touch(&mut reused, n);
                workloads::reused_touch(&mut reused, n / 2);
            }
        });
        assert_eq!((stats.allocs, stats.reallocs), (0, 0), "reused, {n} B");
    }
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

/// P12's counts: once warm, the pools and the reused `Vec` allocate nothing per operation,
/// whatever the threads; a fresh buffer, unzeroed or zeroed, allocates 8 KiB every time. (Counted on one thread: the counting allocator
/// counts the calling thread; the pool's own counters cover the workers.)
#[test]
fn p12_the_pools_allocate_nothing_per_operation_and_a_fresh_vec_8_kib() {
    let workers = ContentionWorkers::new(2);
    for source in Source::ALL {
        let mut reused = Vec::with_capacity(HIT_BYTES);
        workers.op(source, &mut reused);
        let ((), stats) = count(|| {
            workers.op(source, &mut reused);
        });
        let expected = match source {
            Source::FreshUnzeroed | Source::FreshVec => (1, HIT_BYTES as u64),
            Source::Reused | Source::SharedPool | Source::NoThreadCache => (0, 0),
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

mod p13 {
    use super::*;
    use pool_chapter::workloads::{Contender, Contenders};

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
    /// allocate nothing once warm; a fresh buffer, unzeroed or zeroed, allocates its `n` bytes
    /// every time.
    #[test]
    fn p13_only_the_fresh_buffers_allocate_per_operation() {
        for n in [128, HIT_BYTES] {
            let mut contenders = Contenders::new(n);
            for contender in Contender::ALL {
                let (_, stats) = count(|| {
                    for _ in 0..scaled(100, 3) {
                        contenders.run(contender);
                    }
                });
                let per_op = match contender {
                    Contender::FreshVec | Contender::FreshUnzeroed => n as u64,
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

mod p14 {
    use super::*;
    use pool_chapter::workloads::{FIRST_LINE, SMALL_ROOM, WRITE_ROOM};

    /// P14: every arm writes the seed's first order line, byte for byte, and returns the same
    /// digest of it; the growing arm ends in a buffer at least as long as the line.
    #[test]
    fn p14_every_arm_writes_the_seeds_order_line() {
        assert_eq!(workloads::written(), FIRST_LINE.as_bytes());
        let mut reused = Vec::with_capacity(WRITE_ROOM);
        let digest = workloads::write_reused(&mut reused);
        assert_eq!(reused, FIRST_LINE.as_bytes());
        assert_ne!(digest, 0);
        let pool = pool::shared();
        assert_eq!(workloads::write_rented(pool, WRITE_ROOM), digest);
        assert_eq!(workloads::write_rented(pool, SMALL_ROOM), digest);
        assert_eq!(workloads::write_fresh(), digest);
        let mut grown = pool.rent_buf(SMALL_ROOM);
        workloads::write_line(&mut grown).expect("a rented buffer grows");
        assert_eq!(&grown[..], FIRST_LINE.as_bytes());
        assert!(grown.capacity() >= FIRST_LINE.len());
    }

    /// P14's bytes: once warm, a rented buffer — one with room for the line, or one that grows
    /// through the buckets — and the reused `Vec` allocate nothing per line; a fresh
    /// `Vec::with_capacity(128)` allocates its 128 bytes every line.
    #[test]
    fn p14_a_warm_rented_buffer_allocates_nothing_per_line_and_a_fresh_vec_its_room() {
        let pool = pool::shared();
        let mut reused = Vec::with_capacity(WRITE_ROOM);
        workloads::write_rented(pool, SMALL_ROOM);
        workloads::write_rented(pool, WRITE_ROOM);
        let lines = scaled(100, 3);
        let bytes = |f: &mut dyn FnMut() -> u8| {
            let (_, stats) = count(|| {
                for _ in 0..lines {
                    f();
                }
            });
            stats.bytes_allocated
        };
        assert_eq!(bytes(&mut || workloads::write_reused(&mut reused)), 0);
        assert_eq!(bytes(&mut || workloads::write_rented(pool, WRITE_ROOM)), 0);
        assert_eq!(bytes(&mut || workloads::write_rented(pool, SMALL_ROOM)), 0);
        assert_eq!(
            bytes(&mut workloads::write_fresh),
            WRITE_ROOM as u64 * lines
        );
    }
}

#[test]
fn the_contention_helper_runs_once_on_fresh_workers() {
    let run = workloads::contention(Source::SharedPool, 2, scaled(100, 3));
    assert_eq!(run.total_ops(), 2 * scaled(100, 3));
}
