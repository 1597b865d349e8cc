//! The hit path beside one reused `Vec`, stack arrays and the allocator (a fresh buffer unzeroed
//! and zeroed): at 64 bytes (P9-time) and at 8 KiB (P10-hit), with instruction counts and the
//! chapter's targets.

use std::hint::black_box;

use lab::Table;
use lab::fmt::thousands;
use lab::protocol::Allocator;
use lab::report::{Function, Run};
use lab::table::Claim;
use lab::timing::{Measured, Measurements, Schedule, Timing};
use pool::shared;

use super::warm;
use crate::workloads::{self, HIT_BYTES};

pub(super) const P9_TIME: Function = lab::function!(p9_time);
pub(super) const P10_HIT: Function = lab::function!(p10_hit);

pub(super) const SMALL_REUSED: &str = "one reused `Vec<u8>` (`clear()` per use), 64 B";
pub(super) const SMALL_STACK: &str = "stack array `[0u8; 64]`";
pub(super) const SMALL_POOL: &str = "`pool.rent(64)` + give back";
pub(super) const SMALL_UNZEROED_HEAP: &str = "fresh, unzeroed `Vec::with_capacity(64)`";
pub(super) const SMALL_FRESH: &str = "fresh, zeroed `vec![0u8; 64]`";

pub(super) const HIT_REUSED: &str = "one reused `Vec<u8>` (`clear()` per use), 8 KiB";
pub(super) const HIT_POOL: &str = "`pool.rent(8192)` + give back";
const HIT_CHECKED: &str = "the same, with one more bounds check (`buf[..len]`)";
pub(super) const HIT_UNZEROED: &str = "unzeroed stack array (`MaybeUninit`), 8 KiB";
pub(super) const HIT_ZEROED: &str = "zeroed stack array `[0u8; 8192]`";
pub(super) const HIT_UNZEROED_HEAP: &str = "fresh, unzeroed `Vec::with_capacity(8192)`";
pub(super) const HIT_FRESH: &str = "fresh, zeroed `vec![0u8; 8192]`";

/// The most instructions the hit path may take, touch and timing loop included (they are 11 of
/// them): room for the slot at a fixed place in this thread's storage, a load and a store in
/// it and a counter on each side, and none for a pointer to follow, a lock or an atomic
/// read-modify-write.
const HIT_INSTRUCTIONS: f64 = 32.0;
/// The .NET pool's ratio to an unzeroed stack array at 8 KiB (seed 002: 16.0 ns / 4.9 ns).
const DOTNET_RATIO: f64 = 3.3;
/// How much faster than a fresh buffer the hit path must be at 8 KiB.
const SPEEDUP_OVER_FRESH: f64 = 5.0;

/// The note on where the pool comes from, shared by both tables.
const POOL_TAKEN_ONCE: &str = "`pool` is `pool::shared()`, taken once before the timed loop (`let pool = pool::shared();`), as a caller keeping the reference would. `shared()` itself is the address of a static, free to call on every rent, and then the compiler sees which pool it is; through a kept reference, the rent and the give-back each compare it with that address (here the compiler hoists the compare out of the loop).";

/// The note on the three baselines, shared by both tables.
pub(super) const BASELINES: &str = "Three baselines, each touched the same way: one `Vec<u8>` the caller owns, made once with `Vec::with_capacity` outside the timed loop and `clear()`ed and written on every use (reuse, no allocation); a fresh `Vec::with_capacity(n)`, written through `spare_capacity_mut` before it is read (an allocation without zeroing); and a fresh `vec![0u8; n]`, which asks `calloc` for zeroed memory (an allocation and its zeroing: `calloc` clears reused memory, or takes fresh pages that the kernel zeroes when they are first touched). Zeroing's share is the zeroed buffer less the unzeroed one; allocation's, the unzeroed buffer less the reused one.";

