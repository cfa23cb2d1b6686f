//! [`Itemsets`]: release the most frequent itemsets of a given size from transactions (one
//! per person), with the large margin mechanism over the itemsets that occur or the
//! exponential mechanism over every itemset of a public item list, T rounds of peeling, and
//! optionally noisy frequencies of the released itemsets.
//!
//! Privacy: neighbouring datasets differ in one transaction (replace-one); a frequency moves by
//! at most 1 per transaction of a size-bounded database, so the selection rounds are composed
//! by the accountant and the noisy frequencies by basic composition, as
//! [`crate::apps::itemsets`] documents. The item list, the size r, the maximum length B and
//! the caps are public.

use crate::apps::itemsets::{
    check_count_share, check_delta, check_item_list, check_max_margin, check_mechanism, check_size,
    check_top, check_universe, key_words,
};
use crate::apps::{
    DEFAULT_MAX_CANDIDATES, DEFAULT_MAX_LENGTH, DEFAULT_MAX_MARGIN, ITEMSET_MECHANISMS,
    ItemsetBudget, ItemsetCounts, ItemsetQuery, ItemsetRelease, Transactions, mine_itemsets,
};
use crate::disclosure::{Diagnostic, Disclose, Public, Released};
use crate::error::Result;
use crate::noise::SecureRng;
use crate::privacy::{Delta, Epsilon};
use crate::select::SelectorKind;
use crate::task::Usefulness;
use serde::Serialize;

/// A private frequent-itemset release: the size r, T, the mechanism, the total budget and
/// the public caps. Build it with [`Itemsets::new`] (and struct update for the rest:
/// `Itemsets { top: 5, ..Itemsets::new(2, 1.0, 1e-6) }`); [`Itemsets::validate`]
/// checks every option before the transactions are read.
///
/// ```
/// use disguise::apps::{TransactionFormat, Transactions};
/// use disguise::prelude::*;
/// use disguise::task::Itemsets;
///
/// let rows: Vec<Vec<&str>> = (0..200)
///     .map(|i| if i % 4 == 0 { vec!["tea", "cake"] } else { vec!["bread", "milk", "eggs"] })
///     .collect();
/// let t = Transactions::from_rows(&rows, None)?;
/// let release = Itemsets::new(2, 1.0, 1e-6).run(&t, &mut SecureRng::insecure_from_seed(1))?;
/// assert_eq!(release.picks.len(), 1);
/// assert!(*release.epsilon <= 1.0);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Itemsets {
    /// The itemset size r (≥ 1).
    pub size: usize,
    /// The number T of itemsets released, one per round (1 ..= [`MAX_TOP`](crate::apps::MAX_TOP)).
    pub top: usize,
    /// The selection mechanism, one of [`Itemsets::MECHANISMS`]; `None`: the task chooses
    /// ([`Itemsets::chosen_mechanism`]).
    pub mechanism: Option<SelectorKind>,
    /// The total ε of the release.
    pub epsilon: f64,
    /// The total δ (> 0 for the large margin mechanisms).
    pub delta: f64,
    /// The public cap on the margin search (≤ [`MAX_MARGIN_LIMIT`](crate::apps::MAX_MARGIN_LIMIT)).
    pub max_margin: u64,
    /// The share of ε spent on noisy frequencies of the released itemsets, in [0, 1).
    pub count_share: f64,
    /// The maximum transaction length B: longer transactions keep their B smallest items.
    pub max_length: usize,
    /// The most subsets of the transactions counting may enumerate.
    pub max_candidates: u64,
}

impl Itemsets {
    /// The mechanisms an itemset release can use ([`Itemsets::validate`] refuses the others).
    pub const MECHANISMS: &'static [SelectorKind] = ITEMSET_MECHANISMS;

    /// The top itemset of size `size` with the mechanism the task chooses, budget (ε, δ),
    /// the default caps and 10% of ε for its noisy frequency.
    pub fn new(size: usize, epsilon: f64, delta: f64) -> Self {
        Self {
            size,
            top: 1,
            mechanism: None,
            epsilon,
            delta,
            max_margin: DEFAULT_MAX_MARGIN,
            count_share: 0.1,
            max_length: DEFAULT_MAX_LENGTH,
            max_candidates: DEFAULT_MAX_CANDIDATES,
        }
    }

