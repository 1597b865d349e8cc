//! The streaming strategy's fast lane at its edges. The lane reads a line only when the chunk
//! holds its span (128 bytes) from the line's start, so each input here puts the lines under test
//! among enough others that the lane, not the line reader, reads them; every check compares every
//! strategy, at every chunk size, with the contract's second implementation
//! (`common::assert_all_agree`), and the sweep over chunk sizes cuts the lane's lines at every
//! place.

mod common;

use common::{assert_all_agree, reference, run_with};
use receipt::{Processor, Strategy};

/// A good line of order `id`.
fn line(id: &str, item: &str, qty: u64, price: u64) -> String {
    format!("{id}|{item}|{qty}|{price}\n")
}

/// Ordinary lines, a few orders of them: what lets the lane read the lines before them.
fn filler(orders: u64) -> String {
    (0..orders)
        .flat_map(|order| {
            let id = 900_000 + order;
            [
                line(&id.to_string(), "Water", 1, 1500),
                line(&id.to_string(), "ต้มยำกุ้ง", 2, 18000),
            ]
        })
        .collect()
}

/// Every id length the lane compares in one word, in two, in three, and the ones it leaves to
/// the reader, each in an order of three lines, the first of them after another order's line.
#[test]
fn the_lane_reads_order_ids_of_1_to_20_digits_and_leaves_the_rest() {
    // Under Miri, the lengths at the words' edges only.
    let lengths: Vec<u32> = if cfg!(miri) {
        vec![1, 7, 8, 15, 16, 19]
    } else {
        (1..=20).collect()
    };
    let mut ids: Vec<String> = lengths
        .into_iter()
        .map(|digits| (10u64.pow(digits - 1) + u64::from(digits)).to_string())
        .collect();
    ids.extend([
        u64::MAX.to_string(),
        "000000000000000000042".to_owned(), // 21 digits, the value 42
        "0".to_owned(),
        "00".to_owned(),                   // the same order as `0`
        "18446744073709551616".to_owned(), // 2^64: not an id, charged to the order before
    ]);
    let mut input = filler(2);
    for id in &ids {
        for (item, qty) in [("Pad Thai", 1), ("ข้าวผัด", 3), ("Iced tea", 2)] {
            input += &line(id, item, qty, 3500);
        }
    }
    // The same order spelled with and without leading zeros, and an id that only begins like
    // the open one.
    for id in ["42", "0042", "42", "420", "4", "0000042"] {
        input += &line(id, "Water", 1, 1500);
    }
    input += &filler(4);
    let (receipts, _, summary) = assert_all_agree(input.as_bytes());
    assert!(receipts.contains(&format!("Order {}\n", u64::MAX)));
    assert_eq!(
        summary.rejected_orders, 1,
        "2^64 is charged to the order before it"
    );
    assert!(receipts.contains("Order 42\n"));
}

/// Names whose `|` falls on each side of every sixteen-byte block boundary the lane reads, in
/// ASCII, in Thai (three bytes a character, so characters straddle the boundaries), and in
/// two-byte characters; up to and past the lane's longest name (64 bytes) and the item cache's
/// (61); and names with a control character, DEL, a C1 control or a bidirectional override at a
/// boundary.
#[test]
fn the_lane_reads_names_across_its_sixteen_byte_blocks() {
    let mut names = Vec::new();
    for len in 1..=70 {
        names.push("x".repeat(len));
        names.push("é".repeat(len / 2 + 1));
        for prefix in 0..3 {
            names.push("a".repeat(prefix) + &"ก".repeat(len / 3 + 1));
        }
    }
    for at in [0, 14, 15, 16, 17, 31, 32, 47, 48, 63] {
        for bad in ["\u{1b}", "\u{7f}", "\u{85}", "\u{202e}", "\n"] {
            names.push(format!("{}{bad}rest", "x".repeat(at)));
        }
    }
    let mut input = filler(2);
    for (n, name) in names.iter().enumerate() {
        input += &line(&(n / 3).to_string(), name, 1 + n as u64 % 4, 1000);
    }
    input += &filler(4);
    let input = if cfg!(miri) {
        // The names around the first block boundaries and the lane's first lines.
        input.as_bytes()[..1536].to_vec()
    } else {
        input.into_bytes()
    };
    assert_all_agree(&input);
}

