//! The single-pass line scanner every strategy but `naive` and `naive-reuse` reads lines with
//! (the streaming strategy, the lines its fast lane leaves), and the item cache.
//!
//! [`scan`] walks one line once: the order id's digits (parsed as they are read), the item up
//! to its `|` (found by `memchr2`, which also stops at a `\n` so a line without enough fields
//! is never read past its end), the quantity's and the price's digits, then `\n` or `\r\n`.
//! Only the item is checked for UTF-8: every other byte it accepts is an ASCII digit or a
//! separator; and an item already seen is not checked again ([`ItemCache`]). Anything unexpected
//! — a missing field, a sign, a line cut by the end of a chunk — makes it give up and return
//! `None`; the caller then finds the line end with `memchr` and asks the reference checker
//! ([`line`](mod@crate::line)) why the line is bad. So the scanner never reports an error itself,
//! and it accepts exactly the lines the reference checker accepts (pinned by the strategies
//! agreeing with `naive`, which uses the reference checker only).
//!
//! The const parameter `DEPTH` stops the scan after a stage ([`SPLIT`], [`UTF8`], [`PARSE`],
//! [`WIDTH`]): the streaming strategy runs it at full depth, and the chapter's "where a line's
//! time goes" stages run the same function at each depth, so a stage's cost is measured on the
//! code the strategy runs.

use memchr::memchr2;
use unicode_width::UnicodeWidthStr;

use crate::line::{self, MAX_LINE, Numbers};

/// Find the separators and the line end (numbers are walked, not computed).
pub const SPLIT: u8 = 1;
/// And check that the item is UTF-8 (printable ASCII, or a name in the item cache, or decoded).
pub const UTF8: u8 = 2;
/// And compute and check the numbers (quantity ≥ 1, no overflow), and check the item for
/// control characters (for a name the cache does not know yet).
pub const PARSE: u8 = 3;
/// And the item's display width (the length for ASCII, the cache's for the rest): everything
/// the strategies need.
pub const WIDTH: u8 = 4;

/// A scanner, chosen by type so that its code is inlined into the line reader's loop.
pub trait Scanner {
    /// What an accepted line carries as proof that this scanner accepted it: [`Accepted`] for a
    /// real scanner, [`Never`] for [`NoScan`], which accepts no line. Code that handles scanned
    /// lines takes this proof, so for a strategy without a scanner the compiler knows that code
    /// is unreachable.
    type Accepted: Copy;

    /// Scans the line at the start of `bytes`, or returns `None` to send it to the reference
    /// checker.
    fn scan(bytes: &[u8], items: &mut ItemCache) -> Option<(Scanned, Self::Accepted)>;
}

/// The proof that a line was accepted by one of this module's scanners ([`Depth`]), or by the
/// reference checker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accepted(());

impl Accepted {
    /// The reference checker accepted the line.
    pub(crate) const CHECKED: Accepted = Accepted(());
}

/// A type with no values: the proof [`NoScan`] would give, if it ever accepted a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Never {}

/// [`scan`] cut at a depth ([`SPLIT`], [`UTF8`], [`PARSE`] or [`WIDTH`]), with the item cache
/// (`CACHED`, the default) or without it (every item name not printable ASCII is decoded,
/// checked and measured on every line: what the cache saves).
#[derive(Clone, Copy, Debug, Default)]
pub struct Depth<const DEPTH: u8, const CACHED: bool = true>;

impl<const DEPTH: u8, const CACHED: bool> Scanner for Depth<DEPTH, CACHED> {
    type Accepted = Accepted;

    #[inline(always)]
    fn scan(bytes: &[u8], items: &mut ItemCache) -> Option<(Scanned, Accepted)> {
        scan_with::<DEPTH, CACHED>(bytes, items).map(|scanned| (scanned, Accepted(())))
    }
}

/// No scanner: every line goes to the reference checker (the naive strategy).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoScan;

impl Scanner for NoScan {
    type Accepted = Never;

    #[inline(always)]
    fn scan(_: &[u8], _: &mut ItemCache) -> Option<(Scanned, Never)> {
        None
    }
}

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

/// The most digits the fast path reads in a number: any 19-digit number fits a `u64`, so the
/// digits are summed without overflow checks; a longer number goes to the reference checker.
const MAX_FAST_DIGITS: usize = 19;

