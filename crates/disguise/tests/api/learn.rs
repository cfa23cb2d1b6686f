//! Tests of `disguise::learn`: logistic regression (binary, multinomial), PLR/PMLR, metrics
//! and stratified folds. All randomness comes from seeded `SecureRng`s, so every run is the
//! same; statistical checks state their false-alarm rate for a fresh seed.

use disguise::learn::{
    FeatureBounds, LogisticConfig, LogisticProblem, LogisticRegression, Matrix,
    MultinomialLogisticRegression, MultinomialProblem, PlrConfig, PrivateLogisticRegression,
    PrivateMultinomialLogisticRegression, SmoothObjective, StratifiedKFold, auc, hand_till,
    objective_noise, one_hot, standard_normal,
};
use disguise::privacy::PrivacyCost;
use disguise::{Error, SecureRng};
use rand_core::Rng;

fn uniform01(rng: &mut SecureRng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// `n` rows of `beta.len() − 1` standard normal features and labels drawn from the logistic
/// model with parameters `beta` (intercept first).
fn simulate_logistic(n: usize, beta: &[f64], seed: u64) -> (Matrix, Vec<u32>) {
    let mut rng = SecureRng::insecure_from_seed(seed);
    let d = beta.len() - 1;
    let mut data = Vec::with_capacity(n * d);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let row: Vec<f64> = (0..d).map(|_| standard_normal(&mut rng)).collect();
        let eta = beta[0] + row.iter().zip(&beta[1..]).map(|(x, b)| x * b).sum::<f64>();
        y.push(u32::from(uniform01(&mut rng) < sigmoid(eta)));
        data.extend(row);
    }
    (Matrix::new(n, d, data).unwrap(), y)
}

/// Three Gaussian blobs in the plane, centred on the corners of a triangle.
fn simulate_blobs(n_per_class: usize, spread: f64, seed: u64) -> (Matrix, Vec<u32>) {
    let centres = [(0.0, 0.0), (3.0, 0.0), (1.5, 2.6)];
    let mut rng = SecureRng::insecure_from_seed(seed);
    let mut data = Vec::new();
    let mut y = Vec::new();
    for _ in 0..n_per_class {
        for (k, (cx, cy)) in centres.iter().enumerate() {
            data.push(cx + spread * standard_normal(&mut rng));
            data.push(cy + spread * standard_normal(&mut rng));
            y.push(k as u32);
        }
    }
    (Matrix::new(y.len(), 2, data).unwrap(), y)
}

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

// ---------------------------------------------------------------------------------------
// Binary logistic regression

#[test]
fn lr_recovers_known_coefficients() {
    let beta = [-0.5, 1.0, -2.0, 0.5];
    let (x, y) = simulate_logistic(20_000, &beta, 11);
    let m = LogisticRegression::fit(&x, &y, None, &LogisticConfig::default()).unwrap();
    assert!(m.convergence().converged, "{:?}", m.convergence());
    // Standard errors here are about 0.02–0.035; 0.12 is over 3.4 SE for every parameter
    // (false-alarm rate < 1e-3 per parameter for a fresh seed; this seed is fixed).
    assert!((m.intercept() - beta[0]).abs() < 0.12, "{}", m.intercept());
    for (b, t) in m.coefficients().iter().zip(&beta[1..]) {
        assert!((b - t).abs() < 0.12, "{:?}", m.coefficients());
    }
}

#[test]
fn lr_matches_closed_form_on_a_two_by_two_table() {
    // x = 0: 3 positives, 1 negative; x = 1: 1 positive, 3 negatives (as 8 separate rows).
    let x = Matrix::new(8, 1, vec![0., 0., 0., 0., 1., 1., 1., 1.]).unwrap();
    let y = [1, 1, 1, 0, 1, 0, 0, 0];
    let m = LogisticRegression::fit(&x, &y, None, &LogisticConfig::default()).unwrap();
    let ln3 = 3f64.ln();
    // Saturated model: the fitted probabilities are the cell proportions.
    assert!((m.intercept() - ln3).abs() < 1e-5, "{}", m.intercept());
    assert!((m.coefficients()[0] + 2.0 * ln3).abs() < 1e-5);
    let p = m
        .predict_proba(&Matrix::new(2, 1, vec![0., 1.]).unwrap())
        .unwrap();
    assert!(
        (p[0] - 0.75).abs() < 1e-6 && (p[1] - 0.25).abs() < 1e-6,
        "{p:?}"
    );
    assert!(m.convergence().converged);
}

