//! The table model every experiment returns, and its one markdown renderer.
//!
//! An experiment never writes markdown: it returns a [`Table`] of typed [`Cell`]s.
//! Cells keep their unit, so `1,048,576 B` or `3.24 ns` look the same in every chapter.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::fmt::{format_nanos, round_significant, significant, thousands};
use crate::publish::{self, Agreement, BoundVerdict, RatioVerdict};

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
    /// Instructions per operation of a method and of its twin, from callgrind.
    Instructions {
        /// The original copy's count.
        original: f64,
        /// The twin's count.
        twin: f64,
    },
    /// A timed conclusion under the publish rule: a ratio with its range over processes, or a
    /// verdict every process reached. `cargo xtask verify` re-checks each of them.
    Claim(Claim),
}

/// A timed conclusion: what the processes of a run agreed on, or that they did not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Claim {
    /// A ratio the publish rule printed: the median of the per-process ratios and their range.
    Ratio {
        /// The median over processes.
        value: f64,
        /// The smallest per-process ratio.
        lo: f64,
        /// The largest per-process ratio.
        hi: f64,
        /// The precision it was held to (0.1 = ±10 %); the range is printed when wider.
        precision: f64,
    },
    /// A ratio as a conclusion for other machines: its bound, and this machine's figures it
    /// comes from (see [`publish::bound`]).
    Bound {
        /// Which side of the bound.
        relation: publish::Relation,
        /// The bound.
        bound: f64,
        /// The median over processes.
        value: f64,
        /// The least ratio over processes and twin swaps.
        lo: f64,
        /// The largest.
        hi: f64,
    },
    /// A verdict every process reached (`met`, `the pool`, `from N = 16`).
    Verdict {
        /// The verdict, as printed.
        text: String,
    },
    /// The processes did not agree: `agree` of `of` reached the most common verdict, and
    /// `unresolved` could not resolve the question.
    Varies {
        /// Processes with the most common verdict.
        agree: usize,
        /// Processes in all.
        of: usize,
        /// Processes that could not resolve the question.
        #[serde(default)]
        unresolved: usize,
    },
    /// No figure: the publish rule refused it.
    NotResolvable,
    /// A ratio the publish rule refused, and why (so a refused ratio beside a verdict that
    /// could be reached does not read as a contradiction).
    Refused {
        /// Which rule refused it, in words.
        reason: String,
    },
}

impl Claim {
    /// A target judged once, from exact figures (counts, instructions): `met` or `missed`.
    pub fn met(yes: bool) -> Self {
        Claim::Verdict {
            text: if yes { "met" } else { "missed" }.to_owned(),
        }
    }

    /// A timed ratio under the publish rule.
    pub fn ratio(verdict: RatioVerdict, precision: f64) -> Self {
        match verdict {
            RatioVerdict::Published { value, lo, hi } => Claim::Ratio {
                value,
                lo,
                hi,
                precision,
            },
            RatioVerdict::NotResolvable { reason, .. } => Claim::Refused {
                reason: publish::reason_text(reason).to_owned(),
            },
        }
    }

    /// A timed ratio as a conclusion for other machines: a bound where it clears the margin,
    /// otherwise this machine's figure (a [`Claim::Ratio`], with no range) or why not.
    pub fn bound(verdict: BoundVerdict) -> Self {
        match verdict {
            BoundVerdict::Published {
                relation,
                bound,
                value,
                lo,
                hi,
            } => Claim::Bound {
                relation,
                bound,
                value,
                lo,
                hi,
            },
            BoundVerdict::ThisMachine { value, lo, hi } => Claim::Ratio {
                value,
                lo,
                hi,
                precision: publish::RATIO_PRECISION,
            },
            BoundVerdict::NotResolvable { reason } => Claim::Refused {
                reason: publish::reason_text(reason).to_owned(),
            },
        }
    }

    /// A verdict from what every process said.
    pub fn verdict(agreement: Agreement<String>) -> Self {
        match agreement {
            Agreement::All(text) => Claim::Verdict { text },
            Agreement::Varies {
                agree,
                of,
                unresolved,
            } => Claim::Varies {
                agree,
                of,
                unresolved,
            },
            Agreement::NotResolvable => Claim::NotResolvable,
        }
    }

    /// Whether the claim is printed (a ratio, a bound, or a verdict all processes share).
    pub fn is_published(&self) -> bool {
        matches!(
            self,
            Claim::Ratio { .. } | Claim::Bound { .. } | Claim::Verdict { .. }
        )
    }

