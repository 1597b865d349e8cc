//! The chapter's workloads, public so that the experiments, the criterion bench and the tests
//! call the same functions.
//!
//! - Throughput per chunk (R2): [`ChunkRunner`] feeds one pre-generated chunk of lines through
//!   a strategy into a reused output buffer, as many times as the timer wants; its two floors
//!   are [`line_ends`] (the `memchr` scan any line-by-line work does at least) and
//!   [`copy_through`] (the bytes copied once, no line work).
//! - Where a line's time goes (R5): [`Stages`] runs the streaming strategy's own code cut after
//!   each [`Stage`] (its fast lane cut at a depth, then the whole strategy), every stage doing
//!   the work of the ones before it.
//! - Allocations per run (R1): [`count_runs`] counts a strategy's first run with a new
//!   processor ([`new_processor`]: for the pooled one, a pool that starts cold on every row,
//!   [`fresh_pooled`]) and the same processor's next run, once warm.
//!
//! The timed workloads take a `const COPY: u8`: copies 0 and 1 are the same code, compiled
//! twice, so that a timed table's twin runs a copy of its own at another address (a twin that
//! called the same function as its original could not show what code placement does). Use 0.
//! The library's order loop and line reader are private: their copies come from
//! `receipt::twins`.

use std::hint::black_box;
use std::io::{self, Write, sink};

use lab::{AllocStats, count};
use pool::BufferPool;

use receipt::generate::generated;
use receipt::scan::ItemCache;
use receipt::{CHUNK_SIZE, FLUSH_BYTES, Processor, Strategy, twins};

/// Lines per chunk in the per-chunk throughput runs (R2): small enough for hundreds of timed
/// rounds per method, large enough that a round is far above the timer's resolution.
pub const CHUNK_LINES: u64 = 10_000;

/// The generator's seed for the chunk of R2 and R5.
pub const CHUNK_SEED: u64 = 7;

/// The chunk R2 and R5 (and their criterion benches) time: [`CHUNK_LINES`] generated lines.
pub fn chunk() -> Vec<u8> {
    generated(CHUNK_LINES, CHUNK_SEED)
}

/// A pooled processor renting from a pool of its own, created cold with the shared pool's
/// configuration: what it allocates is the same on every row of a table. (The first pool a
/// thread ever uses also sets up the thread's list of pool caches, once: count from the second.)
pub fn fresh_pooled() -> Processor {
    Processor::with_pool(BufferPool::new(pool::shared_config()))
}

/// A new processor for `strategy`, as a command makes one; the pooled one rents from a pool of
/// its own ([`fresh_pooled`]), so that it starts cold on every row of R1, whatever ran before.
pub fn new_processor(strategy: Strategy) -> Processor {
    match strategy {
        Strategy::Pooled => fresh_pooled(),
        other => Processor::new(other),
    }
}

/// The seed of R1's generated input.
pub const R1_SEED: u64 = 2026;

/// What R1 counts before its first row: the first pool a thread uses sets up the thread's list
/// of pool caches, once per thread, so that the first row counts what every other row counts.
pub fn prepare_thread_for_counts() {
    drop(fresh_pooled().run(b"1|a|1|1\n", &mut sink(), &mut sink()));
}

/// What one strategy allocated on one input (R1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Runs {
    /// The first run, with the processor created inside the count (R1-new).
    pub new: AllocStats,
    /// The same processor's next run over the same input, once warm (R1, R1-allocs).
    pub warm: AllocStats,
}

/// Counts `strategy` over `input` (R1): a new processor's first run, then its next one. The
/// processor is returned from the first count, not dropped in it, and every run's summary is
/// returned from its count, so nothing a count measures is dead code the optimiser may delete;
/// the receipts go to `io::sink()`, through the processor's output buffer, which it keeps.
///
/// # Panics
/// If the counting allocator is not the global allocator.
pub fn count_runs(strategy: Strategy, input: &[u8]) -> Runs {
    let (mut processor, new) = count(|| {
        let mut processor = new_processor(strategy);
        let summary = processor.run(black_box(input), &mut sink(), &mut sink());
        black_box(summary.is_ok());
        processor
    });
    let (_, warm) = count(|| processor.run(black_box(input), &mut sink(), &mut sink()));
    black_box(&processor);
    Runs { new, warm }
}

