//! The applications of chaudhuri2014 §4 (frequent itemsets, hypothesis selection) and the
//! range-independence of the large margin mechanism.
//!
//! * itemset counts against a brute-force counter (the real data: `real_data.rs`);
//! * the tail search of `LargeMarginTail` against the library's LMMs on the materialised
//!   universe (draw for draw), and its final exponential mechanism given ℓ (chi-square);
//! * the utility theorems: on score vectors built to satisfy the (ℓ, γ)-margin condition
//!   with γ from chaudhuri2014 Theorem 3 / mitrovic2017 Proposition 5.1, the stated bound
//!   holds with the stated probability;
//! * Example (1): the exponential mechanism's success probability is
//!   e^{nα/2}/(K − 1 + e^{nα/2}) for every K, the large margin mechanisms' does not depend
//!   on K;
//! * black-box privacy audits of the itemset pipeline on neighbouring transaction sets.
//!
//! Statistical assertions state their false-alarm rate; seeds are fixed.

use crate::support;
use disguise::apps::hypothesis::{ColumnRef, FeatureSpec};
use disguise::apps::*;
use disguise::audit::clopper_pearson;
use disguise::audit::exact::exponential_probabilities;
use disguise::audit::gof::chi_square;
use disguise::audit::{AuditConfig, audit};
use disguise::prelude::*;
use disguise::select::SelectorKind;
use disguise::select::{LargeMargin, sample_exponential};
use num_bigint::BigUint;
use rand_core::Rng;
use std::collections::{BTreeMap, HashMap};
use support::{delta, eps, sens};

/// Binomial z-test: |hits − np| ≤ 5·sd (+1 for tiny p); false-alarm rate < 6e-7.
fn assert_rate(hits: u64, trials: u64, p: f64, what: &str) {
    let mean = trials as f64 * p;
    let sd = (mean * (1.0 - p)).sqrt();
    assert!(
        (hits as f64 - mean).abs() <= 5.0 * sd + 1.0,
        "{what}: {hits}/{trials}, expected p = {p:.4e}"
    );
}

// ---------------------------------------------------------------------------------------
// Itemset counting
// ---------------------------------------------------------------------------------------

use support::itemsets::{as_map, brute_counts};

#[test]
fn itemset_counts_agree_with_brute_force() {
    let mut rng = SecureRng::insecure_from_seed(1);
    for trial in 0..6 {
        let items = 5 + 3 * trial as u64;
        let rows: Vec<Vec<String>> = (0..300)
            .map(|_| {
                let len = (rng.next_u64() % 12) as usize;
                (0..len)
                    .map(|_| format!("i{}", rng.next_u64() % items))
                    .collect()
            })
            .collect();
        let t = Transactions::from_rows(&rows, None).unwrap();
        for r in 1..=4 {
            for b in [r, 3, 6, 64] {
                if b < r {
                    continue;
                }
                let fast = t.count_itemsets(r, b).unwrap();
                assert_eq!(
                    as_map(&fast),
                    brute_counts(&t, r, b),
                    "trial {trial} r {r} B {b}"
                );
                assert!((0..fast.len()).all(|i| fast.find(&fast.itemset(i)) == Some(i)));
            }
        }
    }
}

#[test]
fn truncation_keeps_the_smallest_items_of_each_transaction() {
    // The rule looks at one transaction only: "10" < "9x" < "a" (integers first), so with
    // B = 2 the transaction {a, 9x, 10, 3} keeps {3, 10}.
    let rows = vec![vec!["a", "9x", "10", "3"], vec!["a", "b"]];
    let t = Transactions::from_rows(&rows, None).unwrap();
    let c = t.count_itemsets(2, 2).unwrap();
    let names: Vec<Vec<String>> = (0..c.len()).map(|i| t.names(&c.itemset(i))).collect();
    assert_eq!(names, vec![vec!["3", "10"], vec!["a", "b"]]);
    assert_eq!(c.truncated_transactions(), 1);
    // A public item list drops other items first (per record), then truncates.
    let list = ["a", "b", "9x"];
    let t = Transactions::from_rows(&rows, Some(&list[..])).unwrap();
    assert_eq!(t.dropped_items(), 2);
    let c = t.count_itemsets(2, 2).unwrap();
    let names: Vec<Vec<String>> = (0..c.len()).map(|i| t.names(&c.itemset(i))).collect();
    assert_eq!(names, vec![vec!["9x", "a"], vec!["a", "b"]]);
}

