//! Where the heap's cost jumps (S3): glibc's per-thread cache, and the one call that skips it.
//!
//! glibc keeps, per thread and per size class, a short LIFO list of blocks it freed (the
//! *tcache*), and a `malloc` of a size it holds is served from that list without touching the
//! shared heap. Its default limit is 64 size classes 16 bytes apart, so requests of up to 1,032
//! bytes on x86-64; a larger request takes the arena's general path (bins, splitting,
//! coalescing), and so does its `free`.
//!
//! `vec![0.0; n]` is not a `malloc`: it asks the allocator for zeroed memory, which glibc
//! serves with `calloc`, and glibc's `calloc` (up to version 2.40) does not look in the
//! per-thread cache at all: it goes to the arena at every size, and zeroes what it gets there
//! unless the block is fresh from the operating system. So "zeroed minus unzeroed" on the heap
//! is `calloc`'s path minus `malloc`'s, not the zeroing alone, and it depends on the glibc
//! version (2.41 gave `calloc` a per-thread-cache path).
//!
//! The limit cannot be read from the process (`ld.so --list-tunables` shows only whether the
//! `glibc.malloc.tcache_max` tunable was set), but it can be observed without a clock: the
//! cache is last in, first out, the arena's path is not. [`reuses_last_freed`] frees two
//! blocks of one size and checks which one the next request gets back, through `malloc` or
//! through `calloc` ([`Request`]); [`largest_lifo_request`] finds the largest size where it is
//! the last one freed.

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

/// How a block is requested.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// `Vec::with_capacity`: the allocator's `alloc`, a `malloc` under glibc.
    Malloc,
    /// `vec![0u8; n]`: the allocator's `alloc_zeroed`, a `calloc` under glibc.
    Calloc,
}

impl Request {
    /// One block of `bytes`, by this kind of request.
    fn block(self, bytes: usize) -> Vec<u8> {
        black_box(match self {
            Request::Malloc => Vec::with_capacity(bytes),
            Request::Calloc => vec![0u8; bytes],
        })
    }
}

/// One attempt: `drain` blocks taken, two blocks freed, then one requested.
fn last_freed_comes_back(request: Request, bytes: usize, drain: usize) -> bool {
    // `black_box` on every block: an optimised build may otherwise remove an allocation that
    // is never used, and then every size would look last in, first out.
    let drained: Vec<Vec<u8>> = (0..drain).map(|_| request.block(bytes)).collect();
    let first = request.block(bytes);
    let second = request.block(bytes);
    let last_freed = second.as_ptr() as usize;
    drop(first);
    drop(second);
    let again = request.block(bytes);
    let lifo = again.as_ptr() as usize == last_freed;
    drop(again);
    drop(drained);
    lifo
}

/// Whether, after two blocks of `bytes` are freed, the next `request` of `bytes` gets the
/// *last* one back (in any of a few attempts) — the signature of glibc's per-thread cache,
/// which is last in, first out. The arena's path gives back the first: the two freed
/// neighbours coalesce and are split again from the start.
///
/// Safe code only: the blocks are `Vec<u8>` buffers, and only their addresses are compared.
pub fn reuses_last_freed(request: Request, bytes: usize) -> bool {
    (0..ATTEMPTS).any(|attempt| last_freed_comes_back(request, bytes, DRAIN + attempt))
}

/// Where the sizes whose `malloc`ed blocks come back last in, first out
/// ([`reuses_last_freed`]) end, scanning up from `from` bytes in steps of 8 to `ceiling`:
/// glibc's per-thread cache limit, 1,032 bytes by default on x86-64. `None` if not even `from`
/// does (another allocator).
///
/// Start at S3's 256 B or above: below 128 B glibc's fast bins are last in, first out too.
pub fn largest_lifo_request(from: usize, ceiling: usize) -> Option<usize> {
    (from.div_ceil(8)..=ceiling / 8)
        .map(|k| k * 8)
        .take_while(|&bytes| reuses_last_freed(Request::Malloc, bytes))
        .last()
}

