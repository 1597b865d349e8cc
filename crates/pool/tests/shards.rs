//! The shared stacks split into shards, pinned: a bucket keeps exactly `max_per_bucket`
//! buffers whatever the split, a buffer given back on one thread is rented again on another
//! without allocating (a pop steals from another thread's shard), and the byte budget stays
//! exact although each shard keeps a credit of it.

use std::sync::mpsc;

use hotpath_pool::{BufferPool, PoolConfig};
use lab::count;

mod common;
use common::scaled;

#[test]
fn a_bucket_keeps_exactly_max_per_bucket_buffers_across_its_shards() {
    for max in [0, 1, 3, 8, 13, 50] {
        let pool = BufferPool::<u8>::new(
            PoolConfig::new()
                .with_max_per_bucket(max)
                .with_thread_cache_max_len(0),
        );
        let held: Vec<_> = (0..max + 3).map(|_| pool.rent(100)).collect();
        drop(held);
        let s = pool.stats();
        assert_eq!(
            (s.buckets[3].stacked_buffers, s.discarded),
            (max as u64, 3),
            "max_per_bucket {max}"
        );
        let ((), again) = count(|| drop((0..max).map(|_| pool.rent(100)).collect::<Vec<_>>()));
        // Only the `Vec` that holds the guards allocates: every buffer comes off a shard.
        assert_eq!(again.allocs, u64::from(max > 0), "max_per_bucket {max}");
    }
}

/// Rents `items` buffers of 8 KiB on one thread and drops each on another, one at a time (the
/// producer waits until the consumer has dropped the buffer); returns the allocations the
/// producer's rents made.
fn hand_over(pool: &BufferPool<u8>, items: usize) -> u64 {
    let (to_consumer, buffers) = mpsc::sync_channel::<hotpath_pool::Rented<'_, u8>>(1);
    let (dropped, to_producer) = mpsc::sync_channel::<()>(1);
    std::thread::scope(|s| {
        s.spawn(move || {
            for buf in buffers {
                drop(buf);
                dropped.send(()).unwrap();
            }
        });
        let mut allocations = 0;
        for _ in 0..items {
            let (buf, counted) = count(|| pool.rent(8192));
            allocations += counted.allocs;
            to_consumer.send(buf).unwrap();
            to_producer.recv().unwrap();
        }
        drop(to_consumer); // the consumer's loop ends
        allocations
    })
}

#[test]
fn a_buffer_given_back_on_another_thread_is_rented_again_without_allocating() {
    let items = scaled(200, 6);
    // Without thread caches the buffer goes onto the consumer's shard and the producer takes it
    // from there: one allocation, the first rent.
    let no_cache = BufferPool::<u8>::new(PoolConfig::new().with_thread_cache_max_len(0));
    assert_eq!(hand_over(&no_cache, items), 1);
    // With them, the consumer's cache keeps the most recent buffer and sends the one before
    // down to its shard: two allocations (and the producer's cache, the first time), then none.
    let cached = BufferPool::<u8>::new(PoolConfig::new());
    let first = hand_over(&cached, 2);
    assert_eq!(hand_over(&cached, items), 0, "after {first} allocations");
    assert_eq!(cached.stats().allocations, 2);
}

#[test]
fn the_byte_budget_stays_exact_while_other_shards_hold_credit() {
    let budget = 16 * 1024;
    let pool = BufferPool::<u8>::new(
        PoolConfig::new()
            .with_max_per_bucket(64)
            .with_max_shared_bytes(budget)
            .with_thread_cache_max_len(0),
    );
    // Another thread gives back and rents again: its shard keeps credit for the buffers it
    // took, and it exits without using it.
    std::thread::scope(|s| {
        s.spawn(|| {
            drop((0..4).map(|_| pool.rent(1024)).collect::<Vec<_>>());
            drop((0..4).map(|_| pool.rent(1024)).collect::<Vec<_>>());
        })
        .join()
        .unwrap();
    });
    // This thread still fills the whole budget, and not one byte more.
    let held: Vec<_> = (0..budget / 1024 + 2).map(|_| pool.rent(1024)).collect();
    drop(held);
    let s = pool.stats();
    assert_eq!((s.retained_bytes, s.discarded), (budget as u64, 2));
    assert_eq!(pool.trim(), budget as u64);
    assert_eq!(pool.stats().retained_bytes, 0);
}
