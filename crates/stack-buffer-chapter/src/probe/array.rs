//! One single array of a given size on the stack (S8): one function per size, so the only large
//! frame is the array's own.

use std::hint::black_box;

/// The step between the sizes [`single_array`] can use: 8 KiB, the seed's resolution
/// (1,464 KiB survived, 1,472 KiB did not).
pub const ARRAY_STEP: usize = 8 * 1024;
/// How many sizes [`single_array`] has: every multiple of [`ARRAY_STEP`] up to 16 MiB.
pub const ARRAY_SIZES: usize = 2048;

/// One function whose frame holds one array of `BYTES` bytes, zeroed and touched at both
/// ends. Its frame is the array plus a few bytes. (Clippy's `large_stack_arrays` does not flag
/// it: the size is a const generic parameter, which the lint does not evaluate.)
#[inline(never)]
fn one_array<const BYTES: usize>() -> u8 {
    let mut array = [0u8; BYTES];
    let array = black_box(&mut array);
    array[BYTES - 1] = 1;
    array[0] ^ array[BYTES - 1]
}

/// Calls the `one_array` of the `k`-th size, `(k + 1) × ARRAY_STEP` bytes, by testing the
/// bits of `k` from the highest: one call, so the only large frame is the array's own.
macro_rules! one_array_by_bits {
    ($k:ident, $base:expr;) => {
        one_array::<{ ($base + 1) * ARRAY_STEP }>()
    };
    ($k:ident, $base:expr; $bit:literal $($rest:literal)*) => {
        if $k & $bit == 0 {
            one_array_by_bits!($k, $base; $($rest)*)
        } else {
            one_array_by_bits!($k, $base + $bit; $($rest)*)
        }
    };
}

/// S8: one array of `bytes` on the stack, in a single frame — the seed's single `stackalloc`,
/// not a recursion. `bytes` must be a multiple of [`ARRAY_STEP`] from 8 KiB to 16 MiB
/// (stable Rust has no variable-size stack array, so every size is its own function); `None`
/// otherwise.
pub fn single_array(bytes: usize) -> Option<u8> {
    if bytes == 0 || !bytes.is_multiple_of(ARRAY_STEP) || bytes / ARRAY_STEP > ARRAY_SIZES {
        return None;
    }
    let k = bytes / ARRAY_STEP - 1;
    Some(one_array_by_bits!(k, 0; 1024 512 256 128 64 32 16 8 4 2 1))
}
