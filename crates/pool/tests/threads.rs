//! The pool across threads, pinned: an exiting thread gives its cache back, a pool dropped
//! while other threads still cache its buffers frees them, an owned guard crosses
//! `thread::spawn`, `trim` reaches other threads' caches, the memory bound holds, and a
//! `stats` snapshot taken while threads work is never impossible.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier, mpsc};

use hotpath_pool::{BufferPool, OwnedRented, PoolConfig, shared_config};
use lab::count;

mod common;
use common::scaled;

/// Rents `len` on a new thread, gives it back there, lets the thread exit; returns the
/// buffer's address.
fn rent_on_a_thread_that_exits(pool: &BufferPool<u8>, len: usize) -> usize {
    std::thread::scope(|s| {
        s.spawn(|| {
            let buf = pool.rent(len);
            buf.as_ptr() as usize
        })
        .join()
        .unwrap()
    })
}

#[test]
fn a_thread_that_exits_gives_its_cached_buffer_to_the_shared_stack() {
    for config in [shared_config(), PoolConfig::default()] {
        let pool = BufferPool::<u8>::new(config);
        let addr = rent_on_a_thread_that_exits(&pool, 100);
        let s = pool.stats();
        // No live thread has a cache for the pool; the buffer is on the shared stack.
        assert_eq!((s.thread_caches, s.retained_buffers), (0, 1));
        assert_eq!((s.rents, s.returns, s.discarded), (1, 1, 0));
        let here = pool.rent(100);
        assert_eq!(
            here.as_ptr() as usize,
            addr,
            "the same buffer, from the stack"
        );
        assert_eq!(pool.stats().allocations, 1);
    }
}

#[test]
fn a_thread_that_exits_frees_what_the_full_stacks_cannot_keep() {
    let pool = BufferPool::<u8>::new(PoolConfig::default().with_max_per_bucket(0));
    rent_on_a_thread_that_exits(&pool, 100);
    let s = pool.stats();
    assert_eq!(
        (s.thread_caches, s.retained_buffers, s.discarded),
        (0, 0, 1)
    );
    assert_eq!((s.rents, s.returns, s.outstanding()), (1, 1, 0));
}

#[test]
fn counts_of_threads_that_exited_stay_in_the_stats() {
    let pool = BufferPool::<u8>::new(PoolConfig::default());
    let threads = scaled(8, 3);
    for _ in 0..threads {
        rent_on_a_thread_that_exits(&pool, 64);
    }
    let s = pool.stats();
    assert_eq!((s.rents, s.returns), (threads as u64, threads as u64));
    assert_eq!(
        (s.allocations, s.thread_caches),
        (1, 0),
        "one buffer, handed on"
    );
}

/// P9: the memory bound, `(max_per_bucket + live threads) × one buffer of every bucket`.
/// Threads that have exited count for nothing.
#[test]
fn what_the_pool_retains_stays_within_the_bound_of_its_live_threads() {
    let pool = BufferPool::<u8>::new(
        PoolConfig::default()
            .with_max_len(1 << 12)
            .with_max_per_bucket(2),
    );
    // Every bucket of this pool: 16, 32, … 4,096 bytes.
    let sizes: Vec<usize> = (0..pool.largest_bucket().trailing_zeros() - 3)
        .map(|b| 16 << b)
        .collect();
    let one_of_each: u64 = sizes.iter().map(|&n| n as u64).sum();
    assert_eq!(pool.max_retained_bytes(0), 2 * one_of_each);
    assert_eq!(pool.max_retained_bytes(3), 5 * one_of_each);
    let live = 3;
    let ready = Barrier::new(live + 1);
    let done = Barrier::new(live + 1);
    std::thread::scope(|s| {
        let threads: Vec<_> = (0..live)
            .map(|_| {
                s.spawn(|| {
                    // Each thread holds three of every size at once, then gives them back: the
                    // last stays in its cache, the others go down to the shared stacks, and the
                    // last thread to give back fills them.
                    let held: Vec<_> = sizes
                        .iter()
                        .flat_map(|&n| [pool.rent(n), pool.rent(n), pool.rent(n)])
                        .collect();
                    drop(held);
                    ready.wait();
                    done.wait();
                })
            })
            .collect();
        ready.wait();
        let s = pool.stats();
        done.wait(); // before asserting, so that a failure cannot leave the threads waiting
        // An explicit `join` waits for the thread's exit, thread-local destructors included
        // (the end of a scope waits only for the closures).
        for thread in threads {
            thread.join().unwrap();
        }
        assert_eq!(s.thread_caches, live as u64);
        assert!(s.retained_bytes <= pool.max_retained_bytes(live as u64));
        assert_eq!(
            s.retained_bytes,
            (live as u64 + 2) * one_of_each,
            "the bound is reached"
        );
    });
    // The threads exited: their caches went to the stacks, already full, and were freed.
    let s = pool.stats();
    assert_eq!(s.thread_caches, 0);
    assert_eq!(s.retained_bytes, pool.max_retained_bytes(0));
}