    /// Whether the claim is a conclusion that should hold on another machine (a verdict or a
    /// bound); a ratio is this machine's figure.
    pub fn is_conclusion(&self) -> bool {
        matches!(self, Claim::Bound { .. } | Claim::Verdict { .. })
    }

    /// The claim as a machine's figure: a bound shows the ratio it comes from
    /// (`3.1× (2.8–3.3)`, over processes and twin swaps), anything else as [`Claim::render`].
    pub fn render_with_figure(&self) -> String {
        match *self {
            Claim::Bound { value, lo, hi, .. } => Claim::Ratio {
                value,
                lo,
                hi,
                precision: publish::RATIO_PRECISION,
            }
            .render(),
            _ => self.render(),
        }
    }

    /// The claim as it appears in a table or a sentence.
    pub fn render(&self) -> String {
        match self {
            Claim::Ratio {
                value,
                lo,
                hi,
                precision,
            } => {
                // Two significant digits: a ratio held to ±10 % has no third one.
                if publish::shows_range(*value, *lo, *hi, *precision) {
                    format!(
                        "{}× ({}–{})",
                        ratio_number(*value, 2),
                        ratio_number(*lo, 2),
                        ratio_number(*hi, 2)
                    )
                } else {
                    format!("{}×", ratio_number(*value, 2))
                }
            }
            Claim::Bound {
                relation, bound, ..
            } => {
                let side = match relation {
                    publish::Relation::AtLeast => "at least",
                    publish::Relation::AtMost => "at most",
                };
                format!("{side} {}×", bound_number(*bound))
            }
            Claim::Verdict { text } => text.replace('|', "\\|"),
            Claim::Varies {
                agree,
                of,
                unresolved: 0,
            } => format!("*varies between runs ({agree} of {of} agree)*"),
            Claim::Varies {
                agree,
                of,
                unresolved,
            } => format!(
                "*varies between runs ({agree} of {of} agree, {unresolved} not resolvable)*"
            ),
            Claim::NotResolvable => "*not resolvable*".to_owned(),
            Claim::Refused { reason } => format!("*not resolvable: {reason}*"),
        }
    }
}

/// A ratio's number to `digits` significant digits, or `1/N` below 0.01 (`0.000042` is
/// `1/23,800` at three): three for a [`Cell::Ratio`], two for a timed ratio's [`Claim`].
fn ratio_number(r: f64, digits: i32) -> String {
    if r > 0.0 && r < 0.01 {
        format!("1/{}", thousands(round_significant(1.0 / r, digits) as u64))
    } else {
        significant(r, digits)
    }
}

/// A bound's number: a round number as written (`3`, `1.5`, `1,000`), or below 1× a short
/// decimal (`0.5`) or the inverse of one (`1/300`).
fn bound_number(b: f64) -> String {
    let plain = |x: f64| {
        if x.fract().abs() < 1e-9 {
            thousands(x.round() as u64)
        } else {
            significant(x, 2)
        }
    };
    if b >= 1.0 {
        plain(b)
    } else {
        let inverse = 1.0 / b;
        if [2.0, 5.0, 10.0].iter().any(|n| (inverse - n).abs() < 1e-6) {
            format!("{}", (b * 10.0).round() / 10.0)
        } else {
            format!("1/{}", plain(round_significant(inverse, 2)))
        }
    }
}

fn ratio_text(r: f64) -> String {
    if r > 0.0 && r < 0.01 {
        ratio_number(r, 3)
    } else {
        format!("{}×", ratio_number(r, 3))
    }
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
            Cell::Ratio(r) => ratio_text(*r),
            Cell::Percent(p) => format!("{} %", significant(*p, 2)),
            Cell::BytesPerNs(rate) => format!("{} B/ns", significant(*rate, 3)),
            Cell::Bool(true) => "yes".to_owned(),
            Cell::Bool(false) => "no".to_owned(),
            Cell::Seed(text) => format!("*{}*", text.replace('|', "\\|")),
            Cell::NotResolvable => "*not resolvable*".to_owned(),
            Cell::Empty => "—".to_owned(),
            // The twin's count only where it differs: equal counts are the expected case.
            Cell::Instructions { original, twin } if (original - twin).abs() < 0.05 => {
                significant(*original, 4)
            }
            Cell::Instructions { original, twin } => {
                format!("{} ({})", significant(*original, 4), significant(*twin, 4))
            }
            Cell::Claim(claim) => claim.render(),
        }
    }
}

