//! R4's figure: each strategy's peak against the size of its generated input, drawn from R4's
//! own table after `memory::r4_peak_memory` has built it.

use lab::plot::Plot;
use lab::report::Run;
use lab::{Cell, Table};

use super::{STRATEGY_COLUMNS, memory};

/// The column of R4 that names each input, its size in bytes in parentheses.
const INPUT: &str = "input (bytes piped in)";

/// Runs R4 and adds its figure to its table.
pub(super) fn r4_with_figure(run: &Run) -> Vec<Table> {
    let mut tables = (memory::R4.call)(run);
    if let Some(r4) = tables.iter_mut().find(|t| t.id == "R4")
        && let Some(plot) = r4_plot(r4)
    {
        r4.plots.push(plot);
    }
    tables
}

/// A byte count in a cell: `Cell::Bytes`, a text such as `≤ 3,203,072 B` (a figure at the
/// measuring process's floor, which is an upper bound), or an input's label ending with its
/// size, `100,000 generated lines (3,409,568 B)`.
fn bytes_of(cell: &Cell) -> Option<f64> {
    match cell {
        Cell::Bytes(b) => Some(*b as f64),
        Cell::Text(text) => {
            let text = match text.rsplit_once('(') {
                Some((_, size)) => size.trim_end_matches(')'),
                None => text.as_str(),
            };
            let digits: String = text
                .trim_start_matches('≤')
                .trim()
                .trim_end_matches('B')
                .trim()
                .chars()
                .filter(|c| *c != ',')
                .collect();
            digits.parse::<u64>().ok().map(|b| b as f64)
        }
        _ => None,
    }
}

/// Peak against input size, one line per strategy, over the rows of generated lines (the worst
/// case is another input, not a size); `None` when the table has fewer than two such rows.
fn r4_plot(r4: &Table) -> Option<Plot> {
    let generated: Vec<usize> = (0..r4.rows.len())
        .filter(|&i| r4.rows[i][0].render().contains("generated lines"))
        .collect();
    if generated.len() < 2 {
        return None;
    }
    let points = |column: &str| -> Option<Vec<(f64, f64)>> {
        generated
            .iter()
            .map(|&i| {
                Some((
                    bytes_of(r4.cell(i, INPUT)?)?,
                    bytes_of(r4.cell(i, column)?)?,
                ))
            })
            .collect()
    };
    let sizes = points(INPUT)?;
    let mut plot = Plot::lines(
        "r4-peak-by-input",
        "Peak resident memory of the whole command against the size of its input (a point marked ≤ in R4 is an upper bound)",
        "input piped in, bytes (log scale)",
        "peak resident set, bytes (log scale)",
    )
    .series("the input itself", sizes);
    plot.log_x = true;
    plot.log_y = true;
    for strategy in STRATEGY_COLUMNS {
        plot = plot.series(strategy.name(), points(&format!("`{strategy}`"))?);
    }
    Some(plot)
}

#[cfg(test)]
mod tests {
    use lab::Kind;

    use super::*;

    /// A table shaped as R4's: two rows of generated lines and a worst case.
    fn r4_like(floor_cell: Cell) -> Table {
        let mut columns = vec![INPUT];
        let names: Vec<String> = STRATEGY_COLUMNS.iter().map(|s| format!("`{s}`")).collect();
        columns.extend(names.iter().map(String::as_str));
        let mut table = Table::new("R4", Kind::Fact, "", &columns);
        for (label, size) in [
            ("100,000 generated lines", 3_000_000),
            ("1,000,000 generated lines", 30_000_000),
            ("worst case", 16_000_000),
        ] {
            let mut row = vec![Cell::text(format!(
                "{label} ({})",
                Cell::Bytes(size).render()
            ))];
            row.extend(STRATEGY_COLUMNS.iter().map(|_| floor_cell.clone()));
            table.row(row);
        }
        table
    }

    #[test]
    fn r4_figure_reads_byte_counts_and_upper_bounds_at_the_floor() {
        assert_eq!(bytes_of(&Cell::Bytes(4_096)), Some(4_096.0));
        assert_eq!(bytes_of(&Cell::text("≤ 3,203,072 B")), Some(3_203_072.0));
        assert_eq!(
            bytes_of(&Cell::text("100,000 generated lines (3,409,568 B)")),
            Some(3_409_568.0)
        );
        assert_eq!(bytes_of(&Cell::text("(none)")), None);
    }

    #[test]
    fn r4_figure_draws_the_generated_rows_of_every_strategy_and_the_input() {
        let plot = r4_plot(&r4_like(Cell::text("≤ 3,000,000 B"))).expect("a figure");
        assert_eq!(plot.series.len(), 1 + STRATEGY_COLUMNS.len());
        assert!(
            plot.series.iter().all(|s| s.points.len() == 2),
            "the worst case is left out"
        );
        assert_eq!(plot.series[0].points, vec![(3e6, 3e6), (3e7, 3e7)]);
        assert_eq!(plot.series[1].points[1], (3e7, 3e6));
        // A cell that is no byte count leaves the table without a figure, not a wrong one.
        assert!(r4_plot(&r4_like(Cell::text("—"))).is_none());
    }
}
