//! The counting allocator (experiment M1).
//!
//! [`CountingAlloc`] forwards every call to an inner global allocator (the system allocator by
//! default, any other with [`CountingAlloc::wrapping`]) through a [`stats_alloc::StatsAlloc`],
//! which keeps process-wide totals, and adds a per-thread layer on top: the numbers [`count`]
//! returns belong to the calling thread only.
//!
//! Why the per-thread layer is needed: `stats_alloc::Region` is a snapshot of process-global
//! counters, so under `cargo test` (tests run on parallel threads) a closure that allocates
//! nothing still "sees" the allocations of whatever test runs beside it.
//! Counted claims in this workspace are exact, so they must not depend on what other threads do.
//!
//! Accounting rules, stated once so every table means the same thing:
//! - `alloc` and `alloc_zeroed` are allocations of `layout.size()` bytes.
//! - `realloc` is never counted as an allocation plus a deallocation.
//!   It is one reallocation, classified by comparing the sizes and the returned pointer:
//!   *shrunk* (new size smaller), *grown in place* (same pointer) or *moved* (new pointer).
//!   Growth adds `new - old` to `bytes_allocated`; shrinking adds `old - new` to `bytes_freed`.
//!   So `bytes_allocated - bytes_freed` is always the change in live bytes.
//! - A failed allocation (null pointer) counts nothing.
//!
//! The counts are the program's *calls*, so they are the same under every inner allocator;
//! only whether a reallocation grew in place or moved depends on the allocator.
//!
//! Counting is not free: `stats_alloc`'s process-wide totals are atomic read-modify-writes on
//! every call. Timed runs therefore switch it off on their thread with [`pause`], so a timing
//! of `vec![0u8; n]` is the inner allocator's, not the instrument's; what remains is one
//! thread-local read per call.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};
use stats_alloc::StatsAlloc;

/// A `#[global_allocator]` that counts allocations per thread, over an inner allocator `A`.
///
/// ```
/// #[global_allocator]
/// static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();
///
/// let (boxed, stats) = lab::count(|| Box::new(0u64));
/// assert_eq!((stats.allocs, stats.bytes_allocated), (1, 8));
/// # drop(boxed);
/// ```
///
/// Over another global allocator, such as mimalloc (lab's `mimalloc` feature):
///
/// ```ignore
/// #[global_allocator]
/// static ALLOC: lab::CountingAlloc<lab::alloc::Mimalloc> =
///     lab::CountingAlloc::wrapping(lab::alloc::Mimalloc);
/// ```
///
/// `A` must be a [`Handle`]: the counting layer keeps one copy of it for the counted path
/// (inside `stats_alloc`'s wrapper, which does not hand its inner allocator back) and one for the
/// paused path, and both must be the same allocator.
#[derive(Debug)]
pub struct CountingAlloc<A: Handle = System> {
    /// The process-wide totals, forwarding to a copy of `inner`.
    counted: StatsAlloc<A>,
    /// The inner allocator, called directly while counting is paused on a thread.
    inner: A,
}

/// A global allocator type whose copies are all the same allocator: a handle to process-wide
/// state, as `System` and `Mimalloc` (the `mimalloc` feature) are.
///
/// # Safety
/// Memory allocated through one copy must be valid to free or grow through any other copy. A
/// type that keeps its state in itself (or keys it on its own address) must not implement it.
/// A handle type that does not derive `Copy` (`mimalloc::MiMalloc`) gets a one-line `Copy`
/// newtype that forwards to it, as `Mimalloc` does.
pub unsafe trait Handle: GlobalAlloc + Copy {}

// SAFETY: `System` is a unit struct over the C allocator's process-wide state.
unsafe impl Handle for System {}

impl CountingAlloc<System> {
    /// A counting allocator over the system allocator.
    pub const fn new() -> Self {
        Self::wrapping(System)
    }
}

impl Default for CountingAlloc<System> {
    fn default() -> Self {
        Self::new()
    }
}

