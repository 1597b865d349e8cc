//! Limits in bytes, per-bucket counts, the number of thread caches, and `stats()` while
//! threads come and go.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Barrier, mpsc};

use hotpath_pool::{BufferPool, PoolConfig, VecPool};
use lab::count;

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
/// every snapshot is consistent — counts in order, and each bucket within its count bounds (a
/// snapshot's bytes may count a buffer moving between a cache and a stack twice, so the byte
/// bound is checked once every thread is joined) — and then the counts are exact. (That
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
                        for b in &st.buckets {
                            assert!(b.stacked_buffers <= 2, "{st:?}");
                            assert!(b.cached_buffers <= st.thread_caches, "{st:?}");
                        }
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
    assert!(st.retained_bytes <= p.max_retained_bytes(0), "{st:?}");
}

/// `max_thread_caches: 2` with 4 threads alive at once, each using the pool in turn: the first
/// two get a cache each, the other two get none and rent and give back through the shared
/// stacks (sharing one buffer of each size there), asking again for a place at each rent and
/// give-back without allocating. Every count balances, before and after the threads exit.
#[test]
fn max_thread_caches_caps_the_live_caches_and_the_threads_past_it_still_rent_and_give_back() {
    let p = BufferPool::<u8>::new(
        PoolConfig::new()
            .with_max_len(1024)
            .with_max_thread_caches(2),
    );
    assert_eq!(p.config().max_thread_caches, 2);
    let (threads, rounds) = (4, scaled(50, 4));
    let exit = Barrier::new(threads + 1);
    // Taken while every thread that has used the pool so far is parked: (caches, allocations
    // of each thread's rounds after its first).
    let mut seen = Vec::new();
    let (full, end) = std::thread::scope(|s| {
        let (used, in_turn) = mpsc::channel();
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let (p, exit, used) = (&p, &exit, used.clone());
                let handle = s.spawn(move || {
                    let mut later_allocs = 0;
                    for round in 0..rounds {
                        let ((), counted) = count(|| {
                            let (a, b) = (p.rent(16), p.rent(100));
                            drop((a, b));
                        });
                        if round > 0 {
                            later_allocs += counted.allocs;
                        }
                    }
                    used.send(later_allocs).unwrap();
                    exit.wait();
                });
                // One thread at a time: the next starts once this one is parked.
                let later_allocs = in_turn.recv().unwrap();
                seen.push((p.stats().thread_caches, later_allocs));
                handle
            })
            .collect();
        let full = p.stats();
        exit.wait(); // before asserting, so that a failure cannot leave the threads waiting
        // An explicit `join` waits for the thread's exit, thread-local destructors included.
        for handle in handles {
            handle.join().unwrap();
        }
        (full, p.stats())
    });
    assert_eq!(seen, [(1, 0), (2, 0), (2, 0), (2, 0)]);
    let total = (threads * rounds * 2) as u64;
    assert_eq!(
        (full.rents, full.returns, full.outstanding()),
        (total, total, 0)
    );
    assert_eq!(full.thread_caches, 2, "{full:?}");
    // Two caches of one buffer of each size, and the one pair on the stacks.
    assert_eq!(full.allocations, 6, "{full:?}");
    let buckets: Vec<_> = full
        .buckets
        .iter()
        .filter(|b| b.cached_buffers + b.stacked_buffers > 0)
        .map(|b| (b.capacity, b.cached_buffers, b.stacked_buffers))
        .collect();
    assert_eq!(buckets, [(16, 2, 1), (128, 2, 1)]);
    assert!(full.retained_bytes <= p.max_retained_bytes(threads as u64));
    // Every thread exited: the caches went to the stacks.
    assert_eq!(
        (end.rents, end.returns, end.thread_caches),
        (total, total, 0)
    );
    assert_eq!((end.retained_buffers, end.discarded), (6, 0), "{end:?}");
}

