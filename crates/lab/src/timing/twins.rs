//! A method's two copies of the measured code: the batch loop monomorphised twice, and
//! [`twins!`](crate::twins) for closures the caller copies.

use std::hint::black_box;
use std::time::Instant;

/// Runs `iters` calls of one copy of a method and returns the elapsed nanoseconds.
pub(super) type Runner<'a> = Box<dyn FnMut(u64) -> u64 + 'a>;

/// Two copies of a closure expression: `lab::twins!(move || work(x))` is
/// `(move || work(x), move || work(x))`, two closures of two types. Registered with
/// [`Timing::method_pair`](crate::timing::Timing::method_pair), each is called from one batch loop only, so the optimiser treats the
/// original and the twin alike: inlined into each (its own copy of the measured code) or called in
/// each. With [`Timing::method`](crate::timing::Timing::method) one closure type serves both copies, and a body too large to
/// inline into two callers becomes one out-of-line function both copies call, at one address. The
/// closure may capture only what it can capture twice (references, `Copy` values).
#[macro_export]
macro_rules! twins {
    ($closure:expr) => {
        ($closure, $closure)
    };
}

/// The batch loop. `COPY` makes the original (0) and the twin (1) two monomorphisations, and
/// `black_box(COPY)` makes their code differ, so function merging cannot fold them into one.
#[inline(never)]
fn batch<F: FnMut() -> R, R, const COPY: u8>(f: &mut F, iters: u64) -> u64 {
    black_box(COPY);
    let start = Instant::now();
    for _ in 0..iters {
        black_box(f());
    }
    start.elapsed().as_nanos() as u64
}

/// One copy of a method: the batch loop monomorphised for `COPY`, and that copy's code address.
pub(super) fn runner<'a, F, R, const COPY: u8>(mut f: F) -> (Runner<'a>, usize)
where
    F: FnMut() -> R + 'a,
{
    let address = batch::<F, R, COPY> as fn(&mut F, u64) -> u64 as usize;
    (
        Box::new(move |iters| batch::<F, R, COPY>(&mut f, iters)),
        address,
    )
}

#[cfg(test)]
mod tests {
    use super::super::rounds::tests::one_op_batches;
    use super::super::{Config, Schedule, Timing};
    use super::*;

    /// M3: `twins!` gives the method and its twin two closures of their own.
    #[test]
    fn twins_makes_two_closures_that_do_the_same_work() {
        let x = 20u64;
        let (a, b) = crate::twins!(move || x + 1);
        assert_eq!((a(), b()), (21, 21));
        let mut timing = Timing::new(one_op_batches(2));
        timing.method_pair("x + 1", a, b);
        let measured = timing.run(Schedule::Interleaved);
        assert!(measured.live().methods[0].twins_are_distinct());
    }

    /// M3: a twin the caller supplies runs its own code.
    #[test]
    fn a_supplied_twin_runs_its_own_copy() {
        use std::cell::Cell;
        let (originals, twins) = (Cell::new(0u32), Cell::new(0u32));
        let mut timing = Timing::new(one_op_batches(3));
        timing.method_pair(
            "work",
            || originals.set(originals.get() + 1),
            || twins.set(twins.get() + 1),
        );
        let measured = timing.run(Schedule::Interleaved);
        assert!(measured.live().methods[0].twins_are_distinct());
        assert!(originals.get() >= 3 && twins.get() >= 3);
    }

    /// M3: a twin is a second copy of the batch loop, at another code address.
    #[test]
    fn twins_are_two_copies_of_the_code() {
        let mut timing = Timing::new(Config::smoke());
        timing.method("sum", || (0..black_box(100u64)).sum::<u64>());
        let measured = timing.run(Schedule::Interleaved);
        let method = &measured.live().methods[0];
        assert!(method.twins_are_distinct(), "{:?}", method.addresses);
    }
}
