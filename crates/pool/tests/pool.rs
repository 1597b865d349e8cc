//! The pool's claims, pinned: bucket rounding, which requests are pooled, first-use costs,
//! fresh buffers and clearing (secrets included), the per-bucket and byte bounds,
//! configurations that used to panic, threads. Counts are exact.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use hotpath_pool::{BufferPool, ClearPolicy, ConfigError, PoolConfig, PoolStats, Rented};
use lab::count;

mod common;
use common::scaled;

/// The chapter's per-line buffer: 128 bytes.
const LINE_BUFFER: usize = 128;

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
    let shared = hotpath_pool::shared();
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
    let shared = hotpath_pool::shared();
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
/// when they first grow) — and the buffer itself. Its give-back allocates nothing.
#[test]
fn a_threads_first_rent_creates_its_cache_in_3_allocations_plus_the_buffer() {
    let pool = default_pool();
    std::thread::scope(|s| {
        s.spawn(|| {
            let (first, rented) = count(|| pool.rent(LINE_BUFFER));
            let ((), given_back) = count(|| drop(first));
            assert_eq!((rented.allocs, given_back.allocs), (3 + 1, 0));
            let ((), second) = count(|| drop(pool.rent(LINE_BUFFER)));
            assert_eq!(second.allocs, 0);
        });
    });
}

