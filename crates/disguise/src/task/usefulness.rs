//! Utility said up front: what the paper's analysis promises for a run's public parameters,
//! and a flag when that promise is vacuous. A theorem's worst case that says nothing is
//! printed as a note (most releases it says nothing about are fine); what is expected of a
//! histogram release, from the release and public quantities, warns when most of it is
//! expected to be noise.

use crate::numeric::display::{sig, thousands};
use serde::Serialize;

/// The a-priori utility of a run, from public quantities only (n, ε, the sizes of the
/// space; never the data), so stating it costs no privacy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Usefulness {
    /// The bound or condition the analysis gives, in words with its numbers.
    pub bound: String,
    /// Whether it is vacuous. For a worst-case bound ([`Usefulness::worst_case`]) that says
    /// only that the theorem promises nothing at these parameters, not that the release is
    /// bad; for an expectation about this release, that it is expected to be mostly noise.
    pub vacuous: bool,
    /// Whether the bound is a theorem's worst case over all data sets (front ends print a
    /// vacuous one as a note), rather than what is expected of this release from public
    /// quantities (a vacuous one is a warning).
    pub worst_case: bool,
    /// What would help, when vacuous.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<String>,
}

impl Usefulness {
    /// How much of a projected histogram's release is expected to be pure noise: cells no
    /// record is in whose noisy count passed the threshold by chance. Post-processing of the
    /// release and public quantities only, so it costs no privacy.
    ///
    /// A cell is released when its noisy count exceeds τ = A·ln(n)/ε_h, the noise Laplace of
    /// scale b = 2/ε_h (Vinterbo 2012, Section 2.2). An empty cell passes with probability
    /// P(Lap(b) > τ) = ½·e^{−τ/b}, and then holds τ + b on average (the Laplace tail beyond τ
    /// is τ plus an exponential of mean b). At most all `cells` cells are empty, so at most
    /// cells·½e^{−τ/b} released cells are expected to be noise, holding about that many times
    /// τ + b of the `noisy_rows` = Σ⌈h̃ − ½⌉ rows the noisy counts give; the bound is close
    /// when most cells are empty (the usual sparse table) and loose when n fills the space.
    /// Vacuous (a warning) when that share of the rows is at least one half.
    ///
    /// ```
    /// use disguise::task::Usefulness;
    /// // Adult onto 5 columns at ε_h = 0.9: 20,160 cells, τ = ½·ln(48,842)/0.9 = 6.0, each
    /// // empty cell passes with probability ½·48,842^(−¼) = 0.0336: up to 678 noise cells.
    /// let u = Usefulness::histogram(48_842, 0.9, 0.5, 20_160, 1_684, 50_500);
    /// assert!(u.bound.contains("up to 678 of the 1,684 released cells"), "{}", u.bound);
    /// assert!(!u.vacuous && !u.worst_case);
    /// // The same space at ε_h = 0.1: the noise cells hold most of the rows.
    /// assert!(Usefulness::histogram(48_842, 0.1, 0.5, 20_160, 1_000, 60_000).vacuous);
    /// ```
    pub fn histogram(
        n: usize,
        epsilon_h: f64,
        a: f64,
        cells: u64,
        released: usize,
        noisy_rows: u64,
    ) -> Self {
        let tau = a * (n.max(1) as f64).ln() / epsilon_h;
        let scale = 2.0 / epsilon_h;
        let pass = 0.5 * (-tau / scale).exp();
        let noise_cells = (cells as f64 * pass).min(released as f64);
        let noise_rows = noise_cells * (tau + scale);
        let share = if noisy_rows == 0 {
            if released == 0 { 0.0 } else { 1.0 }
        } else {
            (noise_rows / noisy_rows as f64).min(1.0)
        };
        let bound = format!(
            "up to {} of the {} released cells are expected to be pure noise (each of the {} \
             cells, if empty, passes τ = {} with probability ½·e^(−τε_h/2) = {}), holding up to \
             {} % of the synthetic rows",
            thousands(noise_cells.round() as u64),
            thousands(released as u64),
            thousands(cells),
            sig(tau, 3),
            sig(pass, 2),
            (100.0 * share).round()
        );
        let vacuous = share >= 0.5;
        let advice = vacuous.then(|| {
            "a larger ε (τ and the noise fall as 1/ε), or fewer or coarser columns (smaller k, \
             fewer levels or bins), would help"
                .to_string()
        });
        Self {
            bound,
            vacuous,
            worst_case: false,
            advice,
        }
    }
}

