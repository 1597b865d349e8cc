//! What the compiler and clippy catch (S13): the workspace's stack-size lints and what they
//! flag, `Box::new([0u8; N])` in the dev profile and in release, and a stack buffer held across
//! `.await`.

use std::path::PathBuf;

use lab::protocol::DEV_BINARY_VAR;
use lab::report::{Function, Run};
use lab::table::Columns;
use lab::{Cell, Kind, Table};

use crate::across_await::future_sizes;
use crate::lints::{
    FIXTURE_CASES, FixtureCase, STACK_LINTS, StackLint, clippy_version, level, threshold_bytes,
};
use crate::probe::{BOX_SIZES, BoxWay, ChildRun, Launcher, Thread};

pub(super) const S13: Function = lab::function!(s13_what_the_compiler_catches);

const KIB: usize = 1024;
/// The thread the `Box` probes run on: Rust's default for a spawned thread.
const BOX_THREAD: Thread = Thread::Sized(2 * KIB * KIB);

fn s13_what_the_compiler_catches(run: &Run) -> Vec<Table> {
    vec![
        lints_table(run),
        fixture_table(),
        box_table(),
        await_table(),
    ]
}

fn lints_table(run: &Run) -> Table {
    let mut table = run.own(
        Columns::new()
            .col("lint", |l: &StackLint| {
                Cell::text(format!("`clippy::{}`", l.lint))
            })
            .col("level in `[workspace.lints.clippy]`", |l: &StackLint| {
                Cell::text(level(l.lint).unwrap_or_else(|| "off (clippy's default)".to_owned()))
            })
            .col("threshold in `clippy.toml`", |l: &StackLint| {
                Cell::text(format!("`{}`", l.threshold_key))
            })
            .col("bytes", |l: &StackLint| {
                threshold_bytes(l.threshold_key).map_or(Cell::Empty, Cell::Bytes)
            })
            .col("what it measures", |l: &StackLint| Cell::text(l.measures))
            .table("S13", Kind::Fact, "", &STACK_LINTS),
    );
    table.note("Read from the root `Cargo.toml` and `clippy.toml` as this build saw them. The three lints are off by default (pedantic and nursery lints); the workspace turns them on, so `cargo clippy --workspace -- -D warnings` in CI fails on any of them.");
    table.note("They are the counterpart of the seed's analyzer rule CA2014 (`stackalloc` inside a loop), which .NET 10 enables as a warning. A loop is the one thing they do not need to catch: a Rust frame has a size fixed at compile time, so no loop can grow the stack (S9).");
    table
}

fn fixture_table() -> Table {
    let mut table = Columns::new()
        .col(
            "function in `tests/fixtures/stack_lints.rs`",
            |c: &FixtureCase| Cell::text(format!("`{}`", c.function)),
        )
        .col("what it does", |c: &FixtureCase| Cell::text(c.does))
        .col("flagged by", |c: &FixtureCase| {
            Cell::text(
                c.flagged_by
                    .map_or_else(|| "nothing".to_owned(), |lint| format!("`{lint}`")),
            )
        })
        .table(
            "S13-lints",
            Kind::Fact,
            "What those lints flag, and what they let through",
            &FIXTURE_CASES,
        );
    table.note("The test `s13_clippy_flags_large_arrays_frames_and_futures_and_not_their_twins` runs `cargo clippy` on the fixture as a crate of its own with the workspace's configuration and checks that exactly these functions are flagged, by exactly these lints.");
    table.note(match clippy_version() {
        Some(version) => format!("Checked with {version}: what a lint flags changes between clippy versions, and the test fails when it does."),
        None => "The clippy version could not be read (`cargo clippy --version`): what a lint flags changes between versions, and the test fails when it does.".to_owned(),
    });
    table.note("Never flagged: recursion, which accumulates one frame per level and can overflow (by the seed's reading of its documentation, CA2014 does not see recursion either), and an array whose size is a const generic parameter, which the lints do not evaluate.");
    table
}

/// The largest size one way built, and the child that failed at the next size (if one did).
type Found = Result<(Option<usize>, Option<ChildRun>), String>;

/// What one way of boxing an array did on a 2 MiB thread, in each build.
struct Boxed {
    way: BoxWay,
    release: Found,
    dev: Option<Found>,
}

fn largest_cell(found: &Found) -> Cell {
    match found {
        Ok((Some(bytes), _)) => Cell::count(bytes / KIB),
        Ok((None, _)) => Cell::text("none"),
        Err(why) => Cell::text(format!("not found: {why}")),
    }
}

