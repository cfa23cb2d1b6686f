//! Choosing k and γ when the user does not (Vinterbo 2012, Sections 2.3.1 and 2.3.2).
//!
//! Everything here is computed from **public** quantities only — n, the number of predictors
//! d − 1, the number of target classes q, k — and from simulated data drawn with a *seeded*
//! generator. No private record is touched, so nothing here costs privacy, and the results
//! are reproducible.

use super::bin_rule::bin_count;
use super::bins::Bins;
use super::discretized::{Discretized, Domain};
use super::privatekd::mda;
use crate::data::Codes;
use crate::error::{Error, Result};
use crate::noise::SecureRng;
use crate::noise::bernoulli::uniform_below;
use crate::noise::continuous::standard_normal;
use crate::objective::Discernibility;
use serde::Serialize;

/// The paper's tuning constant B = ½ of the projection budget formula.
pub const DEFAULT_B: f64 = 0.5;
/// The tolerated fraction l = 0.05 of target-discerning pairs lost to privacy.
pub const DEFAULT_L: f64 = 0.05;
/// The target probability p = 0.95 that a record's cell survives the threshold. The paper
/// leaves p unspecified; 0.95 is the default of the author's R package `pph`
/// (`gamma(data, p = 0.95, tau = 0.05, B = 0.5)`).
pub const DEFAULT_P: f64 = 0.95;
/// Normal samples used to estimate the bin masses pᵢ.
pub const DEFAULT_SAMPLES: usize = 100_000;
/// Seed of the simulations (public data only; any fixed value will do).
pub const DEFAULT_SEED: u64 = 0x5eed_2012;

/// ε_p = n·B·k²·ln(d − 1)/(l·π̂(q)) with π̂(q) = n²(q − 1)/(2q), the projection budget at
/// which PRIVATEKD loses at most a fraction l of the discernible pairs (Section 2.3.2,
/// "Determining ε_p"; `predictors` = d − 1).
///
/// ```
/// use disguise::histogram::epsilon_p_required;
/// // n = 1000, k = 2, 9 predictors, q = 2, B = ½, l = 0.05:
/// // π̂ = 10⁶·1/4 = 250000; ε_p = 1000·0.5·4·ln 9/(0.05·250000) = 0.35156…
/// let e = epsilon_p_required(1000, 2, 9, 2, 0.5, 0.05)?;
/// assert!((e - 2000.0 * 9f64.ln() / 12500.0).abs() < 1e-12);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] for n < 2, k = 0, no predictor, q < 2, or B, l not finite
/// and > 0.
pub fn epsilon_p_required(
    n: u64,
    k: usize,
    predictors: usize,
    q: usize,
    b: f64,
    l: f64,
) -> Result<f64> {
    if n < 2 || k == 0 || predictors == 0 || q < 2 {
        return Err(Error::param(
            "epsilon_p",
            format!(
                "needs n ≥ 2, k ≥ 1, d − 1 ≥ 1, q ≥ 2 (got n = {n}, k = {k}, d − 1 = {predictors}, q = {q})"
            ),
        ));
    }
    positive("B", b)?;
    positive("l", l)?;
    let n = n as f64;
    let qf = q as f64;
    let pi_hat = n * n * (qf - 1.0) / (2.0 * qf);
    let k = k as f64;
    Ok(n * b * k * k * (predictors as f64).ln() / (l * pi_hat))
}

