//! Chapter 5's experiments binary: `cargo xtask report` runs it in release mode and reads its JSON.

#[global_allocator]
static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();

fn main() -> std::process::ExitCode {
    lab::report::main("receipt", receipt::experiments::EXPERIMENTS)
}
