//! M1 over another global allocator: `CountingAlloc::wrapping` counts the program's calls the same
//! way whatever allocator is underneath, and every call reaches that allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

use lab::count;

/// An allocator that is not the system allocator's type: it forwards to `System` and counts the
/// calls it receives, so the test can see that `CountingAlloc` really went through it.
#[derive(Debug, Clone, Copy)]
struct Tally;

static TALLY_ALLOCS: AtomicU64 = AtomicU64::new(0);
static TALLY_REALLOCS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the tally is an
// atomic counter that never allocates.
unsafe impl GlobalAlloc for Tally {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        TALLY_ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which we pass on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: every pointer `Tally` hands out is `System`'s.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        TALLY_REALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the block is `System`'s, and the caller upholds `realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

// SAFETY: `Tally` is a unit struct over `System`'s process-wide state and two static counters:
// every copy is the same allocator.
unsafe impl lab::alloc::Handle for Tally {}

#[global_allocator]
static ALLOC: lab::CountingAlloc<Tally> = lab::CountingAlloc::wrapping(Tally);

/// A `Vec<u64>` grown by `n` pushes, never reserved: one allocation, then reallocations.
fn pushed(n: u64) -> Vec<u64> {
    let mut values = Vec::new();
    for value in 0..n {
        values.push(black_box(value));
    }
    values
}

/// M1: the same counts as over the system allocator, and the inner allocator saw every call.
#[test]
fn counts_through_a_non_system_allocator_are_the_same() {
    let before = TALLY_ALLOCS.load(Ordering::Relaxed);
    let (boxed, stats) = count(|| Box::new(black_box(0u64)));
    assert_eq!((stats.allocs, stats.bytes_allocated), (1, 8));
    assert!(
        TALLY_ALLOCS.load(Ordering::Relaxed) > before,
        "the allocation must reach the inner allocator"
    );
    drop(boxed);

    let reallocs_before = TALLY_REALLOCS.load(Ordering::Relaxed);
    let (values, grown) = count(|| pushed(if cfg!(miri) { 2_000 } else { 20_000 }));
    assert_eq!(grown.allocs, 1);
    assert!(grown.reallocs >= 8, "{} reallocations", grown.reallocs);
    assert!(TALLY_REALLOCS.load(Ordering::Relaxed) - reallocs_before >= grown.reallocs);
    assert_eq!(grown.bytes_allocated, values.capacity() as u64 * 8);
}

/// M1: while counting is paused, calls still go to the inner allocator, uncounted.
#[test]
fn a_paused_thread_still_allocates_through_the_inner_allocator() {
    let before = TALLY_ALLOCS.load(Ordering::Relaxed);
    let paused = lab::alloc::pause();
    drop(black_box(Box::new(1u64)));
    drop(paused);
    assert!(TALLY_ALLOCS.load(Ordering::Relaxed) > before);
}
