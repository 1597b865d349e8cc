//! The one touch, the copy mark and the stack arrays of S1, S3, S4 and S5, in a file of their own that needs
//! nothing but `std`: the workloads include it, and so does the S4 test's fixture
//! (`tests/fixtures/zeroing.rs`), which compiles it with `rustc -O` alone to read what LLVM
//! makes of each size. Both compile the same source.

use std::hint::black_box;
use std::mem::MaybeUninit;

/// Makes the copies of a measured function differ, so LLVM cannot merge them into one: each
/// copy stores its own constant where the optimiser cannot see it. Never 0, which S4's reader
/// would count as a zero store.
#[inline(always)]
pub fn mark<const COPY: u8>() {
    black_box(COPY | 0x80);
}

/// The seed's `Touch`, one body for every buffer, zeroed or not, on the stack or on the heap:
/// writes the first and the last value, hides the buffer from the optimiser, reads both back.
/// A call of its own (`#[inline(never)]`), so every measured function calls the same code, as
/// every method of the seed called one `NoInlining` body.
///
/// # Safety
/// `ptr` must be valid for reads and writes of `len` consecutive `f64`s, aligned, and `len`
/// at least 1. The values need not be initialised: both are written before they are read.
#[inline(never)]
pub unsafe fn touch_raw(ptr: *mut f64, len: usize) -> f64 {
    // SAFETY: the caller guarantees `len >= 1` values at `ptr`, so `0` and `len - 1` are in
    // bounds; each value is written before it is read.
    unsafe {
        let last = ptr.add(len - 1);
        ptr.write(1.0);
        last.write(2.0);
        let ptr = black_box(ptr);
        ptr.read() + ptr.add(len - 1).read()
    }
}

/// [`touch_raw`] on initialised values.
///
/// # Panics
/// If `buf` is empty.
#[inline(always)]
pub fn touch(buf: &mut [f64]) -> f64 {
    assert!(!buf.is_empty(), "nothing to touch");
    // SAFETY: a non-empty slice is valid for reads and writes of its `len` values.
    unsafe { touch_raw(buf.as_mut_ptr(), buf.len()) }
}

/// [`touch_raw`] on values that may be uninitialised: it writes both before reading them.
///
/// # Panics
/// If `buf` is empty.
#[inline(always)]
pub fn touch_uninit(buf: &mut [MaybeUninit<f64>]) -> f64 {
    assert!(!buf.is_empty(), "nothing to touch");
    // SAFETY: a non-empty slice of `MaybeUninit<f64>` is valid for reads and writes of `len`
    // `f64`s (same layout); `touch_raw` writes each value it reads first.
    unsafe { touch_raw(buf.as_mut_ptr().cast::<f64>(), buf.len()) }
}

/// A zeroed stack array of `N` values, touched.
#[inline(always)]
pub fn zeroed_stack<const N: usize>() -> f64 {
    let mut buf = [0.0f64; N];
    touch(&mut buf)
}

/// An unzeroed stack array of `N` values, touched: the same touch, on memory nobody zeroed.
#[inline(always)]
pub fn uninit_stack<const N: usize>() -> f64 {
    let mut buf = [const { MaybeUninit::<f64>::uninit() }; N];
    touch_uninit(&mut buf)
}
