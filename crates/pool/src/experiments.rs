//! Chapter 3's experiments (P1–P11), run by `pool-experiments` under `cargo xtask report`.
//!
//! Built only with the `experiments` feature: users of the library do not depend on `lab`.

use std::hint::black_box;

use lab::report::{Experiment, Settings};
use lab::timing::publish::{self, Pair, Verdict};
use lab::timing::{Config, Measurements, Schedule, Timing};
use lab::{Cell, Kind, Table, count};

use crate::workloads::{self, FIRST_LINE, LINE_BUFFER};
use crate::{BufferPool, ClearPolicy, PoolConfig, Rented, SHARED_MAX_LEN, shared, shared_config};

/// Every experiment of chapter 3, in the order the chapter presents them.
pub const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        id: "P1",
        kind: Kind::Count,
        run: p1_bytes_per_line,
    },
    Experiment {
        id: "P2",
        kind: Kind::Fact,
        run: p2_buckets,
    },
    Experiment {
        id: "P3",
        kind: Kind::Count,
        run: p3_cold_to_warm,
    },
    Experiment {
        id: "P4",
        kind: Kind::Fact,
        run: p4_stale_data,
    },
    Experiment {
        id: "P5",
        kind: Kind::Fact,
        run: p5_contract,
    },
    Experiment {
        id: "P6",
        kind: Kind::Count,
        run: p6_error_paths,
    },
    Experiment {
        id: "P7",
        kind: Kind::Count,
        run: p7_capacity,
    },
    Experiment {
        id: "P8",
        kind: Kind::Count,
        run: p8_ceiling,
    },
    Experiment {
        id: "P9",
        kind: Kind::Count,
        run: p9_when_the_pool_loses,
    },
    Experiment {
        id: "P9-time",
        kind: Kind::Time,
        run: p9_time,
    },
    Experiment {
        id: "P10",
        kind: Kind::Time,
        run: p10_by_size,
    },
];

/// The precision a ratio must hold under twin swap to be printed in chapter 3.
pub const RATIO_PRECISION: f64 = 0.10;

const SEED_000: &str = "Seed figures (*italic*) are the .NET course's (`000`): Intel Core i7-7700, 8 logical cores, Ubuntu 24.04 under WSL2, .NET 10.0.10; .NET counts include each array's 24-byte header (`new byte[128]` = 152 B).";

fn bytes(f: impl FnOnce() -> u8) -> u64 {
    count(|| black_box(f())).1.bytes_allocated
}

/// Rents one buffer of `len` on this thread, so the pool's per-thread cache exists and the
/// bucket holds a buffer.
fn warm(pool: &BufferPool<u8>, len: usize) {
    drop(pool.rent(len));
}

fn p1_bytes_per_line(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "P1",
        Kind::Count,
        "Bytes allocated for N order lines, one 128-byte buffer per line",
        &[
            "N lines",
            "fresh `vec![0u8; 128]`",
            "rent/give back (`pool::shared()`)",
            "stack array `[0u8; 128]`",
            "seed: `new byte[128]`",
            "seed: `Rent`/`Return`",
        ],
    );
    let pool = shared();
    warm(pool, LINE_BUFFER);
    for n in (0..=6).map(|e| 10usize.pow(e)) {
        table.row(vec![
            Cell::count(n),
            Cell::Bytes(bytes(|| workloads::lines(n, workloads::line_fresh))),
            Cell::Bytes(bytes(|| {
                workloads::lines(n, |line| workloads::line_pooled(pool, line))
            })),
            Cell::Bytes(bytes(|| workloads::lines(n, workloads::line_stack))),
            Cell::Seed(format!("{} B", lab::table::thousands(152 * n as u64))),
            Cell::Seed("0 B".into()),
        ]);
    }
    table.note("Each line is `1042|ต้มยำกุ้ง|2|18000\\n` (41 bytes) copied into the buffer; the pooled column starts warm (the pool's first-use cost is P3).");
    table.note("Rust's fresh buffer costs exactly its 128 bytes: a heap block has no object header, where .NET's `byte[128]` is 152 B.");
    table.note(SEED_000);
    vec![table]
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

fn p2_buckets(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "P2",
        Kind::Fact,
        "What `rent(n)` hands out: capacity and overshoot for the seed's 18 requests",
        &[
            "request n",
            "capacity (`pool::shared()`)",
            "overshoot",
            "overshoot % of n",
            "capacity (`PoolConfig::default()`)",
            "seed: `ArrayPool<byte>.Shared`",
        ],
    );
    let sized = BufferPool::<u8>::new(PoolConfig::default());
    for (n, seed) in P2_REQUESTS {
        let capacity = shared().rent(n).capacity();
        let overshoot = capacity - n;
        table.row(vec![
            Cell::count(n),
            Cell::count(capacity),
            Cell::count(overshoot),
            if n == 0 {
                Cell::Empty
            } else {
                Cell::Percent(100.0 * overshoot as f64 / n as f64)
            },
            Cell::count(sized.rent(n).capacity()),
            Cell::Seed(seed.into()),
        ]);
    }
    table.note("The guard's `len()` is always n: the overshoot is capacity the caller cannot see, so it cannot mistake it for its data (.NET hands out the whole array, and `Length` is the bucket's).");
    table.note(format!("`PoolConfig::default()` pools up to 1,048,576 elements, like .NET's `ArrayPool.Create()`; 1,048,577 gets an exact-size buffer that is not kept. The shared pool pools up to {} bytes.", lab::table::thousands(SHARED_MAX_LEN as u64)));
    table.note(SEED_000);
    vec![table]
}

