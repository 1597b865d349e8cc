//! The whole operation (S7: the gain dilutes, the seed's third benchmark) and every strategy
//! agreeing on the same orders (S11).

use std::hint::black_box;

use lab::plot::Plot;
use lab::protocol::Allocator;
use lab::publish::{self, Figures, Pair, RATIO_PRECISION, Verdict};
use lab::report::{Function, Run};
use lab::table::{Claim, Columns};
use lab::timing::{BySize, Measured, Measurements, Schedule, Timing, agree};
use lab::verdicts::{describe_sizes, sizes_where};
use lab::{Cell, Kind, Table};
use pool::{BufferPool, PoolConfig};
use stack_buffer::{
    AIR_FACTOR, BOX_KG, Item, MIN_CUBAGE_CM, PackError, Scratch, generate_order, pack_boxes,
    pack_boxes_with,
};

use super::{items, method_span, pair};
use crate::spans::{self, Span};
use crate::workloads::{self, S7_ITEMS, fresh_copy, pack_copy, reuse_copy};

pub(super) const S7: Function = lab::function!(s7_full_operation);
pub(super) const S11: Function = lab::function!(s11_agreement);

const COPIES: usize = 3;
const TOUCH_HEAP: &str = "touch only: heap `vec![0.0; 2N]`";
const TOUCH_STACK: &str = "touch only: stack `[0.0; 256]`";

/// What S7 times: the caller's own buffer, reused or fresh and unzeroed on every call
/// (`pack_boxes_reusing`), or one of the library's strategies (`pack_boxes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arm {
    /// One `Vec` per copy, allocated before the run, cleared and packed into on every call.
    Reused,
    /// A new `Vec::with_capacity(2N)` on every call, packed into through its spare capacity.
    Fresh,
    /// A strategy of the library.
    Scratch(Scratch),
}

impl Arm {
    /// The reused buffer first, then the fresh one, then every strategy.
    const ALL: [Arm; 9] = [
        Arm::Reused,
        Arm::Fresh,
        Arm::Scratch(Scratch::Heap),
        Arm::Scratch(Scratch::Pool),
        Arm::Scratch(Scratch::Stack),
        Arm::Scratch(Scratch::StackUninit),
        Arm::Scratch(Scratch::Hybrid),
        Arm::Scratch(Scratch::SmallVec256),
        Arm::Scratch(Scratch::SmallVec32),
    ];
    const HEAP: Arm = Arm::Scratch(Scratch::Heap);
    const STACK: Arm = Arm::Scratch(Scratch::Stack);

    /// Its name in the timing run and its label in the table.
    fn name(self) -> String {
        match self {
            Arm::Reused => "reused `Vec`".to_owned(),
            Arm::Fresh => "fresh `Vec::with_capacity`".to_owned(),
            Arm::Scratch(strategy) => format!("`{strategy:?}`"),
        }
    }
}

fn copy(arm: Arm, copy: usize) -> String {
    format!("{} (copy {copy})", arm.name())
}

/// Registers copy `c` of `arm`: `pack_copy::<$original>` and its twin `pack_copy::<$twin>` for
/// a strategy, `reuse_copy` (each copy with a buffer of its own) or `fresh_copy` for the others.
macro_rules! copy_pair {
    ($timing:expr, $arm:expr, $order:expr, $c:literal: $original:literal, $twin:literal) => {{
        let (arm, order): (Arm, &[Item]) = ($arm, $order);
        let name = copy(arm, $c);
        match arm {
            Arm::Scratch(strategy) => $timing.method_pair(
                &name,
                move || pack_copy::<$original>(black_box(order), strategy),
                move || pack_copy::<$twin>(black_box(order), strategy),
            ),
            Arm::Reused => {
                // The caller's own buffers, allocated here, outside the timed loop.
                let mut a = Vec::with_capacity(2 * order.len());
                let mut b = Vec::with_capacity(2 * order.len());
                $timing.method_pair(
                    &name,
                    move || reuse_copy::<$original>(black_box(order), &mut a),
                    move || reuse_copy::<$twin>(black_box(order), &mut b),
                )
            }
            Arm::Fresh => $timing.method_pair(
                &name,
                move || fresh_copy::<$original>(black_box(order)),
                move || fresh_copy::<$twin>(black_box(order)),
            ),
        }
    }};
}