impl Usefulness {
    /// The private greedy with the exponential mechanism for k rounds over m candidates, on
    /// a monotone objective of sensitivity λ whose value is at most `f_max` (n for facility
    /// location and coverage, one unit per record), at ε₀ per round:
    ///
    /// E[f(S)] ≥ c·OPT − A, A = 2λ·k·ln m / ε₀,
    ///
    /// with c = 1 − 1/e for the greedy (Mitrovic et al. 2017, Theorem 3.2) and
    /// c = 1 − e^{−(1−1/e)} ≈ 0.468 for the subsample-greedy (Theorem 4.1). Vacuous when
    /// A ≥ c·f_max: even the best possible OPT then promises nothing.
    ///
    /// ```
    /// use disguise::task::Usefulness;
    /// // 10,000 points, 3 of 33 candidates at ε₀ = 0.33: A ≈ 64, far below 0.63·10,000.
    /// assert!(!Usefulness::greedy(10_000.0, 3, 33, 1.0, 0.33, false).vacuous);
    /// // 100 points at ε₀ = 0.01: A ≈ 2,100.
    /// assert!(Usefulness::greedy(100.0, 3, 33, 1.0, 0.01, false).vacuous);
    /// ```
    pub fn greedy(
        f_max: f64,
        k: usize,
        m: usize,
        lambda: f64,
        epsilon0: f64,
        subsample: bool,
    ) -> Self {
        Self::greedy_rounds(f_max, &vec![lambda; k], m, epsilon0, subsample)
    }

    /// [`Usefulness::greedy`] for an objective whose sensitivity changes with the round
    /// (`lambdas[i]` for round i + 1, e.g. mutual information): the per-round errors add up,
    /// A = 2·(Σᵢ λᵢ)·ln m / ε₀.
    pub fn greedy_rounds(
        f_max: f64,
        lambdas: &[f64],
        m: usize,
        epsilon0: f64,
        subsample: bool,
    ) -> Self {
        Self::subsample_or_greedy(f_max, lambdas, m, epsilon0, subsample, true)
    }

    /// The subsample-greedy on a possibly non-monotone objective (Mitrovic et al. 2017,
    /// Theorem 4.1): E[f(S)] ≥ (1/e)(1 − 1/e)·OPT − 2·(Σᵢ λᵢ)·ln m/ε₀, for an objective
    /// that is non-negative on every set (the theorem's proof needs it; see
    /// [`Usefulness::subsample_not_non_negative`]), e.g. a cut.
    ///
    /// ```
    /// use disguise::task::Usefulness;
    /// let u = Usefulness::subsample_non_monotone(5_000.0, &[2.0; 3], 100, 0.3);
    /// // (1/e)(1 − 1/e) = 0.23254…, printed rounded down.
    /// assert!(u.bound.starts_with("E[f(S)] ≥ 0.232·OPT"));
    /// ```
    pub fn subsample_non_monotone(f_max: f64, lambdas: &[f64], m: usize, epsilon0: f64) -> Self {
        Self::subsample_or_greedy(f_max, lambdas, m, epsilon0, true, false)
    }

    /// The greedy on a non-monotone objective: no approximation guarantee (Mitrovic et al.
    /// 2017, Section 4), so always vacuous, pointing to the subsample-greedy.
    pub fn greedy_non_monotone() -> Self {
        Self {
            bound: "the greedy has no approximation guarantee on a non-monotone objective \
                    (Mitrovic et al. 2017, Section 4)"
                .to_string(),
            vacuous: true,
            worst_case: true,
            advice: Some(
                "the subsample-greedy (Algorithm 4) has one: (1/e)(1 − 1/e)·OPT minus its \
                 privacy term (Theorem 4.1)"
                    .to_string(),
            ),
        }
    }

    fn subsample_or_greedy(
        f_max: f64,
        lambdas: &[f64],
        m: usize,
        epsilon0: f64,
        subsample: bool,
        monotone: bool,
    ) -> Self {
        let e_inv = (-1.0f64).exp();
        let (c, theorem) = if !monotone {
            (
                e_inv * (1.0 - e_inv),
                "Mitrovic et al. 2017, Theorem 4.1, non-monotone",
            )
        } else if subsample {
            (
                1.0 - (-(1.0 - (-1.0f64).exp())).exp(),
                "Mitrovic et al. 2017, Theorem 4.1",
            )
        } else {
            (1.0 - (-1.0f64).exp(), "Mitrovic et al. 2017, Theorem 3.2")
        };
        let additive = 2.0 * lambdas.iter().sum::<f64>() * (m.max(1) as f64).ln() / epsilon0;
        let form = Form {
            lhs: "E[f(S)]",
            formula: "2λ·k·ln m/ε₀",
            theorem,
        };
        Self::approximation(c, additive, &form, lambdas, m, epsilon0, f_max)
    }

