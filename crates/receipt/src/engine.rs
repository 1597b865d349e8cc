//! The order logic every strategy shares: grouping lines into orders, checking them, rejecting
//! an order whole, accounting for every line — and the output buffer.
//!
//! The loop reads one order at a time, in a block: the strategy opens the order
//! ([`Hold::open`]), receives its lines, and either finishes it or drops it. The open order may
//! borrow the strategy (the arena strategy's lines live in its arena), and the borrow ends when
//! the block does — so the borrow checker proves that nothing of an order outlives it. It is
//! generic over the strategy, so there is no dynamic call per line.

use std::fmt;
use std::io::{self, Write};

use crate::input::{Kind, Lines, Rec, Source};
use crate::line::{self, LineError, MAX_ORDER_LINES, Numbers};
use crate::render::{ByteSink, Line};
use crate::scan::{ItemCache, Scanner};
use crate::{Order, Summary};

/// Receipts are handed to the writer once this many bytes are buffered (and an order is
/// complete): 64 KiB.
pub const FLUSH_BYTES: usize = 64 * 1024;

/// Why a run stopped: reading the input or writing the output failed. Bad input never stops
/// a run.
#[derive(Debug)]
pub enum RunError {
    /// Reading the input failed.
    Read(io::Error),
    /// Writing the receipts or the error report failed (a closed pipe, a full disk…).
    Write(io::Error),
}

impl RunError {
    /// The underlying I/O error.
    pub fn io(&self) -> &io::Error {
        match self {
            Self::Read(err) | Self::Write(err) => err,
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Read(err) => write!(f, "cannot read: {err}"),
            Self::Write(err) => write!(f, "cannot write: {err}"),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.io())
    }
}

impl From<RunError> for io::Error {
    fn from(err: RunError) -> Self {
        match err {
            RunError::Read(err) | RunError::Write(err) => err,
        }
    }
}

/// The receipts of complete orders (and the open order's, for the streaming strategy), handed
/// to the writer in blocks of about [`FLUSH_BYTES`].
pub(crate) struct Output<'a> {
    buf: &'a mut Vec<u8>,
    sink: &'a mut dyn Write,
    /// Whether a receipt was printed (the next one is preceded by a blank line).
    printed: bool,
}

impl ByteSink for Output<'_> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.buf.put(bytes);
    }

    #[inline(always)]
    fn put_with<const N: usize>(&mut self, write: impl FnOnce(&mut [u8; N]) -> usize) {
        self.buf.put_with(write);
    }
}

impl<'a> Output<'a> {
    fn new(buf: &'a mut Vec<u8>, sink: &'a mut dyn Write) -> Self {
        buf.clear();
        Self {
            buf,
            sink,
            printed: false,
        }
    }

    /// Starts a receipt (the blank line between receipts); returns where to roll back to if
    /// the order is rejected.
    fn open(&mut self) -> usize {
        let mark = self.buf.len();
        if self.printed {
            self.buf.push(b'\n');
        }
        mark
    }

