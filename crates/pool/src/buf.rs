//! The buffers a renter writes into: [`RentedBuf`], which borrows its pool, and
//! [`OwnedRentedBuf`], which holds an `Arc` of it. Both track a length, grow within their
//! bucket, move to a larger bucket when they must (giving the smaller buffer back), and give
//! their buffer back when dropped.

use std::fmt;
use std::io;
use std::mem::{self, ManuallyDrop};
use std::ops::{Deref, DerefMut};
use std::ptr;
use std::sync::Arc;

use crate::{BufferPool, RentError, bucket_capacity};

/// A rented buffer to write into, from [`BufferPool::rent_buf`]: a `Vec`-like length over a
/// pooled buffer, which derefs to the elements written so far (never to the rest of the
/// buffer, which holds the previous renter's data), and gives the buffer back to its pool when
/// dropped.
///
/// It grows as a `Vec` does, but only through the pool's buckets: a write that fits its
/// capacity is a copy, and one that does not moves everything written to a buffer of the
/// bucket of the length it needs — the power of two at or above it (at least 16), so the next
/// bucket or one beyond, never a size between — and gives the smaller buffer back to the pool.
/// So a buffer that grows from capacity `c` to length `n` holds one buffer at a time (two while
/// it moves), and gives back at most one buffer of each bucket from `c`'s to the one below
/// `n`'s: a thread that writes one such buffer at a time leaves the pool at most one buffer per
/// bucket it went through. Above the pool's largest bucket it moves to exact powers of two
/// too, which the pool frees instead of keeping.
///
/// For `u8` it is an [`io::Write`] and a [`fmt::Write`] (whose writes return an error
/// instead of aborting when the buffer cannot grow), and, with the crate's `bytes` feature, a
/// `bytes::BufMut`.
///
/// A renter that held a secret gives the buffer back with
/// [`give_back_cleared`](Self::give_back_cleared), which clears every element it wrote, including
/// those it truncated away; a pool with [`ClearPolicy::OnReturn`](crate::ClearPolicy) clears
/// them too. The smaller buffers it moved out of while growing are always cleared before they go
/// back, whatever the policy: the renter could not clear them itself.
///
/// # Examples
///
/// ```
/// use hotpath_pool::{BufferPool, PoolConfig};
///
/// let p = BufferPool::<u8>::new(PoolConfig::new());
/// let mut receipt = p.rent_buf(16);
/// receipt.extend_from_slice(b"Order 1042\n");
/// receipt.extend_from_slice(b"Pad Thai x2 160.00\n"); // 30 bytes: moves to the 32-byte bucket
/// assert_eq!((receipt.len(), receipt.capacity()), (30, 32));
/// assert!(receipt.ends_with(b"160.00\n"));
/// drop(receipt); // both buffers are back in the pool
/// assert_eq!(p.stats().retained_bytes, 16 + 32);
/// ```
#[must_use = "dropping a `RentedBuf` gives the buffer back at once"]
pub struct RentedBuf<'pool, T: Copy + Default + Send + 'static> {
    /// Taken out exactly once, by `drop` or `give_back_cleared`.
    buf: ManuallyDrop<Box<[T]>>,
    /// The elements written and shown. Invariant: at most `buf.len()`.
    len: usize,
    /// With `len`, how many elements of `buf` were ever shown: `max(len, written)` is what the
    /// renter could have written (kept up to date only when `len` goes down).
    written: usize,
    pool: &'pool BufferPool<T>,
}