    /// The private greedy with the exponential mechanism under the intersection of `p`
    /// matroids (a p-extendible system; `p` = 1 for one matroid), r = `lambdas.len()` rounds:
    ///
    /// E[f(S)] ≥ OPT/(p+1) − (p/(p+1))·2·(Σᵢ λᵢ)·ln m/ε₀
    ///
    /// (Mitrovic et al. 2017, Theorems 3.3 and 3.5, whose proof adds the per-round error
    /// α = 2λᵢ·ln m/ε₀ round by round, so per-round sensitivities sum).
    ///
    /// ```
    /// use disguise::task::Usefulness;
    /// let u = Usefulness::greedy_matroids(10_000.0, &[1.0; 4], 40, 0.25, 1);
    /// assert!(u.bound.starts_with("E[f(S)] ≥ 0.500·OPT"));
    /// assert!(!u.vacuous);
    /// ```
    pub fn greedy_matroids(f_max: f64, lambdas: &[f64], m: usize, epsilon0: f64, p: usize) -> Self {
        let p_f = p.max(1) as f64;
        let c = 1.0 / (p_f + 1.0);
        let additive =
            p_f / (p_f + 1.0) * 2.0 * lambdas.iter().sum::<f64>() * (m.max(1) as f64).ln()
                / epsilon0;
        let theorem = format!("Mitrovic et al. 2017, Theorem 3.5 with p = {}", p.max(1));
        let form = Form {
            lhs: "E[f(S)]",
            formula: "(p/(p+1))·2λ·k·ln m/ε₀",
            theorem: &theorem,
        };
        Self::approximation(c, additive, &form, lambdas, m, epsilon0, f_max)
    }

    /// The private k-submodular greedy (Rafiey & Yoshida 2020, Algorithm 3) with the
    /// exponential mechanism over the `pairs` (element, type) pairs, r = `lambdas.len()`
    /// rounds on a matroid: with probability ≥ 1 − β (β = 5%, a union bound over the
    /// r rounds), f ≥ ½·OPT − (Σᵢ λᵢ/ε₀)·ln(pairs·r/β). The paper's Theorem 5.3 states
    /// ½·OPT − O(λ·r·ln|E|/ε); the constant is that of
    /// [`k_submodular_greedy`](crate::maximize::k_submodular_greedy)'s utility section.
    ///
    /// ```
    /// use disguise::task::Usefulness;
    /// // 30 points, 2 picks among 2 types × 40 locations at ε₀ = 0.05: A ≈ 258 > 15.
    /// let u = Usefulness::k_submodular(30.0, &[1.0; 2], 80, 0.05);
    /// assert!(u.vacuous);
    /// assert!(u.bound.starts_with("with probability ≥ 95%"));
    /// ```
    pub fn k_submodular(f_max: f64, lambdas: &[f64], pairs: usize, epsilon0: f64) -> Self {
        let form = Form {
            lhs: &format!("with probability ≥ {}, f(S)", percent(1.0 - FAILURE)),
            formula: "λ·k·ln(m·k/β)/ε₀ over m (element, type) pairs (β = 5%)",
            theorem: "Rafiey and Yoshida 2020, Theorem 5.3",
        };
        Self::k_submodular_bound(f_max, lambdas, pairs, epsilon0, &form)
    }

