//! Stack probes (S8, S9, S10, S13): code that uses a known amount of stack, and the machinery
//! to run it in a child process.
//!
//! A stack overflow cannot be caught: Rust's guard-page handler prints a message and aborts
//! the process, so nothing unwinds, no `Drop` runs and `catch_unwind` sees nothing. Every probe
//! that may overflow therefore runs in a child process: a binary re-runs itself with
//! [`PROBE_VAR`] set to a [`Spec`], the child calls [`child_from_env`], and the parent
//! ([`Launcher`]) reads the exit status. The experiments binary does this in release mode; the
//! test suite does it with its own test binary, in the dev profile.
//!
//! Four kinds of probe ([`Probe`]): a recursion of 8 KiB frames ([`descend`]), the same inside
//! `catch_unwind` under a guard with a `Drop` ([`descend_guarded`]), one single array of a
//! given size ([`single_array`]), and a boxed array built one of four ways ([`boxed`]) — `Box::new([0u8; N])` builds the array on the stack first when the compiler
//! does not optimise the copy away, which is what the dev profile shows.
//!
//! One file each: `frames.rs` (the recursion, and where frames live), `array.rs` (one array of a
//! given size), `boxed.rs` (the four ways to box an array), `spec.rs` (what a child runs, and
//! where), `child.rs` (starting a child and reading how it ended) and `resident.rs` (`/proc`:
//! the stack limit and resident memory).

mod array;
mod boxed;
mod child;
mod frames;
mod resident;
mod spec;

pub use array::{ARRAY_SIZES, ARRAY_STEP, single_array};
pub use boxed::{BOX_SIZES, BoxWay, boxed};
pub use child::{ChildRun, Launcher, PROBE_VAR, child_from_env, signal_name, without_thread_ids};
pub use frames::{
    FRAME, GUARD_DROPPED, UNWIND_CAUGHT, descend, descend_guarded, loop_addresses,
    recursion_addresses,
};
pub use resident::{HOLD_FRAME, main_stack_limit, rss_kib, rss_with_threads};
pub use spec::{Probe, Spec, Thread, run};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_sizes_outside_the_tables_are_refused_not_rounded() {
        assert_eq!(single_array(0), None);
        assert_eq!(single_array(ARRAY_STEP + 1), None);
        assert_eq!(single_array((ARRAY_SIZES + 1) * ARRAY_STEP), None);
        assert_eq!(boxed(BoxWay::NewZeroed, 1000), None);
        assert_eq!(signal_name(Some(6)), "SIGABRT (6)");
    }
}
