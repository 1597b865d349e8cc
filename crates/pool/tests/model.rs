//! Concurrency models of the owner protocol, run under shuttle: a pool dropped while threads
//! retire their caches, a thread's retire beside another thread's clean-up of a dropped pool's
//! caches, `stats` and `trim` beside rents and give-backs, a buffer that crosses threads
//! while its pool is dropped, and threads racing for a pool's one place for a thread cache;
//! and for the process-wide pool, whose hit path finds each thread's cache through a pointer in
//! the thread's storage, its caches' registration and retirement beside `stats`, `trim` and
//! buffers given back on another thread.
//!
//! Compiled only with `--cfg shuttle`, which also swaps the crate's locks, atomics and
//! thread-locals for shuttle's (`src/sync.rs`):
//!
//! ```text
//! RUSTFLAGS="--cfg shuttle" CARGO_TARGET_DIR=target/shuttle \
//!     cargo test -p hotpath-pool --release --test model
//! ```
//!
//! Shuttle runs each model's threads one at a time and picks which runs next at every lock,
//! atomic access, spawn, join and channel operation: each model runs [`SCHEDULES`] schedules of
//! a random scheduler and as many of PCT at depth 3 (which finds a bug that needs up to 3
//! ordering constraints with a known probability per schedule), each from a fixed seed, so a run
//! explores the same schedules every time and a failure replays. Shuttle treats every atomic as `SeqCst`: the models check the protocol
//! (who may touch a cache, and when), not the memory orderings, which Miri's weak-memory
//! emulation exercises on the rest of the test suite.
//!
//! The element type is `Copy`, so it has no destructor to count with; instead every buffer is
//! counted by the allocator. Its elements are 256-byte aligned, which nothing else in a model
//! allocates, so the allocator tells the pool's buffers from every other allocation, and counts
//! per OS thread, which is the test's: shuttle runs all of a model's threads on the thread that
//! called it.
#![cfg(shuttle)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use hotpath_pool::{BufferPool, PoolConfig, PoolStats};
use shuttle::scheduler::PctScheduler;
use shuttle::sync::{Arc, mpsc};
use shuttle::thread;
use shuttle::{Config, Runner};

/// How many schedules each scheduler runs per model.
const SCHEDULES: usize = 50_000;

/// The alignment, and size, of [`Tagged`].
const TAG: usize = 256;

/// An element whose buffers the allocator can tell apart: 256 bytes, 256-byte aligned.
#[derive(Clone, Copy, Default)]
#[repr(C, align(256))]
struct Tagged(u8);

const _: () = assert!(std::mem::size_of::<Tagged>() == TAG);

/// Bytes of a buffer of the smallest bucket (16 elements).
const SMALL: u64 = 16 * TAG as u64;

/// Counts, per OS thread, the blocks of [`TAG`] alignment allocated and freed, and keeps the
/// addresses of those not yet freed, so that a second free of one is caught (counted, and not
/// passed on to the system allocator) instead of corrupting the heap.
struct CountingAlloc;

/// How many buffers a model may hold at once: far more than any model allocates.
const LIVE: usize = 64;

std::thread_local! {
    static ALLOCATED: Cell<u64> = const { Cell::new(0) };
    static FREED: Cell<u64> = const { Cell::new(0) };
    /// Frees of a block that was not allocated, or was freed already.
    static BAD_FREES: Cell<u64> = const { Cell::new(0) };
    static LIVE_BLOCKS: Cell<[usize; LIVE]> = const { Cell::new([0; LIVE]) };
}

/// Records a new block at `addr`; `false` if the table is full (the block is then not counted).
fn allocated(addr: usize) -> bool {
    LIVE_BLOCKS
        .try_with(|live| {
            let mut blocks = live.get();
            let Some(free) = blocks.iter_mut().find(|b| **b == 0) else {
                return false;
            };
            *free = addr;
            live.set(blocks);
            ALLOCATED.set(ALLOCATED.get() + 1);
            true
        })
        .unwrap_or(false)
}

