//! Projected histograms (Vinterbo 2012): the sparse thresholded histogram against a dense
//! reference, extreme spaces, partition-refinement gains against brute force, PRIVATEKD's
//! sampling distribution, encoding/discretization/release round trips, a privacy audit that
//! catches the factor-2 bug (the end-to-end run on the real Adult data: `real_data.rs`).

use crate::support;
use disguise::SecureRng;
use disguise::audit::{AuditConfig, audit};
use disguise::histogram::{
    Bins, ColumnSpec, ColumnValues, Discretized, Domain, DomainSource, GammaRule, KChoice,
    MixedRadix, ProjectionConfig, Schema, SparseLaplace, Table, ThresholdedHistogram, bin_count,
    mda, nonprivate_kd, private_kd, projected_histogram, select_k_by_splitting, simulate_k,
};
use disguise::noise::Laplace;
use disguise::noise::bernoulli::uniform_below;
use disguise::objective::{Discernibility, SetFunction};
use statrs::distribution::{ChiSquared, ContinuousCDF};
use std::collections::HashMap;
use std::path::PathBuf;
use support::eps;

/// The naive construction of equations (3)–(4): every one of the m cells gets its own noise
/// (test-only reference; O(m)).
fn dense_reference(
    rng: &mut SecureRng,
    lap: &Laplace,
    tau: f64,
    counts: &[(u64, u64)],
    m: u64,
) -> Vec<(u64, f64)> {
    let h: HashMap<u64, u64> = counts.iter().copied().collect();
    (0..m)
        .filter_map(|cell| {
            let v = lap
                .sample(rng, h.get(&cell).copied().unwrap_or(0) as f64)
                .unwrap();
            (v > tau).then_some((cell, v))
        })
        .collect()
}

/// Chi-square homogeneity test of two count vectors over the same categories; returns the
/// p-value (categories empty in both are dropped).
fn homogeneity_p(a: &[u64], b: &[u64]) -> f64 {
    let (na, nb): (u64, u64) = (a.iter().sum(), b.iter().sum());
    let mut stat = 0.0;
    let mut df = 0usize;
    for (&x, &y) in a.iter().zip(b) {
        let tot = (x + y) as f64;
        if tot == 0.0 {
            continue;
        }
        df += 1;
        let ea = tot * na as f64 / (na + nb) as f64;
        let eb = tot * nb as f64 / (na + nb) as f64;
        stat += (x as f64 - ea).powi(2) / ea + (y as f64 - eb).powi(2) / eb;
    }
    ChiSquared::new((df - 1) as f64).unwrap().sf(stat)
}

/// Two-sample Kolmogorov–Smirnov p-value (asymptotic Kolmogorov distribution).
fn ks_p(mut a: Vec<f64>, mut b: Vec<f64>) -> f64 {
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (mut i, mut j, mut d) = (0usize, 0usize, 0f64);
    while i < a.len() && j < b.len() {
        let x = a[i].min(b[j]);
        while i < a.len() && a[i] <= x {
            i += 1;
        }
        while j < b.len() && b[j] <= x {
            j += 1;
        }
        d = d.max((i as f64 / na - j as f64 / nb).abs());
    }
    let en = (na * nb / (na + nb)).sqrt();
    let lambda = (en + 0.12 + 0.11 / en) * d;
    let mut q = 0.0;
    for k in 1..200 {
        let k = k as f64;
        q += 2.0 * (-1f64).powf(k - 1.0) * (-2.0 * k * k * lambda * lambda).exp();
    }
    q.clamp(0.0, 1.0)
}

