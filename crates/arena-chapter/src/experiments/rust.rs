//! What Rust offers and checks: one function for any allocator (A5), who runs destructors (A7),
//! what the compiler refuses (A8).

use lab::fmt::thousands;
use lab::publish::Agreement;
use lab::report::{Function, Run};
use lab::table::{Cell, Claim, Columns};
use lab::{Kind, Table, count};

use crate::drops::{Counted, drops_bump, drops_bump_box, drops_typed_arena, drops_vec_in_bump};
use arena::contract::{RULES, Rule};
use arena::routes::ROUTES;

pub(super) const A5: Function = lab::function!(a5_any_allocator);
pub(super) const A7: Function = lab::function!(a7_drop);
pub(super) const A8: Function = lab::function!(a8_compile_errors);

fn a5_any_allocator(run: &Run) -> Vec<Table> {
    let mut table = run.table(&["where", "how", "status"]);
    table.row(vec![
        Cell::text("Zig, as the seed describes it"),
        Cell::text("every allocating function takes a `std.mem.Allocator`; every allocation is a call through its vtable"),
        Cell::text("in the standard library already: switching allocator changes the argument, not a line of the function"),
    ]);
    for route in ROUTES {
        table.row(vec![
            Cell::text(route.section),
            Cell::text(route.how),
            Cell::text(route.status),
        ]);
    }
    table.note("Each Rust row is a section of `arena::routes` with an example that compiles (the first also with the code Rust refuses, and its error code, which nightly rustdoc checks).");
    vec![table]
}

fn a7_drop(run: &Run) -> Vec<Table> {
    const K: usize = 1000;
    let mut table = run.table(&[
        "where the values live",
        "destructors run",
        "bytes still live after",
    ]);
    let mut drops_of = Vec::new();
    for (label, f) in [
        ("`bumpalo::Bump::alloc`", drops_bump as fn(usize) -> usize),
        ("`typed_arena::Arena::alloc`", drops_typed_arena),
        ("`bumpalo::boxed::Box::new_in`", drops_bump_box),
        (
            "a `Vec` of the values, the `Vec` itself in a `Bump`",
            drops_vec_in_bump,
        ),
    ] {
        let (drops, stats) = count(|| f(K));
        drops_of.push(drops);
        table.row(vec![
            Cell::text(label),
            Cell::count(drops),
            Cell::Bytes(stats.bytes_allocated - stats.bytes_freed),
        ]);
    }
    table.note(format!("The last row is the classic leak: nobody drops the `Vec`, so its buffer ({} values of {} bytes) is never freed.", thousands(K as u64), size_of::<Counted>()));
    let how_many = |drops: usize| match drops {
        0 => "none",
        d if d == K => "every one",
        _ => "some",
    };
    for (at, claim) in [
        (
            0,
            "destructors run for values put in a `Bump` with `Bump::alloc`",
        ),
        (
            1,
            "destructors run for values put in a `typed_arena::Arena`",
        ),
    ] {
        table.conclude(
            claim,
            Claim::verdict(Agreement::All(how_many(drops_of[at]).to_owned())),
        );
    }
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