fn p3_cold_to_warm(_: &Settings) -> Vec<Table> {
    let mut steps = Table::new(
        "P3",
        Kind::Count,
        "Cold to warm: what the first use of a pool costs, step by step",
        &["step", "bytes allocated", "allocations", "seed (.NET)"],
    );
    let mut step = |label: &str, seed: &str, stats: lab::AllocStats| {
        steps.row(vec![
            Cell::text(label),
            Cell::Bytes(stats.bytes_allocated),
            Cell::Count(stats.allocs),
            if seed.is_empty() {
                Cell::Empty
            } else {
                Cell::Seed(seed.into())
            },
        ]);
        stats.bytes_allocated
    };
    let (pool, created) = count(|| BufferPool::<u8>::new(PoolConfig::default()));
    let setup = step(
        "`BufferPool::<u8>::new(PoolConfig::default())`",
        "608 B (first read of `ArrayPool.Shared`)",
        created,
    );
    let first = step(
        "first `rent(128)` on this thread, given back",
        "184 B",
        count(|| drop(pool.rent(128))).1,
    );
    step(
        "second `rent(128)`",
        "0 B",
        count(|| drop(pool.rent(128))).1,
    );
    step("third `rent(128)`", "0 B", count(|| drop(pool.rent(128))).1);
    step(
        "first `rent(1024)` in the warm pool",
        "1,048 B",
        count(|| drop(pool.rent(1024))).1,
    );
    step(
        "baseline: `vec![0u8; 128]`",
        "152 B (`new byte[128]`)",
        count(|| black_box(vec![0u8; 128])).1,
    );
    let one_off = setup + first;
    steps.note(format!(
        "The one-off cost is {} B: the pool's bucket table, this thread's cache (one slot per bucket, kept in a `thread_local::ThreadLocal`) and the first 128-byte buffer. The seed's is 608 + 184 = 792 B.",
        lab::table::thousands(one_off)
    ));
    steps.note(SEED_000);

    let mut curve = Table::new(
        "P3-curve",
        Kind::Count,
        "Cumulative bytes, round by round: a fresh buffer per round vs a new pool rented from",
        &[
            "round",
            "fresh `vec![0u8; 128]`, cumulative",
            "new pool + `rent(128)`, cumulative",
            "pool ahead?",
        ],
    );
    let (mut fresh_total, mut pooled_total) = (0, 0);
    let mut crossing = None;
    let (pool, created) = count(|| BufferPool::<u8>::new(PoolConfig::default()));
    pooled_total += created.bytes_allocated;
    for round in 1..=12u64 {
        fresh_total += bytes(|| workloads::line_fresh(FIRST_LINE));
        pooled_total += bytes(|| workloads::line_pooled(&pool, FIRST_LINE));
        let ahead = pooled_total < fresh_total;
        if ahead && crossing.is_none() {
            crossing = Some(round);
        }
        curve.row(vec![
            Cell::Count(round),
            Cell::Bytes(fresh_total),
            Cell::Bytes(pooled_total),
            Cell::Bool(ahead),
        ]);
    }
    curve.note(match crossing {
        Some(round) => format!("The pool's cumulative bytes fall below the fresh buffers' at round {round}, and stay there: the pool pays once, the fresh buffer every round. (Seed: round 6, from 792 B once vs 152 B per round.)"),
        None => "Within 12 rounds the pool did not get ahead of the fresh buffers.".to_owned(),
    });
    vec![steps, curve]
}

