//! One small input per class of bad input, with the message it must produce: used by the tests
//! and by the chapter's R3 table, so both speak of the same cases.

/// `(class, input, first line on standard error)`.
pub const BAD_INPUT: [(&str, &str, &str); 16] = [
    (
        "wrong field count",
        "1042|ต้มยำกุ้ง|2\n",
        "line 1: expected 4 fields `order_id|item|qty|unit_price`, found 3",
    ),
    (
        "order id not an integer",
        "A42|ต้มยำกุ้ง|2|18000\n",
        "line 1: order_id is not a decimal integer",
    ),
    ("empty item", "1042||2|18000\n", "line 1: item is empty"),
    (
        "terminal escape in item",
        "1042|ต้มยำ\u{1b}[31mกุ้ง|2|18000\n",
        "line 1: item contains control character U+001B at column 11",
    ),
    (
        "C1 control in item",
        "1042|Pad\u{85}Thai|1|8000\n",
        "line 1: item contains control character U+0085 at column 9",
    ),
    (
        "DEL in item",
        "1042|Pad\u{7f}Thai|1|8000\n",
        "line 1: item contains control character U+007F at column 9",
    ),
    (
        "bidirectional override in item",
        "1042|\u{202e}iahT daP|1|8000\n",
        "line 1: item contains control character U+202E at column 6",
    ),
    (
        "quantity zero",
        "1042|ต้มยำกุ้ง|0|18000\n",
        "line 1: qty is not a positive decimal integer",
    ),
    (
        "quantity not an integer",
        "1042|ต้มยำกุ้ง|two|18000\n",
        "line 1: qty is not a positive decimal integer",
    ),
    (
        "price with a decimal point",
        "1042|ต้มยำกุ้ง|2|180.00\n",
        "line 1: unit_price is not a decimal integer (satang)",
    ),
    (
        "`\\r` just before the end of the input",
        "1042|ต้มยำกุ้ง|2|18000\r",
        "line 1: unit_price is not a decimal integer (satang)",
    ),
    (
        "invalid UTF-8",
        "1042|\u{FFFD}|2|18000\n",
        "line 1: invalid UTF-8 at byte 6",
    ),
    (
        "line longer than 4096 bytes",
        "",
        "line 1: line is 4111 bytes long, more than 4096",
    ),
    (
        "qty × price overflows u64",
        "1042|ต้มยำกุ้ง|2|9223372036854775808\n",
        "line 1: qty × unit_price overflows",
    ),
    (
        "order total overflows u64",
        "1042|ต้มยำกุ้ง|1|18446744073709551615\n1042|ข้าวผัด|1|6000\n",
        "line 2: the order total overflows",
    ),
    (
        "order longer than 1000 lines",
        "",
        "line 1001: the order has more than 1000 lines; it is rejected and its remaining lines are skipped",
    ),
];

/// A good order whose last line has no line ending: accepted, and reported.
pub const NO_FINAL_LINE_ENDING: &str = "1042|ต้มยำกุ้ง|2|18000";

/// A line rejected whatever follows it (its quantity is not a number): put first, it makes a
/// run whose output is closed early exit 1.
pub const REJECTED_LINE: &str = "1042|ต้มยำกุ้ง|two|18000\n";

/// The bytes of a case: the invalid-UTF-8 case replaces U+FFFD by a lone `0xFF` byte, and the
/// long-line and long-order cases are built here (they are too long to write out).
pub fn input(class: &str, text: &str) -> Vec<u8> {
    match class {
        "invalid UTF-8" => text
            .replace('\u{FFFD}', "\u{0}")
            .bytes()
            .map(|b| if b == 0 { 0xFF } else { b })
            .collect(),
        "line longer than 4096 bytes" => format!("1042|{}|1|100\n", "x".repeat(4100)).into_bytes(),
        "order longer than 1000 lines" => "1042|Water|1|1500\n"
            .repeat(receipt::line::MAX_ORDER_LINES as usize + 5)
            .into_bytes(),
        _ => text.as_bytes().to_vec(),
    }
}
