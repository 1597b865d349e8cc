//! `cargo xtask`: the workspace's own automation.
//!
//! `cargo xtask report` builds each chapter's experiments binary in release mode, runs it in its
//! own process (where `lab::CountingAlloc` is the global allocator), writes the raw results to
//! `docs/data/<chapter>.json` (the committed snapshot) and regenerates every table in `docs/`
//! between `<!-- BEGIN GENERATED: id -->` and `<!-- END GENERATED: id -->` markers.
//!
//! `cargo xtask report --check` writes nothing: it re-renders the docs from the committed
//! snapshot and re-runs every counted experiment, and fails if a file is stale or a count
//! changed. CI runs it through `cargo test --workspace` (the `docs_are_fresh` test below).

mod markers;
mod report;

use std::process::ExitCode;

/// The command that regenerates everything; every "stale" error names it.
pub const REGENERATE: &str = "cargo xtask report";

const USAGE: &str = "\
usage: cargo xtask report [--only CHAPTER] [--quick] [--check]

  report            run every chapter's experiments and regenerate docs/ and docs/data/
  --only CHAPTER    run one chapter (lab, stack-buffer, pool, arena, receipt)
  --quick           short settings for timed experiments (a smoke run: never commit its numbers)
  --check           write nothing; fail if docs/ is stale or a counted result changed";

/// Write the files, or only check that they are what they would be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write every generated file that differs.
    Write,
    /// Change nothing; report every file that differs.
    Check,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse(&args) {
        Ok(Some(options)) => options,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("xtask: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match report::run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("\nxtask report failed:\n{err}");
            ExitCode::FAILURE
        }
    }
}

fn parse(args: &[String]) -> Result<Option<report::Options>, String> {
    let Some((command, rest)) = args.split_first() else {
        return Ok(None);
    };
    match command.as_str() {
        "help" | "--help" | "-h" => return Ok(None),
        "report" => {}
        other => return Err(format!("unknown command `{other}`")),
    }
    let mut options = report::Options {
        mode: Mode::Write,
        quick: false,
        only: None,
    };
    let mut rest = rest.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--check" => options.mode = Mode::Check,
            "--quick" => options.quick = true,
            "--only" => {
                let chapter = rest.next().ok_or("--only needs a chapter name")?;
                report::chapter(chapter)?;
                options.only = Some(chapter.clone());
            }
            "--help" | "-h" => return Ok(None),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if options.mode == Mode::Check && options.quick {
        return Err("--check re-runs only counted experiments; --quick does not apply".into());
    }
    Ok(Some(options))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn parses_report_flags() {
        let options = parse(&args(&["report", "--only", "lab", "--quick"]))
            .unwrap()
            .unwrap();
        assert_eq!(
            (options.mode, options.quick, options.only.as_deref()),
            (Mode::Write, true, Some("lab"))
        );
    }

    #[test]
    fn unknown_chapters_and_flags_are_errors() {
        assert!(
            parse(&args(&["report", "--only", "nope"]))
                .unwrap_err()
                .contains("no chapter `nope`")
        );
        assert!(
            parse(&args(&["report", "--fast"]))
                .unwrap_err()
                .contains("--fast")
        );
        assert!(parse(&args(&["reprot"])).unwrap_err().contains("reprot"));
    }

    /// The docs-freshness check, run by `cargo test --workspace`: fails when a generated block
    /// in `docs/` differs from the committed snapshot or a counted experiment's result changed.
    #[test]
    fn docs_are_fresh() {
        let options = report::Options {
            mode: Mode::Check,
            quick: false,
            only: None,
        };
        if let Err(err) = report::run(&options) {
            panic!("{err}");
        }
    }
}
