//! S11: the deliberately wrong `MaybeUninit` variant of `Scratch::StackUninit`, which shows Miri
//! catching an uninitialised read.
//!
//! Compiled only by CI's Miri step, `RUSTFLAGS="--cfg deliberate_ub" cargo +nightly miri test
//! -p stack-buffer-chapter --test deliberate_ub`, which must fail with Miri's report of
//! uninitialised memory (`encountered uninitialized memory`, or `memory is uninitialized` in
//! recent nightlies; CI checks that it does). Natively it is undefined behaviour, so no other
//! build compiles it: without both `cfg(deliberate_ub)` (declared in this package's manifest)
//! and `cfg(miri)` this file is empty.

#![cfg(all(deliberate_ub, miri))]

use std::mem::MaybeUninit;

use stack_buffer::{AIR_FACTOR, BOX_KG, CAP, Item, MAX_STACK_ITEMS, billed_weight_kg};

/// `StackUninit`'s packing done wrong: reads the free capacity of the box it is about to open
/// *before* writing it — an uninitialised read. The items must be valid (the test's are).
fn pack_uninit_wrong(items: &[Item], capacity: f64, factor: f64) -> usize {
    let mut buf = [const { MaybeUninit::<f64>::uninit() }; CAP];
    let n = items.len().min(MAX_STACK_ITEMS);
    let (weights, free) = buf[..2 * n].split_at_mut(n);
    for (slot, item) in weights.iter_mut().zip(&items[..n]) {
        slot.write(billed_weight_kg(item, factor));
    }
    let mut boxes = 0;
    for w in weights.iter() {
        // SAFETY: deliberately violated — `free[boxes]` has not been written yet. This is the
        // bug Miri must catch.
        let stale = unsafe { free[boxes].assume_init() };
        // SAFETY: every weight was written in the loop above.
        let w = unsafe { w.assume_init() };
        if stale < w {
            free[boxes].write(capacity - w);
            boxes += 1;
        }
    }
    boxes
}

/// S11: the deliberately wrong variant, run only under Miri (see the file's comment above).
#[test]
fn miri_catches_the_uninitialised_read() {
    let order = stack_buffer::generate_order(4, 1);
    let _ = pack_uninit_wrong(&order, BOX_KG, AIR_FACTOR);
}
