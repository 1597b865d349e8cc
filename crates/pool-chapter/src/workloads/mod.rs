//! The chapter's workloads, one function each, called by the experiments, the criterion bench
//! and the tests (so the three always measure the same code).
//!
//! The domain is the .NET chapter's: an order line such as `1042|ต้มยำกุ้ง|2|18000\n` encoded as
//! UTF-8 into a 128-byte buffer, once per line. The contention workload (P12) and the
//! comparison with other pool crates (P13) rent, touch and give back 8 KiB, like the hit path
//! of P10.
//!
//! One file per topic: `lines.rs` (the order line's buffer: P1, P6, P7), `tenancy.rs` (the
//! previous tenant's data and secrets: P4, P5), `touch.rs` (the hit path's touch and the timed
//! ways to get a buffer, from one reused `Vec` to a fresh zeroed one: P9-time, P10, P10-hit), `contention.rs` (P12), `handoff.rs` (P12-handoff), `crates.rs` (P13) and `write.rs` (P14: the line written into a buffer that grows).

mod contention;
mod crates;
mod handoff;
mod lines;
mod tenancy;
mod touch;
mod write;

pub use contention::{
    CONTENTION_OPS, CONTENTION_THREADS, ContentionRun, ContentionWorkers, Source, ThreadRun,
    contention, contention_op,
};
pub use crates::{Contender, Contenders, P13_SIZES};
pub use handoff::{
    HANDOFF_BATCH, HANDOFF_BATCHES, HANDOFF_ITEMS, HANDOFF_PAIRS, Handoff, HandoffRun,
    HandoffWorkers, Item, consume, produce, receive, send,
};
pub use lines::{
    FIRST_LINE, LINE_BUFFER, LineError, SECOND_LINE, encode_line, line_fresh, line_or_error,
    line_or_error_forgetting, line_or_panic, line_pooled, line_stack, lines, rent_many,
};
pub use tenancy::{LetGo, StaleData, StaleVec, secret_left_for_next_renter, stale_data, stale_vec};
pub use touch::{
    HIT_BYTES, P10_SIZES, fresh_touch, pool_sized_for, rent_touch, rent_touch_checked,
    reused_touch, touch, touch_ends, uninit_stack_touch, unzeroed_touch, with_fresh, with_reused,
    with_spare_ends, with_unzeroed, with_unzeroed_stack_ends, with_zeroed_stack,
    zeroed_stack_touch,
};
pub use write::{
    ORDER, SMALL_ROOM, WRITE_ROOM, write_fresh, write_line, write_rented, write_reused, written,
};
