//! M3, M4, M5 and M8: twins, the floor, the publish rule, and the second noise source.

use lab::fmt::significant;
use lab::plot::{Plot, Series};
use lab::publish::{self, Figures, RATIO_PRECISION, Verdict};
use lab::report::{Function, Run};
use lab::table::{Cell, Claim, Columns, Kind, Table};
use lab::timing::{Measured, Method, Role, Schedule, Timing};

use crate::workloads;

pub(super) const M3: Function = lab::function!(m3_twins_floor_and_rule);

const ZEROED: &str = "zeroed 2 KiB stack array `[0u8; 2048]`";
const UNZEROED: &str = "unzeroed 2 KiB stack array (`MaybeUninit`)";
const HEAP: &str = "heap `vec![0u8; 2048]`";
const FLOOR: &str = "touch an existing 2 KiB buffer";

fn m3_timing(run: &Run, schedule: Schedule) -> Measured {
    use workloads::{floor_touch, heap_2k, uninit_stack_2k, zeroed_stack_2k};
    let mut timing = Timing::new(run.config());
    // Each method and its twin are two copies of the measured function (`::<0>` and `::<1>`).
    timing.method_pair(ZEROED, zeroed_stack_2k::<0>, zeroed_stack_2k::<1>);
    timing.method_pair(UNZEROED, uninit_stack_2k::<0>, uninit_stack_2k::<1>);
    timing.method_pair(HEAP, heap_2k::<0>, heap_2k::<1>);
    // Each copy of the floor owns an existing buffer of its own.
    let (mut original, mut twin) = ([0u8; workloads::DEMO_BYTES], [0u8; workloads::DEMO_BYTES]);
    timing.floor_pair(
        FLOOR,
        move || floor_touch::<0>(&mut original),
        move || floor_touch::<1>(&mut twin),
    );
    timing.run(schedule)
}

/// The largest twin disagreement of one process's run.
fn worst_in_process(m: &lab::timing::Measurements) -> f64 {
    m.methods
        .iter()
        .map(|r| r.twin_disagreement_pct())
        .fold(0.0, f64::max)
}

fn m3_twins_floor_and_rule(run: &Run) -> Vec<Table> {
    // Sequential first, then interleaved: the same methods, the same batch target.
    let sequential = m3_timing(run, Schedule::Sequential);
    let interleaved = m3_timing(run, Schedule::Interleaved);

    let pairs: Vec<(Method<'_>, Method<'_>)> =
        interleaved.methods().zip(sequential.methods()).collect();
    let mut m3 = run.own(
        Columns::new()
            .col("method", |(a, _): &(Method<'_>, Method<'_>)| {
                Cell::text(a.name())
            })
            .col("interleaved median", |(a, _): &(Method<'_>, Method<'_>)| {
                a.median_cell()
            })
            .col(
                "interleaved twin disagreement",
                |(a, _): &(Method<'_>, Method<'_>)| Cell::Percent(a.twin_disagreement_pct()),
            )
            .col("sequential median", |(_, b): &(Method<'_>, Method<'_>)| {
                b.median_cell()
            })
            .col(
                "sequential twin disagreement",
                |(_, b): &(Method<'_>, Method<'_>)| Cell::Percent(b.twin_disagreement_pct()),
            )
            .table("M3", Kind::Time, "", &pairs),
    );
    m3.row(vec![
        Cell::text("**largest twin disagreement**"),
        Cell::Empty,
        interleaved.worst_twin_cell(),
        Cell::Empty,
        sequential.worst_twin_cell(),
    ]);
    m3.note(interleaved.protocol_note_full());
    m3.note("The sequential columns ran every round of one copy before the next, as criterion does; only the order differs. Twin disagreement: the largest of any process.");
    m3.conclude(
        "in every process, the largest twin disagreement of the interleaved run was smaller than the sequential run's",
        lab::timing::agree(interleaved.process_count(), |p| {
            Some(
                if worst_in_process(&interleaved.processes[p])
                    < worst_in_process(&sequential.processes[p])
                {
                    "yes"
                } else {
                    "no"
                }
                .to_owned(),
            )
        }),
    );
    m3.plots.push(m3_plot(&interleaved, &sequential));

    let mut m4 = interleaved.table_with(
        "M4",
        "The floor: what the harness costs, and each method minus it (interleaved run)",
        &compact_columns(&interleaved),
    );
    m4.conclude(
        "the heap's fresh `vec![0u8; 2048]` / touching an existing 2 KiB buffer",
        interleaved.bound(HEAP, FLOOR),
    );
    m4.conclude(
        "the faster of the floor and the unzeroed 2 KiB stack array (whether reserving 2 KiB of stack costs anything)",
        interleaved.faster_of(FLOOR, "the floor", UNZEROED, "the unzeroed array"),
    );
    let m5 = m5_publish_rule(&interleaved);
    let m8 = m8_between_processes(&interleaved);
    vec![m3, m4, m5, m8]
}

