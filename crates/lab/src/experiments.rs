//! Chapter 1's experiments, run by `lab-experiments` under `cargo xtask report`.

use std::hint::black_box;

use crate::plot::{Plot, Series};
use crate::report::{Experiment, Settings, Snapshot};
use crate::table::{Cell, Kind, Table};
use crate::timing::publish::{self, Verdict};
use crate::timing::{Config, Measurements, Schedule, Timing};
use crate::workloads;
use crate::{AllocStats, count};

/// Every experiment of chapter 1, in the order the chapter presents them.
pub const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        id: "M1",
        kind: Kind::Count,
        run: m1_counting_allocator,
    },
    Experiment {
        id: "M3",
        kind: Kind::Time,
        run: m3_twins_floor_and_rule,
    },
    Experiment {
        id: "M6",
        kind: Kind::Time,
        run: m6_dev_vs_release,
    },
    Experiment {
        id: "M7",
        kind: Kind::Time,
        run: m7_deleted_work,
    },
];

/// The environment variable through which `cargo xtask report` passes the dev-profile build of
/// this binary to M6.
pub const DEV_BINARY_VAR: &str = "LAB_DEV_BINARY";

/// The M1 rows: a label and the counted cost of one call.
pub fn m1_rows() -> Vec<(&'static str, AllocStats)> {
    vec![
        ("`Box::new(0u64)`", count(workloads::box_u64).1),
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

fn m1_counting_allocator(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "M1",
        Kind::Count,
        "What familiar calls cost, counted by `lab::CountingAlloc` (one call, value kept alive)",
        &[
            "call",
            "allocations",
            "reallocations",
            "deallocations",
            "bytes allocated",
            "peak live bytes",
        ],
    );
    for (label, stats) in m1_rows() {
        table.row(vec![
            Cell::text(label),
            Cell::Count(stats.allocs),
            Cell::Count(stats.reallocs),
            Cell::Count(stats.deallocs),
            Cell::Bytes(stats.bytes_allocated),
            Cell::Bytes(stats.peak_live_bytes),
        ]);
    }
    table.note(
        "Counts are for the calling thread only and exact: the same binary gives the same numbers on every run.",
    );
    table.note(
        "A reallocation is one call, not an allocation plus a free; its growth is added to the bytes allocated, so the 200,000-push row ends at the final capacity.",
    );
    vec![table]
}

const ZEROED: &str = "zeroed 2 KiB stack array `[0u8; 2048]`";
const UNZEROED: &str = "unzeroed 2 KiB stack array (`MaybeUninit`)";
const HEAP: &str = "heap `vec![0u8; 2048]`";
const FLOOR: &str = "touch an existing 2 KiB buffer";

fn m3_timing(config: Config, schedule: Schedule) -> Measurements {
    let mut timing = Timing::new(config);
    timing.method(ZEROED, workloads::zeroed_stack_2k);
    timing.method(UNZEROED, workloads::uninit_stack_2k);
    timing.method(HEAP, workloads::heap_2k);
    // The closure owns the existing buffer; the twin gets its own copy of it.
    let mut existing = [0u8; workloads::DEMO_BYTES];
    timing.floor(FLOOR, move || workloads::floor_touch(&mut existing));
    timing.run(schedule)
}

fn m3_twins_floor_and_rule(settings: &Settings) -> Vec<Table> {
    let config = Config::for_settings(settings);
    // Sequential first, then interleaved: the same methods, the same batch sizes' target.
    let sequential = m3_timing(config, Schedule::Sequential);
    let interleaved = m3_timing(config, Schedule::Interleaved);

    let mut m3 = Table::new(
        "M3",
        Kind::Time,
        "Twins measured two ways: interleaved round-robin vs one method after the other",
        &[
            "method",
            "interleaved median",
            "interleaved twin disagreement",
            "sequential median",
            "sequential twin disagreement",
        ],
    );
    for (a, b) in interleaved.methods.iter().zip(&sequential.methods) {
        m3.row(vec![
            Cell::text(&a.name),
            Cell::Nanos(a.median_ns),
            Cell::Percent(a.twin_disagreement_pct()),
            Cell::Nanos(b.median_ns),
            Cell::Percent(b.twin_disagreement_pct()),
        ]);
    }
    let worst = |m: &Measurements| {
        m.methods
            .iter()
            .map(|r| r.twin_disagreement_pct())
            .fold(0.0, f64::max)
    };
    m3.row(vec![
        Cell::text("**largest twin disagreement**"),
        Cell::Empty,
        Cell::Percent(worst(&interleaved)),
        Cell::Empty,
        Cell::Percent(worst(&sequential)),
    ]);
    m3.note(interleaved.protocol_note());
    m3.note("The sequential columns ran every round of one copy before the next copy, as criterion does; only the order differs.");
    let heap = |m: &Measurements| m.method(HEAP).cloned().expect("registered above");
    let (hi, hs) = (heap(&interleaved), heap(&sequential));
    let rounds = |samples: &[f64]| {
        samples
            .iter()
            .enumerate()
            .map(|(r, ns)| (r as f64, *ns))
            .collect()
    };
    m3.plots.push(Plot {
        file: "m3-rounds".into(),
        title: format!("{HEAP}: ns per operation, round by round").replace('`', ""),
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
    });

    let m4 = interleaved.table(
        "M4",
        "The floor: what the harness costs, and each method minus it (interleaved run)",
    );
    let m5 = m5_publish_rule(&interleaved);
    vec![m3, m4, m5]
}

fn m5_publish_rule(measured: &Measurements) -> Table {
    let get = |name: &str| measured.method(name).expect("registered above").pair();
    let (zeroed, unzeroed, heap, floor) = (get(ZEROED), get(UNZEROED), get(HEAP), get(FLOOR));
    let mut table = Table::new(
        "M5",
        Kind::Time,
        "The publish rule at work on the interleaved run",
        &[
            "comparison",
            "from the originals",
            "noise it must beat",
            "printed",
        ],
    );
    let mut difference = |label: &str, a: publish::Pair, b: publish::Pair| {
        let verdict = publish::difference(a, b);
        let (value, noise) = match verdict {
            Verdict::Published(v) => (v, a.noise_ns().max(b.noise_ns())),
            Verdict::NotResolvable { value, noise } => (value, noise),
        };
        table.row(vec![
            Cell::text(label),
            Cell::Nanos(value),
            Cell::Nanos(noise),
            verdict.cell(Cell::Nanos),
        ]);
    };
    difference(
        "zeroed − unzeroed (the cost of zeroing 2 KiB)",
        zeroed,
        unzeroed,
    );
    difference("heap − zeroed stack", heap, zeroed);
    difference(
        "unzeroed − floor (reserving 2 KiB of stack)",
        unzeroed,
        floor,
    );
    difference(
        "zeroed − its own twin (byte-identical code)",
        publish::Pair {
            original_ns: zeroed.original_ns,
            twin_ns: zeroed.twin_ns,
        },
        publish::Pair {
            original_ns: zeroed.twin_ns,
            twin_ns: zeroed.original_ns,
        },
    );
    let verdict = publish::ratio(heap, zeroed, RATIO_PRECISION);
    let value = heap.original_ns / zeroed.original_ns;
    let spread = publish::ratio_spread(heap, zeroed);
    table.row(vec![
        Cell::text(format!(
            "heap / zeroed stack (precision ±{} %)",
            RATIO_PRECISION * 100.0
        )),
        Cell::Ratio(value),
        Cell::Text(format!(
            "moves {} under twin swap",
            Cell::Percent(spread * 100.0).render()
        )),
        verdict.cell(Cell::Ratio),
    ]);
    table.note("A difference is printed only if it exceeds the twin disagreement of both methods it is made of; a ratio only if, in addition, it stays within its precision when either twin is swapped in.");
    table.note("The \"own twin\" row compares the original with its twin as if they were two methods: its noise is the pair's own disagreement, so it can never be printed. Any row whose value is smaller than its noise reads *not resolvable*.");
    table
}

/// The precision a ratio must hold under twin swap to be printed in chapter 1.
pub const RATIO_PRECISION: f64 = 0.10;

const M6_WORKLOADS: [&str; 2] = [
    "200,000 × `Vec::<u64>::push`, no reserve",
    "`format!` of the order line",
];

fn m6_timing(settings: &Settings) -> Measurements {
    let mut timing = Timing::new(Config::for_settings(settings));
    timing.method(M6_WORKLOADS[0], || {
        workloads::push_u64(black_box(workloads::PUSHES))
    });
    timing.method(M6_WORKLOADS[1], workloads::format_order_line);
    timing.run(Schedule::Interleaved)
}

fn m6_dev_vs_release(settings: &Settings) -> Vec<Table> {
    let here = m6_timing(settings);
    let mut table = here.table("M6", "The same workload in the dev profile and in release");
    if cfg!(debug_assertions) {
        // The dev build only reports its own figures; the release build assembles the table.
        return vec![table];
    }
    let dev = dev_m6_table(settings);
    if let Err(reason) = &dev {
        eprintln!("(M6: no dev figures: {reason}) ");
    }
    let mut merged = Table::new(
        "M6",
        Kind::Time,
        "The same workload in the dev profile and in release",
        &[
            "workload",
            "dev median",
            "dev twin disagreement",
            "release median",
            "release twin disagreement",
            "dev / release",
        ],
    );
    for (idx, name) in M6_WORKLOADS.iter().enumerate() {
        let release = here.method(name).expect("registered above");
        let dev_pair = dev.as_ref().ok().and_then(|t| {
            match (t.rows[idx][1].clone(), t.rows[idx][3].clone()) {
                (Cell::Nanos(original_ns), Cell::Nanos(twin_ns)) => Some(publish::Pair {
                    original_ns,
                    twin_ns,
                }),
                _ => None,
            }
        });
        match dev_pair {
            Some(dev_pair) => merged.row(vec![
                Cell::text(*name),
                Cell::Nanos(dev_pair.original_ns),
                Cell::Percent(dev_pair.disagreement_pct()),
                Cell::Nanos(release.median_ns),
                Cell::Percent(release.twin_disagreement_pct()),
                publish::ratio(dev_pair, release.pair(), RATIO_PRECISION).cell(Cell::Ratio),
            ]),
            None => merged.row(vec![
                Cell::text(*name),
                Cell::Empty,
                Cell::Empty,
                Cell::Nanos(release.median_ns),
                Cell::Percent(release.twin_disagreement_pct()),
                Cell::Empty,
            ]),
        };
    }
    merged.twins = std::mem::take(&mut table.twins);
    merged.note(here.protocol_note());
    merged.note("The dev column ran in a separate process (the dev-profile build of the same binary), so it was not interleaved with the release column; each column's twins were interleaved with each other.");
    if let Err(reason) = &dev {
        merged.note(format!("No dev figures: {reason}."));
    }
    vec![merged]
}

/// Runs M6 in the dev-profile build of this binary and returns its table.
fn dev_m6_table(settings: &Settings) -> Result<Table, String> {
    let path = std::env::var_os(DEV_BINARY_VAR).ok_or_else(|| {
        format!("the dev build was not given (run through `cargo xtask report`, which passes it in `{DEV_BINARY_VAR}`)")
    })?;
    let mut command = std::process::Command::new(&path);
    command
        .args(["--only", "M6"])
        .env_remove(DEV_BINARY_VAR)
        .stderr(std::process::Stdio::null());
    if settings.quick {
        command.arg("--quick");
    }
    let output = command
        .output()
        .map_err(|err| format!("cannot run {}: {err}", path.display()))?;
    if !output.status.success() {
        return Err(format!("{} failed ({})", path.display(), output.status));
    }
    let snapshot: Snapshot = serde_json::from_slice(&output.stdout)
        .map_err(|err| format!("{} printed no snapshot: {err}", path.display()))?;
    snapshot
        .table("M6")
        .cloned()
        .ok_or_else(|| format!("{} produced no M6 table", path.display()))
}

fn m7_deleted_work(settings: &Settings) -> Vec<Table> {
    let values: Vec<u64> = (0..workloads::CHECKSUM_LEN as u64).collect();
    let mut timing = Timing::new(Config::for_settings(settings));
    timing.floor("empty closure", || ());
    let honest = values.clone();
    timing.method(
        "honest: `checksum(black_box(&values))`, result kept",
        move || workloads::checksum(black_box(&honest)),
    );
    let deleted = values;
    timing.method("deleted: `checksum(&values)`, result dropped", move || {
        let _ = workloads::checksum(&deleted);
    });
    let measured = timing.run(Schedule::Interleaved);
    let mut table = measured.table(
        "M7",
        "A benchmark whose work the optimiser deletes, beside the honest one",
    );
    table.note(format!("Both closures call the same `checksum` over {} `u64`s. The deleted one drops the result and hides nothing from the optimiser, so the call is removed and what remains is the harness: it reads like the floor.", workloads::CHECKSUM_LEN));
    vec![table]
}
