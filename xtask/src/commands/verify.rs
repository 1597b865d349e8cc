//! `cargo xtask verify`: do this book's conclusions hold on my machine?
//!
//! Runs every timed experiment fresh, in K processes per allocator as the report does, and
//! compares each conclusion the committed docs print (a verdict every process reached, or a
//! bound) with what this machine's processes say, and each figure (a timed ratio) as a factor
//! (the rules are in [`crate::data::records`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use lab::report::Snapshot;
use lab::table::Claim;

use lab::fmt::significant;

use crate::data::records::{
    self, Comparison, MachineRecord, Moved, Outcome, claims, compare_chapter,
};
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

    let mut comparison = Comparison::default();
    let mut claims_here = BTreeMap::new();
    let mut sources = BTreeMap::new();
    let mut experiments = BTreeMap::new();
    for chapter in &selected {
        let new = &fresh[&chapter.name];
        let here: BTreeMap<String, Claim> = claims(new).into_iter().collect();
        compare_chapter(
            &chapter.name,
            &committed[&chapter.name],
            &here,
            |_| true,
            &mut comparison,
        );
        sources.insert(chapter.name.clone(), new.environment.sources.clone());
        experiments.insert(
            chapter.name.clone(),
            new.experiments
                .iter()
                .map(|e| (e.id.clone(), e.sources.clone()))
                .collect(),
        );
        claims_here.insert(chapter.name.clone(), here);
    }

    let mut out = String::new();
    if !comparison.figures.is_empty() {
        let _ = writeln!(
            out,
            "Figures (this machine's own; here against the committed, as a factor):"
        );
        for m in &comparison.figures {
            let _ = writeln!(
                out,
                "  {}: committed {}× · here {}× · ×{}",
                m.key,
                significant(m.committed, 3),
                significant(m.here, 3),
                significant(m.factor(), 2)
            );
        }
        let _ = writeln!(out, "\nConclusions:");
    }
    for c in &comparison.conclusions {
        let _ = writeln!(
            out,
            "{}: committed {} · here {} · {}",
            c.key,
            c.committed,
            c.here,
            c.outcome.text()
        );
    }
    if !comparison.not_claims.is_empty() {
        let _ = writeln!(
            out,
            "\nNot conclusions in the committed docs (not resolvable, or varying between runs there), not counted:"
        );
        for line in &comparison.not_claims {
            let _ = writeln!(out, "  {line}");
        }
    }
    let (hold, differ, unresolved) = (
        comparison.count(Outcome::Holds),
        comparison.count(Outcome::Differs),
        comparison.count(Outcome::NotResolvableHere),
    );
    if options.save {
        let first = &fresh[&selected[0].name];
        let record = MachineRecord {
            name: String::new(),
            environment: first.environment.clone(),
            allocators: allocators_measured(&fresh),
            processes: options.common.processes,
            quick: options.common.quick,
            sources,
            experiments,
            claims: claims_here,
        };
        let path = records::save(&ws.root, record, options.name.as_deref())?;
        // Chapter 1's M9 and M10 show the new record.
        let (snapshots, _) = snapshots::load_all(ws);
        let errors = render::all(ws, &snapshots, Mode::Write);
        if !errors.is_empty() {
            return Err(errors.join("\n\n"));
        }
        let _ = writeln!(out, "\nsaved {}", ws.rel(&path));
    }
    let _ = writeln!(out, "\n{}", figures_line(&comparison.figures));
    let _ = writeln!(
        out,
        "conclusions: {} checked, {hold} hold, {differ} differ, {unresolved} not resolvable here",
        comparison.conclusions.len()
    );
    print!("{out}");
    let missing = &comparison.missing;
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

/// The figures' line: how far this machine's figures are from the committed ones.
fn figures_line(figures: &[Moved]) -> String {
    if figures.is_empty() {
        return "figures: none compared".to_owned();
    }
    let mut factors: Vec<f64> = figures.iter().map(Moved::either_way).collect();
    factors.sort_by(f64::total_cmp);
    let largest = figures
        .iter()
        .max_by(|a, b| a.either_way().total_cmp(&b.either_way()))
        .expect("not empty");
    format!(
        "figures: {} compared, this machine's against the committed (either way): median ×{}, max ×{} ({}: committed {} · here {})",
        figures.len(),
        significant(lab::publish::median(&factors), 3),
        significant(largest.either_way(), 3),
        largest.key,
        significant(largest.committed, 3),
        significant(largest.here, 3)
    )
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