/// ε_h = max((A·ln n − 2·ln(1/(2p)))/z, (A·ln n − 2·ln(2 − 2p))/z): the histogram budget at
/// which a cell holding z records survives the threshold with probability ≥ p (Section
/// 2.3.2, "Determining ε_h", from equation (5)). Clamped at 0 (a negative value means any ε
/// achieves p).
///
/// The two terms are the two cases of equation (5) (τ > z and τ ≤ z). Since
/// 2p·(2 − 2p) = 4p(1 − p) ≤ 1, the second is never smaller than the first, so the maximum
/// is always (A·ln n − 2·ln(2 − 2p))/z; we keep the paper's formula as written.
///
/// ```
/// use disguise::histogram::epsilon_h_required;
/// // n = 1000, z = 50, p = 0.95, A = ½: ln n·½ = 3.4539, −2 ln 0.1 = 4.6052
/// // → max(3.4539 + 2 ln 1.9, 3.4539 + 4.6052)/50 = 8.0590/50 = 0.161181.
/// let e = epsilon_h_required(1000, 50.0, 0.95, 0.5)?;
/// assert!((e - 0.161_181).abs() < 1e-6);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] for n < 1, z not finite and > 0, p ∉ (0, 1), A not finite
/// and ≥ 0.
pub fn epsilon_h_required(n: u64, z: f64, p: f64, a: f64) -> Result<f64> {
    if n == 0 {
        return Err(Error::param("n", "needs at least one record"));
    }
    positive("z", z)?;
    if !(p > 0.0 && p < 1.0) {
        return Err(Error::param("p", format!("must be in (0, 1), got {p}")));
    }
    if !(a.is_finite() && a >= 0.0) {
        return Err(Error::param(
            "A",
            format!("must be finite and ≥ 0, got {a}"),
        ));
    }
    let base = a * (n as f64).ln();
    let first = (base - 2.0 * (1.0 / (2.0 * p)).ln()) / z;
    let second = (base - 2.0 * (2.0 - 2.0 * p).ln()) / z;
    Ok(first.max(second).max(0.0))
}

/// γ = ε_h/(ε_h + ε_p) (equation (11)): the share of ε spent on the histogram. 1 when
/// ε_p = 0 (nothing to spend on the projection).
///
/// # Errors
/// [`Error::InvalidParameter`] for negative or non-finite inputs, or ε_h = 0 < ε_p (γ = 0
/// would leave nothing for the histogram).
pub fn gamma_from(epsilon_h: f64, epsilon_p: f64) -> Result<f64> {
    if !(epsilon_h.is_finite() && epsilon_h >= 0.0 && epsilon_p.is_finite() && epsilon_p >= 0.0) {
        return Err(Error::param(
            "gamma",
            format!("needs finite ε_h, ε_p ≥ 0, got {epsilon_h}, {epsilon_p}"),
        ));
    }
    if epsilon_p == 0.0 {
        return Ok(1.0);
    }
    if epsilon_h == 0.0 {
        return Err(Error::param(
            "gamma",
            "the estimate gives the histogram no budget (ε_h = 0); give γ explicitly",
        ));
    }
    Ok(epsilon_h / (epsilon_h + epsilon_p))
}

/// `samples` standard normal values scaled into [0, 1] by their own minimum and maximum
/// and cut into `bins` equal bins.
fn simulated_bins(rng: &mut SecureRng, samples: usize, bins: usize) -> Codes {
    // Two passes over the same random stream (a copy of the generator for the first), so
    // that the samples need not be held: the first finds their minimum and maximum, the
    // second bins them. The draws, and so the codes, are those of a single pass.
    let mut first = rng.clone();
    let (lo, hi) = (0..samples)
        .map(|_| standard_normal(&mut first))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
    // Compact codes (a byte each for up to 256 bins): the simulated table is as large as
    // the real one.
    let mut codes = Codes::for_arity(bins as u64, samples);
    match Bins::new(lo, hi, bins) {
        Ok(b) => (0..samples).for_each(|_| codes.push(b.index(standard_normal(rng)) as u32)),
        Err(_) => (0..samples).for_each(|_| {
            standard_normal(rng); // a single sample: lo = hi
            codes.push(0);
        }),
    }
    codes
}

/// The estimated bin masses p̂ᵢ = |cᵢ|/N of `bins` equal bins over N standard normal samples
/// scaled into [0, 1] by their minimum and maximum (Section 2.3.2), from a generator seeded
/// with `seed`.
///
/// # Errors
/// [`Error::InvalidParameter`] for bins = 0 or samples < 2.
pub fn bin_masses(bins: usize, samples: usize, seed: u64) -> Result<Vec<f64>> {
    if bins == 0 || samples < 2 {
        return Err(Error::param(
            "bin_masses",
            format!("needs bins ≥ 1 and samples ≥ 2, got {bins}, {samples}"),
        ));
    }
    let mut rng = SecureRng::insecure_from_seed(seed);
    let mut counts = vec![0u64; bins];
    for b in &simulated_bins(&mut rng, samples, bins) {
        counts[b as usize] += 1;
    }
    Ok(counts.iter().map(|&c| c as f64 / samples as f64).collect())
}

