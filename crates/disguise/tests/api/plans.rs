//! Every task's plan — what a budget ledger reserves before the data is read, computed from
//! public parameters only — is the privacy report its run then has: the same guarantee, the
//! same per-round budget and the same calls, over mechanisms, composition rules, algorithms
//! and sizes.

use disguise::apps::Transactions;
use disguise::prelude::*;
use disguise::task::{
    Algorithm, Assign, CompositionChoice, FeatureObjective, FeatureTable, Features, Hypothesis,
    Itemsets, MaxCoverage, MaxCut, PrivacyReport,
};

/// The privacy a plan promised and the one a run reported agree in everything a ledger
/// records.
fn same(plan: &PrivacyReport, run: &PrivacyReport, what: &str) {
    assert_eq!(plan.guarantee, run.guarantee, "{what}: guarantee");
    assert_eq!(plan.calls, run.calls, "{what}: calls");
    assert_eq!(plan.rounds, run.rounds, "{what}: rounds");
    assert_eq!(plan.per_round_epsilon, run.per_round_epsilon, "{what}: ε₀");
    assert_eq!(plan.per_round_delta, run.per_round_delta, "{what}: δ₀");
    assert_eq!(plan.composition, run.composition, "{what}: rule");
}

/// (mechanism, δ, composition) triples every greedy task is planned with.
fn budgets() -> Vec<(SelectorKind, f64, CompositionChoice)> {
    vec![
        (SelectorKind::Exponential, 0.0, CompositionChoice::Auto),
        (SelectorKind::Exponential, 1e-6, CompositionChoice::Auto),
        (SelectorKind::Exponential, 1e-6, CompositionChoice::Zcdp),
        (SelectorKind::Exponential, 1e-6, CompositionChoice::Basic),
        (SelectorKind::LargeMargin, 1e-6, CompositionChoice::Auto),
        (SelectorKind::ReportNoisyMax, 0.0, CompositionChoice::Auto),
        (SelectorKind::Argmax, 0.0, CompositionChoice::Auto),
    ]
}

fn points() -> (Vec<[f64; 2]>, Vec<[f64; 2]>) {
    let points: Vec<[f64; 2]> = (0..60)
        .map(|i| [(i % 7) as f64, (i % 5) as f64 * 0.5])
        .collect();
    let candidates: Vec<[f64; 2]> = (0..6).map(|i| [i as f64, 1.0]).collect();
    (points, candidates)
}

#[test]
fn selections_run_as_planned() {
    let (points, candidates) = points();
    let mut rng = SecureRng::insecure_from_seed(1);
    let mut checked = 0;
    for (mechanism, delta, composition) in budgets() {
        for algorithm in [
            Algorithm::Greedy,
            Algorithm::Subsample,
            Algorithm::ContinuousGreedy,
        ] {
            for (k, cost) in [(1, 0.0), (3, 0.0), (2, 0.5)] {
                let request = Select::new(k)
                    .epsilon(1.0)
                    .delta(delta)
                    .mechanism(mechanism)
                    .composition(composition)
                    .algorithm(algorithm)
                    .cost(cost);
                // Requests the library refuses are refused by the plan too.
                let Ok(plan) = request.plan(candidates.len()) else {
                    assert!(request.run(&points, &candidates, &mut rng).is_err());
                    continue;
                };
                let what = format!("{mechanism:?} δ={delta} {composition:?} {algorithm:?} k={k}");
                match request.run(&points, &candidates, &mut rng) {
                    Ok(report) => {
                        same(&plan, &report.privacy, &what);
                        checked += 1;
                    }
                    Err(e) => panic!("{what}: planned, then the run failed: {e}"),
                }
            }
        }
    }
    assert!(checked > 40, "{checked}");
}

