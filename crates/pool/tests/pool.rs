//! The pool's claims, pinned: bucket rounding, which requests are pooled, zero steady-state
//! allocation, first-use costs, stale data and clearing (secrets included), the per-bucket
//! bound, configurations that used to panic, the error paths, threads. Counts are exact.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use lab::count;
use pool::workloads::{self, FIRST_LINE, LINE_BUFFER, LetGo, SECOND_LINE};
use pool::{BufferPool, ClearPolicy, ConfigError, PoolConfig, PoolStats, Rented};

mod common;
use common::scaled;

fn default_pool() -> BufferPool<u8> {
    BufferPool::new(PoolConfig::default())
}

/// The P2 requests, with the capacity .NET's shared pool returned for each (the seed's table)
/// — except 0, where .NET returns its cached empty array and we return an empty guard.
const BUCKETS: [(usize, usize); 18] = [
    (0, 0),
    (1, 16),
    (7, 16),
    (15, 16),
    (16, 16),
    (17, 32),
    (100, 128),
    (128, 128),
    (129, 256),
    (1000, 1024),
    (1024, 1024),
    (1025, 2048),
    (10_000, 16_384),
    (65_536, 65_536),
    (100_000, 131_072),
    (1_000_000, 1_048_576),
    (1_048_576, 1_048_576),
    (1_048_577, 2_097_152),
];

/// P2: the capacities are .NET's, request for request.
#[test]
fn rent_rounds_up_to_power_of_two_buckets_of_at_least_16_like_dotnet() {
    let shared = pool::shared();
    for (request, capacity) in BUCKETS {
        if cfg!(miri) && request > 100_000 {
            continue;
        }
        let buf = shared.rent(request);
        assert_eq!(
            (buf.len(), buf.capacity()),
            (request, capacity),
            "rent({request})"
        );
    }
}

#[test]
fn rent_zero_is_empty_and_allocates_nothing() {
    let pool = default_pool();
    drop(pool.rent(1)); // the thread's cache exists now
    let (buf, stats) = count(|| pool.rent(0));
    assert_eq!((buf.len(), buf.capacity()), (0, 0));
    assert_eq!(stats.allocs, 0);
    drop(buf);
    let s = pool.stats();
    assert_eq!(
        (s.rents, s.returns, s.allocations, s.discarded),
        (2, 2, 1, 0)
    );
}

/// P3: `rent(0)` never creates a cache.
#[test]
fn rent_zero_allocates_nothing_even_on_a_threads_first_use() {
    let pool = default_pool();
    let shared = pool::shared();
    std::thread::scope(|s| {
        s.spawn(|| {
            let (bufs, rented) = count(|| (pool.rent(0), shared.rent(0)));
            let ((), given_back) = count(|| drop(bufs));
            assert_eq!((rented.allocs, given_back.allocs), (0, 0));
        });
    });
    let s = pool.stats();
    assert_eq!((s.rents, s.returns, s.thread_caches), (1, 1, 0));
}

/// P3: the first rent of any size but 0 on a thread creates that thread's cache for the pool: the
/// cache (one allocation), the thread's list of pools and the pool's list of caches (one each,
/// when they first grow) — and the buffer itself.
#[test]
fn a_threads_first_rent_creates_its_cache_in_3_allocations_plus_the_buffer() {
    let pool = default_pool();
    std::thread::scope(|s| {
        s.spawn(|| {
            let ((), first) = count(|| drop(pool.rent(LINE_BUFFER)));
            assert_eq!(first.allocs, 3 + 1);
            let ((), second) = count(|| drop(pool.rent(LINE_BUFFER)));
            assert_eq!(second.allocs, 0);
        });
    });
}

/// For the process-wide pool the thread's cache has a place of its own: the cache (one
/// allocation) and maybe the pool's list of caches (when it grows), plus the buffer.
#[test]
fn a_threads_first_rent_from_the_shared_pool_allocates_its_cache_and_the_buffer() {
    let shared = pool::shared();
    std::thread::scope(|s| {
        s.spawn(|| {
            // 3,000 bytes: a bucket (4 KiB) no other test of this binary uses on the shared
            // pool, so no other thread's buffer is on its stack.
            let ((), first) = count(|| drop(shared.rent(3000)));
            assert!(
                (2..=3).contains(&first.allocs),
                "the cache, maybe the list's growth, and one 4 KiB buffer: {first:?}"
            );
            assert!(first.bytes_allocated >= 4096);
            let ((), second) = count(|| drop(shared.rent(3000)));
            assert_eq!(second.allocs, 0);
        });
    });
}

