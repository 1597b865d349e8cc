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
