//! The publish rule (M5, second version): which timed figures may be printed.
//!
//! A timed method is measured in K independent processes; in each, it runs interleaved with its
//! **twin**, a second copy of the same code (two monomorphisations kept apart by one constant, so
//! their instruction counts can differ slightly). Two noise sources follow, and a figure must
//! beat both:
//!
//! - the **twin disagreement**, inside one process: what code placement alone moves a median;
//! - the **between-process spread**: how far the per-process medians lie apart (heap state, page
//!   faults, frequency, neighbours on the machine: what twins in one process cannot see).
//!
//! The rules:
//!
//! - A **difference** `a − b` (the median over processes of the per-process differences) is
//!   printed only if it has the same sign in every process and is larger than the twin
//!   disagreement *and* the between-process spread of every method in it, and than an absolute
//!   floor: 1 % of the larger median, and one instruction's worth of time
//!   ([`ONE_INSTRUCTION_NS`], the same in every process).
//! - A **ratio** `a / b` (the median of the per-process ratios) is printed only if its difference
//!   is printable, it stays within its precision when either twin is swapped in, in every
//!   process, and its range over processes does not cross 1×. When that range is wider than the
//!   precision, it is printed with the ratio: `3.0× (2.3–3.7)`.
//! - A **verdict** (a target met or missed, which of two methods is faster, a crossover size) is
//!   evaluated in every process on that process's figures, and printed only if every process
//!   reaches the same one; otherwise it *varies between runs (2 of 3)*.
//!
//! - A **bound** (`at least 3×`, `at most 0.5×`) is what a ratio says on another machine: its
//!   difference must be printable, and the ratio's least favourable value here (over processes
//!   and twin swaps) must clear the bound by [`TRANSFER_MARGIN`]; the bound is then the
//!   roundest number (1, 1.5, 2, 3, 5 times a power of ten, or its inverse below 1×) that it
//!   clears. A ratio too close
//!   to 1× for that is this machine's figure, not a conclusion. Chapter 1 says how the margin
//!   was chosen, and `xtask` checks it against every machine record.
//!
//! Everything here is arithmetic on numbers: [`crate::timing`] supplies them, [`crate::table`]
//! renders the outcome, and the unit tests below exercise each rule on synthetic figures.

/// The precision every timed ratio of the course must hold under twin swap to be printed (±10 %).
pub const RATIO_PRECISION: f64 = 0.10;

/// How far a ratio's least favourable value here must lie beyond a bound for the bound to be
/// printed as a conclusion for other machines: ×4. `cargo xtask` checks that no figure in a
/// machine record moved further than this from the committed one (chapter 1, M10).
pub const TRANSFER_MARGIN: f64 = 4.0;

/// A difference smaller than this fraction of the larger median is never printed.
pub const ABSOLUTE_FLOOR_FRACTION: f64 = 0.01;

/// One instruction's worth of time: a cycle of a 4 GHz core. A fixed figure, the same in every
/// process (instruction counts are taken in one process only, and callgrind counts every
/// iteration of a `rep stos` as an instruction, so a measured time per instruction would be
/// neither comparable between processes nor a cycle).
pub const ONE_INSTRUCTION_NS: f64 = 0.25;

/// A method's median and its twin's median in one process, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    /// The original copy's median.
    pub original_ns: f64,
    /// The twin's median.
    pub twin_ns: f64,
}

impl Pair {
    /// The twins' absolute disagreement: this method's noise floor in this process.
    pub fn noise_ns(&self) -> f64 {
        (self.original_ns - self.twin_ns).abs()
    }

    /// The disagreement as a percentage of the pair's mean.
    pub fn disagreement_pct(&self) -> f64 {
        let mean = (self.original_ns + self.twin_ns) / 2.0;
        if mean > 0.0 {
            100.0 * self.noise_ns() / mean
        } else {
            0.0
        }
    }
}

/// One method's figures in every process that measured it.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    /// The original's and the twin's median, one pair per process.
    pub per_process: Vec<Pair>,
}

