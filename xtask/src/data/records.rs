//! Figures, conclusions and machine records: every timed claim a snapshot prints, how one
//! compares with another machine's, and the saved `verify` runs under `docs/data/machines/`
//! (M9, M10).
//!
//! A timed ratio is this machine's **figure**: another machine's is compared with it as a factor
//! (`×1.9`), never as holding or not. A **conclusion** is a verdict or a bound, the claims made at
//! the precision that transfers between machines:
//!
//! - a verdict **holds** when every process here reached the same one, **differs** when every
//!   process here reached another, and is **not resolvable here** otherwise;
//! - a bound (`at least 3×`) **holds** when this machine's least favourable ratio (over its
//!   processes) is on the bound's side, **differs** when even its most favourable one is not,
//!   and is **not resolvable here** otherwise.
//!
//! A committed *not resolvable* or *varies between runs* is neither: it is listed apart.
//!
//! A machine record keeps every claim its machine printed, per chapter, with the fingerprint of
//! the code each experiment compiled from ([`lab::report::ExperimentInfo::sources`]: its
//! chapter's sources without the modules of other experiments); a claim is compared with the
//! committed docs while its experiment's snapshot has the same fingerprint, so a regeneration
//! that leaves an experiment's code alone leaves its records valid.

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

/// The tests that pin M9 and M10, which xtask itself renders.
pub const M9_PINS: &[&str] = &[
    "xtask/src/data/records.rs::a_bound_holds_when_every_process_clears_it",
    "xtask/src/data/records.rs::a_verdict_holds_only_when_it_is_the_same",
    "xtask/src/data/records.rs::a_record_stays_valid_across_a_regeneration_of_the_same_code",
    "xtask/src/data/provenance.rs::experiments_of_one_module_share_a_fingerprint_and_others_differ",
    "xtask/src/work/render.rs::m9_lists_every_conclusion_that_differed",
];

/// The tests that pin M10.
pub const M10_PINS: &[&str] = &[
    "xtask/src/data/records.rs::a_figure_is_compared_as_a_factor",
    "xtask/src/data/records.rs::the_transfer_margin_covers_every_recorded_figure",
];

/// What one conclusion came to on a machine.
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
    /// Per chapter measured, the fingerprint of the code its binaries compiled from (empty:
    /// uncommitted changes, valid for no committed docs).
    pub sources: BTreeMap<String, String>,
    /// Per chapter and experiment, the fingerprint of the code that experiment compiled from
    /// ([`lab::report::ExperimentInfo::sources`]): a claim is compared with the committed docs
    /// while its experiment's fingerprint is the snapshot's.
    #[serde(default)]
    pub experiments: BTreeMap<String, BTreeMap<String, String>>,
    /// Per chapter, every timed claim this machine printed, keyed as [`claims`] keys them.
    pub claims: BTreeMap<String, BTreeMap<String, Claim>>,
}

/// One committed conclusion compared with one machine's claim.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The chapter.
    pub chapter: String,
    /// Where it is printed: `table · row · column`, or `table · claim`.
    pub key: String,
    /// The committed docs' verdict or bound.
    pub committed: String,
    /// The machine's.
    pub here: String,
    /// What that means.
    pub outcome: Outcome,
}

/// One committed figure against one machine's.
#[derive(Debug, Clone, PartialEq)]
pub struct Moved {
    /// The chapter.
    pub chapter: String,
    /// Where it is printed.
    pub key: String,
    /// The committed figure.
    pub committed: f64,
    /// The machine's.
    pub here: f64,
}

impl Moved {
    /// The machine's figure over the committed one.
    pub fn factor(&self) -> f64 {
        self.here / self.committed
    }

    /// How far the figure moved toward 1× (≥ 1; 1 when it moved away): what a bound has to
    /// survive.
    pub fn toward_one(&self) -> f64 {
        let f = if self.committed >= 1.0 {
            self.committed / self.here
        } else {
            self.here / self.committed
        };
        f.max(1.0)
    }

    /// How far it moved either way (≥ 1).
    pub fn either_way(&self) -> f64 {
        let f = self.factor();
        f.max(1.0 / f)
    }
}

