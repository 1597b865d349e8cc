//! R1: what a whole run allocates, counted exactly — once the processor is warm, beside the
//! seed's one buffer per line (R1, R1-allocs), with a new processor per run (R1-new), and per
//! line, for every strategy (R1-per-line).

use lab::fmt::thousands;
use lab::plot::Plot;
use lab::report::{Function, Run};
use lab::table::{Claim, Columns};
use lab::{Cell, Kind, Table};
use receipt::generate::generated;
use receipt::{STRATEGIES, Strategy};

use super::STRATEGY_COLUMNS;
use crate::workloads::{R1_SEED, Runs, count_runs, prepare_thread_for_counts};

pub(super) const R1: Function = lab::function!(r1_bytes_per_run);

/// The input sizes of R1, as in the seed's table: 1 to 1,000,000 lines.
const R1_LINES: [u64; 7] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];

/// One input size and what each strategy allocated, in [`STRATEGIES`] order.
struct Counted {
    lines: u64,
    runs: Vec<Runs>,
}

impl Counted {
    fn of(&self, strategy: Strategy) -> &Runs {
        let idx = STRATEGIES.iter().position(|&s| s == strategy);
        &self.runs[idx.expect("every strategy is in STRATEGIES")]
    }
}

fn counted(lines: u64) -> Counted {
    let input = generated(lines, R1_SEED);
    let runs = STRATEGIES
        .iter()
        .map(|&strategy| count_runs(strategy, &input))
        .collect();
    Counted { lines, runs }
}

/// The seed's bytes for N lines: `new byte[128]` per line is 152 bytes with its header.
const SEED_BYTES_PER_LINE: u64 = 152;

/// The most any strategy of R1's columns but `naive` allocated in a warm run of `r`.
fn allocation_free_most(r: &Counted) -> u64 {
    STRATEGY_COLUMNS
        .iter()
        .filter(|&&s| s != Strategy::Naive)
        .map(|&s| r.of(s).warm.bytes_allocated)
        .max()
        .unwrap_or(0)
}

fn yes_no(yes: bool) -> String {
    if yes { "yes" } else { "no" }.to_owned()
}

/// A column per strategy of [`STRATEGY_COLUMNS`], after "N lines".
fn by_strategy<'a>(stat: fn(&Runs) -> Cell) -> Columns<'a, Counted> {
    let mut columns = Columns::new().col("N lines", |r: &Counted| Cell::Count(r.lines));
    for strategy in STRATEGY_COLUMNS {
        columns = columns.col(format!("`{strategy}`"), move |r: &Counted| {
            stat(r.of(strategy))
        });
    }
    columns
}

/// `total / lines` exactly, for `lines` a power of ten: as many decimals as `lines` has zeros,
/// trailing zeros dropped (`10.000173`, `0`), and `unit` after it.
fn per_line(total: u64, lines: u64, unit: &str) -> Cell {
    let decimals = lines.ilog10();
    assert_eq!(
        10u64.pow(decimals),
        lines,
        "per line is exact for a power of ten"
    );
    let (whole, fraction) = (total / lines, total % lines);
    let mut text = thousands(whole);
    if fraction > 0 {
        let digits = format!("{fraction:0width$}", width = decimals as usize);
        text = format!("{text}.{}", digits.trim_end_matches('0'));
    }
    Cell::text(format!("{text}{unit}"))
}

/// One strategy's row of R1-per-line: its runs on R1's last row.
struct PerLine<'a> {
    strategy: Strategy,
    lines: u64,
    runs: &'a Runs,
}

