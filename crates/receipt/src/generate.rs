//! A deterministic order file: Thai and English item names, prices in satang, and a share of
//! multi-line orders (`receipt gen --lines N --seed S`).

use std::io::{self, Write};

use crate::POOLED_FIRST_RENT;
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

/// The lines whose names are [`GROWING_NAME`] bytes at the start of the second order of
/// [`worst_case`].
pub const GROWING_LINES: usize = 4;

/// The length of those names: half the first buffer the `pooled` strategy rents.
pub const GROWING_NAME: usize = POOLED_FIRST_RENT / 2;

/// The first name of [`worst_case`]'s first order: 54 bytes shorter than the longest, so that
/// an output buffer that grows, by doubling, from what the receipt's first line needs (ten bytes
/// and this name) has, after ten doublings, just less room than the whole receipt needs, and
/// doubles once more.
pub const OUTPUT_DOUBLING_NAME: usize = 4036;

/// The first name of [`worst_case`]'s fourth order: the same for the `String` the `naive`
/// strategy formats a receipt into, which takes whole receipt lines: it grows to its header and
/// first two lines (the second longer than twice the first's room), 8,092 bytes with this name,
/// and doubles from there.
pub const NAIVE_DOUBLING_NAME: usize = 3886;

/// An item name of `bytes` bytes (even) and no display width: combining marks (U+0300, two
/// bytes each), which the receipt pads to the whole name column.
fn no_width_name(bytes: usize) -> String {
    "\u{300}".repeat(bytes / 2)
}

/// The input on which every strategy holds the most its buffers allow, within 3 % (R4's worst
/// case; [`bounds`](crate::bounds) states the bounds): `orders` orders of [`MAX_ORDER_LINES`]
/// lines (four are enough), their ids 1 and 2 in turn.
///
/// Every line is as long as accepted, [`MAX_LINE`] bytes, but the few named below: an order
/// id, a quantity and a price of one digit each, and a name of
/// [`bounds::MAX_ITEM`](crate::bounds::MAX_ITEM) bytes with no display width, so that its item
/// line is as long as the line of a printed order can be (`render::MAX_ITEM_LINE` less the
/// 5 bytes of the widest numbers, whose totals would make the order's overflow).
///
/// How much a buffer that doubles holds depends on the size of its first step, so the orders
/// differ in their first lines, in turn:
///
/// 1. the first name is [`OUTPUT_DOUBLING_NAME`] bytes: the output buffer of the strategies
///    that render into it ends with twice the room the receipt needs. The `pooled` strategy's
///    receipt buffer jumps from its first rent to the bucket of that line (8 KiB) and moves
///    up one bucket at a time from there: the receipt ends in the bucket of 4 MiB, the bucket
///    of its length, as every receipt of that length does.
/// 2. the first [`GROWING_LINES`] names are [`GROWING_NAME`] bytes: the `pooled` strategy's
///    buffer moves from its first rent through every bucket, the two the first order jumped
///    over included, so the pool now holds one buffer of every bucket from 1 KiB to 4 MiB.
///    The `arena` strategy's reset keeps its chunk of 4 MiB, which holds this order.
/// 3. every name is the longest: the receipt is longer than the first order's, so the output
///    buffer of the strategies that copy a whole receipt into it doubles too; and the `arena`
///    strategy needs a chunk of 8 MiB beside the 4 MiB one it kept.
/// 4. the first name is [`NAIVE_DOUBLING_NAME`] bytes: the `naive` strategy's receipt `String`
///    ends with twice the room it needs, beside an output buffer that already has.
pub fn worst_case(orders: u64, out: &mut dyn Write) -> io::Result<()> {
    let room = |id: &str| MAX_LINE - id.len() - "|".len() - "|1|1".len();
    for order in 0..orders {
        let id = if order % 2 == 0 { "1" } else { "2" };
        let longest = room(id);
        let first = match order % 4 {
            0 => OUTPUT_DOUBLING_NAME,
            3 => NAIVE_DOUBLING_NAME,
            _ => longest,
        };
        for line in 0..MAX_ORDER_LINES as usize {
            let name = match line {
                0 if order % 4 != 1 => first,
                ..GROWING_LINES if order % 4 == 1 => GROWING_NAME,
                _ => longest,
            };
            writeln!(out, "{id}|{}|1|1", no_width_name(name))?;
        }
    }
    Ok(())
}
