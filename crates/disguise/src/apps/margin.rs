//! The large margin mechanisms over explicit candidates plus an implicit *tail* of candidates
//! that all share one (lowest) score — without enumerating the tail.
//!
//! In frequent-itemset mining the universe is every r-subset of the item domain, but only the
//! itemsets that occur have a non-zero frequency; all others form a tail of equal, zero
//! scores, possibly of astronomical size or of unknown size. [`LargeMarginTail`] runs the
//! same margin search, with the same noise, thresholds and exact comparisons as
//! [`crate::select::LargeMargin`] / [`crate::select::LargeMargin::chaudhuri`] over the
//! universe "explicit candidates sorted, then the tail", and samples the final exponential
//! mechanism with [`super::sample_exponential_with_block`] when the top ℓ reaches into the
//! tail.

use super::block::{BlockChoice, sample_exponential_with_block};
use crate::error::{Error, Result};
use crate::noise::SecureRng;
use crate::privacy::{Delta, Epsilon, PrivacyCost, Sensitivity};
pub use crate::select::MarginVariant;
use crate::select::{LargeMargin, sample_exponential};
use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};
use serde::Serialize;

/// The default largest margin ℓ the search tests: 2²⁰. A public constant; see
/// [`LargeMarginTail`] for why any public cap keeps the guarantee.
pub const DEFAULT_MAX_MARGIN: u64 = 1 << 20;

/// The number of implicit tail candidates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TailSize {
    /// Exactly this many (the universe is finite and known).
    Finite(BigUint),
    /// Unknown or unbounded (the universe's size is not known; it is only assumed to be
    /// larger than the explicit candidates plus the search cap).
    Unbounded,
}

/// What [`LargeMarginTail::select`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "index", rename_all = "kebab-case")]
pub enum TailOutcome {
    /// The explicit candidate with this index.
    Explicit(usize),
    /// A member of the tail, uniform among the tail (the caller names it, if it can).
    Tail,
    /// The search found no margin up to the cap and the tail is unbounded: no candidate.
    NoMargin,
}

/// Explicit scores already sorted descending (ties in the order the caller ranks them),
/// read on demand, so that a caller with many candidates need not copy them all.
pub(crate) trait SortedScores {
    /// How many scores.
    fn len(&self) -> u64;
    /// The first `n` scores, `n` ≤ [`SortedScores::len`].
    fn prefix(&self, n: usize) -> Result<Vec<f64>>;
}

/// Scores sorted by [`LargeMarginTail::select`]: (score, original index) pairs.
struct Ordered<'a>(&'a [(f64, usize)]);

impl SortedScores for Ordered<'_> {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
    fn prefix(&self, n: usize) -> Result<Vec<f64>> {
        Ok(self.0[..n].iter().map(|&(s, _)| s).collect())
    }
}

/// One selection of [`LargeMarginTail`]: the outcome and the margin ℓ found (the size of
/// the top set sampled from; `None` with [`TailOutcome::NoMargin`]). ℓ may exceed the
/// number of explicit candidates when the top set reaches into the tail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TailSelection {
    /// What was chosen.
    pub outcome: TailOutcome,
    /// The margin ℓ.
    pub margin: Option<u64>,
}

