//! Chapter 4's measuring code: the workloads, the experiments and the experiments binaries of
//! `docs/04-arena.md`, beside the [`arena`] library they measure.
//!
//! The crate root is A1's workloads, one function each, called by the experiments, the
//! criterion bench and the tests. Every timed workload is generic over `const COPY: u8`:
//! `f::<0>` and `f::<1>` are two machine-code copies of the same function, so the timing
//! protocol's twin is a copy of the measured code and not just of the loop around it. Call
//! `f::<0>`.
//!
//! - [`WAYS`]: A1's twelve ways to create [`N`] nodes, each a [`Way`] (name, label and both
//!   copies), one list for the experiments, the bench and the tests, each run through a
//!   [`Runner`] (which owns the buffer of the one way that reuses one):
//!   [`reused_vec`] (the baseline: a `Vec` the caller owns, reserved once and cleared per run),
//!   [`push_no_reserve`], [`push_reserved`], [`one_allocation`] (a `Vec` of [`Node`]s three
//!   more ways), [`u64s_extended`] (the seed's contiguous shape: bare `u64`s), [`box_per_item`],
//!   [`bump_per_item`], [`bump_through_dyn`] (the same arena through `&dyn Allocator`, an
//!   indirect call per allocation, as in Zig), [`bump_with_capacity`],
//!   [`typed_arena_per_item`], [`pool_per_item`] (the library's [`FreeListPool`]) and
//!   [`slab_per_item`];
//! - [`churn`]: 10,000 live objects, 1,000,000 free-one-create-one steps, through an arena, the
//!   free-list pool and one `Box` per object ([`churn::CHURNS`]);
//! - [`allocators::Counting`], [`allocators::NeverInPlace`], [`allocators::Through`] (any
//!   global allocator, glibc's or mimalloc, as an `Allocator` whose `realloc` decides growth)
//!   and [`allocators::push_in`], the library's
//!   [`build_nodes`](arena::allocators::build_nodes) as a workload, for A4;
//! - [`growth::push_growth`]: how many times 200,000 pushes change a `Vec`'s capacity (the first
//!   allocation and 16 growths) and what the growths carry over (A2, A3);
//!   [`growth::zig_array_list_growth`]: the same for Zig's `ArrayList`, from its growth rule;
//! - [`growth::bump_vec_grown_alone`], [`growth::bump_vec_grown_with_a_neighbour`],
//!   [`growth::bump_vec_grown_across_chunks`]: bumpalo extends its last allocation in place, so
//!   a vector grown alone leaves no garbage; a later allocation or a full chunk does (A4);
//! - [`drops`]: who runs destructors (A7).
//!
//! The experiments live in `src/experiments/`, one file per topic, declared once in
//! [`CHAPTER`]; `arena-experiments` runs them under the system allocator and
//! `arena-experiments-mimalloc` runs the timed ones (A1, A6) again under mimalloc.
#![deny(missing_docs)]

pub mod allocators;
pub mod churn;
pub mod drops;
mod experiments;
pub mod growth;

pub use experiments::CHAPTER;

use std::cell::RefCell;
use std::hint::black_box;
use std::rc::Rc;

use allocator_api2::alloc::Allocator;
use arena::pool::FreeListPool;
use arena::{Node, node};
use bumpalo::Bump;
use slab::Slab;
use typed_arena::Arena;

/// The Zig seed's N: objects created per workload.
pub const N: usize = 200_000;

/// Folds nodes into one number, so every workload returns something derived from all of them.
/// Always inlined, so each copy of a workload has its own copy of the fold.
#[inline(always)]
pub fn checksum<'a>(nodes: impl IntoIterator<Item = &'a Node>) -> u64 {
    nodes
        .into_iter()
        .fold(0, |acc, n| acc.rotate_left(5) ^ n.value ^ n.id)
}

/// The baseline every Rust programmer already has: the nodes in a `Vec` the caller owns and
/// reuses. It is reserved once, before the first run (by its [`Runner`]), and cleared at the
/// start of every run; then come the same `n` pushes and the same checksum as
/// [`push_reserved`], so once its capacity holds `n` nodes a run allocates nothing. A node's
/// handle is its index. The one difference from [`push_reserved`] is who owns the `Vec`, and so
/// how long it lives: across runs here, one run there.
#[inline(never)]
pub fn reused_vec<const COPY: u8>(nodes: &mut Vec<Node>, n: usize) -> u64 {
    black_box(COPY);
    nodes.clear();
    push_and_sum(nodes, n)
}

