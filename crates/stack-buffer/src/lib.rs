#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

use std::fmt;
use std::mem::MaybeUninit;
use std::sync::OnceLock;

use pool::{BufferPool, PoolConfig};
use smallvec::SmallVec;

/// The stack scratch's capacity in `f64`s: 2 KiB, room for orders of up to [`MAX_STACK_ITEMS`].
pub const CAP: usize = 256;
/// The largest order the stack scratch holds: it needs two values per item.
pub const MAX_STACK_ITEMS: usize = CAP / 2;
/// The smaller `SmallVec`'s inline capacity in `f64`s: 256 B, room for 16 items.
pub const SMALL_INLINE: usize = 32;

/// The scratch of [`Scratch::SmallVec256`]: inline up to [`CAP`] values (the same 2 KiB as the
/// stack array), one heap allocation above.
pub type InlineScratch = SmallVec<[f64; CAP]>;
/// The scratch of [`Scratch::SmallVec32`]: inline up to [`SMALL_INLINE`] values, one heap
/// allocation above.
pub type SmallInlineScratch = SmallVec<[f64; SMALL_INLINE]>;
/// The air-cargo convention for the volumetric divisor (cm³ per kg). A convention, not a law:
/// every function takes the factor as a parameter.
pub const AIR_FACTOR: f64 = 6000.0;
/// Below this many centimetres on any axis, the minimum-cubage rule applies.
pub const MIN_AXIS_CM: f64 = 10.0;
/// The dimensions that replace the whole set when the minimum-cubage rule applies.
pub const MIN_CUBAGE_CM: [f64; 3] = [13.0, 8.0, 0.4];

/// One item of an order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Item {
    /// Length in centimetres.
    pub length_cm: f64,
    /// Width in centimetres.
    pub width_cm: f64,
    /// Height in centimetres.
    pub height_cm: f64,
    /// Actual weight in kilograms.
    pub weight_kg: f64,
}

impl Item {
    /// Checks that the item can be billed: every dimension finite and positive, the weight
    /// finite and not negative. Returns the first problem found.
    pub fn check(&self) -> Result<(), &'static str> {
        let dims = [
            (
                self.length_cm,
                "length_cm is NaN",
                "length_cm must be finite and greater than 0",
            ),
            (
                self.width_cm,
                "width_cm is NaN",
                "width_cm must be finite and greater than 0",
            ),
            (
                self.height_cm,
                "height_cm is NaN",
                "height_cm must be finite and greater than 0",
            ),
        ];
        for (value, nan, out_of_range) in dims {
            if value.is_nan() {
                return Err(nan);
            }
            if !value.is_finite() || value <= 0.0 {
                return Err(out_of_range);
            }
        }
        if !self.weight_kg.is_finite() || self.weight_kg < 0.0 {
            return Err("weight_kg must be finite and not negative");
        }
        Ok(())
    }

    /// The dimensions the volume is computed from: the item's own, or — if any axis is below
    /// [`MIN_AXIS_CM`] — the whole set replaced by [`MIN_CUBAGE_CM`] (a substitution of the
    /// set, not a per-axis floor).
    pub fn billed_dimensions_cm(&self) -> [f64; 3] {
        let dims = [self.length_cm, self.width_cm, self.height_cm];
        if dims.iter().any(|&d| d < MIN_AXIS_CM) {
            MIN_CUBAGE_CM
        } else {
            dims
        }
    }
}

/// The billed weight of a checked item: the larger of its actual weight and its volumetric
/// weight, L × W × H / `factor` (cm³ per kg), after the minimum-cubage rule.
///
/// ```
/// use stack_buffer::{billed_weight_kg, Item, AIR_FACTOR};
/// let parcel = Item { length_cm: 30.0, width_cm: 20.0, height_cm: 10.0, weight_kg: 2.0 };
/// assert_eq!(billed_weight_kg(&parcel, AIR_FACTOR), 2.0); // 6,000 cm³ / 6,000 = 1 kg < 2 kg
/// ```
pub fn billed_weight_kg(item: &Item, factor: f64) -> f64 {
    let [l, w, h] = item.billed_dimensions_cm();
    item.weight_kg.max(l * w * h / factor)
}

