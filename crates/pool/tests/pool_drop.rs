//! A pool dropped while threads that cache its buffers exit, in a test binary of its own and
//! without the test harness (`harness = false` in the manifest), so that the process-wide
//! allocation counts see nothing else: the harness's own threads allocate while a test runs
//! (its output, its results), and on a loaded machine some of that landed inside the count.

use std::sync::Arc;

use hotpath_pool::{BufferPool, PoolConfig};

mod common;
use common::{ALLOC, scaled};

/// Bytes allocated and not yet freed, by every thread of the process.
fn live_bytes() -> i128 {
    let s = ALLOC.process_stats();
    s.bytes_allocated as i128 - s.bytes_deallocated as i128 + s.bytes_reallocated as i128
}

/// Threads cache a buffer each and exit while the pool is being dropped: whichever comes
/// first, the drop or a thread's exit, every byte allocated for the pool, its caches and its
/// buffers is freed, and freed once (Miri also checks the frees themselves).
fn main() {
    a_pool_dropped_while_caching_threads_exit_frees_each_buffer_once();
    println!("a_pool_dropped_while_caching_threads_exit_frees_each_buffer_once ... ok");
}

fn a_pool_dropped_while_caching_threads_exit_frees_each_buffer_once() {
    let before = live_bytes();
    for _ in 0..scaled(20, 3) {
        let pool = Arc::new(BufferPool::<u8>::new(PoolConfig::default()));
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let pool = Arc::clone(&pool);
                std::thread::spawn(move || drop(pool.rent(64)))
            })
            .collect();
        drop(pool);
        for worker in workers {
            worker.join().unwrap();
        }
    }
    // Other threads of the test process (the harness's) can hold a few hundred bytes for a
    // moment on a loaded machine: wait for them, a bounded while; a leak never settles.
    for _ in 0..200 {
        if live_bytes() == before {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(live_bytes(), before);
}
