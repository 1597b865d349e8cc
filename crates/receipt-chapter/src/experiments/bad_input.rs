//! R3: bad input and the command's other answers, from the real `receipt` binary. One of a kind
//! (each row runs the command its own way), so the table is built by hand.

use std::path::Path;
use std::process::{ExitStatus, Output, Stdio};

use lab::report::{Function, Run};
use lab::{Cell, Table};
use receipt::generate::generated;
use receipt::input::BOM;
use receipt::line::escape;

use super::{NO_BINARY, receipt_binary};
use crate::cases;
use crate::child::{Closed, close_after, run_closed, run_to, run_with_input};

pub(super) const R3: Function = lab::function!(r3_bad_input);

/// The characters of an input shown before it is cut.
const SHOWN_CHARS: usize = 40;

/// The input as a code span: line ends as `⏎`, the byte-order mark, control characters and
/// bytes that are not UTF-8 escaped (they must not reach the reader's terminal from the docs
/// either), long inputs cut.
fn shown(bytes: &[u8]) -> Cell {
    if bytes.is_empty() {
        return Cell::text("(none)");
    }
    let text: Vec<String> = bytes.split(|&b| b == b'\n').map(escape).collect();
    let text = text.join("⏎").replace('\u{feff}', "\\u{feff}");
    let mut out: String = text.chars().take(SHOWN_CHARS).collect();
    if text.chars().count() > SHOWN_CHARS {
        out.push_str(&format!("… ({} bytes)", Cell::count(bytes.len()).render()));
    }
    Cell::Text(format!("`{out}`"))
}

/// The first line the command wrote to standard error, or a dash if it wrote nothing.
fn first_line(stderr: &[u8]) -> Cell {
    match String::from_utf8_lossy(stderr).lines().next() {
        Some(line) => Cell::text(line),
        None => Cell::text("(nothing)"),
    }
}

fn exit_status(status: ExitStatus) -> Cell {
    status
        .code()
        .map_or(Cell::text("killed by a signal"), Cell::count)
}

/// The three result cells of a run: what it said, the receipts it printed (if they were
/// captured), how it exited.
fn outcome(run: std::io::Result<Output>, receipts_shown: bool) -> Vec<Cell> {
    match run {
        Ok(out) => vec![
            first_line(&out.stderr),
            if receipts_shown {
                Cell::count(
                    String::from_utf8_lossy(&out.stdout)
                        .matches("Order ")
                        .count(),
                )
            } else {
                Cell::Empty
            },
            exit_status(out.status),
        ],
        Err(err) => vec![Cell::text(err.to_string()), Cell::Empty, Cell::Empty],
    }
}

fn r3_bad_input(run: &Run) -> Vec<Table> {
    let mut table = run.table(&[
        "class",
        "input",
        "stderr, first line",
        "receipts printed",
        "exit status",
    ]);
    let Some(binary) = receipt_binary() else {
        table.note(NO_BINARY);
        return vec![table];
    };
    let mut row = |class: &str, input: Cell, result: Vec<Cell>| {
        let mut cells = vec![Cell::text(class), input];
        cells.extend(result);
        table.row(cells);
    };
    let piped = |input: &[u8], args: &[&str]| outcome(run_with_input(&binary, args, input), true);
    let good = "1042|ต้มยำกุ้ง|2|18000\n";
    row(
        "good order (for comparison)",
        shown(good.as_bytes()),
        piped(good.as_bytes(), &[]),
    );
    let with_bom = [BOM, good.as_bytes()].concat();
    row(
        "good order after a byte-order mark",
        shown(&with_bom),
        piped(&with_bom, &[]),
    );
    for (class, text, _) in cases::BAD_INPUT {
        let input = cases::input(class, text);
        row(class, shown(&input), piped(&input, &[]));
    }
    let two_orders = b"1|a|1|100\n2|b|x|100\n";
    row(
        "good order, then a bad line of another order",
        shown(two_orders),
        piped(two_orders, &[]),
    );
    let unterminated = cases::NO_FINAL_LINE_ENDING.as_bytes();
    row(
        "good order, its last line without a line ending",
        shown(unterminated),
        piped(unterminated, &[]),
    );
    row(
        "usage error: `--strategy fast`",
        shown(b""),
        piped(b"", &["--strategy", "fast"]),
    );
    row(
        "no such file: `/no/such/file`",
        shown(b""),
        piped(b"", &["/no/such/file"]),
    );
    row("a directory: `/`", shown(b""), piped(b"", &["/"]));
    closed_and_unwritable(&binary, &mut row);
    table.note("Every input is piped to the real `receipt` binary (default strategy `streaming`); all six strategies print the same bytes and the same errors, at every chunk size (`strategies_agree_on_random_order_files`, `each_error_class_has_its_message_and_prints_nothing`). After the bad lines, standard error names each rejected order and its bad lines, and its last line accounts for every input line.");
    table.note("Control characters and bytes that are not UTF-8 are shown escaped in the input column (`\\u{1b}`, `\\xFF`); the command never prints them, and it escapes them the same way when it echoes an argument or a file name.");
    table.note("A last line without a line ending is read as any other, and reported after its own problems: an input cut off while it was written or read ends that way too, and the report makes that visible; it changes no exit status. A `\\r` just before the end of the input is part of the last line, as a `\\r` before any byte but `\\n` is.");
    table.note("A closed output pipe ends the run quietly, with the status of what was read until then: 0, or 1 once a line was rejected. Any other output that cannot be written is an error, whatever the standard library makes of it: one that is open for reading only or closed fails every write with `EBADF`, which Rust's `Stdout` would take for a success. Random bytes never make it panic, and every line is accounted for: `arbitrary_bytes_never_panic_and_every_line_is_accounted_for` (a proptest).");
    vec![table]
}

/// The rows where the output goes away or cannot be written.
fn closed_and_unwritable(binary: &Path, row: &mut impl FnMut(&str, Cell, Vec<Cell>)) {
    // The reader goes away: `receipt < orders.txt | head -c 100`.
    let lines = generated(200_000, 5);
    let generated_lines = || Cell::text("200,000 generated lines");
    row(
        "output closed after 100 bytes (`| head -c 100`)",
        generated_lines(),
        outcome(
            close_after(binary, &[], Some(&lines), Closed::Stdout, 100),
            false,
        ),
    );
    let rejected_first = [cases::REJECTED_LINE.as_bytes(), &lines].concat();
    row(
        "output closed after 100 bytes, a line rejected before",
        Cell::text("a bad line, then 200,000 generated lines"),
        outcome(
            close_after(binary, &[], Some(&rejected_first), Closed::Stdout, 100),
            false,
        ),
    );
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
    let unwritable = match full {
        Ok(file) => outcome(run_to(binary, &[], &lines, Stdio::from(file)), false),
        Err(err) => vec![
            Cell::text(format!("/dev/full: {err}")),
            Cell::Empty,
            Cell::Empty,
        ],
    };
    row(
        "output cannot be written (`> /dev/full`)",
        generated_lines(),
        unwritable,
    );
    let read_only = std::fs::File::open("/dev/null");
    let read_only = match read_only {
        Ok(file) => outcome(run_to(binary, &[], &lines, Stdio::from(file)), false),
        Err(err) => vec![
            Cell::text(format!("/dev/null: {err}")),
            Cell::Empty,
            Cell::Empty,
        ],
    };
    row(
        "output open for reading only (`1< /dev/null`)",
        generated_lines(),
        read_only,
    );
    row(
        "output closed (`>&-`)",
        generated_lines(),
        outcome(run_closed(binary, &[], &lines, Closed::Stdout), false),
    );
}
