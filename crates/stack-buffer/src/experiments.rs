//! Chapter 2's experiments (S1–S11), run by `stack-buffer-experiments` under
//! `cargo xtask report`. Built only with the `experiments` feature.

use std::hint::black_box;
use std::process::ExitCode;

use lab::report::{Experiment, Settings};
use lab::timing::publish::{self, Pair, Verdict};
use lab::timing::{Config, Measurements, Schedule, Timing};
use lab::{Cell, Kind, Table, count};

use crate::disasm;
use crate::probe::{self, FRAME, Thread};
use crate::{
    AIR_FACTOR, BOX_KG, MAX_STACK_ITEMS, MIN_CUBAGE_CM, Scratch, generate_order, pack_boxes,
    workloads,
};

/// Every experiment of chapter 2, in the order the chapter presents them.
pub const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        id: "S1",
        kind: Kind::Time,
        run: s1_reach_a_buffer,
    },
    Experiment {
        id: "S3",
        kind: Kind::Time,
        run: s3_factorial,
    },
    Experiment {
        id: "S4",
        kind: Kind::Fact,
        run: s4_codegen,
    },
    Experiment {
        id: "S6",
        kind: Kind::Count,
        run: s6_bytes_per_call,
    },
    Experiment {
        id: "S7",
        kind: Kind::Time,
        run: s7_full_operation,
    },
    Experiment {
        id: "S8",
        kind: Kind::Fact,
        run: s8_stack_limit,
    },
    Experiment {
        id: "S9",
        kind: Kind::Fact,
        run: s9_loop_vs_recursion,
    },
    Experiment {
        id: "S10",
        kind: Kind::Fact,
        run: s10_thread_stacks,
    },
    Experiment {
        id: "S11",
        kind: Kind::Fact,
        run: s11_agreement,
    },
];

/// The precision a ratio must hold under twin swap to be printed in chapter 2.
pub const RATIO_PRECISION: f64 = 0.10;

const SEED_002: &str = "Seed figures (*italic*) are the C# article's (`002`): .NET 10, Core i7-8665U (mobile), x64, BenchmarkDotNet; `stackalloc` there is variable-size unless marked literal.";

pub use crate::probe::PROBE_VAR;

/// If this process was started as a stack probe (S8), runs it and returns the exit code.
pub fn probe_child() -> Option<ExitCode> {
    probe::child_from_env()
}

const S1_ITEMS: [usize; 8] = [1, 4, 8, 16, 32, 64, 128, 256];
const HEAP: &str = "heap `vec![0.0; 2N]`";
const STACK: &str = "stack `[0.0; 256]` (2 KiB cap)";
const POOL: &str = "pool `rent(2N)`";

fn pair(m: &Measurements, name: &str) -> Pair {
    m.method(name).expect("registered").pair()
}

fn worst_twin(m: &Measurements) -> Cell {
    Cell::Percent(
        m.methods
            .iter()
            .map(|r| r.twin_disagreement_pct())
            .fold(0.0, f64::max),
    )
}

