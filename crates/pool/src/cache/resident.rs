//! The process-wide pool's thread caches, resident in each thread's own storage.
//!
//! A thread's cache of [`shared`](crate::shared) is not on the heap behind a pointer, as other
//! pools' caches are: its slots and counters are themselves a `thread_local!` that has a
//! constant initial value and no destructor. So the fast path reaches a slot with one load at a
//! fixed offset from the thread's storage: no pointer to follow, no pointer to test, no check
//! that the storage is still alive.
//!
//! What such storage cannot do is run code when the thread exits, so the bookkeeping stays in
//! `CACHES`, which has a destructor: whether the resident cache is registered with the pool,
//! and its retirement. Until it is registered, and again once it is retired, its slots are all
//! blocked (see [`crate::slot`]), so a take misses and a put is refused, and both go to the
//! slow path, which registers the cache (while the pool has a place for it) or works through
//! the shared stacks. The pool's list of thread caches points into the thread's storage
//! ([`Member::Resident`]); the thread takes its cache off that list, under the list's lock, as
//! it retires it, and a `thread_local!` without a destructor lives until the thread has run
//! every thread-local destructor, so the pointer is never left dangling in the list. That is std's
//! native thread-local storage, `#[thread_local]`; where std falls back to keys of the
//! operating system, every thread-local is boxed and freed by its key's destructor, in no set
//! order, so this module is compiled only on targets `build.rs` knows to have native
//! thread-locals (`cfg(resident_tls)`), and elsewhere `shared()` keeps its caches on the heap.
//!
//! One case remains that no target rules out: a thread whose first use of `shared()` happens
//! in a destructor that runs after std's thread-local destructors (a pthread key's, on glibc)
//! registers a `CACHES` whose destructor never runs, so its cache stays on the list after its
//! storage goes. Using the pool from such a destructor is not supported.
//!
//! Under `--cfg shuttle` (the concurrency models, `tests/model.rs`) the storage is a stand-in
//! ([`model`]): shuttle's thread-locals are destroyed in the order they were first used, which
//! native storage without a destructor never is, so each model thread's resident cache is kept
//! instead in a table that lives until the model's execution ends, and the table records which
//! caches have retired, so that the pool's list is checked never to reach one of them.

use std::ptr::NonNull;

use super::{CACHES, Cache, Create, Inner, Member, Owned, give_back_cached, is_shared_type};
use crate::sync::Arc;

// `RESIDENT` must have no destructor: with one, a thread-local destructor running after it could
// find it destroyed, and its storage would no longer outlive `CACHES`'s destructor.
#[cfg(not(shuttle))]
const _: () = assert!(!std::mem::needs_drop::<Cache<u8>>());

#[cfg(not(shuttle))]
std::thread_local! {
    /// This thread's cache of the process-wide pool. Only this thread takes from, puts into,
    /// opens or closes it (the owner protocol); other threads read it through the pool's list
    /// while it is registered.
    static RESIDENT: Cache<u8> = const { Cache::blocked() };
}

/// This thread's `RESIDENT`.
#[cfg(not(shuttle))]
#[inline(always)]
fn storage() -> NonNull<Cache<u8>> {
    RESIDENT.with(|cache| NonNull::from(cache))
}

#[cfg(shuttle)]
use model::storage;

/// This thread's resident cache, as a cache of `T`: `None` unless `T` is `u8` (decided at
/// compile time).
#[inline(always)]
fn cache<T: 'static>() -> Option<NonNull<Cache<T>>> {
    if !is_shared_type::<T>() {
        return None;
    }
    // `T` is `u8`: the cast changes nothing but the name of the type.
    Some(storage().cast::<Cache<T>>())
}

/// This thread's resident cache, owned (`None` unless `T` is `u8`). Its slots are blocked
/// unless the cache is registered.
#[inline(always)]
pub(super) fn owned<'a, T: 'static>() -> Option<Owned<'a, T>> {
    let cache = cache::<T>()?;
    // SAFETY: `cache` points to this thread's `RESIDENT`, a `Cache<u8>` (and `T` is `u8`), in
    // storage without a destructor, alive until the thread ends; an `Owned` cannot leave this
    // thread, so it is only used while the thread runs. It is this thread's own cache: no
    // other thread takes from, puts into, opens or closes it.
    Some(unsafe { Owned::new(cache.as_ref()) })
}

