//! What a buffer costs, counted: per order line (P1), what a rent hands out (P2), and what the
//! first use of a pool costs (P3, P3-curve).

use std::hint::black_box;

use lab::fmt::thousands;
use lab::report::{Function, Run};
use lab::table::{Claim, Columns};
use lab::{AllocStats, Cell, Kind, Table, count};
use pool::{BufferPool, PoolConfig, SHARED_MAX_LEN, shared};

use super::{SEED_ITALIC, bytes, seed_cell, warm};
use crate::workloads::{self, FIRST_LINE, LINE_BUFFER};

pub(super) const P1: Function = lab::function!(p1_bytes_per_line);
pub(super) const P2: Function = lab::function!(p2_buckets);
pub(super) const P3: Function = lab::function!(p3_cold_to_warm);

/// One row of P1: N lines and the bytes each way allocated for them.
struct Lines {
    n: usize,
    fresh: u64,
    pooled: u64,
    stack: u64,
}

fn p1_bytes_per_line(run: &Run) -> Vec<Table> {
    let pool = shared();
    warm(pool, LINE_BUFFER);
    let rows: Vec<Lines> = (0..=6)
        .map(|e| {
            let n = 10usize.pow(e);
            Lines {
                n,
                fresh: bytes(|| workloads::lines(n, workloads::line_fresh)),
                pooled: bytes(|| workloads::lines(n, |line| workloads::line_pooled(pool, line))),
                stack: bytes(|| workloads::lines(n, workloads::line_stack)),
            }
        })
        .collect();
    let mut table = run.own(
        Columns::new()
            .col("N lines", |r: &Lines| Cell::count(r.n))
            .col("fresh `vec![0u8; 128]`", |r: &Lines| Cell::Bytes(r.fresh))
            .col("rent/give back (`pool::shared()`)", |r: &Lines| {
                Cell::Bytes(r.pooled)
            })
            .col("stack array `[0u8; 128]`", |r: &Lines| Cell::Bytes(r.stack))
            .table("P1", Kind::Count, "", &rows),
    );
    table.note("Each line is `1042|ต้มยำกุ้ง|2|18000\\n` (41 bytes) copied into the buffer; the pool starts warm (its first-use cost is P3). Counts are bytes requested from the allocator.");
    table.note("seed 000: 152,000,000 B for 1,000,000 lines with `new byte[128]` (its 24-byte array header included), 0 B with `Rent`/`Return` (Core i7-7700, .NET 10); here: the 1,000,000 row.");
    table.conclude(
        "bytes a warm rent and give-back allocates per line, at every N",
        per_line(&rows, |r| r.pooled),
    );
    table.conclude(
        "bytes a fresh `vec![0u8; 128]` allocates per line, at every N",
        per_line(&rows, |r| r.fresh),
    );
    vec![table]
}

/// The bytes per line every row of P1 shows for one way, as a verdict (counts are exact, so
/// every process agrees), or what differs between rows.
fn per_line(rows: &[Lines], bytes: impl Fn(&Lines) -> u64) -> Claim {
    let first = bytes(&rows[0]) / rows[0].n as u64;
    let text = if rows.iter().all(|r| bytes(r) == first * r.n as u64) {
        format!("{} B", thousands(first))
    } else {
        "not the same at every N".to_owned()
    };
    Claim::Verdict { text }
}

/// The seed's 18 requests and the capacity .NET's shared pool returned for each.
const P2_REQUESTS: [(usize, &str); 18] = [
    (0, "0"),
    (1, "16"),
    (7, "16"),
    (15, "16"),
    (16, "16"),
    (17, "32"),
    (100, "128"),
    (128, "128"),
    (129, "256"),
    (1000, "1,024"),
    (1024, "1,024"),
    (1025, "2,048"),
    (10_000, "16,384"),
    (65_536, "65,536"),
    (100_000, "131,072"),
    (1_000_000, "1,048,576"),
    (1_048_576, "1,048,576"),
    (1_048_577, "2,097,152"),
];

/// One request of P2: what the shared pool and a default pool hand out.
struct Request {
    n: usize,
    shared: usize,
    default: usize,
    seed: &'static str,
}

