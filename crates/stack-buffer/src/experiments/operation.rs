//! The whole operation (S7: the gain dilutes, the seed's third benchmark) and every strategy
//! agreeing on the same orders (S11).

use std::hint::black_box;

use lab::report::{Function, Run};
use lab::table::Columns;
use lab::timing::{Measurements, Method, Schedule, Timing};
use lab::{Cell, Kind, Table};

use crate::workloads::{self, S7_ITEMS};
use crate::{AIR_FACTOR, BOX_KG, MIN_CUBAGE_CM, PackError, Scratch, generate_order, pack_boxes};

pub(super) const S7: Function = lab::function!(s7_full_operation);
pub(super) const S11: Function = lab::function!(s11_agreement);

const COPIES: usize = 3;
const TOUCH_HEAP: &str = "touch only: heap `vec![0.0; 200]`";
const TOUCH_STACK: &str = "touch only: stack `[0.0; 256]`";

fn copy(strategy: Scratch, copy: usize) -> String {
    format!("{strategy:?} (copy {copy})")
}

fn s7_full_operation(run: &Run) -> Vec<Table> {
    let order = workloads::s7_order();
    // 23 methods × 2 copies: callgrind children would add minutes.
    let mut timing = Timing::new(run.config().without_instructions());
    for strategy in Scratch::ALL {
        for c in 1..=COPIES {
            let order = &order;
            timing.method(&copy(strategy, c), move || {
                pack_boxes(black_box(order), BOX_KG, AIR_FACTOR, strategy)
            });
        }
    }
    // The same buffers with the work reduced to S1's touch, in the same run.
    timing.method(TOUCH_HEAP, || workloads::s1_heap(black_box(S7_ITEMS)));
    timing.method(TOUCH_STACK, || workloads::s1_stack(black_box(S7_ITEMS)));
    let measured = timing.run(Schedule::Interleaved);
    let m = &measured;

    let copies =
        |s: &Scratch| -> Vec<Method<'_>> { (1..=COPIES).map(|c| m.expect(&copy(*s, c))).collect() };
    let mut columns = Columns::new().col("strategy", |s: &Scratch| {
        Cell::text(format!("`Scratch::{s:?}`"))
    });
    for c in 1..=COPIES {
        columns = columns.col(format!("copy {c}"), move |s: &Scratch| {
            m.expect(&copy(*s, c)).median_cell()
        });
    }
    let mut table = run.own(
        columns
            .col("spread of the three", |s: &Scratch| {
                let medians: Vec<f64> = copies(s).iter().map(Method::median_ns).collect();
                let (lo, hi) = medians
                    .iter()
                    .fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
                Cell::Percent(100.0 * (hi - lo) / lo)
            })
            .col("largest twin disagreement", |s: &Scratch| {
                Cell::Percent(
                    copies(s)
                        .iter()
                        .map(Method::twin_disagreement_pct)
                        .fold(0.0, f64::max),
                )
            })
            .col("between processes", |s: &Scratch| {
                if m.process_count() > 1 {
                    Cell::Percent(copies(s).iter().map(Method::spread_pct).fold(0.0, f64::max))
                } else {
                    Cell::Empty
                }
            })
            .col("copy 1 / Heap copy 1", |s: &Scratch| {
                if *s == Scratch::Heap {
                    Cell::Empty
                } else {
                    m.ratio_cell(&copy(*s, 1), &copy(Scratch::Heap, 1))
                }
            })
            .table("S7", Kind::Time, "", &Scratch::ALL),
    );
    table.note(m.protocol_note());
    table.note("Every copy is registered separately (and each has its twin), so the spread of the three copies is a noise figure of its own, as in the seed's third benchmark. No instruction counts: 46 callgrind children would add minutes.");
    table.note("The two touch-only methods ran in the same run: S1's workload at the same 100 items, for the conclusions below.");
    table.note("The seed's stack/heap ratio went from 0.42 with the work reduced to a touch to 0.90 with the whole operation; its three identical copies disagreed by 28.1 %.");
    let stack = copy(Scratch::Stack, 1);
    let heap = copy(Scratch::Heap, 1);
    table.conclude(
        "Stack / Heap with the work reduced to a touch (S1's workload, 100 items)",
        m.ratio(TOUCH_STACK, TOUCH_HEAP),
    );
    table.conclude(
        "Stack / Heap for the whole operation",
        m.ratio(&stack, &heap),
    );
    table.conclude(
        "the gain dilutes: the whole operation's Stack / Heap ratio is closer to 1× than the touch's (the seed: 0.42 → 0.90)",
        m.verdict(|p: &Measurements| {
            p.faster(TOUCH_STACK, TOUCH_HEAP)?;
            let distance = |r: f64| r.ln().abs();
            let diluted = distance(p.ratio(&stack, &heap)) < distance(p.ratio(TOUCH_STACK, TOUCH_HEAP));
            Some(if diluted { "yes" } else { "no" }.to_owned())
        }),
    );
    vec![table]
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
    let before = crate::scratch_pool().stats().rents;
    let _ = pack_boxes(&order, BOX_KG, AIR_FACTOR, Scratch::Hybrid);
    let rented = crate::scratch_pool().stats().rents > before;
    Agreement {
        n,
        flattened,
        results,
        rented,
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
    table.note(format!("Orders come from `generate_order(n, 2026)`: one item in four is flattened below 10 cm, so the minimum-cubage branch runs. Boxes hold {BOX_KG} kg; the factor is {AIR_FACTOR}. The boundaries are those of the two inline capacities (16 items for `SmallVec32`, 128 for the stack array and `SmallVec256`). The proptest `all_strategies_return_the_same_box_count` checks agreement on 200 random orders per test run."));
    table.note("`StackUninit` is checked by Miri in CI, and a deliberately wrong variant (feature `deliberate-ub`) shows Miri catching an uninitialised read: see the chapter text.");
    vec![table]
}