#[test]
fn lr_weights_equal_duplicated_rows() {
    let (x, y) = simulate_logistic(300, &[0.3, 1.0, -1.0], 5);
    let mut rng = SecureRng::insecure_from_seed(6);
    let counts: Vec<u32> = (0..x.nrows()).map(|_| rng.next_u32() % 4).collect();
    let weights: Vec<f64> = counts.iter().map(|&c| f64::from(c)).collect();
    let mut idx = Vec::new();
    for (i, &c) in counts.iter().enumerate() {
        idx.extend(std::iter::repeat_n(i, c as usize));
    }
    let xd = x.select_rows(&idx).unwrap();
    let yd: Vec<u32> = idx.iter().map(|&i| y[i]).collect();
    let cfg = LogisticConfig::default();
    let mw = LogisticRegression::fit(&x, &y, Some(&weights), &cfg).unwrap();
    let md = LogisticRegression::fit(&xd, &yd, None, &cfg).unwrap();
    assert!((mw.intercept() - md.intercept()).abs() < 1e-6);
    assert!(max_abs_diff(mw.coefficients(), md.coefficients()) < 1e-6);
    // And the weights matter: the unweighted fit differs.
    let mu = LogisticRegression::fit(&x, &y, None, &cfg).unwrap();
    assert!(max_abs_diff(mu.coefficients(), md.coefficients()) > 1e-3);
}

/// Each coordinate of `gradient` is within 1e-7 of the central difference of `value` at
/// `theta` (step 1e-6).
fn assert_gradient(value: impl Fn(&[f64]) -> f64, gradient: &[f64], theta: &[f64]) {
    let h = 1e-6;
    for j in 0..theta.len() {
        let (mut a, mut b) = (theta.to_vec(), theta.to_vec());
        a[j] += h;
        b[j] -= h;
        let fd = (value(&a) - value(&b)) / (2.0 * h);
        let g = gradient[j];
        assert!((fd - g).abs() < 1e-7, "coordinate {j}: {fd} vs {g}");
    }
}

#[test]
fn lr_gradient_matches_finite_differences() {
    let (x, y) = simulate_logistic(50, &[0.2, 1.0, -1.0, 0.5], 8);
    let w: Vec<f64> = (0..50).map(|i| 0.5 + (i % 3) as f64).collect();
    let problem = LogisticProblem::new(&x, &y, Some(&w), 0.3).unwrap();
    let theta = [0.1, -0.7, 1.3, 0.4];
    assert_gradient(|t| problem.value(t), &problem.gradient(&theta), &theta);
}

#[test]
fn lr_separable_data_stays_finite() {
    let x = Matrix::new(4, 1, vec![-2., -1., 1., 2.]).unwrap();
    let y = [0, 0, 1, 1];
    let m = LogisticRegression::fit(&x, &y, None, &LogisticConfig::default()).unwrap();
    assert!(m.coefficients()[0].is_finite() && m.coefficients()[0] > 1.0);
    let p = m.predict_proba(&x).unwrap();
    assert!(p[0] < 0.01 && p[3] > 0.99, "{p:?}");
}

