//! One timing run per size, and the verdicts read across sizes.

use crate::protocol::Allocator;
use crate::table::Claim;

use super::measured::{Measured, agree};

/// One timing run per size (S1, P10…): rows of a by-size table, read across sizes by the
/// [`crate::verdicts`] rules.
#[derive(Debug, Clone)]
pub struct BySize {
    /// The size (items, bytes: the caller's unit).
    pub size: usize,
    /// The run at that size.
    pub measured: Measured,
}

impl BySize {
    /// The same runs under `allocator`, where every one of them was measured there.
    pub fn under(runs: &[BySize], allocator: Allocator) -> Option<Vec<BySize>> {
        runs.iter()
            .map(|s| {
                s.measured.under(allocator).map(|m| BySize {
                    size: s.size,
                    measured: m.clone(),
                })
            })
            .collect()
    }

    /// In process `p`: whether `a` was resolvably faster than `b`, size by size.
    pub fn outcomes(runs: &[&BySize], p: usize, a: &str, b: &str) -> Vec<(usize, Option<bool>)> {
        runs.iter()
            .map(|s| (s.size, s.measured.processes[p].faster(a, b)))
            .collect()
    }

    /// Every process's verdict on the sizes at which `a` is faster than `b` (each size written
    /// by `label`); printed if they agree.
    pub fn sizes_where_faster(
        runs: &[&BySize],
        a: &str,
        b: &str,
        label: impl Fn(usize) -> String,
    ) -> Claim {
        Self::across_sizes(runs, a, b, |outcomes| {
            crate::verdicts::describe_sizes(
                &crate::verdicts::sizes_where(outcomes),
                outcomes.len(),
                &label,
            )
        })
    }

    /// Every process's verdict on the size from which `a` is faster than `b` for good.
    pub fn crossover_claim(
        runs: &[&BySize],
        a: &str,
        b: &str,
        label: impl Fn(usize) -> String,
    ) -> Claim {
        Self::across_sizes(runs, a, b, |outcomes| {
            crate::verdicts::describe_crossover(crate::verdicts::crossover(outcomes), &label)
        })
    }

    /// A rule of [`crate::verdicts`] applied to each process's outcomes across the sizes;
    /// printed if every process reaches the same verdict.
    fn across_sizes(
        runs: &[&BySize],
        a: &str,
        b: &str,
        rule: impl Fn(&[(usize, Option<bool>)]) -> String,
    ) -> Claim {
        agree(runs[0].measured.process_count(), |p| {
            Some(rule(&Self::outcomes(runs, p, a, b)))
        })
    }
}
