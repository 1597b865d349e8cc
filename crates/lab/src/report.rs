//! The runner: a chapter's experiments binary, as `cargo xtask report` drives it.
//!
//! Each chapter crate declares its experiments once, in a [`Chapter`]: ID, kind, title, the
//! function that runs it, the tests that pin it, and whether it is one of the tables measured
//! under every allocator. Its binaries are one line each ([`experiments_main!`](crate::experiments_main)):
//! one installs [`crate::CountingAlloc`] over the system allocator, the other over mimalloc.
//!
//! A run of the binary is one process of the report:
//!
//! - `--replica-out FILE [--replica N]`: a **replica**. It runs the timed experiments (only the
//!   allocator-sensitive ones under a non-default allocator) and writes what every timing run
//!   measured to `FILE`; nothing on stdout.
//! - otherwise the **final** process: it runs every experiment, reads the replica files given
//!   with `--replicas FILE` (repeatable), so each timing run returns every process's figures,
//!   and prints one [`Snapshot`] as JSON on stdout.
//!
//! Other flags: `--quick` (short timing settings), `--counted` (only `count` experiments, used by
//! `--check`), `--only ID` (one experiment), `--list` (the declarations as JSON, no run).
//! Progress goes to stderr. Exit status: 0 on success, 2 on a usage error, 1 on a failed run.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::env::Environment;
use crate::protocol::{self, Allocator, ProcessRole, ReplicaFile, Settings};
use crate::table::{Kind, Table, TwinRecord};
use crate::timing::Config;

/// The function that runs an experiment, with its path for the generated footer.
#[derive(Debug, Clone, Copy)]
pub struct Function {
    /// Runs the experiment. Returns its own table first, then any companions (`M4`, `P3-curve`).
    pub call: fn(&Run) -> Vec<Table>,
    /// `crate::module::function`, as a reader would search for it.
    pub path: &'static str,
}

/// Names a function as a [`Function`]: `lab::function!(p7_capacity)` in the module that defines it.
#[macro_export]
macro_rules! function {
    ($name:ident) => {
        $crate::report::Function {
            call: $name,
            path: concat!(module_path!(), "::", stringify!($name)),
        }
    };
}

/// One experiment of a chapter, declared once.
#[derive(Debug, Clone, Copy)]
pub struct Experiment {
    /// The experiment's ID (`M1`, `P2`, …), which is also the id of its table.
    pub id: &'static str,
    /// `count` experiments are re-run and compared exactly by `cargo xtask report --check`.
    pub kind: Kind,
    /// The title of its table.
    pub title: &'static str,
    /// The function that runs it.
    pub function: Function,
    /// The tests that pin its claims: `path/to/file.rs::test_name`, or a file of `compile_fail`
    /// doctests (`crates/pool/src/contract.rs`). `cargo xtask report` checks that each exists and
    /// names this experiment's ID.
    pub pinned_by: &'static [&'static str],
    /// Whether it is measured under every allocator the report knows (experiment X1), not only
    /// under the system allocator.
    pub allocator_sensitive: bool,
    /// Earlier experiments whose timing runs this one reads ([`Run::kept`]) instead of timing
    /// its own (X1, decision rules): `--only` runs them too, and the runner checks they run
    /// first.
    pub needs: &'static [&'static str],
}

/// A source article a chapter cites: its machine and runtime, stated once per chapter.
#[derive(Debug, Clone, Copy)]
pub struct Source {
    /// The seed's number (`000`, …).
    pub seed: &'static str,
    /// What it measured on, and anything a reader must know to compare its figures.
    pub note: &'static str,
}

/// A chapter's experiments binary: its crate, its experiments in course order, its sources,
/// and the conclusions its answer box and its decision table cite.
#[derive(Debug, Clone, Copy)]
pub struct Chapter {
    /// The crate's name (`pool`).
    pub name: &'static str,
    /// Every experiment, in the order the chapter presents them.
    pub experiments: &'static [Experiment],
    /// The seeds its tables cite.
    pub sources: &'static [Source],
    /// The chapter's answer, at most five conclusions, shown first (the `answer` region).
    pub answer: &'static [Cited],
    /// What to do in your code: 3–6 rows, shown last (the `decisions` region).
    pub decisions: &'static [Decision],
}

