//! Decides whether the process-wide pool's thread caches may live in thread-local storage
//! itself (`cfg(resident_tls)`, see `src/cache/resident.rs`).
//!
//! The pool's list of thread caches then points into each thread's storage, which is sound
//! only where std's thread-locals are native (`#[thread_local]`): there a thread-local without
//! a destructor outlives every thread-local destructor of its thread, so the thread takes its
//! cache off the list before the storage goes. Where std boxes each thread-local behind a key
//! of the operating system (x86_64-pc-windows-gnu, Android, OpenBSD, …), a key's destructor
//! can free that box first, so there `shared()` keeps its caches on the heap as every other
//! pool does. The shuttle models (`--cfg shuttle`) keep the resident caches, in a stand-in for
//! the thread's storage (`src/cache/resident.rs`). std's own `cfg(target_thread_local)` is not
//! available to stable code, so the targets are listed here, conservatively.

use std::env;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(resident_tls)");
    println!("cargo::rerun-if-changed=build.rs");
    // Set to build the heap caches on a target that has native thread-locals (CI tests both).
    println!("cargo::rerun-if-env-changed=HOTPATH_POOL_HEAP_CACHES");
    let var = |name: &str| env::var(name).unwrap_or_default();
    let (os, target_env) = (var("CARGO_CFG_TARGET_OS"), var("CARGO_CFG_TARGET_ENV"));
    let native = match os.as_str() {
        "linux" => matches!(target_env.as_str(), "gnu" | "musl"),
        "macos" | "freebsd" => true,
        "windows" => target_env == "msvc",
        _ => false,
    };
    let heap = env::var_os("HOTPATH_POOL_HEAP_CACHES").is_some();
    if native && !heap {
        println!("cargo::rustc-cfg=resident_tls");
    }
}
