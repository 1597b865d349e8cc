//! The pool's limits, counted: how many buffers at once (P7), how large (P8), and when it does
//! not pay or holds on to memory (P9).

use std::hint::black_box;
use std::sync::Barrier;

use lab::fmt::thousands;
use lab::report::{Function, Run};
use lab::table::Columns;
use lab::{AllocStats, Cell, Kind, Table, count};
use pool::{BufferPool, PoolConfig, Rented, SHARED_MAX_LEN, shared};

use super::{SEED_ITALIC, per_call, seed_cell, warm};
use crate::workloads::{self, LINE_BUFFER};

pub(super) const P7: Function = lab::function!(p7_capacity);
pub(super) const P8: Function = lab::function!(p8_ceiling);
pub(super) const P9: Function = lab::function!(p9_when_the_pool_loses);

/// Bytes per round of `rent_many(k)`, averaged over 20 rounds after a warm-up round.
fn p7_bytes_per_round(pool: &BufferPool<u8>, k: usize) -> u64 {
    const ROUNDS: u64 = 20;
    let mut held = Vec::with_capacity(k);
    workloads::rent_many(pool, &mut held, k, LINE_BUFFER);
    let ((), stats) = count(|| {
        for _ in 0..ROUNDS {
            black_box(workloads::rent_many(pool, &mut held, k, LINE_BUFFER));
        }
    });
    stats.bytes_allocated / ROUNDS
}

/// The seed's rows: buffers beyond its limit, its k and its bytes per round.
const P7_SEED: [(Option<i64>, &str, &str); 11] = [
    (Some(-1), "256", "0.0 B"),
    (Some(0), "257", "0.0 B"),
    (Some(1), "258", "152.0 B"),
    (Some(3), "260", "456.0 B"),
    (Some(7), "264", "1,064.0 B"),
    (Some(15), "272", "2,280.0 B"),
    (Some(31), "288", "4,712.0 B"),
    (Some(63), "320", "9,576.0 B"),
    (Some(127), "384", "19,304.0 B"),
    (Some(255), "512", "38,760.0 B"),
    (None, "4,096", "583,528.0 B"),
];

/// One row of P7: how many buffers each pool was asked for at once, and what a round cost.
struct Held {
    excess: Option<i64>,
    k_default: usize,
    default_bytes: u64,
    k_shared: usize,
    shared_bytes: u64,
    seed_k: &'static str,
    seed_bytes: &'static str,
}

fn p7_capacity(run: &Run) -> Vec<Table> {
    let sized = BufferPool::<u8>::new(PoolConfig::default());
    // A pool of its own with the process-wide pool's configuration, so that its stacks start
    // empty whatever the other experiments left on the process-wide one.
    let shared_pool = BufferPool::<u8>::new(*shared().config());
    let limit = |p: &BufferPool<u8>| 1 + p.config().max_per_bucket;
    let (sized_limit, shared_limit) = (limit(&sized), limit(&shared_pool));
    let rows: Vec<Held> = P7_SEED
        .iter()
        .map(|&(excess, seed_k, seed_bytes)| {
            // The last row asks both pools for the seed's 4,096 buffers at once.
            let k = |limit: usize| excess.map_or(4096, |e| (limit as i64 + e) as usize);
            let (k_default, k_shared) = (k(sized_limit), k(shared_limit));
            Held {
                excess,
                k_default,
                default_bytes: p7_bytes_per_round(&sized, k_default),
                k_shared,
                shared_bytes: p7_bytes_per_round(&shared_pool, k_shared),
                seed_k,
                seed_bytes,
            }
        })
        .collect();
    let mut table = run.own(
        Columns::new()
            .col("k beyond the limit", |r: &Held| {
                r.excess.map_or(Cell::Empty, Cell::Signed)
            })
            .col("k (`PoolConfig::default()`)", |r: &Held| {
                Cell::count(r.k_default)
            })
            .col("bytes per round (`PoolConfig::default()`)", |r: &Held| {
                Cell::Bytes(r.default_bytes)
            })
            .col("k (shared configuration)", |r: &Held| {
                Cell::count(r.k_shared)
            })
            .col("bytes per round (shared configuration)", |r: &Held| {
                Cell::Bytes(r.shared_bytes)
            })
            .col("seed: k (`ArrayPool.Shared`)", |r: &Held| {
                Cell::Seed(r.seed_k.into())
            })
            .col("seed: bytes per round", |r: &Held| {
                Cell::Seed(r.seed_bytes.into())
            })
            .table("P7", Kind::Count, "", &rows),
    );
    table.note(format!("The limit is one buffer in the thread's cache plus the bucket's shared stack: 1 + {} = {sized_limit} for `PoolConfig::default()`, 1 + 32 × {} logical cores = {shared_limit} for the shared configuration (.NET: 1 + 32 × cores = 257 on the seed's 8 cores). Rows are aligned on the number of buffers beyond each pool's limit.", sized_limit - 1, (shared_limit - 1) / 32));
    table.note("Beyond the limit every extra buffer costs exactly its 128 bytes per round: the pool keeps what it can and frees the rest (counted in `PoolStats::discarded`). .NET's figures per extra buffer are 152 B, the array header included.");
    table.note("The seed's −1 row is its first row, \"k = 1 to 257: 0.0 B\", at k = 256.");
    table.note(SEED_ITALIC);
    vec![table]
}

