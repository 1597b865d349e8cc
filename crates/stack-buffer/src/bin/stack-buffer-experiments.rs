//! Chapter 2's experiments binary: `cargo xtask report` runs it in release mode and reads its JSON.
//!
//! Started with `STACK_BUFFER_PROBE=<thread>:<depth>` it is instead a stack probe child (S8,
//! S9): it descends `depth` frames of 8 KiB on that thread and exits 0 if it survived.

#[global_allocator]
static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();

fn main() -> std::process::ExitCode {
    if let Some(code) = stack_buffer::experiments::probe_child() {
        return code;
    }
    lab::report::main("stack-buffer", stack_buffer::experiments::EXPERIMENTS)
}