/// A machine's claims compared with the committed docs of the chapters it is valid for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Comparison {
    /// The chapters compared (the record's fingerprint is the snapshot's).
    pub chapters: Vec<String>,
    /// The chapters the record measured other code for.
    pub stale: Vec<String>,
    /// Chapters compared in part: (chapter, timed tables of other code, timed tables).
    pub partly: Vec<(String, usize, usize)>,
    /// Every committed conclusion of those chapters.
    pub conclusions: Vec<Checked>,
    /// Every committed figure the machine also printed.
    pub figures: Vec<Moved>,
    /// Committed conclusions the machine did not print at all.
    pub missing: Vec<String>,
    /// Committed claims that are not conclusions (not resolvable, varying): not counted.
    pub not_claims: Vec<String>,
}

impl Comparison {
    /// How many conclusions came to `outcome`.
    pub fn count(&self, outcome: Outcome) -> usize {
        self.conclusions
            .iter()
            .filter(|c| c.outcome == outcome)
            .count()
    }
}

/// Every timed claim a snapshot prints, keyed by where it is printed.
pub fn claims(snapshot: &Snapshot) -> Vec<(String, Claim)> {
    claims_of(snapshot, |t| t.kind == Kind::Time)
}

/// Every claim of the snapshot's tables that `which` selects, keyed by where it is printed:
/// `table · row · column` for a cell, `table · claim` for a conclusion under a table.
pub fn claims_of(snapshot: &Snapshot, which: impl Fn(&lab::Table) -> bool) -> Vec<(String, Claim)> {
    let mut found = Vec::new();
    for table in snapshot.tables.iter().filter(|t| which(t)) {
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

/// The ratio a claim comes from, as (median, least, largest), if it has one.
fn ratio_of(claim: &Claim) -> Option<(f64, f64, f64)> {
    match *claim {
        Claim::Ratio { value, lo, hi, .. } | Claim::Bound { value, lo, hi, .. } => {
            Some((value, lo, hi))
        }
        _ => None,
    }
}

/// Compares one committed conclusion with a machine's claim (`None`: not produced there).
/// `None` back: the committed claim is not a conclusion (a figure, or not resolvable).
pub fn compare(committed: &Claim, here: Option<&Claim>) -> Option<Outcome> {
    if !committed.is_conclusion() {
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
            Claim::Bound {
                relation, bound, ..
            },
            here,
        ) => match ratio_of(here) {
            Some((_, lo, hi)) => {
                let (worst, best) = match relation {
                    lab::publish::Relation::AtLeast => (lo, hi),
                    lab::publish::Relation::AtMost => (hi, lo),
                };
                if relation.holds(worst, *bound) {
                    Outcome::Holds
                } else if !relation.holds(best, *bound) {
                    Outcome::Differs
                } else {
                    Outcome::NotResolvableHere
                }
            }
            None => Outcome::NotResolvableHere,
        },
        _ => Outcome::NotResolvableHere,
    })
}

/// A committed figure against a machine's (`None`: either has no ratio).
pub fn moved(committed: &Claim, here: Option<&Claim>) -> Option<(f64, f64)> {
    let (a, _, _) = ratio_of(committed)?;
    let (b, _, _) = ratio_of(here?)?;
    (a > 0.0 && b > 0.0).then_some((a, b))
}

/// Compares the claims a machine printed for `chapter` with the chapter's committed snapshot,
/// those of the tables `valid` accepts.
pub fn compare_chapter(
    chapter: &str,
    committed: &Snapshot,
    here: &BTreeMap<String, Claim>,
    valid: impl Fn(&str) -> bool,
    out: &mut Comparison,
) {
    out.chapters.push(chapter.to_owned());
    for (key, claim) in claims(committed) {
        if !valid(key.split(" · ").next().unwrap_or_default()) {
            continue;
        }
        let theirs = here.get(&key);
        if let Some((a, b)) = moved(&claim, theirs) {
            out.figures.push(Moved {
                chapter: chapter.to_owned(),
                key: key.clone(),
                committed: a,
                here: b,
            });
        }
        match compare(&claim, theirs) {
            Some(outcome) => {
                if theirs.is_none() {
                    out.missing.push(key.clone());
                }
                out.conclusions.push(Checked {
                    chapter: chapter.to_owned(),
                    key,
                    committed: claim.render(),
                    here: theirs.map_or("(not produced)".to_owned(), Claim::render_with_figure),
                    outcome,
                });
            }
            None if !claim.is_published() => {
                out.not_claims.push(format!("{key}: {}", claim.render()));
            }
            None => {}
        }
    }
}