/// `n` pushes onto `nodes`, then the checksum of what it holds: the body [`reused_vec`] and
/// [`push_reserved`] share. Inlined, so each workload has its own copy.
#[inline(always)]
fn push_and_sum(nodes: &mut Vec<Node>, n: usize) -> u64 {
    for i in 0..n {
        nodes.push(node(i));
    }
    checksum(nodes.iter())
}

/// `n` pushes onto a `Vec<Node>` that was not reserved: it grows geometrically.
#[inline(never)]
pub fn push_no_reserve<const COPY: u8>(n: usize) -> u64 {
    black_box(COPY);
    let mut nodes = Vec::new();
    for i in 0..n {
        nodes.push(node(i));
    }
    checksum(&nodes)
}

/// `n` pushes onto a fresh `Vec<Node>` reserved for them: one allocation per run (not zeroed:
/// each push writes its node), no growth, but every `push` still checks the capacity. The same
/// body as [`reused_vec`], on a `Vec` of its own that is freed when the run ends.
#[inline(never)]
pub fn push_reserved<const COPY: u8>(n: usize) -> u64 {
    black_box(COPY);
    let mut nodes = Vec::with_capacity(n);
    push_and_sum(&mut nodes, n)
}

/// All `n` nodes in one boxed slice, collected from an exact-size iterator: one allocation and
/// no capacity check per node (the closest Rust has to Zig's `appendAssumeCapacity`).
#[inline(never)]
pub fn one_allocation<const COPY: u8>(n: usize) -> u64 {
    black_box(COPY);
    let nodes: Box<[Node]> = (0..n).map(node).collect();
    checksum(nodes.iter())
}

/// The seed's contiguous shape, for comparison: `n` bare `u64`s appended to a reserved
/// `Vec<u64>` with `extend(0..n)`, no `black_box` per value and no checksum (the optimiser may
/// vectorise the loop). Returns the length, so it does *not* compute the nodes' checksum.
#[inline(never)]
pub fn u64s_extended<const COPY: u8>(n: usize) -> u64 {
    black_box(COPY);
    let mut values: Vec<u64> = Vec::with_capacity(n);
    values.extend(0..n as u64);
    black_box(values.as_slice());
    values.len() as u64
}

/// One `Box` per node, kept in a reserved `Vec` of pointers (the seed's `create` in a loop):
/// `n + 1` allocations and `n + 1` deallocations.
#[inline(never)]
pub fn box_per_item<const COPY: u8>(n: usize) -> u64 {
    black_box(COPY);
    let mut nodes: Vec<Box<Node>> = Vec::with_capacity(n);
    for i in 0..n {
        nodes.push(Box::new(node(i)));
    }
    checksum(nodes.iter().map(|b| &**b))
}

/// One `bumpalo` allocation per node, the pointers also in the arena: the only calls to the
/// system allocator are the arena's chunks.
#[inline(never)]
pub fn bump_per_item<const COPY: u8>(n: usize) -> u64 {
    black_box(COPY);
    let bump = Bump::new();
    nodes_in_bump(&bump, n)
}

/// The same, with the arena sized up front (`Bump::with_capacity`): one chunk.
#[inline(never)]
pub fn bump_with_capacity<const COPY: u8>(n: usize) -> u64 {
    black_box(COPY);
    let bump = Bump::with_capacity(arena_bytes(n));
    nodes_in_bump(&bump, n)
}

/// One `bumpalo` allocation per node in an arena the caller owns and passes to every run:
/// [`Bump::reset`] at the start of each run frees its nodes at once and keeps its chunk, so once
/// the chunk holds `n` nodes and their pointers a run allocates nothing. The arena's answer to
/// [`reused_vec`]: the same body as [`bump_per_item`], on an arena that lives across runs.
#[inline(never)]
pub fn bump_reset<const COPY: u8>(bump: &mut Bump, n: usize) -> u64 {
    black_box(COPY);
    bump.reset();
    nodes_in_bump(bump, n)
}

