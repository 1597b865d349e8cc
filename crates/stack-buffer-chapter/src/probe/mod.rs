//! Stack probes (S8, S9, S10, S13): code that uses a known amount of stack, and the machinery
//! to run it in a child process.
//!
//! A stack overflow cannot be caught: Rust's guard-page handler prints a message and aborts
//! the process, so nothing unwinds, no `Drop` runs and `catch_unwind` sees nothing. Every probe
//! that may overflow therefore runs in a child process: a binary re-runs itself with
//! [`PROBE_VAR`] set to a [`Spec`], the child calls [`child_from_env`], and the parent
//! ([`Launcher`]) reads the exit status. The experiments binary does this in release mode; the
//! test suite does it with its own test binary, in the dev profile.
//!
//! Four kinds of probe ([`Probe`]): a recursion of 8 KiB frames ([`descend`]), the same inside
//! `catch_unwind` under a guard with a `Drop` ([`descend_guarded`]), one single array of a
//! given size ([`single_array`]), and a boxed array built one of four ways ([`boxed`]) — `Box::new([0u8; N])` builds the array on the stack first when the compiler
//! does not optimise the copy away, which is what the dev profile shows.

use std::hint::black_box;
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::sync::Barrier;

/// The frame the recursion probes use: one 8 KiB array (the seed's `stackalloc byte[8192]`).
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

/// What [`descend_guarded`]'s guard prints to standard error when it is dropped.
pub const GUARD_DROPPED: &str = "the guard was dropped";
/// What [`descend_guarded`] prints to standard error when `catch_unwind` returns.
pub const UNWIND_CAUGHT: &str = "catch_unwind returned";

/// Prints [`GUARD_DROPPED`] when dropped.
struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        eprintln!("{GUARD_DROPPED}");
    }
}

/// S8: [`descend`] `depth` levels inside `std::panic::catch_unwind`, holding a guard whose
/// `Drop` prints [`GUARD_DROPPED`]; prints [`UNWIND_CAUGHT`] if `catch_unwind` returns. A
/// descent that fits prints both; one that overflows the stack prints neither: the process is
/// aborted, nothing unwinds, no destructor runs.
pub fn descend_guarded(depth: usize) -> u8 {
    let guard = Guard;
    let result = std::panic::catch_unwind(|| descend(depth));
    eprintln!("{UNWIND_CAUGHT}");
    drop(guard);
    result.unwrap_or(0)
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

/// The step between the sizes [`single_array`] can use: 8 KiB, the seed's resolution
/// (1,464 KiB survived, 1,472 KiB did not).
pub const ARRAY_STEP: usize = 8 * 1024;
/// How many sizes [`single_array`] has: every multiple of [`ARRAY_STEP`] up to 16 MiB.
pub const ARRAY_SIZES: usize = 2048;

/// One function whose frame holds one array of `BYTES` bytes, zeroed and touched at both
/// ends. Its frame is the array plus a few bytes. (Clippy's `large_stack_arrays` does not flag
/// it: the size is a const generic parameter, which the lint does not evaluate.)
#[inline(never)]
fn one_array<const BYTES: usize>() -> u8 {
    let mut array = [0u8; BYTES];
    let array = black_box(&mut array);
    array[BYTES - 1] = 1;
    array[0] ^ array[BYTES - 1]
}

/// Calls the `one_array` of the `k`-th size, `(k + 1) × ARRAY_STEP` bytes, by testing the
/// bits of `k` from the highest: one call, so the only large frame is the array's own.
macro_rules! one_array_by_bits {
    ($k:ident, $base:expr;) => {
        one_array::<{ ($base + 1) * ARRAY_STEP }>()
    };
    ($k:ident, $base:expr; $bit:literal $($rest:literal)*) => {
        if $k & $bit == 0 {
            one_array_by_bits!($k, $base; $($rest)*)
        } else {
            one_array_by_bits!($k, $base + $bit; $($rest)*)
        }
    };
}

/// S8: one array of `bytes` on the stack, in a single frame — the seed's single `stackalloc`,
/// not a recursion. `bytes` must be a multiple of [`ARRAY_STEP`] from 8 KiB to 16 MiB
/// (stable Rust has no variable-size stack array, so every size is its own function); `None`
/// otherwise.
pub fn single_array(bytes: usize) -> Option<u8> {
    if bytes == 0 || !bytes.is_multiple_of(ARRAY_STEP) || bytes / ARRAY_STEP > ARRAY_SIZES {
        return None;
    }
    let k = bytes / ARRAY_STEP - 1;
    Some(one_array_by_bits!(k, 0; 1024 512 256 128 64 32 16 8 4 2 1))
}

/// How a boxed array is built (S13).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoxWay {
    /// `Box::new([0u8; N])`: the array is an argument, built on the caller's stack and then
    /// copied into the heap — unless the optimiser removes the copy, as release builds do.
    BoxNew,
    /// `vec![0u8; N].into_boxed_slice()`: a zeroed heap allocation, a `Box<[u8]>`.
    VecIntoBoxedSlice,
    /// `Box::<[u8; N]>::new_zeroed()` then `assume_init`: a zeroed heap allocation of the
    /// array type, with one `unsafe` line.
    NewZeroed,
    /// `vec![0u8; N].into_boxed_slice().try_into()`: a `Box<[u8; N]>` from a boxed slice of
    /// the right length, in safe code.
    TryFromBoxedSlice,
}

