//! The chapter's workloads, one function each, called by the experiments, the criterion bench
//! and the tests (so the three always measure the same code).
//!
//! The domain is the .NET chapter's: an order line such as `1042|ต้มยำกุ้ง|2|18000\n` encoded as
//! UTF-8 into a 128-byte buffer, once per line.

use std::hint::black_box;
use std::mem::MaybeUninit;

use crate::BufferPool;

/// The seed's first order line: 41 bytes of UTF-8 (the dish name is 9 characters, 27 bytes).
pub const FIRST_LINE: &str = "1042|ต้มยำกุ้ง|2|18000\n";
/// The seed's second, shorter order line: 25 bytes.
pub const SECOND_LINE: &str = "7|ส้มตำ|1|6000\n";
/// The per-line buffer of the .NET chapter.
pub const LINE_BUFFER: usize = 128;

/// Copies `line` into the front of `buf` and hides the result from the optimiser; returns a
/// value derived from the bytes written, so the work cannot be deleted.
#[inline(always)]
pub fn encode_line(buf: &mut [u8], line: &str) -> u8 {
    let bytes = line.as_bytes();
    let n = bytes.len().min(buf.len());
    buf[..n].copy_from_slice(&bytes[..n]);
    let buf = black_box(buf);
    buf[0] ^ buf[n - 1]
}

/// One line through a fresh zeroed 128-byte heap buffer (what the .NET chapter's loop did).
pub fn line_fresh(line: &str) -> u8 {
    let mut buf = vec![0u8; LINE_BUFFER];
    encode_line(&mut buf, line)
}

/// One line through a 128-byte buffer rented from `pool` and given back.
pub fn line_pooled(pool: &BufferPool<u8>, line: &str) -> u8 {
    let mut buf = pool.rent(LINE_BUFFER);
    encode_line(&mut buf, line)
}

/// One line through a 128-byte stack array.
pub fn line_stack(line: &str) -> u8 {
    let mut buf = [0u8; LINE_BUFFER];
    encode_line(black_box(&mut buf), line)
}

/// `n` lines through `per_line`, folding the results so none can be skipped.
pub fn lines(n: usize, mut per_line: impl FnMut(&str) -> u8) -> u8 {
    (0..n).fold(0u8, |acc, _| acc ^ per_line(black_box(FIRST_LINE)))
}

/// The touch every buffer of the size experiments gets: write the first and last element,
/// hide the buffer, read both back (the seed's `Touch`).
#[inline(always)]
pub fn touch(buf: &mut [u8]) -> u8 {
    let last = buf.len() - 1;
    buf[0] = 1;
    buf[last] = 2;
    let buf = black_box(buf);
    buf[0] ^ buf[last]
}

/// A fresh zeroed heap buffer of `n` bytes, touched and freed.
pub fn fresh_touch(n: usize) -> u8 {
    let mut buf = vec![0u8; n];
    touch(&mut buf)
}

/// A buffer of `n` bytes rented from `pool`, touched and given back.
#[inline(always)]
pub fn rent_touch(pool: &BufferPool<u8>, n: usize) -> u8 {
    let mut buf = pool.rent(n);
    touch(&mut buf)
}

/// A zeroed stack array of `N` bytes, touched.
pub fn zeroed_stack_touch<const N: usize>() -> u8 {
    let mut buf = [0u8; N];
    touch(black_box(&mut buf))
}

/// An unzeroed stack array of `N` bytes (`MaybeUninit`), touched the same way: the two bytes
/// are written before they are read, and nothing else is read, so no `unsafe` is needed.
pub fn uninit_stack_touch<const N: usize>() -> u8 {
    let mut buf = [const { MaybeUninit::<u8>::uninit() }; N];
    let buf = black_box(&mut buf);
    let first = *buf[0].write(1);
    let last = *buf[N - 1].write(2);
    black_box(buf);
    first ^ last
}

