//! The chapter's workloads, one function each, called by the experiments, the criterion bench
//! and the tests.
//!
//! The S3/S4 functions are `#[inline(never)]` and named per size, so the report can find each
//! one in the experiments binary's own machine code and read what the compiler made of it.

use std::hint::black_box;

use smallvec::{Array, SmallVec};

use crate::{CAP, InlineScratch, MAX_STACK_ITEMS, SMALL_INLINE, SmallInlineScratch};

#[path = "kernel.rs"]
mod kernel;
pub use kernel::{touch, uninit_stack, zeroed_stack};

/// A zeroed heap buffer of exactly `n` values, touched and freed.
#[inline(always)]
pub fn heap_zeroed(n: usize) -> f64 {
    let mut buf = vec![0.0f64; n];
    touch(&mut buf)
}

/// An unzeroed heap buffer of exactly `n` values (`Vec::with_capacity`), touched through its
/// spare capacity and freed.
#[inline(always)]
pub fn heap_uninit(n: usize) -> f64 {
    let mut buf = Vec::<f64>::with_capacity(n);
    let spare = black_box(buf.spare_capacity_mut());
    let first = *spare[0].write(1.0);
    let last = *spare[n - 1].write(2.0);
    black_box(&mut buf);
    first + last
}

macro_rules! sized {
    ($($zeroed:ident, $uninit:ident, $heap_zeroed:ident, $heap_uninit:ident, $n:literal;)*) => {
        $(
            #[doc = concat!("S3: a zeroed stack array of ", stringify!($n), " `f64`s, touched.")]
            #[inline(never)]
            pub fn $zeroed() -> f64 {
                zeroed_stack::<$n>()
            }
            #[doc = concat!("S3: an unzeroed stack array of ", stringify!($n), " `f64`s, touched.")]
            #[inline(never)]
            pub fn $uninit() -> f64 {
                uninit_stack::<$n>()
            }
            #[doc = concat!("S3: a zeroed heap buffer of ", stringify!($n), " `f64`s, touched.")]
            #[inline(never)]
            pub fn $heap_zeroed() -> f64 {
                heap_zeroed(black_box($n))
            }
            #[doc = concat!("S3: an unzeroed heap buffer of ", stringify!($n), " `f64`s, touched.")]
            #[inline(never)]
            pub fn $heap_uninit() -> f64 {
                heap_uninit(black_box($n))
            }
        )*
        /// The S3 sizes: (bytes, zeroed stack, unzeroed stack, zeroed heap, unzeroed heap), with
        /// each function's name as the report looks it up in the machine code.
        pub const S3: [(usize, [(&str, fn() -> f64); 4]); 4] = [
            $((
                $n * 8,
                [
                    (stringify!($zeroed), $zeroed as fn() -> f64),
                    (stringify!($uninit), $uninit),
                    (stringify!($heap_zeroed), $heap_zeroed),
                    (stringify!($heap_uninit), $heap_uninit),
                ],
            ),)*
        ];
    };
}

sized! {
    zeroed_16b, uninit_16b, heap_zeroed_16b, heap_uninit_16b, 2;
    zeroed_256b, uninit_256b, heap_zeroed_256b, heap_uninit_256b, 32;
    zeroed_2k, uninit_2k, heap_zeroed_2k, heap_uninit_2k, 256;
    zeroed_8k, uninit_8k, heap_zeroed_8k, heap_uninit_8k, 1024;
}

/// A workload function: builds its buffer, touches it, returns what it read.
pub type Workload = fn() -> f64;

/// A workload function for an order of N items: builds a buffer of 2N values, touches it,
/// returns what it read.
pub type PerItems = fn(usize) -> f64;

macro_rules! zeroed_only {
    ($($zeroed:ident, $n:literal;)*) => {
        $(
            #[doc = concat!("S4: a zeroed stack array of ", stringify!($n), " `f64`s, touched.")]
            #[inline(never)]
            pub fn $zeroed() -> f64 {
                zeroed_stack::<$n>()
            }
        )*
    };
}

zeroed_only! {
    zeroed_248b, 31;
    zeroed_264b, 33;
    zeroed_512b, 64;
    zeroed_1k, 128;
}

/// S4: zeroed stack arrays on both sides of the size where LLVM stops writing zeros inline and
/// calls `memset`: `(bytes, name, function)`, the name as the report looks it up in the machine
/// code. On x86-64 without AVX, LLVM inlines a `memset` of at most 16 stores of 16 bytes, so
/// 256 B is the last inline size and 264 B the first call.
pub const S4_ZEROED: [(usize, &str, Workload); 7] = [
    (16, "zeroed_16b", zeroed_16b),
    (248, "zeroed_248b", zeroed_248b),
    (256, "zeroed_256b", zeroed_256b),
    (264, "zeroed_264b", zeroed_264b),
    (512, "zeroed_512b", zeroed_512b),
    (1024, "zeroed_1k", zeroed_1k),
    (2048, "zeroed_2k", zeroed_2k),
];

/// S5's ceiling: `memset` (through `slice::fill`) of an existing buffer, then the same touch.
#[inline(never)]
pub fn memset_existing(buf: &mut [f64]) -> f64 {
    let buf = black_box(buf);
    buf.fill(0.0);
    touch(buf)
}

