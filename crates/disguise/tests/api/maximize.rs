//! The maximization algorithms against exhaustive search and the papers' theorems:
//! approximation ratios of the non-private algorithms on hundreds of random instances, the
//! private algorithms' additive bounds, exact output distributions (chi-square), the
//! sensitivity handed to every selector call, a black-box privacy audit on neighbouring
//! datasets, and the edge cases of the issue.
//!
//! Statistical tests use fixed seeds; each states its false-alarm rate.

use disguise::audit::exact::exponential_probabilities;
use disguise::audit::gof::chi_square;
use disguise::audit::{AuditConfig, audit};
use disguise::constraint::{Cardinality, Graphic, Independence, Intersection, Matroid, Partition};
use disguise::maximize::{
    Budget, Procedure, Solution, exhaustive, greedy, lazy_greedy, random_greedy, standard_greedy,
    stochastic_greedy, subsample_greedy,
};
use disguise::noise::bernoulli::uniform_below;
use disguise::objective::{Properties, SetFunction};
use disguise::privacy::{Epsilon, PrivacyCost, Sensitivity};
use disguise::select::SelectorKind;
use disguise::select::{Argmax, Exponential, Selection, Selector};
use disguise::{Error, Result, SecureRng};
use rand_core::Rng;
use std::collections::HashMap;
use std::sync::Mutex;

// ---------------------------------------------------------------------------------------
// Tiny test objectives (independent of the library's objective/ module).
// ---------------------------------------------------------------------------------------

/// λ(i) = base + growth·i, where i = |S|.
#[derive(Clone, Copy)]
struct Lambda {
    base: f64,
    growth: f64,
}

impl Lambda {
    const ONE: Lambda = Lambda {
        base: 1.0,
        growth: 0.0,
    };
    fn at(self, round: usize) -> Sensitivity {
        Sensitivity::new(self.base + self.growth * round as f64).unwrap()
    }
}

/// f(S) = Σ_{v∈S} w_v — monotone iff every w_v ≥ 0.
struct Modular {
    w: Vec<f64>,
    lambda: Lambda,
}

impl SetFunction for Modular {
    type State = f64;
    fn ground_size(&self) -> usize {
        self.w.len()
    }
    fn empty(&self) -> f64 {
        0.0
    }
    fn gains(&self, _: &f64, candidates: &[usize], out: &mut [f64]) {
        for (o, &v) in out.iter_mut().zip(candidates) {
            *o = self.w[v];
        }
    }
    fn insert(&self, s: &mut f64, v: usize) {
        *s += self.w[v];
    }
    fn value(&self, s: &f64) -> f64 {
        *s
    }
    fn sensitivity(&self, round: usize) -> Sensitivity {
        self.lambda.at(round)
    }
    fn properties(&self) -> Properties {
        Properties {
            monotone: self.w.iter().all(|&w| w >= 0.0),
            decomposable: false,
        }
    }
    fn name(&self) -> &'static str {
        "modular"
    }
}

/// Weighted coverage: element v covers the items `sets[v]`; f(S) = total weight covered.
/// Monotone submodular.
struct Coverage {
    sets: Vec<Vec<usize>>,
    weights: Vec<f64>,
}

impl SetFunction for Coverage {
    type State = (Vec<bool>, f64);
    fn ground_size(&self) -> usize {
        self.sets.len()
    }
    fn empty(&self) -> Self::State {
        (vec![false; self.weights.len()], 0.0)
    }
    fn gains(&self, s: &Self::State, candidates: &[usize], out: &mut [f64]) {
        for (o, &v) in out.iter_mut().zip(candidates) {
            *o = self.sets[v]
                .iter()
                .filter(|&&u| !s.0[u])
                .map(|&u| self.weights[u])
                .sum();
        }
    }
    fn insert(&self, s: &mut Self::State, v: usize) {
        for &u in &self.sets[v] {
            if !s.0[u] {
                s.0[u] = true;
                s.1 += self.weights[u];
            }
        }
    }
    fn value(&self, s: &Self::State) -> f64 {
        s.1
    }
    fn sensitivity(&self, _: usize) -> Sensitivity {
        Sensitivity::new(1.0).unwrap()
    }
    fn properties(&self) -> Properties {
        Properties::MONOTONE
    }
    fn name(&self) -> &'static str {
        "coverage"
    }
}

/// Facility location over records: f_D(S) = Σ_records max_{j∈S} sim[record][j] with
/// sim ∈ [0, 1]; replacing one record changes any marginal gain by at most 1 (λ = 1), and it
/// is 1-decomposable. Monotone submodular.
#[derive(Clone)]
struct Facility {
    sim: Vec<Vec<f64>>, // records × candidates
    candidates: usize,
}

impl SetFunction for Facility {
    type State = (Vec<f64>, f64);
    fn ground_size(&self) -> usize {
        self.candidates
    }
    fn empty(&self) -> Self::State {
        (vec![0.0; self.sim.len()], 0.0)
    }
    fn gains(&self, s: &Self::State, candidates: &[usize], out: &mut [f64]) {
        for (o, &v) in out.iter_mut().zip(candidates) {
            *o = self
                .sim
                .iter()
                .zip(&s.0)
                .map(|(row, &best)| (row[v] - best).max(0.0))
                .sum();
        }
    }
    fn insert(&self, s: &mut Self::State, v: usize) {
        for (row, best) in self.sim.iter().zip(s.0.iter_mut()) {
            *best = best.max(row[v]);
        }
        s.1 = s.0.iter().sum();
    }
    fn value(&self, s: &Self::State) -> f64 {
        s.1
    }
    fn sensitivity(&self, _: usize) -> Sensitivity {
        Sensitivity::new(1.0).unwrap()
    }
    fn properties(&self) -> Properties {
        Properties::MONOTONE_DECOMPOSABLE
    }
    fn name(&self) -> &'static str {
        "facility"
    }
}

/// Weighted cut of an undirected graph: f(S) = Σ_{i∈S, j∉S} w_ij. Non-monotone submodular,
/// non-negative.
struct Cut {
    w: Vec<Vec<f64>>, // symmetric, zero diagonal
}

impl SetFunction for Cut {
    type State = (Vec<bool>, f64);
    fn ground_size(&self) -> usize {
        self.w.len()
    }
    fn empty(&self) -> Self::State {
        (vec![false; self.w.len()], 0.0)
    }
    fn gains(&self, s: &Self::State, candidates: &[usize], out: &mut [f64]) {
        for (o, &v) in out.iter_mut().zip(candidates) {
            *o = (0..self.w.len())
                .filter(|&j| j != v)
                .map(|j| if s.0[j] { -self.w[v][j] } else { self.w[v][j] })
                .sum();
        }
    }
    fn insert(&self, s: &mut Self::State, v: usize) {
        let mut g = [0.0];
        self.gains(s, &[v], &mut g);
        s.0[v] = true;
        s.1 += g[0];
    }
    fn value(&self, s: &Self::State) -> f64 {
        s.1
    }
    fn sensitivity(&self, _: usize) -> Sensitivity {
        Sensitivity::new(1.0).unwrap()
    }
    fn properties(&self) -> Properties {
        Properties::NONE
    }
    fn name(&self) -> &'static str {
        "cut"
    }
}

