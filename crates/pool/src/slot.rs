//! One thread's cached buffers for one pool: a slot per bucket, each holding at most one buffer
//! as a thin pointer.
//!
//! A `Box<[T]>` is a pointer *and* a length; a slot stores only the pointer, because the slot
//! of entry `e` only ever holds buffers of exactly `2 << e` elements, so the length is known
//! from the entry's index. Turning the pointer back into a `Box<[T]>` is the `unsafe` step.
//!
//! Every possible entry exists, whatever the pool: one per base-2 logarithm of a capacity, so a
//! lookup never needs a bounds check. An entry a thread does not cache for its pool (a bucket
//! above its cached ones, a capacity below the smallest bucket, a thread that has no cache
//! yet or no longer has one) holds [`BLOCKED`], a value no buffer has: a take from it misses
//! with the same compare that finds an empty slot, and a put into it is refused on the branch
//! that finds the slot full. So neither side checks a range or a power of two.
//!
//! A buffer handed out by a pool travels as a [`Lent`]: its pointer, its entry and the length
//! shown, so that its give-back does not work the entry out again from the capacity, and the
//! capacity follows from the entry.
//!
//! **The owner protocol.** Only one thread at a time takes, puts, opens or drains: the cache's
//! owner thread, or — when no owner can be running — whoever has the cache to itself (the pool
//! being dropped). That is what lets a take be a plain load and a store, and a put likewise,
//! instead of an atomic swap: a swap is a locked instruction that costs more than the rest of a
//! rent and give-back together. Other threads only *read* the slots (to count what the pool
//! retains), which the atomic loads make safe. The methods that take or put are `unsafe` and
//! state the protocol; [`crate::cache::Owned`] is the only way the rest of the crate calls them.

use std::marker::PhantomData;
use std::mem::{self, ManuallyDrop};
use std::ptr::{self, NonNull};
use std::sync::Mutex;

use crate::MIN_BUCKET_LEN;
use crate::sync::atomic::{AtomicPtr, Ordering};

/// Entry `e` holds buffers of `2 << e` elements: its index is the base-2 logarithm of their
/// capacity less one, which is what a request's rounding computes (the index of its highest
/// bit) with no instruction more. Slot `b`, of capacity `MIN_BUCKET_LEN << b`, is entry
/// `b + SHIFT`.
const SHIFT: usize = MIN_BUCKET_LEN.trailing_zeros() as usize - 1;

/// One entry per possible base-2 logarithm of a capacity, 1 to 64 (a capacity of 1 is below
/// every bucket): more than any pool has buckets (a pool of bytes has at most 59), so that an
/// entry computed from a request or from a buffer's length is always in bounds.
const ENTRIES: usize = usize::BITS as usize;

/// The entry no buffer goes to: that of `rent(0)`, of requests past every bucket and of every
/// buffer that is not a bucket's (it would hold buffers of `2^64` elements). Always blocked.
const NO_ENTRY: usize = ENTRIES - 1;

/// How many entries can be opened: the buckets from the smallest up to entry 63.
const MAX_OPEN: usize = NO_ENTRY - SHIFT;

/// The address a blocked entry holds. No buffer a slot keeps is at this address: a buffer of at
/// least 16 elements of a type aligned to 2 or more cannot be at an odd address, a buffer of
/// zero-sized elements is stored at another address (see [`Slots::put`]). An allocator handing
/// out 16 bytes at address 1 (none does on the platforms this crate is built for) would see
/// that buffer kept in a slot that then reads as blocked: the buffer leaks and the slot caches
/// nothing more until the thread exits, and no memory is read or freed wrongly.
const BLOCKED: usize = 1;

/// The entry of a buffer: the slot it goes to (if its thread caches that slot), known from the
/// rent that handed it out. Invariant: at most `NO_ENTRY`, so always an index of `entries`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entry(usize);

impl Entry {
    /// The entry a request of `len` elements is served from: that of `len` rounded up to a
    /// power of two of at least `MIN_BUCKET_LEN`, branch-free (the highest bit of `len - 1`,
    /// at least that of `MIN_BUCKET_LEN - 1`). For 0 and for requests past every bucket it is
    /// `NO_ENTRY`, so a lookup misses.
    #[inline(always)]
    pub(crate) fn for_request(len: usize) -> Self {
        let rounded = len.wrapping_sub(1) | (MIN_BUCKET_LEN - 1);
        // At most 63: `rounded` is not 0.
        Self((usize::BITS - 1 - rounded.leading_zeros()) as usize)
    }

