#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod allocators;
pub mod contract;
#[cfg(feature = "experiments")]
pub mod experiments;
pub mod growth;

use std::cell::Cell;
use std::hint::black_box;

use bumpalo::Bump;
use slab::Slab;
use typed_arena::Arena;

/// The Zig seed's N: objects created per workload.
pub const N: usize = 200_000;

/// The small object every workload creates: 16 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Node {
    /// Its position in creation order.
    pub id: u64,
    /// A value derived from it, so the work cannot be skipped.
    pub value: u64,
}

/// The `i`-th node.
#[inline(always)]
pub fn node(i: usize) -> Node {
    let id = black_box(i as u64);
    Node {
        id,
        value: id.wrapping_mul(0x9E37_79B9_7F4A_7C15),
    }
}

/// Folds nodes into one number, so every workload returns something derived from all of them.
pub fn checksum<'a>(nodes: impl IntoIterator<Item = &'a Node>) -> u64 {
    nodes
        .into_iter()
        .fold(0, |acc, n| acc.rotate_left(5) ^ n.value ^ n.id)
}

/// `n` pushes onto a `Vec<Node>` that was not reserved: it grows geometrically.
pub fn push_no_reserve(n: usize) -> u64 {
    let mut nodes = Vec::new();
    for i in 0..n {
        nodes.push(node(i));
    }
    checksum(&nodes)
}

/// `n` pushes onto a `Vec<Node>` reserved once: one allocation, no growth.
pub fn push_reserved(n: usize) -> u64 {
    let mut nodes = Vec::with_capacity(n);
    for i in 0..n {
        nodes.push(node(i));
    }
    checksum(&nodes)
}

/// All `n` nodes in one boxed slice, built from an exact-size iterator: one allocation.
pub fn one_allocation(n: usize) -> u64 {
    let nodes: Box<[Node]> = (0..n).map(node).collect();
    checksum(nodes.iter())
}

/// One `Box` per node, kept in a reserved `Vec` of pointers (the seed's `create` in a loop):
/// `n + 1` allocations and `n + 1` deallocations.
pub fn box_per_item(n: usize) -> u64 {
    let mut nodes: Vec<Box<Node>> = Vec::with_capacity(n);
    for i in 0..n {
        nodes.push(Box::new(node(i)));
    }
    checksum(nodes.iter().map(|b| &**b))
}

/// One `bumpalo` allocation per node, the pointers also in the arena: the only calls to the
/// system allocator are the arena's chunks.
pub fn bump_per_item(n: usize) -> u64 {
    let bump = Bump::new();
    bump_nodes(&bump, n)
}

/// The same, with the arena sized up front (`Bump::with_capacity`): one chunk.
pub fn bump_with_capacity(n: usize) -> u64 {
    let bump = Bump::with_capacity(n * (size_of::<Node>() + size_of::<&Node>()));
    bump_nodes(&bump, n)
}

fn bump_nodes(bump: &Bump, n: usize) -> u64 {
    let nodes: &[&Node] = bump.alloc_slice_fill_with(n, |i| &*bump.alloc(node(i)));
    checksum(nodes.iter().copied())
}

/// One `typed_arena` allocation per node, the pointers in a reserved `Vec` (a typed arena holds
/// one type only).
pub fn typed_arena_per_item(n: usize) -> u64 {
    let arena = Arena::new();
    let mut nodes: Vec<&Node> = Vec::with_capacity(n);
    for i in 0..n {
        nodes.push(arena.alloc(node(i)));
    }
    checksum(nodes)
}

/// One slot per node in a free-list pool (`slab::Slab`): the seed's `MemoryPool`.
pub fn pool_per_item(n: usize) -> u64 {
    let mut pool = Slab::new();
    for i in 0..n {
        pool.insert(node(i));
    }
    checksum(pool.iter().map(|(_, n)| n))
}

/// One of A1's eight ways to create [`N`] nodes: the function, its name (the criterion bench's
/// label) and how the chapter's tables name it. The experiments, the bench and the tests all
/// iterate [`WAYS`].
#[derive(Clone, Copy, Debug)]
pub struct Way {
    /// The function's name.
    pub name: &'static str,
    /// The label in the chapter's tables (markdown).
    pub label: &'static str,
    /// The workload: creates `n` nodes and returns their checksum.
    pub run: fn(usize) -> u64,
}

/// Each of A1's ways by name, so a table or a conclusion can refer to one.
pub mod ways {
    use super::Way;

    /// A way named after its function, so the bench's name cannot drift from the code.
    macro_rules! way {
        ($function:ident, $label:literal) => {
            Way {
                name: stringify!($function),
                label: $label,
                run: super::$function,
            }
        };
    }