/// An objective whose gains are NaN: every algorithm must return an error, not panic.
struct Broken;
impl SetFunction for Broken {
    type State = ();
    fn ground_size(&self) -> usize {
        3
    }
    fn empty(&self) {}
    fn gains(&self, _: &(), _: &[usize], out: &mut [f64]) {
        out.fill(f64::NAN);
    }
    fn insert(&self, _: &mut (), _: usize) {}
    fn value(&self, _: &()) -> f64 {
        0.0
    }
    fn sensitivity(&self, _: usize) -> Sensitivity {
        Sensitivity::new(1.0).unwrap()
    }
    fn properties(&self) -> Properties {
        Properties::MONOTONE
    }
    fn name(&self) -> &'static str {
        "broken"
    }
}

// ---------------------------------------------------------------------------------------
// Random instances.
// ---------------------------------------------------------------------------------------

fn below(rng: &mut SecureRng, n: usize) -> usize {
    uniform_below(rng, n as u64) as usize
}

fn unit(rng: &mut SecureRng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

fn random_coverage(rng: &mut SecureRng, n: usize) -> Coverage {
    let items = n + below(rng, n + 1);
    let sets = (0..n)
        .map(|_| (0..items).filter(|_| unit(rng) < 0.3).collect())
        .collect();
    let weights = (0..items).map(|_| unit(rng)).collect();
    Coverage { sets, weights }
}

fn random_facility(rng: &mut SecureRng, n: usize) -> Facility {
    let records = 3 + below(rng, 10);
    let sim = (0..records)
        .map(|_| (0..n).map(|_| unit(rng)).collect())
        .collect();
    Facility { sim, candidates: n }
}

fn random_cut(rng: &mut SecureRng, n: usize) -> Cut {
    let mut w = vec![vec![0.0; n]; n];
    for (i, j) in (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))) {
        if unit(rng) < 0.6 {
            w[i][j] = unit(rng);
            w[j][i] = w[i][j];
        }
    }
    Cut { w }
}

fn random_matroid(rng: &mut SecureRng, n: usize) -> Matroid {
    match below(rng, 3) {
        0 => loop {
            let groups = 1 + below(rng, 3);
            let group_of = (0..n).map(|_| below(rng, groups)).collect();
            let caps = (0..groups).map(|_| below(rng, 3)).collect();
            if let Ok(p) = Partition::new(group_of, caps) {
                break p.into();
            }
        },
        1 => {
            let vertices = 2 + below(rng, 5);
            let edges = (0..n)
                .map(|_| (below(rng, vertices), below(rng, vertices)))
                .collect();
            Graphic::new(vertices, edges).unwrap().into()
        }
        _ => Cardinality::new(n, 1 + below(rng, n)).into(),
    }
}

/// Hoeffding slack for a mean of `runs` values in a range of width `range`: the empirical
/// mean falls below its expectation by more than this with probability ≤ `alarm`.
fn hoeffding(range: f64, runs: usize, alarm: f64) -> f64 {
    range * ((1.0 / alarm).ln() / (2.0 * runs as f64)).sqrt()
}

fn em(epsilon0: f64) -> Procedure<'static> {
    Procedure::private(
        SelectorKind::Exponential,
        Budget::per_round(epsilon0, 0.0, 0.0).unwrap(),
    )
}

fn opt<F: SetFunction, C: Independence>(f: &F, c: &C) -> f64 {
    exhaustive(f, c).unwrap().value
}

/// Checks the invariants every solution has: values are the prefix values of `elements`,
/// distinct elements, feasible, and `value` is f of the whole set.
fn assert_consistent<F: SetFunction, C: Independence>(s: &Solution, f: &F, c: &C) {
    assert_eq!(s.values.len(), s.elements.len());
    for i in 0..s.elements.len() {
        let prefix = f.evaluate(&s.elements[..=i]);
        assert!((s.values[i] - prefix).abs() <= 1e-9 * (1.0 + prefix.abs()));
    }
    assert!((s.value - f.evaluate(&s.elements)).abs() <= 1e-9 * (1.0 + s.value.abs()));
    assert!(c.is_independent(&s.elements), "{:?} infeasible", s.elements);
    if s.planned_rounds > 0 {
        assert!(s.rounds.len() <= s.planned_rounds);
    }
}

// ---------------------------------------------------------------------------------------
// Non-private approximation ratios against exhaustive search.
// ---------------------------------------------------------------------------------------

#[test]
fn standard_and_lazy_greedy_reach_1_minus_1_over_e_on_random_monotone_instances() {
    let mut rng = SecureRng::insecure_from_seed(1);
    let mut worst: f64 = 1.0;
    for trial in 0..300 {
        let n = 4 + below(&mut rng, 9);
        let k = 1 + below(&mut rng, 5);
        let c = Cardinality::new(n, k);
        let (greedy_s, lazy_s, best) = if trial % 2 == 0 {
            let f = random_coverage(&mut rng, n);
            let g = standard_greedy(&f, &c).unwrap();
            assert_consistent(&g, &f, &c);
            (g, lazy_greedy(&f, &c).unwrap(), opt(&f, &c))
        } else {
            let f = random_facility(&mut rng, n);
            let g = standard_greedy(&f, &c).unwrap();
            assert_consistent(&g, &f, &c);
            (g, lazy_greedy(&f, &c).unwrap(), opt(&f, &c))
        };
        // Nemhauser et al.: f(S) ≥ (1 − (1 − 1/k)^k)·OPT ≥ (1 − 1/e)·OPT.
        let ratio = 1.0 - (1.0 - 1.0 / k as f64).powi(k as i32);
        assert!(
            greedy_s.value >= ratio * best - 1e-9,
            "trial {trial}: greedy {} < {ratio}·OPT {best}",
            greedy_s.value
        );
        assert_eq!(greedy_s.elements.len(), k.min(n));
        // Lazy greedy returns the same picks with no more gain evaluations.
        assert_eq!(lazy_s.elements, greedy_s.elements, "trial {trial}");
        assert!(lazy_s.gain_evaluations <= greedy_s.gain_evaluations);
        let expected_evals: u64 = (0..k.min(n)).map(|i| (n - i) as u64).sum();
        assert_eq!(greedy_s.gain_evaluations, expected_evals);
        if best > 0.0 {
            worst = worst.min(greedy_s.value / best);
        }
    }
    assert!(worst >= 1.0 - (-1f64).exp());
}

#[test]
fn greedy_over_p_systems_reaches_opt_over_p_plus_1() {
    let mut rng = SecureRng::insecure_from_seed(2);
    for trial in 0..200 {
        let n = 4 + below(&mut rng, 7);
        let p = 1 + below(&mut rng, 3);
        let parts = (0..p).map(|_| random_matroid(&mut rng, n)).collect();
        let c = Intersection::new(parts).unwrap();
        let check = |s: Solution, best: f64, lazy: Solution| {
            assert!(
                s.value >= best / (p as f64 + 1.0) - 1e-9,
                "trial {trial}: {} < OPT/(p+1) with OPT {best}, p = {p}",
                s.value
            );
            assert!(s.rounds.len() <= c.rank_bound());
            assert_eq!(s.planned_rounds, c.rank_bound());
            assert_eq!(lazy.elements, s.elements);
        };
        if trial % 2 == 0 {
            let f = random_coverage(&mut rng, n);
            let s = standard_greedy(&f, &c).unwrap();
            assert_consistent(&s, &f, &c);
            assert_maximal(&s.elements, &c);
            check(s, opt(&f, &c), lazy_greedy(&f, &c).unwrap());
        } else {
            let f = random_facility(&mut rng, n);
            let s = standard_greedy(&f, &c).unwrap();
            assert_consistent(&s, &f, &c);
            assert_maximal(&s.elements, &c);
            check(s, opt(&f, &c), lazy_greedy(&f, &c).unwrap());
        }
    }
}