/// The bytes an arena needs for `n` nodes and a slice of `n` pointers to them, in one chunk.
pub fn arena_bytes(n: usize) -> usize {
    n * (size_of::<Node>() + size_of::<&Node>())
}

/// The body of the rows above: a slice of `n` pointers in `bump`, each to a node allocated
/// in `bump` (`Bump::alloc` is `#[inline(always)]`, so each allocation is inlined here).
#[inline(always)]
pub fn nodes_in_bump(bump: &Bump, n: usize) -> u64 {
    let nodes: &[&Node] = bump.alloc_slice_fill_with(n, |i| &*bump.alloc(node(i)));
    checksum(nodes.iter().copied())
}

/// The seed's `buildNodes` shape: the same arena reached through `&dyn Allocator`, the
/// allocator hidden behind `black_box`, so no call can be inlined or devirtualised — one
/// indirect call per allocation, as through Zig's `std.mem.Allocator` vtable.
#[inline(never)]
pub fn bump_through_dyn<const COPY: u8>(n: usize) -> u64 {
    black_box(COPY);
    let bump = Bump::new();
    let by_ref = &bump;
    let arena: &dyn Allocator = black_box(&by_ref);
    let mut nodes = allocator_api2::vec::Vec::with_capacity_in(n, arena);
    for i in 0..n {
        let boxed = allocator_api2::boxed::Box::new_in(node(i), arena);
        // The node's memory is the arena's: it goes when the arena goes.
        nodes.push(&*allocator_api2::boxed::Box::leak(boxed));
    }
    checksum(nodes.iter().copied())
}

/// One `typed_arena` allocation per node, the pointers in a reserved `Vec` (a typed arena holds
/// one type only).
#[inline(never)]
pub fn typed_arena_per_item<const COPY: u8>(n: usize) -> u64 {
    black_box(COPY);
    let arena = Arena::new();
    pointers_to(n, |node| arena.alloc(node))
}

/// One object per node from a [`FreeListPool`] (the seed's `MemoryPool`: a `typed_arena` and a
/// free list), the pointers in a reserved `Vec`. Create-only, so every `create` finds the free
/// list empty and allocates from the arena.
#[inline(never)]
pub fn pool_per_item<const COPY: u8>(n: usize) -> u64 {
    black_box(COPY);
    let arena = Arena::new();
    let mut pool = FreeListPool::new(&arena);
    pointers_to(n, |node| pool.create(node))
}

/// `n` nodes, each placed by `create`, their pointers in a reserved `Vec`, folded into the
/// checksum. Inlined, so each workload has its own copy.
#[inline(always)]
fn pointers_to<'a>(n: usize, mut create: impl FnMut(Node) -> &'a mut Node) -> u64 {
    let mut nodes: Vec<&Node> = Vec::with_capacity(n);
    for i in 0..n {
        nodes.push(create(node(i)));
    }
    checksum(nodes)
}

/// One slot per node in an index-based pool (`slab::Slab`: a `Vec` of slots addressed by key,
/// with a free list of keys). It grows like a `Vec`, moving every object at each growth.
#[inline(never)]
pub fn slab_per_item<const COPY: u8>(n: usize) -> u64 {
    black_box(COPY);
    let mut pool = Slab::new();
    for i in 0..n {
        pool.insert(node(i));
    }
    checksum(pool.iter().map(|(_, n)| n))
}

/// One timed workload: its function's name (the criterion bench's label), how the chapter's
/// tables name it, and two machine-code copies of it — `run` (`f::<0>`) for every caller, and
/// `twin` (`f::<1>`) for the timing protocol's twin, which must be a separate copy of the
/// measured function. A1's ways are `Way<Body>`, called through a [`Runner`]; A6's churn
/// workloads are plain functions.
#[derive(Clone, Copy, Debug)]
pub struct Way<F = Body> {
    /// The function's name.
    pub name: &'static str,
    /// The label in the chapter's tables (markdown).
    pub label: &'static str,
    /// The workload (copy 0).
    pub run: F,
    /// The same workload, copy 1.
    pub twin: F,
}

