//! The handoff workload (P12-handoff), pinned: every pair hands over its items for every
//! source, and once warm the pool allocates nothing per item on either thread while a fresh
//! buffer costs its 8 KiB on the producer. Its own test binary, so that no other test uses the
//! shared pool's 8 KiB bucket meanwhile: the pool's counts below are exact.

use std::sync::Mutex;
use std::sync::mpsc::sync_channel;

use lab::count;
use pool_chapter::workloads::{
    HANDOFF_BATCH, HANDOFF_BATCHES, HIT_BYTES, Handoff, HandoffWorkers, consume, produce, receive,
    send,
};

mod common;

const fn scaled(native: u64, miri: u64) -> u64 {
    common::scaled(native as usize, miri as usize) as u64
}

/// Held by each test for its whole run: the tests of this binary take turns with the shared
/// pool, so that one's counts never include the other's rents.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[test]
fn p12_handoff_every_pair_hands_over_its_items_for_every_source() {
    let _turn = one_at_a_time();
    let items = scaled(2_000, 5);
    for pairs in [1, 2] {
        let workers = HandoffWorkers::new(pairs);
        assert_eq!(workers.pairs(), pairs);
        for source in Handoff::ALL {
            for _ in 0..2 {
                let run = workers.run(source, items);
                assert_eq!(run.received, vec![items; pairs], "{source:?}");
                // Each item is touched twice (1 ^ 2 each time): the checksum folds to 0.
                assert_eq!(run.checksum, 0, "{source:?}");
            }
        }
        assert_eq!(workers.run(Handoff::SharedPool, 0).total_items(), 0);
    }
}

#[test]
fn p12_handoff_once_warm_the_pool_allocates_nothing_per_item_and_a_fresh_vec_8_kib() {
    let _turn = one_at_a_time();
    // One item on this thread, each half counted apart: a fresh buffer allocates 8 KiB on the
    // producer and nothing on the consumer (a free); the pool, once warm, nothing on either.
    for source in Handoff::ALL {
        consume(produce(source).0);
        let ((item, touched), made) = count(|| produce(source));
        assert_eq!(touched, 3, "{source:?}");
        let (consumed, dropped) = count(|| consume(item));
        assert_eq!(consumed, 3, "{source:?}");
        let expected = match source {
            Handoff::SharedPool => (0, 0),
            Handoff::FreshUnzeroed | Handoff::FreshVec => (1, HIT_BYTES as u64),
        };
        assert_eq!((made.allocs, made.bytes_allocated), expected, "{source:?}");
        assert_eq!(dropped.allocs, 0, "{source:?}");
    }
    // Across threads: this thread produces, another consumes, through a channel polled as the
    // workload's pairs poll theirs (a thread that blocks on a channel may allocate its waiting
    // entry the first time it blocks, which would be counted here). After a warm-up, neither
    // thread allocates. The warm-up is made exact: a give-back lands on another shard of the
    // stack when its home shard is busy, and a shard's own storage is allocated the first time
    // a buffer lands on it, so the warm-up fills every shard. The stacks are emptied, then this
    // thread holds `max_per_bucket + 1` buffers at once and gives them back: one to its cache,
    // the rest onto the stacks until every shard is full. From then on those buffers only move
    // between the stacks, the threads' caches and the channel, no shard ever holds more than it
    // held then, and the producer always finds one.
    let items = scaled(500, 6);
    let fill = pool::shared_config().max_per_bucket + 1;
    pool::shared().trim();
    drop(
        (0..fill)
            .map(|_| produce(Handoff::SharedPool).0)
            .collect::<Vec<_>>(),
    );
    let stats = pool::shared().stats();
    let bucket = stats.buckets.iter().find(|b| b.capacity == HIT_BYTES);
    assert_eq!(
        bucket.map(|b| b.stacked_buffers),
        Some(fill as u64 - 1),
        "the warm-up fills every shard of the 8 KiB stack"
    );
    let (to_consumer, from_producer) = sync_channel(4);
    let counts = std::thread::scope(|s| {
        let consumer = s.spawn(move || {
            let pass = |n| {
                for _ in 0..n {
                    let item = receive(&from_producer).unwrap();
                    consume(item);
                }
            };
            pass(items); // warm-up
            count(|| pass(items)).1
        });
        let pass = |n| {
            for _ in 0..n {
                send(&to_consumer, produce(Handoff::SharedPool).0).unwrap();
            }
        };
        pass(items);
        let produced = count(|| pass(items)).1;
        (produced, consumer.join().unwrap())
    });
    assert_eq!((counts.0.allocs, counts.1.allocs), (0, 0));
    // And the workload's own pair: the pool's counters cover every thread. Exact again: a
    // pair has at most `HANDOFF_BATCHES` batches of `HANDOFF_BATCH` items away from the stacks,
    // and its consumer's cache one buffer more, so that many on the stacks beforehand serve
    // every interleaving.
    let workers = HandoffWorkers::new(1);
    let supply = HANDOFF_BATCHES * HANDOFF_BATCH + 1;
    pool::shared().trim();
    drop(
        (0..=supply)
            .map(|_| produce(Handoff::SharedPool).0)
            .collect::<Vec<_>>(),
    );
    let before = pool::shared().stats();
    workers.run(Handoff::SharedPool, items);
    let after = pool::shared().stats();
    assert_eq!(after.rents - before.rents, items);
    assert_eq!(after.allocations, before.allocations, "warm: no allocation");
}
