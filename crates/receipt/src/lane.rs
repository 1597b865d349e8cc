//! The streaming strategy's fast lane: the lines of the open order, and the orders after it,
//! read, checked and written in one loop over the chunk, with no line record, no scanner
//! result and no renderer window in between.
//!
//! The order loop ([`engine`](crate::engine)) hands every line to the line reader, the scanner
//! and the renderer, one call after another. For the streaming strategy, whose open order is
//! nothing but its receipt text in the output buffer, it then runs the lane, which goes on from
//! where the reader stopped, one line at a time, as long as each line is one it can prove good
//! cheaply:
//!
//! - its order id is the open order's, recognised by comparing the line's first bytes with the
//!   digits and `|` of the open order's id, masked to their length (one eight-byte compare for
//!   an id of up to seven digits); only when they differ is the id read, and a different id
//!   closes the open order and opens the next, as the order loop would;
//! - its item, at most [`MAX_ITEM`] bytes, is read sixteen bytes at a time: one pass finds its
//!   `|` and tells whether it is printable ASCII (then it is UTF-8, free of control characters,
//!   and one column per byte); any other name is looked up in the item cache, or checked in
//!   full once ([`ItemCache::lookup`]);
//! - its quantity (1 to 9,999) and unit price (below 1,000,000 satang) have at most seven
//!   digits each, read eight bytes at a time, its line total is below 1,000,000 satang, and it
//!   ends with `\n` or `\r\n`;
//! - the order has fewer than [`MAX_ORDER_LINES`](crate::line::MAX_ORDER_LINES) lines and its
//!   total does not overflow.
//!
//! Its receipt line is then written at the output buffer's end with a few stores: the name's
//! sixteen-byte blocks, spaces, and the numbers' 32 bytes built from a template, each amount's
//! baht from a table of the 10,000 numbers below 10,000, right-aligned in four columns. Every
//! other line — a bad one, a long one, one near the end of the chunk (the lane reads [`SPAN`]
//! bytes from a line's start, so it stops that far from the end), one of an order with a bad
//! line — is left to the order loop, which reads it as before: so the lane changes how fast a
//! line is read, never what is printed (every agreement test runs through it).
//!
//! The const parameter `DEPTH` stops the lane after a stage ([`WALK`], [`CHECK`], [`PARSE`]),
//! for the chapter's "where a line's time goes", which runs the lane's own code at each depth.

use crate::render::{self, ByteSink, NAME_COLUMNS, PAIRS};
use crate::scan::{self, ItemCache};

/// How many bytes from a line's start the lane reads (the longest line it takes is shorter):
/// it takes no line that starts closer than this to the end of the chunk.
pub(crate) const SPAN: usize = 128;

/// The longest item name the lane takes, in bytes: four blocks of sixteen.
pub(crate) const MAX_ITEM: usize = 64;

/// The most digits of an order id the lane reads (`u64::MAX` has 20).
const MAX_ID_DIGITS: usize = 20;

/// Find the order id, the item's `|`, the numbers' digits and the line end (the numbers are
/// walked, not computed; the item is not checked). Only R5's cut names it (`twins::lane_lines`).
#[cfg_attr(not(feature = "twins"), allow(dead_code))]
pub const WALK: u8 = 1;
/// And check the item: printable ASCII from the same blocks, or the item cache (UTF-8,
/// control characters, display width).
pub const CHECK: u8 = 2;
/// And compute the numbers and check them (quantity 1 to 9,999, amounts that the table
/// writes): everything the lane needs to write the line.
pub const PARSE: u8 = 3;

/// The largest quantity the lane takes.
const MAX_QTY: u64 = 9_999;
/// Amounts (unit price, line total) the lane takes are below this, in satang: their baht have
/// at most four digits.
const AMOUNT_LIMIT: u64 = 1_000_000;

/// Eight bytes of `line` at `at`, little-endian.
#[inline(always)]
fn word(line: &[u8; SPAN], at: usize) -> u64 {
    let mut bytes = [0; 8];
    bytes.copy_from_slice(&line[at..at + 8]);
    u64::from_le_bytes(bytes)
}

