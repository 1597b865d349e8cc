#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub mod alloc;
pub mod callgrind;
pub mod env;
pub mod experiments;
pub mod plot;
pub mod report;
pub mod table;
pub mod timing;
pub mod workloads;

pub use alloc::{AllocStats, CountingAlloc, count};
pub use table::{Cell, Kind, Table};
