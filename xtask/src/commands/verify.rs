//! `cargo xtask verify`: do this book's conclusions hold on my machine?
//!
//! Runs every timed experiment fresh, in K processes per allocator as the report does, and
//! compares each conclusion the committed docs print as published (a ratio with its range, or a
//! verdict every process reached) with what this machine's processes say (the rule is in
//! [`crate::data::records`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use lab::report::Snapshot;
use lab::table::Claim;

use crate::data::records::{self, Checked, MachineRecord, Outcome, claims, compare};
use crate::data::workspace::Workspace;
use crate::data::{provenance, snapshots};
use crate::work::render;
use crate::work::run;
use crate::{Common, Mode};

/// What `cargo xtask verify` was asked to do.
#[derive(Debug)]
pub struct Options {
    pub common: Common,
    pub strict: bool,
    pub save: bool,
    pub name: Option<String>,
}

/// Runs `verify`.
pub fn run(ws: &Workspace, options: &Options) -> Result<(), String> {
    let selected = ws.selected(options.common.only.as_deref())?;
    let mut committed = BTreeMap::new();
    for chapter in &selected {
        committed.insert(chapter.name.clone(), snapshots::load(ws, chapter)?);
    }
    for problem in provenance::check_snapshots(ws, &committed) {
        eprintln!(
            "warning: {}
(this run measures the working tree's code: conclusions may differ because the code did)",
            problem.lines().next().unwrap_or_default()
        );
    }
    let fresh = run::measure(ws, &selected, &options.common)?;

    let mut checked = Vec::new();
    let mut not_claims = Vec::new();
    let mut missing = Vec::new();
    for chapter in &selected {
        let (old, new) = (&committed[&chapter.name], &fresh[&chapter.name]);
        let here: BTreeMap<String, Claim> = claims(new).into_iter().collect();
        for (key, claim) in claims(old) {
            let fresh_claim = here.get(&key);
            if fresh_claim.is_none() {
                missing.push(key.clone());
            }
            match compare(&claim, fresh_claim) {
                Some(outcome) => checked.push(Checked {
                    key,
                    committed: claim.render(),
                    here: fresh_claim.map_or("(not produced)".to_owned(), Claim::render),
                    outcome,
                }),
                None => not_claims.push(format!("{key}: {}", claim.render())),
            }
        }
    }

    let mut out = String::new();
    for c in &checked {
        let _ = writeln!(
            out,
            "{}: committed {} · here {} · {}",
            c.key,
            c.committed,
            c.here,
            c.outcome.text()
        );
    }
    if !not_claims.is_empty() {
        let _ = writeln!(
            out,
            "\nNot conclusions in the committed docs (not resolvable, or varying between runs there), not counted:"
        );
        for line in &not_claims {
            let _ = writeln!(out, "  {line}");
        }
    }
    let count = |o: Outcome| checked.iter().filter(|c| c.outcome == o).count();
    let (hold, differ, unresolved) = (
        count(Outcome::Holds),
        count(Outcome::Differs),
        count(Outcome::NotResolvableHere),
    );
    if options.save {
        let first = &fresh[&selected[0].name];
        let record = MachineRecord {
            name: String::new(),
            environment: first.environment.clone(),
            allocators: allocators_measured(&fresh),
            processes: options.common.processes,
            quick: options.common.quick,
            docs_commit: docs_commits(&committed),
            checked: checked.len(),
            hold,
            differ,
            not_resolvable: unresolved,
            conclusions: checked.clone(),
        };
        let path = records::save(&ws.root, record, options.name.as_deref())?;
        // Chapter 1's M9 shows the new record.
        let (snapshots, _) = snapshots::load_all(ws);
        let errors = render::all(ws, &snapshots, Mode::Write);
        if !errors.is_empty() {
            return Err(errors.join("\n\n"));
        }
        let _ = writeln!(out, "\nsaved {}", ws.rel(&path));
    }
    let _ = writeln!(
        out,
        "\nconclusions: {} checked, {hold} hold, {differ} differ, {unresolved} not resolvable here",
        checked.len()
    );
    print!("{out}");
    if !missing.is_empty() {
        return Err(format!(
            "this run did not produce {} of the committed conclusions (the experiments changed since the docs were made):\n  {}",
            missing.len(),
            missing.join("\n  ")
        ));
    }
    if options.strict && differ > 0 {
        return Err(format!(
            "{differ} conclusion(s) differ on this machine (--strict)"
        ));
    }
    Ok(())
}

/// Every allocator the fresh run measured under, with its version, in allocator order.
fn allocators_measured(fresh: &BTreeMap<String, Snapshot>) -> Vec<String> {
    let mut groups: Vec<(lab::protocol::Allocator, &str)> = fresh
        .values()
        .flat_map(|s| &s.processes)
        .map(|g| (g.allocator, g.label.as_str()))
        .collect();
    groups.sort();
    groups.dedup();
    groups
        .into_iter()
        .map(|(_, label)| label.to_owned())
        .collect()
}

/// The commits of the snapshots compared, each once (chapters may be regenerated apart).
fn docs_commits(committed: &BTreeMap<String, Snapshot>) -> String {
    let mut commits: Vec<&str> = committed
        .values()
        .map(|s| s.environment.commit.as_str())
        .collect();
    commits.sort_unstable();
    commits.dedup();
    commits.join(", ")
}
