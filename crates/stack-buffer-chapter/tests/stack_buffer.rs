//! Chapter 2's claims, pinned: agreement of every scratch strategy, the boundaries at 16 and
//! 128 items, the counted allocations, the workloads, the stack probes (some in child
//! processes: this test binary re-runs itself through `probe_child`), glibc's heap paths and
//! the machine code of the workloads' own source.

use lab::{Cell, count};
use pool::{BufferPool, PoolConfig};
use proptest::prelude::*;
use stack_buffer::{
    AIR_FACTOR, BOX_KG, InlineScratch, Item, MAX_STACK_ITEMS, PackError, Scratch,
    SmallInlineScratch, billed_weight_kg, generate_order, pack_boxes, pack_boxes_with,
};
use stack_buffer_chapter::probe::{self, BoxWay, Launcher, Probe, Spec, Thread};
use stack_buffer_chapter::workloads;

#[global_allocator]
static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();

const ALL: [Scratch; 7] = Scratch::ALL;

fn item(l: f64, w: f64, h: f64, kg: f64) -> Item {
    Item {
        length_cm: l,
        width_cm: w,
        height_cm: h,
        weight_kg: kg,
    }
}

/// S11: the orders' generator exercises the minimum-cubage branch.
#[test]
fn the_generator_flattens_one_item_in_four_so_the_minimum_cubage_branch_runs() {
    let order = generate_order(400, 1);
    let flattened = order
        .iter()
        .filter(|i| i.billed_dimensions_cm() == stack_buffer::MIN_CUBAGE_CM)
        .count();
    assert_eq!(flattened, 100);
    assert!(
        order
            .iter()
            .all(|i| billed_weight_kg(i, AIR_FACTOR) <= BOX_KG)
    );
    assert_eq!(order, generate_order(400, 1), "deterministic");
}

/// S11: the stack capacity's boundaries.
#[test]
fn every_strategy_agrees_at_127_128_and_129_items() {
    for n in [127, 128, 129] {
        let order = generate_order(n, n as u64);
        let heap = pack_boxes(&order, BOX_KG, AIR_FACTOR, Scratch::Heap).unwrap();
        assert!(heap > 0);
        for strategy in [
            Scratch::Pool,
            Scratch::Hybrid,
            Scratch::SmallVec256,
            Scratch::SmallVec32,
        ] {
            assert_eq!(
                pack_boxes(&order, BOX_KG, AIR_FACTOR, strategy),
                Ok(heap),
                "{n} {strategy:?}"
            );
        }
        for strategy in [Scratch::Stack, Scratch::StackUninit] {
            let expected = if n <= MAX_STACK_ITEMS {
                Ok(heap)
            } else {
                Err(PackError::TooManyForStack {
                    items: n,
                    max: MAX_STACK_ITEMS,
                })
            };
            assert_eq!(
                pack_boxes(&order, BOX_KG, AIR_FACTOR, strategy),
                expected,
                "{n} {strategy:?}"
            );
        }
    }
}

/// S11: the hybrid switches to the pool above the stack capacity. A pool of the test's own, so
/// no other test renting at the same time can answer for it.
#[test]
fn hybrid_at_129_items_rents_from_the_pool_and_at_128_does_not() {
    let mine = BufferPool::<f64>::new(PoolConfig::default());
    let hybrid = |n| {
        let order = generate_order(n, 3);
        count(|| pack_boxes_with(&mine, &order, BOX_KG, AIR_FACTOR, Scratch::Hybrid).unwrap()).1
    };
    let at_128 = hybrid(128);
    assert_eq!(mine.stats().rents, 0, "128 items: the stack array");
    assert_eq!(at_128.allocs, 0);
    hybrid(129);
    assert_eq!(mine.stats().rents, 1, "129 items: the pool");
    let again = hybrid(129);
    assert_eq!(
        (mine.stats().rents, again.allocs),
        (2, 0),
        "warm: no allocation"
    );
}

