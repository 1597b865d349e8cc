//! R2: time per line, one chunk of lines at a time, against two floors, with the chapter's two
//! speed targets and `naive`'s cost parted into allocating and parsing (`naive-reuse` between
//! them); and X1-receipt, every strategy against `naive` under both allocators, from the same
//! run, with the same two parts.

use std::hint::black_box;

use lab::fmt::significant;
use lab::plot::Plot;
use lab::protocol::{Allocator, ProcessRole};
use lab::publish::Pair;
use lab::report::{Function, Run};
use lab::table::{Cell, Claim, Columns};
use lab::timing::{Measured, Measurements, Method, Schedule, Technique, Timing, allocator_table};
use lab::{Kind, Table};
use receipt::generate::generated;
use receipt::{CHUNK_SIZE, STRATEGIES, Strategy};

use super::{NO_BINARY, copies_under_callgrind, receipt_binary};
use crate::workloads::{self, CHUNK_LINES, CHUNK_SEED, COPY_FLOOR, ChunkRunner, LINE_ENDS_FLOOR};

pub(super) const R2: Function = lab::function!(r2_time_per_line);

const NAIVE: &str = "naive";
const NAIVE_REUSE: &str = "naive-reuse";
const STREAMING: &str = "streaming";

/// How many times faster per line than `naive` the `streaming` strategy is meant to be.
const SPEEDUP_TARGET: f64 = 10.0;
/// The most instructions per line the whole command may execute with `streaming`.
const INSTRUCTIONS_TARGET: u64 = 300;
/// Lines of the file the whole command runs on under callgrind.
const COMMAND_LINES: u64 = 100_000;

fn r2_time_per_line(run: &Run) -> Vec<Table> {
    let input = workloads::chunk();
    let chunk = &input;
    let mut timing = Timing::new(run.config());
    for strategy in STRATEGIES {
        let (mut original, mut twin) = (ChunkRunner::new(strategy), ChunkRunner::new(strategy));
        timing.method_pair(
            strategy.name(),
            move || original.run::<0>(black_box(chunk)),
            move || twin.run::<1>(black_box(chunk)),
        );
    }
    timing.floor_pair(
        LINE_ENDS_FLOOR,
        move || workloads::line_ends::<0>(black_box(chunk)),
        move || workloads::line_ends::<1>(black_box(chunk)),
    );
    let (mut original, mut twin) = (Vec::new(), Vec::new());
    timing.method_pair(
        COPY_FLOOR,
        move || workloads::copy_through::<0>(black_box(chunk), &mut original),
        move || workloads::copy_through::<1>(black_box(chunk), &mut twin),
    );
    let m = timing.run(Schedule::Interleaved);
    // After the timing run: a callgrind child of this binary exits inside it.
    let command = whole_command_instructions(run);

    let mut table = run.own(r2_table(&m));
    table.plots.push(r2_plot(&m));
    table.note(m.protocol_note());
    table.note(format!("One operation is one chunk of {} generated lines (seed {CHUNK_SEED}; {} bytes) through the same processor, its receipts into a reused buffer (`workloads::ChunkRunner`); \"per line\" is the chunk's median over its lines. The last column is the time over `naive`'s: below 1×, faster.", Cell::count(CHUNK_LINES).render(), Cell::count(input.len()).render()));
    table.note("`naive-reuse` is `naive` with every `String` kept and cleared (no allocation once warm, R1-per-line): `naive` against it is allocating alone; it against `streaming` is everything else: the parser and checker, `format!`, how an order is held, one more copy (the appendix lists them), called *the parser and formatting* below.");
    table.note(format!("The floors: finding every line end with `memchr`, and copying the input once, {} bytes at a time, into one reused buffer.", Cell::count(CHUNK_SIZE).render()));
    table.note(copies_under_callgrind(
        "the copy floor, and every strategy's receipts copied into the runner's buffer",
    ));
    if m.expect(STREAMING).instructions().is_none() {
        table.note(m.instructions_note());
    }
    match &command {
        Ok(total) => {
            table.note(format!(
                "The whole command, `receipt --strategy streaming FILE` on {} generated lines (seed {CHUNK_SEED}), receipts to `/dev/null`, under callgrind: {} instructions, {} per line (its copies to the pipe, in the kernel, are not counted).",
                Cell::count(COMMAND_LINES).render(),
                Cell::count(*total).render(),
                significant(*total as f64 / COMMAND_LINES as f64, 3),
            ));
        }
        // The note above already says why nothing was counted in a quick run.
        Err(_) if !run.config().count_instructions => {}
        Err(why) => {
            table.note(format!(
                "No instruction count for the whole command: {why}."
            ));
        }
    }
    table.conclude(
        format!("target: `streaming` at least {SPEEDUP_TARGET}× faster per line than `naive`, which both allocates for every line and parses with `split` and `format!`"),
        m.target_speedup(STREAMING, NAIVE, SPEEDUP_TARGET),
    );
    table.conclude(
        "`naive` / `streaming`, time per line, as a bound for other machines",
        m.bound(NAIVE, STREAMING),
    );
    conclude_larger_part(&m, &mut table);
    table.conclude(
        format!("target: the whole command with `streaming` at most {INSTRUCTIONS_TARGET} instructions per line under callgrind, on {} generated lines (a few instructions per byte read and written; this machine's count, since `memchr` picks its code for the CPU it starts on)", Cell::count(COMMAND_LINES).render()),
        match command {
            Ok(total) => Claim::met(total <= INSTRUCTIONS_TARGET * COMMAND_LINES),
            Err(_) => Claim::NotResolvable,
        },
    );
    table.conclude(
        "the fastest strategy, resolvably faster than each of the others",
        m.verdict(fastest),
    );
    vec![table, x1_table(&m)]
}

