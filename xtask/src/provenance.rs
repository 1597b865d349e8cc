//! Provenance: every committed number comes from the code it documents.
//!
//! `report` refuses to measure over uncommitted changes to the measured sources
//! ([`lab::env::SOURCE_PATHS`]); `--check` fails when those sources differ between a snapshot's
//! commit and `HEAD`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use lab::env::SOURCE_PATHS;
use lab::report::Snapshot;

use crate::REGENERATE;

fn git(root: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .current_dir(root)
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

fn changed(root: &Path, base: &[&str]) -> Result<Vec<String>, String> {
    let mut args = base.to_vec();
    args.push("--");
    args.extend(SOURCE_PATHS);
    Ok(git(root, &args)?
        .lines()
        .map(|line| line.trim().to_owned())
        .filter(|line| !line.is_empty())
        .collect())
}

/// The measured sources with uncommitted changes (`git status` lines).
pub fn uncommitted(root: &Path) -> Result<Vec<String>, String> {
    changed(root, &["status", "--porcelain"])
}

/// Refuses to measure over uncommitted changes, unless `allow_dirty`.
pub fn ensure_clean(root: &Path, allow_dirty: bool) -> Result<(), String> {
    let dirty = uncommitted(root)?;
    if dirty.is_empty() || allow_dirty {
        if !dirty.is_empty() {
            eprintln!(
                "==> measuring over uncommitted changes ({} files): every header will say so",
                dirty.len()
            );
        }
        return Ok(());
    }
    Err(format!(
        "the measured sources have uncommitted changes:\n  {}\n\nA snapshot must come from the code it documents: commit first, then run `{REGENERATE}` (or pass --allow-dirty to measure anyway; every header will then say \"uncommitted changes\").",
        dirty.join("\n  ")
    ))
}

/// Every way a committed snapshot is not the measurement of `HEAD`'s code.
pub fn check_snapshots(root: &Path, snapshots: &BTreeMap<&str, Snapshot>) -> Vec<String> {
    let mut errors = Vec::new();
    for (chapter, snapshot) in snapshots {
        let env = &snapshot.environment;
        if env.uncommitted {
            errors.push(format!(
                "docs/data/{chapter}.json was measured over uncommitted changes (commit {}): commit the code, then run `{REGENERATE}` from the clean tree",
                env.commit
            ));
            continue;
        }
        let commit = env.commit.as_str();
        if git(root, &["cat-file", "-e", &format!("{commit}^{{commit}}")]).is_err() {
            eprintln!(
                "warning: docs/data/{chapter}.json names commit {commit}, which this clone does not have (a shallow clone?): its code cannot be compared with HEAD's"
            );
            continue;
        }
        match changed(root, &["diff", "--name-only", commit, "HEAD"]) {
            Ok(files) if files.is_empty() => {}
            Ok(files) => errors.push(format!(
                "docs/data/{chapter}.json was measured at commit {commit}; since then {} measured source{} changed:\n  {}\nRun `{REGENERATE}` from a clean tree at HEAD and commit docs/.",
                files.len(),
                if files.len() == 1 { "" } else { "s" },
                shortened(&files)
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
    use super::shortened;

    #[test]
    fn a_long_list_of_changed_files_is_cut_after_ten() {
        let files: Vec<String> = (0..12).map(|n| format!("f{n}")).collect();
        let text = shortened(&files);
        assert!(text.ends_with("f9\n  … and 2 more"), "{text}");
        assert_eq!(shortened(&files[..2]), "f0\n  f1");
    }
}
