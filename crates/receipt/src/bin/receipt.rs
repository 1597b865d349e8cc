//! `receipt`: order lines in, receipts out.

use std::io::{self, BufWriter, Read, Write};
use std::process::ExitCode;

use receipt::{Strategy, generate, process};

const USAGE: &str = "\
usage: receipt [--strategy naive|pooled|stack|arena|streaming] [FILE]
       receipt gen --lines N [--seed S]
       receipt --help

Reads order lines `order_id|item|qty|unit_price` (unit price in satang) from FILE, or from
standard input, and prints one receipt per order. Bad lines are reported on standard error
as `line <n>: <reason>`; an order with any bad line is not printed. The last line on standard
error accounts for every input line.

Exit status: 0 all printed, 1 some input rejected, 2 usage or I/O error.";

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

fn run(command: Command) -> Result<u8, String> {
    match command {
        Command::Help => {
            println!("{USAGE}");
            Ok(0)
        }
        Command::Gen { lines, seed } => {
            let mut out = BufWriter::new(io::stdout().lock());
            generate::generate(lines, seed, &mut out)
                .and_then(|()| out.flush())
                .map_err(|err| format!("cannot write: {err}"))?;
            Ok(0)
        }
        Command::Run { strategy, file } => {
            let input = match file.as_deref() {
                None | Some("-") => {
                    let mut buf = Vec::new();
                    io::stdin()
                        .lock()
                        .read_to_end(&mut buf)
                        .map_err(|err| format!("cannot read standard input: {err}"))?;
                    buf
                }
                Some(path) => {
                    std::fs::read(path).map_err(|err| format!("cannot read {path}: {err}"))?
                }
            };
            let mut out = BufWriter::new(io::stdout().lock());
            let mut errors = BufWriter::new(io::stderr().lock());
            let summary = process(strategy, &input, &mut out, &mut errors)
                .and_then(|s| out.flush().map(|()| s))
                .map_err(|err| format!("cannot write: {err}"))?;
            errors
                .flush()
                .map_err(|err| format!("cannot write: {err}"))?;
            Ok(summary.exit_code())
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match parse(&args).and_then(run) {
        Ok(code) => ExitCode::from(code),
        Err(message) => {
            eprintln!("receipt: {message}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
