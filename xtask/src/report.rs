//! `cargo xtask report`: run the experiments in K processes, write the snapshot, regenerate the
//! docs; `--check`: verify all of it without writing.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use lab::protocol::Allocator;
use lab::report::Snapshot;
use lab::{Kind, Table};

use crate::{Common, Mode, REGENERATE, pins, provenance, render};

/// What `cargo xtask report` was asked to do.
#[derive(Debug)]
pub struct Options {
    pub mode: Mode,
    pub common: Common,
    pub allow_dirty: bool,
}

/// A chapter crate with experiments binaries, and the doc its tables go into.
#[derive(Debug)]
pub struct Chapter {
    /// The crate's name; its binaries are `<name>-experiments[-<allocator>]`, its data
    /// `docs/data/<name>.json`.
    pub name: &'static str,
    /// The package that holds its experiments binaries.
    pub package: &'static str,
    /// The chapter's file under `docs/`.
    pub doc: &'static str,
    /// Whether its experiments also need the dev-profile build of their binary (M6).
    pub dev_build: bool,
    /// The cargo feature that builds its experiments binaries, for library crates that keep
    /// `lab` out of their users' dependencies.
    pub feature: Option<&'static str>,
    /// Other binaries its experiments run as child processes, as `(package, binary)`.
    pub other_bins: &'static [(&'static str, &'static str)],
    /// The allocators it is measured under (the system allocator first).
    pub allocators: &'static [Allocator],
}

/// Every chapter that has experiments, in course order.
pub const CHAPTERS: &[Chapter] = &[
    Chapter {
        name: "lab",
        package: "lab",
        doc: "01-measure.md",
        dev_build: true,
        feature: None,
        other_bins: &[],
        allocators: &[Allocator::System],
    },
    Chapter {
        name: "stack-buffer",
        package: "stack-buffer-chapter",
        doc: "02-stack-buffer.md",
        dev_build: true,
        feature: None,
        other_bins: &[],
        allocators: &Allocator::ALL,
    },
    Chapter {
        name: "pool",
        package: "pool",
        doc: "03-pool.md",
        dev_build: false,
        feature: Some("pool/experiments"),
        other_bins: &[],
        allocators: &Allocator::ALL,
    },
    Chapter {
        name: "arena",
        package: "arena",
        doc: "04-arena.md",
        dev_build: false,
        feature: Some("arena/experiments"),
        other_bins: &[],
        allocators: &Allocator::ALL,
    },
    Chapter {
        name: "receipt",
        package: "receipt",
        doc: "05-receipt.md",
        dev_build: false,
        feature: Some("receipt/experiments"),
        other_bins: &[("receipt", "receipt")],
        allocators: &Allocator::ALL,
    },
];

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

/// The chapters `--only` selects (all of them without it).
pub fn selected(common: &Common) -> Result<Vec<&'static Chapter>, String> {
    Ok(match &common.only {
        Some(name) => vec![chapter(name)?],
        None => CHAPTERS.iter().collect(),
    })
}

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_owned()
}

fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

pub fn data_path(root: &Path, chapter: &Chapter) -> PathBuf {
    root.join("docs")
        .join("data")
        .join(format!("{}.json", chapter.name))
}

