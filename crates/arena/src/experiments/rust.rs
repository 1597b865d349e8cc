//! What Rust offers and checks: one function for any allocator (A5), who runs destructors (A7),
//! what the compiler refuses (A8).

use lab::fmt::thousands;
use lab::report::{Function, Run};
use lab::table::{Cell, Columns};
use lab::{Kind, Table, count};

use crate::contract::{RULES, Rule};
use crate::{arena_value_owning_a_vec, drops_bump, drops_bump_box, drops_typed_arena};

pub(super) const A5: Function = lab::function!(a5_any_allocator);
pub(super) const A7: Function = lab::function!(a7_drop);
pub(super) const A8: Function = lab::function!(a8_compile_errors);

const A5_ROWS: [[&str; 3]; 5] = [
    [
        "Zig (the seed)",
        "every allocating function takes `std.mem.Allocator`; `buildNodes(arena.allocator(), n)` and `buildNodes(gpa, n)` are the same code",
        "the norm: the standard library is written this way",
    ],
    [
        "Rust `std`",
        "one global allocator per program (`#[global_allocator]`); `Vec<T, A>` with an allocator parameter exists only on nightly (`allocator_api`)",
        "stable code cannot pass an allocator to a `std` collection",
    ],
    [
        "`allocator-api2` (stable)",
        "the same `Allocator` trait and its own `Vec<T, A>` / `Box<T, A>`; `fn build_nodes<A: Allocator>(n, alloc: A)` in `crates/arena/src/allocators.rs` runs with `Global`, `&Bump` and `NeverInPlace`",
        "used by this chapter (A4); collections from other crates must opt in",
    ],
    [
        "`bumpalo::collections`",
        "a fork of `std`'s `Vec` and `String` that allocate in a `Bump`",
        "bumpalo's README says the module will be removed once `std` collections take an allocator; pinned here as `bumpalo = \"~3.20\"`",
    ],
    [
        "a typed arena (`typed-arena`)",
        "`Arena<T>::alloc(value) -> &mut T` for one type",
        "no allocator parameter: the arena is the allocator",
    ],
];

fn a5_any_allocator(run: &Run) -> Vec<Table> {
    let mut table = run.table(&["where", "how", "status"]);
    for row in A5_ROWS {
        table.row(row.iter().map(|s| Cell::text(*s)).collect());
    }
    table.note("The example compiles and runs as a doctest of `arena::allocators::build_nodes`, once with the global allocator and once with a `Bump`.");
    vec![table]
}

fn a7_drop(run: &Run) -> Vec<Table> {
    const K: usize = 1000;
    let mut table = run.table(&[
        "where the values live",
        "destructors run",
        "bytes still live after",
    ]);
    for (label, f) in [
        ("`bumpalo::Bump::alloc`", drops_bump as fn(usize) -> usize),
        ("`typed_arena::Arena::alloc`", drops_typed_arena),
        ("`bumpalo::boxed::Box::new_in`", drops_bump_box),
    ] {
        let (drops, stats) = count(|| f(K));
        table.row(vec![
            Cell::text(label),
            Cell::count(drops),
            Cell::Bytes(stats.bytes_allocated - stats.bytes_freed),
        ]);
    }
    let (asked, stats) = count(|| arena_value_owning_a_vec(K));
    table.row(vec![
        Cell::text("a `Vec<u64>` of 1,000 elements inside a `Bump`"),
        Cell::Empty,
        Cell::Bytes(stats.bytes_allocated - stats.bytes_freed),
    ]);
    table.note(format!("`Bump` frees its chunks without running destructors; `typed_arena::Arena` runs every one; a `bumpalo::boxed::Box` runs its value's destructor when the box goes out of scope. The last row is the classic leak: the `Vec`'s own heap buffer ({} bytes) is owned by a value nobody drops, so it is never freed — the arena's memory is returned, the `Vec`'s is not.", thousands(asked as u64)));
    table.note("Pinned by `bumpalo_runs_no_destructors_typed_arena_and_bumpalo_box_do` and `a_vec_inside_a_bump_leaks_its_buffer`.");
    vec![table]
}

fn a8_compile_errors(run: &Run) -> Vec<Table> {
    let mut table = run.own(
        Columns::new()
            .col("what the code does", |rule: &Rule| Cell::text(rule.section))
            .col("in Zig (the seed's language)", |rule: &Rule| {
                Cell::text(rule.zig)
            })
            .col("in Rust", |rule: &Rule| Cell::text(rule.rust))
            .col("compiler", |rule: &Rule| {
                Cell::text(
                    rule.error
                        .map_or("compiles".to_owned(), |code| format!("error `{code}`")),
                )
            })
            .table("A8", Kind::Fact, "", &RULES),
    );
    table.note("Each row is a section of `arena::contract`: a `compile_fail` example carrying its error code, which nightly rustdoc checks (`cargo +nightly test --doc -p arena`), and a compiling twin that differs only in obeying the rule, so the refusal is the rule's and not a typo's.");
    vec![table]
}
