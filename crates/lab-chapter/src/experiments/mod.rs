//! Chapter 1's experiments (M1, M3–M8), run by `lab-experiments` under `cargo xtask report`.
//!
//! One file per topic: this one (the declarations and M1, the counts), `noise.rs` (M3, M4, M5,
//! M8: twins, the floor, the publish rule, processes), `build_and_sink.rs` (M6, M7).

use std::hint::black_box;

use lab::report::{Experiment, Run};
use lab::table::{Cell, Claim, Columns, Kind, Table};
use lab::{AllocStats, count};

use crate::workloads;

mod build_and_sink;
mod noise;

/// Every experiment of chapter 1, in the order the chapter presents them.
pub(crate) const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        id: "M1",
        kind: Kind::Count,
        title: "What familiar calls cost, counted by `lab::CountingAlloc` (one call; its value kept alive, except in the second row)",
        function: lab::function!(m1_counting_allocator),
        pinned_by: &[
            "crates/lab-chapter/tests/familiar_calls.rs::m1_published_box_u64_row_is_one_allocation_of_8_bytes",
            "crates/lab-chapter/tests/familiar_calls.rs::m1_published_rows_are_the_counts_the_chapter_explains",
            "crates/lab-chapter/tests/familiar_calls.rs::m1_published_pin_catches_a_box_dropped_inside_count_that_a_test_profile_count_misses",
            "crates/lab-chapter/tests/m1_dhat.rs::m1_dhat_agrees_with_counting_alloc_on_every_row",
            "crates/lab-chapter/tests/familiar_calls.rs::box_u64_is_one_allocation_of_8_bytes",
            "crates/lab-chapter/tests/familiar_calls.rs::vec_with_capacity_128_is_one_allocation_of_128_bytes",
            "crates/lab-chapter/tests/familiar_calls.rs::thai_string_is_27_bytes",
            "crates/lab-chapter/tests/familiar_calls.rs::a_grown_vec_reports_reallocations_not_alloc_free_pairs",
            "crates/lab/tests/counting_alloc.rs::nothing_allocated_reads_zero_while_four_threads_allocate",
            "crates/lab-chapter/tests/familiar_calls.rs::format_of_the_order_line_is_one_allocation_and_two_reallocations",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "M3",
        kind: Kind::Time,
        title: "Twins measured two ways: interleaved round-robin vs one method after the other",
        function: noise::M3,
        pinned_by: &[
            "crates/lab/src/timing/rounds.rs::interleaved_rounds_rotate_and_every_slot_gets_every_round",
            "crates/lab/src/timing/rounds.rs::sequential_runs_every_round_of_a_slot_before_the_next",
            "crates/lab/src/timing/twins.rs::twins_are_two_copies_of_the_code",
            "crates/lab/src/publish.rs::a_difference_inside_one_methods_twin_noise_is_not_resolvable",
            "crates/lab/src/publish.rs::a_difference_inside_the_between_process_spread_is_not_resolvable",
            "crates/lab/src/publish.rs::a_difference_below_the_absolute_floor_is_never_printed",
            "crates/lab/src/publish.rs::a_ratio_that_moves_under_twin_swap_is_not_resolvable",
            "crates/lab/src/publish.rs::a_ratio_whose_processes_disagree_is_printed_with_its_range",
            "crates/lab/src/publish.rs::a_verdict_that_flips_in_one_process_varies_between_runs",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "M6",
        kind: Kind::Time,
        title: "The same workload in the dev profile and in release",
        function: build_and_sink::M6,
        pinned_by: &[],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "M7",
        kind: Kind::Time,
        title: "A benchmark whose work the optimiser deletes, beside the honest one",
        function: build_and_sink::M7,
        pinned_by: &[],
        allocator_sensitive: false,
        needs: &[],
    },
];

/// The M1 rows: a label and the counted cost of one call.
///
/// Every row but the second keeps its value alive across the count with `black_box`: a value
/// returned from `count` and dropped at once is an allocation nothing observes, which the
/// optimiser may remove once `count` is inlined (the first row read 0 allocations that way). The
/// second row is that case on purpose. Only the published figures can show it, since the test
/// profile does not optimise: M1's pins read them (`crates/lab-chapter/tests/familiar_calls.rs`).
pub fn m1_rows() -> Vec<(&'static str, AllocStats)> {
    vec![
        (
            "`Box::new(0u64)`",
            count(|| black_box(workloads::box_u64())).1,
        ),
        (
            "`drop(Box::new(0u64))`, the value never observed",
            count(workloads::box_u64_unobserved).1,
        ),
        (
            "`Vec::<u8>::with_capacity(128)`",
            count(|| black_box(workloads::vec_with_capacity_128())).1,
        ),
        (
            "`String::from(\"ต้มยำกุ้ง\")`",
            count(|| black_box(workloads::thai_string())).1,
        ),
        (
            "200,000 × `Vec::<u64>::push`, no reserve",
            count(|| black_box(workloads::push_u64(workloads::PUSHES))).1,
        ),
        (
            "`format!(\"{order_id}|{item}|{qty}|{unit_price}\\n\")`",
            count(|| black_box(workloads::format_order_line())).1,
        ),
    ]
}

fn m1_counting_allocator(run: &Run) -> Vec<Table> {
    let rows = m1_rows();
    let mut table = run.own(
        Columns::new()
            .col("call", |(label, _): &(&str, AllocStats)| Cell::text(*label))
            .col("allocations", |(_, s): &(&str, AllocStats)| {
                Cell::Count(s.allocs)
            })
            .col("reallocations", |(_, s): &(&str, AllocStats)| {
                Cell::Count(s.reallocs)
            })
            .col("deallocations", |(_, s): &(&str, AllocStats)| {
                Cell::Count(s.deallocs)
            })
            .col("bytes allocated", |(_, s): &(&str, AllocStats)| {
                Cell::Bytes(s.bytes_allocated)
            })
            .col("peak live bytes", |(_, s): &(&str, AllocStats)| {
                Cell::Bytes(s.peak_live_bytes)
            })
            .table("M1", Kind::Count, "", &rows),
    );
    table.note(
        "Exact counts for the calling thread: the same binary gives the same table on every run. A reallocation is one call; its growth is added to the bytes allocated.",
    );
    let yes_no = |yes: bool| Claim::Verdict {
        text: if yes { "yes" } else { "no" }.to_owned(),
    };
    // Rows in `m1_rows` order: the kept box, the unobserved box, …, the 200,000 pushes.
    let (kept, unobserved) = (rows[0].1, rows[1].1);
    table.conclude(
        "in this release build, the optimiser removed the allocation of a value nothing observes (the second row against the first)",
        yes_no(kept.allocs > 0 && unobserved.allocs == 0),
    );
    let grown = rows[4].1;
    table.conclude(
        "a `Vec` that grows without a reserve is one allocation and its reallocations, not an allocation and a free per growth",
        yes_no(grown.allocs == 1 && grown.deallocs == 0 && grown.reallocs > 0),
    );
    vec![table]
}
