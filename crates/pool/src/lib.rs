#![doc = include_str!("../README.md")]
#![deny(missing_docs)]
// `unsafe` code is allowed in four modules only, `slot`, `cache`, `guard` and `buf`; every block
// says why it is sound.
#![deny(unsafe_code)]

#[allow(unsafe_code)]
mod buf;
#[allow(unsafe_code)]
mod cache;
pub mod contract;
#[allow(unsafe_code)]
mod guard;
#[allow(unsafe_code)]
mod slot;
mod sync;
mod vec_pool;

use std::collections::TryReserveError;
use std::convert::Infallible;
use std::fmt;
use std::mem;
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

pub use buf::{OwnedRentedBuf, RentedBuf};
use cache::{
    Counter, Counters, Create, Inner, Limits, Owned, PoolId, SHARED_ID, Tally, lock, with_local,
};
pub use guard::{OwnedRented, Rented};
use slot::{Entry, Lent};
pub use vec_pool::{PooledVec, VecPool};

/// The smallest bucket: `rent(1)` gets a buffer of this many elements, as in .NET.
pub const MIN_BUCKET_LEN: usize = 16;

/// What happens to a buffer's contents when it is given back.
///
/// # Examples
///
/// ```
/// use hotpath_pool::{BufferPool, ClearPolicy, PoolConfig};
///
/// let p = BufferPool::<u8>::new(PoolConfig::default().with_clear(ClearPolicy::OnReturn));
/// p.rent(4).copy_from_slice(b"1042");
/// assert_eq!(&p.rent(4)[..], &[0, 0, 0, 0]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClearPolicy {
    /// Keep the contents: the next renter may see the previous renter's data (in the part of
    /// the buffer both were shown). The default, as in .NET, because clearing costs time. A
    /// renter that held a secret clears its own buffer with [`Rented::give_back_cleared`].
    #[default]
    Never,
    /// Reset to `T::default()` everything the renter could have written — the prefix of the
    /// requested length, which is all a [`Rented`] exposes — before the buffer is kept.
    OnReturn,
}

/// How a [`BufferPool`] sizes its buckets and how much it keeps.
///
/// What a pool can hold at once is bounded by [`BufferPool::max_retained_bytes`]: the shared
/// stacks by `max_per_bucket` and `max_shared_bytes`, each live thread's cache by one buffer per
/// bucket up to `thread_cache_max_len`, and the number of thread caches by
/// `max_thread_caches`.
///
/// New fields may be added: build a configuration from [`PoolConfig::new`] (or
/// [`shared_config`]) and its `with_` methods, and read its fields directly.
///
/// # Examples
///
/// ```
/// use hotpath_pool::{BufferPool, ClearPolicy, PoolConfig};
///
/// let config = PoolConfig::new()
///     .with_max_len(1 << 16)
///     .with_max_per_bucket(8)
///     .with_max_shared_bytes(1 << 20)
///     .with_clear(ClearPolicy::OnReturn)
///     .with_thread_cache_max_len(4096)
///     .with_max_thread_caches(64);
/// assert_eq!(config.max_len, 1 << 16);
/// let p = BufferPool::<u8>::new(config);
/// assert_eq!(p.largest_bucket(), 1 << 16);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PoolConfig {
    /// Sets the largest bucket: `max_len` rounded up to a power of two (at least
    /// [`MIN_BUCKET_LEN`]). Every request up to that bucket's capacity is pooled — including
    /// requests above `max_len` itself, as with .NET's `ArrayPool.Create(maxArrayLength, …)`:
    /// `max_len: 1000` pools `rent(1024)`. A request above the largest bucket succeeds with an
    /// exact-size buffer that is freed, not kept, when given back. This limits the size of one
    /// buffer, not what the pool retains: that is `max_per_bucket`, `max_shared_bytes`,
    /// `thread_cache_max_len` and `thread_cache_max_bytes`.
    pub max_len: usize,
    /// How many buffers each bucket's shared stack keeps, all its shards together (each of
    /// the 8 shards keeps an eighth of it, the remainder going to the first shards, and a
    /// give-back that finds its thread's shard full goes to another). Returns beyond it are
    /// freed and counted in [`PoolStats::discarded`]. Any value is accepted: the stacks'
    /// storage grows as buffers come back and never past this bound.
    pub max_per_bucket: usize,
    /// How many bytes of buffer the shared stacks keep, all buckets together. A give-back that
    /// would take them past it is freed and counted in [`PoolStats::discarded`], so a burst of
    /// large buffers cannot fill `max_per_bucket` places of every bucket. `0` keeps nothing
    /// behind the thread caches; `usize::MAX` leaves `max_per_bucket` as the only bound.
    pub max_shared_bytes: usize,
    /// Whether given-back buffers are cleared.
    pub clear: ClearPolicy,
    /// The largest bucket a thread keeps in a cache of its own, in elements (rounded up to a
    /// power of two of at least [`MIN_BUCKET_LEN`], like `max_len`). Each live thread that uses
    /// the pool keeps at most one buffer per bucket up to it — the hit path, with no lock —
    /// until it exits; buffers of larger buckets go straight to the shared stacks, behind one
    /// lock per shard of each bucket's stack. `0`: no thread cache at all (every rent and
    /// give-back takes the lock of a shard of its bucket's stack, and no thread registers
    /// anything).
    pub thread_cache_max_len: usize,
    /// The largest buffer a thread keeps in a cache of its own, in bytes: a thread caches the
    /// buckets up to `thread_cache_max_len` whose buffers are at most this many bytes (rounded
    /// down to a bucket; a limit below one 16-element buffer means no thread cache). With
    /// both defaults a thread caches every bucket up to 1 MiB of buffer whatever `T` is: 1 Mi
    /// elements of `u8`, 128 Ki of `f64`, so each live thread keeps at most one buffer of every
    /// bucket up to 1 MiB, under 2 MiB. `usize::MAX` leaves `thread_cache_max_len` as the only
    /// bound.
    pub thread_cache_max_bytes: usize,
    /// How many live threads may have a cache for this pool at once. A thread gets its cache at
    /// its first rent or give-back of a size it caches, if fewer than this many live threads
    /// have one (counted under the lock of the pool's list of thread caches, so never more);
    /// a thread refused a place works through the shared stacks, as every thread of a pool
    /// without thread caches does — correct, but each rent and give-back takes a shard's lock —
    /// and asks again at each of those operations, so it gets a place once a thread holding one
    /// exits. For a long-lived server whose threads come and go (a pool of workers that grows
    /// under load), this bounds the caches' share of
    /// [`max_retained_bytes`](BufferPool::max_retained_bytes) whatever the number of threads.
    /// `usize::MAX` (the default): no limit. `0`: no thread cache at all, as with
    /// `thread_cache_max_len: 0`.
    pub max_thread_caches: usize,
}

/// The byte budget of the shared stacks in [`PoolConfig::default`] and in [`shared`]: 64 MiB.
pub const DEFAULT_MAX_SHARED_BYTES: usize = 64 << 20;

/// The largest bucket a thread caches in [`PoolConfig::default`] and in [`shared`]: 1 Mi
/// elements (1 MiB of bytes).
pub const DEFAULT_THREAD_CACHE_MAX_LEN: usize = 1 << 20;

/// The largest buffer a thread caches in [`PoolConfig::default`] and in [`shared`], in bytes:
/// 1 MiB, whatever the element type.
pub const DEFAULT_THREAD_CACHE_MAX_BYTES: usize = 1 << 20;

impl Default for PoolConfig {
    /// The bucket sizes and counts of .NET's `ArrayPool<T>.Create()` (1 Mi elements, 50 per
    /// bucket, no clearing), plus this crate's per-thread caches (every bucket up to 1 Mi
    /// elements) and a 64 MiB budget for the shared stacks: [`PoolConfig::new`].
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::PoolConfig;
    ///
    /// assert_eq!(PoolConfig::default(), PoolConfig::new());
    /// assert_eq!(PoolConfig::default().max_per_bucket, 50);
    /// ```
    fn default() -> Self {
        Self::new()
    }
}

