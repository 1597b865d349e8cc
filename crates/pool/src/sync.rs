//! The synchronisation primitives the pool is built on: std's, or, when the crate is built with
//! `--cfg shuttle` for its concurrency models (`tests/model.rs`), shuttle's.
//!
//! Shuttle runs a model's threads one at a time, as coroutines of one OS thread, and chooses
//! which runs next at every lock and atomic access, so the locks and atomics that the owner
//! protocol depends on must be its own; so must its thread-locals, or every model thread would
//! share the OS thread's. Its `Arc` and `Weak` are std's, as are `Ordering` and
//! the lock error types, so nothing else changes. In a normal build this module is a set of
//! re-exports of std and costs nothing.
//!
//! What stays std in every build, and why:
//!
//! - the `Mutex` in `slot::Slots`'s `PhantomData`, which is only a marker for `Send` and `Sync`;
//! - the statics that outlive a model's executions: the pool ids (`NEXT_ID`), which are only
//!   compared, never synchronised on; the core count behind
//!   [`shared_config`](crate::shared_config); and a pool's `OnceLock` of its state, which every
//!   pool but [`shared`](crate::shared) sets when it is created. A state made in one execution
//!   cannot be used by the next, so under shuttle `shared()`'s is made anew for every
//!   execution, in one of shuttle's `lazy_static`s, and its `OnceLock` is never set. (The
//!   home-shard counter is reset for every execution too: see `cache::home_shard`.)
//!
//! The process-wide pool's resident pointer (`cache::resident`) keeps its code under shuttle,
//! with shuttle's thread-local; only the cache it points to while its thread has none is made
//! anew for every execution.

#[cfg(not(shuttle))]
pub(crate) use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};
#[cfg(not(shuttle))]
pub(crate) use std::thread_local;

#[cfg(shuttle)]
pub(crate) use shuttle::sync::{Mutex, MutexGuard, PoisonError, TryLockError};
#[cfg(shuttle)]
pub(crate) use shuttle::thread_local;

// Shuttle's `Arc` and `Weak` are std's; re-exported here so that every primitive comes from one
// place.
pub(crate) use std::sync::{Arc, Weak};

/// Atomics: std's, or shuttle's under `--cfg shuttle` (whose `Ordering` is std's).
pub(crate) mod atomic {
    #[cfg(not(shuttle))]
    pub(crate) use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};

    #[cfg(shuttle)]
    pub(crate) use shuttle::sync::atomic::{
        AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering,
    };
}

/// `get` and `set` for a thread-local `Cell` under shuttle, whose `LocalKey` lacks std's.
///
/// std's thread-locals of a `Copy` type without a destructor are never destroyed, so `get` and
/// `set` always work; shuttle destroys every thread-local when its thread finishes, in the order
/// they were first used, so another thread-local's destructor may find one gone. Then `set` does
/// nothing and `get` reads the key's initial value: for the fast path's pointers that is "no
/// cache", which is what `ThreadCaches::drop` leaves them at in a normal build.
#[cfg(shuttle)]
pub(crate) trait LocalCell<T: Copy + 'static> {
    /// The value, or the initial value if this thread's slot is already destroyed.
    fn get(&'static self) -> T;
    /// Sets the value, unless this thread's slot is already destroyed.
    fn set(&'static self, value: T);
}

#[cfg(shuttle)]
impl<T: Copy + 'static> LocalCell<T> for shuttle::thread::LocalKey<std::cell::Cell<T>> {
    fn get(&'static self) -> T {
        self.try_with(std::cell::Cell::get)
            .unwrap_or_else(|_| (self.init)().get())
    }

    fn set(&'static self, value: T) {
        // A destroyed slot is never read again but through `get`'s initial value.
        let _ = self.try_with(|cell| cell.set(value));
    }
}
