//! The experiments-binary protocol, bottom layer: the settings a run is given, the allocators a
//! report measures under, the environment variables parent and child processes exchange, and the
//! session that numbers timing runs and carries the figures of the other processes.
//!
//! A timed experiment runs in several independent processes (replicas). Every replica but the
//! last is a *replica run*: it measures, and writes what each timing run measured to a file. The
//! last process of the default allocator is the *final run*: it measures too, and reads the other
//! replicas' files, so every [`crate::timing::Timing::run`] returns the figures of all processes
//! and the experiment builds its tables from all of them. This module only stores and hands
//! out those figures; [`crate::timing`] gives them meaning and [`crate::report`] reads and writes
//! the files.

use std::sync::{Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};

/// The environment variable through which `cargo xtask report` passes the dev-profile build of an
/// experiments binary (chapter 1 compares the two profiles).
pub const DEV_BINARY_VAR: &str = "LAB_DEV_BINARY";

/// Set in a callgrind child: `<experiment id>:<timing run index>:<slot>:<iterations>`.
pub const PROBE_VAR: &str = "LAB_CALLGRIND_PROBE";

/// How long timed experiments may take, and how many processes they run in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Settings {
    /// Short settings for smoke runs: the numbers are never committed as the docs' figures.
    pub quick: bool,
}

/// A global allocator the report measures under. Allocation *calls* do not depend on it; times
/// and whether a reallocation grows in place do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Allocator {
    /// The system allocator: glibc's malloc on the Linux machines this course is measured on.
    System,
    /// Microsoft's mimalloc, through the `mimalloc` crate: per-thread free lists and pages per
    /// size class.
    Mimalloc,
}

impl Allocator {
    /// Every allocator the report measures under, the default first.
    pub const ALL: [Allocator; 2] = [Allocator::System, Allocator::Mimalloc];

    /// A short name for tables and headings: `glibc`, `mimalloc`.
    pub fn short(self) -> &'static str {
        match self {
            Allocator::System => "glibc",
            Allocator::Mimalloc => "mimalloc",
        }
    }

    /// The suffix of the experiments binary built for this allocator (`""` for the default).
    pub fn binary_suffix(self) -> &'static str {
        match self {
            Allocator::System => "",
            Allocator::Mimalloc => "-mimalloc",
        }
    }

    /// The allocator called `name` (its [`short`](Self::short) name or `system`).
    pub fn parse(name: &str) -> Option<Allocator> {
        match name {
            "glibc" | "system" => Some(Allocator::System),
            "mimalloc" => Some(Allocator::Mimalloc),
            _ => None,
        }
    }
}

/// What this process is, as far as timing runs are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProcessRole {
    /// Not started by the report runner (a unit test, a doctest): measure, keep nothing.
    #[default]
    Plain,
    /// A replica: measure, and keep every run's figures for the replica file.
    Replica,
    /// The final process: measure, keep, and combine with the replicas' figures.
    Final,
    /// A callgrind child: run one copy of one method inside the collection window, skip the rest.
    Probe,
}

/// Which timing run of which experiment: the key that matches a run across processes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RunKey {
    /// The experiment's ID.
    pub experiment: String,
    /// The index of the timing run inside the experiment, in call order from 0.
    pub index: usize,
}

/// One timing run's figures, as one process measured them (opaque here; see [`crate::timing`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RawRun {
    /// Which run.
    pub key: RunKey,
    /// The measurements, serialised by the timing module.
    pub figures: serde_json::Value,
}

/// What one replica process measured: the content of a replica file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplicaFile {
    /// The chapter crate.
    pub chapter: String,
    /// The allocator the replica ran under.
    pub allocator: Allocator,
    /// Its name and version, for the environment header.
    pub allocator_label: String,
    /// Which replica (1-based, in the order the report started them).
    pub replica: usize,
    /// Whether it ran with `--quick` settings.
    pub quick: bool,
    /// Every timing run, in the order they ran.
    pub runs: Vec<RawRun>,
}

/// The figures of one timing run in another process.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The allocator that process ran under.
    pub allocator: Allocator,
    /// Its replica number.
    pub replica: usize,
    /// Its figures.
    pub figures: serde_json::Value,
}

#[derive(Debug, Default)]
struct Session {
    role: ProcessRole,
    allocator: Option<Allocator>,
    experiment: Option<String>,
    next_index: usize,
    produced: Vec<RawRun>,
    replicas: Vec<ReplicaFile>,
}

static SESSION: Mutex<Session> = Mutex::new(Session {
    role: ProcessRole::Plain,
    allocator: None,
    experiment: None,
    next_index: 0,
    produced: Vec::new(),
    replicas: Vec::new(),
});

fn session() -> MutexGuard<'static, Session> {
    SESSION.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Starts a session: called once by the experiments runner before any experiment.
pub fn begin(role: ProcessRole, allocator: Allocator, replicas: Vec<ReplicaFile>) {
    let mut s = session();
    s.role = role;
    s.allocator = Some(allocator);
    s.replicas = replicas;
    s.produced.clear();
}

/// This process's role.
pub fn role() -> ProcessRole {
    session().role
}

/// The allocator this process runs under (the system allocator outside the runner).
pub fn allocator() -> Allocator {
    session().allocator.unwrap_or(Allocator::System)
}

/// Called by the runner before each experiment: its timing runs are numbered from 0.
pub fn start_experiment(id: &str) {
    let mut s = session();
    s.experiment = Some(id.to_owned());
    s.next_index = 0;
}

/// The key of the timing run starting now, if an experiment is running.
pub fn next_run() -> Option<RunKey> {
    let mut s = session();
    let experiment = s.experiment.clone()?;
    let index = s.next_index;
    s.next_index += 1;
    Some(RunKey { experiment, index })
}

/// Keeps one run's figures for this process's replica file (and for the final run's summary).
pub fn keep(key: RunKey, figures: serde_json::Value) {
    let mut s = session();
    if matches!(s.role, ProcessRole::Replica | ProcessRole::Final) {
        s.produced.push(RawRun { key, figures });
    }
}

/// Every run this process kept, in order.
pub fn produced() -> Vec<RawRun> {
    session().produced.clone()
}

/// The same run's figures from every replica file this (final) process was given, in the order
/// of the files: `(allocator, replica)` ascending.
pub fn recorded(key: &RunKey) -> Vec<Recorded> {
    let s = session();
    let mut found: Vec<Recorded> = s
        .replicas
        .iter()
        .flat_map(|file| {
            file.runs
                .iter()
                .filter(move |run| &run.key == key)
                .map(move |run| Recorded {
                    allocator: file.allocator,
                    replica: file.replica,
                    figures: run.figures.clone(),
                })
        })
        .collect();
    found.sort_by_key(|r| (r.allocator, r.replica));
    found
}

/// How many processes, this one included, measured each allocator's runs.
pub fn processes(allocator: Allocator) -> usize {
    let s = session();
    let others = s
        .replicas
        .iter()
        .filter(|file| file.allocator == allocator)
        .count();
    others + usize::from(s.allocator.unwrap_or(Allocator::System) == allocator)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocator_names_round_trip() {
        for allocator in Allocator::ALL {
            assert_eq!(Allocator::parse(allocator.short()), Some(allocator));
        }
        assert_eq!(Allocator::parse("jemalloc"), None);
    }
}
