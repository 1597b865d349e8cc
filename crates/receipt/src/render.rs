//! The receipt layout, written once for every strategy that does not allocate, and once more
//! the way a newcomer would (`format!`), for the naive strategy; the naive-reuse strategy writes
//! the newcomer's formats into `String`s it keeps ([`NaivePieces`]). A test pins that they
//! produce the same bytes.
//!
//! ```text
//! Order 1042
//!   ต้มยำกุ้ง                  2 x     180.00      360.00
//! TOTAL                                            360.00
//! ```
//!
//! The fast renderer writes a line left to right into a window that starts as spaces — so
//! padding costs nothing — with every number written straight into its column, two digits at a
//! time. For a `Vec<u8>` (the output buffer) the window is the vector's own memory, so the
//! receipt is rendered where it will be written from.

use std::fmt::{self, Write as _};

use unicode_width::UnicodeWidthStr;

use crate::Order;
use crate::line::{MAX_LINE, MAX_ORDER_LINES, Numbers};

/// Display columns the item name is padded to (longer names are not cut).
pub const NAME_COLUMNS: usize = 20;
/// Width of the quantity column, right-aligned.
pub const QTY_WIDTH: usize = 6;
/// Width of the unit-price column, right-aligned.
pub const PRICE_WIDTH: usize = 10;
/// Width of the line-total column, right-aligned.
pub const TOTAL_WIDTH: usize = 12;

// A field wider than its column widens it for its line, pushing the fields after it to the
// right, and a field never touches the one before it: the quantity follows the name's padding,
// or a space when the name has none; the unit price follows ` x `; the line total's column
// holds one space more than the total. So the numbers of a line always read apart.
/// Where the line totals end: the `TOTAL` line's amount is right-aligned to it.
pub const LINE_WIDTH: usize = 2 + NAME_COLUMNS + QTY_WIDTH + 3 + PRICE_WIDTH + TOTAL_WIDTH;

/// Something bytes can be appended to without the renderer knowing where they live.
pub trait ByteSink {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);

    /// Appends at most `N` bytes written by `write` into a window that starts as spaces;
    /// `write` returns how many it wrote. By default the window is a stack array, appended with
    /// [`put`](ByteSink::put); a `Vec<u8>` lends its own memory, so the bytes are written where
    /// they stay.
    #[inline]
    fn put_with<const N: usize>(&mut self, write: impl FnOnce(&mut [u8; N]) -> usize) {
        let mut window = [b' '; N];
        let used = write(&mut window);
        self.put(&window[..used]);
    }
}

impl ByteSink for Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }

    #[inline(always)]
    fn put_with<const N: usize>(&mut self, write: impl FnOnce(&mut [u8; N]) -> usize) {
        let start = self.len();
        self.extend_from_slice(&[b' '; N]);
        if let Some(window) = self[start..].first_chunk_mut::<N>() {
            let used = write(window);
            self.truncate(start + used);
        }
    }
}

impl<A: smallvec::Array<Item = u8>> ByteSink for smallvec::SmallVec<A> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// One checked line, as the renderer needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// The item name's bytes: UTF-8 without control characters, checked by whoever built the
    /// line.
    pub item: &'a [u8],
    /// The item name's display width.
    pub width: usize,
    /// The line's numbers.
    pub numbers: Numbers,
}

impl<'a> Line<'a> {
    /// A line of `item` with its width measured by `unicode-width`.
    pub fn new(item: &'a str, numbers: Numbers) -> Self {
        Self {
            item: item.as_bytes(),
            width: item.width(),
            numbers,
        }
    }
}

/// The longest number: `u64::MAX` has 20 digits.
const MAX_DIGITS: usize = 20;
/// The longest amount: `u64::MAX` satang is `184467440737095516.15` baht, 21 characters.
pub const MAX_MONEY: usize = MAX_DIGITS - 2 + 3;
/// The longest tail of an item line: padding, the widest quantity and the space before it,
/// ` x `, the widest price, the widest total and the space before it, and `\n`.
const TAIL: usize = NAME_COLUMNS + (MAX_DIGITS + 1) + 3 + MAX_MONEY + (MAX_MONEY + 1) + 1;
/// The longest item name rendered together with its line in one window; a longer one is
/// appended on its own first.
const INLINE_ITEM: usize = 64;