/// P2, P8: one element above the largest bucket is exact-size and not kept.
#[test]
fn above_the_largest_bucket_is_exact_size_and_not_kept() {
    let pool = BufferPool::<u8>::new(PoolConfig {
        max_len: 1000,
        ..PoolConfig::default()
    });
    assert_eq!(pool.largest_bucket(), 1024);
    drop(pool.rent(1));
    let (buf, stats) = count(|| pool.rent(1025));
    assert_eq!(
        (buf.capacity(), stats.allocs, stats.bytes_allocated),
        (1025, 1, 1025)
    );
    let ((), freed) = count(|| drop(buf));
    assert_eq!((freed.deallocs, freed.bytes_freed), (1, 1025));
    let s = pool.stats();
    // Only the 16-element buffer of the first rent is kept.
    assert_eq!((s.oversize, s.discarded, s.retained_bytes), (1, 1, 16));
}

/// P2, P8: `max_len` sets the largest bucket, `max_len` rounded up to a power of two: every
/// request up to that bucket is pooled, also those above `max_len`, as in .NET's
/// `ArrayPool.Create`.
#[test]
fn a_request_above_max_len_but_within_its_bucket_is_pooled_not_oversize() {
    let pool = BufferPool::<u8>::new(PoolConfig {
        max_len: 1000,
        ..PoolConfig::default()
    });
    let first = pool.rent(1024);
    assert_eq!(first.capacity(), 1024);
    drop(first);
    let (again, stats) = count(|| pool.rent(1001));
    assert_eq!((again.capacity(), stats.allocs), (1024, 0));
    drop(again);
    let s = pool.stats();
    assert_eq!((s.oversize, s.discarded, s.retained_bytes), (0, 0, 1024));
}

/// P1: once warm, a rent and give-back per line allocates nothing.
#[test]
fn steady_state_10000_rent_return_cycles_allocate_0_bytes() {
    let pool = default_pool();
    workloads::line_pooled(&pool, FIRST_LINE); // warm-up: the cache and one buffer
    let cycles = scaled(10_000, 100);
    let (_, stats) = count(|| workloads::lines(cycles, |line| workloads::line_pooled(&pool, line)));
    assert_eq!(
        (stats.allocs, stats.bytes_allocated, stats.deallocs),
        (0, 0, 0)
    );
    let s = pool.stats();
    assert_eq!(
        (s.rents, s.allocations, s.returns),
        (cycles as u64 + 1, 1, cycles as u64 + 1)
    );
}

/// P1: the same holds for the process-wide pool.
#[test]
fn steady_state_holds_for_the_shared_pool_too() {
    let shared = pool::shared();
    workloads::line_pooled(shared, FIRST_LINE);
    let (_, stats) =
        count(|| workloads::lines(scaled(10_000, 100), |l| workloads::line_pooled(shared, l)));
    assert_eq!(stats.bytes_allocated, 0);
}

/// P1: a fresh line buffer is its 128 bytes, a stack array nothing.
#[test]
fn a_fresh_line_buffer_costs_128_bytes_per_line_and_a_stack_array_0() {
    let (_, fresh) = count(|| workloads::lines(10, workloads::line_fresh));
    assert_eq!(
        (fresh.allocs, fresh.bytes_allocated),
        (10, 10 * LINE_BUFFER as u64)
    );
    let (_, stack) = count(|| workloads::lines(10, workloads::line_stack));
    assert_eq!(stack.bytes_allocated, 0);
}

/// P1: the counts are the bytes requested; glibc's malloc adds a header and rounding of its
/// own. A 128-byte request gets a 144-byte chunk: 136 usable bytes behind an 8-byte header.
#[test]
#[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
fn p1_glibc_puts_a_128_byte_request_in_a_144_byte_chunk() {
    unsafe extern "C" {
        fn malloc_usable_size(ptr: *mut std::ffi::c_void) -> usize;
    }
    let mut line = vec![0u8; LINE_BUFFER];
    // SAFETY: `line`'s storage is live and came from glibc: the counting allocator forwards to
    // the system allocator, which calls `calloc` for a zeroed block of alignment 1.
    let usable = unsafe { malloc_usable_size(line.as_mut_ptr().cast()) };
    assert_eq!((usable, usable + 8), (136, 144));
}