impl BoxWay {
    /// Every way, `Box::new` first.
    pub const ALL: [BoxWay; 4] = [
        BoxWay::BoxNew,
        BoxWay::VecIntoBoxedSlice,
        BoxWay::NewZeroed,
        BoxWay::TryFromBoxedSlice,
    ];

    /// The code, as a table shows it.
    pub fn code(self) -> &'static str {
        match self {
            BoxWay::BoxNew => "Box::new([0u8; N])",
            BoxWay::VecIntoBoxedSlice => "vec![0u8; N].into_boxed_slice()",
            BoxWay::NewZeroed => "Box::<[u8; N]>::new_zeroed()",
            BoxWay::TryFromBoxedSlice => {
                "Box::<[u8; N]>::try_from(vec![0u8; N].into_boxed_slice())"
            }
        }
    }

    fn name(self) -> &'static str {
        match self {
            BoxWay::BoxNew => "box-new",
            BoxWay::VecIntoBoxedSlice => "vec-into-boxed-slice",
            BoxWay::NewZeroed => "new-zeroed",
            BoxWay::TryFromBoxedSlice => "try-from-boxed-slice",
        }
    }

    fn from_name(name: &str) -> Option<BoxWay> {
        BoxWay::ALL.into_iter().find(|w| w.name() == name)
    }
}

#[inline(never)]
fn box_new<const N: usize>() -> u8 {
    let boxed = Box::new([0u8; N]);
    black_box(&boxed)[N - 1]
}

#[inline(never)]
fn vec_into_boxed_slice<const N: usize>() -> u8 {
    let boxed: Box<[u8]> = vec![0u8; N].into_boxed_slice();
    black_box(&boxed)[N - 1]
}

#[inline(never)]
fn new_zeroed<const N: usize>() -> u8 {
    let zeroed = Box::<[u8; N]>::new_zeroed();
    // SAFETY: the allocation is zeroed, and all-zero bytes are a valid `[u8; N]`.
    let boxed = unsafe { zeroed.assume_init() };
    black_box(&boxed)[N - 1]
}

#[inline(never)]
fn try_from_boxed_slice<const N: usize>() -> u8 {
    let boxed: Box<[u8; N]> = vec![0u8; N]
        .into_boxed_slice()
        .try_into()
        .expect("a boxed slice of exactly N bytes converts");
    black_box(&boxed)[N - 1]
}

fn boxed_sized<const N: usize>(way: BoxWay) -> u8 {
    match way {
        BoxWay::BoxNew => box_new::<N>(),
        BoxWay::VecIntoBoxedSlice => vec_into_boxed_slice::<N>(),
        BoxWay::NewZeroed => new_zeroed::<N>(),
        BoxWay::TryFromBoxedSlice => try_from_boxed_slice::<N>(),
    }
}

