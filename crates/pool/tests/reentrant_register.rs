//! Code run by an allocation the pool makes while it registers a thread's cache (a global
//! allocator's hook, here) uses the process-wide pool on the same thread, so a second
//! registration starts inside the first. The thread must end with one cache on the pool's
//! list, not two, and none once it has exited.
//!
//! Its own test binary: its global allocator, and counts that are exact only while no other
//! test uses `shared()`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    /// Set on the test's thread: the next allocation made there rents from `shared()` first.
    static ARMED: Cell<bool> = const { Cell::new(false) };
}

struct Hooked;

// SAFETY: every call is passed to `System` unchanged; the hook only rents and gives back a
// buffer through the pool's safe API, with the flag cleared first so it cannot recurse.
unsafe impl GlobalAlloc for Hooked {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if ARMED.with(|armed| armed.replace(false)) {
            let mut buf = hotpath_pool::shared().rent(16);
            buf[0] = 1;
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Hooked = Hooked;

#[test]
fn a_registration_started_inside_another_on_one_thread_leaves_one_cache() {
    let pool = hotpath_pool::shared();
    let before = pool.stats();
    let during = std::thread::spawn(move || {
        ARMED.with(|armed| armed.set(true));
        // The thread's first use: registering its cache allocates, and that allocation's hook
        // uses the pool, which registers a cache first.
        let mut buf = hotpath_pool::shared().rent(64);
        buf[0] = 2;
        drop(buf);
        assert!(!ARMED.with(Cell::get), "the hook ran");
        hotpath_pool::shared().stats()
    })
    .join()
    .unwrap();
    assert_eq!(
        during.thread_caches - before.thread_caches,
        1,
        "one cache for the thread: {during:?}"
    );
    let after = pool.stats();
    assert_eq!(after.thread_caches, before.thread_caches, "{after:?}");
    assert_eq!(after.rents - before.rents, 2, "{after:?}");
    assert_eq!(after.outstanding(), before.outstanding(), "{after:?}");
}
