//! R4's figure: each strategy's peak against the size of its generated input, drawn from R4's
//! own table after `memory::r4_peak_memory` has built it.

use lab::plot::Plot;
use lab::report::Run;
use lab::{Cell, Table};

use super::{STRATEGY_COLUMNS, memory};

/// The column of R4 that holds each input's size.
const INPUT_SIZE: &str = "input size";

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

/// A byte count in a cell: `Cell::Bytes`, or a text such as `≤ 3,203,072 B` (a figure at the
/// measuring process's floor, which is an upper bound).
fn bytes_of(cell: &Cell) -> Option<f64> {
    match cell {
        Cell::Bytes(b) => Some(*b as f64),
        Cell::Text(text) => {
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
                    bytes_of(r4.cell(i, INPUT_SIZE)?)?,
                    bytes_of(r4.cell(i, column)?)?,
                ))
            })
            .collect()
    };
    let sizes = points(INPUT_SIZE)?;
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