/// z = p_x·n/q with p_x = (Σ pᵢ²)^k: the expected size of a record's cell when k independent
/// predictors have bin masses pᵢ and the q targets are uniform (Section 2.3.2).
///
/// ```
/// use disguise::histogram::class_size;
/// // Two equal bins: Σpᵢ² = ½; k = 3, n = 1000, q = 2: z = 1000/8/2 = 62.5.
/// assert_eq!(class_size(1000, 2, 3, &[0.5, 0.5]), 62.5);
/// ```
pub fn class_size(n: u64, q: usize, k: usize, masses: &[f64]) -> f64 {
    let collision: f64 = masses.iter().map(|p| p * p).sum();
    collision.powi(k as i32) * n as f64 / q as f64
}

/// The most the [`GammaRule::Balanced`] rule gives the histogram, as a multiple of what it
/// needs for its cell space ([`GammaEstimate::epsilon_h_cells`]).
pub const HISTOGRAM_CAP: f64 = 10.0;

/// How an estimated γ splits ε between the projection and the histogram. Every rule is a
/// function of ε and of the needs of [`estimate_gamma`], which uses public quantities only:
/// choosing the split costs no privacy, whatever the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GammaRule {
    /// **Beyond the paper, the default**: ε_p : ε_h = √need_p : √need_h, the histogram's
    /// share capped at [`HISTOGRAM_CAP`]` = 10` times its need:
    ///
    /// γ = min(√h/(√h + √e_p), 10·h/ε), e_p = [`GammaEstimate::epsilon_p`] (the paper's
    /// projection need), h = [`GammaEstimate::epsilon_h_cells`] (the paper's histogram need
    /// for the release's public cell space).
    ///
    /// Why. The histogram's error (count noise of scale 2/ε_h, threshold τ = A·ln(n)/ε_h)
    /// falls as 1/ε_h, and the projection's, roughly, as 1/ε_p; with errors a/ε_p + b/ε_h the
    /// best split of a fixed ε is ε_p : ε_h = √a : √b, for every ε. The paper's equation (11)
    /// splits in the ratio a : b instead, and its histogram need h is computed for simulated
    /// predictors of s bins each, not for the levels the data's columns really have, so on
    /// Adult (16 educations, 15 occupations) it gives the histogram 16 % at every ε. The cap
    /// stops a histogram of a handful of cells, which needs little, from taking budget the
    /// projection can still use. Measured over Adult, car, splice, Landsat (4 bins) and Iris
    /// at ε ∈ {0.1, 1, 3}: EXPERIMENTS.md, "The budget split".
    #[default]
    Balanced,
    /// The paper's equation (11): γ = ε_h/(ε_h + ε_p), the whole ε split in the ratio of the
    /// two budgets the steps need. The experiments reproduce the paper with it.
    Paper,
    /// **Beyond the paper**: the projection gets the ε_p it needs and the histogram the rest,
    /// γ = 1 − ε_p/ε, when ε ≥ ε_p + ε_h; below that, the paper's ratio (the release's notes
    /// say so).
    Surplus,
}

impl crate::names::Named for GammaRule {
    const KIND: &'static str = "gamma rule";
    const ALL: &'static [Self] = &[GammaRule::Balanced, GammaRule::Paper, GammaRule::Surplus];

    fn name(self) -> &'static str {
        match self {
            GammaRule::Balanced => "balanced",
            GammaRule::Paper => "paper",
            GammaRule::Surplus => "surplus",
        }
    }

    fn help(self) -> &'static str {
        match self {
            GammaRule::Balanced => {
                "ε_p : ε_h = √(projection need) : √(histogram need for its cells), the histogram \
                 at most 10 times its need (default)"
            }
            GammaRule::Paper => "γ = ε_h/(ε_h + ε_p), Vinterbo's equation (11)",
            GammaRule::Surplus => {
                "the projection gets the ε_p it needs, the histogram the rest (the paper's ratio \
                 when ε is below both needs)"
            }
        }
    }
}

crate::names::named_traits!(GammaRule);

/// The split a [`GammaRule`] gives: γ, and what the release's notes should say about it.
#[derive(Debug, Clone, PartialEq)]
pub struct GammaSplit {
    /// γ ∈ (0, 1], the histogram's share of ε.
    pub gamma: f64,
    /// How the rule arrived at γ, for the release's notes: a cap that bound, or a fallback
    /// to the paper's ratio (never silent).
    pub note: Option<String>,
}