/// The sparse construction has the dense construction's distribution: the size of the
/// support, which cells are kept, and the released values (for an empty and a non-empty
/// cell). Each test is at p = 1e-4 (about 10 tests: false alarm < 1e-3 for the whole test,
/// fixed seeds make it deterministic).
#[test]
fn sparse_has_the_dense_distribution() {
    let m = 6u64;
    let counts = [(0u64, 3u64), (2, 1)];
    let n = 4;
    // ε = 1, A = ½: τ = ½·ln 4 = 0.693, scale 2: an empty cell crosses τ with p ≈ 0.35.
    let mech = SparseLaplace::new(eps(1.0), n, 0.5).unwrap();
    let lap = Laplace::new(mech.scale()).unwrap();
    let tau = mech.threshold();
    let runs = 20_000;
    let mut rng_s = SecureRng::insecure_from_seed(11);
    let mut rng_d = SecureRng::insecure_from_seed(12);
    let mut size = [vec![0u64; 7], vec![0u64; 7]];
    let mut kept = [vec![0u64; 6], vec![0u64; 6]];
    let mut values: [Vec<Vec<f64>>; 2] = [vec![Vec::new(); 6], vec![Vec::new(); 6]];
    for _ in 0..runs {
        let sparse = mech.release_counts(&mut rng_s, &counts, m).unwrap();
        let dense = dense_reference(&mut rng_d, &lap, tau, &counts, m);
        for (side, cells) in [(0, sparse.cells().to_vec()), (1, dense)] {
            assert!(cells.windows(2).all(|w| w[0].0 < w[1].0), "sorted by cell");
            size[side][cells.len()] += 1;
            for (cell, v) in cells {
                assert!(v > tau);
                kept[side][cell as usize] += 1;
                values[side][cell as usize].push(v);
            }
        }
    }
    let p = homogeneity_p(&size[0], &size[1]);
    assert!(p > 1e-4, "support size differs: p = {p}, {size:?}");
    for cell in 0..6 {
        let p = homogeneity_p(
            &[kept[0][cell], runs - kept[0][cell]],
            &[kept[1][cell], runs - kept[1][cell]],
        );
        assert!(p > 1e-4, "cell {cell} kept differently: p = {p}, {kept:?}");
        // And both match equation (5): P(kept) = P(L > τ − h).
        let h = counts
            .iter()
            .find(|c| c.0 == cell as u64)
            .map_or(0, |c| c.1) as f64;
        let x = tau - h;
        let exact = if x > 0.0 {
            0.5 * (-x / 2.0).exp()
        } else {
            1.0 - 0.5 * (x / 2.0).exp()
        };
        let freq = kept[0][cell] as f64 / runs as f64;
        let sd = (exact * (1.0 - exact) / runs as f64).sqrt();
        assert!(
            (freq - exact).abs() < 4.5 * sd,
            "cell {cell}: {freq} vs {exact}"
        );
    }
    for cell in [2usize, 5] {
        let p = ks_p(values[0][cell].clone(), values[1][cell].clone());
        assert!(p > 1e-4, "values of cell {cell} differ: KS p = {p}");
    }
}

