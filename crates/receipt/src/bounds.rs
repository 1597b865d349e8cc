//! What a processor holds at most, whatever its input: the heap its buffers can take at once,
//! from the code's constants and the growth rules of the buffers they live in. Each bound is an
//! upper bound on the bytes the processor asks the allocator for and has not given back, at any
//! moment of a run of [`Processor::run_reader`](crate::Processor::run_reader) with the default
//! chunk size — what the `receipt` command runs. (What is resident can be less: a buffer's
//! capacity that was never written to takes no memory. An allocator may keep memory that was
//! given back, which is not counted here.)
//!
//! Every strategy holds the same [`COMMON`] parts; each holds its open order its own way
//! ([`held`]). The order is what could grow with the input, and it is bounded: at most
//! [`MAX_ORDER_LINES`] lines of at most [`MAX_LINE`] bytes, so at most
//! [`render::MAX_RECEIPT`] bytes of receipt text. A buffer that doubles as it grows may hold
//! up to twice what it needs; a pool keeps one buffer of every size it was asked for.

use std::mem::size_of;

use crate::engine::FLUSH_BYTES;
use crate::input::CARRY_CAP;
use crate::line::{MAX_LINE, MAX_ORDER_LINES, Numbers};
use crate::render::{self, Line, MAX_ITEM_LINE, MAX_RECEIPT, MAX_WINDOW};
use crate::scan::ItemCache;
use crate::{CHUNK_SIZE, POOLED_FIRST_RENT, STACK_ORDER_BYTES, Strategy};

/// The lines of one order, as a count.
const LINES: usize = MAX_ORDER_LINES as usize;

/// The longest item name: a line of [`MAX_LINE`] bytes whose order id, quantity and price have
/// one digit each.
pub const MAX_ITEM: usize = MAX_LINE - "1|".len() - "|1|1".len();

/// The output buffer: receipts that are complete until they reach [`FLUSH_BYTES`] (after an
/// order, they are handed to the writer), then a blank line and one order's receipt (at most
/// [`render::MAX_RECEIPT`]), and the widest window the renderer asks for beyond it
/// ([`render::MAX_WINDOW`]); twice that, since a vector that grows doubles its capacity.
pub const OUTPUT_BUFFER: usize = 2 * (FLUSH_BYTES + MAX_RECEIPT + MAX_WINDOW);

/// The open order's bad line numbers: at most `MAX_ORDER_LINES + 1` of them (the line past the
/// bound is the last one reported), in a vector that doubles.
pub const BAD_LINES: usize = (LINES + 1).next_power_of_two() * size_of::<u64>();

/// What every processor holds, whatever its strategy: one input chunk ([`CHUNK_SIZE`]), the
/// start of a line cut by a chunk's end ([`CARRY_CAP`]), the item cache
/// ([`ItemCache::BYTES`]), the open order's bad line numbers ([`BAD_LINES`]) and the output
/// buffer ([`OUTPUT_BUFFER`]).
pub const COMMON: usize = CHUNK_SIZE + CARRY_CAP + ItemCache::BYTES + BAD_LINES + OUTPUT_BUFFER;

/// The pool's smallest bucket, as `pool::MIN_BUCKET_LEN`.
const MIN_BUCKET: usize = 16;

/// The bucket a request of `len` bytes is rounded up to (as `pool::bucket_capacity`).
const fn bucket(len: usize) -> usize {
    let len = if len < MIN_BUCKET { MIN_BUCKET } else { len };
    len.next_power_of_two()
}

/// The largest buffer the `pooled` strategy's receipt can move to: a [`pool::RentedBuf`] that
/// must grow moves to the bucket of the length it needs, the power of two at or above it, and a
/// receipt needs at most [`render::MAX_RECEIPT`] bytes, so its last bucket is the one of
/// `MAX_RECEIPT`, however its lines came (a long first line jumps buckets, never past the one
/// of the length it needs).
pub const POOLED_LARGEST_BUCKET: usize = bucket(MAX_RECEIPT);

/// The `pooled` strategy's receipt buffers: one buffer of every power-of-two bucket from the
/// first rent's ([`POOLED_FIRST_RENT`]) to the largest ([`POOLED_LARGEST_BUCKET`]): 1 KiB +
/// 2 KiB + … + 4 MiB, twice the largest less the first.
///
/// An order holds one buffer at a time (two while it moves to a larger bucket, the smaller
/// given back just after), and the pool keeps every buffer given back: at most one per bucket,
/// since a second buffer of a bucket is allocated only while the first is rented, and the one
/// order open at a time never holds two of a bucket. Which buckets an order goes through
/// depends on its lines, but never one above the bucket of its receipt's length: so no input
/// leaves more than one buffer of each bucket from the first rent's to the longest receipt's,
/// and an order that grows line by line from its first rent leaves exactly that.
///
/// With [`COMMON`], that bounds the pooled processor's heap at just above 16 MiB (R4's
/// target is on what is resident, and room a buffer never wrote to, such as the end of the
/// largest bucket's buffer past the receipt, is not).
pub const POOLED_BUFFERS: usize = 2 * POOLED_LARGEST_BUCKET - bucket(POOLED_FIRST_RENT);