impl PoolConfig {
    /// The default configuration (see [`PoolConfig::default`]), to build on with the `with_`
    /// methods.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{ClearPolicy, PoolConfig};
    ///
    /// let config = PoolConfig::new();
    /// assert_eq!((config.max_len, config.clear), (1 << 20, ClearPolicy::Never));
    /// ```
    pub const fn new() -> Self {
        Self {
            max_len: 1 << 20,
            max_per_bucket: 50,
            max_shared_bytes: DEFAULT_MAX_SHARED_BYTES,
            clear: ClearPolicy::Never,
            thread_cache_max_len: DEFAULT_THREAD_CACHE_MAX_LEN,
            thread_cache_max_bytes: DEFAULT_THREAD_CACHE_MAX_BYTES,
            max_thread_caches: usize::MAX,
        }
    }

    /// Sets [`max_len`](Self::max_len), which sets the largest bucket.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(PoolConfig::new().with_max_len(1000));
    /// assert_eq!(p.largest_bucket(), 1024);
    /// ```
    #[must_use]
    pub const fn with_max_len(mut self, max_len: usize) -> Self {
        self.max_len = max_len;
        self
    }

    /// Sets [`max_per_bucket`](Self::max_per_bucket), how many buffers each bucket's shared
    /// stack keeps.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(PoolConfig::new().with_max_per_bucket(0));
    /// let (a, b) = (p.rent(16), p.rent(16));
    /// drop((a, b)); // one goes to this thread's cache, the other has no place left
    /// assert_eq!(p.stats().discarded, 1);
    /// ```
    #[must_use]
    pub const fn with_max_per_bucket(mut self, max_per_bucket: usize) -> Self {
        self.max_per_bucket = max_per_bucket;
        self
    }

    /// Sets [`max_shared_bytes`](Self::max_shared_bytes), the byte budget of the shared
    /// stacks.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(
    ///     PoolConfig::new().with_max_shared_bytes(0).with_thread_cache_max_len(0),
    /// );
    /// drop(p.rent(16));
    /// assert_eq!(p.stats().retained_bytes, 0);
    /// ```
    #[must_use]
    pub const fn with_max_shared_bytes(mut self, max_shared_bytes: usize) -> Self {
        self.max_shared_bytes = max_shared_bytes;
        self
    }

    /// Sets [`clear`](Self::clear), what happens to a buffer's contents when it is given back.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{ClearPolicy, PoolConfig};
    ///
    /// let config = PoolConfig::new().with_clear(ClearPolicy::OnReturn);
    /// assert_eq!(config.clear, ClearPolicy::OnReturn);
    /// ```
    #[must_use]
    pub const fn with_clear(mut self, clear: ClearPolicy) -> Self {
        self.clear = clear;
        self
    }

    /// Sets [`thread_cache_max_len`](Self::thread_cache_max_len), the largest bucket a thread
    /// caches for itself (0: no thread cache).
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(PoolConfig::new().with_thread_cache_max_len(0));
    /// assert_eq!(p.largest_cached_bucket(), 0);
    /// ```
    #[must_use]
    pub const fn with_thread_cache_max_len(mut self, thread_cache_max_len: usize) -> Self {
        self.thread_cache_max_len = thread_cache_max_len;
        self
    }

    /// Sets [`thread_cache_max_bytes`](Self::thread_cache_max_bytes), the largest buffer a
    /// thread caches for itself, in bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let config = PoolConfig::new().with_thread_cache_max_bytes(64 << 10);
    /// assert_eq!(BufferPool::<u8>::new(config).largest_cached_bucket(), 64 << 10);
    /// assert_eq!(BufferPool::<f64>::new(config).largest_cached_bucket(), 8 << 10);
    /// ```
    #[must_use]
    pub const fn with_thread_cache_max_bytes(mut self, thread_cache_max_bytes: usize) -> Self {
        self.thread_cache_max_bytes = thread_cache_max_bytes;
        self
    }

    /// Sets [`max_thread_caches`](Self::max_thread_caches), how many live threads may have a
    /// cache for the pool at once (0: no thread cache).
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(PoolConfig::new().with_max_thread_caches(1));
    /// drop(p.rent(16)); // this thread takes the one place
    /// std::thread::scope(|s| {
    ///     // Refused a place: this thread rents and gives back through the shared stacks.
    ///     s.spawn(|| drop(p.rent(16))).join().unwrap();
    /// });
    /// let s = p.stats();
    /// assert_eq!((s.thread_caches, s.rents, s.returns), (1, 2, 2));
    /// assert_eq!(p.max_retained_bytes(8), p.max_retained_bytes(1));
    /// ```
    #[must_use]
    pub const fn with_max_thread_caches(mut self, max_thread_caches: usize) -> Self {
        self.max_thread_caches = max_thread_caches;
        self
    }
}

/// A configuration [`BufferPool::try_new`] (or [`VecPool::try_new`]) cannot honour.
///
/// # Examples
///
/// ```
/// use hotpath_pool::{BufferPool, ConfigError, PoolConfig};
///
/// let err = BufferPool::<u64>::try_new(PoolConfig::new().with_max_len(usize::MAX)).unwrap_err();
/// assert!(matches!(err, ConfigError::MaxLenTooLarge { max_len: usize::MAX, .. }));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
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

/// Why [`BufferPool::try_rent`] (or [`BufferPool::try_rent_owned`], [`VecPool::try_rent_vec`])
/// could not lend a buffer: the fresh buffer it needed could not be allocated, because its size
/// overflows (more than `isize::MAX` bytes) or the allocator refused it. A failed rent counts
/// nothing and leaves the pool as it was.
///
/// # Examples
///
/// ```
/// use hotpath_pool::{BufferPool, PoolConfig};
///
/// let p = BufferPool::<u8>::new(PoolConfig::new());
/// let err = p.try_rent(usize::MAX).unwrap_err();
/// assert_eq!(err.requested(), usize::MAX);
/// assert_eq!(p.stats().rents, 0);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RentError {
    requested: usize,
    source: TryReserveError,
}

impl RentError {
    pub(crate) fn new(requested: usize, source: TryReserveError) -> Self {
        Self { requested, source }
    }

    /// A request of more elements than a `usize` holds (`requested` saturated at
    /// `usize::MAX`): the error the allocator's size check gives for it.
    pub(crate) fn capacity_overflow(requested: usize) -> Self {
        match Vec::<u8>::new().try_reserve_exact(usize::MAX) {
            Err(source) => Self::new(requested, source),
            Ok(()) => unreachable!("no allocation is larger than isize::MAX bytes"),
        }
    }

    /// The number of elements that was asked for.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u64>::new(PoolConfig::new());
    /// let err = p.try_rent(usize::MAX).unwrap_err();
    /// assert_eq!(err.requested(), usize::MAX);
    /// ```
    pub fn requested(&self) -> usize {
        self.requested
    }
}

impl fmt::Display for RentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "could not rent a buffer of {} elements: {}",
            self.requested, self.source
        )
    }
}

impl std::error::Error for RentError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// The number of buckets for requests up to `max_len` elements of `T`, or why there can be
/// none that large.
fn buckets_for<T>(max_len: usize) -> Result<usize, ConfigError> {
    let element = mem::size_of::<T>().max(1);
    let max_elements = isize::MAX as usize / element;
    // The largest power of two whose buffer fits in `isize::MAX` bytes.
    let limit = 1usize << (usize::BITS - 1 - max_elements.leading_zeros());
    let largest = bucket_capacity(max_len)
        .filter(|&cap| cap <= limit)
        .ok_or(ConfigError::MaxLenTooLarge { max_len, limit })?;
    Ok((largest / MIN_BUCKET_LEN).trailing_zeros() as usize + 1)
}

