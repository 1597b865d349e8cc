//! The order line through a buffer: one per line, fresh, pooled or on the stack (P1); a line
//! that fails, by `?`, by a panic or by forgetting the guard (P6); and many buffers held at once
//! (P7).

use std::hint::black_box;

use pool::{BufferPool, Rented};

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
    held: &mut Vec<Rented<'p, u8>>,
    k: usize,
    len: usize,
) -> u8 {
    held.extend((0..k).map(|_| pool.rent(len)));
    let sum = held.iter().fold(0u8, |acc, b| acc ^ b[0]);
    held.clear();
    sum
}
