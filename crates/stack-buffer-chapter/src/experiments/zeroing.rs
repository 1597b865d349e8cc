//! What the zeroing costs: the factorial (S3), the heap's paths around glibc's per-thread cache
//! (S3-heap) and the zeroing rate around LLVM's switch to `memset` (S5). All from the seed's
//! second benchmark.

use lab::plot::Plot;
use lab::protocol::Allocator;
use lab::publish::Verdict;
use lab::report::{Function, Run};
use lab::table::{Claim, Columns};
use lab::timing::{Measured, Measurements, Schedule, Timing, agree};
use lab::verdicts::{describe_sizes, sizes_where};
use lab::{Cell, Kind, Table};

use super::{SEED_CELLS, bytes_label, method_span, pair};
use crate::disasm;
use crate::heap::{self, AROUND_THE_CACHE_LIMIT, Request};
use crate::spans::{Span, below};
use crate::workloads::{self, Copies, HEAP_SIZES, REUSED_SIZES, S3_BYTES, STACK_SIZES, Workload};

pub(super) const S3: Function = lab::function!(s3_factorial);

const MEMSET: &str = "`fill(0.0)` of an existing 8 KiB buffer (`memset`)";
const FLOOR: &str = "touch an existing 8 KiB buffer";
const EIGHT_KIB: usize = 8 * 1024;
/// The methods of S3's run: both stack arrays at every size, both heap buffers and the reused
/// one at the factorial's, the `memset` reference and the floor.
const METHODS: usize = 2 * STACK_SIZES.len() + 2 * HEAP_SIZES.len() + REUSED_SIZES.len() + 2;

/// The method names of one size: zeroed and unzeroed on the stack, and on the heap (zeroed,
/// unzeroed, the reused buffer) where the factorial has that size.
struct Size {
    bytes: usize,
    zeroed: String,
    uninit: String,
    heap: Option<[String; 3]>,
}

pub(super) fn stack_zeroed(bytes: usize) -> String {
    format!("stack, zeroed, {}", bytes_label(bytes))
}

pub(super) fn stack_uninit(bytes: usize) -> String {
    format!("stack, `MaybeUninit`, {}", bytes_label(bytes))
}

pub(super) fn heap_zeroed(bytes: usize) -> String {
    format!("heap, `vec![0.0; n]`, {}", bytes_label(bytes))
}

pub(super) fn heap_uninit(bytes: usize) -> String {
    format!("heap, `Vec::with_capacity`, {}", bytes_label(bytes))
}

pub(super) fn heap_reused(bytes: usize) -> String {
    format!("heap, reused `Vec`, {}", bytes_label(bytes))
}

impl Size {
    fn all() -> Vec<Size> {
        STACK_SIZES
            .iter()
            .map(|&(bytes, _, _)| Size {
                bytes,
                zeroed: stack_zeroed(bytes),
                uninit: stack_uninit(bytes),
                heap: S3_BYTES
                    .contains(&bytes)
                    .then(|| [heap_zeroed(bytes), heap_uninit(bytes), heap_reused(bytes)]),
            })
            .collect()
    }

    fn names(&self) -> impl Iterator<Item = &str> {
        [&self.zeroed, &self.uninit]
            .into_iter()
            .chain(self.heap.iter().flatten())
            .map(String::as_str)
    }

    fn heap(&self) -> &[String; 3] {
        self.heap.as_ref().expect("a size of the factorial")
    }

    /// This process's span of zeroed − unzeroed on the stack (each method and its twin).
    fn zeroing(&self, p: &Measurements) -> Span {
        method_span(p, &self.zeroed).minus(method_span(p, &self.uninit))
    }
}

/// Registers both copies of a measured function, called through their pointers.
fn register(timing: &mut Timing<'_>, name: &str, f: &Copies<Workload>) {
    let [original, twin] = f.copies;
    timing.method_pair(name, original, twin);
}

