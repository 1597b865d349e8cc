//! The receipt layout, written once for every strategy that does not allocate, and once more
//! the way a newcomer would (`format!`), for the naive strategy. A proptest pins that the two
//! produce the same bytes.
//!
//! ```text
//! Order 1042
//!   ต้มยำกุ้ง                  2 x     180.00      360.00
//! TOTAL                                            360.00
//! ```

use unicode_width::UnicodeWidthStr;

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
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

impl ByteSink for bumpalo::collections::Vec<'_, u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// A fixed-capacity buffer (on the stack when it is a local): it records whether anything
/// did not fit, so the caller can spill instead of printing a cut line.
#[derive(Debug)]
pub struct Fixed<const N: usize> {
    buf: [u8; N],
    len: usize,
    overflowed: bool,
}

impl<const N: usize> Fixed<N> {
    /// An empty buffer.
    pub fn new() -> Self {
        Self {
            buf: [0; N],
            len: 0,
            overflowed: false,
        }
    }

    /// What was written, or `None` if some of it did not fit.
    pub fn bytes(&self) -> Option<&[u8]> {
        (!self.overflowed).then(|| &self.buf[..self.len])
    }
}

impl<const N: usize> Default for Fixed<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> ByteSink for Fixed<N> {
    fn put(&mut self, bytes: &[u8]) {
        match self.buf.get_mut(self.len..self.len + bytes.len()) {
            Some(dst) if !self.overflowed => {
                dst.copy_from_slice(bytes);
                self.len += bytes.len();
            }
            _ => self.overflowed = true,
        }
    }
}

/// A `u64` in decimal, into a small buffer: returns the digits.
fn digits(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

const SPACES: &[u8; 64] = &[b' '; 64];

fn pad<S: ByteSink>(out: &mut S, mut n: usize) {
    while n > 0 {
        let k = n.min(SPACES.len());
        out.put(&SPACES[..k]);
        n -= k;
    }
}

/// `n` right-aligned in `width` columns.
fn right_int<S: ByteSink>(out: &mut S, n: u64, width: usize) {
    let mut buf = [0; 20];
    let d = digits(n, &mut buf);
    pad(out, width.saturating_sub(d.len()));
    out.put(d);
}

/// Satang as baht with two decimals, right-aligned in `width` columns.
fn right_money<S: ByteSink>(out: &mut S, satang: u64, width: usize) {
    let mut buf = [0; 20];
    let baht = digits(satang / 100, &mut buf);
    let cents = satang % 100;
    pad(out, width.saturating_sub(baht.len() + 3));
    out.put(baht);
    out.put(&[b'.', b'0' + (cents / 10) as u8, b'0' + (cents % 10) as u8]);
}

/// `Order <id>\n`.
pub fn header<S: ByteSink>(out: &mut S, order_id: u64) {
    out.put(b"Order ");
    let mut buf = [0; 20];
    out.put(digits(order_id, &mut buf));
    out.put(b"\n");
}

/// One item line.
pub fn item_line<S: ByteSink>(out: &mut S, item: &str, qty: u64, unit_price: u64, line_total: u64) {
    out.put(b"  ");
    out.put(item.as_bytes());
    pad(out, NAME_COLUMNS.saturating_sub(item.width()));
    right_int(out, qty, QTY_WIDTH);
    out.put(b" x ");
    right_money(out, unit_price, PRICE_WIDTH);
    right_money(out, line_total, TOTAL_WIDTH);
    out.put(b"\n");
}

/// `TOTAL` and the order total, aligned with the line totals.
pub fn total_line<S: ByteSink>(out: &mut S, total: u64) {
    out.put(b"TOTAL");
    right_money(out, total, LINE_WIDTH - "TOTAL".len());
    out.put(b"\n");
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

    #[test]
    fn thai_names_are_padded_by_display_width_not_bytes_or_chars() {
        let line = rendered(|o| item_line(o, "ต้มยำกุ้ง", 2, 18000, 36000));
        // 9 chars, 27 bytes, 6 columns: 14 spaces of padding.
        assert_eq!(
            line,
            format!(
                "  ต้มยำกุ้ง{}     2 x     180.00      360.00\n",
                " ".repeat(14)
            )
        );
        let ascii = rendered(|o| item_line(o, "Pad Thai", 1, 6000, 6000));
        let columns = |s: &str| s.trim_end().width();
        assert_eq!(columns(&line), columns(&ascii), "the columns line up");
        assert_eq!(columns(&line), LINE_WIDTH);
    }

    #[test]
    fn money_has_two_decimals_and_no_separators() {
        assert_eq!(
            rendered(|o| total_line(o, 42_000))
                .trim_start_matches("TOTAL")
                .trim(),
            "420.00"
        );
        assert_eq!(
            rendered(|o| total_line(o, 5))
                .trim_start_matches("TOTAL")
                .trim(),
            "0.05"
        );
        assert_eq!(
            rendered(|o| total_line(o, u64::MAX))
                .trim_start_matches("TOTAL")
                .trim(),
            "184467440737095516.15"
        );
    }

    #[test]
    fn the_naive_renderer_writes_the_same_bytes() {
        for (item, qty, price) in [
            ("ต้มยำกุ้ง", 2, 18000),
            ("a very long item name indeed, wider than twenty", 123456, 1),
            ("x", 1, 0),
        ] {
            let fast = rendered(|o| item_line(o, item, qty, price, qty * price));
            assert_eq!(
                fast,
                item_line_naive(item, &qty.to_string(), price, qty * price)
            );
        }
        assert_eq!(rendered(|o| total_line(o, 36000)), total_line_naive(36000));
    }

    #[test]
    fn a_fixed_buffer_refuses_what_does_not_fit() {
        let mut small = Fixed::<8>::new();
        item_line(&mut small, "ต้มยำกุ้ง", 2, 18000, 36000);
        assert_eq!(small.bytes(), None);
        let mut big = Fixed::<256>::new();
        item_line(&mut big, "ต้มยำกุ้ง", 2, 18000, 36000);
        assert!(big.bytes().is_some());
    }
}
