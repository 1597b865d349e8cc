//! Scenarios a server meets, each pinned by a test named for it: a guard dropped inside another
//! thread-local's destructor, thousands of short-lived threads, owned guards held across
//! `.await` while a multi-threaded runtime moves their tasks between threads, two pools
//! alternating on one thread, and element types of size zero and of several kilobytes.

use std::cell::RefCell;
use std::sync::Arc;

use hotpath_pool::{BufferPool, OwnedRented, PoolConfig};

mod common;
use common::scaled;

fn every_rent_came_back<T: Copy + Default + Send + 'static>(pool: &BufferPool<T>) {
    let stats = pool.stats();
    assert_eq!(stats.rents, stats.returns, "{stats:?}");
    assert_eq!(stats.outstanding(), 0, "{stats:?}");
}

thread_local! {
    /// A thread-local whose destructor drops a guard: it may run after the pool's own
    /// thread-local cache has been torn down.
    static HELD: RefCell<Option<OwnedRented<u8>>> = const { RefCell::new(None) };
}

#[test]
fn a_guard_dropped_inside_another_thread_locals_destructor_comes_back_or_is_freed() {
    let pool = Arc::new(BufferPool::<u8>::new(PoolConfig::default()));
    for _ in 0..scaled(50, 3) {
        let pool = Arc::clone(&pool);
        std::thread::spawn(move || {
            // The first contact with the pool on this thread is the rent below; the guard is
            // dropped by `HELD`'s destructor during thread teardown.
            let guard = pool.rent_owned(100);
            HELD.with(|held| *held.borrow_mut() = Some(guard));
        })
        .join()
        .unwrap();
    }
    every_rent_came_back(&pool);
    let stats = pool.stats();
    assert_eq!(
        stats.thread_caches, 0,
        "no cache outlives its thread: {stats:?}"
    );
    // What is kept is on the shared stack, within its bound.
    assert!(stats.retained_buffers <= 1 + PoolConfig::default().max_per_bucket as u64);
}

#[test]
fn ten_thousand_short_lived_threads_leave_no_cache_and_a_bounded_pool_behind() {
    let pool = BufferPool::<u8>::new(PoolConfig::default().with_max_per_bucket(8));
    // 10,000 threads, 100 at a time (8 under Miri).
    let (batches, per_batch) = (scaled(100, 1), scaled(100, 8));
    for batch in 0..batches {
        std::thread::scope(|s| {
            let threads: Vec<_> = (0..per_batch)
                .map(|i| {
                    let pool = &pool;
                    s.spawn(move || {
                        let buf = pool.rent(64 << ((batch + i) % 6));
                        assert!(!buf.is_empty());
                    })
                })
                .collect();
            // Joined by hand: a scope's implicit join can return before the threads'
            // thread-local destructors have run (the crate's docs on threads that exit).
            for thread in threads {
                thread.join().unwrap();
            }
        });
    }
    assert_eq!(pool.stats().rents, (batches * per_batch) as u64);
    every_rent_came_back(&pool);
    let stats = pool.stats();
    assert_eq!(stats.thread_caches, 0, "{stats:?}");
    assert!(
        stats.retained_buffers <= 6 * 8,
        "at most max_per_bucket buffers of each of the 6 buckets used: {stats:?}"
    );
}

#[test]
#[cfg_attr(miri, ignore = "a multi-threaded runtime under Miri takes minutes")]
fn owned_guards_held_across_await_while_tasks_migrate_all_come_back() {
    let pool = Arc::new(BufferPool::<u8>::new(PoolConfig::default()));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .build()
        .unwrap();
    runtime.block_on(async {
        let tasks: Vec<_> = (0..200)
            .map(|i| {
                let pool = Arc::clone(&pool);
                tokio::spawn(async move {
                    let mut buf = pool.rent_owned(256 + i);
                    buf[0] = i as u8;
                    for _ in 0..10 {
                        // Each yield lets the scheduler resume the task on another worker.
                        tokio::task::yield_now().await;
                    }
                    assert_eq!(buf[0], i as u8, "the buffer is the task's across threads");
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
    });
    runtime.shutdown_timeout(std::time::Duration::from_secs(10));
    every_rent_came_back(&pool);
    assert_eq!(pool.stats().thread_caches, 0, "the workers exited");
}

#[test]
fn two_pools_alternating_on_one_thread_each_get_their_own_buffers_back() {
    let (a, b) = (
        BufferPool::<u8>::new(PoolConfig::default()),
        BufferPool::<u8>::new(PoolConfig::default()),
    );
    let (mut from_a, mut from_b) = (Vec::new(), Vec::new());
    for _ in 0..scaled(1_000, 20) {
        let x = a.rent(128);
        from_a.push(x.as_ptr() as usize);
        drop(x);
        let y = b.rent(128);
        from_b.push(y.as_ptr() as usize);
        drop(y);
    }
    every_rent_came_back(&a);
    every_rent_came_back(&b);
    // After the first round each pool hands back its own buffer, never the other's.
    assert!(
        from_a[1..].iter().all(|p| *p == from_a[1]),
        "a reuses its buffer"
    );
    assert!(
        from_b[1..].iter().all(|p| *p == from_b[1]),
        "b reuses its buffer"
    );
    assert_ne!(from_a[1], from_b[1]);
    assert_eq!(a.stats().allocations, 1);
    assert_eq!(b.stats().allocations, 1);
}

#[test]
fn zero_sized_elements_are_rented_and_given_back() {
    let pool = BufferPool::<()>::new(PoolConfig::default());
    for len in [0, 1, 100, 1 << 20] {
        let buf = pool.rent(len);
        assert_eq!(buf.len(), len);
    }
    every_rent_came_back(&pool);
    assert_eq!(
        pool.stats().retained_bytes,
        0,
        "a buffer of `()` holds no bytes"
    );
}

#[test]
fn large_elements_are_bounded_in_bytes_not_only_in_elements() {
    #[derive(Clone, Copy)]
    struct Page([u8; 4096]);
    impl Default for Page {
        fn default() -> Self {
            Page([0; 4096])
        }
    }
    let pool = BufferPool::<Page>::new(PoolConfig::default());
    let mut buf = pool.rent(3);
    buf[2].0[4095] = 7;
    drop(buf);
    let again = pool.rent(3);
    assert_eq!(again.len(), 3);
    drop(again);
    every_rent_came_back(&pool);
    let stats = pool.stats();
    // A thread caches buffers of at most `thread_cache_max_bytes` (1 MiB by default), however
    // few elements they hold.
    assert!(
        stats.retained_bytes <= 2 * (1 << 20),
        "{} bytes retained",
        stats.retained_bytes
    );
    let big = pool.rent(1024); // 4 MiB: above what a thread caches
    drop(big);
    assert_eq!(pool.stats().thread_caches, 1);
}