fn s1_reach_a_buffer(settings: &Settings) -> Vec<Table> {
    let mut runs = Vec::new();
    for n in S1_ITEMS {
        drop(crate::scratch_pool().rent(2 * n)); // warm: the pool's hit path
        let mut timing = Timing::new(Config::for_settings(settings));
        timing.method(HEAP, move || workloads::s1_heap(black_box(n)));
        if n <= MAX_STACK_ITEMS {
            timing.method(STACK, move || workloads::s1_stack(black_box(n)));
        }
        timing.method(POOL, move || workloads::s1_pool(black_box(n)));
        let mut existing = vec![0.0f64; 2 * n];
        timing.floor("touch an existing buffer", move || {
            workloads::touch(&mut existing)
        });
        runs.push((n, timing.run(Schedule::Interleaved)));
    }
    let mut s1 = Table::new(
        "S1",
        Kind::Time,
        "Cost to reach a usable, zeroed buffer of 2N `f64`s (touched), by order size",
        &[
            "N items",
            "bytes",
            "heap",
            "stack (fixed cap)",
            "pool",
            "floor",
            "stack / heap",
            "largest twin disagreement",
        ],
    );
    for (n, m) in &runs {
        let has_stack = m.method(STACK).is_some();
        s1.row(vec![
            Cell::count(*n),
            Cell::bytes(16 * n),
            Cell::Nanos(pair(m, HEAP).original_ns),
            if has_stack {
                Cell::Nanos(pair(m, STACK).original_ns)
            } else {
                Cell::Text("does not fit".into())
            },
            Cell::Nanos(pair(m, POOL).original_ns),
            Cell::Nanos(m.floor().expect("registered").median_ns),
            if has_stack {
                publish::ratio(pair(m, STACK), pair(m, HEAP), RATIO_PRECISION).cell(Cell::Ratio)
            } else {
                Cell::Empty
            },
            worst_twin(m),
        ]);
        s1.twins.extend(m.methods.iter().map(|r| r.twin_record()));
    }
    s1.note(runs[0].1.protocol_note());
    s1.note("One interleaved run per size: compare within a row. Rows are separate runs, so differences between rows also contain the machine's drift from one run to the next.");
    s1.note("The stack column is always a 2 KiB array zeroed in full, whatever N is: stable Rust has no variable-size stack allocation, so the seed's `stackalloc double[2N]` has no counterpart; the fixed cap is the Rust pattern. The pool is warm (its hit path).");
    s1.note("Seed: stack/heap ratio between 0.38 and 0.53 over eight sizes, mean 0.415, with a variable-size `stackalloc`. Ratios here are printed only under the publish rule (±10 % under twin swap).");
    s1.note(SEED_002);

    let mut s2 = Table::new(
        "S2",
        Kind::Fact,
        "The fixed cap's crossovers, read from S1 under the publish rule",
        &["question", "this run", "seed (`002`)"],
    );
    let beats = |m: &Measurements, a: &str, b: &str| matches!(publish::difference(pair(m, b), pair(m, a)), Verdict::Published(d) if d > 0.0);
    let stack_runs: Vec<&(usize, Measurements)> = runs
        .iter()
        .filter(|(_, m)| m.method(STACK).is_some())
        .collect();
    let from = stack_runs
        .iter()
        .rposition(|(_, m)| !beats(m, STACK, HEAP))
        .map_or(Some(0), |i| (i + 1 < stack_runs.len()).then_some(i + 1));
    let list = |pred: &dyn Fn(&Measurements) -> bool| {
        let sizes: Vec<String> = stack_runs
            .iter()
            .filter(|(_, m)| pred(m))
            .map(|(n, _)| n.to_string())
            .collect();
        if sizes.is_empty() {
            "none".to_owned()
        } else {
            format!("N = {}", sizes.join(", "))
        }
    };
    s2.row(vec![
        Cell::text(
            "from which N does the zeroed 2 KiB stack array beat the heap (and keep beating it)?",
        ),
        Cell::text(match from {
            Some(i) => format!("from N = {}", stack_runs[i].0),
            None => "not at the largest N that fits".to_owned(),
        }),
        Cell::Seed("between 16 and 32 items".into()),
    ]);
    s2.row(vec![
        Cell::text("where does the heap beat the zeroed 2 KiB stack array?"),
        Cell::text(list(&|m| beats(m, HEAP, STACK))),
        Cell::Seed("below the crossover".into()),
    ]);
    s2.row(vec![
        Cell::text("where does the pool beat the zeroed 2 KiB stack array?"),
        Cell::text(list(&|m| beats(m, POOL, STACK))),
        Cell::Seed("at all 7 sizes, with zeroing on".into()),
    ]);
    s2.row(vec![
        Cell::text("where does the zeroed 2 KiB stack array beat the pool?"),
        Cell::text(list(&|m| beats(m, STACK, POOL))),
        Cell::Seed("at none".into()),
    ]);
    s2.note("\"Beats\" means the difference is published: larger than both methods' twin disagreement. Sizes not listed in either direction are not resolvable.");
    vec![s1, s2]
}

fn s3_label(name: &str) -> String {
    let (kind, size) = name.rsplit_once('_').expect("named <kind>_<size>");
    let what = match kind {
        "zeroed" => "stack, zeroed",
        "uninit" => "stack, `MaybeUninit`",
        "heap_zeroed" => "heap, `vec![0.0; n]`",
        _ => "heap, `Vec::with_capacity`",
    };
    let size = match size {
        "16b" => "16 B",
        "256b" => "256 B",
        "2k" => "2 KiB",
        _ => "8 KiB",
    };
    format!("{what}, {size}")
}