/// A mask of the first `n` bytes of a word (`n` at most 8).
#[inline(always)]
const fn low_bytes(n: usize) -> u64 {
    if n >= 8 { u64::MAX } else { (1 << (8 * n)) - 1 }
}

/// The open order's id, and the bytes a line of it starts with: its digits and `|`, in three
/// words (zero beyond them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OpenId {
    /// The id.
    pub id: u64,
    /// How many digits.
    digits: usize,
    /// The bytes of the first word that hold digits or the `|`.
    mask: u64,
    /// The digits and `|`, eight bytes a word; the last two are zero for an id of at most seven
    /// digits, which the first word holds whole.
    words: [u64; 3],
}

impl OpenId {
    /// `id` as its lines spell it without leading zeros.
    pub(crate) fn new(id: u64) -> Self {
        let mut text = [0u8; 24];
        let digits = render::digit_count(id);
        render::digits_before(&mut text, digits, id);
        text[digits] = b'|';
        let word = |at: usize| {
            let mut bytes = [0; 8];
            bytes.copy_from_slice(&text[at..at + 8]);
            u64::from_le_bytes(bytes)
        };
        Self::spelled(id, digits, word)
    }

    /// `id`, spelled by `digits` digits and a `|` in the words `word` reads at 0, 8 and 16.
    #[inline(always)]
    fn spelled(id: u64, digits: usize, word: impl Fn(usize) -> u64) -> Self {
        let n = digits + 1;
        if n < 8 {
            // Most ids: one word.
            let mask = (1 << (8 * n)) - 1;
            return Self {
                id,
                digits,
                mask,
                words: [word(0) & mask, 0, 0],
            };
        }
        let [_, second, third] = Self::long_masks(digits);
        Self {
            id,
            digits,
            mask: u64::MAX,
            words: [word(0), word(8) & second, word(16) & third],
        }
    }

    /// The masks of the three words for an id of `digits` digits.
    #[inline(always)]
    fn long_masks(digits: usize) -> [u64; 3] {
        let n = digits + 1;
        [
            low_bytes(n),
            low_bytes(n.saturating_sub(8)),
            low_bytes(n.saturating_sub(16)),
        ]
    }

    /// Whether `line` starts with these digits and `|`.
    #[inline(always)]
    fn starts(&self, line: &[u8; SPAN]) -> bool {
        if (word(line, 0) ^ self.words[0]) & self.mask != 0 {
            return false;
        }
        if self.digits < 7 {
            return true;
        }
        let [_, second, third] = Self::long_masks(self.digits);
        ((word(line, 8) & second) ^ self.words[1]) | ((word(line, 16) & third) ^ self.words[2]) == 0
    }

    /// Whether the header can copy the digits from the first word: the id's own digits,
    /// without leading zeros, at most seven of them.
    #[inline(always)]
    fn copyable(&self) -> bool {
        self.digits < 8 && (self.digits == 1 || self.words[0] & 0xFF != u64::from(b'0'))
    }
}

/// The order id at the start of `line`: its value and its digits, if it is at most
/// [`MAX_ID_DIGITS`] digits that fit a `u64`, followed by `|`.
#[inline(always)]
fn order_id(line: &[u8; SPAN]) -> Option<(u64, usize)> {
    let (id, digits) = match scan::short_number(line, 0, true) {
        Some(found) => found?,
        None => {
            // Eight digits or more, one at a time.
            let mut id = 0u64;
            let mut digits = 0;
            loop {
                let digit = line[digits].wrapping_sub(b'0');
                if digit > 9 {
                    break;
                }
                if digits == MAX_ID_DIGITS {
                    return None;
                }
                id = id.checked_mul(10)?.checked_add(u64::from(digit))?;
                digits += 1;
            }
            (id, digits)
        }
    };
    (line[digits] == b'|').then_some((id, digits))
}