fn p2_buckets(run: &Run) -> Vec<Table> {
    let sized = BufferPool::<u8>::new(PoolConfig::default());
    let rows: Vec<Request> = P2_REQUESTS
        .iter()
        .map(|&(n, seed)| Request {
            n,
            shared: shared().rent(n).capacity(),
            default: sized.rent(n).capacity(),
            seed,
        })
        .collect();
    let mut table = run.own(
        Columns::new()
            .col("request n", |r: &Request| Cell::count(r.n))
            .col("capacity (`pool::shared()`)", |r: &Request| {
                Cell::count(r.shared)
            })
            .col("overshoot", |r: &Request| Cell::count(r.shared - r.n))
            .col("overshoot / n", |r: &Request| {
                overshoot_ratio(r.shared - r.n, r.n)
            })
            .col("capacity (`PoolConfig::default()`)", |r: &Request| {
                Cell::count(r.default)
            })
            .col("seed: `ArrayPool<byte>.Shared`", |r: &Request| {
                Cell::Seed(r.seed.into())
            })
            .table("P2", Kind::Fact, "", &rows),
    );
    table.note("The guard's `len()` is always n: the overshoot is capacity the caller cannot see, so it cannot mistake it for its data (.NET hands out the whole array, and `Length` is the bucket's).");
    table.note("The overshoot is given as a fraction of the request (0.998× is the seed's 99.8 % at 1,025); where three digits would round it to 1×, it is given exactly.");
    table.note(format!("`PoolConfig::default()` pools every request up to its largest bucket, 1,048,576 elements, like .NET's `ArrayPool.Create()`; 1,048,577 gets an exact-size buffer that is not kept. The shared pool pools up to {} bytes.", thousands(SHARED_MAX_LEN as u64)));
    table.note(SEED_ITALIC);
    vec![table]
}

/// The overshoot as a fraction of the request: a ratio, or the exact fraction where a ratio's
/// three digits would round it to 1× (1,048,575 of 1,048,577 is not 1×).
fn overshoot_ratio(overshoot: usize, n: usize) -> Cell {
    if n == 0 {
        return Cell::Empty;
    }
    let ratio = overshoot as f64 / n as f64;
    if overshoot != n && (ratio - 1.0).abs() < 0.0005 {
        Cell::text(format!(
            "{} / {}",
            thousands(overshoot as u64),
            thousands(n as u64)
        ))
    } else {
        Cell::Ratio(ratio)
    }
}

/// One step of P3: what it is, what it allocated, and the seed's figure where it has one.
struct Step {
    label: &'static str,
    stats: AllocStats,
    seed: &'static str,
}

/// P3's steps, counted on the calling thread, which must never have used a pool other than
/// the shared one.
fn p3_steps() -> Vec<Step> {
    let (pool, created) = count(|| BufferPool::<u8>::new(PoolConfig::default()));
    let rent_128 = || count(|| drop(pool.rent(128))).1;
    let (first, rented) = count(|| pool.rent(128));
    let ((), given_back) = count(|| drop(first));
    vec![
        Step {
            label: "`BufferPool::<u8>::new(PoolConfig::default())`",
            stats: created,
            seed: "608 B (first read of `ArrayPool.Shared`)",
        },
        Step {
            label: "first `rent(128)` on this thread",
            stats: rented,
            seed: "184 B (`Rent#1`, measured alone)",
        },
        Step {
            label: "… its give-back",
            stats: given_back,
            seed: "",
        },
        Step {
            label: "second `rent(128)`",
            stats: rent_128(),
            seed: "0 B",
        },
        Step {
            label: "third `rent(128)`",
            stats: rent_128(),
            seed: "0 B",
        },
        Step {
            label: "two `rent(128)` held at once, then given back: the older one goes down to the bucket's shared stack",
            stats: count(|| drop((pool.rent(128), pool.rent(128)))).1,
            seed: "",
        },
        Step {
            label: "first `rent(1024)` in the warm pool",
            stats: count(|| drop(pool.rent(1024))).1,
            seed: "1,048 B",
        },
        Step {
            label: "baseline: `vec![0u8; 128]`",
            stats: count(|| black_box(vec![0u8; 128])).1,
            seed: "152 B (`new byte[128]`)",
        },
    ]
}

