//! Chapter 2's experiments (S1–S13, X1-stack), declared in [`crate::CHAPTER`] and run by
//! `stack-buffer-experiments` under `cargo xtask report`.
//!
//! One file per topic under `src/experiments/`: `reach.rs` (S1, S1-baselines, S2),
//! `zeroing.rs` (S3, S3-baselines, S3-heap, S5), `codegen.rs` (S4), `counted.rs` (S6), `operation.rs` (S7, S11), `inline.rs`
//! (S12), `limits.rs` (S8–S10), `compiler.rs` (S13) and `x1.rs` (X1-stack). The decision rules
//! of the timed verdicts across sizes are in [`lab::verdicts`], this chapter's own (spans of
//! twins and copies) in [`crate::spans`], the machine-code reader in [`crate::disasm`], the
//! probes in [`crate::probe`], the lint configuration in [`crate::lints`]. Each topic file names
//! its functions with `lab::function!`, so a table's footer gives the file to open.

use lab::report::Experiment;
use lab::timing::Measurements;
use lab::{Cell, Kind};

use crate::spans::Span;

mod codegen;
mod compiler;
mod counted;
mod inline;
mod limits;
mod operation;
mod reach;
mod x1;
mod zeroing;

/// `crates/stack-buffer-chapter/<file>::<test>` for each test named.
macro_rules! pins {
    ($file:literal: $($test:ident),+ $(,)?) => {
        &[$(concat!("crates/stack-buffer-chapter/", $file, "::", stringify!($test))),+]
    };
}

