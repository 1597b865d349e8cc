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

/// A `Box` that nothing observes: allocated and dropped, its value never read. The optimiser
/// may remove the allocation altogether (in a release build it does): the counted twin of
/// [`box_u64`], and the reason a benchmark's sink matters for counts too.
pub fn box_u64_unobserved() {
    drop(Box::new(0u64));
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

/// The one touch every demonstration buffer gets, whatever holds it: write the first and the
/// last byte through a pointer hidden from the optimiser, then read both back. One body of work
/// for every method, so the methods differ only in how they reach their buffer.
///
/// # Safety
/// `ptr` must be valid for reads and writes of `len >= 1` bytes.
#[inline(always)]
unsafe fn touch(ptr: *mut u8, len: usize) -> u8 {
    let (ptr, last) = (black_box(ptr), black_box(len) - 1);
    // SAFETY: the caller guarantees `len` writable bytes at `ptr`, and `last < len`.
    unsafe {
        ptr.write(1);
        ptr.add(last).write(2);
    }
    let ptr = black_box(ptr);
    // SAFETY: both bytes were written just above (`black_box` may pretend to change the pointer
    // but returns the same one).
    unsafe { ptr.read() ^ ptr.add(last).read() }
}

// Each demonstration method is a function of its own, `#[inline(never)]`, generic over `COPY`:
// `f::<0>` and `f::<1>` are two copies of the measured code at two addresses (the method and its
// twin, registered with `Timing::method_pair`), and every method is reached the same way, by a
// direct call, so its stack frame is reserved on every call.

/// A zeroed 2 KiB stack array, touched. `black_box` makes the zeroing real: the optimiser
/// cannot know which bytes are read.
#[inline(never)]
pub fn zeroed_stack_2k<const COPY: u8>() -> u8 {
    black_box(COPY);
    let mut buf = [0u8; DEMO_BYTES];
    let buf = black_box(&mut buf);
    // SAFETY: the array holds DEMO_BYTES bytes.
    unsafe { touch(buf.as_mut_ptr(), DEMO_BYTES) }
}

/// A 2 KiB stack array that is never zeroed, touched the same way.
#[inline(never)]
pub fn uninit_stack_2k<const COPY: u8>() -> u8 {
    black_box(COPY);
    let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); DEMO_BYTES];
    let buf = black_box(&mut buf);
    // SAFETY: the array holds DEMO_BYTES bytes; `touch` reads only the two it writes first.
    unsafe { touch(buf.as_mut_ptr().cast(), DEMO_BYTES) }
}

/// A fresh zeroed 2 KiB heap buffer, touched.
#[inline(never)]
pub fn heap_2k<const COPY: u8>() -> u8 {
    black_box(COPY);
    let mut buf = vec![0u8; DEMO_BYTES];
    // SAFETY: the vector holds DEMO_BYTES bytes.
    unsafe { touch(buf.as_mut_ptr(), DEMO_BYTES) }
}

/// The floor: the same touch on a buffer that already exists.
#[inline(never)]
pub fn floor_touch<const COPY: u8>(existing: &mut [u8; DEMO_BYTES]) -> u8 {
    black_box(COPY);
    // SAFETY: the array holds DEMO_BYTES bytes.
    unsafe { touch(existing.as_mut_ptr(), DEMO_BYTES) }
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
