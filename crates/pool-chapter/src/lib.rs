//! Chapter 3's measuring code, beside the `pool` library it measures: the workloads (shared by
//! the experiments, the criterion bench and the tests), the experiments P1–P14 and X1-pool, the
//! decision rules of P11, and the experiments binaries `pool-experiments` (the system allocator)
//! and `pool-experiments-mimalloc`, which `cargo xtask report` runs. It depends on `lab` and on
//! the published pool crates P13 compares with; the library depends on none of them.

pub mod decisions;
mod experiments;
pub mod workloads;

use lab::report::{Chapter, Cited, Decision, Source};

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
    answer: &[
        Cited {
            key: "P1 · bytes a warm rent and give-back allocates per line",
            says: "Bytes a warm rent allocates per order line",
        },
        Cited {
            key: "P10 · under glibc, the sizes at which a warm rent is measurably faster than one reused",
            says: "The sizes at which a warm rent from the pool is measurably faster than one `Vec` you own and pass down",
        },
        Cited {
            key: "P10-hit · the pool's hit path / a fresh, unzeroed",
            says: "At 8 KiB, the fraction of a fresh, unzeroed buffer's time that a warm rent takes",
        },
        Cited {
            key: "P12 · under glibc, the thread counts at which `pool::shared()` beats a fresh, unzeroed",
            says: "With threads each renting and giving back their own buffers at once, the thread counts at which the pool beats a fresh, unzeroed buffer",
        },
        Cited {
            key: "X1-pool · under mimalloc, the sizes of P10 at which a warm rent from the shared pool is still faster than a fresh, unzeroed",
            says: "Under mimalloc, an allocator with per-thread caches of its own, the sizes at which a warm rent still beats a fresh, unzeroed buffer",
        },
    ],
    decisions: &[
        Decision {
            situation: "The code that fills the buffer is yours to call",
            action: "Own one buffer and pass it down: `Vec::with_capacity(n)` once, `clear()` per use, `&mut Vec<u8>` to the callee; no pool",
            because: Cited {
                key: "P10 · under glibc, the sizes at which a warm rent is measurably faster than one reused",
                says: "sizes at which a warm rent is measurably faster than one reused `Vec`",
            },
        },
        Decision {
            situation: "The buffer outlives the call, or is asked for by code you do not own",
            action: "Rent it: `pool::shared().rent(n)`, or `rent_owned` from a pool in an `Arc`; the guard gives it back when dropped. Up to 1 MiB a warm rent comes from the thread's own cache; above it, time it against a fresh buffer",
            because: Cited {
                key: "P10-hit · under glibc, at 8 KiB, the faster of the pool's hit path and a fresh, unzeroed",
                says: "at 8 KiB, the faster of a warm rent and a fresh, unzeroed buffer",
            },
        },
        Decision {
            situation: "The buffer is handed to another thread, which lets it go",
            action: "Rent it from `pool::shared()` if it must also outlive the call or come from code you do not own; for speed alone, time it against a fresh `Vec::with_capacity(n)` on your machine: which is faster depends on the allocator and on how many threads share a core",
            because: Cited {
                key: "P12-handoff · under mimalloc, 2 threads: the faster of `pool::shared()` and a fresh, unzeroed",
                says: "handed to another thread (2 threads, mimalloc), the faster of the pool and a fresh, unzeroed buffer",
            },
        },
        Decision {
            situation: "Many threads rent at once",
            action: "Keep the thread caches on (the shared pool's default): a hit then takes no lock",
            because: Cited {
                key: "P12 · under glibc, the thread counts at which `pool::shared()` beats the same pool without thread caches",
                says: "the thread counts at which the pool beats itself without thread caches",
            },
        },
        Decision {
            situation: "You are choosing a pool crate for byte buffers that threads share",
            action: "`pool::shared()`, or any crate that times within noise of it on your machine",
            because: Cited {
                key: "P13 · the target, at 8,192 B: `pool::shared()` the fastest",
                says: "at 8 KiB, on one thread, `pool::shared()` the fastest of the pools threads can share, or within noise",
            },
        },
        Decision {
            situation: "The buffer holds a secret (a key, a card number)",
            action: "Give it back with `give_back_cleared`, or use a pool with `ClearPolicy::OnReturn`; `rent_cleared` does not wipe it",
            because: Cited {
                key: "P5 · bytes of a 16-byte secret the next plain renter reads after `give_back_cleared`",
                says: "bytes of the secret the next renter reads after `give_back_cleared`",
            },
        },
    ],
};
