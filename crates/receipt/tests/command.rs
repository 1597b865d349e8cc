//! The `receipt` command as users of Unix tools expect it: exit statuses, usage text only for
//! usage errors, quiet on a closed pipe, standard input or a file, streamed.

#![cfg(not(miri))] // these tests run the binary

use std::io::{Read, Write};
use std::process::{Command, Output, Stdio};

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

/// Starts `receipt args`, reads `keep` bytes of its output, closes the pipe and waits.
fn close_after(args: &[&str], input: Option<&[u8]>, keep: usize) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_receipt"))
        .args(args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let feeder = input.map(|bytes| {
        let mut stdin = child.stdin.take().unwrap();
        let bytes = bytes.to_vec();
        // The child may stop reading when its output closes: a failed write here is expected.
        std::thread::spawn(move || drop(stdin.write_all(&bytes)))
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut head = vec![0; keep];
    stdout.read_exact(&mut head).unwrap();
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    if let Some(feeder) = feeder {
        feeder.join().unwrap();
    }
    output
}

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
    let mut child = Command::new(env!("CARGO_BIN_EXE_receipt"))
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(BAD).unwrap())
        .unwrap();
    let from_stdin = child.wait_with_output().unwrap();
    assert_eq!(from_stdin.stdout, from_file.stdout);
    assert_eq!(from_stdin.stderr, from_file.stderr);
    assert_eq!(from_stdin.status.code(), Some(1));
}
