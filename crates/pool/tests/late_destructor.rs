//! A thread whose first use of `shared()` happens in a pthread key's destructor, which glibc
//! runs after every thread-local destructor of the thread: the thread registers a cache whose
//! retirement never runs (its storage's destructor was never going to), so the pool keeps that
//! cache, and counts it as a live thread's, for good. What must hold is that this is a leak and
//! nothing worse: the pool's list owns the cache, so `stats` and `trim` on another thread read
//! and write memory that is still allocated after the thread and its storage are gone. A
//! thread started next gets the storage (and, on glibc, the stack) of the one that exited: a
//! list that pointed into that storage would now read the new thread's cache instead, and
//! lose the exited thread's counts when the new thread retires.
//!
//! Its own test binary: the counts below are exact only while no other test uses `shared()`.
//! Not under Miri, which cannot run a thread-local's first use after the thread's thread-local
//! destructors have run.
#![cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]

use std::ffi::{c_int, c_uint, c_void};

unsafe extern "C" {
    fn pthread_key_create(
        key: *mut c_uint,
        destructor: Option<unsafe extern "C" fn(*mut c_void)>,
    ) -> c_int;
    fn pthread_key_delete(key: c_uint) -> c_int;
    fn pthread_setspecific(key: c_uint, value: *const c_void) -> c_int;
}

/// The key's destructor: the thread's first use of the pool, a rent and its give-back.
unsafe extern "C" fn first_use_after_thread_locals(_: *mut c_void) {
    let mut buf = hotpath_pool::shared().rent(64);
    buf[0] = 1;
}

#[test]
fn a_first_use_in_a_late_destructor_leaks_one_cache_and_frees_nothing_the_pool_reads() {
    let pool = hotpath_pool::shared();
    let before = pool.stats();
    let mut key: c_uint = 0;
    // SAFETY: `key` is a valid place for the new key; the destructor is an `extern "C"` fn of
    // the signature pthreads calls it with.
    let created = unsafe { pthread_key_create(&mut key, Some(first_use_after_thread_locals)) };
    assert_eq!(created, 0);
    std::thread::spawn(move || {
        // SAFETY: `key` was created above and not deleted yet (the main thread deletes it only
        // after this thread has been joined); a non-null value makes its destructor run when
        // this thread exits, after the thread's thread-local destructors.
        assert_eq!(unsafe { pthread_setspecific(key, std::ptr::dangling()) }, 0);
    })
    .join()
    .unwrap();
    // SAFETY: the only thread that set a value for `key` has exited.
    assert_eq!(unsafe { pthread_key_delete(key) }, 0);
    // A thread that uses the pool the ordinary way, on the storage just given up.
    std::thread::spawn(|| drop(hotpath_pool::shared().rent(64)))
        .join()
        .unwrap();

    // The first thread's cache is still listed, with its rent and give-back in its counters;
    // the second's has retired into the pool's counts.
    let after = pool.stats();
    assert_eq!(after.thread_caches - before.thread_caches, 1, "{after:?}");
    assert_eq!(after.rents - before.rents, 2, "{after:?}");
    assert_eq!(after.returns - before.returns, 2, "{after:?}");
    // `trim` writes to every listed cache (its request to empty): the same memory, still alive.
    pool.trim();
    assert_eq!(pool.stats().thread_caches, after.thread_caches);
}