    /// The subsampled private k-submodular greedy (Rafiey & Yoshida 2020, Algorithm 4) at
    /// failure probability γ = `failure`, as [`Usefulness::k_submodular`] but with
    /// probability ≥ 1 − β − γ: the bound of Algorithm 3 needs the exponential mechanism to
    /// be near its best in every round (probability ≥ 1 − β) *and* every round's sample to
    /// meet the optimal solution (Lemma D.1, probability ≥ 1 − γ), and a union bound gives
    /// the sum (Theorem 5.6): 85% at the default γ = 10%, not 95%.
    ///
    /// The step of Theorem 5.6's proof that links the sample to the exchange partner of the
    /// chosen element is proven (`docs/proofs/utility-bounds.md`, §3) when every feasible
    /// element can replace every element of an optimal base: a `cardinality` constraint
    /// (`uniform` = true: [`Cardinality`](crate::constraint::Cardinality),
    /// [`Uniform`](crate::constraint::Uniform)). For other matroids the partner Lemma 5.2
    /// gives may lie outside the sample, and no proof is known here: the result is then
    /// "no guarantee", flagged vacuous.
    ///
    /// ```
    /// use disguise::task::Usefulness;
    /// let u = Usefulness::k_submodular_subsample(10_000.0, &[1.0; 2], 80, 1.0, 0.1, true);
    /// assert!(u.bound.starts_with("with probability ≥ 85%"));
    /// assert!(!u.vacuous);
    /// let u = Usefulness::k_submodular_subsample(10_000.0, &[1.0; 2], 80, 1.0, 0.1, false);
    /// assert!(u.vacuous && u.bound.starts_with("no guarantee"));
    /// ```
    pub fn k_submodular_subsample(
        f_max: f64,
        lambdas: &[f64],
        pairs: usize,
        epsilon0: f64,
        failure: f64,
        uniform: bool,
    ) -> Self {
        if !uniform {
            return Self {
                bound: "no guarantee: the subsampled k-submodular greedy's bound (Rafiey and \
                        Yoshida 2020, Theorem 5.6) needs the exchange partner of each chosen \
                        element (Lemma 5.2) to be in that round's sample, which is proven only \
                        for a cardinality constraint"
                    .to_string(),
                vacuous: true,
                worst_case: true,
                advice: Some(
                    "the greedy (Algorithm 3) has a proven bound on every matroid: \
                     ½·OPT minus its privacy term, with probability ≥ 95%"
                        .to_string(),
                ),
            };
        }
        let probability = 1.0 - FAILURE - failure;
        // NaN (an invalid γ) included.
        if probability.is_nan() || probability <= 0.0 {
            return Self {
                bound: format!(
                    "no guarantee: Theorem 5.6 of Rafiey and Yoshida 2020 holds with probability \
                     ≥ 1 − β − γ, which is not positive for β = 5%, γ = {}",
                    percent(failure)
                ),
                vacuous: true,
                worst_case: true,
                advice: Some("a smaller failure probability γ would help".to_string()),
            };
        }
        let form = Form {
            lhs: &format!("with probability ≥ {}, f(S)", percent(probability)),
            formula: &format!(
                "λ·k·ln(m·k/β)/ε₀ over m (element, type) pairs (β = 5%; probability \
                 1 − β − γ, γ = {})",
                percent(failure)
            ),
            theorem: "Rafiey and Yoshida 2020, Theorem 5.6",
        };
        Self::k_submodular_bound(f_max, lambdas, pairs, epsilon0, &form)
    }

    fn k_submodular_bound(
        f_max: f64,
        lambdas: &[f64],
        pairs: usize,
        epsilon0: f64,
        form: &Form<'_>,
    ) -> Self {
        let r = lambdas.len().max(1) as f64;
        let additive =
            lambdas.iter().sum::<f64>() * (pairs.max(1) as f64 * r / FAILURE).ln() / epsilon0;
        Self::approximation(0.5, additive, form, lambdas, pairs, epsilon0, f_max)
    }

    /// E[f(S)] ≥ c·OPT − `additive`, vacuous when `additive` ≥ c·`f_max` (even the best
    /// possible OPT then promises nothing).
    fn approximation(
        c: f64,
        additive: f64,
        form: &Form<'_>,
        lambdas: &[f64],
        m: usize,
        epsilon0: f64,
        f_max: f64,
    ) -> Self {
        let Form {
            lhs,
            formula,
            theorem,
        } = form;
        let k = lambdas.len();
        let lambda: f64 = lambdas.iter().sum::<f64>() / k.max(1) as f64;
        let lambda_text = if lambdas.iter().all(|&l| l == lambda) {
            format!("λ = {}", whole_or_up(lambda))
        } else {
            format!("mean λ = {lambda:.4}")
        };
        let (c_text, additive_text) = (down(c, 3), up(additive, 4));
        let f_text = whole_or_up(f_max);
        let bound = format!(
            "{lhs} ≥ {c_text}·OPT − {additive_text} ({formula} for {lambda_text}, k = {k}, \
             m = {m}, ε₀ = {epsilon0:.4}; {theorem}); f is at most {f_text}"
        );
        Self::worst_case_bound(bound, additive, c * f_max, || {
            format!(
                "the privacy term {additive_text} is at least {c_text}·{f_text}; a larger ε, \
                 fewer picks k or fewer candidates would help"
            )
        })
    }