    /// [`push_no_reserve`](super::push_no_reserve).
    pub const PUSH_NO_RESERVE: Way = way!(push_no_reserve, "`Vec::push`, no reserve");
    /// [`push_reserved`](super::push_reserved).
    pub const PUSH_RESERVED: Way = way!(push_reserved, "`Vec::with_capacity` then push");
    /// [`one_allocation`](super::one_allocation).
    pub const ONE_ALLOCATION: Way = way!(one_allocation, "one allocation (`Box<[Node]>`)");
    /// [`box_per_item`](super::box_per_item).
    pub const BOX_PER_ITEM: Way = way!(box_per_item, "one `Box` per item");
    /// [`bump_per_item`](super::bump_per_item).
    pub const BUMP_PER_ITEM: Way = way!(bump_per_item, "`bumpalo`, one `alloc` per item");
    /// [`bump_with_capacity`](super::bump_with_capacity).
    pub const BUMP_WITH_CAPACITY: Way =
        way!(bump_with_capacity, "`bumpalo`, `Bump::with_capacity`");
    /// [`typed_arena_per_item`](super::typed_arena_per_item).
    pub const TYPED_ARENA_PER_ITEM: Way =
        way!(typed_arena_per_item, "`typed-arena`, one `alloc` per item");
    /// [`pool_per_item`](super::pool_per_item).
    pub const POOL_PER_ITEM: Way =
        way!(pool_per_item, "free-list pool (`slab`), one slot per item");
}

/// A1's eight ways, in the order of its table: the seed's rows, with the two it did not have
/// (`Bump::with_capacity`, `typed-arena`) before the pool.
pub const WAYS: [Way; 8] = [
    ways::PUSH_NO_RESERVE,
    ways::PUSH_RESERVED,
    ways::ONE_ALLOCATION,
    ways::BOX_PER_ITEM,
    ways::BUMP_PER_ITEM,
    ways::BUMP_WITH_CAPACITY,
    ways::TYPED_ARENA_PER_ITEM,
    ways::POOL_PER_ITEM,
];

/// The churn workload's size: objects kept live.
pub const CHURN_LIVE: usize = 10_000;
/// The churn workload's length: each step frees one object and creates one.
pub const CHURN_STEPS: usize = 2_000_000;

/// A deterministic sequence of victims for the churn workload.
fn victims(steps: usize) -> impl Iterator<Item = usize> {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    (0..steps).map(move |_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % CHURN_LIVE as u64) as usize
    })
}

/// What a churn run leaves behind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Churn {
    /// A value derived from every object created.
    pub checksum: u64,
    /// Bytes the structure holds at the end (the arena's chunks, or the pool's slots).
    pub bytes_held: usize,
}

/// Churn through an arena: it cannot free one object, so every step's new object is fresh
/// arena memory and "freeing" only drops the reference.
pub fn churn_arena(live: usize, steps: usize) -> Churn {
    let bump = Bump::new();
    let mut slots: Vec<&Node> = (0..live).map(|i| &*bump.alloc(node(i))).collect();
    let mut sum = 0u64;
    for (step, victim) in victims(steps).enumerate() {
        let victim = victim % live;
        sum = sum.rotate_left(1) ^ slots[victim].value;
        slots[victim] = bump.alloc(node(live + step));
    }
    Churn {
        checksum: sum ^ checksum(slots.iter().copied()),
        bytes_held: bump.allocated_bytes(),
    }
}

/// Churn through a free-list pool: a freed slot is reused by the next object.
pub fn churn_pool(live: usize, steps: usize) -> Churn {
    let mut pool = Slab::with_capacity(live);
    let mut keys: Vec<usize> = (0..live).map(|i| pool.insert(node(i))).collect();
    let mut sum = 0u64;
    for (step, victim) in victims(steps).enumerate() {
        let victim = victim % live;
        sum = sum.rotate_left(1) ^ pool.remove(keys[victim]).value;
        keys[victim] = pool.insert(node(live + step));
    }
    Churn {
        checksum: sum ^ checksum(keys.iter().map(|&k| &pool[k])),
        bytes_held: pool.capacity() * slot_size(),
    }
}

/// Bytes of one `Slab<Node>` slot (an enum of the value or a free-list link).
pub fn slot_size() -> usize {
    // `Slab` stores `Entry<T>`, private to the crate; its size is that of
    // `enum { Vacant(usize), Occupied(Node) }`.
    #[allow(dead_code)]
    enum Entry {
        Vacant(usize),
        Occupied(Node),
    }
    size_of::<Entry>()
}

thread_local! {
    static DROPS: Cell<usize> = const { Cell::new(0) };
}

/// A value whose destructor is counted (A7).
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

/// A7: `k` values put in a `bumpalo::Bump`, then the arena dropped: destructors run.
pub fn drops_bump(k: usize) -> usize {
    let before = drops();
    {
        let bump = Bump::new();
        for i in 0..k {
            bump.alloc(Counted(i as u64));
        }
    }
    drops() - before
}

/// A7: the same in a `typed_arena::Arena`.
pub fn drops_typed_arena(k: usize) -> usize {
    let before = drops();
    {
        let arena = Arena::new();
        for i in 0..k {
            arena.alloc(Counted(i as u64));
        }
    }
    drops() - before
}

/// A7: the same as `bumpalo::boxed::Box`es in a `Bump`, each dropped at the end of its scope.
pub fn drops_bump_box(k: usize) -> usize {
    let before = drops();
    {
        let bump = Bump::new();
        for i in 0..k {
            let boxed = bumpalo::boxed::Box::new_in(Counted(i as u64), &bump);
            black_box(&boxed);
        }
    }
    drops() - before
}

/// A7, the classic leak: an arena value that owns heap memory. The `Vec` inside is never
/// dropped, so its heap buffer is never freed. Returns the bytes that buffer asked for.
pub fn arena_value_owning_a_vec(len: usize) -> usize {
    let bump = Bump::new();
    let owner = bump.alloc(vec![0u64; len]);
    black_box(&owner);
    len * size_of::<u64>()
}