fn s3_factorial(run: &Run) -> Vec<Table> {
    // 30 methods × 2 copies: callgrind would add a minute; S4 reads the code instead.
    let mut timing = Timing::new(run.config().without_instructions());
    for (bytes, zeroed, uninit) in &STACK_SIZES {
        register(&mut timing, &stack_zeroed(*bytes), zeroed);
        register(&mut timing, &stack_uninit(*bytes), uninit);
    }
    for (bytes, zeroed, uninit) in &HEAP_SIZES {
        register(&mut timing, &heap_zeroed(*bytes), zeroed);
        register(&mut timing, &heap_uninit(*bytes), uninit);
    }
    for (bytes, reused) in &REUSED_SIZES {
        // The caller's own buffers, one per copy, allocated here, outside the timed loop.
        let values = bytes / 8;
        let (mut a, mut b) = (Vec::with_capacity(values), Vec::with_capacity(values));
        let [original, twin] = reused.copies;
        timing.method_pair(
            &heap_reused(*bytes),
            move || original(&mut a),
            move || twin(&mut b),
        );
    }
    let buffers = || (vec![0.0f64; EIGHT_KIB / 8], vec![0.0f64; EIGHT_KIB / 8]);
    let (mut a, mut b) = buffers();
    let copies: [fn(&mut [f64]) -> f64; 2] = [
        workloads::memset_existing::<0>,
        workloads::memset_existing::<1>,
    ];
    timing.method_pair(MEMSET, move || copies[0](&mut a), move || copies[1](&mut b));
    let (mut a, mut b) = buffers();
    let floors: [fn(&mut [f64]) -> f64; 2] = [workloads::floor::<0>, workloads::floor::<1>];
    timing.floor_pair(FLOOR, move || floors[0](&mut a), move || floors[1](&mut b));
    let m = timing.run(Schedule::Interleaved);
    let heap_run = time_heap_paths(run);
    run.keep(0, &m);

    let sizes = Size::all();
    vec![
        s3_table(run, &m, &sizes),
        s3_baselines_table(&m, &sizes),
        s3_heap_table(&heap_run),
        s5_table(&m, &sizes),
    ]
}

