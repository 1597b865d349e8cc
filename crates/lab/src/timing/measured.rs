//! One timing run across processes: every process's figures of it (and, in the final process,
//! the same run under the other allocators), the publish rule on them, and the verdicts every
//! process must reach.

use std::collections::BTreeMap;
use std::path::Path;

use crate::protocol::{self, Allocator, ProcessRole, RunKey, Settings};
use crate::publish::{self, Figures, RATIO_PRECISION, Verdict};
use crate::table::{Cell, Claim, Table};

use super::measurements::{Measurements, MethodResult, Role};

/// One timing run as every process measured it, under one allocator (and, in the final process
/// of a report, the same run under the other allocators).
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// The allocator these processes ran under.
    pub allocator: Allocator,
    /// One entry per process, replicas first, this process last.
    pub processes: Vec<Measurements>,
    /// The same run under other allocators, when the report measured it there too.
    pub others: Vec<Measured>,
}

/// One method across the processes of a [`Measured`].
#[derive(Debug, Clone)]
pub struct Method<'a> {
    results: Vec<&'a MethodResult>,
}

impl<'a> Method<'a> {
    /// The method's name.
    pub fn name(&self) -> &'a str {
        &self.results[0].name
    }

    /// Method or floor.
    pub fn role(&self) -> Role {
        self.results[0].role
    }

    /// The figures the publish rule works on.
    pub fn figures(&self) -> Figures {
        Figures {
            per_process: self.results.iter().map(|r| r.pair()).collect(),
        }
    }

    fn last(&self) -> &'a MethodResult {
        self.results[self.results.len() - 1]
    }

    /// The printed figure: the median over processes of each process's median.
    pub fn median_ns(&self) -> f64 {
        self.figures().median_ns()
    }

    /// The median as a cell.
    pub fn median_cell(&self) -> Cell {
        Cell::Nanos(self.median_ns())
    }

    /// The largest twin disagreement of any process, as a percentage.
    pub fn twin_disagreement_pct(&self) -> f64 {
        self.figures().twin_disagreement_pct()
    }

    /// The between-process spread as a percentage of the median (0 for a single process).
    pub fn spread_pct(&self) -> f64 {
        self.figures().spread_pct()
    }

    /// The between-process spread as a cell: — when a single process measured the method.
    pub fn spread_cell(&self) -> Cell {
        if self.results.len() > 1 {
            Cell::Percent(self.spread_pct())
        } else {
            Cell::Empty
        }
    }

    /// The quartiles over rounds: the median over processes of each process's quartile.
    pub fn iqr_ns(&self) -> (f64, f64) {
        let p25: Vec<f64> = self.results.iter().map(|r| r.p25_ns).collect();
        let p75: Vec<f64> = self.results.iter().map(|r| r.p75_ns).collect();
        (publish::median(&p25), publish::median(&p75))
    }

    /// Instructions per operation of the original and the twin, where they were counted.
    pub fn instructions(&self) -> Option<[f64; 2]> {
        self.last().instructions
    }

    /// This method's result in each process, replicas first.
    pub fn per_process(&self) -> &[&'a MethodResult] {
        &self.results
    }
}

impl Measured {
    /// A run measured in this process only.
    pub fn single(measurements: Measurements) -> Self {
        Measured {
            allocator: protocol::allocator(),
            processes: vec![measurements],
            others: Vec::new(),
        }
    }

