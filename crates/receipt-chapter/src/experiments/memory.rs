//! R4: the whole command's peak resident memory as the input grows, and on the worst input it
//! accepts, read from the kernel for one `receipt` process at a time by a small process that
//! starts it and reaps it (see [`crate::command`] for why); R4-bounds: the constants that bound
//! what it holds.

use std::process::{Command, ExitCode};

use lab::report::{Function, Run};
use lab::table::{Cell, Claim, Columns};
use lab::{Kind, Table};
use receipt::bounds::{
    self, ARENA_CHUNKS, BAD_LINES, NAIVE_ORDER, OUTPUT_BUFFER, POOL_TABLES, POOLED_BUFFERS,
    STACK_SPILL,
};
use receipt::input::CARRY_CAP;
use receipt::line::{MAX_LINE, MAX_ORDER_LINES};
use receipt::render::{MAX_ITEM_LINE, MAX_RECEIPT};
use receipt::scan::ItemCache;
use receipt::{CHUNK_SIZE, POOLED_FIRST_RENT, STACK_ORDER_BYTES, Strategy};

// R4's strategies are the chapter's columns: every strategy but `naive-reuse`, a control timed
// in R2.
use super::STRATEGY_COLUMNS as STRATEGIES;
use super::{NO_BINARY, receipt_binary};
use crate::child::Lines;
use crate::command::{PEAK_VAR, measure_started, peak_of};
use crate::workloads::CHUNK_SEED;

pub(super) const R4: Function = lab::function!(r4_peak_memory);

/// The generated input sizes, in lines.
const R4_LINES: [u64; 3] = [100_000, 1_000_000, 4_000_000];

/// Orders in the worst-case input: each of its four kinds once (`generate::worst_case`).
const WORST_CASE_ORDERS: u64 = 4;

/// The most the whole command may hold, for every strategy but `naive`.
const PEAK_TARGET_BYTES: u64 = 16 << 20;
/// How much more than on the smallest input the peak on the largest may be and still count as
/// flat.
const FLAT_TOLERANCE_BYTES: u64 = 1 << 20;

/// What one run measured: the command's `ru_maxrss`, what the measuring process held when it
/// started it (the command's `ru_maxrss` is at least that), and the bytes it was fed.
#[derive(Clone, Copy, Debug)]
struct Peak {
    rss_bytes: u64,
    floor_bytes: u64,
    input_bytes: u64,
}

impl Peak {
    /// The command's peak when it is above the floor, else "at most the floor".
    fn cell(&self) -> Cell {
        if self.rss_bytes > self.floor_bytes {
            Cell::Bytes(self.rss_bytes)
        } else {
            Cell::text(format!("≤ {}", Cell::Bytes(self.floor_bytes).render()))
        }
    }
}

/// R4's measuring process ([`PEAK_VAR`] set): measures one run of the command on this process's
/// standard input and prints the report. The experiments binary calls this before anything else,
/// so that it holds as little as it can.
pub(super) fn probe_from_env() -> Option<ExitCode> {
    let strategy = std::env::var_os(PEAK_VAR)?;
    let measured = Strategy::from_name(strategy.as_encoded_bytes()).and_then(|strategy| {
        let binary = receipt_binary().ok_or(NO_BINARY)?;
        measure_started(&binary, strategy, lab::env::wait_with_peak_rss)
    });
    Some(match measured {
        Ok(report) => {
            println!("{}", report.encode());
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("receipt-experiments: {why}");
            ExitCode::FAILURE
        }
    })
}

/// Starts this binary again as the measuring process for `strategy` and feeds it `lines`.
fn measure(strategy: Strategy, lines: Lines) -> Result<Peak, String> {
    let exe = std::env::current_exe().map_err(|err| format!("cannot find this binary: {err}"))?;
    let mut measuring = Command::new(exe);
    measuring
        .env(PEAK_VAR, strategy.name())
        .env_remove(lab::protocol::PROBE_VAR);
    let (report, input_bytes) = peak_of(measuring, lines)?;
    Ok(Peak {
        rss_bytes: report.kib * 1024,
        floor_bytes: report.floor_kib * 1024,
        input_bytes,
    })
}