/// The median of a non-empty list (the mean of the two middle values for an even length).
///
/// # Panics
/// If `values` is empty.
pub fn median(values: &[f64]) -> f64 {
    assert!(!values.is_empty(), "the median of nothing");
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    }
}

fn min_max(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    })
}

impl Figures {
    /// Figures from a single process.
    pub fn single(pair: Pair) -> Self {
        Figures {
            per_process: vec![pair],
        }
    }

    /// How many processes measured the method.
    pub fn processes(&self) -> usize {
        self.per_process.len()
    }

    /// The printed figure: the median of the per-process medians.
    pub fn median_ns(&self) -> f64 {
        median(&self.originals())
    }

    fn originals(&self) -> Vec<f64> {
        self.per_process.iter().map(|p| p.original_ns).collect()
    }

    /// The largest twin disagreement of any process, in nanoseconds.
    pub fn twin_noise_ns(&self) -> f64 {
        self.per_process
            .iter()
            .map(Pair::noise_ns)
            .fold(0.0, f64::max)
    }

    /// The largest twin disagreement of any process, as a percentage.
    pub fn twin_disagreement_pct(&self) -> f64 {
        self.per_process
            .iter()
            .map(Pair::disagreement_pct)
            .fold(0.0, f64::max)
    }

    /// The between-process spread: the largest per-process median minus the smallest.
    pub fn spread_ns(&self) -> f64 {
        let (lo, hi) = min_max(self.per_process.iter().map(|p| p.original_ns));
        hi - lo
    }

    /// The between-process spread as a percentage of the median.
    pub fn spread_pct(&self) -> f64 {
        let median = self.median_ns();
        if median > 0.0 {
            100.0 * self.spread_ns() / median
        } else {
            0.0
        }
    }

    /// The noise a difference involving this method must beat: the larger of its twin
    /// disagreement and its between-process spread.
    pub fn noise_ns(&self) -> f64 {
        self.twin_noise_ns().max(self.spread_ns())
    }
}

/// Why a figure was not printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// Smaller than a method's twin disagreement.
    TwinNoise,
    /// Smaller than a method's between-process spread.
    ProcessSpread,
    /// Below the absolute floor (1 % of the larger median, or one instruction's worth).
    AbsoluteFloor,
    /// The per-process differences do not all have the same sign.
    SignFlips,
    /// A ratio that moves more than its precision when a twin is swapped in.
    TwinSwap,
    /// A ratio whose range over processes crosses 1×.
    CrossesOne,
}

/// Why a figure was not printed, in a few words for a table cell.
pub fn reason_text(reason: Reason) -> &'static str {
    match reason {
        Reason::TwinNoise => "inside the twins' disagreement",
        Reason::ProcessSpread => "inside the spread between processes",
        Reason::AbsoluteFloor => "below the absolute floor",
        Reason::SignFlips => "the sign flips between processes",
        Reason::TwinSwap => "moves more than its precision under twin swap",
        Reason::CrossesOne => "its range crosses 1×",
    }
}

/// What the rule decided about a difference.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// The figure may be printed.
    Published(f64),
    /// It may not: the figure it would have been, the noise it had to beat, and why it failed.
    NotResolvable {
        /// The figure (the median of the per-process differences).
        value: f64,
        /// The noise or floor that beat it, in nanoseconds.
        noise: f64,
        /// Which rule refused it.
        reason: Reason,
    },
}

impl Verdict {
    /// Whether the figure may be printed.
    pub fn is_published(self) -> bool {
        matches!(self, Verdict::Published(_))
    }

    /// The figure, printed or not.
    pub fn value(self) -> f64 {
        match self {
            Verdict::Published(value) | Verdict::NotResolvable { value, .. } => value,
        }
    }
}

/// The absolute floor under which no difference between `a` and `b` is printed.
pub fn absolute_floor_ns(a: &Figures, b: &Figures) -> f64 {
    let larger = a.median_ns().abs().max(b.median_ns().abs());
    (ABSOLUTE_FLOOR_FRACTION * larger).max(ONE_INSTRUCTION_NS)
}

