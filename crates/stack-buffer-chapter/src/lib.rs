//! Chapter 2's measurements of the [`stack_buffer`] library: the workloads it times, the
//! probes, readers and rules behind its tables, its experiments (S1–S13, X1-stack) and their
//! binaries, `stack-buffer-experiments` (the system allocator; it doubles as the stack probes'
//! child) and `stack-buffer-experiments-mimalloc`, which `cargo xtask report` runs.
//!
//! - [`workloads`]: the functions the experiments, the bench and the tests all call, and the
//!   case lists they share (S1, S3–S7, S12). Each measured function exists in two copies,
//!   `f::<0>` and `f::<1>`, so that a timed method's twin runs its own copy of the code.
//! - [`probe`]: code that uses a known amount of stack — a recursion of 8 KiB frames (also
//!   inside `catch_unwind` under a guard with a `Drop`), one single array of a given size, a
//!   boxed array built four ways — and the machinery that runs it in a child process, since a
//!   stack overflow aborts the process (S8, S9, S10, S13).
//! - [`disasm`]: reads the zeroing (and the `memcpy` of a moved value) in a function's machine
//!   code from `objdump` (S4, S12).
//! - [`heap`]: glibc's per-thread cache limit, observed without a clock, and `calloc`, which
//!   skips that cache before glibc 2.41 (S3); what a block occupies beyond its request (S6).
//! - [`across_await`]: what a stack buffer held across `.await` does to a future's size (S13).
//! - [`lints`]: the workspace's stack-size lints, their thresholds, and what they flag in the
//!   fixture `tests/fixtures/stack_lints.rs` (S13).
//! - [`spans`]: the decision rules behind this chapter's own timed verdicts: a figure known
//!   only between its twins (or its copies), and comparisons that hold whichever is taken (S3,
//!   S5, S7). The rules across sizes (a crossover, the sizes where one method wins: S2, S7,
//!   S12) are `lab::verdicts`.
//! - [`experiments`]: the chapter's tables, one file per topic, declared in [`CHAPTER`].

#![deny(missing_docs)]

pub mod across_await;
pub mod disasm;
pub mod experiments;
pub mod heap;
pub mod lints;
pub mod probe;
pub mod spans;
pub mod workloads;

use lab::report::{Chapter, Cited, Decision, Source};

/// Chapter 2: its experiments in the order the chapter presents them.
pub static CHAPTER: Chapter = Chapter {
    name: "stack-buffer",
    experiments: experiments::EXPERIMENTS,
    sources: &[Source {
        seed: "002",
        note: "The C# `stackalloc` article: BenchmarkDotNet on .NET 10 (tier-1 code, Server GC with DATAS off), a Core i7-8665U laptop (x64, Windows). Its `stackalloc` is variable-size unless marked literal, and .NET zeroes it unless the method has `[SkipLocalsInit]`.",
    }],
    answer: &[
        Cited {
            key: "S1-baselines · the sizes at which the reused `Vec` is faster than a fresh unzeroed one",
            says: "The sizes at which a `Vec` you own, clear and reuse beats a fresh heap buffer, neither zeroed",
        },
        Cited {
            key: "S3 · the sizes at which the unzeroed stack array is faster than a fresh unzeroed heap buffer",
            says: "The sizes at which an unzeroed stack array beats a fresh heap buffer of the same size",
        },
        Cited {
            key: "S3 · at 2 KiB and at 8 KiB, zeroing the stack array costs more",
            says: "The seed's thesis, at 2 KiB and 8 KiB: zeroing a stack array costs more than getting and touching an unzeroed one",
        },
        Cited {
            key: "S7 · the sizes at which the whole operation is faster with `StackUninit` than with the reused `Vec`",
            says: "In the seed's whole operation (a parcel-packing function that uses the buffer as scratch), the sizes at which an unzeroed stack array is measurably faster than a `Vec` you own and reuse",
        },
        Cited {
            key: "S12-time · the sizes above 128 items at which the hybrid's warm pool is faster",
            says: "Above 128 items (the stack array's capacity), the sizes at which the hybrid beats a zero-filled `SmallVec`, which then allocates a fresh heap buffer",
        },
    ],
    decisions: &[
        Decision {
            situation: "You can keep a buffer and pass it down",
            action: "Reuse it: `clear()` a `Vec` you own and pass `&mut` down (`pack_boxes_reusing`)",
            because: Cited {
                key: "S1-baselines · the sizes at which the reused `Vec` is faster than a fresh unzeroed one",
                says: "sizes at which reusing beats allocating, nothing zeroed",
            },
        },
        Decision {
            situation: "Nothing to pass down; the size is small and bounded at compile time",
            action: "A fixed array left unzeroed, `[MaybeUninit<T>; N]` (checked under Miri); a safe wrapper such as `arrayvec::ArrayVec` does the same, untimed here",
            because: Cited {
                key: "S3 · the sizes at which the unzeroed stack array is faster than a fresh unzeroed heap buffer",
                says: "sizes at which the unzeroed array beats a fresh heap buffer",
            },
        },
        Decision {
            situation: "The fixed array must be zeroed (`[0.0; N]`)",
            action: "Keep N small: every call zeroes all N, whatever it uses",
            because: Cited {
                key: "S3 · at 2 KiB and at 8 KiB, zeroing the stack array costs more",
                says: "at 2 KiB and 8 KiB, the zeroing costs more than touching the unzeroed array",
            },
        },
        Decision {
            situation: "Usually small, sometimes large, nothing to pass down",
            action: "Rent from a pool (chapter 3); the hybrid, a zeroed stack array up to a cap with the pool above it, is timed here only against a `SmallVec`",
            because: Cited {
                key: "S12-time · the sizes above 128 items at which the hybrid's warm pool is faster",
                says: "above 128 items, sizes at which the hybrid's warm pool hit beats a `SmallVec` that allocates and zeroes",
            },
        },
        Decision {
            situation: "The buffer is one step of a larger operation",
            action: "Time the whole operation before switching: the rest of the work may hide the buffer's difference",
            because: Cited {
                key: "S7 · the sizes at which the whole operation is faster with `StackUninit` than with the reused `Vec`",
                says: "in the packer, sizes at which the unzeroed stack array beats the reused `Vec`",
            },
        },
        Decision {
            situation: "Your program runs on mimalloc",
            action: "Reuse a buffer you own, as under glibc; whether a stack array still beats a fresh heap buffer there is not settled for the zeroed one (X1-stack, in the appendix), so time that choice on your machine",
            because: Cited {
                key: "X1-stack · under mimalloc, at 16 B, 256 B, 2 KiB and 8 KiB, a buffer the caller owns",
                says: "under mimalloc, at S3's four sizes, a reused buffer faster than a fresh unzeroed one",
            },
        },
    ],
};
