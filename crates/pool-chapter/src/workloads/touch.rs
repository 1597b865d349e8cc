//! The hit path's touch and every timed way to get a buffer for it (P9-time, P10, P10-hit): one
//! reused `Vec` the caller owns, a fresh heap buffer unzeroed (`Vec::with_capacity`) or zeroed
//! (`vec![0u8; n]`), a rent from a pool, a zeroed or an unzeroed stack array.

use std::hint::black_box;
use std::mem::MaybeUninit;

use pool::{BufferPool, PoolConfig};

/// The one touch every timed buffer gets, whatever holds it: write the first and the last
/// byte, hide both from the optimiser, read them back (the seed's `Touch`). The reads go through
/// references the optimiser cannot see through, so they are real loads for every buffer: the
/// timed ways to get a buffer differ only in how they reach it.
#[inline(always)]
pub fn touch_ends(first: &mut u8, last: &mut u8) -> u8 {
    *first = 1;
    *last = 2;
    let (first, last) = black_box((first, last));
    *first ^ *last
}

/// [`touch_ends`] on a buffer's first and last byte (a buffer of fewer than two bytes gets no
/// touch: 0).
#[inline(always)]
pub fn touch(buf: &mut [u8]) -> u8 {
    match buf {
        [first, .., last] => touch_ends(first, last),
        _ => 0,
    }
}

/// The buffer sizes of the size experiment (P10) and its criterion bench: seed `003`'s decades
/// from 100 bytes to 10 MB, plus 2 KiB and 8 KiB, the sizes chapter 2 measures.
pub const P10_SIZES: [usize; 8] = [
    100, 1000, 2048, 8192, 10_000, 100_000, 1_000_000, 10_000_000,
];

/// A pool like seed `003`'s `ArrayPool.Create(n + 1, 10)`: sized for requests of `n` bytes (its
/// largest bucket is `n` rounded up to a power of two), 10 buffers per bucket (P10).
pub fn pool_sized_for(n: usize) -> BufferPool<u8> {
    BufferPool::new(
        PoolConfig::default()
            .with_max_len(n)
            .with_max_per_bucket(10),
    )
}

/// Runs `f` on the first and last of `n` bytes of spare capacity of `buf` (at the front of its
/// spare capacity), each written (with 0) before `f` sees it, so no byte is read before it is
/// written and no `unsafe` is needed; the vector's length is left as it was. For fewer than two
/// bytes `f` does not run (`None`).
///
/// # Panics
/// If `buf` has fewer than `n` bytes of spare capacity.
#[inline(always)]
pub fn with_spare_ends<R>(
    buf: &mut Vec<u8>,
    n: usize,
    f: impl FnOnce(&mut u8, &mut u8) -> R,
) -> Option<R> {
    match &mut buf.spare_capacity_mut()[..n] {
        [first, .., last] => Some(f(first.write(0), last.write(0))),
        _ => None,
    }
}

/// Runs `f` on the two ends of `n` bytes of `buf`, one `Vec` the caller owns and reuses:
/// `clear()`, `reserve(n)` (which allocates only the first time, or when a larger `n` comes),
/// then the first and last of those `n` bytes written before `f` sees them. What every Rust
/// programmer already has: the buffer is passed down to the code that fills it.
#[inline(always)]
pub fn with_reused<R>(
    buf: &mut Vec<u8>,
    n: usize,
    f: impl FnOnce(&mut u8, &mut u8) -> R,
) -> Option<R> {
    buf.clear();
    buf.reserve(n);
    with_spare_ends(buf, n, f)
}

/// The reused buffer of [`with_reused`], touched the same way as every other buffer.
#[inline(always)]
pub fn reused_touch(buf: &mut Vec<u8>, n: usize) -> u8 {
    with_reused(buf, n, touch_ends).unwrap_or(0)
}

/// Runs `f` on the two ends of a fresh, unzeroed heap buffer of `n` bytes
/// (`Vec::with_capacity(n)`, written through `spare_capacity_mut`), freed afterwards: the
/// allocation without the zeroing.
#[inline(always)]
pub fn with_unzeroed<R>(n: usize, f: impl FnOnce(&mut u8, &mut u8) -> R) -> Option<R> {
    let mut buf = Vec::with_capacity(n);
    with_spare_ends(&mut buf, n, f)
}

/// A fresh, unzeroed heap buffer of `n` bytes, touched the same way as every other buffer, and
/// freed.
pub fn unzeroed_touch(n: usize) -> u8 {
    with_unzeroed(n, touch_ends).unwrap_or(0)
}

/// Runs `f` on a fresh zeroed heap buffer of `n` bytes (`vec![0u8; n]`, which asks the
/// allocator for zeroed memory: `calloc`), freed afterwards.
#[inline(always)]
pub fn with_fresh<R>(n: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    let mut buf = vec![0u8; n];
    f(&mut buf)
}

/// A fresh zeroed heap buffer of `n` bytes, touched and freed: the allocation and the zeroing.
pub fn fresh_touch(n: usize) -> u8 {
    with_fresh(n, touch)
}

/// A buffer of `n` bytes rented from `pool`, touched and given back: the hit path of P10 and
/// P13. Inlined into its caller, as a rent is into the code that makes it, so that what a
/// batch loop counts is the rent, the touch and the give-back, not a call to this function.
#[inline(always)]
pub fn rent_touch(pool: &BufferPool<u8>, n: usize) -> u8 {
    touch(&mut pool.rent(n))
}

/// The hit path with one bounds check more: the rented buffer sliced again to a length the
/// optimiser cannot see (`buf[..len]`), touched, given back. The guard's own view skips that
/// check; P10-hit counts what it would cost.
#[inline(always)]
pub fn rent_touch_checked(pool: &BufferPool<u8>, n: usize) -> u8 {
    let mut buf = pool.rent(n);
    let len = black_box(buf.len());
    touch(&mut buf[..len])
}

/// Runs `f` on a zeroed stack array of `N` bytes. The array goes through `black_box` first, so
/// the zeroing is real: the optimiser cannot know which bytes `f` reads.
#[inline(always)]
pub fn with_zeroed_stack<const N: usize, R>(f: impl FnOnce(&mut [u8]) -> R) -> R {
    let mut buf = [0u8; N];
    f(black_box(&mut buf))
}

/// A zeroed stack array of `N` bytes, touched.
pub fn zeroed_stack_touch<const N: usize>() -> u8 {
    with_zeroed_stack::<N, _>(touch)
}

/// Runs `f` on the first and last byte of an unzeroed stack array of `N` bytes
/// (`MaybeUninit`), each written (with 0) before `f` sees it, so no byte is read before it is
/// written and no `unsafe` is needed. For fewer than two bytes `f` does not run (`None`).
#[inline(always)]
pub fn with_unzeroed_stack_ends<const N: usize, R>(
    f: impl FnOnce(&mut u8, &mut u8) -> R,
) -> Option<R> {
    let mut buf = [const { MaybeUninit::<u8>::uninit() }; N];
    match &mut black_box(&mut buf)[..] {
        [first, .., last] => Some(f(first.write(0), last.write(0))),
        _ => None,
    }
}

/// An unzeroed stack array of `N` bytes, touched the same way as every other buffer.
pub fn uninit_stack_touch<const N: usize>() -> u8 {
    with_unzeroed_stack_ends::<N, _>(touch_ends).unwrap_or(0)
}

/// The buffer size of the contention workload (P12) and of the hit path: 8 KiB.
pub const HIT_BYTES: usize = 8192;
