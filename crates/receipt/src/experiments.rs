//! Chapter 5's experiments (R1–R3), run by `receipt-experiments` under `cargo xtask report`.
//! Built only with the `experiments` feature.

use std::hint::black_box;
use std::io::sink;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

use lab::report::{Experiment, Settings};
use lab::timing::publish::{self, Verdict};
use lab::timing::{Config, Schedule, Timing};
use lab::{Cell, Kind, Table, count};

use crate::generate::generated;
use crate::{Processor, STRATEGIES, cases};

/// Every experiment of chapter 5, in the order the chapter presents them.
pub const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        id: "R1",
        kind: Kind::Count,
        run: r1_allocations_per_line,
    },
    Experiment {
        id: "R2",
        kind: Kind::Time,
        run: r2_throughput,
    },
    Experiment {
        id: "R3",
        kind: Kind::Fact,
        run: r3_bad_input,
    },
];

/// The precision a ratio must hold under twin swap to be printed in chapter 5.
pub const RATIO_PRECISION: f64 = 0.10;

/// Lines of the generated file the throughput is measured on.
pub const R2_LINES: u64 = 1_000_000;

fn per_line(total: u64, lines: u64) -> String {
    lab::table::significant(total as f64 / lines as f64, 3)
}

fn r1_allocations_per_line(_: &Settings) -> Vec<Table> {
    let mut columns = vec!["N lines"];
    columns.extend(STRATEGIES.iter().map(|s| s.name()));
    let mut bytes = Table::new(
        "R1",
        Kind::Count,
        "Bytes allocated per line, a fresh processor per run (output to a sink)",
        &columns,
    );
    let mut allocs = Table::new(
        "R1-allocs",
        Kind::Count,
        "Allocations per line, the same runs",
        &columns,
    );
    for e in 0..=6 {
        let n = 10u64.pow(e);
        let input = generated(n, 2026);
        let mut b_row = vec![Cell::Count(n)];
        let mut a_row = vec![Cell::Count(n)];
        for strategy in STRATEGIES {
            let (_, stats) = count(|| {
                Processor::new(strategy)
                    .run(black_box(&input), &mut sink(), &mut sink())
                    .expect("a sink cannot fail")
            });
            b_row.push(Cell::Text(per_line(stats.bytes_allocated, n)));
            a_row.push(Cell::Text(per_line(stats.allocs, n)));
        }
        bytes.row(b_row);
        allocs.row(a_row);
    }
    let mut anchor = vec![Cell::text("seed (.NET, one `new byte[128]` per line)")];
    anchor.push(Cell::Seed("152".into()));
    anchor.extend((1..STRATEGIES.len()).map(|_| Cell::Empty));
    bytes.row(anchor);
    bytes.note("Counted by `lab::CountingAlloc` on the experiment's thread, for the whole run divided by N, so one-off costs (the processor's buffers, the first rent from the pool, the arena's first chunk) are spread over N lines and vanish as N grows; a warm processor allocates nothing at all per line for the four non-naive strategies (`streaming_pooled_stack_and_arena_allocate_0_bytes_per_line_once_warm`, over 100,000 lines).");
    bytes.note("Receipts are written to `std::io::sink()`, so no stdout buffering is counted; the input is generated before counting starts (`receipt gen`, seed 2026: Thai and English items, about two thirds of orders with several lines).");
    bytes.note("Seed: 152,000,000 bytes per million lines, from one 128-byte buffer per line plus .NET's 24-byte array header (`000`).");
    vec![bytes, allocs]
}

