//! The process-wide pool's thread caches, found from each thread's own storage with one load.
//!
//! A thread's cache of [`shared`](crate::shared) is on the heap, as every pool's thread caches
//! are, and the pool's list owns it as it owns theirs: `stats`, `trim` and a retiring thread
//! never read a thread's storage, so nothing they read goes when a thread exits. What differs is
//! how the hit path finds it: `RESIDENT`, a `thread_local!` that has a constant initial value
//! and no destructor, holds a pointer to it, read with one load at a fixed offset from the
//! thread's storage: no pointer test and no check that the storage is still alive (a
//! `thread_local!` with a destructor first checks that), no pool id to compare (other pools'
//! caches are found through the pool the thread used last, `FAST_RECENT`).
//!
//! Until the thread registers its cache, and again once it has retired it, the pointer holds
//! `DETACHED`: a cache whose slots are all blocked (see [`crate::slot`]) and which no thread
//! ever opens, so a take misses and a put is refused, and both go to the slow path, which
//! registers the thread's cache (while the pool has a place for it) or works through the
//! shared stacks. `CACHES`, which has a destructor, owns the thread's reference to its cache,
//! and its destructor points `RESIDENT` back at `DETACHED` before it retires the cache.
//!
//! A thread whose first use of `shared()` happens in a destructor that runs after its
//! thread-local destructors (a pthread key's, on glibc) registers a `CACHES` whose destructor
//! never runs: its cache stays on the pool's list, counted as a live thread's, with the buffers
//! it holds. That is a leak of at most one cache per such thread, never a read of freed memory.
//!
//! `build.rs` compiles this only where std's thread-locals are native (`cfg(resident_tls)`):
//! there a thread-local without a destructor is never destroyed while its thread runs, so the
//! load is one instruction and needs no check. Elsewhere std reaches a thread-local through an
//! OS key, at the cost of a call, and refuses it during the thread's exit; there `shared()`
//! finds its cache as the other pools do. The choice is about cost, not soundness: the list,
//! not the thread's storage, owns every cache either way.

use std::ptr::{self, NonNull};

use super::{CACHES, Cache, Create, Inner, Local, Owned, Retire, is_shared_type};
use crate::sync::Arc;
#[cfg(shuttle)]
use crate::sync::LocalCell;

/// The cache `RESIDENT` points to while its thread has none registered: every slot blocked,
/// never opened, so a take through it only reads a slot and misses and a put only reads one
/// and is refused. Nothing is ever written to it, and its counters stay at 0.
#[cfg(not(shuttle))]
static DETACHED: Cache<u8> = Cache::blocked();

#[cfg(not(shuttle))]
std::thread_local! {
    /// This thread's cache of the process-wide pool: `DETACHED`, or the cache that this
    /// thread's `CACHES.resident` owns (the invariant). Only this thread reads or writes it.
    static RESIDENT: std::cell::Cell<*const Cache<u8>> =
        const { std::cell::Cell::new(&raw const DETACHED) };
}

// Under `--cfg shuttle`, shuttle's thread-local, whose initial value is null for `DETACHED`:
// shuttle's atomics live no longer than a model's execution, so `DETACHED` is made anew for
// each one (and a `const` initial value cannot point to it).
#[cfg(shuttle)]
crate::sync::thread_local! {
    static RESIDENT: std::cell::Cell<*const Cache<u8>> = const { std::cell::Cell::new(ptr::null()) };
}

/// The cache `RESIDENT` points to now.
#[cfg(not(shuttle))]
#[inline(always)]
fn current() -> NonNull<Cache<u8>> {
    let cache = RESIDENT.get();
    // SAFETY: by its invariant, `RESIDENT` holds the address of `DETACHED` or of a live cache:
    // never null.
    unsafe { NonNull::new_unchecked(cache.cast_mut()) }
}

/// The cache `RESIDENT` points to now (null: this execution's `DETACHED`).
///
/// Shuttle destroys a thread's thread-locals in the order they were first used, where std's
/// native ones are destroyed after every thread-local with a destructor (`RESIDENT` has none):
/// touching `CACHES` first makes it go first under the model too, so `ThreadCaches::drop`
/// finds `RESIDENT` alive and its `detach` is exercised rather than skipped.
#[cfg(shuttle)]
fn current() -> NonNull<Cache<u8>> {
    shuttle::lazy_static! {
        static ref DETACHED: Cache<u8> = Cache::blocked();
    }
    let _ = CACHES.try_with(|_| ());
    NonNull::new(RESIDENT.get().cast_mut()).unwrap_or_else(|| NonNull::from(&*DETACHED))
}

/// Points `RESIDENT` back at `DETACHED` (from `ThreadCaches::drop`, before the cache it
/// pointed to is retired).
pub(super) fn detach() {
    #[cfg(not(shuttle))]
    RESIDENT.set(&raw const DETACHED);
    #[cfg(shuttle)]
    RESIDENT.set(ptr::null());
}

/// This thread's cache of the process-wide pool as a cache of `T`, owned: `None` unless `T`
/// is `u8` (decided at compile time). `DETACHED`'s blocked slots unless the thread has a cache
/// registered.
#[inline(always)]
pub(super) fn owned<'a, T: 'static>() -> Option<Owned<'a, T>> {
    if !is_shared_type::<T>() {
        return None;
    }
    // `T` is `u8`: the cast changes nothing but the name of the type.
    let cache = current().cast::<Cache<T>>();
    // SAFETY: `cache` is `DETACHED`, which no thread opens, takes from or puts into (its slots
    // are blocked, so through an `Owned` a take only reads a slot and misses, and a put only
    // reads one and is refused), or this thread's own registered cache, which this thread's
    // `CACHES` keeps alive until its destructor has pointed `RESIDENT` away from it: an `Owned`
    // cannot leave this thread, and its callers use it within the operation that made it,
    // which that destructor cannot interrupt. No other thread takes from, puts into, opens or
    // drains this thread's cache.
    Some(unsafe { Owned::new(cache.as_ref()) })
}

/// This thread's cache of the process-wide pool, whose state is `inner`, registered first if it
/// is not and `create` says so (and the pool has a place for it); `None` if the thread has
/// none (or its storage is already being destroyed, or `T` is not `u8`).
pub(super) fn find_or_register<'a, T: Send + 'static>(
    inner: &Arc<Inner<T>>,
    create: Create,
) -> Option<Owned<'a, T>> {
    if !is_shared_type::<T>() {
        return None;
    }
    let known = CACHES
        .try_with(|caches| {
            if caches.resident.borrow().is_some() {
                return true;
            }
            if create == Create::No {
                return false;
            }
            let Some(local) = Local::register(inner) else {
                return false;
            };
            if caches.resident.borrow().is_some() {
                // Registering allocated, and code run by that allocation (an allocator's hook)
                // used the pool and registered a cache first: keep that one, retire this one.
                local.retire();
                return true;
            }
            // The invariant on `RESIDENT`: `caches.resident` owns the cache before `RESIDENT`
            // points to it (`T` is `u8`; the `Arc` keeps the cache where it is).
            let cache = ptr::from_ref(&local.cache).cast::<Cache<u8>>();
            *caches.resident.borrow_mut() = Some(local as Arc<dyn Retire>);
            RESIDENT.set(cache);
            true
        })
        .unwrap_or(false);
    if known { owned() } else { None }
}
