//! Grades lab 4: `cargo xtask lab 4` runs this binary (see `grading`).

#[global_allocator]
static ALLOC: grading::CountingAlloc = grading::CountingAlloc::new();

#[cfg(feature = "solution")]
#[path = "../../../../../xtask/lab-solutions/04-arena.rs"]
mod subject;
#[cfg(not(feature = "solution"))]
use lab_04_arena as subject;

/// The seed's count: 200,000 allocations.
const NODES: usize = 200_000;

fn main() {
    let mut wrong = None;
    for n in [0, 1, 2, 3, 10, 1_000, NODES] {
        let expected = (n as u64) * (n as u64).saturating_sub(1) / 2;
        let got = subject::build_and_sum(n);
        if got != expected && wrong.is_none() {
            wrong = Some(format!(
                "{n} nodes: the sum is {expected}, build_and_sum returned {got}"
            ));
        }
    }
    grading::correct(wrong.map_or(Ok(()), Err));
    let (_, calls) = grading::allocating_calls(|| subject::build_and_sum(NODES));
    grading::figure("allocations", calls as f64);
}