#[test]
fn lr_rejects_bad_input() {
    let x = Matrix::new(3, 1, vec![0., 1., 2.]).unwrap();
    let cfg = LogisticConfig::default();
    let fit = |y: &[u32], w: Option<&[f64]>| LogisticRegression::fit(&x, y, w, &cfg);
    assert!(fit(&[0, 1], None).is_err(), "label count");
    assert!(fit(&[0, 1, 2], None).is_err(), "label 2");
    assert!(fit(&[1, 1, 1], None).is_err(), "one class");
    assert!(
        fit(&[0, 1, 1], Some(&[1., 0., 0.])).is_err(),
        "class 1 has zero weight"
    );
    assert!(
        fit(&[0, 1, 1], Some(&[1., -1., 1.])).is_err(),
        "negative weight"
    );
    assert!(
        fit(&[0, 1, 1], Some(&[1., f64::NAN, 1.])).is_err(),
        "NaN weight"
    );
    assert!(fit(&[0, 1, 1], Some(&[1., 1.])).is_err(), "weight count");
    let empty = Matrix::new(0, 1, vec![]).unwrap();
    assert!(LogisticRegression::fit(&empty, &[], None, &cfg).is_err());
    let bad = LogisticConfig { l2: -1.0, ..cfg };
    assert!(LogisticRegression::fit(&x, &[0, 1, 1], None, &bad).is_err());
    let m = fit(&[0, 1, 1], None).unwrap();
    assert!(
        m.predict_proba(&Matrix::new(1, 2, vec![0., 0.]).unwrap())
            .is_err()
    );
    assert!(Matrix::new(1, 2, vec![0., f64::INFINITY]).is_err());
    assert!(Matrix::new(2, 2, vec![0.; 3]).is_err());
    assert!(Matrix::from_rows(&[vec![1.0], vec![1.0, 2.0]]).is_err());
}

// ---------------------------------------------------------------------------------------
// Multinomial logistic regression

#[test]
fn multinomial_gradient_matches_finite_differences() {
    let (x, y) = simulate_blobs(10, 1.0, 3);
    let w: Vec<f64> = (0..y.len()).map(|i| 1.0 + (i % 4) as f64 * 0.25).collect();
    let problem = MultinomialProblem::new(&x, &y, Some(&w), 3, 0.2).unwrap();
    assert_eq!(problem.dim(), 6);
    let theta = [0.3, -0.2, 0.5, -0.4, 0.1, 0.7];
    assert_gradient(|t| problem.value(t), &problem.gradient(&theta), &theta);
}