/// A large margin mechanism over explicit candidates plus an implicit tail of equal scores,
/// with a public cap on the margin search.
///
/// The universe is: the explicit scores sorted descending (equal scores by lower index, as
/// in the library's selectors), then the tail, every member of which has score
/// `tail_score` ≤ every explicit score; K = (explicit count) + (tail size). For
/// ℓ = 1, …, min(`max_margin`, K − 1) the search tests "m − q(v_{ℓ+1}) > threshold_ℓ + noise"
/// exactly as the chosen variant does (q(v_{ℓ+1}) = `tail_score` once ℓ reaches the tail).
///
/// * **Pass at ℓ** — the exponential mechanism exp(ε·q/(dλ)) (d = 4 or 6) over the top ℓ.
///   If ℓ exceeds the explicit count L, the top ℓ is all explicit candidates plus ℓ − L
///   members of the tail, sampled as a block ([`super::sample_exponential_with_block`]):
///   the result [`TailOutcome::Tail`] stands for a uniform member of the tail (ties among
///   tail members are broken by a uniformly random, data-independent order of the universe).
/// * **No pass, finite tail** — ℓ = K: the exponential mechanism over the whole universe
///   (explicit candidates plus the whole tail as a block). This is the papers' last step
///   (Mitrovic: q(v_{|V|+1}) = −∞ always stops; Chaudhuri: the loop ends at ℓ = K).
/// * **No pass, unbounded tail** — [`TailOutcome::NoMargin`].
///
/// With `max_margin` ≥ K − 1 and a finite tail this is *exactly* the library's
/// [`LargeMargin`] / [`LargeMargin::chaudhuri`] run on the materialised universe (same noise,
/// same draws in the same order while the top set stays explicit; the test
/// `tests/api/apps.rs::tail_search_equals_library_on_materialised_universe` checks this draw for
/// draw).
///
/// # Guarantee
/// (ε, δ)-differential privacy for neighbouring datasets on which every score (explicit and
/// tail) changes by at most λ — the guarantee of the variant (mitrovic2017 Prop. 5.1;
/// chaudhuri2014 Thm. 2). The cap changes nothing: stopping the search at a public ℓ_max is
/// the original algorithm with the thresholds for ℓ > ℓ_max raised to +∞. In both proofs
/// (i) the released ℓ comes from AboveThreshold, which is private for *any* public
/// thresholds, including +∞, and whose "no pass" outcome is itself a private output; (ii) the
/// probability that the released ℓ is not a valid margin is bounded by Laplace tail events
/// that only become rarer when thresholds grow; and (iii) the final exponential mechanism
/// over the top ℓ is private given a valid margin, and ℓ = K is always valid. For an
/// unbounded tail, answering [`TailOutcome::NoMargin`] instead of ℓ = K is post-processing
/// of AboveThreshold's "no pass".
///
/// # Runtime
/// O(L log L) to sort the L explicit scores, O(ℓ) Laplace draws and exact comparisons for a
/// search that stops at ℓ (at most `max_margin`: the cap bounds the running time when there
/// is no margin), then an exponential mechanism on min(ℓ, L) scores (plus a block).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LargeMarginTail {
    variant: MarginVariant,
    epsilon: Epsilon,
    delta: Delta,
    max_margin: u64,
}

impl LargeMarginTail {
    /// The mechanism with budget (ε, δ), δ > 0, testing margins up to `max_margin`
    /// (e.g. [`DEFAULT_MAX_MARGIN`]; 0 tests none).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if δ = 0.
    pub fn new(
        variant: MarginVariant,
        epsilon: Epsilon,
        delta: Delta,
        max_margin: u64,
    ) -> Result<Self> {
        // The library's constructors validate δ with their own messages.
        match variant {
            MarginVariant::Mitrovic => LargeMargin::new(epsilon, delta).map(|_| ())?,
            MarginVariant::Chaudhuri => LargeMargin::chaudhuri(epsilon, delta).map(|_| ())?,
        }
        Ok(Self {
            variant,
            epsilon,
            delta,
            max_margin,
        })
    }

    /// The variant.
    pub fn variant(&self) -> MarginVariant {
        self.variant
    }

    /// The privacy cost of one call: (ε, δ), approximate.
    pub fn cost(&self) -> PrivacyCost {
        PrivacyCost::Approximate {
            epsilon: self.epsilon,
            delta: self.delta,
        }
    }

    /// The cap on the margin search.
    pub fn max_margin(&self) -> u64 {
        self.max_margin
    }

    /// Selects from `explicit` plus a tail of `tail` candidates with score `tail_score`.
    ///
    /// # Errors
    /// [`Error::EmptyCandidates`] if there is no candidate at all; [`Error::NonFiniteScore`];
    /// [`Error::InvalidParameter`] if `tail_score` is not finite or (with a non-empty tail)
    /// exceeds an explicit score, or if λ/ε is so extreme that a noise scale or threshold
    /// overflows.
    pub fn select(
        &self,
        explicit: &[f64],
        tail_score: f64,
        tail: &TailSize,
        sensitivity: Sensitivity,
        rng: &mut SecureRng,
    ) -> Result<TailSelection> {
        if let Some(index) = explicit.iter().position(|s| !s.is_finite()) {
            return Err(Error::NonFiniteScore {
                index,
                value: explicit[index],
            });
        }
        let tail_empty = matches!(tail, TailSize::Finite(t) if t.is_zero());
        if explicit.is_empty() && tail_empty {
            return Err(Error::EmptyCandidates);
        }
        if !tail_empty {
            if !tail_score.is_finite() {
                return Err(Error::param(
                    "tail_score",
                    format!("must be finite, got {tail_score}"),
                ));
            }
            if explicit.iter().any(|&s| s < tail_score) {
                return Err(Error::param(
                    "tail_score",
                    "must not exceed any explicit score (the tail ranks last)",
                ));
            }
        }
        // Sorted explicit candidates: score descending, then index ascending; −0.0 as +0.0.
        let mut order: Vec<(f64, usize)> = explicit.iter().map(|&s| s + 0.0).zip(0..).collect();
        order.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let s = self.select_sorted(&Ordered(&order), tail_score, tail, sensitivity, rng)?;
        Ok(TailSelection {
            outcome: match s.outcome {
                TailOutcome::Explicit(rank) => TailOutcome::Explicit(order[rank].1),
                other => other,
            },
            margin: s.margin,
        })
    }