    /// Hands the buffer to the writer if it is full enough.
    fn flush_if_full(&mut self) -> Result<(), RunError> {
        if self.buf.len() >= FLUSH_BYTES {
            self.sink.write_all(self.buf).map_err(RunError::Write)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Hands everything to the writer and flushes it.
    fn finish(&mut self) -> Result<(), RunError> {
        self.sink.write_all(self.buf).map_err(RunError::Write)?;
        self.buf.clear();
        self.sink.flush().map_err(RunError::Write)
    }
}

/// One strategy's way of holding an open order and building its receipt.
pub(crate) trait Hold {
    /// The open order. It may borrow the strategy; it ends when the order does.
    type Order<'h>
    where
        Self: 'h;

    /// How the strategy scans lines: the fast scanner at full depth, or none.
    type Scanner: Scanner;

    /// Opens order `id`. The engine has already written the blank line before it, if any.
    fn open<'h>(&'h mut self, out: &mut Output<'_>, id: u64) -> Self::Order<'h>;

    /// Adds a checked line to the open order.
    fn add(order: &mut Self::Order<'_>, line: &Line<'_>, out: &mut Output<'_>);

    /// Checks a line the scanner did not accept (UTF-8 and length already checked) with the
    /// reference checker, and adds it if it is good.
    fn add_text(
        order: &mut Self::Order<'_>,
        text: &str,
        out: &mut Output<'_>,
    ) -> Result<Numbers, LineError> {
        let (numbers, item) = line::parse(text)?;
        Self::add(order, &Line::new(item, numbers), out);
        Ok(numbers)
    }

    /// Writes the complete order's receipt. (A rejected order is dropped instead, and the
    /// engine rolls the output back to where the order began.)
    fn finish(order: Self::Order<'_>, summary: Order, out: &mut Output<'_>);
}

/// The state of the open order the engine keeps, whatever the strategy.
#[derive(Debug)]
struct Group {
    /// The order id; `None` for lines before the first readable order id.
    id: Option<u64>,
    total: u64,
    lines: u64,
    /// Whether the order went past [`MAX_ORDER_LINES`].
    over: bool,
}

impl Group {
    fn new(id: Option<u64>) -> Self {
        Self {
            id,
            total: 0,
            lines: 0,
            over: false,
        }
    }
}

/// The buffers a processor keeps from run to run.
#[derive(Debug, Default)]
pub(crate) struct Parts {
    pub items: ItemCache,
    /// The open order's bad line numbers (at most `MAX_ORDER_LINES + 1`).
    pub bad: Vec<u64>,
    pub carry: Vec<u8>,
    pub out: Vec<u8>,
}

/// One run: the line reader, the output, and the accounts.
struct Run<'r, S> {
    lines: Lines<'r, S>,
    out: Output<'r>,
    items: &'r mut ItemCache,
    bad: &'r mut Vec<u64>,
    errors: &'r mut dyn Write,
    summary: Summary,
}

/// Runs strategy `H` over `source`: receipts to `sink`, problems to `errors`.
pub(crate) fn drive<H: Hold, S: Source>(
    hold: &mut H,
    parts: &mut Parts,
    source: S,
    sink: &mut dyn Write,
    errors: &mut dyn Write,
) -> Result<Summary, RunError> {
    parts.bad.clear();
    let mut run = Run {
        lines: Lines::new(source, &mut parts.carry),
        out: Output::new(&mut parts.out, sink),
        items: &mut parts.items,
        bad: &mut parts.bad,
        errors,
        summary: Summary::default(),
    };
    // Lines before the first readable order id: charged to no order, rejected together.
    let mut lead = Group::new(None);
    let mut next = run.next::<H>()?;
    while let Some(first) = next {
        let Some(id) = first.claimed() else {
            run.line::<H>(None, &mut lead, first)?;
            next = run.next::<H>()?;
            continue;
        };
        run.close_lead(&mut lead)?;
        let mark = run.out.open();
        let mut order = hold.open(&mut run.out, id);
        let mut group = Group::new(Some(id));
        let mut rec = first;
        loop {
            run.line::<H>(Some(&mut order), &mut group, rec)?;
            next = run.next::<H>()?;
            // A line with an unreadable id is charged to the order it interrupts.
            match next {
                Some(line) if line.claimed().is_none_or(|c| c == id) => rec = line,
                _ => break,
            }
        }
        run.close::<H>(order, group, mark)?;
    }
    run.close_lead(&mut lead)?;
    run.out.finish()?;
    run.summary.read = run.lines.number;
    run.summary.blank = run.lines.blank;
    Ok(run.summary)
}

impl<S: Source> Run<'_, S> {
    #[inline(always)]
    fn next<H: Hold>(&mut self) -> Result<Option<Rec>, RunError> {
        self.lines
            .next::<H::Scanner>(self.items)
            .map_err(RunError::Read)
    }

    /// Checks one line of the open order (`None`: of the lines before any order) and hands it
    /// to the strategy.
    #[inline(always)]
    fn line<H: Hold>(
        &mut self,
        order: Option<&mut H::Order<'_>>,
        group: &mut Group,
        rec: Rec,
    ) -> Result<(), RunError> {
        group.lines += 1;
        if group.lines > MAX_ORDER_LINES {
            if !group.over {
                group.over = true;
                return self.bad_line(rec.number, LineError::OrderTooLong);
            }
            return Ok(());
        }
        let checked = match (rec.kind, order) {
            (
                Kind::Good {
                    numbers,
                    item,
                    width,
                },
                Some(order),
            ) => {
                let line = Line {
                    item: self.lines.slice(item),
                    width,
                    numbers,
                };
                H::add(order, &line, &mut self.out);
                Ok(numbers)
            }
            (Kind::Raw { span, .. }, Some(order)) => line::text(self.lines.slice(span))
                .and_then(|text| H::add_text(order, text, &mut self.out)),
            (Kind::Raw { span, .. }, None) => line::text(self.lines.slice(span))
                .and_then(line::parse)
                .map(|(numbers, _)| numbers),
            (Kind::TooLong { len, .. }, _) => Err(LineError::TooLong(len)),
            // A scanned line always has a readable id, so it always has an order.
            (Kind::Good { numbers, .. }, None) => Ok(numbers),
        };
        let counted = checked.and_then(|n| {
            group.total = group
                .total
                .checked_add(n.line_total)
                .ok_or(LineError::OrderTotalOverflow)?;
            Ok(())
        });
        match counted {
            Ok(()) => Ok(()),
            Err(reason) => self.bad_line(rec.number, reason),
        }
    }

    fn bad_line(&mut self, number: u64, reason: LineError) -> Result<(), RunError> {
        self.bad.push(number);
        writeln!(self.errors, "line {number}: {reason}").map_err(RunError::Write)
    }

    /// Prints the open order, or rolls it back and rejects it.
    fn close<H: Hold>(
        &mut self,
        order: H::Order<'_>,
        group: Group,
        mark: usize,
    ) -> Result<(), RunError> {
        if self.bad.is_empty() {
            let summary = Order {
                id: group.id.unwrap_or_default(),
                total: group.total,
            };
            H::finish(order, summary, &mut self.out);
            self.out.printed = true;
            self.summary.printed += group.lines;
            self.summary.receipts += 1;
        } else {
            drop(order);
            self.out.buf.truncate(mark);
            self.reject(&group)?;
        }
        self.out.flush_if_full()
    }

    /// Rejects the lines before the first readable order id, if there were any.
    fn close_lead(&mut self, lead: &mut Group) -> Result<(), RunError> {
        if lead.lines > 0 {
            self.reject(lead)?;
            *lead = Group::new(None);
        }
        Ok(())
    }

    fn reject(&mut self, group: &Group) -> Result<(), RunError> {
        let lines = group.lines;
        let plural = if lines == 1 { "" } else { "s" };
        let written = match group.id {
            Some(id) => write!(
                self.errors,
                "order {id} rejected ({lines} line{plural}), bad:"
            ),
            None => write!(
                self.errors,
                "{lines} line{plural} without a readable order id rejected, bad:"
            ),
        };
        written
            .and_then(|()| {
                self.bad
                    .iter()
                    .try_for_each(|n| write!(self.errors, " {n}"))
            })
            .and_then(|()| writeln!(self.errors))
            .map_err(RunError::Write)?;
        self.summary.rejected += lines;
        self.summary.rejected_orders += 1;
        self.bad.clear();
        Ok(())
    }
}