/// Which of sixteen bytes are `|`, and which are printable ASCII (`0x20..=0x7E`), one bit
/// each: three byte compares and two byte masks of SSE2, where the build has it (every x86-64
/// build does: SSE2 is part of the architecture's baseline), instead of about thirty scalar
/// instructions per eight bytes.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn block_masks(block: &[u8; 16]) -> (u32, u32) {
    // SAFETY: `sse2_block_masks` is safe but for requiring SSE2, and this build enables SSE2
    // for every function it compiles (the `cfg` above), so the processor it runs on has it.
    // (Rust asks for `unsafe` here because the caller does not repeat the feature in a
    // `#[target_feature]` of its own, which `#[inline(always)]` does not allow.)
    unsafe { sse2_block_masks(block) }
}

/// [`block_masks`], in SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn sse2_block_masks(block: &[u8; 16]) -> (u32, u32) {
    use std::arch::x86_64::{
        _mm_andnot_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_movemask_epi8, _mm_set_epi64x,
        _mm_set1_epi8,
    };
    let half = |at: usize| {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(&block[at..at + 8]);
        i64::from_le_bytes(bytes)
    };
    let v = _mm_set_epi64x(half(8), half(0));
    let bars = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'|' as i8)));
    // As signed bytes, 0x20..=0x7F are the ones above 0x1F; then DEL is taken out.
    let above_controls = _mm_cmpgt_epi8(v, _mm_set1_epi8(0x1F));
    let del = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7F));
    let printable = _mm_movemask_epi8(_mm_andnot_si128(del, above_controls));
    (bars as u32, printable as u32)
}

/// [`block_masks`] byte by byte, where there is no SSE2.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn block_masks(block: &[u8; 16]) -> (u32, u32) {
    let mut bars = 0;
    let mut printable = 0;
    for (i, &b) in block.iter().enumerate() {
        bars |= u32::from(b == b'|') << i;
        printable |= u32::from(b.wrapping_sub(0x20) < 0x5F) << i;
    }
    (bars, printable)
}

/// One line the lane read, as far as `DEPTH`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Read {
    /// The line's order id, when it is not the open order's.
    pub new_order: Option<OpenId>,
    /// Where the item starts.
    pub item_start: usize,
    /// Its length in bytes.
    pub item_len: usize,
    /// Its display width (from [`CHECK`]).
    pub width: usize,
    /// The numbers (from [`PARSE`]).
    pub qty: u64,
    /// The unit price, in satang.
    pub unit_price: u64,
    /// `qty × unit_price`.
    pub line_total: u64,
    /// The bytes the line takes, its line ending included.
    pub len: usize,
}

/// Reads the line at the start of `line` as far as `DEPTH`, or returns `None` if it is not one
/// the lane takes (see the module documentation). `CACHED` turns the item cache off (every
/// name that is not printable ASCII checked in full), for the chapter's measure of what the
/// cache saves.
#[inline(always)]
pub(crate) fn read<const DEPTH: u8, const CACHED: bool>(
    line: &[u8; SPAN],
    open: &OpenId,
    items: &mut ItemCache,
) -> Option<Read> {
    let (new_order, digits) = if open.starts(line) {
        (None, open.digits)
    } else {
        let (id, digits) = order_id(line)?;
        let new = (id != open.id).then(|| OpenId::spelled(id, digits, |at| word(line, at)));
        (new, digits)
    };
    // An id has at most `MAX_ID_DIGITS` digits: saying so lets the compiler see that every
    // read below stays inside `line`.
    let item_start = (digits + 1).min(MAX_ID_DIGITS + 1);
    let mut item_len = None;
    let mut ascii = true;
    for k in 0..MAX_ITEM / 16 {
        let at = item_start + 16 * k;
        let Some(block) = line[at..].first_chunk::<16>() else {
            break;
        };
        let (bars, printable) = block_masks(block);
        if bars != 0 {
            let n = bars.trailing_zeros() & 15;
            let before = (1 << n) - 1;
            ascii &= printable & before == before;
            item_len = Some(16 * k + n as usize);
            break;
        }
        ascii &= printable == 0xFFFF;
    }
    let item_len = item_len.filter(|&n| n > 0)?;
    let item_end = item_start + item_len;
    let width = if DEPTH >= CHECK {
        if ascii {
            item_len
        } else {
            let item = &line[item_start..item_end];
            if CACHED {
                items.lookup::<{ scan::WIDTH }>(item)?
            } else {
                scan::check_slowly::<{ scan::WIDTH }>(item)?
            }
        }
    } else {
        0
    };
    let parse = DEPTH >= PARSE;
    let qty_digit = line[item_end + 1].wrapping_sub(b'0');
    let (qty, at) = if qty_digit <= 9 && line[item_end + 2] == b'|' {
        // A quantity of one digit, the most common.
        (u64::from(qty_digit), item_end + 2)
    } else {
        scan::short_number(line, item_end + 1, parse)??
    };
    if line[at] != b'|' {
        return None;
    }
    let (unit_price, end) = scan::short_number(line, at + 1, parse)??;
    let len = match line[end] {
        b'\n' => end + 1,
        b'\r' if line[end + 1] == b'\n' => end + 2,
        _ => return None,
    };
    let mut line_total = 0;
    if parse {
        if qty == 0 || qty > MAX_QTY || unit_price >= AMOUNT_LIMIT {
            return None;
        }
        line_total = qty * unit_price;
        if line_total >= AMOUNT_LIMIT {
            return None;
        }
    }
    Some(Read {
        new_order,
        item_start,
        item_len,
        width,
        qty,
        unit_price,
        line_total,
        len,
    })
}

