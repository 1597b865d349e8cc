//! The `receipt` command as users of Unix tools expect it: exit statuses, usage text only for
//! usage errors, quiet on a closed pipe, standard input or a file, streamed.

#![cfg(not(miri))] // these tests run the binary

use std::path::Path;
use std::process::{Command, Output};

use receipt::command::{self, MemoryProbe};

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample/orders.txt");
const BAD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample/bad.txt");

fn receipt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_receipt"))
        .args(args)
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn the_command_exits_0_1_or_2_and_says_why() {
    let ok = receipt(&[SAMPLE]);
    assert_eq!(ok.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&ok.stdout).starts_with("Order "));
    let rejected = receipt(&["--strategy", "naive", BAD]);
    assert_eq!(rejected.status.code(), Some(1));
    let err = stderr(&rejected);
    assert!(
        err.contains("line 3: qty is not a positive decimal integer"),
        "{err}"
    );
    assert!(
        err.trim_end().ends_with("blank"),
        "the summary comes last: {err}"
    );
    assert_eq!(receipt(&["--help"]).status.code(), Some(0));
    let generated_file = receipt(&["gen", "--lines", "16", "--seed", "7"]);
    assert_eq!(
        generated_file.stdout,
        std::fs::read(SAMPLE).unwrap(),
        "the sample is `receipt gen --lines 16 --seed 7`"
    );
}

/// R3: a usage error says what is wrong, then shows the usage, and exits 2.
#[test]
fn usage_errors_show_the_usage_and_exit_2() {
    for args in [
        &["--strategy", "fast"][..],
        &["--strategy"],
        &["--frobnicate"],
        &["a", "b"],
        &["gen"],
        &["gen", "--lines", "x"],
    ] {
        let out = receipt(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(err.starts_with("receipt: "), "{args:?}: {err}");
        assert!(err.contains("\nusage: receipt"), "{args:?}: {err}");
    }
}

/// R3: an input that cannot be read is one line of message, without the usage, and exit 2.
#[test]
fn io_errors_say_why_without_the_usage_and_exit_2() {
    let dir = env!("CARGO_MANIFEST_DIR");
    for (path, reason) in [("/no/such/file", "No such file"), (dir, "Is a directory")] {
        let out = receipt(&[path]);
        assert_eq!(out.status.code(), Some(2), "{path}");
        let err = stderr(&out);
        assert!(
            err.starts_with(&format!("receipt: cannot read {path}: {reason}")),
            "{err}"
        );
        assert_eq!(err.lines().count(), 1, "no usage after an I/O error: {err}");
    }
}

#[test]
fn help_documents_every_exit_status_and_the_closed_pipe() {
    let help = String::from_utf8(receipt(&["--help"]).stdout).unwrap();
    for needle in [
        "Exit status:",
        "  0 ",
        "  1 ",
        "  2 ",
        "`head`",
        "byte-order mark",
    ] {
        assert!(help.contains(needle), "{needle:?} in {help}");
    }
}

fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_receipt"))
}

/// Starts `receipt args`, reads `keep` bytes of its output, closes the pipe and waits.
fn close_after(args: &[&str], input: Option<&[u8]>, keep: usize) -> Output {
    command::close_after(binary(), args, input, keep).unwrap()
}

/// R3: a reader that goes away early is not an error: no message, exit status 0.
#[test]
fn a_closed_output_pipe_ends_the_run_quietly_with_status_0() {
    let input = receipt::generate::generated(200_000, 5);
    let file = std::env::temp_dir().join(format!("receipt-pipe-{}.txt", std::process::id()));
    std::fs::write(&file, &input).unwrap();
    let path = file.to_str().unwrap();
    let runs = [
        close_after(&["gen", "--lines", "1000000"], None, 10),
        close_after(&[path], None, 100),
        close_after(&["--strategy", "naive", path], None, 100),
        close_after(&[], Some(&input), 100),
    ];
    std::fs::remove_file(&file).unwrap();
    for out in runs {
        assert_eq!(stderr(&out), "", "no message");
        assert_eq!(out.status.code(), Some(0));
    }
}

#[test]
fn standard_input_and_a_file_give_the_same_receipts() {
    let from_file = receipt(&[BAD]);
    let from_stdin =
        command::run_with_input(binary(), &["-"], &std::fs::read(BAD).unwrap()).unwrap();
    assert_eq!(from_stdin.stdout, from_file.stdout);
    assert_eq!(from_stdin.stderr, from_file.stderr);
    assert_eq!(from_stdin.status.code(), Some(1));
}

/// R4: the intermediate process of a memory measurement feeds every generated line to the
/// command, which reads them all and prints every receipt, with every strategy.
#[test]
fn r4_fed_lines_run_the_command_to_the_end() {
    let lines = 10_000;
    let expected = receipt::generate::generated(lines, 3).len() as u64;
    for strategy in receipt::STRATEGIES {
        let probe = MemoryProbe {
            strategy,
            lines,
            seed: 3,
        };
        let fed = command::feed(binary(), &probe).unwrap();
        assert!(fed.status.success(), "{strategy}: {}", fed.status);
        assert_eq!(fed.bytes, expected, "{strategy}");
    }
    assert!(lab::env::peak_rss_of_waited_children_kib().is_some_and(|kib| kib > 0));
}