impl GammaRule {
    /// γ for total budget `epsilon` from the needed budgets of `estimate`.
    ///
    /// ```
    /// use disguise::histogram::{GammaEstimate, GammaRule};
    /// let est = GammaEstimate {
    ///     gamma: 0.2, epsilon_p: 0.04, epsilon_h: 0.01, z: 100.0, bins: 2,
    ///     cells: 960.0, epsilon_h_cells: 0.16,
    /// };
    /// // √0.16/(√0.16 + √0.04) = 0.4/0.6: the histogram gets two thirds.
    /// assert!((GammaRule::Balanced.gamma(1.0, &est) - 2.0 / 3.0).abs() < 1e-12);
    /// // At ε = 3 the cap binds: the histogram gets 10 · 0.16 = 1.6 of 3.
    /// assert!((GammaRule::Balanced.gamma(3.0, &est) - 1.6 / 3.0).abs() < 1e-12);
    /// assert_eq!(GammaRule::Paper.gamma(1.0, &est), 0.2);
    /// assert!((GammaRule::Surplus.gamma(1.0, &est) - 0.96).abs() < 1e-12);
    /// ```
    pub fn gamma(self, epsilon: f64, estimate: &GammaEstimate) -> f64 {
        self.split(epsilon, estimate).gamma
    }

    /// [`GammaRule::gamma`] and what the release's notes say about it.
    pub fn split(self, epsilon: f64, estimate: &GammaEstimate) -> GammaSplit {
        let (need_p, need_h) = (estimate.epsilon_p, estimate.epsilon_h);
        let digits = |x: f64| crate::numeric::display::sig(x, 3);
        match self {
            // Nothing to project (k = d − 1): the whole ε goes to the histogram.
            _ if need_p == 0.0 => GammaSplit {
                gamma: 1.0,
                note: None,
            },
            GammaRule::Balanced => {
                let (p, h) = (need_p.sqrt(), estimate.epsilon_h_cells.sqrt());
                let share = h / (h + p);
                let cap = HISTOGRAM_CAP * estimate.epsilon_h_cells / epsilon;
                let gamma = share.min(cap);
                if gamma > 0.0 {
                    GammaSplit { gamma, note: None }
                } else {
                    // A histogram need of 0 (p ≤ ½ makes the formula's bound vacuous).
                    GammaSplit {
                        gamma: estimate.gamma,
                        note: Some(
                            "the balanced γ rule finds the histogram needs nothing (p ≤ ½), so \
                             γ is the paper's ratio (as with --gamma-rule paper)"
                                .to_string(),
                        ),
                    }
                }
            }
            GammaRule::Surplus if epsilon >= need_p + need_h => GammaSplit {
                gamma: 1.0 - need_p / epsilon,
                note: None,
            },
            GammaRule::Surplus => GammaSplit {
                gamma: estimate.gamma,
                note: Some(format!(
                    "the surplus γ rule needs ε ≥ ε_p + ε_h = {}; ε = {epsilon} is below that, \
                     so γ is the paper's ratio (as with --gamma-rule paper)",
                    digits(need_p + need_h)
                )),
            },
            GammaRule::Paper => GammaSplit {
                gamma: estimate.gamma,
                note: None,
            },
        }
    }
}

/// Tuning constants of the γ estimate (defaults: the paper's and `pph`'s).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GammaParams {
    /// Threshold constant A (τ = A·ln(n)/ε).
    pub a: f64,
    /// Projection constant B.
    pub b: f64,
    /// Tolerated fraction l of pairs lost to privacy in the projection.
    pub l: f64,
    /// Target survival probability p of a record's cell.
    pub p: f64,
    /// Normal samples N for the bin masses.
    pub samples: usize,
    /// Seed of the simulation.
    pub seed: u64,
    /// The number of bins s of the simulated predictors: `None` (the default) for the
    /// paper's [`bin_count`]`(n, d − 1)`; set it when the data's numeric predictors are cut
    /// into a given number of bins instead (a schema's `bins = N`).
    pub bins: Option<usize>,
    /// How the estimate splits ε ([`GammaRule::Balanced`] by default).
    pub rule: GammaRule,
}

impl Default for GammaParams {
    fn default() -> Self {
        Self {
            a: super::sparse::DEFAULT_A,
            b: DEFAULT_B,
            l: DEFAULT_L,
            p: DEFAULT_P,
            samples: DEFAULT_SAMPLES,
            seed: DEFAULT_SEED,
            bins: None,
            rule: GammaRule::Balanced,
        }
    }
}