/// What one of A1's workload functions is given.
#[derive(Clone, Copy, Debug)]
pub enum Body {
    /// `f(n)`: it allocates whatever it uses, every run.
    Allocates(fn(usize) -> u64),
    /// `f(&mut nodes, n)`: it fills a `Vec` its caller owns and passes to every run.
    Reuses(fn(&mut Vec<Node>, usize) -> u64),
    /// `f(&mut bump, n)`: it fills an arena its caller owns and passes to every run.
    ResetsArena(fn(&mut Bump, usize) -> u64),
}

/// One copy of one of A1's ways, ready to run: the caller of its function. For a way that
/// reuses a `Vec`, the runner holds that `Vec`, reserved when the runner is made, so that the
/// allocation happens before any timed or counted run; a way's two copies
/// ([`Way::runners`]) share it, since the buffer is the caller's and only the code is copied.
/// A way that allocates its own gets nothing, and its runner allocates nothing.
#[derive(Debug)]
pub enum Runner {
    /// A way that allocates its own.
    Allocates(fn(usize) -> u64),
    /// A way that fills a `Vec` its caller owns, and that `Vec`, shared by both copies.
    Reuses(fn(&mut Vec<Node>, usize) -> u64, Rc<RefCell<Vec<Node>>>),
    /// A way that fills an arena its caller owns, and that arena, shared by both copies.
    ResetsArena(fn(&mut Bump, usize) -> u64, Rc<RefCell<Bump>>),
}

impl Runner {
    /// A runner of `body`, with room for `n` nodes if it reuses a `Vec` or an arena: two
    /// allocations then, the `Vec`'s `n` nodes (or the arena's one chunk, [`arena_bytes`]) and
    /// the shared cell that holds it; none otherwise.
    pub fn new(body: Body, n: usize) -> Self {
        match body {
            Body::Allocates(f) => Self::Allocates(f),
            Body::Reuses(f) => Self::Reuses(f, Rc::new(RefCell::new(Vec::with_capacity(n)))),
            Body::ResetsArena(f) => Self::ResetsArena(
                f,
                Rc::new(RefCell::new(Bump::with_capacity(arena_bytes(n)))),
            ),
        }
    }

    /// A runner of `body` on the same `Vec` as this one (a new one if this runner has none).
    fn sharing(&self, body: Body, n: usize) -> Self {
        match (body, self) {
            (Body::Reuses(f), Self::Reuses(_, nodes)) => Self::Reuses(f, Rc::clone(nodes)),
            (Body::ResetsArena(f), Self::ResetsArena(_, bump)) => {
                Self::ResetsArena(f, Rc::clone(bump))
            }
            _ => Self::new(body, n),
        }
    }

    /// One run on `n` nodes: the way's checksum.
    #[inline]
    pub fn run(&mut self, n: usize) -> u64 {
        match self {
            Self::Allocates(f) => f(n),
            Self::Reuses(f, nodes) => f(&mut nodes.borrow_mut(), n),
            Self::ResetsArena(f, bump) => f(&mut bump.borrow_mut(), n),
        }
    }

    /// The capacity, in nodes, of the `Vec` this runner passes to its way (0 for a way that
    /// allocates its own or fills an arena).
    pub fn capacity(&self) -> usize {
        match self {
            Self::Allocates(_) | Self::ResetsArena(..) => 0,
            Self::Reuses(_, nodes) => nodes.borrow().capacity(),
        }
    }
}

impl Way<Body> {
    /// Copy 0, ready to run on up to `n` nodes without allocating a buffer of the caller's.
    pub fn runner(&self, n: usize) -> Runner {
        Runner::new(self.run, n)
    }

    /// Both copies, `[original, twin]`, as the timing protocol runs them: a reused `Vec`,
    /// reserved here for `n` nodes, is the one both copies fill.
    pub fn runners(&self, n: usize) -> [Runner; 2] {
        let original = Runner::new(self.run, n);
        let twin = original.sharing(self.twin, n);
        [original, twin]
    }
}