fn r2_throughput(settings: &Settings) -> Vec<Table> {
    let lines = if settings.quick {
        R2_LINES / 10
    } else {
        R2_LINES
    };
    let input = generated(lines, 7);
    let mut config = Config::for_settings(settings);
    // One operation is a whole file (tens to hundreds of milliseconds): few rounds.
    config.rounds = config.rounds.min(25);
    config.warmup_rounds = config.warmup_rounds.min(2);
    config.count_instructions = false;
    let mut timing = Timing::new(config);
    for strategy in STRATEGIES {
        let input = &input;
        let mut processor = Processor::new(strategy);
        timing.method(strategy.name(), move || {
            processor
                .run(black_box(input), &mut sink(), &mut sink())
                .map(|s| s.printed)
                .unwrap_or(0)
        });
    }
    let floor_input = &input;
    timing.floor("find the line ends (the floor)", move || {
        black_box(floor_input).split(|&b| b == b'\n').count()
    });
    let m = timing.run(Schedule::Interleaved);
    let mut table = Table::new(
        "R2",
        Kind::Time,
        &format!(
            "Throughput on a {}-line file ({} MB), in process, output to a sink",
            lab::table::thousands(lines),
            lab::table::significant(input.len() as f64 / 1e6, 3)
        ),
        &[
            "strategy",
            "time per file",
            "lines per second",
            "MB per second",
            "twin disagreement",
            "vs naive",
            "share of the floor's speed",
        ],
    );
    let floor = m.floor().expect("registered").pair();
    let naive = m.method("naive").expect("registered").pair();
    let rate = |ns: f64, per: f64| per / (ns / 1e9);
    for r in &m.methods {
        let pair = r.pair();
        let is_floor = r.name.starts_with("find");
        table.row(vec![
            Cell::Text(if is_floor {
                format!("{} (floor)", r.name)
            } else {
                format!("`{}`", r.name)
            }),
            Cell::Nanos(r.median_ns),
            Cell::Text(lab::table::significant(rate(r.median_ns, lines as f64), 3)),
            Cell::Text(lab::table::significant(
                rate(r.median_ns, input.len() as f64 / 1e6),
                3,
            )),
            Cell::Percent(r.twin_disagreement_pct()),
            if is_floor || r.name == "naive" {
                Cell::Empty
            } else {
                publish::ratio(naive, pair, RATIO_PRECISION).cell(Cell::Ratio)
            },
            if is_floor {
                Cell::Empty
            } else {
                match publish::ratio(floor, pair, RATIO_PRECISION) {
                    Verdict::Published(v) => Cell::Percent(100.0 * v),
                    Verdict::NotResolvable { .. } => Cell::NotResolvable,
                }
            },
        ]);
    }
    table.twins = m.methods.iter().map(|r| r.twin_record()).collect();
    table.note(m.protocol_note());
    table.note("\"vs naive\" is naive's time divided by the strategy's (how many times faster); \"share of the floor's speed\" is the floor's time divided by the strategy's. Both are printed only under the publish rule. Targets: `streaming` at least 5× naive and at least 25 % of the floor.");
    table.note("The floor scans the same bytes for line ends the way the processors do (a byte-by-byte search, not a vectorised `memchr`), so it is the cost every strategy pays before doing any work.");

    let process = r2_whole_process(&input, settings);
    vec![table, process]
}

/// The `receipt` binary next to this one (`cargo xtask report` builds both).
fn receipt_binary() -> Option<PathBuf> {
    let path = std::env::current_exe().ok()?.with_file_name("receipt");
    path.exists().then_some(path)
}