fn time_size(run: &Run, n: usize, order: &[Item]) -> Measured {
    drop(stack_buffer::scratch_pool().rent(2 * n)); // warm: the pool's hit path
    // 29 methods × 2 copies per size: callgrind children would add minutes.
    let mut timing = Timing::new(run.config().without_instructions());
    for arm in Arm::ALL {
        // Six copies of the buffer handling per arm: three methods, each with its twin.
        copy_pair!(timing, arm, order, 1: 0, 1);
        copy_pair!(timing, arm, order, 2: 2, 3);
        copy_pair!(timing, arm, order, 3: 4, 5);
    }
    // The same buffers with the work reduced to S1's touch, in the same run.
    pair!(timing, TOUCH_HEAP, workloads::s1_heap(n));
    pair!(timing, TOUCH_STACK, workloads::s1_stack(n));
    timing.run(Schedule::Interleaved)
}

/// An arm's three copies in one process, as the publish rule's pair: their median and the
/// copy or twin farthest from it.
fn copies_pair(p: &Measurements, arm: Arm) -> Pair {
    let methods: Vec<_> = (1..=COPIES).map(|c| p.expect(&copy(arm, c))).collect();
    let originals: Vec<f64> = methods.iter().map(|r| r.median_ns).collect();
    let twins: Vec<f64> = methods.iter().map(|r| r.twin.median_ns).collect();
    let (original_ns, twin_ns) = spans::copies_pair(&originals, &twins);
    Pair {
        original_ns,
        twin_ns,
    }
}

/// An arm's three copies in every process.
fn copies_figures(m: &Measured, arm: Arm) -> Figures {
    Figures {
        per_process: m.processes.iter().map(|p| copies_pair(p, arm)).collect(),
    }
}

/// Every figure of an arm's copies and twins in one process.
fn copies_span(p: &Measurements, arm: Arm) -> Span {
    let figures: Vec<f64> = (1..=COPIES)
        .map(|c| p.expect(&copy(arm, c)))
        .flat_map(|r| [r.median_ns, r.twin.median_ns])
        .collect();
    Span::of(&figures)
}

/// `a / b` for the whole operation, from the copies, under the publish rule.
fn copies_ratio(m: &Measured, a: Arm, b: Arm) -> Claim {
    Claim::ratio(
        publish::ratio(
            &copies_figures(m, a),
            &copies_figures(m, b),
            RATIO_PRECISION,
        ),
        RATIO_PRECISION,
    )
}

/// In one process: whether `a`'s copies are resolvably faster than `b`'s.
fn copies_faster(p: &Measurements, a: Arm, b: Arm) -> Option<bool> {
    let single = |s| Figures::single(copies_pair(p, s));
    match publish::difference(&single(a), &single(b)) {
        Verdict::Published(d) => Some(d < 0.0),
        Verdict::NotResolvable { .. } => None,
    }
}

/// In one process: whether the Stack / Heap ratio is closer to 1× for the whole operation than
/// for the touch alone, beyond the twins and the copies.
fn dilutes(p: &Measurements) -> Option<bool> {
    let touch = method_span(p, TOUCH_STACK).over(method_span(p, TOUCH_HEAP))?;
    let whole = copies_span(p, Arm::STACK).over(copies_span(p, Arm::HEAP))?;
    spans::dilutes(touch, whole)
}

fn yes_no(answer: Option<bool>) -> Option<String> {
    answer.map(|yes| if yes { "yes" } else { "no" }.to_owned())
}

fn s7_full_operation(run: &Run) -> Vec<Table> {
    let sizes: Vec<BySize> = S7_ITEMS
        .iter()
        .map(|&n| BySize {
            size: n,
            measured: time_size(run, n, &workloads::s7_order(n)),
        })
        .collect();
    vec![copies_table(run, &sizes), dilution_table(&sizes)]
}

/// Every process's verdict on the sizes at which `answer` holds.
fn per_size(sizes: &[BySize], answer: &dyn Fn(&Measurements) -> Option<bool>) -> Claim {
    agree(sizes[0].measured.process_count(), |p| {
        let outcomes: Vec<(usize, Option<bool>)> = sizes
            .iter()
            .map(|s| (s.size, answer(&s.measured.processes[p])))
            .collect();
        Some(describe_sizes(
            &sizes_where(&outcomes),
            outcomes.len(),
            items,
        ))
    })
}