    /// The private continuous greedy (Rafiey & Yoshida 2020, Algorithm 1 and Theorem 3.3)
    /// with the constants written out (`docs/proofs/utility-bounds.md`, §4): on a monotone
    /// submodular f ≥ 0 with f(∅) = 0, a matroid of rank r and T steps,
    ///
    /// E[f(S)] ≥ c_T·(1 − r(r − 1)/(2T) − 2r·ρ)·OPT − c_T·(a + 2r·τ),
    ///
    /// with c_T = 1 − (1 − 1/T)^T (→ 1 − 1/e), a the exponential mechanism's expected loss
    /// per step ((2s/ε₀)·(ln|𝓑| + 1) over the |𝓑| bases with score sensitivity s, or
    /// r·(2K/ε₀)·(ln|V| + 1) for r sequential picks with coordinate sensitivity K), τ the
    /// gradient's deterministic error per coordinate (fixed-point rounding) and
    /// ρ = √(ln(2|V|)/(2m)) for a gradient estimated from m samples (0 for a closed form).
    /// The paper states (1 − 1/e)·OPT − O(·) without constants; the discretisation term
    /// r(r − 1)/(2T) is relative to OPT because a single element's value is at most OPT.
    /// Vacuous when the factor of OPT is not positive or the additive term is at least that
    /// factor times the largest value. With bases sampled at random
    /// ([`Directions::Sampled`](crate::maximize::Directions::Sampled)) the mechanism is
    /// near the best *sampled* base only, so there is no bound against OPT.
    pub(crate) fn continuous_greedy(run: &ContinuousRun) -> Self {
        let r = run.rank as f64;
        let t = run.steps.max(1) as f64;
        let v = run.candidates.max(1) as f64;
        let per_step = match run.directions {
            ContinuousDirections::Bases { ln_bases } => {
                2.0 * run.sensitivity / run.epsilon0 * (ln_bases + 1.0)
            }
            ContinuousDirections::Sequential => {
                r * 2.0 * run.sensitivity / run.epsilon0 * (v.ln() + 1.0)
            }
            ContinuousDirections::Sampled => {
                return Self {
                    bound: "no guarantee against OPT: with sampled bases each step is near the \
                            best base of its sample only (Rafiey and Yoshida 2020, Algorithm 2 \
                            without its covering)"
                        .to_string(),
                    vacuous: true,
                    worst_case: true,
                    advice: Some(
                        "directions bases (cardinality or partition) or sequential carry a bound \
                         against OPT"
                            .to_string(),
                    ),
                };
            }
        };
        let rho = run
            .gradient_samples
            .map_or(0.0, |m| ((2.0 * v).ln() / (2.0 * m.max(1) as f64)).sqrt());
        let c_t = 1.0 - (1.0 - 1.0 / t).powf(t);
        let factor = 1.0 - r * (r - 1.0) / (2.0 * t) - 2.0 * r * rho;
        let c = c_t * factor;
        let additive = c_t * (per_step + 2.0 * r * run.gradient_error);
        let sampling = if run.gradient_samples.is_some() {
            format!(" − 2r·ρ, ρ = {rho:.4}")
        } else {
            String::new()
        };
        let directions = match run.directions {
            ContinuousDirections::Bases { ln_bases } => format!(
                "a = (2s/ε₀)·(ln|𝓑| + 1) over the bases, s = {}, ln|𝓑| = {ln_bases:.4}",
                run.sensitivity
            ),
            _ => format!(
                "a = r·(2K/ε₀)·(ln|V| + 1) for r sequential picks, K = {}",
                run.sensitivity
            ),
        };
        let (c_text, additive_text) = (down(c, 3), up(additive, 4));
        let bound = format!(
            "E[f(S)] ≥ {c_text}·OPT − {additive_text} (c_T·(1 − r(r − 1)/(2T){sampling}) and \
             c_T·(a + 2r·τ), c_T = 1 − (1 − 1/T)^T, {directions}, τ = {:.3e}, for T = {}, \
             r = {}, |V| = {}, ε₀ = {:.4}; Rafiey and Yoshida 2020, Theorem 3.3, constants in \
             docs/proofs/utility-bounds.md); f is at most {}",
            run.gradient_error,
            run.steps,
            run.rank,
            run.candidates,
            run.epsilon0,
            whole_or_up(run.f_max)
        );
        if c.is_nan() || c <= 0.0 {
            return Self {
                bound,
                vacuous: true,
                worst_case: true,
                advice: Some(
                    "the factor of OPT is not positive: more steps T (the discretisation term \
                     is r(r − 1)/(2T)), or more gradient samples, would help"
                        .to_string(),
                ),
            };
        }
        Self::worst_case_bound(bound, additive, c * run.f_max, || {
            format!(
                "the privacy term {additive_text} is at least {c_text}·{}; a larger ε, fewer \
                 steps T or a smaller rank would help",
                run.f_max
            )
        })
    }