/// Algorithm 2 runs "until the set is maximal": no feasible element may be left out.
fn assert_maximal<C: Independence>(set: &[usize], c: &C) {
    for v in (0..c.ground_size()).filter(|v| !set.contains(v)) {
        let mut bigger = set.to_vec();
        bigger.push(v);
        assert!(
            !c.is_independent(&bigger),
            "{set:?} is not maximal: {v} fits"
        );
    }
}

#[test]
fn subsample_greedy_mean_meets_theorem_4_1_and_corollary_4_2() {
    // Corollary 4.2: with argmax, E[f(S)] ≥ (1/e)(1 − 1/e)·OPT (any submodular f) and
    // ≥ (1 − e^{−(1−1/e)})·OPT ≈ 0.468·OPT (monotone f).
    // Values lie in [0, OPT] (cut and coverage are non-negative), so by Hoeffding the mean of
    // 2000 runs is below its expectation by more than hoeffding(OPT, 2000, 1e-6) with
    // probability ≤ 1e-6 per instance (false-alarm rate ≤ 4e-5 over the 40 instances).
    let runs = 2000;
    let non_monotone = (-1f64).exp() * (1.0 - (-1f64).exp());
    let monotone = 1.0 - (-(1.0 - (-1f64).exp())).exp();
    let mut rng = SecureRng::insecure_from_seed(3);
    let mut run_rng = SecureRng::insecure_from_seed(4);
    for trial in 0..40 {
        let n = 6 + below(&mut rng, 7);
        let k = 2 + below(&mut rng, 3);
        let c = Cardinality::new(n, k);
        let (mean, best, bound, evals) = if trial % 2 == 0 {
            let f = random_cut(&mut rng, n);
            let (mean, evals) = mean_value(&f, k, runs, &mut run_rng);
            (mean, opt(&f, &c), non_monotone, evals)
        } else {
            let f = random_coverage(&mut rng, n);
            let (mean, evals) = mean_value(&f, k, runs, &mut run_rng);
            (mean, opt(&f, &c), monotone, evals)
        };
        let slack = hoeffding(best, runs, 1e-6);
        assert!(
            mean >= bound * best - slack,
            "trial {trial}: mean {mean} < {bound}·OPT {best} − {slack}"
        );
        // Linear time: never more than |V′| = k·⌈n/k⌉ gain evaluations per run.
        assert!(evals <= (n.div_ceil(k) * k) as u64);
    }
}

fn mean_value<F: SetFunction>(f: &F, k: usize, runs: usize, rng: &mut SecureRng) -> (f64, u64) {
    let mut total = 0.0;
    let mut max_evals = 0;
    for _ in 0..runs {
        let s = subsample_greedy(f, k, &Procedure::Argmax, rng).unwrap();
        assert!(s.elements.len() <= k && s.rounds.len() == k);
        assert_consistent(&s, f, &Cardinality::new(f.ground_size(), k));
        total += s.value;
        max_evals = max_evals.max(s.gain_evaluations);
    }
    (total / runs as f64, max_evals)
}

#[test]
fn subsample_greedy_never_takes_a_harmful_element_thanks_to_the_dummies() {
    // One good element among many harmful ones: without the dummy uᵢ in every subsample,
    // argmax would be forced to take a negative element in most rounds.
    let mut w = vec![-1.0; 12];
    w[7] = 5.0;
    let f = Modular {
        w,
        lambda: Lambda::ONE,
    };
    let mut rng = SecureRng::insecure_from_seed(5);
    let mut hits = 0;
    for _ in 0..2000 {
        let s = subsample_greedy(&f, 4, &Procedure::Argmax, &mut rng).unwrap();
        assert!(s.elements.iter().all(|&v| v == 7), "{:?}", s.elements);
        hits += usize::from(s.value == 5.0);
    }
    // P[element 7 is sampled in some round] = 1 − (1 − 3/12)^4 ≈ 0.684; the mean must meet
    // Corollary 4.2's 0.2325 (and does, with a huge margin: binomial tail < 1e-100).
    assert!(hits as f64 / 2000.0 > 0.6);
}

/// Exact distribution of the pick sequence of Algorithm 4 with argmax on a modular objective
/// with distinct positive weights, by enumerating every subsample of V′ in every round.
fn subsample_argmax_distribution(w: &[f64], k: usize) -> HashMap<Vec<Option<usize>>, f64> {
    let n = w.len();
    let per_round = n.div_ceil(k);
    let padded = per_round * k;
    let subsets: Vec<Vec<usize>> = (0u32..1 << padded)
        .filter(|m| m.count_ones() as usize == per_round)
        .map(|m| (0..padded).filter(|&i| m >> i & 1 == 1).collect())
        .collect();
    let mut out = HashMap::new();
    fn recurse(
        w: &[f64],
        subsets: &[Vec<usize>],
        rounds_left: usize,
        prefix: &mut Vec<Option<usize>>,
        prob: f64,
        out: &mut HashMap<Vec<Option<usize>>, f64>,
    ) {
        if rounds_left == 0 {
            *out.entry(prefix.clone()).or_insert(0.0) += prob;
            return;
        }
        for sample in subsets {
            let pick = sample
                .iter()
                .copied()
                .filter(|&v| v < w.len() && !prefix.contains(&Some(v)))
                .max_by(|&a, &b| w[a].total_cmp(&w[b]));
            prefix.push(pick);
            recurse(
                w,
                subsets,
                rounds_left - 1,
                prefix,
                prob / subsets.len() as f64,
                out,
            );
            prefix.pop();
        }
    }
    recurse(w, &subsets, k, &mut Vec::new(), 1.0, &mut out);
    out
}

#[test]
fn subsample_greedy_samples_exactly_as_algorithm_4_says() {
    // n = 5, k = 2: V′ has one padding dummy (|V′| = 6), each round draws 3 of the 6 slots,
    // chosen elements can be drawn again (they then score 0 like a dummy).
    // n = 7, k = 3: two padding dummies, 3 of 9 slots per round.
    // Chi-square against the enumerated distribution, rejecting at p < 1e-4 (false-alarm
    // rate 1e-4 per case).
    let mut rng = SecureRng::insecure_from_seed(6);
    for (w, k, runs) in [
        (vec![5.0, 1.0, 4.0, 2.0, 3.0], 2, 60_000),
        (vec![1.0, 7.0, 3.0, 6.0, 2.0, 5.0, 4.0], 3, 60_000),
    ] {
        let exact = subsample_argmax_distribution(&w, k);
        let outcomes: Vec<&Vec<Option<usize>>> = exact.keys().collect();
        let f = Modular {
            w: w.clone(),
            lambda: Lambda::ONE,
        };
        let mut counts = vec![0u64; outcomes.len()];
        for _ in 0..runs {
            let s = subsample_greedy(&f, k, &Procedure::Argmax, &mut rng).unwrap();
            let seq: Vec<Option<usize>> = s.rounds.iter().map(|r| r.pick).collect();
            let i = outcomes
                .iter()
                .position(|o| **o == seq)
                .unwrap_or_else(|| panic!("impossible pick sequence {seq:?}"));
            counts[i] += 1;
        }
        let probs: Vec<f64> = outcomes.iter().map(|o| exact[*o]).collect();
        let test = chi_square(&counts, &probs).unwrap();
        assert!(test.p_value > 1e-4, "w = {w:?}: {test:?}");
    }
}