/// m = 2^60 cells: the construction never enumerates them, runs in milliseconds, and the
/// number of spurious cells has the exact mean (m − n′)·P(noise > τ); their values follow the
/// tail (mean excess over τ = the scale b, memorylessness). A tiny p (≈ 1e−60) gives none.
#[test]
fn huge_space_is_fast_and_exact() {
    let m = 1u64 << 60;
    let codes: Vec<u64> = (0..1000u64).map(|i| (i % 10) * 1_000_000_007).collect();
    // A = 10, ε = 1: τ = 10·ln 1000 = 69.08, scale 2: p ≈ ½e^(−34.5) ≈ 5e−16, mean ≈ 580.
    let mech = SparseLaplace::new(eps(1.0), 1000, 10.0).unwrap();
    let p = mech.spurious_probability().unwrap();
    let expected = (m - 10) as f64 * p;
    assert!(expected > 400.0 && expected < 800.0, "{expected}");
    let mut rng = SecureRng::insecure_from_seed(5);
    let start = std::time::Instant::now();
    let reps = 20;
    let (mut spurious, mut excess, mut excess_n) = (0u64, 0.0, 0u64);
    for _ in 0..reps {
        let h = mech.release(&mut rng, &codes, m).unwrap();
        for &(cell, v) in h.cells() {
            if cell % 1_000_000_007 == 0 && cell / 1_000_000_007 < 10 {
                assert!(v > 50.0, "the ten full cells (100 records each) are kept");
            } else {
                spurious += 1;
                excess += v - mech.threshold();
                excess_n += 1;
            }
        }
    }
    // Milliseconds on an idle machine, where a release that walked the 2^60 cells would never
    // end: the bound stops only that, as a loaded machine must not fail the test.
    let elapsed = start.elapsed();
    assert!(elapsed.as_secs_f64() < 120.0, "{elapsed:?}");
    // Sum of 20 Binomial(m − 10, p) ≈ Poisson(20·expected): within 5 sd.
    let mean = reps as f64 * expected;
    assert!(
        (spurious as f64 - mean).abs() < 5.0 * mean.sqrt(),
        "{spurious} vs {mean}"
    );
    // Excess over τ is Exponential(b = 2) (geometric on the grid): mean 2, sd 2/√N.
    let avg = excess / excess_n as f64;
    assert!(
        (avg - 2.0).abs() < 5.0 * 2.0 / (excess_n as f64).sqrt(),
        "{avg}"
    );

    // Tiny p: A = 40, τ = 276, p ≈ ½e^(−138) ≈ 5e−61: nothing spurious, still fast.
    let strict = SparseLaplace::new(eps(1.0), 1000, 40.0).unwrap();
    assert!(strict.spurious_probability().unwrap() < 1e-59);
    let h = strict.release(&mut rng, &codes, m).unwrap();
    assert!(h.support_size() <= 10);
}

/// Brute-force k-discernibility: ordered pairs with different labels discerned by S.
fn brute_force_pairs(columns: &[Vec<u32>], labels: &[u32], set: &[usize]) -> u64 {
    let n = labels.len();
    let mut count = 0;
    for x in 0..n {
        for y in 0..n {
            if labels[x] != labels[y] && set.iter().any(|&a| columns[a][x] != columns[a][y]) {
                count += 1;
            }
        }
    }
    count
}

#[test]
fn refinement_gains_equal_brute_force() {
    let mut rng = SecureRng::insecure_from_seed(21);
    let mut below = |k: u64| uniform_below(&mut rng, k) as u32;
    for _ in 0..200 {
        let n = 1 + below(30) as usize;
        let d = 1 + below(5) as usize;
        let q = 1 + below(3);
        let radices: Vec<u32> = (0..d).map(|_| 1 + below(4)).collect();
        let columns: Vec<Vec<u32>> = radices
            .iter()
            .map(|&r| (0..n).map(|_| below(r as u64)).collect())
            .collect();
        let labels: Vec<u32> = (0..n).map(|_| below(q as u64)).collect();
        let f = Discernibility::new(columns.clone(), radices, labels.clone(), q).unwrap();
        // A random insertion order; check value and every gain at each step.
        let mut state = f.empty();
        let mut set: Vec<usize> = Vec::new();
        let mut order: Vec<usize> = (0..d).collect();
        for i in (1..d).rev() {
            order.swap(i, below(i as u64 + 1) as usize);
        }
        for &next in &order {
            let current = brute_force_pairs(&columns, &labels, &set);
            assert_eq!(f.value(&state), current as f64 / n as f64);
            let all: Vec<usize> = (0..d).collect();
            let mut gains = vec![0.0; d];
            f.gains(&state, &all, &mut gains);
            for (a, &gain) in gains.iter().enumerate() {
                let mut with = set.clone();
                with.push(a);
                let expected =
                    (brute_force_pairs(&columns, &labels, &with) - current) as f64 / n as f64;
                assert_eq!(gain, expected, "n {n} set {set:?} a {a}");
            }
            f.insert(&mut state, next);
            set.push(next);
        }
        assert_eq!(
            f.full_value(),
            brute_force_pairs(&columns, &labels, &set) as f64 / n as f64
        );
    }
}

