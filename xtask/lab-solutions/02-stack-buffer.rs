//! Lab 2's reference solution: chapter 2's hybrid, as `SmallVec`s with 256 values inline — on
//! the stack up to 256 items, one heap allocation each above.

use smallvec::SmallVec;
use stack_buffer::{Item, billed_weight_kg};

pub fn pack(items: &[Item], capacity_kg: f64, factor: f64) -> usize {
    let mut weights: SmallVec<[f64; 256]> = items
        .iter()
        .map(|item| billed_weight_kg(item, factor))
        .collect();
    weights.sort_unstable_by(|a, b| b.total_cmp(a));
    let mut free: SmallVec<[f64; 256]> = SmallVec::new();
    for w in weights {
        match free.iter_mut().find(|f| **f >= w) {
            Some(f) => *f -= w,
            None => free.push(capacity_kg - w),
        }
    }
    free.len()
}