    /// The mechanism that runs: the one asked for, else with a public item list the
    /// exponential mechanism over its whole universe (fixed before the data is seen, so it
    /// needs no δ), and without one the large margin mechanism over the itemsets that occur
    /// (the only choice there).
    pub fn chosen_mechanism(&self, item_list: bool) -> SelectorKind {
        self.mechanism.unwrap_or(if item_list {
            SelectorKind::Exponential
        } else {
            SelectorKind::LargeMargin
        })
    }

    /// Validates every option; `item_list` says whether the transactions will come with a
    /// public item list (the exponential mechanism needs one).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) naming the option (`epsilon`, `delta`, `size`, `top`,
    /// `max_margin`, `max_length`, `count_share`, `items`), or an invalid ε or δ.
    pub fn validate(&self, item_list: bool) -> Result<()> {
        Epsilon::total(self.epsilon)?;
        Delta::new(self.delta)?;
        check_size(self.size, self.max_length)?;
        check_top(self.top)?;
        check_max_margin(self.max_margin)?;
        check_count_share(self.count_share)?;
        let mechanism = self.chosen_mechanism(item_list);
        check_mechanism(mechanism)?;
        check_delta(mechanism, self.delta)?;
        check_item_list(mechanism, item_list)?;
        Ok(())
    }

    /// Counts the itemsets of size r and releases T of them: [`Itemsets::count`] then
    /// [`Itemsets::release`].
    ///
    /// # Errors
    /// As [`Itemsets::validate`], [`Itemsets::count`] and [`mine_itemsets`].
    pub fn run(&self, transactions: &Transactions, rng: &mut SecureRng) -> Result<ItemsetRelease> {
        let counts = self.count(transactions)?;
        self.release(transactions, &counts, rng)
    }

    /// The counts of every occurring itemset of size r (transactions cut to B items), refused
    /// before counting when that would enumerate more than `max_candidates` subsets.
    ///
    /// # Errors
    /// As [`Itemsets::validate`]; [`Error::LimitExceeded`](crate::Error::LimitExceeded) with the estimate.
    pub fn count(&self, transactions: &Transactions) -> Result<ItemsetCounts> {
        self.validate(transactions.has_public_items())?;
        transactions.count_itemsets_within(self.size, self.max_length, self.max_candidates)
    }

    /// The private release of T itemsets from `counts` (which must come from
    /// [`Itemsets::count`] on the same transactions).
    ///
    /// # Errors
    /// As [`Itemsets::validate`] and [`mine_itemsets`].
    pub fn release(
        &self,
        transactions: &Transactions,
        counts: &ItemsetCounts,
        rng: &mut SecureRng,
    ) -> Result<ItemsetRelease> {
        let item_list = transactions.has_public_items();
        self.validate(item_list)?;
        mine_itemsets(transactions, counts, &self.query(item_list)?, rng)
    }

    /// The query of [`mine_itemsets`] (the budget spent at most as typed).
    fn query(&self, item_list: bool) -> Result<ItemsetQuery> {
        Ok(
            ItemsetQuery::new(Epsilon::total(self.epsilon)?, Delta::total(self.delta)?)
                .top(self.top)
                .mechanism(self.chosen_mechanism(item_list))
                .max_margin(self.max_margin)
                .count_share(self.count_share),
        )
    }

    /// What a release will spend, planned from the options alone before any transaction is
    /// read ([`ItemsetBudget`]: the T selections and the noisy counts): what a budget ledger
    /// reserves first. `item_list` says whether a public item list will be given.
    ///
    /// # Errors
    /// As [`Itemsets::validate`]; a budget no rule can split.
    pub fn plan(&self, item_list: bool) -> Result<super::PrivacyReport> {
        self.validate(item_list)?;
        let budget = ItemsetBudget::new(&self.query(item_list)?, self.size, self.max_length)?;
        let lmm = self.chosen_mechanism(item_list) != SelectorKind::Exponential;
        Ok(budget.planned(self.top, lmm))
    }

