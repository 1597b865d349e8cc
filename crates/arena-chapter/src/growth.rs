//! How a growing vector uses its allocator, counted without a clock (A2, A3, A4).
//!
//! Two words, used the same way everywhere in the chapter: a vector's **capacity changes** are
//! its first allocation and every **growth** after it.
//!
//! - [`push_growth`]: `n` pushes onto a `Vec` that was not reserved change its capacity only a
//!   handful of times (for 200,000: the first allocation and 16 growths, with `std`'s current
//!   rule of starting at 4 elements and doubling — an implementation detail, not a documented
//!   guarantee). Reserving saves those growths, the elements they carry over (at most 262,140:
//!   a growth in place, or glibc's `mremap` of a large block, copies nothing) and memory (the
//!   final capacity is a power of two, not N).
//! - [`zig_array_list_growth`]: the same count for Zig's `ArrayList`, from its growth rule, so
//!   the seed's counts can be checked against the code that produced them.
//! - [`bump_vec_grown_alone`] and its neighbours: `bumpalo` extends its *last* allocation in
//!   place when the chunk has room, so a vector grown alone leaves nothing behind; only a later
//!   allocation ([`bump_vec_grown_with_a_neighbour`]) or a full chunk
//!   ([`bump_vec_grown_across_chunks`]) turns old blocks into garbage until the arena goes.

use arena::{Node, node};
use bumpalo::Bump;

/// What the capacity changes of a vector under `n` pushes amount to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Growth {
    /// Pushes that changed the capacity, the first allocation included: what the seed's test
    /// calls `growths` (it counts every change of `capacity`, starting from 0).
    pub capacity_changes: usize,
    /// The capacity at the end, in elements.
    pub final_capacity: usize,
    /// Elements already in the vector at each growth, summed: what the growths copy if every
    /// one of them moves the block to a new one (an upper bound: a growth in place copies
    /// nothing).
    pub elements_carried: usize,
}

impl Growth {
    /// Growths: the capacity changes after the first allocation.
    pub fn growths(&self) -> usize {
        self.capacity_changes.saturating_sub(1)
    }

    /// Counts a capacity change made when the vector held `len` elements.
    fn change(&mut self, len: usize) {
        self.capacity_changes += 1;
        self.elements_carried += len;
    }
}

/// A2: `n` pushes onto a `Vec<Node>` that was not reserved, with every capacity change
/// counted — the Rust spelling of the seed's test (`growths > 15 and growths < 40`, where its
/// `growths` are capacity changes).
///
/// ```
/// let growth = arena_chapter::growth::push_growth(200_000);
/// // The first allocation (4 nodes), then 16 growths, doubling up to 262,144.
/// assert_eq!((growth.capacity_changes, growth.growths()), (17, 16));
/// assert_eq!(growth.final_capacity, 262_144);
/// ```
pub fn push_growth(n: usize) -> Growth {
    let mut nodes: Vec<Node> = Vec::new();
    let mut growth = Growth {
        capacity_changes: 0,
        final_capacity: 0,
        elements_carried: 0,
    };
    for i in 0..n {
        let before = nodes.capacity();
        nodes.push(node(i));
        if nodes.capacity() != before {
            growth.change(i);
        }
    }
    growth.final_capacity = nodes.capacity();
    growth
}

/// `std.atomic.cache_line` on the seed's machine (aarch64; x86-64 has the same value): Zig's
/// `ArrayList` starts at this many bytes' worth of elements.
pub const ZIG_CACHE_LINE: usize = 128;

/// A2: the capacity changes of a Zig `ArrayList` of `element_size`-byte elements under `n`
/// appends, computed from its growth rule (`std/array_list.zig`, `growCapacity`): the new
/// capacity is `old + old / 2 + init_capacity`, with `init_capacity = max(1, cache_line /
/// element_size)`, repeated until it fits.
///
/// ```
/// use arena_chapter::growth::zig_array_list_growth;
/// // The seed's benchmark counted 1 alloc + 21 remaps for 200,000 `u64`s.
/// assert_eq!(zig_array_list_growth(200_000, 8).growths(), 21);
/// ```
pub fn zig_array_list_growth(n: usize, element_size: usize) -> Growth {
    let init_capacity = (ZIG_CACHE_LINE / element_size.max(1)).max(1);
    let mut growth = Growth {
        capacity_changes: 0,
        final_capacity: 0,
        elements_carried: 0,
    };
    let mut capacity = 0usize;
    for len in 0..n {
        if len < capacity {
            continue;
        }
        while capacity <= len {
            capacity = capacity.saturating_add(capacity / 2 + init_capacity);
        }
        growth.change(len);
    }
    growth.final_capacity = capacity;
    growth
}

