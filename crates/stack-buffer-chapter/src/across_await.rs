//! A stack buffer held across `.await` is not on the stack (S13).
//!
//! C# refuses a `stackalloc` span across `await`; Rust accepts the code and moves the buffer
//! into the future instead: every local that lives across an `.await` is a field of the state
//! machine the `async fn` compiles to. So an 8 KiB array held across one `.await` makes the
//! future itself more than 8 KiB, wherever it is stored — on the caller's stack, in a `Box`,
//! in an executor's task. Dropping the array before the `.await` (or computing with it in a
//! plain function, the seed's "synchronous helper") keeps the future a few bytes; boxing it
//! keeps the future a pointer bigger.
//!
//! ```
//! use stack_buffer_chapter::across_await::{block_on, buffer_held_across_await, buffer_dropped_before_await};
//! assert!(size_of_val(&buffer_held_across_await()) > 8192);
//! assert!(size_of_val(&buffer_dropped_before_await()) < 64);
//! assert_eq!(block_on(buffer_held_across_await()), (0, 2)); // pending once, then ready
//! ```
//!
//! Clippy's `large_futures` lint (this workspace sets its threshold to 4 KiB in `clippy.toml`)
//! flags a future this large where it is awaited.

use std::future::Future;
use std::hint::black_box;
use std::pin::{Pin, pin};
use std::task::{Context, Poll, Waker};

/// The buffer the examples hold: 8 KiB, the seed's `stackalloc byte[8192]`.
pub const BUFFER: usize = 8 * 1024;

/// A future that is pending once, then ready: the smallest real `.await` point.
#[derive(Debug, Default)]
pub struct YieldOnce {
    polled: bool,
}

/// A future that is pending on its first poll and ready on its second.
pub fn yield_once() -> YieldOnce {
    YieldOnce::default()
}

impl Future for YieldOnce {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.polled {
            Poll::Ready(())
        } else {
            self.polled = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// Holds an 8 KiB array across the `.await`: the array is stored in the future.
pub async fn buffer_held_across_await() -> u8 {
    let mut buf = [0u8; BUFFER];
    black_box(&mut buf);
    yield_once().await;
    buf[BUFFER - 1]
}

/// Uses the array in a plain function and awaits only its result: the future stores one byte.
pub async fn buffer_dropped_before_await() -> u8 {
    let last = sum_of_a_stack_buffer();
    yield_once().await;
    last
}

/// The synchronous helper: its 8 KiB array lives on the stack of whoever polls, only while it
/// runs.
#[inline(never)]
fn sum_of_a_stack_buffer() -> u8 {
    let mut buf = [0u8; BUFFER];
    black_box(&mut buf);
    buf.iter().fold(0, |acc, &b| acc.wrapping_add(b))
}

/// Holds the 8 KiB on the heap across the `.await`: the future stores a `Box<[u8]>`.
pub async fn buffer_boxed_across_await() -> u8 {
    let mut buf = vec![0u8; BUFFER].into_boxed_slice();
    black_box(&mut buf);
    yield_once().await;
    buf[BUFFER - 1]
}

/// The size in bytes of each example's future, as `size_of_val` reports it without polling:
/// `(label, bytes)`. A counted fact of this compiler version.
pub fn future_sizes() -> [(&'static str, usize); 3] {
    [
        (
            "`[u8; 8192]` held across `.await`",
            size_of_val(&buffer_held_across_await()),
        ),
        (
            "`[u8; 8192]` used in a plain function before `.await`",
            size_of_val(&buffer_dropped_before_await()),
        ),
        (
            "`Box<[u8]>` of 8,192 held across `.await`",
            size_of_val(&buffer_boxed_across_await()),
        ),
    ]
}

/// Runs a future to completion on this thread, polling it with a waker that does nothing (the
/// examples wake themselves). Returns the output and the number of polls.
pub fn block_on<F: Future>(future: F) -> (F::Output, usize) {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    let mut polls = 0;
    loop {
        polls += 1;
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return (output, polls);
        }
    }
}