fn r2_whole_process(input: &[u8], settings: &Settings) -> Table {
    let mut table = Table::new(
        "R2-process",
        Kind::Time,
        "The whole command: `receipt --strategy S FILE > /dev/null`, wall time",
        &["strategy", "median", "fastest", "slowest", "runs"],
    );
    let Some(binary) = receipt_binary() else {
        table.note("The `receipt` binary was not found next to the experiments binary: run through `cargo xtask report`, which builds it.");
        return table;
    };
    let file = std::env::temp_dir().join(format!("receipt-r2-{}.txt", std::process::id()));
    if let Err(err) = std::fs::write(&file, input) {
        table.note(format!("Cannot write the input file: {err}."));
        return table;
    }
    let runs = if settings.quick { 3 } else { 9 };
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); STRATEGIES.len()];
    for round in 0..runs {
        for i in 0..STRATEGIES.len() {
            let i = (i + round) % STRATEGIES.len();
            let started = Instant::now();
            let status = Command::new(&binary)
                .args(["--strategy", STRATEGIES[i].name()])
                .arg(&file)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            if status.is_ok_and(|s| s.success()) {
                times[i].push(started.elapsed().as_nanos() as f64);
            }
        }
    }
    let _ = std::fs::remove_file(&file);
    for (strategy, mut t) in STRATEGIES.iter().zip(times) {
        t.sort_by(f64::total_cmp);
        if t.is_empty() {
            table.row(vec![
                Cell::text(format!("`{strategy}`")),
                Cell::Empty,
                Cell::Empty,
                Cell::Empty,
                Cell::Count(0),
            ]);
            continue;
        }
        table.row(vec![
            Cell::text(format!("`{strategy}`")),
            Cell::Nanos(lab::timing::quantile(&t, 0.5)),
            Cell::Nanos(t[0]),
            Cell::Nanos(t[t.len() - 1]),
            Cell::count(t.len()),
        ]);
    }
    table.note("Whole processes, started in rotating order, each reading the file, writing its receipts to /dev/null through a `BufWriter`, and its summary to stderr. These are plain wall times with no twins: they show what the in-process gain is worth once reading the file, writing the output and starting a process are included, and nothing finer.");
    table
}

fn escaped(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let shown: String = if text.len() > 60 {
        format!(
            "{}… ({} bytes)",
            text.chars().take(24).collect::<String>(),
            bytes.len()
        )
    } else {
        text.into_owned()
    };
    format!("`{}`", shown.replace('\n', "⏎"))
}

fn r3_bad_input(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "R3",
        Kind::Fact,
        "Bad input: each class, what `receipt` says, what it prints, how it exits",
        &[
            "class",
            "input",
            "stderr, first line",
            "receipts printed",
            "exit status",
        ],
    );
    let Some(binary) = receipt_binary() else {
        table.note("The `receipt` binary was not found next to the experiments binary: run through `cargo xtask report`, which builds it.");
        return vec![table];
    };
    let mut run = |class: &str, input: &[u8], args: &[&str]| {
        let output = Command::new(&binary)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write as _;
                if let Some(mut stdin) = child.stdin.take() {
                    stdin.write_all(input)?;
                }
                child.wait_with_output()
            });
        match output {
            Ok(o) => table.row(vec![
                Cell::text(class),
                Cell::Text(escaped(input)),
                Cell::text(
                    String::from_utf8_lossy(&o.stderr)
                        .lines()
                        .next()
                        .unwrap_or("")
                        .to_owned(),
                ),
                Cell::count(String::from_utf8_lossy(&o.stdout).matches("Order ").count()),
                Cell::Text(
                    o.status
                        .code()
                        .map_or("killed".to_owned(), |c| c.to_string()),
                ),
            ]),
            Err(err) => table.row(vec![
                Cell::text(class),
                Cell::Text(escaped(input)),
                Cell::text(err.to_string()),
                Cell::Empty,
                Cell::Empty,
            ]),
        };
    };
    run(
        "good order (for comparison)",
        b"1042|\xe0\xb8\x95\xe0\xb9\x89\xe0\xb8\xa1|2|18000\n",
        &[],
    );
    for (class, text, _) in cases::BAD_INPUT {
        run(class, &cases::input(class, text), &[]);
    }
    run(
        "good order, then a bad line of another order",
        b"1|a|1|100\n2|b|x|100\n",
        &[],
    );
    run("usage error", b"", &["--strategy", "fast"]);
    table.note("Every input is piped to the real `receipt` binary (default strategy `streaming`); all five strategies print the same bytes and the same errors (`strategies_agree_on_random_order_files`, `each_error_class_has_its_message_and_prints_nothing`). After the bad lines, stderr names the rejected order and its bad lines, and its last line accounts for every input line.");
    table.note("Random bytes never make it panic, and every line is accounted for: `arbitrary_bytes_never_panic_and_every_line_is_accounted_for` (proptest, 200 cases per run).");
    vec![table]
}