/// The sizes [`boxed`] can build: powers of two from 64 KiB to 16 MiB (each size is its own
/// function, so the ladder is fixed).
pub const BOX_SIZES: [usize; 9] = [
    64 << 10,
    128 << 10,
    256 << 10,
    512 << 10,
    1 << 20,
    2 << 20,
    4 << 20,
    8 << 20,
    16 << 20,
];

/// S13: a zeroed array of `bytes` on the heap, built `way`, touched. `None` if `bytes` is not
/// one of [`BOX_SIZES`].
pub fn boxed(way: BoxWay, bytes: usize) -> Option<u8> {
    Some(match bytes {
        0x1_0000 => boxed_sized::<0x1_0000>(way),
        0x2_0000 => boxed_sized::<0x2_0000>(way),
        0x4_0000 => boxed_sized::<0x4_0000>(way),
        0x8_0000 => boxed_sized::<0x8_0000>(way),
        0x10_0000 => boxed_sized::<0x10_0000>(way),
        0x20_0000 => boxed_sized::<0x20_0000>(way),
        0x40_0000 => boxed_sized::<0x40_0000>(way),
        0x80_0000 => boxed_sized::<0x80_0000>(way),
        0x100_0000 => boxed_sized::<0x100_0000>(way),
        _ => return None,
    })
}

/// Where a probe runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Thread {
    /// The process's main thread (in a test binary, whatever thread the test runs on).
    Main,
    /// A `std::thread::spawn`ed thread (Rust's default stack size, 2 MiB unless
    /// `RUST_MIN_STACK` says otherwise).
    Spawned,
    /// A thread from `std::thread::Builder::new().stack_size(bytes)`.
    Sized(usize),
}

impl Thread {
    /// The probe's argument form: `main`, `spawned` or `sized=<bytes>`.
    pub fn encode(self) -> String {
        match self {
            Thread::Main => "main".to_owned(),
            Thread::Spawned => "spawned".to_owned(),
            Thread::Sized(bytes) => format!("sized={bytes}"),
        }
    }

    /// Parses [`Thread::encode`]'s form.
    pub fn decode(text: &str) -> Option<Thread> {
        match text {
            "main" => Some(Thread::Main),
            "spawned" => Some(Thread::Spawned),
            _ => text.strip_prefix("sized=")?.parse().ok().map(Thread::Sized),
        }
    }

    /// Runs `work` on this thread and returns its result; returns at all only if it survived.
    pub fn run<T: Send + 'static>(self, work: impl FnOnce() -> T + Send + 'static) -> T {
        match self {
            Thread::Main => work(),
            Thread::Spawned => std::thread::spawn(work).join().expect("the probe thread"),
            Thread::Sized(bytes) => std::thread::Builder::new()
                .stack_size(bytes)
                .spawn(work)
                .expect("spawn the probe thread")
                .join()
                .expect("the probe thread"),
        }
    }
}

/// Runs [`descend`]`(depth)` on `thread`; returns normally only if it survived.
pub fn run(thread: Thread, depth: usize) -> u8 {
    thread.run(move || descend(depth))
}

/// What a probe child does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Probe {
    /// [`descend`] this many levels below the first frame.
    Descend(usize),
    /// [`descend_guarded`] this many levels: the descent inside `catch_unwind`, under a guard
    /// whose `Drop` prints [`GUARD_DROPPED`].
    Guarded(usize),
    /// [`single_array`] of this many bytes.
    SingleArray(usize),
    /// [`boxed`] this way, this many bytes.
    Boxed(BoxWay, usize),
}

/// A probe and the thread it runs on: what [`PROBE_VAR`] carries to a child.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    /// Where it runs.
    pub thread: Thread,
    /// What it does.
    pub probe: Probe,
}

