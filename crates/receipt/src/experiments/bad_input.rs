//! R3: bad input and the command's other answers, from the real `receipt` binary. One of a kind
//! (each row runs the command its own way), so the table is built by hand.

use lab::report::{Function, Run};
use lab::{Cell, Table};

use super::{NO_BINARY, receipt_binary};
use crate::cases;
use crate::command::{close_after, run_with_input};
use crate::generate::generated;
use crate::input::BOM;
use crate::line::is_control;

pub(super) const R3: Function = lab::function!(r3_bad_input);

/// The input as a code span: line ends as `⏎`, control characters escaped (they must not reach
/// the reader's terminal from the docs either), long inputs cut.
fn shown(bytes: &[u8]) -> Cell {
    if bytes.is_empty() {
        return Cell::text("(none)");
    }
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    for (idx, c) in text.chars().enumerate() {
        if idx == 40 {
            out.push_str(&format!("… ({} bytes)", Cell::count(bytes.len()).render()));
            break;
        }
        match c {
            '\n' => out.push('⏎'),
            '\u{feff}' => out.push_str("\\u{feff}"),
            c if is_control(c) => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
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

fn exit_status(status: std::process::ExitStatus) -> Cell {
    status
        .code()
        .map_or(Cell::text("killed by a signal"), Cell::count)
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
    let mut piped = |class: &str, input: &[u8], args: &[&str]| {
        let row = match run_with_input(&binary, args, input) {
            Ok(out) => vec![
                first_line(&out.stderr),
                Cell::count(
                    String::from_utf8_lossy(&out.stdout)
                        .matches("Order ")
                        .count(),
                ),
                exit_status(out.status),
            ],
            Err(err) => vec![Cell::text(err.to_string()), Cell::Empty, Cell::Empty],
        };
        let mut cells = vec![Cell::text(class), shown(input)];
        cells.extend(row);
        table.row(cells);
    };
    let good = "1042|ต้มยำกุ้ง|2|18000\n";
    piped("good order (for comparison)", good.as_bytes(), &[]);
    piped(
        "good order after a byte-order mark",
        &[BOM, good.as_bytes()].concat(),
        &[],
    );
    for (class, text, _) in cases::BAD_INPUT {
        piped(class, &cases::input(class, text), &[]);
    }
    piped(
        "good order, then a bad line of another order",
        b"1|a|1|100\n2|b|x|100\n",
        &[],
    );
    piped(
        "usage error: `--strategy fast`",
        b"",
        &["--strategy", "fast"],
    );
    piped("no such file: `/no/such/file`", b"", &["/no/such/file"]);
    // The reader goes away: `receipt < orders.txt | head -c 100`.
    let lines = generated(200_000, 5);
    let cells = match close_after(&binary, &[], Some(&lines), 100) {
        Ok(out) => vec![
            first_line(&out.stderr),
            Cell::Empty,
            exit_status(out.status),
        ],
        Err(err) => vec![Cell::text(err.to_string()), Cell::Empty, Cell::Empty],
    };
    let mut row = vec![
        Cell::text("output closed after 100 bytes (`| head -c 100`)"),
        Cell::text("200,000 generated lines"),
    ];
    row.extend(cells);
    table.row(row);
    table.note("Every input is piped to the real `receipt` binary (default strategy `streaming`); all five strategies print the same bytes and the same errors, at every chunk size (`strategies_agree_on_random_order_files`, `each_error_class_has_its_message_and_prints_nothing`). After the bad lines, standard error names each rejected order and its bad lines, and its last line accounts for every input line.");
    table.note("Control characters in the input column are shown escaped (`\\u{1b}`); the command never prints them.");
    table.note("Random bytes never make it panic, and every line is accounted for: `arbitrary_bytes_never_panic_and_every_line_is_accounted_for` (a proptest).");
    vec![table]
}
