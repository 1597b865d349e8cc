//! `receipt`: order lines in, receipts out.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use receipt::line::{MAX_LINE, MAX_ORDER_LINES, escape};
use receipt::{RunError, Strategy, Stream, generate, process};

/// The usage text; `{…}` stand for the strategies and the bounds.
const USAGE: &str = "\
usage: receipt [--strategy {STRATEGIES}] [--] [FILE]
       receipt gen --lines N [--seed S]
       receipt --help

Reads order lines `order_id|item|qty|unit_price` (unit price in satang) from FILE, or from
standard input if FILE is absent or `-`, and prints one receipt per order, once the next order
begins or the input ends. The input is read in chunks, so its size does not matter. Lines end
with \\n or \\r\\n and are at most {MAX_LINE} bytes long; a last line without its line ending is
read, and reported (the input may have been cut off); a UTF-8 byte-order mark at the start is
skipped. Bad lines are reported on standard error as `line <n>: <reason>`; an order with any
bad line is not printed, nor is an order of more than {MAX_ORDER_LINES} lines. The last line on
standard error accounts for every input line. `--` ends the options (for a FILE named `-x`).

`receipt gen` writes N generated order lines (seed S, 42 by default).

Exit status:
  0  every order printed
  1  some input rejected
  2  usage error, or the input could not be read or the output written
A reader that closes standard output or standard error early (as `head` does) ends the run
quietly, with the status of what was read until then: 0, or 1 if some of it was rejected.";

fn usage() -> String {
    USAGE
        .replace("{STRATEGIES}", &Strategy::names("|"))
        .replace("{MAX_LINE}", &MAX_LINE.to_string())
        .replace("{MAX_ORDER_LINES}", &MAX_ORDER_LINES.to_string())
}

/// Why the command stops early.
enum Failure {
    /// The command line is wrong: say why, then show the usage.
    Usage(String),
    /// Reading or writing failed: say why, nothing more.
    Io(String),
    /// A reader closed an output (`receipt FILE | head`): stop quietly, with this status.
    Closed(u8),
    /// The report itself cannot be written: nothing can be said.
    Silent,
}

enum Command {
    Help,
    Run {
        strategy: Strategy,
        file: Option<PathBuf>,
    },
    Gen {
        lines: u64,
        seed: u64,
    },
}

/// An argument as it may be shown on a terminal.
fn shown(arg: &OsStr) -> String {
    escape(arg.as_encoded_bytes())
}

fn parse_gen(args: &[OsString]) -> Result<Command, String> {
    let (mut lines, mut seed) = (None, 42);
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let mut value = |name: &str| {
            let value = rest.next().ok_or_else(|| format!("{name} needs a value"))?;
            value
                .to_str()
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or_else(|| {
                    format!(
                        "{name} needs a non-negative integer, not `{}`",
                        shown(value)
                    )
                })
        };
        match arg.to_str() {
            Some("-h" | "--help") => return Ok(Command::Help),
            Some("--lines") => lines = Some(value("--lines")?),
            Some("--seed") => seed = value("--seed")?,
            _ => return Err(format!("unknown argument `{}` for gen", shown(arg))),
        }
    }
    let lines = lines.ok_or("gen needs --lines N")?;
    Ok(Command::Gen { lines, seed })
}

fn parse(args: &[OsString]) -> Result<Command, String> {
    if let Some(("gen", rest)) = args.split_first().and_then(|(a, r)| Some((a.to_str()?, r))) {
        return parse_gen(rest);
    }
    let (mut strategy, mut file) = (Strategy::Streaming, None);
    let mut options = true;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let is_option = options && arg.as_encoded_bytes().starts_with(b"-") && arg != "-";
        match arg.to_str() {
            Some("-h" | "--help") if is_option => return Ok(Command::Help),
            Some("--") if is_option => options = false,
            Some("--strategy") if is_option => {
                let name = rest.next().ok_or("--strategy needs a value")?;
                strategy = Strategy::from_name(name.as_encoded_bytes())?;
            }
            _ if is_option => return Err(format!("unknown option `{}`", shown(arg))),
            _ if file.is_none() => file = Some(PathBuf::from(arg)),
            _ => {
                return Err(format!(
                    "unexpected argument `{}`: one FILE at most",
                    shown(arg)
                ));
            }
        }
    }
    Ok(Command::Run { strategy, file })
}

/// A failed write to standard output: quiet if the reader went away, a message otherwise.
fn write_failure(err: &io::Error, status: u8) -> Failure {
    if err.kind() == io::ErrorKind::BrokenPipe {
        Failure::Closed(status)
    } else {
        Failure::Io(format!("cannot write: {err}"))
    }
}

