#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod bounds;
pub mod contract;
mod engine;
pub mod generate;
pub mod input;
mod lane;
pub mod line;
pub mod render;
pub mod scan;
mod strategies;
// The one door for measuring code: a timed table's twin must run a second machine-code copy of
// the order loop and of the line reader, which are private, so the copies are made here, behind
// the `twins` feature that only the chapter's measuring package turns on.
#[cfg(feature = "twins")]
#[doc(hidden)]
pub mod twins;

use std::fmt;
use std::io::{Read, Write};
use std::str::FromStr;

use pool::BufferPool;

pub use crate::engine::{FLUSH_BYTES, RunError, Stream};
use crate::engine::{Parts, drive};
use crate::input::{Reads, Slices, Source};
use crate::strategies::{Arena, Naive, NaiveReuse, Pooled, Stack, Streaming};
pub use crate::strategies::{POOLED_FIRST_RENT, STACK_ORDER_BYTES};

/// How the hot path holds the open order and builds its output. Every strategy prints the same
/// bytes, whatever the chunk size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Each line split into `String`s, the order kept as a `Vec` of them, `format!` per receipt
    /// line: the newcomer's program.
    Naive,
    /// `Naive`'s program, reading and formatting alike, with every `String` and the receipt kept
    /// and cleared instead of made anew (`write!` instead of `format!`): it differs from `Naive`
    /// in allocating nothing once warm, and from the four below in the newcomer's parser and
    /// formatting.
    NaiveReuse,
    /// The order's receipt text in a buffer rented from a pool when the order opens, given
    /// back when it ends (chapter 3).
    Pooled,
    /// The order's receipt text in a `SmallVec` on the stack, spilling to the heap beyond
    /// [`STACK_ORDER_BYTES`] (chapter 2).
    Stack,
    /// The order's lines (item names copied in) in a `bumpalo` arena reset for every order,
    /// the receipt rendered from them when the order is complete (chapter 4).
    Arena,
    /// Each line rendered straight into the output buffer as it is read; a rejected order is
    /// rolled back by truncating the buffer.
    Streaming,
}

/// Every strategy, in the chapter's order.
pub const STRATEGIES: [Strategy; 6] = [
    Strategy::Naive,
    Strategy::NaiveReuse,
    Strategy::Pooled,
    Strategy::Stack,
    Strategy::Arena,
    Strategy::Streaming,
];

impl Strategy {
    /// Every strategy's name, in the chapter's order, joined by `separator`.
    pub fn names(separator: &str) -> String {
        STRATEGIES.map(Strategy::name).join(separator)
    }

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Naive => "naive",
            Strategy::NaiveReuse => "naive-reuse",
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

impl Strategy {
    /// The strategy called `name` on the command line (any bytes: an argument need not be
    /// UTF-8).
    ///
    /// # Errors
    /// For any other name: a message that shows it escaped ([`line::escape`]) and lists the
    /// strategies.
    pub fn from_name(name: &[u8]) -> Result<Self, String> {
        STRATEGIES
            .into_iter()
            .find(|strategy| strategy.name().as_bytes() == name)
            .ok_or_else(|| {
                let [others @ .., last] = STRATEGIES.map(Strategy::name);
                format!(
                    "unknown strategy `{}` (expected {} or {last})",
                    line::escape(name),
                    others.join(", ")
                )
            })
    }
}

impl FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::from_name(s.as_bytes())
    }
}

/// A complete order, as its receipt needs it: the one source of its id and total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Order {
    /// The order id.
    pub id: u64,
    /// The sum of its line totals, in satang.
    pub total: u64,
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

/// `n` and the noun, plural unless `n` is 1.
fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} read: {} printed in {}, {} rejected in {}, {} blank",
            counted(self.read, "line"),
            self.printed,
            counted(self.receipts, "receipt"),
            self.rejected,
            counted(self.rejected_orders, "order"),
            self.blank
        )
    }
}

