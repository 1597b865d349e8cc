//! Where a pool keeps its buffers and its counts: the shared stacks, every thread's cache, and
//! the per-thread storage (`std::thread_local!`) that finds this thread's cache without a lock.
//!
//! Each thread that rents or gives back a buffer of a size its pool's threads cache gets a
//! [`Local`]: its slots (at most one buffer per cached bucket) and its own counters, which only
//! it writes (a pool without thread caches registers none). The pool's [`Inner`] keeps a list of every live thread's
//! `Local`, so `stats` can read them and `trim` can ask them to empty. The list holds at most
//! `max_thread_caches` of them: a thread that finds it full registers nothing and works through
//! the shared stacks, with the pool's counters, as a thread of a pool without thread caches
//! does, and asks again at its next operation off the fast path (which, with no cache, is every
//! one), so it takes a place once a thread holding one has exited. The thread keeps the
//! same `Local` in its thread-local storage, so its rents and give-backs reach it with no lock
//! and no atomic read-modify-write. When the thread exits, its thread-local storage is dropped:
//! it gives every cached buffer back to the pool's shared stacks (within their bound; the rest
//! are freed), adds its counts to the pool's, and leaves the list.
//!
//! Behind the caches, each bucket's shared stack is split into [`SHARDS`] shards, stored so that
//! threads of different home shards work on different cache lines: a thread pushes onto and pops from its home shard first (threads get their
//! home round-robin, once), then the others, taking each shard's lock with `try_lock` and
//! waiting for a lock only when every shard it could use was busy. The stacks' byte budget is
//! kept the same way: each shard holds a credit of bytes reserved in batches from the pool's
//! budget, so the one counter every thread shares is touched once per batch, not once per
//! buffer.
//!
//! The slots keep the owner protocol of [`crate::slot`]: only [`Owned`], which this module makes
//! for the calling thread's own cache and which cannot leave that thread, takes or puts.

#[cfg(resident_tls)]
mod resident;

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::mem;
use std::ptr;

use crate::PoolStats;
use crate::slot::{Lent, Slots};
#[cfg(shuttle)]
use crate::sync::LocalCell;
use crate::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use crate::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError, Weak, thread_local};

pub(crate) fn lock<X>(mutex: &Mutex<X>) -> MutexGuard<'_, X> {
    // Every critical section leaves the state consistent (a push, a pop, a list edit), so a
    // panic elsewhere while the lock was held cannot have broken it.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A pool's activity counters.
#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) rents: AtomicU64,
    pub(crate) allocations: AtomicU64,
    pub(crate) returns: AtomicU64,
    pub(crate) discarded: AtomicU64,
    pub(crate) oversize: AtomicU64,
}

/// One of the counters.
pub(crate) type Counter = fn(&Counters) -> &AtomicU64;

impl Counters {
    /// Counters at 0, in a constant (for the process-wide pool's `DETACHED` cache).
    #[cfg(resident_tls)]
    pub(crate) const fn new() -> Self {
        Self {
            rents: AtomicU64::new(0),
            allocations: AtomicU64::new(0),
            returns: AtomicU64::new(0),
            discarded: AtomicU64::new(0),
            oversize: AtomicU64::new(0),
        }
    }

    /// Every counter, in the order a snapshot must read them: a counter that an operation
    /// bumps after another one comes first (a discard after its return, an allocation or an
    /// oversize after its rent, a return after its rent). Each counter then reads at least
    /// what the ones before it counted, so a snapshot never shows more returns than rents.
    const READ_ORDER: [Counter; 5] = [
        |c| &c.discarded,
        |c| &c.allocations,
        |c| &c.oversize,
        |c| &c.returns,
        |c| &c.rents,
    ];

    /// A snapshot's counts, each counter summed by `sum` over every set of counters that has
    /// one, in [`Self::READ_ORDER`].
    pub(crate) fn snapshot(sum: impl FnMut(Counter) -> u64) -> PoolStats {
        let [discarded, allocations, oversize, returns, rents] = Self::READ_ORDER.map(sum);
        PoolStats {
            rents,
            allocations,
            returns,
            discarded,
            oversize,
            ..PoolStats::default()
        }
    }

    /// Adds `other`'s counts to these (a thread's, to its pool's when it exits).
    fn absorb(&self, other: &Counters) {
        for counter in Self::READ_ORDER {
            counter(self).fetch_add(counter(other).load(Ordering::Acquire), Ordering::Release);
        }
    }
}

/// The counters an operation adds to, and who else may add to them.
#[derive(Clone, Copy)]
pub(crate) enum Tally<'a> {
    /// A thread's own counters: only that thread writes them, so an increment is a plain load
    /// and store (`Release`, so that a snapshot that sees it also sees what came before it).
    Owner(&'a Counters),
    /// The pool's counters, which any thread may add to: an atomic add. Used off the fast path
    /// (`rent(0)`, a thread whose thread-local storage is already gone) and at thread exit.
    Shared(&'a Counters),
}

impl Tally<'_> {
    #[inline]
    pub(crate) fn bump(self, counter: Counter) {
        match self {
            Self::Owner(counters) => {
                let c = counter(counters);
                c.store(c.load(Ordering::Relaxed).wrapping_add(1), Ordering::Release);
            }
            Self::Shared(counters) => {
                counter(counters).fetch_add(1, Ordering::Release);
            }
        }
    }
}

