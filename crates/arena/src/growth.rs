//! How a growing vector uses its allocator, counted without a clock (A2, A3, A4).
//!
//! - [`push_growth`]: `n` pushes onto a `Vec` that was not reserved grow it only a handful of
//!   times (17 capacity changes for 200,000: the first allocation and 16 doublings), which is
//!   why reserving gains so little. All it can save is those 16 calls to the allocator and the
//!   elements the growths carry over — 262,140 if every growth moved the block, against the
//!   200,000 the pushes write, and none for a growth glibc does in place.
//! - [`bump_vec_grown_alone`] and its neighbours: `bumpalo` extends its *last* allocation in
//!   place when the chunk has room, so a vector grown alone leaves nothing behind; only a later
//!   allocation ([`bump_vec_grown_with_a_neighbour`]) or a full chunk
//!   ([`bump_vec_grown_across_chunks`]) turns old blocks into garbage until the arena goes.

use bumpalo::Bump;

use crate::{Node, node};

/// What the growth of a `Vec` under `n` pushes amounts to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Growth {
    /// Pushes that changed the capacity (the first allocation included).
    pub growths: usize,
    /// The capacity at the end, in elements.
    pub final_capacity: usize,
    /// Elements already in the vector at each growth, summed: what the growths copy if every
    /// one of them moves the block (a growth in place copies nothing).
    pub elements_carried: usize,
}

/// A2: `n` pushes onto a `Vec<Node>` that was not reserved, with every capacity change
/// counted — the Rust spelling of the seed's test (`growths > 15 and growths < 40`).
///
/// ```
/// let growth = arena::growth::push_growth(200_000);
/// assert_eq!(growth.growths, 17); // the first allocation, then 16 doublings: 4 → 262,144
/// assert_eq!(growth.final_capacity, 262_144);
/// ```
pub fn push_growth(n: usize) -> Growth {
    let mut nodes: Vec<Node> = Vec::new();
    let mut growth = Growth {
        growths: 0,
        final_capacity: 0,
        elements_carried: 0,
    };
    for i in 0..n {
        let before = nodes.capacity();
        nodes.push(node(i));
        if nodes.capacity() != before {
            growth.growths += 1;
            growth.elements_carried += i;
        }
    }
    growth.final_capacity = nodes.capacity();
    growth
}

/// What growing one `bumpalo::collections::Vec` left in its arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BumpGrowth {
    /// Capacity changes (the first allocation included).
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
/// growth, so the vector is no longer the arena's last allocation.
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
            growths += 1;
            let (new_start, new_end) = block(&nodes);
            if old_capacity > 0 && new_start < old_end && old_start < new_end {
                extended += 1;
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

/// A4: the same, with one small allocation after every growth: the vector is no longer the
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