/// Every experiment of the chapter, in the order the chapter presents them.
pub(crate) const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        id: "S1",
        kind: Kind::Time,
        title: "Cost to reach a usable buffer of 2N `f64`s (touched), by order size: the heap and the stack zero it, the pool does not",
        function: reach::S1,
        pinned_by: pins!("tests/stack_buffer.rs":
            every_way_to_reach_a_buffer_touches_the_same_two_values,
            s1_every_measured_function_has_two_copies_at_two_addresses,
            s1_the_reused_buffer_allocates_once_and_never_again,
        ),
        allocator_sensitive: true,
        needs: &[],
    },
    Experiment {
        id: "S3",
        kind: Kind::Time,
        title: "Five buffers at four sizes: a reused `Vec`, a fresh one, a fresh zeroed one, and a stack array of the same size, unzeroed or zeroed",
        function: zeroing::S3,
        pinned_by: pins!("tests/stack_buffer.rs":
            every_way_to_reach_a_buffer_touches_the_same_two_values,
            s3_glibc_serves_requests_up_to_1032_bytes_from_the_per_thread_cache,
            s3_calloc_skips_the_per_thread_cache_before_glibc_2_41,
        ),
        allocator_sensitive: true,
        needs: &[],
    },
    Experiment {
        id: "S4",
        kind: Kind::Fact,
        title: "Codegen, read from the experiments binary itself: what each zeroed and unzeroed stack array compiles to",
        function: codegen::S4,
        pinned_by: &[
            "crates/stack-buffer-chapter/tests/stack_buffer.rs::s4_llvm_zeroes_up_to_256_bytes_inline_and_calls_memset_above",
            "crates/stack-buffer-chapter/src/disasm.rs::the_reader_counts_sixteen_vector_stores_as_256_bytes_of_inline_zeroing",
            "crates/stack-buffer-chapter/src/disasm.rs::the_reader_tells_stack_probes_from_zeroing_and_reads_the_memset_size",
            "crates/stack-buffer-chapter/src/disasm.rs::the_reader_finds_no_zeroing_where_only_nonzero_values_are_stored",
            "crates/stack-buffer-chapter/src/disasm.rs::the_reader_finds_every_copy_of_a_generic_function",
            "crates/stack-buffer-chapter/src/disasm.rs::the_reader_finds_every_copy_of_a_generic_function_in_the_symbols",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "S6",
        kind: Kind::Count,
        title: "Bytes allocated per call, by strategy (counted, exact)",
        function: counted::S6,
        pinned_by: pins!("tests/stack_buffer.rs":
            stack_and_hybrid_up_to_128_items_allocate_0_bytes_and_heap_2n_times_8,
            the_pool_strategy_allocates_nothing_once_warm,
            s6_glibc_rounds_a_request_up_to_a_16_byte_chunk_with_an_8_byte_header,
            s6_published_heap_rows_ask_16_bytes_per_item_and_stack_pool_and_hybrid_nothing,
        ),
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "S7",
        kind: Kind::Time,
        title: "The whole operation by order size: a reused `Vec`, a fresh unzeroed one and every `pack_boxes` strategy, three identical copies each",
        function: operation::S7,
        pinned_by: &[
            "crates/stack-buffer-chapter/tests/stack_buffer.rs::all_strategies_return_the_same_box_count",
            "crates/stack-buffer-chapter/tests/stack_buffer.rs::first_fit_decreasing_on_a_hand_checked_order",
            "crates/stack-buffer-chapter/tests/stack_buffer.rs::s7_the_reused_buffer_packs_like_every_strategy_and_allocates_nothing_once_grown",
            "crates/stack-buffer-chapter/src/spans.rs::s7_dilution_needs_distances_from_one_apart",
            "crates/stack-buffer-chapter/src/spans.rs::s7_three_copies_give_their_median_and_the_farthest_figure",
        ],
        allocator_sensitive: true,
        needs: &[],
    },
    Experiment {
        id: "S12",
        kind: Kind::Count,
        title: "`SmallVec` beside the hand-written hybrid: allocations per call (counted, exact)",
        function: inline::S12,
        pinned_by: pins!("tests/stack_buffer.rs":
            s12_smallvec_allocates_0_times_up_to_its_inline_capacity_and_once_above,
            s12_a_smallvec_is_as_large_as_its_inline_array_and_carries_it_when_moved,
            s12_published_smallvecs_allocate_once_above_their_inline_capacity_and_the_hybrid_never,
            s12_size_published_a_smallvec_is_its_inline_array_and_two_words,
        ),
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "S12-time",
        kind: Kind::Time,
        title: "`SmallVec` beside the hand-written hybrid: time to reach a usable buffer of 2N `f64`s (touched)",
        function: inline::S12_TIME,
        pinned_by: pins!("tests/stack_buffer.rs":
            s12_smallvec_allocates_0_times_up_to_its_inline_capacity_and_once_above,
            s12_every_strategy_agrees_at_15_16_and_17_items,
        ),
        allocator_sensitive: true,
        needs: &[],
    },
    Experiment {
        id: "S8",
        kind: Kind::Fact,
        title: "How much stack survives: the largest single array and the deepest recursion of 8 KiB frames, each probe in a child process",
        function: limits::S8,
        pinned_by: &[
            "crates/stack-buffer-chapter/tests/stack_buffer.rs::s8_the_largest_single_array_on_a_1_mib_thread_is_within_64_kib_of_1_mib",
            "crates/stack-buffer-chapter/tests/stack_buffer.rs::s8_a_stack_overflow_runs_no_drop_and_catch_unwind_cannot_catch_it",
            "crates/stack-buffer-chapter/tests/stack_buffer.rs::probes_survive_a_shallow_descent_on_every_kind_of_thread",
            "crates/stack-buffer-chapter/src/probe/spec.rs::specs_round_trip_through_their_text_form",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "S9",
        kind: Kind::Fact,
        title: "An 8 KiB array in a loop body vs in a recursive function: where each one lives",
        function: limits::S9,
        pinned_by: pins!("tests/stack_buffer.rs": s9_an_array_in_a_loop_reuses_one_slot_and_recursion_accumulates),
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "S10",
        kind: Kind::Fact,
        title: "Resident memory while 200 threads each hold K KiB of touched stack",
        function: limits::S10,
        pinned_by: pins!("tests/stack_buffer.rs": s10_threads_holding_touched_stack_add_at_least_half_of_it_to_resident_memory),
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "S11",
        kind: Kind::Fact,
        title: "Every strategy, the same orders: box counts at the boundaries and around them",
        function: operation::S11,
        pinned_by: &[
            "crates/stack-buffer-chapter/tests/stack_buffer.rs::every_strategy_agrees_at_127_128_and_129_items",
            "crates/stack-buffer-chapter/tests/stack_buffer.rs::s12_every_strategy_agrees_at_15_16_and_17_items",
            "crates/stack-buffer-chapter/tests/stack_buffer.rs::hybrid_at_129_items_rents_from_the_pool_and_at_128_does_not",
            "crates/stack-buffer-chapter/tests/stack_buffer.rs::all_strategies_return_the_same_box_count",
            "crates/stack-buffer-chapter/tests/stack_buffer.rs::the_generator_flattens_one_item_in_four_so_the_minimum_cubage_branch_runs",
            "crates/stack-buffer-chapter/tests/deliberate_ub.rs::miri_catches_the_uninitialised_read",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "S13",
        kind: Kind::Fact,
        title: "What clippy catches: the workspace's stack-size lints and their thresholds",
        function: compiler::S13,
        pinned_by: &[
            "crates/stack-buffer-chapter/tests/lints.rs::s13_the_workspace_turns_on_the_stack_size_lints_with_stated_thresholds",
            "crates/stack-buffer-chapter/tests/lints.rs::s13_clippy_flags_large_arrays_frames_and_futures_and_not_their_twins",
            "crates/stack-buffer-chapter/tests/stack_buffer.rs::s13_box_new_of_a_large_array_overflows_the_stack_in_the_dev_profile",
            "crates/stack-buffer-chapter/tests/stack_buffer.rs::s13_the_three_heap_ways_build_16_mib_on_a_2_mib_thread",
            "crates/stack-buffer-chapter/tests/stack_buffer.rs::s13_an_8_kib_buffer_held_across_await_makes_the_future_8_kib",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "X1-stack",
        kind: Kind::Time,
        title: "The allocator as a variable: does each stack technique still pay against the heap under mimalloc?",
        function: x1::X1,
        pinned_by: &[],
        // It makes no timing run of its own: it reads S1's, S3's and S12-time's, which ran
        // under every allocator.
        allocator_sensitive: false,
        needs: &["S1", "S3", "S12-time"],
    },
];

/// Registers a method whose twin is the second copy of the measured function: `f::<0>` is the
/// original, `f::<1>` the twin, each called with the arguments through `black_box`.
macro_rules! pair {
    ($timing:expr, $name:expr, $($f:ident)::+ ($($arg:expr),*)) => {
        $timing.method_pair(
            $name,
            move || $($f)::+::<0>($(std::hint::black_box($arg)),*),
            move || $($f)::+::<1>($(std::hint::black_box($arg)),*),
        )
    };
}
use pair;

/// The seed line under a table that shows the seed's figures in italics.
const SEED_CELLS: &str = "*Italic*: seed `002`'s figures (machine under *Sources*).";

/// A size in bytes as a method's name shows it: `2,048 B`.
fn bytes_label(bytes: usize) -> String {
    Cell::bytes(bytes).render()
}

/// An order size as the verdicts name it: `N = 16`.
fn items(n: usize) -> String {
    format!("N = {n}")
}

/// A method's span in one process: its median and its twin's.
fn method_span(p: &Measurements, name: &str) -> Span {
    let r = p.expect(name);
    Span::of(&[r.median_ns, r.twin.median_ns])
}
