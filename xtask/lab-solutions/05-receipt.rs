//! Lab 5's reference solution: the fields are slices of the input, the numbers are parsed from
//! their bytes, and the receipt line is written straight into `out` (`write!` on a `Vec<u8>`
//! allocates only when `out` must grow).

use std::io::Write as _;

fn number(field: &[u8]) -> u64 {
    field.iter().fold(0, |n, d| n * 10 + u64::from(d - b'0'))
}

pub fn receipt(input: &[u8], out: &mut Vec<u8>) {
    for line in input.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let mut fields = line.split(|&b| b == b'|');
        let (_, item, quantity, price) = (
            fields.next(),
            fields.next().unwrap_or_default(),
            number(fields.next().unwrap_or_default()),
            number(fields.next().unwrap_or_default()),
        );
        let item = std::str::from_utf8(item).unwrap_or_default();
        let total = quantity * price;
        let _ = writeln!(
            out,
            "{:<24} {:>4} x {:>6}.{:02} {:>9}.{:02}",
            item,
            quantity,
            price / 100,
            price % 100,
            total / 100,
            total % 100
        );
    }
}
