//! Chapter 4's experiments (A1–A8 and X1), run by `arena-experiments` (the system allocator)
//! and `arena-experiments-mimalloc` under `cargo xtask report`. Built only with the
//! `experiments` feature.
//!
//! One file per topic: `seed_table.rs` (A1 and the seed's ranking), `growth.rs` (A2–A4),
//! `rust.rs` (A5, A7, A8: what Rust offers and checks), `churn.rs` (A6), `x1.rs` (every timed
//! technique under both allocators).

use std::cell::RefCell;

use lab::Kind;
use lab::report::{Chapter, Experiment, Source};
use lab::timing::Measured;

mod churn;
mod growth;
mod rust;
mod seed_table;
mod x1;

/// Chapter 4: its experiments in the order the chapter presents them.
pub static CHAPTER: Chapter = Chapter {
    name: "arena",
    experiments: EXPERIMENTS,
    sources: &[Source {
        seed: "001",
        note: "The Zig article: Apple M5 Pro, macOS, Zig 0.16.0, `-O ReleaseFast`, the allocator from `init.gpa`, N = 200,000 `u64`s, median of 15 runs; its counts are alloc / remap / resize / free through Zig's allocator interface.",
    }],
};

const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        id: "A1",
        kind: Kind::Time,
        title: "N = 200,000 nodes, eight ways: time and what the allocator saw",
        run: seed_table::A1,
        pinned_by: &[
            "crates/arena/tests/arena.rs::box_per_item_is_n_allocations_and_n_deallocations_plus_the_vec_of_pointers",
            "crates/arena/tests/arena.rs::bump_per_item_is_2_chunks_and_1_with_capacity",
            "crates/arena/tests/arena.rs::every_workload_computes_the_same_checksum",
        ],
        allocator_sensitive: true,
        needs: &[],
    },
    Experiment {
        id: "A2",
        kind: Kind::Count,
        title: "Growth is geometric: pushes without reserving",
        run: growth::A2,
        pinned_by: &[
            "crates/arena/tests/arena.rs::pushes_grow_geometrically_between_10_and_40_reallocations",
            "crates/arena/tests/arena.rs::a2_200000_pushes_change_the_capacity_17_times_so_reserving_saves_little",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "A3",
        kind: Kind::Count,
        title: "Reserve once: one allocation, no growth",
        run: growth::A3,
        pinned_by: &[
            "crates/arena/tests/arena.rs::reserving_once_is_one_allocation_and_no_reallocation",
            "crates/arena/tests/arena.rs::a2_200000_pushes_change_the_capacity_17_times_so_reserving_saves_little",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "A4",
        kind: Kind::Fact,
        title: "Same code, different allocator, different calls: 200,000 pushes without reserving",
        run: growth::A4,
        pinned_by: &[
            "crates/arena/tests/arena.rs::never_in_place_moves_every_growth",
            "crates/arena/tests/arena.rs::a4_mimalloc_moves_every_growth_and_a_bump_extends_only_while_its_chunk_has_room",
            "crates/arena/tests/arena.rs::a4_counting_tells_an_extended_block_from_a_moved_one",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "A4-bump",
        kind: Kind::Count,
        title: "What growing a vector leaves in a `Bump`: 200,000 pushes onto a `bumpalo::collections::Vec`",
        run: growth::A4_BUMP,
        pinned_by: &[
            "crates/arena/tests/arena.rs::a4_bumpalo_grows_its_last_allocation_in_place_and_only_a_neighbour_or_a_full_chunk_leaves_garbage",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "A5",
        kind: Kind::Fact,
        title: "One function, any allocator: what Rust offers compared with Zig's allocator parameter",
        run: rust::A5,
        pinned_by: &["crates/arena/tests/arena.rs::one_function_runs_with_any_allocator"],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "A8",
        kind: Kind::Fact,
        title: "What Rust turns into compile errors",
        run: rust::A8,
        pinned_by: &[
            "crates/arena/src/contract.rs",
            "crates/arena/src/contract.rs::a8_every_rule_is_a_section_with_its_compile_fail_example_and_a_compiling_twin",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "A6",
        kind: Kind::Time,
        title: "Pool vs arena under churn: 10,000 objects live, 2,000,000 steps that each free one and create one",
        run: churn::A6,
        pinned_by: &[
            "crates/arena/tests/arena.rs::under_churn_the_pool_holds_a_tenth_of_the_arena_or_less",
        ],
        allocator_sensitive: true,
        needs: &[],
    },
    Experiment {
        id: "A6-bytes",
        kind: Kind::Count,
        title: "Pool vs arena: memory held, counted",
        run: churn::A6_BYTES,
        pinned_by: &[
            "crates/arena/tests/arena.rs::under_churn_the_pool_holds_a_tenth_of_the_arena_or_less",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "A7",
        kind: Kind::Count,
        title: "Who runs destructors: 1,000 values with a counted `Drop`, then the arena dropped",
        run: rust::A7,
        pinned_by: &[
            "crates/arena/tests/arena.rs::bumpalo_runs_no_destructors_typed_arena_and_bumpalo_box_do",
            "crates/arena/tests/arena.rs::a_vec_inside_a_bump_leaks_its_buffer",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "X1-arena",
        kind: Kind::Time,
        title: "The allocator as a variable: does each technique still pay under mimalloc?",
        run: x1::X1,
        pinned_by: &[],
        // It makes no timing run of its own: it reads A1's and A6's, which ran under every
        // allocator.
        allocator_sensitive: false,
        needs: &[],
    },
];

/// The line under every table that shows seed figures.
const SEED_ITALIC: &str = "*Italic*: seed `001`'s figures (machine under *Sources*).";

thread_local! {
    /// The timing runs of this process's experiments, for the tables that compare them (X1).
    static RUNS: RefCell<Vec<(&'static str, Measured)>> = const { RefCell::new(Vec::new()) };
}

/// Keeps experiment `id`'s timing run for the tables that come after it in this process.
fn keep(id: &'static str, measured: &Measured) {
    RUNS.with(|runs| runs.borrow_mut().push((id, measured.clone())));
}

/// Experiment `id`'s timing run, if it ran earlier in this process.
fn kept(id: &str) -> Option<Measured> {
    RUNS.with(|runs| {
        runs.borrow()
            .iter()
            .find(|(kept, _)| *kept == id)
            .map(|(_, m)| m.clone())
    })
}

/// Instructions per operation of `method`'s original copy, where callgrind counted them.
fn instructions(m: &Measured, method: &str) -> Option<f64> {
    m.expect(method)
        .instructions()
        .map(|[original, _]| original)
}

/// Why a run has no instruction counts (only the full report takes them).
fn no_instructions(m: &Measured) -> String {
    m.live()
        .instructions_note
        .clone()
        .unwrap_or_else(|| "No instruction counts in this run.".to_owned())
}
