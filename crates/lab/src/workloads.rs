//! The chapter 1 workloads: small, familiar allocations whose cost the counting allocator reports.
//!
//! One function each, called by the M1 experiment, the criterion bench and the tests.

use std::hint::black_box;

/// The seed's order line, split into its fields.
pub const ORDER_LINE: (u64, &str, u32, u64) = (1042, "ต้มยำกุ้ง", 2, 18000);

/// The number of pushes in the growth workload (the Zig seed's N).
pub const PUSHES: usize = 200_000;

/// One boxed `u64`.
pub fn box_u64() -> Box<u64> {
    Box::new(black_box(0u64))
}

/// An empty `Vec<u8>` with room for 128 bytes (the .NET chapter's per-line buffer).
pub fn vec_with_capacity_128() -> Vec<u8> {
    Vec::with_capacity(black_box(128))
}

/// A `String` holding a Thai dish name: 9 characters, 27 bytes of UTF-8.
pub fn thai_string() -> String {
    String::from(black_box("ต้มยำกุ้ง"))
}

/// `n` pushes onto a `Vec<u64>` that was not reserved: it grows geometrically.
pub fn push_u64(n: usize) -> Vec<u64> {
    let mut values = Vec::new();
    for value in 0..n as u64 {
        values.push(black_box(value));
    }
    values
}

/// `format!` of the seed's order line, `1042|ต้มยำกุ้ง|2|18000\n`.
pub fn format_order_line() -> String {
    let (order_id, item, qty, unit_price) = black_box(ORDER_LINE);
    format!("{order_id}|{item}|{qty}|{unit_price}\n")
}

/// The size of chapter 1's demonstration buffers: 2 KiB, the stack-buffer chapter's cap.
pub const DEMO_BYTES: usize = 2048;

/// The same touch for every demonstration buffer: write the first and last byte, hide the
/// buffer from the optimiser, read both back.
#[inline(always)]
fn touch(buf: &mut [u8]) -> u8 {
    let last = buf.len() - 1;
    buf[0] = 1;
    buf[last] = 2;
    let buf = black_box(buf);
    buf[0] ^ buf[last]
}

/// A zeroed 2 KiB stack array, touched. `black_box` makes the zeroing real: the optimiser
/// cannot know which bytes are read.
pub fn zeroed_stack_2k() -> u8 {
    let mut buf = [0u8; DEMO_BYTES];
    touch(black_box(&mut buf))
}

/// A 2 KiB stack array that is never zeroed, touched the same way.
pub fn uninit_stack_2k() -> u8 {
    let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); DEMO_BYTES];
    let buf = black_box(&mut buf);
    buf[0].write(1);
    buf[DEMO_BYTES - 1].write(2);
    let buf = black_box(buf);
    // SAFETY: both bytes were written just above; `black_box` may pretend to change the
    // buffer but cannot de-initialise what it was given initialised.
    unsafe { buf[0].assume_init() ^ buf[DEMO_BYTES - 1].assume_init() }
}

/// A fresh zeroed 2 KiB heap buffer, touched.
pub fn heap_2k() -> u8 {
    let mut buf = vec![0u8; DEMO_BYTES];
    touch(black_box(&mut buf))
}

/// The floor: the same touch on a buffer that already exists.
pub fn floor_touch(existing: &mut [u8; DEMO_BYTES]) -> u8 {
    touch(black_box(existing))
}

/// Values for the deleted-work demonstration (M7).
pub const CHECKSUM_LEN: usize = 1024;

/// A pure function over a slice: the optimiser may delete a call whose result is unused.
#[inline]
pub fn checksum(values: &[u64]) -> u64 {
    values.iter().fold(0u64, |acc, v| {
        acc.rotate_left(5) ^ v.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    })
}