/// What the next renter finds in a buffer given back without clearing (P4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleData {
    /// Whether the second rent returned the very same buffer.
    pub same_buffer: bool,
    /// Bytes the first renter wrote.
    pub first_written: usize,
    /// Non-zero bytes the second renter finds before writing anything.
    pub nonzero_before_writing: usize,
    /// Bytes the second renter wrote.
    pub second_written: usize,
    /// What `std::str::from_utf8` says about the first `first_written` bytes after the second
    /// write (a read with the wrong, remembered length): `Err(valid_up_to)` or `Ok`.
    pub wrong_length_read: Result<(), usize>,
    /// The same read, decoded lossily.
    pub wrong_length_lossy: String,
    /// Non-zero bytes the third renter finds after the second gave the buffer back.
    pub nonzero_after_second_return: usize,
}

/// The seed's stale-data sequence (P4) on a fresh pool with the given clearing policy: rent
/// 64 bytes, write the first line, give back; rent 64 again, count what is there, write the
/// shorter second line, read with the first line's length; give back; rent again and count.
pub fn stale_data(clear: crate::ClearPolicy) -> StaleData {
    let pool = BufferPool::<u8>::new(crate::PoolConfig {
        clear,
        ..crate::PoolConfig::default()
    });
    let nonzero = |buf: &[u8]| buf.iter().filter(|&&b| b != 0).count();
    let mut first = pool.rent(64);
    let first_written = write_str(&mut first, FIRST_LINE);
    let first_addr = first.as_ptr();
    drop(first);

    let mut second = pool.rent(64);
    let same_buffer = std::ptr::eq(second.as_ptr(), first_addr);
    let nonzero_before_writing = nonzero(&second);
    let second_written = write_str(&mut second, SECOND_LINE);
    let read = &second[..first_written];
    let wrong_length_read = std::str::from_utf8(read)
        .map(|_| ())
        .map_err(|e| e.valid_up_to());
    let wrong_length_lossy = String::from_utf8_lossy(read).into_owned();
    drop(second);

    let third = pool.rent(64);
    StaleData {
        same_buffer,
        first_written,
        nonzero_before_writing,
        second_written,
        wrong_length_read,
        wrong_length_lossy,
        nonzero_after_second_return: nonzero(&third),
    }
}

fn write_str(buf: &mut [u8], text: &str) -> usize {
    buf[..text.len()].copy_from_slice(text.as_bytes());
    text.len()
}

/// The error a line can fail with in the error-path workloads (P6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineError;

/// Encodes a line into a rented buffer and fails when asked: the guard gives the buffer back
/// on the `?` early return.
pub fn line_or_error(pool: &BufferPool<u8>, fail: bool) -> Result<u8, LineError> {
    let mut buf = pool.rent(LINE_BUFFER);
    let sum = encode_line(&mut buf, FIRST_LINE);
    check(fail)?;
    Ok(sum)
}

/// The same, but the error path calls `mem::forget` on the guard — the Rust spelling of the
/// .NET bug of returning only on the happy path. Safe, and the buffer is never given back.
pub fn line_or_error_forgetting(pool: &BufferPool<u8>, fail: bool) -> Result<u8, LineError> {
    let mut buf = pool.rent(LINE_BUFFER);
    let sum = encode_line(&mut buf, FIRST_LINE);
    if check(fail).is_err() {
        std::mem::forget(buf);
        return Err(LineError);
    }
    Ok(sum)
}

/// The same, but failing by panicking: the guard gives the buffer back during unwinding.
pub fn line_or_panic(pool: &BufferPool<u8>, fail: bool) -> u8 {
    let mut buf = pool.rent(LINE_BUFFER);
    let sum = encode_line(&mut buf, FIRST_LINE);
    if black_box(fail) {
        std::panic::panic_any(LineError);
    }
    sum
}

#[inline(never)]
fn check(fail: bool) -> Result<(), LineError> {
    if black_box(fail) {
        Err(LineError)
    } else {
        Ok(())
    }
}

/// Rents `k` buffers of `len` at once into `held`, then gives them all back (P7): one round.
/// `held` is the caller's, so its own storage is allocated once, not every round.
pub fn rent_many<'p>(
    pool: &'p BufferPool<u8>,
    held: &mut Vec<crate::Rented<'p, u8>>,
    k: usize,
    len: usize,
) -> u8 {
    held.extend((0..k).map(|_| pool.rent(len)));
    let sum = held.iter().fold(0u8, |acc, b| acc ^ b[0]);
    held.clear();
    sum
}
