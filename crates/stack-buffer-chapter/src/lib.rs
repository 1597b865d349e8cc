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

use lab::report::{Chapter, Source};

/// Chapter 2: its experiments in the order the chapter presents them.
pub static CHAPTER: Chapter = Chapter {
    name: "stack-buffer",
    experiments: experiments::EXPERIMENTS,
    sources: &[Source {
        seed: "002",
        note: "The C# `stackalloc` article: BenchmarkDotNet on .NET 10 (tier-1 code, Server GC with DATAS off), a Core i7-8665U laptop (x64, Windows). Its `stackalloc` is variable-size unless marked literal, and .NET zeroes it unless the method has `[SkipLocalsInit]`.",
    }],
    answer: &[],
    decisions: &[],
};
