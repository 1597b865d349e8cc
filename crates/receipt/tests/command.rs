//! The `receipt` command as users of Unix tools expect it: exit statuses, usage text only for
//! usage errors, quiet on a closed pipe, arguments echoed safely, standard input or a file,
//! streamed.

#![cfg(not(miri))] // these tests run the binary

mod common;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::cases::REJECTED_LINE;
use common::child::{self, Closed, Lines};

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample/orders.txt");
const BAD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample/bad.txt");

fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_receipt"))
}

fn receipt<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(binary()).args(args).output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A fresh directory for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("receipt-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
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
        &["gen", "--lines", "1", "--frobnicate"],
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

/// R3: an output that cannot be written (`> /dev/full`) is one line of message, and exit 2.
#[cfg(target_os = "linux")]
#[test]
fn r3_an_output_that_cannot_be_written_exits_2_and_says_why() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let input = receipt::generate::generated(20_000, 5);
    let out = child::run_to(binary(), &[], &input, Stdio::from(full)).unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "receipt: cannot write: No space left on device (os error 28)\n"
    );
}

/// R3: any output that cannot be written is an error, whatever the standard library makes of
/// it: a standard output open for reading only (`1</dev/null`) or closed (`>&-`) fails every
/// write with `EBADF`, which Rust's `Stdout` would take for a success. The command says so in
/// one line and exits 2, with every strategy, and so do `gen` and `--help`. A closed output that
/// is never written to is no failure.
#[cfg(target_os = "linux")]
#[test]
fn r3_an_output_open_for_reading_only_or_closed_exits_2_and_says_why() {
    let input = receipt::generate::generated(2_000, 5);
    let ebadf = "receipt: cannot write: Bad file descriptor (os error 9)\n";
    let runs: [&[&str]; 4] = [
        &[],
        &["--strategy", "naive"],
        &["gen", "--lines", "10"],
        &["--help"],
    ];
    for args in runs {
        let read_only = std::fs::File::open("/dev/null").unwrap();
        let out = child::run_to(binary(), args, &input, Stdio::from(read_only)).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?} 1</dev/null");
        assert_eq!(stderr(&out), ebadf, "{args:?} 1</dev/null");
        let out = child::run_closed(binary(), args, &input, Closed::Stdout).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?} >&-");
        assert_eq!(stderr(&out), ebadf, "{args:?} >&-");
    }
    let out = child::run_closed(binary(), &[], b"", Closed::Stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "0 lines read: 0 printed in 0 receipts, 0 rejected in 0 orders, 0 blank\n"
    );
}

/// R3: a standard error that cannot be written, other than a closed pipe, exits 2 too; nothing
/// can be said, and the receipts written before the report failed stay written.
#[cfg(target_os = "linux")]
#[test]
fn r3_a_standard_error_that_cannot_be_written_exits_2() {
    let receipts = receipt(&[SAMPLE]).stdout;
    for target in ["/dev/null", "/dev/full"] {
        let file = if target == "/dev/full" {
            std::fs::OpenOptions::new().write(true).open(target)
        } else {
            std::fs::File::open(target) // for reading only
        };
        for file_arg in [SAMPLE, BAD] {
            let out = Command::new(binary())
                .arg(file_arg)
                .stderr(Stdio::from(file.as_ref().unwrap().try_clone().unwrap()))
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "2> {target}, {file_arg}");
            if file_arg == SAMPLE {
                assert_eq!(out.stdout, receipts, "2> {target}");
            }
        }
    }
    let out = child::run_closed(binary(), &[SAMPLE], b"", Closed::Stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "2>&-");
    assert_eq!(out.stdout, receipts, "2>&-");
}

#[test]
fn help_documents_every_exit_status_the_bounds_and_the_closed_pipe() {
    let help = String::from_utf8(receipt(&["--help"]).stdout).unwrap();
    for needle in [
        "Exit status:",
        "  0 ",
        "  1 ",
        "  2 ",
        "`head`",
        "0, or 1 if some of it was rejected",
        "byte-order mark",
        &format!("at most {} bytes", receipt::line::MAX_LINE),
        &format!("more than {} lines", receipt::line::MAX_ORDER_LINES),
        &format!("--strategy {}", receipt::Strategy::names("|")),
        "`--` ends the options",
    ] {
        assert!(help.contains(needle), "{needle:?} in {help}");
    }
    let gen_help = receipt(&["gen", "--help"]);
    assert_eq!(gen_help.status.code(), Some(0), "help is not a usage error");
    assert_eq!(String::from_utf8(gen_help.stdout).unwrap(), help);
}

