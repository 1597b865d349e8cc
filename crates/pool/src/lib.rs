#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod contract;
#[cfg(feature = "experiments")]
pub mod experiments;
pub mod workloads;

use std::fmt;
use std::mem;
use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use thread_local::ThreadLocal;

/// The smallest bucket: `rent(1)` gets a buffer of this many elements, as in .NET.
pub const MIN_BUCKET_LEN: usize = 16;

/// What happens to a buffer's contents when it is given back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClearPolicy {
    /// Keep the contents: the next renter may see the previous renter's data (in the part of
    /// the buffer both were shown). The default, as in .NET, because clearing costs time.
    #[default]
    Never,
    /// Reset to `T::default()` everything the renter could have written — the prefix of the
    /// requested length, which is all a [`Rented`] exposes — before the buffer is kept.
    OnReturn,
}

/// How a [`BufferPool`] sizes its buckets and how much it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolConfig {
    /// The largest request served from a bucket, in elements. It is rounded up to a power of
    /// two (at least [`MIN_BUCKET_LEN`]): that is the largest bucket. Larger requests succeed
    /// with an exact-size buffer that is freed, not kept, when dropped.
    pub max_len: usize,
    /// How many buffers each bucket's shared stack keeps. Returns beyond it are freed and
    /// counted in [`PoolStats::discarded`]. Each thread also keeps one buffer per bucket in
    /// its own cache, in front of the shared stacks.
    pub max_per_bucket: usize,
    /// Whether given-back buffers are cleared.
    pub clear: ClearPolicy,
    /// Whether each thread keeps one buffer per bucket of its own (the fast path). With
    /// `false`, every rent and return goes to the shared stacks.
    pub thread_cache: bool,
}

impl Default for PoolConfig {
    /// The defaults of .NET's `ArrayPool<T>.Create()`: 1 Mi elements, 50 per bucket, no
    /// clearing; plus a per-thread cache.
    fn default() -> Self {
        Self {
            max_len: 1 << 20,
            max_per_bucket: 50,
            clear: ClearPolicy::Never,
            thread_cache: true,
        }
    }
}

/// A configuration [`BufferPool::try_new`] cannot honour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// `max_len` rounded up to a power of two would not fit in memory (more than `isize::MAX`
    /// bytes for the element type), so the largest bucket could never be allocated.
    MaxLenTooLarge {
        /// The requested `max_len`.
        max_len: usize,
        /// The largest `max_len` this element type allows.
        limit: usize,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MaxLenTooLarge { max_len, limit } => write!(
                f,
                "PoolConfig::max_len = {max_len} is too large: its bucket would exceed isize::MAX bytes (the limit for this element type is {limit})"
            ),
        }
    }
}

impl std::error::Error for ConfigError {}

/// Counters of a pool's activity since it was created, summed over every thread.
///
/// Invariant: `rents == returns + outstanding()` at any moment nothing is in flight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Calls to `rent` (including `rent(0)` and requests above `max_len`).
    pub rents: u64,
    /// Rents that had to allocate a fresh buffer (a miss, or a request above `max_len`).
    pub allocations: u64,
    /// Rented buffers given back (dropped), kept or not.
    pub returns: u64,
    /// Given-back buffers that were freed instead of kept: their bucket was full, or they were
    /// larger than the largest bucket.
    pub discarded: u64,
    /// Rents above `max_len` (exact size, never kept).
    pub oversize: u64,
    /// Bytes of buffer the pool holds right now, in thread caches and shared stacks (element
    /// storage only; the pool's own bookkeeping is not included).
    pub retained_bytes: u64,
    /// Buffers the pool holds right now.
    pub retained_buffers: u64,
}

impl PoolStats {
    /// Buffers rented and not given back yet (or leaked with `mem::forget`).
    pub fn outstanding(&self) -> u64 {
        self.rents - self.returns
    }

    /// Rents served without allocating.
    pub fn hits(&self) -> u64 {
        self.rents - self.allocations
    }
}

/// A bucket's shared stack of buffers.
type Stack<T> = Vec<Box<[T]>>;

/// One thread's cache: a slot per bucket, and that thread's counters.
#[derive(Debug)]
struct Local<T> {
    slots: Box<[Option<Box<[T]>>]>,
    rents: u64,
    allocations: u64,
    returns: u64,
    discarded: u64,
    oversize: u64,
}

/// A pool of reusable buffers of `T`, in power-of-two buckets, with a per-thread cache in
/// front of bounded shared stacks.
///
/// The element type must be `Send` (its per-thread caches can be reached from any thread,
/// by [`trim`](Self::trim) and [`stats`](Self::stats)); the pool is then `Send + Sync` by the
/// compiler's own rules — there is no `unsafe`, and no hand-written `unsafe impl`, in this crate.
pub struct BufferPool<T: Send> {
    config: PoolConfig,
    /// Bucket `b` holds buffers of `MIN_BUCKET_LEN << b` elements.
    shared: Box<[Mutex<Stack<T>>]>,
    /// Every thread that used the pool has an entry, kept until the pool is dropped.
    locals: ThreadLocal<Mutex<Local<T>>>,
}

