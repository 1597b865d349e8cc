//! The experiments-binary protocol between a chapter crate and `cargo xtask report`.
//!
//! Each chapter crate has a small binary (`<chapter>-experiments`) whose `main` installs
//! [`crate::CountingAlloc`] and calls [`main`] with the chapter's list of [`Experiment`]s.
//! It prints one [`Snapshot`] as JSON on stdout and its progress on stderr.
//!
//! Flags: `--quick` (short timing settings), `--counted` (only `count` experiments, used by
//! `--check`), `--only ID` (one experiment), `--list` (ids and titles, no run).

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::env::Environment;
use crate::table::{Kind, Table};

/// How long timed experiments may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Settings {
    /// Short settings for smoke runs: the numbers are never committed as the docs' figures.
    pub quick: bool,
}

/// One experiment of a chapter: an ID from `EXPERIMENTS.md` and the function that measures it.
#[derive(Debug, Clone, Copy)]
pub struct Experiment {
    /// The ID (`M1`, `P2`, …), which is also the id of the table it returns.
    pub id: &'static str,
    /// `count` experiments are re-run and compared exactly by `cargo xtask report --check`.
    pub kind: Kind,
    /// Runs the experiment. May return several tables (a table and its companions, `M3a`, …);
    /// the first one's id must be `id`.
    pub run: fn(&Settings) -> Vec<Table>,
}

/// What one run of an experiments binary produced: the file `docs/data/<chapter>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The chapter crate's name.
    pub chapter: String,
    /// Where and how it was measured.
    pub environment: Environment,
    /// Whether the run used `--quick` settings.
    pub quick: bool,
    /// Wall time of the whole run, in seconds.
    pub duration_s: f64,
    /// Every table, in experiment order.
    pub tables: Vec<Table>,
}

impl Snapshot {
    /// The table with this id.
    pub fn table(&self, id: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.id == id)
    }
}

/// Options parsed from the experiments binary's command line.
#[derive(Debug, Default)]
struct Args {
    settings: Settings,
    counted_only: bool,
    only: Option<String>,
    list: bool,
}

fn parse_args(args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args::default();
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => parsed.settings.quick = true,
            "--counted" => parsed.counted_only = true,
            "--list" => parsed.list = true,
            "--only" => {
                parsed.only = Some(args.next().ok_or("--only needs an experiment id")?);
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(parsed)
}

/// The `main` of every chapter's experiments binary.
///
/// Exit status 0 on success, 2 on a usage error (an unknown flag or experiment id).
pub fn main(chapter: &str, experiments: &[Experiment]) -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{chapter}-experiments: {message}");
            eprintln!("usage: {chapter}-experiments [--quick] [--counted] [--only ID] [--list]");
            return ExitCode::from(2);
        }
    };
    if let Some(only) = &args.only
        && !experiments.iter().any(|e| e.id == only)
    {
        let known: Vec<&str> = experiments.iter().map(|e| e.id).collect();
        eprintln!(
            "{chapter}-experiments: no experiment `{only}` (known: {})",
            known.join(", ")
        );
        return ExitCode::from(2);
    }
    if args.list {
        for experiment in experiments {
            println!("{} {:?}", experiment.id, experiment.kind);
        }
        return ExitCode::SUCCESS;
    }
    let started = Instant::now();
    let mut tables = Vec::new();
    for experiment in experiments {
        if args.counted_only && experiment.kind != Kind::Count {
            continue;
        }
        if args
            .only
            .as_deref()
            .is_some_and(|only| only != experiment.id)
        {
            continue;
        }
        let step = Instant::now();
        eprint!("  [{chapter}] {} ({:?}) … ", experiment.id, experiment.kind);
        let _ = std::io::stderr().flush();
        crate::callgrind::start_experiment(experiment.id);
        let produced = (experiment.run)(&args.settings);
        assert_eq!(
            produced.first().map(|t| t.id.as_str()),
            Some(experiment.id),
            "experiment {} must return its own table first",
            experiment.id
        );
        eprintln!("{:.1} s", step.elapsed().as_secs_f64());
        tables.extend(produced);
    }
    if crate::callgrind::Probe::from_env().is_some() {
        eprintln!("{chapter}-experiments: the callgrind probe matched no timing run");
        return ExitCode::from(3);
    }
    let snapshot = Snapshot {
        chapter: chapter.to_owned(),
        environment: Environment::collect(),
        quick: args.settings.quick,
        duration_s: started.elapsed().as_secs_f64(),
        tables,
    };
    match serde_json::to_string(&snapshot) {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("{chapter}-experiments: cannot serialise the results: {err}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_args;

    fn parse(args: &[&str]) -> Result<super::Args, String> {
        parse_args(args.iter().map(|s| (*s).to_owned()))
    }

    #[test]
    fn flags_parse() {
        let args = parse(&["--quick", "--counted", "--only", "M1"]).unwrap();
        assert!(args.settings.quick && args.counted_only);
        assert_eq!(args.only.as_deref(), Some("M1"));
    }

    #[test]
    fn unknown_flags_are_errors_not_guesses() {
        assert_eq!(parse(&["--fast"]).unwrap_err(), "unknown argument `--fast`");
        assert_eq!(
            parse(&["--only"]).unwrap_err(),
            "--only needs an experiment id"
        );
    }
}
