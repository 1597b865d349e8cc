//! `cargo xtask book`: `docs/` as a book. Rewrites the README's reading order, checks that `docs/SUMMARY.md` lists every page and
//! that every relative link and figure resolves, builds the book with mdBook into
//! `target/book/` (installing mdBook into `target/tools/` through cargo the first time), and
//! prints each page's length.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Mode;
use crate::data::links;
use crate::data::workspace::Workspace;
use crate::work::render;

/// A chapter's main text at most: words (as `wc -w` counts them, generated text included) and
/// columns of a table.
const MAIN_WORDS: usize = 3_500;
const MAIN_COLUMNS: usize = 6;

/// The mdBook release the book is built with.
const MDBOOK_VERSION: &str = "0.5.4";

/// Runs `book`.
pub fn run(ws: &Workspace) -> Result<(), String> {
    let docs = ws.root.join("docs");
    render::readme(ws, Mode::Write)?;
    let mut problems = links::summary_problems(&docs)?;
    problems.extend(links::broken(&docs)?);
    if !problems.is_empty() {
        return Err(problems.join("\n"));
    }
    let mdbook = mdbook(ws)?;
    let status = Command::new(&mdbook)
        .current_dir(&ws.root)
        .arg("build")
        .status()
        .map_err(|err| format!("cannot run {}: {err}", mdbook.display()))?;
    if !status.success() {
        return Err(format!("`mdbook build` failed ({status})"));
    }
    println!("\npage · words · tables (widest) · figures");
    let (mut course, mut figures_in_all) = (0, 0);
    for page in links::pages(&docs)? {
        let text =
            std::fs::read_to_string(docs.join(&page)).map_err(|err| format!("{page}: {err}"))?;
        let words = text.split_whitespace().count();
        let separators: Vec<&str> = text.lines().filter(|l| l.starts_with("|---")).collect();
        let widest = separators
            .iter()
            .map(|l| l.matches('|').count().saturating_sub(1))
            .max()
            .unwrap_or(0);
        let figures = text.matches("](img/").count();
        figures_in_all += figures;
        let main = !page.ends_with("-appendix.md");
        if main {
            course += words;
        }
        let over = if main && (words > MAIN_WORDS || widest > MAIN_COLUMNS) {
            format!("  (a chapter's main text: at most {MAIN_WORDS} words, {MAIN_COLUMNS} columns)")
        } else {
            String::new()
        };
        println!(
            "{page} · {words} · {} ({widest}) · {figures}{over}",
            separators.len()
        );
    }
    println!("main text in all: {course} words; figures in all: {figures_in_all}");
    println!("\nbook written to {}", ws.rel(&ws.target.join("book")));
    Ok(())
}

/// mdBook at [`MDBOOK_VERSION`]: `target/tools/bin/mdbook`, installed there by cargo if absent.
fn mdbook(ws: &Workspace) -> Result<PathBuf, String> {
    let root = ws.target.join("tools");
    let binary = root.join("bin").join("mdbook");
    if version_of(&binary).is_some_and(|v| v.contains(MDBOOK_VERSION)) {
        return Ok(binary);
    }
    eprintln!(
        "==> installing mdBook {MDBOOK_VERSION} into {}",
        ws.rel(&root)
    );
    let status = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["install", "mdbook", "--locked", "--version", MDBOOK_VERSION])
        .args(["--no-default-features", "--features", "search", "--root"])
        .arg(&root)
        .status()
        .map_err(|err| format!("cannot run cargo install: {err}"))?;
    if !status.success() {
        return Err(format!("`cargo install mdbook` failed ({status})"));
    }
    Ok(binary)
}

fn version_of(binary: &Path) -> Option<String> {
    let output = Command::new(binary).arg("--version").output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}
