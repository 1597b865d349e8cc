//! A guard of the process-wide pool dropped by a thread-local destructor that runs after the
//! pool's own: the thread's cache has been retired (and freed, since the pool's list lets go of
//! it), so the hit path must no longer reach it. `ThreadCaches::drop` points the thread's
//! pointer back at the blocked cache before it retires the thread's own; without that, this give-back
//! would write into freed memory, which Miri reports.
//!
//! Its own test binary: the counts below are exact only while no other test uses `shared()`.

use std::cell::RefCell;

use hotpath_pool::Rented;

thread_local! {
    /// First used before the thread's first rent, so its destructor runs after the pool's
    /// thread-local destructor (thread-local destructors run in the reverse of the order they
    /// were registered in).
    static HELD: RefCell<Option<Rented<'static, u8>>> = const { RefCell::new(None) };
}

#[test]
fn a_guard_dropped_after_the_pools_thread_local_destructor_goes_to_the_shared_stacks() {
    let pool = hotpath_pool::shared();
    let before = pool.stats();
    std::thread::spawn(|| {
        HELD.with(|held| assert!(held.borrow().is_none()));
        // The thread's first use: it registers the thread's cache.
        let mut warm = hotpath_pool::shared().rent(64);
        warm[0] = 1;
        drop(warm); // into the thread's cache
        let mut kept = hotpath_pool::shared().rent(64); // from it
        kept[63] = 2;
        HELD.with(|held| *held.borrow_mut() = Some(kept));
    })
    .join()
    .unwrap();
    let after = pool.stats();
    assert_eq!(after.rents - before.rents, 2, "{after:?}");
    assert_eq!(
        after.returns - before.returns,
        2,
        "the guard dropped last came back: {after:?}"
    );
    assert_eq!(after.outstanding(), before.outstanding(), "{after:?}");
    assert_eq!(
        after.thread_caches, before.thread_caches,
        "the thread's cache was retired: {after:?}"
    );
    assert_eq!(
        after.retained_buffers - before.retained_buffers,
        1,
        "the buffer is on the shared stacks: {after:?}"
    );
}