    /// Keeps this process's figures for the report and joins them with the other processes'.
    pub(super) fn assemble(key: Option<RunKey>, live: Measurements) -> Self {
        let Some(key) = key else {
            return Measured::single(live);
        };
        protocol::keep(
            key.clone(),
            serde_json::to_value(&live).expect("measurements serialise"),
        );
        let allocator = protocol::allocator();
        let mut processes = Vec::new();
        let mut others: BTreeMap<Allocator, Vec<Measurements>> = BTreeMap::new();
        for recorded in protocol::recorded(&key) {
            let figures: Measurements =
                serde_json::from_value(recorded.figures).unwrap_or_else(|err| {
                    panic!(
                        "replica {} ({}) of {} run {}: unreadable figures: {err}",
                        recorded.replica,
                        recorded.allocator.short(),
                        key.experiment,
                        key.index
                    )
                });
            let names = |m: &Measurements| -> Vec<String> {
                m.methods.iter().map(|r| r.name.clone()).collect()
            };
            assert_eq!(
                names(&figures),
                names(&live),
                "replica {} of {} run {} measured other methods: the binaries differ",
                recorded.replica,
                key.experiment,
                key.index
            );
            if recorded.allocator == allocator {
                processes.push(figures);
            } else {
                others.entry(recorded.allocator).or_default().push(figures);
            }
        }
        processes.push(live);
        Measured {
            allocator,
            processes,
            others: others
                .into_iter()
                .map(|(allocator, processes)| Measured {
                    allocator,
                    processes,
                    others: Vec::new(),
                })
                .collect(),
        }
    }

    /// Runs experiment `experiment` in `binary` (another build of this experiments binary, such
    /// as the dev profile's), which must make exactly one timing run, and returns its figures,
    /// replicated like a run of this process.
    ///
    /// # Errors
    /// If the child cannot run or reports no figures.
    pub fn from_child(
        binary: &Path,
        experiment: &str,
        settings: &Settings,
    ) -> Result<Self, String> {
        let key = protocol::next_run();
        if protocol::role() == ProcessRole::Probe {
            return Err("not run in a callgrind child".to_owned());
        }
        let out = std::env::temp_dir().join(format!(
            "lab-child-{}-{experiment}.json",
            std::process::id()
        ));
        let mut command = std::process::Command::new(binary);
        command
            .args(["--only", experiment, "--replica-out"])
            .arg(&out)
            .env_remove(protocol::DEV_BINARY_VAR)
            .env_remove(protocol::PROBE_VAR)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        if settings.quick {
            command.arg("--quick");
        }
        let status = command
            .status()
            .map_err(|err| format!("cannot run {}: {err}", binary.display()))?;
        let text = std::fs::read_to_string(&out);
        let _ = std::fs::remove_file(&out);
        if !status.success() {
            return Err(format!("{} failed ({status})", binary.display()));
        }
        let text = text.map_err(|err| format!("{} wrote no figures: {err}", binary.display()))?;
        let file: protocol::ReplicaFile = serde_json::from_str(&text)
            .map_err(|err| format!("{} wrote unreadable figures: {err}", binary.display()))?;
        let run = file
            .runs
            .into_iter()
            .next()
            .ok_or_else(|| format!("{} made no timing run", binary.display()))?;
        let live: Measurements = serde_json::from_value(run.figures)
            .map_err(|err| format!("{} wrote unreadable figures: {err}", binary.display()))?;
        Ok(Measured::assemble(key, live))
    }

    /// How many processes measured this run.
    pub fn process_count(&self) -> usize {
        self.processes.len()
    }

    /// This process's figures (the last process).
    pub fn live(&self) -> &Measurements {
        &self.processes[self.processes.len() - 1]
    }

    /// Why this run has no instruction counts (only the final process of a full report takes
    /// them), for a table's notes.
    pub fn instructions_note(&self) -> String {
        self.live()
            .instructions_note
            .clone()
            .unwrap_or_else(|| "No instruction counts in this run.".to_owned())
    }

    /// The same run under `allocator`, if it was measured there.
    pub fn under(&self, allocator: Allocator) -> Option<&Measured> {
        if self.allocator == allocator {
            Some(self)
        } else {
            self.others.iter().find(|m| m.allocator == allocator)
        }
    }

