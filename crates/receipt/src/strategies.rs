//! The six strategies: where each one keeps the open order and builds its receipt. The order
//! logic, the line reader and the renderer are shared (`engine`, `input`, `render`); what
//! differs is only where the bytes live — and, for `naive` and `naive-reuse`, how a line is
//! read and its receipt written: the newcomer's way, which the other four do not share.

use bumpalo::Bump;
use pool::{BufferPool, RentedBuf};
use smallvec::SmallVec;

use crate::Order;
use crate::engine::{Hold, Output};
use crate::line::{self, LineError, Numbers};
use crate::render::{self, ByteSink, Line, NaivePieces};
use crate::scan::{self, Accepted, Depth, Never, NoScan};

/// The fast scanner at full depth.
type Full = Depth<{ scan::WIDTH }>;

/// A line's numbers once it is checked, or why it is bad.
type Checked = Result<Numbers, LineError>;

/// The `add_text` of a strategy with the fast scanner: the reference checker's acceptance is as
/// good a proof as the scanner's.
fn add_checked<H: Hold<Scanner = Full>>(
    order: &mut H::Order<'_>,
    text: &str,
    out: &mut Output<'_>,
) -> Checked {
    let (numbers, item) = line::parse(text)?;
    H::add(order, &Line::new(item, numbers), Accepted::CHECKED, out);
    Ok(numbers)
}

/// The stack strategy's open order: its receipt text, inline up to [`STACK_ORDER_BYTES`].
type InlineText = SmallVec<[u8; STACK_ORDER_BYTES]>;

/// The newcomer's version: every line read as text and split into `String`s, the order kept
/// as a `Vec` of its item names and numbers, `format!` per receipt line.
#[derive(Debug, Default)]
pub(crate) struct Naive {
    lines: Vec<(String, Numbers)>,
}

impl Hold for Naive {
    type Order<'h> = &'h mut Naive;
    /// The newcomer reads every line as text: no fast scanner, so no line arrives scanned.
    type Scanner = NoScan;

    fn open(&mut self, _: &mut Output<'_>, _: u64) -> &mut Naive {
        self.lines.clear();
        self
    }

    fn add(_: &mut &mut Naive, _: &Line<'_>, accepted: Never, _: &mut Output<'_>) {
        match accepted {}
    }

    fn add_text(order: &mut &mut Naive, text: &str, _: &mut Output<'_>) -> Checked {
        let fields: Vec<String> = text.split('|').map(String::from).collect();
        if fields.len() != 4 {
            return Err(LineError::FieldCount(fields.len()));
        }
        let numbers = line::check_fields(&fields[0], &fields[1], &fields[2], &fields[3])?;
        let item = fields.into_iter().nth(1).unwrap_or_default();
        order.lines.push((item, numbers));
        Ok(numbers)
    }

    fn finish(order: &mut Naive, summary: Order, out: &mut Output<'_>) {
        let mut receipt = render::header_naive(summary.id);
        for (item, n) in order.lines.drain(..) {
            receipt += &render::item_line_naive(&item, n.qty, n.unit_price, n.line_total);
        }
        receipt += &render::total_line_naive(summary.total);
        out.put(receipt.as_bytes());
    }
}

/// The newcomer's program with its buffers kept: [`Naive`]'s reading and formatting, line for
/// line — the split into a `String` per field, the reference checker on those `String`s, the
/// order kept as item names and numbers, each receipt line formatted in the same formats — but
/// every `String` is kept from line to line and cleared before it is written again (`write!`
/// instead of `format!`), so what it does not do that `naive` does is allocate. The item field
/// is split straight into the order's next line, so it is copied once, as `naive` copies it
/// once (into a new `String`, which it then moves into the order).
#[derive(Debug, Default)]
pub(crate) struct NaiveReuse {
    /// The fields of the line being read but its item, in order; a line of more fields than any
    /// before adds `String`s.
    fields: Vec<String>,
    /// The open order's lines are the first `open`; the rest are kept for their `String`s.
    lines: Vec<(String, Numbers)>,
    open: usize,
    pieces: NaivePieces,
}

impl Hold for NaiveReuse {
    type Order<'h> = &'h mut NaiveReuse;
    /// Read as `naive` reads: no fast scanner, so no line arrives scanned.
    type Scanner = NoScan;