fn s3_factorial(settings: &Settings) -> Vec<Table> {
    let mut config = Config::for_settings(settings);
    // 18 methods × 2 copies: callgrind would add a minute; S4 reads the code instead.
    config.count_instructions = false;
    let mut timing = Timing::new(config);
    for (_, fns) in workloads::S3 {
        for (name, f) in fns {
            timing.method(&s3_label(name), f);
        }
    }
    let mut existing = vec![0.0f64; 1024];
    timing.method(
        "`fill(0.0)` of an existing 8 KiB buffer (memset)",
        move || workloads::memset_existing(&mut existing),
    );
    let mut floor_buf = vec![0.0f64; 1024];
    timing.floor("touch an existing 8 KiB buffer", move || {
        workloads::touch(&mut floor_buf)
    });
    let m = timing.run(Schedule::Interleaved);

    let mut s3 = Table::new(
        "S3",
        Kind::Time,
        "The factorial: zeroed vs not × stack (fixed size) vs heap (exact size) × 4 sizes",
        &[
            "size",
            "stack zeroed",
            "stack `MaybeUninit`",
            "zeroing on the stack",
            "heap zeroed",
            "heap unzeroed",
            "zeroing on the heap",
            "largest twin disagreement",
        ],
    );
    let mut zeroing = Vec::new();
    for (bytes, fns) in workloads::S3 {
        let p = |i: usize| pair(&m, &s3_label(fns[i].0));
        let stack_cost = publish::difference(p(0), p(1));
        let worst = (0..4).map(|i| p(i).disagreement_pct()).fold(0.0, f64::max);
        s3.row(vec![
            Cell::bytes(bytes),
            Cell::Nanos(p(0).original_ns),
            Cell::Nanos(p(1).original_ns),
            stack_cost.cell(Cell::Nanos),
            Cell::Nanos(p(2).original_ns),
            Cell::Nanos(p(3).original_ns),
            publish::difference(p(2), p(3)).cell(Cell::Nanos),
            Cell::Percent(worst),
        ]);
        zeroing.push((bytes, stack_cost));
    }
    s3.twins = m.methods.iter().map(|r| r.twin_record()).collect();
    s3.note(m.protocol_note());
    s3.note("All 18 methods (16 of the factorial, the memset reference and the floor) ran interleaved in one run, each with its twin. \"Zeroing\" is zeroed minus unzeroed, printed only if it beats both twins' disagreement.");
    s3.note("The seed's second axis was `stackalloc` with a literal vs a variable size. Stable Rust has no variable-size stack allocation (no `alloca`), so that axis has no counterpart; it is replaced by *fixed size on the stack vs exact size on the heap*, the choice a Rust programmer actually has.");
    s3.note("Seed, 2 KiB literal: 3.24 ns to obtain without zeroing, 32.84 ns for the zeroing. Seed, 8 KiB: literal without zeroing 4.9 ns, variable without zeroing 6.0 ns, literal with zeroing 97.6 ns, variable with zeroing 306.6 ns, `new double[1024]` 815.7 ns.");
    s3.note(SEED_002);

    let memset = pair(&m, "`fill(0.0)` of an existing 8 KiB buffer (memset)");
    let floor = m.floor().expect("registered").pair();
    let memset_cost = publish::difference(memset, floor);
    let mut s5 = Table::new(
        "S5",
        Kind::Time,
        "Zeroing rate: bytes zeroed per nanosecond (cache-resident: a ceiling, not a cold frame)",
        &[
            "size",
            "zeroing cost (stack)",
            "rate",
            "share of the memset rate",
        ],
    );
    let memset_rate = match memset_cost {
        Verdict::Published(ns) if ns > 0.0 => Some(8192.0 / ns),
        _ => None,
    };
    for (bytes, cost) in &zeroing {
        let rate = match cost {
            Verdict::Published(ns) if *ns > 0.0 => Some(*bytes as f64 / ns),
            _ => None,
        };
        s5.row(vec![
            Cell::bytes(*bytes),
            cost.cell(Cell::Nanos),
            rate.map_or(Cell::NotResolvable, Cell::BytesPerNs),
            match (rate, memset_rate) {
                // Only the same size is a fair comparison with the 8 KiB memset.
                (Some(r), Some(c)) if *bytes == 8192 => Cell::Percent(100.0 * r / c),
                _ => Cell::Empty,
            },
        ]);
    }
    s5.row(vec![
        Cell::text("8 KiB by `memset` (existing buffer, minus the floor)"),
        memset_cost.cell(Cell::Nanos),
        memset_rate.map_or(Cell::NotResolvable, Cell::BytesPerNs),
        Cell::Empty,
    ]);
    s5.note("Rates come from the S3 run. The memset row is this machine's ceiling for zeroing 8 KiB that is already in cache: `slice::fill(0.0)` on an existing buffer, minus the floor's touch. Target: the zeroed 8 KiB stack array reaches at least 50 % of it.");
    s5.note("Seed: 62.4 and 88.4 B/ns, which the seed itself notes exceed its laptop's memory bandwidth — cache-resident rates, as here.");
    vec![s3, s5]
}

