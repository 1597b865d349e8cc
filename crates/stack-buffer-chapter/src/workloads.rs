//! The chapter's workloads, one function each, called by the experiments, the criterion bench
//! and the tests.
//!
//! Every measured function is `#[inline(never)]` and generic over a `const COPY: u8` that it
//! hides from the optimiser ([`mark`]): `f::<0>` and `f::<1>` are two copies of its machine
//! code at two addresses, so a timed method's twin runs its own copy of the measured code, not
//! the same code called twice (LLVM cannot merge them: they differ by that constant). Every one
//! of them reaches its buffer and calls the one [`touch_raw`], the seed's single work body.
//!
//! The S3/S4/S5 functions are named per size, so the report can find each one (both copies) in
//! the experiments binary's own machine code and read what the compiler made of it.

use std::hint::black_box;

use smallvec::{Array, SmallVec};

use stack_buffer::{CAP, InlineScratch, Item, MAX_STACK_ITEMS, PackError, SMALL_INLINE, Scratch};
use stack_buffer::{SmallInlineScratch, pack_boxes_reusing, pack_boxes_with};

#[path = "kernel.rs"]
mod kernel;
pub use kernel::{mark, touch, touch_raw, touch_uninit, uninit_stack, zeroed_stack};

/// A workload function: builds its buffer, touches it, returns what it read (3.0).
pub type Workload = fn() -> f64;

/// A workload function for an order of N items: builds a buffer of 2N values, touches it,
/// returns what it read.
pub type PerItems = fn(usize) -> f64;

/// The path `objdump -C` and `nm -C` print for the workload function `name` of this module:
/// `stack_buffer_chapter::workloads::<name>`, the same for both copies of a generic function.
pub fn symbol(name: &str) -> String {
    format!("{}::{name}", module_path!())
}

/// One measured function, by its name in the machine code, and its two copies.
#[derive(Clone, Copy, Debug)]
pub struct Copies<F> {
    /// The function's name as `objdump -C` prints it, after this module's path ([`symbol`]).
    pub name: &'static str,
    /// `f::<0>` and `f::<1>`: the original and its twin.
    pub copies: [F; 2],
}

/// A zeroed heap buffer of exactly `n` values (`vec![0.0; n]`: a `calloc` under glibc),
/// touched and freed.
///
/// # Panics
/// If `n` is 0.
#[inline(always)]
pub fn heap_zeroed(n: usize) -> f64 {
    let mut buf = vec![0.0f64; n];
    touch(&mut buf)
}

/// An unzeroed heap buffer of exactly `n` values (`Vec::with_capacity`: a `malloc`), touched
/// through its spare capacity and freed.
///
/// # Panics
/// If `n` is 0.
#[inline(always)]
pub fn heap_uninit(n: usize) -> f64 {
    let mut buf = Vec::<f64>::with_capacity(n);
    touch_uninit(&mut buf.spare_capacity_mut()[..n])
}

/// A buffer the caller owns, reused: cleared, grown to `n` values if it holds fewer (never, once
/// it is large enough), and touched through its spare capacity, like [`heap_uninit`] without
/// the allocation.
///
/// # Panics
/// If `n` is 0.
#[inline(always)]
pub fn reused(buf: &mut Vec<f64>, n: usize) -> f64 {
    buf.clear();
    buf.reserve(n);
    touch_uninit(&mut buf.spare_capacity_mut()[..n])
}

/// A workload function over a buffer its caller owns and reuses ([`reused`]).
pub type Reusing = fn(&mut Vec<f64>) -> f64;