    fn open(&mut self, _: &mut Output<'_>, _: u64) -> &mut NaiveReuse {
        self.open = 0;
        self
    }

    fn add(_: &mut &mut NaiveReuse, _: &Line<'_>, accepted: Never, _: &mut Output<'_>) {
        match accepted {}
    }

    fn add_text(order: &mut &mut NaiveReuse, text: &str, _: &mut Output<'_>) -> Checked {
        let NaiveReuse {
            fields,
            lines,
            open,
            ..
        } = &mut **order;
        if *open == lines.len() {
            lines.push((String::new(), Numbers::default()));
        }
        let (item, kept) = &mut lines[*open];
        let mut found = 0;
        for field in text.split('|') {
            // Field 1 is the item; the others are `fields[0]`, `fields[1]`, … in order, so a
            // field not kept yet is the next one to push.
            let into = match found {
                1 => Some(&mut *item),
                0 => fields.get_mut(0),
                n => fields.get_mut(n - 1),
            };
            match into {
                Some(into) => {
                    into.clear();
                    into.push_str(field);
                }
                None => fields.push(String::from(field)),
            }
            found += 1;
        }
        if found != 4 {
            return Err(LineError::FieldCount(found));
        }
        *kept = line::check_fields(&fields[0], item, &fields[1], &fields[2])?;
        *open += 1;
        Ok(*kept)
    }

    fn finish(order: &mut NaiveReuse, summary: Order, out: &mut Output<'_>) {
        let NaiveReuse {
            lines,
            open,
            pieces,
            ..
        } = order;
        pieces.header(summary.id);
        for (item, n) in &lines[..*open] {
            pieces.item_line(item, n.qty, n.unit_price, n.line_total);
        }
        pieces.total_line(summary.total);
        *open = 0;
        out.put(pieces.receipt().as_bytes());
    }
}

/// What the pooled strategy rents first for an order's receipt: 1 KiB, enough for a dozen
/// lines. A longer receipt's buffer moves to the bucket of the length it needs (a power of two)
/// and gives the smaller buffer back ([`RentedBuf`]'s growth rule).
pub const POOLED_FIRST_RENT: usize = 1024;

/// Each order's receipt text in a buffer rented from a pool when the order opens and given
/// back when it ends (chapter 3): its own pool, or the process-wide `pool::shared()`.
#[derive(Debug, Default)]
pub(crate) struct Pooled {
    /// Boxed: a pool is a few hundred bytes, the other strategies' state a few words.
    pub own: Option<Box<BufferPool<u8>>>,
}

impl Pooled {
    pub(crate) fn pool(&self) -> &BufferPool<u8> {
        self.own.as_deref().unwrap_or_else(|| pool::shared())
    }
}

/// An order's receipt text in the pool's writable buffer: the guard borrows the pool, so the
/// order cannot outlive it, and dropping the order gives the buffer back.
impl ByteSink for RentedBuf<'_, u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

impl Hold for Pooled {
    type Order<'h> = RentedBuf<'h, u8>;
    type Scanner = Full;

    fn open(&mut self, _: &mut Output<'_>, id: u64) -> RentedBuf<'_, u8> {
        let mut text = self.pool().rent_buf(POOLED_FIRST_RENT);
        render::header(&mut text, id);
        text
    }

    fn add(order: &mut RentedBuf<'_, u8>, line: &Line<'_>, _: Accepted, _: &mut Output<'_>) {
        render::item_line(order, line);
    }

    fn add_text(order: &mut RentedBuf<'_, u8>, text: &str, out: &mut Output<'_>) -> Checked {
        add_checked::<Self>(order, text, out)
    }

    fn finish(mut order: RentedBuf<'_, u8>, summary: Order, out: &mut Output<'_>) {
        render::total_line(&mut order, summary.total);
        out.put(&order);
    }
}

/// The receipt text the stack strategy holds inline: 1 KiB, a receipt of about a dozen lines.
pub const STACK_ORDER_BYTES: usize = 1024;

/// Each order's receipt text in a `SmallVec<[u8; STACK_ORDER_BYTES]>` that lives in the
/// engine's stack frame while the order is open (chapter 2's hybrid): on the stack up to
/// 1 KiB, moved to the heap beyond. Its inline array is not zeroed — `SmallVec` keeps it as
/// `MaybeUninit` and tracks the length — so a line costs the bytes written, not 1 KiB of
/// zeroes. The strategy itself holds nothing between orders.
#[derive(Debug, Default)]
pub(crate) struct Stack;

impl Hold for Stack {
    type Order<'h> = InlineText;
    type Scanner = Full;