fn s4_codegen(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "S4",
        Kind::Fact,
        "Codegen, read from the experiments binary itself: what each S3 stack function compiles to",
        &[
            "function",
            "instructions",
            "zero stores (bytes)",
            "stack probes",
            "calls `memset`",
            "`rep stos`",
            "verdict",
        ],
    );
    let binary = std::env::current_exe().ok();
    let mut failure = None;
    for (_, fns) in workloads::S3 {
        for (name, _) in &fns[..2] {
            let read = binary
                .as_deref()
                .ok_or_else(|| "cannot locate the running binary".to_owned())
                .and_then(|b| disasm::disassemble(b, &format!("stack_buffer::workloads::{name}")));
            match read {
                Ok(d) => {
                    let verdict = d.verdict().to_string();
                    table.row(vec![
                        Cell::text(format!("`{name}` ({})", s3_label(name))),
                        Cell::count(d.instructions),
                        Cell::text(format!(
                            "{} ({} B)",
                            d.zero_stores,
                            lab::table::thousands(d.zero_store_bytes as u64)
                        )),
                        Cell::count(d.stack_probes),
                        Cell::Bool(d.memset_call),
                        Cell::Bool(d.rep_stos),
                        Cell::Text(verdict),
                    ]);
                }
                Err(why) => failure = Some(why),
            }
        }
    }
    if let Some(why) = failure {
        table.note(format!("Some functions could not be read: {why}."));
    }
    table.note("Read with `objdump -d` from the very binary whose S3 timings are above, so the code is the code that was timed (release profile, x86-64). A zero store is a store to memory of a register zeroed in the same function (`xorps`/`pxor`) or of an immediate 0; the touch's two stores of 1.0 and 2.0 are not zero stores.");
    table.note("A stack probe is the compiler touching each new 4 KiB page of a large frame in order (`sub $0x1000,%rsp` then a store to `(%rsp)`), so that a thread's guard page is always hit before anything below it: that is how a stack overflow becomes a clean abort instead of a write into other memory. It is one store per page, not a zeroing.");
    table.note("The seed read RyuJIT's output with `DOTNET_JitDisasm` and found a push loop for variable-size zeroing; here LLVM chooses, per size, between unrolled stores and a call.");
    vec![table]
}

/// `(2N values, seed's bytes for new double[2N])`, where the seed measured that many values.
const S6_SEED: [(usize, &str); 8] = [
    (2, "40 B"),
    (8, "88 B"),
    (16, "152 B"),
    (32, "280 B"),
    (64, "536 B"),
    (128, "1,048 B"),
    (256, "2,072 B"),
    (1024, "8,216 B"),
];

