//! Grades lab 2: `cargo xtask lab 2` runs this binary (see `grading`).

#[global_allocator]
static ALLOC: grading::CountingAlloc = grading::CountingAlloc::new();

#[cfg(feature = "solution")]
#[path = "../../../../../xtask/lab-solutions/02-stack-buffer.rs"]
mod subject;
#[cfg(not(feature = "solution"))]
use lab_02_stack_buffer as subject;

use stack_buffer::{AIR_FACTOR, BOX_KG, Scratch, generate_order, pack_boxes};

fn main() {
    let mut wrong = Vec::new();
    for n in [0, 1, 7, 64, 255, 256, 257, 1_000] {
        for seed in 0..4 {
            let order = generate_order(n, seed);
            let expected = pack_boxes(&order, BOX_KG, AIR_FACTOR, Scratch::Heap)
                .expect("the generated orders are valid");
            let got = subject::pack(&order, BOX_KG, AIR_FACTOR);
            if got != expected && wrong.len() < 3 {
                wrong.push(format!(
                    "{n} items (seed {seed}): {got} boxes, the reference packs {expected}"
                ));
            }
        }
    }
    grading::correct(if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("; "))
    });
    for n in [16, 256] {
        let order = generate_order(n, 9);
        subject::pack(&order, BOX_KG, AIR_FACTOR); // warm: a first call may set up what it keeps
        let (_, calls) = grading::allocating_calls(|| subject::pack(&order, BOX_KG, AIR_FACTOR));
        grading::figure(&format!("allocations-{n}"), calls as f64);
    }
}
