//! What every lab's grader shares.
//!
//! A lab's `grade` binary checks the learner's code against a reference and prints what it
//! measured, one line each, for `cargo xtask lab`:
//!
//! ```text
//! correct yes                   (or: correct no <what differs>)
//! figure <name> <value>         (an exact count: allocations, bytes)
//! ```
//!
//! Run as `grade --instructions N`, it only runs the measured work `N` times and exits:
//! `cargo xtask lab` counts the whole program's instructions under callgrind at `N` and at `2N`
//! and divides the difference by `N`, so start-up and checking cost nothing.

pub use lab::{CountingAlloc, count};

/// `Some(n)` when the binary was started as `grade --instructions n`.
pub fn instructions_mode() -> Option<u64> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag, n] if flag == "--instructions" => n.parse().ok(),
        _ => None,
    }
}

/// Prints whether the learner's code gives the reference's answers.
pub fn correct(result: Result<(), String>) {
    match result {
        Ok(()) => println!("correct yes"),
        Err(why) => println!("correct no {}", why.replace('\n', " ")),
    }
}

/// Prints one measured figure.
pub fn figure(name: &str, value: f64) {
    println!("figure {name} {value}");
}

/// Allocating calls (allocations and reallocations) of this thread while `f` runs.
pub fn allocating_calls<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let (value, stats) = count(f);
    (value, stats.allocating_calls())
}
