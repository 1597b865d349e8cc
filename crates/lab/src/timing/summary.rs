//! Median and quartiles of one copy's samples.

use serde::{Deserialize, Serialize};

/// Median and quartiles of one copy's per-operation samples.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Median nanoseconds per operation over the rounds.
    pub median_ns: f64,
    /// First quartile.
    pub p25_ns: f64,
    /// Third quartile.
    pub p75_ns: f64,
}

impl Summary {
    /// Summarises samples (nanoseconds per operation).
    ///
    /// # Panics
    /// If there are no samples.
    pub fn of(samples: &[f64]) -> Self {
        assert!(!samples.is_empty(), "no samples to summarise");
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        Summary {
            median_ns: quantile(&sorted, 0.5),
            p25_ns: quantile(&sorted, 0.25),
            p75_ns: quantile(&sorted, 0.75),
        }
    }
}

/// Linear-interpolated quantile of sorted data.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate() {
        let s = Summary::of(&[4.0, 1.0, 3.0, 2.0]);
        assert_eq!((s.p25_ns, s.median_ns, s.p75_ns), (1.75, 2.5, 3.25));
    }
}