#[test]
fn csv_and_fimi_formats_read_the_same_transactions() {
    let dir = std::env::temp_dir().join(format!("disguise-apps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fimi = dir.join("t.dat");
    std::fs::write(&fimi, "1 2 3 \n2 3\n\n3 1\n").unwrap();
    let csv = dir.join("t.csv");
    std::fs::write(
        &csv,
        "order,product\n7,1\n7,2\n7,3\n8,2\n8,3\n9,\n10,3\n10,1\n",
    )
    .unwrap();
    let a = Transactions::read(&fimi, &TransactionFormat::Fimi, None).unwrap();
    let format = TransactionFormat::Csv {
        id_column: "ORDER".into(),
        item_column: "product".into(),
    };
    let b = Transactions::read(&csv, &format, None).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.len(), 4); // the blank line is an empty transaction
    let bad = TransactionFormat::Csv {
        id_column: "tid".into(),
        item_column: "product".into(),
    };
    let err = Transactions::read(&csv, &bad, None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("t.csv: no column 'tid' (columns: order, product)"),
        "{err}"
    );
}

/// A simple reference counter: every r-subset of every transaction cut to its first `b`
/// ids, each a `Vec`, counted in a `BTreeMap`.
fn reference_counts(t: &Transactions, r: usize, b: usize) -> BTreeMap<Vec<u32>, u64> {
    fn rec(row: &[u32], r: usize, cur: &mut Vec<u32>, out: &mut BTreeMap<Vec<u32>, u64>) {
        if cur.len() == r {
            *out.entry(cur.clone()).or_insert(0) += 1;
            return;
        }
        for (i, &id) in row.iter().enumerate() {
            cur.push(id);
            rec(&row[i + 1..], r, cur, out);
            cur.pop();
        }
    }
    let mut out = BTreeMap::new();
    for row in t.rows() {
        rec(&row[..row.len().min(b)], r, &mut Vec::new(), &mut out);
    }
    out
}

/// Random transactions of up to `max_len` items named `i<id>`, ids drawn with a skew
/// towards small ones (so that itemsets repeat), from `items` possible items.
fn random_rows(rng: &mut SecureRng, n: usize, max_len: u64, items: u64) -> Vec<Vec<String>> {
    (0..n)
        .map(|_| {
            let len = rng.next_u64() % (max_len + 1);
            (0..len)
                .map(|_| {
                    let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                    format!("i{}", (u * u * items as f64) as u64)
                })
                .collect()
        })
        .collect()
}

#[test]
fn compact_counts_equal_a_simple_reference_on_random_data() {
    // Every key width: ids of 2 to 10 bits and sizes 1 to 14 give keys of u32, u64 and 2 and
    // 4 words (up to 140 bits); B cuts some transactions.
    let mut rng = SecureRng::insecure_from_seed(7);
    let mut widths = std::collections::BTreeSet::new();
    for (trial, items) in [3u64, 12, 60, 1000, 1000].into_iter().enumerate() {
        let rows = random_rows(&mut rng, 120, 16, items);
        let t = Transactions::from_rows(&rows, None).unwrap();
        let bits = 64 - (t.items().len() as u64 - 1).leading_zeros().min(63);
        for r in 1..=14usize {
            for b in [r, 9, 64] {
                if b < r {
                    continue;
                }
                let Some(total) = t.enumeration_size(r, b) else {
                    panic!("tiny data")
                };
                if total > 200_000 {
                    continue; // keep the reference cheap
                }
                let fast = t.count_itemsets(r, b).unwrap();
                let reference = reference_counts(&t, r, b);
                assert_eq!(as_map(&fast), reference, "trial {trial} r {r} B {b}");
                // The counts add up to the subsets enumerated.
                let sum: u64 = fast.counts().iter().map(|&c| u64::from(c)).sum();
                assert_eq!(u128::from(sum), total, "trial {trial} r {r} B {b}");
                // Canonical order, and lookup finds every itemset where it is.
                assert!((1..fast.len()).all(|i| fast.itemset(i - 1) < fast.itemset(i)));
                assert!((0..fast.len()).all(|i| fast.find(&fast.itemset(i)) == Some(i)));
                widths.insert((r as u64 * bits as u64).div_ceil(64));
            }
        }
    }
    assert!(widths.contains(&1) && widths.contains(&2), "{widths:?}");
}

#[test]
fn itemsets_wider_than_128_bits_are_counted() {
    // 20,000 listed items take 15 bits an id: 9 ids need 135 bits, which used to fail with
    // "itemsets of 9 items over 20000 items do not fit in 128 bits".
    let list: Vec<String> = (0..20_000).map(|i| format!("i{i}")).collect();
    let mut rng = SecureRng::insecure_from_seed(8);
    let mut rows = random_rows(&mut rng, 200, 12, 20_000);
    // Every transaction twice, so that counts exceed 1.
    rows.extend(rows.clone());
    let t = Transactions::from_rows(&rows, Some(&list[..])).unwrap();
    for r in [9, 11] {
        let c = t.count_itemsets(r, 64).unwrap();
        assert!(!c.is_empty());
        assert_eq!(as_map(&c), reference_counts(&t, r, 64), "r = {r}");
        assert!(c.counts().iter().all(|&n| n >= 2));
    }
}

#[test]
fn counting_is_refused_at_once_beyond_the_limit() {
    // Like FIMI chess: 3196 transactions of 37 of 75 items. Size 10 would enumerate
    // 3196·C(37, 10) ≈ 1.1e12 subsets (the real file grew to 11.7 GB before it was killed);
    // the estimate comes from the lengths alone.
    let mut rng = SecureRng::insecure_from_seed(9);
    let rows: Vec<Vec<String>> = (0..3196)
        .map(|_| {
            let mut row: Vec<u32> = (0..75).collect();
            for i in (1..75usize).rev() {
                row.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
            }
            row[..37].iter().map(|i| i.to_string()).collect()
        })
        .collect();
    let t = Transactions::from_rows(&rows, None).unwrap();
    assert_eq!(t.enumeration_size(10, 64), Some(3196 * 348_330_136));
    let err = t.count_itemsets(10, 64).unwrap_err();
    assert!(
        matches!(
            err,
            disguise::Error::LimitExceeded {
                limit: DEFAULT_MAX_CANDIDATES,
                raise: Some("max_candidates"),
                ..
            }
        ),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("size 10 would enumerate 1.1e12 subsets") && msg.contains("limit 1e8"),
        "{msg}"
    );
    // Beyond 2^128 the estimate is still named (from logarithms): 10 × C(200, 100) ≈ 9.1e59.
    let long: Vec<Vec<String>> = vec![(0..200).map(|i| i.to_string()).collect(); 10];
    let t_long = Transactions::from_rows(&long, None).unwrap();
    assert_eq!(t_long.enumeration_size(100, 200), None);
    let msg = t_long
        .count_itemsets_within(100, 200, u64::MAX)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("enumerate 9.1e59 subsets"), "{msg}");
}

#[test]
fn max_candidates_raises_the_limit() {
    // 300 transactions of 37 items: 300·C(37, 3) = 2,331,000 subsets.
    let rows: Vec<Vec<String>> = (0..300)
        .map(|k| (0..37).map(|i| ((i * 7 + k) % 75).to_string()).collect())
        .collect();
    let t = Transactions::from_rows(&rows, None).unwrap();
    assert_eq!(t.enumeration_size(3, 64), Some(2_331_000));
    let err = t.count_itemsets_within(3, 64, 2_330_999).unwrap_err();
    assert!(err.to_string().contains("2.3e6"), "{err}");
    let c = t.count_itemsets_within(3, 64, 2_331_000).unwrap();
    let sum: u64 = c.counts().iter().map(|&n| u64::from(n)).sum();
    assert_eq!(sum, 2_331_000);
    // No transaction holds 50 items: nothing to count, whatever the key width would be.
    assert!(t.count_itemsets_within(50, 64, 0).unwrap().is_empty());
}