impl GammaParams {
    /// The number of bins s of the simulated predictors: [`GammaParams::bins`], else the
    /// paper's [`bin_count`]`(n, d − 1)`.
    ///
    /// # Errors
    /// As [`bin_count`].
    pub fn simulated_bins(&self, n: u64, predictors: usize) -> Result<usize> {
        self.bins.map_or_else(|| bin_count(n, predictors), Ok)
    }
}

/// The estimated γ and how it was obtained.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct GammaEstimate {
    /// γ = ε_h/(ε_h + ε_p).
    pub gamma: f64,
    /// The projection budget the formula asks for.
    pub epsilon_p: f64,
    /// The histogram budget the formula asks for.
    pub epsilon_h: f64,
    /// The estimated cell size z.
    pub z: f64,
    /// The number of bins s of the simulated predictors.
    pub bins: usize,
    /// m̂, the typical number of cells of a release: q·s^k for the simulated predictors, or
    /// q·G^k with G the geometric mean of the predictors' public domain sizes
    /// ([`GammaEstimate::with_domains`]).
    pub cells: f64,
    /// What the histogram needs for that space: [`epsilon_h_required`] with z = n/m̂, the
    /// mean count of a cell (the paper's formula, applied to the cells the release has).
    pub epsilon_h_cells: f64,
}

impl GammaEstimate {
    /// The estimate with the histogram's need for a release over predictors of these public
    /// domain sizes (levels, or bins of numeric columns) and q target classes: m̂ = q·G^k,
    /// G their geometric mean.
    ///
    /// ```
    /// use disguise::histogram::{GammaParams, estimate_gamma};
    /// // Two predictors of 4 and 16 levels (G = 8), k = 1, q = 2: m̂ = 16.
    /// let est = estimate_gamma(1000, 2, 2, 1, &GammaParams::default())?
    ///     .with_domains(1000, 2, 1, &[4, 16], &GammaParams::default())?;
    /// assert!((est.cells - 16.0).abs() < 1e-9);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for no predictor, a domain of size 0, or the errors of
    /// [`epsilon_h_required`].
    pub fn with_domains(
        mut self,
        n: u64,
        q: usize,
        k: usize,
        sizes: &[u64],
        params: &GammaParams,
    ) -> Result<Self> {
        if sizes.is_empty() || sizes.contains(&0) {
            return Err(Error::param(
                "domains",
                "needs at least one predictor, each with at least one value",
            ));
        }
        let mean_log = sizes.iter().map(|&s| (s as f64).ln()).sum::<f64>() / sizes.len() as f64;
        self.cells = q.max(1) as f64 * (mean_log * k as f64).exp();
        self.epsilon_h_cells = cells_need(n, self.cells, params)?;
        Ok(self)
    }
}

/// [`epsilon_h_required`] for a space of `cells` cells holding n records (z = n/cells).
fn cells_need(n: u64, cells: f64, params: &GammaParams) -> Result<f64> {
    epsilon_h_required(n, n as f64 / cells, params.p, params.a)
}

/// γ for n records, d − 1 = `predictors`, q target classes and projection size k (Section
/// 2.3.2): s = [`bin_count`]`(n, d − 1)` bins, bin masses from [`bin_masses`], z from
/// [`class_size`], then [`epsilon_p_required`], [`epsilon_h_required`] and [`gamma_from`].
///
/// When k ≥ d − 1 the projection keeps every predictor, needs no budget, and γ = 1.
///
/// # Errors
/// As the functions it calls.
pub fn estimate_gamma(
    n: u64,
    predictors: usize,
    q: usize,
    k: usize,
    params: &GammaParams,
) -> Result<GammaEstimate> {
    let bins = params.simulated_bins(n, predictors)?;
    let masses = bin_masses(bins, params.samples, params.seed)?;
    let z = class_size(n, q.max(1), k, &masses);
    let epsilon_h = epsilon_h_required(n, z, params.p, params.a)?;
    let epsilon_p = if k >= predictors {
        0.0
    } else {
        epsilon_p_required(n, k, predictors, q, params.b, params.l)?
    };
    let cells = q.max(1) as f64 * (bins as f64).powi(k as i32);
    Ok(GammaEstimate {
        gamma: gamma_from(epsilon_h, epsilon_p)?,
        epsilon_p,
        epsilon_h,
        z,
        bins,
        cells,
        epsilon_h_cells: cells_need(n, cells, params)?,
    })
}