fn copies_table(run: &Run, sizes: &[BySize]) -> Table {
    let rows: Vec<(&BySize, Arm)> = sizes
        .iter()
        .flat_map(|s| Arm::ALL.map(|arm| (s, arm)))
        .collect();
    let medians = |(s, arm): &(&BySize, Arm)| -> Vec<f64> {
        (1..=COPIES)
            .map(|c| s.measured.expect(&copy(*arm, c)).median_ns())
            .collect()
    };
    let mut columns = Columns::new()
        .col("N items", |(s, _): &(&BySize, Arm)| Cell::count(s.size))
        .col("strategy", |(_, arm): &(&BySize, Arm)| {
            Cell::text(arm.name())
        });
    for c in 1..=COPIES {
        columns = columns.col(format!("copy {c}"), move |(s, arm): &(&BySize, Arm)| {
            s.measured.expect(&copy(*arm, c)).median_cell()
        });
    }
    let worst = |(s, arm): &(&BySize, Arm), noise: &dyn Fn(&lab::timing::Method<'_>) -> f64| {
        (1..=COPIES)
            .map(|c| noise(&s.measured.expect(&copy(*arm, c))))
            .fold(0.0, f64::max)
    };
    let mut table = run.own(
        columns
            .col("spread of the three", move |row: &(&BySize, Arm)| {
                let span = Span::of(&medians(row));
                Cell::Percent(100.0 * (span.hi - span.lo) / span.lo)
            })
            .col("largest twin disagreement", move |row: &(&BySize, Arm)| {
                Cell::Percent(worst(row, &|m| m.twin_disagreement_pct()))
            })
            .col("between processes", move |row: &(&BySize, Arm)| {
                if row.0.measured.process_count() > 1 {
                    Cell::Percent(worst(row, &|m| m.spread_pct()))
                } else {
                    Cell::Empty
                }
            })
            .col(
                "/ Heap (the copies' median)",
                |(s, arm): &(&BySize, Arm)| {
                    if *arm == Arm::HEAP {
                        Cell::Empty
                    } else {
                        Cell::Claim(copies_ratio(&s.measured, *arm, Arm::HEAP))
                    }
                },
            )
            .table("S7", Kind::Time, "", &rows),
    );
    table.note(sizes[0].measured.protocol_note());
    table.note(format!("Each order size is its own interleaved run (the line above is the first size's). Orders come from `generate_order(N, 42)`; boxes hold 40 kg. No instruction counts: {} callgrind children per size would add minutes.", 2 * (COPIES * Arm::ALL.len() + 2)));
    table.note("Each copy is a separate copy of the measured code: `pack_copy::<0>` to `pack_copy::<5>` are six instantiations of one function holding the strategy's buffer handling (the `Vec`, the pool's rent, the arrays, the `SmallVec`s), three methods and their three twins, each at its own address, and so are `reuse_copy` and `fresh_copy` for the caller's own buffer. All of them call the library's one packing body, as the seed's three copies called one consolidator: it takes its scratch as `MaybeUninit<f64>` slots, so the unzeroed buffers (`StackUninit`, the reused and the fresh `Vec`) run the same code as the zeroed ones. So the spread of the three is a noise figure of its own, as in the seed's third benchmark.");
    table.note("The reused `Vec` is allocated once per copy before the run and cleared on every call (`pack_boxes_reusing`: `clear()`, a capacity check, the spare capacity packed into); the fresh one is the same code handed a new `Vec::with_capacity(2N)` on every call; `Heap` is `vec![0.0; 2N]`. So reused → fresh is the allocation, fresh → `Heap` the zeroing on `calloc`'s path, and `StackUninit` differs from the reused `Vec` in where the scratch lives; `Stack` also zeroes 2 KiB.");
    table.note("A ratio to Heap is the median of the three copies over the median of Heap's three, under the publish rule with each figure's noise the copy or twin farthest from its median: it must beat the spread of the copies as well as the twins'. The conclusions below compare the copies the same way, in every process.");
    table.note("The seed's three identical copies disagreed by up to 28.1 % (at 4 items).");
    let faster = |a: Arm, b: Arm| per_size(sizes, &move |p| copies_faster(p, a, b));
    let uninit = Arm::Scratch(Scratch::StackUninit);
    table.conclude(
        "the sizes at which the whole operation is faster with the reused `Vec` than with `Heap`, which allocates and zeroes 2N values on every call",
        faster(Arm::Reused, Arm::HEAP),
    );
    table.conclude(
        "the sizes at which the whole operation is faster with the reused `Vec` than with a fresh unzeroed one: the allocation, in the whole operation",
        faster(Arm::Reused, Arm::Fresh),
    );
    table.conclude(
        "the sizes at which the whole operation is faster with `StackUninit` than with the reused `Vec`: what the stack buys over a buffer the caller owns, neither zeroed",
        faster(uninit, Arm::Reused),
    );
    table.conclude(
        "the sizes at which the whole operation is faster with `Stack`, which zeroes 2 KiB, than with the reused `Vec`",
        faster(Arm::STACK, Arm::Reused),
    );
    table.conclude(
        "the sizes at which the whole operation is faster with the reused `Vec` than with `Stack`",
        faster(Arm::Reused, Arm::STACK),
    );
    let largest = sizes.last().expect("S7 has sizes");
    table.conclude(
        format!(
            "at the largest order, {}, the faster of the reused `Vec` and `Heap` for the whole operation (a verdict that does not hang on a list of sizes)",
            items(largest.size)
        ),
        largest.measured.verdict(|p| {
            copies_faster(p, Arm::Reused, Arm::HEAP)
                .map(|r| if r { "the reused `Vec`" } else { "`Heap`" }.to_owned())
        }),
    );
    table
}