fn p4_stale_data(_: &Settings) -> Vec<Table> {
    let never = workloads::stale_data(ClearPolicy::Never);
    let on_return = workloads::stale_data(ClearPolicy::OnReturn);
    let mut table = Table::new(
        "P4",
        Kind::Fact,
        "The previous tenant's data: rent 64 bytes, write a line, give back, rent again",
        &[
            "what the second renter sees",
            "`ClearPolicy::Never` (default)",
            "`ClearPolicy::OnReturn`",
            "seed (.NET, `clearArray: false`)",
        ],
    );
    let both = |f: &dyn Fn(&workloads::StaleData) -> Cell| [f(&never), f(&on_return)];
    let mut row = |label: &str, cells: [Cell; 2], seed: &str| {
        let [a, b] = cells;
        table.row(vec![Cell::text(label), a, b, Cell::Seed(seed.into())]);
    };
    row(
        "the same buffer as the first renter?",
        both(&|s| Cell::Bool(s.same_buffer)),
        "True",
    );
    row(
        "bytes the first renter wrote (`1042|ต้มยำกุ้ง|2|18000\\n`)",
        both(&|s| Cell::count(s.first_written)),
        "41",
    );
    row(
        "non-zero bytes found before writing anything",
        both(&|s| Cell::count(s.nonzero_before_writing)),
        "41",
    );
    row(
        "bytes the second renter wrote (`7|ส้มตำ|1|6000\\n`)",
        both(&|s| Cell::count(s.second_written)),
        "25",
    );
    row(
        "`std::str::from_utf8(&buf[..41])` — a read with the remembered length",
        both(&|s| {
            Cell::text(match s.wrong_length_read {
                Ok(()) => "`Ok`".to_owned(),
                Err(at) => format!("`Err`: valid up to byte {at}"),
            })
        }),
        "(.NET decodes without complaint)",
    );
    row(
        "the same bytes, `String::from_utf8_lossy`",
        both(&|s| Cell::text(format!("`{:?}`", s.wrong_length_lossy))),
        "7|ส้มตำ|1|6000 ้ง|2|18000",
    );
    row(
        "non-zero bytes the third renter finds",
        both(&|s| Cell::count(s.nonzero_after_second_return)),
        "0 (after `Return(a2, clearArray: true)`)",
    );
    table.note("Rust cannot hand out uninitialised memory here, so the stale bytes are the worst case: they are someone else's data, not undefined behaviour. The guard shows only the requested length, so a renter cannot read past it into a longer previous line — but within its length it sees whatever the last renter left.");
    table.note("Byte 25 is the last byte of `ุ` in the old line, so a read of 41 bytes starts the stale tail in the middle of a character: `from_utf8` says so (`valid up to byte 25`), and the lossy decode shows U+FFFD where .NET's decoder silently produced `้ง|2|18000`.");
    table.note("With `OnReturn`, the second renter's read is valid UTF-8: its 25 bytes and 16 zero bytes (`\\0`).");
    vec![table]
}

/// The contract: what .NET leaves to discipline, and what Rust does with it.
const CONTRACT: [[&str; 4]; 9] = [
    [
        "give back twice",
        "silent: two later renters get the same array (seed: `ReferenceEquals(r1, r2) = True`, a write through one is read through the other)",
        "compile error (use of moved value)",
        "`pool::contract` §1",
    ],
    [
        "use after giving back",
        "silent: the old holder overwrites the new tenant (seed: 200 became 99)",
        "compile error (use of moved value)",
        "§2",
    ],
    [
        "keep a slice past the give-back",
        "silent (the array reference stays valid)",
        "compile error (borrowed value does not live long enough)",
        "§3",
    ],
    [
        "drop the pool while a buffer is out",
        "not applicable (the GC keeps both alive)",
        "compile error (cannot move out while borrowed)",
        "§4",
    ],
    [
        "give back a buffer the pool never lent",
        "accepted if its length is a bucket size (seed: `Return(new P9[128])`, then `Rent(128)` hands it out); `ArgumentException` otherwise",
        "compile error: there is no give-back method, and a guard cannot be built outside the crate",
        "§5",
    ],
    [
        "carry your own length",
        "`Length` is the bucket's (`Rent(1025).Length == 2048`)",
        "the guard's `len()` is the request; the capacity is separate",
        "P2",
    ],
    [
        "clear secrets",
        "opt-in per `Return(array, clearArray: true)`",
        "run time: `ClearPolicy::OnReturn` per pool, or `rent_cleared`; stale data is initialised, so safe",
        "P4",
    ],
    [
        "give back on every path",
        "`Return` in `finally`, or the buffer is lost on an exception",
        "run time, automatic: the guard gives back on early return and panic; only `mem::forget` loses it (safe, costs a fresh buffer)",
        "P6",
    ],
    [
        "hold no more than the pool keeps",
        "silent: beyond the limit every rent allocates",
        "run time, counted: `PoolStats::discarded`",
        "P7",
    ],
];

fn p5_contract(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "P5",
        Kind::Fact,
        "The pool's contract: who enforces each rule",
        &[
            "rule",
            ".NET `ArrayPool` (seed)",
            "Rust `pool`",
            "pinned by",
        ],
    );
    for row in CONTRACT {
        table.row(row.iter().map(|s| Cell::text(*s)).collect());
    }
    table.note("Each compile error is a `compile_fail` doctest in `crates/pool/src/contract.rs`, next to a compiling twin that differs only in obeying the rule (stable rustdoc does not check the error code, so the twin is what shows the example fails for the right reason).");
    vec![table]
}

