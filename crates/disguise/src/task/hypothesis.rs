//! [`Hypothesis`]: choose, privately, the decision stump (one column, one threshold or one
//! level) that best predicts a binary label — hypothesis selection with the large margin
//! mechanism (Chaudhuri, Hsu & Song 2014) or the other selectors, over a public class of
//! stumps whose thresholds come from public bounds.
//!
//! Privacy: replacing one record changes every stump's count of correct answers by at most 1,
//! so the one selection is the mechanism's own guarantee at λ = 1
//! ([`crate::apps::hypothesis::select_hypothesis`]). The class (columns, bounds, levels,
//! thresholds) must be public.

use super::{CompositionChoice, Privacy};
use crate::apps::hypothesis::{
    HypothesisQuery, HypothesisSelection, MAX_HYPOTHESES, StumpClass, hypothesis_spend,
    select_hypothesis, table_columns,
};
use crate::disclosure::{Diagnostic, Disclose, Public, Released};
use crate::error::{Error, Result};
use crate::histogram::Table;
use crate::names::Named;
use crate::noise::SecureRng;
use crate::privacy::{Delta, Epsilon};
use crate::select::SelectorKind;
use crate::task::Usefulness;
use serde::Serialize;

/// A private hypothesis selection: the mechanism, the budget and the threshold grid.
///
/// ```
/// use disguise::prelude::*;
/// use disguise::select::SelectorKind;
/// use disguise::task::Hypothesis;
///
/// let request = Hypothesis::new(SelectorKind::LargeMargin, 1.0, 1e-6);
/// assert!(request.validate().is_ok());
/// assert!(Hypothesis { thresholds: 0, ..request }.validate().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hypothesis {
    /// The selection (every choice but the monotone variants, which counts of correct
    /// answers do not allow).
    pub mechanism: SelectorKind,
    /// ε of the one selection; required unless the selection is the argmax.
    pub epsilon: Option<f64>,
    /// δ (> 0 for the large margin mechanisms).
    pub delta: f64,
    /// Grid thresholds per numeric column (the class has 2 stumps per threshold and column).
    pub thresholds: usize,
}

/// The default number of grid thresholds per numeric column.
pub const DEFAULT_THRESHOLDS: usize = 32;

impl Hypothesis {
    /// The selection with `mechanism` at (ε, δ) on the default grid.
    pub fn new(mechanism: SelectorKind, epsilon: f64, delta: f64) -> Self {
        Self {
            mechanism,
            epsilon: Some(epsilon),
            delta,
            thresholds: DEFAULT_THRESHOLDS,
        }
    }

    /// Validates every option that needs no data; returns the query the selection runs.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `mechanism` (one outside [`Privacy::MECHANISMS`]),
    /// `epsilon`, `delta` or `thresholds`, or an invalid ε or δ.
    pub fn validate(&self) -> Result<HypothesisQuery> {
        // The budget rules of every task: ε required for a private mechanism, δ > 0 for the
        // large margin mechanisms.
        Privacy {
            epsilon: self.epsilon,
            delta: self.delta,
            mechanism: self.mechanism,
            composition: CompositionChoice::Auto,
        }
        .procedure()?;
        if self.thresholds == 0 {
            return Err(Error::param(
                "thresholds",
                "must be at least 1 (grid thresholds per numeric column)",
            ));
        }
        // Every numeric column adds 2·N stumps: refuse a grid that cannot fit before reading.
        if self.thresholds > MAX_HYPOTHESES / 2 {
            return Err(Error::param(
                "thresholds",
                format!(
                    "at most {} (2 stumps per threshold and numeric column, at most \
                     {MAX_HYPOTHESES} hypotheses in all, each scored in memory), got {}",
                    MAX_HYPOTHESES / 2,
                    self.thresholds
                ),
            ));
        }
        Ok(HypothesisQuery {
            mechanism: self.mechanism,
            // The argmax spends nothing; its ε is a placeholder the selector ignores.
            epsilon: Epsilon::total(self.epsilon.unwrap_or(1.0))?,
            delta: Delta::total(self.delta)?,
        })
    }