/// Runs `f` on a new thread: a thread's first use of a pool allocates its list of pools, which
/// a thread that used other pools before may already have, so the counts of a first use are
/// only the same from run to run on a thread of their own.
fn on_a_new_thread<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|s| s.spawn(f).join())
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

fn p3_cold_to_warm(run: &Run) -> Vec<Table> {
    let steps = on_a_new_thread(p3_steps);
    let one_off: u64 = steps[..3].iter().map(|s| s.stats.bytes_allocated).sum();
    let mut table = run.own(
        Columns::new()
            .col("step", |s: &Step| Cell::text(s.label))
            .col("bytes allocated", |s: &Step| {
                Cell::Bytes(s.stats.bytes_allocated)
            })
            .col("allocations", |s: &Step| Cell::Count(s.stats.allocs))
            .col("seed (.NET)", |s: &Step| seed_cell(s.seed))
            .table("P3", Kind::Count, "", &steps),
    );
    table.note(format!(
        "The one-off cost is {} B: the pool's table of bucket stacks, then, at the first rent, this thread's cache — a fixed array of one slot for every power of two a capacity can be, so that a rent finds its slot without a bounds check, and the cache's entries in the thread's list of pools and the pool's list of caches — and the first 128-byte buffer. The give-back puts the buffer in that cache and allocates nothing.",
        thousands(one_off)
    ));
    table.note("The seed's 184 B is its first `Rent` alone: .NET sets up the thread's cache in its first `Return`, which the seed did not count apart. Its loop measured a first rent and return together at 768 B, a figure it says is not a constant; its repeatable one-off total is 608 + 184 = 792 B, without that `Return`.");
    table.note("A bucket's shared stack takes no memory until a buffer first goes down to it: its storage is allocated then, for 4 buffers, and doubles as more come back, up to its shard's share of `max_per_bucket`.");
    table.note("The steps run on a thread of their own (and the curve below on another), so their first rent is that thread's first use of any pool: the counts do not depend on what ran before.");
    table.note(SEED_ITALIC);
    vec![table, on_a_new_thread(p3_curve)]
}

/// How many rounds P3-curve counts.
const CURVE_ROUNDS: u64 = 16;

/// One round of P3-curve: cumulative bytes each way.
struct Round {
    round: u64,
    fresh: u64,
    pooled: u64,
}

fn p3_curve() -> Table {
    let (pool, created) = count(|| BufferPool::<u8>::new(PoolConfig::default()));
    let (mut fresh, mut pooled) = (0, created.bytes_allocated);
    let rounds: Vec<Round> = (1..=CURVE_ROUNDS)
        .map(|round| {
            fresh += bytes(|| workloads::line_fresh(FIRST_LINE));
            pooled += bytes(|| workloads::line_pooled(&pool, FIRST_LINE));
            Round {
                round,
                fresh,
                pooled,
            }
        })
        .collect();
    let ahead = |r: &Round| r.pooled < r.fresh;
    let mut table = Columns::new()
        .col("round", |r: &Round| Cell::Count(r.round))
        .col("fresh `vec![0u8; 128]`, cumulative", |r: &Round| {
            Cell::Bytes(r.fresh)
        })
        .col("new pool + `rent(128)`, cumulative", |r: &Round| {
            Cell::Bytes(r.pooled)
        })
        .col("pool ahead?", |r: &Round| Cell::Bool(ahead(r)))
        .table(
            "P3-curve",
            Kind::Count,
            "Cumulative bytes, round by round: a fresh buffer per round vs a new pool rented from",
            &rounds,
        );
    let crossing = rounds
        .iter()
        .position(|r| rounds[r.round as usize - 1..].iter().all(ahead))
        .map(|i| rounds[i].round);
    table.note(match crossing {
        Some(round) => format!("The pool's cumulative bytes fall below the fresh buffers' at round {round}, and stay there: the pool pays once, the fresh buffer every round. The seed's round 6 is not like-for-like: it comes from 792 B once (its pool and its first `Rent`, without what its first `Return` allocates) vs 152 B per round, where this curve counts the pool, the first rent and its give-back."),
        None => format!("Within {CURVE_ROUNDS} rounds the pool did not get ahead of the fresh buffers."),
    });
    table
}