/// S6: the heap pays 16 bytes per item, the stack strategies nothing.
#[test]
fn stack_and_hybrid_up_to_128_items_allocate_0_bytes_and_heap_2n_times_8() {
    for n in [1, 16, 64, 127, 128] {
        let order = generate_order(n, 5);
        for strategy in [Scratch::Stack, Scratch::StackUninit, Scratch::Hybrid] {
            let (_, stats) = count(|| pack_boxes(&order, BOX_KG, AIR_FACTOR, strategy));
            assert_eq!(stats.bytes_allocated, 0, "{n} {strategy:?}");
        }
        let (_, heap) = count(|| pack_boxes(&order, BOX_KG, AIR_FACTOR, Scratch::Heap));
        assert_eq!(
            (heap.allocs, heap.bytes_allocated),
            (1, 2 * n as u64 * 8),
            "{n}"
        );
    }
}

/// S6: the warm pool pays nothing.
#[test]
fn the_pool_strategy_allocates_nothing_once_warm() {
    let order = generate_order(300, 9);
    pack_boxes(&order, BOX_KG, AIR_FACTOR, Scratch::Pool).unwrap();
    let (_, stats) = count(|| pack_boxes(&order, BOX_KG, AIR_FACTOR, Scratch::Pool));
    assert_eq!(stats.bytes_allocated, 0);
}

/// S7, S11: the whole operation, checked by hand.
#[test]
fn first_fit_decreasing_on_a_hand_checked_order() {
    // Billed 6, 5, 4, 3 kg into 10 kg boxes: 6+4 | 5+3.
    let cube = |kg| item(20.0, 20.0, 20.0, kg);
    for strategy in ALL {
        assert_eq!(
            pack_boxes(
                &[cube(3.0), cube(6.0), cube(4.0), cube(5.0)],
                10.0,
                AIR_FACTOR,
                strategy
            ),
            Ok(2)
        );
    }
}

/// A loop reuses one slot; recursion takes a new frame per level.
#[cfg_attr(
    miri,
    ignore = "slot reuse is a codegen fact, not language semantics: Miri gives every local a fresh allocation"
)]
#[test]
fn s9_an_array_in_a_loop_reuses_one_slot_and_recursion_accumulates() {
    let looped = probe::loop_addresses(if cfg!(miri) { 4 } else { 184 });
    assert!(
        looped.windows(2).all(|w| w[0] == w[1]),
        "one slot for every iteration"
    );
    let nested = probe::recursion_addresses(if cfg!(miri) { 3 } else { 16 });
    assert!(
        nested.windows(2).all(|w| w[0] >= w[1] + probe::FRAME),
        "each level at least 8 KiB below the last"
    );
}

/// S8: the probes themselves work on every kind of thread.
#[test]
fn probes_survive_a_shallow_descent_on_every_kind_of_thread() {
    for thread in [
        probe::Thread::Main,
        probe::Thread::Spawned,
        probe::Thread::Sized(1 << 20),
    ] {
        probe::run(thread, 8);
        assert_eq!(probe::Thread::decode(&thread.encode()), Some(thread));
    }
}

/// S10: threads that hold touched stack add it to resident memory while they live. A lower
/// bound only (other tests run beside this one, and resident memory is not an exact count):
/// 8 threads × 256 KiB add at least half of their 2 MiB.
#[test]
#[cfg_attr(miri, ignore = "reads /proc")]
fn s10_threads_holding_touched_stack_add_at_least_half_of_it_to_resident_memory() {
    let (threads, kib) = (8, 256);
    let (before, during) = probe::rss_with_threads(threads, kib).expect("/proc/self/status");
    let touched_kib = (threads * kib) as u64;
    assert!(
        during.saturating_sub(before) >= touched_kib / 2,
        "{before} KiB before, {during} KiB during"
    );
}