    /// The entry of a buffer of `capacity` elements, if it is a power of two of at least 2,
    /// else `NO_ENTRY` (also for an empty buffer).
    pub(crate) fn of_capacity(capacity: usize) -> Self {
        if capacity.is_power_of_two() && capacity > 1 {
            Self(capacity.trailing_zeros() as usize - 1)
        } else {
            Self(NO_ENTRY)
        }
    }

    /// The capacity of the buffers of this entry (0 for `NO_ENTRY`, whose buffers would have
    /// `2^64` elements).
    #[inline(always)]
    fn capacity(self) -> usize {
        2 << self.0
    }

    /// The bucket of this entry (`None` below the smallest bucket and for `NO_ENTRY`).
    pub(crate) fn bucket(self) -> Option<usize> {
        self.0
            .checked_sub(SHIFT)
            .filter(|&bucket| bucket < MAX_OPEN)
    }
}

/// A buffer lent by a pool: its pointer, its entry and the length shown to the renter, so that
/// neither the rent nor the give-back works out the other from the capacity.
///
/// Invariant: `ptr` is the pointer of a `Box<[T]>` of [`capacity`](Self::capacity) elements,
/// owned by this `Lent` — `2 << entry` for a power-of-two capacity (every bucket's buffer), `len`
/// for any other (an exact-size buffer above the largest bucket, or `rent(0)`'s empty one,
/// whose entry is `NO_ENTRY`) — and `len` is at most that capacity.
pub(crate) struct Lent<T> {
    ptr: NonNull<T>,
    entry: Entry,
    len: usize,
    /// It owns a `Box<[T]>`, for the drop check and the auto traits.
    _owns: PhantomData<Box<[T]>>,
}

// SAFETY: a `Lent` owns its buffer as the `Box<[T]>` it came from does, so it may cross
// threads exactly when that `Box` may.
unsafe impl<T: Send> Send for Lent<T> {}
// SAFETY: as for `Send`: shared, it gives only `&[T]`, as a shared `Box<[T]>` does.
unsafe impl<T: Sync> Sync for Lent<T> {}

impl<T> Lent<T> {
    /// Lends `buf` showing its first `len` elements. `len` is at most `buf.len()`, and, unless
    /// `buf.len()` is a power of two, equal to it (as for every buffer a pool hands out: a
    /// bucket's, or an exact-size one).
    ///
    /// # Panics
    /// If `len` breaks that rule (a bug in the pool).
    pub(crate) fn new(buf: Box<[T]>, len: usize) -> Self {
        let capacity = buf.len();
        let entry = Entry::of_capacity(capacity);
        assert!(
            len <= capacity && (entry.0 != NO_ENTRY || len == capacity),
            "a buffer of {capacity} elements cannot show {len}"
        );
        Self::from_box(buf, entry, len)
    }

    /// Lends `buf`, handed out for a request of `len` elements: a buffer of `len`'s bucket, or
    /// one of exactly `len` elements (as [`new`](Self::new), whose check this skips for a
    /// bucket's buffer).
    #[inline(always)]
    pub(crate) fn for_request(buf: Box<[T]>, len: usize) -> Self {
        let entry = Entry::for_request(len);
        // `len <= entry.capacity()` for every request with an entry, so for a buffer of that
        // capacity the invariant holds; the second test keeps it for `NO_ENTRY`, whose shift
        // wraps to 0, whatever the caller passes.
        if buf.len() == entry.capacity() && len <= buf.len() {
            return Self::from_box(buf, entry, len);
        }
        Self::new(buf, len)
    }

    /// Lends the whole of `buf`.
    pub(crate) fn whole(buf: Box<[T]>) -> Self {
        let len = buf.len();
        Self::from_box(buf, Entry::of_capacity(len), len)
    }

    /// `buf`, whose entry is `entry`, showing `len` elements: the caller keeps the invariant.
    #[inline(always)]
    fn from_box(buf: Box<[T]>, entry: Entry, len: usize) -> Self {
        let raw = Box::into_raw(buf).cast::<T>();
        // SAFETY: a `Box`'s pointer is never null.
        let ptr = unsafe { NonNull::new_unchecked(raw) };
        Self {
            ptr,
            entry,
            len,
            _owns: PhantomData,
        }
    }