/// Amounts on each side of what the lane's table writes (baht below 10,000, so satang below
/// 1,000,000), as a unit price, as a line total, and as an order's total; quantities on each
/// side of 9,999; and an order total that overflows.
#[test]
fn the_lane_writes_amounts_around_9999_and_10000_baht() {
    let mut input = filler(2);
    let mut id = 0;
    let mut order = |lines: &[(u64, u64)]| {
        id += 1;
        for &(qty, price) in lines {
            input += &line(&id.to_string(), "Mango sticky rice", qty, price);
        }
    };
    for price in [0, 1, 99, 100, 999_900, 999_999, 1_000_000, 1_000_099] {
        order(&[(1, price), (1, 1500)]);
    }
    for qty in [9_998, 9_999, 10_000, 10_001] {
        order(&[(qty, 1), (qty, 100)]);
    }
    order(&[(2, 499_999), (2, 500_000), (1, 1500)]);
    order(&[(1, 999_999), (1, 1)]); // the order's total reaches 1,000,000 satang
    order(&[(1, 999_999); 12]);
    order(&[(1, u64::MAX), (1, 1)]); // the order total overflows
    input += &filler(4);
    assert_all_agree(input.as_bytes());
}

/// `\r\n` endings, a `\r` inside a line, a blank `\r\n` line and a last line without its ending,
/// among lines the lane reads.
#[test]
fn the_lane_reads_crlf_lines() {
    let mut input = filler(2).replace('\n', "\r\n");
    input += "7|Water|1|1500\r\n7|Water|2|1500\r\r\n7|Wa\rter|1|1500\r\n\r\n";
    input += &filler(3);
    input += &filler(2).replace('\n', "\r\n");
    input += "8|Water|1|1500\r";
    assert_all_agree(input.as_bytes());
}

/// An order that reaches its line bound while the lane reads it: the line past the bound is
/// reported, the rest skipped, and the next order printed.
#[cfg_attr(miri, ignore = "a thousand lines per chunk size: slow under Miri")]
#[test]
fn the_lane_stops_an_order_at_its_line_bound() {
    let mut input = filler(1);
    input += &line("5", "Water", 1, 1500).repeat(1_000);
    input += &line("6", "Water", 1, 1500).repeat(1_003);
    input += &filler(2);
    let (_, errors, summary) = assert_all_agree(input.as_bytes());
    assert!(
        errors.contains("the order has more than 1000 lines"),
        "{errors}"
    );
    assert_eq!(summary.rejected_orders, 1);
}

/// The streaming strategy at every chunk size from just under the lane's span to several
/// times it, in memory: every line the lane reads is cut by a chunk's end somewhere, the order
/// ids among them.
#[test]
fn the_lane_agrees_at_every_chunk_size_around_its_span() {
    let mut input = filler(3);
    for id in ["1", "12345678", "123456789012345678", "0012"] {
        for item in ["Pad Thai", "แกงเขียวหวานไก่", "Spring rolls (4)"]
        {
            input += &line(id, item, 2, 9000);
        }
    }
    input += "12|bad|x|1\n";
    input += &filler(3);
    let expected = reference::run(input.as_bytes());
    let sizes = if cfg!(miri) { 126..=130 } else { 100..=700 };
    for chunk in sizes {
        let processor = Processor::new(Strategy::Streaming).with_chunk_size(chunk);
        assert_eq!(
            run_with(processor, input.as_bytes()),
            expected,
            "chunks of {chunk} bytes"
        );
    }
}