/// S1, S3, S4: every workload that reaches a buffer, both copies, writes the first and last
/// value and reads them back (1.0 + 2.0); the heap ones allocate exactly the buffer, the stack
/// ones nothing.
#[test]
fn every_way_to_reach_a_buffer_touches_the_same_two_values() {
    for (bytes, zeroed, uninit) in workloads::STACK_SIZES {
        for f in zeroed.copies.into_iter().chain(uninit.copies) {
            let (value, stats) = count(f);
            assert_eq!((value, stats.allocs), (3.0, 0), "{bytes} B");
        }
    }
    for (bytes, zeroed, uninit) in workloads::HEAP_SIZES {
        for f in zeroed.copies.into_iter().chain(uninit.copies) {
            let (value, stats) = count(f);
            assert_eq!(
                (value, stats.bytes_allocated),
                (3.0, bytes as u64),
                "{bytes} B"
            );
        }
    }
    for (bytes, reused) in workloads::REUSED_SIZES {
        let mut mine = Vec::with_capacity(bytes / 8);
        for f in reused.copies {
            let (value, stats) = count(|| f(&mut mine));
            assert_eq!((value, stats.allocs), (3.0, 0), "{bytes} B, reused");
        }
    }
    let mut existing = vec![7.0; 1024];
    assert_eq!(workloads::memset_existing::<0>(&mut existing), 3.0);
    assert!(existing[1..1023].iter().all(|&x| x == 0.0));
    assert_eq!(workloads::floor::<1>(&mut existing), 3.0);
    for n in workloads::S1_ITEMS {
        let (value, heap) = count(|| workloads::s1_heap::<1>(n));
        assert_eq!((value, heap.bytes_allocated), (3.0, 16 * n as u64), "{n}");
        let (value, fresh) = count(|| workloads::s1_heap_uninit::<0>(n));
        assert_eq!((value, fresh.bytes_allocated), (3.0, 16 * n as u64), "{n}");
        workloads::s1_pool::<0>(n); // warm
        let (value, pool) = count(|| workloads::s1_pool::<0>(n));
        assert_eq!((value, pool.bytes_allocated), (3.0, 0), "{n}");
        if n <= MAX_STACK_ITEMS {
            for f in [workloads::s1_stack::<0>, workloads::s1_stack_uninit::<1>] {
                let (value, stack) = count(|| f(n));
                assert_eq!((value, stack.bytes_allocated), (3.0, 0), "{n}");
            }
        }
    }
}

/// S1, S1-baselines: the reused buffer is allocated once, outside the timed loop; every call
/// after that clears it and touches the same two values without allocating, and a buffer too
/// small for the request grows once and then stays.
#[test]
fn s1_the_reused_buffer_allocates_once_and_never_again() {
    let mut mine: Vec<f64> = Vec::new();
    let (value, first) = count(|| workloads::s1_reused::<0>(&mut mine, 128));
    assert_eq!((value, first.allocs, first.bytes_allocated), (3.0, 1, 2048));
    for n in workloads::S1_ITEMS.into_iter().filter(|&n| n <= 128) {
        for f in [workloads::s1_reused::<0>, workloads::s1_reused::<1>] {
            let (value, stats) = count(|| f(&mut mine, n));
            assert_eq!((value, stats.allocs), (3.0, 0), "{n}");
        }
    }
    assert_eq!(mine.capacity(), 256);
}

/// S7: the caller's own buffer packs like every strategy; reused, it allocates nothing once it
/// is large enough, and fresh, it allocates exactly 2N values per call, like `Heap`.
#[test]
fn s7_the_reused_buffer_packs_like_every_strategy_and_allocates_nothing_once_grown() {
    let mut mine = Vec::new();
    for n in workloads::S7_ITEMS {
        let order = workloads::s7_order(n);
        let heap = pack_boxes(&order, BOX_KG, AIR_FACTOR, Scratch::Heap);
        assert_eq!(workloads::reuse_copy::<0>(&order, &mut mine), heap, "{n}");
        let (boxes, reused) = count(|| workloads::reuse_copy::<5>(&order, &mut mine));
        assert_eq!((boxes, reused.allocs), (heap.clone(), 0), "{n}");
        let (boxes, fresh) = count(|| workloads::fresh_copy::<3>(&order));
        assert_eq!(
            (boxes, fresh.allocs, fresh.bytes_allocated),
            (heap, 1, 16 * n as u64),
            "{n}"
        );
    }
}

/// S11, S12: the smaller `SmallVec`'s inline capacity is 32 values, 16 items; every strategy
/// agrees on either side of it too.
#[test]
fn s12_every_strategy_agrees_at_15_16_and_17_items() {
    for n in [15, 16, 17] {
        let order = generate_order(n, n as u64);
        let heap = pack_boxes(&order, BOX_KG, AIR_FACTOR, Scratch::Heap).unwrap();
        for strategy in ALL {
            assert_eq!(
                pack_boxes(&order, BOX_KG, AIR_FACTOR, strategy),
                Ok(heap),
                "{n} {strategy:?}"
            );
        }
    }
}

/// The number of allocations one call of `f` makes.
fn allocations(f: impl FnOnce() -> f64) -> u64 {
    count(f).1.allocs
}