    /// The a-priori utility of a release, from public quantities only (n, the size of the
    /// universe, the per-round budget): for the large margin mechanisms the margin G₁ a
    /// round needs against n ([`Usefulness::large_margin`]); for the exponential mechanism
    /// over the C(items, r) itemsets of the public list, its error bound against n (no
    /// count exceeds n, so a larger shortfall says nothing; [`Usefulness::exponential`]).
    ///
    /// # Errors
    /// A per-round budget the large margin mechanism refuses (not one [`Itemsets::release`]
    /// returned).
    pub fn usefulness(&self, release: &ItemsetRelease) -> Result<Usefulness> {
        let (epsilon0, n) = (*release.per_round_epsilon, *release.transactions);
        // A release over a public item list states its universe.
        let mechanism = self.chosen_mechanism(release.universe_items.is_some());
        let Some(variant) = mechanism.margin_variant() else {
            let items = release.universe_items.map_or(0, Public::into_inner);
            // C(items, r) as a float: only its logarithm enters the bound.
            let universe = (0..self.size).fold(1.0f64, |c, i| {
                c * (items.saturating_sub(i)) as f64 / (i + 1) as f64
            });
            return Ok(Usefulness::exponential(universe, 1.0, epsilon0, n as f64));
        };
        let delta0 = *release.per_round_delta;
        let mut useful = Usefulness::large_margin(variant, epsilon0, delta0, 1.0, n)?;
        if useful.vacuous {
            // Itemsets can use the exponential mechanism only over a public item list.
            useful.advice = Some(
                "no gap can clear G₁; a larger ε, or a public item list with the exponential \
                 mechanism (--items, --mechanism em), would help"
                    .to_string(),
            );
        }
        Ok(useful)
    }
}

impl Itemsets {
    /// The report of `release` (made by this request from `transactions`): the release,
    /// the total δ asked for, the items it may name and the a-priori usefulness.
    ///
    /// # Errors
    /// As [`Itemsets::usefulness`].
    pub fn report(
        &self,
        transactions: &Transactions,
        release: ItemsetRelease,
    ) -> Result<ItemsetsReport> {
        Ok(ItemsetsReport {
            // From n, the public list's size and the per-round budget (Itemsets::usefulness).
            usefulness: Public::new(self.usefulness(&release)?),
            items: released_items(transactions, &release),
            delta_target: Public::new(self.delta),
            dropped_items: Diagnostic::new(transactions.dropped_items()),
            release,
        })
    }

    /// Checks a public item list against the request from public quantities alone, before
    /// any transaction is read (so that a front end refuses before it charges a budget
    /// ledger): some itemset of r of its distinct items exists, their universe C(|I|, r) is
    /// within [`MAX_UNIVERSE_BITS`](crate::apps::MAX_UNIVERSE_BITS), and r ids of the list
    /// fit in a counting key. The release checks the same again.
    ///
    /// ```
    /// use disguise::task::Itemsets;
    /// let items: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
    /// assert!(Itemsets::new(2, 1.0, 0.0).check_items(&items).is_ok());
    /// let err = Itemsets::new(4, 1.0, 0.0).check_items(&items).unwrap_err();
    /// assert!(err.to_string().contains("none exist"), "{err}");
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) naming `size`, or `items`
    /// for an empty list.
    pub fn check_items(&self, items: &[String]) -> Result<()> {
        if items.is_empty() {
            return Err(crate::Error::param("items", "the item list is empty"));
        }
        let distinct: std::collections::HashSet<&str> = items.iter().map(String::as_str).collect();
        check_universe(distinct.len() as u64, self.size)?;
        key_words(self.size, distinct.len())?;
        Ok(())
    }
}

/// The items a release may name: the public list when there is one, else those of its
/// released itemsets, in the canonical item order — never the items read from the
/// transactions, which would give away one person's rare item.
fn released_items(data: &Transactions, release: &ItemsetRelease) -> Released<Vec<String>> {
    if data.has_public_items() {
        // The public list: public, so released as it is.
        return Released::new(data.items().to_vec());
    }
    // Post-processing of the released itemsets.
    let mut items: Vec<String> = release
        .picks
        .iter()
        .filter_map(|p| p.itemset.as_ref())
        .flatten()
        .cloned()
        .collect();
    items.sort_unstable_by(|a, b| crate::apps::item_order(a, b));
    items.dedup();
    Released::new(items)
}