/// A conclusion a chapter cites, found by where it is printed: `key` is the start of its key as
/// `cargo xtask verify` prints it (`P10 · under glibc, the sizes at which`, or
/// `S2 · row · column`), and must match exactly one conclusion of the chapter's tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cited {
    /// The start of the conclusion's key.
    pub key: &'static str,
    /// What it says, in the reader's words; the verdict or bound follows it.
    pub says: &'static str,
}

/// One row of a chapter's decision table: a situation, what to do, and the conclusion behind it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// The reader's situation.
    pub situation: &'static str,
    /// What to do in it.
    pub action: &'static str,
    /// The conclusion that supports it.
    pub because: Cited,
}

/// A [`Cited`] as a snapshot keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CitedText {
    /// The start of the conclusion's key.
    pub key: String,
    /// What it says.
    pub says: String,
}

/// A [`Decision`] as a snapshot keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionText {
    /// The reader's situation.
    pub situation: String,
    /// What to do in it.
    pub action: String,
    /// The conclusion behind it.
    pub because: CitedText,
}

impl From<&Cited> for CitedText {
    fn from(c: &Cited) -> Self {
        CitedText {
            key: c.key.to_owned(),
            says: c.says.to_owned(),
        }
    }
}

/// What an experiment's function is given.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    /// The run's settings.
    pub settings: Settings,
    /// The experiment being run.
    pub experiment: &'static Experiment,
}

thread_local! {
    /// The timing runs experiments of this process kept for later ones: `(experiment, label,
    /// run)`.
    static KEPT: std::cell::RefCell<Vec<(&'static str, usize, crate::timing::Measured)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl Run {
    /// Keeps one of this experiment's timing runs (labelled by a size, a thread count, or 0) for
    /// the experiments that declare they need it.
    pub fn keep(&self, label: usize, measured: &crate::timing::Measured) {
        KEPT.with(|kept| {
            kept.borrow_mut()
                .push((self.experiment.id, label, measured.clone()));
        });
    }

    /// Times one run per size with `time` and keeps each (see [`Run::keep`]): the usual shape of
    /// a by-size experiment whose runs a later one reads.
    pub fn time_by_size(
        &self,
        sizes: &[usize],
        mut time: impl FnMut(usize) -> crate::timing::Measured,
    ) -> Vec<crate::timing::BySize> {
        sizes
            .iter()
            .map(|&size| {
                let measured = time(size);
                self.keep(size, &measured);
                crate::timing::BySize { size, measured }
            })
            .collect()
    }

    /// The timing runs `experiment` kept in this process, in the order they ran.
    ///
    /// # Panics
    /// If this experiment does not declare `experiment` in its `needs` (the runner guarantees
    /// that what it declares has run), or if `experiment` kept nothing.
    pub fn kept(&self, experiment: &str) -> Vec<crate::timing::BySize> {
        assert!(
            self.experiment.needs.contains(&experiment),
            "{} reads {experiment}'s runs: declare it in `needs`",
            self.experiment.id
        );
        let runs: Vec<crate::timing::BySize> = KEPT.with(|kept| {
            kept.borrow()
                .iter()
                .filter(|(id, _, _)| *id == experiment)
                .map(|(_, size, m)| crate::timing::BySize {
                    size: *size,
                    measured: m.clone(),
                })
                .collect()
        });
        assert!(!runs.is_empty(), "{experiment} kept no timing run");
        runs
    }

    /// The first timing run `experiment` kept (see [`Run::kept`]).
    ///
    /// # Panics
    /// As [`Run::kept`].
    pub fn kept_one(&self, experiment: &str) -> crate::timing::Measured {
        self.kept(experiment).swap_remove(0).measured
    }

    /// The timing configuration for this run's settings.
    pub fn config(&self) -> Config {
        Config::for_settings(&self.settings)
    }

    /// An empty table with the experiment's ID, kind and title.
    pub fn table(&self, columns: &[&str]) -> Table {
        Table::new(
            self.experiment.id,
            self.experiment.kind,
            self.experiment.title,
            columns,
        )
    }

    /// The experiment's ID, kind and title on a table built elsewhere (from columns, or the
    /// standard timed table).
    pub fn own(&self, mut table: Table) -> Table {
        table.id = self.experiment.id.to_owned();
        table.kind = self.experiment.kind;
        table.title = self.experiment.title.to_owned();
        table
    }
}

/// An experiment's declaration as the snapshot keeps it, for footers and checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExperimentInfo {
    /// The ID.
    pub id: String,
    /// Its kind.
    pub kind: Kind,
    /// Its title.
    pub title: String,
    /// The function that runs it.
    pub code: String,
    /// The tests that pin it.
    pub pinned_by: Vec<String>,
    /// Whether it runs under every allocator.
    pub allocator_sensitive: bool,
    /// The experiments whose runs it reads.
    #[serde(default)]
    pub needs: Vec<String>,
    /// The ids of the tables it produced (its own first).
    #[serde(default)]
    pub tables: Vec<String>,
    /// A fingerprint of what this experiment compiles from (its chapter's sources without the
    /// other experiments' modules), which machine records are matched by; set by `cargo xtask
    /// report`, empty when the sources had uncommitted changes.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sources: String,
}