/// Pushes `item` onto `stack` if it holds fewer than `max` items, or gives `item` back.
///
/// The stack's storage grows as items come back, doubling from 4 entries up to `max` and never
/// past it, and a failure to grow gives the item back instead: no bound, however large, can
/// make a give-back panic.
pub(crate) fn push_bounded<X>(stack: &mut Vec<X>, item: X, max: usize) -> Result<(), X> {
    if stack.len() >= max {
        return Err(item);
    }
    if stack.len() == stack.capacity() {
        let target = (stack.capacity().saturating_mul(2)).clamp(4.min(max), max);
        if stack.try_reserve_exact(target - stack.len()).is_err() {
            return Err(item);
        }
    }
    stack.push(item);
    Ok(())
}

/// A bucket's shared stack of buffers (one shard of it).
pub(crate) type Stack<T> = Vec<Box<[T]>>;

/// How many shards each bucket's shared stack is split into, and how many byte credits the
/// budget is split into: a fixed number, so that what a pool allocates and holds is the same on
/// every machine (regex-automata's pool also keeps 8 stacks).
pub(crate) const SHARDS: usize = 8;

/// One shard of a bucket's stack. The shards are stored row by row: row `s` is shard `s` of
/// every bucket, the shards a thread whose home is `s` uses, so threads of different homes work
/// on rows at least 160 bytes long (a row has at least [`MIN_ROW`] entries) and share no cache
/// line but, at most, the one where a row ends and the next begins.
struct Shard<T> {
    stack: Mutex<Stack<T>>,
    /// How many buffers `stack` holds, written under its lock after every change: a hint that
    /// lets a push skip a full shard and a pop an empty one without taking its lock, and what
    /// `stats` reads. Exact whenever no push or pop is under way.
    len: AtomicUsize,
}

/// One shard's unused share of the byte budget, on a cache line of its own.
#[repr(align(128))]
#[derive(Default)]
struct Credit(AtomicUsize);

/// How a pool's shared stacks are bounded and which buckets its threads cache.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// How many buffers each stack keeps at most, all its shards together.
    pub(crate) max_per_bucket: usize,
    /// How many bytes of buffer the stacks keep at most, all buckets together.
    pub(crate) max_shared_bytes: usize,
    /// How many buckets, from the smallest, each thread's cache holds (0: no thread cache).
    pub(crate) cache_slots: usize,
    /// How many live threads may have a cache at once (0: no thread cache).
    pub(crate) max_thread_caches: usize,
}

/// Whether a pass over a bucket's shards skips a busy shard or waits for its lock.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Try,
    Wait,
}

/// Locks `shard` for `pass`: `None` if the pass skips it because another thread holds it.
fn lock_for<T>(shard: &Shard<T>, pass: Pass) -> Option<MutexGuard<'_, Stack<T>>> {
    match pass {
        Pass::Wait => Some(lock(&shard.stack)),
        Pass::Try => match shard.stack.try_lock() {
            Ok(guard) => Some(guard),
            Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        },
    }
}

/// The calling thread's home shard, assigned round-robin at its first visit to any pool's
/// stacks and kept for the life of the thread (the same for every pool).
fn home_shard() -> usize {
    #[cfg(not(shuttle))]
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    // Under shuttle, a counter of its own for every execution, so that each execution assigns
    // the same homes and a failing schedule replays.
    #[cfg(shuttle)]
    shuttle::lazy_static! {
        static ref NEXT: AtomicUsize = AtomicUsize::new(0);
    }
    thread_local! {
        static HOME: Cell<usize> = const { Cell::new(usize::MAX) };
    }
    HOME.with(|home| match home.get() {
        usize::MAX => {
            let assigned = NEXT.fetch_add(1, Ordering::Relaxed) % SHARDS;
            home.set(assigned);
            assigned
        }
        assigned => assigned,
    })
}

/// The fewest entries a row of shards has (a pool with fewer buckets leaves the rest unused).
const MIN_ROW: usize = 4;

