#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod allocators;
pub mod contract;
#[cfg(test)]
mod doc_sections;
pub mod pool;
pub mod routes;

use std::hint::black_box;

/// The small object the lesson's examples create: 16 bytes.
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
