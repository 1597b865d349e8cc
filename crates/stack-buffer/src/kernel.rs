//! The touch and the stack arrays of S1, S3 and S4, in a file of their own that needs nothing
//! but `std`: the workloads include it, and so does the S4 test's fixture
//! (`tests/fixtures/zeroing.rs`), which compiles it with `rustc -O` alone to read what LLVM
//! makes of each size. Both compile the same source.

use std::hint::black_box;
use std::mem::MaybeUninit;

/// The same touch for every buffer: write the first and last value, hide the buffer from the
/// optimiser, read both back (the seed's `Touch`).
#[inline(always)]
pub fn touch(buf: &mut [f64]) -> f64 {
    let last = buf.len() - 1;
    buf[0] = 1.0;
    buf[last] = 2.0;
    let buf = black_box(buf);
    buf[0] + buf[last]
}

/// A zeroed stack array of `N` values, touched.
#[inline(always)]
pub fn zeroed_stack<const N: usize>() -> f64 {
    let mut buf = [0.0f64; N];
    touch(black_box(&mut buf))
}

/// An unzeroed stack array of `N` values, touched: both values are written before they are
/// read, and nothing else is read, so no `unsafe` is needed.
#[inline(always)]
pub fn uninit_stack<const N: usize>() -> f64 {
    let mut buf = [const { MaybeUninit::<f64>::uninit() }; N];
    let buf = black_box(&mut buf);
    let first = *buf[0].write(1.0);
    let last = *buf[N - 1].write(2.0);
    black_box(buf);
    first + last
}