pub fn rel(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Runs the report in the given mode.
pub fn run(options: &Options) -> Result<(), String> {
    let started = Instant::now();
    let root = workspace_root();
    let selected = selected(&options.common)?;
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

    match options.mode {
        Mode::Write => {
            provenance::ensure_clean(&root, options.allow_dirty)?;
            build(&root, &selected, Build::Report)?;
            let fresh = measure(&root, &selected, &options.common)?;
            for (name, snapshot) in fresh {
                let path = data_path(&root, chapter(name)?);
                let json =
                    serde_json::to_string_pretty(&snapshot).map_err(|e| e.to_string())? + "\n";
                ensure_file_contents(&path, &json, Mode::Write)?;
                snapshots.insert(name, snapshot);
            }
        }
        Mode::Check => {
            errors.extend(provenance::check_snapshots(&root, &snapshots));
            build(&root, &selected, Build::Counted)?;
            for chapter in &selected {
                let Some(committed) = snapshots.get(chapter.name) else {
                    continue;
                };
                eprintln!("==> {}: re-running the counted experiments", chapter.name);
                if committed.quick {
                    errors.push(format!(
                        "{}: the committed snapshot came from a --quick run; its numbers are not the docs' figures",
                        rel(&root, &data_path(&root, chapter))
                    ));
                }
                let fresh = run_final(&root, chapter, &["--counted".to_owned()], &[])?;
                errors.extend(compare_counts(&root, chapter, committed, &fresh));
            }
        }
    }

    errors.extend(pins::check(&root, &snapshots));
    let machines = render::machine_records(&root)?;
    for chapter in CHAPTERS {
        let Some(snapshot) = snapshots.get(chapter.name) else {
            continue;
        };
        if let Err(err) = render::doc(
            &root,
            chapter,
            snapshot,
            &snapshots,
            &machines,
            options.mode,
        ) {
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
            "{}\n\nTo fix: commit the code, then run `{REGENERATE}` (or `{REGENERATE} --only <chapter>`) from the clean tree and commit docs/.",
            errors.join("\n\n")
        ))
    }
}

pub fn load_snapshot(root: &Path, chapter: &Chapter) -> Result<Snapshot, String> {
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

/// What to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    /// Every allocator's binary, and the dev profile where a chapter needs it.
    Report,
    /// Only the system allocator's release binaries (`--check` re-runs counted experiments).
    Counted,
}

fn binary_name(chapter: &Chapter, allocator: Allocator) -> String {
    format!("{}-experiments{}", chapter.name, allocator.binary_suffix())
}

/// Builds the selected chapters' experiments binaries in release mode, in one cargo call, and
/// in the dev profile too for the chapters that compare the two.
pub fn build(root: &Path, chapters: &[&Chapter], what: Build) -> Result<(), String> {
    eprintln!("==> building experiments (release)");
    cargo_build(root, chapters, what, true)?;
    let dev: Vec<&Chapter> = chapters
        .iter()
        .copied()
        .filter(|c| c.dev_build && what == Build::Report)
        .collect();
    if !dev.is_empty() {
        eprintln!("==> building experiments (dev profile, for M6)");
        cargo_build(root, &dev, Build::Counted, false)?;
    }
    Ok(())
}