#[test]
fn stochastic_greedy_meets_1_minus_1_over_e_minus_alpha_in_mean() {
    // E[f(S)] ≥ (1 − 1/e − α)·OPT for monotone f (Mirzasoleiman et al. 2015). Values in
    // [0, OPT]; Hoeffding at 1e-6 per instance, 30 instances.
    let alpha: f64 = 0.2;
    let runs = 1000;
    let mut rng = SecureRng::insecure_from_seed(7);
    let mut run_rng = SecureRng::insecure_from_seed(8);
    for _ in 0..30 {
        let n = 6 + below(&mut rng, 7);
        let k = 2 + below(&mut rng, 3);
        let f = random_coverage(&mut rng, n);
        let c = Cardinality::new(n, k);
        let best = opt(&f, &c);
        let sample = ((n as f64 / k as f64) * (1.0 / alpha).ln()).ceil() as u64;
        let mut total = 0.0;
        for _ in 0..runs {
            let s = stochastic_greedy(&f, k, alpha, &mut run_rng).unwrap();
            assert_consistent(&s, &f, &c);
            assert_eq!(s.elements.len(), k);
            assert!(s.gain_evaluations <= k as u64 * sample);
            total += s.value;
        }
        let mean = total / runs as f64;
        let bound = 1.0 - (-1f64).exp() - alpha;
        assert!(mean >= bound * best - hoeffding(best, runs, 1e-6));
    }
}

#[test]
fn random_greedy_meets_buchbinder_bounds_in_mean() {
    // E[f(S)] ≥ OPT/e for non-negative submodular f, ≥ (1 − 1/e)·OPT for monotone f
    // (Buchbinder et al. 2014). Hoeffding at 1e-6 per instance, 30 instances.
    let runs = 1000;
    let mut rng = SecureRng::insecure_from_seed(9);
    let mut run_rng = SecureRng::insecure_from_seed(10);
    for trial in 0..30 {
        let n = 6 + below(&mut rng, 7);
        let k = 2 + below(&mut rng, 3);
        let c = Cardinality::new(n, k);
        let (mean, best, bound) = if trial % 2 == 0 {
            let f = random_cut(&mut rng, n);
            let mut total = 0.0;
            for _ in 0..runs {
                let s = random_greedy(&f, k, &mut run_rng).unwrap();
                assert_consistent(&s, &f, &c);
                total += s.value;
            }
            (total / runs as f64, opt(&f, &c), (-1f64).exp())
        } else {
            let f = random_coverage(&mut rng, n);
            let mut total = 0.0;
            for _ in 0..runs {
                total += random_greedy(&f, k, &mut run_rng).unwrap().value;
            }
            (total / runs as f64, opt(&f, &c), 1.0 - (-1f64).exp())
        };
        assert!(
            mean >= bound * best - hoeffding(best, runs, 1e-6),
            "trial {trial}: {mean} vs {bound}·{best}"
        );
    }
}

#[test]
fn random_greedy_picks_uniformly_among_the_top_k() {
    // Weights 9, 8, 7 (top 3 of 6 with k = 3): round 1 picks each of the top three with
    // probability 1/3 and nothing else. Chi-square at p < 1e-4.
    let f = Modular {
        w: vec![1.0, 9.0, 2.0, 8.0, 7.0, 0.5],
        lambda: Lambda::ONE,
    };
    let mut rng = SecureRng::insecure_from_seed(11);
    let mut counts = [0u64; 3];
    for _ in 0..30_000 {
        let s = random_greedy(&f, 3, &mut rng).unwrap();
        let first = s.rounds[0].pick.unwrap();
        counts[[1, 3, 4].iter().position(|&v| v == first).unwrap()] += 1;
    }
    assert!(chi_square(&counts, &[1.0 / 3.0; 3]).unwrap().p_value > 1e-4);
}

// ---------------------------------------------------------------------------------------
// Private algorithms.
// ---------------------------------------------------------------------------------------

/// Records the scores' length and the sensitivity of every call, then delegates.
struct Recorder<S> {
    inner: S,
    calls: Mutex<Vec<(usize, f64)>>,
}

impl<S: Selector> Recorder<S> {
    fn new(inner: S) -> Self {
        Self {
            inner,
            calls: Mutex::new(Vec::new()),
        }
    }
    fn take(&self) -> Vec<(usize, f64)> {
        std::mem::take(&mut self.calls.lock().unwrap())
    }
}

impl<S: Selector> Selector for Recorder<S> {
    fn select(
        &self,
        scores: &[f64],
        sensitivity: Sensitivity,
        rng: &mut SecureRng,
    ) -> Result<Selection> {
        self.calls
            .lock()
            .unwrap()
            .push((scores.len(), sensitivity.get()));
        self.inner.select(scores, sensitivity, rng)
    }
    fn cost(&self) -> PrivacyCost {
        self.inner.cost()
    }
    fn name(&self) -> &'static str {
        "recorder"
    }
}

#[test]
fn every_selector_call_gets_the_objectives_sensitivity_for_the_current_size() {
    // λ(i) = 0.5 + 2i, as with the mutual information objective whose sensitivity grows with
    // the round.
    let lambda = Lambda {
        base: 0.5,
        growth: 2.0,
    };
    let f = Modular {
        w: vec![3.0, 1.0, 4.0, 1.5, 9.0, 2.6, 5.0],
        lambda,
    };
    let n = f.w.len();
    let mut rng = SecureRng::insecure_from_seed(12);
    let recorder = Recorder::new(Exponential::new(Epsilon::new(0.3).unwrap()));

    // Algorithm 1: k calls on |V| − i candidates with λ(i).
    let s = greedy(
        &f,
        &Cardinality::new(n, 4),
        &Procedure::custom(&recorder),
        &mut rng,
    )
    .unwrap();
    let calls = recorder.take();
    assert_eq!(calls.len(), 4);
    for (i, &(len, l)) in calls.iter().enumerate() {
        assert_eq!(len, n - i);
        assert_eq!(l, lambda.at(i).get());
        assert_eq!(s.rounds[i].sensitivity, lambda.at(i));
        assert_eq!(s.rounds[i].cost, recorder.cost());
    }

    // Algorithm 2 on a partition matroid: r(I) calls, λ(|S|), only feasible candidates.
    let p = Partition::new(vec![0, 0, 1, 1, 1, 2, 2], vec![1, 2, 1]).unwrap();
    let s = greedy(&f, &p, &Procedure::custom(&recorder), &mut rng).unwrap();
    let calls = recorder.take();
    assert_eq!(calls.len(), 4);
    assert_eq!(s.elements.len(), 4);
    for (i, &(_, l)) in calls.iter().enumerate() {
        assert_eq!(l, lambda.at(i).get());
    }

    // Algorithm 4: k calls on |V′|/k + 1 scores; λ follows the number of *real* elements.
    let s = subsample_greedy(&f, 3, &Procedure::custom(&recorder), &mut rng).unwrap();
    let calls = recorder.take();
    assert_eq!(calls.len(), 3);
    let mut real = 0;
    for (i, &(len, l)) in calls.iter().enumerate() {
        assert_eq!(len, n.div_ceil(3) + 1);
        assert_eq!(l, lambda.at(real).get());
        assert_eq!(s.rounds[i].candidates, len);
        real += usize::from(s.rounds[i].pick.is_some());
    }
}

