//! Grades lab 1: `cargo xtask lab 1` runs this binary (see `grading`).

#[global_allocator]
static ALLOC: grading::CountingAlloc = grading::CountingAlloc::new();

#[cfg(feature = "solution")]
#[path = "../../../../../xtask/lab-solutions/01-measure.rs"]
mod subject;
#[cfg(not(feature = "solution"))]
use lab_01_measure as subject;

const VALUES: u64 = 1_000;

fn main() {
    let values: Vec<u64> = (0..VALUES).collect();
    if let Some(n) = grading::instructions_mode() {
        std::hint::black_box(subject::measured_loop(std::hint::black_box(&values), n));
        return;
    }
    let expected = lab_01_measure::checksum(&values);
    let got = subject::measured_loop(&values, 10);
    grading::correct(if got == expected {
        Ok(())
    } else {
        Err(format!(
            "measured_loop returned {got}, the checksum is {expected}"
        ))
    });
}
