//! Chapter 5's experiments binary under the system allocator: `cargo xtask report` runs it in
//! release mode and reads its JSON.
//!
//! Started with `RECEIPT_PEAK_OF=<strategy>`, it is instead R4's measuring process: it starts
//! one `receipt` on its standard input, reaps it and prints the command's peak resident set
//! (`receipt_chapter::command` says why this takes a small process of its own). That is why this `main`
//! is written out instead of `lab::experiments_main!`: the measurement must run before anything
//! else.

#[global_allocator]
static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();

fn main() -> std::process::ExitCode {
    if let Some(code) = receipt_chapter::peak_probe_from_env() {
        return code;
    }
    lab::report::main(&receipt_chapter::CHAPTER, lab::protocol::Allocator::System)
}
