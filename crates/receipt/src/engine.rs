//! The order logic every strategy shares: grouping lines into orders, checking them, rejecting
//! an order whole, accounting for every line — and the output buffer.
//!
//! The loop reads one order at a time, in a block: the strategy opens the order
//! ([`Hold::open`]), receives its lines, and either finishes it or drops it. The open order may
//! borrow the strategy (the arena strategy's lines live in its arena), and the borrow ends when
//! the block does — so the borrow checker proves that nothing of an order outlives it. It is
//! generic over the strategy, so there is no dynamic call per line. For the streaming
//! strategy, after each line it handles, it runs the fast lane ([`lane`]), which takes the
//! lines after it that it can, and the orders they finish and open, as this loop would.

use std::fmt;
use std::hint::black_box;
use std::io::{self, Write};

use crate::input::{Kind, Lines, Rec, Source, Unclaimed};
use crate::lane::{self, OpenId, SPAN, Sheet};
use crate::line::{self, LineError, MAX_ORDER_LINES, Numbers};
use crate::render::{ByteSink, Line};
use crate::scan::{ItemCache, Scanner};
use crate::{Order, Summary};

/// Receipts are handed to the writer once this many bytes are buffered (and an order is
/// complete): 64 KiB.
pub const FLUSH_BYTES: usize = 64 * 1024;

/// The stream whose failure stopped a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// The input could not be read.
    Input,
    /// The receipts could not be written (a closed pipe, a full disk…).
    Output,
    /// The error report could not be written.
    Report,
}

/// Why a run stopped: reading the input or writing the receipts or the report failed. Bad input
/// never stops a run.
#[derive(Debug)]
pub struct RunError {
    /// The stream that failed.
    pub stream: Stream,
    /// The error it failed with.
    pub error: io::Error,
    /// The lines accounted for when it stopped. An order whose bad line was already reported is
    /// counted as rejected (it would be, whatever followed); the lines of an order still open
    /// and good are counted as read only.
    pub summary: Summary,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let err = &self.error;
        match self.stream {
            Stream::Input => write!(f, "cannot read: {err}"),
            Stream::Output => write!(f, "cannot write: {err}"),
            Stream::Report => write!(f, "cannot write the report: {err}"),
        }
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl From<RunError> for io::Error {
    fn from(err: RunError) -> Self {
        err.error
    }
}

/// A failure inside a run, before the accounts are attached.
type Fail = (Stream, io::Error);

fn output(err: io::Error) -> Fail {
    (Stream::Output, err)
}

fn report(err: io::Error) -> Fail {
    (Stream::Report, err)
}

/// The receipts of complete orders (and the open order's, for the streaming strategy), handed
/// to the writer in blocks of about [`FLUSH_BYTES`].
pub(crate) struct Output<'a> {
    /// The written bytes are `buf[..len]`; the rest of `buf` is room already initialised, kept
    /// from write to write and from run to run, so that a line can be written into it with
    /// plain stores, without growing the vector first. It grows when a writer asks for more
    /// room than it has: by `Vec`'s own rule, at the same points as a vector that held only the
    /// written bytes and was extended by what each writer asks for.
    buf: &'a mut Vec<u8>,
    /// How many bytes of `buf` are written.
    len: usize,
    sink: &'a mut dyn Write,
    /// Where the open order's receipt starts (the end of the written bytes when no order is
    /// open): what is before it is complete.
    start: usize,
    /// Whether a receipt was printed (the next one is preceded by a blank line).
    printed: bool,
}

impl ByteSink for Output<'_> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        self.room(bytes.len());
        self.buf[self.len..end].copy_from_slice(bytes);
        self.len = end;
    }

    #[inline(always)]
    fn put_with<const N: usize>(&mut self, write: impl FnOnce(&mut [u8; N]) -> usize) {
        let window = self.window::<N>();
        window.fill(b' ');
        let used = write(window);
        self.len += used.min(N);
    }
}