/// The standard timed columns less the quartiles, so a main-page table stays within six
/// columns: method, median, both noise sources, minus the floor, instructions.
pub(super) fn compact_columns(measured: &Measured) -> Columns<'_, Method<'_>> {
    let floor = measured.floor().map(|f| f.name().to_owned());
    Columns::new()
        .col("method", |m: &Method<'_>| {
            Cell::text(if m.role() == Role::Floor {
                format!("{} (floor)", m.name())
            } else {
                m.name().to_owned()
            })
        })
        .col("median", Method::median_cell)
        .col("twin disagreement", |m: &Method<'_>| {
            Cell::Percent(m.twin_disagreement_pct())
        })
        .col("between processes", Method::spread_cell)
        .col("minus floor", move |m: &Method<'_>| {
            match (&floor, m.role()) {
                (Some(floor), Role::Method) => measured.difference_cell(m.name(), floor),
                _ => Cell::Empty,
            }
        })
        .col("instructions (twin, where it differs)", |m: &Method<'_>| {
            m.instructions()
                .map_or(Cell::Empty, |[original, twin]| Cell::Instructions {
                    original,
                    twin,
                })
        })
}

fn m3_plot(interleaved: &Measured, sequential: &Measured) -> Plot {
    let rounds = |samples: &[f64]| {
        samples
            .iter()
            .enumerate()
            .map(|(r, ns)| (r as f64, *ns))
            .collect()
    };
    let (hi, hs) = (
        interleaved.live().expect(HEAP),
        sequential.live().expect(HEAP),
    );
    Plot {
        file: "m3-rounds".into(),
        title: format!("{HEAP}: ns per operation, round by round (one process)").replace('`', ""),
        x_label: "round".into(),
        y_label: "ns per operation".into(),
        log_x: false,
        log_y: false,
        series: vec![
            Series {
                name: "interleaved, original".into(),
                points: rounds(&hi.samples[0]),
            },
            Series {
                name: "interleaved, twin".into(),
                points: rounds(&hi.samples[1]),
            },
            Series {
                name: "sequential, original".into(),
                points: rounds(&hs.samples[0]),
            },
            Series {
                name: "sequential, twin".into(),
                points: rounds(&hs.samples[1]),
            },
        ],
        bars: false,
    }
}

/// One row of M5: a comparison, its value, the noise it had to beat and what was printed.
struct RuleRow {
    label: String,
    value: Cell,
    noise: Cell,
    printed: Cell,
}

fn difference_row(label: &str, a: &Figures, b: &Figures) -> RuleRow {
    let verdict = publish::difference(a, b);
    let noise = a
        .noise_ns()
        .max(b.noise_ns())
        .max(publish::absolute_floor_ns(a, b));
    RuleRow {
        label: label.to_owned(),
        value: Cell::Nanos(verdict.value()),
        noise: Cell::Nanos(noise),
        printed: match verdict {
            Verdict::Published(ns) => Cell::Nanos(ns),
            Verdict::NotResolvable { .. } => Cell::NotResolvable,
        },
    }
}

