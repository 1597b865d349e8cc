//! The command's contract written a second time, from its description alone: no
//! `receipt::engine`, `input`, `line`, `scan` or `render`. Every strategy shares the order logic
//! (grouping, the byte-order mark, line endings, blank lines, the order bound, the accounts), so
//! comparing the strategies with each other cannot catch a bug there; comparing them with this
//! can.

use receipt::Summary;
use unicode_width::UnicodeWidthStr;

use super::Outcome;

/// The longest line accepted, in bytes, without its line ending.
const MAX_LINE: usize = 4096;
/// The most lines an order may have.
const MAX_ORDER_LINES: u64 = 1000;
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The open order (or, before the first readable order id, the lines that have none).
struct Group {
    id: Option<u64>,
    lines: u64,
    bad: Vec<usize>,
    receipt: String,
    total: u64,
}

/// A decimal `u64`: ASCII digits only, at least one.
fn decimal(field: &str) -> Option<u64> {
    let digits = !field.is_empty() && field.bytes().all(|b| b.is_ascii_digit());
    digits.then(|| field.parse().ok()).flatten()
}

fn money(satang: u64) -> String {
    format!("{}.{:02}", satang / 100, satang % 100)
}

/// The receipt line of a good line and its total, or why the line is bad, in the contract's
/// order: length, UTF-8, field count, order id, item, quantity, price, overflow.
fn check(line: &[u8]) -> Result<(String, u64), String> {
    if line.len() > MAX_LINE {
        return Err(format!(
            "line is {} bytes long, more than {MAX_LINE}",
            line.len()
        ));
    }
    let text = std::str::from_utf8(line)
        .map_err(|e| format!("invalid UTF-8 at byte {}", e.valid_up_to() + 1))?;
    let fields: Vec<&str> = text.split('|').collect();
    let [id, item, qty, price] = fields[..] else {
        let found = fields.len();
        return Err(format!(
            "expected 4 fields `order_id|item|qty|unit_price`, found {found}"
        ));
    };
    decimal(id).ok_or("order_id is not a decimal integer")?;
    if item.is_empty() {
        return Err("item is empty".into());
    }
    let control = |c: char| matches!(u32::from(c), 0..=0x1f | 0x7f..=0x9f | 0x202a..=0x202e | 0x2066..=0x2069);
    if let Some((idx, c)) = item.chars().enumerate().find(|&(_, c)| control(c)) {
        let column = id.len() + 2 + idx;
        let code = u32::from(c);
        return Err(format!(
            "item contains control character U+{code:04X} at column {column}"
        ));
    }
    let qty = decimal(qty)
        .filter(|&q| q >= 1)
        .ok_or("qty is not a positive decimal integer")?;
    let price = decimal(price).ok_or("unit_price is not a decimal integer (satang)")?;
    let total = qty.checked_mul(price).ok_or("qty × unit_price overflows")?;
    // The name padded to 20 columns, the quantity right-aligned in 6, the price in 10, the line
    // total in 12, a column as wide as its field when the field is wider. A field never touches
    // the one before it: a space goes before the quantity when the name has no padding, and
    // before the line total always (in a column it fits, the space is padding anyway).
    let padding = " ".repeat(20usize.saturating_sub(item.width()));
    let qty = if padding.is_empty() {
        format!(" {qty}")
    } else {
        qty.to_string()
    };
    let (price, line_total) = (money(price), format!(" {}", money(total)));
    Ok((
        format!("  {item}{padding}{qty:>6} x {price:>10}{line_total:>12}\n"),
        total,
    ))
}

/// The order id a line claims: its first field, if that is a decimal integer. Only the first
/// `MAX_LINE + 1` bytes are looked at, all a streaming reader keeps of a line too long to accept.
fn claimed(line: &[u8]) -> Option<u64> {
    let head = &line[..line.len().min(MAX_LINE + 1)];
    let bar = head.iter().position(|&b| b == b'|')?;
    std::str::from_utf8(&head[..bar]).ok().and_then(decimal)
}

/// Prints the group's receipt, or rejects it whole.
fn close(group: Group, out: &mut String, err: &mut String, s: &mut Summary) {
    let lines = group.lines;
    match group.id {
        Some(id) if group.bad.is_empty() => {
            if s.receipts > 0 {
                out.push('\n');
            }
            let total = money(group.total);
            *out += &format!("Order {id}\n{}TOTAL{total:>48}\n", group.receipt);
            s.printed += lines;
            s.receipts += 1;
        }
        id => {
            let plural = if lines == 1 { "" } else { "s" };
            *err += &match id {
                Some(id) => format!("order {id} rejected ({lines} line{plural}), bad:"),
                None => format!("{lines} line{plural} without a readable order id rejected, bad:"),
            };
            group.bad.iter().for_each(|n| *err += &format!(" {n}"));
            err.push('\n');
            s.rejected += lines;
            s.rejected_orders += 1;
        }
    }
}

/// What the command prints for `input`: receipts, the error report (without the summary line)
/// and the accounts.
pub fn run(input: &[u8]) -> Outcome {
    let (mut out, mut err, mut s) = (String::new(), String::new(), Summary::default());
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|last| last.is_empty()) {
        lines.pop(); // the input ends with a line ending (or is empty)
    }
    s.read = lines.len() as u64;
    // The last line has no line ending unless the input ends with `\n`: then it is read as any
    // other, a `\r` at its end is part of it, and it is reported once every line has been read.
    let unterminated = (!input.is_empty() && !input.ends_with(b"\n")).then_some(lines.len());
    let mut open: Option<Group> = None;
    for (idx, &line) in lines.iter().enumerate() {
        let number = idx + 1;
        let line = match unterminated {
            Some(last) if last == number => line,
            _ => line.strip_suffix(b"\r").unwrap_or(line),
        };
        let line = if number == 1 {
            line.strip_prefix(BOM).unwrap_or(line)
        } else {
            line
        };
        if line.is_empty() {
            s.blank += 1;
            continue;
        }
        // A line whose order id cannot be read belongs to the group that is open; a line that
        // claims another id closes it.
        let claim = claimed(line);
        let joins = open
            .as_ref()
            .is_some_and(|g| claim.is_none() || claim == g.id);
        if !joins && let Some(group) = open.take() {
            close(group, &mut out, &mut err, &mut s);
        }
        let group = open.get_or_insert_with(|| Group {
            id: claim,
            lines: 0,
            bad: Vec::new(),
            receipt: String::new(),
            total: 0,
        });
        group.lines += 1;
        let outcome = if group.lines > MAX_ORDER_LINES {
            if group.lines > MAX_ORDER_LINES + 1 {
                continue; // counted, not checked
            }
            Err(format!(
                "the order has more than {MAX_ORDER_LINES} lines; it is rejected and its remaining lines are skipped"
            ))
        } else {
            check(line).and_then(|(text, total)| {
                group.total = group
                    .total
                    .checked_add(total)
                    .ok_or("the order total overflows")?;
                group.receipt += &text;
                Ok(())
            })
        };
        if let Err(why) = outcome {
            err += &format!("line {number}: {why}\n");
            group.bad.push(number);
        }
    }
    if let Some(number) = unterminated {
        err += &format!(
            "line {number}: the input ends without a line ending: it may have been cut off\n"
        );
    }
    if let Some(group) = open {
        close(group, &mut out, &mut err, &mut s);
    }
    (out, err, s)
}