fn cargo_build(
    root: &Path,
    chapters: &[&Chapter],
    what: Build,
    release: bool,
) -> Result<(), String> {
    let mut command = cargo();
    command.current_dir(root).args(["build", "--quiet"]);
    if release {
        command.arg("--release");
    }
    for chapter in chapters {
        command.args(["--package", chapter.package]);
        let allocators = match what {
            Build::Report => chapter.allocators,
            Build::Counted => &[Allocator::System][..],
        };
        for allocator in allocators {
            command.args(["--bin", &binary_name(chapter, *allocator)]);
        }
        if let Some(feature) = chapter.feature {
            command.args(["--features", feature]);
        }
        for (package, bin) in chapter.other_bins {
            command.args(["--package", package, "--bin", bin]);
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

fn binary(root: &Path, chapter: &Chapter, allocator: Allocator) -> PathBuf {
    target_dir(root)
        .join("release")
        .join(binary_name(chapter, allocator))
}

fn experiments_command(root: &Path, chapter: &Chapter, allocator: Allocator) -> Command {
    let mut command = Command::new(binary(root, chapter, allocator));
    if chapter.dev_build {
        let dev = target_dir(root)
            .join("debug")
            .join(binary_name(chapter, Allocator::System));
        command.env(lab::protocol::DEV_BINARY_VAR, dev);
    }
    command.current_dir(root).stderr(Stdio::inherit());
    command
}

/// Runs the final process of a chapter (system allocator) and reads its snapshot.
fn run_final(
    root: &Path,
    chapter: &Chapter,
    args: &[String],
    replicas: &[PathBuf],
) -> Result<Snapshot, String> {
    let mut command = experiments_command(root, chapter, Allocator::System);
    command.args(args);
    for replica in replicas {
        command.arg("--replicas").arg(replica);
    }
    let output = command
        .output()
        .map_err(|err| format!("cannot run {}-experiments: {err}", chapter.name))?;
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

/// Runs one replica process and returns the file it wrote.
fn run_replica(
    root: &Path,
    dir: &Path,
    chapter: &Chapter,
    allocator: Allocator,
    replica: usize,
    quick: bool,
) -> Result<PathBuf, String> {
    let out = dir.join(format!(
        "{}-{}-{replica}.json",
        chapter.name,
        allocator.short()
    ));
    let mut command = experiments_command(root, chapter, allocator);
    command
        .arg("--replica-out")
        .arg(&out)
        .args(["--replica", &replica.to_string()])
        .stdout(Stdio::null());
    if quick {
        command.arg("--quick");
    }
    let status = command
        .status()
        .map_err(|err| format!("cannot run {}: {err}", binary_name(chapter, allocator)))?;
    if status.success() {
        Ok(out)
    } else {
        Err(format!(
            "{} (replica {replica}) failed ({status})",
            binary_name(chapter, allocator)
        ))
    }
}

/// Measures the selected chapters: `common.processes` rounds; in every round each chapter runs
/// one process per allocator, and the last round's system-allocator process is the final one,
/// which reads every replica and prints the snapshot. Spreading the rounds over the whole report
/// puts slow drift of the machine on different replicas.
pub fn measure(
    root: &Path,
    chapters: &[&Chapter],
    common: &Common,
) -> Result<BTreeMap<&'static str, Snapshot>, String> {
    let dir = target_dir(root).join("lab-replicas");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    let k = common.processes;
    let mut files: BTreeMap<&str, Vec<PathBuf>> = BTreeMap::new();
    let mut snapshots = BTreeMap::new();
    for round in 1..=k {
        for (idx, chapter) in chapters.iter().enumerate() {
            let step = Instant::now();
            eprintln!(
                "==> round {round}/{k}, [{}/{}] {}",
                idx + 1,
                chapters.len(),
                chapter.name
            );
            for &allocator in chapter.allocators {
                if round == k && allocator == Allocator::System {
                    continue;
                }
                let file = run_replica(root, &dir, chapter, allocator, round, common.quick)?;
                files.entry(chapter.name).or_default().push(file);
            }
            if round == k {
                let mut args = Vec::new();
                if common.quick {
                    args.push("--quick".to_owned());
                }
                let replicas = files.get(chapter.name).cloned().unwrap_or_default();
                let snapshot = run_final(root, chapter, &args, &replicas)?;
                snapshots.insert(chapter.name, snapshot);
            }
            eprintln!(
                "    {} round {round} done in {:.1} s",
                chapter.name,
                step.elapsed().as_secs_f64()
            );
        }
    }
    Ok(snapshots)
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
        let code = fresh
            .experiment_of(&table.id)
            .map_or("?", |e| e.code.as_str());
        match committed.table(&table.id) {
            None => errors.push(format!(
                "{path}: the counted table {} is not in the committed snapshot",
                table.id
            )),
            Some(old) if old != table => errors.push(format!(
                "{path}: the counted table {} changed (code: {code}):\n{}",
                table.id,
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

    #[test]
    fn every_chapter_is_measured_under_the_system_allocator_first() {
        for chapter in CHAPTERS {
            assert_eq!(
                chapter.allocators.first(),
                Some(&Allocator::System),
                "{}",
                chapter.name
            );
        }
    }
}