    /// What the selection will spend, planned from the request alone before any record is
    /// read (one call of the mechanism: [`hypothesis_spend`]): what a budget ledger reserves
    /// first.
    ///
    /// # Errors
    /// As [`Hypothesis::validate`].
    pub fn plan(&self) -> Result<super::PrivacyReport> {
        let query = self.validate()?;
        let (cost, guarantee) = hypothesis_spend(&query)?;
        let private = guarantee.is_some();
        Ok(super::PrivacyReport {
            per_round_epsilon: private.then(|| Public::new(query.epsilon.get())),
            per_round_delta: private
                .then(|| Public::new(cost.epsilon_delta().map_or(0.0, |(_, d)| d))),
            ..super::PrivacyReport::stating(
                guarantee,
                1,
                if private { vec![(cost, 1)] } else { Vec::new() },
            )
        })
    }

    /// The stump class of `table` for predicting column `label` on this request's grid.
    ///
    /// # Errors
    /// As [`StumpClass::for_table`] (a class beyond [`MAX_HYPOTHESES`] is refused before it
    /// is built).
    pub fn class(&self, table: &Table, label: usize) -> Result<StumpClass> {
        StumpClass::for_table(table, label, self.thresholds)
    }

    /// One private selection on `table` with label column `label` and the 0/1 `labels` of
    /// its records ([`table_labels`](crate::apps::hypothesis::table_labels) makes them), with its class.
    ///
    /// # Errors
    /// As [`Hypothesis::validate`], [`Hypothesis::class`] and [`select_hypothesis`].
    pub fn run(
        &self,
        table: &Table,
        label: usize,
        labels: &[bool],
        rng: &mut SecureRng,
    ) -> Result<(StumpClass, HypothesisSelection)> {
        let query = self.validate()?;
        let class = self.class(table, label)?;
        let scores = class.correct_counts(&table_columns(table, label), labels)?;
        let selection = select_hypothesis(&class, &scores, labels.len(), &query, rng)?;
        Ok((class, selection))
    }

    /// The a-priori utility of a selection among `hypotheses` on `n` records, from public
    /// quantities only. The scores are counts of correct answers (sensitivity 1), and a
    /// constant guess already gets n/2 of them: for the exponential mechanism its error
    /// bound against n/2 ([`Usefulness::exponential`]), for the large margin mechanisms the
    /// margin G₁ against n ([`Usefulness::large_margin`]). `None` for report noisy max and
    /// the argmax.
    ///
    /// # Errors
    /// An ε or δ the large margin mechanism refuses (none that [`Hypothesis::validate`]
    /// accepts).
    pub fn usefulness(&self, hypotheses: usize, n: usize) -> Result<Option<Usefulness>> {
        let Some(epsilon) = self.epsilon else {
            return Ok(None);
        };
        if self.mechanism == SelectorKind::Exponential {
            let half = n as f64 / 2.0;
            return Ok(Some(Usefulness::exponential(
                hypotheses as f64,
                1.0,
                epsilon,
                half,
            )));
        }
        match self.mechanism.margin_variant() {
            Some(variant) => {
                Usefulness::large_margin(variant, epsilon, self.delta, 1.0, n).map(Some)
            }
            None => Ok(None),
        }
    }

    /// The report of a selection made by [`Hypothesis::run`] on `records` records: the
    /// chosen stump described with the label's classes `positive` and `negative`, whether
    /// the table's domains were public (`private_domains`: otherwise there is no guarantee)
    /// and the a-priori usefulness.
    ///
    /// # Errors
    /// As [`Hypothesis::usefulness`].
    pub fn report(
        &self,
        class: &StumpClass,
        selection: HypothesisSelection,
        records: usize,
        private_domains: bool,
        [positive, negative]: [&str; 2],
    ) -> Result<HypothesisReport> {
        Ok(HypothesisReport {
            mechanism: self.mechanism.name(),
            records: Public::new(records),
            thresholds: Public::new(self.thresholds),
            // Post-processing of the released index with the public class and classes.
            hypothesis: selection
                .index
                .map(|i| class.describe(i, positive, negative)),
            // From |H|, n and the options (Hypothesis::usefulness).
            usefulness: self
                .usefulness(*selection.hypotheses, records)?
                .map(Public::new),
            selection,
            test_accuracy: Diagnostic::new(None),
            private_domains: Public::new(private_domains),
        })
    }
}

