//! One thread's cached buffers for one pool: a slot per bucket, each holding at most one buffer
//! as a thin pointer.
//!
//! A `Box<[T]>` is a pointer *and* a length; a slot stores only the pointer, because the slot
//! of entry `e` only ever holds buffers of exactly `1 << e` elements, so the length is known
//! from the entry's index. Turning the pointer back into a `Box<[T]>` is the `unsafe` step.
//!
//! Every possible entry exists, whatever the pool: one per base-2 logarithm of a capacity, so a
//! lookup never needs a bounds check. An entry a thread does not cache for its pool (a bucket
//! above its cached ones, a capacity below the smallest bucket, a thread that has no cache
//! yet or no longer has one) holds [`BLOCKED`], a value no buffer has: a take from it misses
//! with the same compare that finds an empty slot, and a put into it is refused on the branch
//! that finds the slot full. So neither side checks a range or a power of two.
//!
//! A buffer handed out by a pool travels as a [`Taken`]: the buffer and its entry, so that its
//! give-back does not work the entry out again from the capacity.
//!
//! **The owner protocol.** Only one thread at a time takes, puts, opens or closes: the cache's
//! owner thread, or — when no owner can be running — whoever has the cache to itself (the pool
//! being dropped). That is what lets a take be a plain load and a store, and a put likewise,
//! instead of an atomic swap: a swap is a locked instruction that costs more than the rest of a
//! rent and give-back together. Other threads only *read* the slots (to count what the pool
//! retains), which the atomic loads make safe. The methods that take or put are `unsafe` and
//! state the protocol; [`crate::cache::Owned`] is the only way the rest of the crate calls them.

use std::marker::PhantomData;
use std::mem;
use std::ptr;
use std::sync::Mutex;

use crate::MIN_BUCKET_LEN;
use crate::sync::atomic::{AtomicPtr, Ordering};

/// Slot `b`, of capacity `MIN_BUCKET_LEN << b`, is the entry at the base-2 logarithm of its
/// capacity, `b + SHIFT`.
const SHIFT: usize = MIN_BUCKET_LEN.trailing_zeros() as usize;

/// One entry per possible base-2 logarithm of a capacity, 0 to 64: more than any pool has
/// buckets (a pool of bytes has at most 59), so that an entry computed from a request or from a
/// buffer's length is always in bounds.
const ENTRIES: usize = usize::BITS as usize + 1;

/// The entry no buffer goes to: that of `rent(0)`, of requests past every bucket and of every
/// buffer that is not a bucket's. Always blocked.
const NO_ENTRY: usize = ENTRIES - 1;

/// How many entries can be opened: the buckets from the smallest up to entry 63.
const MAX_OPEN: usize = NO_ENTRY - SHIFT;

/// The address a blocked entry holds. No buffer a slot keeps is at this address: a buffer of at
/// least 16 elements of a type aligned to 2 or more cannot be at an odd address, a buffer of
/// zero-sized elements is stored at another address (see [`Slots::put`]), and an allocator
/// handing out 16 bytes at address 1 would only see that buffer refused by the cache.
const BLOCKED: usize = 1;

/// The entry of a buffer: the slot it goes to (if its thread caches that slot), known from the
/// rent that handed it out. Invariant: at most `NO_ENTRY`, so always an index of `entries`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry(usize);

impl Entry {
    /// The entry a request of `len` elements is served from: the base-2 logarithm of `len`
    /// rounded up to a power of two of at least `MIN_BUCKET_LEN`, branch-free. For 0 and for
    /// requests past every bucket it is `NO_ENTRY` (64 for 0), so a lookup misses.
    #[inline(always)]
    pub(crate) fn for_request(len: usize) -> Self {
        let log = usize::BITS - (len.wrapping_sub(1) | (MIN_BUCKET_LEN - 1)).leading_zeros();
        // At most 64 (`usize::BITS` less at least 0 leading zeros).
        Self(log as usize)
    }

    /// The entry of a buffer of `capacity` elements: its base-2 logarithm if it is a power of
    /// two, else `NO_ENTRY` (also for an empty buffer).
    pub(crate) fn of_capacity(capacity: usize) -> Self {
        if capacity.is_power_of_two() {
            Self(capacity.trailing_zeros() as usize)
        } else {
            Self(NO_ENTRY)
        }
    }

    /// The bucket of this entry (`None` below the smallest bucket and for `NO_ENTRY`).
    pub(crate) fn bucket(self) -> Option<usize> {
        self.0
            .checked_sub(SHIFT)
            .filter(|&bucket| bucket < MAX_OPEN)
    }
}

/// A buffer handed out by a pool, with its entry. Invariant: `entry` is
/// `Entry::of_capacity(buf.len())` (for a bucket's buffer, `buf.len() == 1 << entry`).
pub(crate) struct Taken<T> {
    buf: Box<[T]>,
    entry: Entry,
}

