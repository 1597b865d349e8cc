//! Chapter 4's experiments (A1–A8, and X1 for this chapter), run by `arena-experiments` (the
//! system allocator) and `arena-experiments-mimalloc` under `cargo xtask report`.
//!
//! One file per topic: `seed_table.rs` (A1, its pairs with the reused `Vec` (A1-reuse), its
//! counts and the seed's ranking), `growth.rs` (A2–A4), `rust.rs` (A5, A7, A8: what Rust offers
//! and checks), `churn.rs` (A6), `x1.rs` (every timed technique under both allocators, read from
//! A1's and A6's runs).

use lab::Kind;
use lab::protocol::Allocator;
use lab::report::{Chapter, Cited, Decision, Experiment, Source};
use lab::table::{Cell, Columns};
use lab::timing::{Measured, Method};

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
        note: "The Zig article: Apple M5 Pro, macOS, Zig 0.16.0, `-O ReleaseFast`, the allocator from `init.gpa`, N = 200,000 `u64`s, median of 15 runs; its counts are alloc / remap / resize / free through Zig's allocator interface. The article shows its tests, not its benchmark's code.",
    }],
    answer: &[
        Cited {
            key: "X1-arena · `bumpalo`, one `alloc` per item, instead of one `Box` per item · pays under glibc?",
            says: "Under glibc, is an arena (`bumpalo`) faster than one `Box` per object",
        },
        Cited {
            key: "A1-reuse · under glibc: the faster of the reused `Vec` and `bumpalo`",
            says: "Objects that live for one pass of a loop you own: a fresh `bumpalo` arena per pass, or a `Vec` reserved once and `clear()`ed per pass (the arena also keeps a pointer to each object); the faster",
        },
        Cited {
            key: "A6 · under glibc: the free-list pool faster than the arena under churn",
            says: "Target: when objects are freed one at a time while others live, a free-list pool is faster than the arena",
        },
        Cited {
            key: "A6-bytes · under churn, the free-list pool's peak at most a tenth",
            says: "Target: under that churn the pool's peak memory is at most a tenth of the arena's",
        },
        Cited {
            key: "X1-arena · churn, the faster fix for one `Box` per object",
            says: "Under churn, the faster fix for one `Box` per object: switching the allocator to mimalloc, or the free-list pool",
        },
    ],
    decisions: &[
        Decision {
            situation: "The objects live exactly as long as one pass of a loop you own",
            action: "Keep them in a `Vec` you own, reserved once and `clear()`ed per pass; hand out indices, not references",
            because: Cited {
                key: "A1-reuse · under glibc: the faster of the reused `Vec` and `bumpalo`",
                says: "faster: the arena or the reused `Vec`",
            },
        },
        Decision {
            situation: "Many objects share one lifetime and must be referenced while more are created (a tree, a graph, a parse)",
            action: "Allocate them in a `bumpalo::Bump`; `reset` or drop it when the work ends",
            because: Cited {
                key: "X1-arena · `bumpalo`, one `alloc` per item, instead of one `Box` per item · pays under glibc?",
                says: "the arena instead of one `Box` per object pays",
            },
        },
        Decision {
            situation: "Objects are freed one at a time while others stay live",
            action: "Use a free-list pool: it reuses the slot just freed, where an arena only grows (A6-bytes: its peak is at most a tenth of the arena's)",
            because: Cited {
                key: "X1-arena · churn: the free-list pool instead of one `Box` per object · pays under glibc?",
                says: "under churn, the free-list pool instead of one `Box` per object pays",
            },
        },
        Decision {
            situation: "The objects own memory or need `Drop` (`String`, `Vec`, handles)",
            action: "Use `typed-arena` or `bumpalo::boxed::Box`, never `Bump::alloc`",
            because: Cited {
                key: "A7 · destructors run for values put in a `Bump`",
                says: "destructors run for `Bump::alloc`'s values",
            },
        },
        Decision {
            situation: "You know the count up front",
            action: "One allocation: `collect` into a `Box<[T]>` or `Vec::with_capacity`, not one `Box` per item",
            because: Cited {
                key: "A1-rank · item 1 under glibc",
                says: "one allocation instead of one `Box` per item",
            },
        },
        Decision {
            situation: "You can change the build, not the code",
            action: "Expect less from switching the global allocator than from the techniques above; time the switch alone",
            because: Cited {
                key: "X1-arena · churn, the faster fix for one `Box` per object",
                says: "under churn, the faster fix: mimalloc or the pool",
            },
        },
    ],
};