impl Sheet for Output<'_> {
    #[inline(always)]
    fn window<const N: usize>(&mut self) -> &mut [u8; N] {
        Output::window(self)
    }

    #[inline(always)]
    fn wrote(&mut self, n: usize) {
        Output::wrote(self, n);
    }

    #[inline(always)]
    fn open(&mut self) {
        Output::open(self);
    }

    #[inline(always)]
    fn close(&mut self) {
        Output::close(self);
    }
}

impl<'a> Output<'a> {
    fn new(buf: &'a mut Vec<u8>, sink: &'a mut dyn Write) -> Self {
        Self {
            buf,
            len: 0,
            sink,
            start: 0,
            printed: false,
        }
    }

    /// Makes sure `n` bytes of room follow the written ones.
    #[inline(always)]
    fn room(&mut self, n: usize) {
        if self.buf.len() - self.len < n {
            self.buf.resize(self.len + n, 0);
        }
    }

    /// The `N` bytes after the written ones (not cleared: they hold whatever was there), for a
    /// writer that then says how many it wrote ([`Output::wrote`]).
    #[inline(always)]
    pub(crate) fn window<const N: usize>(&mut self) -> &mut [u8; N] {
        self.room(N);
        let at = self.len;
        let Some(window) = self.buf.get_mut(at..at + N) else {
            unreachable!("room() made N bytes of room after the written ones")
        };
        window
            .try_into()
            .unwrap_or_else(|_| unreachable!("a slice of N bytes"))
    }

    /// The first `n` bytes of the last window are written.
    #[inline(always)]
    pub(crate) fn wrote(&mut self, n: usize) {
        self.len += n;
    }

    /// Starts a receipt (the blank line between receipts).
    #[inline(always)]
    pub(crate) fn open(&mut self) {
        self.start = self.len;
        if self.printed {
            self.put(b"\n");
        }
    }

    /// The open receipt is complete.
    #[inline(always)]
    pub(crate) fn close(&mut self) {
        self.printed = true;
        self.start = self.len;
    }

    /// Drops the open receipt.
    fn roll_back(&mut self) {
        self.len = self.start;
    }

    /// Hands the buffer to the writer if it is full enough (no order is open).
    #[inline(always)]
    pub(crate) fn flush_if_full(&mut self) -> io::Result<()> {
        if self.len >= FLUSH_BYTES {
            self.sink.write_all(&self.buf[..self.len])?;
            self.len = 0;
            self.start = 0;
        }
        Ok(())
    }

    /// Hands every complete receipt to the writer and flushes it, keeping the open one.
    fn flush_complete(&mut self) -> io::Result<()> {
        if self.start > 0 {
            self.sink.write_all(&self.buf[..self.start])?;
            self.buf.copy_within(self.start..self.len, 0);
            self.len -= self.start;
            self.start = 0;
        }
        self.sink.flush()
    }

    /// Hands everything to the writer and flushes it.
    fn finish(&mut self) -> io::Result<()> {
        self.sink.write_all(&self.buf[..self.len])?;
        self.len = 0;
        self.start = 0;
        self.sink.flush()
    }
}

/// The proof a strategy's scanner gives that it accepted a line.
pub(crate) type Proof<H> = <<H as Hold>::Scanner as Scanner>::Accepted;

/// One strategy's way of holding an open order and building its receipt.
pub(crate) trait Hold {
    /// The open order. It may borrow the strategy; it ends when the order does.
    type Order<'h>
    where
        Self: 'h;

    /// How the strategy scans lines: the fast scanner at full depth, or none.
    type Scanner: Scanner;

    /// Whether the engine runs the fast lane ([`lane`](crate::lane)) after each line this
    /// strategy is handed: only for a strategy whose open order is nothing but its receipt text
    /// in the output buffer, opened by [`render::header`](crate::render::header) and finished by
    /// [`render::total_line`](crate::render::total_line), since the lane opens and finishes
    /// orders itself, writing the same bytes.
    const LANE: bool = false;

