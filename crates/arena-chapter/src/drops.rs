//! Who runs destructors (A7): values whose `Drop` is counted, put in arenas that are then
//! dropped.

use std::cell::Cell;
use std::hint::black_box;

use bumpalo::Bump;
use typed_arena::Arena;

thread_local! {
    static DROPS: Cell<usize> = const { Cell::new(0) };
}

/// A value whose destructor is counted: 8 bytes.
#[derive(Debug)]
pub struct Counted(pub u64);

impl Drop for Counted {
    fn drop(&mut self) {
        DROPS.with(|d| d.set(d.get() + 1));
    }
}

/// Destructors of [`Counted`] run on this thread so far.
pub fn drops() -> usize {
    DROPS.with(Cell::get)
}

/// The destructors `f` ran.
fn counting_drops(f: impl FnOnce()) -> usize {
    let before = drops();
    f();
    drops() - before
}

/// `k` values put in a `bumpalo::Bump`, then the arena dropped: the destructors run.
pub fn drops_bump(k: usize) -> usize {
    counting_drops(|| {
        let bump = Bump::new();
        for i in 0..k {
            bump.alloc(Counted(i as u64));
        }
    })
}

/// The same in a `typed_arena::Arena`.
pub fn drops_typed_arena(k: usize) -> usize {
    counting_drops(|| {
        let arena = Arena::new();
        for i in 0..k {
            arena.alloc(Counted(i as u64));
        }
    })
}

/// The same as `bumpalo::boxed::Box`es in a `Bump`, each dropped at the end of its scope.
pub fn drops_bump_box(k: usize) -> usize {
    counting_drops(|| {
        let bump = Bump::new();
        for i in 0..k {
            let boxed = bumpalo::boxed::Box::new_in(Counted(i as u64), &bump);
            black_box(&boxed);
        }
    })
}

/// The classic leak: the `k` values in a `Vec` from the global allocator, the `Vec` itself put
/// in a `Bump`. Nobody drops the `Vec`, so neither its values' destructors run nor is its heap
/// buffer (`k` × 8 bytes) ever freed.
pub fn drops_vec_in_bump(k: usize) -> usize {
    counting_drops(|| {
        let bump = Bump::new();
        let owner = bump.alloc((0..k as u64).map(Counted).collect::<Vec<_>>());
        black_box(&owner);
    })
}