impl<T> Taken<T> {
    /// `buf`, with its entry worked out from its capacity.
    pub(crate) fn new(buf: Box<[T]>) -> Self {
        let entry = Entry::of_capacity(buf.len());
        Self { buf, entry }
    }

    /// The buffer.
    #[inline(always)]
    pub(crate) fn buf(&self) -> &[T] {
        &self.buf
    }

    /// The buffer, writable.
    #[inline(always)]
    pub(crate) fn buf_mut(&mut self) -> &mut [T] {
        &mut self.buf
    }

    /// The buffer, without its entry.
    #[inline(always)]
    pub(crate) fn into_buf(self) -> Box<[T]> {
        self.buf
    }
}

/// `buf` as a slot holds it: its pointer, which the slot owns from now on. A `Box` of
/// zero-sized elements allocates nothing and points at `align_of::<T>()`, which for an
/// alignment of 1 is `BLOCKED`: it is kept as the next address, as good a pointer for a `Box`
/// of zero-sized elements.
#[inline(always)]
fn into_slot<T>(buf: Box<[T]>) -> *mut T {
    let raw = Box::into_raw(buf).cast::<T>();
    if mem::size_of::<T>() == 0 && raw.addr() == BLOCKED {
        return raw.with_addr(BLOCKED + 1);
    }
    raw
}

/// A slot per bucket: entry `e` is [`BLOCKED`], null (an empty slot) or owns one buffer of
/// `1 << e` elements.
pub(crate) struct Slots<T> {
    /// Invariant: each pointer other than null and `BLOCKED` came from `Box::into_raw` of a
    /// `Box<[T]>` of exactly `1 << i` elements, `i` being its index (or, for zero-sized `T`,
    /// stands for one: see `into_slot`), and is owned by its entry (no other pointer to it
    /// is used). Only the entries of buckets (indices `SHIFT..NO_ENTRY`) are ever anything but
    /// `BLOCKED`.
    entries: [AtomicPtr<T>; ENTRIES],
    /// The slots own `Box<[T]>`s, which the owner protocol may hand to another thread (the one
    /// dropping the pool), as a `Mutex` would: so `Slots<T>` is `Send` and `Sync` exactly when
    /// `T: Send` (an `AtomicPtr` alone would be both for any `T`).
    _owns: PhantomData<Mutex<Box<[T]>>>,
}

impl<T> Slots<T> {
    /// Slots that are all blocked: they keep nothing until [`open`](Self::open)ed. No
    /// destructor: whoever opens them closes or drains them before they go.
    pub(crate) const fn blocked() -> Self {
        Self {
            entries: [const { AtomicPtr::new(ptr::without_provenance_mut(BLOCKED)) }; ENTRIES],
            _owns: PhantomData,
        }
    }

    /// Opens the slots of buckets `0..buckets`: empty, ready to keep a buffer each.
    ///
    /// # Safety
    /// The owner protocol: no other thread takes from, puts into, opens or closes these slots
    /// while this runs.
    pub(crate) unsafe fn open(&self, buckets: usize) {
        for slot in &self.entries[SHIFT..SHIFT + buckets.min(MAX_OPEN)] {
            if slot.load(Ordering::Relaxed).addr() == BLOCKED {
                slot.store(ptr::null_mut(), Ordering::Relaxed);
            }
        }
    }

    /// Takes the buffer out of entry `entry`, if it holds one (`None` also for a blocked entry).
    ///
    /// # Safety
    /// As for [`open`](Self::open).
    #[inline(always)]
    pub(crate) unsafe fn take_entry(&self, entry: Entry) -> Option<Taken<T>> {
        let slot = self.slot(entry);
        // A load and a store, not a swap: under the owner protocol nobody else can take the
        // buffer between them. One compare rules out both an empty and a blocked entry.
        let taken = slot.load(Ordering::Acquire);
        if taken.addr() <= BLOCKED {
            return None;
        }
        slot.store(ptr::null_mut(), Ordering::Relaxed);
        let raw = ptr::slice_from_raw_parts_mut(taken, 1 << entry.0);
        // SAFETY: by the invariant on `entries`, `taken` came from `Box::into_raw` of a
        // `Box<[T]>` of exactly `1 << entry` elements (so `raw` has the same pointer and
        // length, and the same layout is freed later), or, for zero-sized `T`, is a non-null
        // pointer aligned for `T`, which is all a `Box` of zero-sized elements needs. The
        // entry is empty now, and by the owner protocol (the caller's contract) no one else
        // read it in between: this `Box` is its only owner.
        let buf = unsafe { Box::from_raw(raw) };
        Some(Taken { buf, entry })
    }