/// One experiment's result: what `cargo xtask report` stores in `docs/data/` and renders.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// The experiment ID (`M1`, `P2`, …); also the docs marker's id.
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
    /// Figures drawn from this table's data, written by `cargo xtask report` to `docs/img/`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plots: Vec<crate::plot::Plot>,
    /// Timed conclusions stated under the table, each re-checked by `cargo xtask verify`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conclusions: Vec<Conclusion>,
}

/// One timed conclusion a chapter states: the claim in words (no measured number in it) and
/// what the processes of the run said.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conclusion {
    /// The claim, e.g. "the pool's hit path at most 3.3× an unzeroed stack array (the .NET ratio)".
    pub claim: String,
    /// The outcome: a verdict, a ratio, or that the processes disagreed.
    pub result: Claim,
}

/// A timed method's figures in every process, kept in the snapshot for the report-wide summary
/// of both noise sources (chapter 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TwinRecord {
    /// The experiment whose timing run measured it.
    pub experiment: String,
    /// The method's name.
    pub method: String,
    /// The allocator the processes ran under.
    pub allocator: crate::protocol::Allocator,
    /// The original's and the twin's median, ns per operation, one pair per process.
    pub per_process: Vec<(f64, f64)>,
}

impl TwinRecord {
    /// The figures the publish rule works on.
    pub fn figures(&self) -> publish::Figures {
        publish::Figures {
            per_process: self
                .per_process
                .iter()
                .map(|&(original_ns, twin_ns)| publish::Pair {
                    original_ns,
                    twin_ns,
                })
                .collect(),
        }
    }
}

impl Table {
    /// The cell in the first row whose first cell is the text `row` (as written, or as
    /// rendered, with `|` escaped), under the column headed `column`.
    pub fn labelled_cell(&self, row: &str, column: &str) -> Option<&Cell> {
        let idx = self.rows.iter().position(|r| {
            r.first().is_some_and(|label| {
                matches!(label, Cell::Text(text) if text == row) || label.render() == row
            })
        })?;
        self.cell(idx, column)
    }

    /// An empty table with its id, kind, title and columns.
    pub fn new(id: &str, kind: Kind, title: &str, columns: &[&str]) -> Self {
        Table {
            id: id.to_owned(),
            title: title.to_owned(),
            kind,
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
            rows: Vec::new(),
            notes: Vec::new(),
            plots: Vec::new(),
            conclusions: Vec::new(),
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

    /// States a timed conclusion under the table.
    pub fn conclude(&mut self, claim: impl Into<String>, result: Claim) -> &mut Self {
        self.conclusions.push(Conclusion {
            claim: claim.into(),
            result,
        });
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
        if !self.conclusions.is_empty() {
            out.push('\n');
            for conclusion in &self.conclusions {
                let _ = writeln!(
                    out,
                    "- {}: **{}**{}",
                    conclusion.claim,
                    conclusion.result.render(),
                    match conclusion.result {
                        Claim::Ratio { .. } => " (this machine's figure)",
                        _ => "",
                    }
                );
            }
        }
        out
    }
}

fn is_numeric(cell: &Cell) -> bool {
    match cell {
        // A seed's figure is quoted text: a column of them reads better left-aligned, and a
        // column that mixes them with measured numbers is aligned by the numbers.
        Cell::Text(_) | Cell::Bool(_) | Cell::Empty | Cell::Seed(_) => false,
        Cell::Claim(claim) => matches!(claim, Claim::Ratio { .. }),
        _ => true,
    }
}

/// A table's columns, each declared with its heading and the value it shows, so the two cannot
/// drift apart. Building blocks, not a framework: a value is any closure from a row to a cell.
///
/// ```
/// use lab::table::{Columns, Kind, Cell};
///
/// let sizes = [16usize, 256];
/// let table = Columns::new()
///     .col("bytes", |n: &usize| Cell::bytes(*n))
///     .col("cache lines", |n: &usize| Cell::count(n.div_ceil(64)))
///     .table("X9", Kind::Count, "Cache lines by size", &sizes);
/// assert_eq!(table.rows[1], vec![Cell::Bytes(256), Cell::Count(4)]);
/// ```
pub struct Columns<'a, R: ?Sized> {
    columns: Vec<(String, CellOf<'a, R>)>,
}

/// How a column computes its cell from a row.
type CellOf<'a, R> = Box<dyn Fn(&R) -> Cell + 'a>;

impl<R: ?Sized> std::fmt::Debug for Columns<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let headings: Vec<&str> = self.columns.iter().map(|c| c.0.as_str()).collect();
        f.debug_struct("Columns")
            .field("headings", &headings)
            .finish()
    }
}

