//! Chapter 3's measuring code, beside the `pool` library it measures: the workloads (shared by
//! the experiments, the criterion bench and the tests), the experiments P1–P13 and X1-pool, the
//! decision rules of P11, and the experiments binaries `pool-experiments` (the system allocator)
//! and `pool-experiments-mimalloc`, which `cargo xtask report` runs. It depends on `lab` and on
//! the published pool crates P13 compares with; the library depends on none of them.

pub mod decisions;
mod experiments;
pub mod workloads;

use lab::report::{Chapter, Source};

/// Chapter 3: its experiments in the order the chapter presents them.
pub static CHAPTER: Chapter = Chapter {
    name: "pool",
    experiments: experiments::EXPERIMENTS,
    sources: &[
        Source {
            seed: "000",
            note: "The .NET course's `ArrayPool` chapter (Thai), over an order-line → receipt hot path: an Intel Core i7-7700 (8 logical cores), Ubuntu 24.04 under WSL2, .NET 10.0.10, workstation non-concurrent GC. Its bytes are `GC.GetAllocatedBytesForCurrentThread` differences: object sizes, each array's 24-byte header included (`new byte[128]` is 152 B).",
        },
        Source {
            seed: "002",
            note: "The C# `stackalloc` article: BenchmarkDotNet on .NET 10, a Core i7-8665U laptop (x64, Windows). At 8 KiB of `double` it timed an unzeroed literal `stackalloc` at 4.9 ns and `ArrayPool.Shared` at 16.0 ns, from two of its benchmarks; it calls that 3.2 times, and the two figures as printed give 3.3×. It warns that a 3 ns difference between its instruments would be 20–60 % of rows that small, and treats factors between them as an order of magnitude only.",
        },
        Source {
            seed: "003",
            note: "An `ArrayPool` benchmark by size (a translation into Chinese): BenchmarkDotNet 0.10.7, .NET Core 2.0 preview, an Intel Core i7-6600U under Windows 10. Its published table stops at 100,000 bytes, and its allocate row there reads 10,024 B allocated, evidently a typo for 100,024 B.",
        },
    ],
    answer: &[],
    decisions: &[],
};