macro_rules! stack_sizes {
    ($($zeroed:ident, $uninit:ident, $n:literal;)*) => {
        $(
            #[doc = concat!("S3–S5: a zeroed stack array of ", stringify!($n), " `f64`s, touched.")]
            #[inline(never)]
            pub fn $zeroed<const COPY: u8>() -> f64 {
                mark::<COPY>();
                zeroed_stack::<$n>()
            }
            #[doc = concat!("S3–S5: an unzeroed stack array of ", stringify!($n), " `f64`s, touched.")]
            #[inline(never)]
            pub fn $uninit<const COPY: u8>() -> f64 {
                mark::<COPY>();
                uninit_stack::<$n>()
            }
        )*
        /// S4, S5: every stack size the chapter reads and times, ascending: `(bytes, zeroed,
        /// unzeroed)`. Around LLVM's switch from inline stores to a `memset` call (248, 256,
        /// 264 B) and S3's four sizes (16 B, 256 B, 2 KiB, 8 KiB).
        pub const STACK_SIZES: [(usize, Copies<Workload>, Copies<Workload>); 8] = [
            $((
                $n * 8,
                Copies { name: stringify!($zeroed), copies: [$zeroed::<0>, $zeroed::<1>] },
                Copies { name: stringify!($uninit), copies: [$uninit::<0>, $uninit::<1>] },
            ),)*
        ];
    };
}

stack_sizes! {
    zeroed_16b, uninit_16b, 2;
    zeroed_248b, uninit_248b, 31;
    zeroed_256b, uninit_256b, 32;
    zeroed_264b, uninit_264b, 33;
    zeroed_512b, uninit_512b, 64;
    zeroed_1k, uninit_1k, 128;
    zeroed_2k, uninit_2k, 256;
    zeroed_8k, uninit_8k, 1024;
}

macro_rules! heap_sizes {
    ($($zeroed:ident, $uninit:ident, $reused:ident, $n:literal;)*) => {
        $(
            #[doc = concat!("S3: a zeroed heap buffer of ", stringify!($n), " `f64`s (`vec![0.0; n]`), touched.")]
            #[inline(never)]
            pub fn $zeroed<const COPY: u8>() -> f64 {
                mark::<COPY>();
                heap_zeroed(black_box($n))
            }
            #[doc = concat!("S3: an unzeroed heap buffer of ", stringify!($n), " `f64`s (`Vec::with_capacity`), touched.")]
            #[inline(never)]
            pub fn $uninit<const COPY: u8>() -> f64 {
                mark::<COPY>();
                heap_uninit(black_box($n))
            }
            #[doc = concat!("S3: the caller's own buffer, reused for ", stringify!($n), " `f64`s ([`reused`]), touched.")]
            #[inline(never)]
            pub fn $reused<const COPY: u8>(buf: &mut Vec<f64>) -> f64 {
                mark::<COPY>();
                reused(buf, black_box($n))
            }
        )*
        /// S3: the heap side of the factorial: `(bytes, zeroed, unzeroed)`.
        pub const HEAP_SIZES: [(usize, Copies<Workload>, Copies<Workload>); 4] = [
            $((
                $n * 8,
                Copies { name: stringify!($zeroed), copies: [$zeroed::<0>, $zeroed::<1>] },
                Copies { name: stringify!($uninit), copies: [$uninit::<0>, $uninit::<1>] },
            ),)*
        ];
        /// S3: the reused buffer of each of the factorial's sizes: `(bytes, reused)`.
        pub const REUSED_SIZES: [(usize, Copies<Reusing>); 4] = [
            $((
                $n * 8,
                Copies { name: stringify!($reused), copies: [$reused::<0>, $reused::<1>] },
            ),)*
        ];
    };
}

heap_sizes! {
    heap_zeroed_16b, heap_uninit_16b, heap_reused_16b, 2;
    heap_zeroed_256b, heap_uninit_256b, heap_reused_256b, 32;
    heap_zeroed_2k, heap_uninit_2k, heap_reused_2k, 256;
    heap_zeroed_8k, heap_uninit_8k, heap_reused_8k, 1024;
}

/// S3: the factorial's sizes, in bytes (each is in [`STACK_SIZES`] and [`HEAP_SIZES`]).
pub const S3_BYTES: [usize; 4] = [16, 256, 2048, 8192];

/// The floor of S1 and S3: the same touch of an existing buffer, with no buffer to reach. A
/// call of its own, like every measured function.
///
/// # Panics
/// If `buf` is empty.
#[inline(never)]
pub fn floor<const COPY: u8>(buf: &mut [f64]) -> f64 {
    mark::<COPY>();
    touch(buf)
}

