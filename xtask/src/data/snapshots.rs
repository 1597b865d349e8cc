//! The committed snapshots (`docs/data/<chapter>.json`), and comparing a fresh run's counted
//! tables with them.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use lab::report::Snapshot;
use lab::{Kind, Table};

use crate::data::workspace::{Chapter, Workspace};

/// The committed snapshot of `chapter`.
pub fn load(ws: &Workspace, chapter: &Chapter) -> Result<Snapshot, String> {
    let path = ws.data_path(chapter);
    let text = std::fs::read_to_string(&path).map_err(|err| {
        format!(
            "{}: cannot read the committed snapshot: {err}",
            ws.rel(&path)
        )
    })?;
    serde_json::from_str(&text).map_err(|err| format!("{}: not a snapshot: {err}", ws.rel(&path)))
}

/// Every committed snapshot that can be read, by chapter name, and an error for each that
/// cannot.
pub fn load_all(ws: &Workspace) -> (BTreeMap<String, Snapshot>, Vec<String>) {
    let mut snapshots = BTreeMap::new();
    let mut errors = Vec::new();
    for chapter in &ws.chapters {
        match load(ws, chapter) {
            Ok(snapshot) => {
                snapshots.insert(chapter.name.clone(), snapshot);
            }
            Err(err) => errors.push(err),
        }
    }
    (snapshots, errors)
}

/// Every counted table the fresh run produced must equal the committed one, cell for cell.
pub fn compare_counts(
    ws: &Workspace,
    chapter: &Chapter,
    committed: &Snapshot,
    fresh: &Snapshot,
) -> Vec<String> {
    let path = ws.rel(&ws.data_path(chapter));
    let mut errors = Vec::new();
    for table in &fresh.tables {
        let code = fresh
            .experiment_of(&table.id)
            .map_or("?", |e| e.code.as_str());
        match committed.table(&table.id) {
            None => errors.push(format!(
                "{path}: the counted table {} is not in the committed snapshot",
                table.id
            )),
            Some(old) if old != table => errors.push(format!(
                "{path}: the counted table {} changed (code: {code}):\n{}",
                table.id,
                describe_change(old, table)
            )),
            Some(_) => {}
        }
    }
    for table in committed.tables.iter().filter(|t| t.kind == Kind::Count) {
        if fresh.table(&table.id).is_none() {
            errors.push(format!(
                "{path}: the counted table {} is no longer produced",
                table.id
            ));
        }
    }
    errors
}

/// A short, readable account of how two versions of a table differ.
fn describe_change(old: &Table, new: &Table) -> String {
    let mut out = String::new();
    if old.columns != new.columns {
        let _ = writeln!(out, "  columns: {:?} -> {:?}", old.columns, new.columns);
    }
    if old.rows.len() != new.rows.len() {
        let _ = writeln!(out, "  rows: {} -> {}", old.rows.len(), new.rows.len());
    }
    for (old_row, new_row) in old.rows.iter().zip(&new.rows) {
        for (col, (old_cell, new_cell)) in old_row.iter().zip(new_row).enumerate() {
            if old_cell != new_cell {
                let label = new_row.first().map(lab::Cell::render).unwrap_or_default();
                let column = new.columns.get(col).map_or("?", String::as_str);
                let _ = writeln!(
                    out,
                    "  row {label}, column `{column}`: committed {}, now {}",
                    old_cell.render(),
                    new_cell.render()
                );
            }
        }
    }
    if old.title != new.title || old.notes != new.notes {
        let _ = writeln!(out, "  title or notes changed");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use lab::Cell;

    #[test]
    fn a_changed_count_names_row_column_and_both_values() {
        let mut old = Table::new("M1", Kind::Count, "t", &["call", "allocations"]);
        old.row(vec![Cell::text("`Box::new(0u64)`"), Cell::Count(1)]);
        let mut new = old.clone();
        new.rows[0][1] = Cell::Count(2);
        assert_eq!(
            describe_change(&old, &new),
            "  row `Box::new(0u64)`, column `allocations`: committed 1, now 2\n"
        );
    }
}
