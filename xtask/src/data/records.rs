//! Conclusions and machine records: every timed claim a snapshot prints, how one compares with
//! another machine's, and the saved `verify` runs under `docs/data/machines/` (M9).
//!
//! - a verdict **holds** when every process here reached the same one, **differs** when every
//!   process here reached another, and is **not resolvable here** otherwise;
//! - a ratio **holds** when its range here overlaps the printed range widened by the ratio's
//!   precision (±10 %), **differs** when it is printed here but the ranges do not overlap, and
//!   is **not resolvable here** when the publish rule refuses it here.
//!
//! A committed *not resolvable* or *varies between runs* is not a claim: it is listed apart.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use lab::env::Environment;
use lab::report::Snapshot;
use lab::table::Claim;
use lab::{Cell, Kind};

use crate::Mode;
use crate::data::files::ensure_file_contents;
use crate::data::workspace::rel;

/// The tests that pin M9, which xtask itself renders.
pub const M9_PINS: &[&str] = &[
    "xtask/src/data/records.rs::a_ratio_holds_when_the_ranges_overlap",
    "xtask/src/data/records.rs::a_verdict_holds_only_when_it_is_the_same",
    "xtask/src/work/render.rs::m9_lists_every_conclusion_that_differed",
];

/// What one conclusion came to on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Holds,
    Differs,
    NotResolvableHere,
}

impl Outcome {
    pub fn text(self) -> &'static str {
        match self {
            Outcome::Holds => "holds",
            Outcome::Differs => "differs",
            Outcome::NotResolvableHere => "not resolvable here",
        }
    }
}

/// One conclusion, as committed and as measured here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checked {
    /// Where it is printed: `table · row · column`, or `table · claim`.
    pub key: String,
    /// The committed docs' figure or verdict.
    pub committed: String,
    /// This machine's.
    pub here: String,
    /// What that means.
    pub outcome: Outcome,
}

/// A saved run of `verify`: `docs/data/machines/<name>.json`, one row of M9.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineRecord {
    /// The record's name.
    pub name: String,
    /// The machine (the final process of the first chapter checked).
    pub environment: Environment,
    /// The allocators measured, with their versions.
    pub allocators: Vec<String>,
    /// Processes per allocator.
    pub processes: usize,
    /// Whether the run used `--quick` settings.
    pub quick: bool,
    /// The commit of the snapshots it was compared with.
    pub docs_commit: String,
    /// Conclusions compared.
    pub checked: usize,
    /// Of those, how many held.
    pub hold: usize,
    /// How many differed.
    pub differ: usize,
    /// How many could not be resolved on this machine.
    pub not_resolvable: usize,
    /// Every conclusion.
    pub conclusions: Vec<Checked>,
}

/// Every timed claim a snapshot prints, keyed by where it is printed.
pub fn claims(snapshot: &Snapshot) -> Vec<(String, Claim)> {
    let mut found = Vec::new();
    for table in snapshot.tables.iter().filter(|t| t.kind == Kind::Time) {
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for row in &table.rows {
            let label = row.first().map(Cell::render).unwrap_or_default();
            let n = seen.entry(label.clone()).or_default();
            *n += 1;
            let label = if *n > 1 {
                format!("{label} #{n}")
            } else {
                label
            };
            for (col, cell) in row.iter().enumerate() {
                if let Cell::Claim(claim) = cell {
                    let column = table.columns.get(col).map_or("?", String::as_str);
                    found.push((format!("{} · {label} · {column}", table.id), claim.clone()));
                }
            }
        }
        for conclusion in &table.conclusions {
            found.push((
                format!("{} · {}", table.id, conclusion.claim),
                conclusion.result.clone(),
            ));
        }
    }
    found
}

/// Compares one committed claim with this machine's (`None`: not produced here).
/// `None` back: the committed claim is not a published conclusion.
pub fn compare(committed: &Claim, here: Option<&Claim>) -> Option<Outcome> {
    if !committed.is_published() {
        return None;
    }
    let Some(here) = here else {
        return Some(Outcome::NotResolvableHere);
    };
    Some(match (committed, here) {
        (Claim::Verdict { text: a }, Claim::Verdict { text: b }) => {
            if a == b {
                Outcome::Holds
            } else {
                Outcome::Differs
            }
        }
        (
            Claim::Ratio {
                lo, hi, precision, ..
            },
            Claim::Ratio {
                lo: here_lo,
                hi: here_hi,
                ..
            },
        ) => {
            let widen = 1.0 + precision;
            if lo / widen <= *here_hi && *here_lo <= hi * widen {
                Outcome::Holds
            } else {
                Outcome::Differs
            }
        }
        _ => Outcome::NotResolvableHere,
    })
}