fn dilution_table(sizes: &[BySize]) -> Table {
    let mimalloc = sizes[0].measured.under(Allocator::Mimalloc).is_some();
    let (hybrid, pool) = (Arm::Scratch(Scratch::Hybrid), Arm::Scratch(Scratch::Pool));
    let mut table = Columns::new()
        .col("N items", |s: &BySize| Cell::count(s.size))
        .col("Stack / Heap, the touch only", |s: &BySize| {
            s.measured.ratio_cell(TOUCH_STACK, TOUCH_HEAP)
        })
        .col("Stack / Heap, the whole operation", |s: &BySize| {
            Cell::Claim(copies_ratio(&s.measured, Arm::STACK, Arm::HEAP))
        })
        .col("closer to 1×, beyond the copies' spread?", |s: &BySize| {
            Cell::Claim(s.measured.verdict(|p| yes_no(dilutes(p))))
        })
        .col("faster: Hybrid or Pool?", move |s: &BySize| {
            Cell::Claim(s.measured.verdict(|p| {
                copies_faster(p, hybrid, pool).map(|h| if h { "Hybrid" } else { "Pool" }.to_owned())
            }))
        })
        .col_if(
            mimalloc,
            "Stack / Heap, the whole operation, under mimalloc",
            |s: &BySize| {
                s.measured.under(Allocator::Mimalloc).map_or(Cell::Empty, |mm| {
                    Cell::Claim(copies_ratio(mm, Arm::STACK, Arm::HEAP))
                })
            },
        )
        .table(
            "S7-dilution",
            Kind::Time,
            "Does the gain dilute? Stack / Heap with the work reduced to a touch and for the whole operation, from S7's runs",
            sizes,
        );
    table.note(sizes[0].measured.protocol_note());
    table.note("The touch only is S1's workload at the same N, timed in the same run; the whole operation's ratio is the median of three copies of each strategy over Heap's (S7, appendix). *Closer to 1×* must hold in every process, whichever copy and twin is taken.");
    table.note("seed `002`: Stack / Heap 0.42 with the touch only, 0.90 for the whole operation (Core i7-8665U, .NET 10); here: the second and third columns.");
    table.conclude(
        "the sizes at which the whole operation's Stack / Heap is closer to 1× than the touch's, beyond the copies' spread",
        per_size(sizes, &dilutes),
    );
    table.plots.push(dilution_plot(sizes));
    table
}

