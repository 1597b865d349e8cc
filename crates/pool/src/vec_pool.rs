//! A pool of `Vec<T>` that come back empty: the previous renter's data is in the vector's
//! spare capacity, where safe code cannot read it.

use std::convert::Infallible;
use std::fmt;
use std::mem;
use std::ops::{Deref, DerefMut};

use crate::cache::{Counters, Tally, lock, push_bounded};
use crate::sync::Mutex;
use crate::sync::atomic::Ordering;
use crate::{
    BucketStats, ConfigError, MIN_BUCKET_LEN, PoolStats, RentError, bucket_capacity, buckets_for,
};

/// A pool of vectors: [`rent_vec`](VecPool::rent_vec) hands out a `Vec<T>` of length 0 with at
/// least the requested capacity, and takes it back, emptied, when the guard is dropped.
///
/// This is the safe-Rust answer to stale data. A [`BufferPool`](crate::BufferPool) must show
/// its renter initialised elements, so the renter sees either the previous renter's data or
/// the cost of clearing it. A vector of length 0 shows nothing: the old elements sit in its
/// spare capacity, which safe code can only write (`push`, `extend`, `resize`), never read.
/// The renter reads only what it wrote, and nothing has to be zeroed.
///
/// Vectors are kept by capacity in power-of-two classes of at least 16 elements, like the
/// buffer pool's buckets: a class holds vectors whose capacity is at least its size, so
/// `rent_vec(n)` takes one from the class of `n` rounded up to a power of two. A vector that
/// grew while rented comes back into the class of its new capacity.
///
/// It works for any `T: Send`, not only `Copy`: elements left in a returned vector are dropped
/// when it is emptied, so a vector in the pool keeps no element alive. The bytes of `Copy`
/// elements stay in memory, unreadable to safe code; a secret that must not stay in memory at
/// all needs zeroing, which `clear` does not do.
///
/// It is deliberately simple: one lock per class, no thread cache, so each rent and return
/// takes one uncontended lock.
///
/// The guard derefs mutably to the `Vec` itself, so a renter can also replace it
/// (`mem::replace`, `mem::swap`) or take its storage (`mem::take`). That is safe — whoever holds
/// a vector owns it, and the pool keeps whichever vector the guard holds when it is dropped —
/// but the pool cannot tell: it counts a return either way, so a vector taken out does not show
/// in [`PoolStats::outstanding`], and a vector swapped in is kept as if it had been lent, in the
/// class of its capacity. Unlike a [`BufferPool`](crate::BufferPool), which cannot be given a
/// buffer it never lent ([`contract`](crate::contract) §5), a `VecPool` takes any vector its
/// guard ends up holding.
///
/// ```
/// use hotpath_pool::VecPool;
///
/// let vecs = VecPool::<u8>::new(1 << 16, 8);
/// let mut line = vecs.rent_vec(64);
/// assert_eq!((line.len(), line.capacity()), (0, 64));
/// line.extend_from_slice(b"1042|secret|2|18000\n");
/// drop(line);
///
/// let next = vecs.rent_vec(64); // the same storage, with nothing to read
/// assert!(next.is_empty());
/// assert_eq!(next.get(..4), None);
/// ```
pub struct VecPool<T> {
    /// Class `k` holds vectors of capacity at least `MIN_BUCKET_LEN << k`.
    classes: Box<[Mutex<Vec<Vec<T>>>]>,
    max_per_bucket: usize,
    counters: Counters,
}

impl<T> fmt::Debug for VecPool<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VecPool")
            .field("classes", &self.classes.len())
            .field("max_per_bucket", &self.max_per_bucket)
            .finish_non_exhaustive()
    }
}

impl<T: Send> VecPool<T> {
    /// A pool of vectors with capacities up to `max_len` rounded up to a power of two (at
    /// least 16), keeping at most `max_per_bucket` vectors per capacity class.
    ///
    /// # Panics
    /// If `max_len` is too large for `T` (see [`VecPool::try_new`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::VecPool;
    ///
    /// let vecs = VecPool::<u8>::new(1 << 16, 8);
    /// assert_eq!(vecs.rent_vec(100).capacity(), 128);
    /// ```
    pub fn new(max_len: usize, max_per_bucket: usize) -> Self {
        match Self::try_new(max_len, max_per_bucket) {
            Ok(pool) => pool,
            Err(err) => panic!("{err}"),
        }
    }

