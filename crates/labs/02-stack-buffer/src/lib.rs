//! Lab 2 (chapter 2): the billed-weight packer, without a heap allocation.
//!
//! `pack` counts the boxes an order needs: it bills every item (the larger of its weight and its
//! volumetric weight), sorts the billed weights heaviest first, and puts each into the first box
//! with room for it (first fit decreasing). It is correct, and it allocates twice on every call:
//! one `Vec` for the weights, one for the boxes' free room.
//!
//! Make it allocate nothing for orders of up to 256 items (larger orders may allocate), without
//! `unsafe` (the attribute below stays). Grade it with `cargo xtask lab 2`.
#![forbid(unsafe_code)]

use stack_buffer::{Item, billed_weight_kg};

/// The number of boxes of `capacity_kg` that `items` need, at the volumetric `factor`.
/// Every item fits a box (the grader only passes such orders).
pub fn pack(items: &[Item], capacity_kg: f64, factor: f64) -> usize {
    let mut weights: Vec<f64> = items
        .iter()
        .map(|item| billed_weight_kg(item, factor))
        .collect();
    weights.sort_unstable_by(|a, b| b.total_cmp(a));
    let mut free: Vec<f64> = Vec::new();
    for w in weights {
        match free.iter_mut().find(|f| **f >= w) {
            Some(f) => *f -= w,
            None => free.push(capacity_kg - w),
        }
    }
    free.len()
}