/// P2, P8: one element above the largest bucket is exact-size and not kept.
#[test]
fn above_the_largest_bucket_is_exact_size_and_not_kept() {
    let pool = BufferPool::<u8>::new(PoolConfig::default().with_max_len(1000));
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
    let pool = BufferPool::<u8>::new(PoolConfig::default().with_max_len(1000));
    let first = pool.rent(1024);
    assert_eq!(first.capacity(), 1024);
    drop(first);
    let (again, stats) = count(|| pool.rent(1001));
    assert_eq!((again.capacity(), stats.allocs), (1024, 0));
    drop(again);
    let s = pool.stats();
    assert_eq!((s.oversize, s.discarded, s.retained_bytes), (0, 0, 1024));
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

/// P4: only what a renter was shown is reset.
#[test]
fn clear_on_return_resets_only_the_prefix_that_was_shown() {
    let pool = BufferPool::<u8>::new(PoolConfig::default().with_clear(ClearPolicy::OnReturn));
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

/// An element whose `Default` rents from a pool this thread has never used: each call makes a
/// new byte pool and rents from it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct RentsWhenMade(u8);

impl Default for RentsWhenMade {
    fn default() -> Self {
        let scratch = BufferPool::<u8>::new(PoolConfig::default());
        let buf = scratch.rent(16);
        Self(buf.len() as u8)
    }
}

/// A fresh buffer is made after the pool has let go of this thread's storage, so element code
/// that rents from another pool — one this thread has never used, whose cache it must
/// register — runs safely (it once found the storage borrowed and panicked).
#[test]
fn a_fresh_buffer_whose_default_rents_from_a_new_pool_does_not_panic() {
    let pool = BufferPool::<RentsWhenMade>::new(PoolConfig::default());
    drop(pool.rent(16)); // this thread's cache for `pool` exists now
    let other = BufferPool::<u8>::new(PoolConfig::default());
    drop(other.rent(1)); // the fast path now knows `other`, not `pool`
    let fresh = pool.rent(32); // a miss: a fresh buffer of `RentsWhenMade::default()`
    assert_eq!(fresh.len(), 32);
    assert!(fresh.iter().all(|&x| x == RentsWhenMade(16)));
    drop(fresh);
    let s = pool.stats();
    assert_eq!((s.rents, s.allocations, s.returns), (2, 2, 2));
}

thread_local! {
    /// Whether [`PanicsWhenMade::default`] panics on this thread.
    static MAKING_PANICS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// An element whose `Default` panics when asked to.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PanicsWhenMade;

impl Default for PanicsWhenMade {
    fn default() -> Self {
        assert!(!MAKING_PANICS.get(), "no element today");
        Self
    }
}

/// A rent whose fresh buffer cannot be made (its element's `Default` panics) is not counted:
/// the counts move only once the buffer exists, so `outstanding()` stays exact.
#[test]
fn a_rent_whose_fresh_buffer_panics_is_not_counted() {
    let pool = BufferPool::<PanicsWhenMade>::new(PoolConfig::default());
    drop(pool.rent(16));
    MAKING_PANICS.set(true);
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let failed = std::panic::catch_unwind(|| pool.rent(32).len());
    std::panic::set_hook(previous_hook);
    MAKING_PANICS.set(false);
    assert!(failed.is_err());
    let s = pool.stats();
    assert_eq!((s.rents, s.allocations, s.returns), (1, 1, 1));
    assert_eq!(s.outstanding(), 0);
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
    let pool = BufferPool::<u8>::try_new(
        PoolConfig::default()
            .with_max_per_bucket(usize::MAX)
            .with_max_shared_bytes(usize::MAX)
            .with_thread_cache_max_len(usize::MAX),
    )
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
    let mut impossible = PoolStats::default();
    (impossible.rents, impossible.returns, impossible.allocations) = (1, 5, 3);
    assert_eq!((impossible.outstanding(), impossible.hits()), (0, 0));
}

#[test]
fn max_per_bucket_zero_keeps_only_the_thread_cache() {
    let pool = BufferPool::<u8>::new(PoolConfig::default().with_max_per_bucket(0));
    let (a, b) = (pool.rent(16), pool.rent(16));
    drop((a, b));
    assert_eq!(
        (pool.stats().retained_buffers, pool.stats().discarded),
        (1, 1)
    );
}

#[test]
fn without_a_thread_cache_everything_goes_through_the_shared_stacks() {
    let pool = BufferPool::<u8>::new(
        PoolConfig::default()
            .with_thread_cache_max_len(0)
            .with_max_per_bucket(1),
    );
    let (a, b) = (pool.rent(16), pool.rent(16));
    drop((a, b));
    let s = pool.stats();
    assert_eq!((s.retained_buffers, s.discarded), (1, 1));
    let (_, stats) = count(|| drop(pool.rent(16)));
    assert_eq!(stats.allocs, 0);
}

/// P9: the shared stacks keep at most `max_shared_bytes`, all buckets together: a give-back
/// that would take them past it is freed and counted as discarded, whatever its bucket.
#[test]
fn the_stacks_keep_at_most_max_shared_bytes_all_buckets_together() {
    let pool = BufferPool::<u8>::new(
        PoolConfig::default()
            .with_max_len(4096)
            .with_max_per_bucket(8)
            .with_max_shared_bytes(3 * 1024)
            .with_thread_cache_max_len(0),
    );
    // min(8 × (2 × 4,096 − 16), 3 KiB), and no thread term without thread caches.
    assert_eq!(pool.max_retained_bytes(5), 3 * 1024);
    let held: Vec<_> = (0..5).map(|_| pool.rent(1024)).collect();
    drop(held);
    let s = pool.stats();
    assert_eq!(
        (s.retained_bytes, s.retained_buffers, s.discarded),
        (3072, 3, 2)
    );
    drop((pool.rent(16), pool.rent(4096)));
    let s = pool.stats();
    assert_eq!(
        (s.retained_bytes, s.discarded),
        (3072, 4),
        "full: any bucket is refused"
    );
    let one = pool.rent(1024); // off the stack: 1 KiB of room again
    drop(pool.rent(16)); // takes 16 B of it
    assert_eq!(pool.stats().retained_bytes, 2048 + 16);
    drop(one); // 1 KiB no longer fits
    let s = pool.stats();
    assert_eq!((s.retained_bytes, s.discarded), (2048 + 16, 5));
}

/// Buffers of buckets above `thread_cache_max_len` are not cached per thread: they go straight
/// to the shared stacks, and a thread that rents only those gets no cache.
#[test]
fn buffers_above_the_thread_cache_limit_go_to_the_stacks_and_create_no_cache() {
    let pool = BufferPool::<u8>::new(PoolConfig::default().with_thread_cache_max_len(1000));
    assert_eq!(pool.largest_cached_bucket(), 1024);
    assert_eq!(
        pool.max_retained_bytes(1) - pool.max_retained_bytes(0),
        2 * 1024 - 16,
        "one buffer of each bucket from 16 to 1,024 per live thread"
    );
    std::thread::scope(|s| {
        s.spawn(|| {
            drop(pool.rent(2048));
            let st = pool.stats();
            assert_eq!((st.thread_caches, st.retained_bytes), (0, 2048));
            drop(pool.rent(100));
            assert_eq!(pool.stats().thread_caches, 1, "a size it caches");
        })
        .join()
        .unwrap();
    });
}

/// A pool without thread caches (`thread_cache_max_len: 0`) registers nothing on any thread:
/// a thread's first rent allocates its buffer, and the give-back the stack's storage, nothing
/// else.
#[test]
fn a_pool_without_thread_caches_registers_nothing_on_any_thread() {
    let pool = BufferPool::<u8>::new(PoolConfig::default().with_thread_cache_max_len(0));
    assert_eq!(pool.largest_cached_bucket(), 0);
    std::thread::scope(|s| {
        s.spawn(|| {
            let (buf, rented) = count(|| pool.rent(LINE_BUFFER));
            let ((), given_back) = count(|| drop(buf));
            assert_eq!(
                (rented.allocs, rented.bytes_allocated),
                (1, LINE_BUFFER as u64)
            );
            let room = 4 * std::mem::size_of::<Box<[u8]>>() as u64;
            assert_eq!((given_back.allocs, given_back.bytes_allocated), (1, room));
        })
        .join()
        .unwrap();
    });
    let s = pool.stats();
    assert_eq!(
        (s.thread_caches, s.rents, s.returns, s.retained_buffers),
        (0, 1, 1, 1)
    );
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
    let pool = BufferPool::<u8>::new(PoolConfig::default().with_max_per_bucket(4));
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
    let err =
        BufferPool::<u64>::try_new(PoolConfig::default().with_max_len(usize::MAX / 2)).unwrap_err();
    let ConfigError::MaxLenTooLarge { limit, .. } = err.clone() else {
        panic!("a new kind of configuration error: {err}")
    };
    assert_eq!(limit, 1 << 59);
    assert!(err.to_string().contains("max_len"), "{err}");
    assert!(BufferPool::<u64>::try_new(PoolConfig::default().with_max_len(1 << 59)).is_ok());
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
            let pool = BufferPool::<u8>::new(PoolConfig::default().with_max_len(4096).with_max_per_bucket(3));
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
