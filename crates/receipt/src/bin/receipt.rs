//! `receipt`: order lines in, receipts out.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use receipt::{RunError, Strategy, generate, process};

/// The usage text; `{MAX}` stands for the order bound.
const USAGE: &str = "\
usage: receipt [--strategy naive|pooled|stack|arena|streaming] [FILE]
       receipt gen --lines N [--seed S]
       receipt --help

Reads order lines `order_id|item|qty|unit_price` (unit price in satang) from FILE, or from
standard input if FILE is absent or `-`, and prints one receipt per order. The input is read
in chunks, so its size does not matter. Lines end with \\n or \\r\\n; a UTF-8 byte-order mark at
the start is skipped. Bad lines are reported on standard error as `line <n>: <reason>`; an
order with any bad line is not printed, nor is an order of more than {MAX} lines. The last line
on standard error accounts for every input line.

Exit status:
  0  every order printed (also when the reader closes the output early, as `head` does)
  1  some input rejected
  2  usage error, or the input could not be read or the output written";

fn usage() -> String {
    USAGE.replace("{MAX}", &receipt::line::MAX_ORDER_LINES.to_string())
}

/// Why the command stops early.
enum Failure {
    /// The command line is wrong: say why, then show the usage.
    Usage(String),
    /// Reading or writing failed: say why, nothing more.
    Io(String),
    /// The reader closed the output (`receipt FILE | head`): stop quietly.
    Closed,
}

enum Command {
    Help,
    Run {
        strategy: Strategy,
        file: Option<String>,
    },
    Gen {
        lines: u64,
        seed: u64,
    },
}

fn parse(args: &[String]) -> Result<Command, String> {
    if args.first().map(String::as_str) == Some("gen") {
        let (mut lines, mut seed) = (None, 42);
        let mut rest = args[1..].iter();
        while let Some(arg) = rest.next() {
            let mut value = |name: &str| {
                rest.next()
                    .ok_or_else(|| format!("{name} needs a value"))?
                    .parse::<u64>()
                    .map_err(|_| format!("{name} needs a non-negative integer"))
            };
            match arg.as_str() {
                "--lines" => lines = Some(value("--lines")?),
                "--seed" => seed = value("--seed")?,
                other => return Err(format!("unknown argument `{other}` for gen")),
            }
        }
        let lines = lines.ok_or("gen needs --lines N")?;
        return Ok(Command::Gen { lines, seed });
    }
    let (mut strategy, mut file) = (Strategy::Streaming, None);
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--strategy" => {
                strategy = rest.next().ok_or("--strategy needs a value")?.parse()?;
            }
            other if other.starts_with('-') && other != "-" => {
                return Err(format!("unknown option `{other}`"));
            }
            other if file.is_none() => file = Some(other.to_owned()),
            other => return Err(format!("unexpected argument `{other}`: one FILE at most")),
        }
    }
    Ok(Command::Run { strategy, file })
}

/// A failed write: quiet if the reader went away, a message otherwise.
fn write_failure(err: &io::Error) -> Failure {
    if err.kind() == io::ErrorKind::BrokenPipe {
        Failure::Closed
    } else {
        Failure::Io(format!("cannot write: {err}"))
    }
}

fn run(command: Command) -> Result<u8, Failure> {
    match command {
        Command::Help => {
            writeln!(io::stdout(), "{}", usage()).map_err(|err| write_failure(&err))?;
            Ok(0)
        }
        Command::Gen { lines, seed } => {
            let mut out = BufWriter::new(io::stdout().lock());
            generate::generate(lines, seed, &mut out)
                .and_then(|()| out.flush())
                .map_err(|err| write_failure(&err))?;
            Ok(0)
        }
        Command::Run { strategy, file } => {
            let (mut input, name): (Box<dyn io::Read>, String) = match file.as_deref() {
                None | Some("-") => (Box::new(io::stdin().lock()), "standard input".into()),
                Some(path) => match File::open(path) {
                    Ok(file) => (Box::new(file), path.to_owned()),
                    Err(err) => return Err(Failure::Io(format!("cannot read {path}: {err}"))),
                },
            };
            let mut out = io::stdout().lock();
            let mut errors = BufWriter::new(io::stderr().lock());
            let result = process(strategy, &mut input, &mut out, &mut errors);
            // What was reported before a failure is still worth reading.
            let flushed = errors.flush();
            let summary = result.map_err(|err| match err {
                RunError::Read(err) => Failure::Io(format!("cannot read {name}: {err}")),
                RunError::Write(err) => write_failure(&err),
            })?;
            flushed.map_err(|err| write_failure(&err))?;
            Ok(summary.exit_code())
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let failure = match parse(&args) {
        Ok(command) => match run(command) {
            Ok(code) => return ExitCode::from(code),
            Err(failure) => failure,
        },
        Err(message) => Failure::Usage(message),
    };
    // Writing to a closed standard error cannot be reported anywhere: ignore it, never panic.
    let mut stderr = io::stderr();
    match failure {
        Failure::Closed => return ExitCode::SUCCESS,
        Failure::Usage(message) => {
            let _ = writeln!(stderr, "receipt: {message}\n\n{}", usage());
        }
        Failure::Io(message) => {
            let _ = writeln!(stderr, "receipt: {message}");
        }
    }
    ExitCode::from(2)
}