/// How many bytes longer than its input line (without the line ending) an item line can be:
/// 53.
///
/// The item line writes the name's bytes once, as the input line does, and the rest is
/// `3 − (order id digits)` (its indent, ` x ` and `\n` against the input's three `|` and the
/// order id), the padding, and what each number's column writes beyond the number's own digits
/// in the input. With an order id of one digit and a name of no display width (padded whole,
/// [`NAME_COLUMNS`]), the most the three columns add is the largest of: small numbers, each in a
/// column wider than it (a one-digit quantity and price: `QTY_WIDTH − 1` and `PRICE_WIDTH − 1`
/// spaces, and the total's [`TOTAL_WIDTH`]); or a line total as wide as an amount can be with
/// its space ([`MAX_MONEY`] + 1), which takes twenty digits between the quantity and the price —
/// either in the quantity, which then fills its column, beside a one-digit price, or in the
/// price, written with one byte more than its digits, beside a one-digit quantity.
/// (`the_longest_item_line_is_its_input_line_and_item_line_growth` renders every pair of digit
/// counts.)
pub const ITEM_LINE_GROWTH: usize = {
    let small_numbers = (QTY_WIDTH - 1) + (PRICE_WIDTH - 1) + TOTAL_WIDTH;
    let widest_total_by_qty = (PRICE_WIDTH - 1) + (MAX_MONEY + 1);
    let widest_total_by_price = (QTY_WIDTH - 1) + 1 + (MAX_MONEY + 1);
    let widest = if widest_total_by_qty > widest_total_by_price {
        widest_total_by_qty
    } else {
        widest_total_by_price
    };
    2 + NAME_COLUMNS
        + if small_numbers > widest {
            small_numbers
        } else {
            widest
        }
};

/// The longest item line a line of at most [`MAX_LINE`] bytes renders to.
pub const MAX_ITEM_LINE: usize = MAX_LINE + ITEM_LINE_GROWTH;

/// The longest `Order <id>` line, with its `\n`.
pub const MAX_HEADER: usize = "Order ".len() + MAX_DIGITS + 1;

/// The `TOTAL` line, with its `\n`: always this long.
pub const TOTAL_LINE: usize = LINE_WIDTH + 1;

/// The longest receipt text of one order: its header, [`MAX_ORDER_LINES`] of the longest item
/// lines and its `TOTAL` line — what a strategy that renders as it reads holds for an order
/// still open, accepted or not.
pub const MAX_RECEIPT: usize = MAX_HEADER + MAX_ORDER_LINES as usize * MAX_ITEM_LINE + TOTAL_LINE;

/// The most bytes a renderer asks a sink for beyond what it keeps: the widest window
/// ([`ByteSink::put_with`]) it writes a line into.
pub const MAX_WINDOW: usize = 2 + INLINE_ITEM + NAME_COLUMNS + FIXED_TAIL;

const _: () = assert!(MAX_WINDOW >= TAIL && MAX_WINDOW >= TOTAL_LINE && MAX_WINDOW >= MAX_HEADER);