/// S12: a `SmallVec` allocates nothing while the request fits inline and exactly once above;
/// the hand-written hybrid never allocates once its pool is warm.
#[test]
fn s12_smallvec_allocates_0_times_up_to_its_inline_capacity_and_once_above() {
    for n in workloads::S12_ITEMS {
        let large = allocations(|| workloads::s12_smallvec_256::<0>(n));
        assert_eq!(
            large,
            u64::from(2 * n > 256),
            "SmallVec<[f64; 256]>, {n} items"
        );
        let small = allocations(|| workloads::s12_smallvec_32::<1>(n));
        assert_eq!(
            small,
            u64::from(2 * n > 32),
            "SmallVec<[f64; 32]>, {n} items"
        );
        workloads::s12_hybrid::<0>(n); // warm the pool for this size
        assert_eq!(
            allocations(|| workloads::s12_hybrid::<0>(n)),
            0,
            "hybrid, {n} items"
        );
    }
    for (n, strategy, expected) in [
        (16, Scratch::SmallVec32, 0),
        (17, Scratch::SmallVec32, 1),
        (128, Scratch::SmallVec256, 0),
        (129, Scratch::SmallVec256, 1),
    ] {
        let order = generate_order(n, 12);
        let (_, stats) = count(|| pack_boxes(&order, BOX_KG, AIR_FACTOR, strategy));
        assert_eq!(stats.allocs, expected, "{n} items, {strategy:?}");
        assert_eq!(stats.bytes_allocated, expected * 16 * n as u64);
    }
}

/// S12: the inline array is part of the `SmallVec` value, so a move that is not elided copies
/// all of it; a `Vec` or a pool guard is a few words wherever the data is.
#[test]
fn s12_a_smallvec_is_as_large_as_its_inline_array_and_carries_it_when_moved() {
    let sizes: Vec<usize> = workloads::S12_VALUE_SIZES.iter().map(|(_, s)| *s).collect();
    assert_eq!(sizes, [24, 32, 256, 272, 2048, 2064]);
    let inside = |start: *const u8, size: usize, data: *const f64| {
        (start as usize..start as usize + size).contains(&(data as usize))
    };
    let inline: InlineScratch = smallvec::smallvec![0.0; 256];
    let start = std::ptr::from_ref(&inline).cast::<u8>();
    assert!(!inline.spilled());
    assert!(inside(start, size_of::<InlineScratch>(), inline.as_ptr()));
    let spilled: SmallInlineScratch = smallvec::smallvec![0.0; 33];
    let start = std::ptr::from_ref(&spilled).cast::<u8>();
    assert!(spilled.spilled());
    assert!(!inside(
        start,
        size_of::<SmallInlineScratch>(),
        spilled.as_ptr()
    ));
}

/// S13: every local that lives across an `.await` is a field of the future, so an 8 KiB array
/// held across one makes the future 8 KiB; used in a plain function before the `.await`, or
/// boxed, it does not.
#[test]
fn s13_an_8_kib_buffer_held_across_await_makes_the_future_8_kib() {
    use stack_buffer_chapter::across_await::{BUFFER, block_on, future_sizes};
    let [(_, held), (_, helper), (_, boxed)] = future_sizes();
    assert!((BUFFER..BUFFER + 16).contains(&held), "{held}");
    assert!(helper <= 8, "{helper}");
    assert!(boxed <= 32, "{boxed}");
    let (value, polls) = block_on(stack_buffer_chapter::across_await::buffer_boxed_across_await());
    assert_eq!((value, polls), (0, 2), "pending once, then ready");
    assert_eq!(
        block_on(stack_buffer_chapter::across_await::buffer_dropped_before_await()),
        (0, 2)
    );
}

/// When this test binary is started by [`launcher`] with `STACK_BUFFER_PROBE` set, this test is
/// the probe child: it runs the probe and exits (or dies of a stack overflow). In a normal run
/// it does nothing.
#[test]
fn probe_child() {
    if let Some(code) = probe::child_from_env() {
        std::process::exit(if code == std::process::ExitCode::SUCCESS {
            0
        } else {
            2
        });
    }
}

/// Starts this test binary again, running only [`probe_child`].
fn launcher() -> Launcher {
    Launcher::this_binary(&["--exact", "probe_child", "--nocapture", "--test-threads=1"])
        .expect("this test binary")
}