/// One way of failing a line (P6).
type ErrorPath = dyn Fn(&BufferPool<u8>);

/// Runs `n` failing lines through `f` against a pool that starts with spares.
fn p6_run(n: usize, f: &ErrorPath) -> (lab::AllocStats, u64) {
    let pool = BufferPool::<u8>::new(PoolConfig::default());
    let spares = 1 + pool.config().max_per_bucket;
    let mut held: Vec<Rented<'_, u8>> = Vec::with_capacity(spares);
    workloads::rent_many(&pool, &mut held, spares, LINE_BUFFER);
    let ((), stats) = count(|| (0..n).for_each(|_| f(&pool)));
    (stats, pool.stats().outstanding())
}

fn p6_error_paths(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "P6",
        Kind::Count,
        "Failing lines: does the buffer come back? (a pool that starts with 51 spare 128-byte buffers)",
        &[
            "N failing lines",
            "error path",
            "bytes allocated",
            "bytes still live after",
            "buffers never given back",
            "seed: `Return` in `finally`",
            "seed: `Return` forgotten",
        ],
    );
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for (n, seed_finally, seed_forgot) in [
        (10, "1,920 B", "1,920 B"),
        (10_000, "1,920,152 B", "3,439,848 B"),
    ] {
        let paths: [(&str, &ErrorPath); 3] = [
            ("`?` early return (the guard gives back)", &|p| {
                let _ = black_box(workloads::line_or_error(p, true));
            }),
            (
                "panic, caught (the guard gives back while unwinding)",
                &|p| {
                    let _ = std::panic::catch_unwind(|| workloads::line_or_panic(p, true));
                },
            ),
            ("`mem::forget(buf)` on the error path", &|p| {
                let _ = black_box(workloads::line_or_error_forgetting(p, true));
            }),
        ];
        for (idx, (label, f)) in paths.into_iter().enumerate() {
            let (stats, outstanding) = p6_run(n, f);
            table.row(vec![
                Cell::count(n),
                Cell::text(label),
                Cell::Bytes(stats.bytes_allocated),
                Cell::Bytes(stats.bytes_allocated - stats.bytes_freed),
                Cell::Count(outstanding),
                if idx == 0 {
                    Cell::Seed(seed_finally.into())
                } else {
                    Cell::Empty
                },
                if idx == 2 {
                    Cell::Seed(seed_forgot.into())
                } else {
                    Cell::Empty
                },
            ]);
        }
    }
    std::panic::set_hook(previous_hook);
    table.note("As in the seed, the difference does not show at N = 10: the forgotten buffers are taken from the pool's spares. At 10,000 every line past the spares costs a fresh 128-byte buffer that is never freed — a leak, but a safe one.");
    table.note("The panic row's bytes are the unwinding machinery's own (the panic payload is a zero-sized value, so it is not boxed); they are freed again, and no buffer is lost. The seed's columns also include .NET's exception objects (192 B per throw, in both columns).");
    table.note(SEED_000);
    vec![table]
}

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

fn p7_capacity(_: &Settings) -> Vec<Table> {
    let sized = BufferPool::<u8>::new(PoolConfig::default());
    let shared_pool = BufferPool::<u8>::new(shared_config());
    let limit = |p: &BufferPool<u8>| 1 + p.config().max_per_bucket;
    let (sized_limit, shared_limit) = (limit(&sized), limit(&shared_pool));
    let mut table = Table::new(
        "P7",
        Kind::Count,
        "k 128-byte buffers rented at once, then all given back: bytes per round (20 rounds)",
        &[
            "k beyond the limit",
            "k (`PoolConfig::default()`)",
            "bytes per round",
            "k (shared configuration)",
            "bytes per round",
            "seed: k (`ArrayPool.Shared`)",
            "seed: bytes per round",
        ],
    );
    const SEED: [(i64, &str, &str); 10] = [
        (-1, "1 to 257", "0.0 B"),
        (0, "257", "0.0 B"),
        (1, "258", "152.0 B"),
        (3, "260", "456.0 B"),
        (7, "264", "1,064.0 B"),
        (15, "272", "2,280.0 B"),
        (31, "288", "4,712.0 B"),
        (63, "320", "9,576.0 B"),
        (127, "384", "19,304.0 B"),
        (255, "512", "38,760.0 B"),
    ];
    for (excess, seed_k, seed_bytes) in SEED {
        let k = |limit: usize| (limit as i64 + excess) as usize;
        table.row(vec![
            Cell::Signed(excess),
            Cell::count(k(sized_limit)),
            Cell::Bytes(p7_bytes_per_round(&sized, k(sized_limit))),
            Cell::count(k(shared_limit)),
            Cell::Bytes(p7_bytes_per_round(&shared_pool, k(shared_limit))),
            Cell::Seed(seed_k.into()),
            Cell::Seed(seed_bytes.into()),
        ]);
    }
    table.row(vec![
        Cell::Empty,
        Cell::count(4096),
        Cell::Bytes(p7_bytes_per_round(&sized, 4096)),
        Cell::count(4096),
        Cell::Bytes(p7_bytes_per_round(&shared_pool, 4096)),
        Cell::Seed("4,096".into()),
        Cell::Seed("583,528.0 B".into()),
    ]);
    table.note(format!("The limit is one buffer in the thread's cache plus the bucket's shared stack: 1 + {} = {sized_limit} for `PoolConfig::default()`, 1 + 32 × {} logical cores = {shared_limit} for the shared configuration (.NET: 1 + 32 × cores = 257 on the seed's 8 cores). Rows are aligned on the number of buffers beyond each pool's limit.", sized_limit - 1, (shared_limit - 1) / 32));
    table.note("Beyond the limit every extra buffer costs exactly its 128 bytes per round: the pool keeps what it can and frees the rest (counted in `PoolStats::discarded`). .NET's figures per extra buffer are 152 B, the array header included.");
    table.note(SEED_000);
    vec![table]
}