/// S7-dilution's figure: Stack / Heap against N, with the work reduced to a touch and for the
/// whole operation (each arm's figure the median of its three copies' medians).
fn dilution_plot(sizes: &[BySize]) -> Plot {
    let arm_ns = |m: &Measured, arm: Arm| {
        let mut copies: Vec<f64> = (1..=COPIES)
            .map(|c| m.expect(&copy(arm, c)).median_ns())
            .collect();
        copies.sort_by(f64::total_cmp);
        copies[COPIES / 2]
    };
    let touch = sizes
        .iter()
        .map(|s| {
            let m = &s.measured;
            (
                s.size as f64,
                m.expect(TOUCH_STACK).median_ns() / m.expect(TOUCH_HEAP).median_ns(),
            )
        })
        .collect();
    let whole = sizes
        .iter()
        .map(|s| {
            let m = &s.measured;
            (s.size as f64, arm_ns(m, Arm::STACK) / arm_ns(m, Arm::HEAP))
        })
        .collect();
    let mut plot = Plot::lines(
        "s7-dilution-by-size",
        "Stack / Heap against N: the work reduced to a touch, and the whole packing operation (medians, glibc; 1 = no difference)",
        "N items (log scale)",
        "Stack time / Heap time",
    )
    .series("touch only", touch)
    .series("whole operation", whole)
    .series("no difference", sizes.iter().map(|s| (s.size as f64, 1.0)).collect());
    plot.log_x = true;
    plot
}

/// One order of S11 and what every strategy made of it.
struct Agreement {
    n: usize,
    flattened: usize,
    results: Vec<Result<usize, PackError>>,
    rented: bool,
}

const S11_ITEMS: [usize; 8] = [1, 16, 17, 64, 127, 128, 129, 1000];

fn agreement(n: usize) -> Agreement {
    let order = generate_order(n, 2026);
    let flattened = order
        .iter()
        .filter(|i| i.billed_dimensions_cm() == MIN_CUBAGE_CM)
        .count();
    let results = Scratch::ALL
        .iter()
        .map(|&s| pack_boxes(&order, BOX_KG, AIR_FACTOR, s))
        .collect();
    // A pool of its own, so nothing else renting at the same time can answer for it.
    let mine = BufferPool::<f64>::new(PoolConfig::default());
    let _ = pack_boxes_with(&mine, &order, BOX_KG, AIR_FACTOR, Scratch::Hybrid);
    Agreement {
        n,
        flattened,
        results,
        rented: mine.stats().rents > 0,
    }
}

fn boxes(result: &Result<usize, PackError>) -> Cell {
    match result {
        Ok(1) => Cell::text("1 box"),
        Ok(boxes) => Cell::text(format!("{boxes} boxes")),
        Err(PackError::TooManyForStack { max, .. }) => {
            Cell::text(format!("error: more than {max} items"))
        }
        Err(err) => Cell::text(format!("error: {err}")),
    }
}

fn s11_agreement(run: &Run) -> Vec<Table> {
    let rows: Vec<Agreement> = S11_ITEMS.map(agreement).into();
    let mut columns = Columns::new()
        .col("N items", |a: &Agreement| Cell::count(a.n))
        .col("minimum-cubage items", |a: &Agreement| {
            Cell::count(a.flattened)
        });
    for (idx, strategy) in Scratch::ALL.iter().enumerate() {
        columns = columns.col(format!("{strategy:?}"), move |a: &Agreement| {
            boxes(&a.results[idx])
        });
    }
    let mut table = run.own(
        columns
            .col("Hybrid rented from the pool?", |a: &Agreement| {
                Cell::Bool(a.rented)
            })
            .table("S11", Kind::Fact, "", &rows),
    );
    table.note(format!("Orders come from `generate_order(n, 2026)`: one item in four is flattened below 10 cm, so the minimum-cubage branch runs. Boxes hold {BOX_KG} kg; the factor is {AIR_FACTOR}. The boundaries are those of the two inline capacities (16 items for `SmallVec32`, 128 for the stack array and `SmallVec256`). The proptest `all_strategies_return_the_same_box_count` checks agreement on 200 random orders per test run. *Rented* is read from a pool of its own (`pack_boxes_with`), so no other renter can answer for it."));
    table.note("`StackUninit` is checked by Miri in CI on every path the tests execute, and a deliberately wrong variant (a test that only CI's Miri step compiles, with `--cfg deliberate_ub`) shows Miri catching an uninitialised read: see the text under this table.");
    vec![table]
}