/// One input and each strategy's peak, in [`STRATEGIES`] order.
struct Row {
    lines: Lines,
    peaks: Vec<Result<Peak, String>>,
}

impl Row {
    fn label(&self) -> String {
        match self.lines {
            Lines::Generated { lines, .. } => {
                format!("{} generated lines", Cell::count(lines).render())
            }
            Lines::WorstCase { orders } => format!(
                "worst case: {orders} orders of {} lines of up to {} bytes",
                Cell::count(MAX_ORDER_LINES).render(),
                Cell::count(MAX_LINE).render()
            ),
        }
    }

    fn input_bytes(&self) -> Option<u64> {
        self.peaks.iter().flatten().map(|p| p.input_bytes).next()
    }

    fn peak(&self, strategy: Strategy) -> Option<u64> {
        self.measured(strategy).map(|p| p.rss_bytes)
    }

    fn measured(&self, strategy: Strategy) -> Option<&Peak> {
        let idx = STRATEGIES.iter().position(|&s| s == strategy)?;
        self.peaks[idx].as_ref().ok()
    }
}

/// `met` if `holds` for every strategy in `strategies`, `missed` if not, not resolvable if a
/// figure is missing.
fn target(strategies: &[Strategy], holds: impl Fn(Strategy) -> Option<bool>) -> Claim {
    let outcomes: Option<Vec<bool>> = strategies.iter().map(|&s| holds(s)).collect();
    match outcomes {
        Some(all) => Claim::met(all.iter().all(|&ok| ok)),
        None => Claim::NotResolvable,
    }
}

fn r4_peak_memory(run: &Run) -> Vec<Table> {
    let mut columns = Columns::new().col("input (bytes piped in)", |r: &Row| {
        Cell::text(match r.input_bytes() {
            Some(bytes) => format!("{} ({})", r.label(), Cell::Bytes(bytes).render()),
            None => r.label(),
        })
    });
    for (idx, strategy) in STRATEGIES.iter().enumerate() {
        columns = columns.col(format!("`{strategy}`"), move |r: &Row| {
            match &r.peaks[idx] {
                Ok(peak) => peak.cell(),
                Err(_) => Cell::text("failed"),
            }
        });
    }
    if receipt_binary().is_none() {
        let mut table = run.own(columns.table("R4", Kind::Fact, "", &[]));
        table.note(NO_BINARY);
        return vec![table, bounds()];
    }
    let inputs = R4_LINES
        .iter()
        .map(|&lines| Lines::Generated {
            lines,
            seed: CHUNK_SEED,
        })
        .chain([Lines::WorstCase {
            orders: WORST_CASE_ORDERS,
        }]);
    let rows: Vec<Row> = inputs
        .map(|lines| Row {
            lines,
            peaks: STRATEGIES
                .iter()
                .map(|&strategy| measure(strategy, lines))
                .collect(),
        })
        .collect();
    let mut table = run.own(columns.table("R4", Kind::Fact, "", &rows));
    table.note(format!("Each figure is the peak resident set (`ru_maxrss`) of one `receipt --strategy S` process, its input piped in as it was produced (`receipt gen`, seed {CHUNK_SEED}, or the worst case). ≤ F means no more than F, the peak of the small process that starts the command, alone: the command held no more than an empty program (the appendix says how R4 measures)."));
    table.note("The worst case (`generate::worst_case`) is built so that each strategy holds, within 3 %, the most R4-bounds allows.");
    table.note("The command runs on the system allocator; a figure counts every resident page (code, C library, stack, heap), and a few pages come and go from run to run.");
    for (row, strategy, why) in rows.iter().flat_map(|row| {
        STRATEGIES
            .iter()
            .zip(&row.peaks)
            .filter_map(move |(s, p)| p.as_ref().err().map(|why| (row.label(), s, why)))
    }) {
        table.note(format!("{strategy}, {row}: {why}"));
    }
    let generated = &rows[..R4_LINES.len()];
    let (smallest, largest, worst) = (
        &generated[0],
        &generated[generated.len() - 1],
        &rows[rows.len() - 1],
    );
    let non_naive: Vec<Strategy> = STRATEGIES
        .into_iter()
        .filter(|&s| s != Strategy::Naive)
        .collect();
    let target_mib = PEAK_TARGET_BYTES >> 20;
    table.conclude(
        format!(
            "target: at most {target_mib} MiB on {} for every strategy but `naive`, because a streaming command holds one input chunk, one output buffer and one order, whatever the input's size",
            largest.label()
        ),
        target(&non_naive, |s| {
            largest.peak(s).map(|peak| peak <= PEAK_TARGET_BYTES)
        }),
    );
    table.conclude(
        format!(
            "flat: for every strategy, the peak on {} at most {} MiB above the peak on {} (a command that held its input would grow with it)",
            largest.label(),
            FLAT_TOLERANCE_BYTES >> 20,
            smallest.label()
        ),
        target(&STRATEGIES, |s| {
            Some(largest.peak(s)? <= smallest.peak(s)? + FLAT_TOLERANCE_BYTES)
        }),
    );
    table.conclude(
        format!(
            "bounded: at most {target_mib} MiB on the worst case too, for every strategy but `naive`, because an order is bounded (R4-bounds) and room a buffer reserves but never writes is not resident"
        ),
        target(&non_naive, |s| {
            worst.peak(s).map(|peak| peak <= PEAK_TARGET_BYTES)
        }),
    );
    table.conclude(
        "within the stated bound: on the worst case, every strategy's peak at most the floor plus what R4-bounds says its processor can hold",
        target(&STRATEGIES, |s| {
            worst
                .measured(s)
                .map(|p| p.rss_bytes <= p.floor_bytes + bounds::heap_bound(s) as u64)
        }),
    );
    vec![table, bounds()]
}