impl<T: Send> fmt::Debug for BufferPool<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BufferPool")
            .field("config", &self.config)
            .field("buckets", &self.shared.len())
            .finish_non_exhaustive()
    }
}

fn lock<X>(mutex: &Mutex<X>) -> MutexGuard<'_, X> {
    // Every critical section leaves the state consistent (a push, a pop, a counter
    // increment), so a panic elsewhere while the lock was held cannot have broken it.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The bucket capacity a request of `len` elements is rounded up to (`len ≥ 1`).
pub fn bucket_capacity(len: usize) -> Option<usize> {
    len.max(MIN_BUCKET_LEN).checked_next_power_of_two()
}

impl<T: Copy + Default + Send> BufferPool<T> {
    /// Creates a pool.
    ///
    /// # Panics
    /// If the configuration is invalid (see [`BufferPool::try_new`], which returns the error).
    pub fn new(config: PoolConfig) -> Self {
        match Self::try_new(config) {
            Ok(pool) => pool,
            Err(err) => panic!("{err}"),
        }
    }

    /// Creates a pool, or says why the configuration cannot work.
    pub fn try_new(config: PoolConfig) -> Result<Self, ConfigError> {
        let element = mem::size_of::<T>().max(1);
        let max_bytes = isize::MAX as usize / element;
        // The largest power of two whose buffer fits in `isize::MAX` bytes.
        let limit = 1usize << (usize::BITS - 1 - max_bytes.leading_zeros());
        let largest = bucket_capacity(config.max_len)
            .filter(|&cap| cap <= limit)
            .ok_or(ConfigError::MaxLenTooLarge {
                max_len: config.max_len,
                limit,
            })?;
        let buckets = (largest / MIN_BUCKET_LEN).trailing_zeros() as usize + 1;
        Ok(Self {
            config,
            shared: (0..buckets).map(|_| Mutex::new(Vec::new())).collect(),
            locals: ThreadLocal::new(),
        })
    }

    /// The configuration this pool was created with.
    pub fn config(&self) -> &PoolConfig {
        &self.config
    }

    /// The largest capacity kept by this pool (its largest bucket), in elements.
    pub fn largest_bucket(&self) -> usize {
        MIN_BUCKET_LEN << (self.shared.len() - 1)
    }

    /// The bucket holding buffers of exactly `capacity` elements, if this pool has one.
    fn bucket_of(&self, capacity: usize) -> Option<usize> {
        (capacity.is_power_of_two() && capacity >= MIN_BUCKET_LEN)
            .then(|| (capacity / MIN_BUCKET_LEN).trailing_zeros() as usize)
            .filter(|&b| b < self.shared.len())
    }