/// `"00"` to `"99"`: numbers are written two digits per division.
pub(crate) const PAIRS: [u8; 200] = {
    let mut pairs = [0u8; 200];
    let mut i = 0;
    while i < 100 {
        pairs[2 * i] = b'0' + (i / 10) as u8;
        pairs[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    pairs
};

/// Writes two digits of `pair` (below 100) so that they end just before `end`.
#[inline(always)]
fn pair_before(buf: &mut [u8], end: usize, pair: u64) {
    let at = 2 * pair as usize;
    buf[end - 2..end].copy_from_slice(&PAIRS[at..at + 2]);
}

/// Writes `n`'s digits so that they end just before `end`.
#[inline(always)]
pub(crate) fn digits_before(buf: &mut [u8], mut end: usize, mut n: u64) {
    while n >= 100 {
        pair_before(buf, end, n % 100);
        n /= 100;
        end -= 2;
    }
    if n >= 10 {
        pair_before(buf, end, n);
    } else {
        buf[end - 1] = b'0' + n as u8;
    }
}

/// 10⁰ to 10¹⁹.
const POWERS_OF_TEN: [u64; 20] = {
    let mut powers = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        powers[i] = powers[i - 1] * 10;
        i += 1;
    }
    powers
};

/// How many digits `n` has: from its bit length (1233/4096 is just above log₁₀ 2, so the
/// estimate is exact or one too many), corrected by one comparison.
#[inline(always)]
pub(crate) fn digit_count(n: u64) -> usize {
    let n = n | 1; // 0 has one digit, like 1
    let estimate = ((u64::BITS - n.leading_zeros()) as usize * 1233) >> 12;
    estimate + 1 - usize::from(n < POWERS_OF_TEN[estimate])
}

/// `n` right-aligned in a column of `width` (wider if it does not fit, with `space` more
/// columns before it) that starts at `at`, in a buffer of spaces; returns where the column
/// ends.
#[inline(always)]
fn int_at(buf: &mut [u8], at: usize, n: u64, width: usize, space: usize) -> usize {
    let end = at + width.max(digit_count(n) + space);
    digits_before(buf, end, n);
    end
}

/// How many characters `satang` takes as baht with two decimals.
#[inline(always)]
fn money_len(satang: u64) -> usize {
    digit_count(satang / 100) + 3
}

/// `satang` as baht with two decimals, right-aligned in a column of `width` (wider if it does
/// not fit, with `space` more columns before it) that starts at `at`, in a buffer of spaces;
/// returns where the column ends.
#[inline(always)]
fn money_at(buf: &mut [u8], at: usize, satang: u64, width: usize, space: usize) -> usize {
    let end = at + width.max(money_len(satang) + space);
    pair_before(buf, end, satang % 100);
    buf[end - 3] = b'.';
    digits_before(buf, end - 3, satang / 100);
    end
}

/// The numbers of an item line, from the quantity column (at `at`, after `padding` columns of
/// the name's padding) to the `\n`, in a buffer of spaces; returns where the line ends.
#[inline(always)]
fn numbers_at(buf: &mut [u8], at: usize, padding: usize, n: &Numbers) -> usize {
    let at = int_at(buf, at, n.qty, QTY_WIDTH, usize::from(padding == 0));
    buf[at + 1] = b'x'; // ` x `: the spaces are already there
    let at = money_at(buf, at + 3, n.unit_price, PRICE_WIDTH, 0);
    let at = money_at(buf, at, n.line_total, TOTAL_WIDTH, 1);
    buf[at] = b'\n';
    at + 1
}

/// `Order <id>\n`.
pub fn header<S: ByteSink + ?Sized>(out: &mut S, order_id: u64) {
    out.put_with::<{ "Order ".len() + MAX_DIGITS + 1 }>(|buf| {
        buf[..6].copy_from_slice(b"Order ");
        let end = int_at(buf, 6, order_id, 0, 0);
        buf[end] = b'\n';
        end + 1
    });
}

/// The numbers of an item line when each fits its column, from the quantity to the `\n`.
const FIXED_TAIL: usize = QTY_WIDTH + 3 + PRICE_WIDTH + TOTAL_WIDTH + 1;

/// Whether every number of a line fits its column with a space before it (a quantity below
/// 10⁶, or 10⁵ after a name with no padding; a price below 10⁷ baht, a total below 10⁸ baht),
/// so the numbers can be written at fixed positions.
#[inline(always)]
fn fits_columns(n: &Numbers, padding: usize) -> bool {
    n.qty < POWERS_OF_TEN[QTY_WIDTH - usize::from(padding == 0)]
        && n.unit_price < POWERS_OF_TEN[PRICE_WIDTH - 1]
        && n.line_total < POWERS_OF_TEN[TOTAL_WIDTH - 2]
}

/// The numbers of an item line that [`fits_columns`], from the quantity to the `\n`, at fixed
/// positions in `tail` (spaces): no column arithmetic.
#[inline(always)]
fn fixed_tail(tail: &mut [u8; FIXED_TAIL], n: &Numbers) {
    const PRICE_END: usize = QTY_WIDTH + 3 + PRICE_WIDTH;
    digits_before(tail, QTY_WIDTH, n.qty);
    tail[QTY_WIDTH + 1] = b'x';
    pair_before(tail, PRICE_END, n.unit_price % 100);
    tail[PRICE_END - 3] = b'.';
    digits_before(tail, PRICE_END - 3, n.unit_price / 100);
    pair_before(tail, FIXED_TAIL - 1, n.line_total % 100);
    tail[FIXED_TAIL - 4] = b'.';
    digits_before(tail, FIXED_TAIL - 4, n.line_total / 100);
    tail[FIXED_TAIL - 1] = b'\n';
}

/// One item line, written left to right into a window of spaces (so the padding is already
/// there), numbers two digits at a time.
#[inline(always)]
pub fn item_line<S: ByteSink + ?Sized>(out: &mut S, line: &Line<'_>) {
    let item = line.item;
    let padding = NAME_COLUMNS.saturating_sub(line.width);
    if item.len() <= INLINE_ITEM && fits_columns(&line.numbers, padding) {
        out.put_with::<{ 2 + INLINE_ITEM + NAME_COLUMNS + FIXED_TAIL }>(|buf| {
            buf[2..2 + item.len()].copy_from_slice(item);
            let at = 2 + item.len() + padding;
            if let Some(tail) = buf[at..].first_chunk_mut::<FIXED_TAIL>() {
                fixed_tail(tail, &line.numbers);
            }
            at + FIXED_TAIL
        });
    } else {
        out.put(b"  ");
        out.put(item);
        out.put_with::<TAIL>(|buf| numbers_at(buf, padding, padding, &line.numbers));
    }
}

/// `TOTAL` and the order total, aligned with the line totals (any `u64` fits the column).
pub fn total_line<S: ByteSink + ?Sized>(out: &mut S, total: u64) {
    const _: () = assert!(LINE_WIDTH - "TOTAL".len() > MAX_DIGITS + 1);
    out.put_with::<{ LINE_WIDTH + 1 }>(|buf| {
        buf[..5].copy_from_slice(b"TOTAL");
        pair_before(buf, LINE_WIDTH, total % 100);
        buf[LINE_WIDTH - 3] = b'.';
        digits_before(buf, LINE_WIDTH - 3, total / 100);
        buf[LINE_WIDTH] = b'\n';
        LINE_WIDTH + 1
    });
}

/// A whole receipt from an order's kept lines: the one renderer of the strategies that keep
/// their lines until the order is complete.
pub fn receipt<'a, S: ByteSink + ?Sized>(
    out: &mut S,
    order: Order,
    lines: impl IntoIterator<Item = Line<'a>>,
) {
    header(out, order.id);
    for line in lines {
        item_line(out, &line);
    }
    total_line(out, order.total);
}