/// Why an order could not be packed. Nothing is ever returned as a box count for bad input.
#[derive(Clone, Debug, PartialEq)]
pub enum PackError {
    /// An item cannot be billed.
    InvalidItem {
        /// Its position in the order (0-based).
        index: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An item's billed weight exceeds the box capacity: it fits in no box.
    TooHeavy {
        /// Its position in the order (0-based).
        index: usize,
        /// Its billed weight.
        billed_kg: f64,
        /// The box capacity.
        capacity_kg: f64,
    },
    /// The box capacity is not a finite positive number.
    InvalidCapacity(f64),
    /// The volumetric factor is not a finite positive number.
    InvalidFactor(f64),
    /// [`Scratch::Stack`] was asked to pack more items than its fixed capacity holds.
    TooManyForStack {
        /// Items in the order.
        items: usize,
        /// The most the stack scratch holds ([`MAX_STACK_ITEMS`]).
        max: usize,
    },
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidItem { index, reason } => write!(f, "item {index}: {reason}"),
            Self::TooHeavy {
                index,
                billed_kg,
                capacity_kg,
            } => write!(
                f,
                "item {index}: billed weight {billed_kg} kg exceeds the box capacity of {capacity_kg} kg"
            ),
            Self::InvalidCapacity(c) => {
                write!(f, "box capacity {c} kg must be finite and greater than 0")
            }
            Self::InvalidFactor(x) => {
                write!(f, "volumetric factor {x} must be finite and greater than 0")
            }
            Self::TooManyForStack { items, max } => write!(
                f,
                "{items} items do not fit the stack scratch (at most {max}); use Scratch::Hybrid or Scratch::Pool"
            ),
        }
    }
}

impl std::error::Error for PackError {}

/// Where [`pack_boxes`] gets its scratch buffer of 2N `f64`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scratch {
    /// `vec![0.0; 2N]`: one allocation per call.
    Heap,
    /// Rented from [`scratch_pool`] and given back: no allocation once warm.
    Pool,
    /// A zeroed `[f64; CAP]` on the stack: no allocation; orders above [`MAX_STACK_ITEMS`] are
    /// an error.
    Stack,
    /// An unzeroed `[MaybeUninit<f64>; CAP]` on the stack: like `Stack` without paying for the
    /// zeroing; every value is written before it is read (checked by Miri).
    StackUninit,
    /// The production pattern: the zeroed stack array up to [`MAX_STACK_ITEMS`], the pool above.
    Hybrid,
    /// The same idea from the `smallvec` crate, [`InlineScratch`] (`SmallVec<[f64; 256]>`):
    /// the values inline up to 128 items, one heap allocation per call above. Only the 2N
    /// values in use are zeroed, not the whole inline array.
    SmallVec256,
    /// [`SmallInlineScratch`] (`SmallVec<[f64; 32]>`): inline up to 16 items, one heap
    /// allocation per call above.
    SmallVec32,
}

impl Scratch {
    /// Every strategy, in the order the chapter presents them.
    pub const ALL: [Scratch; 7] = [
        Scratch::Heap,
        Scratch::Pool,
        Scratch::Stack,
        Scratch::StackUninit,
        Scratch::Hybrid,
        Scratch::SmallVec256,
        Scratch::SmallVec32,
    ];
}

/// The pool [`Scratch::Pool`] and [`Scratch::Hybrid`] rent from.
pub fn scratch_pool() -> &'static BufferPool<f64> {
    static POOL: OnceLock<BufferPool<f64>> = OnceLock::new();
    POOL.get_or_init(|| BufferPool::new(PoolConfig::default()))
}

/// Packs an order into boxes of `box_capacity_kg` by first-fit-decreasing over billed weights,
/// and returns the number of boxes.
///
/// The work needs one scratch buffer of 2N `f64`s (the N billed weights, then the free capacity
/// of each open box); `scratch` says where it comes from. Every strategy returns the same count.
/// The pooled strategies rent from [`scratch_pool`]; [`pack_boxes_with`] takes a pool of yours.
///
/// ```
/// use stack_buffer::{pack_boxes, Item, Scratch, AIR_FACTOR};
/// let item = |kg| Item { length_cm: 20.0, width_cm: 20.0, height_cm: 20.0, weight_kg: kg };
/// let order = [item(6.0), item(5.0), item(4.0), item(3.0)];
/// assert_eq!(pack_boxes(&order, 10.0, AIR_FACTOR, Scratch::Hybrid), Ok(2));
/// ```
///
/// # Errors
/// An invalid item, capacity or factor, an item heavier than a box, or an order too large for
/// [`Scratch::Stack`] — never a wrong count.
pub fn pack_boxes(
    items: &[Item],
    box_capacity_kg: f64,
    factor: f64,
    scratch: Scratch,
) -> Result<usize, PackError> {
    pack_boxes_with(scratch_pool(), items, box_capacity_kg, factor, scratch)
}

