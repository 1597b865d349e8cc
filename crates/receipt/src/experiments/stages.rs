//! R5: where a line's time goes. The streaming strategy's own code, cut after each stage
//! (`workloads::Stage`), timed in one interleaved run on R2's chunk; what each stage adds is a
//! difference between consecutive stages, printed under the publish rule.

use std::cell::RefCell;
use std::hint::black_box;

use lab::publish::Verdict;
use lab::report::{Function, Run};
use lab::table::{Cell, Claim, Columns};
use lab::timing::{Measured, Schedule, Timing};
use lab::{Kind, Table};

use crate::workloads::{self, CHUNK_LINES, Stage, Stages};

pub(super) const R5: Function = lab::function!(r5_where_the_time_goes);

/// The ratios stated under R5: a stage's time over another's, and what that says.
const RATIOS: [(&str, Stage, Stage); 4] = [
    (
        "finding the line ends / the whole line (`+ write`)",
        Stage::LineEnds,
        Stage::Write,
    ),
    (
        "reading and checking the line (`+ display width`) / the whole line (`+ write`)",
        Stage::Width,
        Stage::Write,
    ),
    (
        "rendering its receipt line and the order's (`+ render`) / reading and checking the line (`+ display width`)",
        Stage::Render,
        Stage::Width,
    ),
    (
        "writing the receipts (`+ write`) / rendering them (`+ render`)",
        Stage::Write,
        Stage::Render,
    ),
];

fn r5_where_the_time_goes(run: &Run) -> Vec<Table> {
    let input = workloads::chunk();
    // Each stage keeps its own buffers and item cache, shared by its original and its twin.
    let stages: Vec<RefCell<Stages>> = Stage::ALL
        .iter()
        .map(|_| RefCell::new(Stages::new()))
        .collect();
    let mut timing = Timing::new(run.config());
    for (stage, state) in Stage::ALL.into_iter().zip(&stages) {
        let input = &input;
        timing.method(stage.name(), move || {
            state.borrow_mut().run(stage, black_box(input))
        });
    }
    let m = timing.run(Schedule::Interleaved);

    let mut table = run.own(r5_table(&m));
    table.note(m.protocol_note());
    table.note(format!("One operation is R2's chunk, {} generated lines handed over in one piece (no line is cut by a chunk boundary); \"per line\" is the chunk's median divided by its lines. Every stage does the work of the ones above it, with the code the streaming strategy runs (the scanner is one function cut at a depth), so what a stage adds is the difference from the stage above, printed only where it beats both stages' noise.", Cell::count(CHUNK_LINES).render()));
    table.note("`+ render` is the whole streaming strategy with its receipts discarded (`io::sink()`); `+ write` hands them to a writer that copies them into a reused buffer, as R2's `streaming` row does (R2 reads its chunk 64 KiB at a time).");
    table.note(super::copies_under_callgrind("`+ write`"));
    if m.expect(Stage::Write.name()).instructions().is_none() {
        table.note(m.instructions_note());
    }
    for (claim, a, b) in RATIOS {
        table.conclude(claim, m.ratio(a.name(), b.name()));
    }
    table.conclude(
        "the stage that adds the most instructions per line (callgrind's counts are exact: no noise to beat)",
        most_instructions(&m),
    );
    vec![table]
}

/// The stage whose instructions per line exceed the stage before it by the most, from the
/// original copies' counts; not resolvable where they were not counted.
fn most_instructions(m: &Measured) -> Claim {
    let counts: Option<Vec<f64>> = Stage::ALL
        .iter()
        .map(|stage| {
            m.expect(stage.name())
                .instructions()
                .map(|[original, _]| original)
        })
        .collect();
    let Some(counts) = counts else {
        return Claim::NotResolvable;
    };
    let added = counts
        .iter()
        .enumerate()
        .map(|(idx, &n)| n - idx.checked_sub(1).map_or(0.0, |before| counts[before]));
    let most = added
        .enumerate()
        .max_by(|(_, a), (_, b)| a.total_cmp(b))
        .map(|(idx, _)| Stage::ALL[idx]);
    most.map_or(Claim::NotResolvable, |stage| Claim::Verdict {
        text: format!("`{}`", stage.name()),
    })
}

/// A stage and the one before it (none for the first).
type Step = (Stage, Option<Stage>);

fn r5_table(m: &Measured) -> Table {
    let lines = CHUNK_LINES as f64;
    let steps: Vec<Step> = Stage::ALL
        .iter()
        .enumerate()
        .map(|(idx, &stage)| (stage, idx.checked_sub(1).map(|before| Stage::ALL[before])))
        .collect();
    let instructions = |stage: Stage| m.expect(stage.name()).instructions();
    Columns::new()
        .col("stage", |(stage, _): &Step| Cell::text(stage.name()))
        .col("per line", |(stage, _): &Step| {
            Cell::Nanos(m.expect(stage.name()).median_ns() / lines)
        })
        .col("added by this stage, per line", |(stage, before): &Step| {
            let Some(before) = before else {
                return Cell::Empty;
            };
            match m.difference(stage.name(), before.name()) {
                Verdict::Published(ns) => Cell::Nanos(ns / lines),
                Verdict::NotResolvable { .. } => Cell::NotResolvable,
            }
        })
        .col("twin disagreement", |(stage, _): &Step| {
            Cell::Percent(m.expect(stage.name()).twin_disagreement_pct())
        })
        .col("between processes", |(stage, _): &Step| {
            if m.process_count() > 1 {
                Cell::Percent(m.expect(stage.name()).spread_pct())
            } else {
                Cell::Empty
            }
        })
        .col("instructions per line (twin)", |(stage, _): &Step| {
            instructions(*stage).map_or(Cell::Empty, |[original, twin]| Cell::Instructions {
                original: original / lines,
                twin: twin / lines,
            })
        })
        .col("instructions added", |(stage, before): &Step| {
            let (Some(this), Some(before)) = (instructions(*stage), before.and_then(instructions))
            else {
                return Cell::Empty;
            };
            Cell::Instructions {
                original: (this[0] - before[0]) / lines,
                twin: (this[1] - before[1]) / lines,
            }
        })
        .table("R5", Kind::Time, "", &steps)
}