/// Eight bytes at `at` as a little-endian word (`at + 8 <= bytes.len()`).
#[inline(always)]
fn word_at(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

/// Reads a decimal number starting at `at`: returns its value (when `parse`, else 0) and the
/// position of the first byte after its digits, or `None` if there is no digit, there are more
/// than [`MAX_FAST_DIGITS`], or the bytes end first.
///
/// Up to seven digits are read eight bytes at a time ([`short_number`]); a longer number, or
/// one too close to the end of the bytes for an eight-byte read, digit by digit.
#[inline(always)]
fn number(bytes: &[u8], at: usize, parse: bool) -> Option<(u64, usize)> {
    if let Some(found) = short_number(bytes, at, parse) {
        return found;
    }
    let start = at;
    let mut at = at;
    let mut value = 0u64;
    loop {
        let digit = bytes.get(at)?.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        if parse {
            value = value.wrapping_mul(10).wrapping_add(u64::from(digit));
        }
        at += 1;
    }
    (at > start && at - start <= MAX_FAST_DIGITS).then_some((value, at))
}

/// A number of at most seven digits read from one eight-byte word, without a loop: `None` when
/// the word cannot be read or holds eight digits (the caller reads digit by digit), else what
/// [`number`] returns.
///
/// Each byte minus `'0'` is a digit if it is below 10; the first byte that is not ends the
/// number (a borrow or carry from it only disturbs the bytes after it, which are ignored). The
/// digits are then shifted to the top of the word, below zeros that act as leading zeros, and
/// combined pairwise: ten times each digit plus the next, a hundred times each pair plus the
/// next, ten thousand times each quad plus the next.
#[inline(always)]
pub(crate) fn short_number(bytes: &[u8], at: usize, parse: bool) -> Option<Option<(u64, usize)>> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    if at + 8 > bytes.len() {
        return None;
    }
    let digits = word_at(bytes, at).wrapping_sub(b'0' as u64 * ONES);
    let not_digit = (digits.wrapping_add(0x76 * ONES) | digits) & HIGH;
    if not_digit == 0 {
        return None;
    }
    let len = (not_digit.trailing_zeros() / 8) as usize;
    if len == 0 {
        return Some(None);
    }
    if !parse {
        return Some(Some((0, at + len)));
    }
    // Shifting left drops the bytes from the first non-digit on.
    let mut x = digits << (8 * (8 - len));
    x = (x.wrapping_mul(10) + (x >> 8)) & 0x00FF_00FF_00FF_00FF;
    x = (x.wrapping_mul(100) + (x >> 16)) & 0x0000_FFFF_0000_FFFF;
    x = (x.wrapping_mul(10_000) + (x >> 32)) & 0xFFFF_FFFF;
    Some(Some((x, at + len)))
}

/// Scans one well-formed line at the start of `bytes` up to `DEPTH`, or returns `None` when the
/// line is not one the fast path accepts (see the module documentation).
#[inline(always)]
pub fn scan<const DEPTH: u8>(bytes: &[u8], items: &mut ItemCache) -> Option<Scanned> {
    scan_with::<DEPTH, true>(bytes, items)
}

/// [`scan`], with the item cache or without it.
#[inline(always)]
fn scan_with<const DEPTH: u8, const CACHED: bool>(
    bytes: &[u8],
    items: &mut ItemCache,
) -> Option<Scanned> {
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
        let item = &bytes[item_start..item_end];
        scanned.width = if CACHED {
            items.check::<DEPTH>(item)?
        } else {
            check_uncached::<DEPTH>(item)?
        };
    }
    if DEPTH >= PARSE {
        if qty == 0 {
            return None;
        }
        scanned.numbers = Numbers {
            order_id,
            qty,
            unit_price,
            line_total: qty.checked_mul(unit_price)?,
        };
    }
    Some(scanned)
}

/// Whether every byte is printable ASCII (`0x20..=0x7E`): then the bytes are UTF-8, contain no
/// control character, and take one column each. Eight bytes at a time (the last word overlaps
/// the one before it).
#[inline(always)]
pub fn printable_ascii(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A high bit in each byte that is not printable ASCII.
    let bad = |w: u64| {
        let low7 = w & !HIGH;
        let below_space = !((low7 | HIGH) - 0x20 * ONES) & HIGH; // byte < 0x20
        let del = (low7 + ONES) & HIGH; // byte == 0x7F
        (w & HIGH) | below_space | del
    };
    let n = bytes.len();
    if n < 8 {
        return bytes.iter().all(|&b| (0x20..0x7F).contains(&b));
    }
    let mut at = 0;
    while at + 8 < n {
        if bad(word_at(bytes, at)) != 0 {
            return false;
        }
        at += 8;
    }
    bad(word_at(bytes, n - 8)) == 0
}

/// Slots in the item cache.
const SLOTS: usize = 256;
/// The longest item (in bytes) the item cache keeps; longer ones are checked every time.
const SLOT_BYTES: usize = 61;

#[derive(Clone, Copy, Debug)]
struct Slot {
    len: u8,
    /// How far the item was checked (a scan depth); 0 for an empty slot.
    depth: u8,
    width: u8,
    bytes: [u8; SLOT_BYTES],
}

const EMPTY: Slot = Slot {
    len: 0,
    depth: 0,
    width: 0,
    bytes: [0; SLOT_BYTES],
};