/// The directory of machine records.
fn records_dir(root: &Path) -> PathBuf {
    root.join("docs").join("data").join("machines")
}

/// Every machine record under `docs/data/machines/`, oldest first.
pub fn machine_records(root: &Path) -> Result<Vec<MachineRecord>, String> {
    let dir = records_dir(root);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut records = Vec::new();
    for entry in entries {
        let path = entry.map_err(|err| err.to_string())?.path();
        if path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&path)
                .map_err(|err| format!("{}: {err}", rel(root, &path)))?;
            let record: MachineRecord = serde_json::from_str(&text)
                .map_err(|err| format!("{}: not a machine record: {err}", rel(root, &path)))?;
            records.push(record);
        }
    }
    records.sort_by(|a, b| (&a.environment.date, &a.name).cmp(&(&b.environment.date, &b.name)));
    Ok(records)
}

fn slug(text: &str) -> String {
    let mut out = String::new();
    for word in text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(3)
    {
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word.to_ascii_lowercase());
    }
    out
}

/// Writes `record` under a free name (`name`, or the date and CPU) and returns its path.
pub fn save(root: &Path, mut record: MachineRecord, name: Option<&str>) -> Result<PathBuf, String> {
    let dir = records_dir(root);
    let base = name.map_or_else(
        || {
            format!(
                "{}-{}",
                record.environment.date,
                slug(&record.environment.cpu)
            )
        },
        str::to_owned,
    );
    let exists = |name: &str| dir.join(format!("{name}.json")).exists();
    let mut name = base.clone();
    let mut n = 1;
    while exists(&name) {
        n += 1;
        name = format!("{base}-{n}");
    }
    record.name = name.clone();
    let path = dir.join(format!("{name}.json"));
    let json = serde_json::to_string_pretty(&record).map_err(|e| e.to_string())? + "\n";
    ensure_file_contents(&path, &json, Mode::Write)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ratio(lo: f64, hi: f64) -> Claim {
        Claim::Ratio {
            value: (lo + hi) / 2.0,
            lo,
            hi,
            precision: 0.1,
        }
    }

    fn verdict(text: &str) -> Claim {
        Claim::Verdict {
            text: text.to_owned(),
        }
    }

    /// M9: a ratio conclusion holds when this machine's range meets the printed one, each
    /// widened by the precision.
    #[test]
    fn a_ratio_holds_when_the_ranges_overlap() {
        assert_eq!(
            compare(&ratio(2.3, 3.7), Some(&ratio(3.5, 4.0))),
            Some(Outcome::Holds)
        );
        // Just inside the widened range (3.0 / 1.1 = 2.73), and just outside.
        assert_eq!(
            compare(&ratio(3.0, 3.0), Some(&ratio(2.75, 2.75))),
            Some(Outcome::Holds)
        );
        assert_eq!(
            compare(&ratio(3.0, 3.0), Some(&ratio(2.70, 2.70))),
            Some(Outcome::Differs)
        );
        // 3.66× printed, 2.31× here: 3.66 / 1.1 = 3.33 > 2.31.
        assert_eq!(
            compare(&ratio(3.66, 3.66), Some(&ratio(2.31, 2.31))),
            Some(Outcome::Differs)
        );
        assert_eq!(
            compare(&ratio(3.0, 3.0), Some(&Claim::NotResolvable)),
            Some(Outcome::NotResolvableHere)
        );
    }

    /// M9: a verdict holds only when this machine reached the same one in every process.
    #[test]
    fn a_verdict_holds_only_when_it_is_the_same() {
        assert_eq!(
            compare(&verdict("met"), Some(&verdict("met"))),
            Some(Outcome::Holds)
        );
        assert_eq!(
            compare(&verdict("met"), Some(&verdict("missed"))),
            Some(Outcome::Differs)
        );
        assert_eq!(
            compare(
                &verdict("met"),
                Some(&Claim::Varies {
                    agree: 2,
                    of: 3,
                    unresolved: 0
                })
            ),
            Some(Outcome::NotResolvableHere)
        );
        assert_eq!(
            compare(&verdict("met"), None),
            Some(Outcome::NotResolvableHere)
        );
    }

    #[test]
    fn committed_non_claims_are_not_counted() {
        assert_eq!(compare(&Claim::NotResolvable, Some(&verdict("met"))), None);
        assert_eq!(
            compare(
                &Claim::Varies {
                    agree: 2,
                    of: 3,
                    unresolved: 1
                },
                None
            ),
            None
        );
    }

    #[test]
    fn record_names_are_file_names() {
        assert_eq!(slug("AMD EPYC 7B13 64-Core Processor"), "amd-epyc-7b13");
    }
}