    /// [`LargeMarginTail::select`] on explicit scores the caller has already sorted
    /// (descending; finite; none below `tail_score` when the tail is not empty — not
    /// checked): [`TailOutcome::Explicit`] then gives a rank in that order. Reads only the
    /// scores the search needs (at most `max_margin` + 1) unless it falls back to the whole
    /// universe.
    pub(crate) fn select_sorted(
        &self,
        sorted: &dyn SortedScores,
        tail_score: f64,
        tail: &TailSize,
        sensitivity: Sensitivity,
        rng: &mut SecureRng,
    ) -> Result<TailSelection> {
        let l = sorted.len();
        if l == 0 && matches!(tail, TailSize::Finite(t) if t.is_zero()) {
            return Err(Error::EmptyCandidates);
        }
        // K − 1, saturated (an unbounded tail: no last candidate).
        let k_minus_one: Option<u64> = match tail {
            TailSize::Finite(t) => (BigUint::from(l) + t - 1u32).to_u64().or(Some(u64::MAX)),
            TailSize::Unbounded => None,
        };
        let ell_max = match k_minus_one {
            Some(k1) => self.max_margin.min(k1),
            None => self.max_margin,
        };
        // The search reads ranks 0..=ell_max; the final mechanism on a top ℓ ≤ ell_max reads
        // no more (ℓ > L needs all L, and then ell_max ≥ L).
        let top = sorted.prefix(ell_max.saturating_add(1).min(l) as usize)?;
        let score_at = |rank: u64| -> f64 {
            if rank < top.len() as u64 {
                top[rank as usize]
            } else {
                tail_score
            }
        };
        let found = if ell_max == 0 {
            None
        } else {
            self.search(ell_max, &score_at, sensitivity, rng)?
        };
        let divisor = self.variant.divisor();
        match found {
            Some(ell) => self.em_on_top(&top, l, ell, tail_score, divisor, sensitivity, rng),
            None => match tail {
                TailSize::Unbounded => Ok(TailSelection {
                    outcome: TailOutcome::NoMargin,
                    margin: None,
                }),
                TailSize::Finite(t) => {
                    let all = if top.len() as u64 == l {
                        top
                    } else {
                        drop(top);
                        sorted.prefix(l as usize)?
                    };
                    let choice = sample_exponential_with_block(
                        rng,
                        &all,
                        tail_score,
                        t,
                        self.epsilon,
                        sensitivity,
                        divisor,
                    )?;
                    let k = (BigUint::from(l) + t).to_u64().unwrap_or(u64::MAX);
                    Ok(TailSelection {
                        outcome: match choice {
                            BlockChoice::Index(i) => TailOutcome::Explicit(i),
                            BlockChoice::Block => TailOutcome::Tail,
                        },
                        margin: Some(k),
                    })
                }
            },
        }
    }

    /// The exponential mechanism on the top `ell` of the universe, given the top scores
    /// `top` (at least min(ℓ, L) of them) of the L explicit ones.
    #[allow(clippy::too_many_arguments)]
    fn em_on_top(
        &self,
        top: &[f64],
        l: u64,
        ell: u64,
        tail_score: f64,
        divisor: u32,
        sensitivity: Sensitivity,
        rng: &mut SecureRng,
    ) -> Result<TailSelection> {
        let outcome = if ell <= l {
            let k = sample_exponential(
                rng,
                &top[..ell as usize],
                self.epsilon,
                sensitivity,
                divisor,
            )?;
            TailOutcome::Explicit(k)
        } else {
            match sample_exponential_with_block(
                rng,
                &top[..l as usize],
                tail_score,
                &BigUint::from(ell - l),
                self.epsilon,
                sensitivity,
                divisor,
            )? {
                BlockChoice::Index(i) => TailOutcome::Explicit(i),
                BlockChoice::Block => TailOutcome::Tail,
            }
        };
        Ok(TailSelection {
            outcome,
            margin: Some(ell),
        })
    }

