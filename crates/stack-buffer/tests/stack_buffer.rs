//! Chapter 2's claims, pinned: the billing rule, agreement of every scratch strategy, the
//! boundary at 128 items, the counted allocations, the stack probes, and errors for bad input.

use lab::count;
use proptest::prelude::*;
use stack_buffer::{
    AIR_FACTOR, BOX_KG, Item, MAX_STACK_ITEMS, PackError, Scratch, billed_weight_kg,
    generate_order, pack_boxes, probe, scratch_pool, workloads,
};

#[global_allocator]
static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();

const ALL: [Scratch; 5] = [
    Scratch::Heap,
    Scratch::Pool,
    Scratch::Stack,
    Scratch::StackUninit,
    Scratch::Hybrid,
];

fn item(l: f64, w: f64, h: f64, kg: f64) -> Item {
    Item {
        length_cm: l,
        width_cm: w,
        height_cm: h,
        weight_kg: kg,
    }
}

#[test]
fn billed_weight_is_the_actual_weight_when_heavier_than_the_volume() {
    // 30 × 20 × 10 = 6,000 cm³ / 6,000 = 1 kg < 2 kg.
    assert_eq!(
        billed_weight_kg(&item(30.0, 20.0, 10.0, 2.0), AIR_FACTOR),
        2.0
    );
    // 50 × 40 × 30 = 60,000 cm³ / 6,000 = 10 kg > 2 kg.
    assert_eq!(
        billed_weight_kg(&item(50.0, 40.0, 30.0, 2.0), AIR_FACTOR),
        10.0
    );
    // The factor is a parameter: 5,000 gives 12 kg.
    assert_eq!(billed_weight_kg(&item(50.0, 40.0, 30.0, 2.0), 5000.0), 12.0);
}

#[test]
fn minimum_cubage_replaces_the_whole_set_of_dimensions() {
    // 5 × 30 × 30: one axis below 10 cm, so the volume is 13 × 8 × 0.4 = 41.6 cm³, not
    // 10 × 30 × 30 (a per-axis floor) and not 5 × 30 × 30.
    let flat = item(5.0, 30.0, 30.0, 0.0);
    assert_eq!(flat.billed_dimensions_cm(), [13.0, 8.0, 0.4]);
    assert_eq!(
        billed_weight_kg(&flat, AIR_FACTOR),
        13.0 * 8.0 * 0.4 / 6000.0
    );
    // Exactly 10 cm is not below 10 cm.
    assert_eq!(
        item(10.0, 30.0, 30.0, 0.0).billed_dimensions_cm(),
        [10.0, 30.0, 30.0]
    );
}

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

#[test]
fn every_strategy_agrees_at_127_128_and_129_items() {
    for n in [127, 128, 129] {
        let order = generate_order(n, n as u64);
        let heap = pack_boxes(&order, BOX_KG, AIR_FACTOR, Scratch::Heap).unwrap();
        assert!(heap > 0);
        for strategy in [Scratch::Pool, Scratch::Hybrid] {
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

#[test]
fn hybrid_at_129_items_rents_from_the_pool_and_at_128_does_not() {
    let pool = scratch_pool();
    let rents = || pool.stats().rents;
    // Other tests rent from the same pool on other threads: count this thread's effect only
    // through a difference that is at least one, and the stack path through allocations.
    let before = rents();
    pack_boxes(&generate_order(129, 3), BOX_KG, AIR_FACTOR, Scratch::Hybrid).unwrap();
    assert!(rents() > before);
    let (_, stats) =
        count(|| pack_boxes(&generate_order(128, 3), BOX_KG, AIR_FACTOR, Scratch::Hybrid).unwrap());
    let order_bytes = (128 * std::mem::size_of::<Item>()) as u64;
    assert_eq!(
        stats.bytes_allocated, order_bytes,
        "only the generated order itself"
    );
}

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

#[test]
fn the_pool_strategy_allocates_nothing_once_warm() {
    let order = generate_order(300, 9);
    pack_boxes(&order, BOX_KG, AIR_FACTOR, Scratch::Pool).unwrap();
    let (_, stats) = count(|| pack_boxes(&order, BOX_KG, AIR_FACTOR, Scratch::Pool));
    assert_eq!(stats.bytes_allocated, 0);
}

#[test]
fn invalid_items_are_errors_naming_the_item_never_a_box_count() {
    let good = item(20.0, 20.0, 20.0, 1.0);
    let cases = [
        (
            item(-1.0, 20.0, 20.0, 1.0),
            "item 1: length_cm must be finite and greater than 0",
        ),
        (
            item(20.0, 0.0, 20.0, 1.0),
            "item 1: width_cm must be finite and greater than 0",
        ),
        (item(20.0, 20.0, f64::NAN, 1.0), "item 1: height_cm is NaN"),
        (
            item(20.0, 20.0, f64::INFINITY, 1.0),
            "item 1: height_cm must be finite and greater than 0",
        ),
        (
            item(20.0, 20.0, 20.0, -2.0),
            "item 1: weight_kg must be finite and not negative",
        ),
        (
            item(20.0, 20.0, 20.0, 41.0),
            "item 1: billed weight 41 kg exceeds the box capacity of 40 kg",
        ),
    ];
    for (bad, message) in cases {
        for strategy in ALL {
            let err = pack_boxes(&[good, bad], BOX_KG, AIR_FACTOR, strategy).unwrap_err();
            assert_eq!(err.to_string(), message, "{strategy:?}");
        }
    }
    assert!(matches!(
        pack_boxes(&[good], f64::NAN, AIR_FACTOR, Scratch::Stack),
        Err(PackError::InvalidCapacity(c)) if c.is_nan()
    ));
    assert!(matches!(
        pack_boxes(&[good], BOX_KG, 0.0, Scratch::Heap),
        Err(PackError::InvalidFactor(0.0))
    ));
    assert_eq!(pack_boxes(&[], BOX_KG, AIR_FACTOR, Scratch::Stack), Ok(0));
}

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

#[test]
#[cfg_attr(
    miri,
    ignore = "slot reuse is a codegen fact, not language semantics: Miri gives every local a fresh allocation"
)]
fn an_array_in_a_loop_reuses_one_slot_and_recursion_accumulates() {
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

#[test]
fn the_s3_workloads_touch_what_they_promise() {
    for (_, fns) in workloads::S3 {
        for (name, f) in fns {
            assert_eq!(f(), 3.0, "{name}");
        }
    }
    let mut existing = vec![7.0; 1024];
    assert_eq!(workloads::memset_existing(&mut existing), 3.0);
    assert!(existing[1..1023].iter().all(|&x| x == 0.0));
    let (_, heap) = count(|| workloads::s1_heap(8));
    assert_eq!(heap.bytes_allocated, 16 * 8);
    let (_, stack) = count(|| workloads::s1_stack(8));
    assert_eq!(stack.bytes_allocated, 0);
}

proptest! {
    #![proptest_config(if cfg!(miri) {
        ProptestConfig { cases: 3, failure_persistence: None, ..ProptestConfig::default() }
    } else {
        ProptestConfig::with_cases(200)
    })]

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

/// The deliberately wrong variant: run only by `cargo +nightly miri test -p stack-buffer
/// --features deliberate-ub -- miri_catches`, which must fail with Miri's "uninitialized"
/// report (CI checks that it does). Natively it is undefined behaviour, so it never runs there.
#[cfg(all(feature = "deliberate-ub", miri))]
#[test]
fn miri_catches_the_uninitialised_read() {
    let order = generate_order(4, 1);
    let _ = stack_buffer::pack_uninit_wrong(&order, BOX_KG, AIR_FACTOR);
}