/// How many buckets, from the smallest, a thread caches: those up to `thread_cache_max_len`
/// rounded up to a power of two (every bucket where that rounding overflows), 0 for 0, and of
/// those the ones whose buffers of `T` are at most `thread_cache_max_bytes` bytes.
fn cached_buckets<T>(config: &PoolConfig, buckets: usize) -> usize {
    let by_len = match config.thread_cache_max_len {
        0 => 0,
        len => bucket_capacity(len).map_or(buckets, |cap| {
            ((cap / MIN_BUCKET_LEN).trailing_zeros() as usize + 1).min(buckets)
        }),
    };
    let by_bytes = match mem::size_of::<T>() {
        0 => buckets,
        element => match config.thread_cache_max_bytes / element / MIN_BUCKET_LEN {
            0 => 0,
            // Bucket `b` holds `MIN_BUCKET_LEN << b` elements: the largest `b` that fits.
            fits => fits.ilog2() as usize + 1,
        },
    };
    by_len.min(by_bytes)
}

/// Counters of a pool's activity since it was created, summed over every thread.
///
/// A snapshot is taken while threads keep renting, so it is a moment's view, but its counters
/// never show an impossible one: [`stats`](BufferPool::stats) reads each counter after the ones
/// that are bumped later in an operation, so it never shows more returns than rents, more
/// allocations than rents, or more discards than returns. What the pool holds
/// (`retained_bytes`, `retained_buffers`) is read cache by cache and stack by stack while
/// buffers move between them: a buffer that another thread sends from its cache down to a
/// stack, or from one shard of a stack to another, during the snapshot can be counted in both
/// places. So while other threads use the pool, a snapshot's `retained_bytes` can exceed
/// [`BufferPool::max_retained_bytes`] for its `thread_caches`, though the pool itself never
/// holds more than that bound. What every snapshot does keep is each part's count bound: for
/// every bucket, at most `max_per_bucket` stacked buffers (each shard's count is within its
/// share) and at most `thread_caches` cached ones (the caches are read under one lock). A
/// snapshot taken while no other thread uses the pool is exact, and within the bound.
///
/// New fields may be added: read the fields, start a hand-made one from
/// `PoolStats::default()`.
///
/// # Examples
///
/// ```
/// use hotpath_pool::{BufferPool, PoolConfig};
///
/// let p = BufferPool::<u8>::new(PoolConfig::new());
/// drop(p.rent(100));
/// let s = p.stats();
/// assert_eq!((s.rents, s.allocations, s.returns, s.retained_bytes), (1, 1, 1, 128));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PoolStats {
    /// Calls to `rent` (including `rent(0)` and requests above the largest bucket) that
    /// returned a buffer.
    pub rents: u64,
    /// Rents that had to allocate a fresh buffer (a miss, or a request above the largest
    /// bucket).
    pub allocations: u64,
    /// Rented buffers given back (dropped), kept or not.
    pub returns: u64,
    /// Given-back buffers that were freed instead of kept: their bucket's stack was full, or
    /// the stacks' byte budget was (also when an exiting thread's cache went back to the
    /// stacks), or they were larger than the largest bucket.
    pub discarded: u64,
    /// Rents above the largest bucket (`max_len` rounded up to a power of two): an exact-size
    /// buffer, never kept. A request above `max_len` but within its bucket is not oversize.
    pub oversize: u64,
    /// Bytes of buffer the pool holds right now, in thread caches and shared stacks (element
    /// storage only; the pool's own bookkeeping is not included).
    pub retained_bytes: u64,
    /// Buffers the pool holds right now.
    pub retained_buffers: u64,
    /// Live threads that have a cache for this pool right now: threads that rented or gave
    /// back a buffer of a size they cache and whose thread-local destructors have not run yet
    /// (see the crate's documentation on threads that exit), and for good any thread whose
    /// first use came from a destructor that runs after those. Never more than
    /// [`PoolConfig::max_thread_caches`]; always 0 without thread caches.
    pub thread_caches: u64,
    /// What the pool holds right now, bucket by bucket, from the smallest (one entry per
    /// bucket; their sums are `retained_buffers` and `retained_bytes`). Empty for a hand-made
    /// snapshot.
    pub buckets: Vec<BucketStats>,
}

/// What a pool holds of one bucket right now: an entry of [`PoolStats::buckets`].
///
/// # Examples
///
/// ```
/// use hotpath_pool::{BufferPool, PoolConfig};
///
/// let p = BufferPool::<u64>::new(PoolConfig::new().with_max_per_bucket(4));
/// let (a, b) = (p.rent(100), p.rent(100));
/// drop((a, b)); // one in this thread's cache, one on the shared stack
/// let bucket = &p.stats().buckets[3];
/// assert_eq!(bucket.capacity, 128);
/// assert_eq!((bucket.cached_buffers, bucket.stacked_buffers), (1, 1));
/// assert_eq!(bucket.retained_bytes, 2 * 128 * 8);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BucketStats {
    /// The bucket's buffer capacity, in elements.
    pub capacity: usize,
    /// Buffers of this bucket in live threads' caches.
    pub cached_buffers: u64,
    /// Buffers of this bucket on its shared stack.
    pub stacked_buffers: u64,
    /// Bytes of buffer of this bucket the pool holds, caches and stack together.
    pub retained_bytes: u64,
}

impl PoolStats {
    /// Buffers rented and not given back yet (or kept for good: `mem::forget`, `Box::leak`, a
    /// guard in a `ManuallyDrop` or parked in a long-lived structure). Never panics: a
    /// snapshot from [`stats`](BufferPool::stats) never has more returns than rents, and a
    /// hand-made one that does gives 0.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(PoolConfig::new());
    /// let held = p.rent(64);
    /// assert_eq!(p.stats().outstanding(), 1);
    /// drop(held);
    /// assert_eq!(p.stats().outstanding(), 0);
    /// ```
    pub fn outstanding(&self) -> u64 {
        self.rents.saturating_sub(self.returns)
    }

    /// Rents served without allocating (0 for a hand-made snapshot with more allocations than
    /// rents).
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(PoolConfig::new());
    /// drop(p.rent(64)); // a miss: allocates
    /// drop(p.rent(64)); // a hit: the same buffer
    /// assert_eq!(p.stats().hits(), 1);
    /// ```
    pub fn hits(&self) -> u64 {
        self.rents.saturating_sub(self.allocations)
    }
}

/// A pool of reusable buffers of `T`, in power-of-two buckets, with a per-thread cache in
/// front of bounded shared stacks.
///
/// # Why `T: Copy + Default + Send + 'static`
///
/// - **`Copy`**: an element owns nothing and has no destructor. So a buffer sitting in the
///   pool keeps no other memory alive (in .NET a pooled array of references keeps every object
///   it points to alive until the array is cleared: the seed's `IsAlive = True`), and freeing,
///   trimming or clearing a buffer never runs element code — clearing is a plain fill, freeing
///   is one `free`. Soundness does not depend on it (the pool would be sound for
///   `Clone + Default`); it is what a pool of *buffers* is for. For elements that own
///   something, use a [`VecPool`], whose vectors come back empty, their elements dropped.
/// - **`Default`**: a fresh buffer is filled with `T::default()` and clearing resets to it, so
///   the pool never hands out uninitialised memory.
/// - **`Send`**: buffers move between threads (a guard dropped on another thread, an exiting
///   thread's cache handed to the shared stacks, the caches of live threads freed by the
///   thread that drops the pool), so the pool is `Send + Sync` exactly when `T: Send`, by the
///   compiler's own rules.
/// - **`'static`**: each thread's cache is found through thread-local storage, which outlives
///   any borrow. A buffer of borrowed references is not a buffer.
pub struct BufferPool<T: Send> {
    /// Set when the pool is created, but for [`shared`]'s, which lives in a `static` and is set
    /// at its first use off the fast path (its configuration reads the number of cores, which
    /// a constant cannot).
    state: OnceLock<State<T>>,
    /// Which entry of each thread's storage holds this pool's cache.
    id: PoolId,
}

/// What a pool is made of once it exists.
struct State<T> {
    config: PoolConfig,
    /// How many buckets: bucket `b` holds buffers of `MIN_BUCKET_LEN << b` elements.
    buckets: usize,
    inner: Arc<Inner<T>>,
}

