//! What the process can read about its stack from `/proc` (S8, S10): the main thread's limit, and
//! resident memory while threads hold touched stack.

use std::hint::black_box;
use std::sync::Barrier;

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
