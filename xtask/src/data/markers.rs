//! Generated regions inside hand-written markdown.
//!
//! A region is the bytes between a line `<!-- BEGIN GENERATED: id -->` and a line
//! `<!-- END GENERATED: id -->`. The generator owns only those bytes. A marker that is
//! malformed, unpaired, nested or duplicated is an error naming the file, the line and the id:
//! never a guess.

use std::collections::HashSet;

const BEGIN: &str = "<!-- BEGIN GENERATED:";
const END: &str = "<!-- END GENERATED:";

/// One generated region: its id and the byte range of its contents (between the marker lines).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    pub id: String,
    /// Byte offset just after the BEGIN line's newline.
    pub start: usize,
    /// Byte offset of the first byte of the END line.
    pub end: usize,
}

fn marker_id<'a>(
    line: &'a str,
    prefix: &str,
    file: &str,
    line_no: usize,
) -> Result<&'a str, String> {
    let id = line
        .strip_prefix(prefix)
        .and_then(|rest| rest.strip_suffix("-->"))
        .map(str::trim)
        .filter(|id| {
            !id.is_empty()
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        });
    id.ok_or_else(|| {
        format!("{file}:{line_no}: malformed marker `{line}` (expected `{prefix} ID -->` alone on its line)")
    })
}

/// Finds every generated region of `text`, in order.
pub fn regions(file: &str, text: &str) -> Result<Vec<Region>, String> {
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    let mut open: Option<(String, usize, usize)> = None; // id, start offset, line number
    let mut offset = 0;
    for (idx, raw_line) in text.split_inclusive('\n').enumerate() {
        let line_no = idx + 1;
        let line = raw_line.trim_end_matches(['\n', '\r']).trim();
        if line.starts_with(BEGIN) {
            let id = marker_id(line, BEGIN, file, line_no)?;
            if let Some((open_id, _, open_line)) = &open {
                return Err(format!(
                    "{file}:{line_no}: BEGIN GENERATED: {id} inside the unclosed region {open_id} opened at line {open_line}"
                ));
            }
            if !seen.insert(id.to_owned()) {
                return Err(format!(
                    "{file}:{line_no}: duplicated marker BEGIN GENERATED: {id}"
                ));
            }
            open = Some((id.to_owned(), offset + raw_line.len(), line_no));
        } else if line.starts_with(END) {
            let id = marker_id(line, END, file, line_no)?;
            match open.take() {
                Some((open_id, start, _)) if open_id == id => {
                    found.push(Region {
                        id: open_id,
                        start,
                        end: offset,
                    });
                }
                Some((open_id, _, open_line)) => {
                    return Err(format!(
                        "{file}:{line_no}: END GENERATED: {id} closes the region {open_id} opened at line {open_line}"
                    ));
                }
                None => {
                    return Err(format!(
                        "{file}:{line_no}: END GENERATED: {id} without a BEGIN"
                    ));
                }
            }
        }
        offset += raw_line.len();
    }
    if let Some((open_id, _, open_line)) = open {
        return Err(format!(
            "{file}:{open_line}: BEGIN GENERATED: {open_id} is never closed"
        ));
    }
    Ok(found)
}

/// Replaces the contents of every region with `render(id)`, leaving every other byte alone.
pub fn replace(
    file: &str,
    text: &str,
    mut render: impl FnMut(&str) -> Result<String, String>,
) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut copied_to = 0;
    for region in regions(file, text)? {
        out.push_str(&text[copied_to..region.start]);
        let body =
            render(&region.id).map_err(|err| format!("{file}: region {}: {err}", region.id))?;
        out.push('\n');
        out.push_str(body.trim_end());
        out.push_str("\n\n");
        copied_to = region.end;
    }
    out.push_str(&text[copied_to..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "# Title\n\nProse.\n<!-- BEGIN GENERATED: M1 -->\nold\n<!-- END GENERATED: M1 -->\nMore prose.\n";

    #[test]
    fn replaces_only_the_bytes_between_markers() {
        let new = replace("doc.md", DOC, |id| Ok(format!("table {id}"))).unwrap();
        assert_eq!(
            new,
            "# Title\n\nProse.\n<!-- BEGIN GENERATED: M1 -->\n\ntable M1\n\n<!-- END GENERATED: M1 -->\nMore prose.\n"
        );
        // Idempotent: a second pass changes nothing.
        assert_eq!(
            replace("doc.md", &new, |id| Ok(format!("table {id}"))).unwrap(),
            new
        );
    }

    #[test]
    fn unpaired_nested_duplicated_and_malformed_markers_are_errors() {
        let err = |text: &str| regions("doc.md", text).unwrap_err();
        assert_eq!(
            err("<!-- BEGIN GENERATED: M1 -->\n"),
            "doc.md:1: BEGIN GENERATED: M1 is never closed"
        );
        assert_eq!(
            err("x\n<!-- END GENERATED: M1 -->\n"),
            "doc.md:2: END GENERATED: M1 without a BEGIN"
        );
        assert!(
            err("<!-- BEGIN GENERATED: M1 -->\n<!-- BEGIN GENERATED: M2 -->\n")
                .contains("inside the unclosed region M1")
        );
        assert!(
            err("<!-- BEGIN GENERATED: M1 -->\n<!-- END GENERATED: M2 -->\n")
                .contains("closes the region M1")
        );
        let twice = "<!-- BEGIN GENERATED: M1 -->\n<!-- END GENERATED: M1 -->\n".repeat(2);
        assert_eq!(
            err(&twice),
            "doc.md:3: duplicated marker BEGIN GENERATED: M1"
        );
        assert!(err("<!-- BEGIN GENERATED: M1\n").contains("malformed marker"));
    }

    #[test]
    fn an_unknown_id_names_the_file_and_region() {
        let err = replace("doc.md", DOC, |_| Err("unknown id".into())).unwrap_err();
        assert_eq!(err, "doc.md: region M1: unknown id");
    }
}
