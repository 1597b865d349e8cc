//! Line charts and bar charts as plain SVG, for the figures a reader would rather see than read.
//!
//! Written by hand rather than with a plotting crate: a chart here is a few polylines, ticks and
//! labels, the output must be byte-for-byte deterministic (it is checked like any generated
//! file), and SVG text needs no font on the machine that draws it.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::fmt::{decade_floor, pow10, significant};

/// One line of a chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// The legend entry.
    pub name: String,
    /// `(x, y)` points, drawn in order.
    pub points: Vec<(f64, f64)>,
}

/// A chart: `cargo xtask report` writes it to `docs/img/<file>.svg`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plot {
    /// File stem under `docs/img/`.
    pub file: String,
    /// Title drawn above the chart.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// The lines; in a bar chart, one bar each (its name, and the `y` of its first point).
    pub series: Vec<Series>,
    /// A horizontal bar chart: one bar per series, its value along the horizontal axis
    /// (`x_label`, logarithmic if `log_x`); `y_label` and `log_y` are not used.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bars: bool,
}

impl Plot {
    /// A line chart with no lines yet.
    pub fn lines(file: &str, title: &str, x_label: &str, y_label: &str) -> Self {
        Plot {
            file: file.to_owned(),
            title: title.to_owned(),
            x_label: x_label.to_owned(),
            y_label: y_label.to_owned(),
            log_x: false,
            log_y: false,
            series: Vec::new(),
            bars: false,
        }
    }

    /// A horizontal bar chart with no bars yet; `value_label` names the horizontal axis.
    pub fn bars(file: &str, title: &str, value_label: &str) -> Self {
        Plot {
            bars: true,
            ..Plot::lines(file, title, value_label, "")
        }
    }

    /// Adds a line (or, in a bar chart, a bar: `points` of one `(0, value)`).
    pub fn series(mut self, name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        self.series.push(Series {
            name: name.into(),
            points,
        });
        self
    }

    /// Adds a bar.
    pub fn bar(self, name: impl Into<String>, value: f64) -> Self {
        self.series(name, vec![(0.0, value)])
    }
}

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 420.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
];

struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
}

impl Axis {
    fn new(values: impl Iterator<Item = f64>, log: bool) -> Self {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in values.filter(|v| v.is_finite() && (!log || *v > 0.0)) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if !lo.is_finite() {
            (lo, hi) = (1.0, 10.0);
        }
        if log {
            lo = pow10(decade_floor(lo));
            let top = decade_floor(hi);
            hi = if pow10(top) < hi {
                pow10(top + 1)
            } else {
                pow10(top)
            };
            if hi <= lo {
                hi = lo * 10.0;
            }
        } else {
            if !log && lo > 0.0 && lo < hi * 0.5 {
                lo = 0.0;
            }
            if hi <= lo {
                hi = lo + 1.0;
            }
            let step = nice_step((hi - lo) / 5.0);
            lo = (lo / step).floor() * step;
            hi = (hi / step).ceil() * step;
        }
        Axis { lo, hi, log }
    }

    /// Position in [0, 1] along the axis.
    fn fraction(&self, v: f64) -> f64 {
        if self.log {
            (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        }
    }

    fn ticks(&self) -> Vec<f64> {
        if self.log {
            (decade_floor(self.lo)..=decade_floor(self.hi))
                .map(pow10)
                .collect()
        } else {
            let step = nice_step((self.hi - self.lo) / 5.0);
            let count = ((self.hi - self.lo) / step).round() as usize;
            (0..=count).map(|i| self.lo + step * i as f64).collect()
        }
    }
}

fn nice_step(raw: f64) -> f64 {
    let magnitude = 10f64.powf(raw.log10().floor());
    let base = raw / magnitude;
    let nice = if base <= 1.0 {
        1.0
    } else if base <= 2.0 {
        2.0
    } else if base <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * magnitude
}

/// A tick or value label: a whole number as one (`2`, `1,000`), else three significant digits.
fn tick(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        let n = crate::fmt::thousands(x.abs() as u64);
        if x < 0.0 { format!("−{n}") } else { n }
    } else {
        significant(x, 3)
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

impl Plot {
    /// The chart as a standalone SVG document.
    pub fn to_svg(&self) -> String {
        if self.bars {
            return self.bars_svg();
        }
        let points = || self.series.iter().flat_map(|s| s.points.iter());
        let x_axis = Axis::new(points().map(|p| p.0), self.log_x);
        let y_axis = Axis::new(points().map(|p| p.1), self.log_y);
        let (plot_w, plot_h) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
        let px = |x: f64| LEFT + x_axis.fraction(x) * plot_w;
        let py = |y: f64| TOP + (1.0 - y_axis.fraction(y)) * plot_h;
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
            WIDTH / 2.0,
            escape(&self.title)
        );
        for x in x_axis.ticks() {
            let _ = writeln!(
                svg,
                r##"<line x1="{0:.1}" y1="{1}" x2="{0:.1}" y2="{2}" stroke="#ddd"/><text x="{0:.1}" y="{3}" text-anchor="middle">{4}</text>"##,
                px(x),
                TOP,
                TOP + plot_h,
                TOP + plot_h + 16.0,
                tick(x)
            );
        }
        for y in y_axis.ticks() {
            let _ = writeln!(
                svg,
                r##"<line x1="{0}" y1="{1:.1}" x2="{2}" y2="{1:.1}" stroke="#ddd"/><text x="{3}" y="{4:.1}" text-anchor="end">{5}</text>"##,
                LEFT,
                py(y),
                LEFT + plot_w,
                LEFT - 6.0,
                py(y) + 4.0,
                tick(y)
            );
        }
        let _ = writeln!(
            svg,
            r#"<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="black"/>"#
        );
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            LEFT + plot_w / 2.0,
            HEIGHT - 14.0,
            escape(&self.x_label)
        );
        let _ = writeln!(
            svg,
            r#"<text x="18" y="{0}" text-anchor="middle" transform="rotate(-90 18 {0})">{1}</text>"#,
            TOP + plot_h / 2.0,
            escape(&self.y_label)
        );
        for (idx, series) in self.series.iter().enumerate() {
            let colour = COLOURS[idx % COLOURS.len()];
            let path: Vec<String> = series
                .points
                .iter()
                .filter(|(x, y)| (!self.log_x || *x > 0.0) && (!self.log_y || *y > 0.0))
                .map(|(x, y)| format!("{:.1},{:.1}", px(*x), py(*y)))
                .collect();
            let _ = writeln!(
                svg,
                r#"<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{}"/>"#,
                path.join(" ")
            );
            let legend_y = TOP + 16.0 + 16.0 * idx as f64;
            let _ = writeln!(
                svg,
                r#"<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="{colour}" stroke-width="3"/><text x="{3}" y="{4}">{5}</text>"#,
                LEFT + 10.0,
                legend_y,
                LEFT + 30.0,
                LEFT + 36.0,
                legend_y + 4.0,
                escape(&series.name)
            );
        }
        svg.push_str("</svg>\n");
        svg
    }
}