/// The simulated dataset of Section 2.3.1: n records, the target uniform over q classes,
/// each of the d − 1 predictors an independent standard normal (independent of the target),
/// scaled into [0, 1] by its sample minimum and maximum and cut into [`bin_count`]`(n, d − 1)`
/// bins. Drawn from a generator seeded with `seed`.
///
/// *Our reading.* The paper writes "P(xᵢ = j | x_d) ∼ N(0, 1)"; we read it, consistently with
/// Section 2.3.2 ("predictors are independent given the target", "discretizing truncated
/// normally distributed i.i.d. random variables"), as every predictor being N(0, 1) whatever
/// the label, i.e. a space with no signal, where MDA measures how many attributes are
/// needed just to tell records apart.
///
/// # Errors
/// [`Error::InvalidParameter`] for n < 2, q = 0, no predictor, or n ≥ 2^32.
pub fn simulated_data(n: u64, predictors: usize, q: usize, seed: u64) -> Result<Discretized> {
    simulated_data_with(n, predictors, q, bin_count(n, predictors)?, seed)
}

/// [`simulated_data`] with every predictor cut into `bins` bins instead of the paper's
/// [`bin_count`]`(n, d − 1)` (for data whose numeric predictors have a given number of bins).
///
/// # Errors
/// As [`simulated_data`], and for `bins` = 0.
pub fn simulated_data_with(
    n: u64,
    predictors: usize,
    q: usize,
    bins: usize,
    seed: u64,
) -> Result<Discretized> {
    if q == 0 || predictors == 0 || n >= 1 << 32 {
        return Err(Error::param(
            "simulation",
            format!(
                "needs q ≥ 1, d − 1 ≥ 1 and n < 2^32 (got q = {q}, d − 1 = {predictors}, n = {n})"
            ),
        ));
    }
    let mut rng = SecureRng::insecure_from_seed(seed);
    let rows = n as usize;
    let mut names = Vec::with_capacity(predictors + 1);
    let mut domains = Vec::with_capacity(predictors + 1);
    let mut codes = Vec::with_capacity(predictors + 1);
    for i in 0..predictors {
        names.push(format!("x{}", i + 1));
        domains.push(Domain::Numeric {
            bins: Bins::new(0.0, 1.0, bins)?,
            missing: None,
        });
        codes.push(simulated_bins(&mut rng, rows, bins));
    }
    names.push("target".to_string());
    domains.push(Domain::Categorical {
        levels: (1..=q).map(|c| c.to_string()).collect(),
        missing: None,
    });
    let mut target = Codes::for_arity(q as u64, rows);
    for _ in 0..rows {
        target.push(uniform_below(&mut rng, q as u64) as u32);
    }
    codes.push(target);
    Discretized::from_compact(names, domains, codes)
}

/// k = |MDA(f, D′, σ)| on the simulated data of [`simulated_data`] (Section 2.3.1), at
/// least 1 and at most d − 1.
///
/// # Runtime
/// O(n·(d − 1)) to simulate plus one MDA run (O((d − 1)²·n) at worst).
///
/// # Errors
/// As [`simulated_data`] and [`mda`].
///
/// ```
/// use disguise::histogram::simulate_k;
/// // Adult's shape: n = 32561, 14 predictors, 2 classes. Two bins per predictor make
/// // F(S)/F(A) ≈ 1 − 2^−k, which reaches 0.9 at k = 4.
/// assert_eq!(simulate_k(32561, 14, 2, 0.1, 1)?, 4);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn simulate_k(n: u64, predictors: usize, q: usize, sigma: f64, seed: u64) -> Result<usize> {
    simulate_k_with(n, predictors, q, bin_count(n, predictors)?, sigma, seed)
}

/// [`simulate_k`] on predictors cut into `bins` bins ([`simulated_data_with`]).
///
/// # Errors
/// As [`simulate_k`], and for `bins` = 0.
pub fn simulate_k_with(
    n: u64,
    predictors: usize,
    q: usize,
    bins: usize,
    sigma: f64,
    seed: u64,
) -> Result<usize> {
    let data = simulated_data_with(n, predictors, q, bins, seed)?;
    let (objective, _) = super::privatekd::discernibility_for(&data, predictors)?;
    Ok(mda(&objective, sigma)?.elements.len().clamp(1, predictors))
}

