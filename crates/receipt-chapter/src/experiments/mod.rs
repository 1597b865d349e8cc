//! Chapter 5's experiments (R1–R5, X1-receipt), run by `receipt-experiments` (the system
//! allocator) and `receipt-experiments-mimalloc` under `cargo xtask report`.
//!
//! One file per topic: `counted.rs` (R1: bytes and allocations per run and per line), `throughput.rs` (R2
//! per chunk, the whole command's instructions, X1-receipt), `bad_input.rs` (R3, the real
//! binary), `memory.rs` (R4, the real binary's peak memory), `figures.rs` (R4's figure, from its
//! table) and `stages.rs` (R5: where a line's time goes). Running the `receipt` binary as a child is [`crate::child`]'s work; finding it and
//! measuring its peak memory, [`crate::command`]'s.

use std::path::PathBuf;
use std::process::ExitCode;

use lab::Kind;
use lab::report::{Chapter, Cited, Decision, Experiment, Function, Source};
use receipt::Strategy;

mod bad_input;
mod counted;
mod figures;
mod memory;
mod stages;
mod throughput;

/// Chapter 5: its experiments in the order the chapter presents them.
pub static CHAPTER: Chapter = Chapter {
    name: "receipt",
    experiments: EXPERIMENTS,
    sources: &[Source {
        seed: "000",
        note: "The .NET course's `ArrayPool` chapter: bytes from `GC.GetAllocatedBytesForCurrentThread()` on an Intel Core i7-7700 (3.60 GHz, 4 cores, 8 threads), Ubuntu 24.04.4 under WSL2, .NET SDK 10.0.302 / .NET 10.0.10 (linux-x64, workstation non-concurrent GC); a .NET array counts its 24-byte header, so `new byte[128]` is 152 bytes.",
    }],
    answer: &[
        Cited {
            key: "R1 · once warm, `pooled`, `stack`, `arena` and `streaming` allocate nothing",
            says: "Once warm, the pooled, stack, arena and streaming strategies allocate nothing, on generated inputs of 1 to 1,000,000 lines",
        },
        Cited {
            key: "R4 · flat:",
            says: "The whole command's peak memory does not grow with its input",
        },
        Cited {
            key: "R2 · the fastest strategy",
            says: "The fastest strategy: one output buffer passed down, plus the fast lane (the two are not timed apart)",
        },
        Cited {
            key: "R2 · `naive` / `streaming`",
            says: "How many times as long the newcomer's program (`naive`) takes per line as `streaming`",
        },
        Cited {
            key: "R4 · bounded:",
            says: "On the worst input the chapter can build, every strategy but `naive` within 16 MiB of resident memory",
        },
    ],
    decisions: &[
        Decision {
            situation: "A buffer the hot path fills again and again, and you can pass it down",
            action: "Reuse a buffer you own: `Vec::with_capacity` once, `clear()` per use, passed down as `&mut`",
            because: Cited {
                key: "pool:P10 · under glibc, the sizes at which a warm rent is measurably faster than one reused",
                says: "Chapter 3: sizes at which a warm rent is measurably faster than one reused `Vec`",
            },
        },
        Decision {
            situation: "Buffers that outlive the call that fills them, or that code you do not own asks for",
            action: "A pool: rent, and give back (chapter 3); for a buffer handed to another thread, see chapter 3's hand-off first",
            because: Cited {
                key: "pool:P10-hit · under glibc, at 8 KiB, the faster of the pool's hit path and a fresh, unzeroed",
                says: "Chapter 3: at 8 KiB (a rent up to 1 MiB is served from the thread's cache), the faster of a warm rent and a fresh, unzeroed buffer",
            },
        },
        Decision {
            situation: "Small scratch of a fixed size, inside one call",
            action: "A stack array, unzeroed (`MaybeUninit`) where every byte read is written first (chapter 2)",
            because: Cited {
                key: "stack-buffer:X1-stack · under glibc, at 16 B, 256 B, 2 KiB and 8 KiB, a stack array",
                says: "Chapter 2, under glibc: at four sizes from 16 B to 8 KiB, a stack array faster than a heap buffer, zeroed or not",
            },
        },
        Decision {
            situation: "Many small objects that die together and refer to each other: a tree, a parse",
            action: "An arena, reset at once (chapter 4); for objects freed one at a time, a free-list pool; here, where an order's lines are only copied out, the `arena` strategy buys nothing over `streaming` (R2)",
            because: Cited {
                key: "arena:X1-arena · the faster fix for one `Box` per item: switching to mimalloc, or `bumpalo`",
                says: "Chapter 4: the faster fix for one `Box` per item, mimalloc or `bumpalo`",
            },
        },
        Decision {
            situation: "Nothing is allocated any more, and a line is still too slow",
            action: "Leave memory alone: make parsing and formatting do less work per byte",
            because: Cited {
                key: "R2 · under glibc, the larger part",
                says: "Under glibc, the larger part of `naive`'s cost over `streaming`",
            },
        },
        Decision {
            situation: "Before you commit to any of these",
            action: "Time it against the buffer you own, each input hidden and each result kept with `black_box` (chapter 1)",
            because: Cited {
                key: "lab:M7 · the deleted benchmark",
                says: "Chapter 1: a benchmark whose input is not hidden and whose result is unused times as an empty closure",
            },
        },
    ],
};