impl ExperimentInfo {
    fn of(experiment: &Experiment) -> Self {
        ExperimentInfo {
            id: experiment.id.to_owned(),
            kind: experiment.kind,
            title: experiment.title.to_owned(),
            code: experiment.function.path.to_owned(),
            pinned_by: experiment
                .pinned_by
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
            allocator_sensitive: experiment.allocator_sensitive,
            needs: experiment.needs.iter().map(|s| (*s).to_owned()).collect(),
            tables: Vec::new(),
            sources: String::new(),
        }
    }
}

/// The processes that measured a snapshot under one allocator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessGroup {
    /// The allocator.
    pub allocator: Allocator,
    /// Its name and version.
    pub label: String,
    /// How many processes ran under it.
    pub processes: usize,
    /// Whether they ran every timed experiment or only the allocator-sensitive ones.
    pub all_experiments: bool,
}

/// What a report produced for one chapter: the file `docs/data/<chapter>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The chapter crate's name.
    pub chapter: String,
    /// Where and how it was measured (the final process).
    pub environment: Environment,
    /// Whether the run used `--quick` settings.
    pub quick: bool,
    /// Wall time of the final process, in seconds.
    pub duration_s: f64,
    /// The processes behind the timed tables, per allocator.
    #[serde(default)]
    pub processes: Vec<ProcessGroup>,
    /// Every experiment's declaration.
    #[serde(default)]
    pub experiments: Vec<ExperimentInfo>,
    /// The sources the chapter cites.
    #[serde(default)]
    pub sources: Vec<(String, String)>,
    /// Every table, in experiment order.
    pub tables: Vec<Table>,
    /// Every timed method's per-process figures, for the summary of both noise sources.
    #[serde(default)]
    pub twins: Vec<TwinRecord>,
    /// The conclusions the chapter's answer box cites.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answer: Vec<CitedText>,
    /// The chapter's decision table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decisions: Vec<DecisionText>,
}