/// Forgets the block at `addr`; `false` if it is not a live block (a double free).
fn freed(addr: usize) -> bool {
    LIVE_BLOCKS
        .try_with(|live| {
            let mut blocks = live.get();
            let Some(block) = blocks.iter_mut().find(|b| **b == addr) else {
                BAD_FREES.set(BAD_FREES.get() + 1);
                return false;
            };
            *block = 0;
            live.set(blocks);
            FREED.set(FREED.get() + 1);
            true
        })
        .unwrap_or(true)
}

// SAFETY: every call is forwarded to `System` unchanged, except the free of a block that is not
// live, which is dropped (freeing it would be undefined behaviour); the bookkeeping touches only
// `Cell`s in thread-local storage that has no destructor, and allocates nothing.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System.alloc`'s.
        let ptr = unsafe { System.alloc(layout) };
        if layout.align() == TAG && !ptr.is_null() && !allocated(ptr as usize) {
            // SAFETY: `ptr` was just allocated with `layout`; the caller never sees it.
            unsafe { System.dealloc(ptr, layout) };
            return std::ptr::null_mut();
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if layout.align() == TAG && !freed(ptr as usize) {
            return;
        }
        // SAFETY: the caller's contract is `System.dealloc`'s, and `ptr` is live.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Buffers allocated, buffers freed and second frees on this OS thread so far.
fn buffers() -> (u64, u64, u64) {
    (
        ALLOCATED.with(Cell::get),
        FREED.with(Cell::get),
        BAD_FREES.with(Cell::get),
    )
}

/// Runs `model` under both schedulers, and after each schedule checks that every buffer the
/// schedule allocated was freed, and freed once.
fn explore(model: impl Fn() + Send + Sync + 'static) {
    let model = std::sync::Arc::new(model);
    let run = move || {
        let (allocated, freed, bad) = buffers();
        model();
        let (now_allocated, now_freed, now_bad) = buffers();
        let (allocated, freed, bad) = (now_allocated - allocated, now_freed - freed, now_bad - bad);
        assert_eq!(bad, 0, "{bad} buffers freed twice");
        assert!(allocated > 0, "the model allocated no buffer");
        assert_eq!(
            freed, allocated,
            "{allocated} buffers allocated, {freed} freed"
        );
    };
    schedules(run);
}

/// Runs `run` for [`SCHEDULES`] schedules of each scheduler, each from a fixed seed.
fn schedules(run: impl Fn() + Clone + Send + Sync + 'static) {
    let again = run.clone();
    shuttle::check_random_with_seed(run, 0x9e37_79b9, SCHEDULES);
    let pct = PctScheduler::new_from_seed(0x7f4a_7c15, 3, SCHEDULES);
    Runner::new(pct, Config::default()).run(again);
}

/// Two cached buckets of [`Tagged`] (16 and 32 elements), stacks of 2 buffers a bucket and at
/// most 3 small buffers' worth of bytes: small enough that caches fill, stacks overflow and the
/// budget refuses buffers within a few operations.
fn config() -> PoolConfig {
    PoolConfig::new()
        .with_max_len(32)
        .with_max_per_bucket(2)
        .with_max_shared_bytes(3 * SMALL as usize)
}

/// What every snapshot of a pool shows, whatever else runs: counts in the order operations make
/// them, no more thread caches than the pool allows, and each bucket within its count bounds —
/// at most `max_per_bucket` buffers on its stack (each shard's count is within its share) and
/// at most one in each thread cache.
///
/// Not the byte bound: a snapshot reads the caches and then the stacks shard by shard while
/// other threads move buffers, so a buffer that goes from a cache to a stack, or from one
/// shard to another, during it can be counted twice (a run found 28,672 bytes against a bound
/// of 24,576). The pool never holds more than the bound; [`check_quiescent`] checks it once no
/// other thread runs.
fn check_snapshot<T: Copy + Default + Send + 'static>(pool: &BufferPool<T>, s: &PoolStats) {
    assert!(s.returns <= s.rents, "{s:?}");
    assert!(s.allocations <= s.rents, "{s:?}");
    assert!(s.discarded <= s.returns, "{s:?}");
    let config = pool.config();
    assert!(s.thread_caches <= config.max_thread_caches as u64, "{s:?}");
    for bucket in &s.buckets {
        assert!(
            bucket.stacked_buffers <= config.max_per_bucket as u64,
            "{s:?}"
        );
        assert!(bucket.cached_buffers <= s.thread_caches, "{s:?}");
    }
}

