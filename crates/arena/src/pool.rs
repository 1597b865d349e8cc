//! The Zig seed's `MemoryPool`, in safe Rust (A1, A6).
//!
//! Zig's `std.heap.MemoryPool` holds an `ArenaAllocator` and a free list. `create` takes a freed
//! node if there is one, otherwise allocates a new one from the arena, and returns a pointer that
//! never moves; `destroy` puts the node on the free list. In a create-only workload it is
//! therefore the arena plus one check of the free list per object.
//!
//! [`FreeListPool`] is the same structure over a [`typed_arena::Arena`]. One difference: Zig's
//! free list is intrusive (the link to the next free node is written into the freed node itself,
//! which needs `unsafe` in Rust); here it is a side `Vec` of the freed references, so the pool
//! needs no `unsafe` at all and the borrow checker sees every hand-over. A `destroy` moves the
//! `&mut T` into the pool, so the caller cannot use the object afterwards.
//!
//! ```
//! let arena = typed_arena::Arena::new();
//! let mut pool = arena::pool::FreeListPool::new(&arena);
//! let first = pool.create(1u64);
//! let address = std::ptr::from_ref(&*first);
//! pool.destroy(first);
//! let second = pool.create(2u64);
//! assert_eq!(std::ptr::from_ref(&*second), address, "the freed slot is reused");
//! assert_eq!((*second, arena.len()), (2, 1));
//! ```

use typed_arena::Arena;

/// A pool of `T`s: objects come from a typed arena, freed objects go to a free list and are
/// handed out again before the arena is asked for more.
pub struct FreeListPool<'a, T> {
    arena: &'a Arena<T>,
    free: Vec<&'a mut T>,
}

impl<T> std::fmt::Debug for FreeListPool<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FreeListPool")
            .field("in_arena", &self.arena.len())
            .field("free_slots", &self.free.len())
            .finish()
    }
}

impl<'a, T> FreeListPool<'a, T> {
    /// A pool whose objects live in `arena` (and go when it goes).
    pub fn new(arena: &'a Arena<T>) -> Self {
        Self {
            arena,
            free: Vec::new(),
        }
    }

    /// An object holding `value`: a freed slot if there is one (its old value is dropped there),
    /// otherwise a new one from the arena.
    #[inline]
    pub fn create(&mut self, value: T) -> &'a mut T {
        match self.free.pop() {
            Some(slot) => {
                *slot = value;
                slot
            }
            None => self.arena.alloc(value),
        }
    }

    /// Gives `object` back to the pool: the next [`create`](Self::create) reuses its slot. Its
    /// value stays there until then (Zig's `destroy` does not run a destructor either).
    #[inline]
    pub fn destroy(&mut self, object: &'a mut T) {
        self.free.push(object);
    }

    /// Slots on the free list.
    pub fn free_slots(&self) -> usize {
        self.free.len()
    }
}
