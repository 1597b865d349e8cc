//! Grades lab 5: `cargo xtask lab 5` runs this binary (see `grading`).

#[global_allocator]
static ALLOC: grading::CountingAlloc = grading::CountingAlloc::new();

#[cfg(feature = "solution")]
#[path = "../../../../../xtask/lab-solutions/05-receipt.rs"]
mod subject;
#[cfg(not(feature = "solution"))]
use lab_05_receipt as subject;

const LINES: usize = 10_000;

fn input(lines: usize) -> Vec<u8> {
    let items = [
        "Green curry",
        "Pad thai",
        "ข้าวผัดกุ้ง",
        "Mango sticky rice",
        "Tea",
    ];
    let mut text = String::new();
    for i in 0..lines {
        text.push_str(&format!(
            "{}|{}|{}|{}\n",
            30_000 + i / 4,
            items[i % items.len()],
            1 + i % 9,
            50 + (i * 7919) % 99_950
        ));
    }
    text.into_bytes()
}

fn main() {
    let input = input(LINES);
    let mut out = Vec::new();
    if let Some(n) = grading::instructions_mode() {
        for _ in 0..n {
            out.clear();
            subject::receipt(std::hint::black_box(&input), &mut out);
            std::hint::black_box(&out);
        }
        return;
    }
    let mut expected = Vec::new();
    lab_05_receipt::receipt(&input, &mut expected);
    subject::receipt(&input, &mut out);
    grading::correct(if out == expected {
        Ok(())
    } else {
        let line = out
            .split(|&b| b == b'\n')
            .zip(expected.split(|&b| b == b'\n'))
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        Err(format!(
            "the receipt differs from the reference from its line {}",
            line + 1
        ))
    });
    out.clear();
    let (_, calls) = grading::allocating_calls(|| subject::receipt(&input, &mut out));
    grading::figure("allocations-per-line", calls as f64 / LINES as f64);
}