impl<A: Handle> CountingAlloc<A> {
    /// A counting allocator over `inner`.
    pub const fn wrapping(inner: A) -> Self {
        Self {
            counted: StatsAlloc::new(inner),
            inner,
        }
    }

    /// Process-wide totals since start-up, from `stats_alloc` (all threads together, paused
    /// calls excluded).
    ///
    /// Useful for a whole-process view; never use it for a counted claim under `cargo test`.
    pub fn process_stats(&self) -> stats_alloc::Stats {
        self.counted.stats()
    }

    /// The inner allocator.
    pub fn inner(&self) -> &A {
        &self.inner
    }
}

/// What the current thread allocated while a closure ran. Returned by [`count`].
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllocStats {
    /// Calls to `alloc` and `alloc_zeroed` that succeeded.
    pub allocs: u64,
    /// Calls to `dealloc`.
    pub deallocs: u64,
    /// Calls to `realloc` that succeeded (`grown_in_place + moved + shrunk`).
    pub reallocs: u64,
    /// Reallocations to a larger size that returned the same pointer.
    pub grown_in_place: u64,
    /// Reallocations to a larger (or equal) size that returned a different pointer.
    pub moved: u64,
    /// Reallocations to a smaller size.
    pub shrunk: u64,
    /// Bytes handed out: allocation sizes plus the growth of reallocations.
    pub bytes_allocated: u64,
    /// Bytes given back: deallocation sizes plus the shrinkage of reallocations.
    pub bytes_freed: u64,
    /// The highest number of live bytes above the starting level at any moment inside the window.
    pub peak_live_bytes: u64,
}

impl AllocStats {
    /// Allocations plus reallocations: every call that could have asked the OS for memory.
    pub fn allocating_calls(&self) -> u64 {
        self.allocs + self.reallocs
    }

    /// Live bytes the window left behind (negative when it freed more than it allocated).
    pub fn net_bytes(&self) -> i64 {
        self.bytes_allocated as i64 - self.bytes_freed as i64
    }
}

/// Raw per-thread counters. `live` is signed: a thread may free what another allocated.
#[derive(Clone, Copy)]
struct Counters {
    allocs: u64,
    deallocs: u64,
    grown_in_place: u64,
    moved: u64,
    shrunk: u64,
    bytes_allocated: u64,
    bytes_freed: u64,
    live: i64,
    peak: i64,
}

const ZERO: Counters = Counters {
    allocs: 0,
    deallocs: 0,
    grown_in_place: 0,
    moved: 0,
    shrunk: 0,
    bytes_allocated: 0,
    bytes_freed: 0,
    live: 0,
    peak: 0,
};

thread_local! {
    // A `const` initialiser and a `Copy` type: no lazy registration, no destructor, and so no
    // allocation from inside the allocator.
    static COUNTERS: Cell<Counters> = const { Cell::new(ZERO) };
    static PAUSED: Cell<bool> = const { Cell::new(false) };
}

/// Threads paused process-wide ([`pause_process`]): every thread's calls skip the counting.
static PROCESS_PAUSES: AtomicUsize = AtomicUsize::new(0);

/// Whether counting is paused on this thread, or for the whole process (a thread whose locals
/// are being torn down counts as not paused on its own account).
fn paused() -> bool {
    PROCESS_PAUSES.load(Ordering::Relaxed) > 0 || PAUSED.try_with(Cell::get).unwrap_or(false)
}

/// Switches counting off on the calling thread until the guard is dropped: calls go straight to
/// the inner allocator, neither the per-thread counters nor the process-wide totals see them.
/// Used by timed runs (see the module docs); [`count`] refuses to run while paused.
#[must_use = "counting resumes when the guard is dropped"]
pub fn pause() -> Paused {
    Paused {
        was: PAUSED.with(|p| p.replace(true)),
    }
}

/// Switches counting off for every thread of the process until the guard is dropped, on top of
/// [`pause`] for the calling thread. The experiments runner uses it while it times (a timed
/// workload may spawn threads, and their allocations must not go through the instrument's
/// shared counters either); tests, whose threads count in parallel, use [`pause`].
#[must_use = "counting resumes when the guard is dropped"]
pub fn pause_process() -> ProcessPaused {
    PROCESS_PAUSES.fetch_add(1, Ordering::SeqCst);
    ProcessPaused { _thread: pause() }
}