/// PRIVATEKD's first pick has exactly the paper's distribution P(a) ∝ exp(ε′·gain(a)) with
/// ε′ = ε_p/(4k). Chi-square at p = 1e-4.
#[test]
fn privatekd_samples_the_papers_distribution() {
    // 40 records, 4 attributes with different discerning power; labels alternate.
    let n = 40usize;
    let labels: Vec<u32> = (0..n as u32).map(|i| i % 2).collect();
    let columns = vec![
        (0..n as u32).map(|i| i % 2).collect::<Vec<_>>(), // the label itself: gain 20
        (0..n as u32).map(|i| (i / 2) % 2).collect(),     // independent of the label
        (0..n as u32).map(|i| u32::from(i < 10)).collect(),
        vec![0; n], // constant: gain 0
    ];
    let f = Discernibility::new(columns, vec![2, 2, 2, 1], labels, 2).unwrap();
    let mut gains = vec![0.0; 4];
    f.gains(&f.empty(), &[0, 1, 2, 3], &mut gains);
    assert_eq!(gains[0], 20.0);
    assert_eq!(gains[3], 0.0);
    let (epsilon_p, k) = (1.0, 1usize);
    let eps_prime = epsilon_p / (4.0 * k as f64);
    let weights: Vec<f64> = gains.iter().map(|g| (eps_prime * g).exp()).collect();
    let total: f64 = weights.iter().sum();
    let runs = 40_000u64;
    let mut counts = [0u64; 4];
    let mut rng = SecureRng::insecure_from_seed(31);
    for _ in 0..runs {
        let s = private_kd(&f, k, eps(epsilon_p), &mut rng).unwrap();
        assert!(s.guarantee.unwrap().epsilon <= epsilon_p);
        counts[s.elements[0]] += 1;
    }
    let stat: f64 = counts
        .iter()
        .zip(&weights)
        .map(|(&c, w)| {
            let e = runs as f64 * w / total;
            (c as f64 - e).powi(2) / e
        })
        .sum();
    let p = ChiSquared::new(3.0).unwrap().sf(stat);
    assert!(p > 1e-4, "p = {p}, counts {counts:?}, weights {weights:?}");
    // Non-private KD and MDA: attribute 0 alone discerns every pair.
    assert_eq!(nonprivate_kd(&f, 2).unwrap().elements[0], 0);
    let r = mda(&f, 0.1).unwrap();
    assert_eq!(r.elements, vec![0]);
    assert_eq!(r.value, r.full_value);
}

#[test]
fn mda_is_the_shortest_greedy_prefix() {
    // The simulated data of Section 2.3.1 with 2 bins per predictor: F(S)/F(A) ≈ 1 − 2^−|S|.
    let data = disguise::histogram::simulated_data(5000, 8, 2, 3).unwrap();
    let (f, _) = disguise::histogram::discernibility_for(&data, 8).unwrap();
    for sigma in [0.3, 0.1, 0.01] {
        let r = mda(&f, sigma).unwrap();
        let k = r.elements.len();
        assert!(r.value >= (1.0 - sigma) * r.full_value);
        let shorter = f.evaluate(&r.elements[..k - 1]);
        assert!(
            shorter < (1.0 - sigma) * r.full_value,
            "σ = {sigma}, k = {k}"
        );
        // 1 − 2^−k ≥ (1 − σ)(1 − 2^−8) up to sampling noise.
        let predicted = (1..=8)
            .find(|&j| 1.0 - 0.5f64.powi(j) >= (1.0 - sigma) * (1.0 - 0.5f64.powi(8)))
            .unwrap() as usize;
        assert!(
            k.abs_diff(predicted) <= 1,
            "σ = {sigma}: {k} vs {predicted}"
        );
    }
    assert_eq!(
        simulate_k(5000, 8, 2, 0.1, 3).unwrap(),
        mda(&f, 0.1).unwrap().elements.len()
    );
}

