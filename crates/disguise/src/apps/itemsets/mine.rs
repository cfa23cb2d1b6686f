//! The private top-T release by peeling ([`mine_itemsets`]): each round selects one itemset
//! with the large margin mechanism over the occurring itemsets plus a tail of zero-frequency
//! ones, or with the exponential mechanism over the whole universe of a public item list;
//! a zero-frequency pick is named by a uniform r-subset that does not occur.

use super::count;
use super::query::{check_item_list, check_max_margin, check_mechanism, check_top};
use super::{
    ItemsetBudget, ItemsetCounts, ItemsetOutcome, ItemsetPick, ItemsetQuery, ItemsetRelease,
    MAX_UNIVERSE_BITS, Transactions,
};
use crate::apps::block::{BlockChoice, sample_exponential_with_block};
use crate::apps::margin::{LargeMarginTail, SortedScores, TailOutcome, TailSize};
use crate::disclosure::{Diagnostic, Public, Released};
use crate::error::{Error, Result};
use crate::names::Named;
use crate::noise::bernoulli::uniform_below;
use crate::noise::{Laplace, SecureRng, sample_distinct};
use crate::numeric::combinatorics::binomial;
use crate::privacy::Sensitivity;
use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};
use std::collections::HashSet;

/// Universes up to this size are enumerated to name a zero-frequency pick; larger ones are
/// sampled by rejection.
const ENUMERATE_LIMIT: u64 = 1 << 22;

/// Privately selects the top `query.top` itemsets of the size counted in `counts` (see the
/// module docs for the universe, the neighbouring relation and the guarantee).
///
/// # Errors
/// [`Error::InvalidParameter`] for T = 0, a `count_share` outside [0, 1), δ = 0 with a large
/// margin mechanism, `em` without a public item list, an itemset size larger than the item
/// list, or a budget that no rule can split; the mechanisms' errors otherwise.
///
/// ```
/// use disguise::apps::{ItemsetQuery, Transactions, mine_itemsets};
/// use disguise::privacy::{Delta, Epsilon};
/// let mut rows = vec![vec!["bread", "milk"]; 2000];
/// rows.extend(vec![vec!["beer", "chips"]; 100]);
/// let t = Transactions::from_rows(&rows, None)?;
/// let counts = t.count_itemsets(2, 64)?;
/// let mut rng = disguise::SecureRng::insecure_from_seed(1);
/// let release = mine_itemsets(&t, &counts, &ItemsetQuery::new(Epsilon::new(1.0)?, Delta::new(1e-6)?), &mut rng)?;
/// assert_eq!(release.picks[0].itemset.as_deref(), Some(&["bread".to_string(), "milk".to_string()][..]));
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn mine_itemsets(
    transactions: &Transactions,
    counts: &ItemsetCounts,
    query: &ItemsetQuery,
    rng: &mut SecureRng,
) -> Result<ItemsetRelease> {
    let budget = ItemsetBudget::new(query, counts.size(), counts.max_length())?;
    mine_itemsets_with_budget(transactions, counts, query, &budget, rng)
}