/// The part of a pool that threads' caches can outlive the pool's owner with: the shared
/// stacks, the list of live threads' caches, and the counts of threads that have left.
pub(crate) struct Inner<T> {
    /// Shard `s` of bucket `b` is `shards[s * row + b]`; bucket `b` holds buffers of
    /// `MIN_BUCKET_LEN << b` elements.
    shards: Box<[Shard<T>]>,
    /// How many entries a row of `shards` has: the number of buckets, at least [`MIN_ROW`].
    row: usize,
    /// How many buckets there are.
    buckets: usize,
    pub(crate) limits: Limits,
    /// Bytes of the budget reserved: what the stacks hold plus every shard's credit, so never
    /// less than what the stacks hold, and never more than `limits.max_shared_bytes` (every
    /// reservation is a compare-and-swap that keeps it within).
    reserved: AtomicUsize,
    /// Each shard's reserved bytes not yet used by a buffer: a push takes its buffer's bytes
    /// from its home shard's credit, a pop adds them to its home shard's credit; `reserved` is
    /// touched only to refill a credit (by a `batch`) or to give an excess back.
    credits: Box<[Credit]>,
    /// How many bytes a credit is refilled by beyond the buffer that asked, and the most it
    /// keeps after a pop (twice this): an eighth of a shard's share of the budget.
    batch: usize,
    /// Every live thread's cache, at most `limits.max_thread_caches` of them (and the cache of a
    /// thread whose first use came from a destructor that runs after its thread-local
    /// destructors, which stays: see the crate's documentation). No stack's lock is
    /// ever taken while this is held (`stats` reads the stacks after releasing it), so a thread
    /// that starts or exits waits for no stack.
    pub(crate) locals: Mutex<Vec<Member<T>>>,
    /// Counts of exited threads, and of operations made without a thread cache.
    pub(crate) counters: Counters,
}

impl<T> Inner<T> {
    pub(crate) fn new(buckets: usize, limits: Limits) -> Self {
        let row = buckets.max(MIN_ROW);
        Self {
            row,
            buckets,
            shards: (0..row * SHARDS)
                .map(|_| Shard {
                    stack: Mutex::new(Vec::new()),
                    len: AtomicUsize::new(0),
                })
                .collect(),
            limits: Limits {
                cache_slots: match limits.max_thread_caches {
                    0 => 0,
                    _ => limits.cache_slots.min(buckets),
                },
                ..limits
            },
            reserved: AtomicUsize::new(0),
            credits: (0..SHARDS).map(|_| Credit::default()).collect(),
            batch: limits.max_shared_bytes / (8 * SHARDS),
            locals: Mutex::new(Vec::new()),
            counters: Counters::default(),
        }
    }

    /// Shard `index` (below [`SHARDS`]) of bucket `bucket`, if there is such a bucket.
    fn shard(&self, bucket: usize, index: usize) -> Option<&Shard<T>> {
        if bucket >= self.buckets {
            return None;
        }
        self.shards.get(index * self.row + bucket)
    }

    /// How many buffers shard `shard` of any bucket keeps at most: the bucket's
    /// `max_per_bucket` split as evenly as it goes, so the shards together keep exactly that.
    fn shard_max(&self, shard: usize) -> usize {
        let max = self.limits.max_per_bucket;
        max / SHARDS + usize::from(shard < max % SHARDS)
    }

