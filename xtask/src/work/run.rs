//! Building the chapters' experiments binaries and running their processes: replicas, then the
//! final process that reads them and prints the snapshot.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

use lab::protocol::Allocator;
use lab::report::Snapshot;

use crate::data::provenance;
use crate::data::workspace::{Chapter, Workspace};

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

/// Builds the selected chapters' experiments binaries in release mode, in one cargo call, and
/// in the dev profile too for the chapters that compare the two.
pub fn build(ws: &Workspace, chapters: &[&Chapter], what: Build) -> Result<(), String> {
    eprintln!("==> building experiments (release)");
    cargo_build(ws, chapters, what, true)?;
    let dev: Vec<&Chapter> = chapters
        .iter()
        .copied()
        .filter(|c| c.dev_build && what == Build::Report)
        .collect();
    if !dev.is_empty() {
        eprintln!("==> building experiments (dev profile)");
        cargo_build(ws, &dev, Build::Counted, false)?;
    }
    Ok(())
}

fn cargo_build(
    ws: &Workspace,
    chapters: &[&Chapter],
    what: Build,
    release: bool,
) -> Result<(), String> {
    let mut command = cargo();
    command.current_dir(&ws.root).args(["build", "--quiet"]);
    if release {
        command.arg("--release");
    }
    for chapter in chapters {
        command.args(["--package", &chapter.package]);
        let allocators = match what {
            Build::Report => &chapter.allocators[..],
            Build::Counted => &[Allocator::System][..],
        };
        for allocator in allocators {
            command.args(["--bin", &chapter.binary_name(*allocator)]);
        }
        for (package, bin) in &chapter.other_bins {
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

fn experiments_command(ws: &Workspace, chapter: &Chapter, allocator: Allocator) -> Command {
    let mut command = Command::new(
        ws.target
            .join("release")
            .join(chapter.binary_name(allocator)),
    );
    if chapter.dev_build {
        let dev = ws
            .target
            .join("debug")
            .join(chapter.binary_name(Allocator::System));
        command.env(lab::protocol::DEV_BINARY_VAR, dev);
    }
    command.current_dir(&ws.root).stderr(Stdio::inherit());
    command
}

/// Runs the final process of a chapter (system allocator) and reads its snapshot. Whether the
/// chapter's sources had uncommitted changes is decided here, from the chapter's own sources.
pub fn run_final(
    ws: &Workspace,
    chapter: &Chapter,
    args: &[String],
    replicas: &[PathBuf],
) -> Result<Snapshot, String> {
    let mut command = experiments_command(ws, chapter, Allocator::System);
    command.args(args);
    for replica in replicas {
        command.arg("--replicas").arg(replica);
    }
    let name = chapter.binary_name(Allocator::System);
    let output = command
        .output()
        .map_err(|err| format!("cannot run {name}: {err}"))?;
    if !output.status.success() {
        return Err(format!("{name} failed ({})", output.status));
    }
    let mut snapshot: Snapshot = serde_json::from_slice(&output.stdout)
        .map_err(|err| format!("{name} printed something that is not a snapshot: {err}"))?;
    snapshot.environment.uncommitted = !provenance::uncommitted(ws, chapter)?.is_empty();
    if !snapshot.environment.uncommitted {
        snapshot.environment.sources = provenance::fingerprint(ws, chapter, "HEAD")?;
        let fingerprints =
            provenance::experiment_fingerprints(ws, chapter, &snapshot.experiments, "HEAD")?;
        for (info, fingerprint) in snapshot.experiments.iter_mut().zip(fingerprints) {
            info.sources = fingerprint;
        }
    }
    Ok(snapshot)
}

/// Runs one replica process and returns the file it wrote.
fn run_replica(
    ws: &Workspace,
    dir: &std::path::Path,
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
    let mut command = experiments_command(ws, chapter, allocator);
    command
        .arg("--replica-out")
        .arg(&out)
        .args(["--replica", &replica.to_string()])
        .stdout(Stdio::null());
    if quick {
        command.arg("--quick");
    }
    let name = chapter.binary_name(allocator);
    let status = command
        .status()
        .map_err(|err| format!("cannot run {name}: {err}"))?;
    if status.success() {
        Ok(out)
    } else {
        Err(format!("{name} (replica {replica}) failed ({status})"))
    }
}

/// Builds the selected chapters' binaries, then measures them: `common.processes` rounds; in every round each chapter runs one
/// process per allocator, and the last round's system-allocator process is the final one,
/// which reads every replica and prints the snapshot. Spreading the rounds over the whole report
/// puts slow drift of the machine on different replicas.
pub fn measure(
    ws: &Workspace,
    chapters: &[&Chapter],
    common: &crate::Common,
) -> Result<BTreeMap<String, Snapshot>, String> {
    let (processes, quick) = (common.processes, common.quick);
    build(ws, chapters, Build::Report)?;
    let dir = ws.target.join("lab-replicas");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    let k = processes;
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
            for &allocator in &chapter.allocators {
                if round == k && allocator == Allocator::System {
                    continue;
                }
                let file = run_replica(ws, &dir, chapter, allocator, round, quick)?;
                files.entry(&chapter.name).or_default().push(file);
            }
            if round == k {
                let mut args = Vec::new();
                if quick {
                    args.push("--quick".to_owned());
                }
                let replicas = files
                    .get(chapter.name.as_str())
                    .cloned()
                    .unwrap_or_default();
                let snapshot = run_final(ws, chapter, &args, &replicas)?;
                snapshots.insert(chapter.name.clone(), snapshot);
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