fn s3_table(run: &Run, m: &Measured, sizes: &[Size]) -> Table {
    let factorial: Vec<&Size> = sizes.iter().filter(|s| s.heap.is_some()).collect();
    let mut s3 = run.own(
        Columns::new()
            .col("size", |s: &&Size| Cell::bytes(s.bytes))
            .col("reused `Vec`, passed down", |s: &&Size| {
                m.expect(&s.heap()[2]).median_cell()
            })
            .col("fresh `Vec::with_capacity`", |s: &&Size| {
                m.expect(&s.heap()[1]).median_cell()
            })
            .col("fresh `vec![0.0; n]`", |s: &&Size| {
                m.expect(&s.heap()[0]).median_cell()
            })
            .col("stack, `MaybeUninit`", |s: &&Size| {
                m.expect(&s.uninit).median_cell()
            })
            .col("stack, zeroed", |s: &&Size| {
                m.expect(&s.zeroed).median_cell()
            })
            .table("S3", Kind::Time, "", &factorial),
    );
    s3.note(m.protocol_note());
    s3.note(format!(
        "One run of {} methods, each an `#[inline(never)]` function that reaches its buffer and calls the one touch (`touch_raw`). The stack arrays have the row's size; `vec![0.0; n]` is glibc's `calloc`, `Vec::with_capacity` its `malloc`. Each step as a difference, the floor and the noise: S3-baselines (appendix).",
        METHODS,
    ));
    s3.note("seed `002`: literal `stackalloc` of 2 KiB 3.24 ns unzeroed and 36.08 ns zeroed, of 8 KiB 4.93 ns and 97.56 ns (Core i7-8665U, .NET 10); here: the stack columns of the 2,048 B and 8,192 B rows.");
    let large: Vec<&&Size> = factorial.iter().filter(|s| s.bytes >= 2048).collect();
    s3.conclude(
        "at 2 KiB and at 8 KiB, zeroing the stack array costs more than the unzeroed array's whole call, whichever twin is taken",
        m.verdict(|p| {
            let signs: Option<Vec<bool>> = large
                .iter()
                .map(|s| s.zeroing(p).minus(method_span(p, &s.uninit)).sign())
                .collect();
            signs.map(|all| if all.iter().all(|&d| d) { "yes" } else { "no" }.to_owned())
        }),
    );
    let by_size = |a: &dyn Fn(&Size) -> &str, b: &dyn Fn(&Size) -> &str| {
        sizes_where_faster(m, &factorial, a, b)
    };
    s3.conclude(
        "the sizes at which the unzeroed stack array is faster than a fresh unzeroed heap buffer",
        by_size(&|s| &s.uninit, &|s| &s.heap()[1]),
    );
    s3.conclude(
        "the sizes at which `vec![0.0; n]` is slower than `Vec::with_capacity`",
        by_size(&|s| &s.heap()[1], &|s| &s.heap()[0]),
    );
    let smallest = factorial[0];
    s3.conclude(
        format!("the sizes at which the `MaybeUninit` stack array, nothing zeroed, is slower than the one of {}", bytes_label(smallest.bytes)),
        agree(m.process_count(), |p| {
            let outcomes: Vec<(usize, Option<bool>)> = factorial[1..]
                .iter()
                .map(|s| (s.bytes, m.processes[p].faster(&smallest.uninit, &s.uninit)))
                .collect();
            Some(describe_sizes(&sizes_where(&outcomes), outcomes.len(), bytes_label))
        }),
    );
    s3.plots.push(s3_plot(m, sizes));
    s3
}

/// S3's figure: time per call against the buffer's size, one line per buffer; the stack lines
/// have every size S5 times too, the heap lines the factorial's four.
fn s3_plot(m: &Measured, sizes: &[Size]) -> Plot {
    let line = |name: &dyn Fn(&Size) -> Option<String>| {
        sizes
            .iter()
            .filter_map(|s| name(s).map(|n| (s.bytes as f64, m.expect(&n).median_ns())))
            .collect::<Vec<_>>()
    };
    let heap = |i: usize| move |s: &Size| s.heap.as_ref().map(|h| h[i].clone());
    let mut plot = Plot::lines(
        "s3-cost-by-size",
        "Time to reach a buffer and touch it, by its size: stack arrays zeroed and not, a reused Vec, fresh heap buffers (median over processes, glibc)",
        "buffer size in bytes (log scale)",
        "ns per call (log scale)",
    )
    .series("fresh, zeroed: vec![0.0; n]", line(&heap(0)))
    .series("stack array, zeroed", line(&|s: &Size| Some(s.zeroed.clone())))
    .series("fresh, unzeroed: Vec::with_capacity(n)", line(&heap(1)))
    .series("reused Vec, clear()", line(&heap(2)))
    .series("stack array, MaybeUninit", line(&|s: &Size| Some(s.uninit.clone())));
    plot.log_x = true;
    plot.log_y = true;
    plot
}

/// Every process's verdict on the factorial's sizes at which `a` is faster than `b`.
fn sizes_where_faster(
    m: &Measured,
    factorial: &[&Size],
    a: &dyn Fn(&Size) -> &str,
    b: &dyn Fn(&Size) -> &str,
) -> Claim {
    agree(m.process_count(), |p| {
        let outcomes: Vec<(usize, Option<bool>)> = factorial
            .iter()
            .map(|s| (s.bytes, m.processes[p].faster(a(s), b(s))))
            .collect();
        Some(describe_sizes(
            &sizes_where(&outcomes),
            outcomes.len(),
            bytes_label,
        ))
    })
}