    /// Opens order `id`. The engine has already written the blank line before it, if any.
    fn open<'h>(&'h mut self, out: &mut Output<'_>, id: u64) -> Self::Order<'h>;

    /// Adds a line the scanner accepted to the open order; `accepted` is the scanner's proof, so
    /// a strategy without a scanner is never called here (its proof has no values).
    fn add(
        order: &mut Self::Order<'_>,
        line: &Line<'_>,
        accepted: Proof<Self>,
        out: &mut Output<'_>,
    );

    /// Checks a line the scanner did not accept (UTF-8 and length already checked) and adds it
    /// if it is good; returns its numbers, or why it is bad.
    fn add_text(
        order: &mut Self::Order<'_>,
        text: &str,
        out: &mut Output<'_>,
    ) -> Result<Numbers, LineError>;

    /// Writes the complete order's receipt. (A rejected order is dropped instead, and the
    /// engine rolls the output back to where the order began.)
    fn finish(order: Self::Order<'_>, summary: Order, out: &mut Output<'_>);
}

/// The lines of the open order the engine keeps, whatever the strategy: an order, or, before
/// the first readable order id, the lines that have none.
#[derive(Debug)]
struct Group {
    /// The order id; `None` for lines before the first readable order id.
    id: Option<u64>,
    total: u64,
    lines: u64,
}