/// What growing one `bumpalo::collections::Vec` left in its arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BumpGrowth {
    /// Growths: capacity changes after the first allocation.
    pub growths: usize,
    /// Growths whose new block overlaps the old one: the arena extended the vector's block
    /// where it was (downwards, so the data shifted) instead of copying it elsewhere.
    pub extended: usize,
    /// The vector's final capacity in bytes.
    pub final_capacity_bytes: usize,
    /// Bytes the arena handed out, over all its chunks.
    pub used_bytes: usize,
    /// Of those, bytes no live value uses: blocks the vector left behind when it grew.
    pub garbage_bytes: usize,
    /// Chunks the arena has.
    pub chunks: usize,
}

/// The bytes `[start, end)` a vector's block occupies.
fn block<T>(vector: &bumpalo::collections::Vec<'_, T>) -> (usize, usize) {
    let start = vector.as_ptr() as usize;
    (start, start + vector.capacity() * size_of::<T>())
}

/// Pushes `n` nodes onto a vector in `bump`; if `neighbour`, allocates one `u64` after every
/// capacity change, so the vector is no longer the arena's last allocation.
fn grow_in(mut bump: Bump, n: usize, neighbour: bool) -> BumpGrowth {
    let (growths, extended, capacity, neighbours) = {
        let mut nodes = bumpalo::collections::Vec::new_in(&bump);
        let (mut growths, mut extended, mut neighbours) = (0, 0, 0);
        for i in 0..n {
            let (old_start, old_end) = block(&nodes);
            let old_capacity = nodes.capacity();
            nodes.push(node(i));
            if nodes.capacity() == old_capacity {
                continue;
            }
            if old_capacity > 0 {
                growths += 1;
                let (new_start, new_end) = block(&nodes);
                if new_start < old_end && old_start < new_end {
                    extended += 1;
                }
            }
            if neighbour {
                bump.alloc(i as u64);
                neighbours += 1;
            }
        }
        let capacity = nodes.capacity();
        // Keep the vector's block in the arena (dropping the vector would hand the last
        // allocation back), so the count below sees it.
        nodes.into_bump_slice();
        (growths, extended, capacity, neighbours)
    };
    let used_bytes: usize = bump.iter_allocated_chunks().map(<[_]>::len).sum();
    let final_capacity_bytes = capacity * size_of::<Node>();
    BumpGrowth {
        growths,
        extended,
        final_capacity_bytes,
        used_bytes,
        garbage_bytes: used_bytes - final_capacity_bytes - neighbours * size_of::<u64>(),
        chunks: bump.iter_allocated_chunks().count(),
    }
}

/// Bytes an arena needs to hold every block the vectors below ever occupy, with room to spare:
/// one chunk, so that no growth meets a full chunk.
fn one_chunk_for(n: usize) -> Bump {
    Bump::with_capacity(8 * n.next_power_of_two() * size_of::<Node>())
}

/// A4: `n` pushes onto a `bumpalo::collections::Vec` alone in an arena sized up front: every
/// growth extends the last allocation, so nothing is left behind.
pub fn bump_vec_grown_alone(n: usize) -> BumpGrowth {
    grow_in(one_chunk_for(n), n, false)
}

/// A4: the same, with one small allocation after every capacity change: the vector is no longer the
/// arena's last allocation, so each growth copies it to a fresh block and the old block stays
/// behind as garbage.
pub fn bump_vec_grown_with_a_neighbour(n: usize) -> BumpGrowth {
    grow_in(one_chunk_for(n), n, true)
}

/// A4: the vector alone in a `Bump::new()`, whose chunks start small: a growth that does not
/// fit the current chunk moves the vector to a new chunk and leaves the old block behind.
pub fn bump_vec_grown_across_chunks(n: usize) -> BumpGrowth {
    grow_in(Bump::new(), n, false)
}