    /// Takes `bytes` from the budget, or `false` if they do not fit in what is left of it.
    fn take_budget(&self, bytes: usize) -> bool {
        let max = self.limits.max_shared_bytes;
        self.reserved
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| {
                held.checked_add(bytes).filter(|&total| total <= max)
            })
            .is_ok()
    }

    /// Reserves `bytes` for a buffer about to go onto a stack: from the home shard's credit,
    /// else from the budget with a batch more for the credit, else exactly `bytes`, else —
    /// when the budget is nearly used — after every shard's credit has been given back to it.
    /// `false` only if `bytes` do not fit beside what the stacks hold and the credits other
    /// threads are using right now.
    fn reserve(&self, home: usize, bytes: usize) -> bool {
        let Some(credit) = self.credits.get(home) else {
            return false;
        };
        let from_credit = credit
            .0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| {
                c.checked_sub(bytes)
            });
        if from_credit.is_ok() {
            return true;
        }
        if self.batch > 0 && self.take_budget(bytes.saturating_add(self.batch)) {
            credit.0.fetch_add(self.batch, Ordering::Relaxed);
            return true;
        }
        if self.take_budget(bytes) {
            return true;
        }
        self.reclaim_credits();
        self.take_budget(bytes)
    }

    /// Gives `bytes` (of a buffer taken off a stack, or reserved for one that was not kept) to
    /// the home shard's credit, and what the credit holds beyond one batch back to the budget
    /// once it holds more than two.
    fn release(&self, home: usize, bytes: usize) {
        let Some(credit) = self.credits.get(home) else {
            return;
        };
        let held = credit
            .0
            .fetch_add(bytes, Ordering::Relaxed)
            .saturating_add(bytes);
        if held > 2 * self.batch {
            let keep = self.batch;
            if let Ok(before) = credit
                .0
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| {
                    (c > keep).then_some(keep)
                })
            {
                self.reserved.fetch_sub(before - keep, Ordering::Relaxed);
            }
        }
    }

    /// Gives every shard's unused credit back to the budget.
    fn reclaim_credits(&self) {
        for credit in self.credits.iter() {
            let spare = credit.0.swap(0, Ordering::Relaxed);
            if spare > 0 {
                self.reserved.fetch_sub(spare, Ordering::Relaxed);
            }
        }
    }

    /// Keeps `buf` on bucket `bucket`'s stack if the stack has room for one more buffer and
    /// the stacks together have room for its bytes, or gives it back.
    ///
    /// The buffer goes onto the calling thread's home shard if it has room and is free, else
    /// onto the first other shard that is; only when every shard with room is busy does the
    /// push wait, shard by shard. So a push is refused only when the bucket's shards are full
    /// (or, under contention, looked full) or the budget is.
    pub(crate) fn push(&self, bucket: usize, buf: Box<[T]>) -> Result<(), Box<[T]>> {
        if bucket >= self.buckets {
            return Err(buf);
        }
        let bytes = mem::size_of_val::<[T]>(&buf);
        let home = home_shard();
        if !self.reserve(home, bytes) {
            return Err(buf);
        }
        let mut buf = buf;
        for pass in [Pass::Try, Pass::Wait] {
            for i in 0..SHARDS {
                let index = (home + i) % SHARDS;
                let max = self.shard_max(index);
                let Some(shard) = self.shard(bucket, index) else {
                    continue;
                };
                if shard.len.load(Ordering::Relaxed) >= max {
                    continue;
                }
                let Some(mut stack) = lock_for(shard, pass) else {
                    continue;
                };
                match push_bounded(&mut stack, buf, max) {
                    Ok(()) => {
                        shard.len.store(stack.len(), Ordering::Release);
                        return Ok(());
                    }
                    Err(refused) => buf = refused,
                }
            }
        }
        self.release(home, bytes);
        Err(buf)
    }

    /// Takes a buffer from bucket `bucket`'s stack: from the calling thread's home shard if it
    /// has one and is free, else from the first other shard that does (stealing); only when
    /// every shard with a buffer is busy does the pop wait, shard by shard.
    pub(crate) fn pop(&self, bucket: usize) -> Option<Box<[T]>> {
        if bucket >= self.buckets {
            return None;
        }
        let home = home_shard();
        for pass in [Pass::Try, Pass::Wait] {
            for i in 0..SHARDS {
                let Some(shard) = self.shard(bucket, (home + i) % SHARDS) else {
                    continue;
                };
                if shard.len.load(Ordering::Relaxed) == 0 {
                    continue;
                }
                let Some(mut stack) = lock_for(shard, pass) else {
                    continue;
                };
                if let Some(buf) = stack.pop() {
                    shard.len.store(stack.len(), Ordering::Release);
                    drop(stack);
                    self.release(home, mem::size_of_val::<[T]>(&buf));
                    return Some(buf);
                }
            }
        }
        None
    }

    /// How many buffers bucket `bucket`'s stack holds, all its shards together, read without
    /// taking any lock.
    pub(crate) fn stacked(&self, bucket: usize) -> u64 {
        (0..SHARDS)
            .filter_map(|index| self.shard(bucket, index))
            .map(|shard| shard.len.load(Ordering::Acquire) as u64)
            .sum()
    }

    /// Empties every stack, including the stacks' own storage, and returns the buffers' bytes.
    /// Each shard is taken under its lock and freed after the lock is released, so freeing
    /// large buffers never holds up a rent or a give-back of that bucket.
    pub(crate) fn empty_stacks(&self) -> u64 {
        let mut freed = 0;
        for shard in self.shards.iter() {
            let taken = {
                let mut stack = lock(&shard.stack);
                shard.len.store(0, Ordering::Release);
                mem::take(&mut *stack)
            };
            let bytes: usize = taken.iter().map(|buf| mem::size_of_val::<[T]>(buf)).sum();
            self.reserved.fetch_sub(bytes, Ordering::Relaxed);
            freed += bytes as u64;
            drop(taken);
        }
        self.reclaim_credits();
        freed
    }
}

impl<T> Drop for Inner<T> {
    fn drop(&mut self) {
        // Threads that used the pool still hold their `Local` until they exit; free what their
        // slots hold now rather than then.
        for Member(local) in self
            .locals
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
        {
            // SAFETY: the owner protocol holds, because no owner can be running: the last
            // reference to the pool is gone, so no thread is renting or giving back, and a
            // thread exiting now finds the pool gone and leaves its slots alone (`retire`).
            unsafe { local.cache.slots.drain(|_, buf| drop(buf)) };
        }
    }
}

/// One thread's cache for one pool: a slot per bucket and the thread's counters, in a [`Local`]
/// on the heap (and, for the process-wide pool's `DETACHED`, in a `static`: see `resident`).
pub(crate) struct Cache<T> {
    /// Taken from and put into only through [`Owned`].
    slots: Slots<T>,
    pub(crate) counters: Counters,
    /// Set by `trim` on another thread: the owner empties the cache at its next slow-path visit.
    trim_requested: AtomicBool,
}

impl<T> Cache<T> {
    /// A cache with every slot blocked and its counters at 0, in a constant.
    #[cfg(resident_tls)]
    pub(crate) const fn blocked() -> Self {
        Self {
            slots: Slots::blocked(),
            counters: Counters::new(),
            trim_requested: AtomicBool::new(false),
        }
    }

