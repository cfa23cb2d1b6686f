//! What a budget ledger records of a run's generator: a seeded run (reproducible by anyone,
//! so protecting no one) is recorded as not secure, an OS-keyed one as secure — for every
//! report the library charges through [`Ledger::charge`], which takes the flag from the
//! generator it runs with (hypothesis selection, itemsets, a greedy run's privacy report).

use disguise::apps::Transactions;
use disguise::apps::hypothesis::{
    ColumnRef, FeatureSpec, HypothesisQuery, StumpClass, select_hypothesis,
};
use disguise::ledger::{Ledger, Limit, Spends};
use disguise::prelude::*;
use disguise::select::SelectorKind;
use disguise::task::Itemsets;

/// The `secure` flags the ledger records for one seeded run of `release`, then one keyed by
/// the operating system, both charged to a data set with room for both.
fn recorded_secure<T: Spends>(release: impl Fn(&mut SecureRng) -> Result<T>) -> Vec<bool> {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::create(&dir.path().join("budget.ledger")).unwrap();
    ledger
        .set_limit("data", Limit::new(100.0, 1e-3).unwrap())
        .unwrap();
    let runs = [
        SecureRng::insecure_from_seed(7),
        SecureRng::from_os().unwrap(),
    ];
    // The plan: what the same release spends (its parameters are public).
    let planned = release(&mut SecureRng::insecure_from_seed(1)).unwrap();
    for mut rng in runs {
        ledger
            .charge("data", "test", &planned, &mut rng, |rng| release(rng))
            .unwrap();
    }
    ledger
        .releases(Some("data"))
        .unwrap()
        .iter()
        .map(|r| r.secure)
        .collect()
}

#[test]
fn a_seeded_hypothesis_selection_is_recorded_as_not_secure() {
    let x: Vec<f64> = (0..200).map(|i| f64::from(i % 10)).collect();
    let labels: Vec<bool> = x.iter().map(|&v| v >= 5.0).collect();
    let class = StumpClass::new(
        vec![FeatureSpec::Numeric {
            name: "x".into(),
            lo: 0.0,
            hi: 10.0,
        }],
        9,
        true,
    )
    .unwrap();
    let scores = class
        .correct_counts(&[ColumnRef::Numeric(&x)], &labels)
        .unwrap();
    let query = HypothesisQuery {
        mechanism: SelectorKind::Exponential,
        epsilon: Epsilon::new(1.0).unwrap(),
        delta: Delta::new(0.0).unwrap(),
    };
    let flags =
        recorded_secure(|rng| select_hypothesis(&class, &scores, labels.len(), &query, rng));
    assert_eq!(flags, [false, true]);
}

#[test]
fn a_seeded_itemset_release_is_recorded_as_not_secure() {
    let mut rows = vec![vec!["bread", "milk"]; 300];
    rows.extend(vec![vec!["tea", "cake"]; 100]);
    let transactions = Transactions::from_rows(&rows, None).unwrap();
    let request = Itemsets::new(2, 1.0, 1e-6);
    let flags = recorded_secure(|rng| request.run(&transactions, rng));
    assert_eq!(flags, [false, true]);
}

#[test]
fn a_seeded_greedy_runs_privacy_report_is_recorded_as_not_secure() {
    let points: Vec<[f64; 2]> = (0..300).map(|i| [f64::from(i % 3), 0.0]).collect();
    let candidates = [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [9.0, 9.0]];
    let request = Select::new(2).epsilon(1.0);
    // The privacy report alone, as the command line's trials charge it.
    let flags = recorded_secure(|rng| Ok(request.run(&points, &candidates, rng)?.privacy));
    assert_eq!(flags, [false, true]);
}