/// `n` (below 10,000) right-aligned in four columns, for every `n`: a quantity, or an amount's
/// baht; as the low four bytes of a little-endian word.
static FOUR_COLUMNS: [u32; 10_000] = {
    let mut table = [0; 10_000];
    let mut n = 0;
    while n < 10_000 {
        let mut bytes = [b' '; 4];
        let mut rest = n;
        let mut at = 4;
        loop {
            at -= 1;
            bytes[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        table[n] = u32::from_le_bytes(bytes);
        n += 1;
    }
    table
};

/// `"00"` to `"99"`, each as the low two bytes of a little-endian word.
static CENTS: [u16; 100] = {
    let mut table = [0; 100];
    let mut n = 0;
    while n < 100 {
        table[n] = u16::from_le_bytes([PAIRS[2 * n], PAIRS[2 * n + 1]]);
        n += 1;
    }
    table
};

/// `n` (below 10,000) in four columns, as a word's low bytes.
#[inline(always)]
fn four_columns(n: u64) -> u64 {
    u64::from(FOUR_COLUMNS[n as usize])
}

/// An amount below [`AMOUNT_LIMIT`]: its baht in four columns and its cents, as words' low
/// bytes.
#[inline(always)]
fn baht_and_cents(satang: u64) -> (u64, u64) {
    (
        four_columns(satang / 100),
        u64::from(CENTS[(satang % 100) as usize]),
    )
}

/// An item line's numbers, from the quantity column to the `\n`, with every number in its
/// column (32 bytes, as [`render`]'s fixed tail).
const TAIL: usize = 32;

/// Where the price column ends in the tail.
const PRICE_END: usize = render::QTY_WIDTH + 3 + render::PRICE_WIDTH;

/// The tail's bytes before the numbers are written: spaces, ` x `, the two decimal points and
/// the `\n`, with zeros where the numbers go (four columns before each decimal point, two after
/// it, four for the quantity); as four little-endian words.
const TAIL_TEMPLATE: [u64; 4] = {
    let mut tail = [b' '; TAIL];
    tail[render::QTY_WIDTH + 1] = b'x';
    tail[PRICE_END - 3] = b'.';
    tail[TAIL - 4] = b'.';
    tail[TAIL - 1] = b'\n';
    let holes = [
        (render::QTY_WIDTH - 4, 4),
        (PRICE_END - 7, 4),
        (PRICE_END - 2, 2),
        (TAIL - 8, 4),
        (TAIL - 3, 2),
    ];
    let mut i = 0;
    while i < holes.len() {
        let (at, len) = holes[i];
        let mut j = 0;
        while j < len {
            tail[at + j] = 0;
            j += 1;
        }
        i += 1;
    }
    let mut words = [0; 4];
    let mut w = 0;
    while w < 4 {
        let mut b = 8;
        while b > 0 {
            b -= 1;
            words[w] = words[w] << 8 | tail[8 * w + b] as u64;
        }
        w += 1;
    }
    words
};

// The holes, as `item_line` fills them: the quantity in word 0 from byte 2, the price's baht
// in word 1 from byte 4 and its cents in word 2 from byte 1, the total's baht in word 3 from
// byte 0 and its cents from byte 5.
const _: () = assert!(render::QTY_WIDTH == 6 && PRICE_END == 19);
const _: () = assert!(TAIL == PRICE_END + render::TOTAL_WIDTH + 1);

/// The window an item line is written into: the renderer's widest, so the output buffer grows
/// as it would for the renderer.
pub(crate) const ITEM_WINDOW: usize = 2 + MAX_ITEM + NAME_COLUMNS + TAIL;

const _: () = assert!(ITEM_WINDOW == render::MAX_WINDOW);

/// Writes the item line of a line read at [`PARSE`] depth, as [`render::item_line`] writes it:
/// two spaces, the name's four blocks (whatever follows the name is written over), spaces, and
/// the numbers.
#[inline(always)]
pub(crate) fn item_line(out: &mut impl Sheet, line: &[u8; SPAN], read: &Read) {
    let n = read.item_len.min(MAX_ITEM);
    let padding = NAME_COLUMNS.saturating_sub(read.width);
    let (price_baht, price_cents) = baht_and_cents(read.unit_price);
    let (total_baht, total_cents) = baht_and_cents(read.line_total);
    let tail = [
        TAIL_TEMPLATE[0] | four_columns(read.qty) << 16,
        TAIL_TEMPLATE[1] | price_baht << 32,
        TAIL_TEMPLATE[2] | price_cents << 8,
        TAIL_TEMPLATE[3] | total_baht | total_cents << 40,
    ];
    let window = out.window::<ITEM_WINDOW>();
    window[..2].copy_from_slice(b"  ");
    let start = read.item_start.min(MAX_ID_DIGITS + 1);
    window[2..2 + MAX_ITEM].copy_from_slice(&line[start..start + MAX_ITEM]);
    window[2 + n..2 + n + TAIL].copy_from_slice(&[b' '; TAIL]);
    let at = 2 + n + padding;
    for (k, word) in tail.iter().enumerate() {
        window[at + 8 * k..at + 8 * k + 8].copy_from_slice(&word.to_le_bytes());
    }
    out.wrote(at + TAIL);
}

/// Writes `Order <id>\n`, as [`render::header`] writes it: the id's digits copied from its
/// line, when they are its own and fit one word.
#[inline(always)]
pub(crate) fn header(out: &mut impl Sheet, open: &OpenId) {
    if !open.copyable() {
        render::header(out, open.id);
        return;
    }
    let window = out.window::<{ render::MAX_HEADER }>();
    window[..6].copy_from_slice(b"Order ");
    window[6..14].copy_from_slice(&open.words[0].to_le_bytes());
    window[6 + open.digits] = b'\n';
    out.wrote(6 + open.digits + 1);
}

/// The `TOTAL` line's bytes before the amount is written.
const TOTAL_TEMPLATE: [u8; render::TOTAL_LINE] = {
    let mut line = [b' '; render::TOTAL_LINE];
    line[0] = b'T';
    line[1] = b'O';
    line[2] = b'T';
    line[3] = b'A';
    line[4] = b'L';
    line[render::LINE_WIDTH - 3] = b'.';
    line[render::LINE_WIDTH] = b'\n';
    line
};

/// Writes the `TOTAL` line, as [`render::total_line`] writes it.
#[inline(always)]
pub(crate) fn total_line(out: &mut impl Sheet, total: u64) {
    if total >= AMOUNT_LIMIT {
        render::total_line(out, total);
        return;
    }
    let window = out.window::<{ render::TOTAL_LINE }>();
    *window = TOTAL_TEMPLATE;
    let end = render::LINE_WIDTH;
    let (baht, cents) = baht_and_cents(total);
    window[end - 7..end - 3].copy_from_slice(&(baht as u32).to_le_bytes());
    window[end - 2..end].copy_from_slice(&(cents as u16).to_le_bytes());
    out.wrote(render::TOTAL_LINE);
}

/// The output buffer as the lane writes it: a window of room after what is written, then how
/// much of it was; and the receipts it holds opened and closed.
pub(crate) trait Sheet: ByteSink {
    /// The `N` bytes after the written ones, whatever they hold.
    fn window<const N: usize>(&mut self) -> &mut [u8; N];
    /// The first `n` bytes of the last window are written.
    fn wrote(&mut self, n: usize);
    /// Starts a receipt: the blank line between receipts.
    fn open(&mut self);
    /// The open receipt is complete.
    fn close(&mut self);
}

/// The output buffer lent to the lane's loop: its bytes as a slice (so that where they are and
/// how many are initialised stay in registers), what is written, where the open receipt starts
/// and whether one was printed — the output's own fields, given back when the loop stops.
#[derive(Debug)]
pub(crate) struct Receipts<'b> {
    /// The buffer: written bytes, then initialised room.
    pub buf: &'b mut [u8],
    /// How many are written.
    pub len: usize,
    /// Where the open receipt starts.
    pub start: usize,
    /// Whether a receipt was printed.
    pub printed: bool,
}

impl ByteSink for Receipts<'_> {
    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        self.buf[self.len..end].copy_from_slice(bytes);
        self.len = end;
    }

    #[inline(always)]
    fn put_with<const N: usize>(&mut self, write: impl FnOnce(&mut [u8; N]) -> usize) {
        let window = Sheet::window::<N>(self);
        window.fill(b' ');
        let used = write(window);
        self.len += used.min(N);
    }
}