/// One request of P8: which pool, how much, and the seed's answer.
struct Ceiling<'p> {
    label: &'static str,
    pool: &'p BufferPool<u8>,
    n: usize,
    seed: &'static str,
}

/// What P8 observed for one request: kept when given back, the second rent's bytes, capacity.
struct Observed {
    kept: bool,
    bytes: u64,
    capacity: usize,
}

fn observe(c: &Ceiling<'_>) -> Observed {
    warm(c.pool, c.n);
    let kept = c.pool.stats().retained_bytes > 0;
    let (buf, stats) = count(|| c.pool.rent(c.n));
    let observed = Observed {
        kept,
        bytes: stats.bytes_allocated,
        capacity: buf.capacity(),
    };
    drop(buf);
    c.pool.trim();
    observed
}

fn p8_ceiling(run: &Run) -> Vec<Table> {
    let shared_pool = BufferPool::<u8>::new(*shared().config());
    let sized = BufferPool::<u8>::new(PoolConfig::default());
    let not_a_power_of_two = BufferPool::<u8>::new(PoolConfig::default().with_max_len(1_000_000));
    let cases = [
        Ceiling {
            label: "shared configuration, `rent(16 MiB)`",
            pool: &shared_pool,
            n: SHARED_MAX_LEN,
            seed: "kept up to 1,073,741,824 (1 GiB): second `Rent` 0 B",
        },
        Ceiling {
            label: "shared configuration, `rent(16 MiB + 1)`",
            pool: &shared_pool,
            n: SHARED_MAX_LEN + 1,
            seed: "`Rent(1073741825)`: not kept, 1,073,741,856 B",
        },
        Ceiling {
            label: "`PoolConfig::default()`, `rent(1 MiB)`",
            pool: &sized,
            n: 1 << 20,
            seed: "`Create().Rent(1048576)`: kept",
        },
        Ceiling {
            label: "`PoolConfig::default()`, `rent(1 MiB + 1)`",
            pool: &sized,
            n: (1 << 20) + 1,
            seed: "`Create().Rent(1048577)`: not kept, 1,048,608 B",
        },
        Ceiling {
            label: "`max_len: 1,000,000`, `rent(1 MiB)`: above `max_len`, within its bucket",
            pool: &not_a_power_of_two,
            n: 1 << 20,
            seed: "",
        },
    ];
    let rows: Vec<(&Ceiling<'_>, Observed)> = cases.iter().map(|c| (c, observe(c))).collect();
    type Row<'a> = (&'a Ceiling<'a>, Observed);
    let mut table = run.own(
        Columns::new()
            .col("request", |(c, _): &Row<'_>| Cell::text(c.label))
            .col("kept when given back?", |(_, o): &Row<'_>| {
                Cell::Bool(o.kept)
            })
            .col("bytes allocated by the second rent", |(_, o): &Row<'_>| {
                Cell::Bytes(o.bytes)
            })
            .col("capacity", |(_, o): &Row<'_>| Cell::count(o.capacity))
            .col("seed (.NET)", |(c, _): &Row<'_>| seed_cell(c.seed))
            .table("P8", Kind::Count, "", &rows),
    );
    table.note("One element above the largest bucket is allocated at exactly the requested size — no rounding, no overshoot — and freed when given back. The largest bucket is `max_len` rounded up to a power of two, so a request above `max_len` but within that bucket is pooled like any other (the last row).");
    table.note(format!("The ceiling limits the size of one buffer, not what the pool keeps: that is bounded apart (P9). The shared pool's ceiling is {} bytes, not .NET's 1 GiB, so that its stacks' {}-byte budget holds several buffers of its largest bucket; nothing here trims by age, as .NET's runtime does on every gen-2 collection.", thousands(SHARED_MAX_LEN as u64), thousands(shared().config().max_shared_bytes as u64)));
    table.note(SEED_ITALIC);
    vec![table]
}

/// One row of P9: what was done, its counts on this thread (none where another thread did
/// it), and the seed's figures where it measured the same.
struct Kept {
    what: &'static str,
    allocated: Option<u64>,
    freed: Option<u64>,
    held_after: Option<u64>,
    seed_allocated: &'static str,
    seed_held: &'static str,
}

impl Kept {
    /// A row counted on this thread.
    fn counted(
        what: &'static str,
        stats: AllocStats,
        held_after: u64,
        seed_held: &'static str,
    ) -> Self {
        Kept {
            what,
            allocated: Some(stats.bytes_allocated),
            freed: Some(stats.bytes_freed),
            held_after: Some(held_after),
            seed_allocated: "",
            seed_held,
        }
    }
}

/// What `pool` holds after another live thread cached a 1 KiB buffer and this thread called
/// `trim()`, and after that thread exited.
fn idle_thread_cache(pool: &BufferPool<u8>) -> (u64, u64) {
    let (cached, trimmed) = (Barrier::new(2), Barrier::new(2));
    std::thread::scope(|s| {
        let idle = s.spawn(|| {
            drop(pool.rent(1000));
            cached.wait();
            trimmed.wait();
        });
        cached.wait();
        pool.trim();
        let after_trim = pool.stats().retained_bytes;
        trimmed.wait();
        // `join` waits for the thread's exit, its thread-local destructors included.
        let exited = idle.join();
        exited.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (after_trim, pool.stats().retained_bytes)
    })
}

fn p9_when_the_pool_loses(run: &Run) -> Vec<Table> {
    let pool = BufferPool::<u8>::new(PoolConfig::default());
    warm(&pool, 64);
    let small = |what, f: &dyn Fn() -> u8, seed_allocated| {
        let (allocated, freed) = per_call(f);
        Kept {
            what,
            allocated: Some(allocated),
            freed: Some(freed),
            held_after: None,
            seed_allocated,
            seed_held: "",
        }
    };
    let (allocated, freed) = per_call(&|| workloads::rent_touch(&pool, 64));
    let rent_64 = Kept {
        what: "`rent(64)` + give back, per call (a warm pool, 1,000 calls)",
        allocated: Some(allocated),
        freed: Some(freed),
        held_after: Some(pool.stats().retained_bytes),
        seed_allocated: "0 B (`Rent` + `Return`)",
        seed_held: "",
    };
    let guard = small(
        "the per-rent object, per call: a `Rented<u8>` guard, which lives on the stack",
        &|| pool.rent(64).len() as u8,
        "24 B (`MemoryPool<byte>.Shared.Rent` returns an `IMemoryOwner`)",
    );
    // A pool of its own with the process-wide pool's configuration, started empty.
    let big = BufferPool::<u8>::new(*shared().config());
    let held = || big.stats().retained_bytes;
    const EIGHT_MIB: usize = 8 << 20;
    let ((), rented) = count(|| drop(big.rent(EIGHT_MIB)));
    let rent_big = Kept::counted(
        "`rent(8 MiB)` + give back, once: above the thread-cache limit, so onto the shared stack",
        rented,
        held(),
        "about 8.39 MB still held after 4 forced gen-2 collections, and after 14 in 95 s",
    );
    let (released, trimmed) = count(|| big.trim());
    assert_eq!(released, EIGHT_MIB as u64, "trim reports what it freed");
    let trim = Kept::counted(
        "… then `trim()`",
        trimmed,
        held(),
        "no call releases it (the seed: \"a trim heuristic tied to memory pressure\", which its run did not create)",
    );
    let ((), burst) = count(|| drop([(); 5].map(|()| big.rent(SHARED_MAX_LEN))));
    let burst = Kept::counted(
        "five `rent(16 MiB)` held at once, then given back: the stacks' budget keeps four",
        burst,
        held(),
        "",
    );
    let (_, trimmed) = count(|| big.trim());
    let burst_trimmed = Kept::counted("… then `trim()`", trimmed, held(), "");
    let (after_trim, after_exit) = idle_thread_cache(&big);
    let other_thread = |what, held_after| Kept {
        what,
        allocated: None,
        freed: None,
        held_after: Some(held_after),
        seed_allocated: "",
        seed_held: "",
    };
    let rows = [
        rent_64,
        small(
            "stack array `[0u8; 64]`, per call",
            &workloads::zeroed_stack_touch::<64>,
            "0 B (`stackalloc byte[64]`)",
        ),
        small(
            "`vec![0u8; 64]`, per call",
            &|| workloads::fresh_touch(64),
            "88 B (`new byte[64]`)",
        ),
        guard,
        rent_big,
        trim,
        burst,
        burst_trimmed,
        other_thread(
            "another live thread caches a `rent(1000)`; `trim()` on this thread",
            after_trim,
        ),
        other_thread("… then that thread exits", after_exit),
    ];
    let bytes = |n: Option<u64>| n.map_or(Cell::Empty, Cell::Bytes);
    let mut table = run.own(
        Columns::new()
            .col("what", |r: &Kept| Cell::text(r.what))
            .col("bytes allocated", |r: &Kept| bytes(r.allocated))
            .col("bytes freed", |r: &Kept| bytes(r.freed))
            .col("bytes the pool holds after", |r: &Kept| bytes(r.held_after))
            .col("seed: bytes allocated", |r: &Kept| {
                seed_cell(r.seed_allocated)
            })
            .col("seed: held after", |r: &Kept| seed_cell(r.seed_held))
            .table("P9", Kind::Count, "", &rows),
    );
    table.note(format!("A 64-byte buffer is cheap to allocate and free (the allocator's size-class caches are a pool already); its time is in P9-time. A `Rented<u8>` is {} B on the stack — the buffer's pointer, the entry of its slot (which gives its capacity), its length and the pool — so there is no heap object per rent, unlike .NET's `MemoryPool` (an `IMemoryOwner` per rent).", std::mem::size_of::<Rented<'_, u8>>()));
    let config = shared().config();
    table.note(format!(
        "The rows from the 8 MiB rent on use a pool with `pool::shared()`'s configuration: threads cache buckets up to {} bytes, the stacks keep at most {} buffers per bucket and {} bytes in all, so it holds at most {} bytes plus {} per live thread that used it (`max_retained_bytes`). The 8 MiB buffer goes to the stack, taking its first storage (4 places); given back, it stays until `trim()` frees it.",
        thousands(big.largest_cached_bucket() as u64),
        thousands(config.max_per_bucket as u64),
        thousands(config.max_shared_bytes as u64),
        thousands(big.max_retained_bytes(0)),
        thousands(big.max_retained_bytes(1) - big.max_retained_bytes(0)),
    ));
    table.note("`trim()` reaches the stacks and the calling thread's cache; another live thread's cache is freed only when that thread next misses its cache or exits (the last two rows, counted on that thread, not this one). The seed warns that its own 8 MB figure must not be read as \"the pool never returns memory\": the .NET runtime trims its shared pool on every gen-2 collection, by age (dotnet/runtime's `SharedArrayPool.cs`). Nothing trims by itself here; the bound above is what caps it.");
    table.note(SEED_ITALIC);
    vec![table]
}