/// k = |MDA(f, D′, σ)| on a public dataset D′ deemed close to the private one (Section
/// 2.3.1), at least 1.
///
/// # Errors
/// As [`mda`].
pub fn public_k(public: &Discernibility, sigma: f64) -> Result<usize> {
    use crate::objective::SetFunction;
    Ok(mda(public, sigma)?
        .elements
        .len()
        .clamp(1, public.ground_size().max(1)))
}

fn positive(name: &'static str, x: f64) -> Result<()> {
    if x.is_finite() && x > 0.0 {
        Ok(())
    } else {
        Err(Error::param(
            name,
            format!("must be finite and > 0, got {x}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_surplus_rule_gives_the_projection_what_it_needs_and_the_histogram_the_rest() {
        // Adult's shape (one training fold): the paper's γ is 0.159; the needs are tiny.
        let est = estimate_gamma(43_958, 14, 2, 4, &GammaParams::default()).unwrap();
        assert!((est.gamma - 0.159).abs() < 0.002, "{est:?}");
        assert!((est.epsilon_p - 0.0384).abs() < 0.0005, "{est:?}");
        let g = GammaRule::Surplus.gamma(1.0, &est);
        assert_eq!(g, 1.0 - est.epsilon_p);
        assert_eq!(GammaRule::Paper.gamma(1.0, &est), est.gamma);
        // Too small a budget for both needs: the paper's ratio.
        assert_eq!(GammaRule::Surplus.gamma(0.01, &est), est.gamma);
        // Iris's shape: the projection alone needs more than ε = 1.
        let iris = estimate_gamma(135, 4, 3, 3, &GammaParams::default()).unwrap();
        assert!(iris.epsilon_p > 1.0);
        assert_eq!(GammaRule::Surplus.gamma(1.0, &iris), iris.gamma);
    }

    #[test]
    fn the_balanced_rule_splits_by_square_roots_and_caps_the_histogram() {
        // Adult's shape (one training fold), with its public domains: 2 bins for the 6
        // numeric predictors, 9 workclasses, 16 educations, 7 marital statuses, 15
        // occupations, 6 relationships, 5 races, 2 sexes, 42 countries.
        let params = GammaParams::default();
        let sizes = [2, 9, 2, 16, 2, 7, 15, 6, 5, 2, 2, 2, 2, 42];
        let est = estimate_gamma(43_958, 14, 2, 4, &params)
            .unwrap()
            .with_domains(43_958, 2, 4, &sizes, &params)
            .unwrap();
        // G = (∏ sizes)^(1/14); m̂ = 2·G⁴ (by hand: Σ ln = 21.62, G = 4.68, m̂ = 960).
        let g = (sizes.iter().map(|&s| (s as f64).ln()).sum::<f64>() / 14.0).exp();
        assert!((est.cells - 2.0 * g.powi(4)).abs() < 1e-9 * est.cells);
        assert!((est.cells - 960.0).abs() < 5.0, "{est:?}");
        // h = (A ln n − 2 ln(2 − 2p))·m̂/n.
        let h = (0.5 * 43_958f64.ln() - 2.0 * 0.1f64.ln()) * est.cells / 43_958.0;
        assert!((est.epsilon_h_cells - h).abs() < 1e-12, "{est:?}");
        let share = h.sqrt() / (h.sqrt() + est.epsilon_p.sqrt());
        assert!((GammaRule::Balanced.gamma(1.0, &est) - share).abs() < 1e-12);
        assert!(share > 0.65 && share < 0.75, "{share}");
        // The same share at every ε until the histogram has 10 times its need.
        assert_eq!(
            GammaRule::Balanced.gamma(0.1, &est),
            GammaRule::Balanced.gamma(1.0, &est)
        );
        let big = 100.0;
        assert!((GammaRule::Balanced.gamma(big, &est) - 10.0 * h / big).abs() < 1e-12);
        // No note: the cap is the rule, not a fallback.
        assert_eq!(GammaRule::Balanced.split(big, &est).note, None);
        // A histogram that needs nothing cannot get γ = 0: the paper's ratio, said.
        let none = GammaEstimate {
            epsilon_h_cells: 0.0,
            ..est.clone()
        };
        let split = GammaRule::Balanced.split(1.0, &none);
        assert_eq!(split.gamma, est.gamma);
        assert!(split.note.unwrap().contains("paper's ratio"));
        // Nothing to project: everything to the histogram, whatever the rule.
        let all = GammaEstimate {
            epsilon_p: 0.0,
            ..est
        };
        for rule in [GammaRule::Balanced, GammaRule::Paper, GammaRule::Surplus] {
            assert_eq!(rule.gamma(1.0, &all), 1.0);
        }
    }

    #[test]
    fn the_surplus_fallback_is_said() {
        let iris = estimate_gamma(135, 4, 3, 3, &GammaParams::default()).unwrap();
        let split = GammaRule::Surplus.split(1.0, &iris);
        assert_eq!(split.gamma, iris.gamma);
        assert!(split.note.unwrap().contains("below that"));
        assert_eq!(GammaRule::Paper.split(1.0, &iris).note, None);
    }

    #[test]
    fn gamma_formula_by_hand() {
        // Adult-like: n = 32561, d − 1 = 14, q = 2, k = 4.
        // ln(d − 1) = ln 14 = 2.639057;
        // ε_p = n·0.5·16·2.639057/(0.05·n²/4) = 1689.0/n = 0.0518724.
        let n = 32561u64;
        let ep = epsilon_p_required(n, 4, 14, 2, 0.5, 0.05).unwrap();
        assert!((ep - 0.5 * 16.0 * 14f64.ln() * 4.0 / (0.05 * n as f64)).abs() < 1e-15);
        assert!((ep - 0.051_872).abs() < 1e-5);
        // Two bins with masses ½: z = n/16/2 = 1017.53; ε_h = (½ ln n − 2 ln 0.1)/z
        // = (5.19540 + 4.60517)/1017.53 = 0.0096318.
        let z = class_size(n, 2, 4, &[0.5, 0.5]);
        assert!((z - 1_017.531_25).abs() < 1e-9);
        let eh = epsilon_h_required(n, z, 0.95, 0.5).unwrap();
        assert!((eh - 0.009_631_8).abs() < 1e-6, "{eh}");
        let g = gamma_from(eh, ep).unwrap();
        assert!((g - eh / (eh + ep)).abs() < 1e-15);
        assert!((g - 0.1566).abs() < 1e-3, "{g}");
        assert_eq!(gamma_from(0.3, 0.0).unwrap(), 1.0);
        assert!(gamma_from(0.0, 0.3).is_err());
        // p < ½: still the second term (4p(1 − p) ≤ 1). n = 100, z = 10, p = 0.25, A = 1:
        // first (ln 100 − 2 ln 2)/10 = 0.321888, second (ln 100 − 2 ln 1.5)/10 = 0.379424.
        let e = epsilon_h_required(100, 10.0, 0.25, 1.0).unwrap();
        assert!((e - 0.379_424).abs() < 1e-6, "{e}");
        // A tiny p makes the requirement negative: clamped to 0.
        // n = 2, A = ½, p = 0.01: (½ ln 2 − 2 ln 1.98)/z = (0.3466 − 1.3663)/z < 0 → 0.
        assert_eq!(epsilon_h_required(2, 10.0, 0.01, 0.5).unwrap(), 0.0);
    }

    #[test]
    fn bin_masses_are_normal_shaped() {
        // Two bins split at the midpoint of the sample range, which is near 0 but moves with
        // the two most extreme samples (|mid| < 0.25 all but surely): masses within 0.1 of ½.
        let m = bin_masses(2, 100_000, 7).unwrap();
        assert!(
            (m[0] - 0.5).abs() < 0.1 && (m[0] + m[1] - 1.0).abs() < 1e-12,
            "{m:?}"
        );
        // Five bins: the middle one is the heaviest, the ends the lightest, symmetric.
        let m = bin_masses(5, 100_000, 7).unwrap();
        assert!((m.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(
            m[2] > m[1] && m[1] > m[0] && m[2] > m[3] && m[3] > m[4],
            "{m:?}"
        );
        assert!(
            (m[0] - m[4]).abs() < 0.05 && (m[1] - m[3]).abs() < 0.1,
            "{m:?}"
        );
        // Deterministic in the seed.
        assert_eq!(m, bin_masses(5, 100_000, 7).unwrap());
    }
}