/// The report of an [`Itemsets`] release: the release (public options and sizes, the
/// released picks), the items it may name and the a-priori usefulness. The exact counts
/// and frequencies, whether a pick occurs, the numbers of occurring itemsets, of cut
/// transactions and of dropped items are computed on the private transactions:
/// [`Diagnostic`]s, NOT covered by the guarantee, shown only on request
/// ([`crate::disclosure::shown`]).
#[derive(Debug, Clone, PartialEq, Serialize, Disclose)]
pub struct ItemsetsReport {
    /// The release and its guarantee.
    #[serde(flatten)]
    pub release: ItemsetRelease,
    /// The total δ asked for.
    pub delta_target: Public<f64>,
    /// Item occurrences dropped for not being in the public item list (NOT private).
    #[serde(skip)]
    pub dropped_items: Diagnostic<u64>,
    /// The items the release may name ([`Itemsets::report`]): the public list, or the
    /// items of the released itemsets.
    pub items: Released<Vec<String>>,
    /// The a-priori utility: the large margin mechanisms' condition, or the exponential
    /// mechanism's error bound.
    pub usefulness: Public<Usefulness>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::Named;

    #[test]
    fn a_public_item_list_means_the_exponential_mechanism_unless_another_is_asked() {
        let default = Itemsets::new(2, 1.0, 0.0);
        assert_eq!(default.chosen_mechanism(true), SelectorKind::Exponential);
        assert_eq!(default.chosen_mechanism(false), SelectorKind::LargeMargin);
        // Without a list, lmm needs δ > 0: the default is validated as it will run.
        assert!(default.validate(true).is_ok());
        assert!(
            default
                .validate(false)
                .unwrap_err()
                .to_string()
                .contains("δ > 0")
        );
        let asked = Itemsets {
            mechanism: Some(SelectorKind::LargeMargin),
            ..Itemsets::new(2, 1.0, 1e-6)
        };
        assert_eq!(asked.chosen_mechanism(true), SelectorKind::LargeMargin);
        // Only the itemset mechanisms of the one vocabulary are accepted.
        for &kind in SelectorKind::ALL {
            let request = Itemsets {
                mechanism: Some(kind),
                ..Itemsets::new(2, 1.0, 1e-6)
            };
            let accepted = Itemsets::MECHANISMS.contains(&kind);
            assert_eq!(request.validate(true).is_ok(), accepted, "{kind}");
        }
    }

    #[test]
    fn options_are_refused_with_their_names() {
        let ok = Itemsets::new(2, 1.0, 1e-6);
        assert!(ok.validate(false).is_ok());
        let cases = [
            (
                Itemsets {
                    size: 0,
                    ..ok.clone()
                },
                "invalid size",
            ),
            (
                Itemsets {
                    top: 0,
                    ..ok.clone()
                },
                "invalid top: must be between 1 and",
            ),
            (
                Itemsets {
                    max_margin: u64::MAX,
                    ..ok.clone()
                },
                "invalid max_margin",
            ),
            (
                Itemsets {
                    max_length: 1,
                    ..ok.clone()
                },
                "invalid max_length",
            ),
            (
                Itemsets {
                    count_share: 1.0,
                    ..ok.clone()
                },
                "invalid count_share",
            ),
            (
                Itemsets {
                    delta: 0.0,
                    ..ok.clone()
                },
                "needs δ > 0",
            ),
            (
                Itemsets {
                    mechanism: Some(SelectorKind::Exponential),
                    ..ok.clone()
                },
                "needs a public item list",
            ),
            (
                Itemsets {
                    epsilon: 1e6,
                    ..ok.clone()
                },
                "too large",
            ),
        ];
        for (request, expected) in cases {
            let err = request.validate(false).unwrap_err().to_string();
            assert!(err.contains(expected), "{err} (expected {expected})");
        }
        assert!(
            Itemsets {
                mechanism: Some(SelectorKind::Exponential),
                ..ok
            }
            .validate(true)
            .is_ok()
        );
    }