/// `naive`'s cost parted in two, under each allocator: allocating alone (`naive-reuse` /
/// `naive`) and the parser and formatting alone (`streaming` / `naive-reuse`), under X1-receipt,
/// whose first and last rows are the same two ratios.
fn conclude_parts(m: &Measured, table: &mut Table) {
    m.conclude_under_each(
        table,
        |allocator| {
            format!(
                "under {}, allocating alone: `naive-reuse` / `naive`",
                allocator.short()
            )
        },
        |under| under.bound(NAIVE_REUSE, NAIVE),
    );
    m.conclude_under_each(
        table,
        |allocator| {
            format!(
                "under {}, the parser and formatting alone: `streaming` / `naive-reuse`",
                allocator.short()
            )
        },
        |under| under.bound(STREAMING, NAIVE_REUSE),
    );
}

/// Under each allocator, the larger of the two parts of `naive`'s cost.
fn conclude_larger_part(m: &Measured, table: &mut Table) {
    m.conclude_under_each(
        table,
        |allocator| {
            format!(
                "under {}, the larger part of what `naive` costs over `streaming`: allocating or the parser and formatting",
                allocator.short()
            )
        },
        |under| under.verdict(larger_part),
    );
}

/// The least and the most `a − b` can be in one process, over the pairings of the two methods'
/// copies (original or twin).
fn difference_bounds(a: Pair, b: Pair) -> (f64, f64) {
    let diffs = [
        a.original_ns - b.original_ns,
        a.original_ns - b.twin_ns,
        a.twin_ns - b.original_ns,
        a.twin_ns - b.twin_ns,
    ];
    diffs
        .into_iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), d| {
            (lo.min(d), hi.max(d))
        })
}

/// In one process: the larger part of `naive` − `streaming`, allocating (`naive` −
/// `naive-reuse`) or the parser and formatting (`naive-reuse` − `streaming`), when it is larger
/// whichever copies are paired and by more than the absolute floor (1 % of `naive`'s time);
/// `None` otherwise.
fn larger_part(p: &Measurements) -> Option<String> {
    let pair = |name: &str| p.expect(name).pair();
    let (naive, reuse, streaming) = (pair(NAIVE), pair(NAIVE_REUSE), pair(STREAMING));
    let allocating = difference_bounds(naive, reuse);
    let parsing = difference_bounds(reuse, streaming);
    let floor = 0.01 * naive.original_ns.max(naive.twin_ns);
    if allocating.0 - parsing.1 > floor {
        Some("allocating".to_owned())
    } else if parsing.0 - allocating.1 > floor {
        Some("the parser and formatting".to_owned())
    } else {
        None
    }
}

fn r2_table(m: &Measured) -> Table {
    let lines = CHUNK_LINES as f64;
    let rows: Vec<Method<'_>> = m.methods().collect();
    Columns::new()
        .col("method", |r: &Method<'_>| {
            Cell::text(if is_strategy(r.name()) {
                format!("`{}`", r.name())
            } else {
                r.name().to_owned()
            })
        })
        .col("per line", move |r: &Method<'_>| {
            Cell::Nanos(r.median_ns() / lines)
        })
        .col("twin disagreement", |r: &Method<'_>| {
            Cell::Percent(r.twin_disagreement_pct())
        })
        .col("between processes", Method::spread_cell)
        .col(
            "instructions per line (twin, where it differs)",
            |r: &Method<'_>| {
                r.instructions()
                    .map_or(Cell::Empty, |[original, twin]| Cell::Instructions {
                        original: original / lines,
                        twin: twin / lines,
                    })
            },
        )
        .col("this / `naive`", |r: &Method<'_>| {
            if is_strategy(r.name()) && r.name() != NAIVE {
                m.ratio_cell(r.name(), NAIVE)
            } else {
                Cell::Empty
            }
        })
        .table("R2", Kind::Time, "", &rows)
}