impl Snapshot {
    /// The snapshot the docs print for `chapter`: `docs/data/<chapter>.json`, as committed.
    ///
    /// A counted table's pinning test reads its figure from here, not from a count re-derived
    /// in the test profile: `cargo xtask report --check` re-runs the release binary and compares
    /// it with this file exactly, so the published table and its pin cannot disagree.
    pub fn published(chapter: &str) -> Result<Snapshot, String> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../docs/data")
            .join(format!("{chapter}.json"));
        let text = std::fs::read_to_string(&path)
            .map_err(|err| format!("{}: cannot read: {err}", path.display()))?;
        serde_json::from_str(&text)
            .map_err(|err| format!("{}: not a snapshot: {err}", path.display()))
    }

    /// The published cell of table `id` at `row` (its first cell's text, as written or as
    /// rendered) and `column`.
    pub fn published_cell(
        &self,
        id: &str,
        row: &str,
        column: &str,
    ) -> Result<&crate::Cell, String> {
        self.table(id)
            .ok_or_else(|| format!("no table {id} in the snapshot"))?
            .labelled_cell(row, column)
            .ok_or_else(|| format!("table {id} has no cell at row {row}, column `{column}`"))
    }

    /// The table with this id.
    pub fn table(&self, id: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.id == id)
    }

    /// The experiment that produced the table `id`.
    pub fn experiment_of(&self, id: &str) -> Option<&ExperimentInfo> {
        self.experiments
            .iter()
            .find(|e| e.id == id || e.tables.iter().any(|t| t == id))
    }
}

/// Options parsed from the experiments binary's command line.
#[derive(Debug, Default)]
struct Args {
    settings: Settings,
    counted_only: bool,
    only: Option<String>,
    list: bool,
    replica_out: Option<String>,
    replica: usize,
    replicas: Vec<String>,
}

const USAGE: &str = "[--quick] [--counted] [--only ID] [--list] [--replica-out FILE [--replica N]] [--replicas FILE]...";