/// `a − b`: the median over processes of the per-process differences, if they all have the
/// same sign and it beats every method's twin disagreement and between-process spread and the
/// absolute floor.
///
/// # Panics
/// If `a` and `b` were not measured in the same number of processes.
pub fn difference(a: &Figures, b: &Figures) -> Verdict {
    assert_eq!(
        a.processes(),
        b.processes(),
        "a difference needs both methods from the same processes"
    );
    let diffs: Vec<f64> = a
        .per_process
        .iter()
        .zip(&b.per_process)
        .map(|(x, y)| x.original_ns - y.original_ns)
        .collect();
    let value = median(&diffs);
    let twin = a.twin_noise_ns().max(b.twin_noise_ns());
    let spread = a.spread_ns().max(b.spread_ns());
    let floor = absolute_floor_ns(a, b);
    let refuse = |noise, reason| Verdict::NotResolvable {
        value,
        noise,
        reason,
    };
    let same_sign = diffs.iter().all(|d| *d > 0.0) || diffs.iter().all(|d| *d < 0.0);
    if !same_sign {
        refuse(0.0, Reason::SignFlips)
    } else if value.abs() <= twin {
        refuse(twin, Reason::TwinNoise)
    } else if value.abs() <= spread {
        refuse(spread, Reason::ProcessSpread)
    } else if value.abs() <= floor {
        refuse(floor, Reason::AbsoluteFloor)
    } else {
        Verdict::Published(value)
    }
}

/// What the rule decided about a ratio.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RatioVerdict {
    /// The ratio may be printed, with its range over processes.
    Published {
        /// The median of the per-process ratios.
        value: f64,
        /// The smallest per-process ratio.
        lo: f64,
        /// The largest per-process ratio.
        hi: f64,
    },
    /// It may not.
    NotResolvable {
        /// The median of the per-process ratios.
        value: f64,
        /// Which rule refused it.
        reason: Reason,
    },
}

impl RatioVerdict {
    /// Whether the ratio may be printed.
    pub fn is_published(self) -> bool {
        matches!(self, RatioVerdict::Published { .. })
    }

    /// The ratio, printed or not.
    pub fn value(self) -> f64 {
        match self {
            RatioVerdict::Published { value, .. } | RatioVerdict::NotResolvable { value, .. } => {
                value
            }
        }
    }
}

/// The largest relative change of `a / b` in one process when either twin is swapped in (0.1 =
/// 10 %).
pub fn ratio_spread(a: Pair, b: Pair) -> f64 {
    let value = a.original_ns / b.original_ns;
    let swaps = [
        a.twin_ns / b.original_ns,
        a.original_ns / b.twin_ns,
        a.twin_ns / b.twin_ns,
    ];
    swaps
        .iter()
        .map(|r| (r - value).abs() / value)
        .fold(0.0, f64::max)
}

/// The smallest and the largest of `a / b` over the four ways of taking each method's original
/// or twin, in one process: the ratio's margin under twin swap.
pub fn ratio_bounds(a: Pair, b: Pair) -> (f64, f64) {
    min_max(
        [
            a.original_ns / b.original_ns,
            a.twin_ns / b.original_ns,
            a.original_ns / b.twin_ns,
            a.twin_ns / b.twin_ns,
        ]
        .into_iter(),
    )
}

/// `a / b` under the rule (see the module docs), with `precision` a fraction (0.1 = ±10 %).
///
/// # Panics
/// If `a` and `b` were not measured in the same number of processes.
pub fn ratio(a: &Figures, b: &Figures, precision: f64) -> RatioVerdict {
    let ratios: Vec<f64> = a
        .per_process
        .iter()
        .zip(&b.per_process)
        .map(|(x, y)| x.original_ns / y.original_ns)
        .collect();
    let value = median(&ratios);
    if let Verdict::NotResolvable { reason, .. } = difference(a, b) {
        return RatioVerdict::NotResolvable { value, reason };
    }
    let swap = a
        .per_process
        .iter()
        .zip(&b.per_process)
        .map(|(x, y)| ratio_spread(*x, *y))
        .fold(0.0, f64::max);
    if swap > precision {
        return RatioVerdict::NotResolvable {
            value,
            reason: Reason::TwinSwap,
        };
    }
    let (lo, hi) = min_max(ratios.iter().copied());
    if lo <= 1.0 && hi >= 1.0 {
        return RatioVerdict::NotResolvable {
            value,
            reason: Reason::CrossesOne,
        };
    }
    RatioVerdict::Published { value, lo, hi }
}