#[test]
fn multinomial_separates_blobs() {
    let (x, y) = simulate_blobs(200, 0.6, 21);
    let m =
        MultinomialLogisticRegression::fit(&x, &y, None, 3, &LogisticConfig::default()).unwrap();
    assert!(m.convergence().converged, "{:?}", m.convergence());
    let (xt, yt) = simulate_blobs(200, 0.6, 22);
    let pred = m.predict(&xt).unwrap();
    let acc = pred.iter().zip(&yt).filter(|(a, b)| a == b).count() as f64 / yt.len() as f64;
    // Bayes accuracy for these blobs is about 0.99; 0.95 leaves room for estimation error.
    assert!(acc > 0.95, "accuracy {acc}");
    let p = m.predict_proba(&xt).unwrap();
    for row in p.row_iter() {
        assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
    assert!(hand_till(&p, &yt, None).unwrap() > 0.98);
}

#[test]
fn multinomial_with_two_classes_is_binary_lr() {
    let (x, y) = simulate_logistic(500, &[0.4, -1.0, 2.0], 17);
    let cfg = LogisticConfig::default();
    let w: Vec<f64> = (0..500).map(|i| 1.0 + (i % 2) as f64).collect();
    let b = LogisticRegression::fit(&x, &y, Some(&w), &cfg).unwrap();
    let m = MultinomialLogisticRegression::fit(&x, &y, Some(&w), 2, &cfg).unwrap();
    let c = m.class_coefficients(1);
    assert!((c[0] - b.intercept()).abs() < 1e-6);
    assert!(max_abs_diff(&c[1..], b.coefficients()) < 1e-6);
    assert_eq!(m.class_coefficients(0), vec![0.0; 3]);
    let pm = m.predict_proba(&x).unwrap();
    let pb = b.predict_proba(&x).unwrap();
    let p1: Vec<f64> = pm.row_iter().map(|r| r[1]).collect();
    assert!(max_abs_diff(&p1, &pb) < 1e-7);
}

#[test]
fn multinomial_rejects_missing_class_and_bad_labels() {
    let x = Matrix::new(4, 1, vec![0., 1., 2., 3.]).unwrap();
    let cfg = LogisticConfig::default();
    let e = MultinomialLogisticRegression::fit(&x, &[0, 1, 1, 0], None, 3, &cfg).unwrap_err();
    assert!(e.to_string().contains("class 2"), "{e}");
    assert!(MultinomialLogisticRegression::fit(&x, &[0, 1, 3, 0], None, 3, &cfg).is_err());
    assert!(MultinomialLogisticRegression::fit(&x, &[0, 0, 0, 0], None, 1, &cfg).is_err());
}

// ---------------------------------------------------------------------------------------
// One-hot coding

#[test]
fn one_hot_drops_the_first_level() {
    let m = one_hot(
        &[vec![0, 1, 2, 1], vec![1, 0, 0, 1], vec![0, 0, 0, 0]],
        &[3, 2, 1],
    )
    .unwrap();
    assert_eq!((m.nrows(), m.ncols()), (4, 3));
    assert_eq!(m.row(0), &[0., 0., 1.]);
    assert_eq!(m.row(1), &[1., 0., 0.]);
    assert_eq!(m.row(2), &[0., 1., 0.]);
    assert_eq!(m.row(3), &[1., 0., 1.]);
    assert!(one_hot(&[vec![0, 3]], &[3]).is_err(), "level above arity");
    assert!(one_hot(&[vec![0, 1], vec![0]], &[2, 2]).is_err(), "ragged");
    assert!(one_hot(&[vec![0, 1]], &[2, 2]).is_err(), "arity count");
    assert!(one_hot(&[vec![0]], &[0]).is_err(), "arity 0");
    assert!(one_hot(&[], &[]).is_err());
}

#[test]
fn hlr_style_fit_on_weighted_cells() {
    // A histogram over (a ∈ {0,1,2}) × (label): each cell once, weights = counts, as a fit
    // on a synthetic release does. P(y = 1 | a) = 0.2, 0.5, 0.8 exactly.
    let a = vec![0, 0, 1, 1, 2, 2];
    let y = [0, 1, 0, 1, 0, 1];
    let counts = [40., 10., 25., 25., 10., 40.];
    let x = one_hot(&[a], &[3]).unwrap();
    let m = LogisticRegression::fit(&x, &y, Some(&counts), &LogisticConfig::default()).unwrap();
    let p = m
        .predict_proba(&one_hot(&[vec![0, 1, 2]], &[3]).unwrap())
        .unwrap();
    assert!(max_abs_diff(&p, &[0.2, 0.5, 0.8]) < 1e-6, "{p:?}");
}

// ---------------------------------------------------------------------------------------
// Metrics

#[test]
fn auc_hand_computed_examples() {
    // Classic: 3 of 4 positive/negative pairs ordered correctly.
    let a = auc(&[0.1, 0.4, 0.35, 0.8], &[false, false, true, true], None).unwrap();
    assert_eq!(a, 0.75);
    // A tie between a positive and a negative counts half: (3 + 0.5) / 4.
    let a = auc(&[0.9, 0.5, 0.5, 0.1], &[true, true, false, false], None).unwrap();
    assert_eq!(a, 0.875);
    // All scores tied: 0.5. Reversed ranking: 0.
    assert_eq!(
        auc(&[1.0; 5], &[true, false, true, false, false], None).unwrap(),
        0.5
    );
    assert_eq!(auc(&[3., 2., 1.], &[false, true, true], None).unwrap(), 0.0);
    // Rank-sum check with ties across groups: scores 1,2,2,3,3,3; positives at 2 (one of
    // the two), 3, 3. Mid-ranks: 1, 2.5, 2.5, 5, 5, 5; R₊ = 2.5 + 5 + 5 = 12.5;
    // AUC = (12.5 − 3·4/2) / (3·3) = 6.5 / 9.
    let a = auc(
        &[1., 2., 2., 3., 3., 3.],
        &[false, true, false, true, true, false],
        None,
    )
    .unwrap();
    assert!((a - 6.5 / 9.0).abs() < 1e-15, "{a}");
}

#[test]
fn auc_weights_equal_duplicates_and_errors() {
    let s = [0.3, 0.7, 0.5, 0.5, 0.1];
    let l = [true, true, false, true, false];
    let w = [2., 1., 3., 0., 1.];
    let (mut sd, mut ld) = (Vec::new(), Vec::new());
    for i in 0..5 {
        for _ in 0..w[i] as usize {
            sd.push(s[i]);
            ld.push(l[i]);
        }
    }
    let aw = auc(&s, &l, Some(&w)).unwrap();
    let ad = auc(&sd, &ld, None).unwrap();
    assert!((aw - ad).abs() < 1e-15, "{aw} vs {ad}");
    assert!(
        auc(&[0.1, 0.2], &[true, true], None).is_err(),
        "no negatives"
    );
    assert!(
        auc(&[0.1, f64::NAN], &[true, false], None).is_err(),
        "NaN score"
    );
    assert!(auc(&[0.1], &[true, false], None).is_err(), "length");
    assert!(auc(&[], &[], None).is_err(), "empty");
}

#[test]
fn hand_till_known_three_class_example() {
    // Worked by hand: Â(0|1) = 3/4, Â(1|0) = 2/4, Â(0|2) = 3.5/4 (one tie), Â(2|0) = 1,
    // Â(1|2) = 2/4, Â(2|1) = 3.5/4 (one tie). Pair means 0.625, 0.9375, 0.6875;
    // M = 2/(3·2) · 2.25 = 0.75.
    let p = Matrix::from_rows(&[
        vec![0.6, 0.3, 0.1],
        vec![0.3, 0.4, 0.3],
        vec![0.2, 0.5, 0.3],
        vec![0.4, 0.2, 0.4],
        vec![0.1, 0.3, 0.6],
        vec![0.3, 0.3, 0.4],
    ])
    .unwrap();
    let labels = [0, 0, 1, 1, 2, 2];
    let m = hand_till(&p, &labels, None).unwrap();
    assert!((m - 0.75).abs() < 1e-15, "{m}");
    // With two classes Hand–Till is the plain AUC.
    let p2 = Matrix::from_rows(&[
        vec![0.9, 0.1],
        vec![0.4, 0.6],
        vec![0.3, 0.7],
        vec![0.6, 0.4],
    ])
    .unwrap();
    let l2 = [0, 0, 1, 1];
    let a = auc(&[0.1, 0.6, 0.7, 0.4], &[false, false, true, true], None).unwrap();
    assert!((hand_till(&p2, &l2, None).unwrap() - a).abs() < 1e-15);
    // Errors: a label without a column; a single class present.
    assert!(hand_till(&p2, &[0, 0, 1, 2], None).is_err());
    assert!(hand_till(&p2, &[1, 1, 1, 1], None).is_err());
}

// ---------------------------------------------------------------------------------------
// Stratified folds

#[test]
fn stratified_folds_have_balanced_classes() {
    let mut labels = Vec::new();
    for (c, n) in [(0u32, 23usize), (1, 7), (5, 50)] {
        labels.extend(std::iter::repeat_n(c, n));
    }
    // Shuffle the label order deterministically so that folds cannot follow positions.
    labels.rotate_left(31);
    let k = 10;
    let folds = StratifiedKFold::new(&labels, k, &mut SecureRng::insecure_from_seed(4)).unwrap();
    let mut seen = vec![0usize; labels.len()];
    let mut sizes = Vec::new();
    for (train, test) in folds.splits() {
        assert_eq!(train.len() + test.len(), labels.len());
        for &i in &test {
            seen[i] += 1;
        }
        sizes.push(test.len());
        for (c, n) in [(0u32, 23f64), (1, 7.0), (5, 50.0)] {
            let in_fold = test.iter().filter(|&&i| labels[i] == c).count() as f64;
            assert!((in_fold - n / k as f64).abs() < 1.0, "class {c}: {in_fold}");
        }
    }
    assert!(
        seen.iter().all(|&s| s == 1),
        "folds must partition the examples"
    );
    assert!(
        sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1,
        "{sizes:?}"
    );
    // Deterministic given the seed; a different seed gives a different split.
    let again = StratifiedKFold::new(&labels, k, &mut SecureRng::insecure_from_seed(4)).unwrap();
    assert_eq!(folds, again);
    let other = StratifiedKFold::new(&labels, k, &mut SecureRng::insecure_from_seed(5)).unwrap();
    assert_ne!(folds.fold_of(), other.fold_of());
    let mut rng = SecureRng::insecure_from_seed(0);
    assert!(StratifiedKFold::new(&labels, 1, &mut rng).is_err());
    assert!(StratifiedKFold::new(&labels[..3], 4, &mut rng).is_err());
    assert!(StratifiedKFold::new(&[], 2, &mut rng).is_err());
}

// ---------------------------------------------------------------------------------------
// PLR / PMLR

/// Features uniform on [−1, 1] (inside the public bounds) and logistic labels.
fn simulate_bounded(n: usize, beta: &[f64], seed: u64) -> (Matrix, Vec<u32>) {
    let mut rng = SecureRng::insecure_from_seed(seed);
    let d = beta.len() - 1;
    let mut data = Vec::new();
    let mut y = Vec::new();
    for _ in 0..n {
        let row: Vec<f64> = (0..d).map(|_| 2.0 * uniform01(&mut rng) - 1.0).collect();
        let eta = beta[0] + row.iter().zip(&beta[1..]).map(|(x, b)| x * b).sum::<f64>();
        y.push(u32::from(uniform01(&mut rng) < sigmoid(eta)));
        data.extend(row);
    }
    (Matrix::new(n, d, data).unwrap(), y)
}

#[test]
fn plr_with_huge_epsilon_approaches_the_non_private_fit() {
    let (x, y) = simulate_bounded(4000, &[0.5, 2.0, -1.5], 31);
    let bounds = FeatureBounds::new(vec![-1.0; 2], vec![1.0; 2]).unwrap();
    let cfg = PlrConfig::new(1e4).with_lambda(1e-6);
    let mut rng = SecureRng::insecure_from_seed(1);
    let plr = PrivateLogisticRegression::fit(&x, &y, &bounds, &cfg, &mut rng).unwrap();
    assert!(plr.convergence().converged, "{:?}", plr.convergence());
    assert_eq!(plr.extra_ridge(), 0.0);
    let lr = LogisticRegression::fit(&x, &y, None, &LogisticConfig::default()).unwrap();
    let (pp, pl) = (
        plr.predict_proba(&x).unwrap(),
        lr.predict_proba(&x).unwrap(),
    );
    // Observed difference ~2e-5 (noise ‖b‖/n ≈ 1e-7, ridge 1e-6).
    assert!(max_abs_diff(&pp, &pl) < 1e-3, "{}", max_abs_diff(&pp, &pl));
    // Mapping the coefficients back to the original columns gives the same model.
    let back = plr.to_logistic();
    assert!((back.intercept() - lr.intercept()).abs() < 0.01);
    assert!(max_abs_diff(back.coefficients(), lr.coefficients()) < 0.01);
    assert!(max_abs_diff(&back.predict_proba(&x).unwrap(), &pp) < 1e-12);
}

#[test]
fn plr_output_depends_on_the_seed_only_through_the_noise() {
    let (x, y) = simulate_bounded(300, &[0.0, 1.0, 1.0], 2);
    let bounds = FeatureBounds::new(vec![-1.0; 2], vec![1.0; 2]).unwrap();
    let cfg = PlrConfig::new(1.0);
    let fit = |seed| {
        PrivateLogisticRegression::fit(
            &x,
            &y,
            &bounds,
            &cfg,
            &mut SecureRng::insecure_from_seed(seed),
        )
        .unwrap()
    };
    let (a, b, a2) = (fit(1), fit(2), fit(1));
    assert_eq!(a.coefficients(), a2.coefficients());
    assert!(max_abs_diff(a.coefficients(), b.coefficients()) > 1e-3);
    // Default Λ spends ε/10 on the regulariser: ε′ = 0.9 ε.
    assert!(
        (a.epsilon_prime() - 0.9).abs() < 1e-12,
        "{}",
        a.epsilon_prime()
    );
    let expected_lambda = 0.25 / (300.0 * (1.0f64 / 20.0).exp_m1());
    assert!((a.lambda() - expected_lambda).abs() < 1e-15);
    assert_eq!(
        a.cost(),
        PrivacyCost::Pure {
            epsilon: a.epsilon()
        }
    );
}

#[test]
fn plr_second_branch_adds_ridge_and_halves_epsilon() {
    let (x, y) = simulate_bounded(10, &[0.0, 1.0], 3);
    let bounds = FeatureBounds::new(vec![-1.0], vec![1.0]).unwrap();
    // ε′ = 0.1 − 2 ln(1 + 0.25/(10 · 0.01)) = 0.1 − 2 ln 3.5 < 0: Algorithm 2's second branch.
    let cfg = PlrConfig::new(0.1).with_lambda(0.01);
    let m = PrivateLogisticRegression::fit(
        &x,
        &y,
        &bounds,
        &cfg,
        &mut SecureRng::insecure_from_seed(9),
    )
    .unwrap();
    assert_eq!(m.epsilon_prime(), 0.05);
    let delta = 0.25 / (10.0 * (0.1f64 / 4.0).exp_m1()) - 0.01;
    assert!(
        (m.extra_ridge() - delta).abs() < 1e-12,
        "{}",
        m.extra_ridge()
    );
    assert!(m.coefficients().iter().all(|c| c.is_finite()));
}

#[test]
fn plr_rejects_invalid_parameters() {
    let (x, y) = simulate_bounded(20, &[0.0, 1.0], 4);
    let bounds = FeatureBounds::new(vec![-1.0], vec![1.0]).unwrap();
    let mut rng = SecureRng::insecure_from_seed(0);
    for eps in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let r = PrivateLogisticRegression::fit(&x, &y, &bounds, &PlrConfig::new(eps), &mut rng);
        assert!(
            matches!(r, Err(Error::InvalidEpsilon(_))),
            "ε = {eps}: {r:?}"
        );
        let r = PrivateMultinomialLogisticRegression::fit(
            &x,
            &y,
            2,
            &bounds,
            &PlrConfig::new(eps),
            &mut rng,
        );
        assert!(matches!(r, Err(Error::InvalidEpsilon(_))), "ε = {eps}");
    }
    for lambda in [0.0, -1.0, f64::NAN] {
        let cfg = PlrConfig::new(1.0).with_lambda(lambda);
        assert!(PrivateLogisticRegression::fit(&x, &y, &bounds, &cfg, &mut rng).is_err());
    }
    let ok = PlrConfig::new(1.0);
    let two = FeatureBounds::new(vec![-1.0; 2], vec![1.0; 2]).unwrap();
    assert!(
        PrivateLogisticRegression::fit(&x, &y, &two, &ok, &mut rng).is_err(),
        "bounds"
    );
    let mut y2 = y.clone();
    y2[0] = 2;
    assert!(
        PrivateLogisticRegression::fit(&x, &y2, &bounds, &ok, &mut rng).is_err(),
        "label"
    );
    assert!(PrivateMultinomialLogisticRegression::fit(&x, &y2, 2, &bounds, &ok, &mut rng).is_err());
    assert!(PrivateMultinomialLogisticRegression::fit(&x, &y, 1, &bounds, &ok, &mut rng).is_err());
    assert!(FeatureBounds::new(vec![1.0], vec![1.0]).is_err());
    assert!(FeatureBounds::new(vec![0.0], vec![f64::INFINITY]).is_err());
    assert!(FeatureBounds::new(vec![0.0], vec![1.0, 2.0]).is_err());
    // Single-class data is *not* refused (a refusal would depend on the private data).
    assert!(PrivateLogisticRegression::fit(&x, &[1; 20], &bounds, &ok, &mut rng).is_ok());
}