/// Guard returned by [`pause_process`].
#[derive(Debug)]
pub struct ProcessPaused {
    /// The calling thread's own pause, restored after the process-wide one ends.
    _thread: Paused,
}

impl Drop for ProcessPaused {
    fn drop(&mut self) {
        PROCESS_PAUSES.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Guard returned by [`pause`]: restores the previous state when dropped.
#[derive(Debug)]
pub struct Paused {
    was: bool,
}

impl Drop for Paused {
    fn drop(&mut self) {
        PAUSED.with(|p| p.set(self.was));
    }
}

/// Set by the first call that goes through [`CountingAlloc`]: lets [`count`] refuse to report
/// zeros from a program that never installed it.
static INSTALLED: AtomicBool = AtomicBool::new(false);

fn record(update: impl FnOnce(&mut Counters)) {
    // `try_with` fails only while the thread's locals are being torn down; those frees are lost
    // to the per-thread view (they are still in the process-wide one) and no window is open then.
    let _ = COUNTERS.try_with(|cell| {
        let mut counters = cell.get();
        update(&mut counters);
        if counters.live > counters.peak {
            counters.peak = counters.live;
        }
        cell.set(counters);
    });
}

fn to_i64(bytes: usize) -> i64 {
    bytes as i64
}

/// Counts a successful `alloc` or `alloc_zeroed` of `layout`.
/// Marks the counting allocator as installed: a load on every call, a store only the first time.
fn mark_installed() {
    if !INSTALLED.load(Ordering::Relaxed) {
        INSTALLED.store(true, Ordering::Relaxed);
    }
}

fn record_alloc(ptr: *mut u8, layout: Layout) {
    mark_installed();
    if !ptr.is_null() {
        record(|c| {
            c.allocs += 1;
            c.bytes_allocated += layout.size() as u64;
            c.live += to_i64(layout.size());
        });
    }
}

// SAFETY: every method forwards to the inner allocator `A` (directly while paused, otherwise
// through `StatsAlloc<A>` over a copy of the same handle, see the type's docs) with the caller's
// arguments unchanged, and returns its result unchanged; so a pointer is always freed or grown by
// the allocator that produced it. The counting only reads sizes and pointers and touches a
// thread-local `Cell` that never allocates.
unsafe impl<A: Handle> GlobalAlloc for CountingAlloc<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if paused() {
            // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which we pass on.
            return unsafe { self.inner.alloc(layout) };
        }
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which we pass on.
        let ptr = unsafe { self.counted.alloc(layout) };
        record_alloc(ptr, layout);
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if paused() {
            // SAFETY: the caller upholds `GlobalAlloc::alloc_zeroed`'s contract, which we pass on.
            return unsafe { self.inner.alloc_zeroed(layout) };
        }
        // SAFETY: the caller upholds `GlobalAlloc::alloc_zeroed`'s contract, which we pass on.
        let ptr = unsafe { self.counted.alloc_zeroed(layout) };
        record_alloc(ptr, layout);
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if paused() {
            // SAFETY: `counted` allocates with a copy of `inner`, the same allocator, so every
            // pointer this allocator handed out, counted or not, is `inner`'s to free.
            return unsafe { self.inner.dealloc(ptr, layout) };
        }
        // SAFETY: the caller guarantees `ptr` came from this allocator with `layout`.
        unsafe { self.counted.dealloc(ptr, layout) };
        record(|c| {
            c.deallocs += 1;
            c.bytes_freed += layout.size() as u64;
            c.live -= to_i64(layout.size());
        });
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if paused() {
            // SAFETY: as for `dealloc`: the block is `inner`'s, and the caller upholds
            // `GlobalAlloc::realloc`'s contract, which we pass on.
            return unsafe { self.inner.realloc(ptr, layout, new_size) };
        }
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract, which we pass on.
        let new_ptr = unsafe { self.counted.realloc(ptr, layout, new_size) };
        mark_installed();
        if !new_ptr.is_null() {
            let old_size = layout.size();
            record(|c| {
                if new_size < old_size {
                    c.shrunk += 1;
                    c.bytes_freed += (old_size - new_size) as u64;
                } else {
                    if new_ptr == ptr {
                        c.grown_in_place += 1;
                    } else {
                        c.moved += 1;
                    }
                    c.bytes_allocated += (new_size - old_size) as u64;
                }
                c.live += to_i64(new_size) - to_i64(old_size);
            });
        }
        new_ptr
    }
}