/// The report of a [`Hypothesis`] selection: the public options and sizes, the released
/// stump and the guarantee. The accuracies are computed on the private records (and on
/// held-out records, which may be private too): [`Diagnostic`]s, NOT covered by the
/// guarantee, which protects the choice only, and shown only on request
/// ([`crate::disclosure::shown`]). Without public domains (`private_domains` false) there
/// is no guarantee at all.
#[derive(Debug, Clone, PartialEq, Serialize, Disclose)]
pub struct HypothesisReport {
    /// The selection mechanism.
    pub mechanism: &'static str,
    /// The number of records.
    pub records: Public<usize>,
    /// Thresholds per numeric column.
    pub thresholds: Public<usize>,
    /// The chosen stump, in words.
    pub hypothesis: Released<String>,
    /// The selection and its guarantee.
    #[serde(flatten)]
    pub selection: HypothesisSelection,
    /// Accuracy on a held-out test set, when the front end has one (NOT private).
    #[serde(skip)]
    pub test_accuracy: Diagnostic<Option<f64>>,
    /// Whether every domain (bounds, levels) was public, as the guarantee needs (false:
    /// some were taken from the data).
    pub private_domains: Public<bool>,
    /// The a-priori utility (for em and the large margin mechanisms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usefulness: Option<Public<Usefulness>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_refused_with_their_names() {
        let ok = Hypothesis::new(SelectorKind::LargeMargin, 1.0, 1e-6);
        assert!(ok.validate().is_ok());
        let cases = [
            (
                Hypothesis {
                    epsilon: None,
                    ..ok
                },
                "invalid epsilon: required",
            ),
            (Hypothesis { delta: 0.0, ..ok }, "needs δ > 0"),
            (
                Hypothesis {
                    thresholds: 0,
                    ..ok
                },
                "invalid thresholds: must be at least 1",
            ),
            (
                Hypothesis {
                    thresholds: usize::MAX,
                    ..ok
                },
                "invalid thresholds: at most",
            ),
            (
                Hypothesis {
                    epsilon: Some(1e6),
                    ..ok
                },
                "too large",
            ),
        ];
        for (request, expected) in cases {
            let err = request.validate().unwrap_err().to_string();
            assert!(err.contains(expected), "{err} (expected {expected})");
        }
        // The argmax needs no budget.
        let argmax = Hypothesis {
            mechanism: SelectorKind::Argmax,
            epsilon: None,
            delta: 0.0,
            ..ok
        };
        assert!(argmax.validate().is_ok());
    }

    #[test]
    fn the_report_shows_the_stump_and_only_on_request_the_accuracies() {
        use crate::apps::hypothesis::{FeatureSpec, HypothesisQuery};
        use crate::disclosure::shown;
        let class = StumpClass::new(
            vec![FeatureSpec::Numeric {
                name: "x".into(),
                lo: 0.0,
                hi: 1.0,
            }],
            3,
            true,
        )
        .unwrap();
        // Correct counts of each stump on 100 records: one is far ahead.
        let mut scores = vec![50.0; class.len()];
        scores[3] = 97.0;
        let request = Hypothesis::new(SelectorKind::Exponential, 2.0, 0.0);
        let query: HypothesisQuery = request.validate().unwrap();
        let mut rng = SecureRng::insecure_from_seed(4);
        let selection =
            crate::apps::hypothesis::select_hypothesis(&class, &scores, 100, &query, &mut rng)
                .unwrap();
        let mut report = request
            .report(&class, selection, 100, true, ["yes", "no"])
            .unwrap();
        report.test_accuracy = Diagnostic::new(Some(0.875));
        let plain = serde_json::to_value(shown(&report, false)).unwrap();
        for key in ["accuracy", "not_private"] {
            assert!(!plain.to_string().contains(key), "{key} in {plain}");
        }
        for key in [
            "hypothesis",
            "index",
            "stump",
            "hypotheses",
            "records",
            "guarantee",
        ] {
            assert!(plain.get(key).is_some(), "{key} missing from {plain}");
        }
        let both = serde_json::to_value(shown(&report, true)).unwrap();
        let np = &both["not_private"];
        assert_eq!(np["best_training_accuracy"], 0.97, "{np}");
        assert_eq!(np["test_accuracy"], 0.875, "{np}");
        let index = *report.selection.index;
        assert_eq!(np["training_accuracy"], scores[index] / 100.0, "{np}");
    }
}