impl<T> State<T> {
    fn new(config: PoolConfig) -> Result<Self, ConfigError> {
        let buckets = buckets_for::<T>(config.max_len)?;
        let limits = Limits {
            max_per_bucket: config.max_per_bucket,
            max_shared_bytes: config.max_shared_bytes,
            cache_slots: cached_buckets::<T>(&config, buckets),
            max_thread_caches: config.max_thread_caches,
        };
        Ok(Self {
            config,
            buckets,
            inner: Arc::new(Inner::new(buckets, limits)),
        })
    }
}

impl<T: Send> fmt::Debug for BufferPool<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("BufferPool");
        if let Some(state) = self.state.get() {
            debug
                .field("config", &state.config)
                .field("buckets", &state.buckets);
        }
        debug.finish_non_exhaustive()
    }
}

/// The process-wide pool: a constant until its first use off the fast path sets its state.
static SHARED: BufferPool<u8> = BufferPool {
    state: OnceLock::new(),
    id: SHARED_ID,
};

/// The bucket capacity a request of `len` elements is rounded up to (`len ≥ 1`).
///
/// # Examples
///
/// ```
/// use hotpath_pool::bucket_capacity;
///
/// assert_eq!(bucket_capacity(1), Some(16));
/// assert_eq!(bucket_capacity(1025), Some(2048));
/// assert_eq!(bucket_capacity(usize::MAX), None);
/// ```
pub fn bucket_capacity(len: usize) -> Option<usize> {
    len.max(MIN_BUCKET_LEN).checked_next_power_of_two()
}

/// Ids for the thread caches of pools other than [`shared`] (whose id is 0); never reused.
// std's atomic in every build, concurrency models included: ids are only compared.
static NEXT_ID: AtomicU64 = AtomicU64::new(SHARED_ID + 1);