/// S3-baselines: S3's buffers against a buffer the caller owns and reuses, from S3's run: the
/// allocation, the zeroing, and what the stack buys over reuse, each its own difference.
fn s3_baselines_table(m: &Measured, sizes: &[Size]) -> Table {
    let factorial: Vec<&Size> = sizes.iter().filter(|s| s.heap.is_some()).collect();
    let worst = |s: &Size, noise: &dyn Fn(&str) -> f64| s.names().map(noise).fold(0.0, f64::max);
    let mut table = Columns::new()
        .col("size", |s: &&Size| Cell::bytes(s.bytes))
        .col("the stack's zeroing: zeroed − `MaybeUninit`", |s: &&Size| {
            m.difference_cell(&s.zeroed, &s.uninit)
        })
        .col("`MaybeUninit` minus the floor", |s: &&Size| {
            m.difference_cell(&s.uninit, FLOOR)
        })
        .col("the allocation: fresh unzeroed − reused", |s: &&Size| {
            m.difference_cell(&s.heap()[1], &s.heap()[2])
        })
        .col("the heap's zeroing: fresh zeroed − fresh unzeroed (`calloc` vs `malloc` path)", |s: &&Size| {
            m.difference_cell(&s.heap()[0], &s.heap()[1])
        })
        .col("stack, `MaybeUninit` − reused", |s: &&Size| {
            m.difference_cell(&s.uninit, &s.heap()[2])
        })
        .col("stack, zeroed − reused", |s: &&Size| {
            m.difference_cell(&s.zeroed, &s.heap()[2])
        })
        .col("largest twin disagreement", |s: &&Size| {
            Cell::Percent(worst(s, &|name| m.expect(name).twin_disagreement_pct()))
        })
        .col("between processes", |s: &&Size| {
            if m.process_count() > 1 {
                Cell::Percent(worst(s, &|name| m.expect(name).spread_pct()))
            } else {
                Cell::Empty
            }
        })
        .table(
            "S3-baselines",
            Kind::Time,
            "S3's steps, each its own difference: the stack's zeroing, reaching the stack, allocating, the heap's zeroing, and each stack array against a buffer the caller owns and reuses",
            &factorial,
        );
    let floor = m.expect(FLOOR);
    table.note(m.protocol_note());
    table.note(format!(
        "From S3's run. The floor is an indirect call that makes the same touch on an existing 8 KiB buffer; it measured {} (twin disagreement {}). What it does not share with the stack methods: it gets its buffer's address and length as arguments, where they form them from their own frame; it touches two cache lines, where the 16 B method touches one; and its frame holds no array. So *`MaybeUninit` minus the floor* is the cost of reaching the block with those differences included, not of the reservation alone. No instruction counts: {} callgrind children would add a minute, and S4 reads the code instead.",
        floor.median_cell().render(),
        Cell::Percent(floor.twin_disagreement_pct()).render(),
        2 * METHODS
    ));
    table.note("The reused buffer is a `Vec<f64>` of the row's size that each copy of the measured function owns, allocated once before the run: every call clears it (`clear()`), checks its capacity (`reserve(n)`: a comparison, once it is large enough) and touches its spare capacity with the one `touch_raw`, so it allocates nothing and zeroes nothing. Reused → fresh unzeroed is the allocation and its `free`; fresh unzeroed → fresh zeroed is the zeroing on `calloc`'s path, which is not the zeroing alone (S3-heap).");
    table.note("The stack arrays differ from the reused buffer in where their memory is (their own frame, against a block handed down by the caller) and in the `Vec`'s bookkeeping; the zeroed array also zeroes its whole size. A negative difference is the stack array being faster. Every difference is under the publish rule. X1-stack gives the allocation's pairs under mimalloc.");
    table.note("The seed's second axis was `stackalloc` with a literal vs a variable size. Stable Rust has no variable-size stack allocation (no language-level `alloca`), so that axis is replaced by *fixed size on the stack vs exact size on the heap*. The seed's literal 256 B `stackalloc` took 3.39 ns without zeroing; its `new double[256]` and `new double[1024]` (2 KiB and 8 KiB, first benchmark) 210.2 ns and 815.7 ns.");
    fn reused(s: &Size) -> &str {
        &s.heap()[2]
    }
    table.conclude(
        "the sizes at which the reused buffer is faster than a fresh unzeroed one of the same size: the allocation costs something before anything is zeroed",
        sizes_where_faster(m, &factorial, &reused, &|s| &s.heap()[1]),
    );
    table.conclude(
        "the sizes at which the `MaybeUninit` stack array is faster than the reused buffer of the same size: what the stack buys over a buffer the caller already owns",
        sizes_where_faster(m, &factorial, &|s| &s.uninit, &reused),
    );
    table.conclude(
        "the sizes at which the reused buffer is faster than the zeroed stack array of the same size",
        sizes_where_faster(m, &factorial, &reused, &|s| &s.zeroed),
    );
    table
}

