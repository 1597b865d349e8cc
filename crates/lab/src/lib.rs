#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

// Layers, bottom to top; a module imports only from layers below it (see ARCHITECTURE.md).
// Bottom: formatting, the experiments-binary protocol, the counting allocator, the environment.
pub mod alloc;
pub mod env;
pub mod fmt;
pub mod protocol;
// Values: what experiments return and what may be printed.
pub mod plot;
pub mod publish;
pub mod table;
pub mod verdicts;
// Instruments.
pub mod callgrind;
pub mod timing;
// The runner.
pub mod report;

pub use alloc::{AllocStats, CountingAlloc, count};
pub use table::{Cell, Kind, Table};
