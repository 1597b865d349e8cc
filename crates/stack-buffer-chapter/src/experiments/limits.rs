//! The stack limit (S8), what accumulates (S9) and what a thread's stack keeps resident (S10).
//! Every probe that may overflow runs in a child process (see [`crate::probe`]).

use lab::report::{Function, Run};
use lab::table::Columns;
use lab::{Cell, Kind, Table};

use crate::probe::{
    self, ChildRun, FRAME, GUARD_DROPPED, Launcher, Probe, Spec, Thread, UNWIND_CAUGHT,
};

pub(super) const S8: Function = lab::function!(s8_stack_limit);
pub(super) const S9: Function = lab::function!(s9_loop_vs_recursion);
pub(super) const S10: Function = lab::function!(s10_thread_stacks);

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;

/// What the probes found on one kind of thread.
struct Limit {
    thread: String,
    stack_kib: Option<u64>,
    array: Result<(usize, ChildRun), String>,
    descent: Result<(usize, ChildRun), String>,
}

fn probe_thread(launcher: &Result<Launcher, String>, thread: Thread, label: &str) -> Limit {
    let stack_kib = match thread {
        Thread::Main => probe::main_stack_limit().map(|bytes| bytes / 1024),
        // What `std` gives a spawned thread: `RUST_MIN_STACK` if set, else 2 MiB.
        Thread::Spawned => Some(
            std::env::var("RUST_MIN_STACK")
                .ok()
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(2 * MIB as u64)
                / 1024,
        ),
        Thread::Sized(bytes) => Some((bytes / KIB) as u64),
    };
    let launcher = launcher.as_ref().map_err(Clone::clone);
    Limit {
        thread: label.to_owned(),
        stack_kib,
        array: launcher
            .clone()
            .and_then(|l| l.largest_single_array(thread)),
        descent: launcher.and_then(|l| l.deepest_descent(thread, 4096)),
    }
}

fn s8_stack_limit(run: &Run) -> Vec<Table> {
    let launcher = Launcher::this_binary(&[]);
    let rows = [
        probe_thread(&launcher, Thread::Main, "main (`ulimit -s`)"),
        probe_thread(
            &launcher,
            Thread::Spawned,
            "`thread::spawn` (Rust's default, 2 MiB unless `RUST_MIN_STACK`)",
        ),
        probe_thread(
            &launcher,
            Thread::Sized(8 * MIB),
            "`Builder::stack_size(8 MiB)`",
        ),
        probe_thread(
            &launcher,
            Thread::Sized(MIB),
            "`Builder::stack_size(1 MiB)`",
        ),
    ];
    let failed = |why: &String| Cell::text(format!("not found: {why}"));
    let mut table = run.own(
        Columns::new()
            .col("thread", |l: &Limit| Cell::text(&l.thread))
            .col("its stack (KiB)", |l: &Limit| {
                l.stack_kib.map_or(Cell::Empty, Cell::Count)
            })
            .col("largest single array (KiB)", |l: &Limit| match &l.array {
                Ok((bytes, _)) => Cell::count(bytes / KIB),
                Err(why) => failed(why),
            })
            .col("deepest recursion (8 KiB frames)", |l: &Limit| {
                match &l.descent {
                    Ok((depth, _)) => Cell::count(depth + 1),
                    Err(why) => failed(why),
                }
            })
            .col(
                "the recursion's arrays, total (KiB)",
                |l: &Limit| match &l.descent {
                    Ok((depth, _)) => Cell::count((depth + 1) * FRAME / KIB),
                    Err(_) => Cell::Empty,
                },
            )
            .col(
                "what an array 8 KiB larger did (stderr)",
                |l: &Limit| match &l.array {
                    Ok((_, failure)) => Cell::text(format!("`{}`", failure.message)),
                    Err(_) => Cell::Empty,
                },
            )
            .col("signal", |l: &Limit| match &l.array {
                Ok((_, failure)) => Cell::text(probe::signal_name(failure.signal)),
                Err(_) => Cell::Empty,
            })
            .table("S8", Kind::Fact, "", &rows),
    );
    table.note("*Largest single array*: one function whose frame holds one zeroed array of that size, found by bisection over multiples of 8 KiB (the seed's resolution), each size in a child process on a fresh thread of that kind. *Deepest recursion*: `descend(d)` runs d + 1 frames, each holding an 8 KiB array still in use when the call below returns; the arrays column counts the arrays only, each frame also has a few dozen bytes of its own.");
    table.note("The difference between a thread's stack and its largest array is what was already on it: the runtime's start-up frames, thread-local storage, the probe's own frames. The crash is Rust's stack-overflow handler: it prints the message and aborts the process, which is why every probe runs in a child process.");
    table.note(unwind_note(&launcher));
    table.note("The seed (.NET 10, Windows, main thread): a single 1,464 KiB `stackalloc` survived and 1,472 KiB killed the process with 0xC00000FD (`STATUS_STACK_OVERFLOW`).");
    vec![table]
}

