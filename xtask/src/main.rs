//! `cargo xtask`: the workspace's own automation.
//!
//! `cargo xtask report` builds each chapter's experiments binaries in release mode (one per
//! allocator the chapter is measured under), runs every timed experiment in K independent
//! processes spread over time (every chapter's first process, then every chapter's second, …),
//! writes the final snapshot to `docs/data/<chapter>.json` and regenerates every table in `docs/`
//! between `<!-- BEGIN GENERATED: id -->` and `<!-- END GENERATED: id -->` markers. It refuses to
//! run over uncommitted changes to the measured sources (`--allow-dirty` runs anyway and marks
//! every header).
//!
//! `cargo xtask report --check` writes nothing: it re-renders the docs from the committed
//! snapshot, re-runs every counted experiment and compares it exactly, checks that the snapshot
//! was taken at a commit whose measured sources equal `HEAD`'s, and that every pinning test an
//! experiment names exists. CI runs it through `cargo test --workspace` (`docs_are_fresh`).
//!
//! `cargo xtask verify` is the reader's command: it runs every timed experiment fresh, compares
//! each conclusion the docs print with this machine's, and ends with one line,
//! `conclusions: N checked, H hold, D differ, U not resolvable here`.
//!
//! Exit status: 0 on success, 1 when a run or a check fails (or `verify --strict` finds a
//! conclusion that differs), 2 on a usage error.

//!
//! Layers, each importing only from those below it (no command imports another):
//! - `commands`: `report`, `verify`, `book`, `lab`: what a user asks for;
//! - `work`: building and running the experiments binaries (`run`), rendering the docs
//!   (`render`);
//! - `data`: the workspace and its chapters (read from each chapter package's
//!   `[package.metadata.chapter]`), snapshots, machine records, generated files, markers, pins,
//!   provenance.

mod commands {
    pub mod book;
    pub mod lab;
    pub mod report;
    pub mod verify;
}
mod data {
    pub mod files;
    pub mod links;
    pub mod markers;
    pub mod pins;
    pub mod provenance;
    pub mod records;
    pub mod snapshots;
    pub mod workspace;
}
mod work {
    pub mod render;
    pub mod run;
}

use commands::{book, lab, report, verify};
use data::workspace::Workspace;

use std::process::ExitCode;

/// The command that regenerates everything; every "stale" error names it.
pub const REGENERATE: &str = "cargo xtask report";

const USAGE: &str = "\
usage: cargo xtask report [--only CHAPTER] [--quick] [--processes K] [--check] [--allow-dirty]
       cargo xtask verify [--only CHAPTER] [--quick] [--processes K] [--strict] [--save [--name NAME]]
       cargo xtask book
       cargo xtask lab <N> | --check

  report            run every chapter's experiments and regenerate docs/ and docs/data/
  verify            run every timed experiment fresh and say which of the docs' conclusions
                    hold on this machine (writes nothing unless --save)
  book              check docs/' links and figures and build the book into target/book/
                    (installs mdBook into target/tools/ the first time)
  lab N             grade lab N (crates/labs/, one per chapter) by exact counts
  lab --check       grade every reference solution (must pass) and starting point (must fail
                    on its budget)
  --only CHAPTER    one chapter (its name in docs/data/<name>.json: lab, pool, …)
  --quick           short timing settings, one process (a smoke run: never commit its numbers)
  --processes K     independent processes per timed experiment (default 3; --quick: 1)
  --check           write nothing; fail if docs/ is stale, a counted result changed, the
                    snapshot's code differs from HEAD's, or a pinning test is missing
  --allow-dirty     report over uncommitted changes to the measured sources (marked in docs/)
  --strict          verify: exit 1 if a conclusion differs
  --save            verify: write docs/data/machines/<name>.json (shown in chapter 1, M9)
  --name NAME       verify --save: the record's name (default: date and CPU)

exit status: 0 success, 1 failure, 2 usage error";

/// Write the files, or only check that they are what they would be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write every generated file that differs.
    Write,
    /// Change nothing; report every file that differs.
    Check,
}

