//! Chapter 3's experiments (P1–P14 and X1-pool), declared in [`crate::CHAPTER`] and run by
//! `pool-experiments` (the system allocator) and `pool-experiments-mimalloc` under
//! `cargo xtask report`.
//!
//! One file per topic: `bytes.rs` (P1–P3: what a buffer costs, counted), `tenancy.rs` (P4–P6:
//! stale data, the contract, error paths), `limits.rs` (P7–P9: how many, how large, what is
//! kept), `hit.rs` (P9-time, P10-hit: the hit path beside stack arrays and the allocator),
//! `by_size.rs` (P10), `threads.rs` (P12), `handoff.rs` (P12-handoff), `crates.rs` (P13), `write.rs` (P14) and `verdicts.rs` (X1-pool and
//! P11, read from the timing runs before them). The decision rules are [`crate::decisions`].

use std::hint::black_box;

use lab::report::Experiment;
use lab::{Cell, Kind, count};
use pool::BufferPool;

mod by_size;
mod bytes;
mod crates;
mod handoff;
mod hit;
mod limits;
mod tenancy;
mod threads;
mod verdicts;
mod write;

/// `crates/<file>::<test>` for each test named.
macro_rules! pins {
    ($file:literal: $($test:ident),+ $(,)?) => {
        &[$(concat!("crates/", $file, "::", stringify!($test))),+]
    };
}

