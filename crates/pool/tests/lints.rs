//! This package writes the workspace's lints out instead of inheriting them: it declares the cfg
//! its concurrency models build with (`cfg(shuttle)`), and `[lints] workspace = true` takes no
//! additions. The rest must stay the workspace's.

use std::path::Path;

/// The `key = value` lines of section `[name]` of a manifest, comments and blank lines left out.
fn section(manifest: &str, name: &str) -> Vec<(String, String)> {
    let header = format!("[{name}]");
    manifest
        .lines()
        .skip_while(|line| line.trim() != header)
        .skip(1)
        .take_while(|line| !line.trim_start().starts_with('['))
        .filter(|line| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .filter_map(|line| {
            let (key, value) = line.split_once('=')?;
            Some((key.trim().to_owned(), value.trim().to_owned()))
        })
        .collect()
}

#[test]
#[cfg_attr(miri, ignore = "reads files, which Miri's isolation forbids")]
fn this_package_lints_as_the_workspace_does() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = std::fs::read_to_string(dir.join("../../Cargo.toml")).unwrap_or_default();
    if !workspace.contains("[workspace.lints.rust]") {
        return; // built outside the workspace (from the published package): nothing to compare
    }
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("read Cargo.toml");
    let own_rust: Vec<_> = section(&manifest, "lints.rust")
        .into_iter()
        .filter(|(lint, _)| lint != "unexpected_cfgs")
        .collect();
    assert_eq!(own_rust, section(&workspace, "workspace.lints.rust"));
    assert_eq!(
        section(&manifest, "lints.clippy"),
        section(&workspace, "workspace.lints.clippy")
    );
    assert!(!own_rust.is_empty());
}