/// [`pack_boxes`] with the pooled strategies ([`Scratch::Pool`], and [`Scratch::Hybrid`] above
/// [`MAX_STACK_ITEMS`]) renting from `pool`.
///
/// ```
/// use pool::{BufferPool, PoolConfig};
/// use stack_buffer::{generate_order, pack_boxes_with, Scratch, AIR_FACTOR, BOX_KG};
/// let mine = BufferPool::<f64>::new(PoolConfig::default());
/// pack_boxes_with(&mine, &generate_order(128, 1), BOX_KG, AIR_FACTOR, Scratch::Hybrid)?;
/// assert_eq!(mine.stats().rents, 0); // 128 items: the stack array
/// pack_boxes_with(&mine, &generate_order(129, 1), BOX_KG, AIR_FACTOR, Scratch::Hybrid)?;
/// assert_eq!(mine.stats().rents, 1); // 129 items: the pool
/// # Ok::<(), stack_buffer::PackError>(())
/// ```
///
/// Always inlined, so every caller holds its own copy of this buffer handling (chapter 2 times
/// several copies of one caller as identical copies of the whole operation); the packing itself
/// is one body, called by every strategy and every copy, which takes its scratch as
/// `MaybeUninit<f64>` slots so that the zeroed and the unzeroed strategies share it.
///
/// # Errors
/// As [`pack_boxes`].
#[inline(always)]
pub fn pack_boxes_with(
    pool: &BufferPool<f64>,
    items: &[Item],
    box_capacity_kg: f64,
    factor: f64,
    scratch: Scratch,
) -> Result<usize, PackError> {
    let n2 = items.len() * 2;
    let too_many = || PackError::TooManyForStack {
        items: items.len(),
        max: MAX_STACK_ITEMS,
    };
    let on_the_stack = items.len() <= MAX_STACK_ITEMS;
    match scratch {
        Scratch::Heap => pack_into(items, box_capacity_kg, factor, lend(&mut vec![0.0; n2])),
        Scratch::Pool => pack_into(items, box_capacity_kg, factor, lend(&mut pool.rent(n2))),
        Scratch::Stack | Scratch::Hybrid if on_the_stack => {
            let mut buf = [0.0f64; CAP];
            pack_into(items, box_capacity_kg, factor, lend(&mut buf[..n2]))
        }
        Scratch::Hybrid => pack_into(items, box_capacity_kg, factor, lend(&mut pool.rent(n2))),
        Scratch::Stack => Err(too_many()),
        Scratch::StackUninit if on_the_stack => {
            let mut buf = [const { MaybeUninit::<f64>::uninit() }; CAP];
            pack_into(items, box_capacity_kg, factor, &mut buf[..n2])
        }
        Scratch::StackUninit => Err(too_many()),
        Scratch::SmallVec256 => {
            let mut buf: InlineScratch = smallvec::smallvec![0.0; n2];
            pack_into(items, box_capacity_kg, factor, lend(&mut buf))
        }
        Scratch::SmallVec32 => {
            let mut buf: SmallInlineScratch = smallvec::smallvec![0.0; n2];
            pack_into(items, box_capacity_kg, factor, lend(&mut buf))
        }
    }
}

/// [`pack_boxes`] with a scratch buffer you own and pass down: `scratch` is cleared, grown to
/// 2N values if it holds fewer (the only allocation, and only when it grows), and packed in
/// through its spare capacity, so nothing is zeroed. One `Vec` reused across calls is the
/// baseline a stack buffer has to beat: it allocates nothing once it is large enough, zeroes
/// nothing, and has no size limit; what it needs is a caller that can hand it down.
///
/// ```
/// use stack_buffer::{generate_order, pack_boxes_reusing, AIR_FACTOR, BOX_KG};
/// let mut scratch = Vec::new(); // once, outside the hot loop
/// for seed in 0..3 {
///     let order = generate_order(100, seed);
///     let boxes = pack_boxes_reusing(&mut scratch, &order, BOX_KG, AIR_FACTOR)?;
///     assert!(boxes > 0);
/// }
/// assert!(scratch.capacity() >= 200);
/// # Ok::<(), stack_buffer::PackError>(())
/// ```
///
/// Always inlined, like [`pack_boxes_with`]; the packing is the same one body.
///
/// # Errors
/// As [`pack_boxes`], but for [`PackError::TooManyForStack`], which it never returns.
#[inline(always)]
pub fn pack_boxes_reusing(
    scratch: &mut Vec<f64>,
    items: &[Item],
    box_capacity_kg: f64,
    factor: f64,
) -> Result<usize, PackError> {
    let n2 = items.len() * 2;
    scratch.clear();
    scratch.reserve(n2);
    pack_into(
        items,
        box_capacity_kg,
        factor,
        &mut scratch.spare_capacity_mut()[..n2],
    )
}

