//! Against what a user would pick instead (P13): this crate's shared pool, three published pool
//! crates, one reused `Vec`, a fresh unzeroed `Vec::with_capacity` and a fresh `vec!`, all in one
//! interleaved run, at 128 B and 8 KiB.

use std::hint::black_box;

use lab::report::{Function, Run};
use lab::timing::{Measurements, Method, Schedule, Timing};
use lab::{Cell, Table, count};

use super::bytes_label;
use super::hit::instruction_target;
use crate::workloads::{self, Contender, Contenders, HIT_BYTES, P13_SIZES};

pub(super) const P13: Function = lab::function!(p13_other_pools);

/// The pools among the contenders that threads can share, as they can share `pool::shared()`:
/// the ones its target is about.
const SHAREABLE_POOLS: [Contender; 4] = [
    Contender::SharedPool,
    Contender::ObjectPool,
    Contender::LockfreeObjectPool,
    Contender::Opool,
];

/// The most instructions `pool::shared()`'s rent, touch and give-back may take, the timing
/// loop and the touch included (the floor row counts those two alone): within a few
/// instructions of a minimal per-thread pool, and of one reused `Vec`.
const SHARED_INSTRUCTIONS: f64 = 30.0;

/// A contender's method name at a size.
fn name(contender: Contender, n: usize) -> String {
    format!("{}, {}", contender.label(), bytes_label(n))
}

/// In process `p`, at size `n`: whether no other pool crate was resolvably faster than
/// `pool::shared()` (one within noise of it does not beat it: the target allows "within noise
/// of the fastest").
pub(super) fn shared_is_fastest(p: &Measurements, n: usize) -> bool {
    let shared = name(Contender::SharedPool, n);
    SHAREABLE_POOLS[1..]
        .iter()
        .all(|other| p.faster(&name(*other, n), &shared) != Some(true))
}

/// In process `p`, at size `n`: whether one reused `Vec` was resolvably faster than every other
/// way in the table (`Some(true)`), whether another way was resolvably faster than it
/// (`Some(false)`), or neither (`None`: within noise of one of them).
pub(super) fn reused_is_fastest(p: &Measurements, n: usize) -> Option<bool> {
    let reused = name(Contender::ReusedVec, n);
    let others = Contender::ALL
        .iter()
        .filter(|&&c| c != Contender::ReusedVec)
        .map(|&c| p.faster(&reused, &name(c, n)));
    let mut all_slower = true;
    for faster in others {
        match faster {
            Some(false) => return Some(false),
            Some(true) => {}
            None => all_slower = false,
        }
    }
    all_slower.then_some(true)
}

