//! Chapter 5's experiments binary under the system allocator: `cargo xtask report` runs it in
//! release mode and reads its JSON.
//!
//! Started with `RECEIPT_MEMORY_PROBE=<strategy>:<lines>:<seed>` it is instead R4's
//! intermediate process: it feeds that many generated lines to one `receipt` child, waits for it
//! and prints the child's peak resident set (`receipt::command`). That is why this `main` is
//! written out instead of `lab::experiments_main!`: the probe must run before the experiments
//! runner reads the command line.

#[global_allocator]
static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();

fn main() -> std::process::ExitCode {
    if let Some(code) = receipt::experiments::memory_probe_from_env() {
        return code;
    }
    lab::report::main(
        &receipt::experiments::CHAPTER,
        lab::protocol::Allocator::System,
    )
}