fn malloc_name(bytes: usize) -> String {
    format!("`malloc` + `free`, {}", bytes_label(bytes))
}

fn calloc_name(bytes: usize) -> String {
    format!("`calloc` + `free`, {}", bytes_label(bytes))
}

/// S3-heap: one `malloc` + `free` and one `calloc` + `free` at sizes around glibc's per-thread
/// cache limit.
fn time_heap_paths(run: &Run) -> Measured {
    let mut timing = Timing::new(run.config());
    for bytes in AROUND_THE_CACHE_LIMIT {
        pair!(timing, &malloc_name(bytes), heap::malloc_free(bytes));
        pair!(timing, &calloc_name(bytes), heap::calloc_free(bytes));
    }
    timing.run(Schedule::Interleaved)
}

/// One size of S3-heap and what this process observed of each request's reuse.
struct Path {
    bytes: usize,
    malloc_lifo: bool,
    calloc_lifo: bool,
}

fn instructions(m: &Measured, name: &str) -> Cell {
    m.expect(name)
        .instructions()
        .map_or(Cell::Empty, |[original, twin]| Cell::Instructions {
            original,
            twin,
        })
}

fn s3_heap_table(m: &Measured) -> Table {
    // Observed after the timing runs, so they do not disturb them; only the final process's
    // (glibc's) answers reach the table.
    let rows: Vec<Path> = AROUND_THE_CACHE_LIMIT
        .iter()
        .map(|&bytes| Path {
            bytes,
            malloc_lifo: heap::reuses_last_freed(Request::Malloc, bytes),
            calloc_lifo: heap::reuses_last_freed(Request::Calloc, bytes),
        })
        .collect();
    let limit = heap::largest_lifo_request(256, 4096);
    let names = |p: &Path| [malloc_name(p.bytes), calloc_name(p.bytes)];
    let worst = |p: &Path, noise: &dyn Fn(&str) -> f64| {
        names(p).iter().map(|n| noise(n)).fold(0.0, f64::max)
    };
    let mut table = Columns::new()
        .col("request", |p: &Path| Cell::bytes(p.bytes))
        .col("`malloc`: last freed comes back first?", |p: &Path| {
            Cell::Bool(p.malloc_lifo)
        })
        .col("`calloc`: last freed comes back first?", |p: &Path| {
            Cell::Bool(p.calloc_lifo)
        })
        .col("`malloc` + `free`", |p: &Path| {
            m.expect(&malloc_name(p.bytes)).median_cell()
        })
        .col("`calloc` + `free`", |p: &Path| {
            m.expect(&calloc_name(p.bytes)).median_cell()
        })
        .col("instructions, `malloc` (twin)", |p: &Path| {
            instructions(m, &malloc_name(p.bytes))
        })
        .col("instructions, `calloc` (twin)", |p: &Path| {
            instructions(m, &calloc_name(p.bytes))
        })
        .col("largest twin disagreement", |p: &Path| {
            Cell::Percent(worst(p, &|n| m.expect(n).twin_disagreement_pct()))
        })
        .col("between processes", |p: &Path| {
            if m.process_count() > 1 {
                Cell::Percent(worst(p, &|n| m.expect(n).spread_pct()))
            } else {
                Cell::Empty
            }
        })
        .table(
            "S3-heap",
            Kind::Time,
            "The heap's two paths: `malloc` + `free` and `calloc` + `free` on both sides of glibc's per-thread cache limit",
            &rows,
        );
    table.note(m.protocol_note());
    if let Some(why) = &m.live().instructions_note {
        table.note(why.clone());
    }
    table.note("The buffers hold `f64`s, touched like S3's: `Vec::with_capacity` is the `malloc`, `vec![0.0; n]` the `calloc`. glibc keeps, per thread and per size class, a short last-in, first-out list of freed blocks (the *tcache*: 64 classes 16 bytes apart by default, so requests of up to 1,032 bytes on x86-64), and serves a `malloc` of such a size from it without touching the shared heap. A larger request takes the arena's general path (bins, splitting, coalescing), and so does its `free`.");
    table.note(match limit {
        Some(bytes) => format!(
            "Observed in this process without a clock: after two blocks of a size are freed, the next `malloc` of that size gets the last one back up to {} (scanning up from 256 B in steps of 8), and the first one above it.",
            bytes_label(bytes)
        ),
        None => "Observed in this process without a clock: no size from 256 B on came back last in, first out to `malloc` (not glibc's default cache).".to_owned(),
    });
    table.note(match heap::glibc_version() {
        Some(version) if heap::calloc_uses_the_thread_cache(version) => format!(
            "This machine's glibc is {}.{}: its `calloc` looks in the per-thread cache too (since 2.41), so both requests share the step.",
            version.0, version.1
        ),
        Some(version) => format!(
            "This machine's glibc is {}.{}: its `calloc` never looks in the per-thread cache (glibc added that path in 2.41), so a `calloc` takes the arena's path at every size, and the freed blocks it leaves in the cache are for `malloc` only. The `calloc` column depends on the glibc version.",
            version.0, version.1
        ),
        None => "The C library's version could not be read (`getconf GNU_LIBC_VERSION`): the `calloc` column depends on it.".to_owned(),
    });
    let step = |m: &Measured| m.faster_of(&malloc_name(1032), "yes", &malloc_name(1040), "no");
    table.conclude(
        "under glibc, a `malloc` + `free` of 1,032 B, the last size inside the cache, is faster than one of 1,040 B, the first size above it",
        step(m),
    );
    if let Some(mm) = m.under(Allocator::Mimalloc) {
        table.conclude(
            "under mimalloc, a `malloc` + `free` of 1,032 B is faster than one of 1,040 B as well",
            step(mm),
        );
    }
    table.conclude(
        "under glibc, at 1,032 B, `calloc` + `free` is slower than `malloc` + `free`: the zeroed request skips the cache",
        m.faster_of(&malloc_name(1032), "yes", &calloc_name(1032), "no"),
    );
    table
}