/// What a pool shows once nothing else runs (every other thread joined): no buffer out, no
/// thread cache left, and what it retains — exact now — within the bound for no live thread.
fn check_quiescent<T: Copy + Default + Send + 'static>(pool: &BufferPool<T>, rents: u64) {
    let s = pool.stats();
    check_snapshot(pool, &s);
    assert_eq!(
        (s.rents, s.returns, s.outstanding()),
        (rents, rents, 0),
        "{s:?}"
    );
    assert_eq!(s.thread_caches, 0, "{s:?}");
    assert!(s.retained_bytes <= pool.max_retained_bytes(0), "{s:?}");
}

/// A thread that rents and gives back a buffer of each bucket, then two small ones at once (the
/// second goes to the stack when given back): 4 rents, and a cache to retire when it exits.
fn work(pool: &BufferPool<Tagged>) {
    drop(pool.rent(16));
    drop(pool.rent(32));
    let (a, b) = (pool.rent(1), pool.rent(16));
    drop(a);
    drop(b);
}

/// The pool is dropped while the threads that cached its buffers exit: whichever of the drop and
/// a thread's retire comes first, or however they interleave, every buffer is freed once, by
/// the pool's drop or by the retire that upgraded the pool last.
///
/// Each thread lets go of the pool and then yields before it exits: `Arc` and `Weak` are std's
/// under shuttle too, so their operations are no scheduling points, and without the yield the
/// pool's last owner could never drop it between a thread's own release and its retire's
/// `upgrade` (where the retire finds the pool gone while its drop is emptying the caches).
#[test]
fn pool_dropped_while_a_thread_retires_its_cache() {
    explore(|| {
        let pool = Arc::new(BufferPool::<Tagged>::new(config()));
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let pool = Arc::clone(&pool);
                thread::spawn(move || {
                    work(&pool);
                    drop(pool);
                    thread::yield_now();
                })
            })
            .collect();
        drop(pool);
        for worker in workers {
            worker.join().unwrap();
        }
    });
}

/// The same with the pool alive until every thread has exited: each retire hands its cache to
/// the stacks within their bounds and frees the rest, and leaves the pool's counts exact.
#[test]
fn threads_retire_their_caches_into_a_live_pool() {
    explore(|| {
        let pool = Arc::new(BufferPool::<Tagged>::new(config()));
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let pool = Arc::clone(&pool);
                thread::spawn(move || work(&pool))
            })
            .collect();
        for worker in workers {
            worker.join().unwrap();
        }
        check_quiescent(&pool, 8);
    });
}

/// One thread exits and retires its cache of pool `first` while another, which also cached
/// `first`'s buffers, registers with pool `second` and so forgets its caches of dropped pools,
/// and `first` is dropped meanwhile: the cache of a dropped pool is freed once, whether by the
/// pool's drop, by the last retire or by the clean-up.
#[test]
fn a_threads_retire_races_orphan_clean_up() {
    explore(|| {
        let first = Arc::new(BufferPool::<Tagged>::new(config()));
        let second = Arc::new(BufferPool::<Tagged>::new(config()));
        let (used, first_used) = mpsc::channel::<()>();
        let exiting = {
            let first = Arc::clone(&first);
            let used = used.clone();
            thread::spawn(move || {
                work(&first);
                used.send(()).unwrap();
            })
        };
        let cleaning = {
            let first = Arc::clone(&first);
            let second = Arc::clone(&second);
            thread::spawn(move || {
                work(&first);
                drop(first);
                used.send(()).unwrap();
                // Registering with `second` drops this thread's caches of pools that are gone.
                work(&second);
            })
        };
        // Drop `first` once both threads have cached its buffers, racing the exit of one and
        // the clean-up of the other.
        first_used.recv().unwrap();
        first_used.recv().unwrap();
        drop(first);
        exiting.join().unwrap();
        cleaning.join().unwrap();
        check_quiescent(&second, 4);
    });
}