/// What a descent that overflows inside `catch_unwind`, under a guard with a `Drop`, did.
fn unwind_note(launcher: &Result<Launcher, String>) -> String {
    let thread = Thread::Sized(MIB);
    let run = |depth| {
        launcher.as_ref().map_err(Clone::clone).and_then(|l| {
            l.run(Spec {
                thread,
                probe: Probe::Guarded(depth),
            })
        })
    };
    match (run(4), run(256)) {
        (Ok(fits), Ok(overflows)) => {
            let printed = |r: &ChildRun, what: &str| {
                if r.message.contains(what) {
                    "printed"
                } else {
                    "missing"
                }
            };
            let neither = !overflows.message.contains(GUARD_DROPPED)
                && !overflows.message.contains(UNWIND_CAUGHT);
            format!(
                "A child on a 1 MiB thread descends inside `catch_unwind`, under a guard whose `Drop` prints a marker. 4 levels: the guard's marker {}, the line after `catch_unwind` {}. 256 levels (2 MiB of arrays): killed by {}, {}: nothing unwinds, no `Drop` runs, `catch_unwind` catches nothing. Its stderr: `{}`.",
                printed(&fits, GUARD_DROPPED),
                printed(&fits, UNWIND_CAUGHT),
                probe::signal_name(overflows.signal),
                if neither {
                    "neither line printed"
                } else {
                    "a marker printed"
                },
                overflows.message
            )
        }
        (Err(why), _) | (_, Err(why)) => format!("The `catch_unwind` probe did not run: {why}."),
    }
}

/// One row of S9.
struct Placement {
    code: &'static str,
    iterations: usize,
    distinct: usize,
    steps: Vec<usize>,
}

fn distinct(addresses: &[usize]) -> Vec<usize> {
    let mut distinct = addresses.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    distinct
}

