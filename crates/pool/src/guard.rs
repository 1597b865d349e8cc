//! The guards a rent hands out: [`Rented`], which borrows its pool, and [`OwnedRented`], which
//! holds an `Arc` of it. Both show exactly the requested length and give the buffer back when
//! dropped.

use std::fmt;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::ptr;
use std::sync::Arc;

use crate::BufferPool;
use crate::slot::Lent;

/// A rented buffer: derefs to `[T]` of the requested length, and gives the buffer back to its
/// pool when dropped — at the end of scope, on early return and during a panic's unwinding.
///
/// It borrows the pool, so the pool cannot be dropped while it is out, and it is the only way
/// to give a buffer back, so a buffer can be given back once and only to the pool that lent
/// it (see [`contract`](crate::contract)). To move a rented buffer to another thread that may
/// outlive the pool's borrow, rent an [`OwnedRented`] instead.
#[must_use = "dropping a `Rented` gives the buffer back at once"]
pub struct Rented<'pool, T: Copy + Default + Send + 'static> {
    /// The buffer, its slot's entry (so that giving it back does not work the slot out again)
    /// and the length shown. Taken out exactly once, by `drop`.
    buf: ManuallyDrop<Lent<T>>,
    pool: &'pool BufferPool<T>,
}

/// A rented buffer whose guard owns an `Arc` of its pool (from
/// [`BufferPool::rent_owned`]): `'static`, and `Send` when `T` is, so it can move into
/// `std::thread::spawn`. Otherwise exactly a [`Rented`]: the same length, the same counts,
/// given back when dropped.
#[must_use = "dropping an `OwnedRented` gives the buffer back at once"]
pub struct OwnedRented<T: Copy + Default + Send + 'static> {
    /// As [`Rented`]'s.
    buf: ManuallyDrop<Lent<T>>,
    pool: Arc<BufferPool<T>>,
}

impl<'pool, T: Copy + Default + Send + 'static> Rented<'pool, T> {
    #[inline(always)]
    pub(crate) fn new(buf: Lent<T>, pool: &'pool BufferPool<T>) -> Self {
        let buf = ManuallyDrop::new(buf);
        Self { buf, pool }
    }
}

impl<T: Copy + Default + Send + 'static> OwnedRented<T> {
    pub(crate) fn new(buf: Lent<T>, pool: Arc<BufferPool<T>>) -> Self {
        let buf = ManuallyDrop::new(buf);
        Self { buf, pool }
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
    /// let buf = Arc::clone(&p).rent_owned(16);
    /// assert!(Arc::ptr_eq(buf.pool(), &p));
    /// ```
    pub fn pool(&self) -> &Arc<BufferPool<T>> {
        &self.pool
    }
}

/// The methods and traits both guards share, written once.
macro_rules! guard {
    ($guard:ident $(<$lt:lifetime>)?) => {
        impl<$($lt,)? T: Copy + Default + Send + 'static> $guard<$($lt,)? T> {
            /// The capacity of the underlying buffer (a power of two ≥ 16, or exactly the
            /// request for `rent(0)` and for requests above the largest bucket). Only `len()`
            /// elements are shown.
            ///
            /// # Examples
            ///
            /// ```
            /// use hotpath_pool::{BufferPool, PoolConfig};
            ///
            /// let p = BufferPool::<u8>::new(PoolConfig::new());
            /// let buf = p.rent(1025);
            /// assert_eq!((buf.len(), buf.capacity()), (1025, 2048));
            /// ```
            pub fn capacity(&self) -> usize {
                self.buf.capacity()
            }

            /// Resets the elements this renter was shown to `T::default()`, then gives the
            /// buffer back: what a renter that held a secret should do. The next renter of the
            /// buffer reads `T::default()` where the secret was, whatever the pool's
            /// [`ClearPolicy`](crate::ClearPolicy) (the rest of the buffer was never shown to
            /// this renter, so it holds nothing this renter wrote). .NET's spelling is
            /// `Return(array, clearArray: true)`.
            ///
            /// A buffer that could not be cleared is never kept: if `T::default()` panics, or
            /// if this is called while the thread is already panicking (from a destructor
            /// during unwinding, where a second panic would abort), the buffer is freed and
            /// counted as given back and discarded, and the panic, if any, goes on.
            ///
            /// # Examples
            ///
            /// ```
            /// use hotpath_pool::{BufferPool, PoolConfig};
            ///
            /// let p = BufferPool::<u8>::new(PoolConfig::new());
            /// let mut card = p.rent(16);
            /// card.copy_from_slice(b"4111111111111111");
            /// card.give_back_cleared();
            /// assert!(p.rent(16).iter().all(|&b| b == 0));
            /// ```
            pub fn give_back_cleared(self) {
                let this = ManuallyDrop::new(self);
                // SAFETY: `this` is never dropped, so `drop` never takes `buf` or drops
                // `pool`: each field is read out exactly once, here, and owned from now on.
                let (buf, pool) = unsafe {
                    (ManuallyDrop::into_inner(ptr::read(&this.buf)), ptr::read(&this.pool))
                };
                let shown = buf.len();
                pool.give_back_cleared(buf.into_buf(), shown);
            }
        }

        impl<$($lt,)? T: Copy + Default + Send + 'static> Deref for $guard<$($lt,)? T> {
            type Target = [T];
            #[inline(always)]
            fn deref(&self) -> &[T] {
                // The lent buffer's own view of its `len` elements, with no check: a check
                // that could panic would have to drop the guard while unwinding, and so would
                // keep it out of registers on the hit path (P10-hit counts what one such check
                // costs).
                self.buf.as_slice()
            }
        }

        impl<$($lt,)? T: Copy + Default + Send + 'static> DerefMut for $guard<$($lt,)? T> {
            #[inline(always)]
            fn deref_mut(&mut self) -> &mut [T] {
                self.buf.as_mut_slice()
            }
        }

        /// The elements shown, as [`Deref`] gives them: with `u8`, an [`OwnedRented`] (or a
        /// `Rented<'static, u8>` of [`shared`](crate::shared)) can own a `bytes::Bytes`
        /// (`Bytes::from_owner`), which gives the buffer back when its last clone is dropped.
        impl<$($lt,)? T: Copy + Default + Send + 'static> AsRef<[T]> for $guard<$($lt,)? T> {
            #[inline]
            fn as_ref(&self) -> &[T] {
                self
            }
        }

        impl<$($lt,)? T: Copy + Default + Send + 'static> AsMut<[T]> for $guard<$($lt,)? T> {
            #[inline]
            fn as_mut(&mut self) -> &mut [T] {
                self
            }
        }

        impl<$($lt,)? T: Copy + Default + Send + 'static> Drop for $guard<$($lt,)? T> {
            #[inline(always)]
            fn drop(&mut self) {
                // SAFETY: `drop` runs once, and nothing uses `buf` after it: taking the buffer out
                // (instead of swapping an empty one in) leaves the field logically moved-from,
                // which `ManuallyDrop` keeps the compiler from dropping again.
                let buf = unsafe { ManuallyDrop::take(&mut self.buf) };
                let shown = buf.len();
                self.pool.give_back(buf, shown);
            }
        }

        impl<$($lt,)? T: Copy + Default + Send + 'static> fmt::Debug for $guard<$($lt,)? T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($guard))
                    .field("len", &self.buf.len())
                    .field("capacity", &self.capacity())
                    .finish_non_exhaustive()
            }
        }
    };
}

guard!(Rented<'pool>);
guard!(OwnedRented);
