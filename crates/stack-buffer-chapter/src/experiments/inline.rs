//! `SmallVec` beside the hand-written hybrid (S12): allocations per call and the size of the
//! value (counted), and the time to reach a usable buffer (S12-time).

use std::hint::black_box;

use lab::plot::Plot;
use lab::report::{Function, Run};
use lab::table::Columns;
use lab::timing::{BySize, Schedule, Timing};
use lab::{Cell, Kind, Table, count};
use stack_buffer::{CAP, MAX_STACK_ITEMS, SMALL_INLINE};

use super::{items, pair};
use crate::disasm::{self, Disassembly};
use crate::workloads::{self, S12_FUNCTIONS, S12_ITEMS, S12_VALUE_SIZES};

pub(super) const S12: Function = lab::function!(s12_smallvec_counts);
pub(super) const S12_TIME: Function = lab::function!(s12_smallvec_time);

pub(super) const LARGE: &str = "`SmallVec<[f64; 256]>`";
const SMALL: &str = "`SmallVec<[f64; 32]>`";
pub(super) const HYBRID: &str = "hybrid (stack ≤ 128 items, pool above)";

/// One order size's counted cost of each way to get the scratch.
struct Calls {
    n: usize,
    large: lab::AllocStats,
    small: lab::AllocStats,
    hybrid: lab::AllocStats,
}

fn calls(n: usize) -> Calls {
    workloads::s12_hybrid::<0>(n); // warm the pool for this size
    Calls {
        n,
        large: count(|| black_box(workloads::s12_smallvec_256::<0>(n))).1,
        small: count(|| black_box(workloads::s12_smallvec_32::<0>(n))).1,
        hybrid: count(|| black_box(workloads::s12_hybrid::<0>(n))).1,
    }
}

fn s12_smallvec_counts(run: &Run) -> Vec<Table> {
    let rows: Vec<Calls> = S12_ITEMS.map(calls).into();
    let mut s12 = run.own(
        Columns::new()
            .col("N items", |c: &Calls| Cell::count(c.n))
            .col("values (2N)", |c: &Calls| Cell::count(2 * c.n))
            .col(format!("{LARGE}: allocations"), |c: &Calls| {
                Cell::Count(c.large.allocs)
            })
            .col(format!("{LARGE}: bytes"), |c: &Calls| {
                Cell::Bytes(c.large.bytes_allocated)
            })
            .col(format!("{SMALL}: allocations"), |c: &Calls| {
                Cell::Count(c.small.allocs)
            })
            .col(format!("{SMALL}: bytes"), |c: &Calls| {
                Cell::Bytes(c.small.bytes_allocated)
            })
            .col("hybrid, warm pool: allocations", |c: &Calls| {
                Cell::Count(c.hybrid.allocs)
            })
            .table("S12", Kind::Count, "", &rows),
    );
    s12.note(format!("One call each: `smallvec![0.0; 2N]` (through `SmallVec::from_elem`), touched. A `SmallVec<[f64; {CAP}]>` holds up to {CAP} values inline ({MAX_STACK_ITEMS} items) and a `SmallVec<[f64; {SMALL_INLINE}]>` up to {SMALL_INLINE} ({} items); above that, one heap allocation of exactly 2N values per call. The hybrid rents from a warm pool above {MAX_STACK_ITEMS} items and allocates nothing.", SMALL_INLINE / 2));
    s12.note(
        "Counted by `lab::CountingAlloc` for the calling thread: exact, and the same on every run.",
    );

    let mut size = Columns::new()
        .col("value", |(what, _): &(&str, usize)| Cell::text(*what))
        .col("`size_of`", |(_, bytes): &(&str, usize)| {
            Cell::bytes(*bytes)
        })
        .table(
            "S12-size",
            Kind::Count,
            "What a move copies: the size of the scratch value itself",
            &S12_VALUE_SIZES,
        );
    size.note("A `SmallVec` carries its inline array inside the value, plus a length and a tag: returning it, passing it by value or pushing it into a collection is a move of all of it, spilled or not, and a move is a copy unless the compiler elides it (S12-code shows one that was not elided). A `Vec` or a pool guard is a few words wherever its data lives.");
    vec![s12, size]
}

fn time_size(run: &Run, n: usize) -> lab::timing::Measured {
    workloads::s12_hybrid::<0>(n); // warm the pool for this size
    workloads::s12_hybrid::<1>(n);
    // Three methods × 7 sizes × 2 copies: callgrind children would add minutes.
    let mut timing = Timing::new(run.config().without_instructions());
    pair!(timing, LARGE, workloads::s12_smallvec_256(n));
    pair!(timing, SMALL, workloads::s12_smallvec_32(n));
    pair!(timing, HYBRID, workloads::s12_hybrid(n));
    timing.run(Schedule::Interleaved)
}

