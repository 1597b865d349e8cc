//! Lab 5 (chapter 5): the receipt's hot path, without an allocation per line.
//!
//! `receipt` reads order lines, `order id|item|quantity|unit price in cents`, one per line, and
//! writes one receipt line for each into `out`, a buffer the caller owns and passes down (it
//! clears it between calls): the item, `quantity x unit price` and the line's total. This is the
//! naive way: a `String` for each line, a `Vec` of its fields, and a `format!` per receipt line.
//!
//! Make it allocate nothing per line once `out` has grown (the grader calls it twice with the
//! same buffer and counts the second call), within the instruction budget, with the same output.
//! The input is valid (the grader only passes such lines). Grade it with `cargo xtask lab 5`.

/// Appends one receipt line to `out` for every order line of `input`.
pub fn receipt(input: &[u8], out: &mut Vec<u8>) {
    let text = String::from_utf8(input.to_vec()).expect("the grader passes UTF-8");
    for line in text.lines() {
        let fields: Vec<&str> = line.split('|').collect();
        let quantity: u64 = fields[2].parse().expect("a quantity");
        let price: u64 = fields[3].parse().expect("a price");
        let total = quantity * price;
        let printed = format!(
            "{:<24} {:>4} x {:>6}.{:02} {:>9}.{:02}\n",
            fields[1],
            quantity,
            price / 100,
            price % 100,
            total / 100,
            total % 100
        );
        out.extend_from_slice(printed.as_bytes());
    }
}
