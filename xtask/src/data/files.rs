//! Writing a generated file, or checking that it is what it would be.

use std::fmt::Write as _;
use std::path::Path;

use crate::Mode;

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