/// This thread's resident cache of the process-wide pool, whose state is `inner`, registered
/// first if it is not and `create` says so (and the pool has a place for it); `None` if the
/// thread has none (or its storage is already being destroyed, or `T` is not `u8`).
pub(super) fn find_or_register<'a, T: Send + 'static>(
    inner: &Arc<Inner<T>>,
    create: Create,
) -> Option<Owned<'a, T>> {
    let cache = cache::<T>()?;
    let known = CACHES
        .try_with(|caches| {
            if caches.resident.get() {
                return true;
            }
            if create == Create::No || !inner.admit(|| Member::Resident(cache)) {
                return false;
            }
            // The invariant on `Member::Resident`: `ThreadCaches::drop` takes it off the list,
            // since the flag is set; and it runs before this thread's storage goes.
            caches.resident.set(true);
            if let Some(owned) = owned::<T>() {
                owned.open(inner.limits.cache_slots);
            }
            true
        })
        .unwrap_or(false);
    if known { owned() } else { None }
}

/// Retires this thread's resident cache (from `ThreadCaches::drop`, when it is registered):
/// blocks its slots, so that nothing more goes into them, gives the buffers back to the pool,
/// then folds its counters into the pool's and takes it off the pool's list.
pub(super) fn retire() {
    let inner = crate::shared().inner();
    let cache = storage();
    // SAFETY: as in `owned`: this thread's own resident cache, alive while the thread runs
    // its thread-local destructors.
    let owned = unsafe { Owned::new(cache.as_ref()) };
    give_back_cached(inner, owned, |owned, f| owned.close(f));
    // SAFETY: as above.
    inner.dismiss(unsafe { cache.as_ref() });
    #[cfg(shuttle)]
    model::retired(cache);
}

/// The stand-in for `RESIDENT` under `--cfg shuttle`, and the check that the pool's list never
/// reaches a retired cache.
#[cfg(shuttle)]
pub(super) mod model {
    use std::ptr::NonNull;
    use std::sync::{Mutex, PoisonError};

    use shuttle::thread::ThreadId;

    use super::Cache;

    /// A model thread's resident cache, and whether it has retired.
    struct Resident {
        thread: ThreadId,
        cache: Box<Cache<u8>>,
        retired: bool,
    }

    // A std lock, not shuttle's: the table stands in for storage that needs no lock, so it adds
    // no scheduling point. Dropped, with every cache, when the execution ends.
    shuttle::lazy_static! {
        static ref RESIDENTS: Mutex<Vec<Resident>> = Mutex::new(Vec::new());
    }

    fn with_table<R>(f: impl FnOnce(&mut Vec<Resident>) -> R) -> R {
        f(&mut RESIDENTS.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The calling model thread's resident cache, made blocked at its first use. It stays at
    /// its address until the execution ends, as `RESIDENT` stays until its thread has run
    /// every thread-local destructor.
    pub(in crate::cache) fn storage() -> NonNull<Cache<u8>> {
        let thread = shuttle::thread::current().id();
        with_table(|table| {
            let index = match table.iter().position(|r| r.thread == thread) {
                Some(index) => index,
                None => {
                    table.push(Resident {
                        thread,
                        cache: Box::new(Cache::blocked()),
                        retired: false,
                    });
                    table.len() - 1
                }
            };
            NonNull::from(&*table[index].cache)
        })
    }

    /// Records that `cache` has retired: its thread has taken it off the pool's list, and in
    /// a normal build its storage may go from now on.
    pub(super) fn retired(cache: NonNull<Cache<u8>>) {
        with_table(|table| {
            if let Some(r) = table.iter_mut().find(|r| NonNull::from(&*r.cache) == cache) {
                r.retired = true;
            }
        });
    }

    /// Panics if `cache` is a resident cache that has retired: the pool's list reaches it,
    /// which in a normal build could be after its storage has gone.
    pub(in crate::cache) fn check_listed<T>(cache: NonNull<Cache<T>>) {
        let cache = cache.cast::<Cache<u8>>();
        let retired = with_table(|table| {
            table
                .iter()
                .any(|r| r.retired && NonNull::from(&*r.cache) == cache)
        });
        assert!(!retired, "the pool's list reaches a retired resident cache");
    }
}