#[test]
fn split_selection_returns_a_candidate() {
    let data = disguise::histogram::simulated_data(3000, 6, 2, 9).unwrap();
    let (f, _) = disguise::histogram::discernibility_for(&data, 6).unwrap();
    let mut rng = SecureRng::insecure_from_seed(2);
    let choice = select_k_by_splitting(&f, &[1, 2, 4], eps(1.0), 0.1, &mut rng).unwrap();
    assert!([1, 2, 4].contains(&choice.k));
    assert_eq!(choice.elements.len(), choice.k);
    assert_eq!(choice.epsilon, 1.0);
    assert!(select_k_by_splitting(&f, &[7], eps(1.0), 0.1, &mut rng).is_err());
    assert!(select_k_by_splitting(&f, &[], eps(1.0), 0.1, &mut rng).is_err());
}

#[test]
fn encoding_round_trips() {
    let mut rng = SecureRng::insecure_from_seed(41);
    for _ in 0..100 {
        let d = 1 + uniform_below(&mut rng, 8) as usize;
        let radices: Vec<u64> = (0..d).map(|_| 1 + uniform_below(&mut rng, 300)).collect();
        let names: Vec<String> = (0..d).map(|i| format!("c{i}")).collect();
        let enc = MixedRadix::new(&radices, &names).unwrap();
        assert_eq!(enc.size(), radices.iter().product::<u64>());
        for _ in 0..100 {
            let digits: Vec<u32> = radices
                .iter()
                .map(|&r| uniform_below(&mut rng, r) as u32)
                .collect();
            let code = enc.try_encode(&digits).unwrap();
            assert!(code < enc.size());
            let mut back = vec![0u32; d];
            enc.decode(code, &mut back);
            assert_eq!(back, digits);
        }
    }
    // A bijection on a small space: every code hit exactly once.
    let enc = MixedRadix::new(&[3, 1, 4, 2], &["a", "b", "c", "d"]).unwrap();
    let mut seen = [false; 24];
    for a in 0..3 {
        for c in 0..4 {
            for d in 0..2 {
                let code = enc.encode(&[a, 0, c, d]) as usize;
                assert!(!seen[code]);
                seen[code] = true;
            }
        }
    }
    assert!(seen.iter().all(|&s| s));
    assert!(enc.try_encode(&[3, 0, 0, 0]).is_err());
}

/// A small mixed table: 3 numeric predictors, 1 categorical predictor, a target.
fn small_table(n: usize, seed: u64) -> Table {
    let schema = Schema::new(vec![
        ColumnSpec::numeric("a", 0.0, 10.0),
        ColumnSpec::numeric("b", -1.0, 1.0),
        ColumnSpec::categorical("c", &["x", "y", "z"]),
        ColumnSpec::numeric("d", 0.0, 100.0),
        ColumnSpec::categorical("t", &["no", "yes"]),
    ])
    .unwrap();
    let mut rng = SecureRng::insecure_from_seed(seed);
    let rows: Vec<Vec<String>> = (0..n)
        .map(|_| {
            let a = uniform_below(&mut rng, 1000) as f64 / 100.0;
            let t = if a > 5.0 { "yes" } else { "no" };
            vec![
                a.to_string(),
                (uniform_below(&mut rng, 200) as f64 / 100.0 - 1.0).to_string(),
                ["x", "y", "z"][uniform_below(&mut rng, 3) as usize].to_string(),
                // Some values outside the public bounds: clamped.
                (uniform_below(&mut rng, 140) as f64 - 20.0).to_string(),
                t.to_string(),
            ]
        })
        .collect();
    Table::from_rows(&schema, &rows, DomainSource::Schema, "small").unwrap()
}

#[test]
fn discretization_follows_the_formula() {
    let table = small_table(500, 1);
    let data = Discretized::new(&table).unwrap();
    // d = 5 columns, d − 1 = 4 predictors: ⌈1/bw(500, 4) − 0.5⌉.
    let bw = ((500f64).ln() / 500.0).powf(1.0 / 5.0);
    let bins = ((1.0 / bw - 0.5).ceil() as usize).max(2);
    assert_eq!(bin_count(500, 4).unwrap(), bins);
    for c in [0usize, 1, 3] {
        let Domain::Numeric { bins: b, .. } = &data.domains()[c] else {
            panic!("numeric")
        };
        assert_eq!(b.count(), bins);
        let (lo, hi) = b.bounds();
        let ColumnValues::Numeric(values) = table.column(c) else {
            panic!("numeric")
        };
        for (&v, code) in values.iter().zip(data.codes(c)) {
            let t = ((v - lo) / (hi - lo)).clamp(0.0, 1.0);
            let expected = ((t * bins as f64).floor() as usize).min(bins - 1);
            assert_eq!(code as usize, expected, "column {c}, value {v}");
        }
    }
    assert_eq!(data.domains()[2].size(), 3);
}

