//! What the runner checks and collects, after an experiment, from the timing runs this process
//! kept and the replicas recorded.

use std::collections::BTreeMap;

use crate::protocol::{self, Allocator};
use crate::table::TwinRecord;

use super::config::{MIN_ROUNDS, Schedule};
use super::measurements::Measurements;

/// Every method's per-process figures of the runs `experiment` made in this (final) process and
/// the replicas, for the report-wide summary of both noise sources.
pub fn twin_records(experiment: &str) -> Vec<TwinRecord> {
    let mut records = Vec::new();
    for run in protocol::produced()
        .into_iter()
        .filter(|run| run.key.experiment == experiment)
    {
        let Ok(live) = serde_json::from_value::<Measurements>(run.figures) else {
            continue;
        };
        if live.schedule != Schedule::Interleaved {
            // M3's sequential runs are the bad example, not the instrument's noise.
            continue;
        }
        let mut by_allocator: BTreeMap<Allocator, Vec<Measurements>> = BTreeMap::new();
        for recorded in protocol::recorded(&run.key) {
            if let Ok(m) = serde_json::from_value::<Measurements>(recorded.figures) {
                by_allocator.entry(recorded.allocator).or_default().push(m);
            }
        }
        by_allocator
            .entry(protocol::allocator())
            .or_default()
            .push(live);
        for (allocator, processes) in by_allocator {
            for (idx, method) in processes[0].methods.iter().enumerate() {
                records.push(TwinRecord {
                    experiment: experiment.to_owned(),
                    method: method.name.clone(),
                    allocator,
                    per_process: processes
                        .iter()
                        .filter_map(|m| m.methods.get(idx))
                        .map(|r| (r.median_ns, r.twin.median_ns))
                        .collect(),
                });
            }
        }
    }
    records
}

/// Checks that every timing run `experiment` made in this (final) process was also made by every
/// replica of this process's allocator: a run the replicas skipped would print verdicts "every
/// process" reached from one process.
///
/// # Errors
/// Names the run and how many processes measured it.
pub fn check_replicated(experiment: &str) -> Result<(), String> {
    let allocator = protocol::allocator();
    let expected = protocol::processes(allocator);
    for run in protocol::produced()
        .into_iter()
        .filter(|run| run.key.experiment == experiment)
    {
        let measured = 1 + protocol::recorded(&run.key)
            .iter()
            .filter(|r| r.allocator == allocator)
            .count();
        if measured != expected {
            return Err(format!(
                "{experiment} timing run {} was measured in {measured} of {expected} processes: declare the experiment `Kind::Time` so every replica runs it",
                run.key.index
            ));
        }
    }
    Ok(())
}

/// Checks that every timing run this process kept had at least [`MIN_ROUNDS`] rounds.
///
/// # Errors
/// Names the first run that had fewer.
pub fn check_rounds() -> Result<(), String> {
    for run in protocol::produced() {
        if let Ok(m) = serde_json::from_value::<Measurements>(run.figures)
            && m.config.rounds < MIN_ROUNDS
        {
            return Err(format!(
                "{} timing run {} measured {} rounds; a full report gives every method at least {MIN_ROUNDS} (time long operations per chunk instead)",
                run.key.experiment, run.key.index, m.config.rounds
            ));
        }
    }
    Ok(())
}
