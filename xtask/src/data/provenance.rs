//! Provenance: every committed number comes from the code it documents.
//!
//! Each chapter's snapshot covers what its binaries compile from ([`Chapter::sources`]).
//! `report` refuses to measure a chapter over uncommitted changes to its sources; `--check`
//! fails when a chapter's sources differ between its snapshot's commit and `HEAD`, and names the
//! command that regenerates that chapter alone. A change to one chapter's package leaves the
//! other chapters' snapshots valid.

use std::collections::BTreeMap;
use std::process::Command;

use lab::report::Snapshot;

use crate::data::workspace::{Chapter, Workspace};

fn git(ws: &Workspace, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .current_dir(&ws.root)
        .args(args)
        .output()
        .map_err(|err| format!("cannot run git: {err}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(format!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// The files of `git <args>` (one path a line) that the chapter compiles from.
fn changed(ws: &Workspace, chapter: &Chapter, args: &[&str]) -> Result<Vec<String>, String> {
    Ok(git(ws, args)?
        .lines()
        .map(str::trim)
        .filter(|path| !path.is_empty() && chapter.compiles_from(path))
        .map(str::to_owned)
        .collect())
}

/// The files the chapter's binaries compile from at `rev`, with their blob hashes.
fn tree(ws: &Workspace, chapter: &Chapter, rev: &str) -> Result<Vec<(String, String)>, String> {
    let tree = git(ws, &["ls-tree", "-r", rev])?;
    let mut files = Vec::new();
    for line in tree.lines() {
        // `<mode> <type> <hash>\t<path>`
        let Some((meta, path)) = line.split_once('\t') else {
            continue;
        };
        if chapter.compiles_from(path) {
            let hash = meta.rsplit(' ').next().unwrap_or_default();
            files.push((path.to_owned(), hash.to_owned()));
        }
    }
    Ok(files)
}

/// A fingerprint of what the chapter's binaries compile from at `rev`: git's hash of the list of
/// those files with their blob hashes (12 hex digits). Equal fingerprints, equal code.
pub fn fingerprint(ws: &Workspace, chapter: &Chapter, rev: &str) -> Result<String, String> {
    hash_of(ws, &tree(ws, chapter, rev)?)
}

/// Per experiment of a snapshot, the fingerprint of what it compiles from at `rev`: the
/// chapter's files without the modules of `src/experiments/` that the experiment's own module
/// does not reach (through `super::` paths, from its module, `mod.rs` and the experiments it
/// reads). An experiment whose module cannot be found gets the chapter's fingerprint.
pub fn experiment_fingerprints(
    ws: &Workspace,
    chapter: &Chapter,
    experiments: &[lab::report::ExperimentInfo],
    rev: &str,
) -> Result<Vec<String>, String> {
    let files = tree(ws, chapter, rev)?;
    let dir = files
        .iter()
        .find_map(|(path, _)| {
            path.find("/src/experiments/")
                .map(|i| path[..i + "/src/experiments/".len()].to_owned())
        })
        .unwrap_or_default();
    let module_file = |module: &str| -> Option<String> {
        [format!("{dir}{module}.rs"), format!("{dir}{module}/mod.rs")]
            .into_iter()
            .find(|p| files.iter().any(|(f, _)| f == p))
    };
    let text_of = |path: &str| git(ws, &["show", &format!("{rev}:{path}")]).unwrap_or_default();
    let mut out = Vec::new();
    for experiment in experiments {
        let own = experiment
            .code
            .split("::experiments::")
            .nth(1)
            .and_then(|rest| rest.split("::").next())
            .and_then(&module_file);
        let Some(own) = own.filter(|_| !dir.is_empty()) else {
            out.push(hash_of(ws, &files)?);
            continue;
        };
        let mut reached: Vec<String> = vec![format!("{dir}mod.rs"), own];
        for need in &experiment.needs {
            if let Some(file) = experiments
                .iter()
                .find(|e| &e.id == need)
                .and_then(|e| e.code.split("::experiments::").nth(1))
                .and_then(|rest| rest.split("::").next())
                .and_then(&module_file)
            {
                reached.push(file);
            }
        }
        let mut i = 0;
        while i < reached.len() {
            for module in super_modules(&text_of(&reached[i])) {
                if let Some(file) = module_file(&module)
                    && !reached.contains(&file)
                {
                    reached.push(file);
                }
            }
            i += 1;
        }
        let kept: Vec<(String, String)> = files
            .iter()
            .filter(|(path, _)| !path.starts_with(&dir) || reached.contains(path))
            .cloned()
            .collect();
        out.push(hash_of(ws, &kept)?);
    }
    Ok(out)
}

/// The sibling modules a module's source names through `super::` (`super::by_size::f`,
/// `use super::{hit, threads::T}`) or `crate::experiments::`.
fn super_modules(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for marker in ["super::", "crate::experiments::"] {
        let mut rest = text;
        while let Some(i) = rest.find(marker) {
            rest = &rest[i + marker.len()..];
            if let Some(list) = rest.strip_prefix('{') {
                let end = list.find('}').unwrap_or(list.len());
                for item in list[..end].split(',') {
                    found.push(ident(item));
                }
            } else {
                found.push(ident(rest));
            }
        }
    }
    found.retain(|m| !m.is_empty() && m != "self");
    found.sort();
    found.dedup();
    found
}

/// Git's hash of a list of files with their blob hashes (12 hex digits).
fn hash_of(ws: &Workspace, files: &[(String, String)]) -> Result<String, String> {
    let mut list = String::new();
    for (path, hash) in files {
        list.push_str(&format!("{hash} {path}\n"));
    }
    let mut child = Command::new("git")
        .current_dir(&ws.root)
        .args(["hash-object", "--stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|err| format!("cannot run git: {err}"))?;
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().ok_or("git hash-object: no stdin")?;
        stdin
            .write_all(list.as_bytes())
            .map_err(|err| format!("git hash-object: {err}"))?;
    }
    let output = child
        .wait_with_output()
        .map_err(|err| format!("git hash-object: {err}"))?;
    let hash = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if !output.status.success() || hash.len() < 12 {
        return Err("`git hash-object --stdin` failed".to_owned());
    }
    Ok(hash[..12].to_owned())
}

/// The chapter's sources with uncommitted changes: modified, staged or untracked.
pub fn uncommitted(ws: &Workspace, chapter: &Chapter) -> Result<Vec<String>, String> {
    let mut files = changed(ws, chapter, &["diff", "--name-only", "HEAD"])?;
    files.extend(changed(
        ws,
        chapter,
        &["ls-files", "--others", "--exclude-standard"],
    )?);
    Ok(files)
}

/// Refuses to measure the chapters over uncommitted changes to their sources, unless
/// `allow_dirty`.
pub fn ensure_clean(
    ws: &Workspace,
    chapters: &[&Chapter],
    allow_dirty: bool,
) -> Result<(), String> {
    let mut dirty = Vec::new();
    for chapter in chapters {
        for line in uncommitted(ws, chapter)? {
            if !dirty.contains(&line) {
                dirty.push(line);
            }
        }
    }
    if dirty.is_empty() || allow_dirty {
        if !dirty.is_empty() {
            eprintln!(
                "==> measuring over uncommitted changes ({} files): those chapters' headers will say so",
                dirty.len()
            );
        }
        return Ok(());
    }
    Err(format!(
        "the measured sources have uncommitted changes:\n  {}\n\nA snapshot must come from the code it documents: commit first, then run `{}` (or pass --allow-dirty to measure anyway; the header will then say \"uncommitted changes\").",
        dirty.join("\n  "),
        crate::REGENERATE
    ))
}

/// Every way a committed snapshot is not the measurement of `HEAD`'s code, chapter by chapter.
pub fn check_snapshots(ws: &Workspace, snapshots: &BTreeMap<String, Snapshot>) -> Vec<String> {
    let mut errors = Vec::new();
    for chapter in &ws.chapters {
        let Some(snapshot) = snapshots.get(&chapter.name) else {
            continue;
        };
        let data = ws.rel(&ws.data_path(chapter));
        let env = &snapshot.environment;
        if env.uncommitted {
            errors.push(format!(
                "{}: {data} was measured over uncommitted changes (commit {}): commit the code, then run `{}` from the clean tree",
                chapter.name,
                env.commit,
                chapter.regenerate()
            ));
            continue;
        }
        let commit = env.commit.as_str();
        if git(ws, &["cat-file", "-e", &format!("{commit}^{{commit}}")]).is_err() {
            eprintln!(
                "warning: {data} names commit {commit}, which this clone does not have (a shallow clone?): its code cannot be compared with HEAD's"
            );
            continue;
        }
        match changed(ws, chapter, &["diff", "--name-only", commit, "HEAD"]) {
            Ok(files) if files.is_empty() => {}
            Ok(files) => errors.push(format!(
                "{}: {data} was measured at commit {commit}; since then {} file{} that its binaries compile from changed:\n  {}\nRun `{}` from a clean tree at HEAD and commit docs/.",
                chapter.name,
                files.len(),
                if files.len() == 1 { "" } else { "s" },
                shortened(&files),
                chapter.regenerate()
            )),
            Err(err) => errors.push(err),
        }
    }
    errors
}

/// A list of files for an error message, cut after the first ten.
fn shortened(files: &[String]) -> String {
    const SHOWN: usize = 10;
    let mut list = files[..files.len().min(SHOWN)].join("\n  ");
    if files.len() > SHOWN {
        list.push_str(&format!("\n  … and {} more", files.len() - SHOWN));
    }
    list
}

#[cfg(test)]
mod tests {
    use super::{shortened, super_modules};

    /// M9: an experiment's fingerprint leaves out the experiment modules it does not reach, so a
    /// change to one experiment leaves the records of the others valid.
    #[test]
    fn experiments_of_one_module_share_a_fingerprint_and_others_differ() {
        let ws = crate::data::workspace::Workspace::load().unwrap();
        let chapter = ws.chapters.iter().find(|c| c.name == "pool").unwrap();
        let snapshot = crate::data::snapshots::load(&ws, chapter).unwrap();
        let prints =
            super::experiment_fingerprints(&ws, chapter, &snapshot.experiments, "HEAD").unwrap();
        let of = |id: &str| {
            let i = snapshot
                .experiments
                .iter()
                .position(|e| e.id == id)
                .unwrap();
            prints[i].clone()
        };
        assert_eq!(of("P9-time"), of("P10-hit"), "both in hit.rs");
        assert_ne!(of("P10"), of("P12"), "by_size.rs and threads.rs");
        let whole = super::fingerprint(&ws, chapter, "HEAD").unwrap();
        assert_ne!(of("P10"), whole, "other experiments' modules are left out");
    }

    #[test]
    fn an_experiment_reaches_the_modules_it_names_through_super() {
        let text = "use super::{hit, threads::Thread};\nuse super::by_size::plot;\nlet x = crate::experiments::verdicts::f();\nuse super::*;";
        assert_eq!(
            super_modules(text),
            ["by_size", "hit", "threads", "verdicts"]
        );
    }

    #[test]
    fn a_long_list_of_changed_files_is_cut_after_ten() {
        let files: Vec<String> = (0..12).map(|n| format!("f{n}")).collect();
        let text = shortened(&files);
        assert!(text.ends_with("f9\n  … and 2 more"), "{text}");
        assert_eq!(shortened(&files[..2]), "f0\n  f1");
    }
}
