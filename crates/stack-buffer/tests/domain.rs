//! The billed-weight domain: the billing rule, the minimum-cubage substitution, and errors for
//! bad input from every scratch strategy.

use stack_buffer::{AIR_FACTOR, BOX_KG, Item, PackError, Scratch, billed_weight_kg, pack_boxes};

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
        for strategy in Scratch::ALL {
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

/// A buffer you own and pass down packs like every strategy, is reported the same errors, and
/// keeps what it grew to: the next call of the same size does not grow it again.
#[test]
fn a_reused_buffer_packs_like_every_strategy_and_keeps_its_capacity() {
    let mut scratch = Vec::new();
    for n in [0, 1, 16, 128, 129, 300] {
        let order = stack_buffer::generate_order(n, 11);
        let heap = pack_boxes(&order, BOX_KG, AIR_FACTOR, Scratch::Heap);
        assert_eq!(
            stack_buffer::pack_boxes_reusing(&mut scratch, &order, BOX_KG, AIR_FACTOR),
            heap,
            "{n}"
        );
        let (capacity, ptr) = (scratch.capacity(), scratch.as_ptr());
        assert!(capacity >= 2 * n, "{n}");
        stack_buffer::pack_boxes_reusing(&mut scratch, &order, BOX_KG, AIR_FACTOR).unwrap();
        assert_eq!(
            (scratch.capacity(), scratch.as_ptr()),
            (capacity, ptr),
            "{n}"
        );
    }
    let bad = item(20.0, 20.0, 20.0, 41.0);
    assert_eq!(
        stack_buffer::pack_boxes_reusing(&mut scratch, &[bad], BOX_KG, AIR_FACTOR)
            .unwrap_err()
            .to_string(),
        "item 0: billed weight 41 kg exceeds the box capacity of 40 kg"
    );
}