/// The synthetic release decodes to valid rows: reading it back with a schema of the
/// released columns works, every value is a level or lies in its bin, and the rows agree with
/// the released counts.
#[test]
fn release_decodes_to_valid_rows() {
    let table = small_table(2000, 2);
    let data = Discretized::new(&table).unwrap();
    let mut config = ProjectionConfig::new(eps(4.0));
    config.k = KChoice::Given(2);
    config.gamma = Some(0.7);
    let mut rng = SecureRng::insecure_from_seed(8);
    let release = projected_histogram(&data, 4, &config, &mut rng).unwrap();
    assert_eq!(*release.k, 2);
    assert_eq!(release.columns.len(), 3);
    assert!(release.columns.contains(&"t".to_string()));
    let g = release.guarantee.unwrap();
    assert!(g.epsilon <= 4.0, "{g:?}");
    assert!((*release.epsilon_p + *release.epsilon_h - 4.0).abs() < 1e-9);
    assert!((*release.epsilon_h - 0.7 * 4.0).abs() < 1e-9);
    // Attribute a determines the target: PRIVATEKD at ε_p = 1.2 finds it.
    assert!(
        release.attributes.contains(&"a".to_string()),
        "{:?}",
        release.attributes
    );

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("histogram-release");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("synthetic.csv");
    let written = release
        .write_csv(
            std::fs::File::create(&path).unwrap(),
            &mut SecureRng::insecure_from_seed(2),
        )
        .unwrap();
    assert_eq!(written, *release.synthetic_rows);
    let specs: Vec<ColumnSpec> = release
        .columns
        .iter()
        .map(|name| {
            let c = table.schema().column_index(name).unwrap();
            table.schema().columns[c].clone()
        })
        .collect();
    let schema = Schema::new(specs).unwrap();
    let back = Table::read(&[&path], &schema, DomainSource::Schema).unwrap();
    assert_eq!(back.rows() as u64, written);
    for (c, domain) in release.domains().iter().enumerate() {
        if let (Domain::Numeric { bins, .. }, ColumnValues::Numeric(values)) =
            (domain, back.column(c))
        {
            // Values are drawn inside their bins (the cells below are reproduced exactly):
            // each lies within the public bounds.
            let (lo, hi) = bins.bounds();
            for &v in values {
                assert!((lo..=hi).contains(&v), "{v} outside [{lo}, {hi}]");
            }
        }
    }
    // Re-discretizing the release reproduces the released cells and their copies.
    let again = Discretized::with_domains(&back, release.domains().to_vec()).unwrap();
    let cols: Vec<&disguise::data::Codes> = (0..again.width()).map(|c| again.codes(c)).collect();
    let mut codes = vec![0u64; again.rows()];
    release
        .encoding()
        .encode_codes_into(&cols, 0, &mut codes)
        .unwrap();
    let counts = disguise::histogram::cell_counts(&codes, *release.space_size).unwrap();
    let expected: Vec<(u64, u64)> = release
        .histogram()
        .cells()
        .iter()
        .map(|&(c, v)| (c, ThresholdedHistogram::copies(v)))
        .filter(|&(_, k)| k > 0)
        .collect();
    assert_eq!(counts, expected);
}