const ONE_MIB: usize = 1 << 20;

/// S8: the largest single array that survives on a thread with a 1 MiB stack is within 64 KiB
/// of 1 MiB (the thread's own start-up frames and thread-local storage take the rest), and the
/// next size aborts the process with Rust's stack-overflow message. A recursion of 8 KiB frames
/// fits less: every frame has a few bytes of its own.
#[test]
#[cfg_attr(miri, ignore = "runs child processes")]
fn s8_the_largest_single_array_on_a_1_mib_thread_is_within_64_kib_of_1_mib() {
    let launcher = launcher();
    let thread = Thread::Sized(ONE_MIB);
    let (largest, failure) = launcher.largest_single_array(thread).unwrap();
    assert!(
        (ONE_MIB - (64 << 10)..ONE_MIB).contains(&largest),
        "{largest}"
    );
    assert!(!failure.survived);
    assert_eq!(failure.signal, Some(6), "SIGABRT: {}", failure.message);
    assert!(
        failure.message.contains("has overflowed its stack"),
        "{}",
        failure.message
    );
    let (depth, _) = launcher.deepest_descent(thread, 256).unwrap();
    assert!((depth + 1) * probe::FRAME <= largest, "{depth} frames");
}

/// S8: a stack overflow is not a panic: a descent that overflows inside `catch_unwind`, under a
/// guard whose `Drop` prints a marker, aborts the process with SIGABRT, and neither the guard's
/// marker nor the line after `catch_unwind` is printed. The same descent, shallow enough to
/// fit, prints both (so the markers would show if they ran).
#[test]
#[cfg_attr(miri, ignore = "runs child processes")]
fn s8_a_stack_overflow_runs_no_drop_and_catch_unwind_cannot_catch_it() {
    let launcher = launcher();
    let guarded = |depth| Spec {
        thread: Thread::Sized(ONE_MIB),
        probe: Probe::Guarded(depth),
    };
    let fits = launcher.run(guarded(4)).unwrap();
    assert!(fits.survived, "{}", fits.message);
    assert!(
        fits.message.contains(probe::GUARD_DROPPED),
        "{}",
        fits.message
    );
    assert!(
        fits.message.contains(probe::UNWIND_CAUGHT),
        "{}",
        fits.message
    );
    let overflows = launcher.run(guarded(256)).unwrap();
    assert_eq!(overflows.signal, Some(6), "SIGABRT: {}", overflows.message);
    assert!(
        overflows.message.contains("has overflowed its stack"),
        "{}",
        overflows.message
    );
    assert!(
        !overflows.message.contains(probe::GUARD_DROPPED),
        "{}",
        overflows.message
    );
    assert!(
        !overflows.message.contains(probe::UNWIND_CAUGHT),
        "{}",
        overflows.message
    );
}

/// S13: in the dev profile `Box::new([0u8; N])` builds the array on the stack before moving it
/// into the heap: on a 2 MiB thread 1 MiB survives and 2 MiB aborts the process. Ignored when
/// the tests are built with optimisations (`debug_assertions` off is the sign), where the
/// compiler may remove that temporary.
#[test]
#[cfg_attr(miri, ignore = "runs child processes")]
#[cfg_attr(not(debug_assertions), ignore = "a dev-profile fact")]
fn s13_box_new_of_a_large_array_overflows_the_stack_in_the_dev_profile() {
    let (largest, failure) = launcher()
        .largest_boxed(BoxWay::BoxNew, Thread::Sized(2 * ONE_MIB))
        .unwrap();
    assert_eq!(largest, Some(ONE_MIB));
    let failure = failure.expect("2 MiB does not survive");
    assert!(
        failure.message.contains("has overflowed its stack"),
        "{}",
        failure.message
    );
}

/// S13: the three ways that allocate the zeroed block on the heap directly build 16 MiB on a
/// 2 MiB thread, in any profile.
#[test]
#[cfg_attr(miri, ignore = "runs child processes")]
fn s13_the_three_heap_ways_build_16_mib_on_a_2_mib_thread() {
    let launcher = launcher();
    for way in [
        BoxWay::VecIntoBoxedSlice,
        BoxWay::NewZeroed,
        BoxWay::TryFromBoxedSlice,
    ] {
        let spec = Spec {
            thread: Thread::Sized(2 * ONE_MIB),
            probe: Probe::Boxed(way, 16 * ONE_MIB),
        };
        let run = launcher.run(spec).unwrap();
        assert!(run.survived, "{way:?}: {}", run.message);
    }
}