/// `max_thread_caches: 1`: a second thread is refused a place while the first holds it, and
/// gives back through the stacks; once the first has exited, the second gets the place at its
/// next rent and keeps its buffer in its own cache.
#[test]
fn a_thread_refused_a_cache_gets_one_once_a_thread_holding_one_exits() {
    let p = BufferPool::<u8>::new(
        PoolConfig::new()
            .with_max_len(1024)
            .with_max_thread_caches(1),
    );
    let (held, exit_holder) = (Barrier::new(2), Barrier::new(2));
    let (step, next_step) = mpsc::channel::<()>();
    let (report, reported) = mpsc::channel();
    let snapshots = std::thread::scope(|s| {
        let holder = s.spawn(|| {
            drop(p.rent(16));
            held.wait();
            exit_holder.wait();
        });
        held.wait();
        let p = &p;
        let waiting = s.spawn(move || {
            drop(p.rent(16)); // refused: through the stacks
            report.send(p.stats()).unwrap();
            next_step.recv().unwrap(); // the holder has exited
            drop(p.rent(16)); // asks again, and takes the place
            report.send(p.stats()).unwrap();
            next_step.recv().unwrap();
        });
        let refused = reported.recv().unwrap();
        exit_holder.wait();
        holder.join().unwrap();
        let holder_gone = p.stats();
        step.send(()).unwrap();
        let placed = reported.recv().unwrap();
        step.send(()).unwrap();
        waiting.join().unwrap();
        [refused, holder_gone, placed, p.stats()]
    });
    let view: Vec<_> = snapshots
        .iter()
        .map(|s| {
            let small = &s.buckets[0];
            (
                s.thread_caches,
                small.cached_buffers,
                small.stacked_buffers,
                s.rents,
                s.returns,
            )
        })
        .collect();
    assert_eq!(
        view,
        [
            (1, 1, 1, 2, 2), // the holder's buffer in its cache, the refused thread's stacked
            (0, 0, 2, 2, 2), // the holder exited: its cache went to the stack
            (1, 1, 1, 3, 3), // the second thread has the place and caches its buffer
            (0, 0, 2, 3, 3), // and it exited too
        ],
        "{snapshots:?}"
    );
    assert_eq!(snapshots[3].allocations, 2);
}

/// `max_thread_caches: 0`: no thread gets a cache. Every rent and give-back goes through the
/// shared stacks, a thread's first rent allocates its buffer and nothing else, and the bound
/// counts no thread cache.
#[test]
fn max_thread_caches_0_means_no_thread_cache() {
    let p = BufferPool::<u8>::new(PoolConfig::new().with_max_thread_caches(0));
    assert_eq!(p.largest_cached_bucket(), 0);
    assert_eq!(p.max_retained_bytes(5), p.max_retained_bytes(0));
    let (buf, first) = count(|| p.rent(16));
    assert_eq!(first.allocs, 1, "the buffer, and no cache");
    drop(buf);
    std::thread::scope(|s| {
        s.spawn(|| drop(p.rent(16))).join().unwrap();
    });
    drop(p.rent(16));
    let s = p.stats();
    assert_eq!(s.thread_caches, 0);
    assert_eq!((s.rents, s.allocations, s.returns), (3, 1, 3));
    let small = &s.buckets[0];
    assert_eq!((small.cached_buffers, small.stacked_buffers), (0, 1));
}

/// `max_retained_bytes` counts the caches of at most `max_thread_caches` threads: with caches of
/// one buffer of each bucket up to 64 bytes, a limit of 2 and stacks that keep nothing, 4 live
/// threads that each gave back one buffer of every bucket hold exactly the bound for 2 threads,
/// which is the bound for 4.
#[test]
fn max_retained_bytes_counts_the_caches_of_at_most_max_thread_caches_threads() {
    let one_of_each = 16 + 32 + 64;
    let config = PoolConfig::new().with_max_len(64).with_max_shared_bytes(0);
    let uncapped = BufferPool::<u8>::new(config);
    let p = BufferPool::<u8>::new(config.with_max_thread_caches(2));
    assert_eq!(p.largest_cached_bucket(), 64);
    for (live, caches) in [(0, 0), (1, 1), (2, 2), (4, 2), (u64::MAX, 2)] {
        assert_eq!(p.max_retained_bytes(live), caches * one_of_each, "{live}");
    }
    assert_eq!(uncapped.max_retained_bytes(4), 4 * one_of_each);
    let threads = 4;
    let (ready, done) = (Barrier::new(threads + 1), Barrier::new(threads + 1));
    let s = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    for n in [16, 32, 64] {
                        drop(p.rent(n));
                    }
                    ready.wait();
                    done.wait();
                })
            })
            .collect();
        ready.wait();
        let s = p.stats();
        done.wait();
        for handle in handles {
            handle.join().unwrap();
        }
        s
    });
    assert_eq!(s.thread_caches, 2, "{s:?}");
    assert_eq!(s.retained_bytes, p.max_retained_bytes(threads as u64));
    assert_eq!(s.retained_bytes, 2 * one_of_each);
    // The two threads without a cache gave back to stacks that keep nothing.
    assert_eq!(s.discarded, 2 * 3);
}
