//! AIM: adaptive and iterative measurement of the marginals a workload asks for (McKenna,
//! Mullins, Sheldon, Miklau 2022, "AIM: An Adaptive and Iterative Mechanism for
//! Differentially Private Synthetic Data", Algorithm 1), on the library's mechanisms.
//!
//! 1. **1-ways**: every column measured with discrete Gaussian noise of variance σ₁² (a third
//!    of ρ on them by default, [`DEFAULT_ONES_SHARE`]; AIM measures them like a round);
//!    rare values merged as in MST ([`Compression`]: post-processing).
//! 2. **Rounds**: while budget is left, the exponential mechanism picks the candidate
//!    marginal r (the workload's downward closure) that the current model gets most wrong,
//!    by AIM's bias-corrected score
//!    q_r = w_r · (‖x_r − n·p̂_r‖₁ − √(2/π)·σ·|r|)
//!    (x_r the exact counts, p̂_r the model's marginal, |r| its cells, w_r the candidate's
//!    weight); the chosen marginal is measured with noise variance σ², and the model refitted
//!    ([`GraphicalModel::fit`], warm-started from the last round). Only candidates whose
//!    junction tree stays within a size that grows with the budget spent are eligible.
//! 3. **Annealing**: when the refitted model moved less on r than the noise would
//!    (‖n·p̂′_r − n·p̂_r‖₁ ≤ √(2/π)·σ·|r|), σ halves and the selection's ε doubles; the last
//!    round takes exactly what is left.
//! 4. **Estimation and sampling**: a final longer fit and the exact junction-tree sampler.
//!
//! # Guarantee
//! Replace-one neighbours (n public): ρ-zCDP, converted to (ε, δ) (Canonne, Kamath,
//! Steinke 2020). One measurement of a marginal has L2² sensitivity 2 (one count down, one
//! up), so it costs ρ = 1/σ² (AIM's 1/(2σ²) is for add/remove); a selection is
//! ε-bounded-range for a score of sensitivity Δ = 2·max w (each ‖·‖₁ moves by at most 2),
//! so it costs ε²/8 (Cesar–Rogers 2021). The rounds' parameters depend on earlier outputs:
//! their costs are charged against a fixed total by a zCDP filter, which is valid under
//! full adaptivity (`docs/proofs/synthetic-data.md`, *AIM*): the guarantee is ρ-zCDP for the
//! fixed ρ, whatever the rounds spent, composed with the private edges and checked against
//! the budget asked.

use super::compress::Compression;
use super::graphical::GraphicalModel;
use super::junction::model_cells;
use super::marginals::Tally;
use super::measure::MeasuredMarginal;
use super::model::{FitSummary, Measured};
use crate::error::{Error, Result};
use crate::maximize::exponential_units;
use crate::noise::{CountNoise, SecureRng};
use crate::numeric::round::{div_down, div_up, mul_up, nudge_down};
use crate::privacy::compose::{Accountant, ComposeOptions, rho_for};
use crate::privacy::{Delta, Epsilon, Guarantee, PrivacyCost};
use serde::Serialize;

/// The share of each round's budget that goes to the measurement (AIM's α = 0.9); the rest
/// pays for the selection.
const MEASURE_SHARE: f64 = 0.9;

/// The grid (in counts) the model's counts are rounded to, so that every score is an exact
/// integer number of grid steps.
pub const GRID_STEPS: f64 = 1024.0;

/// The default cap on the model's size, in cells of its junction tree: AIM's 80 MB of
/// doubles.
pub const DEFAULT_MAX_CELLS: u64 = 10_000_000;

/// The default mirror-descent iterations of the refit in each round (warm-started).
pub const DEFAULT_ROUND_ITERATIONS: usize = 100;