/// A pool dropped while another thread still caches one of its buffers: the drop frees that
/// buffer, exactly 1 KiB more than the drop of a twin pool whose worker emptied its own cache
/// frees (no leak — Miri checks — and no use after free when that thread exits later).
#[test]
fn dropping_a_pool_frees_the_buffers_live_threads_still_cache() {
    fn bytes_freed_by_the_drop(worker_keeps_its_buffer: bool) -> u64 {
        let pool = Arc::new(BufferPool::<u8>::new(PoolConfig::default()));
        let (cached, exit) = (Arc::new(Barrier::new(2)), Arc::new(Barrier::new(2)));
        let worker = {
            let (pool, cached, exit) = (Arc::clone(&pool), Arc::clone(&cached), Arc::clone(&exit));
            std::thread::spawn(move || {
                drop(pool.rent(1000)); // cached in this thread's slot
                if !worker_keeps_its_buffer {
                    pool.trim(); // this thread's own cache: emptied now
                }
                drop(pool); // this thread lets go of the pool, but not of its cache
                cached.wait();
                exit.wait();
                // The thread exits now, after the pool is gone: its cache has nothing to give.
            })
        };
        cached.wait();
        let held = if worker_keeps_its_buffer { 1024 } else { 0 };
        assert_eq!(pool.stats().retained_bytes, held);
        let pool = Arc::into_inner(pool).expect("the worker let go of its reference");
        let ((), freed) = count(|| drop(pool));
        exit.wait();
        worker.join().unwrap();
        freed.bytes_freed
    }
    assert_eq!(
        bytes_freed_by_the_drop(true) - bytes_freed_by_the_drop(false),
        1024,
        "the worker's cached 1 KiB buffer, freed by the drop"
    );
}

/// A thread that only gives back — here the consumer of an owned guard — gets a cache of its
/// own (as in .NET, whose `Return` sets up the thread's cache): it counts among the live
/// threads of the memory bound until it exits, and then hands its buffer to the stacks.
#[test]
fn a_thread_that_only_gives_back_gets_a_cache_of_its_own() {
    let pool = Arc::new(BufferPool::<u8>::new(PoolConfig::default()));
    let buf = Arc::clone(&pool).rent_owned(100);
    assert_eq!(pool.stats().thread_caches, 1, "the renting thread");
    let (given_back, exit) = (Arc::new(Barrier::new(2)), Arc::new(Barrier::new(2)));
    let consumer = {
        let (given_back, exit) = (Arc::clone(&given_back), Arc::clone(&exit));
        std::thread::spawn(move || {
            drop(buf);
            given_back.wait();
            exit.wait();
        })
    };
    given_back.wait();
    let s = pool.stats();
    exit.wait();
    consumer.join().unwrap();
    assert_eq!((s.thread_caches, s.retained_buffers), (2, 1));
    assert!(s.retained_bytes <= pool.max_retained_bytes(2));
    let s = pool.stats();
    assert_eq!(
        (s.thread_caches, s.retained_buffers),
        (1, 1),
        "on the stack now"
    );
}

/// P5: the compiling twin of the contract's rule 7: an owned guard moves into a spawned
/// thread and goes back to its pool there.
#[test]
fn an_owned_guard_moves_into_a_spawned_thread_and_is_given_back_there() {
    let pool = Arc::new(BufferPool::<u8>::new(PoolConfig::default()));
    let mut buf: OwnedRented<u8> = Arc::clone(&pool).rent_owned(100);
    buf[0] = 42;
    let addr = buf.as_ptr() as usize;
    let seen = std::thread::spawn(move || {
        assert_eq!((buf.len(), buf.capacity(), buf[0]), (100, 128, 42));
        drop(buf);
    })
    .join();
    assert!(seen.is_ok());
    let s = pool.stats();
    assert_eq!(
        (s.rents, s.returns, s.allocations, s.outstanding()),
        (1, 1, 1, 0)
    );
    // The spawned thread cached it, exited, and handed it to the shared stack.
    let here = pool.rent(100);
    assert_eq!(here.as_ptr() as usize, addr);
    assert_eq!(pool.stats().allocations, 1);
}

#[test]
fn an_owned_guard_is_static_and_send_and_keeps_its_pool_alive() {
    fn static_send<T: Send + 'static>(_: &T) {}
    let pool = Arc::new(BufferPool::<u64>::new(PoolConfig::default()));
    let buf = Arc::clone(&pool).rent_owned(10);
    static_send(&buf);
    drop(pool);
    assert_eq!(
        buf.pool().stats().rents,
        1,
        "the guard's `Arc` keeps the pool"
    );
    let (tx, rx) = mpsc::channel();
    tx.send(buf).unwrap();
    let buf = rx.recv().unwrap();
    assert_eq!(buf.len(), 10);
}

