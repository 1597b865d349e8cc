#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod cases;
#[cfg(feature = "experiments")]
pub mod experiments;
pub mod generate;
pub mod line;
pub mod render;

use std::fmt;
use std::io::{self, Write};
use std::str::FromStr;

use bumpalo::Bump;
use pool::Rented;

use crate::line::{LineError, Numbers};
use crate::render::{ByteSink, Fixed};

/// How the hot path holds fields and builds its output. Every strategy prints the same bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// A `String` per field, a `Vec` per line, `format!` per receipt line.
    Naive,
    /// The order's receipt text assembled in a buffer rented from `pool::shared()`.
    Pooled,
    /// Each receipt line assembled in a fixed 256-byte stack buffer (longer lines spill to the
    /// order buffer directly), the order's text in one reused buffer.
    Stack,
    /// Each order's fields and text in a `bumpalo` arena, reset after every order.
    Arena,
    /// Fields kept as ranges of the input buffer, numbers formatted without allocating, the
    /// receipt written into one reused buffer.
    Streaming,
}

/// Every strategy, in the chapter's order.
pub const STRATEGIES: [Strategy; 5] = [
    Strategy::Naive,
    Strategy::Pooled,
    Strategy::Stack,
    Strategy::Arena,
    Strategy::Streaming,
];

impl Strategy {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Naive => "naive",
            Strategy::Pooled => "pooled",
            Strategy::Stack => "stack",
            Strategy::Arena => "arena",
            Strategy::Streaming => "streaming",
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        STRATEGIES
            .into_iter()
            .find(|st| st.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown strategy `{s}` (expected naive, pooled, stack, arena or streaming)"
                )
            })
    }
}

/// Every input line accounted for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Lines in the input (blank ones included).
    pub read: u64,
    /// Blank lines, skipped.
    pub blank: u64,
    /// Lines printed as part of a receipt.
    pub printed: u64,
    /// Lines of rejected orders: the bad ones and the good ones of the same order.
    pub rejected: u64,
    /// Receipts printed.
    pub receipts: u64,
    /// Orders rejected.
    pub rejected_orders: u64,
}

impl Summary {
    /// The exit status: 0 when nothing was rejected, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.rejected > 0)
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} lines read: {} printed in {} receipts, {} rejected in {} orders, {} blank",
            self.read, self.printed, self.receipts, self.rejected, self.rejected_orders, self.blank
        )
    }
}

/// One strategy's way of holding the current order.
trait Hold: fmt::Debug {
    /// Parses a checked line (UTF-8, at most `MAX_LINE` bytes) the strategy's way and keeps it
    /// for the current order. `start` is where `text` begins in the input.
    fn add(&mut self, text: &str, start: usize) -> Result<Numbers, LineError>;
    /// Writes the current order's receipt and forgets the order.
    fn finish(
        &mut self,
        input: &[u8],
        order_id: u64,
        total: u64,
        out: &mut dyn Write,
    ) -> io::Result<()>;
    /// Forgets the current order without printing it.
    fn discard(&mut self);
}

/// The current order while it is being read.
#[derive(Debug, Default)]
struct Open {
    order_id: Option<u64>,
    total: u64,
    lines: u64,
    bad: Vec<u64>,
}

/// Processes order files with one strategy, keeping its buffers from run to run (so a warm
/// processor allocates nothing per line).
pub struct Processor {
    strategy: Strategy,
    hold: Box<dyn Hold>,
    open: Open,
}

impl fmt::Debug for Processor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Processor")
            .field("strategy", &self.strategy)
            .finish_non_exhaustive()
    }
}

impl Clone for Processor {
    /// A new processor with the same strategy: buffers are not copied, they are warmed again.
    fn clone(&self) -> Self {
        Self::new(self.strategy)
    }
}

impl Processor {
    /// A processor for `strategy`.
    pub fn new(strategy: Strategy) -> Self {
        let hold: Box<dyn Hold> = match strategy {
            Strategy::Naive => Box::new(Naive::default()),
            Strategy::Pooled => Box::new(Pooled::default()),
            Strategy::Stack => Box::new(Stack::default()),
            Strategy::Arena => Box::new(Arena::default()),
            Strategy::Streaming => Box::new(Streaming::default()),
        };
        Self {
            strategy,
            hold,
            open: Open::default(),
        }
    }

