//! M1 under mimalloc (this package's tests turn on lab's `mimalloc` feature; not under Miri, which
//! cannot run C code): the program's calls are counted exactly as over the system allocator.
#![cfg(not(miri))]

use std::hint::black_box;

#[global_allocator]
static ALLOC: lab::CountingAlloc<lab::alloc::Mimalloc> =
    lab::CountingAlloc::wrapping(lab::alloc::Mimalloc);

/// M1: the M1 rows count the same under mimalloc as under glibc.
#[test]
fn m1_counts_are_the_same_under_mimalloc() {
    let (boxed, stats) = lab::count(|| Box::new(black_box(0u64)));
    assert_eq!((stats.allocs, stats.bytes_allocated), (1, 8));
    drop(boxed);
    let rows = lab_chapter::experiments::m1_rows();
    let push = rows
        .iter()
        .find(|(label, _)| label.starts_with("200,000"))
        .expect("the push row")
        .1;
    assert_eq!(
        (push.allocs, push.reallocs, push.bytes_allocated),
        (1, 16, 2_097_152)
    );
}