/// Starts `receipt args`, reads `keep` bytes of its output, closes the pipe and waits.
fn close_after(args: &[&str], input: Option<&[u8]>, closed: Closed, keep: usize) -> Output {
    child::close_after(binary(), args, input, closed, keep).unwrap()
}

/// R3: a reader that goes away early is not an error: no message, exit status 0.
#[test]
fn a_closed_output_pipe_ends_the_run_quietly_with_status_0() {
    let input = receipt::generate::generated(200_000, 5);
    let dir = scratch("pipe");
    let file = dir.join("orders.txt");
    std::fs::write(&file, &input).unwrap();
    let path = file.to_str().unwrap();
    let runs = [
        close_after(&["gen", "--lines", "1000000"], None, Closed::Stdout, 10),
        close_after(&[path], None, Closed::Stdout, 100),
        close_after(&["--strategy", "naive", path], None, Closed::Stdout, 100),
        close_after(&[], Some(&input), Closed::Stdout, 100),
    ];
    std::fs::remove_dir_all(&dir).unwrap();
    for out in runs {
        assert_eq!(stderr(&out), "", "no message");
        assert_eq!(out.status.code(), Some(0));
    }
}

/// R3: when the reader goes away after a line was rejected, the run still ends quietly, but with
/// status 1: some input was rejected. Standard error holds the rejection and nothing after it.
#[test]
fn r3_a_closed_output_after_a_rejected_line_exits_1() {
    let input = [
        REJECTED_LINE.as_bytes(),
        &receipt::generate::generated(200_000, 5),
    ]
    .concat();
    let out = close_after(&[], Some(&input), Closed::Stdout, 10);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "line 1: qty is not a positive decimal integer\norder 1042 rejected (1 line), bad: 1\n"
    );
}

/// A closed standard error (`receipt FILE 2>&1 >/dev/null | head -1`) ends the run quietly too,
/// with the status of what was read until then: every line here is bad, so 1, not 0.
#[test]
fn a_closed_standard_error_ends_the_run_quietly_with_the_status_of_what_was_read() {
    let all_bad = "junk\n".repeat(100_000);
    let out = close_after(&[], Some(all_bad.as_bytes()), Closed::Stderr, 100);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn standard_input_and_a_file_give_the_same_receipts() {
    let from_file = receipt(&[BAD]);
    let from_stdin = child::run_with_input(binary(), &["-"], &std::fs::read(BAD).unwrap()).unwrap();
    assert_eq!(from_stdin.stdout, from_file.stdout);
    assert_eq!(from_stdin.stderr, from_file.stderr);
    assert_eq!(from_stdin.status.code(), Some(1));
}

/// A file name need not be UTF-8: it is opened as it is, and shown escaped if it cannot be.
#[cfg(unix)]
#[test]
fn a_file_name_that_is_not_utf8_is_read_and_shown_escaped() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("names");
    let file = dir.join(OsStr::from_bytes(b"orders-\xFF.txt"));
    std::fs::copy(SAMPLE, &file).unwrap();
    let read = receipt(&[&file]);
    let missing = receipt(&[dir.join(OsStr::from_bytes(b"missing-\xFF.txt"))]);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(read.status.code(), Some(0), "{}", stderr(&read));
    assert_eq!(read.stdout, receipt(&[SAMPLE]).stdout);
    assert_eq!(missing.status.code(), Some(2));
    let err = stderr(&missing);
    assert!(err.starts_with("receipt: cannot read "), "{err}");
    assert!(err.contains("missing-\\xFF.txt: No such file"), "{err}");
}