fn s6_bytes_per_call(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "S6",
        Kind::Count,
        "Bytes allocated per call, by strategy (counted, exact)",
        &[
            "N items",
            "heap `vec![0.0; 2N]`",
            "fixed-cap stack",
            "pool (warm)",
            "`pack_boxes`, Heap",
            "`pack_boxes`, Hybrid",
            "seed: `new double[2N]`",
        ],
    );
    for n in S1_ITEMS {
        let bytes = |f: &dyn Fn() -> f64| count(|| black_box(f())).1.bytes_allocated;
        drop(crate::scratch_pool().rent(2 * n));
        let order = generate_order(n, n as u64);
        let pack = |s: Scratch| {
            count(|| pack_boxes(&order, BOX_KG, AIR_FACTOR, s).expect("a valid order"))
                .1
                .bytes_allocated
        };
        pack(Scratch::Hybrid); // warm the pool for N > 128
        table.row(vec![
            Cell::count(n),
            Cell::Bytes(bytes(&|| workloads::s1_heap(n))),
            if n <= MAX_STACK_ITEMS {
                Cell::Bytes(bytes(&|| workloads::s1_stack(n)))
            } else {
                Cell::Text("does not fit".into())
            },
            Cell::Bytes(bytes(&|| workloads::s1_pool(n))),
            Cell::Bytes(pack(Scratch::Heap)),
            Cell::Bytes(pack(Scratch::Hybrid)),
            S6_SEED
                .iter()
                .find(|(values, _)| *values == 2 * n)
                .map_or(Cell::Empty, |(_, s)| Cell::Seed((*s).into())),
        ]);
    }
    table.note("The heap pays exactly 16 bytes per item (two `f64`s); .NET adds a 24-byte array header to the same payload. The stack and the warm pool pay nothing, at every size; the hybrid switches from the stack to the pool above 128 items and stays at zero.");
    table.note(SEED_002);
    vec![table]
}

const S7_ITEMS: usize = 100;
const S7_STRATEGIES: [(&str, Scratch); 5] = [
    ("Heap", Scratch::Heap),
    ("Pool", Scratch::Pool),
    ("Stack", Scratch::Stack),
    ("StackUninit", Scratch::StackUninit),
    ("Hybrid", Scratch::Hybrid),
];

fn s7_full_operation(settings: &Settings) -> Vec<Table> {
    let order = generate_order(S7_ITEMS, 42);
    let mut timing = Timing::new(Config::for_settings(settings));
    for (name, strategy) in S7_STRATEGIES {
        for copy in 1..=3 {
            let order = &order;
            timing.method(&format!("{name} (copy {copy})"), move || {
                pack_boxes(black_box(order), BOX_KG, AIR_FACTOR, strategy)
            });
        }
    }
    let m = timing.run(Schedule::Interleaved);
    let mut table = Table::new(
        "S7",
        Kind::Time,
        &format!(
            "The whole operation: `pack_boxes` of {S7_ITEMS} items, three identical copies per strategy"
        ),
        &[
            "strategy",
            "copy 1",
            "copy 2",
            "copy 3",
            "spread of the three",
            "largest twin disagreement",
            "copy 1 / Heap copy 1",
        ],
    );
    let heap = pair(&m, "Heap (copy 1)");
    for (name, _) in S7_STRATEGIES {
        let copies: Vec<Pair> = (1..=3)
            .map(|c| pair(&m, &format!("{name} (copy {c})")))
            .collect();
        let medians: Vec<f64> = copies.iter().map(|p| p.original_ns).collect();
        let (lo, hi) = medians
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        table.row(vec![
            Cell::text(format!("`Scratch::{name}`")),
            Cell::Nanos(medians[0]),
            Cell::Nanos(medians[1]),
            Cell::Nanos(medians[2]),
            Cell::Percent(100.0 * (hi - lo) / lo),
            Cell::Percent(
                copies
                    .iter()
                    .map(Pair::disagreement_pct)
                    .fold(0.0, f64::max),
            ),
            if name == "Heap" {
                Cell::Empty
            } else {
                publish::ratio(copies[0], heap, RATIO_PRECISION).cell(Cell::Ratio)
            },
        ]);
    }
    table.twins = m.methods.iter().map(|r| r.twin_record()).collect();
    table.note(m.protocol_note());
    table.note("Every copy is registered separately (and each has its twin), so the spread of the three copies is a second, independent noise figure, as in the seed's third benchmark.");
    table.note("Seed: the stack/heap ratio goes from 0.42 with the work reduced to a touch to 0.90 with the whole operation — the gain dilutes; its three identical copies disagreed by 28.1 %.");
    table.note(SEED_002);
    vec![table]
}

const SIZED_STACK: usize = 8 << 20;