/// `stats` while threads start, rent, give back and exit: every snapshot's counts are in order
/// and each bucket within its count bounds; once they have exited, the counts are exact and
/// what the pool retains is within its bound.
#[test]
fn stats_concurrent_with_thread_start_exit_and_rents() {
    explore(|| {
        let pool = Arc::new(BufferPool::<Tagged>::new(config()));
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let pool = Arc::clone(&pool);
                thread::spawn(move || work(&pool))
            })
            .collect();
        let mut last = PoolStats::default();
        for _ in 0..3 {
            let s = pool.stats();
            check_snapshot(&pool, &s);
            assert!(s.thread_caches <= 2, "{s:?}");
            // A thread that exits is counted once: in the list or in the pool's counts. So the
            // counts never go back, nor past the 8 rents and returns the threads make.
            assert!(s.rents <= 8 && s.returns <= 8, "{s:?}");
            assert!(
                s.rents >= last.rents && s.returns >= last.returns,
                "{last:?} then {s:?}"
            );
            assert!(s.allocations >= last.allocations, "{last:?} then {s:?}");
            assert!(s.discarded >= last.discarded, "{last:?} then {s:?}");
            last = s;
        }
        for worker in workers {
            worker.join().unwrap();
        }
        check_quiescent(&pool, 8);
    });
}

/// `trim` on one thread while another rents and gives back: the trimming thread frees the
/// stacks, the other thread empties its cache when it next visits the slow path or exits, no
/// buffer is freed twice or lost, and once the renter has exited a last `trim` leaves nothing
/// retained and every buffer freed before the pool is.
#[test]
fn trim_concurrent_with_rents_on_another_thread() {
    explore(|| {
        let before = buffers();
        let pool = Arc::new(BufferPool::<Tagged>::new(config()));
        let renter = {
            let pool = Arc::clone(&pool);
            thread::spawn(move || {
                work(&pool);
                work(&pool);
            })
        };
        pool.trim();
        check_snapshot(&pool, &pool.stats());
        pool.trim();
        renter.join().unwrap();
        check_quiescent(&pool, 8);
        pool.trim();
        let s = pool.stats();
        assert_eq!((s.retained_buffers, s.retained_bytes), (0, 0), "{s:?}");
        let (allocated, freed, _) = buffers();
        let (allocated, freed) = (allocated - before.0, freed - before.1);
        assert_eq!(freed, allocated, "with the pool still alive");
    });
}

/// Buffers rented on one thread are given back on another while the pool's last owner drops
/// it: each buffer goes back to a pool kept alive by its guard, into the consumer's cache (its
/// first use of the pool) or the stacks, and the pool, dropped by whichever thread lets go of it
/// last, frees them all once.
#[test]
fn a_buffer_rented_on_one_thread_given_back_on_another_while_the_pool_is_dropped() {
    explore(|| {
        let pool = Arc::new(BufferPool::<Tagged>::new(config()));
        let (send, receive) = mpsc::channel();
        let producer = {
            let pool = Arc::clone(&pool);
            thread::spawn(move || {
                for len in [16, 32, 16] {
                    send.send(Arc::clone(&pool).rent_owned(len)).unwrap();
                }
            })
        };
        let consumer = thread::spawn(move || {
            for buf in receive {
                drop(buf);
            }
        });
        drop(pool);
        producer.join().unwrap();
        consumer.join().unwrap();
    });
}

/// `max_thread_caches: 1` and three threads that rent and give back, one once and two twice
/// with a yield between, while the main thread takes snapshots: whichever thread takes the one
/// place, and however the others ask again as it exits, no snapshot shows more than one
/// thread cache, the threads refused a place work through the stacks, and once all have exited
/// the counts balance and every buffer is freed once. A thread started then takes the place.
#[test]
fn threads_race_for_the_one_place_for_a_thread_cache() {
    explore(|| {
        let pool = Arc::new(BufferPool::<Tagged>::new(
            config().with_max_thread_caches(1),
        ));
        let workers: Vec<_> = [1, 2, 2]
            .into_iter()
            .map(|rounds| {
                let pool = Arc::clone(&pool);
                thread::spawn(move || {
                    for round in 0..rounds {
                        if round > 0 {
                            thread::yield_now();
                        }
                        work(&pool);
                    }
                })
            })
            .collect();
        for _ in 0..2 {
            check_snapshot(&pool, &pool.stats());
        }
        for worker in workers {
            worker.join().unwrap();
        }
        check_quiescent(&pool, 5 * 4);
        let late = {
            let pool = Arc::clone(&pool);
            thread::spawn(move || {
                work(&pool);
                pool.stats().thread_caches
            })
        };
        assert_eq!(late.join().unwrap(), 1, "the place is free again");
        check_quiescent(&pool, 6 * 4);
    });
}