/// P3: a bucket's shared stack takes no memory until a buffer first goes down to it; its
/// storage is allocated then, for 4 buffers.
#[test]
fn p3_the_first_buffer_sent_down_to_a_stack_allocates_room_for_4() {
    let pool = default_pool();
    drop(pool.rent(LINE_BUFFER)); // the thread's cache and one buffer, in its slot
    let ((), first) = count(|| drop((pool.rent(LINE_BUFFER), pool.rent(LINE_BUFFER))));
    let room = 4 * std::mem::size_of::<Box<[u8]>>() as u64;
    assert_eq!(
        (first.allocs, first.bytes_allocated),
        (2, LINE_BUFFER as u64 + room),
        "a second buffer, then the stack's storage when the older one goes down"
    );
    let ((), again) = count(|| drop((pool.rent(LINE_BUFFER), pool.rent(LINE_BUFFER))));
    assert_eq!(again.allocs, 0);
}

/// P4: the pool never hands out uninitialised memory.
#[test]
fn a_fresh_buffer_is_always_zeroed() {
    let pool = BufferPool::<f64>::new(PoolConfig::default());
    for len in [1, 16, 17, 1000] {
        assert!(pool.rent(len).iter().all(|&x| x == 0.0));
        let big = pool.rent(len * 4);
        assert!(big.iter().all(|&x| x == 0.0));
    }
}

/// P4: the seed's sequence without clearing.
#[test]
fn without_clearing_the_next_renter_sees_all_41_bytes_of_the_previous_line() {
    let seen = workloads::stale_data(ClearPolicy::Never);
    assert!(seen.same_buffer);
    assert_eq!((seen.first_written, seen.second_written), (41, 25));
    assert_eq!(seen.nonzero_before_writing, 41);
    // Byte 25 is the last byte of the old line's `ุ`: a read with the remembered length starts
    // the stale tail in the middle of a character.
    assert_eq!(seen.wrong_length_read, Err(25));
    assert_eq!(
        seen.wrong_length_lossy,
        "7|ส้มตำ|1|6000\n\u{FFFD}้ง|2|18000\n"
    );
    assert_eq!(seen.nonzero_after_second_return, 41);
}

/// P4: the seed's sequence with a pool that clears on return.
#[test]
fn with_clear_on_return_the_next_renter_sees_0_non_zero_bytes() {
    let seen = workloads::stale_data(ClearPolicy::OnReturn);
    assert!(seen.same_buffer);
    assert_eq!(seen.nonzero_before_writing, 0);
    assert_eq!(seen.wrong_length_read, Ok(()));
    assert_eq!(seen.wrong_length_lossy.trim_end_matches('\0'), SECOND_LINE);
    assert_eq!(seen.nonzero_after_second_return, 0);
}

/// P4: only what a renter was shown is reset.
#[test]
fn clear_on_return_resets_only_the_prefix_that_was_shown() {
    let pool = BufferPool::<u8>::new(PoolConfig {
        clear: ClearPolicy::OnReturn,
        ..PoolConfig::default()
    });
    let mut wide = pool.rent(2048);
    wide.fill(7);
    drop(wide);
    let mut narrow = pool.rent(1025);
    assert!(narrow.iter().all(|&b| b == 0));
    narrow.fill(9);
    drop(narrow);
    let wide = pool.rent(2048);
    assert!(
        wide.iter().all(|&b| b == 0),
        "the 1,025 shown bytes were reset, the rest was 0"
    );
}

#[test]
fn rent_cleared_resets_whatever_the_policy() {
    let pool = default_pool();
    pool.rent(64).fill(0xAA);
    assert!(pool.rent_cleared(64).iter().all(|&b| b == 0));
}

/// P5, P11: `give_back_cleared` is the way to let go of a secret. The next plain renter of the
/// same buffer reads `T::default()` where the secret was.
#[test]
fn after_give_back_cleared_the_next_plain_renter_reads_only_defaults() {
    let pool = default_pool();
    let mut secret = pool.rent(64);
    secret[..16].copy_from_slice(b"card 4111-1111-1");
    let addr = secret.as_ptr();
    secret.give_back_cleared();
    let next = pool.rent(64);
    assert!(std::ptr::eq(next.as_ptr(), addr), "the same buffer");
    assert!(next.iter().all(|&b| b == 0));
    let s = pool.stats();
    assert_eq!((s.rents, s.returns), (2, 1));
}