impl Sheet for Receipts<'_> {
    #[inline(always)]
    fn window<const N: usize>(&mut self) -> &mut [u8; N] {
        // `run` only writes a line when the room for it is there.
        let Some(window) = self.buf[self.len..].first_chunk_mut::<N>() else {
            unreachable!("the lane checks the room for a line before writing it")
        };
        window
    }

    #[inline(always)]
    fn wrote(&mut self, n: usize) {
        self.len += n;
    }

    #[inline(always)]
    fn open(&mut self) {
        self.start = self.len;
        if self.printed {
            self.put(b"\n");
        }
    }

    #[inline(always)]
    fn close(&mut self) {
        self.printed = true;
        self.start = self.len;
    }
}

/// What the lane keeps of the open order, and what it has taken.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Progress {
    /// The open order's id.
    pub open: OpenId,
    /// Its lines so far.
    pub lines: u64,
    /// Its total so far.
    pub total: u64,
    /// Where the next line starts in the chunk.
    pub at: usize,
    /// Lines printed in the receipts it finished (so the lines it took are these and the open
    /// order's, less the open order's when it began).
    pub printed: u64,
    /// Receipts it finished.
    pub receipts: u64,
}

/// The most room a line can need: the open order's `TOTAL` line, the blank line, the next
/// order's header and the line's own item line.
pub(crate) const LINE_ROOM: usize = render::TOTAL_LINE + 1 + render::MAX_HEADER + ITEM_WINDOW;

