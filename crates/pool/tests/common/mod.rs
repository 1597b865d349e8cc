//! What every test binary of the crate shares: the counting allocator, and loop counts scaled
//! down under Miri.

#[global_allocator]
static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();

/// Miri interprets every instruction: loop counts are scaled down there.
pub const fn scaled(native: usize, miri: usize) -> usize {
    if cfg!(miri) { miri } else { native }
}