/// [`mine_itemsets`] with a precomputed [`ItemsetBudget`] (which must come from the same
/// query, size and maximum length).
///
/// # Errors
/// As [`mine_itemsets`].
pub fn mine_itemsets_with_budget(
    transactions: &Transactions,
    counts: &ItemsetCounts,
    query: &ItemsetQuery,
    budget: &ItemsetBudget,
    rng: &mut SecureRng,
) -> Result<ItemsetRelease> {
    check_mechanism(query.mechanism)?;
    let variant = query.mechanism.margin_variant();
    let public = transactions.has_public_items();
    check_item_list(query.mechanism, public)?;
    check_top(query.top)?;
    check_max_margin(query.max_margin)?;
    let r = counts.size();
    let n_items = transactions.items().len() as u64;
    let universe = if public {
        Some(check_universe(n_items, r)?)
    } else {
        None
    };
    let (eps0, delta0) = (budget.epsilon0, budget.delta0);
    let n = transactions.len();
    let lambda = Sensitivity::new(1.0)?;
    let lmm = match variant {
        Some(v) => Some(LargeMarginTail::new(v, eps0, delta0, query.max_margin)?),
        None => None,
    };
    // The large margin mechanisms rank candidates by score, ties by position: rank the
    // itemsets once (count descending, then canonical order) instead of every round.
    let order: Vec<u32> = match lmm {
        Some(_) => rank_by_count(counts)?,
        None => Vec::new(),
    };
    // Released explicit itemsets, ascending: their ranks in `order` (large margin) or their
    // indices (exponential mechanism). At most T entries.
    let mut released: Vec<usize> = Vec::new();
    let mut zero_named: HashSet<Vec<u32>> = HashSet::new();
    let mut picks: Vec<ItemsetPick> = Vec::new();
    for round in 1..=query.top {
        let live = counts.len() - released.len();
        let tail_len = universe
            .as_ref()
            .map(|k| k - BigUint::from(counts.len() + zero_named.len()));
        if live == 0 && matches!(&tail_len, Some(t) if t.is_zero()) {
            break; // the universe is exhausted
        }
        // The chosen explicit itemset's index, or None for the tail.
        let (choice, margin) = match (&lmm, &tail_len) {
            (Some(m), _) => {
                let tail = match &tail_len {
                    Some(t) => TailSize::Finite(t.clone()),
                    None => TailSize::Unbounded,
                };
                let scores = RankedCounts {
                    counts,
                    order: &order,
                    released: &released,
                };
                let s = m.select_sorted(&scores, 0.0, &tail, lambda, rng)?;
                let outcome = match s.outcome {
                    TailOutcome::Explicit(rank) => {
                        let g = skip_released(rank, &released);
                        insert_sorted(&mut released, g);
                        TailOutcome::Explicit(order[g] as usize)
                    }
                    other => other,
                };
                (outcome, s.margin)
            }
            (None, Some(t)) => {
                // Scores in canonical order without the released itemsets.
                let mut scores: Vec<f64> = Vec::new();
                count::reserve(&mut scores, live, "the scores of one round")?;
                let mut next = released.iter().peekable();
                for i in 0..counts.len() {
                    if next.next_if_eq(&&i).is_none() {
                        scores.push(counts.count(i) as f64);
                    }
                }
                let c = sample_exponential_with_block(rng, &scores, 0.0, t, eps0, lambda, 2)?;
                drop(scores);
                let outcome = match c {
                    BlockChoice::Index(j) => {
                        let i = skip_released(j, &released);
                        insert_sorted(&mut released, i);
                        TailOutcome::Explicit(i)
                    }
                    BlockChoice::Block => TailOutcome::Tail,
                };
                (outcome, None)
            }
            (None, None) => unreachable!("em without an item list was rejected above"),
        };
        // The released outcome says what the mechanism chose — an itemset, the zero block
        // without a list to name one from, or no margin — never whether a named itemset
        // occurs (with a public item list, a zero-frequency pick is named too): that is the
        // pick's diagnostic.
        let pick = |itemset: Option<Vec<u32>>, outcome, count: u64| ItemsetPick {
            round: Released::new(round),
            itemset: Released::new(itemset.as_ref().map(|ids| transactions.names(ids))),
            outcome: Released::new(outcome),
            margin: Released::new(margin),
            noisy_frequency: Released::new(None),
            occurs: Diagnostic::new(count > 0),
            true_count: Diagnostic::new(count),
            true_frequency: Diagnostic::new(count as f64 / n as f64),
        };
        match choice {
            TailOutcome::Explicit(i) => {
                picks.push(pick(
                    Some(counts.itemset(i)),
                    ItemsetOutcome::Itemset,
                    counts.count(i),
                ));
            }
            TailOutcome::Tail if public => {
                let ids = uniform_unseen(rng, n_items, r, counts, &zero_named)?;
                zero_named.insert(ids.clone());
                picks.push(pick(Some(ids), ItemsetOutcome::Itemset, 0));
            }
            TailOutcome::Tail => {
                picks.push(pick(None, ItemsetOutcome::ZeroFrequency, 0));
                break;
            }
            TailOutcome::NoMargin => {
                picks.push(pick(None, ItemsetOutcome::NoMargin, 0));
                break;
            }
        }
    }

    // Noisy frequencies of the released itemsets: one Laplace vector release (the
    // mechanism's input is the exact count; its output is released).
    if let Some(scale) = budget.count_scale {
        let noise = Laplace::new(scale)?;
        for p in picks.iter_mut().filter(|p| p.itemset.is_some()) {
            let noisy = noise.sample(rng, *p.true_count.reveal() as f64)?;
            p.noisy_frequency = Released::new(Some((noisy / n as f64).clamp(0.0, 1.0)));
        }
    }
    Ok(ItemsetRelease {
        picks,
        mechanism: query.mechanism.name(),
        // n, the options, the public list's size and the budget are public.
        transactions: Public::new(n),
        size: Public::new(r),
        max_length: Public::new(counts.max_length()),
        universe_items: public.then(|| Public::new(transactions.items().len())),
        universe_size: universe.map(|k| Public::new(k.to_string())),
        max_margin: Public::new(query.max_margin),
        per_round_epsilon: Public::new(eps0.get()),
        per_round_delta: Public::new(delta0.get()),
        split_rule: budget.split_rule,
        selection_guarantee: budget.selection,
        count_epsilon: budget.count_epsilon.map(Public::new),
        count_scale: budget.count_scale.map(Public::new),
        epsilon: Public::new(budget.epsilon),
        delta: Public::new(budget.selection.delta),
        occurring: Diagnostic::new(counts.len()),
        truncated: Diagnostic::new(counts.truncated_transactions()),
        secure_rng: Public::new(rng.is_secure()),
    })
}