/// The 1-ways' default share of ρ: a third, as MST gives them. AIM measures them like one
/// round of 16·d (about 6 % of ρ on every column together), which starves wide tables: the
/// numeric columns' shapes and the compression of rare values come from the 1-ways, and on
/// Landsat (37 columns, ε = 1) AIM's share gave a mean KS distance of 0.080 against MST's 0.055,
/// a third gives 0.055 with AUC 0.94 (MST 0.85) and leaves Adult unchanged (EXPERIMENTS.md,
/// "AIM on the engine").
pub const DEFAULT_ONES_SHARE: f64 = 1.0 / 3.0;

/// The options of AIM.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AimOptions {
    /// T, the number of rounds the initial noise is planned for; `None`: 16·d (AIM's).
    pub rounds: Option<usize>,
    /// The largest model (cells of its junction tree) a round may grow to.
    pub max_cells: u64,
    /// Mirror-descent iterations of each round's refit.
    pub round_iterations: usize,
    /// The target column: the workload holds every 3-way marginal that contains it.
    pub target: Option<usize>,
    /// The share of ρ the d 1-way marginals get, in (0, 1); `None`: AIM's (each measured
    /// like one round). Default [`DEFAULT_ONES_SHARE`].
    pub ones_share: Option<f64>,
}

impl Default for AimOptions {
    fn default() -> Self {
        Self {
            rounds: None,
            max_cells: DEFAULT_MAX_CELLS,
            round_iterations: DEFAULT_ROUND_ITERATIONS,
            target: None,
            ones_share: Some(DEFAULT_ONES_SHARE),
        }
    }
}

/// A workload: the marginals the synthetic table should preserve, with weights.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Workload {
    /// Each marginal's sorted columns and its weight.
    pub cliques: Vec<(Vec<usize>, u64)>,
}

impl Workload {
    /// Every 2-way marginal of d columns, plus every 3-way marginal that contains `target`
    /// (weight 1 each).
    pub fn pairs_and_target(d: usize, target: Option<usize>) -> Self {
        let mut cliques = Vec::new();
        for i in 0..d {
            for j in i + 1..d {
                cliques.push((vec![i, j], 1));
            }
        }
        if let Some(t) = target.filter(|&t| t < d) {
            let others: Vec<usize> = (0..d).filter(|&c| c != t).collect();
            for (a, &i) in others.iter().enumerate() {
                for &j in &others[a + 1..] {
                    let mut c = vec![i, j, t];
                    c.sort_unstable();
                    cliques.push((c, 1));
                }
            }
        }
        Self { cliques }
    }

    /// AIM's candidates: every non-empty subset of a workload marginal, weighted by
    /// w_r = Σ_s c_s·|r ∩ s| over the workload's marginals s with weights c_s (so a marginal
    /// that overlaps much of the workload counts more), in a fixed order.
    pub fn candidates(&self) -> Vec<(Vec<usize>, u64)> {
        let mut all = std::collections::BTreeSet::new();
        for (c, _) in &self.cliques {
            let k = c.len();
            for mask in 1u32..(1 << k) {
                let sub: Vec<usize> = (0..k)
                    .filter(|b| mask >> b & 1 == 1)
                    .map(|b| c[b])
                    .collect();
                all.insert((sub.len(), sub));
            }
        }
        all.into_iter()
            .map(|(_, r)| {
                let w = self
                    .cliques
                    .iter()
                    .map(|(s, c)| c * r.iter().filter(|x| s.contains(x)).count() as u64)
                    .sum();
                (r, w)
            })
            .collect()
    }
}

/// The budget of AIM's rounds, fixed from public quantities before any record is read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AimBudget {
    /// The zCDP budget of the 1-ways and the rounds (what the private edges leave).
    pub rho: f64,
    /// T, the rounds the initial noise is planned for.
    pub rounds: usize,
    /// The noise variance of each 1-way marginal.
    pub ones_variance: f64,
    /// σ₀², the initial noise variance of a round's measurement.
    pub variance: f64,
    /// The initial ε of a selection.
    pub epsilon: f64,
}