fn s8_stack_limit(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "S8",
        Kind::Fact,
        "How much stack survives: 8 KiB frames, deeper and deeper, each probe in a child process",
        &[
            "thread",
            "its stack",
            "deepest that survived",
            "stack used then",
            "first that failed",
            "the crash",
            "signal",
        ],
    );
    let main_limit = probe::main_stack_limit();
    let launcher = probe::Launcher::this_binary(&[]);
    let threads: [(Thread, String); 3] = [
        (
            Thread::Main,
            main_limit.map_or("the soft limit (unknown)".into(), |b| {
                format!("`ulimit -s`: {} KiB", lab::table::thousands(b / 1024))
            }),
        ),
        (Thread::Spawned, "`thread::spawn` default: 2,048 KiB".into()),
        (
            Thread::Sized(SIZED_STACK),
            format!(
                "`Builder::stack_size`: {} KiB",
                lab::table::thousands(SIZED_STACK as u64 / 1024)
            ),
        ),
    ];
    for (thread, stack) in threads {
        let label = match thread {
            Thread::Main => "main",
            Thread::Spawned => "spawned",
            Thread::Sized(_) => "spawned, sized",
        };
        match launcher
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|l| l.deepest_descent(thread, 4096))
        {
            Ok((depth, failure)) => table.row(vec![
                Cell::text(label),
                Cell::text(stack),
                Cell::text(format!(
                    "{} frames",
                    lab::table::thousands(depth as u64 + 1)
                )),
                Cell::text(format!(
                    "{} KiB",
                    lab::table::thousands(((depth + 1) * FRAME / 1024) as u64)
                )),
                Cell::text(format!(
                    "{} frames",
                    lab::table::thousands(depth as u64 + 2)
                )),
                Cell::text(format!("`{}`", failure.message)),
                Cell::text(probe::signal_name(failure.signal)),
            ]),
            Err(why) => table.row(vec![
                Cell::text(label),
                Cell::text(stack),
                Cell::text(why),
                Cell::Empty,
                Cell::Empty,
                Cell::Empty,
                Cell::Empty,
            ]),
        };
    }
    table.note("`descend(d)` runs d + 1 frames, each holding an 8 KiB array that is still in use when the call below it returns. \"Stack used\" counts the arrays only; each frame also has a few dozen bytes of its own.");
    table.note("The crash is Rust's guard-page handler: it prints the message and aborts the process. Nothing unwinds, no `Drop` runs, and `catch_unwind` cannot catch it — which is why every probe runs in a child process.");
    table.note("Seed (.NET 10, Windows, main thread): a single 1,464 KiB `stackalloc` survived and 1,472 KiB killed the process with 0xC00000FD (STATUS_STACK_OVERFLOW).");
    vec![table]
}

fn s9_loop_vs_recursion(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "S9",
        Kind::Fact,
        "An 8 KiB array in a loop body vs in a recursive function: where each one lives",
        &[
            "code",
            "iterations or levels",
            "distinct addresses",
            "step between levels",
        ],
    );
    for iterations in [184usize, 10_000] {
        let addresses = probe::loop_addresses(iterations);
        let mut distinct = addresses.clone();
        distinct.sort_unstable();
        distinct.dedup();
        table.row(vec![
            Cell::text("`let buf = [0u8; 8192];` in a `for` loop"),
            Cell::count(iterations),
            Cell::count(distinct.len()),
            Cell::Empty,
        ]);
    }
    let nested = probe::recursion_addresses(184);
    let steps: Vec<usize> = nested.windows(2).map(|w| w[0] - w[1]).collect();
    let mut distinct_steps = steps.clone();
    distinct_steps.sort_unstable();
    distinct_steps.dedup();
    table.row(vec![
        Cell::text("the same array in a function that calls itself"),
        Cell::count(nested.len()),
        Cell::count(
            nested
                .iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len(),
        ),
        Cell::text(
            distinct_steps
                .iter()
                .map(|s| format!("{} B", lab::table::thousands(*s as u64)))
                .collect::<Vec<_>>()
                .join(", "),
        ),
    ]);
    table.note("A Rust array is a local with a fixed slot in its function's frame: a loop reuses the slot, so the loop never accumulates stack, however many iterations. C#'s `stackalloc` inside a loop is different: its memory lives until the method returns (seed: 184 iterations × 8 KiB = 1,472 KiB killed the process). In Rust it is recursion that accumulates, one frame per level (S8 finds how deep it can go).");
    vec![table]
}

