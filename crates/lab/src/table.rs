//! The table model every experiment returns, and its one markdown renderer.
//!
//! An experiment never writes markdown: it returns a [`Table`] of typed [`Cell`]s.
//! Cells keep their unit, so `1,048,576 B` or `3.24 ns` look the same in every chapter.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// What kind of claim a table makes; it decides how `cargo xtask report --check` treats it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Allocation counts and bytes: deterministic, re-run and compared exactly by `--check`.
    Count,
    /// Timings: noisy, published under the publish rule, never compared by `--check`.
    Time,
    /// A boolean, a boundary or an observation about the machine: rendered, not re-run.
    Fact,
}

/// One cell, with its unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cell {
    /// Plain text (a label, a code snippet, a message).
    Text(String),
    /// A count of things, printed with thousands separators.
    Count(u64),
    /// A signed count (a difference), printed with a sign.
    Signed(i64),
    /// A number of bytes, printed as `1,024 B` (never abbreviated: counts are exact).
    Bytes(u64),
    /// A duration in nanoseconds.
    Nanos(f64),
    /// A dimensionless ratio, printed as `0.42×`.
    Ratio(f64),
    /// A percentage, given as a percentage (`1.5` prints `1.5 %`).
    Percent(f64),
    /// A rate in bytes per nanosecond (equal to GB/s).
    BytesPerNs(f64),
    /// Yes or no.
    Bool(bool),
    /// A figure quoted from a seed article, printed as given and marked as quoted.
    Seed(String),
    /// A timed figure the publish rule refused; the reason goes in the table's notes.
    NotResolvable,
    /// Nothing to show here (the reason should be in the notes).
    Empty,
}

impl Cell {
    /// A text cell.
    pub fn text(text: impl Into<String>) -> Self {
        Cell::Text(text.into())
    }

    /// A count cell from any unsigned integer.
    pub fn count(n: impl TryInto<u64>) -> Self {
        Cell::Count(n.try_into().unwrap_or(u64::MAX))
    }

    /// A bytes cell from any unsigned integer.
    pub fn bytes(n: impl TryInto<u64>) -> Self {
        Cell::Bytes(n.try_into().unwrap_or(u64::MAX))
    }

    /// Renders the cell as it appears in a markdown table.
    pub fn render(&self) -> String {
        match self {
            Cell::Text(text) => text.replace('|', "\\|"),
            Cell::Count(n) => thousands(*n),
            Cell::Signed(n) if *n > 0 => format!("+{}", thousands(n.unsigned_abs())),
            Cell::Signed(n) if *n < 0 => format!("−{}", thousands(n.unsigned_abs())),
            Cell::Signed(_) => "0".to_owned(),
            Cell::Bytes(n) => format!("{} B", thousands(*n)),
            Cell::Nanos(ns) => format_nanos(*ns),
            Cell::Ratio(r) => format!("{}×", significant(*r, 3)),
            Cell::Percent(p) => format!("{} %", significant(*p, 2)),
            Cell::BytesPerNs(rate) => format!("{} B/ns", significant(*rate, 3)),
            Cell::Bool(true) => "yes".to_owned(),
            Cell::Bool(false) => "no".to_owned(),
            Cell::Seed(text) => format!("*{}*", text.replace('|', "\\|")),
            Cell::NotResolvable => "*not resolvable*".to_owned(),
            Cell::Empty => "—".to_owned(),
        }
    }
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (idx, ch) in digits.chars().enumerate() {
        if idx > 0 && (digits.len() - idx).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A float with about `digits` significant digits, no exponent, thousands separators above 1000.
pub fn significant(x: f64, digits: i32) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x == 0.0 {
        return "0".to_owned();
    }
    let magnitude = decade_floor(x.abs());
    let decimals = (digits - 1 - magnitude).clamp(0, 6) as usize;
    if decimals == 0 {
        let rounded = x.abs().round() as u64;
        let sign = if x < 0.0 { "−" } else { "" };
        return format!("{sign}{}", thousands(rounded));
    }
    let text = format!("{:.*}", decimals, x.abs());
    let sign = if x < 0.0 { "−" } else { "" };
    format!("{sign}{text}")
}

/// `10^e`, exactly where it can be (repeated multiplication, not `powi`, whose last bit may
/// differ between math libraries).
pub(crate) fn pow10(e: i32) -> f64 {
    let mut value = 1.0;
    for _ in 0..e.unsigned_abs() {
        value *= 10.0;
    }
    if e < 0 { 1.0 / value } else { value }
}

/// The largest `e` with `10^e <= v` (for `v > 0`), exact even where `log10` is off by a bit.
pub(crate) fn decade_floor(v: f64) -> i32 {
    let mut e = v.log10().floor() as i32;
    while pow10(e) > v {
        e -= 1;
    }
    while pow10(e + 1) <= v {
        e += 1;
    }
    e
}

/// Nanoseconds with a unit that keeps three significant digits readable.
pub fn format_nanos(ns: f64) -> String {
    let abs = ns.abs();
    if abs >= 1e9 {
        format!("{} s", significant(ns / 1e9, 3))
    } else if abs >= 1e6 {
        format!("{} ms", significant(ns / 1e6, 3))
    } else if abs >= 1e4 {
        format!("{} µs", significant(ns / 1e3, 3))
    } else {
        format!("{} ns", significant(ns, 3))
    }
}

/// One experiment's result: what `cargo xtask report` stores in `docs/data/` and renders.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// The experiment ID from `EXPERIMENTS.md` (`M1`, `P2`, …); also the docs marker's id.
    pub id: String,
    /// A one-line title, rendered in bold above the table.
    pub title: String,
    /// How the table is checked.
    pub kind: Kind,
    /// Column headings.
    pub columns: Vec<String>,
    /// Rows; each has exactly `columns.len()` cells.
    pub rows: Vec<Vec<Cell>>,
    /// Sentences rendered under the table, one per line.
    pub notes: Vec<String>,
    /// For timed tables: every method's median and its twin's, for the report's summary line.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub twins: Vec<TwinRecord>,
    /// Figures drawn from this table's data, written by `cargo xtask report` to `docs/img/`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plots: Vec<crate::plot::Plot>,
}

