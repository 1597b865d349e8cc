//! Chapter 2's experiments binary under the system allocator: `cargo xtask report` runs it in
//! release mode and reads its JSON.
//!
//! Started with `STACK_BUFFER_PROBE=<spec>` it is instead a stack probe child (S8, S13): it
//! runs that probe (`stack_buffer_chapter::probe::Spec`, e.g. `main:descend:100`,
//! `sized=1048576:array:524288` or `spawned:box-new:4194304`) and exits 0 if it survived.
//! That is why this `main` is written out instead of `lab::experiments_main!`: the probe must
//! run before the experiments runner reads the command line.

#[global_allocator]
static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();

fn main() -> std::process::ExitCode {
    if let Some(code) = stack_buffer_chapter::probe::child_from_env() {
        return code;
    }
    lab::report::main(
        &stack_buffer_chapter::CHAPTER,
        lab::protocol::Allocator::System,
    )
}