impl<T: Copy + Default + Send + 'static> BufferPool<T> {
    /// Creates a pool.
    ///
    /// # Panics
    /// If the configuration is invalid (see [`BufferPool::try_new`], which returns the error).
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(PoolConfig::new().with_max_len(4096));
    /// assert_eq!(p.largest_bucket(), 4096);
    /// ```
    pub fn new(config: PoolConfig) -> Self {
        match Self::try_new(config) {
            Ok(pool) => pool,
            Err(err) => panic!("{err}"),
        }
    }

    /// Creates a pool, or says why the configuration cannot work. Every `max_per_bucket`,
    /// `max_shared_bytes` and `thread_cache_max_len` is accepted (each is a bound, and the
    /// stacks' storage grows only as buffers come back).
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// assert!(BufferPool::<u8>::try_new(PoolConfig::new()).is_ok());
    /// assert!(BufferPool::<u64>::try_new(PoolConfig::new().with_max_len(usize::MAX)).is_err());
    /// ```
    pub fn try_new(config: PoolConfig) -> Result<Self, ConfigError> {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        Self::with_id(config, id)
    }

    fn with_id(config: PoolConfig, id: PoolId) -> Result<Self, ConfigError> {
        Ok(Self {
            state: OnceLock::from(State::new(config)?),
            id,
        })
    }

    /// This pool's state: set when it was created, or, for [`shared`], now.
    #[inline]
    fn state(&self) -> &State<T> {
        match self.state.get() {
            Some(state) => state,
            None => self.init_shared(),
        }
    }

    /// Sets [`shared`]'s state at its first use (the only pool created without one).
    #[cfg(not(shuttle))]
    #[cold]
    #[inline(never)]
    fn init_shared(&self) -> &State<T> {
        self.state.get_or_init(shared_state)
    }

    /// [`shared`]'s state under `--cfg shuttle`: one per model execution, made at its first use
    /// in it and dropped when it ends, since shuttle's locks and atomics live no longer than an
    /// execution (the `OnceLock` of the `static` is never set).
    #[cfg(shuttle)]
    fn init_shared(&self) -> &State<T> {
        shuttle::lazy_static! {
            static ref STATE: State<u8> = shared_state();
        }
        let state: &'static State<u8> = &STATE;
        match (state as &dyn std::any::Any).downcast_ref::<State<T>>() {
            Some(state) => state,
            None => unreachable!("only `shared()`, a pool of `u8`, has no state of its own"),
        }
    }

    /// The shared stacks, the list of thread caches and the pool's counters.
    pub(crate) fn inner(&self) -> &Arc<Inner<T>> {
        &self.state().inner
    }

    /// How many buckets: bucket `b` holds buffers of `MIN_BUCKET_LEN << b` elements.
    fn buckets(&self) -> usize {
        self.state().buckets
    }

    /// Whether this is [`shared`], the process-wide pool: decided at compile time where the
    /// pool is known (`shared().rent(n)`, and a guard of it dropped where it was rented), else
    /// by one compare. Its fast path is the resident pointer's (`cache::resident`), inlined
    /// into the caller; where that pointer cannot be read without a check (`build.rs`: no
    /// native thread-locals) it is a pool like any other.
    #[inline(always)]
    fn is_shared(&self) -> bool {
        cfg!(resident_tls)
            && cache::is_shared_type::<T>()
            && ptr::eq(
                ptr::from_ref(self).cast::<()>(),
                ptr::from_ref(&SHARED).cast(),
            )
    }

    /// The configuration this pool was created with.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(PoolConfig::new().with_max_per_bucket(8));
    /// assert_eq!(p.config().max_per_bucket, 8);
    /// ```
    pub fn config(&self) -> &PoolConfig {
        &self.state().config
    }

    /// The largest capacity kept by this pool (its largest bucket), in elements: every request
    /// from 1 up to this is pooled.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(PoolConfig::new().with_max_len(1000));
    /// assert_eq!(p.largest_bucket(), 1024);
    /// assert_eq!(p.rent(1024).capacity(), 1024); // pooled
    /// assert_eq!(p.rent(1025).capacity(), 1025); // above: exact size, not kept
    /// ```
    pub fn largest_bucket(&self) -> usize {
        MIN_BUCKET_LEN << (self.buckets() - 1)
    }

    /// The largest capacity a thread keeps in its own cache, in elements (0 without thread
    /// caches, `max_thread_caches: 0` included): `thread_cache_max_len` rounded up to a power
    /// of two, at most the largest bucket, and at most the largest bucket whose buffer fits in
    /// `thread_cache_max_bytes`.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(PoolConfig::new().with_thread_cache_max_len(1000));
    /// assert_eq!(p.largest_cached_bucket(), 1024);
    /// ```
    pub fn largest_cached_bucket(&self) -> usize {
        match self.inner().limits.cache_slots {
            0 => 0,
            slots => MIN_BUCKET_LEN << (slots - 1),
        }
    }

    /// The most bytes of buffer this pool can hold at any moment while `live_threads` threads
    /// that have used it are alive (saturating at `u64::MAX`):
    ///
    /// ```text
    /// min(max_per_bucket × (2 × largest_bucket − 16) × size_of::<T>(), max_shared_bytes)
    ///   + min(live_threads, max_thread_caches) × (2 × largest_cached_bucket − 16) × size_of::<T>()
    /// ```
    ///
    /// The first term is the shared stacks: each holds at most `max_per_bucket` buffers of
    /// its bucket (`2 × largest_bucket − 16` elements is one buffer of every bucket,
    /// 16 + 32 + … + largest), and all of them together at most `max_shared_bytes`. The second
    /// is the thread caches: each live thread that has one keeps at most one buffer of every
    /// bucket up to [`largest_cached_bucket`](Self::largest_cached_bucket) (0 without thread
    /// caches), and at most [`max_thread_caches`](PoolConfig::max_thread_caches) live threads
    /// have one, so with that limit the bound no longer grows with the number of threads. A
    /// thread that exits gives its cache back to the stacks, within their bounds, or frees it,
    /// so threads that have exited count for nothing, except a thread whose first use of the
    /// pool came from a destructor that runs after its thread-local destructors: its cache is
    /// never retired and counts as a live thread's for good. Bookkeeping (each stack's storage, each
    /// thread's slots) is not included.
    ///
    /// It bounds what the pool holds, not every [`stats`](Self::stats) snapshot: a snapshot
    /// taken while other threads move buffers can count one twice (see [`PoolStats`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(
    ///     PoolConfig::new()
    ///         .with_max_len(4096)
    ///         .with_max_shared_bytes(3 * 1024)
    ///         .with_thread_cache_max_len(0),
    /// );
    /// assert_eq!(p.max_retained_bytes(5), 3 * 1024);
    ///
    /// // With caches of one buffer of each bucket up to 64 bytes (16 + 32 + 64 = 112 bytes) for
    /// // at most 2 threads, the caches' term stops growing at 2 threads.
    /// let capped = BufferPool::<u8>::new(
    ///     PoolConfig::new()
    ///         .with_max_shared_bytes(0)
    ///         .with_thread_cache_max_len(64)
    ///         .with_max_thread_caches(2),
    /// );
    /// assert_eq!(capped.max_retained_bytes(1), 112);
    /// assert_eq!(capped.max_retained_bytes(5), 2 * 112);
    /// ```
    pub fn max_retained_bytes(&self, live_threads: u64) -> u64 {
        let element = mem::size_of::<T>() as u64;
        let one_of_each_up_to = |largest: usize| match largest {
            0 => 0,
            largest => (2 * largest as u64 - MIN_BUCKET_LEN as u64).saturating_mul(element),
        };
        let config = self.config();
        let stacks = (config.max_per_bucket as u64)
            .saturating_mul(one_of_each_up_to(self.largest_bucket()))
            .min(config.max_shared_bytes as u64);
        let caching = live_threads.min(config.max_thread_caches as u64);
        let caches = caching.saturating_mul(one_of_each_up_to(self.largest_cached_bucket()));
        stacks.saturating_add(caches)
    }

    /// Rents a buffer of `len` elements: `len` is what the guard shows, its capacity is `len`
    /// rounded up to a power of two (at least 16). The guard gives it back when dropped.
    ///
    /// Which requests are pooled: every `len` from 1 up to
    /// [`largest_bucket`](Self::largest_bucket) (`max_len` rounded up to a power of two).
    /// `rent(0)` returns an empty guard and allocates nothing, not even this thread's cache on
    /// its first use. A request above the largest bucket succeeds with an exact-size buffer
    /// that is freed when given back ([`PoolStats::oversize`]).
    ///
    /// The contents are the previous renter's unless the pool clears on return
    /// ([`ClearPolicy::OnReturn`]), the previous renter gave it back with
    /// [`Rented::give_back_cleared`], or you use [`BufferPool::rent_cleared`]; a freshly
    /// allocated buffer is always `T::default()`.
    ///
    /// A thread's first rent or give-back of a size it caches (up to
    /// [`largest_cached_bucket`](Self::largest_cached_bucket)) creates its cache for this
    /// pool: one allocation, plus one whenever the pool's list of thread caches or, for a pool
    /// other than [`shared`], the thread's list of pools has to grow. A thread that only gives
    /// back (a consumer of [`OwnedRented`] buffers, say) gets one too, as in .NET, whose
    /// `Return` sets up the thread's cache.
    ///
    /// A fresh buffer is filled by `T::default()` and `T::clone()`, which run after the pool
    /// has let go of this thread's storage: they may rent from other pools.
    ///
    /// If `T::default()` or `T::clone()` panics while a fresh buffer is filled, the panic
    /// reaches the caller and nothing is counted: the rent never happened.
    ///
    /// # Panics
    /// Like `vec!`, if the fresh buffer cannot be allocated (a request above the largest bucket
    /// of more than `isize::MAX` bytes panics, one the allocator refuses aborts the process).
    /// A length that comes from input should go through [`try_rent`](Self::try_rent).
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(PoolConfig::new());
    /// let mut buf = p.rent(1025);
    /// assert_eq!((buf.len(), buf.capacity()), (1025, 2048));
    /// buf[..4].copy_from_slice(b"1042");
    /// drop(buf); // given back
    /// assert_eq!(p.stats().returns, 1);
    /// ```
    #[must_use = "dropping a `Rented` gives the buffer back at once"]
    #[inline]
    pub fn rent(&self, len: usize) -> Rented<'_, T> {
        Rented::new(self.take(len), self)
    }

    /// Like [`rent`](Self::rent), but a fresh buffer that cannot be allocated — any `len`,
    /// `isize::MAX` and `1 << 40` included — is an error instead of a panic or an abort. It
    /// counts exactly as `rent` does when it succeeds, and nothing when it fails.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(PoolConfig::new());
    /// let buf = p.try_rent(100)?;
    /// assert_eq!(buf.len(), 100);
    /// assert!(p.try_rent(usize::MAX).is_err());
    /// # Ok::<(), hotpath_pool::RentError>(())
    /// ```
    pub fn try_rent(&self, len: usize) -> Result<Rented<'_, T>, RentError> {
        Ok(Rented::new(self.try_take(len)?, self))
    }

    /// Like [`rent_owned`](Self::rent_owned), with [`try_rent`](Self::try_rent)'s fallible
    /// allocation (the `Arc` is dropped when it fails).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = Arc::new(BufferPool::<u8>::new(PoolConfig::new()));
    /// let buf = Arc::clone(&p).try_rent_owned(64)?;
    /// std::thread::spawn(move || assert_eq!(buf.len(), 64)).join().unwrap();
    /// assert!(Arc::clone(&p).try_rent_owned(usize::MAX).is_err());
    /// # Ok::<(), hotpath_pool::RentError>(())
    /// ```
    pub fn try_rent_owned(self: Arc<Self>, len: usize) -> Result<OwnedRented<T>, RentError> {
        let lent = self.try_take(len)?;
        Ok(OwnedRented::new(lent, self))
    }

    /// Like [`rent`](Self::rent), but the `len` elements shown are reset to `T::default()`
    /// first, whatever the policy: for callers that read before they write.
    ///
    /// Not for secrets: it clears when the buffer is *rented*, so whatever this renter writes
    /// stays in the buffer after it is given back, for the next plain `rent` to read. A renter
    /// holding a secret gives back with [`Rented::give_back_cleared`].
    #[must_use = "dropping a `Rented` gives the buffer back at once"]
    ///
    /// If `T::default()` panics while the buffer is cleared, the guard is dropped during the
    /// unwinding like any other: the buffer goes back (or, under [`ClearPolicy::OnReturn`], is
    /// freed and counted as discarded, since no element code runs while the thread panics).
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(PoolConfig::new());
    /// p.rent(4).copy_from_slice(b"1042");
    /// assert_eq!(&p.rent(4)[..], b"1042"); // a plain rent sees the last renter's bytes
    /// assert_eq!(&p.rent_cleared(4)[..], &[0; 4]);
    /// ```
    pub fn rent_cleared(&self, len: usize) -> Rented<'_, T> {
        let mut rented = self.rent(len);
        fill_default(&mut rented);
        rented
    }

    /// Rents a buffer like [`rent`](Self::rent), with a guard that owns a reference to the
    /// pool instead of borrowing it: an [`OwnedRented`] is `'static`, and `Send` when `T` is,
    /// so it can move into `std::thread::spawn` or a task (the convention of tokio's
    /// `acquire_owned`). It counts and gives back exactly as a [`Rented`] does.
    ///
    /// A pool that is itself `'static` — [`shared`], or one in a `static` — needs none of
    /// this: its [`Rented`] guards are already `Rented<'static, T>`, `Send` when `T` is.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = Arc::new(BufferPool::<u8>::new(PoolConfig::new()));
    /// let mut buf = Arc::clone(&p).rent_owned(64);
    /// std::thread::spawn(move || buf[0] = 1).join().unwrap();
    /// assert_eq!(p.stats().returns, 1);
    /// ```
    #[must_use = "dropping an `OwnedRented` gives the buffer back at once"]
    pub fn rent_owned(self: Arc<Self>, len: usize) -> OwnedRented<T> {
        let lent = self.take(len);
        OwnedRented::new(lent, self)
    }

    /// Rents a buffer to write into: a [`RentedBuf`] of length 0 with room for at least
    /// `capacity` elements, which grows as it is written to, like a `Vec`, within its bucket
    /// and then by moving to a larger one (giving the smaller buffer back). Its capacity is
    /// `capacity` rounded up to its bucket, as [`rent`](Self::rent)'s is; `rent_buf(0)` has
    /// none and allocates nothing until the first write. It shows only what was written, so the
    /// previous renter's data is never readable through it.
    ///
    /// It counts as one rent, and each move to a larger bucket as one more rent and one
    /// return, so [`PoolStats::outstanding`] counts it once.
    ///
    /// # Panics
    /// As [`rent`](Self::rent) does; a `capacity` that comes from input should go through
    /// [`try_rent_buf`](Self::try_rent_buf).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Write;
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(PoolConfig::new());
    /// let mut line = p.rent_buf(64);
    /// assert_eq!((line.len(), line.capacity()), (0, 64));
    /// let (id, item, qty) = (1042, "Pad Thai", 2);
    /// write!(line, "{id}|{item}|{qty}")?;
    /// assert_eq!(&line[..], b"1042|Pad Thai|2");
    /// drop(line);
    /// assert_eq!(p.stats().outstanding(), 0);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    #[must_use = "dropping a `RentedBuf` gives the buffer back at once"]
    #[inline]
    pub fn rent_buf(&self, capacity: usize) -> RentedBuf<'_, T> {
        RentedBuf::new(self.take(capacity).into_buf(), self)
    }

    /// Like [`rent_buf`](Self::rent_buf), with [`try_rent`](Self::try_rent)'s fallible
    /// allocation: any `capacity` that cannot be allocated is an error, not a panic or an
    /// abort, and counts nothing.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(PoolConfig::new());
    /// assert_eq!(p.try_rent_buf(100)?.capacity(), 128);
    /// assert!(p.try_rent_buf(usize::MAX).is_err());
    /// # Ok::<(), hotpath_pool::RentError>(())
    /// ```
    pub fn try_rent_buf(&self, capacity: usize) -> Result<RentedBuf<'_, T>, RentError> {
        Ok(RentedBuf::new(self.try_take(capacity)?.into_buf(), self))
    }

    /// Like [`rent_buf`](Self::rent_buf), with a guard that owns an `Arc` of the pool, as
    /// [`rent_owned`](Self::rent_owned)'s does: an [`OwnedRentedBuf`] is `'static`, and `Send`
    /// when `T` is, so it can move to another thread, or be handed to an I/O writer as the
    /// owner of a `bytes::Bytes` (`Bytes::from_owner`) without a copy.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = Arc::new(BufferPool::<u8>::new(PoolConfig::new()));
    /// let mut reply = Arc::clone(&p).rent_buf_owned(256);
    /// reply.extend_from_slice(b"HTTP/1.1 200 OK\r\n");
    /// let sent = std::thread::spawn(move || reply.len()).join().unwrap();
    /// assert_eq!((sent, p.stats().outstanding()), (17, 0));
    /// ```
    #[must_use = "dropping an `OwnedRentedBuf` gives the buffer back at once"]
    pub fn rent_buf_owned(self: Arc<Self>, capacity: usize) -> OwnedRentedBuf<T> {
        let buf = self.take(capacity).into_buf();
        OwnedRentedBuf::new(buf, self)
    }

    /// Like [`rent_buf_owned`](Self::rent_buf_owned), with
    /// [`try_rent`](Self::try_rent)'s fallible allocation (the `Arc` is dropped when it fails).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = Arc::new(BufferPool::<u8>::new(PoolConfig::new()));
    /// assert_eq!(Arc::clone(&p).try_rent_buf_owned(100)?.capacity(), 128);
    /// assert!(Arc::clone(&p).try_rent_buf_owned(usize::MAX).is_err());
    /// # Ok::<(), hotpath_pool::RentError>(())
    /// ```
    pub fn try_rent_buf_owned(
        self: Arc<Self>,
        capacity: usize,
    ) -> Result<OwnedRentedBuf<T>, RentError> {
        let buf = self.try_take(capacity)?.into_buf();
        Ok(OwnedRentedBuf::new(buf, self))
    }

    /// [`Self::take`] with [`try_rent`](Self::try_rent)'s fallible allocation.
    #[inline]
    pub(crate) fn try_take(&self, len: usize) -> Result<Lent<T>, RentError> {
        if self.is_shared() {
            if let Some(lent) = self.take_resident(len) {
                return Ok(lent);
            }
        } else if let Some(buf) = cache::take_cached(self.id, len) {
            return Ok(Lent::for_request(buf, len));
        }
        Ok(Lent::for_request(self.try_take_slow(len)?, len))
    }

    /// Gets a buffer for a request of `len` elements and counts the rent.
    ///
    /// The fast path — this thread's cache holding a buffer of the bucket — is inlined into
    /// the caller for the process-wide pool (a thread-local pointer of its own leads to each
    /// thread's cache), and one call away for the other pool this thread used last (found through a
    /// thread-local pointer); everything else goes through [`Self::take_slow`].
    #[inline(always)]
    pub(crate) fn take(&self, len: usize) -> Lent<T> {
        if self.is_shared() {
            return match self.take_resident(len) {
                Some(lent) => lent,
                // A `Box`, returned in two registers, so that the hit path keeps its own in
                // registers too.
                None => Lent::for_request(self.take_slow(len), len),
            };
        }
        Lent::for_request(self.take_other(len), len)
    }

    /// [`Self::take`] for pools other than the process-wide one: out of line, so that the
    /// process-wide pool's inlined path stays short.
    #[inline(never)]
    fn take_other(&self, len: usize) -> Box<[T]> {
        match cache::take_cached(self.id, len) {
            Some(buf) => buf,
            None => self.take_slow(len),
        }
    }

    /// The fast path of a rent from the process-wide pool: the cache its resident pointer leads
    /// to.
    #[cfg(resident_tls)]
    #[inline(always)]
    fn take_resident(&self, len: usize) -> Option<Lent<T>> {
        cache::take_resident(len)
    }

    /// Without resident caches (`build.rs`), where no pool is the process-wide one, never
    /// called.
    #[cfg(not(resident_tls))]
    fn take_resident(&self, _len: usize) -> Option<Lent<T>> {
        None
    }

    /// Runs `f` with this thread's cache for an operation on a buffer of bucket `bucket`
    /// (`usize::MAX` for none), or with `None`: the cache is created on the thread's first use
    /// of a bucket it caches, only looked up otherwise, and never touched without thread
    /// caches. Empties it first if a `trim` on another thread asked for it.
    fn with_cache<R>(&self, bucket: usize, f: impl FnOnce(Option<Owned<'_, T>>) -> R) -> R {
        let inner = self.inner();
        let slots = inner.limits.cache_slots;
        if slots == 0 {
            return f(None);
        }
        let create = if bucket < slots {
            Create::Yes
        } else {
            Create::No
        };
        with_local(self.id, inner, create, |owned| {
            if let Some(owned) = owned {
                owned.honour_trim();
            }
            f(owned)
        })
    }

    /// Every rent the fast path does not serve.
    #[cold]
    #[inline(never)]
    fn take_slow(&self, len: usize) -> Box<[T]> {
        let Ok(buf) = self.take_slow_with(len, |n| Ok::<_, Infallible>(fresh(n)));
        buf
    }

    /// [`Self::take_slow`] with a fallible allocation, for `try_rent`.
    #[cold]
    #[inline(never)]
    fn try_take_slow(&self, len: usize) -> Result<Box<[T]>, RentError> {
        self.take_slow_with(len, |n| {
            try_fresh(n).map_err(|source| RentError::new(len, source))
        })
    }

    /// The slow path of a rent, allocating a fresh buffer with `fresh` (which may fail: then
    /// nothing is counted).
    #[inline(always)]
    fn take_slow_with<E>(
        &self,
        len: usize,
        fresh: impl FnOnce(usize) -> Result<Box<[T]>, E>,
    ) -> Result<Box<[T]>, E> {
        if len == 0 {
            // No cache is touched (or created): `rent(0)` allocates nothing, ever.
            Tally::Shared(&self.inner().counters).bump(|c| &c.rents);
            return Ok(Box::default());
        }
        let bucket = self.bucket_of_capacity(bucket_capacity(len).unwrap_or(usize::MAX));
        let pooled = bucket != usize::MAX;
        if pooled {
            let kept = self.with_cache(bucket, |owned| {
                let kept = owned
                    .and_then(|owned| owned.take(bucket))
                    .or_else(|| self.inner().pop(bucket));
                if kept.is_some() {
                    self.tally(owned).bump(|c| &c.rents);
                }
                kept
            });
            if let Some(buf) = kept {
                return Ok(buf);
            }
        }
        // A fresh buffer, made while the pool holds nothing of this thread's: `T::default()`
        // and `T::clone()` are the caller's code and may rent from other pools. The rent is
        // counted once the buffer exists, so one that panics (or fails to allocate) leaves the
        // counts as they were.
        let buf = fresh(if pooled {
            MIN_BUCKET_LEN << bucket
        } else {
            len
        })?;
        self.with_cache(bucket, |owned| {
            let tally = self.tally(owned);
            tally.bump(|c| &c.rents);
            tally.bump(|c| &c.allocations);
            if !pooled {
                tally.bump(|c| &c.oversize);
            }
        });
        Ok(buf)
    }

    /// This thread's counters, or the pool's when the thread has no cache.
    fn tally<'a>(&'a self, owned: Option<Owned<'a, T>>) -> Tally<'a> {
        match owned {
            Some(owned) => Tally::Owner(owned.counters()),
            None => Tally::Shared(&self.inner().counters),
        }
    }

    /// Takes a buffer back from a guard; `shown` is how many elements the renter could write.
    ///
    /// With a thread cache, the buffer goes into this thread's slot for its bucket and the
    /// slot's previous buffer, if any, goes down to the shared stack: the cache keeps the most
    /// recent buffer, the likeliest to be in the CPU's cache.
    #[inline(always)]
    pub(crate) fn give_back(&self, lent: Lent<T>, shown: usize) {
        if !self.is_shared() {
            return self.give_back_other(lent, shown);
        }
        self.give_back_resident(lent, shown);
    }

    /// [`Self::give_back`] for the process-wide pool: to the cache its resident pointer leads
    /// to. It never clears
    /// (`shared_config`): no policy to look at.
    #[cfg(resident_tls)]
    #[inline(always)]
    fn give_back_resident(&self, lent: Lent<T>, shown: usize) {
        if let Err(refused) = cache::put_resident(lent) {
            self.give_back_slow(refused.into_buf(), shown);
        }
    }

    /// Without resident caches (`build.rs`), where no pool is the process-wide one, never
    /// called.
    #[cfg(not(resident_tls))]
    fn give_back_resident(&self, lent: Lent<T>, shown: usize) {
        self.give_back_other(lent, shown);
    }

    /// [`Self::give_back`] of a buffer without its entry (a [`RentedBuf`]'s, which may have
    /// moved between buckets).
    pub(crate) fn give_back_buf(&self, buf: Box<[T]>, shown: usize) {
        self.give_back(Lent::whole(buf), shown);
    }

    /// [`Self::give_back`] for pools other than the process-wide one, out of line.
    #[inline(never)]
    fn give_back_other(&self, lent: Lent<T>, shown: usize) {
        if self.config().clear == ClearPolicy::OnReturn {
            return self.give_back_slow(lent.into_buf(), shown);
        }
        if let Err(refused) = cache::put_cached(self.id, lent) {
            self.give_back_slow(refused.into_buf(), shown);
        }
    }

    /// Every give-back the fast path does not take: counts the return, then keeps the buffer in
    /// this thread's slot, on the bucket's stack, or frees it.
    #[cold]
    #[inline(never)]
    fn give_back_slow(&self, buf: Box<[T]>, shown: usize) {
        let buf = if self.config().clear == ClearPolicy::OnReturn {
            match self.clear_or_discard(buf, shown) {
                Some(buf) => buf,
                None => return,
            }
        } else {
            buf
        };
        if buf.is_empty() {
            // `rent(0)`'s empty guard: counted, no cache touched.
            Tally::Shared(&self.inner().counters).bump(|c| &c.returns);
            return;
        }
        self.with_cache(self.bucket_of(&buf), |owned| {
            let tally = self.tally(owned);
            tally.bump(|c| &c.returns);
            let left = match owned {
                Some(owned) => owned
                    .put_over(Lent::whole(buf))
                    .unwrap_or_else(|refused| Some(refused.into_buf())),
                None => Some(buf),
            };
            if let Some(left) = left {
                self.keep_on_stack(left, Some(tally));
            }
        });
    }

    /// [`Rented::give_back_cleared`]: clears the `shown` elements, then gives the buffer back
    /// as a guard's drop does (with nothing left for a clearing pool to clear again).
    pub(crate) fn give_back_cleared(&self, buf: Box<[T]>, shown: usize) {
        if let Some(buf) = self.clear_or_discard(buf, shown) {
            self.give_back_buf(buf, 0);
        }
    }

    /// Resets the first `shown` elements of `buf` to `T::default()`, or, when that cannot be
    /// done safely, frees `buf` and counts it as given back and discarded, so that
    /// [`PoolStats::outstanding`] comes back down all the same:
    ///
    /// - while the thread is already panicking (a guard dropped during unwinding), `T::default()`
    ///   is not called at all: a second panic there would abort the process;
    /// - if `T::default()` panics, the buffer is freed, counted, and the panic goes on to the
    ///   caller (out of the guard's `drop`). A buffer that was not cleared is never kept.
    ///
    /// Runs before any of the pool's storage is borrowed, like all element code.
    fn clear_or_discard(&self, mut buf: Box<[T]>, shown: usize) -> Option<Box<[T]>> {
        /// Counts the buffer as returned and discarded if dropped: armed while element code runs.
        struct CountOnUnwind<'a>(&'a Counters);
        impl Drop for CountOnUnwind<'_> {
            fn drop(&mut self) {
                count_discarded_return(self.0);
            }
        }

        if shown == 0 {
            return Some(buf);
        }
        if std::thread::panicking() {
            count_discarded_return(&self.inner().counters);
            return None; // `buf` is freed here, without running element code
        }
        let armed = CountOnUnwind(&self.inner().counters);
        fill_default(&mut buf[..shown]);
        mem::forget(armed);
        Some(buf)
    }

    /// The bucket a buffer of this capacity belongs to, or `usize::MAX` for none (an
    /// exact-size buffer above the largest bucket).
    fn bucket_of(&self, buf: &[T]) -> usize {
        self.bucket_of_capacity(buf.len())
    }

    /// [`Self::bucket_of`] a buffer of `len` elements.
    fn bucket_of_capacity(&self, len: usize) -> usize {
        Entry::of_capacity(len)
            .bucket()
            .filter(|&bucket| bucket < self.buckets())
            .unwrap_or(usize::MAX)
    }

    /// A buffer no slot kept: onto its bucket's stack if it is a bucket's buffer and the stacks
    /// have room, else freed and counted as discarded (on `tally`, or on this thread's counters
    /// when the caller has not looked them up).
    #[cold]
    #[inline(never)]
    fn keep_on_stack(&self, buf: Box<[T]>, tally: Option<Tally<'_>>) {
        let bucket = self.bucket_of(&buf);
        let Err(refused) = self.inner().push(bucket, buf) else {
            return;
        };
        match tally {
            Some(tally) => tally.bump(|c| &c.discarded),
            None => self.with_cache(bucket, |owned| self.tally(owned).bump(|c| &c.discarded)),
        }
        // Freed only now, with no lock held.
        drop(refused);
    }

    /// The pool's counters, summed over every thread, and what it holds right now.
    ///
    /// Each counter is summed over every thread before the next is read, in an order that
    /// makes the counts consistent (see [`PoolStats`]). Threads cannot join or leave the pool
    /// while the counters and the caches are read (a few loads per live thread, under the lock
    /// of the pool's list of threads); the shared stacks are read after that lock is released,
    /// from each shard's count of buffers and without taking any stack's lock, so a thread
    /// that starts or exits never waits behind the stacks and a rent never waits behind
    /// `stats`.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(PoolConfig::new());
    /// drop(p.rent(100));
    /// drop(p.rent(100));
    /// let s = p.stats();
    /// assert_eq!((s.rents, s.allocations, s.returns, s.retained_buffers), (2, 1, 2, 1));
    /// ```
    pub fn stats(&self) -> PoolStats {
        let element = mem::size_of::<T>() as u64;
        let inner = self.inner();
        let mut buckets: Vec<BucketStats> = (0..self.buckets())
            .map(|bucket| BucketStats {
                capacity: MIN_BUCKET_LEN << bucket,
                ..BucketStats::default()
            })
            .collect();
        // Under the list's lock: the counters, so that a thread that exits meanwhile is seen
        // either in the list or folded into the pool's counts, never both or neither; and what
        // each cache holds, read without any other lock. Nothing else: no stack's lock is taken
        // while the list is held, so a thread that starts or exits waits for no stack.
        let mut stats = {
            let locals = lock(&inner.locals);
            let sum = |counter: Counter| {
                locals.iter().fold(
                    counter(&inner.counters).load(Ordering::Acquire),
                    |sum, local| {
                        sum.wrapping_add(counter(&local.cache().counters).load(Ordering::Acquire))
                    },
                )
            };
            let stats = PoolStats {
                thread_caches: locals.len() as u64,
                ..Counters::snapshot(sum)
            };
            for capacity in locals.iter().flat_map(|local| local.cache().held()) {
                if let Some(bucket) = buckets.get_mut(self.bucket_of_capacity(capacity)) {
                    bucket.cached_buffers += 1;
                }
            }
            stats
        };
        // The list's lock is released: now each stack, from its shards' counts (no lock).
        for (index, bucket) in buckets.iter_mut().enumerate() {
            bucket.stacked_buffers = inner.stacked(index);
        }
        for bucket in &mut buckets {
            let buffers = bucket.cached_buffers + bucket.stacked_buffers;
            bucket.retained_bytes = buffers * bucket.capacity as u64 * element;
            stats.retained_buffers += buffers;
            stats.retained_bytes += bucket.retained_bytes;
        }
        stats.buckets = buckets;
        stats
    }

    /// Frees what the pool holds and returns the bytes of buffer released now: every shared
    /// stack (including the stacks' own storage) and the calling thread's cache.
    ///
    /// Every other live thread's cache is only asked to empty: that thread frees it at its next
    /// visit to the pool's slow path (a rent that misses its cache, a give-back of a second
    /// buffer of a size, a size it does not cache) or when it exits, because only a cache's
    /// own thread touches it while the pool lives (that is what keeps rents and give-backs
    /// free of locks and atomic read-modify-writes). A thread that keeps hitting its cache, or
    /// never uses the pool again, keeps what it caches — at most one buffer per bucket up to
    /// [`largest_cached_bucket`](Self::largest_cached_bucket), the per-thread term of
    /// [`max_retained_bytes`](Self::max_retained_bytes) — until then. Rented buffers are
    /// unaffected and are kept again when given back. Buffers are freed after the locks that
    /// guard them are released.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = BufferPool::<u8>::new(PoolConfig::new());
    /// drop(p.rent(1025));
    /// assert_eq!(p.trim(), 2048);
    /// assert_eq!(p.stats().retained_bytes, 0);
    /// ```
    pub fn trim(&self) -> u64 {
        let element = mem::size_of::<T>() as u64;
        let mut freed = 0;
        let inner = self.inner();
        with_local(self.id, inner, Create::No, |own| {
            freed += own.map_or(0, Owned::empty) * element;
            for local in lock(&inner.locals).iter() {
                if !own.is_some_and(|own| own.is(local)) {
                    local.cache().request_trim();
                }
            }
        });
        freed + inner.empty_stacks()
    }
}

