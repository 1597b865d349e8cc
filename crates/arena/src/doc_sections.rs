//! The numbered sections of a module's `//!` docs, for the tests that check a table's rows
//! against them ([`crate::contract`], [`crate::routes`]).

/// The sections of `source`'s module docs: heading (without its number), then the text up to
/// the next heading.
fn sections(source: &str) -> Vec<(String, String)> {
    let docs: String = source
        .lines()
        .filter_map(|line| line.strip_prefix("//!").or_else(|| cfg_doc(line)))
        .map(|line| format!("{}\n", line.strip_prefix(' ').unwrap_or(line)))
        .collect();
    docs.split("\n# ")
        .skip(1)
        .map(|section| {
            let (heading, body) = section.split_once('\n').unwrap_or((section, ""));
            let heading = heading.split_once(". ").map_or(heading, |(_, h)| h);
            (heading.to_owned(), body.to_owned())
        })
        .collect()
}

/// The text of a `#![cfg_attr(<cfg>, doc = "<text>")]` line when `<cfg>` holds in this build
/// (only the build script's `std_allocator_api` and its negation are understood).
fn cfg_doc(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("#![cfg_attr(")?;
    let (cfg, rest) = rest.split_once(", doc = \"")?;
    let text = rest.strip_suffix("\")]")?;
    let holds = match cfg {
        "std_allocator_api" => cfg!(std_allocator_api),
        "not(std_allocator_api)" => !cfg!(std_allocator_api),
        _ => panic!("unknown cfg in a doc line: {line}"),
    };
    holds.then_some(text)
}

/// Checks that `source`'s module docs have exactly one section per `(heading, error)` of
/// `expected`, in order, each with the examples [`assert_examples`] requires.
pub(crate) fn assert_sections(source: &str, expected: &[(&str, Option<&str>)]) {
    let sections = sections(source);
    assert_eq!(sections.len(), expected.len());
    for ((heading, error), (found, body)) in expected.iter().zip(&sections) {
        assert_eq!(heading, found);
        assert_examples(heading, body, *error);
    }
}

/// Checks that `body` holds one `compile_fail` example carrying `error` (and names it in its
/// text) when `error` is given, none otherwise, and always a compiling example.
fn assert_examples(heading: &str, body: &str, error: Option<&str>) {
    let refused = body.matches("```compile_fail").count();
    match error {
        Some(code) => {
            assert_eq!(refused, 1, "{heading}");
            assert!(
                body.contains(&format!("```compile_fail,{code}\n")),
                "{heading}"
            );
            assert!(
                body.contains(&format!("({code})")),
                "{heading}: names {code}"
            );
        }
        None => assert_eq!(refused, 0, "{heading}"),
    }
    // Plain fences: the close of each refused example, the open and close of each compiling
    // one (two in `routes`' first section when this compiler accepts its refused example).
    let plain = body.matches("\n```\n").count() - refused;
    assert!(
        plain >= 2 && plain.is_multiple_of(2),
        "{heading}: a compiling example"
    );
}
