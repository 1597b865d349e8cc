//! Chapter 1's experiments (M1, M3–M8), run by `lab-experiments` under `cargo xtask report`.
//!
//! Chapter 1 sits on top of the kit: nothing in `lab`'s other modules imports this one.

use std::hint::black_box;
use std::path::PathBuf;

use crate::fmt::significant;
use crate::plot::{Plot, Series};
use crate::protocol::{DEV_BINARY_VAR, Settings};
use crate::publish::{self, Figures, RATIO_PRECISION, Verdict};
use crate::report::{Chapter, Experiment, Run, Source};
use crate::table::{Cell, Claim, Columns, Kind, Table};
use crate::timing::{Measured, Method, Schedule, Timing};
use crate::workloads;
use crate::{AllocStats, count};

/// Chapter 1: its experiments in the order the chapter presents them.
pub static CHAPTER: Chapter = Chapter {
    name: "lab",
    experiments: EXPERIMENTS,
    sources: &[
        Source {
            seed: "000",
            note: "The .NET course chapter on `ArrayPool`: it counts bytes with `GC.GetAllocatedBytesForCurrentThread()`, the model for M1's per-thread counts, and keeps every result in a static sink (M7).",
        },
        Source {
            seed: "001",
            note: "The Zig article on arenas: it states its build mode and allocator with every figure, and cites the previous chapter's finding that a Debug build runs tens of times slower than ReleaseFast (M6).",
        },
        Source {
            seed: "002",
            note: "The C# `stackalloc` article (BenchmarkDotNet, .NET 10): its twins, its floor and its publish rule are the model for chapter 1's timing protocol.",
        },
    ],
};

const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        id: "M1",
        kind: Kind::Count,
        title: "What familiar calls cost, counted by `lab::CountingAlloc` (one call; its value kept alive, but in the second row)",
        run: crate::function!(m1_counting_allocator),
        pinned_by: &[
            "crates/lab/tests/counting_alloc.rs::box_u64_is_one_allocation_of_8_bytes",
            "crates/lab/tests/counting_alloc.rs::vec_with_capacity_128_is_one_allocation_of_128_bytes",
            "crates/lab/tests/counting_alloc.rs::thai_string_is_27_bytes",
            "crates/lab/tests/counting_alloc.rs::a_grown_vec_reports_reallocations_not_alloc_free_pairs",
            "crates/lab/tests/counting_alloc.rs::nothing_allocated_reads_zero_while_four_threads_allocate",
            "crates/lab/tests/counting_alloc.rs::format_of_the_order_line_is_one_allocation_and_two_reallocations",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "M3",
        kind: Kind::Time,
        title: "Twins measured two ways: interleaved round-robin vs one method after the other",
        run: crate::function!(m3_twins_floor_and_rule),
        pinned_by: &[
            "crates/lab/src/timing.rs::interleaved_rounds_rotate_and_every_slot_gets_every_round",
            "crates/lab/src/timing.rs::sequential_runs_every_round_of_a_slot_before_the_next",
            "crates/lab/src/timing.rs::twins_are_two_copies_of_the_code",
            "crates/lab/src/publish.rs::a_difference_inside_one_methods_twin_noise_is_not_resolvable",
            "crates/lab/src/publish.rs::a_difference_inside_the_between_process_spread_is_not_resolvable",
            "crates/lab/src/publish.rs::a_difference_below_the_absolute_floor_is_never_printed",
            "crates/lab/src/publish.rs::a_ratio_that_moves_under_twin_swap_is_not_resolvable",
            "crates/lab/src/publish.rs::a_ratio_whose_processes_disagree_is_printed_with_its_range",
            "crates/lab/src/publish.rs::a_verdict_that_flips_in_one_process_varies_between_runs",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "M6",
        kind: Kind::Time,
        title: "The same workload in the dev profile and in release",
        run: crate::function!(m6_dev_vs_release),
        pinned_by: &[],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "M7",
        kind: Kind::Time,
        title: "A benchmark whose work the optimiser deletes, beside the honest one",
        run: crate::function!(m7_deleted_work),
        pinned_by: &[],
        allocator_sensitive: false,
        needs: &[],
    },
];

