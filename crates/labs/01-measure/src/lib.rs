//! Lab 1 (chapter 1): a benchmark that measures nothing.
//!
//! `measured_loop` is the body of a benchmark: it should compute `checksum(values)` once per
//! iteration, so that timing it and dividing by `iterations` gives the cost of one checksum.
//! It returns the right answer, but the optimiser deleted the work in the loop: the result of
//! each call is dropped, and a call with no observable effect is removed. Timed, it would report
//! a checksum of 1,000 values as free.
//!
//! Make the loop do the work, every iteration, and keep returning the checksum.
//! Grade it with `cargo xtask lab 1`.

/// The work being measured: a checksum of the values.
pub fn checksum(values: &[u64]) -> u64 {
    values.iter().fold(0u64, |acc, v| {
        acc.rotate_left(5) ^ v.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    })
}

/// Runs the measured work `iterations` times and returns its result.
pub fn measured_loop(values: &[u64], iterations: u64) -> u64 {
    for _ in 0..iterations {
        checksum(values);
    }
    checksum(values)
}