fn s10_thread_stacks(_: &Settings) -> Vec<Table> {
    const THREADS: usize = 200;
    let mut table = Table::new(
        "S10",
        Kind::Fact,
        "Resident memory while 200 threads each hold K KiB of touched stack",
        &[
            "K per thread",
            "resident before",
            "resident during",
            "growth",
            "growth per thread",
        ],
    );
    for kib in [8usize, 64, 512] {
        let frames = kib * 1024 / FRAME;
        match probe::rss_with_threads(THREADS, frames) {
            Some((before, during)) => {
                let growth = during.saturating_sub(before);
                table.row(vec![
                    Cell::text(format!("{kib} KiB")),
                    Cell::text(format!("{} KiB", lab::table::thousands(before))),
                    Cell::text(format!("{} KiB", lab::table::thousands(during))),
                    Cell::text(format!("{} KiB", lab::table::thousands(growth))),
                    Cell::text(format!(
                        "{} KiB",
                        lab::table::thousands(growth / THREADS as u64)
                    )),
                ]);
            }
            None => {
                table.note("Resident memory could not be read from /proc/self/status.");
            }
        }
    }
    table.note("Resident memory (`VmRSS`) is read from /proc while every thread waits at the bottom of its frames. It includes each thread's other pages (its guard, its thread-local storage, glibc's per-thread bookkeeping), so the growth per thread is more than K. A thread's stack pages stay resident until the thread exits: stack is committed on first touch and not given back while the thread lives.");
    table.note("This is resident memory, not a count from the allocator: it is a fact of this run, not an exact figure, and the report does not re-check it.");
    table.note(
        "Seed: an estimate, not a measurement — hundreds of KiB committed for 200 threads × 2 KiB.",
    );
    vec![table]
}

fn s11_agreement(_: &Settings) -> Vec<Table> {
    let strategies = [
        ("Heap", Scratch::Heap),
        ("Pool", Scratch::Pool),
        ("Stack", Scratch::Stack),
        ("StackUninit", Scratch::StackUninit),
        ("Hybrid", Scratch::Hybrid),
    ];
    let mut columns = vec!["N items", "minimum-cubage items"];
    columns.extend(strategies.iter().map(|(n, _)| *n));
    columns.push("Hybrid rented from the pool?");
    let mut table = Table::new(
        "S11",
        Kind::Fact,
        "Every strategy, the same orders: box counts at the boundary and around it",
        &columns,
    );
    for n in [1usize, 64, 127, 128, 129, 1000] {
        let order = generate_order(n, 2026);
        let flat = order
            .iter()
            .filter(|i| i.billed_dimensions_cm() == MIN_CUBAGE_CM)
            .count();
        let mut row = vec![Cell::count(n), Cell::count(flat)];
        for (_, strategy) in strategies {
            row.push(match pack_boxes(&order, BOX_KG, AIR_FACTOR, strategy) {
                Ok(1) => Cell::text("1 box"),
                Ok(boxes) => Cell::text(format!("{boxes} boxes")),
                Err(crate::PackError::TooManyForStack { max, .. }) => {
                    Cell::text(format!("error: more than {max} items"))
                }
                Err(err) => Cell::text(format!("error: {err}")),
            });
        }
        let before = crate::scratch_pool().stats().rents;
        let _ = pack_boxes(&order, BOX_KG, AIR_FACTOR, Scratch::Hybrid);
        row.push(Cell::Bool(crate::scratch_pool().stats().rents > before));
        table.row(row);
    }
    table.note(format!("Orders come from `generate_order(n, 2026)`: one item in four is flattened below 10 cm, so the minimum-cubage branch runs. Boxes hold {BOX_KG} kg; the factor is {AIR_FACTOR}. The proptest `all_strategies_return_the_same_box_count` checks agreement on 200 random orders per test run."));
    table.note("`StackUninit` is checked by Miri in CI, and a deliberately wrong variant (feature `deliberate-ub`) shows Miri catching an uninitialised read: see the chapter text.");
    vec![table]
}