#[test]
fn byte_order_marks_are_not_items_and_bad_lines_are_placed() {
    let dir = std::env::temp_dir().join(format!("disguise-apps-bom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fimi = dir.join("t.dat");
    std::fs::write(&fimi, "\u{feff}7 8\n8 9\n").unwrap();
    let t = Transactions::read(&fimi, &TransactionFormat::Fimi, None).unwrap();
    assert_eq!(t.items(), ["7", "8", "9"]);
    let list = dir.join("items.txt");
    std::fs::write(&list, "\u{feff}7\n8\n9\n").unwrap();
    assert_eq!(read_item_list(&list).unwrap(), ["7", "8", "9"]);
    let csv = dir.join("t.csv");
    std::fs::write(&csv, "\u{feff}order,product\n1,7\n1,8\n2,9\n").unwrap();
    let format = TransactionFormat::Csv {
        id_column: "order".into(),
        item_column: "product".into(),
    };
    let c = Transactions::read(&csv, &format, None).unwrap();
    assert_eq!(
        (c.len(), c.items()),
        (2, &["7", "8", "9"].map(String::from)[..])
    );
    // Text that is not UTF-8: file, line and byte column.
    let bad = dir.join("bad.dat");
    std::fs::write(&bad, b"1 2\n3 \xff4\n").unwrap();
    let err = Transactions::read(&bad, &TransactionFormat::Fimi, None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("bad.dat:2:3: not valid UTF-8"), "{err}");
    // A repeated column name, naming both columns.
    let dup = dir.join("dup.csv");
    std::fs::write(&dup, "order,product,Order\n1,7,1\n").unwrap();
    let err = Transactions::read(&dup, &format, None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("dup.csv:1:3: column \"Order\" repeats column 1"),
        "{err}"
    );
    // A long offending cell is quoted briefly.
    let long = dir.join("long.csv");
    std::fs::write(&long, format!("order,{}\n1,7\n", "p".repeat(10_000))).unwrap();
    let err = Transactions::read(&long, &format, None)
        .unwrap_err()
        .to_string();
    assert!(err.len() < 400 && err.contains("(10000 bytes)"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sizes_a_caller_controls_are_bounded() {
    let rows = vec![vec!["a", "b"]; 10];
    let t = Transactions::from_rows(&rows, None).unwrap();
    let c = t.count_itemsets(2, 64).unwrap();
    let q = ItemsetQuery::new(eps(1.0), delta(1e-6));
    let mut rng = SecureRng::insecure_from_seed(1);
    assert!(ItemsetBudget::new(&q.top(MAX_TOP + 1), 2, 64).is_err());
    let err = mine_itemsets(&t, &c, &q.max_margin(MAX_MARGIN_LIMIT + 1), &mut rng).unwrap_err();
    assert!(err.to_string().contains("max_margin"), "{err}");
    // A universe beyond 2^65536 (C(100000, 20000)) is refused before it is computed whole.
    let list: Vec<String> = (0..100_000).map(|i| i.to_string()).collect();
    let rows = vec![vec!["1".to_string(), "2".to_string()]; 10];
    let t = Transactions::from_rows(&rows, Some(&list[..])).unwrap();
    let c = t.count_itemsets(20_000, 20_000).unwrap();
    let em = q.mechanism(SelectorKind::Exponential);
    let err = mine_itemsets(&t, &c, &em, &mut rng)
        .unwrap_err()
        .to_string();
    assert!(err.contains("more than 2^65536 members"), "{err}");
    // The budget's count sensitivity with a huge B and r is computed without big numbers.
    let q = q.count_share(0.1);
    assert!(ItemsetBudget::new(&q, 1 << 40, usize::MAX).is_ok());
}

#[test]
fn peeling_matches_the_plain_large_margin_loop() {
    // Ranking the itemsets once and reading only the searched prefix must release exactly
    // what the plain loop releases: the live scores in canonical order given to
    // LargeMarginTail::select, round after round, with the same seed.
    let mut rng = SecureRng::insecure_from_seed(10);
    let rows = random_rows(&mut rng, 4000, 6, 30);
    let t = Transactions::from_rows(&rows, None).unwrap();
    let c = t.count_itemsets(2, 64).unwrap();
    for (mechanism, variant) in [
        (SelectorKind::LargeMargin, MarginVariant::Mitrovic),
        (SelectorKind::LargeMarginChaudhuri, MarginVariant::Chaudhuri),
    ] {
        let q = ItemsetQuery::new(eps(4.0), delta(1e-6))
            .mechanism(mechanism)
            .top(8);
        let budget = ItemsetBudget::new(&q, 2, 64).unwrap();
        for seed in 0..5 {
            let mut a = SecureRng::insecure_from_seed(100 + seed);
            let fast = mine_itemsets_with_budget(&t, &c, &q, &budget, &mut a).unwrap();
            let m = LargeMarginTail::new(
                variant,
                budget.per_round_epsilon(),
                budget.per_round_delta(),
                q.max_margin,
            )
            .unwrap();
            let mut b = SecureRng::insecure_from_seed(100 + seed);
            let mut released = vec![false; c.len()];
            let mut plain: Vec<(Option<Vec<u32>>, Option<u64>)> = Vec::new();
            for _ in 0..q.top {
                let live: Vec<usize> = (0..c.len()).filter(|&i| !released[i]).collect();
                let scores: Vec<f64> = live.iter().map(|&i| c.count(i) as f64).collect();
                let s = m
                    .select(&scores, 0.0, &TailSize::Unbounded, sens(1.0), &mut b)
                    .unwrap();
                match s.outcome {
                    TailOutcome::Explicit(j) => {
                        released[live[j]] = true;
                        plain.push((Some(c.itemset(live[j])), s.margin));
                    }
                    _ => {
                        plain.push((None, s.margin));
                        break;
                    }
                }
            }
            let got: Vec<(Option<Vec<String>>, Option<u64>)> = fast
                .picks
                .iter()
                .map(|p| ((*p.itemset).clone(), *p.margin))
                .collect();
            let want: Vec<(Option<Vec<String>>, Option<u64>)> = plain
                .into_iter()
                .map(|(ids, m)| (ids.map(|ids| t.names(&ids)), m))
                .collect();
            assert_eq!(got, want, "{mechanism:?} seed {seed}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// The tail search against the library
// ---------------------------------------------------------------------------------------

#[test]
fn tail_search_equals_library_on_materialised_universe() {
    // δ = 0.5 keeps the thresholds low (G₁ ≈ 62) so that ℓ genuinely varies between 1, the
    // explicit set and the tail. The search consumes the same draws as the library's, so ℓ
    // must be identical for every seed, and the pick too whenever ℓ ≤ L.
    let explicit = [70.0, 20.0, 65.0, 60.0, 12.0];
    let tail = 25usize;
    let mut materialised = explicit.to_vec();
    materialised.extend(std::iter::repeat_n(0.0, tail));
    let mut seen = BTreeMap::new();
    for variant in [MarginVariant::Mitrovic, MarginVariant::Chaudhuri] {
        let lib: Box<dyn Selector> = match variant {
            MarginVariant::Mitrovic => Box::new(LargeMargin::new(eps(1.0), delta(0.5)).unwrap()),
            MarginVariant::Chaudhuri => {
                Box::new(LargeMargin::chaudhuri(eps(1.0), delta(0.5)).unwrap())
            }
        };
        let ours = LargeMarginTail::new(variant, eps(1.0), delta(0.5), u64::MAX).unwrap();
        let size = TailSize::Finite(BigUint::from(tail));
        for seed in 0..3000u64 {
            let mut r1 = SecureRng::insecure_from_seed(seed);
            let mut r2 = SecureRng::insecure_from_seed(seed);
            let a = lib.select(&materialised, sens(1.0), &mut r1).unwrap();
            let b = ours
                .select(&explicit, 0.0, &size, sens(1.0), &mut r2)
                .unwrap();
            let ell = a.margin.unwrap() as u64;
            assert_eq!(b.margin, Some(ell), "{variant:?} seed {seed}");
            if ell <= explicit.len() as u64 {
                assert_eq!(b.outcome, TailOutcome::Explicit(a.index), "seed {seed}");
            }
            *seen.entry((variant.name(), ell.min(6))).or_insert(0u32) += 1;
        }
    }
    // Every regime occurred for both variants: ℓ within the explicit set and beyond it.
    for name in ["lmm", "lmm-chaudhuri"] {
        let inside: u32 = (1..=5).filter_map(|l| seen.get(&(name, l))).sum();
        assert!(
            inside > 100 && seen.get(&(name, 6)).copied().unwrap_or(0) > 100,
            "{seen:?}"
        );
    }
}

#[test]
fn tail_pick_given_margin_follows_the_exponential_mechanism() {
    // Given ℓ > L the pick must follow exp(ε q/(dλ)) over the L explicit candidates plus a
    // block of ℓ − L tail members. The explicit scores sit at the stopping threshold G₃
    // (δ = 0.5), so the search passes at ℓ = 3 about half the time and often further out.
    // Pool runs by ℓ and test each well-populated ℓ > 3 (chi-square at 1e-4 per ℓ; the
    // tail's cell, of probability ≈ (ℓ − 3)·e^{−G₃/d}, is pooled by the test).
    for (variant, seed) in [
        (MarginVariant::Mitrovic, 7u64),
        (MarginVariant::Chaudhuri, 8),
    ] {
        let g3 = match variant {
            MarginVariant::Mitrovic => LargeMargin::new(eps(1.0), delta(0.5))
                .unwrap()
                .stopping_threshold(3, sens(1.0)),
            MarginVariant::Chaudhuri => LargeMargin::chaudhuri(eps(1.0), delta(0.5))
                .unwrap()
                .stopping_threshold(3, sens(1.0)),
        };
        let explicit = [g3.round(), g3.round() - 1.0, g3.round() - 3.0];
        let m = LargeMarginTail::new(variant, eps(1.0), delta(0.5), 200).unwrap();
        let mut rng = SecureRng::insecure_from_seed(seed);
        let mut by_ell: HashMap<u64, [u64; 4]> = HashMap::new();
        for _ in 0..20_000 {
            let s = m
                .select(&explicit, 0.0, &TailSize::Unbounded, sens(1.0), &mut rng)
                .unwrap();
            let slot = match s.outcome {
                TailOutcome::Explicit(i) => i,
                TailOutcome::Tail => 3,
                TailOutcome::NoMargin => continue,
            };
            by_ell.entry(s.margin.unwrap()).or_default()[slot] += 1;
        }
        let d = f64::from(variant.divisor());
        let mut tested = 0;
        for (&ell, counts) in &by_ell {
            let total: u64 = counts.iter().sum();
            if ell <= 3 || total < 1000 {
                continue;
            }
            let mut w: Vec<f64> = explicit
                .iter()
                .map(|q| ((q - explicit[0]) / d).exp())
                .collect();
            w.push((ell - 3) as f64 * (-explicit[0] / d).exp());
            let z: f64 = w.iter().sum();
            let probs: Vec<f64> = w.iter().map(|x| x / z).collect();
            let test = chi_square(counts, &probs).unwrap();
            assert!(
                test.p_value > 1e-4,
                "{variant:?} ℓ = {ell}: {counts:?} vs {probs:?}"
            );
            tested += 1;
        }
        assert!(
            tested >= 1,
            "{variant:?}: no ℓ beyond the explicit set: {by_ell:?}"
        );
    }
}

#[test]
fn no_margin_over_a_finite_tail_is_the_exponential_mechanism_over_everything() {
    // Flat scores (no margin, P(a test passes) < 1e-10 per test): ℓ = K and the pick follows
    // exp(εq/(dλ)) over 3 explicit + 40 tail candidates. Chi-square at 1e-4.
    let explicit = [2.0, 1.0, 1.0];
    let tail = 40u32;
    for (variant, seed) in [
        (MarginVariant::Mitrovic, 9u64),
        (MarginVariant::Chaudhuri, 10),
    ] {
        let m = LargeMarginTail::new(variant, eps(1.0), delta(1e-6), u64::MAX).unwrap();
        let mut rng = SecureRng::insecure_from_seed(seed);
        let mut counts = [0u64; 4];
        for _ in 0..20_000 {
            let s = m
                .select(
                    &explicit,
                    0.0,
                    &TailSize::Finite(tail.into()),
                    sens(1.0),
                    &mut rng,
                )
                .unwrap();
            assert_eq!(s.margin, Some(43));
            counts[match s.outcome {
                TailOutcome::Explicit(i) => i,
                _ => 3,
            }] += 1;
        }
        let mut full = explicit.to_vec();
        full.extend(std::iter::repeat_n(0.0, tail as usize));
        let p = exponential_probabilities(&full, eps(1.0), sens(1.0), variant.divisor()).unwrap();
        let probs = [p[0], p[1], p[2], p[3..].iter().sum()];
        let test = chi_square(&counts, &probs).unwrap();
        assert!(test.p_value > 1e-4, "{variant:?}: {counts:?}");
    }
}

// ---------------------------------------------------------------------------------------
// Utility theorems on data built to satisfy the margin condition
// ---------------------------------------------------------------------------------------

/// Scores with `top` near-maximal candidates (spaced by `step` below `opt`) and `rest`
/// candidates spread uniformly below `opt − gap`.
fn margin_instance(opt: f64, top: usize, step: f64, gap: f64, rest: usize, seed: u64) -> Vec<f64> {
    let mut rng = SecureRng::insecure_from_seed(seed);
    let mut s: Vec<f64> = (0..top).map(|i| opt - step * i as f64).collect();
    let floor = opt - gap - 1.0;
    s.extend(
        (0..rest).map(|_| (floor * (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64).floor()),
    );
    s
}

#[test]
fn chaudhuri_theorem_3_bound_holds_with_probability_one_minus_eta() {
    // Theorem 3 (λ = 1): if f^(ℓ*+1) < f^(1) − γ*, γ* = (21/α)·ln(3/η) + T^(ℓ*), then with
    // probability ≥ 1 − η the output has f(I) ≥ f^(1) − 6·ln(2ℓ*/η)/α. Here α = 1,
    // δ = 1e-6, η = 0.05, ℓ* = 8 near-maximal candidates spaced 6 apart (so some of them
    // violate the bound) among 20,000 candidates. The test fails if the Clopper–Pearson
    // lower bound on the failure rate (confidence 1 − 1e-6) exceeds η.
    let (alpha, eta, ell) = (1.0f64, 0.05f64, 8usize);
    let lmm = LargeMargin::chaudhuri(eps(alpha), delta(1e-6)).unwrap();
    let gamma = 21.0 / alpha * (3.0 / eta).ln() + lmm.stopping_threshold(ell, sens(1.0));
    let opt = 5000.0;
    let scores = margin_instance(opt, ell, 6.0, gamma, 20_000, 11);
    let bound = opt - 6.0 * (2.0 * ell as f64 / eta).ln() / alpha;
    assert!(
        scores[ell - 1] < bound,
        "the instance must make the bound non-trivial"
    );
    let mut rng = SecureRng::insecure_from_seed(12);
    let trials = 4000u64;
    let mut failures = 0u64;
    let mut margins_ok = 0u64;
    for _ in 0..trials {
        let pick = lmm.select(&scores, sens(1.0), &mut rng).unwrap();
        failures += u64::from(scores[pick.index] < bound);
        margins_ok += u64::from(pick.margin.unwrap() <= ell);
    }
    let ci = clopper_pearson(failures, trials, 1.0 - 2e-6).unwrap();
    assert!(ci.lower <= eta, "failure rate {failures}/{trials}");
    // And the search found a margin ≤ ℓ* (the proof's event) with probability ≥ 1 − η.
    let ci = clopper_pearson(trials - margins_ok, trials, 1.0 - 2e-6).unwrap();
    assert!(ci.lower <= eta, "{margins_ok}/{trials} margins ≤ ℓ*");
}

#[test]
fn mitrovic_proposition_5_1_bound_holds() {
    // Prop. 5.1: with γ = 24λ·ln(1/β)/ε + G_ℓ there is an event E, P(E) ≥ 1 − β, on which
    // the search stops at ℓ′ ≤ ℓ and E[q(v̂) | E] ≥ OPT − 4λ·ln ℓ/ε. ε = 1, β = 0.05,
    // ℓ = 8 near-maximal candidates spaced 3 apart, plus an unbounded tail of zeros below
    // 20,000 explicit candidates (LargeMarginTail: K never enumerated). Checks: the rate
    // of ℓ′ ≤ ℓ is not significantly below 1 − β (Clopper–Pearson, 1 − 1e-6), and the mean
    // score over those runs is not significantly below the bound (mean + 6 standard errors;
    // false alarm < 1e-8).
    let (epsilon, beta, ell) = (1.0f64, 0.05f64, 8usize);
    let lmm = LargeMargin::new(eps(epsilon), delta(1e-6)).unwrap();
    let gamma = 24.0 * (1.0f64 / beta).ln() / epsilon + lmm.stopping_threshold(ell, sens(1.0));
    let opt = 4000.0;
    let scores = margin_instance(opt, ell, 3.0, gamma, 20_000, 13);
    let tail =
        LargeMarginTail::new(MarginVariant::Mitrovic, eps(epsilon), delta(1e-6), 1 << 16).unwrap();
    let mut rng = SecureRng::insecure_from_seed(14);
    let trials = 4000u64;
    let mut on_event = Vec::new();
    for _ in 0..trials {
        let s = tail
            .select(&scores, 0.0, &TailSize::Unbounded, sens(1.0), &mut rng)
            .unwrap();
        if s.margin.is_some_and(|m| m <= ell as u64) {
            let TailOutcome::Explicit(i) = s.outcome else {
                panic!("a margin ≤ ℓ* picks an explicit candidate")
            };
            on_event.push(scores[i]);
        }
    }
    let misses = trials - on_event.len() as u64;
    let ci = clopper_pearson(misses, trials, 1.0 - 2e-6).unwrap();
    assert!(ci.lower <= beta, "{misses} runs without ℓ′ ≤ ℓ");
    let n = on_event.len() as f64;
    let mean = on_event.iter().sum::<f64>() / n;
    let sd = (on_event.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let bound = opt - 4.0 * (ell as f64).ln() / epsilon;
    assert!(
        mean + 6.0 * sd / n.sqrt() >= bound,
        "mean {mean} < bound {bound}"
    );
}

// ---------------------------------------------------------------------------------------
// Example (1): range dependence of EM, range independence of LMM
// ---------------------------------------------------------------------------------------

#[test]
fn example_1_em_success_decays_as_the_paper_computes() {
    // f(i, D) = |{j : D_j ≥ i}|/n with D = (1, …, 1): item 1 has count n, every other item 0.
    // In counts (λ = 1) the exponential mechanism picks item 1 w.p.
    // e^{nα/2}/(K − 1 + e^{nα/2}). n = 14, α = 1. K ≤ 10⁵ is materialised; every K also runs
    // through the block sampler (K − 1 zeros as one block). Binomial 5-sd tests.
    let (n, alpha) = (14.0, 1.0);
    let e = (n * alpha / 2.0f64).exp();
    let mut rng = SecureRng::insecure_from_seed(21);
    for k in [10u64, 1_000, 100_000, 10u64.pow(12)] {
        let p = e / ((k - 1) as f64 + e);
        let trials = 20_000u64;
        let block = BigUint::from(k - 1);
        let hits = (0..trials)
            .filter(|_| {
                sample_exponential_with_block(&mut rng, &[n], 0.0, &block, eps(alpha), sens(1.0), 2)
                    .unwrap()
                    == BlockChoice::Index(0)
            })
            .count() as u64;
        assert_rate(hits, trials, p, &format!("block, K = {k}"));
        if k <= 100_000 {
            let mut scores = vec![0.0; k as usize];
            scores[0] = n;
            let trials = if k > 1000 { 2000 } else { 20_000 };
            let hits = (0..trials)
                .filter(|_| {
                    sample_exponential(&mut rng, &scores, eps(alpha), sens(1.0), 2).unwrap() == 0
                })
                .count() as u64;
            assert_rate(hits, trials, p, &format!("materialised, K = {k}"));
        }
    }
}

#[test]
fn example_1_lmm_success_does_not_depend_on_k() {
    // n = 700 ≥ the first stopping thresholds (G₁ ≈ 430, T^(1) ≈ 415 at ε = 1, δ = 1e-6):
    // both LMMs stop at ℓ = 1 and return item 1 whatever K is — here up to K = 10⁴⁰ — while
    // the exponential mechanism at the same n, ε would already fail at K ≈ e^{350}. Each run
    // misses with probability < 1e-6; 500 runs per K must all succeed (false alarm < 1e-3
    // per K... at most 2.5e-3 overall, and far less in fact: P(miss) ≈ e^{−(700−430)/16}/2
    // ≈ 2e-8 per run).
    for variant in [MarginVariant::Mitrovic, MarginVariant::Chaudhuri] {
        let m = LargeMarginTail::new(variant, eps(1.0), delta(1e-6), 1 << 12).unwrap();
        let mut rng = SecureRng::insecure_from_seed(22);
        for k in [
            BigUint::from(10u32),
            BigUint::from(10u32).pow(6),
            BigUint::from(10u32).pow(40),
        ] {
            let tail = TailSize::Finite(k.clone() - 1u32);
            for _ in 0..500 {
                let s = m.select(&[700.0], 0.0, &tail, sens(1.0), &mut rng).unwrap();
                assert_eq!(s.outcome, TailOutcome::Explicit(0), "{variant:?}, K = {k}");
                assert_eq!(s.margin, Some(1));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The itemset pipeline
// ---------------------------------------------------------------------------------------

/// Transactions of two items: `counts[i]` copies of `pairs[i]`.
fn pair_rows(pairs: &[(&str, &str)], counts: &[usize]) -> Vec<Vec<String>> {
    pairs
        .iter()
        .zip(counts)
        .flat_map(|(&(a, b), &c)| std::iter::repeat_n(vec![a.to_string(), b.to_string()], c))
        .collect()
}

#[test]
fn mining_returns_the_frequent_itemsets_and_composes_the_budget() {
    let rows = pair_rows(
        &[
            ("milk", "bread"),
            ("beer", "chips"),
            ("tea", "cake"),
            ("x", "y"),
        ],
        &[3000, 2500, 100, 50],
    );
    let list: Vec<String> = [
        "milk", "bread", "beer", "chips", "tea", "cake", "x", "y", "z",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let t = Transactions::from_rows(&rows, Some(&list[..])).unwrap();
    let c = t.count_itemsets(2, DEFAULT_MAX_LENGTH).unwrap();
    let mut rng = SecureRng::insecure_from_seed(31);
    for mech in [
        SelectorKind::LargeMargin,
        SelectorKind::LargeMarginChaudhuri,
        SelectorKind::Exponential,
    ] {
        let q = ItemsetQuery::new(eps(2.0), delta(1e-6))
            .mechanism(mech)
            .top(2)
            .count_share(0.1);
        let r = mine_itemsets(&t, &c, &q, &mut rng).unwrap();
        let got: Vec<Vec<String>> = r
            .picks
            .iter()
            .map(|p| (*p.itemset).clone().unwrap())
            .collect();
        assert_eq!(
            got,
            vec![vec!["bread", "milk"], vec!["beer", "chips"]],
            "{mech:?}"
        );
        assert!(*r.epsilon <= 2.0 && *r.delta <= 1e-6, "{r:?}");
        assert_eq!(r.universe_size.as_deref().map(String::as_str), Some("36"));
        for p in &r.picks {
            assert_eq!(*p.outcome, ItemsetOutcome::Itemset);
            assert!(*p.occurs.reveal());
            let noisy = p.noisy_frequency.unwrap();
            // Laplace scale 2/0.2 = 10 counts on n = 5650: within 0.02 w.p. 1 − e^{-11}.
            assert!((noisy - p.true_frequency.reveal()).abs() < 0.02, "{p:?}");
        }
    }
    // em needs the item list; lmm needs δ > 0; T ≥ 1.
    let t2 = Transactions::from_rows(&rows, None).unwrap();
    let c2 = t2.count_itemsets(2, 8).unwrap();
    let em = ItemsetQuery::new(eps(1.0), delta(1e-6)).mechanism(SelectorKind::Exponential);
    assert!(mine_itemsets(&t2, &c2, &em, &mut rng).is_err());
    assert!(
        mine_itemsets(
            &t2,
            &c2,
            &ItemsetQuery::new(eps(1.0), Delta::ZERO),
            &mut rng
        )
        .is_err()
    );
    let zero = ItemsetQuery::new(eps(1.0), delta(1e-6)).top(0);
    assert!(mine_itemsets(&t2, &c2, &zero, &mut rng).is_err());
}

#[test]
fn without_a_margin_the_item_list_decides_between_fallback_and_no_itemset() {
    // 40 transactions: far below any threshold (≈ 430 at ε = 1), so no margin is found.
    let rows = pair_rows(&[("a", "b"), ("c", "d")], &[25, 15]);
    let mut rng = SecureRng::insecure_from_seed(32);
    // Without the list: "no margin", no itemset, peeling stops after round 1.
    let t = Transactions::from_rows(&rows, None).unwrap();
    let c = t.count_itemsets(2, 64).unwrap();
    let q = ItemsetQuery::new(eps(1.0), delta(1e-6)).top(3);
    let r = mine_itemsets(&t, &c, &q, &mut rng).unwrap();
    assert_eq!(r.picks.len(), 1);
    assert_eq!(*r.picks[0].outcome, ItemsetOutcome::NoMargin);
    assert_eq!(*r.picks[0].itemset, None);
    // With a list of 60 items: ℓ = K = C(60, 2) = 1770 and the exponential mechanism over the
    // universe, which names a zero-frequency pair most of the time (weights e^{25/4},
    // e^{15/4} against 1768 zeros: P(zero) ≈ 0.67).
    let list: Vec<String> = ["a", "b", "c", "d"]
        .iter()
        .map(|s| s.to_string())
        .chain((0..56).map(|i| format!("z{i}")))
        .collect();
    let t = Transactions::from_rows(&rows, Some(&list[..])).unwrap();
    let c = t.count_itemsets(2, 64).unwrap();
    let mut zeros = 0;
    for _ in 0..200 {
        let r = mine_itemsets(&t, &c, &q, &mut rng).unwrap();
        assert_eq!(r.picks.len(), 3);
        let mut seen = std::collections::HashSet::new();
        for p in &r.picks {
            assert_eq!(*p.margin, Some(1770 - (*p.round as u64 - 1)));
            let set = (*p.itemset).clone().unwrap();
            assert!(seen.insert(set.clone()), "peeling repeated {set:?}");
            // Named from the list whether it occurs or not: the released outcome is the
            // same, and only the diagnostics say which.
            assert_eq!(*p.outcome, ItemsetOutcome::Itemset);
            if !*p.occurs.reveal() {
                zeros += 1;
                assert_eq!(*p.true_count.reveal(), 0);
                assert!(c.find(&[0, 1]).is_some());
            }
        }
    }
    assert!(zeros > 200, "{zeros} zero-frequency picks in 600 rounds");
}

/// Runs of the top-1 itemset pipeline as an audit mechanism: the output is the released
/// itemset (or none) and the margin.
type Released = (Option<Vec<String>>, Option<u64>);

fn pipeline(
    query: ItemsetQuery,
) -> impl Fn(&mut SecureRng, &(Transactions, ItemsetCounts)) -> disguise::Result<Released> + Sync {
    let budget = ItemsetBudget::new(&query, 2, 64).unwrap();
    move |rng, (t, c)| {
        let r = mine_itemsets_with_budget(t, c, &query, &budget, rng)?;
        let p = &r.picks[0];
        Ok(((*p.itemset).clone(), *p.margin))
    }
}

#[test]
fn itemset_pipeline_passes_privacy_audits_on_neighbouring_transactions() {
    // Neighbours D, D′: D′ replaces one {x, y} transaction by {c, d} — a pair that does not
    // occur in D at all, so the set of occurring itemsets (the explicit candidates) changes
    // too. The top pairs sit at the first stopping threshold so that the margin search is
    // genuinely random. Claimed (ε, δ) = (1, 1e-6); false alarm ≤ 1e-6 per audit.
    let lmm = LargeMargin::new(eps(1.0), delta(1e-6)).unwrap();
    let g1 = lmm.stopping_threshold(1, sens(1.0)).round() as usize;
    let pairs = [("a", "b"), ("a", "c"), ("x", "y"), ("c", "d")];
    let d = pair_rows(&pairs, &[g1 + 1, g1 / 2, 3, 0]);
    let d_prime = pair_rows(&pairs, &[g1 + 1, g1 / 2, 2, 1]);
    let list: Vec<String> = ["a", "b", "c", "d", "x", "y", "w"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    // The exponential mechanism gets small counts, where its output is genuinely random.
    let (d_small, d_small_prime) = (
        pair_rows(&pairs, &[3, 2, 1, 0]),
        pair_rows(&pairs, &[3, 2, 0, 1]),
    );
    for (name, mech, with_list, seed) in [
        ("lmm, no item list", SelectorKind::LargeMargin, false, 41u64),
        (
            "lmm-chaudhuri, item list",
            SelectorKind::LargeMarginChaudhuri,
            true,
            42,
        ),
        ("em, item list", SelectorKind::Exponential, true, 43),
    ] {
        let (d, d_prime) = if mech == SelectorKind::Exponential {
            (&d_small, &d_small_prime)
        } else {
            (&d, &d_prime)
        };
        let build = |rows: &Vec<Vec<String>>| {
            let t = Transactions::from_rows(rows, with_list.then_some(&list[..])).unwrap();
            let c = t.count_itemsets(2, 64).unwrap();
            (t, c)
        };
        let (a, b) = (build(d), build(d_prime));
        let query = ItemsetQuery::new(eps(1.0), delta(1e-6))
            .mechanism(mech)
            .max_margin(40);
        let mut rng = SecureRng::insecure_from_seed(seed);
        let config = AuditConfig::new(60_000).with_delta(1e-6);
        let report = audit(pipeline(query), &a, &b, &config, &mut rng).unwrap();
        println!("{name}: eps_lower = {:.3}", report.epsilon_lower);
        assert!(
            !report.violates(1.0),
            "{name}: ε_lower = {}",
            report.epsilon_lower
        );
        // The outputs really vary (otherwise the audit would be idle).
        assert!(report.counts.len() >= 2, "{name}: {:?}", report.counts);
    }
}

// ---------------------------------------------------------------------------------------
// Hypothesis selection
// ---------------------------------------------------------------------------------------

#[test]
fn hypothesis_selection_finds_the_informative_stump() {
    // y = [x₀ > 0.5] with 10% label noise, 9 pure-noise columns, n = 3000, 99 thresholds
    // per column (|H| = 2 + 2·99·10). The best stump has ≈ 90% accuracy, noise stumps
    // ≤ ≈ 53%: a margin of > 1000 counts. Each mechanism at ε = 1 must return a stump within
    // 2% of the best training accuracy (failure probability < 1e-9). LMM's ℓ counts the
    // thresholds of x₀ whose accuracy is within the stopping threshold (≈ 460 counts, i.e.
    // ≈ 0.15 on either side of 0.5 at ≈ 24 counts per grid step): a few dozen, never the
    // noise columns' stumps.
    let n = 3000;
    let mut rng = SecureRng::insecure_from_seed(61);
    let mut unit = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let cols: Vec<Vec<f64>> = (0..10).map(|_| (0..n).map(|_| unit()).collect()).collect();
    let labels: Vec<bool> = cols[0]
        .iter()
        .map(|&x| (x > 0.5) != (unit() < 0.1))
        .collect();
    let specs: Vec<FeatureSpec> = (0..10)
        .map(|c| FeatureSpec::Numeric {
            name: format!("x{c}"),
            lo: 0.0,
            hi: 1.0,
        })
        .collect();
    let class = hypothesis::StumpClass::new(specs, 99, true).unwrap();
    assert_eq!(class.len(), 2 + 2 * 99 * 10);
    let refs: Vec<ColumnRef<'_>> = cols.iter().map(|c| ColumnRef::Numeric(c)).collect();
    let scores = class.correct_counts(&refs, &labels).unwrap();
    let mut rng = SecureRng::insecure_from_seed(62);
    for mech in [
        SelectorKind::Exponential,
        SelectorKind::LargeMargin,
        SelectorKind::LargeMarginChaudhuri,
    ] {
        let q = HypothesisQuery {
            mechanism: mech,
            epsilon: eps(1.0),
            delta: delta(1e-6),
        };
        let s = select_hypothesis(&class, &scores, n, &q, &mut rng).unwrap();
        assert!(
            s.training_accuracy.reveal() >= &(s.best_training_accuracy.reveal() - 0.02),
            "{mech}: {s:?}"
        );
        assert!(matches!(
            s.stump.rule,
            hypothesis::StumpRule::LessEq { column: 0, .. }
        ));
        let g = s.guarantee.unwrap();
        assert!(g.epsilon <= 1.0 + 1e-12 && g.delta <= 1e-6, "{g:?}");
        if mech != SelectorKind::Exponential {
            assert!(s.margin.unwrap() < 100, "{mech}: ℓ = {:?}", s.margin);
        }
        let best = *s.best_training_accuracy.reveal();
        assert!(class.error_rate(*s.index, &refs, &labels) <= 1.0 - best + 0.02);
    }
    // The large margin mechanisms still need δ > 0.
    let no_delta = HypothesisQuery {
        mechanism: SelectorKind::LargeMargin,
        epsilon: eps(1.0),
        delta: Delta::ZERO,
    };
    assert!(select_hypothesis(&class, &scores, n, &no_delta, &mut rng).is_err());
}

#[test]
fn huge_stump_classes_are_refused_before_allocation() {
    // 10^12 thresholds used to build a class whose scores (16 TB) aborted the allocation;
    // usize::MAX / 2 overflowed |H|. Both are refused, naming the size.
    let specs = || {
        vec![
            FeatureSpec::Numeric {
                name: "a".into(),
                lo: 0.0,
                hi: 1.0,
            },
            FeatureSpec::Numeric {
                name: "b".into(),
                lo: 0.0,
                hi: 1.0,
            },
        ]
    };
    let err = hypothesis::StumpClass::new(specs(), 1_000_000_000_000, true).unwrap_err();
    assert!(
        matches!(err, disguise::Error::LimitExceeded { limit, .. } if limit as usize == MAX_HYPOTHESES),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("4000000000002 hypotheses"),
        "{err}"
    );
    assert!(hypothesis::StumpClass::new(specs(), usize::MAX / 2, true).is_err());
    // At the limit the class is built (nothing is allocated per threshold until scoring).
    let at_limit = (MAX_HYPOTHESES - 2) / 4;
    assert_eq!(
        hypothesis::StumpClass::new(specs(), at_limit, true)
            .unwrap()
            .len(),
        2 + 4 * at_limit
    );
}