    /// How many elements are shown.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The buffer's capacity: `2 << entry` for a power of two, else the length shown.
    #[inline(always)]
    pub(crate) fn capacity(&self) -> usize {
        if self.entry.0 < NO_ENTRY {
            self.entry.capacity()
        } else {
            self.len
        }
    }

    /// The elements shown.
    #[inline(always)]
    pub(crate) fn as_slice(&self) -> &[T] {
        // SAFETY: by the invariant, `ptr` points to a buffer of at least `len` initialised
        // elements (a `Box<[T]>` of `capacity() >= len`), which this `Lent` owns.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The elements shown, writable.
    #[inline(always)]
    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`, and `&mut self` borrows the owner exclusively.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// The buffer, whole, as the `Box` it was lent as.
    pub(crate) fn into_buf(self) -> Box<[T]> {
        let this = ManuallyDrop::new(self);
        let raw = ptr::slice_from_raw_parts_mut(this.ptr.as_ptr(), this.capacity());
        // SAFETY: by the invariant, `ptr` is the pointer of a `Box<[T]>` of `capacity()`
        // elements, owned by this `Lent`, which is forgotten: the `Box` is its only owner now.
        unsafe { Box::from_raw(raw) }
    }

    /// The pointer, for a slot to own: this `Lent` is forgotten. The buffer has `2 << entry`
    /// elements if the entry is a bucket's.
    #[inline(always)]
    fn into_raw(self) -> *mut T {
        ManuallyDrop::new(self).ptr.as_ptr()
    }
}

impl<T> Drop for Lent<T> {
    fn drop(&mut self) {
        let raw = ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.capacity());
        // SAFETY: as in `into_buf`; `drop` runs once, and nothing uses `ptr` after it.
        drop(unsafe { Box::from_raw(raw) });
    }
}

/// `lent` as a slot holds it: its pointer, which the slot owns from now on. A `Box` of
/// zero-sized elements allocates nothing and points at `align_of::<T>()`, which for an
/// alignment of 1 is `BLOCKED`: it is kept as the next address, as good a pointer for a `Box`
/// of zero-sized elements.
#[inline(always)]
fn into_slot<T>(lent: Lent<T>) -> *mut T {
    let raw = lent.into_raw();
    if mem::size_of::<T>() == 0 && raw.addr() == BLOCKED {
        return raw.with_addr(BLOCKED + 1);
    }
    raw
}

/// A slot per bucket: entry `e` is [`BLOCKED`], null (an empty slot) or owns one buffer of
/// `2 << e` elements.
pub(crate) struct Slots<T> {
    /// Invariant: each pointer other than null and `BLOCKED` came from `Box::into_raw` of a
    /// `Box<[T]>` of exactly `2 << i` elements, `i` being its index (or, for zero-sized `T`,
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
    /// destructor: whoever opens them drains them before they go.
    pub(crate) const fn blocked() -> Self {
        Self {
            entries: [const { AtomicPtr::new(ptr::without_provenance_mut(BLOCKED)) }; ENTRIES],
            _owns: PhantomData,
        }
    }

    /// Opens the slots of buckets `0..buckets`: empty, ready to keep a buffer each.
    ///
    /// # Safety
    /// The owner protocol: no other thread takes from, puts into, opens or drains these slots
    /// while this runs.
    pub(crate) unsafe fn open(&self, buckets: usize) {
        for slot in &self.entries[SHIFT..SHIFT + buckets.min(MAX_OPEN)] {
            if slot.load(Ordering::Relaxed).addr() == BLOCKED {
                slot.store(ptr::null_mut(), Ordering::Relaxed);
            }
        }
    }

    /// Takes the buffer out of entry `entry`, if it holds one (`None` also for a blocked
    /// entry): its pointer, which the caller owns from now on, as the `Box<[T]>` of `2 << entry`
    /// elements it came from.
    ///
    /// # Safety
    /// As for [`open`](Self::open).
    #[inline(always)]
    unsafe fn take_raw(&self, entry: Entry) -> Option<NonNull<T>> {
        let slot = self.slot(entry);
        // A load and a store, not a swap: under the owner protocol nobody else can take the
        // buffer between them. One compare rules out both an empty and a blocked entry.
        let taken = slot.load(Ordering::Acquire);
        if taken.addr() <= BLOCKED {
            return None;
        }
        slot.store(ptr::null_mut(), Ordering::Relaxed);
        // By the invariant on `entries`, `taken` came from `Box::into_raw` of a `Box<[T]>` of
        // exactly `2 << entry` elements, or, for zero-sized `T`, is a non-null pointer aligned
        // for `T`, which is all a `Box` of zero-sized elements needs. The entry is empty now,
        // and by the owner protocol (the caller's contract) no one else read it in between:
        // the caller is its only owner.
        NonNull::new(taken)
    }

    /// Serves a request of `len` elements from the slot of its bucket, if that slot holds a
    /// buffer (`rent(0)` and requests past every bucket have a blocked entry: they miss).
    ///
    /// # Safety
    /// As for [`open`](Self::open).
    #[inline(always)]
    pub(crate) unsafe fn take_request(&self, len: usize) -> Option<Lent<T>> {
        let entry = Entry::for_request(len);
        // SAFETY: the caller's contract is the same.
        let ptr = unsafe { self.take_raw(entry) }?;
        // The invariant on `Lent`: a buffer of `2 << entry` elements (a power of two), and
        // `len <= 2 << entry` since `entry` is `len`'s rounded up (`len` is not 0, whose entry
        // is blocked).
        Some(Lent {
            ptr,
            entry,
            len,
            _owns: PhantomData,
        })
    }

    /// Serves a request of `len` elements as [`take_request`](Self::take_request) does, as the
    /// `Box` of its bucket's capacity.
    ///
    /// # Safety
    /// As for [`open`](Self::open).
    #[inline(always)]
    pub(crate) unsafe fn take_request_buf(&self, len: usize) -> Option<Box<[T]>> {
        // SAFETY: the caller's contract is the same.
        unsafe { self.take_request(len) }.map(Lent::into_buf)
    }

    /// Takes the buffer out of slot `bucket`, if it holds one.
    ///
    /// # Safety
    /// As for [`open`](Self::open).
    pub(crate) unsafe fn take(&self, bucket: usize) -> Option<Box<[T]>> {
        let entry = Entry(bucket.checked_add(SHIFT)?.min(NO_ENTRY));
        // SAFETY: the caller's contract is the same.
        let ptr = unsafe { self.take_raw(entry) }?;
        let raw = ptr::slice_from_raw_parts_mut(ptr.as_ptr(), entry.capacity());
        // SAFETY: `ptr` is the pointer of a `Box<[T]>` of `2 << entry` elements, which the
        // caller owns now (see `take_raw`).
        Some(unsafe { Box::from_raw(raw) })
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
    pub(crate) unsafe fn put(&self, lent: Lent<T>) -> Result<(), Lent<T>> {
        let slot = self.slot(lent.entry);
        if !slot.load(Ordering::Acquire).is_null() {
            return Err(lent);
        }
        // An open, empty slot: it owns the buffer from here (the invariant on `entries` holds:
        // the entry is open, so a bucket's, a power of two, and by the invariant on `Lent` the
        // buffer has exactly `2 << entry` elements). `Release`, so that a thread that later
        // takes it under the owner protocol sees its contents.
        slot.store(into_slot(lent), Ordering::Release);
        Ok(())
    }

    /// Puts the buffer into its entry's slot and returns the buffer that slot held before, if
    /// any (the cache keeps the most recent one); or gives it back as `Err` when its entry is
    /// blocked (a size these slots do not cache, or slots not open).
    ///
    /// # Safety
    /// As for [`open`](Self::open).
    pub(crate) unsafe fn put_over(&self, lent: Lent<T>) -> Result<Option<Box<[T]>>, Lent<T>> {
        let entry = lent.entry;
        let slot = self.slot(entry);
        let previous = slot.load(Ordering::Acquire);
        if previous.addr() == BLOCKED {
            return Err(lent);
        }
        // As in `put`: the entry is open.
        slot.store(into_slot(lent), Ordering::Release);
        if previous.is_null() {
            return Ok(None);
        }
        let raw = ptr::slice_from_raw_parts_mut(previous, entry.capacity());
        // SAFETY: as in `take_raw`: `previous` was put in this entry by an earlier `put`, of
        // a buffer of `2 << entry` elements; the entry now holds another pointer, and by the
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
            if let Some(buf) = unsafe { self.take(bucket) } {
                f(bucket, buf);
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