    fn open(&mut self, _: &mut Output<'_>, id: u64) -> InlineText {
        let mut text = SmallVec::new();
        render::header(&mut text, id);
        text
    }

    fn add(order: &mut InlineText, line: &Line<'_>, _: Accepted, _: &mut Output<'_>) {
        render::item_line(order, line);
    }

    fn add_text(order: &mut InlineText, text: &str, out: &mut Output<'_>) -> Checked {
        add_checked::<Self>(order, text, out)
    }

    fn finish(mut order: InlineText, summary: Order, out: &mut Output<'_>) {
        render::total_line(&mut order, summary.total);
        out.put(&order);
    }
}

/// Each order's lines kept in a `bumpalo` arena — the item names copied in, the lines in a
/// vector allocated there too — and the receipt rendered from them when the order is
/// complete (chapter 4).
///
/// The arena holds one order because an order is what lives and dies together: its lines are
/// needed until its total is known, and none of them after. Resetting frees all of them at
/// once and keeps the arena's memory for the next order, so after the first orders nothing is
/// allocated. `Bump::reset` takes `&mut self`, and an open order borrows the arena, so the
/// reset compiles only where no order is open: at the start of [`Hold::open`], after the
/// previous order was finished or dropped. Resetting while a line still points into the arena
/// would be a compile error, not a use after free.
#[derive(Debug, Default)]
pub(crate) struct Arena {
    bump: Bump,
}

/// An open order of the arena strategy: its lines, in the arena.
#[derive(Debug)]
pub(crate) struct ArenaOrder<'h> {
    bump: &'h Bump,
    lines: bumpalo::collections::Vec<'h, Line<'h>>,
}

impl Hold for Arena {
    type Order<'h> = ArenaOrder<'h>;
    type Scanner = Full;

    fn open(&mut self, _: &mut Output<'_>, _: u64) -> ArenaOrder<'_> {
        self.bump.reset();
        ArenaOrder {
            bump: &self.bump,
            lines: bumpalo::collections::Vec::new_in(&self.bump),
        }
    }

    fn add(order: &mut ArenaOrder<'_>, line: &Line<'_>, _: Accepted, _: &mut Output<'_>) {
        let item = order.bump.alloc_slice_copy(line.item);
        order.lines.push(Line { item, ..*line });
    }

    fn add_text(order: &mut ArenaOrder<'_>, text: &str, out: &mut Output<'_>) -> Checked {
        add_checked::<Self>(order, text, out)
    }

    fn finish(order: ArenaOrder<'_>, summary: Order, out: &mut Output<'_>) {
        render::receipt(out, summary, order.lines.iter().copied());
    }
}

/// Renders each line straight into the output buffer as it is read: nothing is kept per line,
/// and a rejected order is rolled back by truncating the buffer to where it began. Most lines
/// never reach `add`: the fast lane reads and writes them ([`Hold::LANE`]).
#[derive(Debug, Default)]
pub(crate) struct Streaming;

impl Hold for Streaming {
    type Order<'h> = ();
    type Scanner = Full;
    const LANE: bool = true;

    fn open(&mut self, out: &mut Output<'_>, id: u64) {
        render::header(out, id);
    }

    #[inline(always)]
    fn add(_: &mut (), line: &Line<'_>, _: Accepted, out: &mut Output<'_>) {
        render::item_line(out, line);
    }

    fn add_text(order: &mut (), text: &str, out: &mut Output<'_>) -> Checked {
        add_checked::<Self>(order, text, out)
    }

    fn finish(_: (), summary: Order, out: &mut Output<'_>) {
        render::total_line(out, summary.total);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// R2: the stack strategy's open order is a value at least as large as its inline buffer,
    /// so every move of it (out of `open`, into `finish`) copies more than 1 KiB.
    #[test]
    fn the_stack_strategys_open_order_carries_its_inline_buffer_when_moved() {
        let size = std::mem::size_of::<<Stack as Hold>::Order<'static>>();
        assert!(size > STACK_ORDER_BYTES, "{size} bytes");
    }
}
