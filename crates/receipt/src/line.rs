//! One order line: `order_id|item|qty|unit_price`, checked field by field.
//!
//! This is the reference checker: it says why a line is bad, field by field, in a fixed order
//! (length, UTF-8, field count, order id, item, quantity, price, overflow). The fast scanner in
//! [`scan`](crate::scan) accepts exactly the lines this module accepts, and hands every line it
//! does not accept to this module for the reason.

use std::fmt;

/// The longest line accepted, in bytes (without its line ending).
pub const MAX_LINE: usize = 4096;

/// The most lines one order may have. The line that goes past it is reported as
/// [`LineError::OrderTooLong`], the order is rejected, and its remaining lines are counted as
/// rejected without being checked or kept.
///
/// With [`MAX_LINE`], this bounds what a strategy holds for the open order: at most
/// `MAX_ORDER_LINES × MAX_LINE` bytes of input (4 MiB), whatever the size of the input.
pub const MAX_ORDER_LINES: u64 = 1_000;

/// What is reported, after `line <n>: `, of a last line that the input ends without a line
/// ending after. The line is read as any other (printed if it is good): a file is allowed to
/// end that way, but so does one cut off while it was written or read, and the report makes
/// that visible.
pub const NO_LINE_ENDING: &str = "the input ends without a line ending: it may have been cut off";

/// Why a line was rejected. `Display` gives the reason printed after `line <n>: `.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    /// Longer than [`MAX_LINE`] bytes.
    TooLong(usize),
    /// Not UTF-8: the 1-based position, in the line, of the first byte that is not.
    InvalidUtf8(usize),
    /// Not exactly four `|`-separated fields.
    FieldCount(usize),
    /// The order id is not a decimal `u64`.
    BadOrderId,
    /// The item name is empty.
    EmptyItem,
    /// The item name contains a character that could rewrite the reader's terminal: a C0 or C1
    /// control character, DEL, or a bidirectional override or isolate (see [`is_control`]).
    ControlCharacter {
        /// The character.
        character: char,
        /// Its 1-based column in the line, counted in characters.
        column: usize,
    },
    /// The quantity is not a decimal integer ≥ 1 that fits a `u64`.
    BadQuantity,
    /// The unit price is not a decimal `u64` (satang).
    BadPrice,
    /// Quantity × unit price does not fit a `u64`.
    LineTotalOverflow,
    /// Adding this line makes the order total overflow a `u64`.
    OrderTotalOverflow,
    /// The order already has [`MAX_ORDER_LINES`] lines.
    OrderTooLong,
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooLong(n) => write!(f, "line is {n} bytes long, more than {MAX_LINE}"),
            Self::InvalidUtf8(at) => write!(f, "invalid UTF-8 at byte {at}"),
            Self::FieldCount(n) => write!(
                f,
                "expected 4 fields `order_id|item|qty|unit_price`, found {n}"
            ),
            Self::BadOrderId => f.write_str("order_id is not a decimal integer"),
            Self::EmptyItem => f.write_str("item is empty"),
            Self::ControlCharacter { character, column } => write!(
                f,
                "item contains control character U+{:04X} at column {column}",
                u32::from(*character)
            ),
            Self::BadQuantity => f.write_str("qty is not a positive decimal integer"),
            Self::BadPrice => f.write_str("unit_price is not a decimal integer (satang)"),
            Self::LineTotalOverflow => f.write_str("qty × unit_price overflows"),
            Self::OrderTotalOverflow => f.write_str("the order total overflows"),
            Self::OrderTooLong => write!(
                f,
                "the order has more than {MAX_ORDER_LINES} lines; it is rejected and its remaining lines are skipped"
            ),
        }
    }
}

impl std::error::Error for LineError {}

/// A checked line's numbers; the item is returned separately by the parser that found it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Numbers {
    /// The order id.
    pub order_id: u64,
    /// Quantity, at least 1.
    pub qty: u64,
    /// Unit price in satang.
    pub unit_price: u64,
    /// `qty × unit_price`, checked.
    pub line_total: u64,
}

/// A decimal `u64`: ASCII digits only, no sign, no spaces, at least one digit.
pub fn decimal(field: &str) -> Option<u64> {
    if field.is_empty() {
        return None;
    }
    field.bytes().try_fold(0u64, |acc, b| {
        let digit = b.checked_sub(b'0').filter(|&d| d <= 9)?;
        acc.checked_mul(10)?.checked_add(u64::from(digit))
    })
}

/// Whether a character may not appear in an item name: C0 controls (U+0000–U+001F), DEL
/// (U+007F), C1 controls (U+0080–U+009F), and the bidirectional embeddings, overrides and
/// isolates (U+202A–U+202E, U+2066–U+2069), which reorder the text around them on screen.
/// Printed verbatim, any of them lets an order file recolour or rewrite the reader's terminal.
pub fn is_control(c: char) -> bool {
    matches!(
        c,
        '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

/// `bytes` as text that cannot rewrite a terminal, for echoing what a user typed or fed in (a
/// file name, an argument, an input line): UTF-8 as it is, except the characters
/// [`is_control`] forbids in an item name, shown as `\u{1b}`, and bytes that are not UTF-8,
/// shown as `\xFF`.
///
/// ```
/// assert_eq!(receipt::line::escape(b"ok \xE0\xB8\x81 \x1b[31m \xFF"), "ok ก \\u{1b}[31m \\xFF");
/// ```
pub fn escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if is_control(c) {
                out.extend(c.escape_unicode());
            } else {
                out.push(c);
            }
        }
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02X}"));
        }
    }
    out
}