/// S3: glibc serves `malloc` requests of up to 1,032 bytes from the thread's own cache (last
/// in, first out) and larger ones from the arena — the step S3-heap times at 1,040 B.
#[test]
#[cfg(target_env = "gnu")]
#[cfg_attr(miri, ignore = "Miri has its own allocator, not glibc's")]
fn s3_glibc_serves_requests_up_to_1032_bytes_from_the_per_thread_cache() {
    use stack_buffer_chapter::heap::{
        Request, largest_lifo_request, malloc_free, reuses_last_freed,
    };
    assert!(reuses_last_freed(Request::Malloc, 256));
    assert!(reuses_last_freed(Request::Malloc, 1032));
    assert!(!reuses_last_freed(Request::Malloc, 1040));
    assert!(!reuses_last_freed(Request::Malloc, 2048));
    assert_eq!(largest_lifo_request(256, 4096), Some(1032));
    assert_eq!(malloc_free::<0>(1040), 3.0);
}

/// S3: `vec![0.0; n]` is a `calloc`, and glibc's `calloc` before 2.41 never looks in the
/// per-thread cache: at sizes where a `malloc`'s freed block comes back last in, first out, a
/// `calloc`'s does not. From 2.41 on, both do.
#[test]
#[cfg(target_env = "gnu")]
#[cfg_attr(miri, ignore = "Miri has its own allocator, not glibc's")]
fn s3_calloc_skips_the_per_thread_cache_before_glibc_2_41() {
    use stack_buffer_chapter::heap::{
        Request, calloc_free, calloc_uses_the_thread_cache, glibc_version, reuses_last_freed,
    };
    let version = glibc_version().expect("getconf GNU_LIBC_VERSION");
    let cached = calloc_uses_the_thread_cache(version);
    for bytes in [256, 1024, 1032] {
        assert!(
            reuses_last_freed(Request::Malloc, bytes),
            "malloc, {bytes} B"
        );
        assert_eq!(
            reuses_last_freed(Request::Calloc, bytes),
            cached,
            "calloc, {bytes} B, glibc {version:?}"
        );
    }
    assert_eq!(calloc_free::<1>(1032), 3.0);
}

/// S6: glibc's block for a request is the request plus an 8-byte size field, rounded up to a
/// multiple of 16, and at least 32 bytes: what `vec![0.0; 2N]` occupies beyond what it asks.
#[test]
#[cfg(all(target_env = "gnu", not(miri)))]
fn s6_glibc_rounds_a_request_up_to_a_16_byte_chunk_with_an_8_byte_header() {
    use stack_buffer_chapter::heap::glibc_chunk_bytes;
    let chunks: Vec<Option<usize>> = [16, 24, 25, 128, 1032, 2048, 8192]
        .into_iter()
        .map(glibc_chunk_bytes)
        .collect();
    let expected = [32, 32, 48, 144, 1040, 2064, 8208].map(Some);
    assert_eq!(chunks, expected);
    assert_eq!(glibc_chunk_bytes(0), None);
}

/// Compiles `tests/fixtures/zeroing.rs` with `rustc -O`, once per test run (two tests read it).
fn compile_the_zeroing_fixture() -> std::path::PathBuf {
    use std::path::{Path, PathBuf};
    static BINARY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BINARY
        .get_or_init(|| {
            let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/zeroing.rs");
            let binary = Path::new(env!("CARGO_TARGET_TMPDIR")).join("s4-zeroing");
            let status = std::process::Command::new("rustc")
                .args([
                    "--edition=2024",
                    "-C",
                    "opt-level=3",
                    "-C",
                    "debuginfo=0",
                    "-o",
                ])
                .arg(&binary)
                .arg(&fixture)
                .status()
                .expect("rustc runs");
            assert!(status.success(), "the fixture compiles");
            binary
        })
        .clone()
}