/// Why [`run`] stopped.
#[derive(Debug)]
pub(crate) enum Stop {
    /// At a line the lane does not take (or the end of what it may read).
    Line,
    /// At a line it takes, which needs more room than the buffer has, or begins an order
    /// when the receipts before it are to be handed on: the caller takes it with
    /// [`finish_order`], [`start_order`] and [`item_line`] on the output itself.
    Careful(Read),
}

/// Takes the lines of `data` from `progress.at` that the lane takes, writing their receipts
/// into `out`, until one it does not take or one that needs more than `out` has ([`Stop`]).
#[inline(always)]
pub(crate) fn run(
    data: &[u8],
    progress: &mut Progress,
    out: &mut Receipts<'_>,
    items: &mut ItemCache,
) -> Stop {
    // Locals, written back when the loop stops, so that they stay in registers.
    let mut p = *progress;
    let mut o = Receipts {
        buf: &mut *out.buf,
        len: out.len,
        start: out.start,
        printed: out.printed,
    };
    let stop = loop {
        let Some(line) = data.get(p.at..).and_then(|rest| rest.first_chunk::<SPAN>()) else {
            break Stop::Line;
        };
        let Some(read) = read::<PARSE, true>(line, &p.open, items) else {
            break Stop::Line;
        };
        let room = o.buf.len() - o.len;
        match read.new_order {
            None => {
                if p.lines >= crate::line::MAX_ORDER_LINES
                    || p.total.checked_add(read.line_total).is_none()
                {
                    break Stop::Line;
                }
                if room < ITEM_WINDOW {
                    break Stop::Careful(read);
                }
            }
            Some(next) => {
                if room < LINE_ROOM || o.len + render::TOTAL_LINE >= crate::engine::FLUSH_BYTES {
                    break Stop::Careful(read);
                }
                finish_order(&mut o, &mut p);
                start_order(&mut o, &mut p, next);
            }
        }
        item_line(&mut o, line, &read);
        p.took(&read);
    };
    *progress = p;
    out.len = o.len;
    out.start = o.start;
    out.printed = o.printed;
    stop
}