/// Chapter 3's experiments, in the order the chapter presents them.
pub(crate) const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        id: "P1",
        kind: Kind::Count,
        title: "Bytes allocated for N order lines, one 128-byte buffer per line",
        function: bytes::P1,
        pinned_by: &[
            "crates/pool-chapter/tests/published.rs::p1_published_fresh_lines_cost_128_bytes_each_and_pooled_or_stack_lines_0",
            "crates/pool-chapter/tests/lines.rs::steady_state_10000_rent_return_cycles_allocate_0_bytes",
            "crates/pool-chapter/tests/lines.rs::steady_state_holds_for_the_shared_pool_too",
            "crates/pool-chapter/tests/lines.rs::a_fresh_line_buffer_costs_128_bytes_per_line_and_a_stack_array_0",
            "crates/pool-chapter/tests/lines.rs::p1_glibc_puts_a_128_byte_request_in_a_144_byte_chunk",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "P2",
        kind: Kind::Fact,
        title: "What `rent(n)` hands out: capacity and overshoot for the seed's 18 requests",
        function: bytes::P2,
        pinned_by: pins!("pool/tests/pool.rs":
            rent_rounds_up_to_power_of_two_buckets_of_at_least_16_like_dotnet,
            a_request_above_max_len_but_within_its_bucket_is_pooled_not_oversize,
            above_the_largest_bucket_is_exact_size_and_not_kept,
        ),
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "P3",
        kind: Kind::Count,
        title: "Cold to warm: what the first use of a pool costs, step by step",
        function: bytes::P3,
        pinned_by: &[
            "crates/pool-chapter/tests/published.rs::p3_published_the_one_off_cost_is_paid_once_and_the_curve_crosses_where_it_must",
            "crates/pool/tests/pool.rs::a_threads_first_rent_creates_its_cache_in_3_allocations_plus_the_buffer",
            "crates/pool/tests/pool.rs::rent_zero_allocates_nothing_even_on_a_threads_first_use",
            "crates/pool/tests/pool.rs::p3_the_first_buffer_sent_down_to_a_stack_allocates_room_for_4",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "P4",
        kind: Kind::Fact,
        title: "The previous tenant's data: rent 64 bytes, write a line, give back, rent again",
        function: tenancy::P4,
        pinned_by: &[
            "crates/pool-chapter/tests/tenancy.rs::without_clearing_the_next_renter_sees_all_41_bytes_of_the_previous_line",
            "crates/pool-chapter/tests/tenancy.rs::with_clear_on_return_the_next_renter_sees_0_non_zero_bytes",
            "crates/pool/tests/pool.rs::clear_on_return_resets_only_the_prefix_that_was_shown",
            "crates/pool/tests/pool.rs::a_fresh_buffer_is_always_zeroed",
            "crates/pool-chapter/tests/tenancy.rs::the_next_renter_of_a_vec_gets_the_same_storage_and_cannot_read_the_previous_line",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "P5",
        kind: Kind::Fact,
        title: "The pool's contract: who enforces each rule",
        function: tenancy::P5,
        pinned_by: &[
            "crates/pool/src/contract.rs",
            "crates/pool/tests/pool.rs::after_give_back_cleared_the_next_plain_renter_reads_only_defaults",
            "crates/pool-chapter/tests/tenancy.rs::only_give_back_cleared_or_a_clearing_pool_wipes_a_secret_and_rent_cleared_does_not",
            "crates/pool/tests/threads.rs::an_owned_guard_moves_into_a_spawned_thread_and_is_given_back_there",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "P6",
        kind: Kind::Count,
        title: "Failing lines: does the buffer come back? (a pool that starts with 51 spare 128-byte buffers)",
        function: tenancy::P6,
        pinned_by: &[
            "crates/pool-chapter/tests/published.rs::p6_published_forgetting_the_guard_costs_128_bytes_per_line_past_the_spares",
            "crates/pool-chapter/tests/lines.rs::the_guard_gives_back_on_an_early_return",
            "crates/pool-chapter/tests/lines.rs::the_guard_gives_back_during_a_panic",
            "crates/pool-chapter/tests/lines.rs::mem_forget_loses_one_buffer_per_call_and_nothing_breaks",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "P7",
        kind: Kind::Count,
        title: "k 128-byte buffers rented at once, then all given back: bytes per round (20 rounds)",
        function: limits::P7,
        pinned_by: &[
            "crates/pool-chapter/tests/published.rs::p7_published_every_buffer_beyond_the_limit_costs_128_bytes_per_round",
            "crates/pool-chapter/tests/lines.rs::one_thread_holds_1_plus_max_per_bucket_buffers_before_the_pool_allocates",
            "crates/pool/tests/pool.rs::the_thread_cache_keeps_the_most_recent_buffer_and_sends_the_older_one_down",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "P8",
        kind: Kind::Count,
        title: "The size ceiling: rent, give back, rent again",
        function: limits::P8,
        pinned_by: &[
            "crates/pool-chapter/tests/published.rs::p8_published_the_largest_bucket_is_kept_and_one_more_byte_is_exact_size",
            "crates/pool/tests/pool.rs::above_the_largest_bucket_is_exact_size_and_not_kept",
            "crates/pool/tests/pool.rs::a_request_above_max_len_but_within_its_bucket_is_pooled_not_oversize",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "P9",
        kind: Kind::Count,
        title: "When the pool does not pay: tiny buffers, per-rent objects, memory kept after use",
        function: limits::P9,
        pinned_by: &[
            "crates/pool-chapter/tests/published.rs::p9_published_small_buffers_and_the_8_mib_rent_count_what_they_must",
            "crates/pool/tests/pool.rs::trim_releases_every_byte_the_pool_retains",
            "crates/pool/tests/pool.rs::the_stacks_keep_at_most_max_shared_bytes_all_buckets_together",
            "crates/pool/tests/threads.rs::trim_frees_this_threads_cache_now_and_another_threads_cache_at_its_next_miss",
            "crates/pool/tests/threads.rs::trim_leaves_an_idle_threads_cache_in_place_until_it_visits_the_pool_or_exits",
            "crates/pool/tests/threads.rs::what_the_pool_retains_stays_within_the_bound_of_its_live_threads",
            "crates/pool/tests/shared_pool.rs::the_shared_pool_retains_at_most_64_mib_plus_2_mib_per_live_thread",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "P9-time",
        kind: Kind::Time,
        title: "64-byte buffers: one reused `Vec`, a stack array, the pool, a fresh buffer unzeroed and zeroed (the same touch each)",
        function: hit::P9_TIME,
        pinned_by: pins!("pool-chapter/tests/workloads.rs":
            every_timed_way_to_get_a_buffer_does_the_same_touch,
            p10_a_fresh_buffer_allocates_its_n_bytes_zeroed_or_not_and_a_reused_one_nothing,
        ),
        allocator_sensitive: true,
        needs: &[],
    },
    Experiment {
        id: "P10",
        kind: Kind::Time,
        title: "Time per buffer by size: one reused `Vec`, a fresh buffer unzeroed and zeroed, and renting and giving back from a warm pool",
        function: by_size::P10,
        pinned_by: pins!("pool-chapter/tests/workloads.rs":
            every_timed_way_to_get_a_buffer_does_the_same_touch,
            p10_a_fresh_buffer_allocates_its_n_bytes_zeroed_or_not_and_a_reused_one_nothing,
        ),
        allocator_sensitive: true,
        needs: &[],
    },
    Experiment {
        id: "P10-hit",
        kind: Kind::Time,
        title: "The hit path at 8 KiB, side by side with one reused `Vec`, stack arrays and a fresh buffer, unzeroed and zeroed",
        function: hit::P10_HIT,
        pinned_by: pins!("pool-chapter/tests/workloads.rs":
            every_timed_way_to_get_a_buffer_does_the_same_touch,
            p10_a_fresh_buffer_allocates_its_n_bytes_zeroed_or_not_and_a_reused_one_nothing,
        ),
        allocator_sensitive: true,
        needs: &[],
    },
    Experiment {
        id: "P12",
        kind: Kind::Time,
        title: "Contention: 1, 2 and 4 threads renting, touching and giving back 8 KiB at once",
        function: threads::P12,
        pinned_by: pins!("pool-chapter/tests/workloads.rs":
            p12_each_of_1_2_and_4_workers_does_its_operations_for_every_source,
            p12_the_pools_allocate_nothing_per_operation_and_a_fresh_vec_8_kib,
        ),
        allocator_sensitive: true,
        needs: &[],
    },
    Experiment {
        id: "P12-handoff",
        kind: Kind::Time,
        title: "Handoff: 8 KiB rented on one thread and given back on another, through a channel, at 2 and 4 threads",
        function: handoff::P12_HANDOFF,
        pinned_by: pins!("pool-chapter/tests/handoff.rs":
            p12_handoff_every_pair_hands_over_its_items_for_every_source,
            p12_handoff_once_warm_the_pool_allocates_nothing_per_item_and_a_fresh_vec_8_kib,
        ),
        allocator_sensitive: true,
        needs: &[],
    },
    Experiment {
        id: "P13",
        kind: Kind::Time,
        title: "Against what a user would pick instead: rent, touch and give back with each, one thread",
        function: crates::P13,
        pinned_by: pins!("pool-chapter/tests/workloads.rs":
            p13_every_contender_touches_a_buffer_of_the_requested_size,
            p13_only_the_fresh_buffers_allocate_per_operation,
        ),
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "P14",
        kind: Kind::Time,
        title: "Writing the order line into a buffer that grows: rented with `rent_buf`, one reused `Vec`, a fresh `Vec`",
        function: write::P14,
        pinned_by: pins!("pool-chapter/tests/workloads.rs":
            p14_every_arm_writes_the_seeds_order_line,
            p14_a_warm_rented_buffer_allocates_nothing_per_line_and_a_fresh_vec_its_room,
        ),
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "X1-pool",
        kind: Kind::Time,
        title: "The allocator as a variable: does a warm rent from the pool still pay against a fresh buffer, unzeroed or zeroed, under mimalloc?",
        function: verdicts::X1,
        pinned_by: &[],
        // It makes no timing run of its own: it reads P9-time's, P10's, P10-hit's and P12's,
        // which ran under every allocator.
        allocator_sensitive: false,
        needs: &["P9-time", "P10", "P10-hit", "P12", "P13"],
    },
    Experiment {
        id: "P11",
        kind: Kind::Time,
        title: "Decision rules, with the thresholds this machine measured",
        function: verdicts::P11,
        pinned_by: &[
            "crates/pool-chapter/src/decisions.rs::p11_the_first_rule_is_to_reuse_a_buffer_you_own",
            "crates/pool-chapter/src/decisions.rs::p11_the_pool_rule_follows_the_unzeroed_buffer",
            "crates/pool-chapter/src/decisions.rs::p11_every_rule_names_what_supports_it_in_the_order_taught",
            "crates/pool-chapter/src/decisions.rs::p11_the_stack_rule_cites_the_zeroed_array_too",
            "crates/pool-chapter/src/decisions.rs::p11_secrets_are_given_back_cleared_not_rented_cleared",
            "crates/pool-chapter/src/decisions.rs::p11_the_large_buffer_rule_states_the_bound_and_what_trim_cannot_reach",
            "crates/pool-chapter/src/decisions.rs::p11_rules_are_a_function_of_the_findings",
        ],
        allocator_sensitive: false,
        needs: &["P9-time", "P10", "P10-hit", "P12", "P13"],
    },
];

/// The line under every table that shows seed `000`'s figures in italics.
const SEED_ITALIC: &str = "*Italic*: seed `000`'s figures (machine under *Sources*).";

/// A seed figure in italics, or an empty cell where the seed has none.
fn seed_cell(s: &str) -> Cell {
    if s.is_empty() {
        Cell::Empty
    } else {
        Cell::Seed(s.into())
    }
}

/// Bytes `f` allocates on this thread (its result kept from the optimiser).
fn bytes(f: impl FnOnce() -> u8) -> u64 {
    count(|| black_box(f())).1.bytes_allocated
}

/// Rents one buffer of `len` on this thread and gives it back, so that the pool's cache for
/// this thread exists and holds a buffer of that bucket: what follows is the hit path.
/// How many calls [`per_call`] counts over.
const PER_CALL: u64 = 1000;

/// Bytes allocated and freed per call of `f`, counted on this thread over [`PER_CALL`] calls.
fn per_call(mut f: impl FnMut() -> u8) -> (u64, u64) {
    let (_, stats) = count(|| (0..PER_CALL).fold(0, |acc, _| acc ^ black_box(f())));
    (
        stats.bytes_allocated / PER_CALL,
        stats.bytes_freed / PER_CALL,
    )
}

fn warm(pool: &BufferPool<u8>, len: usize) {
    drop(pool.rent(len));
}

/// A size in bytes as the tables write it: `8,192 B`.
fn bytes_label(n: usize) -> String {
    Cell::bytes(n).render()
}