/// A zero/default-initialised buffer of exactly `len` elements. Never uninitialised memory.
fn fresh<T: Copy + Default>(len: usize) -> Box<[T]> {
    vec![T::default(); len].into_boxed_slice()
}

/// [`fresh`], or the allocator's refusal (or a size overflow) as an error instead of an abort.
fn try_fresh<T: Copy + Default>(len: usize) -> Result<Box<[T]>, TryReserveError> {
    let mut buf = Vec::new();
    buf.try_reserve_exact(len)?;
    buf.resize(len, T::default());
    Ok(buf.into_boxed_slice())
}

/// Sets every element to one `T::default()`, copied: the only element code it runs is that one
/// call.
fn fill_default<T: Copy + Default>(buf: &mut [T]) {
    let value = T::default();
    for element in buf {
        *element = value;
    }
}

/// A buffer given back and freed instead of kept, counted on the pool's shared counters (a
/// path off the fast one, where the thread's own counters are not looked up).
fn count_discarded_return(counters: &Counters) {
    Tally::Shared(counters).bump(|c| &c.returns);
    Tally::Shared(counters).bump(|c| &c.discarded);
}

/// The process-wide byte pool, set up at its first use, with [`shared_config`].
///
/// Its limits are this crate's, not .NET's. Requests up to 16 MiB are pooled (.NET's shared
/// pool goes to 1 GiB; the runtime trims it on every gen-2 collection, by age, which nothing
/// does here). Each bucket's shared stack keeps 32 buffers per logical core (.NET keeps 32 per
/// core in per-core partitions), and all of them together at most 64 MiB. Each live thread
/// caches one buffer per bucket up to 1 MiB; larger buffers go to the stacks.
///
/// What it can hold at most, with `L` live threads that have used it, is
/// [`max_retained_bytes`](BufferPool::max_retained_bytes)`(L)`:
///
/// ```text
/// min(32 × cores × (32 MiB − 16 B), 64 MiB) + L × (2 MiB − 16 B)  =  64 MiB + L × (2 MiB − 16 B)
/// ```
///
/// The stacks' 64 MiB, plus one buffer of every bucket from 16 B to 1 MiB per live thread.
///
/// Each thread finds its cache of it through a thread-local pointer of its own, so a thread that
/// also uses other pools never pushes this one off the fast path, and `shared().rent(n)` is as cheap
/// as renting from a reference kept beforehand: `shared()` is the address of a `static`, set up
/// at its first use off the fast path.
///
/// # Examples
///
/// ```
/// use hotpath_pool::{BufferPool, PoolConfig};
///
/// let line: hotpath_pool::Rented<'static, u8> = hotpath_pool::shared().rent(128);
/// std::thread::spawn(move || assert_eq!(line.len(), 128)).join().unwrap();
/// ```
#[inline(always)]
pub fn shared() -> &'static BufferPool<u8> {
    // A `static` with a constant value: its state is set at its first use off the fast path,
    // so this is an address, with no check. Under `--cfg shuttle` its state is made anew for
    // every model execution (`init_shared`).
    &SHARED
}

