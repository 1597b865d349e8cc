//! One thread's cached buffers for one pool: a slot per bucket, each holding at most one buffer
//! as a thin pointer.
//!
//! A `Box<[T]>` is a pointer *and* a length; a slot stores only the pointer, because slot `b`
//! only ever holds buffers of exactly `MIN_BUCKET_LEN << b` elements, so the length is known
//! from the slot's index. Turning the pointer back into a `Box<[T]>` is the `unsafe` step.
//!
//! **The owner protocol.** Only one thread at a time takes or puts: the cache's owner thread,
//! or — when no owner can be running — whoever has the cache to itself (the pool being dropped).
//! That is what lets a take be a plain load and a store, and a put likewise, instead of an
//! atomic swap: a swap is a locked instruction that costs more than the rest of a rent and
//! give-back together. Other threads only *read* the slots (to count what the pool retains),
//! which the atomic loads make safe. The methods that take or put are `unsafe` and state the
//! protocol; [`crate::cache::Owned`] is the only way the rest of the crate calls them.

use std::marker::PhantomData;
use std::ptr;
use std::sync::Mutex;

use crate::MIN_BUCKET_LEN;
use crate::sync::atomic::{AtomicPtr, Ordering};

/// Slot `b`, of capacity `MIN_BUCKET_LEN << b`, is the entry at the base-2 logarithm of its
/// capacity, `b + SHIFT`.
const SHIFT: usize = MIN_BUCKET_LEN.trailing_zeros() as usize;

/// One entry per possible base-2 logarithm of a capacity, 0 to 64: more than any pool has
/// buckets (a pool of bytes has at most 59), so that an entry computed from a request or from a
/// buffer's length is always in bounds and needs no check.
const ENTRIES: usize = usize::BITS as usize + 1;

/// A slot per bucket; slot `b` is null or owns one buffer of `MIN_BUCKET_LEN << b` elements.
pub(crate) struct Slots<T> {
    /// Invariant: each non-null pointer came from `Box::into_raw` of a `Box<[T]>` of exactly
    /// `1 << i` elements, `i` being its index, and is owned by its entry (no other pointer to
    /// it is used). Only the entries of buckets `0..buckets` (indices `SHIFT..SHIFT + buckets`)
    /// are ever non-null.
    entries: [AtomicPtr<T>; ENTRIES],
    /// How many slots are used: one per bucket of the pool, or 0 without a thread cache.
    buckets: usize,
    /// The slots own `Box<[T]>`s, which the owner protocol may hand to another thread (the one
    /// dropping the pool), as a `Mutex` would: so `Slots<T>` is `Send` and `Sync` exactly when
    /// `T: Send` (an `AtomicPtr` alone would be both for any `T`).
    _owns: PhantomData<Mutex<Box<[T]>>>,
}

/// The entry of the slot a request of `len` elements is served from: the base-2 logarithm of
/// `len` rounded up to a power of two of at least `MIN_BUCKET_LEN`, branch-free. For 0 and for
/// requests past every bucket it is an entry no pool fills (64 for 0), so a lookup misses.
#[inline(always)]
pub(crate) fn entry_for(len: usize) -> usize {
    (usize::BITS - (len.wrapping_sub(1) | (MIN_BUCKET_LEN - 1)).leading_zeros()) as usize
}

/// The bucket of an entry (`None` below the smallest bucket).
pub(crate) fn bucket_of_entry(entry: usize) -> Option<usize> {
    entry.checked_sub(SHIFT)
}

impl<T> Slots<T> {
    /// Empty slots for a pool of `buckets` buckets (0 for none).
    pub(crate) fn new(buckets: usize) -> Self {
        Self {
            entries: [const { AtomicPtr::new(ptr::null_mut()) }; ENTRIES],
            buckets: buckets.min(ENTRIES - SHIFT),
            _owns: PhantomData,
        }
    }