/// The default chunk size: the input is read, and handed to the line reader, 64 KiB at a time.
pub const CHUNK_SIZE: usize = 64 * 1024;

/// The largest buffer a reader is read into, whatever the chunk size (1 MiB): a processor
/// allocates it, so a chunk size meant for in-memory input (which is not copied) cannot make it
/// allocate more.
pub const MAX_READ: usize = 1 << 20;

/// One strategy's state between orders.
#[derive(Debug)]
enum Holds {
    Naive(Naive),
    NaiveReuse(NaiveReuse),
    Pooled(Pooled),
    Stack(Stack),
    Arena(Arena),
    Streaming(Streaming),
}

/// Processes order files with one strategy, keeping its buffers from run to run (so a warm
/// processor allocates nothing per line, and nothing per run either).
///
/// A processor streams: it holds one input chunk ([`CHUNK_SIZE`] unless set otherwise), the
/// output buffer (about [`FLUSH_BYTES`]), the line cut by the end of a chunk and the open order
/// (at most [`line::MAX_ORDER_LINES`] lines of at most [`line::MAX_LINE`] bytes) — never the
/// whole input.
#[derive(Debug)]
pub struct Processor {
    holds: Holds,
    parts: Parts,
    /// The buffer [`Processor::run_reader`] reads into.
    chunk: Vec<u8>,
    chunk_size: usize,
}

impl Clone for Processor {
    /// A new processor with the same strategy and chunk size (and, for a pooled processor with
    /// its own pool, a new pool with the same configuration): buffers are not copied, they are
    /// warmed again.
    fn clone(&self) -> Self {
        let holds = match &self.holds {
            Holds::Pooled(Pooled { own: Some(pool) }) => Holds::Pooled(Pooled {
                own: Some(Box::new(BufferPool::new(*pool.config()))),
            }),
            other => Self::holds(other.strategy()),
        };
        Self::with_holds(holds).with_chunk_size(self.chunk_size)
    }
}

impl Holds {
    fn strategy(&self) -> Strategy {
        match self {
            Holds::Naive(_) => Strategy::Naive,
            Holds::NaiveReuse(_) => Strategy::NaiveReuse,
            Holds::Pooled(_) => Strategy::Pooled,
            Holds::Stack(_) => Strategy::Stack,
            Holds::Arena(_) => Strategy::Arena,
            Holds::Streaming(_) => Strategy::Streaming,
        }
    }
}

impl Processor {
    /// A processor for `strategy` (the pooled one rents from `pool::shared()`).
    pub fn new(strategy: Strategy) -> Self {
        Self::with_holds(Self::holds(strategy))
    }

    /// A pooled processor that rents from its own `pool` rather than the process-wide one, so
    /// what it allocates does not depend on who used the shared pool before.
    pub fn with_pool(pool: BufferPool<u8>) -> Self {
        Self::with_holds(Holds::Pooled(Pooled {
            own: Some(Box::new(pool)),
        }))
    }

    fn holds(strategy: Strategy) -> Holds {
        match strategy {
            Strategy::Naive => Holds::Naive(Naive::default()),
            Strategy::NaiveReuse => Holds::NaiveReuse(NaiveReuse::default()),
            Strategy::Pooled => Holds::Pooled(Pooled::default()),
            Strategy::Stack => Holds::Stack(Stack),
            Strategy::Arena => Holds::Arena(Arena::default()),
            Strategy::Streaming => Holds::Streaming(Streaming),
        }
    }

    fn with_holds(holds: Holds) -> Self {
        Self {
            holds,
            parts: Parts::default(),
            chunk: Vec::new(),
            chunk_size: CHUNK_SIZE,
        }
    }

    /// The same processor, reading `bytes` at a time: at least 1, and from a reader at most
    /// [`MAX_READ`]. The output does not depend on it; tests use tiny chunks to cut lines
    /// everywhere.
    pub fn with_chunk_size(mut self, bytes: usize) -> Self {
        self.chunk_size = bytes.max(1);
        self
    }