    /// The margin search over ℓ = 1..=`ell_max`; `None` if no ℓ passes: the mechanism's own
    /// search ([`LargeMargin`]), on scores read through `score_at`.
    fn search(
        &self,
        ell_max: u64,
        score_at: &dyn Fn(u64) -> f64,
        sensitivity: Sensitivity,
        rng: &mut SecureRng,
    ) -> Result<Option<u64>> {
        let lmm = LargeMargin::with_variant(self.variant, self.epsilon, self.delta)?;
        let ell_max = usize::try_from(ell_max)
            .map_err(|_| Error::param("max_margin", "does not fit this platform's usize"))?;
        let mut at = |r: usize| score_at(r as u64);
        let found = lmm.search(ell_max, &mut at, sensitivity, self.delta.get().ln(), rng)?;
        Ok(found.map(|l| l as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{delta, eps, sens};

    #[test]
    fn validation() {
        let m = LargeMarginTail::new(MarginVariant::Mitrovic, eps(1.0), delta(1e-6), 10).unwrap();
        let mut rng = SecureRng::insecure_from_seed(1);
        let none = TailSize::Finite(BigUint::zero());
        assert_eq!(
            m.select(&[], 0.0, &none, sens(1.0), &mut rng),
            Err(Error::EmptyCandidates)
        );
        assert!(
            m.select(&[1.0], 2.0, &TailSize::Unbounded, sens(1.0), &mut rng)
                .is_err()
        );
        assert!(
            m.select(&[1.0, f64::NAN], 0.0, &none, sens(1.0), &mut rng)
                .is_err()
        );
        assert!(LargeMarginTail::new(MarginVariant::Chaudhuri, eps(1.0), Delta::ZERO, 10).is_err());
        // A single candidate: no search, ℓ = 1.
        let one = m.select(&[4.0], 0.0, &none, sens(1.0), &mut rng).unwrap();
        assert_eq!(one.outcome, TailOutcome::Explicit(0));
        assert_eq!(one.margin, Some(1));
    }

    #[test]
    fn clear_winner_over_an_unbounded_tail() {
        // q₁ = 2000 ≫ G₁ ≈ 430: the search stops at ℓ = 1 (P(miss) < 1e-10 per run).
        for variant in [MarginVariant::Mitrovic, MarginVariant::Chaudhuri] {
            let m = LargeMarginTail::new(variant, eps(1.0), delta(1e-6), 1000).unwrap();
            let mut rng = SecureRng::insecure_from_seed(2);
            for _ in 0..200 {
                let s = m
                    .select(
                        &[3.0, 2000.0, 1.0],
                        0.0,
                        &TailSize::Unbounded,
                        sens(1.0),
                        &mut rng,
                    )
                    .unwrap();
                assert_eq!(s.outcome, TailOutcome::Explicit(1));
                assert_eq!(s.margin, Some(1));
            }
        }
    }

    #[test]
    fn no_margin_with_unbounded_tail_reports_none() {
        // All scores 1: every test needs noise beyond ~430 at scale 16: P(pass) < 1e-10 per
        // test, 50 tests per run.
        let m = LargeMarginTail::new(MarginVariant::Mitrovic, eps(1.0), delta(1e-6), 50).unwrap();
        let mut rng = SecureRng::insecure_from_seed(3);
        for _ in 0..100 {
            let s = m
                .select(&[1.0, 1.0], 0.0, &TailSize::Unbounded, sens(1.0), &mut rng)
                .unwrap();
            assert_eq!(s.outcome, TailOutcome::NoMargin);
            assert_eq!(s.margin, None);
        }
    }

    #[test]
    fn margin_at_the_tail_boundary() {
        // Three explicit candidates at ≈1000 and a tail at 0: the search must stop at ℓ = 3
        // (the first test against the tail), P(otherwise) < 1e-10 per run.
        let m = LargeMarginTail::new(MarginVariant::Chaudhuri, eps(1.0), delta(1e-6), 100).unwrap();
        let mut rng = SecureRng::insecure_from_seed(4);
        let tail = TailSize::Finite(BigUint::from(10u32).pow(40));
        for _ in 0..200 {
            let s = m
                .select(&[1000.0, 999.0, 1000.0], 0.0, &tail, sens(1.0), &mut rng)
                .unwrap();
            assert_eq!(s.margin, Some(3));
            assert!(matches!(s.outcome, TailOutcome::Explicit(_)));
        }
    }
}