/// Registers one reused `Vec` of `n` bytes' capacity as a method: each copy owns its own.
fn reused(timing: &mut Timing<'_>, name: &str, n: usize) {
    let (mut a, mut b) = (Vec::with_capacity(n), Vec::with_capacity(n));
    timing.method_pair(
        name,
        move || workloads::reused_touch(&mut a, black_box(n)),
        move || workloads::reused_touch(&mut b, black_box(n)),
    );
}

fn p9_time(run: &Run) -> Vec<Table> {
    let pool = shared();
    warm(pool, 64);
    let mut timing = Timing::new(run.config());
    reused(&mut timing, SMALL_REUSED, 64);
    timing.method(SMALL_STACK, workloads::zeroed_stack_touch::<64>);
    let (a, b) = lab::twins!(move || workloads::rent_touch(pool, black_box(64)));
    timing.method_pair(SMALL_POOL, a, b);
    let (a, b) = lab::twins!(|| workloads::unzeroed_touch(black_box(64)));
    timing.method_pair(SMALL_UNZEROED_HEAP, a, b);
    let (a, b) = lab::twins!(|| workloads::fresh_touch(black_box(64)));
    timing.method_pair(SMALL_FRESH, a, b);
    let mut existing = [0u8; 64];
    timing.floor("touch an existing 64-byte buffer", move || {
        workloads::touch(&mut existing)
    });
    let m = timing.run(Schedule::Interleaved);
    run.keep(64, &m);
    let mut table = run.own(m.table(run.experiment.id, ""));
    table.note(POOL_TAKEN_ONCE);
    table.note("Every method gets the same touch: write the first and last byte, read them back. The mimalloc column is the same run in processes of `pool-experiments-mimalloc`: only the two fresh buffers call the allocator.");
    table.note(BASELINES);
    table.conclude(
        "at 64 B, the faster of the zeroed stack array and the pool's hit path",
        m.faster_of(SMALL_STACK, "the stack array", SMALL_POOL, "the pool"),
    );
    m.conclude_under_each(
        &mut table,
        |allocator| {
            format!(
                "under {}, at 64 B, the faster of the pool's hit path and `vec![0u8; 64]` (seed 000: the allocation, in each of its 6 runs)",
                allocator.short()
            )
        },
        |under| under.faster_of(SMALL_POOL, "the pool", SMALL_FRESH, "`vec![0u8; 64]`"),
    );
    m.conclude_under_each(
        &mut table,
        |allocator| {
            format!(
                "under {}, at 64 B, the faster of the pool's hit path and a fresh, unzeroed `Vec::with_capacity(64)` (the allocation without the zeroing)",
                allocator.short()
            )
        },
        |under| {
            under.faster_of(
                SMALL_POOL,
                "the pool",
                SMALL_UNZEROED_HEAP,
                "the fresh, unzeroed buffer",
            )
        },
    );
    table.conclude(
        "at 64 B, the faster of one reused `Vec` and the pool's hit path",
        m.faster_of(SMALL_REUSED, "the reused `Vec`", SMALL_POOL, "the pool"),
    );
    vec![table]
}

/// The instruction target as a verdict: instructions are deterministic, so the final process's
/// count, original and twin, decides it (*not resolvable* where none were counted).
pub(super) fn instruction_target(m: &Measured, method: &str, at_most: f64) -> Claim {
    match m.expect(method).instructions() {
        Some([original, twin]) => Claim::met(original.max(twin) <= at_most),
        None => Claim::NotResolvable,
    }
}

/// A method's instructions above the floor's (the larger of original and twin, so a target
/// judged on it holds for both copies), if they were counted.
fn above_floor(m: &Measured, method: &str) -> Option<f64> {
    let [original, twin] = m.expect(method).instructions()?;
    let [floor, floor_twin] = m.floor()?.instructions()?;
    Some(original.max(twin) - floor.min(floor_twin))
}

