//! One timing run in one process: each method's figures and its twin's, and the instruction
//! counts the final process takes.

use serde::{Deserialize, Serialize};

use crate::callgrind;
use crate::protocol::{self, ProcessRole, RunKey};
use crate::publish::{self, Figures, Pair, Verdict};

use super::config::{Config, Schedule};
use super::summary::Summary;

/// Whether a method is measured for itself or is the table's floor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Role {
    /// A method under test.
    Method,
    /// The reference: the same touch on an existing buffer, showing the harness's own cost.
    Floor,
}

/// One method's result in one process: its own figures and its twin's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodResult {
    /// The name it was registered under.
    pub name: String,
    /// Method or floor.
    pub role: Role,
    /// Median nanoseconds per operation (the original copy).
    pub median_ns: f64,
    /// First quartile (the original copy).
    pub p25_ns: f64,
    /// Third quartile (the original copy).
    pub p75_ns: f64,
    /// The twin's figures.
    pub twin: Summary,
    /// Operations per batch, after calibration (the same for both copies).
    pub iters_per_batch: u64,
    /// Code addresses of the original's and the twin's batch loops.
    pub addresses: [usize; 2],
    /// Per-round samples of the original and the twin, in round order (this process only: not
    /// carried between processes).
    #[serde(skip)]
    pub samples: [Vec<f64>; 2],
    /// Instructions per operation of the original and the twin, from callgrind, when counted.
    pub instructions: Option<[f64; 2]>,
}

impl MethodResult {
    /// The pair the publish rule works on.
    pub fn pair(&self) -> Pair {
        Pair {
            original_ns: self.median_ns,
            twin_ns: self.twin.median_ns,
        }
    }

    /// Twin disagreement as a percentage of the pair's mean.
    pub fn twin_disagreement_pct(&self) -> f64 {
        self.pair().disagreement_pct()
    }

    /// Whether the original and the twin really are two copies of the code.
    pub fn twins_are_distinct(&self) -> bool {
        self.addresses[0] != self.addresses[1]
    }
}

/// Everything one [`Timing::run`](super::Timing::run) measured in one process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measurements {
    /// The configuration it ran with.
    pub config: Config,
    /// The schedule it ran with.
    pub schedule: Schedule,
    /// One result per registered method, in registration order.
    pub methods: Vec<MethodResult>,
    /// Why instruction counts are missing, when they are.
    pub instructions_note: Option<String>,
}

impl Measurements {
    /// Counts every copy's instructions under callgrind (the final process of a report only),
    /// or records why not.
    pub(super) fn count_instructions(&mut self, key: Option<&RunKey>) {
        if !self.config.count_instructions {
            self.instructions_note =
                Some("Instruction counts are taken only by the full report.".to_owned());
            return;
        }
        let role = protocol::role();
        let Some(key) = key.filter(|_| role != ProcessRole::Plain) else {
            self.instructions_note =
                Some("Instruction counts need the experiments runner.".to_owned());
            return;
        };
        if role != ProcessRole::Final {
            // Deterministic: the final process counts them once.
            return;
        }
        if let Err(why) = callgrind::availability() {
            self.instructions_note = Some(format!("No instruction counts: {why}."));
            return;
        }
        for (idx, method) in self.methods.iter_mut().enumerate() {
            let iters = method.iters_per_batch.clamp(1, 1000);
            let mut counts = [0.0; 2];
            for (copy, count) in counts.iter_mut().enumerate() {
                let probe = callgrind::Probe {
                    experiment: key.experiment.clone(),
                    run: key.index,
                    slot: idx * 2 + copy,
                    iters,
                };
                match callgrind::count_instructions(&probe) {
                    Ok(n) => *count = n,
                    Err(why) => {
                        self.instructions_note = Some(format!("No instruction counts: {why}."));
                        return;
                    }
                }
            }
            method.instructions = Some(counts);
        }
    }

    /// The method registered under `name`.
    pub fn method(&self, name: &str) -> Option<&MethodResult> {
        self.methods.iter().find(|m| m.name == name)
    }

    /// The method registered under `name`.
    ///
    /// # Panics
    /// If there is none (a bug in the experiment: names are constants).
    pub fn expect(&self, name: &str) -> &MethodResult {
        self.method(name)
            .unwrap_or_else(|| panic!("no method `{name}` was registered in this timing run"))
    }

    /// The floor, if one was registered.
    pub fn floor(&self) -> Option<&MethodResult> {
        self.methods.iter().find(|m| m.role == Role::Floor)
    }

    /// This process's figures for `name`, for the publish rule.
    pub fn figures(&self, name: &str) -> Figures {
        let method = self.expect(name);
        Figures::single(method.pair())
    }

    /// In this process: `Some(true)` if `a` is resolvably faster than `b`, `Some(false)` if
    /// resolvably slower, `None` if the difference is not resolvable (the publish rule on this
    /// process's twins and the absolute floor).
    pub fn faster(&self, a: &str, b: &str) -> Option<bool> {
        match publish::difference(&self.figures(a), &self.figures(b)) {
            Verdict::Published(d) => Some(d < 0.0),
            Verdict::NotResolvable { .. } => None,
        }
    }

    /// `a / b` in this process, from the original copies.
    pub fn ratio(&self, a: &str, b: &str) -> f64 {
        self.expect(a).median_ns / self.expect(b).median_ns
    }

    /// Median and quartiles, over the rounds, of the per-round ratio `a / b` (original copies,
    /// the same round): how stable the ratio is while the machine drifts.
    pub fn round_ratio(&self, a: &str, b: &str) -> Option<Summary> {
        let (a, b) = (self.method(a)?, self.method(b)?);
        let ratios: Vec<f64> = a.samples[0]
            .iter()
            .zip(&b.samples[0])
            .map(|(x, y)| x / y)
            .collect();
        Some(Summary::of(&ratios))
    }
}