/// S4: LLVM writes a zeroed stack array of up to 256 B as inline 16-byte stores and calls
/// `memset` from 264 B — its limit of 16 stores for an inline `memset` on x86-64 without AVX —
/// and enters an 8 KiB frame through stack probes, zeroed or not. Read from the machine code of
/// the workloads' own source (`src/kernel.rs`), compiled alone with the release profile's
/// `opt-level=3` by `tests/fixtures/zeroing.rs`.
#[test]
#[cfg(target_arch = "x86_64")]
#[cfg_attr(miri, ignore = "runs rustc and objdump")]
fn s4_llvm_zeroes_up_to_256_bytes_inline_and_calls_memset_above() {
    use stack_buffer_chapter::disasm::{Verdict, disassemble};
    let binary = compile_the_zeroing_fixture();
    let read = |function: &str| disassemble(&binary, &format!("zeroing::{function}")).unwrap();
    assert_eq!(
        read("zeroed_248b").verdict(),
        Verdict::InlineStores { bytes: 248 }
    );
    assert_eq!(
        read("zeroed_256b").verdict(),
        Verdict::InlineStores { bytes: 256 }
    );
    assert_eq!(read("zeroed_264b").verdict(), Verdict::MemsetCall);
    let zeroed_2k = read("zeroed_2k");
    assert_eq!(
        (zeroed_2k.verdict(), zeroed_2k.memset_bytes),
        (Verdict::MemsetCall, 2048)
    );
    assert_eq!(read("uninit_2k").verdict(), Verdict::NoZeroing);
    let zeroed_8k = read("zeroed_8k");
    assert_eq!(
        (zeroed_8k.verdict(), zeroed_8k.memset_bytes),
        (Verdict::MemsetCall, 8192)
    );
    let uninit_8k = read("uninit_8k");
    assert_eq!(uninit_8k.verdict(), Verdict::NoZeroing);
    for (name, d) in [("zeroed_8k", zeroed_8k), ("uninit_8k", uninit_8k)] {
        assert!((1..=2).contains(&d.stack_probes), "{name}: {d:?}");
        assert_eq!(d.zero_stores, 0, "{name}: a probe is not a zeroing");
    }
    assert_eq!(zeroed_2k.stack_probes, 0, "a frame under a page needs none");
}

/// S1 (and every timed table): the copy mark keeps a function's two copies apart. Compiled with
/// optimisations, two copies of one function generic over `COPY` are two functions at two
/// addresses when they carry the mark, and LLVM folds them into one without it — which would
/// make a twin call the very code its original calls.
#[test]
#[cfg(target_arch = "x86_64")]
#[cfg_attr(miri, ignore = "runs rustc and nm")]
fn s1_every_measured_function_has_two_copies_at_two_addresses() {
    use stack_buffer_chapter::disasm::symbol_ranges;
    let binary = compile_the_zeroing_fixture();
    let output = std::process::Command::new("nm")
        .args(["-C", "-S", "--defined-only"])
        .arg(&binary)
        .output()
        .expect("nm runs");
    let symbols = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        symbol_ranges(&symbols, "zeroing::marked").len(),
        2,
        "{symbols}"
    );
    assert_eq!(
        symbol_ranges(&symbols, "zeroing::unmarked").len(),
        1,
        "{symbols}"
    );
}

proptest! {
    #![proptest_config(if cfg!(miri) {
        ProptestConfig { cases: 3, failure_persistence: None, ..ProptestConfig::default() }
    } else {
        ProptestConfig::with_cases(200)
    })]

    /// S7, S11: every strategy packs the same order into the same number of boxes.
    #[test]
    fn all_strategies_return_the_same_box_count(
        items in proptest::collection::vec(
            (1.0f64..70.0, 1.0f64..70.0, 0.1f64..70.0, 0.0f64..30.0),
            0..200,
        ),
        capacity in 30.0f64..100.0,
    ) {
        let order: Vec<Item> = items.into_iter().map(|(l, w, h, kg)| item(l, w, h, kg)).collect();
        let heap = pack_boxes(&order, capacity, AIR_FACTOR, Scratch::Heap);
        for strategy in ALL {
            let got = pack_boxes(&order, capacity, AIR_FACTOR, strategy);
            match (strategy, &heap) {
                (Scratch::Stack | Scratch::StackUninit, _) if order.len() > MAX_STACK_ITEMS => {
                    prop_assert!(matches!(got, Err(PackError::TooManyForStack { .. })), "{:?}", got);
                }
                _ => prop_assert_eq!(&got, &heap, "{:?}", strategy),
            }
        }
        if let Ok(boxes) = heap {
            prop_assert!(boxes <= order.len());
        }
    }
}

