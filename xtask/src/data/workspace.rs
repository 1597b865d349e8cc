//! The workspace as xtask sees it: its root, its target directory, and its chapters.
//!
//! A chapter is declared once, in its package's `Cargo.toml`:
//!
//! ```toml
//! [package.metadata.chapter]
//! name = "pool"                  # docs/data/pool.json, `--only pool`
//! doc = "03-pool.md"             # its file under docs/
//! allocators = ["system", "mimalloc"]
//! dev-build = false              # whether its experiments also need the dev-profile binary
//! other-bins = [{ package = "receipt", bin = "receipt" }]   # run by its experiments
//! ```
//!
//! xtask reads every declaration from `cargo metadata`, orders the chapters by their doc's file
//! name, and derives what each chapter's binaries compile from (its package and the workspace
//! packages it depends on), which is what its snapshot's provenance covers.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use lab::protocol::Allocator;
use serde::Deserialize;

/// The files every chapter's binaries compile from besides packages: the lockfile, the
/// toolchain, cargo's settings, the workspace manifest, and the part of xtask that builds and
/// runs the experiments.
pub const SHARED_SOURCES: &[&str] = &[
    ".cargo",
    "Cargo.toml",
    "Cargo.lock",
    "rust-toolchain.toml",
    "xtask/src/work",
];

/// A package with experiments binaries, and the doc its tables go into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chapter {
    /// Its key: binaries `<name>-experiments[-<allocator>]`, data `docs/data/<name>.json`.
    pub name: String,
    /// The package that holds its experiments binaries.
    pub package: String,
    /// The chapter's file under `docs/`.
    pub doc: String,
    /// Whether its experiments also need the dev-profile build of their binary.
    pub dev_build: bool,
    /// Other binaries its experiments run as child processes, as `(package, binary)`.
    pub other_bins: Vec<(String, String)>,
    /// The allocators it is measured under (the system allocator first).
    pub allocators: Vec<Allocator>,
    /// What its binaries compile from, relative to the root: package directories, then
    /// [`SHARED_SOURCES`].
    pub sources: Vec<String>,
}

impl Chapter {
    /// The experiments binary for `allocator`.
    pub fn binary_name(&self, allocator: Allocator) -> String {
        format!("{}-experiments{}", self.name, allocator.binary_suffix())
    }

    /// Whether a change to `path` (relative to the root) can change what this chapter measures.
    pub fn compiles_from(&self, path: &str) -> bool {
        self.sources.iter().any(|source| {
            path == source
                || path.strip_prefix(source.as_str()).is_some_and(|rest| {
                    // A package's tests and benches are not compiled into its binaries.
                    rest.starts_with('/')
                        && !rest.starts_with("/tests/")
                        && !rest.starts_with("/benches/")
                })
        })
    }

    /// The command that regenerates this chapter alone.
    pub fn regenerate(&self) -> String {
        format!("{} --only {}", crate::REGENERATE, self.name)
    }
}

/// The workspace: where it is, and its chapters in course order.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub root: PathBuf,
    pub target: PathBuf,
    pub chapters: Vec<Chapter>,
}