impl Plot {
    fn bars_svg(&self) -> String {
        const LABELS: f64 = 300.0;
        const BAR: f64 = 22.0;
        let values = || {
            self.series
                .iter()
                .filter_map(|s| s.points.first().map(|p| p.1))
        };
        let axis = Axis::new(
            values().chain([if self.log_x { 1.0 } else { 0.0 }]),
            self.log_x,
        );
        let plot_w = WIDTH - LABELS - RIGHT;
        let plot_h = BAR * 1.5 * self.series.len() as f64;
        let height = TOP + plot_h + BOTTOM;
        let px = |v: f64| LABELS + axis.fraction(v) * plot_w;
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
            WIDTH / 2.0,
            escape(&self.title)
        );
        for v in axis.ticks() {
            let _ = writeln!(
                svg,
                r##"<line x1="{0:.1}" y1="{1}" x2="{0:.1}" y2="{2}" stroke="#ddd"/><text x="{0:.1}" y="{3}" text-anchor="middle">{4}</text>"##,
                px(v),
                TOP,
                TOP + plot_h,
                TOP + plot_h + 16.0,
                tick(v)
            );
        }
        for (idx, series) in self.series.iter().enumerate() {
            let Some(&(_, value)) = series.points.first() else {
                continue;
            };
            let y = TOP + BAR * 0.25 + BAR * 1.5 * idx as f64;
            let start = px(if self.log_x {
                axis.lo
            } else {
                0.0f64.max(axis.lo)
            });
            let colour = COLOURS[idx % COLOURS.len()];
            let _ = writeln!(
                svg,
                r#"<rect x="{start:.1}" y="{y:.1}" width="{:.1}" height="{BAR}" fill="{colour}"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text><text x="{:.1}" y="{:.1}">{}</text>"#,
                (px(value) - start).max(1.0),
                LABELS - 6.0,
                y + BAR * 0.7,
                escape(&series.name),
                px(value) + 4.0,
                y + BAR * 0.7,
                tick(value)
            );
        }
        let _ = writeln!(
            svg,
            r#"<rect x="{LABELS}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="black"/>"#
        );
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            LABELS + plot_w / 2.0,
            height - 14.0,
            escape(&self.x_label)
        );
        svg.push_str("</svg>\n");
        svg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_every_series_and_log_ticks() {
        let plot = Plot {
            file: "demo".into(),
            title: "bytes <by> N".into(),
            x_label: "N".into(),
            y_label: "bytes".into(),
            log_x: true,
            log_y: true,
            series: vec![
                Series {
                    name: "fresh".into(),
                    points: vec![(1.0, 128.0), (1000.0, 128_000.0)],
                },
                Series {
                    name: "pooled".into(),
                    points: vec![(1.0, 2048.0), (1000.0, 2048.0)],
                },
            ],
            bars: false,
        };
        let svg = plot.to_svg();
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert!(svg.contains("bytes &lt;by&gt; N"));
        assert!(
            svg.contains(">1,000<") && svg.contains(">1,000,000<"),
            "{svg}"
        );
        assert_eq!(svg, plot.to_svg(), "deterministic");
    }

    #[test]
    fn a_bar_chart_draws_one_labelled_bar_per_series() {
        let plot = Plot::bars("demo", "ns per item", "ns per item")
            .bar("one `Box` per item", 12.0)
            .bar("bumpalo", 3.0);
        let svg = plot.to_svg();
        assert_eq!(svg.matches("<rect x=").count(), 3, "two bars and the frame");
        assert!(svg.contains(">one `Box` per item<") && svg.contains(">bumpalo<"));
        assert_eq!(svg, plot.to_svg(), "deterministic");
    }
}
