//! A deterministic order file: Thai and English item names, prices in satang, and a share of
//! multi-line orders (`receipt gen --lines N --seed S`).

use std::io::{self, Write};

use crate::line::{MAX_LINE, MAX_ORDER_LINES};

/// The menu the generator draws from: (item, unit price in satang).
pub const MENU: [(&str, u64); 12] = [
    ("ต้มยำกุ้ง", 18000),
    ("ข้าวผัด", 6000),
    ("ส้มตำ", 6000),
    ("ผัดไทย", 8000),
    ("แกงเขียวหวานไก่", 12000),
    ("ข้าวเหนียวมะม่วง", 9000),
    ("Pad Thai", 8000),
    ("Green curry", 12000),
    ("Iced tea", 3500),
    ("Spring rolls (4)", 7000),
    ("Mango sticky rice", 9000),
    ("Water", 1500),
];

/// Writes `lines` order lines generated from `seed` to `out`. About one order in three has a
/// single line; the others have two to six.
pub fn generate(lines: u64, seed: u64, out: &mut dyn Write) -> io::Result<()> {
    let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
    let mut next = move |bound: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 32) % bound
    };
    let (mut written, mut order_id) = (0u64, 1000u64);
    while written < lines {
        order_id += 1 + next(5);
        let in_order = if next(3) == 0 { 1 } else { 2 + next(5) };
        for _ in 0..in_order.min(lines - written) {
            let (item, price) = MENU[next(MENU.len() as u64) as usize];
            writeln!(out, "{order_id}|{item}|{}|{price}", 1 + next(4))?;
            written += 1;
        }
    }
    Ok(())
}

/// The generated file as bytes.
pub fn generated(lines: u64, seed: u64) -> Vec<u8> {
    let mut out = Vec::new();
    generate(lines, seed, &mut out).expect("writing to a Vec cannot fail");
    out
}

/// The longest input the command accepts per order: `orders` orders of
/// [`MAX_ORDER_LINES`] lines, each [`MAX_LINE`] bytes long without its line ending, its item a
/// Thai name as long as the line allows. What a strategy holds for the open order is largest on
/// this input, so its peak memory bounds the command's on any input.
pub fn worst_case(orders: u64, out: &mut dyn Write) -> io::Result<()> {
    for order in 0..orders {
        let id = 1001 + order;
        let tail = "|1|100";
        let room = MAX_LINE - format!("{id}|").len() - tail.len();
        // ก is three bytes and one column; the remainder is padded with ASCII.
        let item = format!("{}{}", "ก".repeat(room / 3), "x".repeat(room % 3));
        for _ in 0..MAX_ORDER_LINES {
            writeln!(out, "{id}|{item}{tail}")?;
        }
    }
    Ok(())
}