fn p13_other_pools(run: &Run) -> Vec<Table> {
    let contenders: Vec<Contenders> = P13_SIZES.iter().map(|&n| Contenders::new(n)).collect();
    let mut timing = Timing::new(run.config());
    for c in &contenders {
        let n = c.buffer_len();
        // Two closures per contender, one per copy, so each batch loop has its own copy of the
        // contender's code, inlined or called alike for every contender.
        let (a, b) = lab::twins!(move || c.shared_pool());
        timing.method_pair(&name(Contender::SharedPool, n), a, b);
        let (a, b) = lab::twins!(move || c.object_pool());
        timing.method_pair(&name(Contender::ObjectPool, n), a, b);
        let (a, b) = lab::twins!(move || c.lockfree_object_pool());
        timing.method_pair(&name(Contender::LockfreeObjectPool, n), a, b);
        let (a, b) = lab::twins!(move || c.opool());
        timing.method_pair(&name(Contender::Opool, n), a, b);
        let (a, b) = lab::twins!(move || c.opool_local());
        timing.method_pair(&name(Contender::OpoolLocal, n), a, b);
        let (a, b) = lab::twins!(move || c.thread_local_vec());
        timing.method_pair(&name(Contender::ThreadLocalVec, n), a, b);
        // `Contenders::reused_vec` needs `&mut`; each copy of the closure owns a `Vec` instead,
        // and does what that method does: clear the caller's own buffer and touch it.
        let (mut a_buf, mut b_buf) = (Vec::with_capacity(n), Vec::with_capacity(n));
        timing.method_pair(
            &name(Contender::ReusedVec, n),
            move || workloads::reused_touch(&mut a_buf, black_box(n)),
            move || workloads::reused_touch(&mut b_buf, black_box(n)),
        );
        let (a, b) = lab::twins!(move || c.fresh_unzeroed());
        timing.method_pair(&name(Contender::FreshUnzeroed, n), a, b);
        let (a, b) = lab::twins!(move || c.fresh_vec());
        timing.method_pair(&name(Contender::FreshVec, n), a, b);
    }
    let mut existing = vec![0u8; HIT_BYTES];
    timing.floor("touch an existing buffer", move || {
        workloads::touch(&mut existing)
    });
    let m = timing.run(Schedule::Interleaved);
    run.keep(0, &m);
    // Bytes per operation, counted on this thread after the run (each contender is warm).
    let mut counted: Vec<(String, u64)> = Vec::new();
    for mut c in contenders {
        for contender in Contender::ALL {
            const OPS: u64 = 100;
            let ((), stats) = count(|| {
                for _ in 0..OPS {
                    black_box(c.run(contender));
                }
            });
            counted.push((name(contender, c.buffer_len()), stats.bytes_allocated / OPS));
        }
    }
    let columns = m
        .columns()
        .col("bytes allocated per operation", |r: &Method<'_>| {
            counted
                .iter()
                .find(|(n, _)| n == r.name())
                .map_or(Cell::Empty, |(_, bytes)| Cell::Bytes(*bytes))
        });
    let mut table = run.own(m.table_with(run.experiment.id, "", &columns));
    table.note("Every contender hands out a buffer of the size named, touched the same way (first and last byte written and read back), and takes it back. The published crates' pools hand out whole objects, so each holds `Vec<u8>`s of one size, warmed with one, as a user of them would set them up; this crate's is `pool::shared()` as a user calls it, `shared()` included in every operation. `object-pool` 0.6 keeps its objects behind a `parking_lot::Mutex`; `lockfree-object-pool` 0.1's `LinearObjectPool` in a lock-free list, with a locked atomic instruction on each pull and each return, which an instruction count weighs like any other; `opool` 0.2's `Pool` in a bounded lock-free queue, and its `LocalPool` in a plain queue that only its own thread can use (it is not `Send`).");
    table.note("Two ways need no pool crate: a `thread_local!` `RefCell<Vec<u8>>` per thread, grown to the largest request and sliced to each one (like a pool's buffer, it keeps the previous user's bytes), and one `Vec` the caller owns and passes down (`Vec::with_capacity` once, `clear()` per use, its two ends written through `spare_capacity_mut`). Neither can hand a buffer to another thread, and the thread-local one holds its memory until the thread exits.");
    table.note("Two fresh buffers are allocated and freed per operation: `Vec::with_capacity(n)`, written through `spare_capacity_mut` before it is read (the allocation alone), and `vec![0u8; n]`, which asks `calloc` for zeroed memory (the allocation and the zeroing).");
    table.note("Bytes per operation are counted on this thread over 100 operations of each, after the timed run.");
    for n in P13_SIZES {
        table.conclude(
            format!("the target, at {}: `pool::shared()` the fastest of the pools threads can share (`object-pool`, `lockfree-object-pool`, `opool`'s `Pool`), or within noise of the fastest, on one thread (a published crate that beat it at its own job would be the better pick)", bytes_label(n)),
            m.target(|p| Some(shared_is_fastest(p, n))),
        );
    }
    for n in P13_SIZES {
        table.conclude(
            format!("the target, at {}: `pool::shared()`'s rent, touch and give-back at most {SHARED_INSTRUCTIONS} instructions, original and twin, `shared()` included (the floor row is the loop and the touch alone)", bytes_label(n)),
            instruction_target(&m, &name(Contender::SharedPool, n), SHARED_INSTRUCTIONS),
        );
    }
    for n in P13_SIZES {
        table.conclude(
            format!("at {}, one reused `Vec<u8>` (`clear()` per use) faster than every other way in the table, the pools and the fresh buffers alike", bytes_label(n)),
            m.verdict(|p| reused_is_fastest(p, n).map(|yes| if yes { "yes" } else { "no" }.to_owned())),
        );
    }
    for n in P13_SIZES {
        table.conclude(
            format!("at {}, the faster of `pool::shared()` and a fresh, unzeroed `Vec::with_capacity(n)` (the allocation without the zeroing)", bytes_label(n)),
            m.faster_of(
                &name(Contender::SharedPool, n),
                "`pool::shared()`",
                &name(Contender::FreshUnzeroed, n),
                "the fresh, unzeroed buffer",
            ),
        );
    }
    for other in [Contender::OpoolLocal, Contender::ThreadLocalVec] {
        for n in P13_SIZES {
            table.conclude(
                format!(
                    "at {}, the faster of `pool::shared()` and {}, which serves one thread only",
                    bytes_label(n),
                    other.label()
                ),
                m.faster_of(
                    &name(Contender::SharedPool, n),
                    "`pool::shared()`",
                    &name(other, n),
                    other.label(),
                ),
            );
        }
    }
    vec![table]
}