#[test]
fn two_round_private_greedy_output_distribution_is_exact() {
    // Coverage on 4 elements, k = 2, EM with ε₀ = 1 and λ = 1: P(v₁, v₂) =
    // EM(gains | ∅)[v₁]·EM(gains | {v₁})[v₂], computed with the audit module's independent
    // reference. 40 000 runs, chi-square rejecting at p < 1e-4 (false-alarm rate 1e-4).
    let f = Coverage {
        sets: vec![vec![0, 1], vec![1, 2], vec![2, 3, 4], vec![0]],
        weights: vec![1.0, 2.0, 0.5, 1.5, 0.25],
    };
    let eps = Epsilon::new(1.0).unwrap();
    let one = Sensitivity::new(1.0).unwrap();
    let n = 4;
    let mut outcomes = Vec::new();
    let mut probs = Vec::new();
    let all: Vec<usize> = (0..n).collect();
    let mut g1 = vec![0.0; n];
    f.gains(&f.empty(), &all, &mut g1);
    let p1 = exponential_probabilities(&g1, eps, one, 2).unwrap();
    for (v1, &first) in p1.iter().enumerate() {
        let mut state = f.empty();
        f.insert(&mut state, v1);
        let rest: Vec<usize> = (0..n).filter(|&v| v != v1).collect();
        let mut g2 = vec![0.0; rest.len()];
        f.gains(&state, &rest, &mut g2);
        let p2 = exponential_probabilities(&g2, eps, one, 2).unwrap();
        for (j, &v2) in rest.iter().enumerate() {
            outcomes.push((v1, v2));
            probs.push(first * p2[j]);
        }
    }
    let mut counts = vec![0u64; outcomes.len()];
    let mut rng = SecureRng::insecure_from_seed(13);
    let procedure = em(1.0);
    for _ in 0..40_000 {
        let s = greedy(&f, &Cardinality::new(n, 2), &procedure, &mut rng).unwrap();
        let pair = (s.elements[0], s.elements[1]);
        counts[outcomes.iter().position(|&o| o == pair).unwrap()] += 1;
    }
    let test = chi_square(&counts, &probs).unwrap();
    assert!(test.p_value > 1e-4, "{test:?}");
}

#[test]
fn two_round_private_subsample_greedy_output_distribution_is_exact() {
    // Algorithm 4 with EM (ε₀ = 1.5) on a modular objective, n = 4, k = 2: every round draws
    // 2 of the 4 elements uniformly plus a dummy; EM over [gains…, 0]. Exact distribution by
    // enumeration; chi-square at p < 1e-4.
    let w = [2.0, -1.0, 0.5, 3.0];
    let f = Modular {
        w: w.to_vec(),
        lambda: Lambda::ONE,
    };
    let eps = Epsilon::new(1.5).unwrap();
    let one = Sensitivity::new(1.0).unwrap();
    let pairs: Vec<[usize; 2]> = vec![[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]];
    let mut exact: HashMap<(Option<usize>, Option<usize>), f64> = HashMap::new();
    let round = |chosen: Option<usize>, sample: &[usize; 2]| -> Vec<(Option<usize>, f64)> {
        // Scores: real unchosen members, then zeros for chosen members and the dummy.
        let scores: Vec<f64> = sample
            .iter()
            .map(|&v| if Some(v) == chosen { 0.0 } else { w[v] })
            .chain([0.0])
            .collect();
        let p = exponential_probabilities(&scores, eps, one, 2).unwrap();
        let mut out: Vec<(Option<usize>, f64)> = sample
            .iter()
            .zip(&p)
            .map(|(&v, &q)| (if Some(v) == chosen { None } else { Some(v) }, q))
            .collect();
        out.push((None, p[2]));
        out
    };
    for s1 in &pairs {
        for (a, pa) in round(None, s1) {
            for s2 in &pairs {
                for (b, pb) in round(a, s2) {
                    *exact.entry((a, b)).or_insert(0.0) += pa * pb / 36.0;
                }
            }
        }
    }
    let outcomes: Vec<_> = exact.keys().copied().collect();
    let probs: Vec<f64> = outcomes.iter().map(|o| exact[o]).collect();
    let mut counts = vec![0u64; outcomes.len()];
    let mut rng = SecureRng::insecure_from_seed(14);
    let procedure = em(1.5);
    for _ in 0..60_000 {
        let s = subsample_greedy(&f, 2, &procedure, &mut rng).unwrap();
        let o = (s.rounds[0].pick, s.rounds[1].pick);
        counts[outcomes.iter().position(|&x| x == o).unwrap()] += 1;
    }
    let test = chi_square(&counts, &probs).unwrap();
    assert!(test.p_value > 1e-4, "{test:?}");
}

#[test]
fn private_greedy_means_respect_the_papers_additive_bounds() {
    // Theorem 3.2: E[f(S)] ≥ (1 − 1/e)·OPT − 2λk·ln|V|/ε₀ (cardinality);
    // Theorem 3.5: E[f(S)] ≥ OPT/(p+1) − (p/(p+1))·2λr·ln|V|/ε₀ (p-systems);
    // Theorem 4.1: E[f(S)] ≥ (1/e)(1 − 1/e)·OPT − 2λk·ln|V|/ε₀ (subsample-greedy).
    // Facility location with 40 records has OPT ≈ 30 ≫ λ = 1; ε₀ = 2 keeps the bounds
    // positive. Values lie in [0, OPT]; Hoeffding at 1e-6 per bound.
    let mut rng = SecureRng::insecure_from_seed(15);
    let n = 8;
    let mut data = random_facility(&mut rng, n);
    data.sim = (0..40)
        .map(|_| (0..n).map(|_| unit(&mut rng)).collect())
        .collect();
    let f = data;
    let eps0 = 2.0;
    let runs = 1500;
    let ln_v = (n as f64).ln();
    let procedure = em(eps0);
    let mut run_rng = SecureRng::insecure_from_seed(16);

    let k = 3;
    let c = Cardinality::new(n, k);
    let best = opt(&f, &c);
    let mean = (0..runs)
        .map(|_| greedy(&f, &c, &procedure, &mut run_rng).unwrap().value)
        .sum::<f64>()
        / runs as f64;
    let bound = (1.0 - (-1f64).exp()) * best - 2.0 * k as f64 * ln_v / eps0;
    assert!(bound > 0.0);
    assert!(
        mean >= bound - hoeffding(best, runs, 1e-6),
        "{mean} vs {bound}"
    );

    let m = Intersection::new(vec![
        Partition::new(vec![0, 0, 0, 1, 1, 1, 2, 2], vec![1, 1, 1])
            .unwrap()
            .into(),
        Cardinality::new(n, 2).into(),
    ])
    .unwrap();
    let (p, r) = (2.0, m.rank_bound() as f64);
    let best = opt(&f, &m);
    let mean = (0..runs)
        .map(|_| greedy(&f, &m, &procedure, &mut run_rng).unwrap().value)
        .sum::<f64>()
        / runs as f64;
    let bound = best / (p + 1.0) - p / (p + 1.0) * 2.0 * r * ln_v / eps0;
    assert!(bound > 0.0);
    assert!(
        mean >= bound - hoeffding(best, runs, 1e-6),
        "{mean} vs {bound}"
    );

    let mean = (0..runs)
        .map(|_| {
            subsample_greedy(&f, k, &procedure, &mut run_rng)
                .unwrap()
                .value
        })
        .sum::<f64>()
        / runs as f64;
    let best = opt(&f, &c);
    let ratio = (-1f64).exp() * (1.0 - (-1f64).exp());
    let bound = ratio * best - 2.0 * k as f64 * ln_v / eps0;
    assert!(
        mean >= bound - hoeffding(best, runs, 1e-6),
        "{mean} vs {bound}"
    );
    // The private greedy is far better than the bound here; and it must not beat OPT.
    assert!(mean <= best + 1e-9);
}