/// One bound: what it limits, its value, the constant.
struct Bound {
    what: String,
    value: Cell,
    constant: &'static str,
}

/// R4-bounds: what a processor holds at most, read from the code.
fn bounds() -> Table {
    let bytes = |n: usize| Cell::bytes(n);
    let mut rows = vec![
        Bound {
            what: "one input chunk".into(),
            value: bytes(CHUNK_SIZE),
            constant: "`receipt::CHUNK_SIZE`",
        },
        Bound {
            what: "the output buffer: complete receipts until they reach `FLUSH_BYTES` (64 KiB), then a blank line and one order's receipt, in a vector that doubles".into(),
            value: bytes(OUTPUT_BUFFER),
            constant: "`bounds::OUTPUT_BUFFER`",
        },
        Bound {
            what: "the start of a line cut by the end of a chunk (a longest line, a byte-order mark and a `\\r`)".into(),
            value: bytes(CARRY_CAP),
            constant: "`receipt::input::CARRY_CAP`",
        },
        Bound {
            what: "the item-name cache, from the first name that is not printable ASCII".into(),
            value: bytes(ItemCache::BYTES),
            constant: "`receipt::scan::ItemCache::BYTES`",
        },
        Bound {
            what: "the open order's bad line numbers".into(),
            value: bytes(BAD_LINES),
            constant: "`bounds::BAD_LINES`",
        },
        Bound {
            what: "one line, without its line ending".into(),
            value: bytes(MAX_LINE),
            constant: "`receipt::line::MAX_LINE`",
        },
        Bound {
            what: "one order, in lines".into(),
            value: Cell::count(MAX_ORDER_LINES),
            constant: "`receipt::line::MAX_ORDER_LINES`",
        },
        Bound {
            what: "one receipt line (a longest line whose name has no display width, its numbers as wide as they can be)".into(),
            value: bytes(MAX_ITEM_LINE),
            constant: "`receipt::render::MAX_ITEM_LINE`",
        },
        Bound {
            what: "one order's receipt text".into(),
            value: bytes(MAX_RECEIPT),
            constant: "`receipt::render::MAX_RECEIPT`",
        },
        Bound {
            what: "`naive`: the order's `String`s, and the receipt it formats when the order is complete".into(),
            value: bytes(NAIVE_ORDER),
            constant: "`bounds::NAIVE_ORDER`",
        },
        Bound {
            what: "`pooled`: the first buffer rented for an order (a longer receipt moves to the bucket of the length it needs)".into(),
            value: bytes(POOLED_FIRST_RENT),
            constant: "`receipt::POOLED_FIRST_RENT`",
        },
        Bound {
            what: "`pooled`: one receipt buffer of every bucket, from the first rent's to the longest receipt's".into(),
            value: bytes(POOLED_BUFFERS),
            constant: "`bounds::POOLED_BUFFERS` (`receipt::POOLED_FIRST_RENT`, `bounds::POOLED_LARGEST_BUCKET`, the pool's power-of-two buckets)",
        },
        Bound {
            what: "`pooled`: the pool's own tables (an allowance, pinned)".into(),
            value: bytes(POOL_TABLES),
            constant: "`bounds::POOL_TABLES`",
        },
        Bound {
            what: "`stack`: the receipt text kept inline, in the loop's stack frame (not on the heap)".into(),
            value: bytes(STACK_ORDER_BYTES),
            constant: "`receipt::STACK_ORDER_BYTES`",
        },
        Bound {
            what: "`stack`: the receipt text spilled to the heap, a power of two".into(),
            value: bytes(STACK_SPILL),
            constant: "`bounds::STACK_SPILL`",
        },
        Bound {
            what: "`arena`: its chunks, the one a reset kept and the ones an order doubles into".into(),
            value: bytes(ARENA_CHUNKS),
            constant: "`bounds::ARENA_CHUNKS` (`bumpalo`'s doubling chunks)",
        },
    ];
    for strategy in STRATEGIES {
        rows.push(Bound {
            what: format!("`{strategy}`: the whole processor"),
            value: bytes(bounds::heap_bound(strategy)),
            constant: "`bounds::heap_bound`",
        });
    }
    let mut table = Columns::new()
        .col("what a processor holds", |b: &Bound| Cell::text(&b.what))
        .col("at most", |b: &Bound| b.value.clone())
        .col("set by", |b: &Bound| Cell::text(b.constant))
        .table(
            "R4-bounds",
            Kind::Fact,
            "What a processor holds, whatever the input's size (the code's constants)",
            &rows,
        );
    table.note("Read from the constants when the report is generated, so the chapter cannot state other bounds than the code's (`receipt::bounds`, `r4_the_bounds_follow_from_the_constants`). A bound is on the heap a processor can have asked for and not given back at any moment, reading its input as the command does: the first rows, which every strategy holds, and the strategy's own (for `pooled`, with a pool no one else rents from, as the command's is). On R4's worst case, under a counting allocator, each strategy holds at most its bound and at least 97 % of it (`r4_the_worst_case_holds_each_strategy_at_its_bound`).");
    table.note(format!("R4's worst case (`generate::worst_case`) is built from the growth rules of the buffers each strategy holds an order in: every order at the bound of {} lines, all but six lines {} bytes long, their names of no display width (padded whole), and four kinds of order whose first lines make each buffer that doubles end with twice the room it needs, the pool keep a buffer of every bucket up to 4 MiB, and the arena hold a chunk of 4 MiB and one of 8 MiB at once.", Cell::count(MAX_ORDER_LINES).render(), Cell::count(MAX_LINE).render()));
    table.note("What is resident, which R4 measures, differs: room a buffer never wrote to takes no memory (a vector that doubled, a bucket's buffer past the receipt it holds), memory an allocator keeps after it was given back still does, and the binary's own pages are there too.");
    table
}