fn s9_loop_vs_recursion(run: &Run) -> Vec<Table> {
    let mut rows: Vec<Placement> = [184usize, 10_000]
        .iter()
        .map(|&iterations| Placement {
            code: "`let buf = [0u8; 8192];` in a `for` loop",
            iterations,
            distinct: distinct(&probe::loop_addresses(iterations)).len(),
            steps: Vec::new(),
        })
        .collect();
    let nested = probe::recursion_addresses(184);
    let steps: Vec<usize> = nested.windows(2).map(|w| w[0] - w[1]).collect();
    rows.push(Placement {
        code: "the same array in a function that calls itself",
        iterations: nested.len(),
        distinct: distinct(&nested).len(),
        steps: distinct(&steps),
    });
    let mut table = run.own(
        Columns::new()
            .col("code", |p: &Placement| Cell::text(p.code))
            .col("iterations or levels", |p: &Placement| {
                Cell::count(p.iterations)
            })
            .col("distinct addresses", |p: &Placement| {
                Cell::count(p.distinct)
            })
            .col("step between levels", |p: &Placement| match p.steps[..] {
                [] => Cell::Empty,
                [step] => Cell::bytes(step),
                _ => Cell::text(
                    p.steps
                        .iter()
                        .map(|s| Cell::bytes(*s).render())
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
            })
            .table("S9", Kind::Fact, "", &rows),
    );
    table.note("Stable Rust has no unsized locals and no language-level `alloca`, so a function's frame has a size fixed at compile time: no loop can grow the stack, whether or not the compiler reuses one slot for every iteration (here it does: one address). C#'s `stackalloc` inside a loop is different: its memory lives until the method returns (the seed: 184 iterations × 8 KiB = 1,472 KiB killed the process). In Rust it is recursion that accumulates, one frame per level (S8 finds how deep it can go).");
    vec![table]
}

/// One row of S10: resident memory before and while the threads hold their stack.
struct Resident {
    kib: usize,
    before: u64,
    during: u64,
}

impl Resident {
    fn growth(&self) -> u64 {
        self.during.saturating_sub(self.before)
    }
}

const S10_THREADS: usize = 200;
/// S10: the stack each thread touches, KiB: none (the baseline), the seed's 2 KiB cap, and up.
const S10_KIB: [usize; 5] = [0, 2, 8, 64, 512];

fn s10_thread_stacks(run: &Run) -> Vec<Table> {
    let mut unreadable = false;
    let rows: Vec<Resident> = S10_KIB
        .iter()
        .filter_map(|&kib| {
            let read = probe::rss_with_threads(S10_THREADS, kib);
            unreadable |= read.is_none();
            read.map(|(before, during)| Resident {
                kib,
                before,
                during,
            })
        })
        .collect();
    let baseline = rows.iter().find(|r| r.kib == 0).map(Resident::growth);
    let per_thread = |kib: u64| Cell::count(kib / S10_THREADS as u64);
    let mut table = run.own(
        Columns::new()
            .col("K per thread (KiB)", |r: &Resident| Cell::count(r.kib))
            .col("resident before (KiB)", |r: &Resident| {
                Cell::Count(r.before)
            })
            .col("resident during (KiB)", |r: &Resident| {
                Cell::Count(r.during)
            })
            .col("growth (KiB)", |r: &Resident| Cell::Count(r.growth()))
            .col("growth per thread (KiB)", |r: &Resident| {
                per_thread(r.growth())
            })
            .col(
                "per thread, minus the K = 0 row (KiB)",
                |r: &Resident| match baseline {
                    Some(base) if r.kib > 0 => per_thread(r.growth().saturating_sub(base)),
                    _ => Cell::Empty,
                },
            )
            .table("S10", Kind::Fact, "", &rows),
    );
    if unreadable {
        table.note("Resident memory could not be read from /proc/self/status for some rows.");
    }
    table.note(format!("Resident memory (`VmRSS`) is read from /proc while {S10_THREADS} threads wait, each at the bottom of K KiB of frames of a touched 2 KiB array (K = 0: the thread waits without one). The K = 0 row is what a thread costs before it touches any buffer: the top of its stack where it started, its thread-local storage, glibc's per-thread bookkeeping. The last column takes it away, leaving what the K KiB of touched stack added, rounded to whole 4 KiB pages and with each frame's few bytes of its own."));
    table.note("On Linux a thread's stack is mapped when the thread is created and its pages become resident (and charged to the container's memory) when first touched; they stay resident until the thread exits. Its guard page is never touched, so it is never resident. So a buffer costs pages only where it takes the thread deeper than it has been before: a 2 KiB array in a function called from shallower frames than the thread's deepest point costs nothing more.");
    table.note("This is resident memory, not a count from the allocator: a fact of this run, not an exact figure, and the report does not re-check it.");
    table.note("The seed: an estimate, not a measurement, of hundreds of KiB committed for 200 threads × 2 KiB.");
    vec![table]
}