impl Spec {
    /// The text form: `<thread>:descend:<depth>`, `<thread>:guarded:<depth>`,
    /// `<thread>:array:<bytes>` or `<thread>:<way>:<bytes>`.
    pub fn encode(&self) -> String {
        let (kind, n) = match self.probe {
            Probe::Descend(depth) => ("descend", depth),
            Probe::Guarded(depth) => ("guarded", depth),
            Probe::SingleArray(bytes) => ("array", bytes),
            Probe::Boxed(way, bytes) => (way.name(), bytes),
        };
        format!("{}:{kind}:{n}", self.thread.encode())
    }

    /// Parses [`Spec::encode`]'s form.
    pub fn decode(text: &str) -> Option<Spec> {
        let mut parts = text.split(':');
        let thread = Thread::decode(parts.next()?)?;
        let kind = parts.next()?;
        let n: usize = parts.next()?.parse().ok()?;
        if parts.next().is_some() {
            return None;
        }
        let probe = match kind {
            "descend" => Probe::Descend(n),
            "guarded" => Probe::Guarded(n),
            "array" => Probe::SingleArray(n),
            _ => Probe::Boxed(BoxWay::from_name(kind)?, n),
        };
        Some(Spec { thread, probe })
    }

    /// Runs the probe on its thread. `Err` if the probe has no function for that size; a stack
    /// overflow does not return at all.
    pub fn run(self) -> Result<u8, String> {
        let probe = self.probe;
        let result = self.thread.run(move || match probe {
            Probe::Descend(depth) => Some(descend(depth)),
            Probe::Guarded(depth) => Some(descend_guarded(depth)),
            Probe::SingleArray(bytes) => single_array(bytes),
            Probe::Boxed(way, bytes) => boxed(way, bytes),
        });
        result.ok_or_else(|| format!("no probe function for {probe:?}"))
    }
}

/// The environment variable that turns a binary into a probe child: it holds a [`Spec`].
pub const PROBE_VAR: &str = "STACK_BUFFER_PROBE";

/// If [`PROBE_VAR`] is set, runs that probe and returns the exit code (success if it survived,
/// 2 if the spec is malformed); `None` if this process is not a probe child.
pub fn child_from_env() -> Option<ExitCode> {
    let text = std::env::var(PROBE_VAR).ok()?;
    let outcome = Spec::decode(&text)
        .ok_or_else(|| {
            format!("{PROBE_VAR}={text}: expected <main|spawned|sized=BYTES>:<descend|guarded|array|box-way>:<n>")
        })
        .and_then(Spec::run);
    Some(match outcome {
        Ok(value) => {
            black_box(value);
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("{why}");
            ExitCode::from(2)
        }
    })
}

/// The outcome of one probe child.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildRun {
    /// It exited with success.
    pub survived: bool,
    /// The signal that killed it, if one did.
    pub signal: Option<i32>,
    /// Its standard error, non-empty lines joined by ` / `.
    pub message: String,
}

/// How to start a probe child: a binary and its arguments.
#[derive(Clone, Debug)]
pub struct Launcher {
    exe: PathBuf,
    args: Vec<String>,
}

impl Launcher {
    /// The running binary, started again with `args` (a test binary needs the name of the test
    /// that calls [`child_from_env`]; the experiments binary needs none).
    ///
    /// # Errors
    /// If the running binary cannot be located.
    pub fn this_binary(args: &[&str]) -> Result<Launcher, String> {
        let exe =
            std::env::current_exe().map_err(|err| format!("cannot locate the binary: {err}"))?;
        Ok(Launcher::binary(exe, args))
    }

    /// Another binary that calls [`child_from_env`] first thing, started with `args` (S13
    /// runs the dev-profile build of the experiments binary this way).
    pub fn binary(exe: PathBuf, args: &[&str]) -> Launcher {
        Launcher {
            exe,
            args: args.iter().map(|a| (*a).to_owned()).collect(),
        }
    }