/// C(|I|, r), the universe of a public list of `n_items` items, refused when no itemset of
/// `r` items exists or beyond 2^[`MAX_UNIVERSE_BITS`] ([`universe_size`]). Public quantities
/// only: a front end checks it before any transaction is read
/// ([`Itemsets::check_items`](crate::task::Itemsets::check_items)).
///
/// # Errors
/// [`Error::InvalidParameter`] naming `size`.
pub(crate) fn check_universe(n_items: u64, r: usize) -> Result<BigUint> {
    let k = universe_size(n_items, r)?;
    if k.is_zero() {
        return Err(Error::param(
            "size",
            format!("itemsets of {r} items from a list of {n_items} items: none exist"),
        ));
    }
    Ok(k)
}

/// C(|I|, r), the universe of a public item list, refused beyond 2^[`MAX_UNIVERSE_BITS`]
/// before its computation gets expensive (at most ~2¹⁶ multiplications of numbers of at
/// most 2¹⁶ bits: C(n, i) ≥ 2^i up to i = min(r, n − r)).
fn universe_size(n_items: u64, r: usize) -> Result<BigUint> {
    let r = r as u64;
    if r > n_items {
        return Ok(BigUint::zero());
    }
    // C(n, i) grows with i up to min(r, n − r): stop at the first partial product that
    // is too large.
    let k = r.min(n_items - r);
    let mut acc = BigUint::one();
    for i in 0..k {
        acc = acc * (n_items - i) / (i + 1);
        if acc.bits() > MAX_UNIVERSE_BITS {
            return Err(Error::param(
                "size",
                format!(
                    "the universe of itemsets of size {r} from {n_items} listed items has \
                     more than 2^{MAX_UNIVERSE_BITS} members, beyond the exact arithmetic of \
                     the mechanisms: choose a smaller size or a shorter item list"
                ),
            ));
        }
    }
    Ok(acc)
}

/// The itemset indices by count descending, ties in canonical order: the order the large
/// margin mechanisms rank explicit candidates in. A counting sort (counts are at most n).
fn rank_by_count(counts: &ItemsetCounts) -> Result<Vec<u32>> {
    let l = counts.len();
    if l > u32::MAX as usize {
        return Err(Error::param(
            "size",
            format!("{l} distinct itemsets; at most 2^32 − 1 are supported"),
        ));
    }
    let c = counts.counts();
    let top = c.iter().copied().max().unwrap_or(0) as usize;
    // starts[top − v]: where the itemsets of count v begin.
    let mut starts: Vec<usize> = Vec::new();
    count::reserve(&mut starts, top + 2, "the ranking of the itemsets")?;
    starts.resize(top + 2, 0);
    for &v in c {
        starts[top - v as usize + 1] += 1;
    }
    for i in 0..=top {
        starts[i + 1] += starts[i];
    }
    let mut order: Vec<u32> = Vec::new();
    count::reserve(&mut order, l, "the ranking of the itemsets")?;
    order.resize(l, 0);
    for (i, &v) in c.iter().enumerate() {
        let slot = &mut starts[top - v as usize];
        order[*slot] = i as u32;
        *slot += 1;
    }
    Ok(order)
}

