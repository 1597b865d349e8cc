//! Same code, different allocator, different calls (A4): the library's one function for any
//! allocator ([`arena::allocators::build_nodes`]), a wrapper that counts what each allocator
//! does, and an adapter that makes any global allocator (glibc's, mimalloc) one of them.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::ptr::NonNull;

use allocator_api2::alloc::{AllocError, Allocator, Global};
use arena::allocators::build_nodes;

use crate::checksum;

/// The push workload through any allocator: `n` pushes without reserving.
pub fn push_in<A: Allocator>(n: usize, alloc: A) -> u64 {
    checksum(build_nodes(n, alloc).iter())
}

/// What a [`Counting`] allocator saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Calls {
    /// `allocate` and `allocate_zeroed`.
    pub allocs: u64,
    /// Growths that kept the pointer.
    pub grown_in_place: u64,
    /// Growths that returned a new pointer into the old block: the block was extended where it
    /// was and the data shifted (`bumpalo` extends its last allocation downwards), so nothing
    /// was left behind.
    pub extended: u64,
    /// Growths that returned a pointer outside the old block. For glibc that is either a copy
    /// to a new block or, for a block above its mmap threshold, an `mremap` that gives the same
    /// pages a new address without copying a byte.
    pub moved: u64,
    /// Shrinks.
    pub shrunk: u64,
    /// `deallocate`.
    pub frees: u64,
}

/// Counts the calls that reach `inner`, classifying every growth as in place, extended or
/// moved.
#[derive(Debug, Default)]
pub struct Counting<A> {
    inner: A,
    calls: Cell<Calls>,
}

impl<A> Counting<A> {
    /// Wraps `inner`.
    pub fn new(inner: A) -> Self {
        Self {
            inner,
            calls: Cell::new(Calls::default()),
        }
    }

    /// The calls so far.
    pub fn calls(&self) -> Calls {
        self.calls.get()
    }

    fn record(&self, f: impl FnOnce(&mut Calls)) {
        let mut calls = self.calls.get();
        f(&mut calls);
        self.calls.set(calls);
    }
}

// SAFETY: every method forwards to `inner` with the caller's arguments and returns its result
// unchanged; the counting only reads pointers and touches a `Cell`. Blocks are always returned
// to the allocator that made them, because `grow`/`shrink` go to `inner` too.
unsafe impl<A: Allocator> Allocator for Counting<A> {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        let block = self.inner.allocate(layout)?;
        self.record(|c| c.allocs += 1);
        Ok(block)
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        self.record(|c| c.frees += 1);
        // SAFETY: the caller guarantees `ptr` was allocated by this allocator with `layout`,
        // and every block of this allocator is `inner`'s.
        unsafe { self.inner.deallocate(ptr, layout) }
    }

    unsafe fn grow(
        &self,
        ptr: NonNull<u8>,
        old_layout: Layout,
        new_layout: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: the caller upholds `Allocator::grow`'s contract, which we pass on.
        let block = unsafe { self.inner.grow(ptr, old_layout, new_layout)? };
        // Addresses only: the blocks overlap if each starts before the other ends.
        let (old, new) = (ptr.as_ptr() as usize, block.cast::<u8>().as_ptr() as usize);
        let overlaps = new < old + old_layout.size() && old < new + new_layout.size();
        self.record(|c| {
            if new == old {
                c.grown_in_place += 1;
            } else if overlaps {
                c.extended += 1;
            } else {
                c.moved += 1;
            }
        });
        Ok(block)
    }

    unsafe fn shrink(
        &self,
        ptr: NonNull<u8>,
        old_layout: Layout,
        new_layout: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        self.record(|c| c.shrunk += 1);
        // SAFETY: the caller upholds `Allocator::shrink`'s contract, which we pass on.
        unsafe { self.inner.shrink(ptr, old_layout, new_layout) }
    }
}

/// An allocator that never grows a block in place: every growth is a new block, a copy and a
/// free. It forwards only `allocate` and `deallocate` to the global allocator and keeps the
/// `Allocator` trait's default `grow`, which is exactly allocate, copy, deallocate.
///
/// It is the extreme case of the Zig seed's `DebugAllocator`, not a copy of it: that allocator
/// deliberately does not reuse addresses, so growing in place *usually* fails. (The seed's
/// failing test expected the "1 alloc + 21 remaps" its benchmark measured for 200,000 appends,
/// but ran 100,000, which by `ArrayList`'s growth rule change the capacity only 20 times —
/// [`crate::growth::zig_array_list_growth`] — so it could not hold under any allocator.)
/// `NeverInPlace` makes every growth move, so the count of moves equals the count of growths.
#[derive(Clone, Copy, Debug, Default)]
pub struct NeverInPlace;

