//! The receipt layout, written once for every strategy that does not allocate, and once more
//! the way a newcomer would (`format!`), for the naive strategy. A proptest pins that the two
//! produce the same bytes.
//!
//! ```text
//! Order 1042
//!   ต้มยำกุ้ง                  2 x     180.00      360.00
//! TOTAL                                            360.00
//! ```
//!
//! The fast renderer puts an item line in three appends: two spaces, the item, and a tail
//! (padding, quantity, unit price, line total, `\n`) assembled right to left in a small stack
//! array that starts as spaces — so padding costs nothing, and every number is written
//! straight into its column.

use unicode_width::UnicodeWidthStr;

use crate::Order;
use crate::line::Numbers;

/// Display columns the item name is padded to (longer names are not cut).
pub const NAME_COLUMNS: usize = 20;
/// Width of the quantity column, right-aligned.
pub const QTY_WIDTH: usize = 6;
/// Width of the unit-price column, right-aligned.
pub const PRICE_WIDTH: usize = 10;
/// Width of the line-total column, right-aligned.
pub const TOTAL_WIDTH: usize = 12;
/// Where the line totals end: the `TOTAL` line's amount is right-aligned to it.
pub const LINE_WIDTH: usize = 2 + NAME_COLUMNS + QTY_WIDTH + 3 + PRICE_WIDTH + TOTAL_WIDTH;

/// Something bytes can be appended to without the renderer knowing where they live.
pub trait ByteSink {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);
}

impl ByteSink for Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

impl ByteSink for bumpalo::collections::Vec<'_, u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
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
/// The longest tail: padding, the widest quantity, ` x `, two widest amounts (baht, `.`, two
/// digits) and `\n`.
const TAIL: usize = NAME_COLUMNS + MAX_DIGITS + 3 + 2 * (MAX_DIGITS + 2) + 1;

/// Writes `n`'s digits so that they end just before `end`; returns where they start.
#[inline(always)]
fn digits_before(buf: &mut [u8], mut end: usize, mut n: u64) -> usize {
    loop {
        end -= 1;
        buf[end] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return end;
        }
    }
}

/// Writes `satang` as baht with two decimals so that it ends just before `end`, right-aligned
/// in `width` columns (the buffer is already spaces); returns where its column starts.
#[inline(always)]
fn money_before(buf: &mut [u8], end: usize, satang: u64, width: usize) -> usize {
    let cents = (satang % 100) as u8;
    buf[end - 2] = b'0' + cents / 10;
    buf[end - 1] = b'0' + cents % 10;
    buf[end - 3] = b'.';
    let start = digits_before(buf, end - 3, satang / 100);
    start.min(end - width)
}

/// `n` right-aligned in `width` columns, ending just before `end`; returns where its column
/// starts.
#[inline(always)]
fn int_before(buf: &mut [u8], end: usize, n: u64, width: usize) -> usize {
    digits_before(buf, end, n).min(end - width)
}

/// `Order <id>\n`.
pub fn header<S: ByteSink + ?Sized>(out: &mut S, order_id: u64) {
    const LEN: usize = "Order ".len() + MAX_DIGITS + 1;
    let mut buf = [b'\n'; LEN];
    let start = digits_before(&mut buf, LEN - 1, order_id);
    out.put(b"Order ");
    out.put(&buf[start..]);
}

/// One item line.
#[inline]
pub fn item_line<S: ByteSink + ?Sized>(out: &mut S, line: &Line<'_>) {
    let n = &line.numbers;
    let mut tail = [b' '; TAIL];
    let mut at = TAIL - 1;
    tail[at] = b'\n';
    at = money_before(&mut tail, at, n.line_total, TOTAL_WIDTH);
    at = money_before(&mut tail, at, n.unit_price, PRICE_WIDTH);
    tail[at - 2] = b'x'; // ` x `: the spaces are already there
    at = int_before(&mut tail, at - 3, n.qty, QTY_WIDTH);
    at -= NAME_COLUMNS.saturating_sub(line.width);
    out.put(b"  ");
    out.put(line.item);
    out.put(&tail[at..]);
}

/// `TOTAL` and the order total, aligned with the line totals.
pub fn total_line<S: ByteSink + ?Sized>(out: &mut S, total: u64) {
    const LEN: usize = LINE_WIDTH + MAX_DIGITS + 1;
    let mut buf = [b' '; LEN];
    buf[..5].copy_from_slice(b"TOTAL");
    buf[LEN - 1] = b'\n';
    let start = money_before(&mut buf, LEN - 1, total, LINE_WIDTH - "TOTAL".len());
    out.put(&buf[..5]);
    out.put(&buf[start..]);
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

/// Satang as baht, the newcomer's way.
pub fn money_naive(satang: u64) -> String {
    format!("{}.{:02}", satang / 100, satang % 100)
}

/// The same item line, the newcomer's way: `format!`, `String`s and `repeat`.
pub fn item_line_naive(item: &str, qty: &str, unit_price: u64, line_total: u64) -> String {
    let padding = " ".repeat(NAME_COLUMNS.saturating_sub(item.width()));
    let qty = qty
        .parse::<u64>()
        .map(|q| q.to_string())
        .unwrap_or_default();
    format!(
        "  {item}{padding}{qty:>QTY_WIDTH$} x {:>PRICE_WIDTH$}{:>TOTAL_WIDTH$}\n",
        money_naive(unit_price),
        money_naive(line_total)
    )
}

/// The `TOTAL` line, the newcomer's way.
pub fn total_line_naive(total: u64) -> String {
    format!(
        "TOTAL{:>width$}\n",
        money_naive(total),
        width = LINE_WIDTH - 5
    )
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
        ] {
            let n = numbers(qty, price);
            let fast = rendered(|o| item_line(o, &Line::new(item, n)));
            assert_eq!(
                fast,
                item_line_naive(item, &qty.to_string(), price, qty * price)
            );
        }
        for total in [0, 36000, u64::MAX] {
            assert_eq!(rendered(|o| total_line(o, total)), total_line_naive(total));
        }
        assert_eq!(
            rendered(|o| header(o, u64::MAX)),
            format!("Order {}\n", u64::MAX)
        );
    }
}
