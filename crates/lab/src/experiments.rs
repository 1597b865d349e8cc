//! Chapter 1's experiments, run by `lab-experiments` under `cargo xtask report`.

use crate::report::{Experiment, Settings};
use crate::table::{Cell, Kind, Table};
use crate::workloads;
use crate::{AllocStats, count};

/// Every experiment of chapter 1, in the order the chapter presents them.
pub const EXPERIMENTS: &[Experiment] = &[Experiment {
    id: "M1",
    kind: Kind::Count,
    run: m1_counting_allocator,
}];

/// The M1 rows: a label and the counted cost of one call.
pub fn m1_rows() -> Vec<(&'static str, AllocStats)> {
    vec![
        ("`Box::new(0u64)`", count(workloads::box_u64).1),
        (
            "`Vec::<u8>::with_capacity(128)`",
            count(workloads::vec_with_capacity_128).1,
        ),
        (
            "`String::from(\"ต้มยำกุ้ง\")`",
            count(workloads::thai_string).1,
        ),
        (
            "200,000 × `Vec::<u64>::push`, no reserve",
            count(|| workloads::push_u64(workloads::PUSHES)).1,
        ),
        (
            "`format!(\"{order_id}|{item}|{qty}|{unit_price}\\n\")`",
            count(workloads::format_order_line).1,
        ),
    ]
}

fn m1_counting_allocator(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "M1",
        Kind::Count,
        "What familiar calls cost, counted by `lab::CountingAlloc` (one call, value kept alive)",
        &[
            "call",
            "allocations",
            "reallocations",
            "deallocations",
            "bytes allocated",
            "peak live bytes",
        ],
    );
    for (label, stats) in m1_rows() {
        table.row(vec![
            Cell::text(label),
            Cell::Count(stats.allocs),
            Cell::Count(stats.reallocs),
            Cell::Count(stats.deallocs),
            Cell::Bytes(stats.bytes_allocated),
            Cell::Bytes(stats.peak_live_bytes),
        ]);
    }
    table.note(
        "Counts are for the calling thread only and exact: the same binary gives the same numbers on every run.",
    );
    table.note(
        "A reallocation is one call, not an allocation plus a free; its growth is added to the bytes allocated, so the 200,000-push row ends at the final capacity.",
    );
    vec![table]
}