fn m5_publish_rule(measured: &Measured) -> Table {
    let get = |name: &str| measured.expect(name).figures();
    let (zeroed, unzeroed, heap, floor) = (get(ZEROED), get(UNZEROED), get(HEAP), get(FLOOR));
    // The original against its own twin, as if they were two methods.
    let swapped = Figures {
        per_process: zeroed
            .per_process
            .iter()
            .map(|p| publish::Pair {
                original_ns: p.twin_ns,
                twin_ns: p.original_ns,
            })
            .collect(),
    };
    let ratio = publish::ratio(&heap, &zeroed, RATIO_PRECISION);
    let swap = heap
        .per_process
        .iter()
        .zip(&zeroed.per_process)
        .map(|(a, b)| publish::ratio_spread(*a, *b))
        .fold(0.0, f64::max);
    let ratios: Vec<f64> = heap
        .per_process
        .iter()
        .zip(&zeroed.per_process)
        .map(|(a, b)| a.original_ns / b.original_ns)
        .collect();
    let (lo, hi) = ratios.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), r| {
        (lo.min(*r), hi.max(*r))
    });
    let rows = vec![
        difference_row(
            "zeroed − unzeroed (the cost of zeroing 2 KiB)",
            &zeroed,
            &unzeroed,
        ),
        difference_row("heap − zeroed stack", &heap, &zeroed),
        difference_row(
            "unzeroed − floor (reserving 2 KiB of stack)",
            &unzeroed,
            &floor,
        ),
        difference_row(
            "zeroed − its own twin (a second copy of the same code)",
            &zeroed,
            &swapped,
        ),
        RuleRow {
            label: format!(
                "heap / zeroed stack (precision ±{} %)",
                significant(RATIO_PRECISION * 100.0, 2)
            ),
            value: Cell::Ratio(ratio.value()),
            noise: Cell::text(format!(
                "moves {} under twin swap; {}–{} over processes",
                Cell::Percent(swap * 100.0).render(),
                Cell::Ratio(lo).render(),
                Cell::Ratio(hi).render()
            )),
            printed: Cell::Claim(Claim::ratio(ratio, RATIO_PRECISION)),
        },
    ];
    let mut table = Columns::new()
        .col("comparison", |r: &RuleRow| Cell::text(&r.label))
        .col("median over processes", |r: &RuleRow| r.value.clone())
        .col("noise it must beat", |r: &RuleRow| r.noise.clone())
        .col("printed", |r: &RuleRow| r.printed.clone())
        .table(
            "M5",
            Kind::Time,
            "The publish rule at work on the interleaved run",
            &rows,
        );
    table.note("A difference is printed only if it exceeds, for both methods it is made of, the twin disagreement (the largest of any process) and the between-process spread (largest minus smallest process median), and an absolute floor: 1 % of the larger median, or one instruction's worth of time. The noise column shows the largest of these.");
    table.note("A ratio is printed only if, in addition, it stays within its precision when either twin is swapped in, in every process, and its range over processes does not cross 1×; when that range is wider than the precision it is printed beside the ratio.");
    table.conclude(
        "the faster of the zeroed stack array and the heap's `vec![0u8; 2048]`",
        measured.faster_of(ZEROED, "the zeroed stack array", HEAP, "the heap"),
    );
    table.note("The \"own twin\" row compares the original with its twin as if they were two methods: the noise it must beat includes the pair's own disagreement, which is at least as large as the difference, so it can never be printed.");
    table
}

fn m8_between_processes(measured: &Measured) -> Table {
    let k = measured.process_count();
    let rows: Vec<Method<'_>> = measured.methods().collect();
    let mut columns = Columns::new().col("method", |m: &Method<'_>| Cell::text(m.name()));
    for p in 0..k {
        columns = columns.col(format!("process {}", p + 1), move |m: &Method<'_>| {
            Cell::Nanos(m.per_process()[p].median_ns)
        });
    }
    let mut table = columns
        .col("largest twin disagreement", |m: &Method<'_>| {
            Cell::Percent(m.twin_disagreement_pct())
        })
        .col("between processes", Method::spread_cell)
        .table(
            "M8",
            Kind::Time,
            "The second noise source: the same methods in independent processes",
            &rows,
        );
    let larger = rows
        .iter()
        .filter(|m| m.spread_pct() > m.twin_disagreement_pct())
        .count();
    table.note(measured.protocol_note());
    table.conclude(
        "some method's between-process spread is larger than its largest twin disagreement: twins alone would not see it",
        if k > 1 {
            Claim::Verdict {
                text: if larger > 0 { "yes" } else { "no" }.to_owned(),
            }
        } else {
            Claim::NotResolvable
        },
    );
    if k > 1 {
        table.note(format!(
            "The between-process spread was larger than the twin disagreement for {larger} of {} methods.",
            rows.len()
        ));
    } else {
        table.note("One process only (a `--quick` run): no between-process spread to show.");
    }
    table
}