/// A timed method's median and its twin's, kept in the snapshot for the twin-disagreement summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TwinRecord {
    /// The method's name.
    pub method: String,
    /// The original copy's median, ns per operation.
    pub median_ns: f64,
    /// The twin's median, ns per operation.
    pub twin_median_ns: f64,
}

impl TwinRecord {
    /// The disagreement as a percentage of the pair's mean.
    pub fn disagreement_pct(&self) -> f64 {
        crate::timing::publish::Pair {
            original_ns: self.median_ns,
            twin_ns: self.twin_median_ns,
        }
        .disagreement_pct()
    }
}

impl Table {
    /// An empty table with its id, kind, title and columns.
    pub fn new(id: &str, kind: Kind, title: &str, columns: &[&str]) -> Self {
        Table {
            id: id.to_owned(),
            title: title.to_owned(),
            kind,
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
            rows: Vec::new(),
            notes: Vec::new(),
            twins: Vec::new(),
            plots: Vec::new(),
        }
    }

    /// Adds a row.
    ///
    /// # Panics
    /// If the row's length differs from the number of columns (a bug in the experiment).
    pub fn row(&mut self, cells: Vec<Cell>) -> &mut Self {
        assert_eq!(
            cells.len(),
            self.columns.len(),
            "table {}: a row of {} cells under {} columns",
            self.id,
            cells.len(),
            self.columns.len()
        );
        self.rows.push(cells);
        self
    }

    /// Adds a note (one sentence or a few) rendered under the table.
    pub fn note(&mut self, note: impl Into<String>) -> &mut Self {
        self.notes.push(note.into());
        self
    }

    /// The cell at `row`, in the column named `column`, if both exist.
    pub fn cell(&self, row: usize, column: &str) -> Option<&Cell> {
        let col = self.columns.iter().position(|c| c == column)?;
        self.rows.get(row)?.get(col)
    }

    /// Renders the table as GitHub-flavoured markdown: title, table, notes.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "**{} — {}**", self.id, self.title);
        out.push('\n');
        let header: Vec<String> = self.columns.iter().map(|c| c.replace('|', "\\|")).collect();
        let _ = writeln!(out, "| {} |", header.join(" | "));
        let align: Vec<&str> = (0..self.columns.len())
            .map(|col| {
                let numeric = self.rows.iter().any(|row| is_numeric(&row[col]));
                if numeric { "---:" } else { "---" }
            })
            .collect();
        let _ = writeln!(out, "|{}|", align.join("|"));
        for row in &self.rows {
            let cells: Vec<String> = row.iter().map(Cell::render).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        if !self.notes.is_empty() {
            out.push('\n');
            for note in &self.notes {
                let _ = writeln!(out, "{note}");
            }
        }
        out
    }
}

fn is_numeric(cell: &Cell) -> bool {
    !matches!(cell, Cell::Text(_) | Cell::Bool(_) | Cell::Empty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(152_000_000), "152,000,000");
    }

    #[test]
    fn cells_keep_their_unit() {
        assert_eq!(Cell::Bytes(0).render(), "0 B");
        assert_eq!(Cell::Bytes(2_097_152).render(), "2,097,152 B");
        assert_eq!(Cell::Nanos(3.244).render(), "3.24 ns");
        assert_eq!(Cell::Nanos(97.56).render(), "97.6 ns");
        assert_eq!(Cell::Nanos(2_929_000.0).render(), "2.93 ms");
        assert_eq!(Cell::Ratio(0.415).render(), "0.415×");
        assert_eq!(Cell::Percent(1.456).render(), "1.5 %");
        assert_eq!(Cell::Signed(-3).render(), "−3");
        assert_eq!(Cell::NotResolvable.render(), "*not resolvable*");
    }

    #[test]
    fn renders_a_table_with_numeric_columns_right_aligned() {
        let mut table = Table::new("X1", Kind::Count, "demo", &["what", "allocs"]);
        table.row(vec![Cell::text("a|b"), Cell::Count(1_000)]);
        table.note("One note.");
        assert_eq!(
            table.to_markdown(),
            "**X1 — demo**\n\n| what | allocs |\n|---|---:|\n| a\\|b | 1,000 |\n\nOne note.\n"
        );
    }

    #[test]
    #[should_panic(expected = "a row of 1 cells under 2 columns")]
    fn a_short_row_is_a_bug() {
        Table::new("X1", Kind::Count, "demo", &["a", "b"]).row(vec![Cell::Count(1)]);
    }
}