fn run(command: Command) -> Result<u8, Failure> {
    match command {
        Command::Help => {
            stdio::stdout()
                .write_all(format!("{}\n", usage()).as_bytes())
                .map_err(|err| write_failure(&err, 0))?;
            Ok(0)
        }
        Command::Gen { lines, seed } => {
            let mut out = BufWriter::new(stdio::stdout());
            generate::generate(lines, seed, &mut out)
                .and_then(|()| out.flush())
                .map_err(|err| write_failure(&err, 0))?;
            Ok(0)
        }
        Command::Run { strategy, file } => {
            let (mut input, name): (Box<dyn io::Read>, String) = match file {
                Some(path) if path.as_os_str() != "-" => match File::open(&path) {
                    Ok(file) => (Box::new(file), shown(path.as_os_str())),
                    Err(err) => {
                        let path = shown(path.as_os_str());
                        return Err(Failure::Io(format!("cannot read {path}: {err}")));
                    }
                },
                _ => (Box::new(io::stdin().lock()), "standard input".into()),
            };
            // Unbuffered: the order loop hands its output on in blocks already.
            let mut out = stdio::stdout();
            let mut errors = BufWriter::new(stdio::stderr());
            let RunError {
                stream,
                error,
                summary,
            } = match process(strategy, &mut input, &mut out, &mut errors) {
                Ok(summary) => return Ok(summary.exit_code()),
                Err(err) => err,
            };
            let status = summary.exit_code();
            if stream == Stream::Report {
                // Standard error is closed (a reader that has seen enough) or cannot be
                // written: nothing more can be reported.
                return Err(if error.kind() == io::ErrorKind::BrokenPipe {
                    Failure::Closed(status)
                } else {
                    Failure::Silent
                });
            }
            // What was reported before the failure is still worth reading; if that fails too,
            // the failure below is the one to report.
            let _ = errors.flush();
            Err(match stream {
                Stream::Input => Failure::Io(format!("cannot read {name}: {error}")),
                _ => write_failure(&error, status),
            })
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let failure = match parse(&args) {
        Ok(command) => match run(command) {
            Ok(code) => return ExitCode::from(code),
            Err(failure) => failure,
        },
        Err(message) => Failure::Usage(message),
    };
    // A standard error that cannot be written cannot be told so: the status says it.
    let said = match failure {
        Failure::Closed(status) => return ExitCode::from(status),
        Failure::Silent => return ExitCode::from(2),
        Failure::Usage(message) => format!("receipt: {message}\n\n{}\n", usage()),
        Failure::Io(message) => format!("receipt: {message}\n"),
    };
    let _ = stdio::stderr().write_all(said.as_bytes());
    ExitCode::from(2)
}

/// Standard output and standard error as the command writes them: every failed write is an
/// error, whatever the standard library would make of it.
///
/// `std::io::Stdout` and `Stderr` take a write that fails with `EBADF` for a success, so that a
/// program started without them does not fail (RFC 1014): `receipt FILE 1</dev/null`, whose
/// standard output is open for reading only, would exit 0 with nothing written. So the command
/// writes to a duplicate of each descriptor, a `File`, which reports every failure.
///
/// A descriptor closed when the command starts (`receipt FILE >&-`) looks open by `main`: Rust's
/// runtime has opened `/dev/null` in its place, so that no file opened later takes its number,
/// and writes to it succeed. On Linux the command looks before that, from a function the loader
/// runs before `main`; a descriptor that was closed then fails every write with the error the
/// kernel gave (`EBADF`), as a C tool's writes to it would. A run that writes nothing to it does
/// not fail.
#[cfg(unix)]
mod stdio {
    use std::fs::File;
    use std::io::{self, Write};
    use std::os::fd::{AsFd, BorrowedFd};
    use std::sync::atomic::{AtomicI32, Ordering};

    /// Index of standard output in [`AT_START`].
    const OUT: usize = 0;
    /// Index of standard error in [`AT_START`].
    const ERR: usize = 1;
    /// `EBADF` (9 on every Unix), for a failure that carries no OS error code.
    const EBADF: i32 = 9;

    /// The OS error that duplicating standard output and standard error gave before `main`, or
    /// 0 if they were open.
    static AT_START: [AtomicI32; 2] = [AtomicI32::new(0), AtomicI32::new(0)];

    // SAFETY: the loader calls every function in `.init_array` once, on the main thread, before
    // `main` and before Rust's runtime replaces a closed standard descriptor; `look` is a safe
    // function with the C calling convention, which ignores the arguments it is passed.
    #[cfg(target_os = "linux")]
    #[used]
    #[unsafe(link_section = ".init_array")]
    static LOOK_BEFORE_MAIN: extern "C" fn() = look;

    /// Records whether standard output and standard error are open, before the runtime opens
    /// `/dev/null` in place of a closed one.
    #[cfg(target_os = "linux")]
    extern "C" fn look() {
        for (which, fd) in [(OUT, io::stdout().as_fd()), (ERR, io::stderr().as_fd())] {
            // The duplicate, if there is one, is closed at once: only the error matters.
            if let Err(err) = fd.try_clone_to_owned() {
                let code = err.raw_os_error().unwrap_or(EBADF);
                AT_START[which].store(code, Ordering::Relaxed);
            }
        }
    }

    /// A standard stream written straight to its descriptor.
    #[derive(Debug)]
    pub enum Fd {
        /// A duplicate of the descriptor: its writes fail as the kernel says.
        Open(File),
        /// A descriptor that cannot be written: every write of at least one byte fails with
        /// this OS error.
        Unusable(i32),
    }

    fn open(which: usize, fd: BorrowedFd<'_>) -> Fd {
        match AT_START[which].load(Ordering::Relaxed) {
            0 => match fd.try_clone_to_owned() {
                Ok(owned) => Fd::Open(File::from(owned)),
                Err(err) => Fd::Unusable(err.raw_os_error().unwrap_or(EBADF)),
            },
            code => Fd::Unusable(code),
        }
    }

    /// Standard output.
    pub fn stdout() -> Fd {
        open(OUT, io::stdout().as_fd())
    }

    /// Standard error.
    pub fn stderr() -> Fd {
        open(ERR, io::stderr().as_fd())
    }

    impl Write for Fd {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            match self {
                Fd::Open(file) => file.write(buf),
                Fd::Unusable(_) if buf.is_empty() => Ok(0),
                Fd::Unusable(code) => Err(io::Error::from_raw_os_error(*code)),
            }
        }

        /// Nothing is buffered here.
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
}

/// Elsewhere, the standard library's streams.
#[cfg(not(unix))]
mod stdio {
    /// Standard output.
    pub fn stdout() -> std::io::Stdout {
        std::io::stdout()
    }

    /// Standard error.
    pub fn stderr() -> std::io::Stderr {
        std::io::stderr()
    }
}