/// What is known of the item names already seen: that they are UTF-8 without control
/// characters, and their display width.
///
/// Printable ASCII needs no cache: one pass, eight bytes at a time, answers all three questions
/// ([`printable_ascii`]). Other names — a menu's Thai names — are looked up in a small
/// direct-mapped cache keyed by their bytes; only a name not found there is decoded, checked
/// and measured with `unicode-width`, once. A name whose bytes equal a checked name's is the
/// same name, so each name is checked once per cache slot, not once per line.
///
/// The cache holds 256 slots of 64 bytes ([`ItemCache::BYTES`]), allocated the first time a
/// name that is not printable ASCII is looked up (so a strategy that never scans never
/// allocates it); a slot keeps a name of up to 61 bytes (20 Thai characters); a collision only
/// costs a check.
#[derive(Clone, Debug, Default)]
pub struct ItemCache {
    /// `None` until the first lookup.
    slots: Option<Box<[Slot; SLOTS]>>,
}

impl ItemCache {
    /// The bytes the cache holds once it is in use.
    pub const BYTES: usize = SLOTS * std::mem::size_of::<Slot>();

    /// An empty cache (it allocates nothing until it is first used).
    pub fn new() -> Self {
        Self::default()
    }

    /// Checks an item name up to `DEPTH` — UTF-8 from [`UTF8`], control characters from
    /// [`PARSE`] — and returns its display width from [`WIDTH`] (0 below), or `None` if it is
    /// not accepted.
    #[inline(always)]
    pub fn check<const DEPTH: u8>(&mut self, item: &[u8]) -> Option<usize> {
        if let Some(width) = ascii_width(item) {
            return Some(width);
        }
        self.lookup::<DEPTH>(item)
    }

    /// [`ItemCache::check`] of a name known not to be printable ASCII: the cache, or the whole
    /// check (whose answer the cache then keeps).
    #[inline(always)]
    pub(crate) fn lookup<const DEPTH: u8>(&mut self, item: &[u8]) -> Option<usize> {
        if item.len() > SLOT_BYTES {
            return check_slowly::<DEPTH>(item);
        }
        let slots = self.slots.get_or_insert_with(|| {
            // One allocation of `SLOTS` slots, made on the heap (a boxed array literal would be
            // built on the stack first).
            let slots = vec![EMPTY; SLOTS].into_boxed_slice();
            slots
                .try_into()
                .unwrap_or_else(|_| unreachable!("a vector of SLOTS slots"))
        });
        let slot = &mut slots[slot_of(item)];
        if slot.depth >= DEPTH && usize::from(slot.len) == item.len() && same(&slot.bytes, item) {
            return Some(usize::from(slot.width));
        }
        let width = check_slowly::<DEPTH>(item)?;
        if let Ok(w) = u8::try_from(width) {
            *slot = Slot {
                len: item.len() as u8, // at most SLOT_BYTES
                depth: DEPTH,
                width: w,
                bytes: [0; SLOT_BYTES],
            };
            slot.bytes[..item.len()].copy_from_slice(item);
        }
        Some(width)
    }
}

/// The width of a printable ASCII name (its length), or `None` for any other. A name that
/// starts with a non-ASCII byte (every Thai name) is not read further.
#[inline(always)]
fn ascii_width(item: &[u8]) -> Option<usize> {
    (item.first().is_some_and(|&b| b < 0x80) && printable_ascii(item)).then_some(item.len())
}

/// [`ItemCache::check`] without the cache: the ASCII fast path, then the whole check.
#[inline(always)]
fn check_uncached<const DEPTH: u8>(item: &[u8]) -> Option<usize> {
    ascii_width(item).or_else(|| check_slowly::<DEPTH>(item))
}

/// Whether a slot's bytes start with `item` (at most `SLOT_BYTES` long): word by word, the
/// last word overlapping the one before it.
#[inline(always)]
fn same(slot: &[u8; SLOT_BYTES], item: &[u8]) -> bool {
    let n = item.len();
    if n < 8 {
        return slot[..n] == *item;
    }
    let mut at = 0;
    while at + 8 < n {
        if word_at(slot, at) != word_at(item, at) {
            return false;
        }
        at += 8;
    }
    word_at(slot, n - 8) == word_at(item, n - 8)
}

/// The uncached check of [`ItemCache::check`].
pub(crate) fn check_slowly<const DEPTH: u8>(item: &[u8]) -> Option<usize> {
    let item = std::str::from_utf8(item).ok()?;
    if DEPTH >= PARSE && line::control_character(item).is_some() {
        return None;
    }
    Some(if DEPTH >= WIDTH { item.width() } else { 0 })
}

/// The cache slot of an item: a multiplicative hash of its first and last eight bytes (or of
/// all of them, if fewer) and its length.
#[inline]
fn slot_of(bytes: &[u8]) -> usize {
    let n = bytes.len();
    let mixed = if n >= 8 {
        word_at(bytes, 0) ^ word_at(bytes, n - 8).rotate_left(29)
    } else {
        bytes.iter().fold(0, |h, &b| h << 8 | u64::from(b))
    } ^ n as u64;
    // The top eight bits: below `SLOTS`.
    (mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as u8 as usize
}