/// [`work`] on the process-wide pool (`src/cache/resident.rs`): 4 rents, and a cache
/// registered at the first, which the thread's storage points to until the thread exits and
/// retires it.
fn work_shared() {
    let pool = hotpath_pool::shared();
    drop(pool.rent(16));
    drop(pool.rent(32));
    let (a, b) = (pool.rent(1), pool.rent(16));
    drop(a);
    drop(b);
}

/// What the process-wide pool shows once nothing else runs, when nothing was trimmed: besides
/// [`check_quiescent`], every buffer it allocated is retained or was freed on its way back
/// (the stacks and the byte budget are far from full here, so none was).
fn check_shared_quiescent(rents: u64) {
    let pool = hotpath_pool::shared();
    check_quiescent(pool, rents);
    let s = pool.stats();
    assert_eq!(s.retained_buffers, s.allocations - s.discarded, "{s:?}");
}

/// Threads register caches of `shared()`, rent, give back and exit (retiring them) while the
/// main thread takes snapshots: every snapshot's counts are in order and never go back, and
/// once the threads have exited the counts are exact, no cache is left and every buffer is
/// retained.
#[test]
fn shared_threads_register_and_retire_their_caches_beside_stats() {
    schedules(|| {
        let workers: Vec<_> = (0..2).map(|_| thread::spawn(work_shared)).collect();
        let mut last = PoolStats::default();
        for _ in 0..3 {
            let s = hotpath_pool::shared().stats();
            check_snapshot(hotpath_pool::shared(), &s);
            assert!(s.thread_caches <= 2, "{s:?}");
            assert!(s.rents <= 8 && s.returns <= 8, "{s:?}");
            assert!(
                s.rents >= last.rents && s.returns >= last.returns,
                "{last:?} then {s:?}"
            );
            last = s;
        }
        for worker in workers {
            worker.join().unwrap();
        }
        check_shared_quiescent(8);
    });
}

/// `trim` of `shared()` on the main thread while two threads rent, give back and exit: the
/// trim asks each listed cache to empty, whether or not its thread is retiring it; once the
/// threads have exited, the counts are exact and a last `trim` leaves nothing retained.
#[test]
fn shared_trim_beside_threads_retiring_their_caches() {
    schedules(|| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                thread::spawn(|| {
                    work_shared();
                    thread::yield_now();
                    work_shared();
                })
            })
            .collect();
        hotpath_pool::shared().trim();
        check_snapshot(hotpath_pool::shared(), &hotpath_pool::shared().stats());
        hotpath_pool::shared().trim();
        for worker in workers {
            worker.join().unwrap();
        }
        check_quiescent(hotpath_pool::shared(), 16);
        hotpath_pool::shared().trim();
        let s = hotpath_pool::shared().stats();
        assert_eq!((s.retained_buffers, s.retained_bytes), (0, 0), "{s:?}");
    });
}

/// Buffers of `shared()` rented on one thread and given back on another, whose first give-back
/// registers its cache, while both exit and the main thread takes snapshots: each buffer goes
/// to the consumer's cache or the stacks, the consumer's cache is retired when it exits, and
/// the counts balance.
#[test]
fn shared_buffers_given_back_on_another_thread_that_registers_and_retires() {
    schedules(|| {
        let (send, receive) = mpsc::channel();
        let producer = thread::spawn(move || {
            for len in [16, 32, 16] {
                send.send(hotpath_pool::shared().rent(len)).unwrap();
            }
        });
        let consumer = thread::spawn(move || {
            for buf in receive {
                drop(buf);
            }
        });
        check_snapshot(hotpath_pool::shared(), &hotpath_pool::shared().stats());
        producer.join().unwrap();
        consumer.join().unwrap();
        check_shared_quiescent(3);
    });
}
