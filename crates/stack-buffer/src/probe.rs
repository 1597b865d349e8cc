//! Stack probes for S8 and S9: code that uses a known amount of stack, run in a child process
//! by the experiments (a stack overflow aborts the process, so the report must never run it
//! in its own).

use std::hint::black_box;

/// The frame the probes use: one 8 KiB array (the seed's `stackalloc byte[8192]`).
pub const FRAME: usize = 8 * 1024;

/// Recurses `depth` times, each frame holding an 8 KiB array that is still in use when the
/// call below returns (so it cannot be turned into a loop). Uses about `depth × 8 KiB` of stack.
#[inline(never)]
pub fn descend(depth: usize) -> u8 {
    let mut frame = [0u8; FRAME];
    let frame = black_box(&mut frame);
    frame[0] = depth as u8;
    if depth == 0 {
        return frame[FRAME - 1];
    }
    let below = descend(depth - 1);
    black_box(frame)[0] ^ below
}

/// The address of an 8 KiB stack array declared inside a loop body, iteration by iteration.
pub fn loop_addresses(iterations: usize) -> Vec<usize> {
    let mut addresses = Vec::with_capacity(iterations);
    for i in 0..iterations {
        let mut buf = [0u8; FRAME];
        let buf = black_box(&mut buf);
        buf[0] = i as u8;
        addresses.push(buf.as_ptr() as usize);
    }
    addresses
}

/// The address of the 8 KiB stack array of each level of a recursion `depth` deep.
pub fn recursion_addresses(depth: usize) -> Vec<usize> {
    #[inline(never)]
    fn level(depth: usize, out: &mut Vec<usize>) {
        let mut buf = [0u8; FRAME];
        let buf = black_box(&mut buf);
        out.push(buf.as_ptr() as usize);
        if depth > 1 {
            level(depth - 1, out);
        }
        black_box(buf);
    }
    let mut out = Vec::with_capacity(depth);
    level(depth, &mut out);
    out
}

/// Where a probe runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Thread {
    /// The process's main thread.
    Main,
    /// A `std::thread::spawn`ed thread (Rust's default stack size, 2 MiB unless
    /// `RUST_MIN_STACK` says otherwise).
    Spawned,
    /// A thread from `std::thread::Builder::new().stack_size(bytes)`.
    Sized(usize),
}

impl Thread {
    /// The probe's argument form: `main`, `spawned` or `sized:<bytes>`.
    pub fn encode(self) -> String {
        match self {
            Thread::Main => "main".to_owned(),
            Thread::Spawned => "spawned".to_owned(),
            Thread::Sized(bytes) => format!("sized:{bytes}"),
        }
    }

    /// Parses [`Thread::encode`]'s form.
    pub fn decode(text: &str) -> Option<Thread> {
        match text {
            "main" => Some(Thread::Main),
            "spawned" => Some(Thread::Spawned),
            _ => text.strip_prefix("sized:")?.parse().ok().map(Thread::Sized),
        }
    }
}

/// Runs [`descend`]`(depth)` on `thread`; returns normally only if it survived.
pub fn run(thread: Thread, depth: usize) -> u8 {
    match thread {
        Thread::Main => descend(depth),
        Thread::Spawned => std::thread::spawn(move || descend(depth))
            .join()
            .expect("the probe thread"),
        Thread::Sized(bytes) => std::thread::Builder::new()
            .stack_size(bytes)
            .spawn(move || descend(depth))
            .expect("spawn the probe thread")
            .join()
            .expect("the probe thread"),
    }
}