/// S5's ceiling: `memset` (through `slice::fill`) of an existing buffer, then the same touch.
///
/// # Panics
/// If `buf` is empty.
#[inline(never)]
pub fn memset_existing<const COPY: u8>(buf: &mut [f64]) -> f64 {
    mark::<COPY>();
    let buf = black_box(buf);
    buf.fill(0.0);
    touch(buf)
}

/// S1: the order sizes (items; the buffer holds 2N values), from 1 item to one past the stack
/// capacity of [`MAX_STACK_ITEMS`] = 128.
pub const S1_ITEMS: [usize; 8] = [1, 4, 8, 16, 32, 64, 128, 256];

/// S6: S1's sizes and the seed's largest, 512 items.
pub const S6_ITEMS: [usize; 9] = [1, 4, 8, 16, 32, 64, 128, 256, 512];

/// S1: a usable buffer of `2n` values from the heap, `vec![0.0; 2n]`, touched.
///
/// # Panics
/// If `n` is 0.
#[inline(never)]
pub fn s1_heap<const COPY: u8>(n: usize) -> f64 {
    mark::<COPY>();
    heap_zeroed(2 * n)
}

/// S1: a fresh unzeroed heap buffer of `2n` values, `Vec::with_capacity(2n)` (a `malloc`),
/// touched through its spare capacity.
///
/// # Panics
/// If `n` is 0.
#[inline(never)]
pub fn s1_heap_uninit<const COPY: u8>(n: usize) -> f64 {
    mark::<COPY>();
    heap_uninit(2 * n)
}

/// S1: the caller's own buffer of `2n` values, allocated once outside the timed loop, cleared
/// and touched on every call ([`reused`]).
///
/// # Panics
/// If `n` is 0.
#[inline(never)]
pub fn s1_reused<const COPY: u8>(buf: &mut Vec<f64>, n: usize) -> f64 {
    mark::<COPY>();
    reused(buf, 2 * n)
}

/// S1: the fixed-capacity stack array (`CAP` values, all zeroed whatever `n` is), the first
/// `2n` used and touched.
///
/// # Panics
/// If `n` is 0 or exceeds [`MAX_STACK_ITEMS`].
#[inline(never)]
pub fn s1_stack<const COPY: u8>(n: usize) -> f64 {
    mark::<COPY>();
    let mut buf = [0.0f64; CAP];
    touch(&mut buf[..2 * n])
}

/// S1: the same fixed capacity, not zeroed (`[MaybeUninit<f64>; CAP]`): the seed's
/// `FixedCapOnlyNoInit`, a literal 2 KiB `stackalloc` under `[SkipLocalsInit]`.
///
/// # Panics
/// If `n` is 0 or exceeds [`MAX_STACK_ITEMS`].
#[inline(never)]
pub fn s1_stack_uninit<const COPY: u8>(n: usize) -> f64 {
    mark::<COPY>();
    let mut buf = [const { std::mem::MaybeUninit::<f64>::uninit() }; CAP];
    touch_uninit(&mut buf[..2 * n])
}

/// S1: `2n` values rented from the scratch pool, touched, given back.
///
/// # Panics
/// If `n` is 0.
#[inline(never)]
pub fn s1_pool<const COPY: u8>(n: usize) -> f64 {
    mark::<COPY>();
    let mut buf = stack_buffer::scratch_pool().rent(2 * n);
    touch(&mut buf)
}

/// S7: the order sizes of the whole operation: the seed's worst spread (4 items) and the sizes
/// where its real hybrid tied with the pool (32, 64, 128).
pub const S7_ITEMS: [usize; 4] = [4, 32, 64, 128];

/// S7: the seed of the orders the whole operation packs.
pub const S7_SEED: u64 = 42;

/// S7: the order of `n` items the whole operation packs.
pub fn s7_order(n: usize) -> Vec<Item> {
    stack_buffer::generate_order(n, S7_SEED)
}

