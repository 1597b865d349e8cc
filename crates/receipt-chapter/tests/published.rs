//! The chapter's tables as published: each pin reads its figure from the committed snapshot
//! (`docs/data/receipt.json`), which `cargo xtask report --check` keeps equal to what the release
//! experiments binary counts, so a table and its pin cannot disagree. One more test counts R1's
//! small rows again in the test profile and compares them with the release binary's, so an
//! allocation the optimiser removes in one profile and not the other shows here.

use lab::Cell;
use lab::report::Snapshot;
use receipt::generate::generated;
use receipt::{STRATEGIES, Strategy};
use receipt_chapter::cases::BAD_INPUT;
use receipt_chapter::workloads::{R1_SEED, count_runs, prepare_thread_for_counts};

#[global_allocator]
static ALLOC: lab::CountingAlloc = lab::CountingAlloc::new();

fn published() -> Snapshot {
    Snapshot::published("receipt").unwrap()
}

fn cell<'a>(snapshot: &'a Snapshot, table: &str, row: &str, column: &str) -> &'a Cell {
    snapshot.published_cell(table, row, column).unwrap()
}

/// The row labels of a published table.
fn rows(snapshot: &Snapshot, table: &str) -> Vec<String> {
    let table = snapshot.table(table).unwrap();
    table.rows.iter().map(|row| row[0].render()).collect()
}

/// A published `N lines` label as a number.
fn lines(label: &str) -> u64 {
    label.replace(',', "").parse().unwrap()
}

/// The strategies other than `naive` that R1 shows a column of.
const ALLOCATION_FREE: [&str; 4] = ["`pooled`", "`stack`", "`arena`", "`streaming`"];

/// R1 as published: at every N, the four strategies beside `naive` allocate 0 bytes once warm,
/// and `naive`'s bytes grow with N, above the seed's 152 bytes per line at a million lines.
#[cfg_attr(
    miri,
    ignore = "reads the committed snapshot; Miri isolates the file system"
)]
#[test]
fn r1_published_four_strategies_allocate_nothing_once_warm_and_naive_more_than_the_seed() {
    let snapshot = published();
    let labels = rows(&snapshot, "R1");
    assert_eq!(labels.len(), 7, "N = 1 to 1,000,000: {labels:?}");
    let mut before = 0;
    for label in &labels {
        for strategy in ALLOCATION_FREE {
            assert_eq!(
                cell(&snapshot, "R1", label, strategy),
                &Cell::Bytes(0),
                "{strategy}, N = {label}"
            );
        }
        let Cell::Bytes(naive) = *cell(&snapshot, "R1", label, "`naive`") else {
            panic!("`naive` at N = {label} is not a byte count");
        };
        assert!(
            naive > before,
            "`naive` grows with N: {naive} at N = {label}"
        );
        before = naive;
    }
    assert_eq!(labels.last().map(|l| lines(l)), Some(1_000_000));
    assert!(
        before > 152 * 1_000_000,
        "{before} bytes at a million lines"
    );
}

/// R1-allocs as published: `naive` makes at least one allocation per line at every N, and the
/// four strategies beside it none once warm.
#[cfg_attr(
    miri,
    ignore = "reads the committed snapshot; Miri isolates the file system"
)]
#[test]
fn r1_allocs_published_naive_allocates_for_every_line() {
    let snapshot = published();
    for label in rows(&snapshot, "R1-allocs") {
        let Cell::Count(naive) = *cell(&snapshot, "R1-allocs", &label, "`naive`") else {
            panic!("`naive` at N = {label} is not a count");
        };
        assert!(naive >= lines(&label), "{naive} allocations at N = {label}");
        for strategy in ALLOCATION_FREE {
            assert_eq!(
                cell(&snapshot, "R1-allocs", &label, strategy),
                &Cell::Count(0),
                "{strategy}, N = {label}"
            );
        }
    }
}

/// R1-new as published: a new processor of the four strategies beside `naive` pays once, so from
/// 10,000 lines on (once the output buffer has reached its size) its first run allocates the same
/// bytes at every N.
#[cfg_attr(
    miri,
    ignore = "reads the committed snapshot; Miri isolates the file system"
)]
#[test]
fn r1_new_published_one_offs_stop_growing_once_the_output_buffer_is_full() {
    let snapshot = published();
    for strategy in ALLOCATION_FREE {
        let at = |label: &str| cell(&snapshot, "R1-new", label, strategy).clone();
        let flat = at("10,000");
        assert!(
            matches!(flat, Cell::Bytes(b) if b > 0),
            "{strategy}: {flat:?}"
        );
        assert_eq!(at("100,000"), flat, "{strategy}");
        assert_eq!(at("1,000,000"), flat, "{strategy}");
    }
}