/// R2's figure: each method's time per line, a bar each (log scale: the floors are three
/// decades below `naive`).
fn r2_plot(m: &Measured) -> Plot {
    let lines = CHUNK_LINES as f64;
    let mut plot = Plot::bars(
        "r2-time-per-line",
        "Time per line, each strategy and the two floors (glibc, median over processes)",
        "ns per line (log scale)",
    );
    plot.log_x = true;
    for r in m.methods() {
        plot = plot.bar(r.name().replace('`', ""), r.median_ns() / lines);
    }
    plot
}

fn is_strategy(name: &str) -> bool {
    STRATEGIES.iter().any(|s| s.name() == name)
}

/// In one process: the strategy resolvably faster than every other one, if there is one.
fn fastest(p: &Measurements) -> Option<String> {
    let beats_all = |s: &Strategy| {
        STRATEGIES
            .iter()
            .filter(|other| *other != s)
            .all(|other| p.faster(s.name(), other.name()) == Some(true))
    };
    STRATEGIES
        .iter()
        .find(|s| beats_all(s))
        .map(|s| format!("`{s}`"))
}

/// The instructions of the whole `receipt --strategy streaming FILE` on a generated file, under
/// callgrind; counted by the final process of a full report only (they are deterministic).
fn whole_command_instructions(run: &Run) -> Result<u64, String> {
    if !run.config().count_instructions {
        return Err("instruction counts are taken only by the full report".to_owned());
    }
    if lab::protocol::role() != ProcessRole::Final {
        return Err("instruction counts are taken by the report's final process".to_owned());
    }
    let binary = receipt_binary().ok_or(NO_BINARY)?;
    let file = std::env::temp_dir().join(format!("receipt-r2-{}.txt", std::process::id()));
    std::fs::write(&file, generated(COMMAND_LINES, CHUNK_SEED))
        .map_err(|err| format!("cannot write {}: {err}", file.display()))?;
    let path = file.to_string_lossy();
    let counted = lab::callgrind::count_command(&binary, &["--strategy", STREAMING, &path]);
    let _ = std::fs::remove_file(&file);
    counted
}

fn x1_table(m: &Measured) -> Table {
    // Each strategy against `naive` (`naive-reuse` first: allocating alone), then `streaming`
    // against `naive-reuse`: the parser and formatting alone.
    let mut pairs: Vec<(String, &str, &str)> = STRATEGIES
        .into_iter()
        .filter(|s| s.name() != NAIVE)
        .map(|s| (format!("`{s}` vs `naive`"), s.name(), NAIVE))
        .collect();
    pairs[0].0 = format!("`{NAIVE_REUSE}` vs `naive`: allocating alone");
    pairs.push((
        format!("`{STREAMING}` vs `{NAIVE_REUSE}`: the parser and formatting alone"),
        STREAMING,
        NAIVE_REUSE,
    ));
    let rows: Vec<Technique<'_>> = pairs
        .iter()
        .map(|(label, technique, baseline)| Technique {
            label,
            measured: m,
            technique,
            baseline,
        })
        .collect();
    let mut table = allocator_table(
        "X1-receipt",
        "Does each strategy still beat `naive` under mimalloc, and does keeping `naive`'s `String`s? (R2's run)",
        &rows,
    );
    table.note(m.protocol_note());
    table.note("Each row compares two methods of R2's run, in the same processes. Once warm, only `naive` allocates (R1-per-line), so only `naive` can gain from a faster allocator; the first row is what allocating costs it, the last what the parser and formatting cost when neither side allocates.");
    table.note("Under mimalloc the chunk ran in another binary, laid out differently: strategies are compared inside each allocator's processes, never one strategy across allocators.");
    if let Some(mm) = m.under(Allocator::Mimalloc) {
        table.conclude(
            format!("target under mimalloc: `streaming` at least {SPEEDUP_TARGET}× faster per line than `naive` (mimalloc serves `naive`'s small allocations from per-thread free lists)"),
            mm.target_speedup(STREAMING, NAIVE, SPEEDUP_TARGET),
        );
    }
    conclude_parts(m, &mut table);
    conclude_larger_part(m, &mut table);
    table
}
