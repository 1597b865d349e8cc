//! M1: the counting allocator counts exactly, and only the current thread.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use lab::count;

#[global_allocator]
static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();

/// Windows opened while the other threads allocate.
const WINDOWS: usize = if cfg!(miri) { 5 } else { 100 };

/// M1: counts are per thread: other threads' allocations never leak into a window.
#[test]
fn nothing_allocated_reads_zero_while_four_threads_allocate() {
    let stop = Arc::new(AtomicBool::new(false));
    let noisy: Vec<_> = (0..4)
        .map(|_| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let v: Vec<u64> = black_box(vec![n; 64]);
                    n = n.wrapping_add(v.len() as u64);
                }
                n
            })
        })
        .collect();
    // Give the other threads time to be in their loops.
    std::thread::sleep(std::time::Duration::from_millis(20));
    for _ in 0..WINDOWS {
        let (sum, stats) = count(|| (0..1000u64).map(black_box).sum::<u64>());
        assert_eq!(sum, 499_500);
        assert_eq!(
            stats,
            lab::AllocStats::default(),
            "another thread's allocations leaked in"
        );
    }
    stop.store(true, Ordering::Relaxed);
    for handle in noisy {
        assert!(
            handle.join().unwrap() > 0,
            "the noisy threads must really have allocated"
        );
    }
}

#[test]
fn a_shrink_is_counted_as_shrunk_and_frees_bytes() {
    let mut v: Vec<u8> = Vec::with_capacity(1024);
    v.push(1);
    let ((), stats) = count(|| v.shrink_to_fit());
    assert_eq!(
        (stats.reallocs, stats.shrunk, stats.bytes_freed),
        (1, 1, 1023)
    );
}

#[test]
fn count_calls_nest() {
    let ((inner_stats, _outer_box), outer) = count(|| {
        let first = Box::new(1u32);
        let (second, inner) = count(|| Box::new([0u8; 100]));
        drop(second);
        (inner, first)
    });
    assert_eq!((inner_stats.allocs, inner_stats.bytes_allocated), (1, 100));
    // The outer window includes the inner one.
    assert_eq!((outer.allocs, outer.bytes_allocated), (2, 104));
    assert_eq!((outer.deallocs, outer.bytes_freed), (1, 100));
    assert_eq!(outer.peak_live_bytes, 104);
}

#[test]
fn peak_live_bytes_sees_a_temporary() {
    let ((), stats) = count(|| {
        let big = black_box(vec![0u8; 4096]);
        drop(big);
        let small = black_box(vec![0u8; 16]);
        drop(small);
    });
    assert_eq!(stats.peak_live_bytes, 4096);
    assert_eq!(stats.net_bytes(), 0);
}

#[test]
fn the_process_wide_view_sees_everything() {
    let before = ALLOC.process_stats();
    drop(black_box(Box::new(7u64)));
    let after = ALLOC.process_stats();
    assert!(after.allocations > before.allocations);
}

#[test]
fn a_paused_thread_is_not_counted_and_count_refuses_to_run_there() {
    let ((), stats) = count(|| {
        let paused = lab::alloc::pause();
        drop(black_box(Box::new(0u64)));
        drop(paused);
    });
    assert_eq!((stats.allocs, stats.deallocs), (0, 0));
    let ((), resumed) = count(|| drop(black_box(Box::new(0u64))));
    assert_eq!((resumed.allocs, resumed.deallocs), (1, 1));

    let paused = lab::alloc::pause();
    let refused = std::panic::catch_unwind(|| count(|| ()));
    drop(paused);
    assert!(refused.is_err(), "count must not report zeros while paused");
}