impl<R: ?Sized> Default for Columns<'_, R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a, R: ?Sized> Columns<'a, R> {
    /// No columns yet.
    pub fn new() -> Self {
        Columns {
            columns: Vec::new(),
        }
    }

    /// Adds a column: its heading and the cell it shows for a row.
    pub fn col(mut self, heading: impl Into<String>, value: impl Fn(&R) -> Cell + 'a) -> Self {
        self.columns.push((heading.into(), Box::new(value)));
        self
    }

    /// Adds a column only when `present` (an optional seed column, a column one allocator lacks).
    pub fn col_if(
        self,
        present: bool,
        heading: impl Into<String>,
        value: impl Fn(&R) -> Cell + 'a,
    ) -> Self {
        if present {
            self.col(heading, value)
        } else {
            self
        }
    }

    /// A table with one row per item of `rows`.
    pub fn table<'r, I>(&self, id: &str, kind: Kind, title: &str, rows: I) -> Table
    where
        I: IntoIterator<Item = &'r R>,
        R: 'r,
    {
        let headings: Vec<&str> = self.columns.iter().map(|c| c.0.as_str()).collect();
        let mut table = Table::new(id, kind, title, &headings);
        for row in rows {
            table.row(self.columns.iter().map(|(_, value)| value(row)).collect());
        }
        table
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bound prints as the round number it is.
    #[test]
    fn a_bound_prints_as_a_round_number() {
        let b = |relation, bound| {
            Claim::Bound {
                relation,
                bound,
                value: 1.0,
                lo: 1.0,
                hi: 1.0,
            }
            .render()
        };
        use publish::Relation::{AtLeast, AtMost};
        assert_eq!(b(AtLeast, 3.0), "at least 3×");
        assert_eq!(b(AtLeast, 1.5), "at least 1.5×");
        assert_eq!(b(AtLeast, 2000.0), "at least 2,000×");
        assert_eq!(b(AtMost, 0.5), "at most 0.5×");
        assert_eq!(b(AtMost, 0.1), "at most 0.1×");
        assert_eq!(b(AtMost, 1.0 / 3.0), "at most 1/3×");
        assert_eq!(b(AtMost, 1.0 / 1.5), "at most 1/1.5×");
        assert_eq!(b(AtMost, 1.0 / 300.0), "at most 1/300×");
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
        assert_eq!(Cell::Ratio(0.000042).render(), "1/23,800");
        let same = Cell::Instructions {
            original: 806.8,
            twin: 806.8,
        };
        assert_eq!(same.render(), "806.8");
        let apart = Cell::Instructions {
            original: 60.0,
            twin: 86.0,
        };
        assert_eq!(apart.render(), "60.00 (86.00)");
    }

    #[test]
    fn a_claim_prints_its_range_only_when_wider_than_its_precision() {
        let wide = Claim::Ratio {
            value: 3.0,
            lo: 2.3,
            hi: 3.7,
            precision: 0.1,
        };
        assert_eq!(wide.render(), "3.0× (2.3–3.7)");
        let narrow = Claim::Ratio {
            value: 3.0,
            lo: 2.95,
            hi: 3.05,
            precision: 0.1,
        };
        assert_eq!(narrow.render(), "3.0×");
        assert_eq!(
            Claim::Varies {
                agree: 2,
                of: 3,
                unresolved: 0
            }
            .render(),
            "*varies between runs (2 of 3 agree)*"
        );
        assert_eq!(
            Claim::Varies {
                agree: 2,
                of: 3,
                unresolved: 1
            }
            .render(),
            "*varies between runs (2 of 3 agree, 1 not resolvable)*"
        );
    }

    #[test]
    fn columns_keep_heading_and_value_together() {
        let rows = [1u64, 2];
        let table = Columns::new()
            .col("n", |n: &u64| Cell::Count(*n))
            .col_if(false, "never", |_: &u64| Cell::Empty)
            .col("twice", |n: &u64| Cell::Count(2 * n))
            .table("X1", Kind::Count, "demo", &rows);
        assert_eq!(table.columns, vec!["n", "twice"]);
        assert_eq!(table.rows[1], vec![Cell::Count(2), Cell::Count(4)]);
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
