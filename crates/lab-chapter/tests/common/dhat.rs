//! dhat (dhat-rs, in its testing mode) as a second instrument beside `lab::CountingAlloc`:
//! chapter 1's section "Two instruments" says what each counts and where they agree.
//!
//! Shared by the cross-checks of M1 (`crates/lab-chapter/tests/m1_dhat.rs`), A1-counts
//! (`crates/arena-chapter/tests/a1_counts_dhat.rs`) and R1
//! (`crates/receipt-chapter/tests/r1_dhat.rs`), each of which includes this file with
//! `#[path]`, installs [`DhatOnThisThread`] as its global allocator and holds one `#[test]`.
//!
//! dhat's [`dhat::HeapStats`] are process-wide. A test binary with one test still has a second
//! thread, the harness's, which allocates while it starts the test and waits for it; so the
//! global allocator hands dhat only the calls of the thread inside [`seen`], and every other
//! call goes straight to the system allocator. dhat's own bookkeeping allocates from inside its
//! allocator; it recognises those calls and passes them on uncounted, as [`seen`]'s ledger does.
//!
//! The two instruments count a `realloc` differently: `CountingAlloc` as one reallocation whose
//! growth is added to the bytes allocated; dhat as a new block (`total_blocks`) of its new size
//! (`total_bytes`). So beside dhat's figures [`seen`] keeps a ledger of this thread's
//! reallocations (how many, and how many bytes of each block survived it, the smaller of its old
//! and new sizes), which is exactly what dhat counts again and `CountingAlloc` does not.

#![allow(dead_code)] // each cross-check reads the figures its table publishes

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The cross-checks' global allocator: `dhat::Alloc` for the thread inside [`seen`], the system
/// allocator (which is also what `dhat::Alloc` allocates from) for every other call.
#[derive(Debug)]
pub struct DhatOnThisThread;

thread_local! {
    // `const` initialisers and `Copy` types: no lazy registration, no destructor, and so no
    // allocation from inside the allocator.
    /// Whether this thread's calls go to dhat (it is inside [`seen`]).
    static FED: Cell<bool> = const { Cell::new(false) };
    /// Whether this thread is inside a call to dhat: the calls dhat's bookkeeping makes meanwhile
    /// are not the program's, and stay out of the ledger.
    static INSIDE: Cell<bool> = const { Cell::new(false) };
    /// The ledger: reallocations, and the bytes of each block that survived it.
    static REALLOCS: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// Runs `call` as a call to dhat, noting in the ledger, for a call of the program's own (not one
/// of dhat's bookkeeping), that it is a reallocation keeping `kept` bytes.
fn to_dhat<T>(realloc_kept: Option<usize>, call: impl FnOnce() -> T) -> T {
    if INSIDE.get() {
        return call();
    }
    if let Some(kept) = realloc_kept {
        let (count, bytes) = REALLOCS.get();
        REALLOCS.set((count + 1, bytes + kept as u64));
    }
    INSIDE.set(true);
    let value = call();
    INSIDE.set(false);
    value
}

// SAFETY: every method forwards the caller's arguments unchanged, either to `dhat::Alloc`, which
// allocates from `System`, or to `System` itself; so every block is `System`'s, whichever path
// allocated it, and may be freed or grown through either path. The ledger is thread-local cells
// that never allocate.
unsafe impl GlobalAlloc for DhatOnThisThread {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if FED.get() {
            // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which we pass on.
            to_dhat(None, || unsafe { dhat::Alloc.alloc(layout) })
        } else {
            // SAFETY: as above.
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if FED.get() {
            // SAFETY: the block is `System`'s (see the impl), and dhat frees it there.
            to_dhat(None, || unsafe { dhat::Alloc.dealloc(ptr, layout) });
        } else {
            // SAFETY: the block is `System`'s.
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if FED.get() {
            let kept = layout.size().min(new_size);
            // SAFETY: the block is `System`'s, and the caller upholds `realloc`'s contract.
            to_dhat(Some(kept), || unsafe {
                dhat::Alloc.realloc(ptr, layout, new_size)
            })
        } else {
            // SAFETY: as above.
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }
}

/// What dhat saw while a closure ran, and the ledger of reallocations beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    /// dhat's `total_blocks`: blocks handed out, a reallocation counted as a new block.
    pub blocks: u64,
    /// dhat's `total_bytes`: bytes handed out, a reallocation counted at its whole new size.
    pub bytes: u64,
    /// dhat's `curr_blocks` when the closure returned: blocks it allocated and did not free
    /// (dhat ignores the freeing of a block it never saw allocated).
    pub live_blocks: u64,
    /// dhat's `max_bytes`: the peak of the live bytes it saw allocated, from zero at the start.
    pub peak_bytes: u64,
    /// The ledger: reallocations, counted beside dhat.
    pub reallocs: u64,
    /// The ledger: the bytes of each reallocated block that survived its reallocation (the
    /// smaller of its old and new sizes), which dhat's `total_bytes` counts a second time.
    pub realloc_kept: u64,
}

impl Seen {
    /// Allocations as `CountingAlloc` counts them: dhat's blocks less the reallocations.
    pub fn allocs(&self) -> u64 {
        self.blocks - self.reallocs
    }

    /// Bytes allocated as `CountingAlloc` counts them (each new block's size, and each
    /// reallocation's growth): dhat's bytes less what the reallocations kept.
    pub fn bytes_allocated(&self) -> u64 {
        self.bytes - self.realloc_kept
    }

    /// Deallocations of blocks allocated inside the closure: the allocations it did not leave
    /// live.
    pub fn deallocs(&self) -> u64 {
        self.allocs() - self.live_blocks
    }
}

/// Runs `f` under a new dhat profiler in testing mode, this thread's calls fed to dhat, and
/// returns its value with what dhat saw. The value is returned after the profiler stops, so its
/// drop is not seen.
pub fn seen<T>(f: impl FnOnce() -> T) -> (T, Seen) {
    let profiler = dhat::Profiler::builder()
        .testing()
        .trim_backtraces(Some(4))
        .build();
    let ledger = REALLOCS.get();
    FED.set(true);
    let value = f();
    FED.set(false);
    let (reallocs, realloc_kept) = REALLOCS.get();
    let stats = dhat::HeapStats::get();
    drop(profiler);
    let seen = Seen {
        blocks: stats.total_blocks,
        bytes: stats.total_bytes,
        live_blocks: stats.curr_blocks as u64,
        peak_bytes: stats.max_bytes as u64,
        reallocs: reallocs - ledger.0,
        realloc_kept: realloc_kept - ledger.1,
    };
    (value, seen)
}