    fn local(&self) -> MutexGuard<'_, Local<T>> {
        lock(self.locals.get_or(|| {
            Mutex::new(Local {
                slots: (0..self.shared.len()).map(|_| None).collect(),
                rents: 0,
                allocations: 0,
                returns: 0,
                discarded: 0,
                oversize: 0,
            })
        }))
    }

    /// Rents a buffer of `len` elements: `len` is what the guard shows, its capacity is `len`
    /// rounded up to a power of two (at least 16). The guard gives it back when dropped.
    ///
    /// The contents are the previous renter's unless the pool clears on return
    /// ([`ClearPolicy::OnReturn`]) or you use [`BufferPool::rent_cleared`]; a freshly
    /// allocated buffer is always `T::default()`. `rent(0)` allocates nothing. A request above
    /// `max_len` succeeds with an exact-size buffer that is freed when dropped.
    pub fn rent(&self, len: usize) -> Rented<'_, T> {
        let mut local = self.local();
        local.rents += 1;
        if len == 0 {
            drop(local);
            return Rented {
                buf: Box::default(),
                len,
                pool: self,
            };
        }
        let buf = match bucket_capacity(len).and_then(|cap| Some((cap, self.bucket_of(cap)?))) {
            Some((capacity, bucket)) => {
                let cached = if self.config.thread_cache {
                    local.slots[bucket].take()
                } else {
                    None
                };
                match cached.or_else(|| lock(&self.shared[bucket]).pop()) {
                    Some(buf) => buf,
                    None => {
                        local.allocations += 1;
                        fresh(capacity)
                    }
                }
            }
            None => {
                local.allocations += 1;
                local.oversize += 1;
                fresh(len)
            }
        };
        drop(local);
        Rented {
            buf,
            len,
            pool: self,
        }
    }

    /// Like [`rent`](Self::rent), but the `len` elements shown are reset to `T::default()`
    /// first, whatever the policy: for callers that read before they write.
    pub fn rent_cleared(&self, len: usize) -> Rented<'_, T> {
        let mut rented = self.rent(len);
        rented.fill(T::default());
        rented
    }

    /// Takes a buffer back from a guard being dropped.
    fn give_back(&self, mut buf: Box<[T]>, len: usize) {
        let mut local = self.local();
        local.returns += 1;
        let Some(bucket) = self.bucket_of(buf.len()) else {
            if !buf.is_empty() {
                local.discarded += 1;
            }
            return;
        };
        if self.config.clear == ClearPolicy::OnReturn {
            buf[..len].fill(T::default());
        }
        if self.config.thread_cache && local.slots[bucket].is_none() {
            local.slots[bucket] = Some(buf);
            return;
        }
        let mut stack = lock(&self.shared[bucket]);
        if stack.len() < self.config.max_per_bucket {
            if stack.capacity() == 0 {
                // One allocation per bucket, the first time it keeps anything.
                stack.reserve_exact(self.config.max_per_bucket);
            }
            stack.push(buf);
        } else {
            drop(stack);
            local.discarded += 1;
        }
    }

    /// The pool's counters, summed over every thread that has used it.
    pub fn stats(&self) -> PoolStats {
        let element = mem::size_of::<T>() as u64;
        let mut stats = PoolStats::default();
        let retain = |stats: &mut PoolStats, buf: &[T]| {
            stats.retained_buffers += 1;
            stats.retained_bytes += buf.len() as u64 * element;
        };
        for local in self.locals.iter() {
            let local = lock(local);
            stats.rents += local.rents;
            stats.allocations += local.allocations;
            stats.returns += local.returns;
            stats.discarded += local.discarded;
            stats.oversize += local.oversize;
            local
                .slots
                .iter()
                .flatten()
                .for_each(|b| retain(&mut stats, b));
        }
        for stack in self.shared.iter() {
            lock(stack).iter().for_each(|b| retain(&mut stats, b));
        }
        stats
    }

    /// Frees every buffer the pool holds — every thread's cache and every shared stack,
    /// including the stacks' own storage — and returns the bytes of buffer released. Rented
    /// buffers are unaffected and are kept again when given back.
    pub fn trim(&self) -> u64 {
        let element = mem::size_of::<T>() as u64;
        let mut released = 0;
        for local in self.locals.iter() {
            for slot in lock(local).slots.iter_mut() {
                if let Some(buf) = slot.take() {
                    released += buf.len() as u64 * element;
                }
            }
        }
        for stack in self.shared.iter() {
            let taken = mem::take(&mut *lock(stack));
            released += taken.iter().map(|b| b.len() as u64 * element).sum::<u64>();
        }
        released
    }
}

/// A zero/default-initialised buffer of exactly `len` elements. Never uninitialised memory.
fn fresh<T: Copy + Default + Send>(len: usize) -> Box<[T]> {
    vec![T::default(); len].into_boxed_slice()
}

/// The process-wide byte pool, created on first use.
///
/// Its limits are this crate's, not .NET's: requests up to 16 MiB are pooled (.NET's shared
/// pool goes to 1 GiB, but it also trims itself under memory pressure, which nothing does
/// here), each bucket's shared stack keeps 32 buffers per logical core (.NET keeps 32 per
/// core in per-core partitions), and each thread caches one buffer per bucket.
pub fn shared() -> &'static BufferPool<u8> {
    static SHARED: OnceLock<BufferPool<u8>> = OnceLock::new();
    SHARED.get_or_init(|| BufferPool::new(shared_config()))
}

/// The configuration of [`shared`].
pub fn shared_config() -> PoolConfig {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    PoolConfig {
        max_len: SHARED_MAX_LEN,
        max_per_bucket: 32 * cores,
        clear: ClearPolicy::Never,
        thread_cache: true,
    }
}

/// The largest request the [`shared`] pool keeps: 16 MiB.
pub const SHARED_MAX_LEN: usize = 1 << 24;

/// A rented buffer: derefs to `[T]` of the requested length, and gives the buffer back to its
/// pool when dropped — at the end of scope, on early return and during a panic's unwinding.
///
/// It borrows the pool, so the pool cannot be dropped while it is out, and it is the only way
/// to give a buffer back, so a buffer can be given back once and only to the pool that lent
/// it (see [`contract`]).
pub struct Rented<'pool, T: Copy + Default + Send> {
    buf: Box<[T]>,
    len: usize,
    pool: &'pool BufferPool<T>,
}

impl<T: Copy + Default + Send> Rented<'_, T> {
    /// The capacity of the underlying buffer (a power of two ≥ 16, or exactly the request for
    /// `rent(0)` and for requests above `max_len`). Only `len()` elements are shown.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }
}

impl<T: Copy + Default + Send> Deref for Rented<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.buf[..self.len]
    }
}

impl<T: Copy + Default + Send> DerefMut for Rented<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.buf[..self.len]
    }
}

impl<T: Copy + Default + Send> Drop for Rented<'_, T> {
    fn drop(&mut self) {
        self.pool.give_back(mem::take(&mut self.buf), self.len);
    }
}

impl<T: Copy + Default + Send + fmt::Debug> fmt::Debug for Rented<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rented")
            .field("len", &self.len)
            .field("capacity", &self.capacity())
            .finish_non_exhaustive()
    }
}
