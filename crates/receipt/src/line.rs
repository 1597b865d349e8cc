//! One order line: `order_id|item|qty|unit_price`, checked field by field.

use std::fmt;

/// The longest line accepted, in bytes (without its line ending).
pub const MAX_LINE: usize = 4096;

/// Why a line was rejected. `Display` gives the reason printed after `line <n>: `.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    /// Longer than [`MAX_LINE`] bytes.
    TooLong(usize),
    /// Not UTF-8; valid up to this byte of the line.
    InvalidUtf8(usize),
    /// Not exactly four `|`-separated fields.
    FieldCount(usize),
    /// The order id is not a decimal `u64`.
    BadOrderId,
    /// The item name is empty.
    EmptyItem,
    /// The quantity is not a decimal integer ≥ 1 that fits a `u64`.
    BadQuantity,
    /// The unit price is not a decimal `u64` (satang).
    BadPrice,
    /// Quantity × unit price does not fit a `u64`.
    LineTotalOverflow,
    /// Adding this line makes the order total overflow a `u64`.
    OrderTotalOverflow,
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
            Self::BadQuantity => f.write_str("qty is not a positive decimal integer"),
            Self::BadPrice => f.write_str("unit_price is not a decimal integer (satang)"),
            Self::LineTotalOverflow => f.write_str("qty × unit_price overflows"),
            Self::OrderTotalOverflow => f.write_str("the order total overflows"),
        }
    }
}

impl std::error::Error for LineError {}

/// A checked line's numbers; the item is returned separately by the parser that found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

/// Checks the four fields of a line (already split) and computes the line total.
pub fn check_fields(
    order_id: &str,
    item: &str,
    qty: &str,
    unit_price: &str,
) -> Result<Numbers, LineError> {
    let order_id = decimal(order_id).ok_or(LineError::BadOrderId)?;
    if item.is_empty() {
        return Err(LineError::EmptyItem);
    }
    let qty = decimal(qty)
        .filter(|&q| q >= 1)
        .ok_or(LineError::BadQuantity)?;
    let unit_price = decimal(unit_price).ok_or(LineError::BadPrice)?;
    let line_total = qty
        .checked_mul(unit_price)
        .ok_or(LineError::LineTotalOverflow)?;
    Ok(Numbers {
        order_id,
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
pub fn claimed_order_id(bytes: &[u8]) -> Option<u64> {
    let end = bytes.iter().position(|&b| b == b'|')?;
    std::str::from_utf8(&bytes[..end]).ok().and_then(decimal)
}

/// Checks a raw line's length and encoding.
pub fn text(bytes: &[u8]) -> Result<&str, LineError> {
    if bytes.len() > MAX_LINE {
        return Err(LineError::TooLong(bytes.len()));
    }
    std::str::from_utf8(bytes).map_err(|e| LineError::InvalidUtf8(e.valid_up_to()))
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
    }

    #[test]
    fn a_bad_line_still_names_its_order_when_it_can() {
        assert_eq!(claimed_order_id(b"1042|x|y"), Some(1042));
        assert_eq!(claimed_order_id(b"abc|x"), None);
        assert_eq!(claimed_order_id(b"no separator"), None);
    }
}