/// One row of S5: what is zeroed, how many bytes, and the methods whose difference is the
/// zeroing's cost.
struct Rate {
    what: String,
    bytes: usize,
    with: String,
    without: String,
    seed: Option<&'static str>,
    written_as: Cell,
}

impl Rate {
    fn rate(&self, m: &Measured) -> Cell {
        match m.difference(&self.with, &self.without) {
            Verdict::Published(ns) if ns > 0.0 => Cell::BytesPerNs(self.bytes as f64 / ns),
            _ => Cell::NotResolvable,
        }
    }

    /// This process's span of the rate, bytes per ns, if the cost is positive whichever twin.
    fn span(&self, p: &Measurements) -> Option<Span> {
        method_span(p, &self.with)
            .minus(method_span(p, &self.without))
            .reciprocal(self.bytes as f64)
    }
}

/// How S4 reads the zeroed function of `bytes` in this binary.
fn written_as(name: &str) -> Cell {
    let symbol = workloads::symbol(name);
    match std::env::current_exe()
        .map_err(|err| err.to_string())
        .and_then(|b| disasm::disassemble(&b, &symbol))
    {
        Ok(d) => Cell::text(d.verdict().to_string()),
        Err(_) => Cell::Empty,
    }
}

fn s5_table(m: &Measured, sizes: &[Size]) -> Table {
    let mut rows: Vec<Rate> = sizes
        .iter()
        .zip(&STACK_SIZES)
        .map(|(s, (_, zeroed, _))| Rate {
            what: format!("a zeroed stack array of {}", bytes_label(s.bytes)),
            bytes: s.bytes,
            with: s.zeroed.clone(),
            without: s.uninit.clone(),
            seed: match s.bytes {
                2048 => Some("62.4 B/ns"),
                8192 => Some("88.4 B/ns"),
                _ => None,
            },
            written_as: written_as(zeroed.name),
        })
        .collect();
    rows.push(Rate {
        what: "an existing 8 KiB buffer, by `memset`".to_owned(),
        bytes: EIGHT_KIB,
        with: MEMSET.to_owned(),
        without: FLOOR.to_owned(),
        seed: None,
        written_as: Cell::text("a `memset` call"),
    });
    let mut table = Columns::new()
        .col("what is zeroed", |r: &Rate| Cell::text(&r.what))
        .col("bytes", |r: &Rate| Cell::bytes(r.bytes))
        .col("written as (S4)", |r: &Rate| r.written_as.clone())
        .col("cost of the zeroing", |r: &Rate| {
            m.difference_cell(&r.with, &r.without)
        })
        .col("rate", |r: &Rate| r.rate(m))
        .col("seed: literal `stackalloc`", |r: &Rate| {
            r.seed.map_or(Cell::Empty, |s| Cell::Seed(s.to_owned()))
        })
        .table(
            "S5",
            Kind::Time,
            "Zeroing rate: bytes zeroed per nanosecond (cache-resident: a ceiling, not a cold frame)",
            &rows,
        );
    table.note(m.protocol_note());
    table.note("From S3's run. A stack row's cost is zeroed minus `MaybeUninit` of the same size; the `memset` row's is `slice::fill(0.0)` of an existing 8 KiB buffer minus the floor's touch of it, the rate at which this machine zeroes 8 KiB already in cache. The *written as* column is S4's reading of the same function in this binary.");
    table.note("The seed's rates for a literal 2 KiB and 8 KiB exceed its laptop's memory bandwidth, as the seed itself notes: cache-resident rates, as here. Its literal 256 B rate did not survive its own publish rule.");
    table.note(SEED_CELLS);
    let rate_of = |bytes: usize| {
        rows.iter()
            .find(|r| r.bytes == bytes && r.with != MEMSET)
            .expect("a stack size of S5")
    };
    let lower = |slow: usize, fast: usize| {
        let (slow, fast) = (rate_of(slow), rate_of(fast));
        m.verdict(move |p| {
            below(slow.span(p)?, fast.span(p)?).map(|yes| if yes { "yes" } else { "no" }.to_owned())
        })
    };
    table.conclude(
        "the rate drops where LLVM switches from inline stores to a `memset` call: a 264 B array is zeroed at a lower rate than a 256 B one (the seed: a helper call has a fixed cost that inline stores do not)",
        lower(264, 256),
    );
    table.conclude(
        "inside the `memset` regime the call's fixed cost dilutes: 2 KiB is zeroed at a lower rate than 8 KiB (the seed: 62.4 → 88.4 B/ns)",
        lower(2048, 8192),
    );
    table
}