    /// Takes the buffer out of entry `entry` (see [`entry_for`]), if it holds one (`None` also
    /// for an entry no slot of this pool uses).
    ///
    /// # Safety
    /// The owner protocol: no other thread takes from or puts into these slots while this runs.
    #[inline(always)]
    pub(crate) unsafe fn take_entry(&self, entry: usize) -> Option<Box<[T]>> {
        let slot = self.entries.get(entry)?;
        // A load and a store, not a swap: under the owner protocol nobody else can take the
        // buffer between them.
        let taken = slot.load(Ordering::Acquire);
        if taken.is_null() {
            return None;
        }
        slot.store(ptr::null_mut(), Ordering::Relaxed);
        let raw = ptr::slice_from_raw_parts_mut(taken, 1 << entry);
        // SAFETY: by the invariant on `entries`, `taken` came from `Box::into_raw` of a
        // `Box<[T]>` of exactly `1 << entry` elements (so `raw` has the same pointer and
        // length, and the same layout is freed later). The entry is null now, and by the owner
        // protocol (the caller's contract) no one else read it in between: this `Box` is its
        // only owner.
        Some(unsafe { Box::from_raw(raw) })
    }

    /// Takes the buffer out of slot `bucket`, if it holds one.
    ///
    /// # Safety
    /// As for [`take_entry`](Self::take_entry).
    pub(crate) unsafe fn take(&self, bucket: usize) -> Option<Box<[T]>> {
        // SAFETY: the caller's contract is the same.
        unsafe { self.take_entry(bucket.checked_add(SHIFT)?) }
    }

    /// Puts `buf` into the slot of its capacity and returns the buffer that slot held before,
    /// if any (the cache keeps the most recent one); or gives `buf` back as `Err` when no slot
    /// holds buffers of its capacity (not a power of two ≥ `MIN_BUCKET_LEN`, or above the
    /// largest bucket, or empty).
    ///
    /// # Safety
    /// As for [`take_entry`](Self::take_entry).
    #[inline(always)]
    pub(crate) unsafe fn put(&self, buf: Box<[T]>) -> Result<Option<Box<[T]>>, Box<[T]>> {
        let len = buf.len();
        // For a power of two, `len == 1 << entry`; anything else is refused, and so is an empty
        // buffer (entry 64, past every bucket).
        let entry = len.trailing_zeros() as usize;
        let bucket = entry.wrapping_sub(SHIFT);
        if bucket >= self.buckets || len & len.wrapping_sub(1) != 0 {
            return Err(buf);
        }
        // `entry` is at most 64: always in bounds.
        let slot = &self.entries[entry];
        let previous = slot.load(Ordering::Acquire);
        // `into_raw` keeps the buffer allocated; the slot owns it from here (the invariant on
        // `entries` holds: a `Box<[T]>` of exactly `1 << entry` elements). `Release`, so that a
        // thread that later takes it under the owner protocol sees its contents.
        slot.store(Box::into_raw(buf).cast::<T>(), Ordering::Release);
        if previous.is_null() {
            return Ok(None);
        }
        let raw = ptr::slice_from_raw_parts_mut(previous, len);
        // SAFETY: as in `take_entry`: `previous` was put in this entry by an earlier `put`,
        // which checked that its length was `1 << entry`, that is `len`; the entry now holds
        // another pointer, and by the owner protocol no one else read `previous` from it.
        Ok(Some(unsafe { Box::from_raw(raw) }))
    }

    /// Empties every slot, handing each buffer with its bucket to `f`.
    ///
    /// # Safety
    /// As for [`take_entry`](Self::take_entry).
    pub(crate) unsafe fn drain(&self, mut f: impl FnMut(usize, Box<[T]>)) {
        for bucket in 0..self.buckets {
            // SAFETY: the caller's contract is the same.
            if let Some(buf) = unsafe { self.take(bucket) } {
                f(bucket, buf);
            }
        }
    }

    /// The capacities of the buffers the slots hold right now. Any thread may ask: it only
    /// reads, and the answer is a moment's view (the owner may be renting or giving back).
    pub(crate) fn held(&self) -> impl Iterator<Item = usize> + '_ {
        self.entries[SHIFT..SHIFT + self.buckets]
            .iter()
            .enumerate()
            .filter(|(_, slot)| !slot.load(Ordering::Relaxed).is_null())
            .map(|(bucket, _)| MIN_BUCKET_LEN << bucket)
    }
}

impl<T> Drop for Slots<T> {
    fn drop(&mut self) {
        // SAFETY: `&mut self`: no other thread can reach these slots.
        unsafe { self.drain(|_, buf| drop(buf)) };
    }
}