/// [`shared`]'s state, made at its first use (of `u8`: only `shared()` calls this).
fn shared_state<T>() -> State<T> {
    match State::new(shared_config()) {
        Ok(state) => state,
        Err(err) => unreachable!("the shared configuration is valid: {err}"),
    }
}

/// The configuration of [`shared`]: the same at every call, since the number of logical cores
/// is read once per process (so `shared_config() == *shared().config()`).
///
/// # Examples
///
/// ```
/// use hotpath_pool::{BufferPool, PoolConfig};
///
/// assert_eq!(hotpath_pool::shared_config(), *hotpath_pool::shared().config());
/// assert_eq!(hotpath_pool::shared_config().max_len, hotpath_pool::SHARED_MAX_LEN);
/// ```
pub fn shared_config() -> PoolConfig {
    static CORES: OnceLock<usize> = OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from));
    PoolConfig {
        max_len: SHARED_MAX_LEN,
        max_per_bucket: 32 * cores,
        max_shared_bytes: DEFAULT_MAX_SHARED_BYTES,
        clear: ClearPolicy::Never,
        thread_cache_max_len: DEFAULT_THREAD_CACHE_MAX_LEN,
        thread_cache_max_bytes: DEFAULT_THREAD_CACHE_MAX_BYTES,
        max_thread_caches: usize::MAX,
    }
}

/// The largest request the [`shared`] pool keeps: 16 MiB.
pub const SHARED_MAX_LEN: usize = 1 << 24;