    /// Its strategy.
    pub fn strategy(&self) -> Strategy {
        self.holds.strategy()
    }

    /// The pool a pooled processor rents from (its own, or `pool::shared()`).
    pub fn pool(&self) -> Option<&BufferPool<u8>> {
        match &self.holds {
            Holds::Pooled(pooled) => Some(pooled.pool()),
            _ => None,
        }
    }

    /// Reads `input` (in chunks, without copying it), writes receipts to `out` and problems to
    /// `errors`, and accounts for every line. A failed write stops the run; bad input never
    /// does.
    ///
    /// # Errors
    /// If writing to `out` or `errors` fails; the error holds the accounts so far.
    pub fn run(
        &mut self,
        input: &[u8],
        out: &mut dyn Write,
        errors: &mut dyn Write,
    ) -> Result<Summary, RunError> {
        self.run_copy::<0>(input, out, errors)
    }

    /// [`Processor::run`] through copy `COPY` (0 or 1) of the order loop: a timed table measures
    /// a twin on a copy of its own (`twins::run`, with the `twins` feature).
    pub(crate) fn run_copy<const COPY: u8>(
        &mut self,
        input: &[u8],
        out: &mut dyn Write,
        errors: &mut dyn Write,
    ) -> Result<Summary, RunError> {
        let source = Slices::new(input, self.chunk_size);
        dispatch::<_, COPY>(&mut self.holds, &mut self.parts, source, out, errors)
    }

    /// Like [`Processor::run`], reading `input` one chunk at a time into a buffer kept from
    /// run to run. Before each read after the first, the receipts already complete and the
    /// problems already found are handed to `out` and `errors` and flushed: a read from a pipe
    /// may wait, and what is complete should not wait with it.
    ///
    /// # Errors
    /// If reading `input` or writing to `out` or `errors` fails; the error holds the accounts
    /// so far.
    pub fn run_reader(
        &mut self,
        input: &mut dyn Read,
        out: &mut dyn Write,
        errors: &mut dyn Write,
    ) -> Result<Summary, RunError> {
        let source = Reads::new(input, &mut self.chunk, self.chunk_size);
        dispatch::<_, 0>(&mut self.holds, &mut self.parts, source, out, errors)
    }
}

/// Runs the processor's strategy: one match per run, then a loop monomorphised per strategy.
fn dispatch<S: Source, const COPY: u8>(
    holds: &mut Holds,
    parts: &mut Parts,
    source: S,
    out: &mut dyn Write,
    errors: &mut dyn Write,
) -> Result<Summary, RunError> {
    match holds {
        Holds::Naive(h) => drive::<_, _, COPY>(h, parts, source, out, errors),
        Holds::NaiveReuse(h) => drive::<_, _, COPY>(h, parts, source, out, errors),
        Holds::Pooled(h) => drive::<_, _, COPY>(h, parts, source, out, errors),
        Holds::Stack(h) => drive::<_, _, COPY>(h, parts, source, out, errors),
        Holds::Arena(h) => drive::<_, _, COPY>(h, parts, source, out, errors),
        Holds::Streaming(h) => drive::<_, _, COPY>(h, parts, source, out, errors),
    }
}

/// Runs one strategy over `input` with a fresh processor, streaming: receipts to `out`,
/// problems and then the summary line to `errors`. This is the `receipt` command.
///
/// # Errors
/// If reading `input` or writing to `out` or `errors` fails; the error holds the accounts so
/// far.
pub fn process(
    strategy: Strategy,
    input: &mut dyn Read,
    out: &mut dyn Write,
    errors: &mut dyn Write,
) -> Result<Summary, RunError> {
    let summary = Processor::new(strategy).run_reader(input, out, errors)?;
    writeln!(errors, "{summary}")
        .and_then(|()| errors.flush())
        .map_err(|error| RunError {
            stream: Stream::Report,
            error,
            summary,
        })?;
    Ok(summary)
}