#[test]
fn private_greedy_passes_a_privacy_audit_on_neighbouring_datasets() {
    // Facility location over 3 records; D and D′ differ in one record (replaced by its
    // opposite), which moves every marginal gain by at most λ = 1. Two rounds of EM with
    // ε₀ = 0.5 are 1.0-DP by basic composition; the audit must not refute that (false alarm
    // ≤ 1e-6). The same run with the sensitivity understated 4× is flagged, so the audit has
    // the power to see a wrong λ.
    let base = vec![
        vec![0.9, 0.1, 0.5, 0.2],
        vec![0.3, 0.8, 0.1, 0.6],
        vec![0.0, 0.0, 0.0, 0.0],
    ];
    let d = Facility {
        sim: base.clone(),
        candidates: 4,
    };
    let mut other = base;
    other[2] = vec![1.0, 0.0, 0.0, 1.0];
    let d_prime = Facility {
        sim: other,
        candidates: 4,
    };
    let eps0 = 0.5;
    let procedure = em(eps0);
    let run = |rng: &mut SecureRng, f: &Facility| -> Result<(usize, usize)> {
        let s = greedy(f, &Cardinality::new(4, 2), &procedure, rng)?;
        Ok((s.elements[0], s.elements[1]))
    };
    let config = AuditConfig::new(150_000);
    let mut rng = SecureRng::insecure_from_seed(17);
    let report = audit(run, &d, &d_prime, &config, &mut rng).unwrap();
    assert!(!report.violates(2.0 * eps0), "{}", report.epsilon_lower);

    // Understating λ: EM with ε₀ on scores scaled by 4 (equivalently λ/4).
    let scaled = |f: &Facility| Facility {
        sim: f
            .sim
            .iter()
            .map(|r| r.iter().map(|x| 4.0 * x).collect())
            .collect(),
        candidates: 4,
    };
    let (d4, d4_prime) = (scaled(&d), scaled(&d_prime));
    let report = audit(run, &d4, &d4_prime, &config, &mut rng).unwrap();
    assert!(report.violates(2.0 * eps0), "{}", report.epsilon_lower);
}

// ---------------------------------------------------------------------------------------
// Edge cases and errors.
// ---------------------------------------------------------------------------------------

#[test]
fn k_zero_gives_the_empty_solution_everywhere() {
    let f = Modular {
        w: vec![1.0, 2.0, 3.0],
        lambda: Lambda::ONE,
    };
    let c = Cardinality::new(3, 0);
    let mut rng = SecureRng::insecure_from_seed(18);
    let all = [
        greedy(&f, &c, &em(1.0), &mut rng).unwrap(),
        standard_greedy(&f, &c).unwrap(),
        subsample_greedy(&f, 0, &em(1.0), &mut rng).unwrap(),
        lazy_greedy(&f, &c).unwrap(),
        stochastic_greedy(&f, 0, 0.1, &mut rng).unwrap(),
        random_greedy(&f, 0, &mut rng).unwrap(),
        exhaustive(&f, &c).unwrap(),
    ];
    for s in all {
        assert!(
            s.elements.is_empty() && s.rounds.is_empty(),
            "{}",
            s.algorithm
        );
        assert_eq!((s.value, s.gain_evaluations, s.planned_rounds), (0.0, 0, 0));
    }
}

#[test]
fn k_at_least_n_selects_everything_and_stops() {
    let f = Modular {
        w: vec![1.0, 2.0, 3.0],
        lambda: Lambda::ONE,
    };
    let mut rng = SecureRng::insecure_from_seed(19);
    for k in [3, 4, 50] {
        let c = Cardinality::new(3, k);
        let s = greedy(&f, &c, &em(1.0), &mut rng).unwrap();
        let mut sorted = s.elements.clone();
        sorted.sort();
        assert_eq!(sorted, vec![0, 1, 2]);
        assert_eq!(
            (s.rounds.len(), s.planned_rounds),
            (3, 3),
            "k = {k} clamps to |V|"
        );
        assert_eq!(lazy_greedy(&f, &c).unwrap().value, 6.0);
        assert_eq!(exhaustive(&f, &c).unwrap().value, 6.0);
        // Algorithm 4 keeps its k rounds (each sees one slot of V′ plus a dummy).
        let s = subsample_greedy(&f, k, &Procedure::Argmax, &mut rng).unwrap();
        assert_eq!(s.rounds.len(), k);
        assert!(s.rounds.iter().all(|r| r.candidates == 2));
    }
    // An empty ground set.
    let empty = Modular {
        w: vec![],
        lambda: Lambda::ONE,
    };
    let s = greedy(&empty, &Cardinality::new(0, 2), &em(1.0), &mut rng).unwrap();
    assert!(s.elements.is_empty());
    let s = subsample_greedy(&empty, 2, &em(1.0), &mut rng).unwrap();
    assert!(s.elements.is_empty() && s.rounds.len() == 2);
}

#[test]
fn partition_with_empty_groups_and_graphic_with_cycles() {
    let f = Modular {
        w: vec![5.0, 4.0, 3.0, 2.0, 1.0, 6.0],
        lambda: Lambda::ONE,
    };
    let mut rng = SecureRng::insecure_from_seed(20);
    // Groups 1 and 3 are empty (capacity 3 and 0); rank = 1 + 2 = 3.
    let p = Partition::new(vec![0, 0, 2, 2, 2, 0], vec![1, 3, 2, 0]).unwrap();
    let s = standard_greedy(&f, &p).unwrap();
    assert_eq!(s.elements, vec![5, 2, 3]);
    let s = greedy(&f, &p, &em(1.0), &mut rng).unwrap();
    assert_eq!((s.elements.len(), s.planned_rounds), (3, 3));
    assert!(p.is_independent(&s.elements));

    // Two triangles sharing vertex 2 plus a self-loop; rank 4 on 5 vertices.
    let g = Graphic::new(5, vec![(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 4)]).unwrap();
    let s = standard_greedy(&f, &g).unwrap();
    // Max-weight spanning forest: 5 (0–1), 4 (1–2), skip 3 (2–0 closes a cycle), 2, 1; the
    // self-loop (weight 6) is never feasible.
    assert_eq!(s.elements, vec![0, 1, 3, 4]);
    for _ in 0..200 {
        let s = greedy(&f, &g, &em(0.5), &mut rng).unwrap();
        assert_eq!(s.elements.len(), 4);
        assert!(g.is_independent(&s.elements) && !s.elements.contains(&5));
    }
}

#[test]
fn invalid_inputs_are_errors_not_panics() {
    let f = Modular {
        w: vec![1.0, 2.0, 3.0],
        lambda: Lambda::ONE,
    };
    let mut rng = SecureRng::insecure_from_seed(21);
    // Constraint over a different ground set.
    let wrong = Cardinality::new(4, 2);
    assert!(matches!(
        greedy(&f, &wrong, &em(1.0), &mut rng),
        Err(Error::InvalidParameter { .. })
    ));
    assert!(lazy_greedy(&f, &wrong).is_err());
    assert!(exhaustive(&f, &wrong).is_err());
    // A per-round δ₀ is meaningless for the pure exponential mechanism.
    let bad = Procedure::private(
        SelectorKind::Exponential,
        Budget::per_round(1.0, 1e-6, 0.0).unwrap(),
    );
    assert!(greedy(&f, &Cardinality::new(3, 1), &bad, &mut rng).is_err());
    // NaN gains.
    let c = Cardinality::new(3, 2);
    assert!(greedy(&Broken, &c, &em(1.0), &mut rng).is_err());
    assert!(standard_greedy(&Broken, &c).is_err());
    assert!(lazy_greedy(&Broken, &c).is_err());
    assert!(subsample_greedy(&Broken, 2, &em(1.0), &mut rng).is_err());
    assert!(random_greedy(&Broken, 2, &mut rng).is_err());
    assert!(stochastic_greedy(&Broken, 2, 0.1, &mut rng).is_err());
    // Stochastic greedy's accuracy must be in (0, 1).
    for alpha in [0.0, 1.0, -0.5, f64::NAN] {
        assert!(stochastic_greedy(&f, 2, alpha, &mut rng).is_err());
    }
    // Exhaustive search refuses instances that are too large.
    let big = Modular {
        w: vec![1.0; 60],
        lambda: Lambda::ONE,
    };
    assert!(exhaustive(&big, &Cardinality::new(60, 30)).is_err());
    assert!("nope".parse::<SelectorKind>().is_err());
}