/// The first forbidden character of an item ([`is_control`]) and its 0-based index in
/// characters, if there is one.
///
/// A byte test comes first: every forbidden character's UTF-8 encoding starts with a byte
/// below `0x20`, `0x7F`, `0xC2` (C1) or `0xE2` (the bidirectional controls), so an item with
/// none of those bytes — every printable ASCII or Thai name, for one — is clean without being
/// decoded.
pub fn control_character(item: &str) -> Option<(usize, char)> {
    let suspect = |b: u8| b < 0x20 || b == 0x7F || b == 0xC2 || b == 0xE2;
    if !item.bytes().any(suspect) {
        return None;
    }
    item.chars().enumerate().find(|&(_, c)| is_control(c))
}

/// Checks the four fields of a line (already split) and computes the line total.
pub fn check_fields(
    order_id: &str,
    item: &str,
    qty: &str,
    unit_price: &str,
) -> Result<Numbers, LineError> {
    let id = decimal(order_id).ok_or(LineError::BadOrderId)?;
    if item.is_empty() {
        return Err(LineError::EmptyItem);
    }
    if let Some((index, character)) = control_character(item) {
        // The order id is ASCII digits (checked above), then one `|`: the item starts at
        // column `order_id.len() + 2`.
        return Err(LineError::ControlCharacter {
            character,
            column: order_id.len() + 2 + index,
        });
    }
    let qty = decimal(qty)
        .filter(|&q| q >= 1)
        .ok_or(LineError::BadQuantity)?;
    let unit_price = decimal(unit_price).ok_or(LineError::BadPrice)?;
    let line_total = qty
        .checked_mul(unit_price)
        .ok_or(LineError::LineTotalOverflow)?;
    Ok(Numbers {
        order_id: id,
        qty,
        unit_price,
        line_total,
    })
}

/// Splits and checks a line without allocating; returns its numbers and its item.
pub fn parse(text: &str) -> Result<(Numbers, &str), LineError> {
    let mut fields = text.split('|');
    match (
        fields.next(),
        fields.next(),
        fields.next(),
        fields.next(),
        fields.next(),
    ) {
        (Some(a), Some(b), Some(c), Some(d), None) => Ok((check_fields(a, b, c, d)?, b)),
        // Counted only on this error path, for the message.
        _ => Err(LineError::FieldCount(
            text.bytes().filter(|&b| b == b'|').count() + 1,
        )),
    }
}

/// The order id a raw line claims, if its first field is readable — even when the rest of the
/// line is bad, so that a bad line can be charged to its order.
///
/// Only the line's first `MAX_LINE + 1` bytes are read: that is all a streaming reader keeps
/// of a line too long to accept, so every reader, whatever its chunk size, agrees.
pub fn claimed_order_id(bytes: &[u8]) -> Option<u64> {
    let bytes = &bytes[..bytes.len().min(MAX_LINE + 1)];
    let end = bytes.iter().position(|&b| b == b'|')?;
    std::str::from_utf8(&bytes[..end]).ok().and_then(decimal)
}

/// Checks a raw line's length and encoding.
pub fn text(bytes: &[u8]) -> Result<&str, LineError> {
    if bytes.len() > MAX_LINE {
        return Err(LineError::TooLong(bytes.len()));
    }
    std::str::from_utf8(bytes).map_err(|e| LineError::InvalidUtf8(e.valid_up_to() + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_line_parses() {
        let (n, item) = parse("1042|ต้มยำกุ้ง|2|18000").unwrap();
        assert_eq!(
            (n.order_id, item, n.qty, n.unit_price, n.line_total),
            (1042, "ต้มยำกุ้ง", 2, 18000, 36000)
        );
    }

    #[test]
    fn each_field_has_its_own_error() {
        assert_eq!(parse("1|a|2"), Err(LineError::FieldCount(3)));
        assert_eq!(parse("1|a|2|3|4"), Err(LineError::FieldCount(5)));
        assert_eq!(parse("x|a|2|3"), Err(LineError::BadOrderId));
        assert_eq!(parse("1||2|3"), Err(LineError::EmptyItem));
        assert_eq!(parse("1|a|0|3"), Err(LineError::BadQuantity));
        assert_eq!(parse("1|a|-2|3"), Err(LineError::BadQuantity));
        assert_eq!(parse("1|a|2|3.5"), Err(LineError::BadPrice));
        assert_eq!(parse("1|a|2| 3"), Err(LineError::BadPrice));
        assert_eq!(
            parse("1|a|2|18446744073709551615"),
            Err(LineError::LineTotalOverflow)
        );
        assert_eq!(
            parse("1|a|1|18446744073709551616"),
            Err(LineError::BadPrice)
        );
        assert_eq!(
            parse("12|a\u{1b}[31m|1|3"),
            Err(LineError::ControlCharacter {
                character: '\u{1b}',
                column: 5
            })
        );
    }

    #[test]
    fn a_bad_line_still_names_its_order_when_it_can() {
        assert_eq!(claimed_order_id(b"1042|x|y"), Some(1042));
        assert_eq!(claimed_order_id(b"abc|x"), None);
        assert_eq!(claimed_order_id(b"no separator"), None);
    }
}