    /// The capacities of the buffers this cache holds (any thread may ask).
    pub(crate) fn held(&self) -> impl Iterator<Item = usize> + '_ {
        self.slots.held()
    }

    /// Asks the owner to empty this cache at its next slow-path visit (see `BufferPool::trim`).
    pub(crate) fn request_trim(&self) {
        self.trim_requested.store(true, Ordering::Relaxed);
    }
}

/// A thread's cache for a pool, on the heap: shared by the thread's storage and the pool's list.
pub(crate) struct Local<T> {
    cache: Cache<T>,
    pool: Weak<Inner<T>>,
}

impl<T> Drop for Local<T> {
    fn drop(&mut self) {
        // SAFETY: `&mut self`: no other thread can reach these slots.
        unsafe { self.cache.slots.drain(|_, buf| drop(buf)) };
    }
}

/// An entry of a pool's list of thread caches: the list keeps the cache alive, so that what
/// other threads read (`stats`, `trim`) is never freed under them, whenever its thread exits.
pub(crate) struct Member<T>(Arc<Local<T>>);

impl<T> Member<T> {
    /// The cache.
    pub(crate) fn cache(&self) -> &Cache<T> {
        &self.0.cache
    }

    /// Whether this is `cache`.
    fn is(&self, cache: *const Cache<T>) -> bool {
        ptr::eq(self.cache(), cache)
    }
}

impl<T: Send + 'static> Local<T> {
    /// A new cache for the calling thread, already in `inner`'s list, or `None` if the list
    /// already holds `max_thread_caches` caches: then the thread has none, and asks again at
    /// its next visit to the slow path.
    ///
    /// The count is checked under the list's lock, where threads join and leave it, so the list
    /// never holds more than the limit. With a limit, it is checked first without allocating,
    /// so that a thread refused a place allocates nothing each time it asks; the cache is then
    /// made outside the lock and the count checked again as it goes in. A cache made for a
    /// place taken meanwhile is freed after the lock is released.
    fn register(inner: &Arc<Inner<T>>) -> Option<Arc<Self>> {
        let max = inner.limits.max_thread_caches;
        if max != usize::MAX && lock(&inner.locals).len() >= max {
            return None;
        }
        let slots = Slots::blocked();
        // SAFETY: no other thread can reach these slots yet.
        unsafe { slots.open(inner.limits.cache_slots) };
        let local = Arc::new(Self {
            cache: Cache {
                slots,
                counters: Counters::default(),
                trim_requested: AtomicBool::new(false),
            },
            pool: Arc::downgrade(inner),
        });
        inner.admit(|| Member(Arc::clone(&local))).then_some(local)
    }
}

impl<T> Inner<T> {
    /// Puts `member()` in the list of thread caches if it has room (`max_thread_caches`);
    /// whether it did. A member made for a place taken meanwhile is dropped after the list's
    /// lock is released.
    fn admit(&self, member: impl FnOnce() -> Member<T>) -> bool {
        let max = self.limits.max_thread_caches;
        let mut locals = lock(&self.locals);
        if locals.len() >= max {
            return false;
        }
        locals.push(member());
        true
    }

    /// Adds a retiring cache's counts to the pool's and takes it off the list, in one critical
    /// section, so a `stats` snapshot sees the thread either still in the list or entirely
    /// folded into the pool's counters.
    fn dismiss(&self, cache: &Cache<T>) {
        let mut locals = lock(&self.locals);
        self.counters.absorb(&cache.counters);
        locals.retain(|member| !member.is(cache));
    }
}

/// The calling thread's own cache for one pool. Only this module makes one, for the calling
/// thread's own cache, and it is neither `Send` nor `Sync`, so it cannot reach another thread:
/// whatever is taken or put through it keeps the slots' owner protocol.
pub(crate) struct Owned<'a, T> {
    cache: &'a Cache<T>,
    _this_thread: PhantomData<*const ()>,
}

impl<T> Clone for Owned<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Owned<'_, T> {}

impl<'a, T> Owned<'a, T> {
    /// # Safety
    /// `cache` is the calling thread's own cache, and nothing else takes from, puts into, opens
    /// or drains it while the `Owned` lives (true of the caches this module keeps for the
    /// calling thread); or a cache whose slots are all blocked and never opened, whose counters
    /// and trim flag are never written through the `Owned` (`resident`'s `DETACHED`).
    #[inline(always)]
    unsafe fn new(cache: &'a Cache<T>) -> Self {
        Self {
            cache,
            _this_thread: PhantomData,
        }
    }

