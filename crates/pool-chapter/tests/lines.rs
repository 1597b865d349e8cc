//! The order line's buffer, pinned through the chapter's line workloads: one 128-byte buffer
//! per line costs nothing once the pool is warm and 128 bytes fresh (P1), a failing line gives
//! its buffer back unless the guard is forgotten (P6), and one thread holds 1 + `max_per_bucket`
//! buffers of a size before the pool allocates (P7). Counts are exact.

use lab::count;
use pool::{BufferPool, PoolConfig, Rented};
use pool_chapter::workloads::{self, FIRST_LINE, LINE_BUFFER};

mod common;
use common::scaled;

fn default_pool() -> BufferPool<u8> {
    BufferPool::new(PoolConfig::default())
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