/// Which side of its bound a ratio lies on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// `a / b` is at least the bound (a speed-up).
    AtLeast,
    /// `a / b` is at most the bound (below 1×).
    AtMost,
}

impl Relation {
    /// Whether `ratio` lies on this side of `bound`.
    pub fn holds(self, ratio: f64, bound: f64) -> bool {
        match self {
            Relation::AtLeast => ratio >= bound,
            Relation::AtMost => ratio <= bound,
        }
    }
}

/// What the rule decided about a ratio as a conclusion for other machines.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BoundVerdict {
    /// The bound, and the ratio it comes from: its median and its least and most favourable
    /// values over processes and twin swaps.
    Published {
        /// Which side.
        relation: Relation,
        /// The bound.
        bound: f64,
        /// The median of the per-process ratios.
        value: f64,
        /// The smallest ratio over processes and twin swaps.
        lo: f64,
        /// The largest.
        hi: f64,
    },
    /// The difference is printable but the ratio is too close to 1× for a bound that clears
    /// [`TRANSFER_MARGIN`]: the figure is this machine's.
    ThisMachine {
        /// The median of the per-process ratios.
        value: f64,
        /// The smallest ratio over processes and twin swaps.
        lo: f64,
        /// The largest.
        hi: f64,
    },
    /// The difference itself is not printable.
    NotResolvable {
        /// Which rule refused it.
        reason: Reason,
    },
}

/// The roundest number at or below `x` (≥ 1): 1, 1.5, 2, 3 or 5 times a power of ten.
///
/// The power of ten is found by multiplying and dividing by ten, which IEEE 754 rounds exactly
/// the same way everywhere (`log10` and `powi` need not, and do not under Miri), so a bound is
/// the same on every machine.
pub fn round_bound(x: f64) -> f64 {
    const STEPS: [f64; 6] = [1.0, 1.5, 2.0, 3.0, 5.0, 10.0];
    let mut decade = 1.0_f64;
    while decade * 10.0 <= x {
        decade *= 10.0;
    }
    while decade > x && decade > f64::MIN_POSITIVE {
        decade /= 10.0;
    }
    STEPS
        .iter()
        .map(|s| s * decade)
        .filter(|c| *c <= x * (1.0 + 1e-12))
        .fold(decade, f64::max)
}

/// `a / b` as a bound for other machines, with `margin` (the course uses [`TRANSFER_MARGIN`]).
///
/// # Panics
/// If `a` and `b` were not measured in the same number of processes.
pub fn bound(a: &Figures, b: &Figures, margin: f64) -> BoundVerdict {
    if let Verdict::NotResolvable { reason, .. } = difference(a, b) {
        return BoundVerdict::NotResolvable { reason };
    }
    let value = median(
        &a.per_process
            .iter()
            .zip(&b.per_process)
            .map(|(x, y)| x.original_ns / y.original_ns)
            .collect::<Vec<_>>(),
    );
    let (lo, hi) = a
        .per_process
        .iter()
        .zip(&b.per_process)
        .map(|(x, y)| ratio_bounds(*x, *y))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (l, h)| {
            (lo.min(l), hi.max(h))
        });
    if lo / margin >= 1.0 {
        BoundVerdict::Published {
            relation: Relation::AtLeast,
            bound: round_bound(lo / margin),
            value,
            lo,
            hi,
        }
    } else if hi * margin <= 1.0 {
        BoundVerdict::Published {
            relation: Relation::AtMost,
            bound: 1.0 / round_bound(1.0 / (hi * margin)),
            value,
            lo,
            hi,
        }
    } else {
        BoundVerdict::ThisMachine { value, lo, hi }
    }
}