#[test]
fn embedding_stays_in_the_unit_ball() {
    let bounds = FeatureBounds::new(vec![0.0, -5.0, 10.0], vec![1.0, 5.0, 20.0]).unwrap();
    let x = Matrix::from_rows(&[
        vec![1.0, 5.0, 20.0],
        vec![0.0, -5.0, 10.0],
        vec![7.0, -100.0, 15.0], // outside the bounds: clamped
    ])
    .unwrap();
    let e = bounds.embed(&x).unwrap();
    for row in e.row_iter() {
        let norm: f64 = row.iter().map(|v| v * v).sum::<f64>().sqrt();
        assert!(norm <= 1.0 + 1e-15, "{norm}");
    }
    assert!((e.row(0).iter().map(|v| v * v).sum::<f64>() - 1.0).abs() < 1e-15);
    assert_eq!(e.row(2)[3], 0.0, "the midpoint maps to 0");
}

#[test]
fn objective_noise_norm_is_gamma_distributed() {
    use statrs::distribution::{ContinuousCDF, Gamma};
    let (dim, eps_prime, draws) = (5usize, 2.0, 20_000usize);
    let mut rng = SecureRng::insecure_from_seed(77);
    let mut norms = Vec::with_capacity(draws);
    let mut coord_sum = vec![0.0; dim];
    for _ in 0..draws {
        let b = objective_noise(&mut rng, dim, eps_prime).unwrap();
        norms.push(b.iter().map(|v| v * v).sum::<f64>().sqrt());
        for (s, v) in coord_sum.iter_mut().zip(&b) {
            *s += v;
        }
    }
    // ‖b‖ ~ Gamma(d, 2/ε′): mean d·2/ε′ = 5, sd √d·2/ε′ = √5. |z| < 5 has false-alarm rate
    // 6e-7.
    let mean = norms.iter().sum::<f64>() / draws as f64;
    let se = 5f64.sqrt() / (draws as f64).sqrt();
    assert!(((mean - 5.0) / se).abs() < 5.0, "mean norm {mean}");
    // Kolmogorov–Smirnov against Gamma(shape 5, rate ε′/2 = 1) at false-alarm rate 1e-4:
    // critical √n·D = √(ln(2/1e-4)/2) ≈ 2.226.
    let g = Gamma::new(dim as f64, eps_prime / 2.0).unwrap();
    norms.sort_by(f64::total_cmp);
    let n = draws as f64;
    let d_stat = norms
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let c = g.cdf(v);
            (c - i as f64 / n).abs().max(((i + 1) as f64 / n - c).abs())
        })
        .fold(0.0, f64::max);
    assert!(
        d_stat * n.sqrt() < 2.226,
        "KS statistic {}",
        d_stat * n.sqrt()
    );
    // Direction uniform ⇒ each coordinate has mean 0 and variance E‖b‖²/d = (d+1)·4/ε′² = 6.
    for s in coord_sum {
        let z = (s / n) / (6.0f64 / n).sqrt();
        assert!(z.abs() < 5.0, "coordinate mean z = {z}");
    }
    assert!(objective_noise(&mut rng, 0, 1.0).is_err());
    assert!(objective_noise(&mut rng, 3, 0.0).is_err());
}

