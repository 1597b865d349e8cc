//! One function, any allocator (A5): an allocator passed as a parameter, through the
//! `allocator-api2` crate (the stable mirror of the standard library's unstable `Allocator`
//! trait).

use allocator_api2::alloc::Allocator;
use allocator_api2::vec::Vec;

use crate::{Node, node};

/// A5: builds `n` nodes in a vector whose storage comes from `alloc`, whatever it is — the
/// Rust spelling of the Zig seed's `fn buildNodes(a: std.mem.Allocator, n: usize)`.
///
/// One difference: this function is generic, so the compiler makes one copy of it per
/// allocator type and can inline that allocator's calls (static dispatch), where Zig passes a
/// runtime vtable. Passing `&dyn Allocator` gives the Zig shape: one copy, every call through
/// the vtable (A1 times it with `bumpalo`).
///
/// ```
/// use allocator_api2::alloc::Global;
/// let bump = bumpalo::Bump::new();
/// assert_eq!(arena::allocators::build_nodes(100, Global).len(), 100);
/// assert_eq!(arena::allocators::build_nodes(100, &bump).len(), 100);
/// let dynamic: &dyn allocator_api2::alloc::Allocator = &&bump;
/// assert_eq!(arena::allocators::build_nodes(100, dynamic).len(), 100);
/// ```
pub fn build_nodes<A: Allocator>(n: usize, alloc: A) -> Vec<Node, A> {
    let mut nodes = Vec::new_in(alloc);
    for i in 0..n {
        nodes.push(node(i));
    }
    nodes
}