    /// This thread's counters for the pool.
    #[inline(always)]
    pub(crate) fn counters(self) -> &'a Counters {
        &self.cache.counters
    }

    /// See [`Slots::take_request`].
    #[cfg(resident_tls)]
    #[inline(always)]
    pub(crate) fn take_request(self, len: usize) -> Option<Lent<T>> {
        // SAFETY: the owner protocol, by `Owned`'s contract.
        unsafe { self.cache.slots.take_request(len) }
    }

    /// See [`Slots::take_request_buf`].
    #[inline(always)]
    pub(crate) fn take_request_buf(self, len: usize) -> Option<Box<[T]>> {
        // SAFETY: the owner protocol, by `Owned`'s contract.
        unsafe { self.cache.slots.take_request_buf(len) }
    }

    /// See [`Slots::take`].
    pub(crate) fn take(self, bucket: usize) -> Option<Box<[T]>> {
        // SAFETY: the owner protocol, by `Owned`'s contract.
        unsafe { self.cache.slots.take(bucket) }
    }

    /// See [`Slots::put`].
    #[inline(always)]
    pub(crate) fn put(self, lent: Lent<T>) -> Result<(), Lent<T>> {
        // SAFETY: the owner protocol, by `Owned`'s contract.
        unsafe { self.cache.slots.put(lent) }
    }

    /// See [`Slots::put_over`].
    pub(crate) fn put_over(self, lent: Lent<T>) -> Result<Option<Box<[T]>>, Lent<T>> {
        // SAFETY: the owner protocol, by `Owned`'s contract.
        unsafe { self.cache.slots.put_over(lent) }
    }

    /// See [`Slots::drain`].
    pub(crate) fn drain(self, f: impl FnMut(usize, Box<[T]>)) {
        // SAFETY: the owner protocol, by `Owned`'s contract.
        unsafe { self.cache.slots.drain(f) }
    }

    /// Empties the cache if a `trim` on another thread asked for it (a load first, so that the
    /// usual answer, no, costs no atomic read-modify-write).
    pub(crate) fn honour_trim(self) {
        let requested = &self.cache.trim_requested;
        if requested.load(Ordering::Relaxed) && requested.swap(false, Ordering::Relaxed) {
            self.drain(|_, buf| drop(buf));
        }
    }

    /// Empties the cache now (and forgets any request to), returning how many elements of
    /// buffer it freed.
    pub(crate) fn empty(self) -> u64 {
        self.cache.trim_requested.store(false, Ordering::Relaxed);
        let mut freed = 0;
        self.drain(|_, buf| freed += buf.len() as u64);
        freed
    }

    /// Whether `member` is this cache.
    pub(crate) fn is(self, member: &Member<T>) -> bool {
        member.is(self.cache)
    }
}

/// What a thread's storage needs from a cache of any element type when the thread exits.
trait Retire: Any + Send + Sync {
    /// Gives the cached buffers back to the pool (within its bounds, or frees them; frees them
    /// all if a `trim` asked this cache to empty), adds this thread's counts to the pool's and
    /// leaves the pool's list.
    fn retire(&self);
    /// Whether the pool is gone (only this thread still holds the cache).
    fn orphaned(&self) -> bool;
}

impl<T: Send + 'static> Retire for Local<T> {
    fn retire(&self) {
        let Some(inner) = self.pool.upgrade() else {
            // The pool is gone, or going: the thread dropping it empties every cache in its
            // list, this one included, so this thread must leave the slots alone.
            return;
        };
        // SAFETY: `retire` is called only by `ThreadCaches::drop`, on the thread that owns this
        // cache, after the fast-path pointer to it is cleared; the pool is alive (`inner`
        // keeps it so until the end of this call), so no other thread empties it.
        let owned = unsafe { Owned::new(&self.cache) };
        give_back_cached(&inner, owned, |owned, f| owned.drain(f));
        inner.dismiss(&self.cache);
    }

    fn orphaned(&self) -> bool {
        self.pool.strong_count() == 0
    }
}

/// A retiring thread's cached buffers, emptied out of `owned` by `empty`, back to the pool: to
/// the shared stacks (within their bounds; the rest are freed and counted as discarded), or all
/// freed if a `trim` asked this cache to empty.
///
/// Runs before the cache leaves the pool's list and outside the list's lock, so that freeing
/// the buffers the stacks cannot keep holds up no `stats` and no other thread's first use. This
/// thread's returns are still in its counters, which `stats` sums while the thread is in the
/// list, so a discard counted here never shows without its return.
fn give_back_cached<'a, T>(
    inner: &Inner<T>,
    owned: Owned<'a, T>,
    empty: impl FnOnce(Owned<'a, T>, &mut dyn FnMut(usize, Box<[T]>)),
) {
    let pool = Tally::Shared(&inner.counters);
    if owned.cache.trim_requested.swap(false, Ordering::Relaxed) {
        // A `trim` asked this cache to empty: it is freed, not handed to the stacks.
        empty(owned, &mut |_, buf| drop(buf));
    } else {
        empty(owned, &mut |bucket, buf| {
            if inner.push(bucket, buf).is_err() {
                pool.bump(|c| &c.discarded);
            }
        });
    }
}

/// A pool's id: which entry of a thread's storage holds its cache. Never reused, so an id names
/// one pool, with one element type, for the life of the process.
pub(crate) type PoolId = u64;

/// The id of the process-wide pool, [`shared`](crate::shared): the only pool of `u8` with this
/// id. Other pools count from 1.
pub(crate) const SHARED_ID: PoolId = 0;

/// An id no pool has: the fast path's "no pool yet".
const NO_POOL: PoolId = PoolId::MAX;