/// Feeds chunks of order lines through one strategy, into an output buffer kept from round to
/// round (R2). Each chunk is a complete input: its orders do not continue into the next one.
#[derive(Debug, Clone)]
pub struct ChunkRunner {
    processor: Processor,
    out: Vec<u8>,
}

impl ChunkRunner {
    /// A runner for `strategy`.
    pub fn new(strategy: Strategy) -> Self {
        Self::with_processor(Processor::new(strategy))
    }

    /// A runner over a processor set up by the caller.
    pub fn with_processor(processor: Processor) -> Self {
        Self {
            processor,
            out: Vec::new(),
        }
    }

    /// Processes `chunk` through copy `COPY` of the order loop, its receipts into the reused
    /// buffer and its error report nowhere; returns the lines printed.
    pub fn run<const COPY: u8>(&mut self, chunk: &[u8]) -> u64 {
        self.out.clear();
        twins::run::<COPY>(&mut self.processor, chunk, &mut self.out, &mut io::sink())
            .map_or(0, |summary| summary.printed)
    }

    /// The receipts of the last chunk.
    pub fn output(&self) -> &[u8] {
        &self.out
    }
}

/// The name of R2's first floor ([`line_ends`]).
pub const LINE_ENDS_FLOOR: &str = "floor: find the line ends (`memchr`)";

/// The name of R2's second floor ([`copy_through`]).
pub const COPY_FLOOR: &str = "floor: copy the input once";

/// The floor of any line-by-line work: finding every line end with `memchr` (vectorised).
/// Returns the number of line ends.
#[inline(never)]
pub fn line_ends<const COPY: u8>(input: &[u8]) -> usize {
    black_box(COPY);
    memchr::memchr_iter(b'\n', input).count()
}

/// The floor of any command that reads these bytes and writes as many: the bytes copied once,
/// with no line work. In process, reading an in-memory input is free (the processors borrow
/// it), so what remains is copying it, [`CHUNK_SIZE`] bytes at a time, into one reused buffer
/// of that size, as the command hands its output on. Returns the bytes copied.
#[inline(never)]
pub fn copy_through<const COPY: u8>(input: &[u8], buf: &mut Vec<u8>) -> usize {
    black_box(COPY);
    let mut copied = 0;
    for piece in input.chunks(CHUNK_SIZE) {
        buf.clear();
        buf.extend_from_slice(piece);
        copied += black_box(&buf).len();
    }
    copied
}

/// One cumulative stage of the streaming strategy's work on a line (R5). Each stage does the
/// work of the ones before it, except the first, the floor of any line-by-line work. The three
/// after it are the strategy's fast lane (`receipt::lane`, private; run through
/// `twins::lane_lines`) cut at a depth, which takes every line of the generated input but the
/// first and the last few, which the line reader and the scanner read, as the order loop does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Find the line ends with `memchr`: the floor. The lane never runs it: it finds a line's
    /// end itself, walking the line's fields.
    LineEnds,
    /// Walk each line once: the order id compared with the open order's (read only when it
    /// differs), the item's `|` (sixteen bytes at a time), the numbers' digits, the line end.
    Walk,
    /// And check the item: printable ASCII from the same sixteen-byte blocks, or the item cache
    /// (UTF-8, control characters and display width, checked once per cache slot).
    Item,
    /// And compute the numbers and check them (quantity 1 to 9,999, amounts the lane's table
    /// writes): everything the lane needs to write the line.
    Numbers,
    /// And the receipt: each line's receipt line and each order's header and `TOTAL` line
    /// written into the output buffer, the orders finished and opened, the lines counted — the
    /// whole strategy, order loop and lane, with its receipts discarded (`io::sink()`).
    Render,
    /// And hand the receipts to a writer (by default a reused in-memory buffer).
    Write,
    /// [`Stage::Numbers`] with the item cache off: every name that is not printable ASCII
    /// decoded, checked and measured on every line.
    NumbersWithoutCache,
}

impl Stage {
    /// The cumulative stages, in order.
    pub const ALL: [Stage; 6] = [
        Stage::LineEnds,
        Stage::Walk,
        Stage::Item,
        Stage::Numbers,
        Stage::Render,
        Stage::Write,
    ];