    /// Runs `spec` in a child process and waits for it.
    ///
    /// # Errors
    /// If the child cannot be started.
    pub fn run(&self, spec: Spec) -> Result<ChildRun, String> {
        let output = Command::new(&self.exe)
            .args(&self.args)
            .env(PROBE_VAR, spec.encode())
            .output()
            .map_err(|err| format!("cannot start a probe: {err}"))?;
        use std::os::unix::process::ExitStatusExt as _;
        Ok(ChildRun {
            survived: output.status.success(),
            signal: output.status.signal(),
            message: String::from_utf8_lossy(&output.stderr)
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(without_thread_ids)
                .collect::<Vec<_>>()
                .join(" / "),
        })
    }

    /// The largest `k` in `low..=high` whose probe survives, by bisection, assuming that
    /// every `k` below a survivor survives too; with the run of the smallest `k` that failed.
    ///
    /// # Errors
    /// If a child cannot be started, `low` does not survive, or `high` does (raise it).
    pub fn largest_surviving(
        &self,
        low: usize,
        high: usize,
        spec: impl Fn(usize) -> Spec,
    ) -> Result<(usize, ChildRun), String> {
        let bottom = self.run(spec(low))?;
        if !bottom.survived {
            return Err(format!(
                "{:?} did not survive: {}",
                spec(low),
                bottom.message
            ));
        }
        let mut failure = self.run(spec(high))?;
        if failure.survived {
            return Err(format!("{:?} survived: raise the ceiling", spec(high)));
        }
        let (mut lo, mut hi) = (low, high);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            let run = self.run(spec(mid))?;
            if run.survived {
                lo = mid;
            } else {
                hi = mid;
                failure = run;
            }
        }
        Ok((lo, failure))
    }

    /// S8: the largest single array (a multiple of [`ARRAY_STEP`]) that survives on `thread`,
    /// and the run of the next size.
    ///
    /// # Errors
    /// As [`Launcher::largest_surviving`].
    pub fn largest_single_array(&self, thread: Thread) -> Result<(usize, ChildRun), String> {
        let spec = move |k: usize| Spec {
            thread,
            probe: Probe::SingleArray(k * ARRAY_STEP),
        };
        let (k, failure) = self.largest_surviving(1, ARRAY_SIZES, spec)?;
        Ok((k * ARRAY_STEP, failure))
    }

    /// S13: the largest of [`BOX_SIZES`] that `way` builds on `thread` without overflowing,
    /// trying them in ascending order until one fails (`None` if even the smallest fails), and
    /// the run that failed (`None` if every size survived).
    ///
    /// # Errors
    /// If a child cannot be started.
    pub fn largest_boxed(
        &self,
        way: BoxWay,
        thread: Thread,
    ) -> Result<(Option<usize>, Option<ChildRun>), String> {
        let mut largest = None;
        for bytes in BOX_SIZES {
            let run = self.run(Spec {
                thread,
                probe: Probe::Boxed(way, bytes),
            })?;
            if !run.survived {
                return Ok((largest, Some(run)));
            }
            largest = Some(bytes);
        }
        Ok((largest, None))
    }

    /// S8: the deepest [`descend`] that survives on `thread`, up to `ceiling`, and the run of
    /// the next depth.
    ///
    /// # Errors
    /// As [`Launcher::largest_surviving`].
    pub fn deepest_descent(
        &self,
        thread: Thread,
        ceiling: usize,
    ) -> Result<(usize, ChildRun), String> {
        self.largest_surviving(0, ceiling, move |depth| Spec {
            thread,
            probe: Probe::Descend(depth),
        })
    }
}