    /// The non-monotone subsample-greedy on an objective that public quantities do not
    /// prove non-negative (facility location minus a cost per pick): no guarantee.
    ///
    /// Theorem 4.1 of Mitrovic et al. (2017) is stated for any submodular f, but its proof
    /// needs f ≥ 0: Claim 4.3 applies the lemma of Feige, Mirrokni and Vondrák,
    /// E[g(T′)] ≥ (1 − p)·g(∅) + p·g(T), to g(T) = f(S* ∪ T) and drops the term p·g(T), so
    /// it needs f(S* ∪ S_i) ≥ 0 for the optimal S* and every partial solution S_i (sets
    /// of up to 2k elements). For f(S) = g(S) − c·|S| with facility location g and c > 0,
    /// that does not follow from the public quantities (n, the candidates, the normaliser
    /// m, k, c): the points may all lie farther than m from every candidate, and then
    /// g ≡ 0 and f(S) = −c·|S| < 0 for every non-empty S. Only points confined to a public
    /// region within distance D < m of every candidate would give each similarity a floor
    /// 1 − D/m, and f ≥ 0 on sets of up to 2k elements when n·(1 − D/m) ≥ 2k·c; the
    /// points of `select` have no such region (with haversine, D = πR ≈ 20,015 km, so m
    /// would have to exceed half the Earth's circumference, which no one uses, and the
    /// library does not claim this case).
    ///
    /// ```
    /// use disguise::task::Usefulness;
    /// let u = Usefulness::subsample_not_non_negative();
    /// assert!(u.vacuous && u.bound.starts_with("no guarantee"));
    /// ```
    pub fn subsample_not_non_negative() -> Self {
        Self {
            bound: "no guarantee: Theorem 4.1 of Mitrovic et al. 2017 needs f ≥ 0 (its proof \
                    drops f(S* ∪ S_i) ≥ 0 in Claim 4.3), and f(S) − cost·|S| is negative \
                    whenever no point is within the normaliser of the chosen candidates, which \
                    the public quantities cannot rule out"
                .to_string(),
            vacuous: true,
            worst_case: true,
            advice: Some(
                "without a cost the objective is monotone and non-negative, and the greedy's \
                 (1 − 1/e)·OPT bound applies (Theorem 3.2)"
                    .to_string(),
            ),
        }
    }
}

/// A private continuous greedy run as its utility bound reads it ([`Usefulness::continuous_greedy`]):
/// public parameters and the calibration the mechanism used, never the data.
pub(crate) struct ContinuousRun {
    /// The largest value the objective can take (n for facility location).
    pub f_max: f64,
    /// r, the rank of the matroid.
    pub rank: usize,
    /// T.
    pub steps: usize,
    /// |V|.
    pub candidates: usize,
    /// How each step's base was chosen.
    pub directions: ContinuousDirections,
    /// ε₀ of each selector call.
    pub epsilon0: f64,
    /// The sensitivity each call was calibrated to: s of a base's score, or K of one
    /// coordinate for sequential picks.
    pub sensitivity: f64,
    /// The gradient's deterministic error per coordinate.
    pub gradient_error: f64,
    /// The samples per estimated gradient (`None`: a closed form).
    pub gradient_samples: Option<usize>,
}

/// The direction rule of a continuous greedy run, as its bound needs it.
pub(crate) enum ContinuousDirections {
    /// The exponential mechanism over all |𝓑| bases.
    Bases {
        /// ln|𝓑|.
        ln_bases: f64,
    },
    /// r exponential-mechanism picks of single elements per step.
    Sequential,
    /// The exponential mechanism over bases drawn at random.
    Sampled,
}

/// `x` with `decimals` decimals, rounded down: a factor of OPT in a lower bound
/// ((1/e)(1 − 1/e) = 0.23254… prints as 0.232, never 0.233).
fn down(x: f64, decimals: i32) -> String {
    let scale = 10f64.powi(decimals);
    format!("{:.*}", decimals as usize, (x * scale).floor() / scale)
}

/// `x` with `decimals` decimals, rounded up: a term subtracted in a lower bound.
/// A bound's number as people read it: a whole number as it is (never "-0"), anything else
/// rounded up to 4 decimals (a bound stated larger stays true).
fn whole_or_up(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x + 0.0)
    } else {
        up(x, 4)
    }
}

fn up(x: f64, decimals: i32) -> String {
    let scale = 10f64.powi(decimals);
    format!("{:.*}", decimals as usize, (x * scale).ceil() / scale)
}

/// A probability as a percentage, rounded down to at most two decimals (a lower bound stays
/// one); float noise below 10⁻⁸ (1 − 0.05 − 0.1 = 0.8499999999999999) is not a digit.
fn percent(p: f64) -> String {
    let hundredths = (p * 10_000.0 + 1e-4).floor() / 100.0;
    let text = format!("{hundredths:.2}");
    format!("{}%", text.trim_end_matches('0').trim_end_matches('.'))
}

/// The failure probability β of the high-probability bounds stated.
pub const FAILURE: f64 = 0.05;