    /// Takes the buffer out of slot `bucket`, if it holds one.
    ///
    /// # Safety
    /// As for [`open`](Self::open).
    pub(crate) unsafe fn take(&self, bucket: usize) -> Option<Taken<T>> {
        // SAFETY: the caller's contract is the same.
        unsafe { self.take_entry(Entry(bucket.checked_add(SHIFT)?.min(NO_ENTRY))) }
    }

    /// The slot of `entry`.
    #[inline(always)]
    fn slot(&self, entry: Entry) -> &AtomicPtr<T> {
        // SAFETY: by the invariant on `Entry`, `entry.0` is at most `NO_ENTRY`, an index of
        // `entries`. (The guard that carries an entry keeps it in memory, where the compiler
        // no longer knows its range: this saves the check.)
        unsafe { self.entries.get_unchecked(entry.0) }
    }

    /// Puts the buffer into its entry's slot if that slot is open and empty (the fast path of
    /// a give-back: the slot a rent emptied), or gives it back as `Err`.
    ///
    /// # Safety
    /// As for [`open`](Self::open).
    #[inline(always)]
    pub(crate) unsafe fn put(&self, taken: Taken<T>) -> Result<(), Taken<T>> {
        let slot = self.slot(taken.entry);
        if !slot.load(Ordering::Acquire).is_null() {
            return Err(taken);
        }
        // An open, empty slot: it owns the buffer from here (the invariant on `entries` holds:
        // the entry is open, so a bucket's, and by the invariant on `Taken` the buffer has
        // exactly `1 << entry` elements). `Release`, so that a thread that later takes it
        // under the owner protocol sees its contents.
        slot.store(into_slot(taken.buf), Ordering::Release);
        Ok(())
    }

    /// Puts the buffer into its entry's slot and returns the buffer that slot held before, if
    /// any (the cache keeps the most recent one); or gives it back as `Err` when its entry is
    /// blocked (a size these slots do not cache, or slots not open).
    ///
    /// # Safety
    /// As for [`open`](Self::open).
    pub(crate) unsafe fn put_over(&self, taken: Taken<T>) -> Result<Option<Box<[T]>>, Taken<T>> {
        let entry = taken.entry;
        let slot = self.slot(entry);
        let previous = slot.load(Ordering::Acquire);
        if previous.addr() == BLOCKED {
            return Err(taken);
        }
        // As in `put`: the entry is open.
        slot.store(into_slot(taken.buf), Ordering::Release);
        if previous.is_null() {
            return Ok(None);
        }
        let raw = ptr::slice_from_raw_parts_mut(previous, 1 << entry.0);
        // SAFETY: as in `take_entry`: `previous` was put in this entry by an earlier `put`, of
        // a buffer of `1 << entry` elements; the entry now holds another pointer, and by the
        // owner protocol no one else read `previous` from it.
        Ok(Some(unsafe { Box::from_raw(raw) }))
    }

    /// Empties every slot, handing each buffer with its bucket to `f`; the slots stay open.
    ///
    /// # Safety
    /// As for [`open`](Self::open).
    pub(crate) unsafe fn drain(&self, mut f: impl FnMut(usize, Box<[T]>)) {
        for bucket in 0..MAX_OPEN {
            // SAFETY: the caller's contract is the same.
            if let Some(taken) = unsafe { self.take(bucket) } {
                f(bucket, taken.buf);
            }
        }
    }

    /// Empties every slot, as [`drain`](Self::drain) does, and blocks it: the slots keep
    /// nothing more until they are opened again. Each slot is blocked before its buffer goes
    /// to `f`, which must not use these slots.
    ///
    /// # Safety
    /// As for [`open`](Self::open).
    pub(crate) unsafe fn close(&self, mut f: impl FnMut(usize, Box<[T]>)) {
        for (bucket, slot) in self.entries[SHIFT..NO_ENTRY].iter().enumerate() {
            let held = slot.load(Ordering::Acquire);
            slot.store(ptr::without_provenance_mut(BLOCKED), Ordering::Relaxed);
            if held.addr() > BLOCKED {
                let raw = ptr::slice_from_raw_parts_mut(held, MIN_BUCKET_LEN << bucket);
                // SAFETY: as in `take_entry`: slot `bucket` is entry `bucket + SHIFT`, whose
                // buffers have `MIN_BUCKET_LEN << bucket` elements; it is blocked now, and by
                // the owner protocol no one else read `held` from it.
                f(bucket, unsafe { Box::from_raw(raw) });
            }
        }
    }

    /// The capacities of the buffers the slots hold right now. Any thread may ask: it only
    /// reads, and the answer is a moment's view (the owner may be renting or giving back).
    pub(crate) fn held(&self) -> impl Iterator<Item = usize> + '_ {
        self.entries[SHIFT..NO_ENTRY]
            .iter()
            .enumerate()
            .filter(|(_, slot)| slot.load(Ordering::Relaxed).addr() > BLOCKED)
            .map(|(bucket, _)| MIN_BUCKET_LEN << bucket)
    }
}
