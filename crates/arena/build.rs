//! Probes whether this compiler lets stable code give a `std` collection an allocator
//! (`Vec<T, A>`, the `allocator_api` feature): Rust 1.95 refuses it (E0658), and the nightly of
//! 2026-10-29 accepts it without a feature gate. `routes.rs` shows a `compile_fail` example
//! exactly when the compiler refuses it, so its doctest holds on both.

fn main() {
    let probe = autocfg::new();
    probe.emit_expression_cfg(
        "std::vec::Vec::<u8, std::alloc::System>::new_in(std::alloc::System)",
        "std_allocator_api",
    );
    println!("cargo::rerun-if-changed=build.rs");
}