/// What the command echoes of its arguments cannot rewrite the terminal: control characters
/// are shown as `\u{1b}`, bytes that are not UTF-8 as `\xFF`.
#[test]
fn arguments_are_echoed_with_their_control_characters_escaped() {
    for (args, shown) in [
        (
            vec!["--strategy", "\u{1b}[31mfast"],
            "unknown strategy `\\u{1b}[31mfast`",
        ),
        (vec!["--\u{1b}[2J"], "unknown option `--\\u{1b}[2J`"),
        (vec!["a", "b\u{9b}"], "unexpected argument `b\\u{9b}`"),
        (
            vec!["/no/\u{1b}]0;title\u{7}"],
            "cannot read /no/\\u{1b}]0;title\\u{7}",
        ),
    ] {
        let out = receipt(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains(shown), "{err}");
        assert!(
            !out.stderr.iter().any(|&b| b == 0x1b || b == 0x07),
            "{err:?}"
        );
    }
}

/// `--` ends the options: after it, `-x` is a file name.
#[test]
fn a_double_dash_ends_the_options() {
    let dir = scratch("dashes");
    std::fs::copy(SAMPLE, dir.join("-x")).unwrap();
    let run = |args: &[&str]| Command::new(binary()).args(args).current_dir(&dir).output();
    let (file, option) = (run(&["--", "-x"]).unwrap(), run(&["-x"]).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(file.status.code(), Some(0), "{}", stderr(&file));
    assert_eq!(file.stdout, receipt(&[SAMPLE]).stdout);
    assert_eq!(option.status.code(), Some(2));
    assert!(stderr(&option).starts_with("receipt: unknown option `-x`"));
}

/// Reads `pipe` on a thread of its own, sending what it reads.
fn reader(mut pipe: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0; 4096];
        while let Ok(n @ 1..) = pipe.read(&mut buf) {
            if send.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    receive
}

/// Waits until what `from` sent contains `needle`, for at most ten seconds.
fn wait_for(from: &mpsc::Receiver<Vec<u8>>, needle: &str) -> Result<String, String> {
    let mut seen = Vec::new();
    while !String::from_utf8_lossy(&seen).contains(needle) {
        match from.recv_timeout(Duration::from_secs(10)) {
            Ok(bytes) => seen.extend(bytes),
            Err(_) => {
                return Err(format!(
                    "no {needle:?} yet: {:?}",
                    String::from_utf8_lossy(&seen)
                ));
            }
        }
    }
    Ok(String::from_utf8_lossy(&seen).into_owned())
}

/// A receipt is printed once the next order begins, and a bad line reported, even while the
/// input stays open (`tail -f orders | receipt`): the command hands on what is complete before
/// it waits for more input.
#[test]
fn receipts_and_errors_appear_before_the_input_ends() {
    let mut child = Command::new(binary())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let out = reader(child.stdout.take().unwrap());
    let err = reader(child.stderr.take().unwrap());
    stdin
        .write_all(b"1|a|1|100\n2|b|x|100\n3|c|1|100\n")
        .unwrap();
    stdin.flush().unwrap();
    let printed = wait_for(&out, "TOTAL");
    let reported = wait_for(&err, "order 2 rejected");
    if printed.is_err() || reported.is_err() {
        let _ = child.kill();
    }
    drop(stdin);
    let status = child.wait().unwrap();
    let printed = printed.unwrap();
    assert!(printed.starts_with("Order 1\n"), "{printed}");
    assert!(!printed.contains("Order 3"), "order 3 may go on: {printed}");
    assert!(reported.unwrap().starts_with("line 2: qty"));
    assert_eq!(status.code(), Some(1));
}

/// R4: a fed run writes every line into the command, which reads them all and exits 0, with
/// every strategy, on generated lines and on the worst case; reaping it gives its own peak.
#[test]
fn r4_fed_lines_run_the_command_to_the_end() {
    let lines = 10_000;
    let expected = receipt::generate::generated(lines, 3).len() as u64;
    for strategy in receipt::STRATEGIES {
        for (input, bytes) in [
            (Lines::Generated { lines, seed: 3 }, Some(expected)),
            (Lines::WorstCase { orders: 2 }, None),
        ] {
            let fed_run = child::start_fed(child::discarding(binary(), strategy), input);
            let (child, fed) = fed_run.unwrap();
            let (status, kib) = lab::env::wait_with_peak_rss(child).unwrap();
            assert!(status.success(), "{strategy}, {input:?}: {status}");
            assert!(bytes.is_none_or(|b| b == fed), "{strategy}: {fed} bytes");
            assert!(kib > 0, "{strategy}: its own peak");
        }
    }
}