/// The M1 rows: a label and the counted cost of one call.
pub fn m1_rows() -> Vec<(&'static str, AllocStats)> {
    vec![
        ("`Box::new(0u64)`", count(workloads::box_u64).1),
        (
            "`drop(Box::new(0u64))`, the value never observed",
            count(workloads::box_u64_unobserved).1,
        ),
        (
            "`Vec::<u8>::with_capacity(128)`",
            count(workloads::vec_with_capacity_128).1,
        ),
        (
            "`String::from(\"ต้มยำกุ้ง\")`",
            count(workloads::thai_string).1,
        ),
        (
            "200,000 × `Vec::<u64>::push`, no reserve",
            count(|| workloads::push_u64(workloads::PUSHES)).1,
        ),
        (
            "`format!(\"{order_id}|{item}|{qty}|{unit_price}\\n\")`",
            count(workloads::format_order_line).1,
        ),
    ]
}

fn m1_counting_allocator(run: &Run) -> Vec<Table> {
    let rows = m1_rows();
    let mut table = run.own(
        Columns::new()
            .col("call", |(label, _): &(&str, AllocStats)| Cell::text(*label))
            .col("allocations", |(_, s): &(&str, AllocStats)| {
                Cell::Count(s.allocs)
            })
            .col("reallocations", |(_, s): &(&str, AllocStats)| {
                Cell::Count(s.reallocs)
            })
            .col("deallocations", |(_, s): &(&str, AllocStats)| {
                Cell::Count(s.deallocs)
            })
            .col("bytes allocated", |(_, s): &(&str, AllocStats)| {
                Cell::Bytes(s.bytes_allocated)
            })
            .col("peak live bytes", |(_, s): &(&str, AllocStats)| {
                Cell::Bytes(s.peak_live_bytes)
            })
            .table("M1", Kind::Count, "", &rows),
    );
    table.note(
        "Counts are for the calling thread only and exact: the same binary gives the same numbers on every run.",
    );
    table.note(
        "A reallocation is one call, not an allocation plus a free; its growth is added to the bytes allocated, so the 200,000-push row ends at the final capacity.",
    );
    table.note(
        "The second row is the first without a sink: in this release build the optimiser removed an allocation nothing observes (in the dev profile the same call allocates). A count, like a time, needs its result kept.",
    );
    vec![table]
}

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
fn worst_in_process(m: &crate::timing::Measurements) -> f64 {
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
    m3.note(interleaved.protocol_note());
    m3.note("The sequential columns ran every round of one copy before the next copy, as criterion does; only the order differs. Twin disagreement is the largest of any process.");
    m3.conclude(
        "in every process, the largest twin disagreement of the interleaved run was smaller than the sequential run's",
        crate::timing::agree(interleaved.process_count(), |p| {
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

    let m4 = interleaved.table(
        "M4",
        "The floor: what the harness costs, and each method minus it (interleaved run)",
    );
    let m5 = m5_publish_rule(&interleaved);
    let m8 = m8_between_processes(&interleaved);
    vec![m3, m4, m5, m8]
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
            "zeroed − its own twin (byte-identical code)",
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
        .col("between processes", |m: &Method<'_>| {
            if k > 1 {
                Cell::Percent(m.spread_pct())
            } else {
                Cell::Empty
            }
        })
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
    if k > 1 {
        table.note(format!(
            "In this run the between-process spread was larger than the twin disagreement for {larger} of {} methods: twins share a process, so they cannot see what changes from one process to the next.",
            rows.len()
        ));
    } else {
        table.note(
            "One process only (a `--quick` run): there is no between-process spread to show.",
        );
    }
    table
}

const M6_WORKLOADS: [&str; 2] = [
    "200,000 × `Vec::<u64>::push`, no reserve",
    "`format!` of the order line",
];

fn m6_timing(settings: &Settings) -> Measured {
    let mut timing = Timing::new(crate::timing::Config::for_settings(settings));
    timing.method(M6_WORKLOADS[0], || {
        workloads::push_u64(black_box(workloads::PUSHES))
    });
    timing.method(M6_WORKLOADS[1], workloads::format_order_line);
    timing.run(Schedule::Interleaved)
}

fn m6_dev_vs_release(run: &Run) -> Vec<Table> {
    let release = m6_timing(&run.settings);
    if cfg!(debug_assertions) {
        // The dev build only measures; the release build assembles the table.
        return vec![release.table("M6", run.experiment.title)];
    }
    let dev = std::env::var_os(DEV_BINARY_VAR)
        .map(PathBuf::from)
        .ok_or_else(|| {
            format!("the dev build was not given (run through `cargo xtask report`, which passes it in `{DEV_BINARY_VAR}`)")
        })
        .and_then(|path| {
            Measured::from_child(&path, "M6", &run.settings).map_err(|err| {
                // A dev run that fails in one process but not another would leave the processes
                // with different figures: fail the report instead of printing either.
                assert!(
                    crate::protocol::role() == crate::protocol::ProcessRole::Probe,
                    "M6: the dev-profile run failed: {err}"
                );
                err
            })
        });
    let mut table = Columns::new()
        .col("workload", |name: &&str| Cell::text(*name))
        .col("dev median", |name: &&str| {
            dev.as_ref()
                .map_or(Cell::Empty, |d| d.expect(name).median_cell())
        })
        .col("dev twin disagreement", |name: &&str| {
            dev.as_ref().map_or(Cell::Empty, |d| {
                Cell::Percent(d.expect(name).twin_disagreement_pct())
            })
        })
        .col("release median", |name: &&str| {
            release.expect(name).median_cell()
        })
        .col("release twin disagreement", |name: &&str| {
            Cell::Percent(release.expect(name).twin_disagreement_pct())
        })
        .col("dev / release", |name: &&str| {
            dev.as_ref().map_or(Cell::Empty, |d| {
                Cell::Claim(Claim::ratio(
                    publish::ratio(
                        &d.expect(name).figures(),
                        &release.expect(name).figures(),
                        RATIO_PRECISION,
                    ),
                    RATIO_PRECISION,
                ))
            })
        })
        .table("M6", Kind::Time, run.experiment.title, &M6_WORKLOADS);
    table.note(release.protocol_note());
    table.note("The dev column ran in separate processes (the dev-profile build of the same binary, once beside each release process), so it was not interleaved with the release column; each column's twins were interleaved with each other.");
    if let Err(reason) = &dev {
        table.note(format!("No dev figures: {reason}."));
    }
    vec![table]
}

const EMPTY: &str = "empty closure";
const HONEST: &str = "honest: `checksum(black_box(&values))`, result kept";
const DELETED: &str = "deleted: `checksum(&values)`, result dropped";

fn m7_deleted_work(run: &Run) -> Vec<Table> {
    let values: Vec<u64> = (0..workloads::CHECKSUM_LEN as u64).collect();
    let mut timing = Timing::new(run.config());
    timing.floor(EMPTY, || ());
    let honest = values.clone();
    timing.method(HONEST, move || workloads::checksum(black_box(&honest)));
    let deleted = values;
    timing.method(DELETED, move || {
        let _ = workloads::checksum(&deleted);
    });
    let measured = timing.run(Schedule::Interleaved);
    let mut table = run.own(measured.table("M7", ""));
    table.note(format!("Both closures call the same `checksum` over {} `u64`s. The deleted one drops the result and hides nothing from the optimiser.", workloads::CHECKSUM_LEN));
    let instructions = |name: &str| measured.expect(name).instructions().map(|[o, _]| o);
    if let (Some(deleted), Some(empty), Some(honest)) = (
        instructions(DELETED),
        instructions(EMPTY),
        instructions(HONEST),
    ) {
        table.note(format!(
            "Instructions per operation, counted: the deleted method {}, the empty closure {}, the honest one {}.",
            significant(deleted, 4),
            significant(empty, 4),
            significant(honest, 4)
        ));
    }
    table.conclude(
        "the deleted benchmark cannot be told apart from the empty closure (the floor)",
        measured.verdict(|p| {
            Some(
                if p.faster(DELETED, EMPTY).is_none() {
                    "yes"
                } else {
                    "no"
                }
                .to_owned(),
            )
        }),
    );
    vec![table]
}