/// A [`RentedBuf`] whose guard owns an `Arc` of its pool (from
/// [`BufferPool::rent_buf_owned`]): `'static`, and `Send` when `T` is, so it can move to another
/// thread, or become the owner of a `bytes::Bytes` (`Bytes::from_owner`, through its
/// `AsRef<[u8]>`), which gives the buffer back when its last clone is dropped. Otherwise
/// exactly a [`RentedBuf`].
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use hotpath_pool::{BufferPool, OwnedRentedBuf, PoolConfig};
///
/// let p = Arc::new(BufferPool::<u8>::new(PoolConfig::new()));
/// let mut frame: OwnedRentedBuf<u8> = Arc::clone(&p).rent_buf_owned(64);
/// frame.extend_from_slice(b"PING");
/// let written = std::thread::spawn(move || frame.as_ref().to_vec()).join().unwrap();
/// assert_eq!(written, b"PING");
/// assert_eq!(p.stats().outstanding(), 0);
/// ```
#[must_use = "dropping an `OwnedRentedBuf` gives the buffer back at once"]
pub struct OwnedRentedBuf<T: Copy + Default + Send + 'static> {
    /// Taken out exactly once, by `drop` or `give_back_cleared`.
    buf: ManuallyDrop<Box<[T]>>,
    /// The elements written and shown. Invariant: at most `buf.len()`.
    len: usize,
    /// As [`RentedBuf`]'s.
    written: usize,
    pool: Arc<BufferPool<T>>,
}

impl<'pool, T: Copy + Default + Send + 'static> RentedBuf<'pool, T> {
    #[inline]
    pub(crate) fn new(buf: Box<[T]>, pool: &'pool BufferPool<T>) -> Self {
        let buf = ManuallyDrop::new(buf);
        Self {
            buf,
            len: 0,
            written: 0,
            pool,
        }
    }
}

impl<T: Copy + Default + Send + 'static> OwnedRentedBuf<T> {
    pub(crate) fn new(buf: Box<[T]>, pool: Arc<BufferPool<T>>) -> Self {
        let buf = ManuallyDrop::new(buf);
        Self {
            buf,
            len: 0,
            written: 0,
            pool,
        }
    }

    /// The pool this buffer goes back to.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use hotpath_pool::{BufferPool, PoolConfig};
    ///
    /// let p = Arc::new(BufferPool::<u8>::new(PoolConfig::new()));
    /// let buf = Arc::clone(&p).rent_buf_owned(16);
    /// assert!(Arc::ptr_eq(buf.pool(), &p));
    /// ```
    pub fn pool(&self) -> &Arc<BufferPool<T>> {
        &self.pool
    }
}

/// A length that does not fit in a `usize`: what `Vec` says, in the same words.
#[cold]
#[inline(never)]
fn capacity_overflow() -> ! {
    panic!("capacity overflow")
}

