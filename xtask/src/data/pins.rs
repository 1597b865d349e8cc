//! The tests that pin an experiment's claims must exist and name the experiment.
//!
//! An experiment declares its pins as `path/to/file.rs::test_name` (a `#[test]` function, or a
//! `#[test]` inside `proptest!`) or as a file of doctests (`crates/pool/src/contract.rs`, whose
//! `compile_fail` examples are the pins). A pin is valid when the file exists, the test is there,
//! and the experiment's ID appears in the test's name or in the comments right above it (for a
//! doctest file: anywhere in the file).

use std::collections::BTreeMap;
use std::path::Path;

use lab::report::Snapshot;

use crate::data::records::M9_PINS;

/// Every invalid pin of every snapshot (and of M9), one error each.
pub fn check(root: &Path, snapshots: &BTreeMap<String, Snapshot>) -> Vec<String> {
    let mut errors = Vec::new();
    for pin in M9_PINS {
        if let Err(err) = check_pin(root, "M9", pin) {
            errors.push(format!("M9 (rendered by xtask): pinned by `{pin}`: {err}"));
        }
    }
    for snapshot in snapshots.values() {
        for experiment in &snapshot.experiments {
            for pin in &experiment.pinned_by {
                if let Err(err) = check_pin(root, &experiment.id, pin) {
                    errors.push(format!(
                        "{} (declared in {}): pinned by `{pin}`: {err}",
                        experiment.id, experiment.code
                    ));
                }
            }
        }
    }
    errors
}

/// The ways an ID can be written in a test name: `P10-hit` → `p10_hit`, and its stem `p10`.
fn id_forms(id: &str) -> Vec<String> {
    let lower = id.to_ascii_lowercase().replace('-', "_");
    let stem: String = lower
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    vec![lower, stem]
}

fn names_id(text: &str, id: &str) -> bool {
    let stem = id.split('-').next().unwrap_or(id);
    text.split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
        .any(|word| word == id || word == stem)
}

/// Checks one pin against the source tree.
pub fn check_pin(root: &Path, id: &str, pin: &str) -> Result<(), String> {
    let (file, test) = match pin.split_once("::") {
        Some((file, test)) => (file, Some(test)),
        None => (pin, None),
    };
    let text = std::fs::read_to_string(root.join(file))
        .map_err(|err| format!("cannot read {file}: {err}"))?;
    find_pin(&text, id, test).map_err(|err| format!("{file}: {err}"))
}

/// Checks a pin against the text of its file.
fn find_pin(text: &str, id: &str, test: Option<&str>) -> Result<(), String> {
    let Some(test) = test else {
        if !text.contains("```compile_fail") {
            return Err("a file pin must hold `compile_fail` doctests".to_owned());
        }
        if !names_id(text, id) {
            return Err(format!("the file never names {id}"));
        }
        return Ok(());
    };
    let lines: Vec<&str> = text.lines().collect();
    let declaration = format!("fn {test}(");
    let at = lines
        .iter()
        .position(|line| line.trim_start().starts_with(&declaration))
        .ok_or_else(|| format!("no function `{test}`"))?;
    // The attributes and comments directly above the function, an attribute that rustfmt
    // spread over several lines joined into one.
    let mut above: Vec<String> = Vec::new();
    let mut idx = at;
    while idx > 0 {
        let line = lines[idx - 1].trim();
        if line.starts_with("#[") || line.starts_with("//") {
            above.push(line.to_owned());
            idx -= 1;
            continue;
        }
        let start = (0..idx - 1)
            .rev()
            .find(|&i| lines[i].trim().starts_with("#["));
        match start {
            Some(start) if line.ends_with(']') => {
                let joined: Vec<&str> = lines[start..idx].iter().map(|l| l.trim()).collect();
                above.push(joined.join(" "));
                idx = start;
            }
            _ => break,
        }
    }
    if !above.iter().any(|line| line.starts_with("#[test]")) {
        return Err(format!("`{test}` is not a #[test]"));
    }
    if above.iter().any(|line| line.starts_with("#[ignore")) {
        return Err(format!("`{test}` is ignored: it pins nothing"));
    }
    let in_name = id_forms(id).iter().any(|form| {
        test.split('_')
            .collect::<Vec<_>>()
            .windows(form.split('_').count())
            .any(|w| w.join("_") == *form)
    });
    if !in_name && !above.iter().any(|line| names_id(line, id)) {
        return Err(format!(
            "`{test}` does not name {id} (in its name or in a comment right above it)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "
/// P7: the limit is 1 + max_per_bucket.
#[test]
fn twenty_rounds_cost_nothing_up_to_the_limit() {}

#[test]
fn p10_hit_allocates_nothing() {}

#[test]
fn unrelated() {}

/// P8: never runs.
#[ignore]
#[test]
fn p8_ignored() {}

fn p3_helper() {}

/// M1: read from the snapshot.
#[test]
#[cfg_attr(
    miri,
    ignore = \"reads a file\"
)]
fn m1_published_row() {}

#[ignore =
    \"spread by rustfmt\"]
#[test]
fn m2_spread_ignore() {}
";

    /// rustfmt spreads a long attribute over lines: the pin is still a test, and an `#[ignore]`
    /// spread over lines still ignores it.
    #[test]
    fn an_attribute_over_several_lines_is_read_whole() {
        assert_eq!(find_pin(SOURCE, "M1", Some("m1_published_row")), Ok(()));
        let err = find_pin(SOURCE, "M2", Some("m2_spread_ignore")).unwrap_err();
        assert!(err.contains("is ignored"), "{err}");
    }

    #[test]
    fn a_pin_names_its_id_in_the_comment_or_the_name() {
        assert_eq!(
            find_pin(
                SOURCE,
                "P7",
                Some("twenty_rounds_cost_nothing_up_to_the_limit")
            ),
            Ok(())
        );
        assert_eq!(
            find_pin(SOURCE, "P10-hit", Some("p10_hit_allocates_nothing")),
            Ok(())
        );
        assert_eq!(
            find_pin(SOURCE, "P10", Some("p10_hit_allocates_nothing")),
            Ok(())
        );
    }

    #[test]
    fn a_missing_or_anonymous_pin_is_an_error() {
        assert!(
            find_pin(SOURCE, "P7", Some("gone"))
                .unwrap_err()
                .contains("no function")
        );
        assert!(
            find_pin(SOURCE, "P7", Some("unrelated"))
                .unwrap_err()
                .contains("does not name P7")
        );
        assert!(
            find_pin(SOURCE, "P3", Some("p3_helper"))
                .unwrap_err()
                .contains("not a #[test]")
        );
        // P1 is not P10.
        assert!(find_pin(SOURCE, "P1", Some("p10_hit_allocates_nothing")).is_err());
        assert!(
            find_pin(SOURCE, "P8", Some("p8_ignored"))
                .unwrap_err()
                .contains("ignored")
        );
    }

    #[test]
    fn a_file_pin_needs_compile_fail_doctests_naming_the_id() {
        let doctests = "//! P5: the contract.\n//! ```compile_fail,E0382\n//! ```\n";
        assert_eq!(find_pin(doctests, "P5", None), Ok(()));
        assert!(find_pin(doctests, "A8", None).is_err());
        assert!(find_pin("//! P5\n", "P5", None).is_err());
    }
}