// SAFETY: `allocate` and `deallocate` forward to `Global`, so every block this allocator hands
// out is a `Global` block and is freed by `Global`; the default `grow`/`shrink` only use these two.
unsafe impl Allocator for NeverInPlace {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        Global.allocate(layout)
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: `ptr` came from `Global` (see `allocate`) with `layout`.
        unsafe { Global.deallocate(ptr, layout) }
    }
}

/// Any global allocator (`std::alloc::System`, mimalloc's handle) as an [`Allocator`], with
/// growth and shrinking going to its own `realloc`: the allocator, not the trait's default,
/// decides whether a block grows in place (A4).
///
/// ```
/// use arena_chapter::allocators::{Counting, Through, push_in};
/// let glibc = Counting::new(Through(std::alloc::System));
/// push_in(1_000, &glibc);
/// let calls = glibc.calls();
/// // 1,000 pushes: the first allocation (4 nodes), then 8 doublings up to 1,024.
/// assert_eq!(calls.grown_in_place + calls.moved, 8);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Through<G>(pub G);

impl<G: GlobalAlloc> Through<G> {
    /// A block of `layout` from `get`, which is only called for a non-zero size (a zero-sized
    /// block is a dangling, well-aligned pointer, as the trait allows).
    fn block(layout: Layout, get: impl FnOnce() -> *mut u8) -> Result<NonNull<[u8]>, AllocError> {
        let ptr = if layout.size() == 0 {
            // An address equal to the alignment is non-null and aligned; no byte is ever read.
            NonNull::new(std::ptr::without_provenance_mut(layout.align()))
        } else {
            NonNull::new(get())
        };
        ptr.map(|p| NonNull::slice_from_raw_parts(p, layout.size()))
            .ok_or(AllocError)
    }

    /// `realloc` where it applies (same alignment, a non-empty block), otherwise allocate, copy
    /// and free.
    ///
    /// # Safety
    /// `ptr` is a block of this allocator with `old`; `new` is a valid layout.
    unsafe fn resize(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        if old.size() == 0 || new.size() == 0 || old.align() != new.align() {
            let block = self.allocate(new)?;
            // SAFETY: both blocks are valid for the smaller size and are distinct allocations
            // (`ptr` is still live); then `ptr` goes back with the layout it was made with.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    ptr.as_ptr(),
                    block.cast::<u8>().as_ptr(),
                    old.size().min(new.size()),
                );
                self.deallocate(ptr, old);
            }
            return Ok(block);
        }
        // SAFETY: `ptr` was allocated by `self.0` with `old` (non-zero size), `new.size()` is
        // non-zero, and a `Layout` never overflows `isize` when rounded to its alignment.
        Self::block(new, || unsafe {
            self.0.realloc(ptr.as_ptr(), old, new.size())
        })
    }
}

// SAFETY: non-empty blocks come from `G::alloc` / `G::realloc` and go back to `G::dealloc` /
// `G::realloc` with the layout they were made with; empty blocks are dangling and never freed.
// `resize` keeps the contents up to the smaller size, as `grow` and `shrink` require.
unsafe impl<G: GlobalAlloc> Allocator for Through<G> {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: `block` calls this only for a non-zero size.
        Self::block(layout, || unsafe { self.0.alloc(layout) })
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        if layout.size() != 0 {
            // SAFETY: the caller guarantees `ptr` is a live block of this allocator with
            // `layout`; a non-empty one came from `G`.
            unsafe { self.0.dealloc(ptr.as_ptr(), layout) }
        }
    }

    unsafe fn grow(
        &self,
        ptr: NonNull<u8>,
        old_layout: Layout,
        new_layout: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: the caller upholds `grow`'s contract, which is `resize`'s.
        unsafe { self.resize(ptr, old_layout, new_layout) }
    }

    unsafe fn shrink(
        &self,
        ptr: NonNull<u8>,
        old_layout: Layout,
        new_layout: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        // SAFETY: the caller upholds `shrink`'s contract, which is `resize`'s.
        unsafe { self.resize(ptr, old_layout, new_layout) }
    }
}