#[test]
fn coverage_cut_features_and_assignments_run_as_planned() {
    let mut rng = SecureRng::insecure_from_seed(2);
    let covers: Vec<Vec<usize>> = (0..80).map(|i| vec![i % 5, (i * 3) % 5]).collect();
    let edges: Vec<(usize, usize)> = (0..40).map(|i| (i % 6, (i * 5 + 1) % 6)).collect();
    let y: Vec<u32> = (0..120).map(|i| i % 2).collect();
    let table = || FeatureTable {
        names: vec!["a".into(), "b".into(), "c".into()],
        columns: vec![
            y.clone().into(),
            (0..120).map(|i| (i / 2) % 3).collect::<Vec<u32>>().into(),
            (0..120).map(|i| (i / 3) % 2).collect::<Vec<u32>>().into(),
        ],
        arities: vec![2, 3, 2],
        labels: y.clone().into(),
        label_levels: 2,
    };
    let (points, candidates) = points();
    let types: Vec<usize> = (0..points.len()).map(|i| i % 2).collect();
    let mut checked = 0;
    for (mechanism, delta, composition) in budgets() {
        for algorithm in [Algorithm::Greedy, Algorithm::Subsample] {
            for k in [1, 2] {
                let what = format!("{mechanism:?} δ={delta} {composition:?} {algorithm:?} k={k}");
                let privacy = disguise::task::Privacy {
                    epsilon: Some(1.0),
                    delta,
                    mechanism,
                    composition,
                };
                let mut cover = MaxCoverage::new(k).privacy(privacy);
                cover.algorithm = algorithm;
                if let Ok(plan) = cover.plan(5) {
                    let report = cover.run(5, &covers, &mut rng).unwrap();
                    same(&plan, &report.privacy, &format!("cover {what}"));
                    checked += 1;
                }
                let mut cut = MaxCut::new(k).privacy(privacy);
                cut.algorithm = algorithm;
                if let Ok(plan) = cut.plan(6) {
                    let report = cut.run(6, &edges, &mut rng).unwrap();
                    same(&plan, &report.privacy, &format!("cut {what}"));
                    checked += 1;
                }
                for objective in [
                    FeatureObjective::MutualInformation,
                    FeatureObjective::Discernibility,
                ] {
                    let mut features = Features::new(k).privacy(privacy);
                    features.algorithm = algorithm;
                    features.objective = objective;
                    if let Ok(plan) = features.plan(3) {
                        let report = features.run(table(), &mut rng).unwrap();
                        same(&plan, &report.privacy, &format!("features {what}"));
                        checked += 1;
                    }
                }
                let assign = Assign::new(["a", "b"], k).privacy(privacy);
                let mut assign = assign;
                assign.algorithm = algorithm;
                if let Ok(plan) = assign.plan(candidates.len()) {
                    let objective = assign.objective(&points, &types, &candidates).unwrap();
                    let run = assign.prepare(&objective).unwrap().run(&mut rng).unwrap();
                    let report = PrivacyReport::of(&run.solution, disguise::privacy::Unit::Record);
                    same(&plan, &report, &format!("assign {what}"));
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 80, "{checked}");
}

#[test]
fn hypotheses_itemsets_and_histograms_spend_at_most_their_plan() {
    let mut rng = SecureRng::insecure_from_seed(3);
    // Itemsets: the plan is the release's own budget.
    let rows: Vec<Vec<String>> = (0..200)
        .map(|i| {
            ["a", "b", "c", "d"][..1 + i % 4]
                .iter()
                .map(|s| s.to_string())
                .collect()
        })
        .collect();
    let list: Vec<String> = ["a", "b", "c", "d"].iter().map(|s| s.to_string()).collect();
    for (mechanism, delta, list) in [
        (SelectorKind::LargeMargin, 1e-6, None),
        (SelectorKind::Exponential, 0.0, Some(&list[..])),
        (SelectorKind::Exponential, 1e-6, Some(&list[..])),
    ] {
        for count_share in [0.0, 0.1] {
            let mut request = Itemsets::new(2, 1.0, delta);
            request.mechanism = Some(mechanism);
            request.count_share = count_share;
            request.top = 2;
            let t = Transactions::from_rows(&rows, list).unwrap();
            let plan = request.plan(list.is_some()).unwrap();
            let release = request.run(&t, &mut rng).unwrap();
            let g = plan.guarantee.unwrap();
            assert_eq!(
                (g.epsilon, g.delta),
                (*release.epsilon, *release.delta),
                "{mechanism:?} {count_share}"
            );
        }
    }
    // A hypothesis selection is one call.
    for (mechanism, delta) in [
        (SelectorKind::Exponential, 0.0),
        (SelectorKind::LargeMargin, 1e-6),
        (SelectorKind::ReportNoisyMax, 0.0),
    ] {
        let request = Hypothesis::new(mechanism, 0.7, delta);
        let plan = request.plan().unwrap();
        let query = request.validate().unwrap();
        let (_, g) = disguise::apps::hypothesis::hypothesis_spend(&query).unwrap();
        assert_eq!(plan.guarantee, g);
        assert_eq!(plan.calls.len(), 1);
    }
    // A histogram is planned at the ε asked, which bounds what it reports.
    let plan = disguise::task::Histogram::new(0.7).plan().unwrap();
    assert_eq!(plan.guarantee.unwrap().epsilon, 0.7);
}