/// The commands.
#[derive(Debug)]
enum Command {
    Report(report::Options),
    Verify(verify::Options),
    Book,
    Lab(lab::Options),
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ws = match Workspace::load() {
        Ok(ws) => ws,
        Err(err) => {
            eprintln!("xtask: {err}");
            return ExitCode::FAILURE;
        }
    };
    let command = match parse(&args, &ws.names()) {
        Ok(Some(command)) => command,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("xtask: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = match command {
        Command::Report(options) => report::run(&ws, &options),
        Command::Verify(options) => verify::run(&ws, &options),
        Command::Book => book::run(&ws),
        Command::Lab(options) => lab::run(&ws, options),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("\nxtask failed:\n{err}");
            ExitCode::FAILURE
        }
    }
}

/// The options both commands share.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Common {
    /// `--only CHAPTER`.
    pub only: Option<String>,
    /// `--quick`.
    pub quick: bool,
    /// `--processes K`, or the default.
    pub processes: usize,
}

/// Parses the arguments; `chapters` are the names `--only` accepts.
fn parse(args: &[String], chapters: &[&str]) -> Result<Option<Command>, String> {
    let Some((command, rest)) = args.split_first() else {
        return Ok(None);
    };
    let verify = match command.as_str() {
        "help" | "--help" | "-h" => return Ok(None),
        "report" => false,
        "verify" => true,
        "lab" => {
            return match rest {
                [flag] if flag == "--check" => Ok(Some(Command::Lab(lab::Options::Check))),
                [flag] if flag == "--help" || flag == "-h" => Ok(None),
                [n] => match n.parse::<u8>() {
                    Ok(n) if (1..=lab::LABS.len() as u8).contains(&n) => {
                        Ok(Some(Command::Lab(lab::Options::Grade(n))))
                    }
                    _ => Err(format!(
                        "`lab` takes a lab number, 1 to {}, or --check; not `{n}`",
                        lab::LABS.len()
                    )),
                },
                _ => Err("`lab` takes one lab number, or --check".to_owned()),
            };
        }
        "book" => {
            return match rest.first() {
                None => Ok(Some(Command::Book)),
                Some(arg) if arg == "--help" || arg == "-h" => Ok(None),
                Some(other) => Err(format!("unknown argument `{other}` for `book`")),
            };
        }
        other => return Err(format!("unknown command `{other}`")),
    };
    let mut common = Common::default();
    let mut processes = None;
    let (mut check, mut allow_dirty, mut strict, mut save, mut name) =
        (false, false, false, false, None);
    let mut rest = rest.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--quick" => common.quick = true,
            "--only" => {
                let chapter = rest.next().ok_or("--only needs a chapter name")?;
                if !chapters.contains(&chapter.as_str()) {
                    return Err(format!(
                        "no chapter `{chapter}` with experiments (known: {})",
                        chapters.join(", ")
                    ));
                }
                common.only = Some(chapter.clone());
            }
            "--processes" => {
                let k = rest.next().ok_or("--processes needs a number")?;
                let k: usize = k.parse().ok().filter(|k| *k >= 1).ok_or(format!(
                    "--processes needs a number of at least 1, not `{k}`"
                ))?;
                processes = Some(k);
            }
            "--check" if !verify => check = true,
            "--allow-dirty" if !verify => allow_dirty = true,
            "--strict" if verify => strict = true,
            "--save" if verify => save = true,
            "--name" if verify => {
                let value = rest.next().ok_or("--name needs a name")?;
                if value.is_empty()
                    || !value
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                    || value.starts_with('.')
                {
                    return Err(format!(
                        "--name takes letters, digits, `-`, `_` and `.` (a file name), not `{value}`"
                    ));
                }
                name = Some(value.clone());
            }
            "--help" | "-h" => return Ok(None),
            other => return Err(format!("unknown argument `{other}` for `{command}`")),
        }
    }
    common.processes = processes.unwrap_or(if common.quick { 1 } else { 3 });
    if verify {
        if name.is_some() && !save {
            return Err("--name names the record --save writes; add --save".into());
        }
        if save && common.quick {
            return Err(
                "--save records a full run; --quick numbers are not a replica of the book".into(),
            );
        }
        return Ok(Some(Command::Verify(verify::Options {
            common,
            strict,
            save,
            name,
        })));
    }
    if check && (common.quick || processes.is_some()) {
        return Err(
            "--check re-runs only counted experiments; --quick and --processes do not apply".into(),
        );
    }
    Ok(Some(Command::Report(report::Options {
        mode: if check { Mode::Check } else { Mode::Write },
        common,
        allow_dirty,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHAPTERS: &[&str] = &["lab", "pool"];

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    fn report(list: &[&str]) -> report::Options {
        match parse(&args(list), CHAPTERS).unwrap().unwrap() {
            Command::Report(options) => options,
            other => panic!("parsed as {other:?}"),
        }
    }

    #[test]
    fn parses_report_flags() {
        let options = report(&["report", "--only", "lab", "--quick"]);
        assert_eq!(
            (
                options.mode,
                options.common.quick,
                options.common.only.as_deref(),
                options.common.processes
            ),
            (Mode::Write, true, Some("lab"), 1)
        );
        assert_eq!(report(&["report"]).common.processes, 3);
        assert_eq!(report(&["report", "--processes", "5"]).common.processes, 5);
    }

    #[test]
    fn lab_takes_a_number_or_check() {
        assert!(matches!(
            parse(&args(&["lab", "3"]), CHAPTERS),
            Ok(Some(Command::Lab(lab::Options::Grade(3))))
        ));
        assert!(matches!(
            parse(&args(&["lab", "--check"]), CHAPTERS),
            Ok(Some(Command::Lab(lab::Options::Check)))
        ));
        for bad in [
            &["lab"][..],
            &["lab", "0"],
            &["lab", "6"],
            &["lab", "x"],
            &["lab", "1", "2"],
        ] {
            assert!(parse(&args(bad), CHAPTERS).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn book_takes_no_arguments() {
        assert!(matches!(
            parse(&args(&["book"]), CHAPTERS),
            Ok(Some(Command::Book))
        ));
        let err = parse(&args(&["book", "--quick"]), CHAPTERS).unwrap_err();
        assert!(err.contains("`--quick` for `book`"), "{err}");
    }

    #[test]
    fn parses_verify_flags() {
        let Command::Verify(options) = parse(
            &args(&["verify", "--strict", "--save", "--name", "vm-1"]),
            CHAPTERS,
        )
        .unwrap()
        .unwrap() else {
            panic!("parsed as report");
        };
        assert!(options.strict && options.save);
        assert_eq!(options.name.as_deref(), Some("vm-1"));
    }

    #[test]
    fn unknown_chapters_and_flags_are_errors() {
        let err = |list: &[&str]| parse(&args(list), CHAPTERS).unwrap_err();
        assert!(err(&["report", "--only", "nope"]).contains("no chapter `nope`"));
        assert!(err(&["report", "--fast"]).contains("--fast"));
        assert!(err(&["reprot"]).contains("reprot"));
        assert!(err(&["report", "--strict"]).contains("--strict"));
        assert!(err(&["verify", "--check"]).contains("--check"));
        assert!(err(&["verify", "--name", "x"]).contains("add --save"));
        assert!(err(&["verify", "--save", "--name", "../x"]).contains("file name"));
        assert!(err(&["verify", "--save", "--quick"]).contains("full run"));
        assert!(err(&["report", "--processes", "0"]).contains("at least 1"));
        assert!(err(&["report", "--check", "--quick"]).contains("do not apply"));
    }

    /// The docs-freshness check, run by `cargo test --workspace`: fails when a generated block
    /// in `docs/` differs from the committed snapshot, a counted experiment's result changed,
    /// the snapshot was taken from other code than `HEAD`'s, or a pinning test is missing.
    #[test]
    fn docs_are_fresh() {
        let options = report::Options {
            mode: Mode::Check,
            common: Common {
                only: None,
                quick: false,
                processes: 1,
            },
            allow_dirty: false,
        };
        let ws = Workspace::load().unwrap();
        if let Err(err) = report::run(&ws, &options) {
            panic!("{err}");
        }
    }
}
