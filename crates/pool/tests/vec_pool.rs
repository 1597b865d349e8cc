//! `VecPool`, the safe-Rust answer to stale data, pinned: a vector is handed out empty, steady
//! state allocates nothing, elements that own something are dropped on return, and the bounds
//! hold.

use std::sync::Arc;

use hotpath_pool::VecPool;
use lab::count;

mod common;
use common::scaled;

/// The chapter's first order line: 41 bytes of UTF-8.
const FIRST_LINE: &str = "1042|ต้มยำกุ้ง|2|18000\n";

#[test]
fn rent_vec_rounds_the_capacity_up_to_a_power_of_two_of_at_least_16() {
    let vecs = VecPool::<u32>::new(1 << 12, 4);
    for (request, capacity) in [(1, 16), (16, 16), (17, 32), (1000, 1024), (4096, 4096)] {
        let v = vecs.rent_vec(request);
        assert_eq!(
            (v.len(), v.capacity()),
            (0, capacity),
            "rent_vec({request})"
        );
    }
    let none = vecs.rent_vec(0);
    assert_eq!(none.capacity(), 0);
    let above = vecs.rent_vec(5000);
    assert_eq!(above.capacity(), 5000);
}

#[test]
fn steady_state_vec_rents_allocate_0_bytes() {
    let vecs = VecPool::<u8>::new(1 << 16, 4);
    let line = |vecs: &VecPool<u8>| {
        let mut v = vecs.rent_vec(128);
        v.extend_from_slice(FIRST_LINE.as_bytes());
        v.len()
    };
    line(&vecs); // warm-up: the vector and its class's stack
    let cycles = scaled(10_000, 100);
    let (total, stats) = count(|| (0..cycles).map(|_| line(&vecs)).sum::<usize>());
    assert_eq!(total, cycles * FIRST_LINE.len());
    assert_eq!((stats.allocs, stats.deallocs), (0, 0));
    let s = vecs.stats();
    assert_eq!(
        (s.rents, s.allocations, s.returns),
        (cycles as u64 + 1, 1, cycles as u64 + 1)
    );
}

/// A vector that grew while rented goes back into the class of its new capacity, where a
/// larger request finds it.
#[test]
fn a_vec_that_grew_goes_back_to_the_class_of_its_new_capacity() {
    let vecs = VecPool::<u8>::new(1 << 16, 4);
    let mut v = vecs.rent_vec(16);
    v.extend(std::iter::repeat_n(7, 100)); // grows past 16
    let (capacity, addr) = (v.capacity(), v.as_ptr());
    assert!(capacity >= 100);
    drop(v);
    let (again, stats) = count(|| vecs.rent_vec(64));
    assert_eq!(stats.allocs, 0);
    assert_eq!(
        (again.as_ptr(), again.capacity(), again.len()),
        (addr, capacity, 0)
    );
}

/// Unlike `BufferPool`, the elements may own something: they are dropped when the vector comes
/// back, so a vector in the pool keeps nothing alive (in .NET a pooled array of references
/// keeps its objects alive until cleared).
#[test]
fn elements_that_own_something_are_dropped_when_the_vec_comes_back() {
    let vecs = VecPool::<Arc<String>>::new(1 << 10, 4);
    let payload = Arc::new(String::from("order 1042"));
    let mut v = vecs.rent_vec(16);
    v.push(Arc::clone(&payload));
    assert_eq!(Arc::strong_count(&payload), 2);
    drop(v);
    assert_eq!(
        Arc::strong_count(&payload),
        1,
        "nothing in the pool holds it"
    );
    assert_eq!(vecs.stats().retained_buffers, 1);
}

#[test]
fn the_vec_pool_keeps_at_most_max_per_bucket_per_class_and_trim_frees_them() {
    let vecs = VecPool::<u8>::new(1 << 10, 2);
    let held: Vec<_> = (0..5).map(|_| vecs.rent_vec(100)).collect();
    drop(held);
    let s = vecs.stats();
    assert_eq!(
        (s.retained_buffers, s.retained_bytes, s.discarded),
        (2, 256, 3)
    );
    let oversize = vecs.rent_vec(5000);
    drop(oversize);
    let s = vecs.stats();
    assert_eq!((s.oversize, s.discarded), (1, 4));
    assert_eq!(vecs.trim(), 256);
    assert_eq!(vecs.stats().retained_buffers, 0);
}

/// The guard derefs mutably to the `Vec` itself: a vector swapped in is kept when the guard is
/// dropped, as if it had been lent, and a vector whose storage was taken out (`mem::take`)
/// still counts as returned — safe, and what the docs say the counts then mean.
#[test]
fn a_vec_swapped_into_the_guard_is_kept_and_a_taken_one_counts_as_returned() {
    let vecs = VecPool::<u8>::new(1 << 10, 4);
    let mut guard = vecs.rent_vec(64);
    let foreign: Vec<u8> = Vec::with_capacity(256);
    let foreign_addr = foreign.as_ptr();
    let lent = std::mem::replace(&mut *guard, foreign);
    assert_eq!(lent.capacity(), 64, "the renter owns the lent vector now");
    drop(guard);
    let s = vecs.stats();
    assert_eq!((s.returns, s.outstanding(), s.retained_bytes), (1, 0, 256));
    let again = vecs.rent_vec(200);
    assert_eq!(
        again.as_ptr(),
        foreign_addr,
        "the swapped-in vector, kept by capacity"
    );
    drop(again);

    let mut guard = vecs.rent_vec(16);
    let taken = std::mem::take(&mut *guard);
    drop(guard);
    let s = vecs.stats();
    assert_eq!((s.rents, s.returns, s.outstanding()), (3, 3, 0));
    assert_eq!(taken.capacity(), 16, "its storage left with the renter");
}

#[test]
fn an_impossible_max_len_for_a_vec_pool_is_a_clear_error() {
    let err = VecPool::<u64>::try_new(usize::MAX / 2, 4).unwrap_err();
    assert!(err.to_string().contains("max_len"), "{err}");
}