/// The pool's own tables: every bucket's stack in its shards (a lock and a length for each of
/// 8 shards of each of the 21 buckets up to `pool::SHARED_MAX_LEN`), a cache line of byte credit
/// per shard, the storage of the stacks that keep a buffer, and a thread's cache for the pool
/// (about 9.5 KB with 64-bit pointers). An allowance, not a constant of the code:
/// `r4_the_pools_own_tables_fit_their_allowance` pins it.
pub const POOL_TABLES: usize = 16 * 1024;

/// The `stack` strategy's receipt text once it spills from its inline buffer
/// ([`STACK_ORDER_BYTES`], on the stack): a `SmallVec` grows to the power of two above what it
/// holds, so at most the power of two above [`render::MAX_RECEIPT`].
pub const STACK_SPILL: usize = if MAX_RECEIPT > STACK_ORDER_BYTES {
    MAX_RECEIPT.next_power_of_two()
} else {
    0
};

/// The `arena` strategy's data for one order: every item name copied in (at most [`MAX_ITEM`]
/// bytes each) and its vector of lines, allocated in the arena too, where each time it doubles
/// the old one stays until the reset (1, 2, 4, … lines up to the power of two above
/// [`MAX_ORDER_LINES`]), each aligned to 8 bytes.
pub const ARENA_ORDER: usize = LINES * MAX_ITEM
    + (2 * LINES.next_power_of_two() - 1) * size_of::<Line<'static>>()
    + 8 * (LINES.next_power_of_two().trailing_zeros() as usize + 1);

/// The largest single allocation the arena strategy makes: an item name, or its vector of lines
/// at its largest. What is left of a chunk when an allocation does not fit is lost until the
/// reset.
const ARENA_LARGEST_ALLOCATION: usize = {
    let lines = LINES.next_power_of_two() * size_of::<Line<'static>>();
    if lines > MAX_ITEM { lines } else { MAX_ITEM }
};

/// `bumpalo`'s chunks (3.20), for the sizes this crate allocates: every chunk a power of two of
/// at least [`BUMP_FIRST_CHUNK`] bytes, less what bumpalo leaves for the allocator's header
/// ([`BUMP_ALLOCATOR_HEADER`]), of which [`BUMP_CHUNK_OVERHEAD`] are not usable (that header and
/// bumpalo's footer); each new chunk twice the one before (or the power of two above a larger
/// request). `bumpalo_chunks_are_what_the_arena_bound_assumes` pins them.
pub const BUMP_FIRST_CHUNK: usize = 512;
/// What bumpalo leaves of each power of two for the allocator's own header.
pub const BUMP_ALLOCATOR_HEADER: usize = 16;
/// What of each power of two is not usable: the allocator's header and bumpalo's footer.
pub const BUMP_CHUNK_OVERHEAD: usize = 64;

/// The `arena` strategy's chunks: the most that a chunk kept by a reset and the chunks one order
/// doubles into from it, until its data fits ([`ARENA_ORDER`]), take together, whichever chunk
/// was kept.
///
/// `Bump::reset` frees every chunk but the last, which it keeps for the next order. If the kept
/// chunk holds an order, nothing more is allocated; if it is just too small — a chunk half the
/// size of the one that holds the largest order, kept after a smaller order — the next large
/// order adds a chunk twice as large, and the two are held at once.
pub const ARENA_CHUNKS: usize = {
    let mut most = 0;
    let mut kept = BUMP_FIRST_CHUNK;
    loop {
        let mut held = kept - BUMP_ALLOCATOR_HEADER;
        let mut room = kept - BUMP_CHUNK_OVERHEAD;
        let mut chunk = kept;
        while room < ARENA_ORDER {
            chunk *= 2;
            held += chunk - BUMP_ALLOCATOR_HEADER;
            room = room.saturating_sub(ARENA_LARGEST_ALLOCATION) + chunk - BUMP_CHUNK_OVERHEAD;
        }
        if held > most {
            most = held;
        }
        if kept - BUMP_CHUNK_OVERHEAD >= ARENA_ORDER {
            break;
        }
        kept *= 2;
    }
    most
};