#[test]
fn argmax_runs_are_not_private_and_private_runs_record_their_costs() {
    let f = Modular {
        w: vec![1.0, 2.0, 3.0, 4.0],
        lambda: Lambda::ONE,
    };
    let mut rng = SecureRng::insecure_from_seed(22);
    let c = Cardinality::new(4, 2);
    let s = greedy(&f, &c, &Procedure::Argmax, &mut rng).unwrap();
    assert!(!s.is_private() && s.guarantee.is_none() && s.guarantees.is_empty());
    assert_eq!(s.selector, Argmax.name());
    assert_eq!(s.elements, vec![3, 2]);
    let s = greedy(&f, &c, &em(0.25), &mut rng).unwrap();
    assert!(s.is_private());
    assert!(!s.secure_rng, "a seeded generator is reported as insecure");
    for cost in s.costs() {
        assert_eq!(
            cost,
            PrivacyCost::BoundedRange {
                epsilon: Epsilon::new(0.25).unwrap()
            }
        );
    }
}

// ---------------------------------------------------------------------------------------
// Budgets and guarantees (computed by the accountant, never hand-written).
// ---------------------------------------------------------------------------------------

fn best_is_min(s: &Solution) {
    let best = s.guarantee.expect("a private run has a guarantee");
    assert!(s.guarantees.contains(&best));
    assert!(s.guarantees.iter().all(|g| g.epsilon >= best.epsilon));
}

#[test]
fn a_total_budget_is_split_by_the_accountant_and_respected_end_to_end() {
    let mut rng = SecureRng::insecure_from_seed(23);
    let f = random_facility(&mut rng, 10);
    for (k, epsilon, delta) in [(3, 1.0, 1e-6), (8, 0.5, 1e-8), (5, 2.0, 0.0)] {
        let c = Cardinality::new(10, k);
        for mechanism in [SelectorKind::Exponential, SelectorKind::ReportNoisyMax] {
            let budget = Budget::total(epsilon, delta).unwrap();
            let s = greedy(&f, &c, &Procedure::private(mechanism, budget), &mut rng).unwrap();
            let split = s.budget_split.expect("a total budget is split");
            let best = s.guarantee.unwrap();
            assert!(best.epsilon <= epsilon && best.delta <= delta, "{best:?}");
            best_is_min(&s);
            // The selector really was built with the split's ε₀.
            let (e0, d0) = s.rounds[0].cost.epsilon_delta().unwrap();
            assert_eq!((e0, d0), (split.per_round_epsilon, split.per_round_delta));
            // The split is tight: basic composition alone already gives ε₀ ≥ ε/k.
            assert!(e0 >= epsilon / k as f64 * (1.0 - 1e-12));
            if delta == 0.0 {
                assert!(s.guarantees.iter().all(|g| g.delta == 0.0));
            }
        }
    }
}

#[test]
fn a_per_round_budget_composes_over_the_planned_rounds() {
    let f = Modular {
        w: vec![1.0, 5.0, 2.0, 0.5],
        lambda: Lambda::ONE,
    };
    let mut rng = SecureRng::insecure_from_seed(24);
    // Cardinality: pure reporting (δ = 0) gives exactly basic composition k·ε₀ (rounded up).
    let s = greedy(&f, &Cardinality::new(4, 3), &em(0.2), &mut rng).unwrap();
    let best = s.guarantee.unwrap();
    assert!(
        best.epsilon >= 0.6 && best.epsilon <= 0.6 * (1.0 + 1e-9),
        "{best:?}"
    );
    assert_eq!(best.delta, 0.0);
    best_is_min(&s);

    // Two partition matroids on the path a–b–c–d (edges 0, 1, 2): rank bound 2, but if the
    // middle edge 1 is taken first the set is maximal after one round. The guarantee still
    // covers the 2 planned rounds: the stopping time is an output too.
    let left = Partition::new(vec![0, 1, 1], vec![1, 1]).unwrap();
    let right = Partition::new(vec![0, 0, 1], vec![1, 1]).unwrap();
    let both = Intersection::new(vec![left.into(), right.into()]).unwrap();
    let f = Modular {
        w: vec![1.0, 30.0, 1.0],
        lambda: Lambda::ONE,
    };
    let s = greedy(&f, &both, &em(0.2), &mut rng).unwrap();
    assert_eq!(s.planned_rounds, 2);
    if s.elements == [1] {
        assert_eq!(s.rounds.len(), 1);
    }
    let best = s.guarantee.unwrap();
    assert!(
        best.epsilon >= 0.4 && best.epsilon <= 0.4 * (1.0 + 1e-9),
        "{best:?}"
    );

    // Reporting at δ > 0 adds the advanced, KOV and zCDP rules; the best is no worse than
    // basic.
    let per_round = Budget::per_round(0.1, 0.0, 1e-6).unwrap();
    let p = Procedure::private(SelectorKind::Exponential, per_round);
    let s = greedy(
        &random_coverage(&mut rng, 30),
        &Cardinality::new(30, 25),
        &p,
        &mut rng,
    )
    .unwrap();
    best_is_min(&s);
    assert!(
        s.guarantee.unwrap().epsilon < 2.5,
        "zCDP beats basic 25·0.1 here"
    );
    assert!(s.budget_split.is_none());
}