#[test]
fn pipeline_estimates_and_edge_cases() {
    let table = small_table(1000, 3);
    let data = Discretized::new(&table).unwrap();
    let mut rng = SecureRng::insecure_from_seed(9);
    // Everything estimated.
    let r = projected_histogram(&data, 4, &ProjectionConfig::new(eps(1.0)), &mut rng).unwrap();
    assert!(*r.k >= 1 && *r.k <= 4);
    assert!(*r.gamma > 0.0 && *r.gamma <= 1.0);
    assert!(r.guarantee.unwrap().epsilon <= 1.0);
    assert!(
        r.gamma_method.starts_with("balanced γ rule"),
        "{}",
        r.gamma_method
    );
    let est = r.gamma_estimate.as_ref().expect("γ was estimated");
    assert_eq!(*r.gamma, GammaRule::Balanced.gamma(1.0, est));
    // Kept predictors in table order, the picks in PRIVATEKD's order, the rest dropped.
    let names = data.names();
    let position = |a: &String| names.iter().position(|n| n == a).unwrap();
    assert!(
        r.attributes
            .windows(2)
            .all(|w| position(&w[0]) < position(&w[1]))
    );
    let mut picked = r.selection_order.to_vec();
    picked.sort_by_key(position);
    assert_eq!(picked, *r.attributes);
    assert_eq!(r.attributes.len() + r.dropped.len(), names.len() - 1);
    assert!(
        r.dropped
            .iter()
            .all(|d| !r.attributes.contains(d) && *d != *r.target)
    );
    // k = d − 1: no projection, γ = 1, everything to the histogram.
    let mut config = ProjectionConfig::new(eps(1.0));
    config.k = KChoice::Given(4);
    config.gamma = Some(0.5);
    let r = projected_histogram(&data, 4, &config, &mut rng).unwrap();
    assert_eq!(*r.gamma, 1.0);
    assert_eq!(*r.epsilon_p, 0.0);
    assert!(!r.notes.is_empty());
    // γ = 1 with k < d − 1 leaves nothing for PRIVATEKD.
    config.k = KChoice::Given(2);
    config.gamma = Some(1.0);
    assert!(projected_histogram(&data, 4, &config, &mut rng).is_err());
    config.gamma = Some(0.0);
    assert!(projected_histogram(&data, 4, &config, &mut rng).is_err());
    // Data splitting.
    config.gamma = Some(0.5);
    config.k = KChoice::Split {
        candidates: vec![1, 2],
        sigma: 0.1,
    };
    let r = projected_histogram(&data, 4, &config, &mut rng).unwrap();
    assert!(*r.k == 1 || *r.k == 2);
    assert!(r.guarantee.unwrap().epsilon <= 1.0);
    // k from a public dataset with the same domains.
    config.k = KChoice::Public {
        data: Box::new(
            Discretized::with_domains(&small_table(500, 4), data.domains().to_vec()).unwrap(),
        ),
        sigma: 0.1,
    };
    let r = projected_histogram(&data, 4, &config, &mut rng).unwrap();
    assert!(r.k_method.contains("public"));
    // Domains from the data: no guarantee.
    let schema = Schema::new(vec![
        ColumnSpec {
            bounds: None,
            ..ColumnSpec::numeric("x", 0.0, 1.0)
        },
        ColumnSpec::categorical("y", &["a", "b"]),
    ])
    .unwrap();
    let rows: Vec<Vec<String>> = (0..100)
        .map(|i| vec![i.to_string(), ["a", "b"][i % 2].to_string()])
        .collect();
    let t = Table::from_rows(&schema, &rows, DomainSource::Data, "rows").unwrap();
    let d = Discretized::new(&t).unwrap();
    let r = projected_histogram(&d, 1, &ProjectionConfig::new(eps(1.0)), &mut rng).unwrap();
    assert!(r.guarantee.is_none() && !*r.private_domains);
    assert!(r.notes.iter().any(|n| n.contains("NOT PRIVATE")));
}

/// The output event space of the audit: per cell, kept or not and the rounded noisy value.
type Pattern = (Option<i64>, Option<i64>);

fn pattern(h: &ThresholdedHistogram) -> Pattern {
    let mut out = (None, None);
    for &(cell, v) in h.cells() {
        let r = Some(v.round().clamp(-2.0, 8.0) as i64);
        if cell == 0 {
            out.0 = r;
        } else {
            out.1 = r;
        }
    }
    out
}

