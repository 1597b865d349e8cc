//! Limits in bytes, per-bucket counts, and `stats()` while threads come and go.

use std::sync::atomic::{AtomicBool, Ordering};

use hotpath_pool::{BufferPool, PoolConfig, VecPool};

mod common;
use common::scaled;

#[test]
fn a_buffer_pool_of_f64_with_defaults_caches_at_most_1_mib_per_buffer_per_thread() {
    let p = BufferPool::<f64>::new(PoolConfig::default());
    assert_eq!(p.largest_cached_bucket(), 128 << 10, "1 MiB of f64");
    let per_thread = p.max_retained_bytes(1) - p.max_retained_bytes(0);
    assert_eq!(per_thread, ((2 * (128 << 10) - 16) * 8) as u64);
    assert!(per_thread < 2 << 20);
    // A 2 MiB buffer is not cached: it goes to the shared stack, and no cache is created.
    std::thread::scope(|s| {
        s.spawn(|| drop(p.rent(256 << 10)));
    });
    let stats = p.stats();
    let bucket = stats
        .buckets
        .iter()
        .find(|b| b.capacity == 256 << 10)
        .unwrap();
    assert_eq!((bucket.cached_buffers, bucket.stacked_buffers), (0, 1));
    assert_eq!(stats.thread_caches, 0);
    // The same bytes of u8 are cached as before.
    let bytes = BufferPool::<u8>::new(PoolConfig::default());
    assert_eq!(bytes.largest_cached_bucket(), 1 << 20);
}

#[test]
fn thread_cache_max_bytes_rounds_down_to_a_bucket_and_below_one_buffer_means_no_cache() {
    let config = PoolConfig::new().with_thread_cache_max_bytes(1000);
    assert_eq!(BufferPool::<u8>::new(config).largest_cached_bucket(), 512);
    assert_eq!(BufferPool::<u32>::new(config).largest_cached_bucket(), 128);
    let none = BufferPool::<u64>::new(PoolConfig::new().with_thread_cache_max_bytes(127));
    assert_eq!(none.largest_cached_bucket(), 0);
    drop(none.rent(16));
    assert_eq!(none.stats().thread_caches, 0);
    // Both limits apply: the smaller wins.
    let both = PoolConfig::new()
        .with_thread_cache_max_len(64)
        .with_thread_cache_max_bytes(usize::MAX);
    assert_eq!(BufferPool::<u64>::new(both).largest_cached_bucket(), 64);
    // A zero-sized element has no byte limit.
    assert_eq!(
        BufferPool::<()>::new(PoolConfig::new()).largest_cached_bucket(),
        1 << 20
    );
}

#[test]
fn stats_counts_what_each_bucket_holds_in_caches_and_on_stacks() {
    let p = BufferPool::<u8>::new(PoolConfig::new().with_max_len(4096));
    let held: Vec<_> = [16, 16, 16, 100, 4096].iter().map(|&n| p.rent(n)).collect();
    drop(held);
    let s = p.stats();
    assert_eq!(s.buckets.len(), 9, "16 to 4,096");
    let counts: Vec<_> = s
        .buckets
        .iter()
        .map(|b| (b.capacity, b.cached_buffers, b.stacked_buffers))
        .filter(|&(_, cached, stacked)| cached + stacked > 0)
        .collect();
    assert_eq!(counts, [(16, 1, 2), (128, 1, 0), (4096, 1, 0)]);
    let buffers: u64 = s
        .buckets
        .iter()
        .map(|b| b.cached_buffers + b.stacked_buffers)
        .sum();
    let bytes: u64 = s.buckets.iter().map(|b| b.retained_bytes).sum();
    assert_eq!((buffers, bytes), (s.retained_buffers, s.retained_bytes));
    assert_eq!(bytes, 3 * 16 + 128 + 4096);

    let vecs = VecPool::<u32>::new(1 << 10, 8);
    drop(vecs.rent_vec(100));
    let s = vecs.stats();
    let class = s.buckets.iter().find(|b| b.stacked_buffers == 1).unwrap();
    assert_eq!((class.capacity, class.retained_bytes), (128, 128 * 4));
}

/// Threads start, use the pool and exit while other threads take `stats()` over and over:
/// every snapshot is consistent, and once every thread is joined the counts are exact. (That
/// thread start and exit never wait behind the stacks is by construction: `stats` takes no
/// stack's lock while it holds the list of threads.)
#[test]
fn threads_start_and_exit_while_stats_runs_on_many_threads_and_every_snapshot_is_consistent() {
    let p = BufferPool::<u8>::new(PoolConfig::new().with_max_per_bucket(2));
    let done = AtomicBool::new(false);
    let (waves, per_wave, rents) = (scaled(20, 2), 4, scaled(50, 5));
    std::thread::scope(|s| {
        let watchers: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| {
                    let mut snapshots = 0u64;
                    while !done.load(Ordering::Relaxed) || snapshots == 0 {
                        let st = p.stats();
                        assert!(st.returns <= st.rents, "{st:?}");
                        assert!(st.allocations <= st.rents, "{st:?}");
                        assert!(st.discarded <= st.returns, "{st:?}");
                        // At most the live workers and the watchers' own (empty) caches.
                        assert!(st.thread_caches <= per_wave as u64 + 1, "{st:?}");
                        let bytes: u64 = st.buckets.iter().map(|b| b.retained_bytes).sum();
                        assert_eq!(bytes, st.retained_bytes);
                        assert!(st.retained_bytes <= p.max_retained_bytes(per_wave as u64 + 1));
                        snapshots += 1;
                    }
                    snapshots
                })
            })
            .collect();
        for _ in 0..waves {
            let workers: Vec<_> = (0..per_wave)
                .map(|i| {
                    let p = &p;
                    s.spawn(move || {
                        for n in 0..rents {
                            let a = p.rent(16 << ((n + i) % 4));
                            let b = p.rent(16 << (n % 3));
                            drop((a, b));
                        }
                    })
                })
                .collect();
            for worker in workers {
                worker.join().unwrap();
            }
        }
        done.store(true, Ordering::Relaxed);
        for watcher in watchers {
            assert!(watcher.join().unwrap() > 0);
        }
    });
    let st = p.stats();
    let total = (waves * per_wave * rents * 2) as u64;
    assert_eq!((st.rents, st.returns, st.outstanding()), (total, total, 0));
    assert_eq!(st.thread_caches, 0, "every thread was joined");
}
