//! Chapter 5's measuring code: the workloads, the experiments and the experiments binaries of
//! `docs/05-receipt.md`, beside the [`receipt`] library and command they measure.
//!
//! - [`workloads`]: what the experiments, the criterion bench and the tests share: R2's chunk
//!   runner and its two floors, R5's cumulative stages, and R1's pooled processor that starts
//!   cold on every row. The timed ones come in two copies of the same code (`::<0>` and
//!   `::<1>`), so a timed table's twin runs a copy of its own; the copies of the library's
//!   private order loop and line reader come from its hidden `receipt::twins` (its `twins` feature).
//! - [`command`]: the real `receipt` binary found beside the experiments binary, and R4's
//!   measuring process (the experiments binary started with [`command::PEAK_VAR`] set), which
//!   reads its own peak from `/proc/self/status`.
//! - [`cases`] and [`child`]: the bad-input cases and the harness that runs the command as a
//!   child process, compiled from the library's own test helpers, so R3 and R4 run the inputs
//!   and the pipes the library's tests run.
//!
//! The experiments live in `src/experiments/`, one file per topic, declared once in
//! [`CHAPTER`]; `receipt-experiments` runs them under the system allocator and
//! `receipt-experiments-mimalloc` runs the allocator-sensitive one (R2) again under mimalloc.
#![deny(missing_docs)]

#[path = "../../receipt/tests/common/cases.rs"]
pub mod cases;
#[path = "../../receipt/tests/common/child.rs"]
pub mod child;
pub mod command;
mod experiments;
pub mod workloads;

pub use experiments::{CHAPTER, peak_probe_from_env};