/// P5, P11: of the four ways to let go of a 16-byte secret, only `give_back_cleared` and a
/// pool that clears on return leave nothing for the next renter; `rent_cleared` clears when
/// the buffer is rented, so the secret written after it stays.
#[test]
fn only_give_back_cleared_or_a_clearing_pool_wipes_a_secret_and_rent_cleared_does_not() {
    let left: Vec<(usize, bool)> = LetGo::ALL
        .iter()
        .map(|&how| workloads::secret_left_for_next_renter(how))
        .collect();
    assert_eq!(left, [(16, true), (16, true), (0, true), (0, true)]);
}

/// `give_back_cleared` clears only what the renter was shown: the rest of the bucket holds
/// nothing it wrote, and clearing it would cost for nothing.
#[test]
fn give_back_cleared_clears_the_shown_prefix_only() {
    let pool = default_pool();
    let mut wide = pool.rent(2048);
    wide.fill(7);
    drop(wide);
    let narrow = pool.rent(1025);
    narrow.give_back_cleared();
    let wide = pool.rent(2048);
    assert!(wide[..1025].iter().all(|&b| b == 0));
    assert!(wide[1025..].iter().all(|&b| b == 7));
}

/// P7: the limit is one cached buffer plus the bucket's stack.
#[test]
fn one_thread_holds_1_plus_max_per_bucket_buffers_before_the_pool_allocates() {
    let max_per_bucket = 50;
    let pool = default_pool();
    let limit = 1 + max_per_bucket;
    let mut held: Vec<Rented<'_, u8>> = Vec::with_capacity(limit + 3);
    workloads::rent_many(&pool, &mut held, limit, 128); // warm-up round
    let (_, at_limit) = count(|| workloads::rent_many(&pool, &mut held, limit, 128));
    assert_eq!(at_limit.bytes_allocated, 0);
    let (_, above) = count(|| workloads::rent_many(&pool, &mut held, limit + 3, 128));
    assert_eq!((above.allocs, above.bytes_allocated), (3, 3 * 128));
    let s = pool.stats();
    assert_eq!(s.discarded, 3);
    assert_eq!(s.retained_buffers, limit as u64);
}

/// P7: the cache keeps the most recent buffer.
#[test]
fn the_thread_cache_keeps_the_most_recent_buffer_and_sends_the_older_one_down() {
    let pool = default_pool();
    let (older, newer) = (pool.rent(100), pool.rent(100));
    let (older_addr, newer_addr) = (older.as_ptr(), newer.as_ptr());
    drop(older);
    drop(newer);
    // The most recent give-back is in this thread's cache and is handed out first; the older
    // one went down to the shared stack.
    let first = pool.rent(100);
    let second = pool.rent(100);
    assert!(std::ptr::eq(first.as_ptr(), newer_addr));
    assert!(std::ptr::eq(second.as_ptr(), older_addr));
}

#[test]
fn max_per_bucket_usize_max_is_accepted_and_no_give_back_or_drop_panics() {
    let pool = BufferPool::<u8>::try_new(PoolConfig {
        max_per_bucket: usize::MAX,
        ..PoolConfig::default()
    })
    .expect("any bound is a valid bound");
    let held: Vec<_> = (0..scaled(100, 10)).map(|_| pool.rent(64)).collect();
    drop(held);
    let s = pool.stats();
    assert_eq!(
        (s.discarded, s.retained_buffers),
        (0, scaled(100, 10) as u64)
    );
    assert_eq!(
        pool.max_retained_bytes(1),
        u64::MAX,
        "saturates, never overflows"
    );
    drop(pool);
}

#[test]
fn outstanding_and_hits_never_panic_even_on_a_hand_made_snapshot() {
    let impossible = PoolStats {
        rents: 1,
        returns: 5,
        allocations: 3,
        ..PoolStats::default()
    };
    assert_eq!((impossible.outstanding(), impossible.hits()), (0, 0));
}

#[test]
fn max_per_bucket_zero_keeps_only_the_thread_cache() {
    let pool = BufferPool::<u8>::new(PoolConfig {
        max_per_bucket: 0,
        ..PoolConfig::default()
    });
    let (a, b) = (pool.rent(16), pool.rent(16));
    drop((a, b));
    assert_eq!(
        (pool.stats().retained_buffers, pool.stats().discarded),
        (1, 1)
    );
}

#[test]
fn without_a_thread_cache_everything_goes_through_the_shared_stacks() {
    let pool = BufferPool::<u8>::new(PoolConfig {
        thread_cache: false,
        max_per_bucket: 1,
        ..PoolConfig::default()
    });
    let (a, b) = (pool.rent(16), pool.rent(16));
    drop((a, b));
    let s = pool.stats();
    assert_eq!((s.retained_buffers, s.discarded), (1, 1));
    let (_, stats) = count(|| drop(pool.rent(16)));
    assert_eq!(stats.allocs, 0);
}