impl AimBudget {
    /// AIM's initial split of ρ over T rounds for d columns: σ₀² = T/(α·ρ′) (replace-one:
    /// a measurement costs 1/σ², so T of them cost αρ′) and ε₀ = √(8(1 − α)ρ′/T) (T
    /// selections cost (1 − α)ρ′), with ρ′ = ρ and the 1-ways measured like a round (AIM's),
    /// or with the 1-ways given the share s of ρ (σ₁² = d/(sρ)) and ρ′ what they leave.
    ///
    /// # Errors
    /// A budget that is not positive and finite, T = 0, or a share outside (0, 1).
    pub fn new(rho: f64, rounds: usize, columns: usize, ones_share: Option<f64>) -> Result<Self> {
        if !(rho.is_finite() && rho > 0.0) || rounds == 0 {
            return Err(Error::param(
                "epsilon",
                format!("AIM needs a positive budget and rounds (ρ = {rho}, T = {rounds})"),
            ));
        }
        let t = rounds as f64;
        let split = |rest: f64| {
            (
                div_up(t, mul_up_down(MEASURE_SHARE, rest)),
                nudge_down(div_down(8.0 * (1.0 - MEASURE_SHARE) * rest, t).sqrt(), 2),
            )
        };
        match ones_share {
            None => {
                let (variance, epsilon) = split(rho);
                Ok(Self {
                    rho,
                    rounds,
                    ones_variance: variance,
                    variance,
                    epsilon,
                })
            }
            Some(s) if s > 0.0 && s < 1.0 => {
                let ones_variance = div_up(columns as f64, nudge_down(s * rho, 1));
                let rest = nudge_down(rho - mul_up(columns as f64, div_up(1.0, ones_variance)), 2);
                let (variance, epsilon) = split(rest);
                Ok(Self {
                    rho,
                    rounds,
                    ones_variance,
                    variance,
                    epsilon,
                })
            }
            Some(s) => Err(Error::param(
                "ones_share",
                format!("must be in (0, 1), got {s}"),
            )),
        }
    }
}

/// α·ρ rounded down.
fn mul_up_down(a: f64, b: f64) -> f64 {
    nudge_down(a * b, 1)
}

/// What a round costs: a measurement at σ² (1/σ²) and a selection at ε (ε²/8), rounded up.
fn round_cost(variance: f64, epsilon: f64) -> f64 {
    crate::numeric::round::add_up(div_up(1.0, variance), div_up(mul_up(epsilon, epsilon), 8.0))
}

/// What AIM did: released rounds and the calls its guarantee composes.
#[derive(Debug, Clone, PartialEq)]
pub struct AimRun {
    /// The initial budget.
    pub budget: AimBudget,
    /// Every measurement, in order (the d 1-ways first).
    pub rounds: Vec<MeasuredMarginal>,
    /// What the 1-ways and rounds are charged: one ρ-zCDP call, the filter's bound (without
    /// the private edges).
    pub calls: Vec<(PrivacyCost, u64)>,
    /// The fitted model, on the compressed domain.
    pub model: GraphicalModel,
    /// Which rare values were merged.
    pub compression: Compression,
    /// How the final fit went.
    pub fit: FitSummary,
}

/// The zCDP budget (ε, δ) buys, less the `edges` share.
///
/// # Errors
/// δ = 0 (AIM measures with Gaussian noise).
pub fn rho_of(epsilon: Epsilon, delta: Delta) -> Result<f64> {
    if delta.get() == 0.0 {
        return Err(Error::param(
            "method",
            "AIM measures with Gaussian noise and needs δ > 0 (give a delta, or use --method mst)",
        ));
    }
    rho_for(epsilon.get(), delta.get())
}

/// What AIM's rounds get: the private edges' calls (as MST's `plan` prices them) and the zCDP
/// budget (ε, δ) buys less the edges', rounded down.
///
/// # Errors
/// As [`rho_of`].
pub fn edges_and_rest(
    plan: &super::Plan,
    epsilon: Epsilon,
    delta: Delta,
) -> Result<(Vec<(PrivacyCost, u64)>, f64)> {
    let total = rho_of(epsilon, delta)?;
    Ok(match plan.edges {
        Some(e @ crate::histogram::EdgeBudget::Zcdp { rho }) => {
            let k = plan.edge_columns;
            let edge_rho = mul_up(rho, k as f64);
            (vec![(e.cost()?, k)], nudge_down(total - edge_rho, 4))
        }
        _ => (Vec::new(), nudge_down(total, 4)),
    })
}

