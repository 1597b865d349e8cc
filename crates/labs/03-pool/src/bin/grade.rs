//! Grades lab 3: `cargo xtask lab 3` runs this binary (see `grading`).

use std::collections::VecDeque;

#[global_allocator]
static ALLOC: grading::CountingAlloc = grading::CountingAlloc::new();

#[cfg(feature = "solution")]
#[path = "../../../../../xtask/lab-solutions/03-pool.rs"]
mod subject;
#[cfg(not(feature = "solution"))]
use lab_03_pool as subject;

use lab_03_pool::OrderLine;

/// Messages in flight: the sender's queue.
const IN_FLIGHT: usize = 64;

fn lines(n: usize) -> Vec<OrderLine> {
    let names = [
        "Green curry",
        "Pad thai",
        "ข้าวผัด",
        "Mango sticky rice with extra coconut cream",
    ];
    (0..n)
        .map(|i| OrderLine {
            order_id: 1_000_000 + (i / 3) as u64,
            item: names[i % names.len()].repeat(1 + i % 5),
            quantity: 1 + (i % 7) as u32,
            unit_price_cents: 99 + (i as u64 * 7919) % 250_000,
        })
        .collect()
}

type Queue = VecDeque<(usize, subject::Message)>;

/// Encodes every line, keeping up to `IN_FLIGHT` messages alive in `queue` (empty, with room
/// for them); calls `sent` on each message as it leaves the queue.
fn send_all(lines: &[OrderLine], queue: &mut Queue, mut sent: impl FnMut(&OrderLine, &[u8])) {
    for (i, line) in lines.iter().enumerate() {
        queue.push_back((i, subject::encode(line)));
        if queue.len() > IN_FLIGHT {
            let (j, message) = queue.pop_front().expect("not empty");
            sent(&lines[j], message.as_ref());
        }
    }
    for (j, message) in queue.drain(..) {
        sent(&lines[j], message.as_ref());
    }
}

fn main() {
    let all = lines(10_000);
    let mut queue = Queue::with_capacity(IN_FLIGHT + 1);
    if let Some(n) = grading::instructions_mode() {
        let batch = &all[..1_000];
        for _ in 0..n {
            send_all(batch, &mut queue, |_, m| {
                std::hint::black_box(m);
            });
        }
        return;
    }
    let mut wrong = None;
    send_all(&all, &mut queue, |line, message| {
        let expected = lab_03_pool::encode(line);
        if wrong.is_none() && message != expected.as_slice() {
            wrong = Some(format!(
                "line {}: got {:?}, expected {:?}",
                line.order_id,
                String::from_utf8_lossy(message),
                String::from_utf8_lossy(&expected)
            ));
        }
    });
    grading::correct(wrong.map_or(Ok(()), Err));
    // Warm, then count a second pass over the same lines.
    let (_, calls) = grading::allocating_calls(|| send_all(&all, &mut queue, |_, _| {}));
    grading::figure("allocations-per-line", calls as f64 / all.len() as f64);
}
