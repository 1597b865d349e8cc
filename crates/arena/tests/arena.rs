//! Chapter 4's counted claims, exact.

use allocator_api2::alloc::Global;
use arena::allocators::{Counting, NeverInPlace, build_nodes, push_in};
use arena::*;
use lab::count;

#[global_allocator]
static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();

/// Miri interprets every instruction: N is scaled down there; the claims that depend on
/// N = 200,000 are checked natively.
const NN: usize = if cfg!(miri) { 2_000 } else { N };

#[test]
fn box_per_item_is_n_allocations_and_n_deallocations_plus_the_vec_of_pointers() {
    let (_, s) = count(|| box_per_item(NN));
    let n = NN as u64;
    assert_eq!((s.allocs, s.deallocs, s.reallocs), (n + 1, n + 1, 0));
    assert_eq!(
        s.bytes_allocated,
        n * 16 + n * 8,
        "16-byte nodes and 8-byte pointers"
    );
}

#[test]
#[cfg_attr(miri, ignore = "the chunk counts are for N = 200,000")]
fn bump_per_item_is_at_most_20_chunks_and_1_with_capacity() {
    let (_, s) = count(|| bump_per_item(N));
    assert!(s.allocs <= 20, "{} chunks", s.allocs);
    assert_eq!(s.allocs, s.deallocs);
    let (_, s) = count(|| bump_with_capacity(N));
    assert_eq!((s.allocs, s.reallocs, s.deallocs), (1, 0, 1));
}

#[test]
fn reserving_once_is_one_allocation_and_no_reallocation() {
    for f in [push_reserved as fn(usize) -> u64, one_allocation] {
        let (_, s) = count(|| f(NN));
        assert_eq!((s.allocs, s.reallocs, s.deallocs), (1, 0, 1));
        assert_eq!(s.bytes_allocated, NN as u64 * 16);
    }
}

#[test]
#[cfg_attr(miri, ignore = "the growth count is for N = 200,000")]
fn pushes_grow_geometrically_between_10_and_40_reallocations() {
    let (_, s) = count(|| push_no_reserve(N));
    assert_eq!((s.allocs, s.reallocs), (1, 16));
    assert!(s.reallocs > 10 && s.reallocs < 40);
    assert_eq!(s.grown_in_place + s.moved, s.reallocs);
}

#[test]
fn never_in_place_moves_every_growth() {
    let never = Counting::new(NeverInPlace);
    push_in(NN, &never);
    let global = Counting::new(Global);
    push_in(NN, &global);
    let (n, g) = (never.calls(), global.calls());
    assert_eq!(n.grown_in_place, 0);
    assert_eq!(
        n.moved,
        g.grown_in_place + g.moved,
        "same code, same number of growths"
    );
    assert_eq!((n.allocs, n.frees), (1, 1));
}

#[test]
fn one_function_runs_with_any_allocator() {
    let bump = bumpalo::Bump::new();
    let in_bump = build_nodes(100, &bump);
    let global = build_nodes(100, Global);
    assert_eq!(in_bump.as_slice(), global.as_slice());
    assert!(bump.allocated_bytes() >= 100 * 16);
}

#[test]
fn every_workload_computes_the_same_checksum() {
    let expected = push_no_reserve(NN);
    for f in [
        push_reserved as fn(usize) -> u64,
        one_allocation,
        box_per_item,
        bump_per_item,
        bump_with_capacity,
        typed_arena_per_item,
        pool_per_item,
    ] {
        assert_eq!(f(NN), expected);
    }
}

#[test]
fn under_churn_the_pool_holds_a_tenth_of_the_arena_or_less() {
    let steps = if cfg!(miri) { 2_000 } else { CHURN_STEPS };
    let live = if cfg!(miri) { 100 } else { CHURN_LIVE };
    let (arena, a) = count(|| churn_arena(live, steps));
    let (pool, p) = count(|| churn_pool(live, steps));
    assert_eq!(
        arena.checksum, pool.checksum,
        "the same objects were created and freed"
    );
    assert!(
        p.peak_live_bytes * 10 <= a.peak_live_bytes,
        "{} vs {}",
        p.peak_live_bytes,
        a.peak_live_bytes
    );
    assert_eq!(p.allocs, 2, "the slab and the key vector, never more");
}

#[test]
fn bumpalo_runs_no_destructors_typed_arena_and_bumpalo_box_do() {
    assert_eq!(drops_bump(1000), 0);
    assert_eq!(drops_typed_arena(1000), 1000);
    assert_eq!(drops_bump_box(1000), 1000);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "leaks on purpose; Miri's leak check rightly reports it"
)]
fn a_vec_inside_a_bump_leaks_its_buffer() {
    let (bytes, s) = count(|| arena_value_owning_a_vec(1000));
    assert_eq!(bytes, 8000);
    assert_eq!(s.bytes_allocated - s.bytes_freed, 8000);
}