/// The model's counts on `clique` rounded to the grid, as integers (grid steps).
fn grid_counts(model: &GraphicalModel, clique: &[usize], n: f64) -> Vec<i128> {
    model
        .marginal(clique)
        .iter()
        .map(|&p| (p * n * GRID_STEPS).round() as i128)
        .collect()
}

/// AIM's bias-corrected score of a candidate, in integer grid steps of 2⁻¹⁰ counts:
/// w·(Σ|1024·x − m| − round(1024·√(2/π)·σ·cells)), for its exact counts `answer`, the
/// model's counts `model` already on the grid ([`GRID_STEPS`] per count, rounded: public),
/// its weight w and the next measurement's σ. Between replace-one neighbours two counts of
/// `answer` move by one, so the score moves by at most 2·1024·w ([`sensitivity`]).
pub fn score(answer: &[u64], model: &[i128], weight: u64, sigma: f64) -> i128 {
    let error: i128 = answer
        .iter()
        .zip(model)
        .map(|(&x, &y)| (i128::from(x) * GRID_STEPS as i128 - y).abs())
        .sum();
    let bias = ((2.0 / std::f64::consts::PI).sqrt() * sigma * answer.len() as f64 * GRID_STEPS)
        .round() as i128;
    i128::from(weight) * (error - bias)
}

/// The scores' sensitivity for replace-one neighbours when the largest weight is `w_max`:
/// 2·1024·w_max grid steps (AIM's add/remove one is half).
pub fn sensitivity(w_max: u64) -> u128 {
    2 * GRID_STEPS as u128 * u128::from(w_max.max(1))
}

/// ‖a − b‖₁ of two count vectors.
fn l1(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum()
}

