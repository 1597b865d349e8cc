//! Decides whether the process-wide pool's hit path may find a thread's cache with one plain
//! load of a thread-local pointer (`cfg(resident_tls)`, see `src/cache/resident.rs`).
//!
//! That load needs no check only where std's thread-locals are native (`#[thread_local]`): there
//! a thread-local without a destructor is never destroyed while its thread runs, so the pointer
//! can be read from anywhere on the thread, another thread-local's destructor included. Where
//! std boxes each thread-local behind a key of the operating system (x86_64-pc-windows-gnu,
//! Android, OpenBSD, …), reaching one costs a call, and a key's destructor can free that box
//! first, after which std refuses the access with a panic (an abort, in a destructor); so there
//! `shared()` finds its cache as every other pool does. Either way the pool's list, not the
//! thread's storage, owns every cache: the choice is about cost and about never aborting, not
//! soundness. std's own `cfg(target_thread_local)` is not available to stable code, so the
//! targets are listed here, conservatively.

use std::env;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(resident_tls)");
    println!("cargo::rerun-if-changed=build.rs");
    // Set to build without the resident pointer on a target that has native thread-locals, as
    // on the others (CI tests both).
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