/// R1-per-line as published: `naive-reuse`, `naive`'s program with its `String`s kept, allocates
/// nothing per line once warm (it pays once per processor), where `naive` makes at least one
/// allocation per line; so does every other strategy.
#[cfg_attr(
    miri,
    ignore = "reads the committed snapshot; Miri isolates the file system"
)]
#[test]
fn r1_per_line_published_naive_reuse_allocates_nothing_once_warm() {
    let snapshot = published();
    let at = |strategy: Strategy, column: &str| {
        cell(&snapshot, "R1-per-line", &format!("`{strategy}`"), column).render()
    };
    for strategy in STRATEGIES {
        if strategy == Strategy::Naive {
            continue;
        }
        assert_eq!(at(strategy, "allocations per line"), "0", "{strategy}");
        assert_eq!(at(strategy, "reallocations per line"), "0", "{strategy}");
        assert_eq!(at(strategy, "bytes per line"), "0 B", "{strategy}");
    }
    let naive: f64 = at(Strategy::Naive, "allocations per line")
        .replace(',', "")
        .parse()
        .unwrap();
    assert!(naive >= 1.0, "{naive}");
    let once = cell(
        &snapshot,
        "R1-per-line",
        "`naive-reuse`",
        "once per processor (R1-new less R1)",
    );
    assert!(matches!(once, Cell::Bytes(b) if *b > 0), "{once:?}");
}

/// R1 counted again here, in the test profile, for its rows of at most 1,000 lines, compares
/// equal with what the release binary published, for every column of R1, R1-allocs and R1-new:
/// no allocation of these runs is one the optimiser deletes in one profile and keeps in the
/// other (M1's box, dropped inside its count, read 0 in release and 1 here).
#[cfg_attr(
    miri,
    ignore = "reads the committed snapshot; Miri isolates the file system"
)]
#[test]
fn r1_the_test_profile_counts_what_the_release_binary_published() {
    let snapshot = published();
    prepare_thread_for_counts();
    for label in rows(&snapshot, "R1") {
        let n = lines(&label);
        if n > 1_000 {
            continue;
        }
        let input = generated(n, R1_SEED);
        for strategy in STRATEGIES {
            let runs = count_runs(strategy, &input);
            let column = format!("`{strategy}`");
            let Ok(warm) = snapshot.published_cell("R1", &label, &column) else {
                continue; // not one of R1's columns
            };
            let here = [
                Cell::Bytes(runs.warm.bytes_allocated),
                Cell::Count(runs.warm.allocs),
                Cell::Bytes(runs.new.bytes_allocated),
            ];
            let there = [
                warm.clone(),
                cell(&snapshot, "R1-allocs", &label, &column).clone(),
                cell(&snapshot, "R1-new", &label, &column).clone(),
            ];
            assert_eq!(
                here, there,
                "{strategy}, N = {label}: R1, R1-allocs, R1-new"
            );
        }
    }
}

/// R3 as published: every class of bad input prints no receipt, exits 1 and says what the case
/// list says it must, and the good order beside them prints its receipt and exits 0.
#[cfg_attr(
    miri,
    ignore = "reads the committed snapshot; Miri isolates the file system"
)]
#[test]
fn r3_published_every_bad_input_class_prints_no_receipt_and_exits_1() {
    let snapshot = published();
    let good = "good order (for comparison)";
    assert_eq!(
        cell(&snapshot, "R3", good, "receipts printed"),
        &Cell::Count(1)
    );
    assert_eq!(cell(&snapshot, "R3", good, "exit status"), &Cell::Count(0));
    for (class, _, message) in BAD_INPUT {
        let at = |column: &str| cell(&snapshot, "R3", class, column).clone();
        assert_eq!(at("receipts printed"), Cell::Count(0), "{class}");
        assert_eq!(at("exit status"), Cell::Count(1), "{class}");
        assert_eq!(at("stderr, first line"), Cell::text(message), "{class}");
    }
}