fn snapshot() -> Counters {
    COUNTERS.with(Cell::get)
}

/// Makes sure the counting allocator is the global allocator, once per process.
fn assert_installed() {
    if INSTALLED.load(Ordering::Relaxed) {
        return;
    }
    drop(std::hint::black_box(Box::new(0u8)));
    assert!(
        INSTALLED.load(Ordering::Relaxed),
        "lab::count needs lab::CountingAlloc as the global allocator: add \
         `#[global_allocator] static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();` \
         to the binary or test file"
    );
}

/// Runs `f` and returns its value with what **this thread** allocated meanwhile.
///
/// Allocations made by other threads are never included, even threads `f` spawns.
/// Calls nest: an inner `count` sees only its own window, and the outer window includes the
/// inner one's allocations, exactly as if the inner call were not there.
///
/// # Panics
/// If [`CountingAlloc`] is not the program's `#[global_allocator]` (the counts would be zeros),
/// or if counting is [paused](pause) on this thread.
pub fn count<T>(f: impl FnOnce() -> T) -> (T, AllocStats) {
    assert!(
        !paused(),
        "lab::count called while counting is paused on this thread (inside a timed run?)"
    );
    assert_installed();
    let before = snapshot();
    // Open a peak window: the peak is measured from the live level at the start.
    COUNTERS.with(|cell| {
        let mut c = cell.get();
        c.peak = c.live;
        cell.set(c);
    });
    let value = f();
    let after = snapshot();
    // Close the window: the enclosing window's peak is the larger of the two.
    COUNTERS.with(|cell| {
        let mut c = cell.get();
        c.peak = c.peak.max(before.peak);
        cell.set(c);
    });
    let grown_in_place = after.grown_in_place - before.grown_in_place;
    let moved = after.moved - before.moved;
    let shrunk = after.shrunk - before.shrunk;
    let stats = AllocStats {
        allocs: after.allocs - before.allocs,
        deallocs: after.deallocs - before.deallocs,
        reallocs: grown_in_place + moved + shrunk,
        grown_in_place,
        moved,
        shrunk,
        bytes_allocated: after.bytes_allocated - before.bytes_allocated,
        bytes_freed: after.bytes_freed - before.bytes_freed,
        peak_live_bytes: (after.peak - before.live).max(0) as u64,
    };
    (value, stats)
}

/// mimalloc as a `Copy` handle (lab's `mimalloc` feature): forwards every call to
/// `mimalloc::MiMalloc`, a unit struct that does not derive `Copy`.
#[cfg(feature = "mimalloc")]
#[derive(Debug, Default, Clone, Copy)]
pub struct Mimalloc;

// SAFETY: `Mimalloc` is a unit struct forwarding to mimalloc's process-wide heaps.
#[cfg(feature = "mimalloc")]
unsafe impl Handle for Mimalloc {}

// SAFETY: every method forwards to `mimalloc::MiMalloc` with the caller's arguments unchanged and
// returns its result unchanged; `MiMalloc` is a stateless handle to the process-wide mimalloc.
#[cfg(feature = "mimalloc")]
unsafe impl GlobalAlloc for Mimalloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which we pass on.
        unsafe { mimalloc::MiMalloc.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc_zeroed`'s contract, which we pass on.
        unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller upholds `GlobalAlloc::dealloc`'s contract; the block is mimalloc's.
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract; the block is mimalloc's.
        unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
    }
}
