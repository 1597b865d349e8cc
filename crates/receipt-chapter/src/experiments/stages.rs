//! R5: where a line's time goes. The streaming strategy's own code — its fast lane cut at a
//! depth, then the whole strategy — cut after each stage (`workloads::Stage`), timed in one
//! interleaved run on R2's chunk; what each stage adds is a difference between consecutive
//! stages, printed under the publish rule.

use std::hint::black_box;

use lab::publish::Verdict;
use lab::report::{Function, Run};
use lab::table::{Cell, Claim, Columns};
use lab::timing::{Measured, Schedule, Timing};
use lab::{Kind, Table};
use receipt::generate::MENU;

use crate::workloads::{self, CHUNK_LINES, Stage, Stages};

pub(super) const R5: Function = lab::function!(r5_where_the_time_goes);

/// The ratios stated under R5: a stage's time over another's, and what that says.
const RATIOS: [(&str, Stage, Stage); 3] = [
    (
        "finding the line ends (the floor) / the whole line (`+ write`)",
        Stage::LineEnds,
        Stage::Write,
    ),
    (
        "reading and checking the line (`+ parse and check the numbers`) / the whole line (`+ write`)",
        Stage::Numbers,
        Stage::Write,
    ),
    (
        "the order loop and the receipt (`+ render`) / reading and checking the line (`+ parse and check the numbers`)",
        Stage::Render,
        Stage::Numbers,
    ),
];

fn r5_where_the_time_goes(run: &Run) -> Vec<Table> {
    let input = workloads::chunk();
    let chunk = &input;
    let mut timing = Timing::new(run.config());
    for stage in Stage::MEASURED {
        // Each copy keeps its own buffers and item cache: no stage finds another's cache filled.
        let (mut original, mut twin) = (Stages::new(), Stages::new());
        timing.method_pair(
            stage.name(),
            move || original.run::<0>(stage, black_box(chunk)),
            move || twin.run::<1>(stage, black_box(chunk)),
        );
    }
    let m = timing.run(Schedule::Interleaved);

    let mut table = run.own(r5_table(&m));
    table.note(m.protocol_note());
    table.note(format!("One operation is R2's chunk, {} generated lines handed over in one piece (no line is cut by a chunk boundary); \"per line\" is the chunk's median divided by its lines. Each stage's twin runs a second copy of its code (`Stages::run::<1>`). What a stage adds is its difference from the row it is compared with (the row above; for the last row, `+ parse and check the numbers`), printed only where it beats both rows' noise. The added times are differences between two programs, not shares of one line's time: the rows down to `+ parse and check the numbers` run loops of their own and `+ render` and `+ write` the whole strategy, whose code is laid out and scheduled differently, so they need not add up to the whole line and one can be negative.", Cell::count(CHUNK_LINES).render()));
    table.note("The first row is the floor of any line-by-line work, not code the strategy runs. The next three run the strategy's fast lane cut at a depth, in a loop of their own (every line's findings through `black_box`); `+ render` is the whole streaming strategy with its receipts discarded (`io::sink()`), and `+ write` also copies them into a reused buffer, as R2's `streaming` row does, but into a buffer emptied once it holds 256 KiB where R2's holds the whole chunk's receipts: the two rows need not time the same. The appendix says what each stage does.");
    table.note(format!("On this input, whose {} names (`generate::MENU`) repeat, what `+ check the item` adds is mostly the item cache's lookups; the last row turns the cache off, and what it adds is what every line would pay for its name without the cache.", MENU.len()));
    table.note(super::copies_under_callgrind("`+ write`"));
    if m.expect(Stage::Write.name()).instructions().is_none() {
        table.note(m.instructions_note());
    }
    for (claim, a, b) in RATIOS {
        table.conclude(claim, m.bound(a.name(), b.name()));
    }
    table.conclude(
        "the stage that adds the most instructions per line (callgrind's counts are exact: no noise to beat)",
        most_instructions(&m),
    );
    vec![table]
}

/// The cumulative stage whose instructions per line exceed the stage before it by the most,
/// from the original copies' counts; not resolvable where they were not counted.
fn most_instructions(m: &Measured) -> Claim {
    let count = |stage: Stage| {
        m.expect(stage.name())
            .instructions()
            .map(|[original, _]| original)
    };
    let added: Option<Vec<(Stage, f64)>> = Stage::ALL
        .iter()
        .map(|&stage| {
            let before = stage.compared_with().map_or(Some(0.0), count)?;
            Some((stage, count(stage)? - before))
        })
        .collect();
    let most = added.and_then(|added| {
        added
            .into_iter()
            .max_by(|(_, a), (_, b)| a.total_cmp(b))
            .map(|(stage, _)| stage)
    });
    most.map_or(Claim::NotResolvable, |stage| Claim::Verdict {
        text: format!("`{}`", stage.name()),
    })
}

/// A stage and the one it is compared with (none for the first).
type Step = (Stage, Option<Stage>);

fn r5_table(m: &Measured) -> Table {
    let lines = CHUNK_LINES as f64;
    let steps: Vec<Step> = Stage::MEASURED
        .iter()
        .map(|&stage| (stage, stage.compared_with()))
        .collect();
    let instructions = |stage: Stage| m.expect(stage.name()).instructions();
    Columns::new()
        .col("stage", |(stage, _): &Step| Cell::text(stage.name()))
        .col("per line", |(stage, _): &Step| {
            Cell::Nanos(m.expect(stage.name()).median_ns() / lines)
        })
        .col("added, per line", |(stage, before): &Step| {
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
            m.expect(stage.name()).spread_cell()
        })
        .col(
            "instructions per line (twin, where it differs)",
            |(stage, _): &Step| {
                instructions(*stage).map_or(Cell::Empty, |[original, twin]| Cell::Instructions {
                    original: original / lines,
                    twin: twin / lines,
                })
            },
        )
        .table("R5", Kind::Time, "", &steps)
}
