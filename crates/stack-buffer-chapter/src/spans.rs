//! The decision rules behind this chapter's own verdicts (S3, S5, S7): a timed figure known only
//! within bounds, and comparisons that hold whichever bound is taken.
//!
//! A method measured in one process gives two medians, its own and its twin's; a strategy of S7
//! gives six (three identical copies, each with a twin). Each is the same operation measured
//! again, so the figure is only known to lie between the smallest and the largest of them: a
//! [`Span`]. A verdict compares spans and answers only where they do not overlap: `Some(true)`,
//! `Some(false)`, or `None` (not resolvable in that process). The experiments evaluate these
//! rules in every process and print a verdict only if all agree (`lab::timing::agree`).
//!
//! ```
//! use stack_buffer_chapter::spans::Span;
//! let zeroed = Span::of(&[30.0, 31.0]); // a method and its twin, ns
//! let unzeroed = Span::of(&[5.0, 5.5]);
//! // Zeroing (zeroed − unzeroed) costs more than the unzeroed call itself, whichever twin:
//! assert_eq!(zeroed.minus(unzeroed).minus(unzeroed).sign(), Some(true));
//! ```

/// A figure known to lie between `lo` and `hi`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    /// The smallest value.
    pub lo: f64,
    /// The largest value.
    pub hi: f64,
}

impl Span {
    /// The span of some measurements of the same figure.
    ///
    /// # Panics
    /// If `values` is empty.
    pub fn of(values: &[f64]) -> Span {
        assert!(!values.is_empty(), "a span of nothing");
        let (lo, hi) = values
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        Span { lo, hi }
    }

    /// `self − other`, for every pair of values.
    pub fn minus(self, other: Span) -> Span {
        Span {
            lo: self.lo - other.hi,
            hi: self.hi - other.lo,
        }
    }

    /// `self / other`, for every pair of values; `None` unless both are positive throughout.
    pub fn over(self, other: Span) -> Option<Span> {
        (self.lo > 0.0 && other.lo > 0.0).then(|| Span {
            lo: self.lo / other.hi,
            hi: self.hi / other.lo,
        })
    }

    /// `k / self` (a rate from a cost); `None` unless the span is positive throughout.
    pub fn reciprocal(self, k: f64) -> Option<Span> {
        (self.lo > 0.0).then(|| Span {
            lo: k / self.hi,
            hi: k / self.lo,
        })
    }

    /// `Some(true)` if every value is above 0, `Some(false)` if every value is below, `None` if
    /// the span holds 0.
    pub fn sign(self) -> Option<bool> {
        if self.lo > 0.0 {
            Some(true)
        } else if self.hi < 0.0 {
            Some(false)
        } else {
            None
        }
    }

    /// How far a ratio in this span is from 1×, as `|ln r|`, over the span (`None` unless the
    /// span is positive). A span that holds 1× starts at 0.
    pub fn distance_from_one(self) -> Option<Span> {
        if self.lo <= 0.0 {
            return None;
        }
        let (a, b) = (self.lo.ln().abs(), self.hi.ln().abs());
        let lo = if self.lo <= 1.0 && self.hi >= 1.0 {
            0.0
        } else {
            a.min(b)
        };
        Some(Span { lo, hi: a.max(b) })
    }
}

/// `Some(true)` if every value of `a` is below every value of `b`, `Some(false)` if every value
/// is above, `None` if they overlap.
pub fn below(a: Span, b: Span) -> Option<bool> {
    b.minus(a).sign()
}

/// The middle value (the median of an odd count; the upper middle one of an even count).
///
/// # Panics
/// If `values` is empty.
pub fn middle(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

/// One figure for several copies of a method, each with a twin, as the publish rule's pair
/// (figure, twin): the middle of the copies' own medians (their median for three copies), and the one figure of all (copies and
/// twins) that lies farthest from it. The pair's disagreement is then the largest distance of
/// any copy or twin from the figure, so a difference or a ratio built on it must beat the
/// spread of the copies as well as their twins'.
///
/// ```
/// let (figure, farthest) = stack_buffer_chapter::spans::copies_pair(&[10.0, 11.0, 13.0], &[10.5, 9.0, 11.0]);
/// assert_eq!((figure, farthest), (11.0, 13.0));
/// ```
///
/// # Panics
/// If `originals` is empty.
pub fn copies_pair(originals: &[f64], twins: &[f64]) -> (f64, f64) {
    let figure = middle(originals);
    let farthest = originals
        .iter()
        .chain(twins)
        .copied()
        .fold(figure, |far, v| {
            if (v - figure).abs() > (far - figure).abs() {
                v
            } else {
                far
            }
        });
    (figure, farthest)
}

/// S7: whether the gain dilutes, in one process: `Some(true)` if the whole operation's ratio is
/// closer to 1× than the touch's whichever copies and twins are taken, `Some(false)` if it is
/// farther, `None` if their distances from 1× overlap (or a span is not positive).
pub fn dilutes(touch_ratio: Span, whole_ratio: Span) -> Option<bool> {
    below(
        whole_ratio.distance_from_one()?,
        touch_ratio.distance_from_one()?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// S3: zeroing outweighs the rest only if zeroed − 2 × unzeroed stays positive whichever
    /// twin is taken.
    #[test]
    fn s3_a_difference_of_spans_is_signed_only_outside_its_noise() {
        let u = Span::of(&[5.0, 6.0]);
        assert_eq!(Span::of(&[13.0, 13.5]).minus(u).minus(u).sign(), Some(true));
        assert_eq!(Span::of(&[11.0, 11.5]).minus(u).minus(u).sign(), None);
        assert_eq!(Span::of(&[8.0, 8.5]).minus(u).minus(u).sign(), Some(false));
    }

    /// S5: rates compare only when their spans do not overlap.
    #[test]
    fn s5_rates_from_costs_compare_only_apart() {
        let inline = Span::of(&[1.0, 1.1]).reciprocal(256.0).unwrap();
        let call = Span::of(&[3.0, 3.2]).reciprocal(264.0).unwrap();
        assert_eq!(below(call, inline), Some(true));
        let close = Span::of(&[1.05, 1.2]).reciprocal(264.0).unwrap();
        assert_eq!(below(close, inline), None);
        assert_eq!(Span::of(&[-0.1, 1.0]).reciprocal(256.0), None);
    }

    /// S7: the dilution must beat the copies' spread.
    #[test]
    fn s7_dilution_needs_distances_from_one_apart() {
        let touch = Span { lo: 0.35, hi: 0.4 };
        assert_eq!(dilutes(touch, Span { lo: 0.95, hi: 1.02 }), Some(true));
        assert_eq!(dilutes(touch, Span { lo: 0.2, hi: 0.3 }), Some(false));
        assert_eq!(dilutes(touch, Span { lo: 0.38, hi: 2.0 }), None);
        assert_eq!(
            Span { lo: 0.9, hi: 1.2 }.distance_from_one().unwrap().lo,
            0.0
        );
    }

    /// S7: the copies' figure is their median, its noise the farthest copy or twin.
    #[test]
    fn s7_three_copies_give_their_median_and_the_farthest_figure() {
        assert_eq!(copies_pair(&[1.0, 2.0, 3.0], &[2.0, 2.0, 2.0]), (2.0, 1.0));
        assert_eq!(copies_pair(&[2.0, 2.0, 2.0], &[2.0, 2.5, 2.0]), (2.0, 2.5));
        assert_eq!(middle(&[4.0, 1.0, 9.0]), 4.0);
    }
}