/// S7: one copy of the whole operation: `pack_boxes(order, BOX_KG, AIR_FACTOR, strategy)` from
/// the scratch pool, its buffer handling copied into this function (the copies differ by
/// `COPY`), the packing itself the library's one body for every copy.
///
/// # Errors
/// As [`stack_buffer::pack_boxes`].
#[inline(never)]
pub fn pack_copy<const COPY: u8>(order: &[Item], strategy: Scratch) -> Result<usize, PackError> {
    mark::<COPY>();
    pack_boxes_with(
        stack_buffer::scratch_pool(),
        order,
        stack_buffer::BOX_KG,
        stack_buffer::AIR_FACTOR,
        strategy,
    )
}

/// S7: one copy of the whole operation over the caller's own buffer, reused:
/// [`stack_buffer::pack_boxes_reusing`], cleared and packed through its spare capacity, by the
/// library's one packing body.
///
/// # Errors
/// As [`stack_buffer::pack_boxes`].
#[inline(never)]
pub fn reuse_copy<const COPY: u8>(order: &[Item], buf: &mut Vec<f64>) -> Result<usize, PackError> {
    mark::<COPY>();
    pack_boxes_reusing(buf, order, stack_buffer::BOX_KG, stack_buffer::AIR_FACTOR)
}

/// S7: one copy of the whole operation over a fresh unzeroed buffer: [`reuse_copy`]'s code
/// handed a new `Vec::with_capacity(2N)` on every call, so the two differ by the allocation.
///
/// # Errors
/// As [`stack_buffer::pack_boxes`].
#[inline(never)]
pub fn fresh_copy<const COPY: u8>(order: &[Item]) -> Result<usize, PackError> {
    mark::<COPY>();
    let mut buf = Vec::with_capacity(2 * order.len());
    pack_boxes_reusing(
        &mut buf,
        order,
        stack_buffer::BOX_KG,
        stack_buffer::AIR_FACTOR,
    )
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

/// S12: [`s12_smallvec`] with [`InlineScratch`] (`SmallVec<[f64; 256]>`).
///
/// # Panics
/// If `n` is 0.
#[inline(never)]
pub fn s12_smallvec_256<const COPY: u8>(n: usize) -> f64 {
    mark::<COPY>();
    s12_smallvec::<[f64; CAP]>(n)
}

/// S12: [`s12_smallvec`] with [`SmallInlineScratch`] (`SmallVec<[f64; 32]>`).
///
/// # Panics
/// If `n` is 0.
#[inline(never)]
pub fn s12_smallvec_32<const COPY: u8>(n: usize) -> f64 {
    mark::<COPY>();
    s12_smallvec::<[f64; SMALL_INLINE]>(n)
}

/// S12: the hand-written hybrid's scratch for the same request: the fixed-capacity stack array
/// ([`s1_stack`]) up to [`MAX_STACK_ITEMS`], the pool ([`s1_pool`]) above.
///
/// # Panics
/// If `n` is 0.
#[inline(never)]
pub fn s12_hybrid<const COPY: u8>(n: usize) -> f64 {
    mark::<COPY>();
    if n <= MAX_STACK_ITEMS {
        s1_stack::<COPY>(n)
    } else {
        s1_pool::<COPY>(n)
    }
}

/// S12: the functions the report reads in the machine code (copy 0): the two `SmallVec`s and
/// the hybrid's stack half ([`s1_stack`], what [`s12_hybrid`] calls up to [`MAX_STACK_ITEMS`]).
pub const S12_FUNCTIONS: [(&str, PerItems); 3] = [
    ("s12_smallvec_256", s12_smallvec_256::<0>),
    ("s12_smallvec_32", s12_smallvec_32::<0>),
    ("s1_stack", s1_stack::<0>),
];

/// S12: order sizes on both sides of both inline capacities (16 items for
/// [`SmallInlineScratch`], 128 for [`InlineScratch`]).
pub const S12_ITEMS: [usize; 7] = [1, 16, 17, 64, 128, 129, 256];

/// S12: the size in bytes of each scratch value itself, what a move of it copies unless the
/// compiler elides the move. A `SmallVec` carries its inline array wherever it goes; a `Vec` or
/// a pool guard is a few words.
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
