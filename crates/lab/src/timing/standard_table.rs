//! The standard timed table of a run: one row per method, with both noise sources, the floor,
//! mimalloc's median where it was measured, the instruction counts, and a note saying how the run
//! was measured.

use crate::fmt::{format_nanos, thousands};
use crate::protocol::Allocator;
use crate::table::{Cell, Kind, Table};

use super::config::Schedule;
use super::measured::{Measured, Method};
use super::measurements::{MethodResult, Role};

impl Measured {
    /// The standard columns of a table with one row per method of this run: the method, its
    /// median, quartiles, both noise sources, its difference to the floor under the publish
    /// rule, its median under mimalloc (where the run was measured there too) and its
    /// instructions. Add columns after these with [`Columns::col`](crate::table::Columns::col).
    pub fn columns(&self) -> crate::table::Columns<'_, Method<'_>> {
        let floor = self.floor().map(|f| f.name().to_owned());
        let mimalloc = self
            .under(Allocator::Mimalloc)
            .filter(|_| self.allocator != Allocator::Mimalloc);
        // With a second allocator's column, every figure says whose it is.
        let whose = |heading: &str| match mimalloc {
            Some(_) => format!("{heading} ({})", self.allocator.short()),
            None => heading.to_owned(),
        };
        crate::table::Columns::new()
            .col("method", |m: &Method<'_>| {
                Cell::text(if m.role() == Role::Floor {
                    format!("{} (floor)", m.name())
                } else {
                    m.name().to_owned()
                })
            })
            .col(whose("median"), Method::median_cell)
            .col(whose("IQR"), |m: &Method<'_>| {
                let (p25, p75) = m.iqr_ns();
                Cell::text(format!("{} – {}", format_nanos(p25), format_nanos(p75)))
            })
            .col(whose("twin disagreement"), |m: &Method<'_>| {
                Cell::Percent(m.twin_disagreement_pct())
            })
            .col(whose("between processes"), Method::spread_cell)
            .col(whose("minus floor"), move |m: &Method<'_>| {
                match (&floor, m.role()) {
                    (Some(floor), Role::Method) => self.difference_cell(m.name(), floor),
                    _ => Cell::Empty,
                }
            })
            .col_if(
                mimalloc.is_some(),
                "median (mimalloc)",
                move |m: &Method<'_>| {
                    mimalloc.map_or(Cell::Empty, |mm| mm.expect(m.name()).median_cell())
                },
            )
            .col("instructions (twin, where it differs)", |m: &Method<'_>| {
                m.instructions()
                    .map_or(Cell::Empty, |[original, twin]| Cell::Instructions {
                        original,
                        twin,
                    })
            })
    }

    /// A table with one row per method of this run, from `columns` (usually
    /// [`Measured::columns`] and more), with the line saying how it was measured and, where
    /// instructions are missing, why.
    pub fn table_with<'m>(
        &'m self,
        id: &str,
        title: &str,
        columns: &crate::table::Columns<'m, Method<'m>>,
    ) -> Table {
        let rows: Vec<Method<'m>> = self.methods().collect();
        let mut table = columns.table(id, Kind::Time, title, &rows);
        table.note(self.protocol_note());
        if let Some(why) = &self.live().instructions_note {
            table.note(why.clone());
        }
        table
    }

    /// The standard timed table: [`Measured::columns`], one row per method.
    pub fn table(&self, id: &str, title: &str) -> Table {
        self.table_with(id, title, &self.columns())
    }

    /// The line under a timed table: what differs from chapter 1's protocol, its processes,
    /// rounds and operations per batch (`Under glibc: 3 processes × 151 interleaved rounds,
    /// 1,227–73,599 operations per batch.`). [`Self::protocol_note_full`] adds the warm-up and
    /// the batch lengths.
    pub fn protocol_note(&self) -> String {
        self.protocol_sentence(false)
    }

    /// One sentence saying how this run was measured, from what actually ran, with the warm-up
    /// rounds and the batch lengths.
    pub fn protocol_note_full(&self) -> String {
        self.protocol_sentence(true)
    }

    fn protocol_sentence(&self, full: bool) -> String {
        let first = &self.processes[0];
        let results = || self.processes.iter().flat_map(|m| m.methods.iter());
        let (lo, hi) = results()
            .map(|r| r.iters_per_batch)
            .fold((u64::MAX, 0), |(lo, hi), n| (lo.min(n), hi.max(n)));
        let (short, long) = results()
            .map(|r| r.iters_per_batch as f64 * r.median_ns)
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), ns| {
                (lo.min(ns), hi.max(ns))
            });
        let operations = if hi == 1 {
            "one operation per batch".to_owned()
        } else if lo == hi {
            format!("{} operation{} per batch", thousands(lo), plural(lo))
        } else {
            format!("{}–{} operations per batch", thousands(lo), thousands(hi))
        };
        let batches = format!(
            "{operations}, batches of {}–{}",
            format_nanos(short),
            format_nanos(long)
        );
        let distinct = self
            .processes
            .iter()
            .flat_map(|m| &m.methods)
            .all(MethodResult::twins_are_distinct);
        let k = self.process_count();
        let warmup = first.config.warmup_rounds as u64;
        let shared = if distinct {
            ""
        } else {
            "; some twins share a code address"
        };
        let schedule = match first.schedule {
            Schedule::Interleaved => "interleaved",
            Schedule::Sequential => "sequential",
        };
        let processes = format!("{k} process{}", if k == 1 { "" } else { "es" });
        if !full {
            return format!(
                "Under {}: {processes} × {} {schedule} rounds, {operations}{shared}.",
                self.allocator.short(),
                first.config.rounds,
            );
        }
        format!(
            "Measured under {} in {processes} × {} {schedule} rounds (after {warmup} warm-up round{}); {batches} (the batch target is {} µs){shared}.",
            self.allocator.short(),
            first.config.rounds,
            plural(warmup),
            first.config.batch_target.as_micros(),
        )
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::super::measured::tests::synthetic;

    #[test]
    fn the_protocol_note_says_what_ran() {
        let m = synthetic(&[("a", &[(10.0, 10.0), (11.0, 11.0)])]);
        assert_eq!(
            m.protocol_note_full(),
            "Measured under glibc in 2 processes × 5 interleaved rounds (after 1 warm-up round); 10 operations per batch, batches of 100 ns–110 ns (the batch target is 20 µs)."
        );
        assert_eq!(
            m.protocol_note(),
            "Under glibc: 2 processes × 5 interleaved rounds, 10 operations per batch."
        );
    }
}