fn p8_ceiling(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "P8",
        Kind::Count,
        "The size ceiling: rent, give back, rent again",
        &[
            "request",
            "kept when given back?",
            "bytes allocated by the second rent",
            "capacity",
            "seed (.NET)",
        ],
    );
    let shared_pool = BufferPool::<u8>::new(shared_config());
    let sized = BufferPool::<u8>::new(PoolConfig::default());
    let cases: [(&str, &BufferPool<u8>, usize, &str); 4] = [
        (
            "shared configuration, `rent(16 MiB)`",
            &shared_pool,
            SHARED_MAX_LEN,
            "kept up to 1,073,741,824 (1 GiB): second `Rent` 0 B",
        ),
        (
            "shared configuration, `rent(16 MiB + 1)`",
            &shared_pool,
            SHARED_MAX_LEN + 1,
            "`Rent(1073741825)`: not kept, 1,073,741,856 B",
        ),
        (
            "`PoolConfig::default()`, `rent(1 MiB)`",
            &sized,
            1 << 20,
            "`Create().Rent(1048576)`: kept",
        ),
        (
            "`PoolConfig::default()`, `rent(1 MiB + 1)`",
            &sized,
            (1 << 20) + 1,
            "`Create().Rent(1048577)`: not kept, 1,048,608 B",
        ),
    ];
    for (label, pool, n, seed) in cases {
        warm(pool, n);
        let retained = pool.stats().retained_bytes > 0;
        let (buf, stats) = count(|| pool.rent(n));
        table.row(vec![
            Cell::text(label),
            Cell::Bool(retained),
            Cell::Bytes(stats.bytes_allocated),
            Cell::count(buf.capacity()),
            Cell::Seed(seed.into()),
        ]);
        drop(buf);
        pool.trim();
    }
    table.note(format!("One element above the ceiling is allocated at exactly the requested size — no rounding, no overshoot — and freed when given back. The shared pool's ceiling is {} bytes, not .NET's 1 GiB: nothing here trims the pool under memory pressure, so a 1 GiB buffer rented once would stay for the life of the process.", lab::table::thousands(SHARED_MAX_LEN as u64)));
    table.note(SEED_000);
    vec![table]
}