fn r1_bytes_per_run(run: &Run) -> Vec<Table> {
    prepare_thread_for_counts();
    let rows: Vec<Counted> = R1_LINES.iter().map(|&n| counted(n)).collect();
    let mut warm = run.own(by_strategy(|r| Cell::Bytes(r.warm.bytes_allocated)).table(
        "R1",
        Kind::Count,
        "",
        &rows,
    ));
    warm.note(format!("Every byte a whole run asked the allocator for (a reallocation counts its growth), counted by `lab::CountingAlloc`, after a first run over the same N lines (`receipt gen`, seed {R1_SEED}; receipts to `std::io::sink()`)."));
    let last = rows.last().expect("R1 has rows");
    warm.note(format!(
        "seed 000: one `new byte[128]` per line, *{}* at {} lines, *0 B* rented from a warm `ArrayPool` or on the stack (Core i7-7700, .NET 10; one buffer, not a pipeline); here, at {} lines: `naive` {}, the four others {}.",
        Cell::Bytes(SEED_BYTES_PER_LINE * last.lines).render(),
        thousands(last.lines),
        thousands(last.lines),
        Cell::Bytes(last.of(Strategy::Naive).warm.bytes_allocated).render(),
        match allocation_free_most(last) {
            0 => "0 B".to_owned(),
            most => format!("at most {}", Cell::Bytes(most).render()),
        },
    ));
    warm.conclude(
        "once warm, `pooled`, `stack`, `arena` and `streaming` allocate nothing in a whole run, at every N",
        Claim::Verdict {
            text: yes_no(rows.iter().all(|r| allocation_free_most(r) == 0)),
        },
    );
    warm.plots.push(r1_plot(&rows));
    let mut allocs = by_strategy(|r| Cell::Count(r.warm.allocs)).table(
        "R1-allocs",
        Kind::Count,
        "Allocations of the same runs",
        &rows,
    );
    allocs.note("Calls to `alloc` (a reallocation is not counted here); the same warm runs as R1.");
    let mut new = by_strategy(|r| Cell::Bytes(r.new.bytes_allocated)).table(
        "R1-new",
        Kind::Count,
        "Bytes allocated by a whole run of N lines with a new processor (and a new pool): the one-offs",
        &rows,
    );
    new.note("The first run of each processor of R1, the processor created inside the count: the pooled one rents from a pool of its own (`workloads::fresh_pooled`), so no row inherits a warm pool from the row before it. The same bytes as R1 plus what the processor allocates once: its output buffer, the start of a line cut by a chunk's end, the item-name cache, the pool's bucket table and first buffers, the arena's first chunk.");
    new.note("seed 000: a cold pool too, *608 B* for the first read of `ArrayPool<Q1>.Shared` and *184 B* for its first `Rent(128)`, once; here: the last column of R1-per-line.");
    vec![warm, allocs, new, per_line_table(last)]
}

/// R1's figure: what a new processor's first run allocates against N, one line per strategy
/// (R1-new's rows: every point above 0 B, so both axes can be logarithmic; the warm runs of the
/// four beside `naive` are 0 B and cannot be drawn on them).
fn r1_plot(rows: &[Counted]) -> Plot {
    let mut plot = Plot::lines(
        "r1-bytes-by-lines",
        "Bytes allocated by a first run of N lines with a new processor (R1-new): naive grows with N, the others stop at their one-offs",
        "N lines (log scale)",
        "bytes allocated (log scale)",
    );
    plot.log_x = true;
    plot.log_y = true;
    for strategy in STRATEGY_COLUMNS {
        let points = rows
            .iter()
            .map(|r| (r.lines as f64, r.of(strategy).new.bytes_allocated as f64))
            .collect();
        plot = plot.series(strategy.name(), points);
    }
    plot
}

fn per_line_table(last: &Counted) -> Table {
    let per_line_rows: Vec<PerLine<'_>> = STRATEGIES
        .iter()
        .map(|&strategy| PerLine {
            strategy,
            lines: last.lines,
            runs: last.of(strategy),
        })
        .collect();
    let mut table = Columns::new()
        .col("strategy", |r: &PerLine<'_>| {
            Cell::text(format!("`{}`", r.strategy))
        })
        .col("allocations per line", |r: &PerLine<'_>| {
            per_line(r.runs.warm.allocs, r.lines, "")
        })
        .col("reallocations per line", |r: &PerLine<'_>| {
            per_line(r.runs.warm.reallocs, r.lines, "")
        })
        .col("bytes per line", |r: &PerLine<'_>| {
            per_line(r.runs.warm.bytes_allocated, r.lines, " B")
        })
        .col(
            "once per processor (R1-new less R1)",
            |r: &PerLine<'_>| {
                Cell::Bytes(
                    r.runs
                        .new
                        .bytes_allocated
                        .saturating_sub(r.runs.warm.bytes_allocated),
                )
            },
        )
        .table(
            "R1-per-line",
            Kind::Count,
            &format!(
                "What every strategy allocates per line once warm, and once per processor (R1's runs of {} lines)",
                thousands(last.lines)
            ),
            &per_line_rows,
        );
    table.note(format!("The warm runs of R1's last row, divided by its {} lines: exact, not rounded. Allocations are calls to `alloc`, reallocations calls to `realloc` (a `String` or a `Vec` that grows), and the bytes count a reallocation's growth, as in R1. The last column is the first run's bytes (R1-new) less the warm run's (R1): what a new processor allocates once and keeps.", thousands(last.lines)));
    table.note("`naive-reuse` is `naive`'s program with every `String` it writes kept and cleared (`write!` instead of `format!`): the control R2 times to part `naive`'s cost into allocating and parsing.");
    table
}
