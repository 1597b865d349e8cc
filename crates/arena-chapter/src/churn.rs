//! Churn (A6): the workload the Zig seed did not measure. [`CHURN_LIVE`] objects stay live; each
//! of [`CHURN_STEPS`] steps frees a pseudo-random one and creates a new one in its place.
//!
//! The same loop runs over three stores: an arena, which cannot free one object (every new
//! object is fresh arena memory and "freeing" only drops the reference); the seed's free-list
//! pool ([`FreeListPool`]), which hands the slot just freed to the next object; and one `Box`
//! per object, where the global allocator's own free lists do the reusing. All three free and
//! create the same objects and return the same checksum.

use std::hint::black_box;

use arena::pool::FreeListPool;
use arena::{Node, node};
use bumpalo::Bump;
use typed_arena::Arena;

use crate::{Way, checksum, way};

/// Objects kept live.
pub const CHURN_LIVE: usize = 10_000;
/// Steps, each freeing one object and creating one.
pub const CHURN_STEPS: usize = 1_000_000;

/// A deterministic sequence of victims, each below [`CHURN_LIVE`].
#[inline(always)]
fn victims(steps: usize) -> impl Iterator<Item = usize> {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    (0..steps).map(move |_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % CHURN_LIVE as u64) as usize
    })
}

/// Where the churn loop keeps its objects.
trait Store {
    /// What the loop holds for a live object.
    type Handle;
    /// A new object.
    fn create(&mut self, node: Node) -> Self::Handle;
    /// Frees an object, returning its value.
    fn free(&mut self, handle: Self::Handle) -> Node;
    /// Reads a live object.
    fn get<'h>(&'h self, handle: &'h Self::Handle) -> &'h Node;
}

/// An arena: nothing is ever freed.
struct InArena<'a>(&'a Bump);

impl<'a> Store for InArena<'a> {
    type Handle = &'a Node;

    #[inline(always)]
    fn create(&mut self, node: Node) -> &'a Node {
        self.0.alloc(node)
    }

    #[inline(always)]
    fn free(&mut self, handle: &'a Node) -> Node {
        *handle
    }

    #[inline(always)]
    fn get<'h>(&'h self, handle: &'h &'a Node) -> &'h Node {
        handle
    }
}

impl<'a> Store for FreeListPool<'a, Node> {
    type Handle = &'a mut Node;

    #[inline(always)]
    fn create(&mut self, node: Node) -> &'a mut Node {
        FreeListPool::create(self, node)
    }

    #[inline(always)]
    fn free(&mut self, handle: &'a mut Node) -> Node {
        let node = *handle;
        self.destroy(handle);
        node
    }

    #[inline(always)]
    fn get<'h>(&'h self, handle: &'h &'a mut Node) -> &'h Node {
        handle
    }
}

/// One `Box` per object, from the global allocator.
struct Boxes;

impl Store for Boxes {
    type Handle = Box<Node>;

    #[inline(always)]
    fn create(&mut self, node: Node) -> Box<Node> {
        Box::new(node)
    }

    #[inline(always)]
    fn free(&mut self, handle: Box<Node>) -> Node {
        *handle
    }

    #[inline(always)]
    fn get<'h>(&'h self, handle: &'h Box<Node>) -> &'h Node {
        handle
    }
}

/// The churn loop over `store`: `live` objects, then `steps` steps that each free one and
/// create one in its place. Inlined, so each workload below has its own copy.
#[inline(always)]
fn churn<S: Store>(store: &mut S, live: usize, steps: usize) -> u64 {
    if live == 0 {
        return 0;
    }
    let mut slots: Vec<Option<S::Handle>> =
        (0..live).map(|i| Some(store.create(node(i)))).collect();
    let mut sum = 0u64;
    for (step, victim) in victims(steps).enumerate() {
        let slot = &mut slots[victim % live];
        if let Some(old) = slot.take() {
            sum = sum.rotate_left(1) ^ store.free(old).value;
        }
        *slot = Some(store.create(node(live + step)));
    }
    sum ^ checksum(slots.iter().flatten().map(|handle| store.get(handle)))
}

/// Churn through a `bumpalo` arena: nothing can be freed, so the arena holds every object ever
/// created.
#[inline(never)]
pub fn churn_arena<const COPY: u8>(live: usize, steps: usize) -> u64 {
    black_box(COPY);
    let bump = Bump::new();
    churn(&mut InArena(&bump), live, steps)
}

/// Churn through the seed's free-list pool: a freed slot is reused by the next object.
#[inline(never)]
pub fn churn_pool<const COPY: u8>(live: usize, steps: usize) -> u64 {
    black_box(COPY);
    let arena = Arena::new();
    let mut pool = FreeListPool::new(&arena);
    churn(&mut pool, live, steps)
}

/// Churn with one `Box` per object: `malloc` and `free` at every step.
#[inline(never)]
pub fn churn_box<const COPY: u8>(live: usize, steps: usize) -> u64 {
    black_box(COPY);
    churn(&mut Boxes, live, steps)
}

/// A churn workload: `run(live, steps)`.
pub type ChurnWay = Way<fn(usize, usize) -> u64>;

/// [`churn_arena`].
pub const CHURN_ARENA: ChurnWay = way!(churn_arena, "churn: `bumpalo` (nothing can be freed)");
/// [`churn_pool`].
pub const CHURN_POOL: ChurnWay = way!(churn_pool, "churn: free-list pool");
/// [`churn_box`].
pub const CHURN_BOX: ChurnWay = way!(churn_box, "churn: one `Box` per object");

/// A6's three stores, in the order of its table.
pub const CHURNS: [ChurnWay; 3] = [CHURN_ARENA, CHURN_POOL, CHURN_BOX];
