//! The decision rules behind timed conclusions across sizes (S2, S12, P11): given, for one
//! process, whether a method was resolvably faster than another at each size, where does it
//! start winning for good, and at which sizes does it win?
//!
//! The experiments evaluate these rules in every process of a timed run and print a verdict
//! only if every process reaches the same one ([`crate::timing::BySize`]); here they are plain
//! functions of the outcomes. An outcome is `Some(true)` (resolvably faster at that size),
//! `Some(false)` (resolvably slower) or `None` (not resolvable in that process).
//!
//! ```
//! use lab::verdicts::{crossover, describe_sizes, sizes_where};
//! let outcomes = [(1, Some(false)), (4, None), (8, Some(true)), (16, Some(true))];
//! assert_eq!(crossover(&outcomes), Some(8));
//! let n = |n: usize| format!("N = {n}");
//! assert_eq!(describe_sizes(&sizes_where(&outcomes), outcomes.len(), n), "at N = 8, N = 16");
//! ```

/// The smallest size from which the method is resolvably faster at that size and at every
/// larger one (`outcomes` in ascending order of size); `None` if it is not at the largest.
pub fn crossover(outcomes: &[(usize, Option<bool>)]) -> Option<usize> {
    outcomes
        .iter()
        .rev()
        .take_while(|(_, faster)| *faster == Some(true))
        .last()
        .map(|(size, _)| *size)
}

/// The sizes at which the method is resolvably faster.
pub fn sizes_where(outcomes: &[(usize, Option<bool>)]) -> Vec<usize> {
    outcomes
        .iter()
        .filter(|(_, faster)| *faster == Some(true))
        .map(|(size, _)| *size)
        .collect()
}

/// A list of sizes as a verdict: `at every size` (when it holds all `of` sizes), `at no size`,
/// or `at N = 1, N = 16` (each size written by `label`).
pub fn describe_sizes(sizes: &[usize], of: usize, label: impl Fn(usize) -> String) -> String {
    match sizes {
        [] => "at no size".to_owned(),
        _ if sizes.len() == of => "at every size".to_owned(),
        _ => {
            let list: Vec<String> = sizes.iter().map(|&s| label(s)).collect();
            format!("at {}", list.join(", "))
        }
    }
}

/// A crossover as a verdict: `from N = 8` (the size written by `label`), or `at no size`.
pub fn describe_crossover(crossover: Option<usize>, label: impl Fn(usize) -> String) -> String {
    crossover.map_or_else(|| "at no size".to_owned(), |n| format!("from {}", label(n)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(n: usize) -> String {
        format!("N = {n}")
    }

    /// S2, P11: a crossover is the size from which a method wins at every larger size.
    #[test]
    fn a_crossover_must_hold_at_every_larger_size() {
        let dip = [(1, Some(true)), (4, Some(false)), (8, Some(true))];
        assert_eq!(crossover(&dip), Some(8));
        let unresolved_at_the_top = [(1, Some(true)), (4, None)];
        assert_eq!(crossover(&unresolved_at_the_top), None);
        let everywhere = [(1, Some(true)), (4, Some(true))];
        assert_eq!(crossover(&everywhere), Some(1));
        assert_eq!(crossover(&[]), None);
    }

    #[test]
    fn sizes_are_described_as_a_verdict() {
        assert_eq!(describe_sizes(&[], 7, n), "at no size");
        assert_eq!(describe_sizes(&[1, 4], 2, n), "at every size");
        assert_eq!(describe_sizes(&[1, 16], 7, n), "at N = 1, N = 16");
        assert_eq!(describe_crossover(Some(32), n), "from N = 32");
        assert_eq!(describe_crossover(None, n), "at no size");
    }
}
