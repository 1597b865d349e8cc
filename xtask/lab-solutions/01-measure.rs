//! Lab 1's reference solution: `black_box` on the input, so the compiler cannot compute the
//! checksum once and reuse it, and on each result, so the call is not dead.

use std::hint::black_box;

pub use lab_01_measure::checksum;

pub fn measured_loop(values: &[u64], iterations: u64) -> u64 {
    let mut last = 0;
    for _ in 0..iterations {
        last = black_box(checksum(black_box(values)));
    }
    last
}
