//! The single-pass line scanner every strategy but `naive` reads lines with, and the display
//! width cache.
//!
//! [`scan`] walks one line once: the order id's digits (parsed as they are read), the item up
//! to its `|` (found by `memchr2`, which also stops at a `\n` so a line without enough fields
//! is never read past its end), the quantity's and the price's digits, then `\n` or `\r\n`.
//! Only the item is checked for UTF-8: every other byte it accepts is an ASCII digit or a
//! separator. Anything unexpected — a missing field, a sign, a line cut by the end of a chunk —
//! makes it give up and return `None`; the caller then finds the line end with `memchr` and asks
//! the reference checker ([`line`](crate::line)) why the line is bad. So the scanner never
//! reports an error itself, and it accepts exactly the lines the reference checker accepts
//! (pinned by the strategies agreeing with `naive`, which uses the reference checker only).
//!
//! The const parameter `DEPTH` stops the scan after a stage ([`SPLIT`], [`UTF8`], [`PARSE`],
//! [`WIDTH`]): the streaming strategy runs it at full depth, and the chapter's "where a line's
//! time goes" stages ([`workloads::Stage`](crate::workloads::Stage)) run the same function at
//! each depth, so a stage's cost is measured on the code the strategy runs.

use memchr::memchr2;
use unicode_width::UnicodeWidthStr;

use crate::line::{self, MAX_LINE, Numbers};

/// Find the separators and the line end (numbers are walked digit by digit, not computed).
pub const SPLIT: u8 = 1;
/// And check that the item is UTF-8.
pub const UTF8: u8 = 2;
/// And compute and check the numbers (quantity ≥ 1, no overflow) and the item's characters.
pub const PARSE: u8 = 3;
/// And the item's display width: everything the strategies need.
pub const WIDTH: u8 = 4;

/// What the scanner found in one line. Positions are relative to the start of the line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scanned {
    /// The numbers (zero below [`PARSE`]).
    pub numbers: Numbers,
    /// Where the item starts.
    pub item_start: usize,
    /// Where the item ends (its `|`).
    pub item_end: usize,
    /// The item's display width (zero below [`WIDTH`]).
    pub width: usize,
    /// The bytes the line takes, its line ending included.
    pub len: usize,
}

/// Reads a decimal number starting at `at`: returns its value (when `parse`, else 0) and the
/// position of the first byte after its digits, or `None` if there is no digit, the number
/// overflows a `u64`, or the bytes end first.
#[inline(always)]
fn number(bytes: &[u8], mut at: usize, parse: bool) -> Option<(u64, usize)> {
    let start = at;
    let mut value = 0u64;
    loop {
        let digit = bytes.get(at)?.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        if parse {
            value = value.checked_mul(10)?.checked_add(u64::from(digit))?;
        }
        at += 1;
    }
    (at > start).then_some((value, at))
}

/// Scans one well-formed line at the start of `bytes` up to `DEPTH`, or returns `None` when the
/// line is not one the fast path accepts (see the module documentation).
#[inline]
pub fn scan<const DEPTH: u8>(bytes: &[u8], widths: &mut Widths) -> Option<Scanned> {
    let (order_id, at) = number(bytes, 0, DEPTH >= PARSE)?;
    if bytes[at] != b'|' {
        return None;
    }
    let item_start = at + 1;
    let item_end = item_start + memchr2(b'|', b'\n', bytes.get(item_start..)?)?;
    if item_end == item_start || bytes[item_end] != b'|' {
        return None;
    }
    let (qty, at) = number(bytes, item_end + 1, DEPTH >= PARSE)?;
    if bytes[at] != b'|' {
        return None;
    }
    let (unit_price, end) = number(bytes, at + 1, DEPTH >= PARSE)?;
    let len = match bytes[end] {
        b'\n' => end + 1,
        b'\r' if bytes.get(end + 1) == Some(&b'\n') => end + 2,
        _ => return None,
    };
    if end > MAX_LINE {
        return None;
    }
    let mut scanned = Scanned {
        item_start,
        item_end,
        len,
        ..Scanned::default()
    };
    if DEPTH >= UTF8 {
        let item = std::str::from_utf8(&bytes[item_start..item_end]).ok()?;
        if DEPTH >= PARSE {
            if qty == 0 || line::control_character(item).is_some() {
                return None;
            }
            scanned.numbers = Numbers {
                order_id,
                qty,
                unit_price,
                line_total: qty.checked_mul(unit_price)?,
            };
        }
        if DEPTH >= WIDTH {
            scanned.width = widths.of(item);
        }
    }
    Some(scanned)
}

/// Slots in the width cache.
const SLOTS: usize = 256;
/// The longest item (in bytes) the width cache keeps; longer ones are measured every time.
const SLOT_BYTES: usize = 62;

#[derive(Clone, Copy, Debug)]
struct Slot {
    len: u8,
    width: u8,
    bytes: [u8; SLOT_BYTES],
}

/// Display widths of item names: the length for ASCII (every accepted ASCII character is one
/// column), and a small direct-mapped cache in front of `unicode-width` for the rest, so a
/// menu's Thai names are measured once each rather than once per line.
///
/// The cache holds 256 slots of 64 bytes (16 KiB), allocated once; a slot keeps an item of up
/// to 62 bytes (20 Thai characters) and its width; a collision only costs a re-measure.
#[derive(Clone, Debug)]
pub struct Widths {
    slots: Box<[Slot]>,
}

impl Default for Widths {
    fn default() -> Self {
        Self::new()
    }
}

impl Widths {
    /// An empty cache.
    pub fn new() -> Self {
        let empty = Slot {
            len: 0,
            width: 0,
            bytes: [0; SLOT_BYTES],
        };
        Self {
            slots: vec![empty; SLOTS].into_boxed_slice(),
        }
    }

    /// The display width of an accepted item (no control characters), as
    /// `unicode_width::UnicodeWidthStr::width` gives it.
    #[inline]
    pub fn of(&mut self, item: &str) -> usize {
        let bytes = item.as_bytes();
        if bytes.is_ascii() {
            return bytes.len();
        }
        if bytes.len() > SLOT_BYTES {
            return item.width();
        }
        let slot = &mut self.slots[slot_of(bytes)];
        if usize::from(slot.len) == bytes.len() && slot.bytes[..bytes.len()] == *bytes {
            return usize::from(slot.width);
        }
        let width = item.width();
        if let Ok(w) = u8::try_from(width) {
            slot.len = bytes.len() as u8; // at most SLOT_BYTES
            slot.width = w;
            slot.bytes[..bytes.len()].copy_from_slice(bytes);
        }
        width
    }
}

/// The cache slot of an item: a multiplicative hash of its first and last eight bytes and its
/// length.
#[inline]
fn slot_of(bytes: &[u8]) -> usize {
    let word = |at: usize| {
        let part = &bytes[at..bytes.len().min(at + 8)];
        let mut w = [0u8; 8];
        w[..part.len()].copy_from_slice(part);
        u64::from_le_bytes(w)
    };
    let mixed = word(0) ^ word(bytes.len().saturating_sub(8)).rotate_left(29) ^ bytes.len() as u64;
    (mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize
}
