//! A zeroed array on the heap, built one of four ways (S13): `Box::new([0u8; N])` builds the
//! array on the stack first when the compiler does not optimise the copy away, which is what
//! the dev profile shows; the other three allocate the zeroed block on the heap directly.

use std::hint::black_box;

/// How a boxed array is built (S13).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoxWay {
    /// `Box::new([0u8; N])`: the array is an argument, built on the caller's stack and then
    /// copied into the heap — unless the optimiser removes the copy, as release builds do.
    BoxNew,
    /// `vec![0u8; N].into_boxed_slice()`: a zeroed heap allocation, a `Box<[u8]>`.
    VecIntoBoxedSlice,
    /// `Box::<[u8; N]>::new_zeroed()` then `assume_init`: a zeroed heap allocation of the
    /// array type, with one `unsafe` line.
    NewZeroed,
    /// `vec![0u8; N].into_boxed_slice().try_into()`: a `Box<[u8; N]>` from a boxed slice of
    /// the right length, in safe code.
    TryFromBoxedSlice,
}

impl BoxWay {
    /// Every way, `Box::new` first.
    pub const ALL: [BoxWay; 4] = [
        BoxWay::BoxNew,
        BoxWay::VecIntoBoxedSlice,
        BoxWay::NewZeroed,
        BoxWay::TryFromBoxedSlice,
    ];

    /// The code, as a table shows it.
    pub fn code(self) -> &'static str {
        match self {
            BoxWay::BoxNew => "Box::new([0u8; N])",
            BoxWay::VecIntoBoxedSlice => "vec![0u8; N].into_boxed_slice()",
            BoxWay::NewZeroed => "Box::<[u8; N]>::new_zeroed()",
            BoxWay::TryFromBoxedSlice => {
                "Box::<[u8; N]>::try_from(vec![0u8; N].into_boxed_slice())"
            }
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            BoxWay::BoxNew => "box-new",
            BoxWay::VecIntoBoxedSlice => "vec-into-boxed-slice",
            BoxWay::NewZeroed => "new-zeroed",
            BoxWay::TryFromBoxedSlice => "try-from-boxed-slice",
        }
    }

    pub(super) fn from_name(name: &str) -> Option<BoxWay> {
        BoxWay::ALL.into_iter().find(|w| w.name() == name)
    }
}

#[inline(never)]
fn box_new<const N: usize>() -> u8 {
    let boxed = Box::new([0u8; N]);
    black_box(&boxed)[N - 1]
}

#[inline(never)]
fn vec_into_boxed_slice<const N: usize>() -> u8 {
    let boxed: Box<[u8]> = vec![0u8; N].into_boxed_slice();
    black_box(&boxed)[N - 1]
}

#[inline(never)]
fn new_zeroed<const N: usize>() -> u8 {
    let zeroed = Box::<[u8; N]>::new_zeroed();
    // SAFETY: the allocation is zeroed, and all-zero bytes are a valid `[u8; N]`.
    let boxed = unsafe { zeroed.assume_init() };
    black_box(&boxed)[N - 1]
}

#[inline(never)]
fn try_from_boxed_slice<const N: usize>() -> u8 {
    let boxed: Box<[u8; N]> = vec![0u8; N]
        .into_boxed_slice()
        .try_into()
        .expect("a boxed slice of exactly N bytes converts");
    black_box(&boxed)[N - 1]
}

fn boxed_sized<const N: usize>(way: BoxWay) -> u8 {
    match way {
        BoxWay::BoxNew => box_new::<N>(),
        BoxWay::VecIntoBoxedSlice => vec_into_boxed_slice::<N>(),
        BoxWay::NewZeroed => new_zeroed::<N>(),
        BoxWay::TryFromBoxedSlice => try_from_boxed_slice::<N>(),
    }
}

/// The sizes [`boxed`] can build: powers of two from 64 KiB to 16 MiB (each size is its own
/// function, so the ladder is fixed).
pub const BOX_SIZES: [usize; 9] = [
    64 << 10,
    128 << 10,
    256 << 10,
    512 << 10,
    1 << 20,
    2 << 20,
    4 << 20,
    8 << 20,
    16 << 20,
];

/// S13: a zeroed array of `bytes` on the heap, built `way`, touched. `None` if `bytes` is not
/// one of [`BOX_SIZES`].
pub fn boxed(way: BoxWay, bytes: usize) -> Option<u8> {
    Some(match bytes {
        0x1_0000 => boxed_sized::<0x1_0000>(way),
        0x2_0000 => boxed_sized::<0x2_0000>(way),
        0x4_0000 => boxed_sized::<0x4_0000>(way),
        0x8_0000 => boxed_sized::<0x8_0000>(way),
        0x10_0000 => boxed_sized::<0x10_0000>(way),
        0x20_0000 => boxed_sized::<0x20_0000>(way),
        0x40_0000 => boxed_sized::<0x40_0000>(way),
        0x80_0000 => boxed_sized::<0x80_0000>(way),
        0x100_0000 => boxed_sized::<0x100_0000>(way),
        _ => return None,
    })
}
