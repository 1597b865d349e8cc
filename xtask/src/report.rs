//! `cargo xtask report`: run the experiments, write the snapshot, regenerate the docs.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use lab::report::Snapshot;
use lab::{Kind, Table};

use crate::{Mode, REGENERATE, markers};

/// What `cargo xtask report` was asked to do.
#[derive(Debug)]
pub struct Options {
    pub mode: Mode,
    pub quick: bool,
    pub only: Option<String>,
}

/// A chapter crate with an experiments binary, and the doc its tables go into.
#[derive(Debug)]
pub struct Chapter {
    /// The crate's name; its binary is `<name>-experiments`, its data `docs/data/<name>.json`.
    pub name: &'static str,
    /// The chapter's file under `docs/`.
    pub doc: &'static str,
    /// Where its experiments are defined, named under every table.
    pub code: &'static str,
    /// Whether its experiments also need the dev-profile build of their binary (M6).
    pub dev_build: bool,
    /// The cargo feature that builds its experiments binary, for library crates that keep
    /// `lab` out of their users' dependencies.
    pub feature: Option<&'static str>,
    /// Other binaries of the crate its experiments run as child processes.
    pub other_bins: &'static [&'static str],
}

/// Every chapter that has experiments, in course order.
pub const CHAPTERS: &[Chapter] = &[
    Chapter {
        name: "lab",
        doc: "01-measure.md",
        code: "crates/lab/src/experiments.rs",
        dev_build: true,
        feature: None,
        other_bins: &[],
    },
    Chapter {
        name: "stack-buffer",
        doc: "02-stack-buffer.md",
        code: "crates/stack-buffer/src/experiments.rs",
        dev_build: false,
        feature: Some("stack-buffer/experiments"),
        other_bins: &[],
    },
    Chapter {
        name: "pool",
        doc: "03-pool.md",
        code: "crates/pool/src/experiments.rs",
        dev_build: false,
        feature: Some("pool/experiments"),
        other_bins: &[],
    },
    Chapter {
        name: "arena",
        doc: "04-arena.md",
        code: "crates/arena/src/experiments.rs",
        dev_build: false,
        feature: Some("arena/experiments"),
        other_bins: &[],
    },
    Chapter {
        name: "receipt",
        doc: "05-receipt.md",
        code: "crates/receipt/src/experiments.rs",
        dev_build: false,
        feature: Some("receipt/experiments"),
        other_bins: &["receipt"],
    },
];

/// Targets for the twin disagreement over every timed method of the report (chapter 1).
const TWIN_TARGET_MEDIAN_PCT: f64 = 1.5;
const TWIN_TARGET_MAX_PCT: f64 = 5.0;

/// The chapter called `name`, or an error listing the known ones.
pub fn chapter(name: &str) -> Result<&'static Chapter, String> {
    CHAPTERS.iter().find(|c| c.name == name).ok_or_else(|| {
        let known: Vec<&str> = CHAPTERS.iter().map(|c| c.name).collect();
        format!(
            "no chapter `{name}` with experiments (known: {})",
            known.join(", ")
        )
    })
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_owned()
}

fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

fn data_path(root: &Path, chapter: &Chapter) -> PathBuf {
    root.join("docs")
        .join("data")
        .join(format!("{}.json", chapter.name))
}