/// The methods and traits both buffers share, written once.
macro_rules! writable {
    ($buf:ident $(<$lt:lifetime>)?) => {
        impl<$($lt,)? T: Copy + Default + Send + 'static> $buf<$($lt,)? T> {
            /// How many elements were written (and are shown).
            ///
            /// # Examples
            ///
            /// ```
            /// use hotpath_pool::{BufferPool, PoolConfig};
            ///
            /// let p = BufferPool::<u8>::new(PoolConfig::new());
            /// let mut buf = p.rent_buf(100);
            /// buf.extend_from_slice(b"1042");
            /// assert_eq!(buf.len(), 4);
            /// ```
            #[inline]
            pub fn len(&self) -> usize {
                self.len
            }

            /// Whether nothing is written.
            ///
            /// # Examples
            ///
            /// ```
            /// use hotpath_pool::{BufferPool, PoolConfig};
            ///
            /// let p = BufferPool::<u8>::new(PoolConfig::new());
            /// let mut buf = p.rent_buf(100);
            /// assert!(buf.is_empty());
            /// buf.push(b'1');
            /// assert!(!buf.is_empty());
            /// ```
            #[inline]
            pub fn is_empty(&self) -> bool {
                self.len == 0
            }

            /// How many elements fit before the buffer has to move to a larger bucket: its
            /// bucket's size (a power of two of at least 16), exact for a buffer above the
            /// pool's largest bucket (a power of two too, once it has grown), 0 for
            /// `rent_buf(0)` before its first write.
            ///
            /// # Examples
            ///
            /// ```
            /// use hotpath_pool::{BufferPool, PoolConfig};
            ///
            /// let p = BufferPool::<u8>::new(PoolConfig::new());
            /// let mut buf = p.rent_buf(0);
            /// assert_eq!(buf.capacity(), 0);
            /// buf.push(1);
            /// assert_eq!(buf.capacity(), 16);
            /// ```
            #[inline]
            pub fn capacity(&self) -> usize {
                self.buf.len()
            }

            /// The elements written, as a slice (also what the buffer derefs to).
            ///
            /// # Examples
            ///
            /// ```
            /// use hotpath_pool::{BufferPool, PoolConfig};
            ///
            /// let p = BufferPool::<u8>::new(PoolConfig::new());
            /// let mut buf = p.rent_buf(16);
            /// buf.extend_from_slice(b"ok");
            /// assert_eq!(buf.as_slice(), b"ok");
            /// ```
            #[inline(always)]
            pub fn as_slice(&self) -> &[T] {
                // SAFETY: `len <= buf.len()` (the invariant on `len`), so the range is in
                // bounds; as the guards' `deref`, this skips a check that the hot path would
                // pay on every access.
                unsafe { self.buf.get_unchecked(..self.len) }
            }

            /// The elements written, as a mutable slice.
            ///
            /// # Examples
            ///
            /// ```
            /// use hotpath_pool::{BufferPool, PoolConfig};
            ///
            /// let p = BufferPool::<u8>::new(PoolConfig::new());
            /// let mut buf = p.rent_buf(16);
            /// buf.extend_from_slice(b"ok");
            /// buf.as_mut_slice().make_ascii_uppercase();
            /// assert_eq!(&buf[..], b"OK");
            /// ```
            #[inline(always)]
            pub fn as_mut_slice(&mut self) -> &mut [T] {
                // SAFETY: as in `as_slice`.
                unsafe { self.buf.get_unchecked_mut(..self.len) }
            }

            /// Appends one element, moving to the next bucket if the buffer is full.
            ///
            /// # Panics
            /// As `Vec::push`, if the buffer would exceed `isize::MAX` bytes; if the allocator
            /// refuses a larger buffer, the process aborts, as it does for a `Vec`
            /// ([`try_reserve`](Self::try_reserve) returns an error instead).
            ///
            /// # Examples
            ///
            /// ```
            /// use hotpath_pool::{BufferPool, PoolConfig};
            ///
            /// let p = BufferPool::<u32>::new(PoolConfig::new());
            /// let mut ids = p.rent_buf(16);
            /// for id in 0..17 {
            ///     ids.push(id);
            /// }
            /// assert_eq!((ids.len(), ids.capacity(), ids[16]), (17, 32, 16));
            /// ```
            #[inline]
            pub fn push(&mut self, value: T) {
                if self.len == self.buf.len() {
                    self.grow(self.len.checked_add(1).unwrap_or_else(|| capacity_overflow()));
                }
                self.buf[self.len] = value;
                self.len += 1;
            }

            /// Appends every element of `other`, moving to the bucket of the length it needs if
            /// they do not fit.
            ///
            /// # Panics
            /// As [`push`](Self::push).
            ///
            /// # Examples
            ///
            /// ```
            /// use hotpath_pool::{BufferPool, PoolConfig};
            ///
            /// let p = BufferPool::<u8>::new(PoolConfig::new());
            /// let mut buf = p.rent_buf(16);
            /// buf.extend_from_slice(&[b'x'; 40]); // 40 bytes: straight to the 64-byte bucket
            /// assert_eq!((buf.len(), buf.capacity()), (40, 64));
            /// ```
            #[inline]
            pub fn extend_from_slice(&mut self, other: &[T]) {
                let needed = self
                    .len
                    .checked_add(other.len())
                    .unwrap_or_else(|| capacity_overflow());
                if needed > self.buf.len() {
                    self.grow(needed);
                }
                self.buf[self.len..needed].copy_from_slice(other);
                self.len = needed;
            }

            /// Shortens what is written to its first `len` elements; no effect if `len` is at
            /// least [`len()`](Self::len). The capacity stays.
            ///
            /// # Examples
            ///
            /// ```
            /// use hotpath_pool::{BufferPool, PoolConfig};
            ///
            /// let p = BufferPool::<u8>::new(PoolConfig::new());
            /// let mut buf = p.rent_buf(16);
            /// buf.extend_from_slice(b"1042|Pad Thai");
            /// buf.truncate(4);
            /// assert_eq!(&buf[..], b"1042");
            /// ```
            #[inline]
            pub fn truncate(&mut self, len: usize) {
                if len < self.len {
                    self.written = self.written.max(self.len);
                    self.len = len;
                }
            }

            /// Empties the buffer, keeping its capacity: the next write starts at the beginning.
            ///
            /// # Examples
            ///
            /// ```
            /// use hotpath_pool::{BufferPool, PoolConfig};
            ///
            /// let p = BufferPool::<u8>::new(PoolConfig::new());
            /// let mut buf = p.rent_buf(16);
            /// buf.extend_from_slice(b"first");
            /// buf.clear();
            /// buf.extend_from_slice(b"2nd");
            /// assert_eq!((&buf[..], buf.capacity()), (&b"2nd"[..], 16));
            /// ```
            #[inline]
            pub fn clear(&mut self) {
                self.truncate(0);
            }

            /// Makes room for at least `additional` more elements, moving to the bucket of the
            /// length that needs if the buffer is too small.
            ///
            /// # Panics
            /// As [`push`](Self::push).
            ///
            /// # Examples
            ///
            /// ```
            /// use hotpath_pool::{BufferPool, PoolConfig};
            ///
            /// let p = BufferPool::<u8>::new(PoolConfig::new());
            /// let mut buf = p.rent_buf(16);
            /// buf.reserve(1000);
            /// assert_eq!(buf.capacity(), 1024);
            /// ```
            pub fn reserve(&mut self, additional: usize) {
                let needed = self
                    .len
                    .checked_add(additional)
                    .unwrap_or_else(|| capacity_overflow());
                if needed > self.buf.len() {
                    self.grow(needed);
                }
            }

            /// Like [`reserve`](Self::reserve), but a larger buffer that cannot be allocated
            /// — its size overflows, or the allocator refuses it — is an error, and the buffer
            /// stays as it was.
            ///
            /// # Examples
            ///
            /// ```
            /// use hotpath_pool::{BufferPool, PoolConfig};
            ///
            /// let p = BufferPool::<u8>::new(PoolConfig::new());
            /// let mut buf = p.rent_buf(16);
            /// buf.extend_from_slice(b"kept");
            /// assert!(buf.try_reserve(usize::MAX).is_err());
            /// assert_eq!((&buf[..], buf.capacity()), (&b"kept"[..], 16));
            /// buf.try_reserve(100)?;
            /// assert_eq!(buf.capacity(), 128);
            /// # Ok::<(), hotpath_pool::RentError>(())
            /// ```
            pub fn try_reserve(&mut self, additional: usize) -> Result<(), RentError> {
                let needed = self
                    .len
                    .checked_add(additional)
                    .ok_or_else(|| RentError::capacity_overflow(usize::MAX))?;
                if needed > self.buf.len() {
                    let capacity = bucket_capacity(needed)
                        .ok_or_else(|| RentError::capacity_overflow(needed))?;
                    let bigger = self.pool.try_take(capacity)?.into_buf();
                    self.move_to(bigger);
                }
                Ok(())
            }

            /// Resets every element this renter wrote — those it truncated or cleared away
            /// included — to `T::default()`, then gives the buffer back, as
            /// [`Rented::give_back_cleared`](crate::Rented::give_back_cleared) does (with its
            /// rules for a `T::default()` that panics). The smaller buffers it moved out of went
            /// back as they were, unless the pool clears on return.
            ///
            /// # Examples
            ///
            /// ```
            /// use hotpath_pool::{BufferPool, PoolConfig};
            ///
            /// let p = BufferPool::<u8>::new(PoolConfig::new());
            /// let mut card = p.rent_buf(16);
            /// card.extend_from_slice(b"4111111111111111");
            /// card.clear();
            /// card.give_back_cleared();
            /// assert!(p.rent(16).iter().all(|&b| b == 0));
            /// ```
            pub fn give_back_cleared(self) {
                let this = ManuallyDrop::new(self);
                let shown = this.len.max(this.written);
                // SAFETY: `this` is never dropped, so `drop` never takes `buf` or drops
                // `pool`: each field is read out exactly once, here, and owned from now on.
                let (buf, pool) = unsafe {
                    (ManuallyDrop::into_inner(ptr::read(&this.buf)), ptr::read(&this.pool))
                };
                pool.give_back_cleared(buf, shown);
            }

            /// Moves to the bucket of `needed` elements (more than the capacity), or aborts or
            /// panics as a `Vec` would.
            #[cold]
            #[inline(never)]
            fn grow(&mut self, needed: usize) {
                let capacity = bucket_capacity(needed).unwrap_or_else(|| capacity_overflow());
                let bigger = self.pool.take(capacity).into_buf();
                self.move_to(bigger);
            }

            /// Copies what is written into `bigger` (at least `len` elements), makes it the
            /// buffer and gives the old one back cleared, whatever the pool's policy: the renter
            /// cannot clear a buffer it no longer holds, so what it wrote must not stay there.
            /// Element code runs only after the swap (`T::default()`, which may panic), so a
            /// panic leaves the buffer whole.
            fn move_to(&mut self, mut bigger: Box<[T]>) {
                bigger[..self.len].copy_from_slice(self.as_slice());
                let shown = self.len.max(self.written);
                let smaller = mem::replace(&mut *self.buf, bigger);
                self.written = self.len;
                self.pool.give_back_cleared(smaller, shown);
            }
        }

        impl<$($lt,)? T: Copy + Default + Send + 'static> Deref for $buf<$($lt,)? T> {
            type Target = [T];
            #[inline(always)]
            fn deref(&self) -> &[T] {
                self.as_slice()
            }
        }

        impl<$($lt,)? T: Copy + Default + Send + 'static> DerefMut for $buf<$($lt,)? T> {
            #[inline(always)]
            fn deref_mut(&mut self) -> &mut [T] {
                self.as_mut_slice()
            }
        }

        impl<$($lt,)? T: Copy + Default + Send + 'static> AsRef<[T]> for $buf<$($lt,)? T> {
            #[inline]
            fn as_ref(&self) -> &[T] {
                self.as_slice()
            }
        }

        impl<$($lt,)? T: Copy + Default + Send + 'static> AsMut<[T]> for $buf<$($lt,)? T> {
            #[inline]
            fn as_mut(&mut self) -> &mut [T] {
                self.as_mut_slice()
            }
        }

        impl<$($lt,)? T: Copy + Default + Send + 'static> Extend<T> for $buf<$($lt,)? T> {
            fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
                let iter = iter.into_iter();
                self.reserve(iter.size_hint().0);
                for value in iter {
                    self.push(value);
                }
            }
        }

        impl<$($lt,)? T: Copy + Default + Send + 'static> Drop for $buf<$($lt,)? T> {
            #[inline]
            fn drop(&mut self) {
                let shown = self.len.max(self.written);
                // SAFETY: `drop` runs once, and nothing uses `buf` after it (as the guards'
                // `drop`); `give_back_cleared` takes the fields out of a buffer that is never
                // dropped.
                let buf = unsafe { ManuallyDrop::take(&mut self.buf) };
                self.pool.give_back_buf(buf, shown);
            }
        }

        impl<$($lt,)? T: Copy + Default + Send + 'static> fmt::Debug for $buf<$($lt,)? T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($buf))
                    .field("len", &self.len)
                    .field("capacity", &self.capacity())
                    .finish_non_exhaustive()
            }
        }

        /// Appends the bytes written; a buffer that cannot grow is an
        /// [`io::ErrorKind::OutOfMemory`] error (nothing is written), not an abort.
        impl$(<$lt>)? io::Write for $buf<$($lt,)? u8> {
            #[inline]
            fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
                self.write_all(bytes)?;
                Ok(bytes.len())
            }

            #[inline]
            fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
                if bytes.len() > self.buf.len() - self.len {
                    self.try_reserve(bytes.len())
                        .map_err(|err| io::Error::new(io::ErrorKind::OutOfMemory, err))?;
                }
                self.extend_from_slice(bytes);
                Ok(())
            }

            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }

        /// Appends the text's UTF-8 bytes; a buffer that cannot grow is a [`fmt::Error`]
        /// (nothing is written), not an abort.
        impl$(<$lt>)? fmt::Write for $buf<$($lt,)? u8> {
            #[inline]
            fn write_str(&mut self, text: &str) -> fmt::Result {
                if text.len() > self.buf.len() - self.len {
                    self.try_reserve(text.len()).map_err(|_| fmt::Error)?;
                }
                self.extend_from_slice(text.as_bytes());
                Ok(())
            }
        }

        /// With the `bytes` feature: writes go through [`extend_from_slice`](Self::extend_from_slice)
        /// and [`push`](Self::push), and a full buffer offered as a chunk moves to the next
        /// bucket first. The chunk is the buffer's capacity past what is written, to be
        /// written only (safe code cannot read it).
        ///
        /// ```
        /// use bytes::BufMut;
        /// use hotpath_pool::{BufferPool, PoolConfig};
        ///
        /// let p = BufferPool::<u8>::new(PoolConfig::new());
        /// let mut frame = p.rent_buf(16);
        /// frame.put_u16(7);
        /// frame.put_slice(b"PING");
        /// assert_eq!(&frame[..], b"\0\x07PING");
        /// ```
        #[cfg(feature = "bytes")]
        // SAFETY: `chunk_mut` is the buffer past `len`, in bounds; `advance_mut` moves `len`
        // only within the capacity (checked, so `len <= buf.len()` holds). Every element of a
        // rented buffer is initialised (the pool never lends uninitialised memory), so the
        // bytes `advance_mut` shows are initialised whatever the caller wrote.
        unsafe impl$(<$lt>)? bytes::BufMut for $buf<$($lt,)? u8> {
            #[inline]
            fn remaining_mut(&self) -> usize {
                // As a `Vec<u8>`'s: no buffer holds more than `isize::MAX` bytes.
                isize::MAX as usize - self.len
            }

            #[inline]
            unsafe fn advance_mut(&mut self, cnt: usize) {
                let room = self.buf.len() - self.len;
                assert!(cnt <= room, "advance_mut({cnt}) past the capacity: {room} bytes left");
                self.len += cnt;
            }

            #[inline]
            fn chunk_mut(&mut self) -> &mut bytes::buf::UninitSlice {
                if self.len == self.buf.len() {
                    self.grow(self.len.checked_add(1).unwrap_or_else(|| capacity_overflow()));
                }
                let len = self.len;
                bytes::buf::UninitSlice::new(&mut self.buf[len..])
            }

            #[inline]
            fn put_slice(&mut self, src: &[u8]) {
                self.extend_from_slice(src);
            }

            #[inline]
            fn put_u8(&mut self, n: u8) {
                self.push(n);
            }
        }
    };
}

writable!(RentedBuf<'pool>);
writable!(OwnedRentedBuf);
