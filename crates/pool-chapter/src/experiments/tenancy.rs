//! The renter's side of the contract: what the next tenant finds (P4), who enforces each rule
//! (P5), and whether a buffer comes back on an error path (P6).

use std::hint::black_box;

use lab::report::{Function, Run};
use lab::table::{Claim, Columns};
use lab::{AllocStats, Cell, Kind, Table, count};
use pool::{BufferPool, ClearPolicy, PoolConfig, Rented};

use super::SEED_ITALIC;
use crate::workloads::{self, LINE_BUFFER, LetGo, StaleData, StaleVec};

pub(super) const P4: Function = lab::function!(p4_stale_data);
pub(super) const P5: Function = lab::function!(p5_contract);
pub(super) const P6: Function = lab::function!(p6_error_paths);

/// Text as a table shows it: Thai as Thai, and only the invisible characters escaped.
fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '\n' => out.push_str("\\n"),
            '\0' => out.push_str("\\0"),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

/// A read of the remembered length, as `std::str::from_utf8` answers it.
fn strict_read(s: &StaleData) -> Cell {
    Cell::text(match s.wrong_length_read {
        Ok(()) => "`Ok`".to_owned(),
        Err(at) => format!("`Err`: valid up to byte {at}"),
    })
}

// P4 is one of a kind (each row a different question, each column a different pool), so it is
// built row by row rather than from `Columns`.
fn p4_stale_data(run: &Run) -> Vec<Table> {
    let never = workloads::stale_data(ClearPolicy::Never);
    let on_return = workloads::stale_data(ClearPolicy::OnReturn);
    let vec = workloads::stale_vec();
    let mut table = run.table(&[
        "what the second renter sees",
        "`ClearPolicy::Never` (default)",
        "`ClearPolicy::OnReturn`",
        "`VecPool` (a vector of length 0)",
    ]);
    let mut row = |label: &str, cell: &dyn Fn(&StaleData) -> Cell, in_vec: Cell| {
        table.row(vec![
            Cell::text(label),
            cell(&never),
            cell(&on_return),
            in_vec,
        ]);
    };
    let nothing_to_read =
        |v: &StaleVec| Cell::text(format!("nothing: its length is {}", v.len_before_writing));
    row(
        "the same buffer as the first renter?",
        &|s| Cell::Bool(s.same_buffer),
        Cell::Bool(vec.same_buffer),
    );
    row(
        "bytes the first renter wrote (`1042|ต้มยำกุ้ง|2|18000\\n`)",
        &|s| Cell::count(s.first_written),
        Cell::count(vec.first_written),
    );
    row(
        "non-zero bytes found before writing anything",
        &|s| Cell::count(s.nonzero_before_writing),
        nothing_to_read(&vec),
    );
    row(
        "bytes the second renter wrote (`7|ส้มตำ|1|6000\\n`)",
        &|s| Cell::count(s.second_written),
        Cell::count(vec.second_written),
    );
    row(
        "a strict read with the remembered length: `std::str::from_utf8(&buf[..41])`",
        &strict_read,
        Cell::text(match &vec.wrong_length_read {
            None => "`vec.get(..41)` is `None`".to_owned(),
            Some(text) => format!("`{}`", visible(text)),
        }),
    );
    row(
        "the same bytes, read leniently: `String::from_utf8_lossy`",
        &|s| Cell::text(format!("`{}`", visible(&s.wrong_length_lossy))),
        Cell::Empty,
    );
    row(
        "non-zero bytes the third renter finds",
        &|s| Cell::count(s.nonzero_after_second_return),
        Cell::Empty,
    );
    table.note("The guard shows only the length asked for, but within it the second renter sees what the last renter left: someone else's data, initialised, so safe to read. A strict decode (`std::str::from_utf8`) refuses the stale tail and says where; a lenient one (`String::from_utf8_lossy`, like .NET's default `Encoding.UTF8.GetString`) reads it as text.");
    table.note("A `VecPool` hands out a `Vec` of length 0: the previous line sits in its spare capacity, which safe code cannot read.");
    table.note("seed 000: the second renter saw all 41 bytes of the first line with `clearArray: false`, and the third 0 after `Return(a2, clearArray: true)` (Core i7-7700, .NET 10); here: the `ClearPolicy::Never` and `OnReturn` columns.");
    vec![table]
}

