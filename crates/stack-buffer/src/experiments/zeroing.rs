//! What the zeroing costs: the factorial (S3), the heap's step at glibc's per-thread cache
//! (S3-heap), the zeroing rate (S5), and whether the stack still pays under mimalloc
//! (X1-stack). All from the seed's second benchmark.

use std::hint::black_box;

use lab::protocol::Allocator;
use lab::publish::Verdict;
use lab::report::{Function, Run};
use lab::table::Columns;
use lab::timing::{Measured, Measurements, Method, Schedule, Technique, Timing, allocator_table};
use lab::{Cell, Kind, Table};

use super::{SEED_CELLS, bytes_label};
use crate::{heap, workloads};

pub(super) const S3: Function = lab::function!(s3_factorial);

const MEMSET: &str = "`fill(0.0)` of an existing 8 KiB buffer (`memset`)";
const FLOOR: &str = "touch an existing 8 KiB buffer";
const EIGHT_KIB: usize = 8 * 1024;

/// The method name of one factorial function, from its name in [`workloads::S3`].
fn label(name: &str) -> String {
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

/// One size of the factorial: its bytes and the method names of its four functions (zeroed
/// stack, unzeroed stack, zeroed heap, unzeroed heap).
struct Size {
    bytes: usize,
    names: [String; 4],
}

impl Size {
    fn all() -> Vec<Size> {
        workloads::S3
            .iter()
            .map(|(bytes, fns)| Size {
                bytes: *bytes,
                names: fns.map(|(name, _)| label(name)),
            })
            .collect()
    }

    fn zeroed(&self) -> &str {
        &self.names[0]
    }
    fn uninit(&self) -> &str {
        &self.names[1]
    }
    fn heap_zeroed(&self) -> &str {
        &self.names[2]
    }
    fn heap_uninit(&self) -> &str {
        &self.names[3]
    }

    fn worst(&self, m: &Measured, noise: impl Fn(&Method<'_>) -> f64) -> f64 {
        self.names
            .iter()
            .map(|name| noise(&m.expect(name)))
            .fold(0.0, f64::max)
    }
}

fn s3_factorial(run: &Run) -> Vec<Table> {
    // 18 methods × 2 copies: callgrind would add a minute; S4 reads the code instead.
    let mut timing = Timing::new(run.config().without_instructions());
    for (_, fns) in workloads::S3 {
        for (name, f) in fns {
            timing.method(&label(name), f);
        }
    }
    let mut existing = vec![0.0f64; EIGHT_KIB / 8];
    timing.method(MEMSET, move || workloads::memset_existing(&mut existing));
    let mut floor_buf = vec![0.0f64; EIGHT_KIB / 8];
    timing.floor(FLOOR, move || workloads::touch(&mut floor_buf));
    let m = timing.run(Schedule::Interleaved);
    let heap_run = time_malloc_free(run);

    let sizes = Size::all();
    vec![
        s3_table(run, &m, &sizes),
        s3_heap_table(&heap_run),
        s5_table(&m, &sizes),
        x1_table(&m, &sizes),
    ]
}

fn s3_table(run: &Run, m: &Measured, sizes: &[Size]) -> Table {
    let mimalloc = m.under(Allocator::Mimalloc);
    let on_mimalloc = |name: &str| mimalloc.map_or(Cell::Empty, |mm| mm.expect(name).median_cell());
    let mut s3 = run.own(
        Columns::new()
            .col("size", |s: &Size| Cell::bytes(s.bytes))
            .col("stack, zeroed", |s: &Size| {
                m.expect(s.zeroed()).median_cell()
            })
            .col("stack, `MaybeUninit`", |s: &Size| {
                m.expect(s.uninit()).median_cell()
            })
            .col("`MaybeUninit` minus the floor", |s: &Size| {
                m.difference_cell(s.uninit(), FLOOR)
            })
            .col("zeroing on the stack", |s: &Size| {
                m.difference_cell(s.zeroed(), s.uninit())
            })
            .col("heap, zeroed", |s: &Size| {
                m.expect(s.heap_zeroed()).median_cell()
            })
            .col("heap, unzeroed", |s: &Size| {
                m.expect(s.heap_uninit()).median_cell()
            })
            .col("zeroing on the heap", |s: &Size| {
                m.difference_cell(s.heap_zeroed(), s.heap_uninit())
            })
            .col_if(
                mimalloc.is_some(),
                "heap, zeroed, under mimalloc",
                |s: &Size| on_mimalloc(s.heap_zeroed()),
            )
            .col_if(
                mimalloc.is_some(),
                "heap, unzeroed, under mimalloc",
                |s: &Size| on_mimalloc(s.heap_uninit()),
            )
            .col("largest twin disagreement", |s: &Size| {
                Cell::Percent(s.worst(m, |x| x.twin_disagreement_pct()))
            })
            .col("between processes", |s: &Size| {
                if m.process_count() > 1 {
                    Cell::Percent(s.worst(m, |x| x.spread_pct()))
                } else {
                    Cell::Empty
                }
            })
            .table("S3", Kind::Time, "", sizes),
    );
    let floor = m.expect(FLOOR);
    s3.note(m.protocol_note());
    s3.note(format!(
        "All 18 methods (the 16 of the factorial, S5's `memset` reference and the floor) ran interleaved in one run, each with its twin. The floor, the same touch on an existing 8 KiB buffer, measured {} (twin disagreement {}).",
        floor.median_cell().render(),
        Cell::Percent(floor.twin_disagreement_pct()).render()
    ));
    s3.note("*Zeroing* is zeroed minus unzeroed; *`MaybeUninit` minus the floor* is what reaching the stack memory costs beyond the harness's own touch. Both are differences under the publish rule. No instruction counts: 36 callgrind children would add a minute, and S4 reads the code instead.");
    s3.note("The seed's second axis was `stackalloc` with a literal vs a variable size. Stable Rust has no variable-size stack allocation (no `alloca`), so that axis has no counterpart; it is replaced by *fixed size on the stack vs exact size on the heap*, the choice a Rust programmer actually has.");
    s3.note("Between 256 B and 2 KiB the heap's requests cross glibc's per-thread cache limit: S3-heap times both sides of it. The mimalloc columns are the same run in processes of `stack-buffer-experiments-mimalloc`.");
    s3.note("The seed (its machine under *Sources*), 2 KiB literal: 3.24 ns to obtain without zeroing, instrument included, and 32.84 ns for the zeroing. 8 KiB: literal without zeroing 4.9 ns, variable without zeroing 6.0 ns, literal with zeroing 97.6 ns, variable with zeroing 306.6 ns, `new double[1024]` 815.7 ns.");
    let large: Vec<&Size> = sizes.iter().filter(|s| s.bytes >= 2048).collect();
    s3.conclude(
        "at 2 KiB and at 8 KiB, zeroing the stack array costs more than everything else the call does, the unzeroed array's whole cost (the seed's thesis: what you pay for is the zeroing)",
        m.verdict(|p| {
            let dominated = large.iter().map(|s| {
                let zeroing_resolved = p.faster(s.uninit(), s.zeroed()) == Some(true);
                let (z, u) = (
                    p.expect(s.zeroed()).median_ns,
                    p.expect(s.uninit()).median_ns,
                );
                zeroing_resolved.then_some(z - u > u)
            });
            dominated
                .collect::<Option<Vec<bool>>>()
                .map(|all| if all.iter().all(|&d| d) { "yes" } else { "no" }.to_owned())
        }),
    );
    s3
}

/// S3-heap: one `malloc` + `free` at sizes around glibc's per-thread cache limit.
fn time_malloc_free(run: &Run) -> Measured {
    let mut timing = Timing::new(run.config());
    for bytes in heap::AROUND_THE_CACHE_LIMIT {
        timing.method(&bytes_label(bytes), move || {
            heap::malloc_free(black_box(bytes))
        });
    }
    timing.run(Schedule::Interleaved)
}

fn s3_heap_table(m: &Measured) -> Table {
    let mimalloc = m.under(Allocator::Mimalloc);
    // Observed after the timing runs, so they do not disturb them; only the final process's
    // (glibc's) answers reach the table.
    let lifo: Vec<(usize, bool)> = heap::AROUND_THE_CACHE_LIMIT
        .iter()
        .map(|&bytes| (bytes, heap::reuses_last_freed(bytes)))
        .collect();
    let limit = heap::largest_lifo_request(256, 4096);
    let mut table = Columns::new()
        .col("request", |(bytes, _): &(usize, bool)| Cell::bytes(*bytes))
        .col(
            "the last block freed comes back first?",
            |(_, lifo): &(usize, bool)| Cell::Bool(*lifo),
        )
        .col("`malloc` + `free`", |(bytes, _): &(usize, bool)| {
            m.expect(&bytes_label(*bytes)).median_cell()
        })
        .col("instructions (twin)", |(bytes, _): &(usize, bool)| {
            m.expect(&bytes_label(*bytes))
                .instructions()
                .map_or(Cell::Empty, |[original, twin]| Cell::Instructions {
                    original,
                    twin,
                })
        })
        .col_if(
            mimalloc.is_some(),
            "under mimalloc",
            |(bytes, _): &(usize, bool)| {
                mimalloc.map_or(Cell::Empty, |mm| mm.expect(&bytes_label(*bytes)).median_cell())
            },
        )
        .col("twin disagreement", |(bytes, _): &(usize, bool)| {
            Cell::Percent(m.expect(&bytes_label(*bytes)).twin_disagreement_pct())
        })
        .col("between processes", |(bytes, _): &(usize, bool)| {
            if m.process_count() > 1 {
                Cell::Percent(m.expect(&bytes_label(*bytes)).spread_pct())
            } else {
                Cell::Empty
            }
        })
        .table(
            "S3-heap",
            Kind::Time,
            "The heap between 256 B and 2 KiB: one `malloc` + `free` (unzeroed) on both sides of glibc's per-thread cache limit",
            &lifo,
        );
    table.note(m.protocol_note());
    if let Some(why) = &m.live().instructions_note {
        table.note(why.clone());
    }
    table.note("glibc keeps, per thread and per size class, a short last-in, first-out list of freed blocks (the *tcache*: 64 classes 16 bytes apart by default, so requests of up to 1,032 bytes on x86-64), and serves a `malloc` of such a size from it without touching the shared heap. A larger request takes the arena's general path (bins, splitting, coalescing), and so does its `free`.");
    table.note(match limit {
        Some(bytes) => format!(
            "Observed in this process without a clock: after two blocks of a size are freed, the next request of that size gets the last one back up to {} (scanning up from 256 B in steps of 8), and the first one above it.",
            bytes_label(bytes)
        ),
        None => "Observed in this process without a clock: no size from 256 B on came back last in, first out (not glibc's default cache).".to_owned(),
    });
    let step = |m: &Measured| {
        m.verdict(|p| {
            p.faster(&bytes_label(1032), &bytes_label(1040))
                .map(|yes| if yes { "yes" } else { "no" }.to_owned())
        })
    };
    table.conclude(
        "under glibc, a `malloc` + `free` of 1,040 B, the first size above the cache's limit, is slower than one of 1,032 B, the last size inside it",
        step(m),
    );
    if let Some(mm) = mimalloc {
        table.conclude(
            "under mimalloc, a `malloc` + `free` of 1,040 B is slower than one of 1,032 B as well",
            step(mm),
        );
    }
    table
}

/// One row of S5: what is zeroed, how many bytes, and the methods whose difference is the
/// zeroing's cost.
struct Rate {
    what: String,
    bytes: usize,
    with: String,
    without: String,
}

impl Rate {
    fn cost(&self, m: &Measured) -> Verdict {
        m.difference(&self.with, &self.without)
    }

    fn rate(&self, m: &Measured) -> Option<f64> {
        match self.cost(m) {
            Verdict::Published(ns) if ns > 0.0 => Some(self.bytes as f64 / ns),
            _ => None,
        }
    }

    /// This process's cost of the zeroing, if it resolved it.
    fn cost_in(&self, p: &Measurements) -> Option<f64> {
        (p.faster(&self.without, &self.with) == Some(true))
            .then(|| p.expect(&self.with).median_ns - p.expect(&self.without).median_ns)
    }
}

fn s5_table(m: &Measured, sizes: &[Size]) -> Table {
    let mut rows: Vec<Rate> = sizes
        .iter()
        .map(|s| Rate {
            what: format!("a zeroed stack array of {}", bytes_label(s.bytes)),
            bytes: s.bytes,
            with: s.zeroed().to_owned(),
            without: s.uninit().to_owned(),
        })
        .collect();
    rows.push(Rate {
        what: "an existing 8 KiB buffer, by `memset`".to_owned(),
        bytes: EIGHT_KIB,
        with: MEMSET.to_owned(),
        without: FLOOR.to_owned(),
    });
    let memset = rows.last().expect("the memset row").rate(m);
    let stack_8k = rows
        .iter()
        .find(|r| r.bytes == EIGHT_KIB)
        .expect("an 8 KiB stack row");
    let mut table = Columns::new()
        .col("what is zeroed", |r: &Rate| Cell::text(&r.what))
        .col("bytes", |r: &Rate| Cell::bytes(r.bytes))
        .col("cost of the zeroing", |r: &Rate| match r.cost(m) {
            Verdict::Published(ns) => Cell::Nanos(ns),
            Verdict::NotResolvable { .. } => Cell::NotResolvable,
        })
        .col("rate", |r: &Rate| {
            r.rate(m).map_or(Cell::NotResolvable, Cell::BytesPerNs)
        })
        .col("share of the `memset` rate", |r: &Rate| {
            // Only the same size is a fair comparison with the 8 KiB `memset`.
            match (r.rate(m), memset) {
                (Some(rate), Some(ceiling)) if r.bytes == EIGHT_KIB && r.with != MEMSET => {
                    Cell::Percent(100.0 * rate / ceiling)
                }
                _ => Cell::Empty,
            }
        })
        .table(
            "S5",
            Kind::Time,
            "Zeroing rate: bytes zeroed per nanosecond (cache-resident: a ceiling, not a cold frame)",
            &rows,
        );
    table.note(m.protocol_note());
    table.note("From S3's run. The stack rows' cost is zeroed minus `MaybeUninit`; the `memset` row's is `slice::fill(0.0)` of an existing 8 KiB buffer minus the floor's touch of it: this machine's ceiling for zeroing 8 KiB that is already in cache.");
    table.note("The seed's rates, 62.4 and 88.4 B/ns for a literal 2 KiB and 8 KiB, exceed its laptop's memory bandwidth, as the seed itself notes: cache-resident rates, as here.");
    table.note(SEED_CELLS);
    let memset_row = rows.last().expect("the memset row");
    table.conclude(
        "the target: zeroing an 8 KiB stack array reaches at least half this machine's `memset` rate on an existing 8 KiB buffer (at that size the zeroed array should be a `memset` call itself, S4)",
        m.verdict(|p| {
            let (stack, memset) = (stack_8k.cost_in(p)?, memset_row.cost_in(p)?);
            Some(if memset / stack >= 0.5 { "met" } else { "missed" }.to_owned())
        }),
    );
    table
}

fn x1_table(m: &Measured, sizes: &[Size]) -> Table {
    let chosen: Vec<&Size> = sizes.iter().filter(|s| s.bytes >= 256).collect();
    let labels: Vec<[String; 2]> = chosen
        .iter()
        .map(|s| {
            let size = bytes_label(s.bytes);
            [
                format!("zeroed stack array vs `vec![0.0; n]`, {size}"),
                format!("`MaybeUninit` stack array vs `Vec::with_capacity`, {size}"),
            ]
        })
        .collect();
    let rows: Vec<Technique<'_>> = chosen
        .iter()
        .zip(&labels)
        .flat_map(|(s, [zeroed, uninit])| {
            [
                Technique {
                    label: zeroed,
                    run: m,
                    technique: s.zeroed(),
                    baseline: s.heap_zeroed(),
                },
                Technique {
                    label: uninit,
                    run: m,
                    technique: s.uninit(),
                    baseline: s.heap_uninit(),
                },
            ]
        })
        .collect();
    let mut table = allocator_table(
        "X1-stack",
        "Does a stack buffer still pay against the heap under mimalloc? (S3's run)",
        &rows,
    );
    table.note(m.protocol_note());
    table.note("Each row compares two methods of S3's run, in the same processes: the stack array against a heap buffer of the same size, both zeroed or both not. Under mimalloc only the heap side changes allocator; the stack never calls one.");
    if let Some(mm) = m.under(Allocator::Mimalloc) {
        table.conclude(
            "a stack buffer still pays against the heap under mimalloc, at every size and in both pairs",
            mm.verdict(|p| {
                let faster: Option<Vec<bool>> = rows
                    .iter()
                    .map(|t| p.faster(t.technique, t.baseline))
                    .collect();
                faster.map(|all| if all.iter().all(|&f| f) { "yes" } else { "no" }.to_owned())
            }),
        );
    }
    table
}
