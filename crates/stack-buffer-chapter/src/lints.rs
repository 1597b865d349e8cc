//! The workspace's stack-size lints (S13): clippy's counterpart of the seed's analyzer rule
//! CA2014, as this workspace configures them, and what they flag in the fixture
//! `tests/fixtures/stack_lints.rs`.
//!
//! The configuration is the root `Cargo.toml`'s `[workspace.lints.clippy]` (which lints are on)
//! and the root `clippy.toml` (their thresholds), both compiled into this crate so a table can
//! show exactly what the build saw. [`FIXTURE_CASES`] states which lint flags each function
//! of the fixture; the test `s13_clippy_flags_large_arrays_frames_and_futures_and_not_their_twins`
//! runs `cargo clippy` on the fixture with that configuration and checks the list.
//!
//! ```
//! use stack_buffer_chapter::lints::{STACK_LINTS, threshold_bytes};
//! let arrays = &STACK_LINTS[0];
//! assert_eq!(arrays.lint, "large_stack_arrays");
//! assert_eq!(threshold_bytes(arrays.threshold_key), Some(16 * 1024));
//! ```

/// The root `clippy.toml`, as this crate was built with it.
pub const CLIPPY_TOML: &str = include_str!("../../../clippy.toml");
/// The root `Cargo.toml`, as this crate was built with it.
pub const WORKSPACE_MANIFEST: &str = include_str!("../../../Cargo.toml");

/// The `key = value` lines of one `[section]` of a TOML text, comments and blank lines left
/// out, keys and values trimmed (values keep their quotes). A text without sections is read
/// with `name` = `""`.
///
/// ```
/// let text = "top = 1\n[a]\n# note\nx = \"warn\"\n\n[b]\ny = 2\n";
/// assert_eq!(stack_buffer_chapter::lints::section(text, "a"), [("x".to_owned(), "\"warn\"".to_owned())]);
/// assert_eq!(stack_buffer_chapter::lints::section(text, ""), [("top".to_owned(), "1".to_owned())]);
/// ```
pub fn section(text: &str, name: &str) -> Vec<(String, String)> {
    let header = format!("[{name}]");
    let mut lines = text.lines();
    if !name.is_empty() {
        lines.by_ref().find(|l| l.trim() == header);
    }
    lines
        .take_while(|l| !l.trim_start().starts_with('['))
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect()
}

/// The workspace's `[workspace.lints.clippy]`: `(lint, level)`, the level with its quotes.
pub fn clippy_levels() -> Vec<(String, String)> {
    section(WORKSPACE_MANIFEST, "workspace.lints.clippy")
}

/// The level the workspace sets for `lint` (`warn`, `deny`…), without quotes; `None` if it
/// does not set one (the lint keeps clippy's default, and these three are off by default).
pub fn level(lint: &str) -> Option<String> {
    clippy_levels()
        .into_iter()
        .find(|(name, _)| name == lint)
        .map(|(_, level)| level.trim_matches('"').to_owned())
}

/// The settings of `clippy.toml`: `(key, value)`.
pub fn thresholds() -> Vec<(String, String)> {
    section(CLIPPY_TOML, "")
}

/// The value of one `clippy.toml` threshold, in bytes.
pub fn threshold_bytes(key: &str) -> Option<u64> {
    thresholds()
        .into_iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, v)| v.parse().ok())
}

/// One of clippy's stack-size lints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackLint {
    /// The lint's name.
    pub lint: &'static str,
    /// The `clippy.toml` key of its threshold.
    pub threshold_key: &'static str,
    /// What it measures against the threshold.
    pub measures: &'static str,
}

/// The three stack-size lints the workspace turns on.
pub const STACK_LINTS: [StackLint; 3] = [
    StackLint {
        lint: "large_stack_arrays",
        threshold_key: "array-size-threshold",
        measures: "one array expression (also the argument of `Box::new`)",
    },
    StackLint {
        lint: "large_stack_frames",
        threshold_key: "stack-size-threshold",
        measures: "a function's locals, temporaries, arguments and return value together",
    },
    StackLint {
        lint: "large_futures",
        threshold_key: "future-size-threshold",
        measures: "a future, where it is awaited",
    },
];

/// The clippy that `cargo clippy` runs here (`clippy 0.1.95 (…)`), `None` if it cannot be run.
pub fn clippy_version() -> Option<String> {
    let out = std::process::Command::new("cargo")
        .args(["clippy", "--version"])
        .output()
        .ok()
        .filter(|out| out.status.success())?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (!version.is_empty()).then_some(version)
}

/// One function of the fixture `tests/fixtures/stack_lints.rs` and what flags it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixtureCase {
    /// The function's name in the fixture.
    pub function: &'static str,
    /// What it does, as a table shows it.
    pub does: &'static str,
    /// The lint that flags it, or `None`.
    pub flagged_by: Option<&'static str>,
}

/// Every function of the fixture, in its order, with the lint that flags it.
pub const FIXTURE_CASES: [FixtureCase; 13] = [
    FixtureCase {
        function: "array_of_32_kib",
        does: "one 32 KiB array",
        flagged_by: Some("large_stack_arrays"),
    },
    FixtureCase {
        function: "array_of_16_kib",
        does: "one 16 KiB array (the threshold itself)",
        flagged_by: None,
    },
    FixtureCase {
        function: "five_arrays_of_15_kib",
        does: "five 15 KiB arrays in one function (75 KiB)",
        flagged_by: Some("large_stack_frames"),
    },
    FixtureCase {
        function: "four_arrays_of_15_kib",
        does: "four 15 KiB arrays in one function (60 KiB)",
        flagged_by: None,
    },
    FixtureCase {
        function: "boxed_array_of_32_kib",
        does: "`Box::new([0u8; 32 * 1024])`",
        flagged_by: Some("large_stack_arrays"),
    },
    FixtureCase {
        function: "boxed_slice_of_32_kib",
        does: "`vec![0u8; 32 * 1024].into_boxed_slice()`",
        flagged_by: None,
    },
    FixtureCase {
        function: "array_in_a_loop",
        does: "an 8 KiB array in a loop body (one slot, reused: S9)",
        flagged_by: None,
    },
    FixtureCase {
        function: "recursion",
        does: "an 8 KiB array in a function that calls itself (can overflow)",
        flagged_by: None,
    },
    FixtureCase {
        function: "holds_8_kib_across_await",
        does: "an `async fn` holding an 8 KiB array across `.await`",
        flagged_by: None,
    },
    FixtureCase {
        function: "awaits_the_large_future",
        does: "awaiting that 8 KiB future",
        flagged_by: Some("large_futures"),
    },
    FixtureCase {
        function: "awaits_it_boxed",
        does: "awaiting it behind `Box::pin`",
        flagged_by: None,
    },
    FixtureCase {
        function: "array_of",
        does: "an array sized by a const generic parameter",
        flagged_by: None,
    },
    FixtureCase {
        function: "generic_array_of_32_kib",
        does: "the call that picks 32 KiB for it",
        flagged_by: None,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stack_lint_has_a_level_and_a_threshold_in_bytes() {
        for lint in STACK_LINTS {
            assert_eq!(level(lint.lint).as_deref(), Some("warn"), "{}", lint.lint);
            assert!(threshold_bytes(lint.threshold_key).is_some(), "{lint:?}");
        }
        assert_eq!(level("no_such_lint"), None);
        assert_eq!(threshold_bytes("no-such-threshold"), None);
    }

    #[test]
    fn a_missing_section_is_empty() {
        assert!(section("a = 1\n", "b").is_empty());
    }
}