/// This thread's caches, owned: the process-wide pool's, once registered (see `resident`),
/// and every other pool's in a short list keyed by the pool's id. Dropped when the thread
/// exits, which retires every cache.
struct ThreadCaches {
    #[cfg(resident_tls)]
    resident: RefCell<Option<Arc<dyn Retire>>>,
    others: RefCell<Vec<(PoolId, Arc<dyn Retire>)>>,
}

impl Drop for ThreadCaches {
    fn drop(&mut self) {
        // First of all: the fast path must not reach a cache once it is being retired. (The
        // pointers' storage has no destructor, so it is never gone while the thread runs.)
        FAST_RECENT.set((NO_POOL, ptr::null()));
        #[cfg(resident_tls)]
        resident::detach();
        #[cfg(resident_tls)]
        if let Some(local) = self.resident.get_mut().take() {
            local.retire();
        }
        for (_, local) in mem::take(self.others.get_mut()) {
            local.retire();
        }
    }
}

thread_local! {
    static CACHES: ThreadCaches = const {
        ThreadCaches {
            #[cfg(resident_tls)]
            resident: RefCell::new(None),
            others: RefCell::new(Vec::new()),
        }
    };

    // The fast path's way to this thread's cache of a pool other than `shared()`: a plain
    // pointer in storage that has no destructor, so reading it costs a load (a `thread_local!`
    // with a destructor first checks whether it is still alive). Only this thread reads or
    // writes it.

    /// The pool other than `shared()` this thread used most recently. Invariant:
    /// `(NO_POOL, _)`, or `(id, local)` where `local` is the `Local<T>` of pool `id` (whose
    /// element type is `T`), owned by an entry of this thread's `CACHES.others` that stays
    /// while pool `id` is alive.
    static FAST_RECENT: Cell<(PoolId, *const ())> = const { Cell::new((NO_POOL, ptr::null())) };
}

/// This thread's cache for pool `id`, if the fast path knows it: the cache of the pool other
/// than `shared()` this thread used most recently.
///
/// The caller must be pool `id` itself, with element type `T`: a pool passes its own id (the
/// field is private and ids are never reused).
#[inline(always)]
fn fast_local<'a, T>(id: PoolId) -> Option<Owned<'a, T>> {
    let (recent, local) = FAST_RECENT.get();
    if recent != id {
        return None;
    }
    // SAFETY: by the invariant on `FAST_RECENT`, a non-null `local` for `id` is pool `id`'s
    // `Local`, of pool `id`'s element type, which is `T` since the caller is pool `id`; it is
    // owned by this thread's `CACHES`, which keeps it while the pool is alive (the caller
    // borrows the pool, so it is) and until `ThreadCaches::drop`, which resets the pointer
    // first and cannot run during this call on this thread.
    let local = unsafe { local.cast::<Local<T>>().as_ref() }?;
    // SAFETY: it is this thread's own cache (it came from this thread's storage), and the pool
    // is alive, so no other thread empties it.
    Some(unsafe { Owned::new(&local.cache) })
}

/// Makes pool `id`'s cache (not the process-wide pool's) the one [`fast_local`] finds.
fn make_recent<T>(id: PoolId, local: &Local<T>) {
    FAST_RECENT.set((id, ptr::from_ref(local).cast()));
}

/// The fast path of a rent of `len` elements from `owned`: the slot for `len` holds a buffer
/// (`rent(0)` and requests above the largest bucket simply miss). Counts the rent when it
/// hits; a miss changes nothing.
#[inline(always)]
#[cfg(resident_tls)]
fn take_from<T>(owned: Owned<'_, T>, len: usize) -> Option<Lent<T>> {
    let lent = owned.take_request(len)?;
    Tally::Owner(owned.counters()).bump(|c| &c.rents);
    Some(lent)
}

/// The fast path of a give-back to `owned`: the slot of the buffer's entry is open and empty.
/// Counts the return (`Ok`), or gives the buffer back untouched and uncounted (`Err`: a full
/// or blocked slot, for the slow path).
#[inline(always)]
fn put_into<T>(owned: Owned<'_, T>, lent: Lent<T>) -> Result<(), Lent<T>> {
    owned.put(lent)?;
    Tally::Owner(owned.counters()).bump(|c| &c.returns);
    Ok(())
}

/// [`take_from`] this thread's cache for pool `id` (not the process-wide pool), if the fast
/// path knows it: the buffer as a `Box`, which a call returns in two registers.
#[inline(always)]
pub(crate) fn take_cached<T>(id: PoolId, len: usize) -> Option<Box<[T]>> {
    let owned = fast_local::<T>(id)?;
    let buf = owned.take_request_buf(len)?;
    Tally::Owner(owned.counters()).bump(|c| &c.rents);
    Some(buf)
}

/// [`put_into`] this thread's cache for pool `id` (not the process-wide pool), if the fast path
/// knows it.
#[inline(always)]
pub(crate) fn put_cached<T>(id: PoolId, lent: Lent<T>) -> Result<(), Lent<T>> {
    match fast_local::<T>(id) {
        Some(owned) => put_into(owned, lent),
        None => Err(lent),
    }
}

