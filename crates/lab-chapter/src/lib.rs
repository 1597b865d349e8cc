//! Chapter 1, *Measure first* (`docs/01-measure.md`): its experiments (M1, M3–M8), the workloads
//! they measure, and the `lab-experiments` binary that `cargo xtask report` runs. The measuring
//! kit itself is the `lab` crate; this package only uses it.
//!
//! - [`workloads`]: small, familiar allocations (M1, M6), the 2 KiB demonstration buffers with
//!   their twins (M3, M4, M5, M8), and the checksum whose call the optimiser may delete (M7);
//! - [`experiments`]: one file per topic, each experiment returning its tables;
//! - [`CHAPTER`]: the declarations the experiments binary runs.

#![deny(missing_docs)]

use lab::report::{Chapter, Cited, Decision, Source};

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
    answer: &[
        Cited {
            key: "M1 · in this release build, the optimiser removed",
            says: "in a release build, the compiler removed an allocation whose value nothing used (so a count must use what it counts)",
        },
        Cited {
            key: "M4 · the heap's fresh `vec![0u8; 2048]` / touching",
            says: "how many times as long a fresh, zeroed 2 KiB heap buffer takes as a buffer you already own, each touched once",
        },
        Cited {
            key: "M6 · 200,000 × `Vec::<u64>::push`, no reserve: the dev build /",
            says: "how many times as long 200,000 pushes onto a `Vec` take in a dev build as in a release build",
        },
        Cited {
            key: "M7 · the deleted benchmark cannot be told apart",
            says: "a benchmark whose result is dropped, and whose input is not hidden from the compiler, times the same as an empty closure",
        },
        Cited {
            key: "M8 · some method's between-process spread",
            says: "two separate runs of the program can disagree more than two copies of the same code timed side by side in one run, which is why every timing here comes from several processes",
        },
    ],
    decisions: &[
        Decision {
            situation: "You need scratch memory in a hot loop",
            action: "Reuse a buffer you own and pass it down (`&mut [u8]`, or a `Vec` you `clear()`); time every other technique against it",
            because: Cited {
                key: "M4 · the heap's fresh `vec![0u8; 2048]` / touching",
                says: "a fresh zeroed 2 KiB heap buffer (allocation and zeroing together) against touching one you own",
            },
        },
        Decision {
            situation: "You want to know whether a call allocates",
            action: "Count it with `lab::count` under `lab::CountingAlloc`, in a release build, its result kept with `black_box`",
            because: Cited {
                key: "M1 · in this release build, the optimiser removed",
                says: "in this release build, an 8-byte `Box` nothing used was not allocated at all",
            },
        },
        Decision {
            situation: "You time a change",
            action: "Build with `--release`, and write the profile beside the figure",
            because: Cited {
                key: "M6 · 200,000 × `Vec::<u64>::push`, no reserve: the dev build /",
                says: "a dev build against a release build of the same generic code",
            },
        },
        Decision {
            situation: "Your benchmark drops its result or returns `()`",
            action: "Return the result (the harness passes it through `black_box`), hide the input with `black_box`, and compare with an empty closure",
            because: Cited {
                key: "M7 · the deleted benchmark cannot be told apart",
                says: "a dropped result (input not hidden) times as the empty closure",
            },
        },
        Decision {
            situation: "Two ways differ by a few percent in one run",
            action: "Believe a verdict only if every one of several processes reaches it; run `cargo xtask verify` on your machine",
            because: Cited {
                key: "M8 · some method's between-process spread",
                says: "processes disagree more than twins do",
            },
        },
    ],
};
