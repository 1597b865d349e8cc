//! The recursion probes (S8, S9): a descent of 8 KiB frames, the same under `catch_unwind` and a
//! guard with a `Drop`, and where an 8 KiB array lives in a loop body and in a recursion.

use std::hint::black_box;

/// The frame the recursion probes use: one 8 KiB array (the seed's `stackalloc byte[8192]`).
pub const FRAME: usize = 8 * 1024;

/// Recurses `depth` times, each frame holding an 8 KiB array that is still in use when the
/// call below returns (so it cannot be turned into a loop). Uses about `depth × 8 KiB` of stack.
#[inline(never)]
pub fn descend(depth: usize) -> u8 {
    let mut frame = [0u8; FRAME];
    let frame = black_box(&mut frame);
    frame[0] = depth as u8;
    if depth == 0 {
        return frame[FRAME - 1];
    }
    let below = descend(depth - 1);
    black_box(frame)[0] ^ below
}

/// What [`descend_guarded`]'s guard prints to standard error when it is dropped.
pub const GUARD_DROPPED: &str = "the guard was dropped";
/// What [`descend_guarded`] prints to standard error when `catch_unwind` returns.
pub const UNWIND_CAUGHT: &str = "catch_unwind returned";

/// Prints [`GUARD_DROPPED`] when dropped.
struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        eprintln!("{GUARD_DROPPED}");
    }
}

/// S8: [`descend`] `depth` levels inside `std::panic::catch_unwind`, holding a guard whose
/// `Drop` prints [`GUARD_DROPPED`]; prints [`UNWIND_CAUGHT`] if `catch_unwind` returns. A
/// descent that fits prints both; one that overflows the stack prints neither: the process is
/// aborted, nothing unwinds, no destructor runs.
pub fn descend_guarded(depth: usize) -> u8 {
    let guard = Guard;
    let result = std::panic::catch_unwind(|| descend(depth));
    eprintln!("{UNWIND_CAUGHT}");
    drop(guard);
    result.unwrap_or(0)
}

/// The address of an 8 KiB stack array declared inside a loop body, iteration by iteration.
pub fn loop_addresses(iterations: usize) -> Vec<usize> {
    let mut addresses = Vec::with_capacity(iterations);
    for i in 0..iterations {
        let mut buf = [0u8; FRAME];
        let buf = black_box(&mut buf);
        buf[0] = i as u8;
        addresses.push(buf.as_ptr() as usize);
    }
    addresses
}

/// The address of the 8 KiB stack array of each level of a recursion `depth` deep.
pub fn recursion_addresses(depth: usize) -> Vec<usize> {
    #[inline(never)]
    fn level(depth: usize, out: &mut Vec<usize>) {
        let mut buf = [0u8; FRAME];
        let buf = black_box(&mut buf);
        out.push(buf.as_ptr() as usize);
        if depth > 1 {
            level(depth - 1, out);
        }
        black_box(buf);
    }
    let mut out = Vec::with_capacity(depth);
    level(depth, &mut out);
    out
}