/// Whether `T` is the process-wide pool's element type, `u8`: decided at compile time.
#[inline(always)]
pub(crate) fn is_shared_type<T: 'static>() -> bool {
    std::any::TypeId::of::<T>() == std::any::TypeId::of::<u8>()
}

/// [`take_from`] this thread's resident cache of the process-wide pool, whose element type
/// `T` is (see [`is_shared_type`]; for any other `T`, a miss). Misses while the thread has no
/// cache registered, since its slots are blocked until then.
#[cfg(resident_tls)]
#[inline(always)]
pub(crate) fn take_resident<T: 'static>(len: usize) -> Option<Lent<T>> {
    take_from(resident::owned::<T>()?, len)
}

/// [`put_into`] this thread's resident cache of the process-wide pool, as
/// [`take_resident`] takes from it.
#[cfg(resident_tls)]
#[inline(always)]
pub(crate) fn put_resident<T: 'static>(lent: Lent<T>) -> Result<(), Lent<T>> {
    match resident::owned::<T>() {
        Some(owned) => put_into(owned, lent),
        None => Err(lent),
    }
}

/// Whether [`with_local`] creates the thread's cache when it has none.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Create {
    /// Yes: for rents and give-backs of a size the thread caches.
    Yes,
    /// No (`f` gets `None`): for sizes the thread does not cache, which only need its counters
    /// if it has them, and for `trim`, which has nothing to free on a thread with no cache.
    No,
}

/// Runs `f` with the calling thread's cache for pool `id` — created and registered on the
/// thread's first use if `create` says so — or with `None` if there is none, or if this
/// thread's storage is already gone (a guard dropped by another thread-local's destructor
/// during thread exit).
///
/// The slow path of every operation that the fast path does not serve: a thread's first use of
/// a pool (registration), a pool other than the one this thread used last (a search of its
/// short list of pools, which then becomes the most recent), a slot that is empty or full, a
/// request no bucket serves.
///
/// `f` runs after every borrow of this thread's storage has ended: it may do anything,
/// including renting from another pool this thread has never used (which registers a cache in
/// the same storage).
pub(crate) fn with_local<T: Send + 'static, R>(
    id: PoolId,
    inner: &Arc<Inner<T>>,
    create: Create,
    f: impl FnOnce(Option<Owned<'_, T>>) -> R,
) -> R {
    #[cfg(resident_tls)]
    if id == SHARED_ID {
        return f(resident::find_or_register(inner, create));
    }
    let owned = fast_local::<T>(id).or_else(|| {
        let known = CACHES
            .try_with(|caches| find_or_register(caches, id, inner, create))
            .unwrap_or(false);
        // Found or registered, it is now the one the fast path knows.
        known.then(|| fast_local::<T>(id)).flatten()
    });
    f(owned)
}

/// Makes this thread's cache for pool `id` (not the process-wide pool's resident one) the one
/// [`fast_local`] finds, creating and registering it if `create` says so and the pool has a
/// place for it (`max_thread_caches`); whether there is one now. Nothing else runs while the
/// thread's list of pools is borrowed.
fn find_or_register<T: Send + 'static>(
    caches: &ThreadCaches,
    id: PoolId,
    inner: &Arc<Inner<T>>,
    create: Create,
) -> bool {
    {
        let others = caches.others.borrow();
        if let Some((_, local)) = others.iter().find(|(other, _)| *other == id) {
            let local: &dyn Any = &**local;
            return match as_local::<T>(local) {
                Some(local) => {
                    // The invariant on `FAST_RECENT`: an entry of `others` owns it.
                    make_recent(id, local);
                    true
                }
                None => false,
            };
        }
    }
    create == Create::Yes && register_other(caches, id, inner)
}

/// `local` as a `Local<T>`, which it is: a pool only ever looks up its own id, whose cache
/// holds its own element type.
fn as_local<T: 'static>(local: &dyn Any) -> Option<&Local<T>> {
    local.downcast_ref()
}

/// Registers this thread's cache for pool `id`, not the process-wide one; whether it has one
/// now (`false` only if the pool has no place for it).
#[cold]
#[inline(never)]
fn register_other<T: Send + 'static>(
    caches: &ThreadCaches,
    id: PoolId,
    inner: &Arc<Inner<T>>,
) -> bool {
    let Some(local) = Local::register(inner) else {
        return false;
    };
    if find_or_register(caches, id, inner, Create::No) {
        // Registering allocated, and code run by that allocation (an allocator's hook) used
        // this pool and registered a cache first: keep that one, retire this one.
        local.retire();
        return true;
    }
    let mut others = caches.others.borrow_mut();
    // Caches of pools dropped since the last registration are empty: forget them, so a
    // long-lived thread that uses many short-lived pools keeps a short list. (`FAST_RECENT`
    // may name one of them, but the pool is gone, so no caller can ask for its id; it is
    // overwritten just below.)
    others.retain(|(_, other)| !other.orphaned());
    // The invariant on `FAST_RECENT`: the entry pushed next owns it.
    make_recent(id, &local);
    others.push((id, local as Arc<dyn Retire>));
    true
}