/// The contract: what .NET leaves to discipline, and what Rust does with it.
const CONTRACT: [[&str; 4]; 11] = [
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
        "compile error (cannot move out while borrowed); an owned guard keeps its pool alive instead",
        "§4, §8",
    ],
    [
        "give back a buffer the pool never lent",
        "checked by length only: kept if its length is a bucket's exact size (seed: `Return(new P9[128])`, then `Rent(128)` hands it out with its 77); `ArgumentException` for a length within the buckets that is not a bucket's size (seed: `new PA[100]`), `ArgumentNullException` for `null`; an empty array, or one above the largest bucket, silently not kept",
        "compile error: there is no give-back method, and a guard cannot be built outside the crate",
        "§5",
    ],
    [
        "send a rented buffer to a thread that may outlive the pool",
        "not applicable (the GC keeps the pool alive)",
        "compile error for a guard that borrows a shorter-lived pool (borrowed value does not live long enough); `rent_owned` gives a `'static`, `Send` guard holding an `Arc` of the pool, and a guard of `pool::shared()` or of a pool in a `static` is `'static` already",
        "§7",
    ],
    [
        "a pool of values that cannot cross threads",
        "not applicable",
        "compile error (the element type must be `Send`)",
        "§6",
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
        "run time: `give_back_cleared` for one buffer, or `ClearPolicy::OnReturn` for a pool (`rent_cleared` clears when renting, so it leaves what its renter writes); stale data is initialised, so safe",
        "P4, P11",
    ],
    [
        "give back on every path",
        "`Return` in `finally`, or the buffer is lost on an exception",
        "run time, automatic: the guard gives back on early return and panic; keeping a buffer for good takes a deliberate act (`mem::forget`, `Box::leak`, `ManuallyDrop`, a guard parked in a long-lived structure), safe and costing a fresh buffer",
        "P6",
    ],
    [
        "hold no more than the pool keeps",
        "silent: beyond the limit every rent allocates",
        "run time, counted: `PoolStats::discarded`",
        "P7",
    ],
];

