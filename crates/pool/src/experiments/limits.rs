//! The pool's limits, counted: how many buffers at once (P7), how large (P8), and when it does
//! not pay or holds on to memory (P9).

use std::hint::black_box;

use lab::fmt::thousands;
use lab::report::{Function, Run};
use lab::table::Columns;
use lab::{Cell, Kind, Table, count};

use super::{SEED_ITALIC, warm};
use crate::workloads::{self, LINE_BUFFER};
use crate::{BufferPool, PoolConfig, Rented, SHARED_MAX_LEN, shared_config};

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
    (Some(-1), "1 to 257", "0.0 B"),
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
    let shared_pool = BufferPool::<u8>::new(shared_config());
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
    let shared_pool = BufferPool::<u8>::new(shared_config());
    let sized = BufferPool::<u8>::new(PoolConfig::default());
    let not_a_power_of_two = BufferPool::<u8>::new(PoolConfig {
        max_len: 1_000_000,
        ..PoolConfig::default()
    });
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
            .col("seed (.NET)", |(c, _): &Row<'_>| {
                if c.seed.is_empty() {
                    Cell::Empty
                } else {
                    Cell::Seed(c.seed.into())
                }
            })
            .table("P8", Kind::Count, "", &rows),
    );
    table.note(format!("One element above the largest bucket is allocated at exactly the requested size — no rounding, no overshoot — and freed when given back. The largest bucket is `max_len` rounded up to a power of two, so a request above `max_len` but within that bucket is pooled like any other (the last row). The shared pool's ceiling is {} bytes, not .NET's 1 GiB: nothing here trims the pool under memory pressure, so a 1 GiB buffer rented once would stay for the life of the process.", thousands(SHARED_MAX_LEN as u64)));
    table.note(SEED_ITALIC);
    vec![table]
}

/// One row of P9: what was done, its counts, and the seed's figures where it measured the same.
struct Kept {
    what: &'static str,
    allocated: u64,
    freed: u64,
    held_after: Option<u64>,
    seed_allocated: &'static str,
    seed_held: &'static str,
}

/// Bytes allocated and freed per call of `f`, over 1,000 calls.
fn per_call(f: &dyn Fn() -> u8) -> (u64, u64) {
    const CALLS: u64 = 1000;
    let (_, stats) = count(|| (0..CALLS).fold(0, |acc, _| acc ^ black_box(f())));
    (stats.bytes_allocated / CALLS, stats.bytes_freed / CALLS)
}

fn p9_when_the_pool_loses(run: &Run) -> Vec<Table> {
    let pool = BufferPool::<u8>::new(PoolConfig::default());
    warm(&pool, 64);
    let small = |what, f: &dyn Fn() -> u8, seed_allocated| {
        let (allocated, freed) = per_call(f);
        Kept {
            what,
            allocated,
            freed,
            held_after: None,
            seed_allocated,
            seed_held: "",
        }
    };
    let (allocated, freed) = per_call(&|| workloads::rent_touch(&pool, 64));
    let rent_64 = Kept {
        what: "`rent(64)` + give back, per call (a warm pool, 1,000 calls)",
        allocated,
        freed,
        held_after: Some(pool.stats().retained_bytes),
        seed_allocated: "0 B (`Rent` + `Return`)",
        seed_held: "",
    };
    let guard = small(
        "the per-rent object, per call: a `Rented<u8>` guard, which lives on the stack",
        &|| pool.rent(64).len() as u8,
        "24 B (`MemoryPool<byte>.Shared.Rent` returns an `IMemoryOwner`)",
    );
    let big = BufferPool::<u8>::new(shared_config());
    const EIGHT_MIB: usize = 8 << 20;
    let ((), rented) = count(|| drop(big.rent(EIGHT_MIB)));
    let rent_big = Kept {
        what: "`rent(8 MiB)` + give back, once (the thread's first use of this pool)",
        allocated: rented.bytes_allocated,
        freed: rented.bytes_freed,
        held_after: Some(big.stats().retained_bytes),
        seed_allocated: "",
        seed_held: "about 8.39 MB still held after 4 forced gen-2 collections, and after 14 in 95 s",
    };
    let (released, trimmed) = count(|| big.trim());
    assert_eq!(released, EIGHT_MIB as u64, "trim reports what it freed");
    let trim = Kept {
        what: "… then `trim()`",
        allocated: trimmed.bytes_allocated,
        freed: trimmed.bytes_freed,
        held_after: Some(big.stats().retained_bytes),
        seed_allocated: "",
        seed_held: "no call releases it; the runtime trims under memory pressure, which the seed did not create",
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
    ];
    let seed = |s: &'static str| {
        if s.is_empty() {
            Cell::Empty
        } else {
            Cell::Seed(s.into())
        }
    };
    let mut table = run.own(
        Columns::new()
            .col("what", |r: &Kept| Cell::text(r.what))
            .col("bytes allocated", |r: &Kept| Cell::Bytes(r.allocated))
            .col("bytes freed", |r: &Kept| Cell::Bytes(r.freed))
            .col("bytes the pool holds after", |r: &Kept| {
                r.held_after.map_or(Cell::Empty, Cell::Bytes)
            })
            .col("seed: bytes allocated", |r: &Kept| seed(r.seed_allocated))
            .col("seed: held after", |r: &Kept| seed(r.seed_held))
            .table("P9", Kind::Count, "", &rows),
    );
    table.note(format!("A 64-byte buffer is cheap to allocate and free (the allocator's size-class caches are a pool already); its time is in P9-time. A `Rented<u8>` is {} B on the stack — the buffer, its length and the pool — so there is no heap object per rent, unlike .NET's `MemoryPool` (an `IMemoryOwner` per rent).", std::mem::size_of::<Rented<'_, u8>>()));
    table.note("The 8 MiB rent allocates the buffer and this thread's cache for the pool, its first use; given back, the buffer stays in the pool until `trim()` frees it. The seed warns that its own figure must not be read as \"the pool never returns memory\": .NET's pool trims itself under memory pressure. Nothing does that here, which is why `pool::shared()` keeps nothing above 16 MiB and a pool for larger buffers should be trimmed by its owner.");
    table.note(SEED_ITALIC);
    vec![table]
}
