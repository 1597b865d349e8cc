//! X1 for chapter 4: every timed technique of the chapter against what it
//! replaces, under glibc and under mimalloc, and the question the chapter asks of the allocator:
//! does switching it beat writing an arena or a pool? It makes no timing run of its own: it reads
//! A1's and A6's runs, which the report measured under both allocators.

use lab::Table;
use lab::protocol::Allocator;
use lab::publish::{self, Agreement, Verdict};
use lab::report::{Function, Run};
use lab::table::Claim;
use lab::timing::{Measured, Technique, allocator_table};

use crate::churn::{CHURN_ARENA, CHURN_BOX, CHURN_POOL};
use crate::ways::{
    BOX_PER_ITEM, BUMP_PER_ITEM, ONE_ALLOCATION, POOL_PER_ITEM, PUSH_NO_RESERVE, PUSH_RESERVED,
    REUSED_VEC, SLAB_PER_ITEM, TYPED_ARENA_PER_ITEM,
};

pub(super) const X1: Function = lab::function!(x1_arena);

fn x1_arena(run: &Run) -> Vec<Table> {
    let a1_runs = run.kept("A1");
    let of = |label: usize| {
        a1_runs
            .iter()
            .find(|kept| kept.size == label)
            .map(|kept| kept.measured.clone())
            .unwrap_or_else(|| panic!("A1 keeps its run {label}"))
    };
    // A1 keeps its round of twelve as 0 and A1-reuse's pair with a fresh `Vec` as 1.
    let (a1, a1_reuse, a6) = (of(0), of(1), run.kept_one("A6"));
    vec![run.own(table(&a1, &a1_reuse, &a6))]
}

/// X1-arena, from A1's run, A1-reuse's pair with a fresh `Vec`, and A6's run.
fn table(a1: &Measured, a1_reuse: &Measured, a6: &Measured) -> Table {
    let instead_of = |measured, technique, baseline, label| Technique {
        label,
        measured,
        technique,
        baseline,
    };
    let boxed = BOX_PER_ITEM.label;
    let rows = [
        instead_of(
            a1_reuse,
            REUSED_VEC.label,
            PUSH_RESERVED.label,
            "the reused `Vec` instead of a fresh `Vec::with_capacity` per run (the same pushes)",
        ),
        instead_of(
            a1,
            BUMP_PER_ITEM.label,
            boxed,
            "`bumpalo`, one `alloc` per item, instead of one `Box` per item",
        ),
        instead_of(
            a1,
            TYPED_ARENA_PER_ITEM.label,
            boxed,
            "`typed-arena` instead of one `Box` per item",
        ),
        instead_of(
            a1,
            POOL_PER_ITEM.label,
            boxed,
            "the free-list pool instead of one `Box` per item",
        ),
        instead_of(
            a1,
            SLAB_PER_ITEM.label,
            boxed,
            "the index-based pool (`slab`) instead of one `Box` per item",
        ),
        instead_of(
            a1,
            ONE_ALLOCATION.label,
            boxed,
            "one allocation for all nodes instead of one `Box` per item",
        ),
        instead_of(
            a1,
            PUSH_RESERVED.label,
            PUSH_NO_RESERVE.label,
            "`Vec::with_capacity` instead of `Vec::push` without reserving",
        ),
        instead_of(
            a6,
            CHURN_POOL.label,
            CHURN_BOX.label,
            "churn: the free-list pool instead of one `Box` per object",
        ),
        instead_of(
            a6,
            CHURN_ARENA.label,
            CHURN_BOX.label,
            "churn: `bumpalo` instead of one `Box` per object",
        ),
    ];
    let mut table = allocator_table("X1-arena", "", &rows);
    table.note("The first row is from A1-reuse's pair run, the last two from A6's run, the others from A1's, each measured as its table's note says.");
    let (Some(a1_glibc), Some(a1_mimalloc), Some(a6_glibc), Some(a6_mimalloc)) = (
        a1.under(Allocator::System),
        a1.under(Allocator::Mimalloc),
        a6.under(Allocator::System),
        a6.under(Allocator::Mimalloc),
    ) else {
        table.note("No mimalloc processes in this run: the conclusions on switching the allocator need them.");
        return table;
    };
    table.note("The conclusions pair processes under the two allocators by report round; the conclusion on the reused `Vec` reads A1's run, which favours the fresh blocks it is set against (appendix).");
    table.conclude(
        "switching the global allocator, no code changed: one `Box` per item under glibc / under mimalloc",
        ratio_across((a1_glibc, boxed), (a1_mimalloc, boxed)),
    );
    table.conclude(
        "the faster fix for one `Box` per item: switching to mimalloc, or `bumpalo` under glibc",
        faster_across(
            (a1_mimalloc, boxed, "switching to mimalloc"),
            (a1_glibc, BUMP_PER_ITEM.label, "`bumpalo`"),
        ),
    );
    table.conclude(
        "the faster fix for one `Box` per item: switching to mimalloc, or the reused `Vec` under glibc",
        faster_across(
            (a1_mimalloc, boxed, "switching to mimalloc"),
            (a1_glibc, REUSED_VEC.label, "the reused `Vec`"),
        ),
    );
    table.conclude(
        "churn, switching the global allocator: one `Box` per object under glibc / under mimalloc",
        ratio_across((a6_glibc, CHURN_BOX.label), (a6_mimalloc, CHURN_BOX.label)),
    );
    table.conclude(
        "churn, the faster fix for one `Box` per object: switching to mimalloc, or the free-list pool under glibc",
        faster_across(
            (a6_mimalloc, CHURN_BOX.label, "switching to mimalloc"),
            (a6_glibc, CHURN_POOL.label, "the free-list pool"),
        ),
    );
    table
}

/// The figures of method `a` in run `ra` and method `b` in run `rb`, if both runs were measured
/// in as many processes (they pair by round).
fn figures(
    (ra, a): (&Measured, &str),
    (rb, b): (&Measured, &str),
) -> Option<(publish::Figures, publish::Figures)> {
    (ra.process_count() == rb.process_count())
        .then(|| (ra.expect(a).figures(), rb.expect(b).figures()))
}

/// `a / b` across two runs, as a conclusion for other machines (a bound, or this machine's
/// figure).
fn ratio_across(a: (&Measured, &str), b: (&Measured, &str)) -> Claim {
    figures(a, b).map_or(Claim::NotResolvable, |(fa, fb)| {
        Claim::bound(publish::bound(&fa, &fb, publish::TRANSFER_MARGIN))
    })
}

/// Which of two methods from two runs is faster, if their difference beats the noise.
fn faster_across(
    (ra, a, a_label): (&Measured, &str, &str),
    (rb, b, b_label): (&Measured, &str, &str),
) -> Claim {
    figures((ra, a), (rb, b)).map_or(Claim::NotResolvable, |(fa, fb)| {
        match publish::difference(&fa, &fb) {
            Verdict::Published(d) => Claim::verdict(Agreement::All(
                if d < 0.0 { a_label } else { b_label }.to_owned(),
            )),
            Verdict::NotResolvable { .. } => Claim::NotResolvable,
        }
    })
}
