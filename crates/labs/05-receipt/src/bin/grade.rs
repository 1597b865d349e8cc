//! Grades lab 5: `cargo xtask lab 5` runs this binary (see `grading`).

#[global_allocator]
static ALLOC: grading::CountingAlloc = grading::CountingAlloc::new();

#[cfg(feature = "solution")]
#[path = "../../../../../xtask/lab-solutions/05-receipt.rs"]
mod subject;
#[cfg(not(feature = "solution"))]
use lab_05_receipt as subject;

const LINES: usize = 10_000;

/// The receipt as the lab states it, kept here so that a change to `receipt` in src/lib.rs
/// cannot change the expected answer.
fn reference(input: &[u8], out: &mut Vec<u8>) {
    let text = String::from_utf8(input.to_vec()).expect("UTF-8");
    for line in text.lines() {
        let fields: Vec<&str> = line.split('|').collect();
        let quantity: u64 = fields[2].parse().expect("a quantity");
        let price: u64 = fields[3].parse().expect("a price");
        let total = quantity * price;
        out.extend_from_slice(
            format!(
                "{:<24} {:>4} x {:>6}.{:02} {:>9}.{:02}\n",
                fields[1],
                quantity,
                price / 100,
                price % 100,
                total / 100,
                total % 100
            )
            .as_bytes(),
        );
    }
}

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
    reference(&input, &mut expected);
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
    grading::figure("allocations", calls as f64);
}