    /// Like [`new`](Self::new), or says why `max_len` cannot work.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::VecPool;
    ///
    /// assert!(VecPool::<u8>::try_new(1 << 16, 8).is_ok());
    /// assert!(VecPool::<u64>::try_new(usize::MAX, 8).is_err());
    /// ```
    pub fn try_new(max_len: usize, max_per_bucket: usize) -> Result<Self, ConfigError> {
        let classes = buckets_for::<T>(max_len)?;
        Ok(Self {
            classes: (0..classes).map(|_| Mutex::new(Vec::new())).collect(),
            max_per_bucket,
            counters: Counters::default(),
        })
    }

    /// Rents an empty vector with room for at least `capacity` elements without
    /// reallocating: `capacity` rounded up to a power of two (at least 16) for a new one, or
    /// more if a kept one is larger. `rent_vec(0)` gives `Vec::new()`, which allocates
    /// nothing; a request above the largest class gets `Vec::with_capacity(capacity)`, not
    /// kept when given back.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::VecPool;
    ///
    /// let vecs = VecPool::<u8>::new(1 << 16, 8);
    /// let mut line = vecs.rent_vec(64);
    /// line.extend_from_slice(b"1042|2|18000");
    /// assert_eq!((line.len(), line.capacity()), (12, 64));
    /// ```
    #[must_use = "dropping a `PooledVec` gives the vector back at once"]
    pub fn rent_vec(&self, capacity: usize) -> PooledVec<'_, T> {
        let Ok(vec) = self.take(capacity, |cap| Ok::<_, Infallible>(Vec::with_capacity(cap)));
        PooledVec { vec, pool: self }
    }

    /// Like [`rent_vec`](Self::rent_vec), but a vector that cannot be allocated — any
    /// `capacity`, `isize::MAX` included — is an error instead of a panic or an abort. A failed
    /// rent counts nothing.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::VecPool;
    ///
    /// let vecs = VecPool::<u8>::new(1 << 16, 8);
    /// assert_eq!(vecs.try_rent_vec(64)?.capacity(), 64);
    /// assert!(vecs.try_rent_vec(usize::MAX).is_err());
    /// # Ok::<(), hotpath_pool::RentError>(())
    /// ```
    pub fn try_rent_vec(&self, capacity: usize) -> Result<PooledVec<'_, T>, RentError> {
        let vec = self.take(capacity, |cap| {
            let mut vec = Vec::new();
            vec.try_reserve_exact(cap)
                .map_err(|source| RentError::new(capacity, source))?;
            Ok(vec)
        })?;
        Ok(PooledVec { vec, pool: self })
    }

    /// A kept vector of at least `capacity`, or a fresh one from `fresh`; counted once it
    /// exists.
    fn take<E>(
        &self,
        capacity: usize,
        fresh: impl FnOnce(usize) -> Result<Vec<T>, E>,
    ) -> Result<Vec<T>, E> {
        let tally = || Tally::Shared(&self.counters);
        let (vec, allocated, oversize) = match capacity {
            0 => (Vec::new(), false, false),
            _ => match bucket_capacity(capacity).filter(|&cap| cap <= self.largest()) {
                Some(cap) => {
                    let class = (cap / MIN_BUCKET_LEN).trailing_zeros() as usize;
                    let kept = lock(&self.classes[class]).pop();
                    match kept {
                        Some(vec) => (vec, false, false),
                        None => (fresh(cap)?, true, false),
                    }
                }
                None => (fresh(capacity)?, true, true),
            },
        };
        tally().bump(|c| &c.rents);
        if allocated {
            tally().bump(|c| &c.allocations);
        }
        if oversize {
            tally().bump(|c| &c.oversize);
        }
        Ok(vec)
    }

    /// The largest class: vectors of larger capacity are not kept.
    fn largest(&self) -> usize {
        MIN_BUCKET_LEN << (self.classes.len() - 1)
    }

    fn give_back(&self, mut vec: Vec<T>) {
        /// Counts the vector as discarded if dropped: armed while its elements are dropped.
        struct DiscardOnUnwind<'a>(&'a Counters);
        impl Drop for DiscardOnUnwind<'_> {
            fn drop(&mut self) {
                Tally::Shared(self.0).bump(|c| &c.discarded);
            }
        }

        let tally = Tally::Shared(&self.counters);
        tally.bump(|c| &c.returns);
        // An element whose `drop` panics: the panic goes on to the caller and the vector, freed
        // during the unwinding, is counted as discarded (its return is already counted).
        let armed = DiscardOnUnwind(&self.counters);
        vec.clear();
        mem::forget(armed);
        let capacity = vec.capacity();
        if capacity == 0 {
            return; // `rent_vec(0)`'s `Vec::new()`, never allocated
        }
        let kept = (MIN_BUCKET_LEN..=self.largest()).contains(&capacity) && {
            // The class of the largest power of two (times 16) that fits in `capacity`.
            let class = (capacity / MIN_BUCKET_LEN).ilog2() as usize;
            push_bounded(&mut lock(&self.classes[class]), vec, self.max_per_bucket).is_ok()
        };
        if !kept {
            tally.bump(|c| &c.discarded);
        }
    }

    /// The pool's counters and what it holds right now (`retained_bytes` counts each kept
    /// vector's capacity; [`PoolStats::buckets`] has one entry per capacity class, whose
    /// `capacity` is the class's smallest).
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::VecPool;
    ///
    /// let vecs = VecPool::<u8>::new(1 << 16, 8);
    /// drop(vecs.rent_vec(64));
    /// let s = vecs.stats();
    /// assert_eq!((s.rents, s.returns, s.retained_bytes), (1, 1, 64));
    /// ```
    pub fn stats(&self) -> PoolStats {
        let mut stats =
            Counters::snapshot(|counter| counter(&self.counters).load(Ordering::Acquire));
        for (k, class) in self.classes.iter().enumerate() {
            let mut bucket = BucketStats {
                capacity: MIN_BUCKET_LEN << k,
                ..BucketStats::default()
            };
            for vec in lock(class).iter() {
                bucket.stacked_buffers += 1;
                bucket.retained_bytes += (vec.capacity() * mem::size_of::<T>()) as u64;
            }
            stats.retained_buffers += bucket.stacked_buffers;
            stats.retained_bytes += bucket.retained_bytes;
            stats.buckets.push(bucket);
        }
        stats
    }

    /// Frees every vector the pool holds and returns the bytes of capacity released.
    ///
    /// # Examples
    ///
    /// ```
    /// use hotpath_pool::VecPool;
    ///
    /// let vecs = VecPool::<u8>::new(1 << 16, 8);
    /// drop(vecs.rent_vec(64));
    /// assert_eq!(vecs.trim(), 64);
    /// ```
    pub fn trim(&self) -> u64 {
        self.classes
            .iter()
            .flat_map(|class| mem::take(&mut *lock(class)))
            .map(|vec| (vec.capacity() * mem::size_of::<T>()) as u64)
            .sum()
    }
}

/// A vector rented from a [`VecPool`]: derefs to `Vec<T>` (push, extend, `io::Write` for
/// bytes…), and goes back to the pool, emptied, when dropped — whichever vector it holds then
/// (see [`VecPool`] on replacing or taking it).
#[must_use = "dropping a `PooledVec` gives the vector back at once"]
pub struct PooledVec<'pool, T: Send> {
    vec: Vec<T>,
    pool: &'pool VecPool<T>,
}

impl<T: Send> Deref for PooledVec<'_, T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.vec
    }
}

impl<T: Send> DerefMut for PooledVec<'_, T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.vec
    }
}

impl<T: Send> Drop for PooledVec<'_, T> {
    fn drop(&mut self) {
        self.pool.give_back(mem::take(&mut self.vec));
    }
}

impl<T: Send> fmt::Debug for PooledVec<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PooledVec")
            .field("len", &self.vec.len())
            .field("capacity", &self.vec.capacity())
            .finish_non_exhaustive()
    }
}
