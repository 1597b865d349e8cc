//! Where the heap's cost jumps (S3): glibc's per-thread cache.
//!
//! S3's heap columns cost about the same from 16 B to 256 B and clearly more at 2 KiB. The
//! step is glibc's *tcache*: every thread keeps, per size class, a short LIFO list of blocks
//! it freed, and a `malloc` of a size it holds is served from that list without touching the
//! shared heap. glibc's default limit is 64 size classes 16 bytes apart, so requests of up to
//! 1,032 bytes on x86-64; a larger request takes the arena's general path (bins, splitting,
//! coalescing), and so does its `free`.
//!
//! The limit cannot be read from the process (`ld.so --list-tunables` shows only whether the
//! `glibc.malloc.tcache_max` tunable was set), but it can be observed without a clock: the
//! cache is last in, first out, the arena's path is not. [`reuses_last_freed`] frees two
//! blocks of one size and checks which one the next request gets back;
//! [`largest_lifo_request`] finds the largest size where it is the last one freed.
//!
//! Instruction counts say the same (callgrind, release build, one `malloc` + `free` pair of
//! the same size, warm): 146 instructions per pair up to 1,032 B, 328 from 1,033 B.

use std::hint::black_box;

/// Blocks taken before the first attempt, so the size class's cache list is empty whatever
/// this thread did before (glibc keeps at most 7 blocks per size class by default).
const DRAIN: usize = 16;

/// Attempts per size, each draining one block more than the last. A `malloc` that finds the
/// cache empty may refill it from the arena (glibc moves up to 7 spare blocks of that size
/// into it); if the refill leaves it full when the second block is freed, that block goes to
/// the arena and the attempt misses. How full the cache is depends on what came before, so
/// attempts differ in how much they drain; the arena's path never looks last in, first out.
const ATTEMPTS: usize = 8;

/// One attempt: `drain` blocks taken, two blocks freed, then one requested.
fn last_freed_comes_back(bytes: usize, drain: usize) -> bool {
    // `black_box` on every block: an optimised build may otherwise remove an allocation that
    // is never used, and then every size would look last in, first out.
    let drained: Vec<Vec<u8>> = (0..drain)
        .map(|_| black_box(Vec::with_capacity(bytes)))
        .collect();
    let first: Vec<u8> = black_box(Vec::with_capacity(bytes));
    let second: Vec<u8> = black_box(Vec::with_capacity(bytes));
    let last_freed = second.as_ptr() as usize;
    drop(first);
    drop(second);
    let again: Vec<u8> = black_box(Vec::with_capacity(bytes));
    let lifo = again.as_ptr() as usize == last_freed;
    drop(again);
    drop(drained);
    lifo
}

/// Whether, after two blocks of `bytes` are freed, the next request of `bytes` gets the
/// *last* one back (in any of a few attempts) — the signature of glibc's per-thread cache,
/// which is last in, first out. The arena's path gives back the first: the two freed
/// neighbours coalesce and are split again from the start.
///
/// Safe code only: the blocks are `Vec<u8>` buffers, and only their addresses are compared.
pub fn reuses_last_freed(bytes: usize) -> bool {
    (0..ATTEMPTS).any(|attempt| last_freed_comes_back(bytes, DRAIN + attempt))
}

/// Where the sizes whose blocks come back last in, first out ([`reuses_last_freed`]) end,
/// scanning up from `from` bytes in steps of 8 to `ceiling`: glibc's per-thread cache limit,
/// 1,032 bytes by default on x86-64. `None` if not even `from` does (another allocator).
///
/// Start at S3's 256 B or above: below 128 B glibc's fast bins are last in, first out too.
pub fn largest_lifo_request(from: usize, ceiling: usize) -> Option<usize> {
    (from.div_ceil(8)..=ceiling / 8)
        .map(|k| k * 8)
        .take_while(|&bytes| reuses_last_freed(bytes))
        .last()
}

/// Request sizes on both sides of the per-thread cache's limit, for a table that times
/// [`malloc_free`] or counts its instructions: S3's 256 B and 2 KiB, and the three sizes
/// around 1,032 B.
pub const AROUND_THE_CACHE_LIMIT: [usize; 5] = [256, 1024, 1032, 1040, 2048];

/// One `malloc` of `bytes` (a `Vec::with_capacity`, not zeroed), its first and last byte
/// written and read, and one `free`: the heap's share of S3's unzeroed column.
///
/// # Panics
/// If `bytes` is 0.
#[inline(never)]
pub fn malloc_free(bytes: usize) -> u8 {
    let mut buf = Vec::<u8>::with_capacity(bytes);
    let spare = black_box(buf.spare_capacity_mut());
    let first = *spare[0].write(1);
    let last = *spare[bytes - 1].write(2);
    black_box(&mut buf);
    first + last
}