/// Runs AIM on the table `tally` counts with the zCDP budget `rho` (see the
/// [module docs](self)); `edge_calls` are the private edges' calls, composed into the
/// guarantee checked against (`epsilon`, `delta`).
///
/// # Errors
/// Fewer than 2 records or columns; a budget too small; the mechanisms' errors; a tally
/// that cannot count a candidate.
#[allow(clippy::too_many_arguments)]
pub fn run<T: Tally>(
    mut tally: T,
    rho: f64,
    options: &AimOptions,
    iterations: usize,
    edge_calls: &[(PrivacyCost, u64)],
    epsilon: Epsilon,
    delta: Delta,
    rng: &mut SecureRng,
) -> Result<(AimRun, Guarantee)> {
    let sizes0 = tally.sizes().to_vec();
    let d = sizes0.len();
    let n = tally.rows() as f64;
    let budget = AimBudget::new(rho, options.rounds.unwrap_or(16 * d), d, options.ones_share)?;
    // The 1-ways.
    let ones_variance = budget.ones_variance;
    let mut sigma2 = budget.variance;
    let mut eps = budget.epsilon;
    let first = CountNoise::Gaussian {
        variance: ones_variance,
    };
    let exact = tally.ones()?;
    let noisy: Vec<Vec<f64>> = exact
        .iter()
        .map(|one| first.measure(one, rng))
        .collect::<Result<_>>()?;
    drop(exact);
    let mut used = mul_up(d as f64, div_up(1.0, ones_variance));
    if used > rho {
        return Err(Error::param(
            "epsilon",
            format!("the budget does not pay for the {d} columns' 1-way marginals"),
        ));
    }
    let compression = Compression::from_noisy(&noisy, ones_variance.sqrt());
    let sizes = compression.sizes().to_vec();
    let mut measurements: Vec<(Vec<usize>, Measured)> = noisy
        .iter()
        .enumerate()
        .map(|(i, y)| (vec![i], compression.measured_one(i, y, ones_variance)))
        .collect();
    let mut rounds: Vec<MeasuredMarginal> = measurements
        .iter()
        .map(|(c, m)| MeasuredMarginal {
            columns: c.clone(),
            noise: CountNoise::Gaussian {
                variance: ones_variance,
            },
            selection_epsilon: None,
            counts: m.counts.clone(),
        })
        .collect();
    // The candidates that could ever fit, and their exact counts on the compressed domain.
    let cells_of = |c: &[usize]| c.iter().map(|&i| sizes[i] as u128).product::<u128>();
    let candidates: Vec<(Vec<usize>, u64)> =
        Workload::pairs_and_target(d, options.target.filter(|&t| t < d))
            .candidates()
            .into_iter()
            .filter(|(c, _)| cells_of(c) <= u128::from(options.max_cells))
            .collect();
    let cliques: Vec<Vec<usize>> = candidates.iter().map(|(c, _)| c.clone()).collect();
    let answers: Vec<Vec<u64>> = tally.counts(&compression, &cliques)?;
    let sensitivity = sensitivity(candidates.iter().map(|(_, w)| *w).max().unwrap_or(1));
    let (mut model, _) =
        GraphicalModel::fit(&sizes, &measurements, n, options.round_iterations, None)?;
    let mut last = false;
    while !last {
        // What is left, rounded down: the rounds never pass ρ, not even by a rounding.
        let left = crate::numeric::round::sub_down(rho, used);
        if left < 2.0 * round_cost(sigma2, eps) {
            // Spend exactly what is left (rounded so that the round costs at most that).
            sigma2 = div_up(1.0, nudge_down(MEASURE_SHARE * left, 2));
            eps = nudge_down((8.0 * (1.0 - MEASURE_SHARE) * left).sqrt(), 4);
            last = true;
        }
        let cost = round_cost(sigma2, eps);
        if !(cost <= left && eps > 0.0 && sigma2.is_finite()) {
            break;
        }
        used = crate::numeric::round::add_up(used, cost);
        // Eligible: inside the model already, or a model with it within the size the budget
        // spent so far allows.
        let limit = options.max_cells as f64 * (used / rho);
        let current: Vec<Vec<usize>> = model.tree().cliques().to_vec();
        let sigma = sigma2.sqrt();
        let mut eligible = Vec::new();
        let mut scores = Vec::new();
        for (k, (r, w)) in candidates.iter().enumerate() {
            let free = current.iter().any(|c| r.iter().all(|x| c.contains(x)));
            if !free {
                let mut with: Vec<Vec<usize>> = current.clone();
                with.push(r.clone());
                if model_cells(&sizes, &with)? as f64 > limit {
                    continue;
                }
            }
            eligible.push(k);
            scores.push(score(&answers[k], &grid_counts(&model, r, n), *w, sigma));
        }
        let pick = exponential_units(rng, &scores, Epsilon::new(eps)?, sensitivity)?;
        let k = eligible[pick];
        let r = candidates[k].0.clone();
        let y = CountNoise::Gaussian { variance: sigma2 }.measure(&answers[k], rng)?;
        let before: Vec<f64> = model.marginal(&r).iter().map(|p| p * n).collect();
        rounds.push(MeasuredMarginal {
            columns: r.clone(),
            noise: CountNoise::Gaussian { variance: sigma2 },
            selection_epsilon: Some(eps),
            counts: y.clone(),
        });
        measurements.push((r.clone(), Measured::uniform(y, sigma2)));
        model = GraphicalModel::fit(
            &sizes,
            &measurements,
            n,
            options.round_iterations,
            Some(&model),
        )?
        .0;
        let after: Vec<f64> = model.marginal(&r).iter().map(|p| p * n).collect();
        if l1(&after, &before) <= (2.0 / std::f64::consts::PI).sqrt() * sigma * cells_of(&r) as f64
        {
            sigma2 /= 4.0;
            eps *= 2.0;
        }
    }
    let (model, fit) = GraphicalModel::fit(&sizes, &measurements, n, iterations, Some(&model))?;
    // The rounds were stopped before their costs (rounded up) passed ρ on every transcript:
    // by the zCDP filter they are ρ-zCDP together, whatever the realised costs. The
    // guarantee is the filter's bound, never the realised sum (an odometer is not a filter).
    let calls = vec![(PrivacyCost::zcdp(rho)?, 1)];
    let mut accountant = Accountant::new();
    for &(c, k) in edge_calls.iter().chain(&calls) {
        accountant.record_many(c, k);
    }
    let guarantee = accountant
        .compose(delta, ComposeOptions::default())?
        .best
        .ok_or_else(|| Error::param("epsilon", "no composition rule applies to AIM"))?;
    if guarantee.epsilon > epsilon.get() || guarantee.delta > delta.get() {
        return Err(Error::param(
            "epsilon",
            format!(
                "AIM's budget composed to ε = {} above the {} asked",
                guarantee.epsilon,
                epsilon.get()
            ),
        ));
    }
    Ok((
        AimRun {
            budget,
            rounds,
            calls,
            model,
            compression,
            fit,
        },
        guarantee,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Codes;
    use crate::synth::CodedTable;

    /// n records of 4 columns: a, b uniform on 3 values, c = a (a 2-way dependence), and
    /// y = (a + b) mod 2 when a, b < 2, else 0 (a 3-way dependence the 2-ways of y barely
    /// show).
    fn table(n: u32) -> Vec<Codes> {
        let mut cols = vec![Codes::new(), Codes::new(), Codes::new(), Codes::new()];
        for r in 0..n {
            let (a, b) = (r % 3, (r / 3) % 3);
            let y = if a < 2 && b < 2 { (a + b) % 2 } else { 0 };
            for (c, v) in cols.iter_mut().zip([a, b, a, y]) {
                c.push(v);
            }
        }
        cols
    }

    fn run_on(cols: &[Codes], rho: f64, target: Option<usize>, seed: u64) -> AimRun {
        run_with(cols, rho, target, Some(DEFAULT_ONES_SHARE), seed)
    }

    fn run_with(
        cols: &[Codes],
        rho: f64,
        target: Option<usize>,
        ones_share: Option<f64>,
        seed: u64,
    ) -> AimRun {
        let tally = CodedTable::new(cols.iter().collect(), &[3, 3, 3, 2], cols[0].len()).unwrap();
        let options = AimOptions {
            target,
            ones_share,
            ..AimOptions::default()
        };
        let mut rng = SecureRng::insecure_from_seed(seed);
        run(
            tally,
            rho,
            &options,
            300,
            &[],
            Epsilon::new(1000.0).unwrap(),
            Delta::new(1e-6).unwrap(),
            &mut rng,
        )
        .unwrap()
        .0
    }

    /// What the run's measurements and selections cost (replace-one): Σ 1/σ² + Σ ε²/8.
    fn spent(run: &AimRun) -> f64 {
        run.rounds
            .iter()
            .map(|m| 1.0 / m.noise.variance() + m.selection_epsilon.map_or(0.0, |e| e * e / 8.0))
            .sum()
    }

    #[test]
    fn aim_never_spends_more_than_its_budget_and_leaves_little() {
        // Over budgets and seeds, the realised costs stay within ρ (the filter's condition on
        // every transcript) and the last round takes what is left; large budgets anneal.
        let cols = table(3000);
        for (rho, seed, share) in [
            (0.01, 1, Some(DEFAULT_ONES_SHARE)),
            (0.1, 2, None),
            (1.0, 3, Some(DEFAULT_ONES_SHARE)),
            (10.0, 4, None),
            (10.0, 5, Some(0.5)),
        ] {
            let run = run_with(&cols, rho, Some(3), share, seed);
            let s = spent(&run);
            assert!(s <= rho, "ρ = {rho}: spent {s}");
            assert!(s >= 0.98 * rho, "ρ = {rho}: spent only {s}");
            assert_eq!(run.calls.len(), 1);
            assert!(run.rounds.len() > 4, "{:?}", run.rounds);
            // The 1-ways cost what their share says.
            let ones: f64 = run.rounds[..4]
                .iter()
                .map(|m| 1.0 / m.noise.variance())
                .sum();
            let expected = share.unwrap_or(4.0 / (16.0 * 4.0) * MEASURE_SHARE);
            assert!((ones / rho - expected).abs() < 1e-6, "{ones} {expected}");
            if rho >= 1.0 {
                let first = run.rounds[4].noise.variance();
                assert!(
                    run.rounds.iter().any(|m| m.noise.variance() < first / 3.0),
                    "no annealing at ρ = {rho}"
                );
            }
        }
    }

    #[test]
    fn aim_measures_the_three_way_dependence_of_its_target() {
        // With the target, the workload holds {a, b, y}: a large budget measures it (or a
        // superset of its cliques) and the model reproduces y's parity within a few percent.
        let cols = table(6000);
        let run = run_on(&cols, 5.0, Some(3), 7);
        let p = run.model.marginal(&[0, 1, 3]);
        // Among a, b < 2, y = (a + b) mod 2: the probability of the wrong parity is small.
        let wrong: f64 = (0..2)
            .flat_map(|a| (0..2).map(move |b| (a, b)))
            .map(|(a, b)| p[(a * 3 + b) * 2 + (1 - (a + b) % 2)])
            .sum();
        assert!(wrong < 0.02, "{wrong}: {:?}", run.rounds);
        // The dependent pair (a, c) is inside the model too.
        let ac = run.model.marginal(&[0, 2]);
        let diagonal: f64 = (0..3).map(|v| ac[v * 3 + v]).sum();
        assert!(diagonal > 0.95, "{ac:?}");
    }

    #[test]
    fn the_workload_weighs_candidates_by_their_overlap() {
        let w = Workload::pairs_and_target(3, Some(2));
        assert_eq!(w.cliques.len(), 3 + 1);
        let c = w.candidates();
        // 3 singles, 3 pairs, 1 triple.
        assert_eq!(c.len(), 7);
        let weight = |r: &[usize]| c.iter().find(|(x, _)| x == r).unwrap().1;
        // {0,1,2} overlaps each pair in 2 and itself in 3.
        assert_eq!(weight(&[0, 1, 2]), 2 + 2 + 2 + 3);
        assert_eq!(weight(&[0]), 1 + 1 + 1);
        assert_eq!(sensitivity(weight(&[0, 1, 2])), 2 * 1024 * 9);
        assert!(AimBudget::new(0.0, 4, 3, None).is_err());
        assert!(AimBudget::new(1.0, 4, 3, Some(1.0)).is_err());
        let b = AimBudget::new(1.0, 10, 3, None).unwrap();
        assert!(10.0 / b.variance <= 0.9 && 10.0 * b.epsilon * b.epsilon / 8.0 <= 0.1);
    }

    #[test]
    fn a_cluster_tally_counts_two_ways_and_refuses_three() {
        let cols = table(600);
        let refs: Vec<&Codes> = cols.iter().collect();
        let m = crate::synth::Marginals::count(&refs, &[3, 3, 3, 2], 600).unwrap();
        let compression = Compression::from_noisy(
            &[
                vec![200.0; 3],
                vec![200.0; 3],
                vec![200.0; 3],
                vec![300.0; 2],
            ],
            1.0,
        );
        let two = m
            .clone()
            .counts(&compression, &[vec![0, 2], vec![3]])
            .unwrap();
        assert_eq!(two[0], vec![200, 0, 0, 0, 200, 0, 0, 0, 200]);
        let table = CodedTable::new(refs, &[3, 3, 3, 2], 600).unwrap();
        assert_eq!(
            table.counts(&compression, &[vec![0, 2]]).unwrap()[0],
            two[0]
        );
        let e = m.counts(&compression, &[vec![0, 1, 3]]).unwrap_err();
        assert!(e.to_string().contains("one process"), "{e}");
    }
}