fn p5_contract(run: &Run) -> Vec<Table> {
    type Rule = [&'static str; 4];
    let mut table = run.own(
        Columns::new()
            .col("rule", |r: &Rule| Cell::text(r[0]))
            .col(".NET `ArrayPool.Shared` (seed)", |r: &Rule| {
                Cell::text(r[1])
            })
            .col("Rust `pool`", |r: &Rule| Cell::text(r[2]))
            .col("pinned by", |r: &Rule| Cell::text(r[3]))
            .table("P5", Kind::Fact, "", &CONTRACT),
    );
    let after = |how| workloads::secret_left_for_next_renter(how).0;
    table.note("Each compile error is a `compile_fail` doctest in `crates/pool/src/contract.rs`, next to a compiling twin that differs only in obeying the rule (stable rustdoc does not check the error code, so the twin is what shows the example fails for the right reason).");
    table.note("The .NET column is the seed's measurements where it has them; what `Return` checks beyond them is read from dotnet/runtime's `SharedArrayPool.cs`, the pool `ArrayPool.Shared` returns.");
    table.note(format!(
        "Clearing a 16-byte secret, counted: the next plain renter of the same buffer reads {} of its bytes after a plain give-back, {} after `rent_cleared`, {} after `give_back_cleared` and {} from a pool that clears on return.",
        after(LetGo::GiveBack),
        after(LetGo::RentClearedThenGiveBack),
        after(LetGo::GiveBackCleared),
        after(LetGo::PoolClearsOnReturn)
    ));
    let secret = |how| Claim::Verdict {
        text: format!("{} B", after(how)),
    };
    table.conclude(
        "bytes of a 16-byte secret the next plain renter reads after `give_back_cleared`",
        secret(LetGo::GiveBackCleared),
    );
    table.conclude(
        "bytes of a 16-byte secret the next plain renter reads after `rent_cleared` and a plain give-back",
        secret(LetGo::RentClearedThenGiveBack),
    );
    vec![table]
}

/// One way of failing a line (P6).
type ErrorPath = dyn Fn(&BufferPool<u8>);

/// Runs `n` failing lines through `f` against a pool that starts with spares.
fn p6_run(n: usize, f: &ErrorPath) -> (AllocStats, u64) {
    let pool = BufferPool::<u8>::new(PoolConfig::default());
    let spares = 1 + pool.config().max_per_bucket;
    let mut held: Vec<Rented<'_, u8>> = Vec::with_capacity(spares);
    workloads::rent_many(&pool, &mut held, spares, LINE_BUFFER);
    let ((), stats) = count(|| (0..n).for_each(|_| f(&pool)));
    (stats, pool.stats().outstanding())
}

/// One row of P6.
struct Failing {
    n: usize,
    path: &'static str,
    stats: AllocStats,
    outstanding: u64,
    seed_finally: Option<&'static str>,
    seed_forgot: Option<&'static str>,
}

fn p6_error_paths(run: &Run) -> Vec<Table> {
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut rows = Vec::new();
    // The seed's totals less its exception objects (192 B per throw, which it measured apart).
    for (n, seed_finally, seed_forgot) in [(10, "0 B", "0 B"), (10_000, "152 B", "1,519,848 B")] {
        let paths: [(&'static str, &ErrorPath); 3] = [
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
        for (idx, (path, f)) in paths.into_iter().enumerate() {
            let (stats, outstanding) = p6_run(n, f);
            rows.push(Failing {
                n,
                path,
                stats,
                outstanding,
                seed_finally: (idx == 0).then_some(seed_finally),
                seed_forgot: (idx == 2).then_some(seed_forgot),
            });
        }
    }
    std::panic::set_hook(previous_hook);
    let seed = |s: Option<&str>| s.map_or(Cell::Empty, |s| Cell::Seed(s.into()));
    let mut table = run.own(
        Columns::new()
            .col("N failing lines", |r: &Failing| Cell::count(r.n))
            .col("error path", |r: &Failing| Cell::text(r.path))
            .col("bytes allocated", |r: &Failing| {
                Cell::Bytes(r.stats.bytes_allocated)
            })
            .col("bytes still live after", |r: &Failing| {
                Cell::Bytes(r.stats.bytes_allocated - r.stats.bytes_freed)
            })
            .col("buffers never given back", |r: &Failing| {
                Cell::Count(r.outstanding)
            })
            .col(
                "seed: `Return` in `finally`, less its exceptions",
                |r: &Failing| seed(r.seed_finally),
            )
            .col(
                "seed: `Return` forgotten, less its exceptions",
                |r: &Failing| seed(r.seed_forgot),
            )
            .table("P6", Kind::Count, "", &rows),
    );
    table.note("As in the seed, the difference does not show at N = 10: the forgotten buffers are taken from the pool's spares. At 10,000 every line past the spares costs a fresh 128-byte buffer that is never freed — a leak, but a safe one.");
    table.note("The seed threw an exception on every failing line, and its totals are mostly those exceptions: 192 B each, which it measured apart (1,920 B at N = 10, in both of its columns). Its columns here are its totals less the exceptions, as the seed itself subtracted them: what the array pool cost, the only part a Rust `?` or a guard can be compared with.");
    table.note("The panic row's bytes are the unwinding machinery's own (the panic payload is a zero-sized value, so it is not boxed), Rust's nearest counterpart of an exception object; they are freed again, and no buffer is lost.");
    table.note(SEED_ITALIC);
    vec![table]
}
