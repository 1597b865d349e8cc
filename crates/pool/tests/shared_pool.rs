//! The process-wide pool, pinned in a test binary of its own: its state (which buffers sit on
//! its stacks) is shared by every test of a process, so these tests take turns, each starts
//! from empty stacks, and each uses the pool only on threads it joins before its turn ends (a
//! thread's cache goes to the stacks when the thread exits).

use std::sync::{Mutex, MutexGuard, PoisonError};

use hotpath_pool::{DEFAULT_MAX_SHARED_BYTES, SHARED_MAX_LEN, shared, shared_config};
use lab::count;

mod common;

/// Runs `f` on a thread of its own, with the process-wide pool to itself, its stacks emptied
/// first; returns when the thread has exited, its cache handed back.
fn with_the_shared_pool<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    static TURN: Mutex<()> = Mutex::new(());
    let _turn: MutexGuard<'_, ()> = TURN.lock().unwrap_or_else(PoisonError::into_inner);
    shared().trim();
    std::thread::spawn(f)
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Rents `len` on a new thread, gives it back there, lets the thread exit; returns the
/// buffer's address.
fn rent_on_a_thread_that_exits(len: usize) -> usize {
    std::thread::spawn(move || shared().rent(len).as_ptr() as usize)
        .join()
        .unwrap()
}

#[test]
fn the_shared_pool_gets_an_exiting_threads_cache_back_too() {
    with_the_shared_pool(|| {
        drop(shared().rent(1)); // this thread's cache exists now
        let addr = rent_on_a_thread_that_exits(200_000);
        let (here, stats) = count(|| shared().rent(200_000));
        assert_eq!((here.as_ptr() as usize, stats.allocs), (addr, 0));
    });
}

/// For the process-wide pool the thread's cache has a place of its own: the cache (one
/// allocation) and maybe the pool's list of caches (when it grows), plus the buffer. Where its
/// caches are on the heap (`build.rs`: no `cfg(resident_tls)`), the thread's short list of
/// pools may grow too, as for any pool.
#[test]
fn a_threads_first_rent_from_the_shared_pool_allocates_its_cache_and_the_buffer() {
    with_the_shared_pool(|| {
        let ((), first) = count(|| drop(shared().rent(3000)));
        let most = if cfg!(resident_tls) { 3 } else { 4 };
        assert!(
            (2..=most).contains(&first.allocs),
            "the cache, maybe the lists' growth, and one 4 KiB buffer: {first:?}"
        );
        assert!(first.bytes_allocated >= 4096);
        let ((), second) = count(|| drop(shared().rent(3000)));
        assert_eq!(second.allocs, 0);
    });
}

/// `shared_config()` is the configuration the process-wide pool was created with, at every
/// call.
#[test]
fn shared_config_is_the_configuration_of_the_shared_pool() {
    assert_eq!(shared_config(), *shared().config());
    assert_eq!(shared_config(), shared_config());
}

/// P9: what the process-wide pool can hold is `64 MiB + L × (2 MiB − 16 B)` with `L` live
/// threads that used it: its stacks' byte budget, and one buffer of every bucket up to 1 MiB
/// per live thread. Five 16 MiB buffers given back at once: the stacks keep four (64 MiB), the
/// fifth is freed, and no thread caches a buffer that large.
#[test]
fn the_shared_pool_retains_at_most_64_mib_plus_2_mib_per_live_thread() {
    let pool = shared();
    const MIB: u64 = 1 << 20;
    for live in [0, 1, 4, 1000] {
        assert_eq!(
            pool.max_retained_bytes(live),
            64 * MIB + live * (2 * MIB - 16)
        );
    }
    assert_eq!(
        (pool.largest_bucket(), pool.largest_cached_bucket()),
        (16 << 20, 1 << 20)
    );
    if cfg!(miri) {
        return; // 80 MiB of buffers: not under Miri
    }
    with_the_shared_pool(|| {
        let pool = shared();
        let before = pool.stats();
        let held: Vec<_> = (0..5).map(|_| pool.rent(SHARED_MAX_LEN)).collect();
        drop(held);
        let after = pool.stats();
        assert_eq!(after.retained_bytes, DEFAULT_MAX_SHARED_BYTES as u64);
        assert_eq!(after.discarded - before.discarded, 1);
        assert!(after.retained_bytes <= pool.max_retained_bytes(after.thread_caches));
        assert_eq!(pool.trim(), 64 * MIB);
    });
}
