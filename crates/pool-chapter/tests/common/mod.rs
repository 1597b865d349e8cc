//! What every test binary of the crate shares: the counting allocator, and loop counts scaled
//! down under Miri.

#[global_allocator]
pub static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();

/// Miri interprets every instruction: loop counts are scaled down there.
#[allow(dead_code)] // not every test binary has loops to scale
pub const fn scaled(native: usize, miri: usize) -> usize {
    if cfg!(miri) { miri } else { native }
}