impl Group {
    fn new(id: Option<u64>) -> Self {
        Self {
            id,
            total: 0,
            lines: 0,
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
    /// The bad lines of the open group.
    bad: &'r mut Vec<u64>,
    errors: &'r mut dyn Write,
    /// The lines of the group that was open when a stream failed.
    open_lines: u64,
    summary: Summary,
}

/// Runs strategy `H` over `source`: receipts to `sink`, problems to `errors`. `COPY` makes two
/// copies of the whole loop (0 and 1) for the timed tables' twins; everything else uses 0.
#[inline(never)]
pub(crate) fn drive<H: Hold, S: Source, const COPY: u8>(
    hold: &mut H,
    parts: &mut Parts,
    source: S,
    sink: &mut dyn Write,
    errors: &mut dyn Write,
) -> Result<Summary, RunError> {
    black_box(COPY);
    parts.bad.clear();
    let mut run = Run {
        lines: Lines::new(source, &mut parts.carry),
        out: Output::new(&mut parts.out, sink),
        items: &mut parts.items,
        bad: &mut parts.bad,
        errors,
        open_lines: 0,
        summary: Summary::default(),
    };
    let result = run.orders(hold);
    let summary = run.accounts();
    result
        .map(|()| summary)
        .map_err(|(stream, error)| RunError {
            stream,
            error,
            summary,
        })
}

impl<S: Source> Run<'_, S> {
    /// Every order of the input, then the output handed on. The open group is a local of this
    /// loop, kept in registers; if a stream fails, its line count is kept for the accounts.
    fn orders<H: Hold>(&mut self, hold: &mut H) -> Result<(), Fail> {
        let mut group = Group::new(None);
        let result = self.groups(hold, &mut group);
        if result.is_err() {
            self.open_lines = group.lines;
        }
        result
    }

    #[inline(always)]
    fn groups<H: Hold>(&mut self, hold: &mut H, group: &mut Group) -> Result<(), Fail> {
        let mut next = self.next::<H>()?;
        while let Some(first) = next {
            let id = match first.order() {
                Ok(id) => id,
                Err(unclaimed) => {
                    // Before the first order: charged to no order, rejected together.
                    self.unclaimed_line(group, first.number, unclaimed)?;
                    next = self.next::<H>()?;
                    continue;
                }
            };
            self.close_lead(group)?;
            *group = Group::new(Some(id));
            self.out.open();
            let mut order = hold.open(&mut self.out, id);
            let mut rec = first;
            let mut id = id;
            loop {
                self.line::<H>(&mut order, group, rec)?;
                if H::LANE {
                    // The lane takes the lines after this one that it can, and may open other
                    // orders on the way: `id` is the one open when it leaves.
                    self.lane(group, &mut id)?;
                }
                next = self.next::<H>()?;
                // A line whose order id cannot be read is charged to the open order: the one
                // before it, even when it follows that order's last line.
                match next {
                    Some(line) if line.order().ok().is_none_or(|claimed| claimed == id) => {
                        rec = line
                    }
                    _ => break,
                }
            }
            self.close::<H>(order, group, id)?;
        }
        self.close_lead(group)?;
        self.out.finish().map_err(output)
    }

    /// The accounts so far: at the end of the input, or where a stream failed.
    fn accounts(&self) -> Summary {
        let mut summary = self.summary;
        summary.read = self.lines.number;
        summary.blank = self.lines.blank;
        if !self.bad.is_empty() {
            // The open group has a reported bad line: it is rejected, whatever follows.
            summary.rejected += self.open_lines;
            summary.rejected_orders += 1;
        }
        summary
    }

    /// The next line. When the chunk is used up and the next read may wait for a writer, the
    /// complete receipts and the report are handed on first, so a reader of a slow pipe sees
    /// every receipt as soon as the order after it begins. At the end of the input, a last line
    /// without a line ending is reported (after its own problems, before its order's verdict).
    #[inline(always)]
    fn next<H: Hold>(&mut self) -> Result<Option<Rec<Proof<H>>>, Fail> {
        let (out, errors) = (&mut self.out, &mut self.errors);
        let mut hand_on = || {
            out.flush_complete().map_err(output)?;
            errors.flush().map_err(report)
        };
        let next = self
            .lines
            .next::<H::Scanner, _>(self.items, &mut hand_on, |err| (Stream::Input, err))?;
        if next.is_none()
            && let Some(number) = self.lines.unterminated.take()
        {
            writeln!(self.errors, "line {number}: {}", line::NO_LINE_ENDING).map_err(report)?;
        }
        Ok(next)
    }

    /// Counts one more line in the open group; whether it is to be checked. The line that goes
    /// past [`MAX_ORDER_LINES`] is reported; the ones after it are only counted.
    #[inline(always)]
    fn within_bound(&mut self, group: &mut Group, number: u64) -> Result<bool, Fail> {
        group.lines += 1;
        if group.lines <= MAX_ORDER_LINES {
            return Ok(true);
        }
        if group.lines == MAX_ORDER_LINES + 1 {
            self.bad_line(number, LineError::OrderTooLong)?;
        }
        Ok(false)
    }

    /// Checks one line of the open order and hands it to the strategy.
    #[inline(always)]
    fn line<H: Hold>(
        &mut self,
        order: &mut H::Order<'_>,
        group: &mut Group,
        rec: Rec<Proof<H>>,
    ) -> Result<(), Fail> {
        if !self.within_bound(group, rec.number)? {
            return Ok(());
        }
        let checked = match rec.kind {
            Kind::Good {
                numbers,
                item,
                width,
                accepted,
            } => {
                let line = Line {
                    item: self.lines.slice(item),
                    width,
                    numbers,
                };
                H::add(order, &line, accepted, &mut self.out);
                Ok(numbers)
            }
            Kind::Raw { span, .. } => line::text(self.lines.slice(span))
                .and_then(|text| H::add_text(order, text, &mut self.out)),
            Kind::TooLong { len, .. } => Err(LineError::TooLong(len)),
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

    /// Reports a line whose order id cannot be read, before the first order.
    fn unclaimed_line(
        &mut self,
        group: &mut Group,
        number: u64,
        unclaimed: Unclaimed,
    ) -> Result<(), Fail> {
        if !self.within_bound(group, number)? {
            return Ok(());
        }
        let reason = match unclaimed {
            // The reference checker names the first thing wrong with the line; if it found
            // nothing, what is wrong is what made the line unclaimed: its order id.
            Unclaimed::Raw(span) => line::text(self.lines.slice(span))
                .and_then(line::parse)
                .err()
                .unwrap_or(LineError::BadOrderId),
            Unclaimed::TooLong(len) => LineError::TooLong(len),
        };
        self.bad_line(number, reason)
    }

    /// The fast lane, for a strategy that allows it ([`Hold::LANE`]): the lines after the one
    /// just handled that the lane takes ([`lane`]), each checked, counted and written as
    /// [`Run::line`] would, with the orders they finish and open as [`Run::close`] and
    /// [`Run::groups`] would; `id` is the open order's id, before and after. It stops at the
    /// first line it does not take, which the reader then reads.
    #[inline(always)]
    fn lane(&mut self, group: &mut Group, id: &mut u64) -> Result<(), Fail> {
        if !self.bad.is_empty() {
            // The order is rejected: its receipt is not written.
            return Ok(());
        }
        let Some((data, start)) = self.lines.unread() else {
            return Ok(());
        };
        let mut progress = lane::Progress {
            open: OpenId::new(*id),
            lines: group.lines,
            total: group.total,
            at: start,
            printed: 0,
            receipts: 0,
        };
        let result = loop {
            let mut receipts = lane::Receipts {
                buf: &mut self.out.buf[..],
                len: self.out.len,
                start: self.out.start,
                printed: self.out.printed,
            };
            let stop = lane::run(data, &mut progress, &mut receipts, self.items);
            self.out.len = receipts.len;
            self.out.start = receipts.start;
            self.out.printed = receipts.printed;
            let lane::Stop::Careful(read) = stop else {
                break Ok(());
            };
            // This line on the output itself, which grows as the renderer's windows make it
            // grow, and hands the receipts on between the two orders if they are enough.
            let Some(line) = data[progress.at..].first_chunk::<SPAN>() else {
                unreachable!("`run` read this line");
            };
            if let Some(next) = read.new_order {
                lane::finish_order(&mut self.out, &mut progress);
                if let Err(err) = self.out.flush_if_full() {
                    // As in the order loop, the line that ended the order was read: it is
                    // counted as the one line of the order it opens.
                    progress.lines = 1;
                    break Err(output(err));
                }
                lane::start_order(&mut self.out, &mut progress, next);
            }
            lane::item_line(&mut self.out, line, &read);
            progress.took(&read);
        };
        let taken = progress.printed + progress.lines - group.lines;
        self.lines.took(progress.at, taken);
        self.summary.printed += progress.printed;
        self.summary.receipts += progress.receipts;
        *group = Group {
            id: Some(progress.open.id),
            total: progress.total,
            lines: progress.lines,
        };
        *id = progress.open.id;
        result
    }

    fn bad_line(&mut self, number: u64, reason: LineError) -> Result<(), Fail> {
        self.bad.push(number);
        writeln!(self.errors, "line {number}: {reason}").map_err(report)
    }

    /// Prints the open order, or rolls it back and rejects it.
    fn close<H: Hold>(
        &mut self,
        order: H::Order<'_>,
        group: &mut Group,
        id: u64,
    ) -> Result<(), Fail> {
        if self.bad.is_empty() {
            let total = group.total;
            H::finish(order, Order { id, total }, &mut self.out);
            self.out.close();
            self.summary.printed += group.lines;
            self.summary.receipts += 1;
        } else {
            drop(order);
            self.out.roll_back();
            self.reject(group)?;
        }
        *group = Group::new(None);
        self.out.flush_if_full().map_err(output)
    }

    /// Rejects the lines before the first readable order id, if there were any.
    fn close_lead(&mut self, group: &mut Group) -> Result<(), Fail> {
        if group.id.is_none() && group.lines > 0 {
            self.reject(group)?;
            *group = Group::new(None);
        }
        Ok(())
    }

    /// Rejects the open group and names its bad lines.
    fn reject(&mut self, group: &Group) -> Result<(), Fail> {
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
            .map_err(report)?;
        self.summary.rejected += lines;
        self.summary.rejected_orders += 1;
        self.bad.clear();
        Ok(())
    }
}