    /// The method registered under `name`, across processes.
    pub fn method(&self, name: &str) -> Option<Method<'_>> {
        let results: Option<Vec<&MethodResult>> =
            self.processes.iter().map(|m| m.method(name)).collect();
        results.map(|results| Method { results })
    }

    /// The method registered under `name`, across processes.
    ///
    /// # Panics
    /// If there is none (a bug in the experiment: names are constants).
    pub fn expect(&self, name: &str) -> Method<'_> {
        self.method(name)
            .unwrap_or_else(|| panic!("no method `{name}` was registered in this timing run"))
    }

    /// Every method, in registration order.
    pub fn methods(&self) -> impl Iterator<Item = Method<'_>> {
        (0..self.processes[0].methods.len()).map(|idx| Method {
            results: self.processes.iter().map(|m| &m.methods[idx]).collect(),
        })
    }

    /// The floor, if one was registered.
    pub fn floor(&self) -> Option<Method<'_>> {
        self.methods().find(|m| m.role() == Role::Floor)
    }

    /// `a − b` under the publish rule.
    pub fn difference(&self, a: &str, b: &str) -> Verdict {
        publish::difference(&self.expect(a).figures(), &self.expect(b).figures())
    }

    /// `a − b` as a cell: nanoseconds, or *not resolvable*.
    pub fn difference_cell(&self, a: &str, b: &str) -> Cell {
        match self.difference(a, b) {
            Verdict::Published(ns) => Cell::Nanos(ns),
            Verdict::NotResolvable { .. } => Cell::NotResolvable,
        }
    }

    /// `a / b` under the publish rule, at the course's [`RATIO_PRECISION`].
    pub fn ratio(&self, a: &str, b: &str) -> Claim {
        Claim::ratio(
            publish::ratio(
                &self.expect(a).figures(),
                &self.expect(b).figures(),
                RATIO_PRECISION,
            ),
            RATIO_PRECISION,
        )
    }

    /// `a / b` as a conclusion for other machines: a bound cleared by
    /// [`publish::TRANSFER_MARGIN`], or this machine's figure where none is.
    pub fn bound(&self, a: &str, b: &str) -> Claim {
        Claim::bound(publish::bound(
            &self.expect(a).figures(),
            &self.expect(b).figures(),
            publish::TRANSFER_MARGIN,
        ))
    }

    /// `a / b` as a cell.
    pub fn ratio_cell(&self, a: &str, b: &str) -> Cell {
        Cell::Claim(self.ratio(a, b))
    }

    /// A verdict evaluated on each process's figures (`None`: not resolvable in that process),
    /// printed only if every process reaches the same one.
    pub fn verdict(&self, f: impl Fn(&Measurements) -> Option<String>) -> Claim {
        agree(self.process_count(), |p| f(&self.processes[p]))
    }

    /// Which of two methods is faster, judged in every process: `a_label` where `a` was
    /// resolvably faster, `b_label` where `b` was.
    pub fn faster_of(&self, a: &str, a_label: &str, b: &str, b_label: &str) -> Claim {
        self.verdict(|p| {
            p.faster(a, b)
                .map(|a_wins| if a_wins { a_label } else { b_label }.to_owned())
        })
    }

    /// A target judged in every process: `met(p)` says whether process `p` met it (`None`: the
    /// question was not resolvable there). Prints *met* or *missed* when every process agrees.
    pub fn target(&self, met: impl Fn(&Measurements) -> Option<bool>) -> Claim {
        self.verdict(|p| met(p).map(|yes| if yes { "met" } else { "missed" }.to_owned()))
    }

    /// A target "`fast` at least `factor`× faster than `slow`", judged in every process with
    /// the twins' margin: *met* where `slow / fast` stays at or above `factor` whichever twin is
    /// swapped in, *missed* where it stays below, not resolvable in a process where the twins
    /// straddle the target.
    pub fn target_speedup(&self, fast: &str, slow: &str, factor: f64) -> Claim {
        self.target(|p| {
            let (lo, hi) = publish::ratio_bounds(p.expect(slow).pair(), p.expect(fast).pair());
            if lo >= factor {
                Some(true)
            } else if hi < factor {
                Some(false)
            } else {
                None
            }
        })
    }

    /// States one conclusion per allocator this run was measured under: `claim(allocator)` in
    /// words, `judge(the run under it)` for the result.
    pub fn conclude_under_each(
        &self,
        table: &mut Table,
        claim: impl Fn(Allocator) -> String,
        judge: impl Fn(&Measured) -> Claim,
    ) {
        for allocator in Allocator::ALL {
            if let Some(under) = self.under(allocator) {
                table.conclude(claim(allocator), judge(under));
            }
        }
    }

    /// The largest twin disagreement of any method in any process, as a percentage.
    pub fn worst_twin_pct(&self) -> f64 {
        self.methods()
            .map(|m| m.twin_disagreement_pct())
            .fold(0.0, f64::max)
    }

    /// The largest between-process spread of any method, as a percentage.
    pub fn worst_spread_pct(&self) -> f64 {
        self.methods().map(|m| m.spread_pct()).fold(0.0, f64::max)
    }

    /// The largest twin disagreement as a cell.
    pub fn worst_twin_cell(&self) -> Cell {
        Cell::Percent(self.worst_twin_pct())
    }

    /// The largest between-process spread as a cell (— for a single process).
    pub fn worst_spread_cell(&self) -> Cell {
        if self.process_count() > 1 {
            Cell::Percent(self.worst_spread_pct())
        } else {
            Cell::Empty
        }
    }
}