    /// Reads `input`, writes receipts to `out` and problems to `errors`, and accounts for
    /// every line. I/O errors stop the run; bad input never does.
    pub fn run(
        &mut self,
        input: &[u8],
        out: &mut dyn Write,
        errors: &mut dyn Write,
    ) -> io::Result<Summary> {
        let mut summary = Summary::default();
        let mut start = 0;
        let mut number = 0u64;
        while start < input.len() {
            let end = input[start..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(input.len(), |i| start + i);
            number += 1;
            let mut raw = &input[start..end];
            if raw.last() == Some(&b'\r') {
                raw = &raw[..raw.len() - 1];
            }
            self.line(input, start, raw, number, &mut summary, out, errors)?;
            start = end + 1;
        }
        self.close(input, &mut summary, out, errors)?;
        summary.read = number;
        Ok(summary)
    }

    #[allow(clippy::too_many_arguments)]
    fn line(
        &mut self,
        input: &[u8],
        start: usize,
        raw: &[u8],
        number: u64,
        summary: &mut Summary,
        out: &mut dyn Write,
        errors: &mut dyn Write,
    ) -> io::Result<()> {
        if raw.is_empty() {
            summary.blank += 1;
            return Ok(());
        }
        let claimed = line::claimed_order_id(raw);
        if claimed.is_some() && claimed != self.open.order_id {
            self.close(input, summary, out, errors)?;
            self.open.order_id = claimed;
            self.open.total = 0;
        }
        self.open.lines += 1;
        let checked = line::text(raw).and_then(|text| self.hold.add(text, start));
        let result = checked.and_then(|n| {
            self.open.total = self
                .open
                .total
                .checked_add(n.line_total)
                .ok_or(LineError::OrderTotalOverflow)?;
            Ok(())
        });
        if let Err(reason) = result {
            writeln!(errors, "line {number}: {reason}")?;
            self.open.bad.push(number);
        }
        Ok(())
    }

    fn close(
        &mut self,
        input: &[u8],
        summary: &mut Summary,
        out: &mut dyn Write,
        errors: &mut dyn Write,
    ) -> io::Result<()> {
        if self.open.lines == 0 {
            self.open.order_id = None;
            return Ok(());
        }
        let lines = std::mem::take(&mut self.open.lines);
        if self.open.bad.is_empty() {
            let id = self.open.order_id.unwrap_or(0);
            if summary.receipts > 0 {
                out.write_all(b"\n")?;
            }
            self.hold.finish(input, id, self.open.total, out)?;
            summary.printed += lines;
            summary.receipts += 1;
        } else {
            self.hold.discard();
            let plural = if lines == 1 { "" } else { "s" };
            match self.open.order_id {
                Some(id) => write!(errors, "order {id} rejected ({lines} line{plural}), bad:")?,
                None => write!(
                    errors,
                    "{lines} line{plural} without a readable order id rejected, bad:"
                )?,
            }
            for n in &self.open.bad {
                write!(errors, " {n}")?;
            }
            writeln!(errors)?;
            summary.rejected += lines;
            summary.rejected_orders += 1;
            self.open.bad.clear();
        }
        self.open.order_id = None;
        self.open.total = 0;
        Ok(())
    }
}

/// The item's range in the input: `item` is a sub-slice of `text`, which starts at `start`.
fn item_range(text: &str, item: &str, start: usize) -> (usize, usize) {
    let offset = item.as_ptr() as usize - text.as_ptr() as usize;
    (start + offset, start + offset + item.len())
}

/// The text of a range recorded by `item_range`: valid UTF-8 by construction (a field of a
/// checked line, cut at `|`), so the fallback is never taken.
fn item_at(input: &[u8], (start, end): (usize, usize)) -> &str {
    std::str::from_utf8(&input[start..end]).unwrap_or_default()
}

/// A kept line: where its item is in the input, and its numbers.
#[derive(Clone, Copy, Debug)]
struct Kept {
    item: (usize, usize),
    numbers: Numbers,
}

/// Parses a line and keeps where its item is and its numbers (the arena and streaming
/// strategies).
fn keep(kept: &mut Vec<Kept>, text: &str, start: usize) -> Result<Numbers, LineError> {
    let (numbers, item) = line::parse(text)?;
    kept.push(Kept {
        item: item_range(text, item, start),
        numbers,
    });
    Ok(numbers)
}

/// The newcomer's version: a `Vec` of `String`s per line, `format!` per receipt line.
#[derive(Debug, Default)]
struct Naive {
    lines: Vec<(String, String, Numbers)>,
}

impl Hold for Naive {
    fn add(&mut self, text: &str, _: usize) -> Result<Numbers, LineError> {
        let fields: Vec<String> = text.split('|').map(String::from).collect();
        if fields.len() != 4 {
            return Err(LineError::FieldCount(fields.len()));
        }
        let numbers = line::check_fields(&fields[0], &fields[1], &fields[2], &fields[3])?;
        let mut fields = fields.into_iter().skip(1);
        let item = fields.next().unwrap_or_default();
        let qty = fields.next().unwrap_or_default();
        self.lines.push((item, qty, numbers));
        Ok(numbers)
    }

    fn finish(
        &mut self,
        _: &[u8],
        order_id: u64,
        total: u64,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let mut receipt = format!("Order {order_id}\n");
        for (item, qty, n) in self.lines.drain(..) {
            receipt += &render::item_line_naive(&item, &qty, n.unit_price, n.line_total);
        }
        receipt += &render::total_line_naive(total);
        out.write_all(receipt.as_bytes())
    }