impl Usefulness {
    /// One selection by the exponential mechanism (weights exp(ε·q/(2λ))) among `m`
    /// candidates whose scores lie in a range of width `range`: with probability ≥ 1 − β the
    /// chosen score is within (2λ/ε)·ln(m/β) of the best (Dwork and Roth 2014,
    /// Theorem 3.11, with t = ln(1/β), β = 5%). Vacuous when that is at least `useful`, the
    /// shortfall that leaves nothing of value (e.g. n/2 for the correct counts of a binary
    /// classifier: a constant guess already gets n/2).
    ///
    /// ```
    /// use disguise::task::Usefulness;
    /// // 32,561 records, 500 stumps, ε = 1: within 2·ln(10,000) ≈ 18 records of the best.
    /// assert!(!Usefulness::exponential(500.0, 1.0, 1.0, 32_561.0 / 2.0).vacuous);
    /// // 100 records at ε = 0.05: ≈ 368 > 50.
    /// assert!(Usefulness::exponential(500.0, 1.0, 0.05, 50.0).vacuous);
    /// ```
    pub fn exponential(m: f64, lambda: f64, epsilon: f64, useful: f64) -> Self {
        let error = 2.0 * lambda / epsilon * (m.max(1.0) / FAILURE).ln();
        let bound = format!(
            "with probability ≥ {:.0}%, the chosen score is within {error:.4} of the best \
             ((2λ/ε)·ln(m/β) for λ = {lambda}, ε = {epsilon:.4}, m = {m}; Dwork and Roth 2014, \
             Theorem 3.11)",
            100.0 * (1.0 - FAILURE)
        );
        Self::worst_case_bound(bound, error, useful, || {
            format!(
                "that shortfall is at least {useful:.4}, what a trivial answer already achieves; \
                 a larger ε or fewer candidates would help"
            )
        })
    }

    /// A theorem's worst-case `bound` whose error term `error` promises nothing once it
    /// reaches `limit`: vacuous then, or when `error` is NaN (from an invalid parameter), with
    /// the `advice` on what would help. The one rule every bound of this kind follows.
    fn worst_case_bound(
        bound: String,
        error: f64,
        limit: f64,
        advice: impl FnOnce() -> String,
    ) -> Self {
        let vacuous = error.is_nan() || error >= limit;
        Self {
            bound,
            vacuous,
            worst_case: true,
            advice: vacuous.then(advice),
        }
    }
}

impl Usefulness {
    /// The large margin mechanism on scores in [0, `n`] (counts of records): it stops at the
    /// first ℓ whose gap q₁ − q_{ℓ+1} clears a noisy threshold of about G_ℓ ≥ G₁ (Mitrovic
    /// et al. 2017, Algorithm 5; Chaudhuri et al. 2014, Algorithm 1), so a margin can be found
    /// only where the top count leads by about `g1`. Vacuous when G₁ ≥ n: no gap between
    /// counts of n records can clear it, and the search ends without a margin (or at ℓ = |V|).
    ///
    /// ```
    /// use disguise::task::Usefulness;
    /// assert!(Usefulness::margin(437.0, 200).vacuous);
    /// assert!(!Usefulness::margin(437.0, 8_124).vacuous);
    /// ```
    pub fn margin(g1: f64, n: usize) -> Self {
        let bound = format!(
            "a margin is found only where the top count leads the next by about G₁ = {g1:.4} \
             or more; counts are at most n = {n}"
        );
        Self::worst_case_bound(bound, g1, n as f64, Self::no_margin_advice)
    }

    /// [`Usefulness::margin`] for scores that are not counts (e.g. mutual-information gains
    /// in bits) and are at most `max`.
    pub fn margin_of_gains(g1: f64, max: f64) -> Self {
        let bound = format!(
            "a margin is found only where the top gain leads the next by about G₁ = {g1:.4} \
             or more; gains are at most {max:.4}"
        );
        Self::worst_case_bound(bound, g1, max, Self::no_margin_advice)
    }

    /// What helps when no score can lead by the stopping threshold G₁.
    fn no_margin_advice() -> String {
        "no gap can clear G₁; a larger ε, or the exponential mechanism, would help".to_string()
    }
}

impl Usefulness {
    /// [`Usefulness::margin`] for the large margin mechanism `variant` at budget (ε₀, δ₀)
    /// per selection and sensitivity λ, on scores of at most `n`: G₁ is its stopping
    /// threshold at ℓ = 1.
    ///
    /// # Errors
    /// An invalid ε₀, δ₀ (the large margin mechanisms need δ₀ > 0) or λ.
    ///
    /// ```
    /// use disguise::select::MarginVariant;
    /// use disguise::task::Usefulness;
    /// let u = Usefulness::large_margin(MarginVariant::Mitrovic, 1.0, 1e-6, 1.0, 100)?;
    /// assert!(u.vacuous); // G₁ ≈ 437 for n = 100
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn large_margin(
        variant: crate::select::MarginVariant,
        epsilon0: f64,
        delta0: f64,
        lambda: f64,
        n: usize,
    ) -> crate::Result<Self> {
        use crate::privacy::{Delta, Epsilon, Sensitivity};
        let lmm = crate::select::LargeMargin::with_variant(
            variant,
            Epsilon::new(epsilon0)?,
            Delta::new(delta0)?,
        )?;
        let g1 = lmm.stopping_threshold(1, Sensitivity::new(lambda)?);
        Ok(Self::margin(g1, n))
    }
}