/// A line of a child's standard error without the thread ids Rust prints in parentheses
/// (`thread 'main' (26066) has overflowed its stack`), so the same crash reads the same on
/// every run.
pub fn without_thread_ids(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find(" (") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        match after.find(')') {
            Some(end) if end > 0 && after[..end].bytes().all(|b| b.is_ascii_digit()) => {
                rest = &after[end + 1..];
            }
            _ => {
                out.push_str(" (");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A signal number as the S8 table names it.
pub fn signal_name(signal: Option<i32>) -> String {
    match signal {
        Some(6) => "SIGABRT (6)".to_owned(),
        Some(11) => "SIGSEGV (11)".to_owned(),
        Some(n) => format!("signal {n}"),
        None => "none (exited)".to_owned(),
    }
}

/// The main thread's stack limit in bytes (`ulimit -s`), from `/proc/self/limits`; `None` if
/// it cannot be read or is unlimited.
pub fn main_stack_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max stack size"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// This process's resident memory in KiB (`VmRSS` in `/proc/self/status`).
pub fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The frame the resident-memory probe ([`rss_with_threads`]) descends by: a 2 KiB array, the
/// seed's cap.
pub const HOLD_FRAME: usize = 2 * 1024;

/// S10: resident memory (KiB) before, and while `threads` threads each hold `kib` KiB of
/// touched stack (`kib / 2` frames of a 2 KiB array; 0 KiB: the thread waits without one).
/// `None` if `/proc/self/status` cannot be read or `kib` is odd.
pub fn rss_with_threads(threads: usize, kib: usize) -> Option<(u64, u64)> {
    use std::sync::Arc;
    if !kib.is_multiple_of(HOLD_FRAME / 1024) {
        return None;
    }
    let frames = kib * 1024 / HOLD_FRAME;
    let before = rss_kib()?;
    let ready = Arc::new(Barrier::new(threads + 1));
    let release = Arc::new(Barrier::new(threads + 1));
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let (ready, release) = (Arc::clone(&ready), Arc::clone(&release));
            std::thread::spawn(move || {
                if frames == 0 {
                    ready.wait();
                    release.wait();
                } else {
                    hold(frames, &ready, &release);
                }
            })
        })
        .collect();
    ready.wait();
    let during = rss_kib();
    release.wait();
    for handle in handles {
        handle.join().ok()?;
    }
    Some((before, during?))
}

/// Descends `frames` frames of a touched 2 KiB array, then waits at the bottom until released.
#[inline(never)]
fn hold(frames: usize, ready: &Barrier, release: &Barrier) -> u8 {
    let mut frame = [0u8; HOLD_FRAME];
    let frame = black_box(&mut frame);
    frame[HOLD_FRAME - 1] = frames as u8;
    if frames <= 1 {
        ready.wait();
        release.wait();
    } else {
        black_box(hold(frames - 1, ready, release));
    }
    black_box(frame)[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// S8, S13: a probe's spec survives the trip to the child process.
    #[test]
    fn specs_round_trip_through_their_text_form() {
        for spec in [
            Spec {
                thread: Thread::Main,
                probe: Probe::Descend(12),
            },
            Spec {
                thread: Thread::Sized(1 << 20),
                probe: Probe::Guarded(256),
            },
            Spec {
                thread: Thread::Sized(1 << 20),
                probe: Probe::SingleArray(64 << 10),
            },
            Spec {
                thread: Thread::Spawned,
                probe: Probe::Boxed(BoxWay::TryFromBoxedSlice, 1 << 20),
            },
        ] {
            assert_eq!(
                Spec::decode(&spec.encode()),
                Some(spec),
                "{}",
                spec.encode()
            );
        }
        assert_eq!(Spec::decode("main:descend"), None);
        assert_eq!(Spec::decode("main:boxed:1:2"), None);
        assert_eq!(Spec::decode("sized=x:array:8192"), None);
    }

    #[test]
    fn probe_sizes_outside_the_tables_are_refused_not_rounded() {
        assert_eq!(single_array(0), None);
        assert_eq!(single_array(ARRAY_STEP + 1), None);
        assert_eq!(single_array((ARRAY_SIZES + 1) * ARRAY_STEP), None);
        assert_eq!(boxed(BoxWay::NewZeroed, 1000), None);
        assert_eq!(signal_name(Some(6)), "SIGABRT (6)");
    }

    #[test]
    fn thread_ids_are_left_out_of_a_crash_message() {
        assert_eq!(
            without_thread_ids("thread 'main' (26066) has overflowed its stack"),
            "thread 'main' has overflowed its stack"
        );
        assert_eq!(without_thread_ids("SIGABRT (6) (x) ("), "SIGABRT (x) (");
    }
}
