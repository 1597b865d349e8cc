//! The book's pages and their links: every page of `docs/` is in `docs/SUMMARY.md`, and every
//! relative link and image of a page points at a file (and a heading) that exists.

use std::collections::BTreeSet;
use std::path::Path;

/// A heading's anchor, as GitHub and mdBook make it: lower case, letters, digits, `-` and `_`
/// kept, spaces turned into `-`, everything else dropped.
pub fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a page's headings (outside code blocks), with `-1`, `-2` for repeats.
pub fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let base = slug(heading);
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

/// Every link target of a page, `[text](target)` and `![alt](target)`, outside code, with its
/// line number.
pub fn targets(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut fenced = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Drop inline code, where `](` is not a link.
        let mut plain = String::new();
        let mut code = false;
        for c in line.chars() {
            if c == '`' {
                code = !code;
            } else if !code {
                plain.push(c);
            }
        }
        let mut rest = plain.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else {
                break;
            };
            found.push((n + 1, after[..end].trim().to_owned()));
            rest = &after[end..];
        }
    }
    found
}

/// Every broken link of the pages under `docs` (relative links only: a web address is not
/// checked), as `page:line: reason`.
pub fn broken(docs: &Path) -> Result<Vec<String>, String> {
    let mut problems = Vec::new();
    for page in pages(docs)? {
        let path = docs.join(&page);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{page}: {e}"))?;
        for (line, target) in targets(&text) {
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = match target.split_once('#') {
                Some((file, anchor)) => (file, Some(anchor)),
                None => (target.as_str(), None),
            };
            let dest = if file.is_empty() {
                path.clone()
            } else {
                path.parent().unwrap_or(docs).join(file)
            };
            if !dest.exists() {
                problems.push(format!("docs/{page}:{line}: `{target}`: no such file"));
                continue;
            }
            if let Some(anchor) = anchor
                && dest.extension().is_some_and(|e| e == "md")
            {
                let text = std::fs::read_to_string(&dest).map_err(|e| format!("{file}: {e}"))?;
                if !anchors(&text).contains(anchor) {
                    problems.push(format!(
                        "docs/{page}:{line}: `{target}`: no heading with that anchor"
                    ));
                }
            }
        }
    }
    Ok(problems)
}

/// The pages of the book: every `.md` file directly under `docs`, but `SUMMARY.md`, sorted.
pub fn pages(docs: &Path) -> Result<Vec<String>, String> {
    let mut pages = Vec::new();
    for entry in std::fs::read_dir(docs).map_err(|e| format!("docs/: {e}"))? {
        let name = entry
            .map_err(|e| e.to_string())?
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".md") && name != "SUMMARY.md" {
            pages.push(name);
        }
    }
    pages.sort();
    Ok(pages)
}

/// What is wrong with `docs/SUMMARY.md`: a page it does not list, or an entry with no page.
pub fn summary_problems(docs: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(docs.join("SUMMARY.md"))
        .map_err(|e| format!("docs/SUMMARY.md: {e}"))?;
    let listed: Vec<String> = targets(&text).into_iter().map(|(_, t)| t).collect();
    let mut problems = Vec::new();
    for page in pages(docs)? {
        if !listed.contains(&page) {
            problems.push(format!("docs/SUMMARY.md does not list docs/{page}"));
        }
    }
    for entry in &listed {
        if !docs.join(entry).exists() {
            problems.push(format!(
                "docs/SUMMARY.md lists {entry}, which does not exist"
            ));
        }
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_made_as_github_and_mdbook_make_them() {
        assert_eq!(
            slug("The third noise source: machines (M9, M10)"),
            "the-third-noise-source-machines-m9-m10"
        );
        assert_eq!(
            slug("`SmallVec`: the crate you will use"),
            "smallvec-the-crate-you-will-use"
        );
        let text = "# A\n## B b\n```\n# not a heading\n```\n## B b\n";
        let found: Vec<String> = anchors(text).into_iter().collect();
        assert_eq!(found, ["a", "b-b", "b-b-1"]);
    }

    #[test]
    fn links_are_found_outside_code() {
        let text = "see [one](a.md#x) and ![fig](img/f.svg) but not `[x](y)`\n```\n[no](z)\n```\n";
        assert_eq!(
            targets(text),
            [(1, "a.md#x".to_owned()), (1, "img/f.svg".to_owned())]
        );
    }

    /// The book: every page is in SUMMARY.md and every relative link and figure resolves.
    #[test]
    fn every_page_is_in_the_summary_and_every_link_resolves() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs");
        let mut problems = summary_problems(&docs).unwrap();
        problems.extend(broken(&docs).unwrap());
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
