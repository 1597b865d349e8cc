//! A pool dropped while threads that cache its buffers exit, in a test binary of its own, so
//! that the process-wide allocation counts see nothing else.

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
#[test]
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
    assert_eq!(live_bytes(), before);
}