/// The `naive` strategy's order: its vector of lines (an item `String` and the numbers each, up
/// to the power of two above [`MAX_ORDER_LINES`]), and the larger of what it holds while it
/// reads the order — the item names, and one line's fields split into `String`s (up to
/// `MAX_LINE + 1` of them, in a vector that doubles) — and what it holds while it formats the
/// receipt: the receipt
/// `String`, up to twice [`render::MAX_RECEIPT`] as it doubles, one item name not yet freed and
/// one receipt line's `format!` (up to twice [`render::MAX_ITEM_LINE`], and its numbers'
/// strings). Each name is freed once its receipt line is written, and a receipt line is longer
/// than its name, so the names left and the receipt's room together only grow as it is
/// formatted.
///
/// With [`COMMON`] this alone is above 16 MiB, R4's target for the other strategies: a
/// receipt `String` that doubles ends with up to twice the longest receipt's room, beside an
/// output buffer that doubled too, and everything `naive` frees along the way (each name, each
/// line's `String`s, each smaller receipt `String` it grew out of) the allocator may keep. What
/// would bring it under — a receipt `String` reserved to its length, `String`s kept from line
/// to line — is what the other strategies (and `naive-reuse`) do and `naive` does not.
pub const NAIVE_ORDER: usize = {
    let lines = LINES.next_power_of_two() * size_of::<(String, Numbers)>();
    let fields = (MAX_LINE + 1).next_power_of_two() * size_of::<String>() + MAX_LINE;
    let reading = LINES * MAX_ITEM + fields;
    let numbers = 4 * 2 * (render::MAX_MONEY + 1);
    let formatting = 2 * MAX_RECEIPT + MAX_ITEM + 2 * MAX_ITEM_LINE + numbers;
    lines
        + if reading > formatting {
            reading
        } else {
            formatting
        }
};

/// What `naive-reuse` holds: everything `naive` holds at one time or another, kept at once,
/// since it frees nothing between orders. Its kept lines' item `String`s (each at most twice
/// the longest item it held: a `String` grows to the larger of twice its room and what it
/// needs), the line fields' `String`s, the receipt `String` (up to twice [`render::MAX_RECEIPT`]),
/// and one receipt line and its numbers' strings. An upper bound: no input need reach it (its
/// `String`s double past their content only when a longer one follows), so R4's worst case is
/// not built to.
pub const NAIVE_REUSE_ORDER: usize = {
    let lines = LINES.next_power_of_two() * size_of::<(String, Numbers)>();
    let items = LINES * 2 * MAX_ITEM;
    let fields = (MAX_LINE + 1).next_power_of_two() * size_of::<String>() + 2 * MAX_LINE;
    let numbers = 4 * 2 * (render::MAX_MONEY + 1);
    lines + items + fields + 2 * MAX_RECEIPT + 2 * MAX_ITEM_LINE + numbers
};

/// What `strategy` holds for its open order, beyond [`COMMON`].
pub const fn held(strategy: Strategy) -> usize {
    match strategy {
        Strategy::Naive => NAIVE_ORDER,
        Strategy::NaiveReuse => NAIVE_REUSE_ORDER,
        Strategy::Pooled => POOLED_BUFFERS + POOL_TABLES,
        Strategy::Stack => STACK_SPILL,
        Strategy::Arena => ARENA_CHUNKS,
        Strategy::Streaming => 0,
    }
}