/// Runs the report in the given mode.
pub fn run(options: &Options) -> Result<(), String> {
    let started = Instant::now();
    let root = workspace_root();
    let selected: Vec<&Chapter> = match &options.only {
        Some(name) => vec![chapter(name)?],
        None => CHAPTERS.iter().collect(),
    };
    let mut errors = Vec::new();

    // Every committed snapshot: the docs are rendered from all of them.
    let mut snapshots = BTreeMap::new();
    for chapter in CHAPTERS {
        match load_snapshot(&root, chapter) {
            Ok(snapshot) => {
                snapshots.insert(chapter.name, snapshot);
            }
            Err(err) if options.mode == Mode::Check => errors.push(err),
            Err(_) => {} // Write mode regenerates it (or it belongs to a chapter not selected).
        }
    }

    build_experiments(&root, &selected, options.mode)?;
    for (idx, chapter) in selected.iter().enumerate() {
        let step = Instant::now();
        eprintln!(
            "==> [{}/{}] {}: running experiments",
            idx + 1,
            selected.len(),
            chapter.name
        );
        match options.mode {
            Mode::Write => {
                let snapshot = run_experiments(&root, chapter, &experiment_args(options))?;
                let path = data_path(&root, chapter);
                let json =
                    serde_json::to_string_pretty(&snapshot).map_err(|e| e.to_string())? + "\n";
                ensure_file_contents(&path, &json, Mode::Write)?;
                snapshots.insert(chapter.name, snapshot);
            }
            Mode::Check => {
                if let Some(committed) = snapshots.get(chapter.name) {
                    if committed.quick {
                        errors.push(format!(
                            "{}: the committed snapshot came from a --quick run; its numbers are not the docs' figures",
                            rel(&root, &data_path(&root, chapter))
                        ));
                    }
                    let fresh = run_experiments(&root, chapter, &["--counted".to_owned()])?;
                    errors.extend(compare_counts(&root, chapter, committed, &fresh));
                }
            }
        }
        eprintln!(
            "    {} done in {:.1} s",
            chapter.name,
            step.elapsed().as_secs_f64()
        );
    }

    for chapter in CHAPTERS {
        let Some(snapshot) = snapshots.get(chapter.name) else {
            continue;
        };
        if let Err(err) = render_doc(&root, chapter, snapshot, &snapshots, options.mode) {
            errors.push(err);
        }
    }

    eprintln!(
        "==> report {} in {:.1} s",
        if options.mode == Mode::Check {
            "checked"
        } else {
            "written"
        },
        started.elapsed().as_secs_f64()
    );
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}\n\nTo fix: run `{REGENERATE}` (or `{REGENERATE} --only <chapter>`) and commit docs/.",
            errors.join("\n\n")
        ))
    }
}

fn experiment_args(options: &Options) -> Vec<String> {
    if options.quick {
        vec!["--quick".to_owned()]
    } else {
        Vec::new()
    }
}

fn rel(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn load_snapshot(root: &Path, chapter: &Chapter) -> Result<Snapshot, String> {
    let path = data_path(root, chapter);
    let text = std::fs::read_to_string(&path).map_err(|err| {
        format!(
            "{}: cannot read the committed snapshot: {err}",
            rel(root, &path)
        )
    })?;
    serde_json::from_str(&text)
        .map_err(|err| format!("{}: not a snapshot: {err}", rel(root, &path)))
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Builds the selected chapters' experiments binaries in release mode, in one cargo call, and
/// in the dev profile too for the chapters that compare the two (write mode only: `--check`
/// re-runs only counted experiments, which never need the dev build).
fn build_experiments(root: &Path, chapters: &[&Chapter], mode: Mode) -> Result<(), String> {
    eprintln!("==> building experiments (release)");
    cargo_build(root, chapters.iter().copied(), true)?;
    let dev: Vec<&Chapter> = chapters
        .iter()
        .copied()
        .filter(|c| c.dev_build && mode == Mode::Write)
        .collect();
    if !dev.is_empty() {
        eprintln!("==> building experiments (dev profile, for M6)");
        cargo_build(root, dev.into_iter(), false)?;
    }
    Ok(())
}

fn cargo_build<'a>(
    root: &Path,
    chapters: impl Iterator<Item = &'a Chapter>,
    release: bool,
) -> Result<(), String> {
    let mut command = cargo();
    command.current_dir(root).args(["build", "--quiet"]);
    if release {
        command.arg("--release");
    }
    for chapter in chapters {
        command.args([
            "--package",
            chapter.name,
            "--bin",
            &format!("{}-experiments", chapter.name),
        ]);
        if let Some(feature) = chapter.feature {
            command.args(["--features", feature]);
        }
        for bin in chapter.other_bins {
            command.args(["--bin", bin]);
        }
    }
    let status = command
        .status()
        .map_err(|err| format!("cannot run cargo: {err}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("building the experiments failed ({status})"))
    }
}

fn run_experiments(root: &Path, chapter: &Chapter, args: &[String]) -> Result<Snapshot, String> {
    let binary = target_dir(root)
        .join("release")
        .join(format!("{}-experiments", chapter.name));
    let dev_binary = target_dir(root)
        .join("debug")
        .join(format!("{}-experiments", chapter.name));
    let mut command = Command::new(&binary);
    if chapter.dev_build {
        command.env(lab::experiments::DEV_BINARY_VAR, dev_binary);
    }
    let output = command
        .args(args)
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|err| format!("cannot run {}: {err}", binary.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{}-experiments failed ({})",
            chapter.name, output.status
        ));
    }
    serde_json::from_slice(&output.stdout).map_err(|err| {
        format!(
            "{}-experiments printed something that is not a snapshot: {err}",
            chapter.name
        )
    })
}