    fn discard(&mut self) {
        self.lines.clear();
    }
}

/// A growable text kept in buffers rented from `pool::shared()`.
#[derive(Debug, Default)]
struct Pooled {
    buf: Option<Rented<'static, u8>>,
    len: usize,
}

impl ByteSink for Pooled {
    fn put(&mut self, bytes: &[u8]) {
        let needed = self.len + bytes.len();
        let capacity = self.buf.as_ref().map_or(0, |b| b.len());
        if needed > capacity {
            let mut bigger = pool::shared().rent(needed.max(2 * capacity).max(4096));
            if let Some(old) = &self.buf {
                bigger[..self.len].copy_from_slice(&old[..self.len]);
            }
            self.buf = Some(bigger); // the old buffer goes back to the pool here
        }
        if let Some(buf) = &mut self.buf {
            buf[self.len..needed].copy_from_slice(bytes);
            self.len = needed;
        }
    }
}

impl Hold for Pooled {
    fn add(&mut self, text: &str, _: usize) -> Result<Numbers, LineError> {
        let (n, item) = line::parse(text)?;
        if self.len == 0 {
            render::header(self, n.order_id);
        }
        render::item_line(self, item, n.qty, n.unit_price, n.line_total);
        Ok(n)
    }

    fn finish(&mut self, _: &[u8], _: u64, total: u64, out: &mut dyn Write) -> io::Result<()> {
        render::total_line(self, total);
        let len = std::mem::take(&mut self.len);
        match &self.buf {
            Some(buf) => out.write_all(&buf[..len]),
            None => Ok(()),
        }
    }

    fn discard(&mut self) {
        self.len = 0;
    }
}

/// Each receipt line assembled in a 256-byte stack buffer, appended to one reused buffer;
/// a line that does not fit is rendered straight into that buffer instead (the spill).
#[derive(Debug, Default)]
struct Stack {
    text: Vec<u8>,
}

impl Hold for Stack {
    fn add(&mut self, text: &str, _: usize) -> Result<Numbers, LineError> {
        let (n, item) = line::parse(text)?;
        if self.text.is_empty() {
            render::header(&mut self.text, n.order_id);
        }
        let mut line = Fixed::<256>::new();
        render::item_line(&mut line, item, n.qty, n.unit_price, n.line_total);
        match line.bytes() {
            Some(bytes) => self.text.extend_from_slice(bytes),
            None => render::item_line(&mut self.text, item, n.qty, n.unit_price, n.line_total),
        }
        Ok(n)
    }

    fn finish(&mut self, _: &[u8], _: u64, total: u64, out: &mut dyn Write) -> io::Result<()> {
        render::total_line(&mut self.text, total);
        let result = out.write_all(&self.text);
        self.text.clear();
        result
    }

    fn discard(&mut self) {
        self.text.clear();
    }
}

/// Checks lines on the way in and keeps only where they are; when the order is complete, its
/// fields are copied into a `bumpalo` arena, its receipt built there, and the arena reset.
#[derive(Debug, Default)]
struct Arena {
    bump: Bump,
    kept: Vec<Kept>,
}

impl Hold for Arena {
    fn add(&mut self, text: &str, start: usize) -> Result<Numbers, LineError> {
        keep(&mut self.kept, text, start)
    }

    fn finish(
        &mut self,
        input: &[u8],
        order_id: u64,
        total: u64,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let result = {
            let bump = &self.bump;
            let mut lines = bumpalo::collections::Vec::with_capacity_in(self.kept.len(), bump);
            for k in &self.kept {
                lines.push((&*bump.alloc_str(item_at(input, k.item)), k.numbers));
            }
            let mut receipt =
                bumpalo::collections::Vec::with_capacity_in(64 * (lines.len() + 2), bump);
            render::header(&mut receipt, order_id);
            for (item, n) in &lines {
                render::item_line(&mut receipt, item, n.qty, n.unit_price, n.line_total);
            }
            render::total_line(&mut receipt, total);
            out.write_all(&receipt)
        };
        self.kept.clear();
        self.bump.reset();
        result
    }

    fn discard(&mut self) {
        self.kept.clear();
    }
}

/// Keeps each line as a range of the input and its numbers; renders the receipt straight
/// into one reused buffer when the order is complete.
#[derive(Debug, Default)]
struct Streaming {
    kept: Vec<Kept>,
    text: Vec<u8>,
}

impl Hold for Streaming {
    fn add(&mut self, text: &str, start: usize) -> Result<Numbers, LineError> {
        keep(&mut self.kept, text, start)
    }

    fn finish(
        &mut self,
        input: &[u8],
        order_id: u64,
        total: u64,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        self.text.clear();
        render::header(&mut self.text, order_id);
        for k in &self.kept {
            let n = k.numbers;
            render::item_line(
                &mut self.text,
                item_at(input, k.item),
                n.qty,
                n.unit_price,
                n.line_total,
            );
        }
        render::total_line(&mut self.text, total);
        self.kept.clear();
        out.write_all(&self.text)
    }

    fn discard(&mut self) {
        self.kept.clear();
    }
}

/// Runs one strategy over `input` with a fresh processor: receipts to `out`, problems and the
/// summary line to `errors`.
pub fn process(
    strategy: Strategy,
    input: &[u8],
    out: &mut dyn Write,
    errors: &mut dyn Write,
) -> io::Result<Summary> {
    let summary = Processor::new(strategy).run(input, out, errors)?;
    writeln!(errors, "{summary}")?;
    Ok(summary)
}