/// A way named after its generic function (which must be in scope), so the bench's name cannot
/// drift from the code. `way!(f, label)` is a plain function (A6); `way!(Allocates f, label)`,
/// `way!(Reuses f, label)` and `way!(ResetsArena f, label)` are A1's, a [`Body`].
macro_rules! way {
    ($function:ident, $label:expr) => {
        $crate::Way {
            name: stringify!($function),
            label: $label,
            run: $function::<0>,
            twin: $function::<1>,
        }
    };
    ($body:ident $function:ident, $label:expr) => {
        $crate::Way {
            name: stringify!($function),
            label: $label,
            run: $crate::Body::$body($function::<0>),
            twin: $crate::Body::$body($function::<1>),
        }
    };
}
pub(crate) use way;

/// Each of A1's ways by name, so a table or a conclusion can refer to one.
pub mod ways {
    use super::*;

    /// [`reused_vec`].
    pub const REUSED_VEC: Way = way!(
        Reuses reused_vec,
        "one reused `Vec`: reserved once, `clear()` then push per run"
    );
    /// [`push_no_reserve`].
    pub const PUSH_NO_RESERVE: Way = way!(Allocates push_no_reserve, "`Vec::push`, no reserve");
    /// [`push_reserved`].
    pub const PUSH_RESERVED: Way = way!(Allocates push_reserved, "`Vec::with_capacity` then push");
    /// [`one_allocation`].
    pub const ONE_ALLOCATION: Way = way!(
        Allocates one_allocation,
        "one allocation (`collect` into `Box<[Node]>`)"
    );
    /// [`u64s_extended`].
    pub const U64S_EXTENDED: Way = way!(
        Allocates u64s_extended,
        "the seed's shape: `Vec<u64>` reserved, `extend(0..n)`, no checksum"
    );
    /// [`box_per_item`].
    pub const BOX_PER_ITEM: Way = way!(Allocates box_per_item, "one `Box` per item");
    /// [`bump_per_item`].
    pub const BUMP_PER_ITEM: Way = way!(Allocates bump_per_item, "`bumpalo`, one `alloc` per item");
    /// [`bump_reset`]: timed in a pair with [`REUSED_VEC`] (A1-reuse), not in A1's round.
    pub const BUMP_RESET: Way = way!(
        ResetsArena bump_reset,
        "`bumpalo`, one arena kept and `reset()` per run"
    );
    /// [`bump_through_dyn`].
    pub const BUMP_THROUGH_DYN: Way = way!(
        Allocates bump_through_dyn,
        "`bumpalo` through `&dyn Allocator` (an indirect call per item)"
    );
    /// [`bump_with_capacity`].
    pub const BUMP_WITH_CAPACITY: Way =
        way!(Allocates bump_with_capacity, "`bumpalo`, `Bump::with_capacity`");
    /// [`typed_arena_per_item`].
    pub const TYPED_ARENA_PER_ITEM: Way =
        way!(Allocates typed_arena_per_item, "`typed-arena`, one `alloc` per item");
    /// [`pool_per_item`].
    pub const POOL_PER_ITEM: Way = way!(
        Allocates pool_per_item,
        "free-list pool (`typed-arena` + free list), one `create` per item"
    );
    /// [`slab_per_item`].
    pub const SLAB_PER_ITEM: Way = way!(
        Allocates slab_per_item,
        "index-based pool (`slab`), one `insert` per item"
    );
}

/// A1's twelve ways, in the order of its table: first the baseline, a `Vec` the caller reuses;
/// then the seed's rows, each followed by the rows this chapter adds to explain it. All but
/// [`ways::U64S_EXTENDED`] create the same `N` nodes and return the same checksum.
pub const WAYS: [Way; 12] = [
    ways::REUSED_VEC,
    ways::PUSH_NO_RESERVE,
    ways::PUSH_RESERVED,
    ways::ONE_ALLOCATION,
    ways::U64S_EXTENDED,
    ways::BOX_PER_ITEM,
    ways::BUMP_PER_ITEM,
    ways::BUMP_THROUGH_DYN,
    ways::BUMP_WITH_CAPACITY,
    ways::TYPED_ARENA_PER_ITEM,
    ways::POOL_PER_ITEM,
    ways::SLAB_PER_ITEM,
];