/// The most a processor of `strategy` holds at once: [`COMMON`] and [`held`].
pub const fn heap_bound(strategy: Strategy) -> usize {
    COMMON + held(strategy)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// R4: the bounds' formulas, against the constants they come from.
    #[test]
    fn r4_the_bounds_follow_from_the_constants() {
        assert_eq!(MAX_ITEM, 4090);
        assert_eq!(MAX_RECEIPT, 27 + 1000 * (4096 + 53) + 54);
        assert_eq!(OUTPUT_BUFFER, 2 * (65_536 + MAX_RECEIPT + 118));
        assert_eq!(BAD_LINES, 1024 * 8);
        assert_eq!(
            COMMON,
            CHUNK_SIZE + CARRY_CAP + ItemCache::BYTES + BAD_LINES + OUTPUT_BUFFER
        );
        // The pool's buckets, by the pool's own rule: 1 KiB, 2 KiB, …, 4 MiB.
        let first = pool::bucket_capacity(POOLED_FIRST_RENT).unwrap();
        let largest = pool::bucket_capacity(MAX_RECEIPT).unwrap();
        assert_eq!((first, largest), (1 << 10, 1 << 22));
        assert_eq!(POOLED_LARGEST_BUCKET, largest);
        let buckets: usize = (first.trailing_zeros()..=largest.trailing_zeros())
            .map(|b| 1 << b)
            .sum();
        assert_eq!(POOLED_BUFFERS, buckets);
        assert!(
            largest <= pool::shared().largest_bucket(),
            "every rent is pooled"
        );
        assert_eq!(MIN_BUCKET, pool::MIN_BUCKET_LEN);
        // A receipt fits below 4 MiB, and so does every buffer the pooled strategy rents.
        const { assert!(MAX_RECEIPT <= 1 << 22 && MAX_RECEIPT > 1 << 21) };
        assert_eq!(POOLED_BUFFERS, (1 << 23) - (1 << 10));
        assert_eq!(STACK_SPILL, 1 << 22);
        // The arena: a kept chunk of 4 MiB that the largest order overflows, and 8 MiB more.
        const { assert!(ARENA_ORDER > (1 << 22) - BUMP_CHUNK_OVERHEAD) };
        assert_eq!(
            ARENA_CHUNKS,
            (1 << 22) + (1 << 23) - 2 * BUMP_ALLOCATOR_HEADER
        );
        for strategy in crate::STRATEGIES {
            assert_eq!(heap_bound(strategy), COMMON + held(strategy), "{strategy}");
        }
        // The README's table, to a tenth of a megabyte.
        let megabytes = |s| (heap_bound(s) as f64 / 1e5).round() / 10.0;
        assert_eq!(
            crate::STRATEGIES.map(megabytes),
            [16.9, 25.3, 16.9, 12.7, 21.1, 8.5],
            "naive, naive-reuse, pooled, stack, arena, streaming"
        );
        // R4's target is 16 MiB resident. `naive`'s heap bound is above it by itself: its
        // receipt `String` doubles to twice the longest receipt, beside the output buffer.
        const { assert!(NAIVE_ORDER > 2 * MAX_RECEIPT && heap_bound(Strategy::Naive) > 16 << 20) };
        // `pooled`'s is just above it (by under 1 %), what it asks the allocator for; R4 compares
        // what is resident with the target.
        const {
            let pooled = heap_bound(Strategy::Pooled);
            assert!(pooled > 16 << 20 && pooled < (16 << 20) + (16 << 20) / 100);
        };
    }

    /// R4: bumpalo's chunks are the powers of two the arena's bound assumes, for what the arena
    /// strategy allocates (an order's item names, each followed by a push onto its vector of
    /// lines, in the arena too): the first chunk the power of two above the first name (at
    /// least [`BUMP_FIRST_CHUNK`]), each next one twice as large, and a reset keeps the last.
    #[cfg_attr(miri, ignore = "copies megabytes: minutes under Miri")]
    #[test]
    fn bumpalo_chunks_are_what_the_arena_bound_assumes() {
        let names: [fn(usize) -> usize; 4] = [
            |_| 1,
            |_| MAX_ITEM,
            |i| if i % 7 == 0 { MAX_ITEM } else { 3 },
            |i| 1 + i % 600,
        ];
        for name in names {
            let mut bump = bumpalo::Bump::new();
            let mut chunks: Vec<usize> = Vec::new();
            for order in 0..3 {
                bump.reset();
                // `allocated_bytes_including_metadata` is the chunks' sizes together: each a
                // power of two less the allocator's header.
                let mut seen = bump.allocated_bytes_including_metadata();
                let kept = chunks.last().copied();
                assert_eq!(
                    seen,
                    kept.map_or(0, |k| k - BUMP_ALLOCATOR_HEADER),
                    "{order}"
                );
                chunks = kept.into_iter().collect();
                let mut lines = bumpalo::collections::Vec::new_in(&bump);
                for i in 0..LINES {
                    let item = bump.alloc_slice_fill_copy(name(i), b'x');
                    let numbers = Numbers::default();
                    lines.push(Line {
                        item,
                        width: 0,
                        numbers,
                    });
                    let now = bump.allocated_bytes_including_metadata();
                    if now != seen {
                        let chunk = now - seen + BUMP_ALLOCATOR_HEADER;
                        let expected = match chunks.last() {
                            Some(last) => 2 * last,
                            None => (name(0) + BUMP_CHUNK_OVERHEAD)
                                .next_power_of_two()
                                .max(BUMP_FIRST_CHUNK),
                        };
                        assert_eq!(chunk, expected, "order {order}, line {i}: {chunks:?}");
                        chunks.push(chunk);
                        seen = now;
                    }
                }
            }
        }
    }
}
