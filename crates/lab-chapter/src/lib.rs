//! Chapter 1, *Measure first* (`docs/01-measure.md`): its experiments (M1, M3–M8), the workloads
//! they measure, and the `lab-experiments` binary that `cargo xtask report` runs. The measuring
//! kit itself is the `lab` crate; this package only uses it.
//!
//! - [`workloads`]: small, familiar allocations (M1, M6), the 2 KiB demonstration buffers with
//!   their twins (M3, M4, M5, M8), and the checksum whose call the optimiser may delete (M7);
//! - [`experiments`]: one file per topic, each experiment returning its tables;
//! - [`CHAPTER`]: the declarations the experiments binary runs.

#![deny(missing_docs)]

use lab::report::{Chapter, Source};

pub mod experiments;
pub mod workloads;

/// Chapter 1: its experiments in the order the chapter presents them.
pub static CHAPTER: Chapter = Chapter {
    name: "lab",
    experiments: experiments::EXPERIMENTS,
    sources: &[
        Source {
            seed: "000",
            note: "The .NET course chapter on `ArrayPool`: it counts bytes with `GC.GetAllocatedBytesForCurrentThread()`, the model for M1's per-thread counts, and keeps every result in a static sink (M7).",
        },
        Source {
            seed: "001",
            note: "The Zig article on arenas: it states its build mode and allocator with every figure, and cites the previous chapter's finding that a Debug build runs tens of times slower than ReleaseFast (M6).",
        },
        Source {
            seed: "002",
            note: "The C# `stackalloc` article (BenchmarkDotNet, .NET 10): its twins, its floor and its publish rule are the model for chapter 1's timing protocol.",
        },
    ],
    answer: &[],
    decisions: &[],
};
