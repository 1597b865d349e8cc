//! Paired timing with twins, a floor, interleaved rounds and replicas (experiments M3–M5, M8).
//!
//! The one way to time things in this workspace. Register the methods of one table, each a
//! closure over a prepared input; every method is given a **twin** automatically, a second,
//! separately monomorphised `#[inline(never)]` copy of the batch loop with the closure inlined
//! into it (the two copies differ by one constant so LLVM cannot merge them: their code
//! addresses are reported). The table's **floor** does the same touch on an existing buffer, so
//! the harness's own cost is visible. Methods run **interleaved round-robin** (a batch of A, a
//! batch of A′, a batch of B, …, for a few hundred rounds, the starting method rotating each
//! round) so that drift on a noisy machine hits every method alike.
//!
//! Under `cargo xtask report`, the same experiment runs in several independent processes; the
//! last one's [`Timing::run`] returns a [`Measured`] holding every process's figures (see
//! [`crate::protocol`]), and [`crate::publish`] decides what may be printed.
//!
//! ```
//! use std::hint::black_box;
//! use lab::timing::{Config, Schedule, Timing};
//!
//! let existing = vec![0u8; 2048];
//! let mut timing = Timing::new(Config::smoke());
//! timing.floor("touch an existing buffer", || black_box(&existing)[2047]);
//! timing.method("vec![0u8; 2048]", || black_box(vec![0u8; 2048])[2047]);
//! let measured = timing.run(Schedule::Interleaved);
//!
//! let heap = measured.expect("vec![0u8; 2048]");
//! assert!(heap.median_ns() > 0.0);
//! // The publish rule decides whether a difference may be printed.
//! match measured.difference("vec![0u8; 2048]", "touch an existing buffer") {
//!     lab::publish::Verdict::Published(ns) => println!("heap costs {ns:.1} ns over the floor"),
//!     lab::publish::Verdict::NotResolvable { .. } => println!("not resolvable"),
//! }
//! ```

// One concept per file, bottom to top: a file's code imports only from the files listed above
// it (tests may use any).
mod allocator_table; // X1: a technique under every allocator
mod by_size; // one run per size, read across sizes
mod config; // how long to measure, in which order
mod measured; // one timing run across processes: figures, verdicts
mod measurements; // one timing run in one process
mod replicas; // what the runner checks and collects from the kept runs
mod rounds;
mod standard_table; // the standard timed table of a run
mod summary; // median and quartiles of one copy's samples
mod twins; // a method's two copies of the measured code // `Timing`: registration, calibration, rounds

pub use allocator_table::{Technique, allocator_table};
pub use by_size::BySize;
pub use config::{Config, MIN_ROUNDS, Schedule};
pub use measured::{Measured, Method, agree};
pub use measurements::{Measurements, MethodResult, Role};
pub use replicas::{check_replicated, check_rounds, twin_records};
pub use rounds::Timing;
pub use summary::{Summary, quantile};
