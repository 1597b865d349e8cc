//! X1: each technique against what it replaces, under every allocator the report measured.

use crate::protocol::Allocator;
use crate::table::{Cell, Claim, Kind, Table};

use super::measured::Measured;

/// One technique and what it replaces, measured in the same timing run (experiment X1).
#[derive(Debug, Clone, Copy)]
pub struct Technique<'a> {
    /// The row's label (`the pool's hit path vs a fresh vec!, 8 KiB`).
    pub label: &'a str,
    /// The timing run that measured both.
    pub measured: &'a Measured,
    /// The method that applies the technique.
    pub technique: &'a str,
    /// The method it replaces.
    pub baseline: &'a str,
}

impl Technique<'_> {
    /// Under `allocator`: does the technique beat the baseline in every process there?
    fn pays(&self, allocator: Allocator) -> Claim {
        match self.measured.under(allocator) {
            Some(m) => m.verdict(|p| {
                p.faster(self.technique, self.baseline)
                    .map(|yes| if yes { "yes" } else { "no" }.to_owned())
            }),
            None => Claim::NotResolvable,
        }
    }
}

/// X1: each technique against what it replaces, under every allocator the report measured: the
/// ratio (technique / baseline, below 1× when it pays) under each, and whether it still pays.
pub fn allocator_table(id: &str, title: &str, rows: &[Technique<'_>]) -> Table {
    let ratio = |t: &Technique<'_>, allocator: Allocator| {
        t.measured
            .under(allocator)
            .map_or(Cell::Empty, |m| m.ratio_cell(t.technique, t.baseline))
    };
    let mut table = crate::table::Columns::new()
        .col("technique vs what it replaces", |t: &Technique<'_>| {
            Cell::text(t.label)
        })
        .col("glibc: technique / replaced", |t: &Technique<'_>| {
            ratio(t, Allocator::System)
        })
        .col("mimalloc: technique / replaced", |t: &Technique<'_>| {
            ratio(t, Allocator::Mimalloc)
        })
        .col("pays under glibc?", |t: &Technique<'_>| {
            Cell::Claim(t.pays(Allocator::System))
        })
        .col("still pays under mimalloc?", |t: &Technique<'_>| {
            if t.measured.under(Allocator::Mimalloc).is_some() {
                Cell::Claim(t.pays(Allocator::Mimalloc))
            } else {
                Cell::Empty
            }
        })
        .table(id, Kind::Time, title, rows);
    let measured_under_mimalloc = rows
        .iter()
        .any(|t| t.measured.under(Allocator::Mimalloc).is_some());
    table.note("Below 1× the technique is faster than what it replaces. \"Pays\" is a verdict: *yes* when the technique was resolvably faster in every process under that allocator, *no* when it was resolvably slower in every one.");
    if !measured_under_mimalloc {
        table.note("No mimalloc processes in this run (an `--only` or partial run): the mimalloc columns are empty.");
    }
    table
}