fn p9_when_the_pool_loses(_: &Settings) -> Vec<Table> {
    let mut table = Table::new(
        "P9",
        Kind::Count,
        "When the pool does not pay: tiny buffers, per-rent objects, memory kept after use",
        &["what", "bytes allocated", "bytes", "seed (.NET)"],
    );
    let pool = BufferPool::<u8>::new(PoolConfig::default());
    warm(&pool, 64);
    let thousand = |f: &dyn Fn() -> u8| bytes(|| (0..1000).fold(0, |acc, _| acc ^ f()));
    table.row(vec![
        Cell::text("1,000 × `rent(64)` + give back (warm pool)"),
        Cell::Bytes(thousand(&|| workloads::rent_touch(&pool, 64))),
        Cell::Empty,
        Cell::Seed("0 B (`ArrayPool.Shared.Rent(128)` × 1,000)".into()),
    ]);
    table.row(vec![
        Cell::text("1,000 × stack array `[0u8; 64]`"),
        Cell::Bytes(thousand(&workloads::zeroed_stack_touch::<64>)),
        Cell::Empty,
        Cell::Empty,
    ]);
    table.row(vec![
        Cell::text("1,000 × `vec![0u8; 64]`"),
        Cell::Bytes(thousand(&|| workloads::fresh_touch(64))),
        Cell::Empty,
        Cell::Seed("88 B per `new byte[64]`".into()),
    ]);
    table.row(vec![
        Cell::text("the per-rent object: a `Rented<u8>` guard (on the stack, not the heap)"),
        Cell::Bytes(0),
        Cell::bytes(std::mem::size_of::<Rented<'_, u8>>()),
        Cell::Seed("24 B per `MemoryPool.Shared.Rent` (`IMemoryOwner`)".into()),
    ]);
    let big = BufferPool::<u8>::new(shared_config());
    const EIGHT_MIB: usize = 8 << 20;
    let ((), rented) = count(|| drop(big.rent(EIGHT_MIB)));
    table.row(vec![
        Cell::text("`rent(8 MiB)` + give back: allocated, then retained by the pool"),
        Cell::Bytes(rented.bytes_allocated),
        Cell::Bytes(big.stats().retained_bytes),
        Cell::Seed("8,444,800 B held after 4 forced gen-2 GCs".into()),
    ]);
    let (released, trimmed) = count(|| big.trim());
    table.row(vec![
        Cell::text("… then `trim()`: bytes freed, and retained after"),
        Cell::Bytes(trimmed.bytes_freed),
        Cell::Bytes(big.stats().retained_bytes),
        Cell::Seed("no call releases it".into()),
    ]);
    assert_eq!(released, EIGHT_MIB as u64, "trim reports what it freed");
    table.note("The third column is the guard's size and, for the 8 MiB rows, what the pool retains (`PoolStats::retained_bytes`). The allocation of the rows above it includes the pool's first-use cost on this thread where there is one.");
    table.note("A 64-byte buffer is cheap to allocate and free (the allocator's size-class caches are a pool already); its time is in P9-time. `Rented` carries the buffer, its length and the pool: no heap object per rent, unlike .NET's `MemoryPool` (an `IMemoryOwner` per rent).");
    table.note(SEED_000);
    vec![table]
}

fn p9_time(settings: &Settings) -> Vec<Table> {
    let pool = BufferPool::<u8>::new(PoolConfig::default());
    warm(&pool, 64);
    let mut timing = Timing::new(Config::for_settings(settings));
    timing.method(
        "stack array `[0u8; 64]`",
        workloads::zeroed_stack_touch::<64>,
    );
    timing.method("`rent(64)` + give back", || {
        workloads::rent_touch(&pool, 64)
    });
    timing.method("`vec![0u8; 64]`", || workloads::fresh_touch(black_box(64)));
    let mut existing = [0u8; 64];
    timing.floor("touch an existing 64-byte buffer", move || {
        workloads::touch(&mut existing)
    });
    let measured = timing.run(Schedule::Interleaved);
    vec![measured.table(
        "P9-time",
        "64-byte buffers: a stack array, the pool, the allocator (the same touch each)",
    )]
}

/// Sizes of P10: the seed's decades plus the stack-buffer chapter's 2 KiB and 8 KiB.
const P10_SIZES: [usize; 8] = [
    100, 1000, 2048, 8192, 10_000, 100_000, 1_000_000, 10_000_000,
];

/// The seed's figures (`003`), where it has them: allocate, rent/return on `Shared`.
fn p10_seed(size: usize) -> Option<(&'static str, &'static str)> {
    match size {
        100 => Some(("8.078 ns", "44.219 ns")),
        1000 => Some(("41.330 ns", "43.739 ns")),
        10_000 => Some(("374.564 ns", "44.223 ns")),
        100_000 => Some(("3,637.110 ns", "46.649 ns")),
        _ => None,
    }
}

const FRESH: &str = "fresh `vec![0u8; n]`";
const SHARED: &str = "`pool::shared()`";
const SIZED: &str = "pool sized for n";

struct SizeResult {
    size: usize,
    measured: Measurements,
}

fn p10_measure(settings: &Settings, size: usize, sized: &BufferPool<u8>) -> Measurements {
    let mut config = Config::for_settings(settings);
    // One callgrind child per copy and size would add minutes; the 8 KiB table counts them.
    config.count_instructions = false;
    let mut timing = Timing::new(config);
    timing.method(FRESH, move || workloads::fresh_touch(black_box(size)));
    timing.method(SHARED, move || {
        workloads::rent_touch(shared(), black_box(size))
    });
    timing.method(SIZED, move || workloads::rent_touch(sized, black_box(size)));
    let mut existing = vec![0u8; size];
    timing.floor("touch an existing buffer", move || {
        workloads::touch(&mut existing)
    });
    timing.run(Schedule::Interleaved)
}

fn p10_by_size(settings: &Settings) -> Vec<Table> {
    let mut results = Vec::new();
    for size in P10_SIZES {
        // The seed's size-aware pool: `ArrayPool.Create(n + 1, 10)`.
        let sized = BufferPool::<u8>::new(PoolConfig {
            max_len: size,
            max_per_bucket: 10,
            ..PoolConfig::default()
        });
        warm(&sized, size);
        warm(shared(), size);
        let measured = p10_measure(settings, size, &sized);
        results.push(SizeResult { size, measured });
    }
    let mut table = Table::new(
        "P10",
        Kind::Time,
        "Time and bytes per buffer by size: allocate fresh vs rent and give back",
        &[
            "n bytes",
            "fresh",
            "`pool::shared()`",
            "pool sized for n",
            "shared pool / fresh",
            "bytes per op: fresh / pool",
            "largest twin disagreement",
            "seed: allocate",
            "seed: `Shared`",
        ],
    );
    let pair = |m: &Measurements, name: &str| m.method(name).expect("registered").pair();
    for r in &results {
        let (fresh, shared_pair, sized_pair) = (
            pair(&r.measured, FRESH),
            pair(&r.measured, SHARED),
            pair(&r.measured, SIZED),
        );
        let (seed_alloc, seed_shared) = p10_seed(r.size).unzip();
        let size = r.size;
        let fresh_bytes = bytes(|| workloads::fresh_touch(size));
        let pool_bytes = bytes(|| workloads::rent_touch(shared(), size));
        table.row(vec![
            Cell::count(size),
            Cell::Nanos(fresh.original_ns),
            Cell::Nanos(shared_pair.original_ns),
            Cell::Nanos(sized_pair.original_ns),
            publish::ratio(shared_pair, fresh, RATIO_PRECISION).cell(Cell::Ratio),
            Cell::text(format!(
                "{} / {}",
                Cell::Bytes(fresh_bytes).render(),
                Cell::Bytes(pool_bytes).render()
            )),
            Cell::Percent(
                r.measured
                    .methods
                    .iter()
                    .map(|m| m.twin_disagreement_pct())
                    .fold(0.0, f64::max),
            ),
            seed_alloc.map_or(Cell::Empty, |s| Cell::Seed(s.into())),
            seed_shared.map_or(Cell::Empty, |s| Cell::Seed(s.into())),
        ]);
        table
            .twins
            .extend(r.measured.methods.iter().map(|m| m.twin_record()));
    }
    table.note(results[0].measured.protocol_note());
    table.note(p10_target_note(&results));
    table.note("One interleaved run per size (fresh, shared pool, sized pool and a floor that touches an existing buffer of that size, each with its twin). Every buffer gets the same touch: write the first and last byte, read them back. Both pools are warm: this is the hit path.");
    table.note("The ratio is printed only if the difference beats both twin disagreements and the ratio moves less than ±10 % when either twin is swapped in.");
    table.note("Seed figures (*italic*) are from `003`: BenchmarkDotNet 0.10.7, .NET Core 2.0 preview, Intel Core i7-6600U, Windows 10. The seed's table stops at 100,000 bytes, and its allocate row there reads 10,024 B allocated, evidently a typo for 100,024 B.");

    let (hit, hit_measured) = p10_hit(settings);
    let rules = p11_rules(&results, &hit_measured);
    vec![table, hit, rules]
}

/// The target for P10: the shared pool at most 0.2× a fresh buffer from 2 KiB up.
fn p10_target_note(results: &[SizeResult]) -> String {
    let (mut met, mut missed, mut unresolved) = (Vec::new(), Vec::new(), Vec::new());
    for r in results.iter().filter(|r| r.size >= 2048) {
        let pair = |name| r.measured.method(name).expect("registered").pair();
        let size = format!("{} B", lab::table::thousands(r.size as u64));
        match publish::ratio(pair(SHARED), pair(FRESH), RATIO_PRECISION) {
            Verdict::Published(v) if v <= 0.2 => met.push(size),
            Verdict::Published(_) => missed.push(size),
            Verdict::NotResolvable { .. } => unresolved.push(size),
        }
    }
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_owned()
        } else {
            v.join(", ")
        }
    };
    format!(
        "Target: the shared pool at most 0.2× a fresh buffer from 2 KiB up. Met at: {}. Missed at: {}. Not resolvable at: {}.",
        list(&met),
        list(&missed),
        list(&unresolved)
    )
}