/// A record compared with the committed snapshots, table by table where the record measured
/// the same code as the snapshot: the experiment's fingerprint, or else the chapter's.
pub fn compare_record(
    record: &MachineRecord,
    committed: &BTreeMap<String, Snapshot>,
) -> Comparison {
    let mut out = Comparison::default();
    let none = BTreeMap::new();
    for (chapter, snapshot) in committed {
        let Some(here) = record.claims.get(chapter) else {
            continue;
        };
        let chapter_same = record
            .sources
            .get(chapter)
            .is_some_and(|f| !f.is_empty() && *f == snapshot.environment.sources);
        let experiments = record.experiments.get(chapter).unwrap_or(&none);
        let valid = |table: &str| -> bool {
            match snapshot.experiment_of(table) {
                Some(e) if !e.sources.is_empty() && experiments.contains_key(&e.id) => {
                    experiments[&e.id] == e.sources
                }
                _ => chapter_same,
            }
        };
        let tables: Vec<&str> = snapshot
            .tables
            .iter()
            .filter(|t| t.kind == Kind::Time)
            .map(|t| t.id.as_str())
            .collect();
        if !tables.iter().any(|t| valid(t)) {
            out.stale.push(chapter.clone());
            continue;
        }
        let stale = tables.iter().filter(|t| !valid(t)).count();
        if stale > 0 {
            out.partly.push((chapter.clone(), stale, tables.len()));
        }
        compare_chapter(chapter, snapshot, here, valid, &mut out);
    }
    out
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
    use lab::publish::Relation;

    fn ratio(lo: f64, hi: f64) -> Claim {
        Claim::Ratio {
            value: (lo + hi) / 2.0,
            lo,
            hi,
            precision: 0.1,
        }
    }

    fn at_least(bound: f64) -> Claim {
        Claim::Bound {
            relation: Relation::AtLeast,
            bound,
            value: bound * 5.0,
            lo: bound * 4.0,
            hi: bound * 6.0,
        }
    }

    fn verdict(text: &str) -> Claim {
        Claim::Verdict {
            text: text.to_owned(),
        }
    }

    /// M9: a bound holds when this machine's least favourable ratio clears it, differs when even its
    /// most favourable one does not; a figure is neither.
    #[test]
    fn a_bound_holds_when_every_process_clears_it() {
        assert_eq!(
            compare(&at_least(2.0), Some(&ratio(2.1, 3.0))),
            Some(Outcome::Holds)
        );
        assert_eq!(
            compare(&at_least(2.0), Some(&ratio(0.5, 1.5))),
            Some(Outcome::Differs)
        );
        assert_eq!(
            compare(&at_least(2.0), Some(&ratio(1.8, 2.2))),
            Some(Outcome::NotResolvableHere)
        );
        let at_most = Claim::Bound {
            relation: Relation::AtMost,
            bound: 0.5,
            value: 0.1,
            lo: 0.09,
            hi: 0.11,
        };
        assert_eq!(
            compare(&at_most, Some(&ratio(0.2, 0.4))),
            Some(Outcome::Holds)
        );
        assert_eq!(
            compare(&at_most, Some(&ratio(0.6, 0.7))),
            Some(Outcome::Differs)
        );
        assert_eq!(
            compare(&at_least(2.0), Some(&Claim::NotResolvable)),
            Some(Outcome::NotResolvableHere)
        );
        // A ratio is this machine's figure: compared as a factor, never as holding.
        assert_eq!(compare(&ratio(3.0, 3.0), Some(&ratio(9.0, 9.0))), None);
    }

    /// M10: a figure moved by a factor; toward 1× is what a bound must survive.
    #[test]
    fn a_figure_is_compared_as_a_factor() {
        assert_eq!(
            moved(&ratio(3.0, 3.0), Some(&ratio(6.0, 6.0))),
            Some((3.0, 6.0))
        );
        assert_eq!(moved(&ratio(3.0, 3.0), Some(&verdict("met"))), None);
        let m = |committed, here| Moved {
            chapter: String::new(),
            key: String::new(),
            committed,
            here,
        };
        assert_eq!(m(12.0, 6.0).toward_one(), 2.0);
        assert_eq!(m(12.0, 24.0).toward_one(), 1.0);
        assert_eq!(m(0.1, 0.2).toward_one(), 2.0);
        assert_eq!(m(0.1, 0.05).either_way(), 2.0);
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

    fn snapshot(sources: &str, commit: &str, claim: Claim) -> Snapshot {
        let mut table = lab::Table::new("T1", Kind::Time, "t", &["x"]);
        table.conclude("a is faster", claim);
        let mut environment = Environment::collect("test allocator".to_owned());
        environment.sources = sources.to_owned();
        environment.commit = commit.to_owned();
        Snapshot {
            chapter: "c".to_owned(),
            environment,
            quick: false,
            duration_s: 0.0,
            processes: vec![],
            experiments: vec![],
            sources: vec![],
            tables: vec![table],
            twins: vec![],
            answer: vec![],
            decisions: vec![],
        }
    }

    /// M9: a record saved before a regeneration that did not change a chapter's code is still
    /// compared with that chapter's new snapshot (same fingerprint, another commit); a record of
    /// other code is not.
    #[test]
    fn a_record_stays_valid_across_a_regeneration_of_the_same_code() {
        let record = MachineRecord {
            name: "m".to_owned(),
            environment: Environment::collect("test allocator".to_owned()),
            allocators: vec![],
            processes: 3,
            quick: false,
            sources: BTreeMap::from([
                ("pool".to_owned(), "aaaa".to_owned()),
                ("arena".to_owned(), "bbbb".to_owned()),
            ]),
            experiments: BTreeMap::new(),
            claims: BTreeMap::from([
                (
                    "pool".to_owned(),
                    BTreeMap::from([("T1 · a is faster".to_owned(), verdict("a"))]),
                ),
                (
                    "arena".to_owned(),
                    BTreeMap::from([("T1 · a is faster".to_owned(), verdict("a"))]),
                ),
            ]),
        };
        let committed = BTreeMap::from([
            // Regenerated at a later commit, same code.
            (
                "pool".to_owned(),
                snapshot("aaaa", "222222222222", verdict("a")),
            ),
            // Its code changed since the record.
            (
                "arena".to_owned(),
                snapshot("cccc", "222222222222", verdict("a")),
            ),
        ]);
        let c = compare_record(&record, &committed);
        assert_eq!(c.chapters, ["pool"]);
        assert_eq!(c.stale, ["arena"]);
        assert_eq!(c.count(Outcome::Holds), 1);

        // Per experiment: the chapter's code changed, but not T1's experiment.
        let mut record = record;
        record.experiments = BTreeMap::from([(
            "arena".to_owned(),
            BTreeMap::from([("T1".to_owned(), "e1".to_owned())]),
        )]);
        let mut arena = snapshot("cccc", "333333333333", verdict("a"));
        arena.experiments = vec![experiment("T1", "e1")];
        let committed = BTreeMap::from([("arena".to_owned(), arena.clone())]);
        let c = compare_record(&record, &committed);
        assert_eq!(c.chapters, ["arena"]);
        assert_eq!(c.count(Outcome::Holds), 1);
        // T1's own code changed: not compared.
        arena.experiments = vec![experiment("T1", "e2")];
        let committed = BTreeMap::from([("arena".to_owned(), arena)]);
        assert_eq!(compare_record(&record, &committed).stale, ["arena"]);
    }

    fn experiment(id: &str, sources: &str) -> lab::report::ExperimentInfo {
        serde_json::from_value(serde_json::json!({
            "id": id, "kind": "time", "title": "t", "code": "c::experiments::m::f",
            "pinned_by": [], "allocator_sensitive": false, "tables": [id], "sources": sources,
        }))
        .unwrap()
    }

    /// M10: the margin every bound is printed with (`lab::publish::TRANSFER_MARGIN`) covers every
    /// move toward 1× of a committed figure on every recorded machine: a record that moves one
    /// further fails here, and the margin must be raised (and the docs regenerated).
    #[test]
    fn the_transfer_margin_covers_every_recorded_figure() {
        let ws = crate::data::workspace::Workspace::load().unwrap();
        let (committed, _) = crate::data::snapshots::load_all(&ws);
        for record in machine_records(&ws.root).unwrap() {
            for m in compare_record(&record, &committed).figures {
                assert!(
                    m.toward_one() <= lab::publish::TRANSFER_MARGIN,
                    "{}: {} moved from {} to {} on {} (×{:.2} toward 1×)",
                    m.chapter,
                    m.key,
                    m.committed,
                    m.here,
                    record.name,
                    m.toward_one()
                );
            }
        }
    }

    #[test]
    fn record_names_are_file_names() {
        assert_eq!(slug("AMD EPYC 7B13 64-Core Processor"), "amd-epyc-7b13");
    }
}