/// The padding after an item name, the newcomer's way: display columns left to fill.
fn padding_naive(item: &str) -> usize {
    NAME_COLUMNS.saturating_sub(item.width())
}

// The newcomer's formats, each written once and handed to `f` as `fmt::Arguments`: the naive
// renderer passes `fmt::format`, which is what `format!` calls, so it makes a new `String` of
// each; [`NaivePieces`] writes them into `String`s it keeps (`write!`). The same formats, so the
// same bytes.

fn header_args<R>(order_id: u64, f: impl FnOnce(fmt::Arguments<'_>) -> R) -> R {
    f(format_args!("Order {order_id}\n"))
}

fn money_args<R>(satang: u64, f: impl FnOnce(fmt::Arguments<'_>) -> R) -> R {
    f(format_args!("{}.{:02}", satang / 100, satang % 100))
}

fn item_line_args<R>(
    [item, padding, unit_price, line_total]: [&str; 4],
    qty: u64,
    f: impl FnOnce(fmt::Arguments<'_>) -> R,
) -> R {
    // A space between the name and the quantity, and between the price and the total: a field
    // wider than its column widens it for this line.
    let qty_digits = qty.checked_ilog10().map_or(1, |d| d as usize + 1);
    let qty_width = if padding.is_empty() {
        QTY_WIDTH.max(qty_digits + 1)
    } else {
        QTY_WIDTH
    };
    let total_width = TOTAL_WIDTH.max(line_total.len() + 1);
    f(format_args!(
        "  {item}{padding}{qty:>qty_width$} x {unit_price:>PRICE_WIDTH$}{line_total:>total_width$}\n"
    ))
}

fn total_line_args<R>(total: &str, f: impl FnOnce(fmt::Arguments<'_>) -> R) -> R {
    f(format_args!(
        "TOTAL{total:>width$}\n",
        width = LINE_WIDTH - 5
    ))
}

/// `Order <id>\n`, the newcomer's way: the `String` a receipt is begun with.
pub fn header_naive(order_id: u64) -> String {
    header_args(order_id, fmt::format)
}

/// Satang as baht, the newcomer's way.
pub fn money_naive(satang: u64) -> String {
    money_args(satang, fmt::format)
}

/// The same item line, the newcomer's way: `format!`, `String`s and `repeat`.
pub fn item_line_naive(item: &str, qty: u64, unit_price: u64, line_total: u64) -> String {
    let padding = " ".repeat(padding_naive(item));
    let (unit_price, line_total) = (money_naive(unit_price), money_naive(line_total));
    item_line_args([item, &padding, &unit_price, &line_total], qty, fmt::format)
}

/// The `TOTAL` line, the newcomer's way.
pub fn total_line_naive(total: u64) -> String {
    total_line_args(&money_naive(total), fmt::format)
}

/// The newcomer's renderer with its `String`s kept: the receipt, and every piece
/// [`item_line_naive`] and [`total_line_naive`] make a new `String` of (the padding, each
/// amount, the line), each written into a `String` kept from receipt to receipt and cleared
/// first, with `write!` instead of `format!`, in the same formats. A line is written into its
/// own `String` and then appended to the receipt, as the newcomer appends each line's `String`.
/// Once each `String` has grown to the longest piece it holds, a receipt allocates nothing.
#[derive(Debug, Default)]
pub struct NaivePieces {
    receipt: String,
    padding: String,
    unit_price: String,
    line_total: String,
    line: String,
}

/// Clears `out` and writes `args` into it.
fn rewrite(out: &mut String, args: fmt::Arguments<'_>) {
    out.clear();
    // `fmt::Write` for `String` never returns an error.
    let _ = out.write_fmt(args);
}

impl NaivePieces {
    /// Begins a receipt with [`header_naive`]'s line, in place of the one before.
    pub fn header(&mut self, order_id: u64) {
        header_args(order_id, |args| rewrite(&mut self.receipt, args));
    }

    /// Appends [`item_line_naive`]'s line.
    pub fn item_line(&mut self, item: &str, qty: u64, unit_price: u64, line_total: u64) {
        self.padding.clear();
        self.padding
            .extend(std::iter::repeat_n(' ', padding_naive(item)));
        money_args(unit_price, |args| rewrite(&mut self.unit_price, args));
        money_args(line_total, |args| rewrite(&mut self.line_total, args));
        let pieces = [item, &self.padding, &self.unit_price, &self.line_total];
        item_line_args(pieces, qty, |args| rewrite(&mut self.line, args));
        self.receipt.push_str(&self.line);
    }

    /// Appends [`total_line_naive`]'s line.
    pub fn total_line(&mut self, total: u64) {
        money_args(total, |args| rewrite(&mut self.line_total, args));
        total_line_args(&self.line_total, |args| rewrite(&mut self.line, args));
        self.receipt.push_str(&self.line);
    }

    /// The receipt written since the last [`header`](NaivePieces::header).
    pub fn receipt(&self) -> &str {
        &self.receipt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(f: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        f(&mut out);
        String::from_utf8(out).unwrap()
    }

    fn numbers(qty: u64, unit_price: u64) -> Numbers {
        Numbers {
            order_id: 1,
            qty,
            unit_price,
            line_total: qty * unit_price,
        }
    }

    #[test]
    fn thai_names_are_padded_by_display_width_not_bytes_or_chars() {
        let line = rendered(|o| item_line(o, &Line::new("ต้มยำกุ้ง", numbers(2, 18000))));
        // 9 chars, 27 bytes, 6 columns: 14 spaces of padding.
        assert_eq!(
            line,
            format!(
                "  ต้มยำกุ้ง{}     2 x     180.00      360.00\n",
                " ".repeat(14)
            )
        );
        let ascii = rendered(|o| item_line(o, &Line::new("Pad Thai", numbers(1, 6000))));
        let columns = |s: &str| s.trim_end().width();
        assert_eq!(columns(&line), columns(&ascii), "the columns line up");
        assert_eq!(columns(&line), LINE_WIDTH);
    }

    /// R4: the longest item line is its input line and [`ITEM_LINE_GROWTH`] bytes. Every pair of
    /// digit counts of the quantity and the price, each at the smallest and the largest value
    /// with that many digits (and the largest price the quantity allows), after a name of no
    /// display width and after one that fills its column, from a line of [`MAX_LINE`] bytes.
    #[cfg_attr(
        miri,
        ignore = "renders thousands of the longest lines: minutes under Miri"
    )]
    #[test]
    fn the_longest_item_line_is_its_input_line_and_item_line_growth() {
        let low = |digits: u32| 10u64.pow(digits - 1);
        let high = |digits: u32| 10u64.checked_pow(digits).map_or(u64::MAX, |p| p - 1);
        let mut longest = 0;
        for qty_digits in 1..=20 {
            for price_digits in 1..=20 {
                for qty in [low(qty_digits), high(qty_digits)] {
                    let most = u64::MAX / qty;
                    for price in [low(price_digits), high(price_digits), most] {
                        if price > most || price.to_string().len() != price_digits as usize {
                            continue;
                        }
                        let numbers = format!("|{qty}|{price}");
                        let room = MAX_LINE - "1|".len() - numbers.len();
                        // Combining marks: no display width, two bytes each (three for the first
                        // when the room is odd).
                        let odd = room % 2;
                        let marks = "\u{e31}".repeat(odd) + &"\u{300}".repeat((room - 3 * odd) / 2);
                        for item in [marks, "x".repeat(room)] {
                            assert_eq!(format!("1|{item}{numbers}").len(), MAX_LINE);
                            let n = Numbers {
                                order_id: 1,
                                qty,
                                unit_price: price,
                                line_total: qty * price,
                            };
                            let line = Line::new(&item, n);
                            assert!(line.width == 0 || line.width >= NAME_COLUMNS);
                            let out = rendered(|o| item_line(o, &line));
                            assert_eq!(out, item_line_naive(&item, qty, price, qty * price));
                            longest = longest.max(out.len());
                        }
                    }
                }
            }
        }
        assert_eq!(longest, MAX_ITEM_LINE);
    }

    #[test]
    fn money_has_two_decimals_and_no_separators() {
        let amount = |total| {
            rendered(|o| total_line(o, total))
                .trim_start_matches("TOTAL")
                .trim()
                .to_owned()
        };
        assert_eq!(amount(42_000), "420.00");
        assert_eq!(amount(5), "0.05");
        assert_eq!(amount(u64::MAX), "184467440737095516.15");
    }

    #[test]
    fn the_naive_renderer_writes_the_same_bytes() {
        for (item, qty, price) in [
            ("ต้มยำกุ้ง", 2, 18000),
            ("a very long item name indeed, wider than twenty", 123456, 1),
            ("x", 1, 0),
            ("x", 12_345_678_901, 1_000_000_000),
            ("x", 1, u64::MAX),
            ("a name of twenty col", 123_456, 1),
            ("a name of twenty col", 12_345, 1),
            ("x", 1, 10_000_000_000),
            ("x", 1, 9_999_999_999),
            ("ต้มยำกุ้ง", 3, 99_999_999_999),
        ] {
            let n = numbers(qty, price);
            let fast = rendered(|o| item_line(o, &Line::new(item, n)));
            assert_eq!(fast, item_line_naive(item, qty, price, qty * price));
        }
        for total in [0, 36000, u64::MAX] {
            assert_eq!(rendered(|o| total_line(o, total)), total_line_naive(total));
        }
        // The kept `String`s, written over in turn: a long receipt, then shorter ones.
        let mut kept = NaivePieces::default();
        for (id, item, qty, price) in [
            (
                u64::MAX,
                "a very long item name indeed, wider than twenty",
                123456,
                99,
            ),
            (1042, "ต้มยำกุ้ง", 2, 18000),
            (1, "x", 1, 0),
        ] {
            let total = qty * price;
            let naive = header_naive(id)
                + &item_line_naive(item, qty, price, total).repeat(2)
                + &total_line_naive(2 * total);
            kept.header(id);
            kept.item_line(item, qty, price, total);
            kept.item_line(item, qty, price, total);
            kept.total_line(2 * total);
            assert_eq!(kept.receipt(), naive);
        }
        assert_eq!(
            rendered(|o| header(o, u64::MAX)),
            format!("Order {}\n", u64::MAX)
        );
    }
}