const HIT_POOL: &str = "`pool::shared().rent(8192)` + give back";
const HIT_UNZEROED: &str = "unzeroed stack array (`MaybeUninit`), 8 KiB";
const HIT_ZEROED: &str = "zeroed stack array `[0u8; 8192]`";
const HIT_FRESH: &str = "fresh `vec![0u8; 8192]`";

fn p10_hit(settings: &Settings) -> (Table, Measurements) {
    const N: usize = 8192;
    warm(shared(), N);
    let mut timing = Timing::new(Config::for_settings(settings));
    timing.method(HIT_POOL, || workloads::rent_touch(shared(), black_box(N)));
    timing.method(HIT_UNZEROED, workloads::uninit_stack_touch::<N>);
    timing.method(HIT_ZEROED, workloads::zeroed_stack_touch::<N>);
    timing.method(HIT_FRESH, || workloads::fresh_touch(black_box(N)));
    let mut existing = vec![0u8; N];
    timing.floor("touch an existing 8 KiB buffer", move || {
        workloads::touch(&mut existing)
    });
    let measured = timing.run(Schedule::Interleaved);
    let mut table = measured.table(
        "P10-hit",
        "The hit path at 8 KiB, side by side with stack arrays and a fresh buffer",
    );
    let pair = |name: &str| measured.method(name).expect("registered").pair();
    let mut ratio = |label: &str, a: Pair, b: Pair, target: &str| {
        table.note(publish::ratio_note(label, a, b, RATIO_PRECISION, target));
    };
    ratio(
        "Pool / unzeroed stack array",
        pair(HIT_POOL),
        pair(HIT_UNZEROED),
        "≤ 2×; seed `002`, .NET 10, 8 KiB of `double`: 16.0 ns vs 4.9 ns, 3.3×",
    );
    ratio(
        "Pool / fresh `vec![0u8; 8192]`",
        pair(HIT_POOL),
        pair(HIT_FRESH),
        "≤ 0.2×",
    );
    (table, measured)
}