    /// Every stage R5 times: the cumulative ones, then [`Stage::NumbersWithoutCache`].
    pub const MEASURED: [Stage; 7] = {
        let mut measured = [Stage::NumbersWithoutCache; 7];
        let mut idx = 0;
        while idx < Stage::ALL.len() {
            measured[idx] = Stage::ALL[idx];
            idx += 1;
        }
        measured
    };

    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Stage::LineEnds => "find line ends (memchr)",
            Stage::Walk => "+ walk the line",
            Stage::Item => "+ check the item",
            Stage::Numbers => "+ parse and check the numbers",
            Stage::Render => "+ render",
            Stage::Write => "+ write",
            Stage::NumbersWithoutCache => "`+ parse and check the numbers`, item cache off",
        }
    }

    /// The stage this one is compared with: the one before it, or for
    /// [`Stage::NumbersWithoutCache`], [`Stage::Numbers`].
    pub fn compared_with(self) -> Option<Stage> {
        match self {
            Stage::LineEnds => None,
            Stage::Walk => Some(Stage::LineEnds),
            Stage::Item => Some(Stage::Walk),
            Stage::Numbers => Some(Stage::Item),
            Stage::NumbersWithoutCache => Some(Stage::Numbers),
            Stage::Render => Some(Stage::Numbers),
            Stage::Write => Some(Stage::Render),
        }
    }
}

/// Runs the stages of R5 over in-memory input, keeping their buffers between runs. The input
/// is handed over in one piece, so no line is cut by a chunk boundary: on a well-formed input,
/// every line but the first and the last few (those within the lane's span of the end) takes
/// the fast lane in every stage after the floor. Give each stage a `Stages` of its own, so that
/// no stage finds the item cache filled by another.
pub struct Stages {
    items: ItemCache,
    carry: Vec<u8>,
    processor: Processor,
    writer: Box<dyn Write + Send>,
}

impl std::fmt::Debug for Stages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stages")
            .field("processor", &self.processor)
            .finish_non_exhaustive()
    }
}

impl Default for Stages {
    fn default() -> Self {
        Self::new()
    }
}

/// A `Vec<u8>` cleared before each write call's bytes are added once it is large: the write
/// stage's writer, which copies every byte once and keeps its memory bounded.
#[derive(Debug, Default)]
struct Reused(Vec<u8>);

impl Write for Reused {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if self.0.len() >= 4 * FLUSH_BYTES {
            self.0.clear();
        }
        self.0.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Stages {
    /// Stages whose [`Stage::Write`] copies the receipts into a reused in-memory buffer.
    pub fn new() -> Self {
        Self {
            items: ItemCache::new(),
            carry: Vec::new(),
            processor: Processor::new(Strategy::Streaming).with_chunk_size(usize::MAX),
            writer: Box::new(Reused::default()),
        }
    }

    /// Runs `stage` over `input` through copy `COPY` of its code; returns the lines it handled
    /// (line ends found, lines scanned, or lines printed).
    pub fn run<const COPY: u8>(&mut self, stage: Stage, input: &[u8]) -> u64 {
        match stage {
            Stage::LineEnds => line_ends::<COPY>(input) as u64,
            Stage::Walk => self.lane_all::<{ twins::WALK }, true, COPY>(input),
            Stage::Item => self.lane_all::<{ twins::CHECK }, true, COPY>(input),
            Stage::Numbers => self.lane_all::<{ twins::PARSE }, true, COPY>(input),
            Stage::NumbersWithoutCache => self.lane_all::<{ twins::PARSE }, false, COPY>(input),
            Stage::Render => {
                twins::run::<COPY>(&mut self.processor, input, &mut io::sink(), &mut io::sink())
                    .map_or(0, |summary| summary.printed)
            }
            Stage::Write => twins::run::<COPY>(
                &mut self.processor,
                input,
                &mut self.writer,
                &mut io::sink(),
            )
            .map_or(0, |summary| summary.printed),
        }
    }

    /// Reads every line of `input` as the streaming strategy does, its fast lane cut at `DEPTH`
    /// (with the item cache or without it), through copy `COPY` of that loop
    /// (`twins::lane_lines`).
    fn lane_all<const DEPTH: u8, const CACHED: bool, const COPY: u8>(
        &mut self,
        input: &[u8],
    ) -> u64 {
        twins::lane_lines::<DEPTH, CACHED, COPY>(input, &mut self.items, &mut self.carry)
    }
}