const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        id: "R1",
        kind: Kind::Count,
        title: "Bytes allocated by the next run of N lines, once the processor is warm",
        function: counted::R1,
        pinned_by: &[
            "crates/receipt/tests/receipt.rs::streaming_pooled_stack_and_arena_allocate_0_bytes_per_line_once_warm",
            "crates/receipt-chapter/tests/workloads.rs::r1_a_fresh_pool_per_row_allocates_the_same_every_time",
            "crates/receipt/tests/receipt.rs::r1_the_stack_strategy_spills_only_orders_longer_than_its_inline_buffer",
            "crates/receipt/tests/receipt.rs::r1_the_naive_strategy_never_allocates_the_item_cache",
            "crates/receipt/tests/receipt.rs::the_arena_is_reset_for_every_order_and_its_memory_reused",
            "crates/receipt/tests/receipt.rs::r1_naive_reuse_allocates_nothing_once_warm",
            "crates/receipt-chapter/tests/published.rs::r1_published_four_strategies_allocate_nothing_once_warm_and_naive_more_than_the_seed",
            "crates/receipt-chapter/tests/published.rs::r1_allocs_published_naive_allocates_for_every_line",
            "crates/receipt-chapter/tests/published.rs::r1_new_published_one_offs_stop_growing_once_the_output_buffer_is_full",
            "crates/receipt-chapter/tests/published.rs::r1_per_line_published_naive_reuse_allocates_nothing_once_warm",
            "crates/receipt-chapter/tests/published.rs::r1_the_test_profile_counts_what_the_release_binary_published",
            "crates/receipt-chapter/tests/r1_dhat.rs::r1_dhat_agrees_with_counting_alloc_on_every_row_and_strategy",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "R4",
        kind: Kind::Fact,
        title: "Peak resident memory of the whole command, by input (lines piped in)",
        function: Function {
            call: figures::r4_with_figure,
            path: memory::R4.path,
        },
        pinned_by: &[
            "crates/receipt/tests/receipt.rs::r4_peak_heap_memory_does_not_grow_with_the_input",
            "crates/receipt/tests/receipt.rs::r4_the_worst_case_holds_each_strategy_at_its_bound",
            "crates/receipt/tests/receipt.rs::r4_the_pools_own_tables_fit_their_allowance",
            "crates/receipt/src/bounds.rs::r4_the_bounds_follow_from_the_constants",
            "crates/receipt/src/bounds.rs::bumpalo_chunks_are_what_the_arena_bound_assumes",
            "crates/receipt/src/render.rs::the_longest_item_line_is_its_input_line_and_item_line_growth",
            "crates/receipt/tests/receipt.rs::r4_a_reader_is_read_into_a_bounded_buffer_whatever_the_chunk_size",
            "crates/receipt/tests/command.rs::r4_fed_lines_run_the_command_to_the_end",
            "crates/receipt-chapter/src/command.rs::r4_a_peak_report_round_trips_through_its_text_form",
            "crates/receipt-chapter/src/command.rs::r4_the_peak_is_read_from_the_status_file",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "R2",
        kind: Kind::Time,
        title: "Time per line, one chunk of generated lines at a time, in process (receipts into a reused buffer)",
        function: throughput::R2,
        pinned_by: &[
            "crates/receipt-chapter/tests/workloads.rs::r2_a_chunk_runner_prints_what_the_processor_prints_every_round",
            "crates/receipt-chapter/tests/workloads.rs::r2_the_floors_see_every_line_and_every_byte",
            "crates/receipt-chapter/tests/workloads.rs::r2_both_copies_of_each_workload_do_the_same_work",
            "crates/receipt/tests/receipt.rs::every_strategy_prints_the_same_bytes_for_a_generated_file",
        ],
        allocator_sensitive: true,
        needs: &[],
    },
    Experiment {
        id: "R5",
        kind: Kind::Time,
        title: "Where a line's time goes: the streaming strategy cut after each stage, on R2's chunk",
        function: stages::R5,
        pinned_by: &[
            "crates/receipt-chapter/tests/workloads.rs::r5_every_stage_handles_every_line_of_the_generated_input",
            "crates/receipt-chapter/tests/workloads.rs::r5_each_stage_does_the_work_of_the_one_before_it_and_more",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "R3",
        kind: Kind::Fact,
        title: "Bad input: each class, what `receipt` says, what it prints, how it exits",
        function: bad_input::R3,
        pinned_by: &[
            "crates/receipt/tests/receipt.rs::each_error_class_has_its_message_and_prints_nothing",
            "crates/receipt/tests/receipt.rs::item_names_that_could_rewrite_the_terminal_are_rejected",
            "crates/receipt/tests/receipt.rs::an_order_past_the_bound_is_rejected_and_the_run_goes_on",
            "crates/receipt/tests/receipt.rs::a_byte_order_mark_at_the_start_is_skipped",
            "crates/receipt/tests/receipt.rs::strategies_agree_on_random_order_files",
            "crates/receipt/tests/receipt.rs::arbitrary_bytes_never_panic_and_every_line_is_accounted_for",
            "crates/receipt/tests/command.rs::usage_errors_show_the_usage_and_exit_2",
            "crates/receipt/tests/command.rs::io_errors_say_why_without_the_usage_and_exit_2",
            "crates/receipt/tests/command.rs::a_closed_output_pipe_ends_the_run_quietly_with_status_0",
            "crates/receipt/tests/command.rs::r3_a_closed_output_after_a_rejected_line_exits_1",
            "crates/receipt/tests/command.rs::r3_an_output_that_cannot_be_written_exits_2_and_says_why",
            "crates/receipt-chapter/tests/published.rs::r3_published_every_bad_input_class_prints_no_receipt_and_exits_1",
            "crates/receipt/tests/command.rs::r3_an_output_open_for_reading_only_or_closed_exits_2_and_says_why",
            "crates/receipt/tests/command.rs::r3_a_standard_error_that_cannot_be_written_exits_2",
            "crates/receipt/tests/receipt.rs::crlf_blank_lines_and_a_missing_final_newline_are_accepted",
            "crates/receipt/tests/receipt.rs::a_carriage_return_at_the_end_of_the_input_is_part_of_the_line",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
];

/// The strategies of the tables with a column per strategy (R1, R1-allocs, R1-new, R4): every
/// strategy but `naive-reuse`, the control that parts what `naive` pays for allocating from what
/// it pays for its parser, which R1-per-line counts and R2 and X1-receipt time among the rows.
const STRATEGY_COLUMNS: [Strategy; 5] = [
    Strategy::Naive,
    Strategy::Pooled,
    Strategy::Stack,
    Strategy::Arena,
    Strategy::Streaming,
];

/// Why a table that runs the real command has no rows.
const NO_BINARY: &str = "The `receipt` binary was not found next to the experiments binary: run through `cargo xtask report`, which builds both.";

/// Why the instruction counts of copying (`what`) stand far above their time.
fn copies_under_callgrind(what: &str) -> String {
    format!(
        "Instructions: callgrind, on one copy of each method after the timed run; it counts glibc's `rep movsb` once per byte copied, so copying ({what}) weighs far more in instructions than in time."
    )
}

/// The `receipt` binary next to this one.
fn receipt_binary() -> Option<PathBuf> {
    crate::command::beside(&std::env::current_exe().ok()?)
}

/// If this process was started as R4's measuring process, runs that one measurement, prints its
/// result and returns the exit status; `None` for a normal run. The experiments binary calls this
/// before anything else.
pub fn peak_probe_from_env() -> Option<ExitCode> {
    memory::probe_from_env()
}
