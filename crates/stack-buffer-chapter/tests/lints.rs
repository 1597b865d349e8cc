//! S13: what clippy catches about stack size, with this workspace's configuration — the
//! counterpart of the seed's analyzer rule CA2014.
//!
//! The configuration is read from the root `Cargo.toml` (`[workspace.lints.clippy]`) and
//! `clippy.toml`; the fixture `tests/fixtures/stack_lints.rs` is linted as a crate of its own
//! with exactly that configuration, so what it shows is what the workspace enforces.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use stack_buffer_chapter::lints::{
    CLIPPY_TOML, FIXTURE_CASES, STACK_LINTS, WORKSPACE_MANIFEST, clippy_levels, level, section,
    thresholds,
};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// S13: the three lints are on, at the thresholds the chapter states, and the copies compiled
/// into the crate (which the S13 table reads) are the files on disk.
#[test]
#[cfg_attr(miri, ignore = "reads files, which Miri's isolation forbids")]
fn s13_the_workspace_turns_on_the_stack_size_lints_with_stated_thresholds() {
    for lint in STACK_LINTS {
        assert_eq!(level(lint.lint).as_deref(), Some("warn"), "{}", lint.lint);
    }
    let expected = [
        ("array-size-threshold", "16384"),
        ("stack-size-threshold", "65536"),
        ("future-size-threshold", "4096"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    assert_eq!(thresholds(), expected);
    assert_eq!(read(&workspace_root().join("clippy.toml")), CLIPPY_TOML);
    assert_eq!(
        read(&workspace_root().join("Cargo.toml")),
        WORKSPACE_MANIFEST
    );
}

/// This package writes the workspace's lints out instead of inheriting them (it declares a cfg
/// of its own, and `[lints] workspace = true` takes no additions): they must stay the same.
#[test]
#[cfg_attr(miri, ignore = "reads files, which Miri's isolation forbids")]
fn this_package_lints_as_the_workspace_does() {
    let manifest = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"));
    assert_eq!(section(&manifest, "lints.clippy"), clippy_levels());
    let own: Vec<(String, String)> = section(&manifest, "lints.rust")
        .into_iter()
        .filter(|(lint, _)| lint != "unexpected_cfgs")
        .collect();
    assert_eq!(own, section(WORKSPACE_MANIFEST, "workspace.lints.rust"));
}

/// The name of the function whose body holds `line` (1-based) of `source`.
fn function_at(source: &str, line: usize) -> String {
    source
        .lines()
        .take(line)
        .filter_map(|l| {
            let rest = l
                .trim_start()
                .strip_prefix("pub ")
                .unwrap_or(l.trim_start());
            let rest = rest.strip_prefix("async ").unwrap_or(rest);
            rest.strip_prefix("fn ")?
                .split(['(', '<'])
                .next()
                .map(str::to_owned)
        })
        .last()
        .unwrap_or_default()
}

/// Lints the fixture with the workspace's configuration; returns `(lint, function)` for every
/// warning.
fn lint_the_fixture() -> BTreeSet<(String, String)> {
    let root = workspace_root();
    let source = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/stack_lints.rs"));
    let krate = Path::new(env!("CARGO_TARGET_TMPDIR")).join("stack-lints");
    std::fs::create_dir_all(krate.join("src")).expect("create the fixture crate");
    let lints: String = clippy_levels()
        .iter()
        .map(|(k, v)| format!("{k} = {v}\n"))
        .collect();
    let manifest = format!(
        "[package]\nname = \"stack_lints\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[workspace]\n\n[lints.clippy]\n{lints}"
    );
    std::fs::write(krate.join("Cargo.toml"), manifest).expect("write the manifest");
    std::fs::write(krate.join("src/lib.rs"), &source).expect("write the source");
    let output = Command::new("cargo")
        .args(["clippy", "--offline", "--quiet", "--message-format=json"])
        .current_dir(&krate)
        .env("CLIPPY_CONF_DIR", &root)
        .env("CARGO_TARGET_DIR", krate.join("target"))
        .output()
        .expect("cargo clippy runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut caught = BTreeSet::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let message: serde_json::Value = serde_json::from_str(line).expect("one JSON message");
        let Some(code) = message["message"]["code"]["code"].as_str() else {
            continue;
        };
        let spans = message["message"]["spans"].as_array().expect("spans");
        let primary = spans
            .iter()
            .find(|s| s["is_primary"] == true)
            .expect("a primary span");
        let line = primary["line_start"].as_u64().expect("a line") as usize;
        caught.insert((code.to_owned(), function_at(&source, line)));
    }
    caught
}

/// S13: `large_stack_arrays` flags a 32 KiB array (also inside `Box::new`), `large_stack_frames`
/// five 15 KiB arrays in one function, `large_futures` awaiting a future that holds 8 KiB; each
/// twin below the threshold passes, and neither a loop nor a recursion is flagged — exactly the
/// list `stack_buffer_chapter::lints::FIXTURE_CASES` states (the S13-lints table shows it). The
/// fixture's functions are those of that list, in its order.
#[test]
#[cfg_attr(miri, ignore = "runs cargo clippy")]
fn s13_clippy_flags_large_arrays_frames_and_futures_and_not_their_twins() {
    let expected: BTreeSet<(String, String)> = FIXTURE_CASES
        .iter()
        .filter_map(|case| {
            let lint = case.flagged_by?;
            Some((format!("clippy::{lint}"), case.function.to_owned()))
        })
        .collect();
    assert_eq!(lint_the_fixture(), expected);
    let source = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/stack_lints.rs"));
    let functions: Vec<String> = source
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("pub "))
        .map(|(i, _)| function_at(&source, i + 1))
        .collect();
    let listed: Vec<&str> = FIXTURE_CASES.iter().map(|c| c.function).collect();
    assert_eq!(functions, listed);
}
