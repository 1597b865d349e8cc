//! The order line written into a buffer that grows (P14): `rent_buf` from `pool::shared()`,
//! one `Vec<u8>` the caller owns and reuses, and a fresh unzeroed `Vec` per line, each running
//! the same `writeln!`.

use std::hint::black_box;

use lab::report::{Function, Run};
use lab::table::Claim;
use lab::timing::{Measurements, Method, Schedule, Timing};
use lab::{Cell, Table, publish};
use pool::shared;

use super::{PER_CALL, per_call};
use crate::workloads::{self, SMALL_ROOM, WRITE_ROOM};

pub(super) const P14: Function = lab::function!(p14_write);

const REUSED: &str = "one reused `Vec<u8>` (`clear()` per line)";
const RENTED: &str = "`pool::shared().rent_buf(128)`";
const GROWN: &str = "`pool::shared().rent_buf(16)`, grown to fit";
const FRESH: &str = "fresh, unzeroed `Vec::with_capacity(128)`";

/// How many times as long as the same write into one reused `Vec` the rented buffer may take.
const TARGET_RATIO: f64 = 1.5;

/// In process `p`: whether the rented buffer's time stays within `TARGET_RATIO` of the reused
/// `Vec`'s whichever twin is swapped in (`Some(true)`), stays above it (`Some(false)`), or
/// straddles it (`None`).
fn within_target(p: &Measurements) -> Option<bool> {
    let (lo, hi) = publish::ratio_bounds(p.expect(RENTED).pair(), p.expect(REUSED).pair());
    if hi <= TARGET_RATIO {
        Some(true)
    } else if lo > TARGET_RATIO {
        Some(false)
    } else {
        None
    }
}

fn p14_write(run: &Run) -> Vec<Table> {
    let pool = shared();
    // Warm: every bucket the rented arms visit holds a buffer in this thread's cache.
    black_box(workloads::write_rented(pool, SMALL_ROOM));
    black_box(workloads::write_rented(pool, WRITE_ROOM));
    let mut timing = Timing::new(run.config());
    let (mut a_buf, mut b_buf) = (
        Vec::with_capacity(WRITE_ROOM),
        Vec::with_capacity(WRITE_ROOM),
    );
    timing.method_pair(
        REUSED,
        move || workloads::write_reused(&mut a_buf),
        move || workloads::write_reused(&mut b_buf),
    );
    let (a, b) = lab::twins!(move || workloads::write_rented(pool, black_box(WRITE_ROOM)));
    timing.method_pair(RENTED, a, b);
    let (a, b) = lab::twins!(move || workloads::write_rented(pool, black_box(SMALL_ROOM)));
    timing.method_pair(GROWN, a, b);
    let (a, b) = lab::twins!(workloads::write_fresh);
    timing.method_pair(FRESH, a, b);
    let mut existing = vec![0u8; WRITE_ROOM];
    timing.floor("touch an existing 128-byte buffer", move || {
        workloads::touch(&mut existing)
    });
    let m = timing.run(Schedule::Interleaved);
    run.keep(0, &m);

    let mut reused = Vec::with_capacity(WRITE_ROOM);
    let counted = [
        (REUSED, per_call(|| workloads::write_reused(&mut reused)).0),
        (
            RENTED,
            per_call(|| workloads::write_rented(pool, WRITE_ROOM)).0,
        ),
        (
            GROWN,
            per_call(|| workloads::write_rented(pool, SMALL_ROOM)).0,
        ),
        (FRESH, per_call(workloads::write_fresh).0),
    ];
    let columns = m
        .columns()
        .col("bytes allocated per line", |r: &Method<'_>| {
            counted
                .iter()
                .find(|(name, _)| *name == r.name())
                .map_or(Cell::Empty, |(_, bytes)| Cell::Bytes(*bytes))
        });
    let mut table = run.own(m.table_with(run.experiment.id, "", &columns));
    table.note("Every arm writes the seed's first order line, `1042|ต้มยำกุ้ง|2|18000\\n` (41 bytes), with the same `writeln!` of its four fields through `io::Write`: they differ only in where the buffer comes from. The rented buffers come from `pool::shared()`, taken once before the timed loop. `rent_buf(16)` starts in the pool's 16-byte bucket and moves up through 32 to 64 bytes as the line is written, giving each smaller buffer back on the way. No arm is zeroed: a write that appends has no use for `vec![0u8; n]`.");
    table.note(format!(
        "Bytes per line are counted on this thread over {} lines of each, after the timed run.",
        Cell::count(PER_CALL).render()
    ));
    let rented_bytes = counted
        .iter()
        .find(|(name, _)| *name == RENTED)
        .map_or(u64::MAX, |(_, bytes)| *bytes);
    table.conclude(
        "target: once warm, the line written into `rent_buf(128)` allocates 0 B",
        Claim::met(rented_bytes == 0),
    );
    table.conclude(
        format!("target: the line written into `rent_buf(128)` takes at most {TARGET_RATIO}× as long as the same write into one reused `Vec<u8>`"),
        m.target(within_target),
    );
    table.conclude(
        "the faster of one reused `Vec<u8>` and `rent_buf(128)`",
        m.faster_of(REUSED, "the reused `Vec`", RENTED, "the rented buffer"),
    );
    table.conclude(
        "the faster of `rent_buf(128)` and a fresh, unzeroed `Vec::with_capacity(128)`",
        m.faster_of(RENTED, "the rented buffer", FRESH, "the fresh buffer"),
    );
    table.conclude(
        "what growing through the buckets costs: the faster of `rent_buf(128)` and `rent_buf(16)` grown to fit",
        m.faster_of(RENTED, "`rent_buf(128)`", GROWN, "`rent_buf(16)`, grown"),
    );
    vec![table]
}
