//! X1 for chapter 4: every timed technique of the chapter against what it replaces, under glibc
//! and under mimalloc. It makes no timing run of its own: it reads A1's and A6's runs, which the
//! report measured under both allocators.

use lab::Table;
use lab::protocol::Allocator;
use lab::report::{Function, Run};
use lab::table::Cell;
use lab::timing::{Technique, allocator_table};

use super::churn::{CHURN_ARENA, CHURN_POOL};
use super::kept;
use crate::ways::{
    BOX_PER_ITEM, BUMP_PER_ITEM, ONE_ALLOCATION, POOL_PER_ITEM, PUSH_NO_RESERVE, PUSH_RESERVED,
    TYPED_ARENA_PER_ITEM,
};

pub(super) const X1: Function = lab::function!(x1_arena);

fn x1_arena(run: &Run) -> Vec<Table> {
    let (Some(a1), Some(a6)) = (kept("A1"), kept("A6")) else {
        let mut table = run.table(&["technique vs what it replaces"]);
        table.row(vec![Cell::Empty]);
        table.note("A1 and A6 did not run in this process (an `--only` run): nothing to compare.");
        return vec![table];
    };
    let box_vs = |label, technique: &'static str| Technique {
        label,
        run: &a1,
        technique,
        baseline: BOX_PER_ITEM.label,
    };
    let rows = [
        box_vs(
            "`bumpalo`, one `alloc` per item vs one `Box` per item",
            BUMP_PER_ITEM.label,
        ),
        box_vs(
            "`typed-arena` vs one `Box` per item",
            TYPED_ARENA_PER_ITEM.label,
        ),
        box_vs(
            "free-list pool (`slab`) vs one `Box` per item",
            POOL_PER_ITEM.label,
        ),
        box_vs(
            "one allocation for all nodes vs one `Box` per item",
            ONE_ALLOCATION.label,
        ),
        Technique {
            label: "`Vec::with_capacity` vs `Vec::push` without reserving",
            run: &a1,
            technique: PUSH_RESERVED.label,
            baseline: PUSH_NO_RESERVE.label,
        },
        Technique {
            label: "create only: `bumpalo` vs the free-list pool",
            run: &a1,
            technique: BUMP_PER_ITEM.label,
            baseline: POOL_PER_ITEM.label,
        },
        Technique {
            label: "churn: the free-list pool vs `bumpalo`",
            run: &a6,
            technique: CHURN_POOL,
            baseline: CHURN_ARENA,
        },
    ];
    let mut table = run.own(allocator_table("X1-arena", "", &rows));
    table.note("The last row is from A6's run, the others from A1's.");
    table.note(format!("A1: {}", a1.protocol_note()));
    table.note(format!("A6: {}", a6.protocol_note()));
    if let Some(mimalloc) = a1.under(Allocator::Mimalloc) {
        table.conclude(
            "A1's target, under mimalloc: `bumpalo` at least 5× faster than one `Box` per item (the harder test: mimalloc serves small blocks from per-thread free lists)",
            mimalloc.target_speedup(BUMP_PER_ITEM.label, BOX_PER_ITEM.label, 5.0),
        );
    }
    vec![table]
}
