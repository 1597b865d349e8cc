//! Codegen, read not guessed (S4): what each zeroed and unzeroed stack array compiles to, read
//! with `objdump` from the very binary that timed them, both copies of each.
//!
//! Hand-built rather than declared with `Columns`: its rows come from a fallible read per
//! function, and its boundary note is computed from the rows that could be read.

use std::hint::black_box;

use lab::report::{Function, Run};
use lab::{Cell, Table};

use super::bytes_label;
use crate::disasm::{self, Disassembly, Verdict};
use crate::workloads::{self, Copies, STACK_SIZES, Workload};

pub(super) const S4: Function = lab::function!(s4_codegen);

/// What the zeroing stores or the `memset` call write, as a cell.
fn zeroed_by(d: &Disassembly) -> Cell {
    match d.verdict() {
        Verdict::InlineStores { bytes } => Cell::text(format!(
            "{} by {} store{}",
            bytes_label(bytes),
            d.zero_stores,
            if d.zero_stores == 1 { "" } else { "s" }
        )),
        Verdict::MemsetCall if d.memset_bytes > 0 => {
            Cell::text(format!("{} by `memset`", bytes_label(d.memset_bytes)))
        }
        Verdict::MemsetCall => Cell::text("`memset` (size not a constant)"),
        Verdict::RepStos => Cell::text("`rep stos`"),
        Verdict::NoZeroing => Cell::Empty,
    }
}

/// Both copies' addresses, and whether the reader found the same code in each.
fn copies_cell(read: &[(u64, Disassembly)]) -> Cell {
    let addresses: Vec<String> = read.iter().map(|(a, _)| format!("`{a:#x}`")).collect();
    let same = read.windows(2).all(|w| w[0].1 == w[1].1);
    Cell::text(format!(
        "{}: {}",
        addresses.join(", "),
        if same {
            "read alike"
        } else {
            "read differently"
        }
    ))
}

fn s4_codegen(run: &Run) -> Vec<Table> {
    let mut table = run.table(&[
        "function",
        "array",
        "zeroed in the source?",
        "copies in the binary",
        "instructions in the function",
        "zeroed by",
        "stack probes",
        "verdict",
    ]);
    let binary = std::env::current_exe().map_err(|err| format!("cannot locate the binary: {err}"));
    let mut failures = Vec::new();
    let mut zeroed_reads: Vec<(usize, Disassembly)> = Vec::new();
    let functions = STACK_SIZES
        .iter()
        .flat_map(|(bytes, zeroed, uninit)| [(*bytes, true, zeroed), (*bytes, false, uninit)]);
    for (bytes, zeroed, f) in functions {
        let f: &Copies<Workload> = f;
        // Calling each copy through an opaque pointer keeps both in the binary.
        for copy in f.copies {
            black_box(black_box(copy)());
        }
        let symbol = workloads::symbol(f.name);
        match binary
            .clone()
            .and_then(|b| disasm::disassemble_all(&b, &symbol))
        {
            Ok(read) => {
                let d = read[0].1;
                table.row(vec![
                    Cell::text(format!("`{}`", f.name)),
                    Cell::bytes(bytes),
                    Cell::Bool(zeroed),
                    copies_cell(&read),
                    Cell::count(d.instructions),
                    zeroed_by(&d),
                    Cell::count(d.stack_probes),
                    Cell::text(d.verdict().to_string()),
                ]);
                if zeroed {
                    zeroed_reads.push((bytes, d));
                }
            }
            Err(why) => failures.push(why),
        }
    }
    let largest_inline = zeroed_reads
        .iter()
        .filter(|(_, d)| matches!(d.verdict(), Verdict::InlineStores { .. }))
        .map(|(bytes, _)| *bytes)
        .max();
    let smallest_call = zeroed_reads
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
    table.note("Read with `objdump -d` from the very binary that timed S3 and S5, so the code is the code that was timed (release profile, x86-64). Every function exists twice, `f::<0>` and `f::<1>`, the copies S3's methods and their twins call: *copies in the binary* gives both addresses and whether the reader found the same zeroing, probes and length in each (they differ only in the constant that keeps them apart).");
    table.note("*Instructions in the function* counts its whole body; the touch is a call to `touch_raw`, the same function for every row. A zero store is a store to memory of a register zeroed in the same function (`xorps`/`pxor`) or of an immediate 0; the size of a `memset` call is the constant loaded into its third argument.");
    table.note("A stack probe is the compiler touching each new 4 KiB page of a frame larger than a page, in order, before it uses the frame (`sub $0x1000,%rsp` then a store to `(%rsp)`), so that the guard page below a thread's stack is hit before anything beyond it: that is how a stack overflow becomes the clean abort S8 observes. Where the function's own first store lands at the bottom of the new page anyway (here the copy mark), that store serves as the page's probe, and the reader counts it as one; what is left of the frame below the last whole page is touched by the push or call that follows. It is not a zeroing.");
    table.note("The seed read RyuJIT's output with `DOTNET_JitDisasm`: 8 unrolled SIMD stores for a literal 256 B, a call to a zeroing helper for a literal 2 KiB and 8 KiB, and a push loop that zeroes and probes at once for a variable size. Here LLVM chooses, per size, between inline stores and a `memset` call; Rust has no variable size.");
    vec![table]
}