/// The time target judged above the floor, in process `p`: the pool's time above the floor at
/// most `ratio` times the unzeroed array's, where both are resolvably above it (`None` where
/// the unzeroed array is not: then there is nothing to divide by).
fn above_floor_target(p: &Measurements, ratio: f64) -> Option<bool> {
    let floor = p.floor()?.name.clone();
    if p.faster(&floor, HIT_UNZEROED) != Some(true) || p.faster(&floor, HIT_POOL) != Some(true) {
        return None;
    }
    let ns = |name: &str| p.expect(name).median_ns;
    let floor_ns = ns(&floor);
    Some(ns(HIT_POOL) - floor_ns <= ratio * (ns(HIT_UNZEROED) - floor_ns))
}

fn p10_hit(run: &Run) -> Vec<Table> {
    const N: usize = HIT_BYTES;
    let pool = shared();
    warm(pool, N);
    let mut timing = Timing::new(run.config());
    reused(&mut timing, HIT_REUSED, N);
    // Two closures, one per copy, so each batch loop inlines its own copy of the hit path, as a
    // caller's code would (with one closure type for both, the body is called out of line).
    let (hit, hit_twin) = lab::twins!(move || workloads::rent_touch(pool, black_box(N)));
    timing.method_pair(HIT_POOL, hit, hit_twin);
    let (a, b) = lab::twins!(move || workloads::rent_touch_checked(pool, black_box(N)));
    timing.method_pair(HIT_CHECKED, a, b);
    timing.method(HIT_UNZEROED, workloads::uninit_stack_touch::<N>);
    timing.method(HIT_ZEROED, workloads::zeroed_stack_touch::<N>);
    let (a, b) = lab::twins!(|| workloads::unzeroed_touch(black_box(N)));
    timing.method_pair(HIT_UNZEROED_HEAP, a, b);
    let (a, b) = lab::twins!(|| workloads::fresh_touch(black_box(N)));
    timing.method_pair(HIT_FRESH, a, b);
    let mut existing = vec![0u8; N];
    timing.floor("touch an existing 8 KiB buffer", move || {
        workloads::touch(&mut existing)
    });
    let m = timing.run(Schedule::Interleaved);
    run.keep(N, &m);
    let mut table = run.own(m.table(run.experiment.id, ""));
    table.note(POOL_TAKEN_ONCE);
    table.note(BASELINES);
    table.note("Instructions are counted by callgrind for one copy at a time, collection switched on only around its batch loop, in the final process: they do not depend on the clock, so the instruction targets are judged from them alone. The time targets are judged under each allocator.");
    let counted = |method| above_floor(&m, method).map(|n| thousands(n.round() as u64));
    if let (Some(reused_adds), Some(pool_adds), Some(unzeroed_adds), Some(checked_adds)) = (
        counted(HIT_REUSED),
        counted(HIT_POOL),
        counted(HIT_UNZEROED),
        counted(HIT_CHECKED),
    ) {
        table.note(format!("Above the floor's loop and touch, the reused `Vec` adds {reused_adds} instructions (`clear()`, `reserve(n)` and slicing its spare capacity), the hit path {pool_adds}, the unzeroed stack array {unzeroed_adds} (its stack frame of 8 KiB), and the hit path with one more bounds check {checked_adds}: a check that can panic makes the compiler keep the guard in memory, so that unwinding can give the buffer back. The guard's own view of its buffer skips that check (one of the crate's `unsafe` blocks)."));
    }
    table.note("Seed 002 took its two .NET figures from two different benchmarks, each with its own instrument cost, and warns that a 3 ns difference between instruments would be 20 % to 60 % of rows that small: it treats factors between them as an order of magnitude only. So the 3.3× target is judged three ways here: on time, on time above the floor, and on instructions above the floor.");
    table.conclude(
        format!("the target: the hit path (rent, touch, give back) at most {HIT_INSTRUCTIONS} instructions, original and twin — room for the slot at a fixed place in the thread's storage, a load and a store in it and a counter on each side, and none for a pointer to follow, a lock or an atomic read-modify-write"),
        instruction_target(&m, HIT_POOL, HIT_INSTRUCTIONS),
    );
    table.conclude(
        "the pool's hit path / an unzeroed stack array (seed 002's .NET pool: 16.0 ns / 4.9 ns, 3.3×, an order of magnitude by its own account)",
        m.bound(HIT_POOL, HIT_UNZEROED),
    );
    table.conclude(
        "a zeroed stack array / the pool's hit path (the stack array pays for zeroing 8 KiB)",
        m.bound(HIT_ZEROED, HIT_POOL),
    );
    m.conclude_under_each(
        &mut table,
        |allocator| {
            format!(
                "the target, under {}: the pool's hit path at most 3.3× an unzeroed stack array in every process (the .NET pool's ratio, seed 002)",
                allocator.short()
            )
        },
        |under| under.target(|p| Some(p.ratio(HIT_POOL, HIT_UNZEROED) <= DOTNET_RATIO)),
    );
    table.conclude(
        "the same target on time above the floor (touching an existing buffer), under glibc: not resolvable where the unzeroed stack array is not resolvably above the floor, as then the ratio's denominator is the timing loop",
        m.target(|p| above_floor_target(p, DOTNET_RATIO)),
    );
    table.conclude(
        "the same target on instructions above the floor's",
        match (above_floor(&m, HIT_POOL), above_floor(&m, HIT_UNZEROED)) {
            (Some(pool_adds), Some(unzeroed_adds)) => {
                Claim::met(pool_adds <= DOTNET_RATIO * unzeroed_adds)
            }
            _ => Claim::NotResolvable,
        },
    );
    table.conclude(
        "at 8 KiB, the faster of one reused `Vec` the caller owns and the pool's hit path",
        m.faster_of(HIT_REUSED, "the reused `Vec`", HIT_POOL, "the pool"),
    );
    m.conclude_under_each(
        &mut table,
        |allocator| {
            format!(
                "under {}, at 8 KiB, the faster of the pool's hit path and a fresh, unzeroed `Vec::with_capacity(8192)` (the allocation without the zeroing)",
                allocator.short()
            )
        },
        |under| {
            under.faster_of(
                HIT_POOL,
                "the pool",
                HIT_UNZEROED_HEAP,
                "the fresh, unzeroed buffer",
            )
        },
    );
    table.conclude(
        "the pool's hit path / a fresh, unzeroed `Vec::with_capacity(8192)`",
        m.bound(HIT_POOL, HIT_UNZEROED_HEAP),
    );
    table.conclude(
        "a fresh, zeroed `vec![0u8; 8192]` / a fresh, unzeroed `Vec::with_capacity(8192)`: what zeroing 8 KiB adds to an allocation",
        m.bound(HIT_FRESH, HIT_UNZEROED_HEAP),
    );
    m.conclude_under_each(
        &mut table,
        |allocator| {
            format!(
                "the target, under {}: the pool's hit path at most 0.2× a fresh, unzeroed `Vec::with_capacity(8192)` in every process (a pool earns its contract by saving most of an allocation; no zeroing on either side)",
                allocator.short()
            )
        },
        |under| under.target_speedup(HIT_POOL, HIT_UNZEROED_HEAP, SPEEDUP_OVER_FRESH),
    );
    m.conclude_under_each(
        &mut table,
        |allocator| {
            format!(
                "the target, under {}: the pool's hit path at most 0.2× a fresh, zeroed `vec![0u8; 8192]` in every process (the allocation and the zeroing of 8 KiB together)",
                allocator.short()
            )
        },
        |under| under.target_speedup(HIT_POOL, HIT_FRESH, SPEEDUP_OVER_FRESH),
    );
    if m.under(Allocator::Mimalloc).is_none() {
        table.note("No mimalloc processes in this run: its targets are not stated.");
    }
    vec![table]
}