fn s12_smallvec_time(run: &Run) -> Vec<Table> {
    let runs = run.time_by_size(&S12_ITEMS, |n| time_size(run, n));
    let mut table = run.own(
        Columns::new()
            .col("N items", |s: &BySize| Cell::count(s.size))
            .col(LARGE, |s: &BySize| s.measured.expect(LARGE).median_cell())
            .col(SMALL, |s: &BySize| s.measured.expect(SMALL).median_cell())
            .col(HYBRID, |s: &BySize| s.measured.expect(HYBRID).median_cell())
            .col("largest twin disagreement", |s: &BySize| {
                s.measured.worst_twin_cell()
            })
            .col("between processes", |s: &BySize| {
                s.measured.worst_spread_cell()
            })
            .table("S12-time", Kind::Time, "", &runs),
    );
    table.note(runs[0].measured.protocol_note());
    table.note("The work is S1's touch of 2N values. A `SmallVec` zeroes exactly 2N values and allocates above its inline capacity; the hybrid zeroes its whole 2 KiB array up to 128 items and rents from a warm pool above. The arms differ in one more thing: each call moves the `SmallVec`, its inline array included (S12-code). X1-stack (appendix) gives the spilled sizes under mimalloc.");
    let inline: Vec<&BySize> = runs.iter().filter(|s| s.size <= MAX_STACK_ITEMS).collect();
    let spilled: Vec<&BySize> = runs.iter().filter(|s| s.size > MAX_STACK_ITEMS).collect();
    let small_spilled: Vec<&BySize> = runs.iter().filter(|s| 2 * s.size > SMALL_INLINE).collect();
    let questions: [(&str, &[&BySize], &str, &str); 3] = [
        (
            "the sizes up to 128 items at which `SmallVec<[f64; 256]>`, zeroing 2N values, is faster than the hybrid, zeroing 2 KiB",
            &inline,
            LARGE,
            HYBRID,
        ),
        (
            "the sizes above 128 items at which the hybrid's warm pool is faster than `SmallVec<[f64; 256]>`",
            &spilled,
            HYBRID,
            LARGE,
        ),
        (
            "the sizes above 16 items at which the hybrid is faster than `SmallVec<[f64; 32]>`",
            &small_spilled,
            HYBRID,
            SMALL,
        ),
    ];
    for (claim, sizes, faster, than) in questions {
        table.conclude(
            claim,
            BySize::sizes_where_faster(sizes, faster, than, items),
        );
    }
    table.plots.push(s12_plot(&runs));
    vec![table, code_table()]
}

/// S12-time's figure: the two `SmallVec`s and the hybrid, time per call against N.
fn s12_plot(runs: &[BySize]) -> Plot {
    let line = |method: &str| {
        runs.iter()
            .map(|s| (s.size as f64, s.measured.expect(method).median_ns()))
            .collect::<Vec<_>>()
    };
    let mut plot = Plot::lines(
        "s12-smallvec-by-size",
        "Time to reach a usable buffer of 2N f64s and touch it: two SmallVecs and the hybrid (median over processes, glibc)",
        "N items (log scale)",
        "ns per call (log scale)",
    )
    .series("SmallVec<[f64; 32]>", line(SMALL))
    .series("SmallVec<[f64; 256]>", line(LARGE))
    .series("hybrid: stack up to 128 items, pool above", line(HYBRID));
    plot.log_x = true;
    plot.log_y = true;
    plot
}

/// One S12 function as read from this binary.
struct Code {
    name: &'static str,
    label: &'static str,
    /// The size of the inline array its value carries, for a `SmallVec`.
    inline: Option<usize>,
    read: Result<Disassembly, String>,
}

/// S12-code: what the timed functions do in machine code, read with `objdump` from this
/// binary (as S4 reads the stack arrays).
fn code_table() -> Table {
    let binary = std::env::current_exe().map_err(|err| format!("cannot locate the binary: {err}"));
    let rows: Vec<Code> = S12_FUNCTIONS
        .iter()
        .zip([
            (LARGE, Some(size_of::<[f64; CAP]>())),
            (SMALL, Some(size_of::<[f64; SMALL_INLINE]>())),
            (
                "the hybrid's stack half, up to 128 items: `[0.0; 256]`",
                None,
            ),
        ])
        .map(|(&(name, f), (label, inline))| {
            // Calling each one through an opaque pointer keeps it in the binary.
            black_box(black_box(f)(1));
            let symbol = workloads::symbol(name);
            Code {
                name,
                label,
                inline,
                read: binary
                    .clone()
                    .and_then(|b| disasm::disassemble(&b, &symbol)),
            }
        })
        .collect();
    let read = |c: &Code, cell: &dyn Fn(&Disassembly) -> Cell| match &c.read {
        Ok(d) => cell(d),
        Err(why) => Cell::text(format!("not read: {why}")),
    };
    let mut table = Columns::new()
        .col("function", |c: &Code| Cell::text(format!("`{}`", c.name)))
        .col("scratch", |c: &Code| Cell::text(c.label))
        .col("calls `memset`", |c: &Code| {
            read(c, &|d| Cell::Bool(d.memset_call))
        })
        .col("calls `memcpy`", |c: &Code| {
            read(c, &|d| Cell::count(d.memcpy_calls))
        })
        .col("bytes the `memcpy` calls copy", |c: &Code| {
            read(c, &|d| Cell::bytes(d.memcpy_bytes))
        })
        .col("its inline array", |c: &Code| {
            c.inline.map_or(Cell::Empty, Cell::bytes)
        })
        .col("copies at least its inline array?", |c: &Code| {
            match c.inline {
                Some(inline) => read(c, &|d| Cell::Bool(d.memcpy_bytes >= inline)),
                None => Cell::Empty,
            }
        })
        .table(
            "S12-code",
            Kind::Fact,
            "What the timed functions do with their memory, read from the experiments binary",
            &rows,
        );
    table.note("Read with `objdump -d` from the binary that timed S12-time (copy 0 of each function), as S4 reads the stack arrays. `s12_hybrid` itself only calls `s1_stack` (up to 128 items) or `s1_pool`, so its stack half is read instead. The `memset` is the zeroing (of the 2N values in use for a `SmallVec`, of the whole 2 KiB for the stack array). A `memcpy` is a value moved in memory; its size is counted when the code loads it as a constant, and a call of any other size adds nothing to the bytes.");
    table.note("`SmallVec::from_elem` builds the value and returns it to its caller, and here that move was not elided: the `memcpy` copies the value's data field, its tag and the whole inline array (the length field, the rest of S12-size's figure, travels apart), however few of its values are in use. A move can be elided; this one, in this build, was not.");
    table
}