fn next_cell(found: &Found) -> Cell {
    match found {
        Ok((largest, Some(failure))) => {
            let next = largest.map_or(0, |bytes| {
                BOX_SIZES
                    .iter()
                    .position(|&b| b == bytes)
                    .map_or(0, |i| i + 1)
            });
            let size = BOX_SIZES.get(next).map_or_else(String::new, |b| {
                format!("{} KiB: ", lab::fmt::thousands((b / KIB) as u64))
            });
            Cell::text(format!("{size}`{}`", failure.message))
        }
        Ok((_, None)) => Cell::text("none: every size tried built"),
        Err(_) => Cell::Empty,
    }
}

fn box_table() -> Table {
    let release = Launcher::this_binary(&[]);
    let dev =
        std::env::var_os(DEV_BINARY_VAR).map(|path| Launcher::binary(PathBuf::from(path), &[]));
    let rows: Vec<Boxed> = BoxWay::ALL
        .iter()
        .map(|&way| Boxed {
            way,
            release: release
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|l| l.largest_boxed(way, BOX_THREAD)),
            dev: dev.as_ref().map(|l| l.largest_boxed(way, BOX_THREAD)),
        })
        .collect();
    let dev_given = dev.is_some();
    let mut table = Columns::new()
        .col("code", |b: &Boxed| Cell::text(format!("`{}`", b.way.code())))
        .col("release: largest built (KiB)", |b: &Boxed| {
            largest_cell(&b.release)
        })
        .col("release: the first size that failed", |b: &Boxed| {
            next_cell(&b.release)
        })
        .col_if(dev_given, "dev profile: largest built (KiB)", |b: &Boxed| {
            b.dev.as_ref().map_or(Cell::Empty, largest_cell)
        })
        .col_if(dev_given, "dev profile: the first size that failed", |b: &Boxed| {
            b.dev.as_ref().map_or(Cell::Empty, next_cell)
        })
        .table(
            "S13-box",
            Kind::Fact,
            "A boxed zeroed array on a thread with a 2 MiB stack, four ways, each size in a child process",
            &rows,
        );
    let sizes: Vec<String> = BOX_SIZES
        .iter()
        .map(|b| lab::fmt::thousands((b / KIB) as u64))
        .collect();
    table.note(format!(
        "Sizes tried in ascending order until one fails: {} KiB. A failure is the child process's crash, shown by its message.",
        sizes.join(", ")
    ));
    table.note("`Box::new(x)` takes its argument by value: the array is evaluated into a temporary on the caller's stack before it is moved into the heap allocation (that `Box::new` is `#[inline(always)]` does not change the order). In this release build LLVM removed the temporary and zeroed the heap block directly, an optimisation, not a guarantee; the dev profile does not optimise, so the array really is built on the stack, and a large one overflows it.");
    if !dev_given {
        table.note(format!("No dev-profile build was given (`{DEV_BINARY_VAR}`), so only the release columns were measured here. The dev profile's behaviour is pinned by the test `s13_box_new_of_a_large_array_overflows_the_stack_in_the_dev_profile`, which runs only in a dev build of the tests (it is ignored in release): on a 2 MiB thread, `Box::new([0u8; N])` builds 1,024 KiB and aborts with Rust's stack-overflow message at 2,048 KiB; `s13_the_three_heap_ways_build_16_mib_on_a_2_mib_thread` pins the other three ways."));
    }
    table
}

fn await_table() -> Table {
    let sizes = future_sizes();
    let mut table = Columns::new()
        .col("the `async fn`", |(what, _): &(&str, usize)| {
            Cell::text(*what)
        })
        .col(
            "`size_of_val` of its future",
            |(_, bytes): &(&str, usize)| Cell::bytes(*bytes),
        )
        .table(
            "S13-await",
            Kind::Fact,
            "A stack buffer held across `.await` is part of the future: the size of three futures",
            &sizes,
        );
    table.note("Every local that lives across an `.await` is a field of the state machine the `async fn` compiles to, so an 8 KiB array held across one makes the future itself 8 KiB, wherever it is stored: on the stack of whoever awaits it, in a `Box`, in an executor's task. Used in a plain function before the `.await` (the seed's synchronous helper), it is on the stack only while that function runs; boxed, the future holds a pointer and a length.");
    table.note("C# refuses a `stackalloc` span across `await` (a `ref struct` cannot be held there); Rust compiles it and moves the buffer into the future, and `clippy::large_futures` flags the future where it is awaited (S13-lints).");
    table
}