/// A verdict over `processes` processes: `f(p)` is process `p`'s verdict (`None`: not resolvable
/// there). Printed only if every process reaches the same one. For verdicts that read several
/// timing runs of one experiment (a crossover across sizes), index each run's `processes` by `p`.
pub fn agree(processes: usize, f: impl Fn(usize) -> Option<String>) -> Claim {
    Claim::verdict(publish::agreement((0..processes).map(f).collect()))
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::{Config, Schedule, Summary};
    use super::*;

    /// A synthetic run: methods with fixed per-process (original, twin) medians.
    pub(in crate::timing) fn synthetic(methods: &[(&str, &[(f64, f64)])]) -> Measured {
        let processes = methods[0].1.len();
        let config = Config::smoke();
        Measured {
            allocator: Allocator::System,
            processes: (0..processes)
                .map(|p| Measurements {
                    config,
                    schedule: Schedule::Interleaved,
                    methods: methods
                        .iter()
                        .map(|(name, pairs)| MethodResult {
                            name: (*name).to_owned(),
                            role: Role::Method,
                            median_ns: pairs[p].0,
                            p25_ns: pairs[p].0,
                            p75_ns: pairs[p].0,
                            twin: Summary {
                                median_ns: pairs[p].1,
                                p25_ns: pairs[p].1,
                                p75_ns: pairs[p].1,
                            },
                            iters_per_batch: 10,
                            addresses: [1, 2],
                            samples: [vec![], vec![]],
                            instructions: None,
                        })
                        .collect(),
                    instructions_note: None,
                })
                .collect(),
            others: Vec::new(),
        }
    }

    #[test]
    fn the_printed_median_is_the_median_of_the_process_medians() {
        let m = synthetic(&[("a", &[(10.0, 10.0), (30.0, 30.0), (12.0, 12.0)])]);
        let a = m.expect("a");
        assert_eq!(a.median_ns(), 12.0);
        assert_eq!(a.spread_pct(), 100.0 * 20.0 / 12.0);
    }

    #[test]
    fn a_per_process_verdict_is_printed_only_when_every_process_agrees() {
        let m = synthetic(&[
            ("pool", &[(10.0, 10.0), (10.0, 10.0), (30.0, 30.0)]),
            ("stack", &[(20.0, 20.0), (20.0, 20.0), (20.0, 20.0)]),
        ]);
        let faster = |p: &Measurements| {
            p.faster("pool", "stack")
                .map(|yes| if yes { "pool" } else { "stack" }.to_owned())
        };
        assert_eq!(
            m.verdict(faster),
            Claim::Varies {
                agree: 2,
                of: 3,
                unresolved: 0
            }
        );
        let steady = synthetic(&[
            ("pool", &[(10.0, 10.0), (10.0, 10.0), (11.0, 11.0)]),
            ("stack", &[(20.0, 20.0), (20.0, 20.0), (20.0, 20.0)]),
        ]);
        assert_eq!(
            steady.verdict(faster),
            Claim::Verdict {
                text: "pool".to_owned()
            }
        );
    }
}