fn p11_rules(results: &[SizeResult], hit: &Measurements) -> Table {
    let mut table = Table::new(
        "P11",
        Kind::Fact,
        "Decision rules, with the thresholds this machine measured",
        &["situation", "do", "because (this run)"],
    );
    let beats = |r: &SizeResult| {
        let pair = |name| r.measured.method(name).expect("registered").pair();
        matches!(publish::difference(pair(FRESH), pair(SHARED)), Verdict::Published(d) if d > 0.0)
    };
    let from = results
        .iter()
        .rposition(|r| !beats(r))
        .map_or(Some(0), |i| (i + 1 < results.len()).then_some(i + 1));
    let threshold = match from {
        Some(i) => format!(
            "from {} B up, the shared pool's hit path beat a fresh buffer at every measured size (P10)",
            lab::table::thousands(results[i].size as u64)
        ),
        None => {
            "at the largest size measured the pool did not resolvably beat a fresh buffer (P10)"
                .to_owned()
        }
    };
    let smaller = from.and_then(|i| i.checked_sub(1)).map(|i| results[i].size);
    let hit_pair = |name: &str| hit.method(name).expect("registered").pair();
    let stack_vs_pool =
        match publish::ratio(hit_pair(HIT_POOL), hit_pair(HIT_UNZEROED), RATIO_PRECISION) {
            Verdict::Published(v) => format!(
                "at 8 KiB the pool took {} the time of an unzeroed stack array (P10-hit)",
                Cell::Ratio(v).render()
            ),
            Verdict::NotResolvable { .. } => {
                "at 8 KiB the pool vs an unzeroed stack array was not resolvable (P10-hit)"
                    .to_owned()
            }
        };
    let cores = (shared_config().max_per_bucket) / 32;
    let rows: [[String; 3]; 6] = [
        [
            "a buffer per call on a hot path, size known only at run time".into(),
            "rent from a pool".into(),
            threshold,
        ],
        [
            "a small buffer whose size is bounded at compile time".into(),
            "a stack array (chapter 2)".into(),
            format!("0 B like the pool (P9), and {stack_vs_pool}"),
        ],
        match smaller {
            Some(size) => [
                format!("a heap buffer of {} B or less", lab::table::thousands(size as u64)),
                "allocate, or use a stack array".into(),
                "at those sizes a rent was not resolvably faster than a fresh buffer (P10)".into(),
            ],
            None => [
                format!("a small heap buffer ({} B, the smallest size measured)", lab::table::thousands(results[0].size as u64)),
                "the pool still beats allocating; a stack array beats both".into(),
                "every size measured favoured the pool over `vec![0u8; n]`, unlike the seed's .NET, where allocation won below about 1 KB (P10, P9-time)".into(),
            ],
        },
        [
            "many buffers of one size held at once".into(),
            "size `max_per_bucket` for the peak, or rethink the batch".into(),
            format!(
                "one thread holds 1 + `max_per_bucket` buffers per size before every extra one allocates: {} for `PoolConfig::default()`, {} for the shared pool on {cores} cores (P7)",
                1 + PoolConfig::default().max_per_bucket,
                1 + 32 * cores
            ),
        ],
        [
            "very large buffers".into(),
            "a pool with a known `max_len`, and `trim()` after the burst".into(),
            format!(
                "above the ceiling ({} B shared) buffers are exact and not kept; what is kept stays until `trim` (P8, P9)",
                lab::table::thousands(SHARED_MAX_LEN as u64)
            ),
        ],
        [
            "buffers that hold secrets".into(),
            "`ClearPolicy::OnReturn` or `rent_cleared`".into(),
            "without it the next renter sees all 41 bytes of the previous line (P4)".into(),
        ],
    ];
    for row in rows {
        table.row(row.into_iter().map(Cell::Text).collect());
    }
    table.note("The thresholds are this run's; rerun `cargo xtask report` on your machine before relying on them.");
    table
}