/// Lends initialised scratch to the one packing body, which takes its slots as
/// `MaybeUninit<f64>` so that the unzeroed strategies can share it.
#[inline(always)]
fn lend(scratch: &mut [f64]) -> &mut [MaybeUninit<f64>] {
    // SAFETY: `MaybeUninit<f64>` has the layout of `f64`, and the only borrower, `pack_into`,
    // writes nothing but initialised `f64`s (`MaybeUninit::write`), so every value is still
    // initialised when the borrow ends and the caller reads its slice as `f64`s again.
    unsafe { &mut *(std::ptr::from_mut(scratch) as *mut [MaybeUninit<f64>]) }
}

/// Checks the inputs and writes the billed weights, in any order, through `put`.
fn billed_weights(
    items: &[Item],
    capacity: f64,
    factor: f64,
    mut put: impl FnMut(usize, f64),
) -> Result<(), PackError> {
    if !capacity.is_finite() || capacity <= 0.0 {
        return Err(PackError::InvalidCapacity(capacity));
    }
    if !factor.is_finite() || factor <= 0.0 {
        return Err(PackError::InvalidFactor(factor));
    }
    for (index, item) in items.iter().enumerate() {
        item.check()
            .map_err(|reason| PackError::InvalidItem { index, reason })?;
        let billed = billed_weight_kg(item, factor);
        if billed > capacity {
            return Err(PackError::TooHeavy {
                index,
                billed_kg: billed,
                capacity_kg: capacity,
            });
        }
        put(index, billed);
    }
    Ok(())
}

/// First-fit-decreasing over a scratch of at least 2N slots: the one packing body every
/// strategy calls. The slots may be uninitialised (they are for [`Scratch::StackUninit`] and
/// [`pack_boxes_reusing`]): every slot is written before it is read, and only initialised
/// `f64`s are ever written, so initialised scratch lent by [`lend`] stays initialised.
#[inline(never)]
fn pack_into(
    items: &[Item],
    capacity: f64,
    factor: f64,
    scratch: &mut [MaybeUninit<f64>],
) -> Result<usize, PackError> {
    let n = items.len();
    let (weights, free) = scratch[..2 * n].split_at_mut(n);
    billed_weights(items, capacity, factor, |i, w| {
        weights[i].write(w);
    })?;
    // SAFETY: `billed_weights` returned `Ok`, so it called `put` for every index in `0..n`,
    // and each call initialised `weights[i]`. `MaybeUninit<f64>` has the layout of `f64`.
    let weights: &mut [f64] = unsafe { &mut *(std::ptr::from_mut(weights) as *mut [f64]) };
    weights.sort_unstable_by(|a, b| b.total_cmp(a));
    let mut boxes = 0;
    for &w in weights.iter() {
        // SAFETY: `free[..boxes]` were all written (in the `None` arm below) before `boxes`
        // grew past them.
        let open = unsafe { &mut *(std::ptr::from_mut(&mut free[..boxes]) as *mut [f64]) };
        match open.iter_mut().find(|f| **f >= w) {
            Some(f) => *f -= w,
            None => {
                free[boxes].write(capacity - w);
                boxes += 1;
            }
        }
    }
    Ok(boxes)
}

/// A deterministic order of `n` items for tests and benches: dimensions 10–60 cm and weights
/// 0.1–20 kg, with one item in four flattened below [`MIN_AXIS_CM`] on one axis so that the
/// minimum-cubage branch really runs. Every item fits a box of [`BOX_KG`] at [`AIR_FACTOR`].
pub fn generate_order(n: usize, seed: u64) -> Vec<Item> {
    let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
    let mut next = move |lo: f64, hi: f64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        lo + (hi - lo) * ((state >> 11) as f64 / (1u64 << 53) as f64)
    };
    (0..n)
        .map(|i| {
            let mut item = Item {
                length_cm: next(10.0, 60.0),
                width_cm: next(10.0, 60.0),
                height_cm: next(10.0, 60.0),
                weight_kg: next(0.1, 20.0),
            };
            if i % 4 == 3 {
                item.height_cm = next(0.5, 9.5);
            }
            item
        })
        .collect()
}

/// The box capacity the chapter's experiments use, in kilograms.
pub const BOX_KG: f64 = 40.0;