/// Request sizes on both sides of the per-thread cache's limit, for a table that times
/// [`malloc_free`] and [`calloc_free`] or counts their instructions: S3's 256 B and 2 KiB, and
/// the three sizes around 1,032 B. Multiples of 8: the buffers hold `f64`s.
pub const AROUND_THE_CACHE_LIMIT: [usize; 5] = [256, 1024, 1032, 1040, 2048];

/// One `malloc` of `bytes` (a `Vec::<f64>::with_capacity`, not zeroed), touched, and one
/// `free`: S3's unzeroed heap arm at any size.
///
/// # Panics
/// If `bytes` is less than 8.
#[inline(never)]
pub fn malloc_free<const COPY: u8>(bytes: usize) -> f64 {
    crate::workloads::mark::<COPY>();
    crate::workloads::heap_uninit(bytes / 8)
}

/// One `calloc` of `bytes` (a `vec![0.0; n]`), touched, and one `free`: S3's zeroed heap arm at
/// any size.
///
/// # Panics
/// If `bytes` is less than 8.
#[inline(never)]
pub fn calloc_free<const COPY: u8>(bytes: usize) -> f64 {
    crate::workloads::mark::<COPY>();
    crate::workloads::heap_zeroed(bytes / 8)
}

/// The C library's version as `getconf GNU_LIBC_VERSION` prints it (`glibc 2.36`): `(2, 36)`.
/// `None` if the command fails or the C library is not glibc.
pub fn glibc_version() -> Option<(u32, u32)> {
    let out = std::process::Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
        .ok()
        .filter(|out| out.status.success())?;
    parse_glibc_version(&String::from_utf8_lossy(&out.stdout))
}

/// Parses `glibc 2.36` as `(2, 36)`.
///
/// ```
/// use stack_buffer_chapter::heap::parse_glibc_version;
/// assert_eq!(parse_glibc_version("glibc 2.36\n"), Some((2, 36)));
/// assert_eq!(parse_glibc_version("musl"), None);
/// ```
pub fn parse_glibc_version(text: &str) -> Option<(u32, u32)> {
    let version = text.trim().strip_prefix("glibc ")?;
    let mut parts = version.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// Whether glibc `version`'s `calloc` looks in the per-thread cache (2.41 added that path).
pub fn calloc_uses_the_thread_cache(version: (u32, u32)) -> bool {
    version >= (2, 41)
}

/// What a heap block of `bytes` occupies under glibc: the usable size of a block glibc's
/// `malloc` returns for that request (`malloc_usable_size`) plus the 8-byte size field in front
/// of it. glibc rounds a request up to a multiple of 16 with room for that field, and never
/// below 32 bytes. Asks glibc directly, whatever the program's global allocator, for several
/// blocks at once and takes the smallest: a block carved from a free chunk whose leftover was
/// too small to split off is 16 bytes larger, depending on what the heap holds at that moment.
/// `None` for 0 bytes or if `malloc` fails.
#[cfg(all(target_env = "gnu", not(miri)))]
pub fn glibc_chunk_bytes(bytes: usize) -> Option<usize> {
    use std::ffi::c_void;
    unsafe extern "C" {
        fn malloc(size: usize) -> *mut c_void;
        fn malloc_usable_size(ptr: *mut c_void) -> usize;
        fn free(ptr: *mut c_void);
    }
    if bytes == 0 {
        return None;
    }
    const BLOCKS: usize = 16;
    let mut blocks = [std::ptr::null_mut(); BLOCKS];
    let mut smallest = usize::MAX;
    // SAFETY: glibc's own `malloc`, `malloc_usable_size` and `free`, called as their contracts
    // say: `malloc_usable_size` only on a non-null block `malloc` returned and that is still
    // live, and every block (null or not: `free(NULL)` does nothing) freed exactly once.
    unsafe {
        for block in &mut blocks {
            *block = malloc(bytes);
            if !block.is_null() {
                smallest = smallest.min(malloc_usable_size(*block));
            }
        }
        for block in blocks {
            // `free(NULL)` does nothing.
            free(block);
        }
    }
    (smallest != usize::MAX).then_some(smallest + 8)
}