/// The `j`-th position (0-based) of 0, 1, 2, … that is not in `released` (ascending).
fn skip_released(j: usize, released: &[usize]) -> usize {
    let mut g = j;
    for &r in released {
        if r <= g {
            g += 1;
        } else {
            break;
        }
    }
    g
}

fn insert_sorted(v: &mut Vec<usize>, x: usize) {
    let at = v.partition_point(|&y| y < x);
    v.insert(at, x);
}

/// The live itemsets' counts in rank order (the ranked itemsets minus the released ranks),
/// read on demand by the large margin search.
struct RankedCounts<'a> {
    counts: &'a ItemsetCounts,
    order: &'a [u32],
    released: &'a [usize],
}

impl SortedScores for RankedCounts<'_> {
    fn len(&self) -> u64 {
        (self.order.len() - self.released.len()) as u64
    }

    fn prefix(&self, n: usize) -> Result<Vec<f64>> {
        let mut out: Vec<f64> = Vec::new();
        count::reserve(&mut out, n, "the scores of one round")?;
        let mut next = self.released.iter().peekable();
        for (g, &i) in self.order.iter().enumerate() {
            if out.len() == n {
                break;
            }
            if next.next_if_eq(&&g).is_none() {
                out.push(self.counts.count(i as usize) as f64);
            }
        }
        Ok(out)
    }
}

/// A uniformly random r-subset of the `n_items` items that does not occur and is not in
/// `excluded`: by enumeration for small universes, else by rejection (uniform r-subsets
/// until one qualifies — each accepted with probability (unseen)/(universe)). Either way the
/// expected work is at most the universe size, and beyond 2²² (where rejection starts) only
/// universes of less than twice the L + T occurring and named itemsets need more than two
/// tries on average: work in proportion to the counts already held.
fn uniform_unseen(
    rng: &mut SecureRng,
    n_items: u64,
    r: usize,
    counts: &ItemsetCounts,
    excluded: &HashSet<Vec<u32>>,
) -> Result<Vec<u32>> {
    let is_free = |ids: &[u32]| counts.find(ids).is_none() && !excluded.contains(ids);
    let k = binomial(n_items, r as u64);
    if let Some(k) = k.to_u64().filter(|&k| k <= ENUMERATE_LIMIT) {
        let free = k - counts.len() as u64 - excluded.len() as u64;
        if free == 0 {
            return Err(Error::param("top", "the universe of itemsets is exhausted"));
        }
        let mut target = uniform_below(rng, free);
        let mut idx: Vec<u32> = (0..r as u32).collect();
        loop {
            if is_free(&idx) {
                if target == 0 {
                    return Ok(idx);
                }
                target -= 1;
            }
            // Next r-subset in lexicographic order.
            let mut i = r - 1;
            while u64::from(idx[i]) == i as u64 + n_items - r as u64 {
                assert!(i > 0, "ran past the last subset");
                i -= 1;
            }
            idx[i] += 1;
            for j in i + 1..r {
                idx[j] = idx[j - 1] + 1;
            }
        }
    }
    loop {
        let ids: Vec<u32> = sample_distinct(rng, n_items, r)?
            .into_iter()
            .map(|v| v as u32)
            .collect();
        if is_free(&ids) {
            return Ok(ids);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    // Printing counts is numeric::display's; the test also covers skip_released.
    use crate::numeric::display::scientific;

    #[test]
    fn counts_are_printed_for_people() {
        assert_eq!(scientific(780.0), "780");
        assert_eq!(scientific(4.7e13), "4.7e13");
        assert_eq!(scientific(9.96e7), "1.0e8");
        assert_eq!(skip_released(0, &[]), 0);
        assert_eq!(skip_released(1, &[1, 2]), 3);
        assert_eq!(skip_released(1, &[2]), 1);
        assert_eq!(skip_released(2, &[0, 5]), 3);
    }
}