impl Workspace {
    /// Reads the workspace through `cargo metadata`.
    pub fn load() -> Result<Self, String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("xtask lives in the workspace root")
            .to_owned();
        let output = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .current_dir(&root)
            .args(["metadata", "--format-version", "1", "--no-deps"])
            .output()
            .map_err(|err| format!("cannot run cargo metadata: {err}"))?;
        if !output.status.success() {
            return Err(format!(
                "cargo metadata failed: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        let metadata: Metadata = serde_json::from_slice(&output.stdout)
            .map_err(|err| format!("cargo metadata printed something unexpected: {err}"))?;
        Self::from_metadata(root, metadata)
    }

    fn from_metadata(root: PathBuf, metadata: Metadata) -> Result<Self, String> {
        let dir_of = |package: &Package| -> String {
            let dir = Path::new(&package.manifest_path)
                .parent()
                .unwrap_or(Path::new(""));
            rel(&root, dir)
        };
        let dirs: BTreeMap<&str, String> = metadata
            .packages
            .iter()
            .map(|p| (p.name.as_str(), dir_of(p)))
            .collect();
        let by_dir: BTreeMap<String, &Package> =
            metadata.packages.iter().map(|p| (dir_of(p), p)).collect();
        let mut chapters = Vec::new();
        for package in &metadata.packages {
            let Some(declared) = package.metadata.as_ref().and_then(|m| m.chapter.as_ref()) else {
                continue;
            };
            let where_ = format!("{}'s [package.metadata.chapter]", package.manifest_path);
            let allocators = declared
                .allocators
                .iter()
                .map(|name| {
                    Allocator::parse(name).ok_or_else(|| {
                        format!("{where_}: unknown allocator `{name}` (known: system, mimalloc)")
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            if allocators.first() != Some(&Allocator::System) {
                return Err(format!(
                    "{where_}: `allocators` must list \"system\" first (its process is the final one)"
                ));
            }
            let mut packages = vec![package.name.as_str()];
            for bin in &declared.other_bins {
                if !dirs.contains_key(bin.package.as_str()) {
                    return Err(format!(
                        "{where_}: `other-bins` names package `{}`, which is not in the workspace",
                        bin.package
                    ));
                }
                packages.push(bin.package.as_str());
            }
            let mut closure = BTreeSet::new();
            let mut todo: Vec<String> = packages.iter().map(|p| dirs[p].clone()).collect();
            while let Some(dir) = todo.pop() {
                if !closure.insert(dir.clone()) {
                    continue;
                }
                let Some(package) = by_dir.get(&dir) else {
                    continue;
                };
                for dependency in &package.dependencies {
                    // Dev-dependencies build tests, not the experiments binaries.
                    if dependency.kind.as_deref() == Some("dev") {
                        continue;
                    }
                    if let Some(path) = &dependency.path {
                        todo.push(rel(&root, Path::new(path)));
                    }
                }
            }
            let mut sources: Vec<String> = closure.into_iter().collect();
            sources.extend(SHARED_SOURCES.iter().map(|s| (*s).to_owned()));
            chapters.push(Chapter {
                name: declared.name.clone(),
                package: package.name.clone(),
                doc: declared.doc.clone(),
                dev_build: declared.dev_build,
                other_bins: declared
                    .other_bins
                    .iter()
                    .map(|b| (b.package.clone(), b.bin.clone()))
                    .collect(),
                allocators,
                sources,
            });
        }
        chapters.sort_by(|a, b| a.doc.cmp(&b.doc));
        for pair in chapters.windows(2) {
            if pair[0].name == pair[1].name || pair[0].doc == pair[1].doc {
                return Err(format!(
                    "two chapters declare the same name or doc: {} ({}) and {} ({})",
                    pair[0].name, pair[0].package, pair[1].name, pair[1].package
                ));
            }
        }
        Ok(Workspace {
            root,
            target: PathBuf::from(metadata.target_directory),
            chapters,
        })
    }

    /// The chapter called `name`, or an error listing the known ones.
    pub fn chapter(&self, name: &str) -> Result<&Chapter, String> {
        self.chapters
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| {
                format!(
                    "no chapter `{name}` with experiments (known: {})",
                    self.names().join(", ")
                )
            })
    }

    /// The chapters' names, in course order.
    pub fn names(&self) -> Vec<&str> {
        self.chapters.iter().map(|c| c.name.as_str()).collect()
    }

    /// The chapters `only` selects (all of them without it).
    pub fn selected(&self, only: Option<&str>) -> Result<Vec<&Chapter>, String> {
        Ok(match only {
            Some(name) => vec![self.chapter(name)?],
            None => self.chapters.iter().collect(),
        })
    }

    /// `docs/data/<chapter>.json`.
    pub fn data_path(&self, chapter: &Chapter) -> PathBuf {
        self.root
            .join("docs")
            .join("data")
            .join(format!("{}.json", chapter.name))
    }

    /// `path` relative to the root, for messages.
    pub fn rel(&self, path: &Path) -> String {
        rel(&self.root, path)
    }
}

/// `path` relative to `root` (unchanged if it is not under it).
pub fn rel(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[derive(Debug, Deserialize)]
struct Metadata {
    packages: Vec<Package>,
    target_directory: String,
}

#[derive(Debug, Deserialize)]
struct Package {
    name: String,
    manifest_path: String,
    dependencies: Vec<Dependency>,
    metadata: Option<PackageMetadata>,
}

#[derive(Debug, Deserialize)]
struct Dependency {
    kind: Option<String>,
    path: Option<String>,
}

#[derive(Debug, Deserialize)]
struct PackageMetadata {
    chapter: Option<Declared>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct Declared {
    name: String,
    doc: String,
    allocators: Vec<String>,
    #[serde(default)]
    dev_build: bool,
    #[serde(default)]
    other_bins: Vec<OtherBin>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OtherBin {
    package: String,
    bin: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(json: &str) -> Metadata {
        serde_json::from_str(json).unwrap()
    }

    const FIXTURE: &str = r#"{
      "target_directory": "/w/target",
      "packages": [
        {"name": "lab", "manifest_path": "/w/crates/lab/Cargo.toml", "dependencies": [], "metadata": null},
        {"name": "pool", "manifest_path": "/w/crates/pool/Cargo.toml",
         "dependencies": [{"kind": "dev", "path": "/w/crates/lab"}], "metadata": null},
        {"name": "receipt", "manifest_path": "/w/crates/receipt/Cargo.toml",
         "dependencies": [{"kind": null, "path": "/w/crates/pool"}, {"kind": null, "path": null}], "metadata": null},
        {"name": "receipt-chapter", "manifest_path": "/w/crates/receipt-chapter/Cargo.toml",
         "dependencies": [{"kind": null, "path": "/w/crates/lab"}, {"kind": null, "path": "/w/crates/receipt"}],
         "metadata": {"chapter": {"name": "receipt", "doc": "05-receipt.md", "allocators": ["system", "mimalloc"],
                                  "other-bins": [{"package": "receipt", "bin": "receipt"}]}}},
        {"name": "pool-chapter", "manifest_path": "/w/crates/pool-chapter/Cargo.toml",
         "dependencies": [{"kind": null, "path": "/w/crates/lab"}, {"kind": null, "path": "/w/crates/pool"}],
         "metadata": {"chapter": {"name": "pool", "doc": "03-pool.md", "allocators": ["system"]}}}
      ]
    }"#;

    #[test]
    fn chapters_are_read_from_their_declarations_in_course_order() {
        let ws = Workspace::from_metadata("/w".into(), metadata(FIXTURE)).unwrap();
        assert_eq!(ws.names(), ["pool", "receipt"]);
        let receipt = ws.chapter("receipt").unwrap();
        assert_eq!(receipt.package, "receipt-chapter");
        assert_eq!(receipt.allocators, [Allocator::System, Allocator::Mimalloc]);
        assert_eq!(
            receipt.other_bins,
            [("receipt".to_owned(), "receipt".to_owned())]
        );
        assert!(!receipt.dev_build);
        assert_eq!(ws.target, Path::new("/w/target"));
        assert!(
            ws.chapter("nope")
                .unwrap_err()
                .contains("known: pool, receipt")
        );
    }

    /// A chapter's sources are its package and the packages its binaries compile from, not the
    /// packages only its tests use.
    #[test]
    fn a_chapter_compiles_from_its_package_and_its_dependencies() {
        let ws = Workspace::from_metadata("/w".into(), metadata(FIXTURE)).unwrap();
        let pool = ws.chapter("pool").unwrap();
        assert_eq!(
            pool.sources[..3],
            ["crates/lab", "crates/pool", "crates/pool-chapter"]
        );
        assert!(pool.compiles_from("crates/pool/src/lib.rs"));
        assert!(pool.compiles_from("Cargo.lock"));
        assert!(!pool.compiles_from("crates/pool-chapterx/src/lib.rs"));
        assert!(!pool.compiles_from("crates/receipt/src/lib.rs"));
        assert!(!pool.compiles_from("crates/pool-chapter/tests/lines.rs"));
        let receipt = ws.chapter("receipt").unwrap();
        assert!(receipt.compiles_from("crates/pool/src/cache.rs"));
    }

    #[test]
    fn a_declaration_with_an_unknown_allocator_or_key_is_an_error() {
        let bad = FIXTURE.replace(r#"["system"]"#, r#"["system", "jemalloc"]"#);
        let err = Workspace::from_metadata("/w".into(), metadata(&bad)).unwrap_err();
        assert!(err.contains("unknown allocator `jemalloc`"), "{err}");
        let bad = FIXTURE.replace(r#"["system"]"#, r#"["mimalloc", "system"]"#);
        let err = Workspace::from_metadata("/w".into(), metadata(&bad)).unwrap_err();
        assert!(err.contains("\"system\" first"), "{err}");
        let bad = FIXTURE.replace(
            r#""doc": "03-pool.md""#,
            r#""doc": "03-pool.md", "feature": "x""#,
        );
        assert!(serde_json::from_str::<Metadata>(&bad).is_err());
    }

    /// The workspace's own chapters: a change inside one chapter's package or library leaves
    /// every chapter that does not compile from it fresh.
    #[test]
    fn a_change_to_one_chapter_leaves_the_others_fresh() {
        let ws = Workspace::load().unwrap();
        let stale = |path: &str| -> Vec<&str> {
            ws.chapters
                .iter()
                .filter(|c| c.compiles_from(path))
                .map(|c| c.name.as_str())
                .collect()
        };
        assert_eq!(
            ws.names(),
            ["lab", "stack-buffer", "pool", "arena", "receipt"]
        );
        assert_eq!(stale("crates/receipt/src/render.rs"), ["receipt"]);
        assert_eq!(stale("crates/receipt-chapter/src/lib.rs"), ["receipt"]);
        assert_eq!(stale("crates/arena/src/lib.rs"), ["arena"]);
        assert_eq!(
            stale("crates/pool/src/lib.rs"),
            ["stack-buffer", "pool", "receipt"]
        );
        assert_eq!(stale("crates/lab/src/table.rs").len(), 5);
        assert_eq!(stale("Cargo.lock").len(), 5);
        assert!(stale("xtask/src/commands/verify.rs").is_empty());
        assert!(stale("benches/benches/pool.rs").is_empty());
        assert!(stale("docs/03-pool.md").is_empty());
    }
}