fn parse_args(args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args {
        replica: 1,
        ..Args::default()
    };
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        let mut value = |what: &str| args.next().ok_or(format!("{arg} needs {what}"));
        match arg.as_str() {
            "--quick" => parsed.settings.quick = true,
            "--counted" => parsed.counted_only = true,
            "--list" => parsed.list = true,
            "--only" => parsed.only = Some(value("an experiment id")?),
            "--replica-out" => parsed.replica_out = Some(value("a file")?),
            "--replicas" => parsed.replicas.push(value("a file")?),
            "--replica" => {
                let n = value("a number")?;
                parsed.replica = n
                    .parse()
                    .map_err(|_| format!("--replica needs a number, not `{n}`"))?;
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if parsed.replica_out.is_some() && !parsed.replicas.is_empty() {
        return Err("a replica (--replica-out) reads no other replicas (--replicas)".to_owned());
    }
    Ok(parsed)
}

fn read_replica(path: &str) -> Result<ReplicaFile, String> {
    let text = std::fs::read_to_string(path).map_err(|err| format!("{path}: {err}"))?;
    serde_json::from_str(&text).map_err(|err| format!("{path}: not a replica file: {err}"))
}

/// Declares a chapter's experiments binary: `lab::experiments_main!(pool::experiments::CHAPTER);`
/// installs [`crate::CountingAlloc`] over the system allocator, and
/// `lab::experiments_main!(pool::experiments::CHAPTER, mimalloc);` over mimalloc (lab's `mimalloc`
/// feature).
#[macro_export]
macro_rules! experiments_main {
    ($chapter:expr) => {
        #[global_allocator]
        static ALLOC: $crate::CountingAlloc = $crate::CountingAlloc::new();

        fn main() -> ::std::process::ExitCode {
            $crate::report::main(&$chapter, $crate::protocol::Allocator::System)
        }
    };
    ($chapter:expr, mimalloc) => {
        #[global_allocator]
        static ALLOC: $crate::CountingAlloc<$crate::alloc::Mimalloc> =
            $crate::CountingAlloc::wrapping($crate::alloc::Mimalloc);

        fn main() -> ::std::process::ExitCode {
            $crate::report::main(&$chapter, $crate::protocol::Allocator::Mimalloc)
        }
    };
}

/// The `main` of every chapter's experiments binary (see the module docs).
pub fn main(chapter: &'static Chapter, allocator: Allocator) -> ExitCode {
    let name = chapter.name;
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("{name}-experiments: {message}");
            eprintln!("usage: {name}-experiments {USAGE}");
            return ExitCode::from(2);
        }
    };
    let experiments = chapter.experiments;
    if let Some(only) = &args.only
        && !experiments.iter().any(|e| e.id == only)
    {
        let known: Vec<&str> = experiments.iter().map(|e| e.id).collect();
        eprintln!(
            "{name}-experiments: no experiment `{only}` (known: {})",
            known.join(", ")
        );
        return ExitCode::from(2);
    }
    if args.list {
        let infos: Vec<ExperimentInfo> = experiments.iter().map(ExperimentInfo::of).collect();
        println!(
            "{}",
            serde_json::to_string(&infos).expect("declarations serialise")
        );
        return ExitCode::SUCCESS;
    }
    match run(chapter, allocator, &args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{name}-experiments: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(chapter: &'static Chapter, allocator: Allocator, args: &Args) -> Result<(), String> {
    let name = chapter.name;
    let replicas = args
        .replicas
        .iter()
        .map(|path| read_replica(path))
        .collect::<Result<Vec<_>, _>>()?;
    let role = if crate::callgrind::Probe::from_env().is_some() {
        ProcessRole::Probe
    } else if args.replica_out.is_some() {
        ProcessRole::Replica
    } else {
        ProcessRole::Final
    };
    // Read once: naming the system allocator runs `getconf`.
    let label = crate::env::allocator_label(allocator);
    // Only the final process reports its process groups; `begin` takes the replicas.
    let groups = if role == ProcessRole::Final {
        process_groups(allocator, &label, &replicas)
    } else {
        Vec::new()
    };
    protocol::begin(role, allocator, replicas);
    let started = Instant::now();
    let mut tables = Vec::new();
    let mut infos = Vec::new();
    let mut twins = Vec::new();
    let ordered = execution_order(chapter.experiments)?;
    let wanted = |id: &str| match args.only.as_deref() {
        None => true,
        Some(only) => {
            only == id
                || chapter
                    .experiments
                    .iter()
                    .any(|e| e.id == only && e.needs.contains(&id))
        }
    };
    for experiment in ordered {
        let selected = match role {
            _ if !wanted(experiment.id) => false,
            _ if args.counted_only => experiment.kind == Kind::Count,
            ProcessRole::Replica => {
                experiment.kind == Kind::Time
                    && (allocator == Allocator::System || experiment.allocator_sensitive)
            }
            _ => true,
        };
        if !selected {
            continue;
        }
        let step = Instant::now();
        eprint!("  [{name}] {} ({:?}) … ", experiment.id, experiment.kind);
        let _ = std::io::stderr().flush();
        protocol::start_experiment(experiment.id);
        let produced = (experiment.function.call)(&Run {
            settings: args.settings,
            experiment,
        });
        if produced.first().map(|t| t.id.as_str()) != Some(experiment.id) {
            return Err(format!(
                "experiment {} must return its own table first",
                experiment.id
            ));
        }
        eprintln!("{:.1} s", step.elapsed().as_secs_f64());
        let mut info = ExperimentInfo::of(experiment);
        info.tables = produced.iter().map(|t| t.id.clone()).collect();
        infos.push(info);
        if role == ProcessRole::Final {
            crate::timing::check_replicated(experiment.id)?;
            twins.extend(crate::timing::twin_records(experiment.id));
        }
        tables.extend(produced);
    }
    if role == ProcessRole::Probe {
        return Err("the callgrind probe matched no timing run".to_owned());
    }
    if !args.settings.quick {
        crate::timing::check_rounds()?;
    }
    if let Some(path) = &args.replica_out {
        let file = ReplicaFile {
            chapter: name.to_owned(),
            allocator,
            allocator_label: label,
            replica: args.replica,
            quick: args.settings.quick,
            runs: protocol::produced(),
        };
        let json = serde_json::to_string(&file).map_err(|err| err.to_string())?;
        return std::fs::write(path, json).map_err(|err| format!("{path}: cannot write: {err}"));
    }
    let snapshot = Snapshot {
        chapter: name.to_owned(),
        environment: Environment::collect(label),
        quick: args.settings.quick,
        duration_s: started.elapsed().as_secs_f64(),
        processes: groups,
        experiments: infos,
        sources: chapter
            .sources
            .iter()
            .map(|s| (s.seed.to_owned(), s.note.to_owned()))
            .collect(),
        tables,
        twins,
        answer: chapter.answer.iter().map(CitedText::from).collect(),
        decisions: chapter
            .decisions
            .iter()
            .map(|d| DecisionText {
                situation: d.situation.to_owned(),
                action: d.action.to_owned(),
                because: CitedText::from(&d.because),
            })
            .collect(),
    };
    let json = serde_json::to_string(&snapshot)
        .map_err(|err| format!("cannot serialise the results: {err}"))?;
    println!("{json}");
    Ok(())
}

/// The order every process runs the experiments in: the timed ones first (so each process times
/// from the same state), each group in declaration order.
///
/// # Errors
/// If an experiment needs one that does not run before it, or one that does not exist.
fn execution_order(experiments: &'static [Experiment]) -> Result<Vec<&'static Experiment>, String> {
    let ordered: Vec<&'static Experiment> = experiments
        .iter()
        .filter(|e| e.kind == Kind::Time)
        .chain(experiments.iter().filter(|e| e.kind != Kind::Time))
        .collect();
    for (at, experiment) in ordered.iter().enumerate() {
        for need in experiment.needs {
            match ordered.iter().position(|e| e.id == *need) {
                Some(before) if before < at => {}
                Some(_) => {
                    return Err(format!(
                        "{} needs {need}, which runs after it: declare {need} first (timed experiments run before the others)",
                        experiment.id
                    ));
                }
                None => {
                    return Err(format!(
                        "{} needs {need}, which is not declared",
                        experiment.id
                    ));
                }
            }
        }
    }
    Ok(ordered)
}

/// The processes behind the final process's timed tables, per allocator: the replicas', and this
/// process's own under `allocator`, named `label`.
fn process_groups(
    allocator: Allocator,
    label: &str,
    replicas: &[ReplicaFile],
) -> Vec<ProcessGroup> {
    let mut groups: Vec<ProcessGroup> = Vec::new();
    let mut add = |a: Allocator, label: &str| match groups.iter_mut().find(|g| g.allocator == a) {
        Some(group) => group.processes += 1,
        None => groups.push(ProcessGroup {
            allocator: a,
            label: label.to_owned(),
            processes: 1,
            all_experiments: a == Allocator::System,
        }),
    };
    for replica in replicas {
        add(replica.allocator, &replica.allocator_label);
    }
    add(allocator, label);
    groups.sort_by_key(|g| g.allocator);
    groups
}

#[cfg(test)]
mod tests {
    use super::parse_args;

    fn parse(args: &[&str]) -> Result<super::Args, String> {
        parse_args(args.iter().map(|s| (*s).to_owned()))
    }

    #[test]
    fn flags_parse() {
        let args = parse(&[
            "--quick",
            "--counted",
            "--only",
            "M1",
            "--replicas",
            "a.json",
            "--replicas",
            "b.json",
        ])
        .unwrap();
        assert!(args.settings.quick && args.counted_only);
        assert_eq!(args.only.as_deref(), Some("M1"));
        assert_eq!(args.replicas, ["a.json", "b.json"]);
        let replica = parse(&["--replica-out", "r.json", "--replica", "2"]).unwrap();
        assert_eq!(
            (replica.replica_out.as_deref(), replica.replica),
            (Some("r.json"), 2)
        );
    }

    #[test]
    fn unknown_flags_are_errors_not_guesses() {
        assert_eq!(parse(&["--fast"]).unwrap_err(), "unknown argument `--fast`");
        assert_eq!(
            parse(&["--only"]).unwrap_err(),
            "--only needs an experiment id"
        );
        assert!(
            parse(&["--replica-out", "a", "--replicas", "b"])
                .unwrap_err()
                .contains("reads no other replicas")
        );
        assert!(parse(&["--replica", "two"]).unwrap_err().contains("`two`"));
    }
}