/// Every counted table the fresh run produced must equal the committed one, cell for cell.
fn compare_counts(
    root: &Path,
    chapter: &Chapter,
    committed: &Snapshot,
    fresh: &Snapshot,
) -> Vec<String> {
    let path = rel(root, &data_path(root, chapter));
    let mut errors = Vec::new();
    for table in &fresh.tables {
        match committed.table(&table.id) {
            None => errors.push(format!(
                "{path}: the counted table {} is not in the committed snapshot",
                table.id
            )),
            Some(old) if old != table => errors.push(format!(
                "{path}: the counted table {} changed ({}):\n{}",
                table.id,
                chapter.code,
                describe_change(old, table)
            )),
            Some(_) => {}
        }
    }
    for table in committed.tables.iter().filter(|t| t.kind == Kind::Count) {
        if fresh.table(&table.id).is_none() {
            errors.push(format!(
                "{path}: the counted table {} is no longer produced",
                table.id
            ));
        }
    }
    errors
}

/// A short, readable account of how two versions of a table differ.
fn describe_change(old: &Table, new: &Table) -> String {
    let mut out = String::new();
    if old.columns != new.columns {
        let _ = writeln!(out, "  columns: {:?} -> {:?}", old.columns, new.columns);
    }
    if old.rows.len() != new.rows.len() {
        let _ = writeln!(out, "  rows: {} -> {}", old.rows.len(), new.rows.len());
    }
    for (old_row, new_row) in old.rows.iter().zip(&new.rows) {
        for (col, (old_cell, new_cell)) in old_row.iter().zip(new_row).enumerate() {
            if old_cell != new_cell {
                let label = new_row.first().map(lab::Cell::render).unwrap_or_default();
                let column = new.columns.get(col).map_or("?", String::as_str);
                let _ = writeln!(
                    out,
                    "  row {label}, column `{column}`: committed {}, now {}",
                    old_cell.render(),
                    new_cell.render()
                );
            }
        }
    }
    if old.title != new.title || old.notes != new.notes {
        let _ = writeln!(out, "  title or notes changed");
    }
    out
}

/// Regenerates one chapter's doc from the snapshots.
fn render_doc(
    root: &Path,
    chapter: &Chapter,
    own: &Snapshot,
    all: &BTreeMap<&str, Snapshot>,
    mode: Mode,
) -> Result<(), String> {
    let path = root.join("docs").join(chapter.doc);
    let file = rel(root, &path);
    let text =
        std::fs::read_to_string(&path).map_err(|err| format!("{file}: cannot read: {err}"))?;
    let data = rel(root, &data_path(root, chapter));
    let new = markers::replace(&file, &text, |id| {
        if id == "M2" {
            return Ok(render_environment(own));
        }
        if id == "twin-summary" {
            return Ok(render_twin_summary(all));
        }
        let table = own
            .table(id)
            .or_else(|| all.values().find_map(|s| s.table(id)))
            .ok_or_else(|| format!("no experiment produced a table `{id}`"))?;
        Ok(format!(
            "{}\n<sub>Generated by `{REGENERATE}` from `{data}`; code: `{}`.</sub>",
            table.to_markdown(),
            chapter.code
        ))
    })?;
    let present: Vec<String> = markers::regions(&file, &new)?
        .into_iter()
        .map(|r| r.id)
        .collect();
    let missing: Vec<&str> = std::iter::once("M2")
        .chain(if chapter.name == "lab" {
            Some("twin-summary")
        } else {
            None
        })
        .chain(own.tables.iter().map(|t| t.id.as_str()))
        .filter(|id| !present.iter().any(|p| p == id))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "{file}: no generated region for {} (add `<!-- BEGIN GENERATED: ID -->` / `<!-- END GENERATED: ID -->` lines)",
            missing.join(", ")
        ));
    }
    for plot in own.tables.iter().flat_map(|t| &t.plots) {
        let svg_path = root
            .join("docs")
            .join("img")
            .join(format!("{}.svg", plot.file));
        ensure_file_contents(&svg_path, &plot.to_svg(), mode)?;
    }
    ensure_file_contents(&path, &new, mode)
}