/// P6: a `?` gives the buffer back.
#[test]
fn the_guard_gives_back_on_an_early_return() {
    let pool = default_pool();
    drop(pool.rent(LINE_BUFFER)); // warm-up: the thread's cache and one buffer
    let n = scaled(10_000, 100);
    let (_, stats) = count(|| {
        (0..n)
            .filter(|_| workloads::line_or_error(&pool, true).is_err())
            .count()
    });
    assert_eq!((stats.allocs, stats.deallocs), (0, 0));
    let s = pool.stats();
    assert_eq!(
        (s.allocations, s.returns, s.outstanding()),
        (1, n as u64 + 1, 0)
    );
}

/// P6: unwinding gives the buffer back.
#[test]
fn the_guard_gives_back_during_a_panic() {
    let pool = default_pool();
    for _ in 0..scaled(10, 3) {
        let outcome = std::panic::catch_unwind(|| workloads::line_or_panic(&pool, true));
        assert!(outcome.is_err());
    }
    let s = pool.stats();
    assert_eq!(
        (s.allocations, s.outstanding(), s.retained_buffers),
        (1, 0, 1)
    );
}

/// P6: keeping a buffer for good costs a fresh one per call, safely.
#[test]
// Under Miri: a leak on purpose, which Miri's leak check rightly reports.
#[cfg_attr(miri, ignore = "a leak on purpose")]
fn mem_forget_loses_one_buffer_per_call_and_nothing_breaks() {
    let pool = default_pool();
    drop(pool.rent(1)); // warm-up: the thread's cache
    let n = scaled(1000, 20);
    let (_, stats) = count(|| {
        (0..n)
            .filter(|_| workloads::line_or_error_forgetting(&pool, true).is_err())
            .count()
    });
    assert_eq!((stats.allocs, stats.deallocs), (n as u64, 0));
    assert_eq!(stats.bytes_allocated, (n * LINE_BUFFER) as u64);
    let s = pool.stats();
    assert_eq!((s.allocations, s.outstanding()), (n as u64 + 1, n as u64));
    // The pool still works: a buffer given back is reused.
    drop(pool.rent(LINE_BUFFER));
    let (_, again) = count(|| drop(pool.rent(LINE_BUFFER)));
    assert_eq!(again.allocs, 0);
}

/// P9: `trim` frees what the pool retains.
#[test]
fn trim_releases_every_byte_the_pool_retains() {
    let pool = default_pool();
    let held: Vec<_> = [16, 100, 1025, 1025, 8192]
        .iter()
        .map(|&n| pool.rent(n))
        .collect();
    drop(held);
    let retained = pool.stats().retained_bytes;
    assert_eq!(retained, 16 + 128 + 2048 * 2 + 8192);
    let (released, stats) = count(|| pool.trim());
    assert_eq!(released, retained);
    // Every buffer, plus the storage of the one shared stack that had kept something (the
    // first 2 KiB buffer, pushed down by the second): 4 entries, its first growth.
    assert_eq!(stats.deallocs, 5 + 1);
    assert_eq!(
        stats.bytes_freed,
        retained + 4 * std::mem::size_of::<Box<[u8]>>() as u64
    );
    assert_eq!(
        (pool.stats().retained_bytes, pool.stats().retained_buffers),
        (0, 0)
    );
    assert_eq!(pool.trim(), 0);
}

#[test]
fn rent_on_one_thread_give_back_on_another_and_the_exiting_thread_hands_it_on() {
    let pool = Arc::new(default_pool());
    let buf_addr = std::thread::scope(|s| {
        let mut buf = pool.rent(100);
        buf[0] = 42;
        let addr = buf.as_ptr() as usize;
        s.spawn(move || drop(buf)).join().unwrap();
        addr
    });
    let s = pool.stats();
    assert_eq!((s.returns, s.retained_buffers), (1, 1));
    // The other thread kept it in its cache, then exited and gave its cache back to the shared
    // stack: this thread gets the very same buffer, without allocating.
    let (here, stats) = count(|| pool.rent(100));
    assert_eq!(here.as_ptr() as usize, buf_addr);
    assert_eq!(stats.allocs, 0);
}

