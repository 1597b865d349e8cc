//! Codegen, read not guessed (S4): what each zeroed and unzeroed stack array compiles to, read
//! with `objdump` from the very binary that timed them.
//!
//! Hand-built rather than declared with `Columns`: its rows come from a fallible read per
//! function, and its boundary note is computed from the rows that could be read.

use std::hint::black_box;

use lab::report::{Function, Run};
use lab::{Cell, Table};

use super::bytes_label;
use crate::disasm::{self, Disassembly, Verdict};
use crate::workloads::{self, Workload};

pub(super) const S4: Function = lab::function!(s4_codegen);

/// The functions S4 reads: every zeroed size of [`workloads::S4_ZEROED`] and the 8 KiB one,
/// then the unzeroed ones of S3.
fn functions() -> Vec<(usize, &'static str, bool, Workload)> {
    let mut all: Vec<(usize, &'static str, bool, Workload)> = workloads::S4_ZEROED
        .iter()
        .map(|&(bytes, name, f)| (bytes, name, true, f))
        .collect();
    for (bytes, fns) in workloads::S3 {
        let [(zeroed, zeroed_fn), (uninit, uninit_fn), ..] = fns;
        if !all.iter().any(|(_, name, _, _)| *name == zeroed) {
            all.push((bytes, zeroed, true, zeroed_fn));
        }
        all.push((bytes, uninit, false, uninit_fn));
    }
    all
}

fn s4_codegen(run: &Run) -> Vec<Table> {
    let mut table = run.table(&[
        "function",
        "array",
        "zeroed in the source?",
        "instructions",
        "zero stores",
        "bytes they write",
        "stack probes",
        "calls `memset`",
        "verdict",
    ]);
    let binary = std::env::current_exe().map_err(|err| format!("cannot locate the binary: {err}"));
    let mut failures = Vec::new();
    let mut read: Vec<(usize, Disassembly)> = Vec::new();
    for (bytes, name, zeroed, f) in functions() {
        // Calling each one through an opaque pointer keeps it in the binary.
        black_box(black_box(f)());
        let symbol = format!("stack_buffer::workloads::{name}");
        match binary
            .clone()
            .and_then(|b| disasm::disassemble(&b, &symbol))
        {
            Ok(d) => {
                table.row(vec![
                    Cell::text(format!("`{name}`")),
                    Cell::bytes(bytes),
                    Cell::Bool(zeroed),
                    Cell::count(d.instructions),
                    Cell::count(d.zero_stores),
                    Cell::bytes(d.zero_store_bytes),
                    Cell::count(d.stack_probes),
                    Cell::Bool(d.memset_call),
                    Cell::text(d.verdict().to_string()),
                ]);
                if zeroed {
                    read.push((bytes, d));
                }
            }
            Err(why) => failures.push(why),
        }
    }
    let largest_inline = read
        .iter()
        .filter(|(_, d)| matches!(d.verdict(), Verdict::InlineStores { .. }))
        .map(|(bytes, _)| *bytes)
        .max();
    let smallest_call = read
        .iter()
        .filter(|(_, d)| d.verdict() == Verdict::MemsetCall)
        .map(|(bytes, _)| *bytes)
        .min();
    if let (Some(inline), Some(call)) = (largest_inline, smallest_call) {
        table.note(format!(
            "The boundary in this binary: the largest zeroed array written with inline stores is {}, the smallest that calls `memset` is {}. LLVM expands a `memset` of known size inline only up to a per-target number of stores (16 on x86-64 without AVX, of 16 bytes each: 256 B), and calls the library above it.",
            bytes_label(inline),
            bytes_label(call)
        ));
    }
    for why in &failures {
        table.note(format!("Not read: {why}."));
    }
    table.note("Read with `objdump -d` from the very binary whose S3 timings are above, so the code is the code that was timed (release profile, x86-64). A zero store is a store to memory of a register zeroed in the same function (`xorps`/`pxor`) or of an immediate 0; the touch's two stores of 1.0 and 2.0 are not zero stores.");
    table.note("A stack probe is the compiler touching each new 4 KiB page of a large frame in order (`sub $0x1000,%rsp` then a store to `(%rsp)`), so that a thread's guard page is always hit before anything below it: that is how a stack overflow becomes a clean abort instead of a write into other memory. It is one store per page, not a zeroing.");
    table.note("The seed read RyuJIT's output with `DOTNET_JitDisasm`: 8 unrolled SIMD stores for a literal 256 B, a call to a zeroing helper for a literal 2 KiB and 8 KiB, and a push loop that zeroes and probes at once for a variable size. Here LLVM chooses, per size, between inline stores and a `memset` call; Rust has no variable size.");
    vec![table]
}