/// The committed snapshot of this chapter, which `cargo xtask report --check` keeps equal to
/// what the release experiments binary prints: a pin that reads it checks the published figure,
/// not a re-derivation in the test profile.
fn published() -> lab::report::Snapshot {
    lab::report::Snapshot::published("stack-buffer").unwrap()
}

/// A published cell of a counted table, by its row's first cell and its column's heading.
fn published_cell(snapshot: &lab::report::Snapshot, id: &str, row: &str, column: &str) -> Cell {
    snapshot.published_cell(id, row, column).unwrap().clone()
}

/// S6, as published: `vec![0.0; 2N]` and `pack_boxes` with `Heap` ask for exactly 16 bytes per
/// item at every size, while the fixed-cap stack (where it fits), the warm pool and the hybrid
/// ask for nothing.
#[test]
#[cfg_attr(
    miri,
    ignore = "reads the committed snapshot; Miri isolates the file system"
)]
fn s6_published_heap_rows_ask_16_bytes_per_item_and_stack_pool_and_hybrid_nothing() {
    let snapshot = published();
    for n in workloads::S6_ITEMS {
        let row = Cell::count(n).render();
        let cell = |column: &str| published_cell(&snapshot, "S6", &row, column);
        let heap = Cell::Bytes(16 * n as u64);
        assert_eq!(cell("heap `vec![0.0; 2N]`: bytes requested"), heap, "{n}");
        assert_eq!(cell("`pack_boxes`, Heap"), heap, "{n}");
        assert_eq!(cell("pool (warm)"), Cell::Bytes(0), "{n}");
        assert_eq!(cell("`pack_boxes`, Hybrid"), Cell::Bytes(0), "{n}");
        let stack = if n <= MAX_STACK_ITEMS {
            Cell::Bytes(0)
        } else {
            Cell::text("does not fit")
        };
        assert_eq!(cell("fixed-cap stack"), stack, "{n}");
    }
}

/// S12, as published: each `SmallVec` makes no allocation while 2N values fit inline and one
/// of exactly 2N values above; the hybrid, over a warm pool, none at any size.
#[test]
#[cfg_attr(
    miri,
    ignore = "reads the committed snapshot; Miri isolates the file system"
)]
fn s12_published_smallvecs_allocate_once_above_their_inline_capacity_and_the_hybrid_never() {
    let snapshot = published();
    for n in workloads::S12_ITEMS {
        let row = Cell::count(n).render();
        let cell = |column: &str| published_cell(&snapshot, "S12", &row, column);
        for (name, inline) in [
            ("`SmallVec<[f64; 256]>`", 256),
            ("`SmallVec<[f64; 32]>`", 32),
        ] {
            let spilled = u64::from(2 * n > inline);
            assert_eq!(
                cell(&format!("{name}: allocations")),
                Cell::Count(spilled),
                "{name}, {n}"
            );
            assert_eq!(
                cell(&format!("{name}: bytes")),
                Cell::Bytes(spilled * 16 * n as u64),
                "{name}, {n}"
            );
        }
        assert_eq!(
            cell("hybrid, warm pool: allocations"),
            Cell::Count(0),
            "{n}"
        );
    }
}

/// S12-size, as published: a `Vec` and a pool guard are a few words, a `SmallVec` its inline
/// array plus a length and a tag.
#[test]
#[cfg_attr(
    miri,
    ignore = "reads the committed snapshot; Miri isolates the file system"
)]
fn s12_size_published_a_smallvec_is_its_inline_array_and_two_words() {
    let snapshot = published();
    let sizes = [
        ("`Vec<f64>`", 24),
        ("`pool::Rented<f64>` (a pool guard)", 32),
        ("`[f64; 32]`", 256),
        ("`SmallVec<[f64; 32]>`", 272),
        ("`[f64; 256]`", 2048),
        ("`SmallVec<[f64; 256]>`", 2064),
    ];
    for (value, bytes) in sizes {
        assert_eq!(
            published_cell(&snapshot, "S12-size", value, "`size_of`"),
            Cell::Bytes(bytes),
            "{value}"
        );
    }
}