/// S1: the order sizes (items; the buffer holds 2N values), from 1 item to one past the stack
/// capacity of [`MAX_STACK_ITEMS`] = 128.
pub const S1_ITEMS: [usize; 8] = [1, 4, 8, 16, 32, 64, 128, 256];

/// S1: a usable buffer of `2n` values from the heap, touched. Like every S1 function, a call
/// of its own (`#[inline(never)]`), so the three are timed alike and can be read in the binary.
#[inline(never)]
pub fn s1_heap(n: usize) -> f64 {
    heap_zeroed(2 * n)
}

/// S1: the fixed-capacity stack array (`CAP` values, all zeroed whatever `n` is), the first
/// `2n` used and touched.
///
/// # Panics
/// If `n` exceeds [`crate::MAX_STACK_ITEMS`].
#[inline(never)]
pub fn s1_stack(n: usize) -> f64 {
    let mut buf = [0.0f64; CAP];
    let buf = black_box(&mut buf);
    touch(&mut buf[..2 * n])
}

/// S1: `2n` values rented from the scratch pool, touched, given back.
#[inline(never)]
pub fn s1_pool(n: usize) -> f64 {
    let mut buf = crate::scratch_pool().rent(2 * n);
    touch(&mut buf)
}

/// S7: the order the whole operation packs: [`S7_ITEMS`] items from
/// [`generate_order`](crate::generate_order) with this seed.
pub const S7_SEED: u64 = 42;
/// S7: how many items the whole operation packs (200 scratch values, inside the 2 KiB cap).
pub const S7_ITEMS: usize = 100;

/// S7: the order the whole operation packs.
pub fn s7_order() -> Vec<crate::Item> {
    crate::generate_order(S7_ITEMS, S7_SEED)
}

/// S12: a usable buffer of `2n` values in a `SmallVec<A>`, touched. Inline (no allocation)
/// while `2n` fits `A`, one heap allocation above; only the `2n` values in use are zeroed.
///
/// # Panics
/// If `n` is 0 (there is nothing to touch).
#[inline(always)]
pub fn s12_smallvec<A: Array<Item = f64>>(n: usize) -> f64 {
    let mut buf: SmallVec<A> = SmallVec::from_elem(0.0, 2 * n);
    touch(&mut buf)
}

/// S12: [`s12_smallvec`] with [`InlineScratch`] (`SmallVec<[f64; 256]>`), a function of its
/// own so the report can read its machine code.
///
/// # Panics
/// If `n` is 0.
#[inline(never)]
pub fn s12_smallvec_256(n: usize) -> f64 {
    s12_smallvec::<[f64; CAP]>(n)
}

/// S12: [`s12_smallvec`] with [`SmallInlineScratch`] (`SmallVec<[f64; 32]>`), a function of
/// its own so the report can read its machine code.
///
/// # Panics
/// If `n` is 0.
#[inline(never)]
pub fn s12_smallvec_32(n: usize) -> f64 {
    s12_smallvec::<[f64; SMALL_INLINE]>(n)
}

/// S12: the hand-written hybrid's scratch for the same request: the fixed-capacity stack array
/// ([`s1_stack`]) up to [`MAX_STACK_ITEMS`], the pool ([`s1_pool`]) above. A call of its own,
/// like the two `SmallVec` ones.
#[inline(never)]
pub fn s12_hybrid(n: usize) -> f64 {
    if n <= MAX_STACK_ITEMS {
        s1_stack(n)
    } else {
        s1_pool(n)
    }
}

/// S12: the functions the report reads in the machine code, by name: the two `SmallVec`s and the
/// hybrid's stack half ([`s1_stack`], what [`s12_hybrid`] calls up to [`MAX_STACK_ITEMS`]).
pub const S12_FUNCTIONS: [(&str, PerItems); 3] = [
    ("s12_smallvec_256", s12_smallvec_256),
    ("s12_smallvec_32", s12_smallvec_32),
    ("s1_stack", s1_stack),
];

/// S12: order sizes on both sides of both inline capacities (16 items for
/// [`SmallInlineScratch`], 128 for [`InlineScratch`]).
pub const S12_ITEMS: [usize; 7] = [1, 16, 17, 64, 128, 129, 256];

/// S12: the size in bytes of each scratch value itself — what a move copies. A `SmallVec`
/// carries its inline array wherever it goes; a `Vec` or a pool guard is a few words.
pub const S12_VALUE_SIZES: [(&str, usize); 6] = [
    ("`Vec<f64>`", size_of::<Vec<f64>>()),
    (
        "`pool::Rented<f64>` (a pool guard)",
        size_of::<pool::Rented<'static, f64>>(),
    ),
    ("`[f64; 32]`", size_of::<[f64; SMALL_INLINE]>()),
    ("`SmallVec<[f64; 32]>`", size_of::<SmallInlineScratch>()),
    ("`[f64; 256]`", size_of::<[f64; CAP]>()),
    ("`SmallVec<[f64; 256]>`", size_of::<InlineScratch>()),
];
