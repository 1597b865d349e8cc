//! The order line written into a buffer that grows (P14): `write!` into a buffer rented with
//! `rent_buf`, into one `Vec<u8>` the caller owns and reuses, and into a fresh `Vec` per line.
//! Every arm runs the same [`write_line`]; they differ only in where the buffer comes from.

use std::hint::black_box;
use std::io::{self, Write};

use pool::BufferPool;

/// The seed's first order line as its fields: `1042|ต้มยำกุ้ง|2|18000\n` once written.
pub const ORDER: (u32, &str, u32, u64) = (1042, "ต้มยำกุ้ง", 2, 18_000);
/// The room each arm asks for up front: the .NET chapter's 128-byte buffer.
pub const WRITE_ROOM: usize = 128;
/// The room the growing arm asks for, smaller than the line, so that writing it moves the
/// buffer up through the pool's buckets (16, 32, then 64 bytes).
pub const SMALL_ROOM: usize = 16;

/// Writes the order line into `out` with `write!`: the encoding every arm of P14 runs. The
/// fields go through `black_box`, so the formatting is done on every call.
#[inline(always)]
pub fn write_line(out: &mut impl Write) -> io::Result<()> {
    let (id, item, qty, price) = black_box(ORDER);
    writeln!(out, "{id}|{item}|{qty}|{price}")
}

/// A value derived from the bytes written, so the work cannot be deleted (0 if nothing was).
#[inline(always)]
fn digest(bytes: &[u8]) -> u8 {
    let bytes = black_box(bytes);
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => first ^ last,
        _ => 0,
    }
}

/// The line written into one `Vec<u8>` the caller owns, `clear()`ed first: the baseline.
#[inline(always)]
pub fn write_reused(buf: &mut Vec<u8>) -> u8 {
    buf.clear();
    match write_line(buf) {
        Ok(()) => digest(buf),
        Err(_) => 0,
    }
}

/// The line written into a buffer rented from `pool` with room for `room` bytes, given back
/// when it drops.
#[inline(always)]
pub fn write_rented(pool: &BufferPool<u8>, room: usize) -> u8 {
    let mut buf = pool.rent_buf(room);
    match write_line(&mut buf) {
        Ok(()) => digest(&buf),
        Err(_) => 0,
    }
}

/// The line written into a fresh `Vec::with_capacity(WRITE_ROOM)`, freed at the end.
#[inline(always)]
pub fn write_fresh() -> u8 {
    let mut buf = Vec::with_capacity(WRITE_ROOM);
    match write_line(&mut buf) {
        Ok(()) => digest(&buf),
        Err(_) => 0,
    }
}

/// The bytes [`write_line`] writes: the seed's first line.
pub fn written() -> Vec<u8> {
    let mut out = Vec::new();
    // Writing into a `Vec` cannot fail.
    write_line(&mut out).map_or_else(|_| Vec::new(), |()| out)
}