    #[test]
    fn the_request_releases_what_mine_itemsets_releases() {
        let rows: Vec<Vec<&str>> = (0..300)
            .map(|i| match i % 3 {
                0 => vec!["a", "b", "c"],
                _ => vec!["a", "b"],
            })
            .collect();
        let t = Transactions::from_rows(&rows, None).unwrap();
        let request = Itemsets::new(2, 2.0, 1e-6);
        let release = request
            .run(&t, &mut SecureRng::insecure_from_seed(5))
            .unwrap();
        let counts = t
            .count_itemsets_within(2, DEFAULT_MAX_LENGTH, DEFAULT_MAX_CANDIDATES)
            .unwrap();
        let query = ItemsetQuery::new(Epsilon::new(2.0).unwrap(), Delta::new(1e-6).unwrap())
            .count_share(0.1);
        let by_hand =
            mine_itemsets(&t, &counts, &query, &mut SecureRng::insecure_from_seed(5)).unwrap();
        assert_eq!(release, by_hand);
        assert_eq!(
            release.picks[0].itemset.as_deref(),
            Some(&["a".to_string(), "b".to_string()][..])
        );
    }

    #[test]
    fn the_report_shows_the_release_and_only_on_request_the_exact_counts() {
        use crate::disclosure::shown;
        // Over a public list of 40 items, pairs (a, b) in 300 transactions and one long
        // transaction cut to B = 4: with three rounds at a small ε, the exponential mechanism
        // names zero-frequency pairs too.
        let mut rows: Vec<Vec<String>> = vec![vec!["a".into(), "b".into(), "zz".into()]; 300];
        rows.push((0..6).map(|i| format!("i{i}")).collect());
        let list: Vec<String> = ["a", "b"]
            .iter()
            .map(|s| s.to_string())
            .chain((0..38).map(|i| format!("i{i}")))
            .collect();
        let t = Transactions::from_rows(&rows, Some(&list[..])).unwrap();
        let request = Itemsets {
            top: 3,
            max_length: 4,
            ..Itemsets::new(2, 0.5, 0.0)
        };
        request.check_items(&list).unwrap();
        let release = request
            .run(&t, &mut SecureRng::insecure_from_seed(9))
            .unwrap();
        let report = request.report(&t, release).unwrap();
        let plain = serde_json::to_value(shown(&report, false)).unwrap();
        for key in [
            "true_count",
            "true_frequency",
            "occurs",
            "occurring",
            "truncated",
            "dropped_items",
            "not_private",
        ] {
            assert!(!plain.to_string().contains(key), "{key} in {plain}");
        }
        // One released outcome whether or not the named pair occurs (at this ε, the second
        // and third picks are zero-frequency pairs named from the list).
        assert!(report.release.picks.iter().any(|p| !*p.occurs.reveal()));
        for p in plain["picks"].as_array().unwrap() {
            assert_eq!(p["outcome"], "itemset", "{p}");
        }
        assert_eq!(plain["items"].as_array().unwrap().len(), 40);
        let both = serde_json::to_value(shown(&report, true)).unwrap();
        let np = &both["not_private"];
        assert_eq!(np["truncated"], 1, "{np}");
        assert_eq!(np["dropped_items"], 300, "{np}");
        let picks = np["picks"].as_array().unwrap();
        assert_eq!(picks.len(), 3);
        for (p, released) in picks.iter().zip(&report.release.picks) {
            assert_eq!(p["true_count"], *released.true_count.reveal());
            assert_eq!(p["occurs"], *released.true_count.reveal() > 0);
        }
        // The release beside the diagnostics is the default one.
        assert_eq!(both["picks"], plain["picks"]);
    }

    #[test]
    fn a_public_item_list_is_checked_before_any_transaction() {
        let list = |n: usize| -> Vec<String> { (0..n).map(|i| format!("x{i}")).collect() };
        assert!(Itemsets::new(3, 1.0, 0.0).check_items(&list(3)).is_ok());
        // Repeated names count once.
        let mut repeated = list(2);
        repeated.push("x0".into());
        let err = Itemsets::new(3, 1.0, 0.0)
            .check_items(&repeated)
            .unwrap_err()
            .to_string();
        assert!(err.contains("none exist"), "{err}");
        // A universe beyond the exact arithmetic's bits.
        let err = Itemsets::new(50_000, 1.0, 0.0)
            .check_items(&list(100_000))
            .unwrap_err()
            .to_string();
        assert!(err.contains("more than 2^65536 members"), "{err}");
        // Keys wider than counting supports: 200 ids of 16 bits.
        let err = Itemsets::new(200, 1.0, 0.0)
            .check_items(&list(1 << 16))
            .unwrap_err()
            .to_string();
        assert!(err.contains("would need keys"), "{err}");
        assert!(Itemsets::new(2, 1.0, 0.0).check_items(&[]).is_err());
    }
}