/// How an approximation bound is written: its left-hand side, the formula of its additive
/// term and the theorem.
struct Form<'a> {
    lhs: &'a str,
    formula: &'a str,
    theorem: &'a str,
}

/// A greedy-family run as the utility theorems distinguish them: which mechanism and
/// algorithm, how many matroids constrain it (0 for a cardinality constraint alone), and
/// the objective's range. Only the request's choices and the run's public budget are read.
pub(crate) struct GreedyRun<'a> {
    pub mechanism: super::SelectorKind,
    pub algorithm: super::Algorithm,
    pub matroids: usize,
    /// λᵢ of every planned round.
    pub lambdas: &'a [f64],
    /// The largest value the objective can take (n for one unit per record).
    pub f_max: f64,
    /// The number of candidates.
    pub m: usize,
    /// Whether the scores are counts of records (λ = 1, at most n): the large margin
    /// mechanisms' condition is then checked against n (else against `f_max` at round 1's λ).
    pub counts: bool,
    /// Whether the objective is monotone (the greedy's guarantees need it).
    pub monotone: bool,
    /// Whether f ≥ 0 on every set follows from public quantities (the non-monotone
    /// Theorem 4.1 needs it; see [`Usefulness::subsample_not_non_negative`]).
    pub non_negative: bool,
}

impl GreedyRun<'_> {
    /// The bound for this run's per-round budget; `None` where none applies (the argmax,
    /// report noisy max, or the large margin mechanisms on scores that are not counts) and
    /// for the continuous greedy, whose bound needs its own parameters
    /// ([`Usefulness::continuous_greedy`]).
    pub fn usefulness(&self, solution: &crate::maximize::Solution) -> Option<Usefulness> {
        use super::Algorithm;
        use crate::select::SelectorKind;
        let split = solution.budget_split.as_ref()?;
        let epsilon0 = split.per_round_epsilon;
        if self.mechanism != SelectorKind::Exponential && !self.mechanism.needs_delta() {
            return None;
        }
        let variant = self.mechanism.margin_variant();
        if let Some(variant) = variant {
            let delta0 = split.per_round_delta;
            if self.counts {
                let n = self.f_max as usize;
                return Usefulness::large_margin(variant, epsilon0, delta0, 1.0, n).ok();
            }
            // Round 1's threshold at its λ: the lowest when λ grows with the round (mutual
            // information), so a vacuous round 1 means a vacuous run.
            let lambda = *self.lambdas.first()?;
            let g1 = crate::select::LargeMargin::with_variant(
                variant,
                crate::privacy::Epsilon::new(epsilon0).ok()?,
                crate::privacy::Delta::new(delta0).ok()?,
            )
            .ok()?
            .stopping_threshold(1, crate::privacy::Sensitivity::new(lambda).ok()?);
            return Some(Usefulness::margin_of_gains(g1, self.f_max));
        }
        if !self.monotone {
            return Some(match self.algorithm {
                Algorithm::Subsample if self.non_negative => {
                    Usefulness::subsample_non_monotone(self.f_max, self.lambdas, self.m, epsilon0)
                }
                Algorithm::Subsample => Usefulness::subsample_not_non_negative(),
                // Neither algorithm has a guarantee: advise what has one.
                _ if !self.non_negative => Usefulness {
                    advice: Usefulness::subsample_not_non_negative().advice,
                    ..Usefulness::greedy_non_monotone()
                },
                _ => Usefulness::greedy_non_monotone(),
            });
        }
        Some(match (self.algorithm, self.matroids) {
            (Algorithm::Subsample, _) => {
                Usefulness::greedy_rounds(self.f_max, self.lambdas, self.m, epsilon0, true)
            }
            // The task resolves Auto before it asks (`chosen_algorithm`).
            (Algorithm::Greedy | Algorithm::Auto, 0) => {
                Usefulness::greedy_rounds(self.f_max, self.lambdas, self.m, epsilon0, false)
            }
            (Algorithm::Greedy | Algorithm::Auto, p) => {
                Usefulness::greedy_matroids(self.f_max, self.lambdas, self.m, epsilon0, p)
            }
            (Algorithm::ContinuousGreedy, _) => return None,
        })
    }
}