/// Whether a published ratio's range over processes is wider than its precision (±`precision`
/// around the ratio: the range's half-width against it), so that the range is printed beside it.
pub fn shows_range(value: f64, lo: f64, hi: f64, precision: f64) -> bool {
    value > 0.0 && (hi - lo) / 2.0 / value > precision
}

/// What the processes said about one verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Agreement<T> {
    /// Every process reached this verdict.
    All(T),
    /// They did not agree: the most common verdict was reached by `agree` of `of` processes;
    /// `unresolved` of the others could not resolve the question at all.
    Varies {
        /// How many processes reached the most common verdict.
        agree: usize,
        /// How many processes there were.
        of: usize,
        /// How many processes could not resolve the question.
        unresolved: usize,
    },
    /// No process could resolve the question.
    NotResolvable,
}

/// Combines the per-process outcomes of a verdict (`None`: that process could not resolve it).
pub fn agreement<T: PartialEq>(outcomes: Vec<Option<T>>) -> Agreement<T> {
    let of = outcomes.len();
    if outcomes.iter().all(Option::is_none) {
        return Agreement::NotResolvable;
    }
    let agree = outcomes
        .iter()
        .map(|o| {
            o.as_ref().map_or(0, |o| {
                outcomes.iter().filter(|x| x.as_ref() == Some(o)).count()
            })
        })
        .max()
        .unwrap_or(0);
    let unresolved = outcomes.iter().filter(|o| o.is_none()).count();
    if agree == of {
        let first = outcomes.into_iter().next().flatten();
        match first {
            Some(value) => Agreement::All(value),
            None => Agreement::NotResolvable,
        }
    } else {
        Agreement::Varies {
            agree,
            of,
            unresolved,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bound is the roundest number the least favourable ratio clears by the margin.
    #[test]
    fn a_bound_is_the_roundest_number_cleared_by_the_margin() {
        assert_eq!(round_bound(2.4), 2.0);
        assert_eq!(round_bound(9.9), 5.0);
        assert_eq!(round_bound(10.0), 10.0);
        assert_eq!(round_bound(1.49), 1.0);
        assert_eq!(round_bound(760.0), 500.0);
        let fast = Figures {
            per_process: vec![pair(1.0, 1.0), pair(1.1, 1.0)],
        };
        let slow = Figures {
            per_process: vec![pair(12.0, 12.1), pair(13.0, 13.0)],
        };
        // slow / fast: least favourable 12 / 1.1 = 10.9, cleared by ×4 down to 2.7: at least 2×.
        match bound(&slow, &fast, 4.0) {
            BoundVerdict::Published {
                relation, bound, ..
            } => assert_eq!((relation, bound), (Relation::AtLeast, 2.0)),
            other => panic!("{other:?}"),
        }
        // fast / slow: at most 1.1 / 12 × 4 = 0.367, the inverse of 2.7: at most 0.5×.
        match bound(&fast, &slow, 4.0) {
            BoundVerdict::Published {
                relation, bound, ..
            } => assert_eq!((relation, bound), (Relation::AtMost, 0.5)),
            other => panic!("{other:?}"),
        }
    }

    /// A ratio too close to 1× for the margin is this machine's figure, not a bound.
    #[test]
    fn a_ratio_near_one_is_this_machines_figure() {
        let a = Figures {
            per_process: vec![pair(30.0, 30.0), pair(31.0, 31.0)],
        };
        let b = Figures {
            per_process: vec![pair(10.0, 10.0), pair(10.0, 10.1)],
        };
        assert!(matches!(
            bound(&a, &b, 4.0),
            BoundVerdict::ThisMachine { .. }
        ));
        let same = Figures {
            per_process: vec![pair(10.0, 10.0), pair(10.0, 10.0)],
        };
        assert!(matches!(
            bound(&same, &b, 4.0),
            BoundVerdict::NotResolvable { .. }
        ));
    }

    fn pair(original_ns: f64, twin_ns: f64) -> Pair {
        Pair {
            original_ns,
            twin_ns,
        }
    }

    /// Figures from several processes, each with its (original, twin) pair.
    fn figures(pairs: &[(f64, f64)]) -> Figures {
        Figures {
            per_process: pairs.iter().map(|&(o, t)| pair(o, t)).collect(),
        }
    }

    /// M3, M5: the publish rule.
    #[test]
    fn a_difference_larger_than_both_twin_disagreements_is_published() {
        // The seed's 8 KiB literal row: 97.56 ns zeroed vs 4.93 ns not, twins within 0.5 ns.
        let verdict = difference(&figures(&[(97.56, 97.2)]), &figures(&[(4.93, 5.1)]));
        assert_eq!(verdict, Verdict::Published(97.56 - 4.93));
    }

    /// M3, M5: the publish rule.
    #[test]
    fn a_difference_inside_one_methods_twin_noise_is_not_resolvable() {
        // The seed's Var1024NoInit: twins at 5.522 and 6.542 ns; an effect of 0.86 ns is inside.
        let verdict = difference(
            &figures(&[(5.522 + 0.86, 5.522 + 0.86)]),
            &figures(&[(5.522, 6.542)]),
        );
        match verdict {
            Verdict::NotResolvable { noise, reason, .. } => {
                assert!((noise - 1.02).abs() < 1e-9);
                assert_eq!(reason, Reason::TwinNoise);
            }
            Verdict::Published(_) => panic!("published a difference inside a twin disagreement"),
        }
    }

    /// M3, M5: the publish rule.
    #[test]
    fn a_difference_inside_the_between_process_spread_is_not_resolvable() {
        // Tight twins in every process, but the heap method's medians move by 50 ns between
        // processes: a 30 ns effect is not a conclusion.
        let heap = figures(&[(130.0, 130.2), (150.0, 150.1), (180.0, 180.3)]);
        let stack = figures(&[(120.0, 120.1), (120.5, 120.4), (120.2, 120.3)]);
        let verdict = difference(&heap, &stack);
        assert!(
            matches!(
                verdict,
                Verdict::NotResolvable {
                    reason: Reason::ProcessSpread,
                    ..
                }
            ),
            "{verdict:?}"
        );
        // The same difference with processes that agree is published.
        let steady = figures(&[(150.0, 150.2), (150.5, 150.1), (149.8, 150.3)]);
        assert!(difference(&steady, &stack).is_published());
    }

    /// M3, M5: the publish rule.
    #[test]
    fn a_difference_below_the_absolute_floor_is_never_printed() {
        // Twins that agree to the femtosecond still cannot make 0.000115 ns a figure.
        let a = figures(&[(0.687_115, 0.687_115)]);
        let b = figures(&[(0.687, 0.687)]);
        assert!(matches!(
            difference(&a, &b),
            Verdict::NotResolvable {
                reason: Reason::AbsoluteFloor,
                ..
            }
        ));
        // Nor 0.5 % of a large figure.
        let a = figures(&[(1000.0, 1000.0)]);
        let b = figures(&[(995.0, 995.0)]);
        assert!(matches!(
            difference(&a, &b),
            Verdict::NotResolvable {
                reason: Reason::AbsoluteFloor,
                ..
            }
        ));
        // Nor less than one instruction's worth (a cycle at 4 GHz), though above 1 %.
        let a = figures(&[(10.2, 10.2)]);
        let b = figures(&[(10.0, 10.0)]);
        assert!(matches!(
            difference(&a, &b),
            Verdict::NotResolvable {
                reason: Reason::AbsoluteFloor,
                ..
            }
        ));
    }

    /// M3, M5: the publish rule.
    #[test]
    fn a_ratio_that_moves_under_twin_swap_is_not_resolvable() {
        // The seed's 256 B cell: the difference passes, but the factor moves from 3.3 to 4.5.
        let zeroed = figures(&[(2.60, 2.60)]);
        let unzeroed = figures(&[(0.68, 0.58)]);
        assert!(difference(&zeroed, &unzeroed).is_published());
        assert!(matches!(
            ratio(&zeroed, &unzeroed, 0.10),
            RatioVerdict::NotResolvable {
                reason: Reason::TwinSwap,
                ..
            }
        ));
        // With tight twins the same ratio is published.
        assert_eq!(
            ratio(&figures(&[(2.6, 2.6)]), &figures(&[(0.65, 0.65)]), 0.10),
            RatioVerdict::Published {
                value: 4.0,
                lo: 4.0,
                hi: 4.0
            }
        );
    }

    /// M3, M5: the publish rule.
    #[test]
    fn a_ratio_whose_processes_disagree_is_printed_with_its_range() {
        // Three processes: 2.3×, 3.0×, 3.7× with tight twins in each.
        let heap = figures(&[(230.0, 230.1), (300.0, 300.2), (370.0, 369.9)]);
        let stack = figures(&[(100.0, 100.1), (100.0, 99.9), (100.0, 100.0)]);
        let RatioVerdict::Published { value, lo, hi } = ratio(&heap, &stack, 0.10) else {
            panic!("a resolvable ratio was refused");
        };
        assert_eq!((value, lo, hi), (3.0, 2.3, 3.7));
        assert!(shows_range(value, lo, hi, 0.10));
        // A range inside the precision (±10 %: half-width 0.3 at 3.0×) is not shown.
        assert!(!shows_range(3.0, 2.75, 3.25, 0.10));
    }

    /// M3, M5: the publish rule.
    #[test]
    fn a_difference_whose_sign_flips_between_processes_is_not_resolvable() {
        // Two processes say A is slower by 12 ns, the third that it is faster by 9 ns: the median
        // (12 ns) beats both methods' spread (11 and 10 ns), yet it is no conclusion.
        let a = figures(&[(112.0, 112.0), (112.0, 112.0), (101.0, 101.0)]);
        let b = figures(&[(100.0, 100.0), (100.0, 100.0), (110.0, 110.0)]);
        assert!(matches!(
            difference(&a, &b),
            Verdict::NotResolvable {
                reason: Reason::SignFlips,
                ..
            }
        ));
        // Nor is the ratio, whose range crosses 1×.
        assert!(matches!(
            ratio(&a, &b, 0.10),
            RatioVerdict::NotResolvable {
                reason: Reason::SignFlips,
                ..
            }
        ));
    }

    /// M3, M5: a target is judged against the ratio's margin under twin swap.
    #[test]
    fn ratio_bounds_span_every_twin_swap() {
        assert_eq!(ratio_bounds(pair(10.0, 12.0), pair(2.0, 2.5)), (4.0, 6.0));
    }

    /// M3, M5: the publish rule.
    #[test]
    fn a_ratio_needs_a_resolvable_difference() {
        assert!(!ratio(&figures(&[(10.0, 10.0)]), &figures(&[(10.0, 10.0)]), 0.5).is_published());
    }

    /// M3, M5: the publish rule.
    #[test]
    fn a_verdict_that_flips_in_one_process_varies_between_runs() {
        assert_eq!(
            agreement(vec![Some("met"), Some("met"), Some("missed")]),
            Agreement::Varies {
                agree: 2,
                of: 3,
                unresolved: 0
            }
        );
        assert_eq!(
            agreement(vec![Some("met"), Some("met"), Some("met")]),
            Agreement::All("met")
        );
        // A process that could not resolve the question does not agree.
        assert_eq!(
            agreement(vec![Some("met"), None, Some("met")]),
            Agreement::Varies {
                agree: 2,
                of: 3,
                unresolved: 1
            }
        );
        assert_eq!(
            agreement::<&str>(vec![None, None]),
            Agreement::NotResolvable
        );
    }

    #[test]
    fn medians_of_even_and_odd_lists() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
    }
}