/// Writes the open order's `TOTAL` line and closes its receipt.
#[inline(always)]
pub(crate) fn finish_order(out: &mut impl Sheet, progress: &mut Progress) {
    total_line(out, progress.total);
    out.close();
    progress.printed += progress.lines;
    progress.receipts += 1;
}

/// Opens order `next`: the blank line and its header.
#[inline(always)]
pub(crate) fn start_order(out: &mut impl Sheet, progress: &mut Progress, next: OpenId) {
    out.open();
    header(out, &next);
    progress.open = next;
    progress.lines = 0;
    progress.total = 0;
}

impl Progress {
    /// The line `read` is taken (its item line written).
    #[inline(always)]
    pub(crate) fn took(&mut self, read: &Read) {
        self.lines += 1;
        self.total += read.line_total;
        self.at += read.len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_four_column_table_right_aligns_every_number_below_10000() {
        for n in [0, 7, 10, 99, 100, 999, 1000, 9999] {
            let bytes = FOUR_COLUMNS[n].to_le_bytes();
            assert_eq!(std::str::from_utf8(&bytes).unwrap(), format!("{n:>4}"));
        }
        for n in [0, 5, 10, 99] {
            let bytes = CENTS[n].to_le_bytes();
            assert_eq!(std::str::from_utf8(&bytes).unwrap(), format!("{n:02}"));
        }
    }

    #[test]
    fn the_templates_hold_the_fixed_bytes_where_the_renderer_puts_them() {
        let mut rendered = Vec::new();
        render::total_line(&mut rendered, 0);
        let mut expected = TOTAL_TEMPLATE;
        expected[render::LINE_WIDTH - 4] = b'0';
        expected[render::LINE_WIDTH - 2..render::LINE_WIDTH].copy_from_slice(b"00");
        assert_eq!(rendered, expected);
    }

    #[test]
    fn an_open_id_matches_its_digits_and_bar_only() {
        let mut line = [b'x'; SPAN];
        for id in [
            0,
            7,
            42,
            1042,
            9_999_999,
            10_000_000,
            u64::MAX / 3,
            u64::MAX,
        ] {
            let open = OpenId::new(id);
            let text = format!("{id}|");
            line[..text.len()].copy_from_slice(text.as_bytes());
            assert!(open.starts(&line), "{id}");
            assert_eq!(order_id(&line), Some((id, text.len() - 1)), "{id}");
            line[text.len() - 1] = b'1';
            assert!(!open.starts(&line), "{id}: a longer id");
            line[..text.len()].fill(b'x');
        }
    }
}