/// P9: `trim` frees the calling thread's cache and the shared stacks at once; another live
/// thread's cache is freed by that thread, at its next visit to the pool's slow path.
#[test]
fn trim_frees_this_threads_cache_now_and_another_threads_cache_at_its_next_miss() {
    let pool = BufferPool::<u8>::new(PoolConfig::default());
    let (cached, trimmed, checked) = (Barrier::new(2), Barrier::new(2), Barrier::new(2));
    // The thread stays alive until `after` is read: as it exits it sends its cache down to the
    // shared stacks, and a snapshot taken meanwhile may count that buffer in both places.
    let read = Barrier::new(2);
    std::thread::scope(|s| {
        s.spawn(|| {
            drop(pool.rent(1000)); // 1 KiB cached on this thread
            cached.wait();
            trimmed.wait();
            drop(pool.rent(16)); // a miss: the slow path honours the trim request
            checked.wait();
            read.wait();
        });
        drop(pool.rent(100)); // 128 B cached on this thread
        cached.wait();
        let before = pool.stats().retained_bytes;
        let released = pool.trim();
        let between = pool.stats().retained_bytes;
        trimmed.wait();
        checked.wait();
        let after = pool.stats().retained_bytes;
        read.wait();
        assert_eq!(
            (before, released),
            (1024 + 128, 128),
            "this thread's cache only"
        );
        assert_eq!(
            between, 1024,
            "the other thread's, until it visits the pool"
        );
        assert_eq!(
            after, 16,
            "its 1 KiB is gone; it cached the 16 B it rented since"
        );
    });
}

/// P9: `trim` cannot reach the cache of a live thread that does not come back to the pool: the
/// thread keeps its buffer — within the per-thread term of the bound — however often `trim` is
/// called, until its next visit to the slow path or its exit, which then frees it.
#[test]
fn trim_leaves_an_idle_threads_cache_in_place_until_it_visits_the_pool_or_exits() {
    let pool = BufferPool::<u8>::new(PoolConfig::default());
    let (cached, exit) = (Barrier::new(2), Barrier::new(2));
    std::thread::scope(|s| {
        let idle = s.spawn(|| {
            drop(pool.rent(1000)); // 1 KiB cached on this thread, which then waits
            cached.wait();
            exit.wait();
        });
        cached.wait();
        let mut held = Vec::new();
        for _ in 0..3 {
            assert_eq!(
                pool.trim(),
                0,
                "nothing of this thread's, nothing on the stacks"
            );
            held.push(pool.stats().retained_bytes);
        }
        exit.wait();
        idle.join().unwrap();
        assert_eq!(held, [1024; 3], "still cached by the idle thread");
        assert!(1024 <= pool.max_retained_bytes(1) - pool.max_retained_bytes(0));
    });
    let s = pool.stats();
    assert_eq!(
        (s.thread_caches, s.retained_bytes, s.discarded),
        (0, 0, 0),
        "the exiting thread honoured the trim: freed, not handed to the stacks"
    );
}

/// P7-style churn on several threads, with guards moved across threads, while another thread
/// takes snapshots: every snapshot is possible (never more returns than rents, more
/// allocations than rents, or more discards than returns), and `outstanding()` never panics.
#[test]
fn concurrent_snapshots_never_show_more_returns_than_rents() {
    let pool = BufferPool::<u8>::new(PoolConfig::default().with_max_per_bucket(2));
    let stop = AtomicBool::new(false);
    let ops = scaled(20_000, 60);
    std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            let mut snapshots = 0u64;
            while !stop.load(Ordering::Relaxed) || snapshots == 0 {
                let st = pool.stats();
                assert!(st.returns <= st.rents, "{st:?}");
                assert!(st.allocations <= st.rents, "{st:?}");
                assert!(st.discarded <= st.returns, "{st:?}");
                assert!(st.outstanding() <= st.rents);
                snapshots += 1;
            }
            snapshots
        });
        let (tx, rx) = mpsc::channel::<hotpath_pool::Rented<'_, u8>>();
        let pool = &pool;
        let renter = s.spawn(move || {
            for i in 0..ops {
                let buf = pool.rent(16 << (i % 4));
                if i % 2 == 0 {
                    tx.send(buf).unwrap(); // given back on the other thread
                }
            }
        });
        let returner = s.spawn(move || {
            for buf in rx {
                drop(buf);
            }
        });
        renter.join().unwrap();
        returner.join().unwrap();
        stop.store(true, Ordering::Relaxed);
        assert!(watcher.join().unwrap() > 0);
    });
    let st = pool.stats();
    assert_eq!(
        (st.rents, st.returns, st.outstanding()),
        (ops as u64, ops as u64, 0)
    );
}