#[test]
fn the_decomposable_rule_is_offered_only_where_it_is_proven() {
    use disguise::privacy::compose::Rule;
    let mut rng = SecureRng::insecure_from_seed(25);
    let f = random_facility(&mut rng, 6); // declares itself decomposable
    let c = Cardinality::new(6, 2);
    let reporting = Budget::per_round(0.005, 0.0, 1e-6).unwrap();
    let has = |s: &Solution| s.guarantees.iter().any(|g| g.rule == Rule::Decomposable);
    // Algorithm 1 with the exponential mechanism on a decomposable objective (Theorem 3.1).
    let s = greedy(
        &f,
        &c,
        &Procedure::private(SelectorKind::Exponential, reporting),
        &mut rng,
    );
    assert!(has(&s.unwrap()));
    // Not for Algorithm 4, report noisy max, a custom selector or a general objective.
    let s = subsample_greedy(
        &f,
        2,
        &Procedure::private(SelectorKind::Exponential, reporting),
        &mut rng,
    );
    assert!(!has(&s.unwrap()));
    let s = greedy(
        &f,
        &c,
        &Procedure::private(SelectorKind::ReportNoisyMax, reporting),
        &mut rng,
    );
    assert!(!has(&s.unwrap()));
    let em = Exponential::new(Epsilon::new(0.005).unwrap());
    let custom = Procedure::Custom {
        selector: &em,
        delta: disguise::privacy::Delta::new(1e-6).unwrap(),
    };
    assert!(!has(&greedy(&f, &c, &custom, &mut rng).unwrap()));
    let g = random_coverage(&mut rng, 6);
    let s = greedy(
        &g,
        &c,
        &Procedure::private(SelectorKind::Exponential, reporting),
        &mut rng,
    );
    assert!(!has(&s.unwrap()));
    // Nor when λ changes between rounds: the proof (docs/proofs/decomposable-greedy.md)
    // assumes one λ for every round's exponential mechanism.
    use disguise::objective::FnObjective;
    let likes = |s: &[usize]| s.iter().map(|&v| (v % 3) as f64).sum::<f64>().min(4.0);
    let private = Procedure::private(SelectorKind::Exponential, reporting);
    let steady = FnObjective::new(6, Sensitivity::new(4.0).unwrap(), likes)
        .monotone()
        .decomposable();
    assert!(has(&greedy(&steady, &c, &private, &mut rng).unwrap()));
    let growing = FnObjective::new(6, Sensitivity::new(4.0).unwrap(), likes)
        .with_round_sensitivity(|r| Sensitivity::new(4.0 + r as f64).unwrap())
        .monotone()
        .decomposable();
    assert!(!has(&greedy(&growing, &c, &private, &mut rng).unwrap()));
    // ... so a total budget is never split by it there either: 30 rounds of (1, 1e-6) would
    // get ε₀ = 0.11 from the decomposable rule (zCDP: 0.08), which the run could not then
    // be charged by; the split must come from a rule the run can use, within the budget.
    let wide = |s: &[usize]| s.iter().map(|&v| (v % 3) as f64).sum::<f64>().min(4.0);
    let c30 = Cardinality::new(40, 30);
    let total = Procedure::private(SelectorKind::Exponential, Budget::total(1.0, 1e-6).unwrap());
    let steady = FnObjective::new(40, Sensitivity::new(4.0).unwrap(), wide)
        .monotone()
        .decomposable();
    let s = greedy(&steady, &c30, &total, &mut rng).unwrap();
    assert_eq!(s.budget_split.unwrap().rule, Rule::Decomposable);
    assert!(s.guarantee.unwrap().epsilon <= 1.0);
    let growing = FnObjective::new(40, Sensitivity::new(4.0).unwrap(), wide)
        .with_round_sensitivity(|r| Sensitivity::new(4.0 + r as f64).unwrap())
        .monotone()
        .decomposable();
    let s = greedy(&growing, &c30, &total, &mut rng).unwrap();
    assert_ne!(s.budget_split.unwrap().rule, Rule::Decomposable);
    assert!(s.guarantee.unwrap().epsilon <= 1.0, "{:?}", s.guarantee);
}

#[test]
fn large_margin_greedy_spends_delta_per_round_and_finds_margins() {
    let mut w = vec![0.0; 30];
    w[4] = 1000.0;
    w[17] = 900.0;
    w[25] = 800.0;
    let f = Modular {
        w,
        lambda: Lambda::ONE,
    };
    let c = Cardinality::new(30, 3);
    let mut rng = SecureRng::insecure_from_seed(26);
    for mechanism in [
        SelectorKind::LargeMargin,
        SelectorKind::LargeMarginChaudhuri,
    ] {
        // Per round (ε₀, δ₀) = (1, 1e-7), reported at δ = 0: the accountant reports at least
        // the 3·δ₀ the calls spend (basic composition: (3, 3e-7)).
        let per_round = Budget::per_round(1.0, 1e-7, 0.0).unwrap();
        let s = greedy(&f, &c, &Procedure::private(mechanism, per_round), &mut rng).unwrap();
        let best = s.guarantee.unwrap();
        assert!(best.delta >= 3e-7 && best.delta < 3.1e-7, "{best:?}");
        assert!(best.epsilon >= 3.0 && best.epsilon < 3.0 + 1e-9);
        best_is_min(&s);
        // Gaps of ≥ 800 sensitivities: every round finds a margin ℓ ≤ 3 and picks among the
        // top three (failure probability below e^-20 per round).
        let mut picked = s.elements.clone();
        picked.sort();
        assert_eq!(picked, vec![4, 17, 25], "{mechanism:?}");
        assert!(s.rounds.iter().all(|r| r.margin.is_some_and(|l| l <= 3)));

        // A total budget: the accountant splits both ε and δ.
        let total = Budget::total(1.0, 1e-6).unwrap();
        let s = greedy(&f, &c, &Procedure::private(mechanism, total), &mut rng).unwrap();
        let split = s.budget_split.unwrap();
        assert!(split.per_round_delta > 0.0 && split.per_round_delta * 3.0 <= 1e-6);
        let best = s.guarantee.unwrap();
        assert!(best.epsilon <= 1.0 && best.delta <= 1e-6, "{best:?}");
    }
    // δ₀ = 0 is invalid for a large margin mechanism.
    let bad = Procedure::private(
        SelectorKind::LargeMargin,
        Budget::per_round(1.0, 0.0, 0.0).unwrap(),
    );
    assert!(greedy(&f, &c, &bad, &mut rng).is_err());
    // A total budget with δ = 0 cannot be split for approximate calls.
    let bad = Procedure::private(SelectorKind::LargeMargin, Budget::total(1.0, 0.0).unwrap());
    assert!(greedy(&f, &c, &bad, &mut rng).is_err());
}

#[test]
fn the_librarys_coverage_objective_plugs_into_every_algorithm() {
    // The real objective (objective/coverage.rs) through the same checks as the test ones.
    use disguise::objective::Coverage as LibCoverage;
    let mut rng = SecureRng::insecure_from_seed(27);
    for _ in 0..60 {
        let n = 4 + below(&mut rng, 8);
        let k = 1 + below(&mut rng, 4);
        let records: Vec<Vec<usize>> = (0..3 * n)
            .map(|_| (0..n).filter(|_| unit(&mut rng) < 0.25).collect())
            .collect();
        let f = LibCoverage::new(n, &records).unwrap();
        let c = Cardinality::new(n, k);
        let best = opt(&f, &c);
        let s = standard_greedy(&f, &c).unwrap();
        assert_consistent(&s, &f, &c);
        assert!(s.value >= (1.0 - (-1f64).exp()) * best - 1e-9);
        assert_eq!(lazy_greedy(&f, &c).unwrap().elements, s.elements);
        let private = greedy(&f, &c, &em(1.0), &mut rng).unwrap();
        assert_consistent(&private, &f, &c);
        assert!(private.guarantee.is_some());
        let fast = subsample_greedy(&f, k, &em(1.0), &mut rng).unwrap();
        assert_consistent(&fast, &f, &c);
    }
}

/// An objective that can only represent small solutions (mutual information with a
/// configuration limit) is refused with an error before any round, not a panic mid-run.
#[test]
fn k_beyond_the_objectives_capacity_is_an_error_not_a_panic() {
    use disguise::objective::MutualInformation;
    let features = vec![vec![0, 1, 0, 1], vec![1, 1, 0, 0], vec![0, 0, 1, 1]];
    let f = MutualInformation::new(&features, &[2, 2, 2], &[0, 1, 1, 0], 2)
        .unwrap()
        .with_configuration_limit(4)
        .unwrap();
    assert_eq!(f.max_solution_size(), 2);
    let err = standard_greedy(&f, &Cardinality::new(3, 3)).unwrap_err();
    assert!(
        matches!(err, Error::InvalidParameter { name: "k", .. }),
        "{err}"
    );
    assert_eq!(
        standard_greedy(&f, &Cardinality::new(3, 2))
            .unwrap()
            .elements
            .len(),
        2
    );
}