#[test]
fn pmlr_classifies_blobs_and_spends_epsilon() {
    let (x, y) = simulate_blobs(300, 0.5, 41);
    let bounds = FeatureBounds::new(vec![-2.0, -2.0], vec![5.0, 5.0]).unwrap();
    let cfg = PlrConfig::new(30.0);
    let mut rng = SecureRng::insecure_from_seed(8);
    let m = PrivateMultinomialLogisticRegression::fit(&x, &y, 3, &bounds, &cfg, &mut rng).unwrap();
    assert_eq!(m.models().len(), 3);
    for sub in m.models() {
        assert!((sub.epsilon().get() - 10.0).abs() < 1e-12);
    }
    assert_eq!(
        m.cost(),
        PrivacyCost::Pure {
            epsilon: m.epsilon()
        }
    );
    assert_eq!(m.epsilon().get(), 30.0);
    let (xt, yt) = simulate_blobs(200, 0.5, 42);
    let p = m.predict_proba(&xt).unwrap();
    for row in p.row_iter() {
        assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
    // Heavily regularised one-vs-rest models rank well even when their probabilities are
    // flat; the blobs are easy (non-private Hand–Till ≈ 1).
    let ht = hand_till(&p, &yt, None).unwrap();
    assert!(ht > 0.99, "Hand-Till {ht}");
}

#[test]
fn ten_fold_cross_validation_of_lr_runs_end_to_end() {
    let (x, y) = simulate_logistic(1000, &[0.0, 1.5, -1.0], 55);
    let folds = StratifiedKFold::new(&y, 10, &mut SecureRng::insecure_from_seed(3)).unwrap();
    let mut aucs = Vec::new();
    for (train, test) in folds.splits() {
        let xtr = x.select_rows(&train).unwrap();
        let ytr: Vec<u32> = train.iter().map(|&i| y[i]).collect();
        let m = LogisticRegression::fit(&xtr, &ytr, None, &LogisticConfig::default()).unwrap();
        let p = m.predict_proba(&x.select_rows(&test).unwrap()).unwrap();
        let pos: Vec<bool> = test.iter().map(|&i| y[i] == 1).collect();
        aucs.push(auc(&p, &pos, None).unwrap());
    }
    let mean = aucs.iter().sum::<f64>() / aucs.len() as f64;
    // The true model's AUC on this design is about 0.85.
    assert!(mean > 0.78 && mean < 0.92, "mean AUC {mean}");
}