/// Neighbouring datasets of n = 2 records: D has both in cell 0, D′ moved one to cell 1 (the
/// sparse path draws cell 1 from the tail in D, from the count in D′). The correct mechanism
/// (scale 2/ε) passes at ε = 1; the factor-2 bug (scale 1/ε, truly 2ε-DP) is caught.
/// False alarm ≤ 1e-6 per audit (the harness's default confidence).
#[test]
fn audit_passes_and_catches_the_factor_two_bug() {
    let d: Vec<(u64, u64)> = vec![(0, 2)];
    let d_prime: Vec<(u64, u64)> = vec![(0, 1), (1, 1)];
    let good = SparseLaplace::new(eps(1.0), 2, 0.5).unwrap();
    assert!(good.epsilon() <= 1.0);
    let bad = SparseLaplace::with_scale(1.0, good.threshold()).unwrap();
    assert_eq!(bad.epsilon(), 2.0);
    let config = AuditConfig::new(400_000);
    let mut rng = SecureRng::insecure_from_seed(77);
    let run = |mech: &SparseLaplace| {
        let mech = mech.clone();
        move |rng: &mut SecureRng, counts: &Vec<(u64, u64)>| -> disguise::Result<Pattern> {
            Ok(pattern(&mech.release_counts(rng, counts, 2)?))
        }
    };
    let report = audit(run(&good), &d, &d_prime, &config, &mut rng).unwrap();
    assert!(
        !report.violates(1.0),
        "correct mechanism flagged: {}",
        report.epsilon_lower
    );
    let report = audit(run(&bad), &d, &d_prime, &config, &mut rng).unwrap();
    assert!(
        report.violates(1.0),
        "factor-2 bug not caught: {}",
        report.epsilon_lower
    );
}

/// Bins are exactly reversible through their midpoints for any bounds.
#[test]
fn bins_reverse_through_midpoints() {
    for (lo, hi, count) in [(0.0, 1.0, 7), (-3.5, 1e6, 13), (17.0, 90.0, 2)] {
        let b = Bins::new(lo, hi, count).unwrap();
        for i in 0..count {
            assert_eq!(b.index(b.midpoint(i)), i);
        }
    }
}

#[test]
fn the_simulations_model_the_schemas_bins() {
    // Six numeric predictors the schema cuts into 4 bins each: the simulated data behind k
    // and γ has 4-bin predictors, not the paper's rule's (here 2), as `--bins 4` does in the
    // experiment.
    let columns: Vec<ColumnSpec> = (0..6)
        .map(|j| ColumnSpec {
            bins: Some(4),
            ..ColumnSpec::numeric(&format!("x{j}"), 0.0, 1.0)
        })
        .chain([ColumnSpec::categorical("t", &["no", "yes"])])
        .collect();
    let schema = Schema::new(columns).unwrap();
    let mut rng = SecureRng::insecure_from_seed(4);
    let rows: Vec<Vec<String>> = (0..2000)
        .map(|_| {
            let mut row: Vec<String> = (0..6)
                .map(|_| (uniform_below(&mut rng, 1000) as f64 / 1000.0).to_string())
                .collect();
            row.push(["no", "yes"][uniform_below(&mut rng, 2) as usize].to_string());
            row
        })
        .collect();
    let table = Table::from_rows(&schema, &rows, DomainSource::Schema, "bins").unwrap();
    let data = Discretized::new(&table).unwrap();
    assert_eq!(
        bin_count(2000, 6).unwrap(),
        2,
        "the paper's rule differs from the schema's"
    );
    let r = projected_histogram(&data, 6, &ProjectionConfig::new(eps(2.0)), &mut rng).unwrap();
    let sigma = disguise::histogram::DEFAULT_SIGMA;
    let seed = disguise::histogram::DEFAULT_SEED;
    let expected = disguise::histogram::simulate_k_with(2000, 6, 2, 4, sigma, seed).unwrap();
    assert_eq!(*r.k, expected);
    assert_eq!(r.gamma_estimate.unwrap().bins, 4);
}