#[test]
fn two_threads_a_million_mixed_operations_never_share_a_buffer() {
    let pool = BufferPool::<u8>::new(PoolConfig {
        max_per_bucket: 4,
        ..PoolConfig::default()
    });
    let held_by_someone: Mutex<HashSet<usize>> = Mutex::new(HashSet::new());
    let ops = scaled(1_000_000, 400);
    let rents_made: u64 = std::thread::scope(|s| {
        let threads: Vec<_> = (0..2u64)
            .map(|thread| {
                let (pool, marks) = (&pool, &held_by_someone);
                s.spawn(move || {
                    let mut rents = 0u64;
                    let mut mine: Vec<Rented<'_, u8>> = Vec::new();
                    let mut state = 0x9E37_79B9_7F4A_7C15 ^ thread;
                    for _ in 0..ops {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        if state % 3 != 0 && mine.len() < 8 {
                            let len = [1, 17, 100, 128, 1025][(state >> 8) as usize % 5];
                            let buf = pool.rent(len);
                            rents += 1;
                            let fresh = marks.lock().unwrap().insert(buf.as_ptr() as usize);
                            assert!(fresh, "a buffer was lent to two renters at once");
                            mine.push(buf);
                        } else if let Some(buf) = mine.pop() {
                            assert!(marks.lock().unwrap().remove(&(buf.as_ptr() as usize)));
                            drop(buf);
                        }
                    }
                    for buf in mine.drain(..) {
                        assert!(marks.lock().unwrap().remove(&(buf.as_ptr() as usize)));
                        drop(buf);
                    }
                    rents
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).sum()
    });
    let s = pool.stats();
    assert_eq!(s.rents, rents_made);
    assert!(
        rents_made > ops as u64 / 2,
        "both threads really ran ({rents_made} rents)"
    );
    assert_eq!((s.returns, s.outstanding()), (rents_made, 0));
}

#[test]
fn the_pool_is_send_and_sync_and_a_guard_can_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<BufferPool<u8>>();
    send_sync::<BufferPool<f64>>();
    send::<Rented<'static, u8>>();
}

#[test]
fn an_impossible_max_len_is_a_clear_error_not_a_panic() {
    let err = BufferPool::<u64>::try_new(PoolConfig {
        max_len: usize::MAX / 2,
        ..PoolConfig::default()
    })
    .unwrap_err();
    let ConfigError::MaxLenTooLarge { limit, .. } = err.clone();
    assert_eq!(limit, 1 << 59);
    assert!(err.to_string().contains("max_len"), "{err}");
    assert!(
        BufferPool::<u64>::try_new(PoolConfig {
            max_len: 1 << 59,
            ..PoolConfig::default()
        })
        .is_ok()
    );
}

mod model {
    //! Random sequences of rents and give-backs against the rules the pool promises.
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Rent(usize),
        GiveBack(usize),
        Trim,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0usize..5000).prop_map(Op::Rent),
            3 => any::<usize>().prop_map(Op::GiveBack),
            1 => Just(Op::Trim),
        ]
    }

    proptest! {
        // Under Miri: a few cases, and no failure file (Miri's isolation forbids `getcwd`).
        #![proptest_config(if cfg!(miri) {
            ProptestConfig { cases: 4, failure_persistence: None, ..ProptestConfig::default() }
        } else {
            ProptestConfig::with_cases(256)
        })]
        #[test]
        fn random_sequences_keep_every_promise(ops in proptest::collection::vec(op(), 1..60)) {
            let pool = BufferPool::<u8>::new(PoolConfig { max_len: 4096, max_per_bucket: 3, ..PoolConfig::default() });
            let mut live: Vec<Rented<'_, u8>> = Vec::new();
            for op in ops {
                match op {
                    Op::Rent(len) => {
                        let buf = pool.rent(len);
                        prop_assert_eq!(buf.len(), len);
                        let expected = match len {
                            0 => 0,
                            1..=4096 => len.max(16).next_power_of_two(),
                            _ => len,
                        };
                        prop_assert_eq!(buf.capacity(), expected);
                        let addr = buf.as_ptr();
                        prop_assert!(len == 0 || live.iter().all(|b| b.as_ptr() != addr));
                        live.push(buf);
                    }
                    Op::GiveBack(i) if !live.is_empty() => drop(live.swap_remove(i % live.len())),
                    Op::GiveBack(_) => {}
                    Op::Trim => { pool.trim(); }
                }
                let s = pool.stats();
                prop_assert_eq!(s.rents, s.returns + live.len() as u64);
                prop_assert!(s.retained_buffers <= 9 * (1 + 3), "9 buckets × (cache + bound)");
                prop_assert!(s.allocations <= s.rents);
            }
        }
    }
}