/// `crates/arena-chapter/tests/arena.rs::name`, at compile time.
macro_rules! test {
    ($name:ident) => {
        concat!("crates/arena-chapter/tests/arena.rs::", stringify!($name))
    };
}

/// `crates/arena-chapter/tests/published.rs::name`: a pin that reads the published figure.
macro_rules! published {
    ($name:ident) => {
        concat!(
            "crates/arena-chapter/tests/published.rs::",
            stringify!($name)
        )
    };
}

const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        id: "A1",
        kind: Kind::Time,
        title: "N = 200,000 nodes, twelve ways: the reused `Vec`, the seed's six, and five that explain them",
        function: seed_table::A1,
        pinned_by: &[
            test!(a1_every_way_creates_the_same_nodes),
            test!(a1_the_reused_vec_differs_from_the_fresh_reserved_one_by_one_allocation_and_one_free),
            test!(a1_reuse_both_copies_of_the_reused_vec_fill_one_buffer),
        ],
        allocator_sensitive: true,
        needs: &[],
    },
    Experiment {
        id: "A1-counts",
        kind: Kind::Count,
        title: "N = 200,000 nodes, twelve ways: what the allocator saw",
        function: seed_table::A1_COUNTS,
        pinned_by: &[
            test!(a1_box_per_item_is_n_allocations_and_n_deallocations_plus_the_vec_of_pointers),
            test!(a1_bumpalo_lands_on_2_chunks_because_its_second_chunk_happens_to_fit_the_nodes),
            test!(a1_typed_arena_is_12_chunks_its_chunk_list_and_the_pointer_vec),
            test!(a1_the_free_list_pool_allocates_exactly_what_its_typed_arena_does),
            test!(a1_slab_grows_like_a_vec),
            test!(a1_the_contiguous_rows_are_one_allocation_and_no_growth_once_reserved),
            test!(a1_the_reused_vec_allocates_once_before_its_runs_and_nothing_in_them),
            test!(a1_the_reused_vec_differs_from_the_fresh_reserved_one_by_one_allocation_and_one_free),
            published!(a1_counts_published_box_per_item_is_200001_allocations_and_bumpalo_2),
            published!(a1_counts_published_contiguous_rows_are_one_allocation_and_the_reused_vec_none),
            published!(a1_counts_published_rows_are_what_the_test_profile_counts),
            "crates/arena-chapter/tests/a1_counts_dhat.rs::a1_counts_dhat_agrees_with_counting_alloc_on_every_way",
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "A2",
        kind: Kind::Count,
        title: "Growth is geometric: pushes without reserving",
        function: growth::A2,
        pinned_by: &[
            test!(a2_200000_pushes_change_the_capacity_between_15_and_40_times_as_the_seeds_test_asks),
            test!(a2_200000_pushes_are_the_first_allocation_and_16_growths_to_262144_nodes),
            test!(a2_vec_starts_at_4_elements_from_2_bytes_to_1_kib_and_doubles),
            test!(a2_zigs_growth_rule_gives_the_seeds_21_remaps_at_200000_and_19_growths_at_100000),
            published!(a2_published_growths_are_16_for_200000_pushes_and_zigs_rule_21),
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "A3",
        kind: Kind::Count,
        title: "Reserve once: one allocation, no growth",
        function: growth::A3,
        pinned_by: &[
            test!(a1_the_contiguous_rows_are_one_allocation_and_no_growth_once_reserved),
            published!(a3_published_reserving_is_one_allocation_of_n_nodes),
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "A4",
        kind: Kind::Fact,
        title: "Same code, different allocator, different calls: 200,000 pushes without reserving",
        function: growth::A4,
        pinned_by: &[
            test!(a4_never_in_place_moves_every_growth),
            test!(a4_mimalloc_moves_every_growth_and_a_bump_extends_only_while_its_chunk_has_room),
            test!(a4_counting_tells_an_extended_block_from_a_moved_one),
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "A4-bump",
        kind: Kind::Count,
        title: "What growing a vector leaves in a `Bump`: 200,000 pushes onto a `bumpalo::collections::Vec`",
        function: growth::A4_BUMP,
        pinned_by: &[
            test!(a4_bumpalo_grows_its_last_allocation_in_place_and_only_a_neighbour_or_a_full_chunk_leaves_garbage),
            published!(a4_bump_published_a_vector_grown_alone_leaves_no_garbage),
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "A5",
        kind: Kind::Fact,
        title: "One function, any allocator: what Rust offers compared with Zig's allocator parameter",
        function: rust::A5,
        pinned_by: &[
            "crates/arena/src/routes.rs",
            "crates/arena/src/routes.rs::a5_every_route_is_a_section_with_a_compiling_example",
            "crates/arena/src/routes.rs::a5_the_workspace_pins_bumpalo_to_3_20",
            test!(a5_one_function_runs_with_any_allocator),
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "A8",
        kind: Kind::Fact,
        title: "What Rust turns into compile errors",
        function: rust::A8,
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
        title: "Churn: 10,000 objects live, 1,000,000 steps that each free one and create one",
        function: churn::A6,
        pinned_by: &[test!(a6_every_store_frees_and_creates_the_same_objects)],
        allocator_sensitive: true,
        needs: &[],
    },
    Experiment {
        id: "A6-bytes",
        kind: Kind::Count,
        title: "Churn: memory held, counted",
        function: churn::A6_BYTES,
        pinned_by: &[
            test!(a6_under_churn_the_pool_holds_a_tenth_of_the_arena_or_less),
            published!(a6_bytes_published_the_pool_holds_a_tenth_of_the_arena_under_churn),
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "A7",
        kind: Kind::Count,
        title: "Who runs destructors: 1,000 values with a counted `Drop`, then the arena dropped",
        function: rust::A7,
        pinned_by: &[
            test!(a7_bumpalo_runs_no_destructors_typed_arena_and_bumpalo_box_do),
            test!(a7_a_vec_inside_a_bump_runs_no_destructor_and_leaks_its_buffer),
            published!(a7_published_destructors_are_0_1000_1000_0_and_one_leak),
        ],
        allocator_sensitive: false,
        needs: &[],
    },
    Experiment {
        id: "X1-arena",
        kind: Kind::Time,
        title: "The allocator as a variable: does each technique still pay under mimalloc, and does switching the allocator beat it?",
        function: x1::X1,
        pinned_by: &[],
        // It makes no timing run of its own: it reads A1's and A6's, which ran under every
        // allocator.
        allocator_sensitive: false,
        needs: &["A1", "A6"],
    },
];

/// The line under every table that shows seed figures.
const SEED_ITALIC: &str = "*Italic*: seed `001`'s figures (machine under *Sources*).";

/// The columns every timed table of this chapter starts with: the method, its median, both
/// noise sources under the report's allocator, and its median under mimalloc.
fn noise_columns<'a>(m: &'a Measured, first: &str) -> Columns<'a, Method<'a>> {
    let here = m.allocator.short();
    let mimalloc = m.under(Allocator::Mimalloc);
    let processes = m.process_count();
    Columns::new()
        .col(first, |r: &Method<'_>| Cell::text(r.name()))
        .col(format!("median ({here})"), Method::median_cell)
        .col(format!("twin disagreement ({here})"), |r: &Method<'_>| {
            Cell::Percent(r.twin_disagreement_pct())
        })
        .col(
            format!("between processes ({here})"),
            move |r: &Method<'_>| {
                if processes > 1 {
                    Cell::Percent(r.spread_pct())
                } else {
                    Cell::Empty
                }
            },
        )
        .col("median (mimalloc)", move |r: &Method<'_>| {
            mimalloc.map_or(Cell::Empty, |mm| mm.expect(r.name()).median_cell())
        })
}

/// [`noise_columns`] and the instructions of the method and its twin.
fn timed_columns<'a>(m: &'a Measured, first: &str) -> Columns<'a, Method<'a>> {
    noise_columns(m, first).col("instructions (twin)", |r: &Method<'_>| {
        r.instructions()
            .map_or(Cell::Empty, |[original, twin]| Cell::Instructions {
                original,
                twin,
            })
    })
}

/// The note under a table built with [`noise_columns`]: what the noise columns measure.
fn noise_note(m: &Measured) -> String {
    format!(
        "Twin disagreement and between processes are {}'s, in % of the median.",
        m.allocator.short()
    )
}

/// The note under a table built with [`timed_columns`]: the noise columns and the instructions.
fn timed_note(m: &Measured) -> String {
    format!(
        "{} Instructions are callgrind's, per operation, for the method and its twin.",
        noise_note(m)
    )
}