/// The report-wide line: how much byte-identical twins disagreed over every timed method.
fn render_twin_summary(all: &BTreeMap<&str, Snapshot>) -> String {
    let mut pcts: Vec<f64> = all
        .values()
        .flat_map(|s| &s.tables)
        .flat_map(|t| &t.twins)
        .map(lab::table::TwinRecord::disagreement_pct)
        .collect();
    if pcts.is_empty() {
        return "No timed method in the report yet.".to_owned();
    }
    pcts.sort_by(f64::total_cmp);
    let median = lab::timing::quantile(&pcts, 0.5);
    let max = pcts[pcts.len() - 1];
    let seconds: f64 = all.values().map(|s| s.duration_s).sum();
    let verdict = |value: f64, target: f64| if value <= target { "met" } else { "missed" };
    format!(
        "twin disagreement: median {} %, max {} % over {} methods\n\nTargets: median ≤ {TWIN_TARGET_MEDIAN_PCT} % ({}), max ≤ {TWIN_TARGET_MAX_PCT} % ({}). The experiments of the whole report took {:.0} s.",
        lab::table::significant(median, 2),
        lab::table::significant(max, 2),
        pcts.len(),
        verdict(median, TWIN_TARGET_MEDIAN_PCT),
        verdict(max, TWIN_TARGET_MAX_PCT),
        seconds
    )
}

fn render_environment(snapshot: &Snapshot) -> String {
    let mut out = snapshot.environment.to_markdown();
    let _ = writeln!(
        out,
        "- Experiments of this chapter took {:.1} s",
        snapshot.duration_s
    );
    if snapshot.quick {
        let _ = writeln!(
            out,
            "- **Quick settings: a smoke run. These timings are not the chapter's figures.**"
        );
    }
    out
}

/// Writes `contents` to `path` (Write) or fails if the file differs (Check).
pub fn ensure_file_contents(path: &Path, contents: &str, mode: Mode) -> Result<(), String> {
    let current = std::fs::read_to_string(path).ok();
    if current.as_deref() == Some(contents) {
        return Ok(());
    }
    match mode {
        Mode::Write => {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("{}: {e}", parent.display()))?;
            }
            std::fs::write(path, contents)
                .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
            eprintln!("    updated {}", path.display());
            Ok(())
        }
        Mode::Check => Err(format!(
            "{} is stale:\n{}",
            path.display(),
            first_difference(current.as_deref().unwrap_or(""), contents)
        )),
    }
}

/// The lines that differ between two texts, as `-`/`+` pairs, cut short so a CI log stays readable.
fn first_difference(old: &str, new: &str) -> String {
    const MAX_PAIRS: usize = 10;
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let mut out = String::new();
    let mut shown = 0;
    for idx in 0..old_lines.len().max(new_lines.len()) {
        let (a, b) = (old_lines.get(idx), new_lines.get(idx));
        if a == b {
            continue;
        }
        if shown == MAX_PAIRS {
            out.push_str("  …\n");
            break;
        }
        let _ = writeln!(
            out,
            "  line {}:\n  - {}\n  + {}",
            idx + 1,
            a.unwrap_or(&""),
            b.unwrap_or(&"")
        );
        shown += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use lab::Cell;

    #[test]
    fn a_changed_count_names_row_column_and_both_values() {
        let mut old = Table::new("M1", Kind::Count, "t", &["call", "allocations"]);
        old.row(vec![Cell::text("`Box::new(0u64)`"), Cell::Count(1)]);
        let mut new = old.clone();
        new.rows[0][1] = Cell::Count(2);
        assert_eq!(
            describe_change(&old, &new),
            "  row `Box::new(0u64)`, column `allocations`: committed 1, now 2\n"
        );
    }

    #[test]
    fn check_mode_never_writes() {
        let dir = std::env::temp_dir().join(format!("xtask-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.md");
        std::fs::write(&path, "old\n").unwrap();
        let err = ensure_file_contents(&path, "new\n", Mode::Check).unwrap_err();
        assert!(
            err.contains("is stale") && err.contains("- old") && err.contains("+ new"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
        ensure_file_contents(&path, "new\n", Mode::Write).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
