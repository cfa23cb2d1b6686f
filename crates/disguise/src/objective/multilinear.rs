//! The multilinear extension F(x) = E_{R∼x}[f(R)] of a set function and its gradient, in the
//! fixed-point form the private continuous greedy needs.
//!
//! For x ∈ [0, 1]^V, R ∼ x contains each element v independently with probability x_v, and
//! F(x) = Σ_S f(S)·Π_{v∈S} x_v·Π_{v∉S}(1 − x_v). F is affine in each coordinate, so its
//! partial derivatives are exact differences:
//! ∂_v F(x) = E_{R∼x}[f(R ∪ {v}) − f(R ∖ {v})] (Călinescu, Chekuri, Pál, Vondrák 2011).
//!
//! Three ways to get ∇F, all behind one trait, [`GradientOracle`]:
//!
//! | oracle | objective | exactness | cost per gradient |
//! |---|---|---|---|
//! | [`FacilityMultilinear`] (`f.multilinear()`) | [`FacilityLocation`] | closed form, deterministic | O(Σ_i #candidates with s(i,·) > 0) |
//! | [`CoverageMultilinear`] (`f.multilinear()`) | [`Coverage`] | closed form, deterministic | O(#incidences) |
//! | [`SampledGradient`] | any [`SetFunction`] | unbiased estimate, Hoeffding error | m·\|V\| marginal gains + O(m·\|R\|²) inserts |
//!
//! # Why fixed point
//! A private algorithm feeds ∇F to the exponential mechanism with a sensitivity bound, and the
//! library's standard is that the bound holds for the very numbers the mechanism sees, not
//! only up to rounding. Every oracle therefore returns a [`Gradient`] of *integers*: each
//! private record's (or each sample's) contribution is rounded to a fixed grid *before* it is
//! added, with exact integer sums. The contribution of one record depends only on that record
//! and the public point x, and is an integer in [0, K] (closed forms) — so adding, removing or
//! replacing one record moves every coordinate by at most K units, *exactly*
//! ([`Gradient::sensitivity_units`]). The rounding costs at most half a unit per record in
//! accuracy ([`Gradient::error`]) and nothing in privacy.

use super::{Coverage, FacilityLocation, SetFunction};
use crate::error::{Error, Result};
use crate::noise::SecureRng;
use crate::noise::bernoulli::bernoulli_f64;
use rayon::prelude::*;
use serde::Serialize;

/// Records per parallel block in the closed-form gradients.
const BLOCK: usize = 1024;
/// Below this many (record, candidate) terms a closed-form gradient runs on one thread.
const PARALLEL_MIN_TERMS: usize = 1 << 16;
/// Fixed-point resolution of the closed-form gradients: 2^-22 of the per-record bound.
const FRACTION_BITS: i32 = 22;
/// The largest |fixed-point value| of one sampled marginal gain (keeps every sum in i128).
const SAMPLED_MAX_UNITS: f64 = 79_228_162_514_264_337_593_543_950_336.0; // 2^96
/// The largest number of samples per gradient (2^24), so that sums stay below 2^120.
const MAX_SAMPLES: usize = 1 << 24;

/// How far an estimated partial derivative may be from the true one.
///
/// With probability at least 1 − `failure_probability`, *every* coordinate satisfies
/// |estimate − ∂_v F(x)| ≤ `absolute` + `per_range`·R, where R is the range of one sampled
/// marginal gain f(R ∪ {v}) − f(R ∖ {v}) (for a monotone submodular f, R ≤ max_v f({v}) − f(∅);
/// for the library's objectives with values in [0, n], R ≤ n·λ). Closed forms have
/// `per_range = 0` and `failure_probability = 0`: their only error is the fixed-point rounding.
///
/// The bound is stated without looking at the data (R is left to the caller): reporting a
/// data-dependent number would itself leak.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ErrorBound {
    /// The deterministic part (fixed-point rounding and floating-point error).
    pub absolute: f64,
    /// The Hoeffding part, per unit of range: √(ln(2|V|/γ)/(2m)) for m samples.
    pub per_range: f64,
    /// γ: the probability that the Hoeffding part does not hold.
    pub failure_probability: f64,
}

/// A gradient ∇F(x) in exact fixed point, with its proven sensitivity.
///
/// Partial derivative v is ∂_v F(x) ≈ `units[v]`·`unit`/`samples` (see [`Gradient::partial`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gradient {
    /// The fixed-point numerators, one per element of the ground set.
    pub units: Vec<i128>,
    /// The grid: a power of two.
    pub unit: f64,
    /// The common denominator: 1 for closed forms, the number of samples m for an estimate.
    pub samples: u64,
    /// Between neighbouring datasets (and, for an estimate, the same random samples) every
    /// `units[v]` moves by at most this many units — exactly, for the integers above.
    pub sensitivity_units: u128,
    /// The accuracy of the estimate.
    pub error: ErrorBound,
    /// Work done: marginal gains evaluated (sampled), or partial derivatives computed in
    /// closed form (one per element; each costs one pass over the records, like a gain).
    pub evaluations: u64,
}

impl Gradient {
    /// ∂_v F(x) as an `f64` (rounded; the mechanism uses the exact integers).
    pub fn partial(&self, v: usize) -> f64 {
        self.units[v] as f64 * self.unit / self.samples as f64
    }

    /// All partial derivatives as `f64`s.
    pub fn to_vec(&self) -> Vec<f64> {
        (0..self.units.len()).map(|v| self.partial(v)).collect()
    }

    /// The sensitivity of one partial derivative in the objective's units:
    /// `sensitivity_units`·`unit`/`samples` (rounded).
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity_units as f64 * self.unit / self.samples as f64
    }
}

/// A source of gradients of the multilinear extension of an objective.
///
/// Implemented by the closed forms ([`FacilityMultilinear`], [`CoverageMultilinear`], built
/// with [`ClosedForm::multilinear`]) and by the sampling estimator [`SampledGradient`], which
/// works for every [`SetFunction`].
///
/// # Contract (what the privacy proofs rely on)
/// * every random choice made by [`GradientOracle::gradient`] is independent of the private
///   data (it may depend on x, which is public);
/// * for neighbouring datasets and the same random choices, each returned `units[v]` differs
///   by at most `sensitivity_units`, exactly.
pub trait GradientOracle: Sync {
    /// The set function whose extension this is.
    type Objective: SetFunction + ?Sized;

    /// The set function (for its name, sensitivity and the value of a rounded set).
    fn objective(&self) -> &Self::Objective;

    /// ∇F(x) in fixed point. Errors if x has the wrong length or a coordinate outside [0, 1].
    fn gradient(&self, x: &[f64], rng: &mut SecureRng) -> Result<Gradient>;

    /// F(x) exactly (up to floating-point rounding), when a closed form exists.
    fn closed_form_value(&self, _x: &[f64]) -> Option<Result<f64>> {
        None
    }

    /// `closed-form` or `sampled`.
    fn method(&self) -> &'static str;

    /// A bound that every [`Gradient::error`] of this oracle satisfies (each of its parts
    /// at least as large), from public quantities only, before any gradient is computed:
    /// what an a-priori utility bound may use.
    fn error_bound(&self) -> ErrorBound;
}

/// Objectives with a closed-form multilinear extension (an extension trait: the closed form is
/// a separate, precomputed object that borrows the objective).
pub trait ClosedForm: SetFunction {
    /// The precomputed closed form.
    type Extension<'a>: GradientOracle<Objective = Self>
    where
        Self: 'a;

    /// Precomputes the closed form (one pass over the data).
    fn multilinear(&self) -> Result<Self::Extension<'_>>;
}

/// Errors unless x has `n` coordinates, each in [0, 1].
fn check_point(x: &[f64], n: usize) -> Result<()> {
    if x.len() != n {
        return Err(Error::param(
            "x",
            format!("the point has {} coordinates, the ground set {n}", x.len()),
        ));
    }
    if let Some(v) = x.iter().position(|p| !(0.0..=1.0).contains(p)) {
        return Err(Error::param(
            "x",
            format!("coordinate {v} is {}, not in [0, 1]", x[v]),
        ));
    }
    Ok(())
}

/// Rounds a per-record contribution d (in units) to the nearest integer in [0, max] (halves
/// up). Truncating d + 0.5 instead of calling `round` avoids a libm call on baseline x86-64.
#[inline(always)]
fn to_units(d: f64, max: i64) -> i64 {
    let u = d + 0.5;
    // NaN and negative rounding noise become 0; the clamp keeps the proven bound exact.
    if u >= 1.0 { (u as i64).min(max) } else { 0 }
}

/// Sums per-block integer accumulators computed by `work(records, acc)` over `n` records,
/// in parallel when there are at least `terms` ≥ [`PARALLEL_MIN_TERMS`] terms. Integer sums
/// are associative, so the result does not depend on the thread count.
/// A closed-form gradient of `m = units.len()` coordinates over `n` records: each record's
/// term rounded once to the grid `unit`, so the sum is off by at most n·unit, with certainty.
fn exact_gradient(units: Vec<i64>, unit: f64, sensitivity_units: u128, n: usize) -> Gradient {
    let m = units.len();
    Gradient {
        units: units.into_iter().map(i128::from).collect(),
        unit,
        samples: 1,
        sensitivity_units,
        error: exact_error(n, unit),
        evaluations: m as u64,
    }
}

/// The error of a closed form over `n` records rounded to the grid `unit`: n·unit, certain.
fn exact_error(n: usize, unit: f64) -> ErrorBound {
    ErrorBound {
        absolute: n as f64 * unit,
        per_range: 0.0,
        failure_probability: 0.0,
    }
}

fn accumulate<W>(n: usize, m: usize, terms: usize, work: W) -> Vec<i64>
where
    W: Fn(std::ops::Range<usize>, &mut [i64]) + Sync,
{
    let blocks = n.div_ceil(BLOCK);
    if terms < PARALLEL_MIN_TERMS || blocks < 2 {
        let mut acc = vec![0i64; m];
        work(0..n, &mut acc);
        return acc;
    }
    (0..blocks)
        .into_par_iter()
        .fold(
            || vec![0i64; m],
            |mut acc, b| {
                work(b * BLOCK..((b + 1) * BLOCK).min(n), &mut acc);
                acc
            },
        )
        .reduce(
            || vec![0i64; m],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

// ---------------------------------------------------------------------------------------
// Facility location.
// ---------------------------------------------------------------------------------------

/// The closed-form multilinear extension of [`FacilityLocation`]
/// f(S) = Σ_i max_{j∈S} s(i, j).
///
/// For record i, sort the candidates by decreasing similarity, π₁, π₂, … (candidates with
/// s(i, ·) = 0 are dropped: they never matter). Then
/// F_i(x) = Σ_k s(i, π_k)·x_{π_k}·A_k with A_k = Π_{l<k}(1 − x_{π_l}), and with the suffix
/// values V_k = s(i, π_k)·x_{π_k} + (1 − x_{π_k})·V_{k+1}, V_{end} = 0,
/// ∂_{π_k} F_i(x) = A_k·(s(i, π_k) − V_{k+1}) ∈ [0, 1].
/// (Record i is served by the best chosen candidate; π_k matters only if no better one is
/// chosen, probability A_k, and then it raises the value from V_{k+1} to s(i, π_k).)
///
/// ```
/// use disguise::objective::{ClosedForm, FacilityLocation, GradientOracle, SetFunction};
/// use disguise::SecureRng;
/// let f = FacilityLocation::from_similarities(1, 2, &[1.0, 0.5])?;
/// let ext = f.multilinear()?;
/// // F(x) for x = (1/2, 1/2): 1·½ + 0.5·½·½ = 0.625.
/// assert_eq!(ext.value(&[0.5, 0.5])?, 0.625);
/// let g = ext.gradient(&[0.5, 0.5], &mut SecureRng::insecure_from_seed(0))?;
/// assert_eq!(g.to_vec(), vec![0.75, 0.25]); // (1 − 0.25) and ½·0.5
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Sensitivity
/// Each record contributes ∂_v F_i(x) ∈ [0, 1], rounded to the nearest multiple of 2^-22 and
/// clamped to [0, 1] before the exact integer sum, so one record moves every coordinate by at
/// most 2^22 units = 1 (λ = 1, as for the objective) under replace-one and add/remove.
///
/// # Exactness
/// Each coordinate is within n·2^-22 of ∂_v F(x) for the objective's similarities s̃ (the
/// rounding to the grid, half a unit per record, plus floating-point error far below it).
///
/// # Runtime
/// [`ClosedForm::multilinear`]: n·m similarity evaluations and a sort per record, once;
/// memory 8 bytes per positive similarity. [`GradientOracle::gradient`]: one pass over the
/// positive similarities (stopping early in a record once some better candidate has
/// x = 1), parallel over blocks of records.
#[derive(Debug, Clone)]
pub struct FacilityMultilinear<'a> {
    f: &'a FacilityLocation,
    /// Record i's candidates with positive similarity, best first:
    /// `candidates[offsets[i]..offsets[i + 1]]`, similarities in units of 2^-22.
    offsets: Vec<usize>,
    candidates: Vec<u32>,
    similarities: Vec<u32>,
}

impl<'a> FacilityMultilinear<'a> {
    /// Precomputes every record's candidates sorted by similarity (parallel over records).
    pub fn new(f: &'a FacilityLocation) -> Result<Self> {
        let (n, m) = (f.num_records(), f.ground_size());
        if m > u32::MAX as usize {
            return Err(Error::param(
                "candidates",
                format!("at most 2^32 − 1 candidates are supported, got {m}"),
            ));
        }
        let scale = f64::from(1u32 << FRACTION_BITS);
        let rows: Vec<Vec<(u32, u32)>> = (0..n)
            .into_par_iter()
            .map(|i| {
                let mut row: Vec<(u32, u32)> = (0..m)
                    .filter_map(|j| {
                        // s̃ is a multiple of 2^-22 in [0, 1]: the product is an exact integer.
                        let units = (f.similarity(i, j) * scale) as u32;
                        (units > 0).then_some((j as u32, units))
                    })
                    .collect();
                row.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                row
            })
            .collect();
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        let total: usize = rows.iter().map(Vec::len).sum();
        let mut candidates = Vec::with_capacity(total);
        let mut similarities = Vec::with_capacity(total);
        for row in rows {
            for (j, s) in row {
                candidates.push(j);
                similarities.push(s);
            }
            offsets.push(candidates.len());
        }
        Ok(Self {
            f,
            offsets,
            candidates,
            similarities,
        })
    }

    /// F(x) = Σ_i F_i(x) (f64 sum; for reporting). Errors on an invalid x.
    pub fn value(&self, x: &[f64]) -> Result<f64> {
        check_point(x, self.f.ground_size())?;
        let unit = (-FRACTION_BITS as f64).exp2();
        let record = |i: usize| {
            let (mut a, mut total) = (1.0f64, 0.0f64);
            for k in self.offsets[i]..self.offsets[i + 1] {
                let xk = x[self.candidates[k] as usize];
                total += f64::from(self.similarities[k]) * unit * xk * a;
                a *= 1.0 - xk;
                if a == 0.0 {
                    break;
                }
            }
            total
        };
        let n = self.f.num_records();
        Ok(if self.candidates.len() < PARALLEL_MIN_TERMS {
            (0..n).map(record).sum()
        } else {
            (0..n).into_par_iter().map(record).sum()
        })
    }
}

impl GradientOracle for FacilityMultilinear<'_> {
    type Objective = FacilityLocation;

    fn objective(&self) -> &FacilityLocation {
        self.f
    }

    fn gradient(&self, x: &[f64], _rng: &mut SecureRng) -> Result<Gradient> {
        let (n, m) = (self.f.num_records(), self.f.ground_size());
        check_point(x, m)?;
        let one = 1i64 << FRACTION_BITS;
        let work = |records: std::ops::Range<usize>, acc: &mut [i64]| {
            let mut suffix: Vec<f64> = Vec::new();
            for i in records {
                let (lo, hi) = (self.offsets[i], self.offsets[i + 1]);
                // V_k in units of 2^-22 for k = lo..=hi (V_hi = 0).
                suffix.clear();
                suffix.resize(hi - lo + 1, 0.0);
                let mut v = 0.0f64;
                for k in (lo..hi).rev() {
                    let xk = x[self.candidates[k] as usize];
                    // x is sparse (Σx ≤ r): skipping the zeros shortens the dependency chain.
                    if xk != 0.0 {
                        v = f64::from(self.similarities[k]) * xk + (1.0 - xk) * v;
                    }
                    suffix[k - lo] = v;
                }
                let mut a = 1.0f64;
                for k in lo..hi {
                    let c = self.candidates[k] as usize;
                    let d = a * (f64::from(self.similarities[k]) - suffix[k - lo + 1]);
                    acc[c] += to_units(d, one);
                    let xc = x[c];
                    if xc != 0.0 {
                        a *= 1.0 - xc;
                        if a == 0.0 {
                            break; // a better candidate is surely chosen: later partials are 0
                        }
                    }
                }
            }
        };
        let acc = accumulate(n, m, self.candidates.len(), work);
        Ok(exact_gradient(
            acc,
            (-FRACTION_BITS as f64).exp2(),
            one as u128,
            n,
        ))
    }

    fn closed_form_value(&self, x: &[f64]) -> Option<Result<f64>> {
        Some(self.value(x))
    }

    fn method(&self) -> &'static str {
        "closed-form"
    }

    /// n·2^-22: every record's term is rounded once to the grid.
    fn error_bound(&self) -> ErrorBound {
        exact_error(self.f.num_records(), (-FRACTION_BITS as f64).exp2())
    }
}

impl ClosedForm for FacilityLocation {
    type Extension<'a> = FacilityMultilinear<'a>;

    fn multilinear(&self) -> Result<FacilityMultilinear<'_>> {
        FacilityMultilinear::new(self)
    }
}

// ---------------------------------------------------------------------------------------
// Coverage.
// ---------------------------------------------------------------------------------------

/// The closed-form multilinear extension of weighted [`Coverage`]
/// f(S) = Σ_i w_i·[N(i) ∩ S ≠ ∅]:
/// F(x) = Σ_i w_i·(1 − Π_{u∈N(i)}(1 − x_u)) and
/// ∂_u F(x) = Σ_{i: u∈N(i)} w_i·Π_{u′∈N(i), u′≠u}(1 − x_{u′}),
/// computed per record with prefix and suffix products (no division, so x_u = 1 is fine).
///
/// ```
/// use disguise::objective::{ClosedForm, Coverage, GradientOracle};
/// use disguise::SecureRng;
/// // Record 0 is covered by candidates 0 or 1.
/// let f = Coverage::new(2, &[vec![0, 1]])?;
/// let ext = f.multilinear()?;
/// assert_eq!(ext.value(&[0.5, 0.5])?, 0.75);
/// let g = ext.gradient(&[0.5, 0.25], &mut SecureRng::insecure_from_seed(0))?;
/// assert_eq!(g.to_vec(), vec![0.75, 0.5]);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Sensitivity
/// Record i contributes w_i·Π(…) ∈ [0, w_max], rounded to the nearest multiple of the grid
/// u = 2^(⌊log₂ w_max⌋ − 22) and clamped to [0, K], K = ⌈w_max/u⌉ ≤ 2^23: one record moves
/// every coordinate by at most K units = K·u < w_max·(1 + 2^-22) — the objective's λ = w_max up
/// to the grid.
///
/// # Exactness
/// Each coordinate is within n·u of ∂_u F(x) for the objective's (grid-rounded) weights.
///
/// # Runtime
/// Precomputation: one transpose of the incidence. Gradient: O(#incidences), parallel over
/// blocks of records.
#[derive(Debug, Clone)]
pub struct CoverageMultilinear<'a> {
    f: &'a Coverage,
    /// Record i's candidates: `candidates[offsets[i]..offsets[i + 1]]`.
    offsets: Vec<usize>,
    candidates: Vec<u32>,
    weights: Vec<f64>,
    /// The gradient's grid and the per-record bound K in units.
    unit: f64,
    max_units: i64,
}

impl<'a> CoverageMultilinear<'a> {
    /// Precomputes the record-major incidence.
    pub fn new(f: &'a Coverage) -> Result<Self> {
        let (n, m) = (f.num_records(), f.ground_size());
        if m > u32::MAX as usize {
            return Err(Error::param(
                "candidates",
                format!("at most 2^32 − 1 candidates are supported, got {m}"),
            ));
        }
        let mut counts = vec![0usize; n + 1];
        for v in 0..m {
            for i in f.records_covered_by(v) {
                counts[i + 1] += 1;
            }
        }
        for i in 0..n {
            counts[i + 1] += counts[i];
        }
        let offsets = counts.clone();
        let mut fill = counts;
        let mut candidates = vec![0u32; offsets[n]];
        for v in 0..m {
            for i in f.records_covered_by(v) {
                candidates[fill[i]] = v as u32;
                fill[i] += 1;
            }
        }
        let w_max = f.w_max();
        let exponent = ((w_max.to_bits() >> 52) & 0x7ff) as i32 - 1023; // ⌊log₂ w_max⌋
        let unit = f64::from(exponent - FRACTION_BITS).exp2();
        // w_max / unit is an exact power-of-two scaling, below 2^23.
        let max_units = (w_max / unit).ceil() as i64;
        Ok(Self {
            f,
            offsets,
            candidates,
            weights: (0..n).map(|i| f.weight(i)).collect(),
            unit,
            max_units,
        })
    }

    /// F(x) (f64 sum; for reporting). Errors on an invalid x.
    pub fn value(&self, x: &[f64]) -> Result<f64> {
        check_point(x, self.f.ground_size())?;
        let n = self.f.num_records();
        let record = |i: usize| {
            let miss: f64 = self.candidates[self.offsets[i]..self.offsets[i + 1]]
                .iter()
                .map(|&u| 1.0 - x[u as usize])
                .product();
            self.weights[i] * (1.0 - miss)
        };
        Ok(if self.candidates.len() < PARALLEL_MIN_TERMS {
            (0..n).map(record).sum()
        } else {
            (0..n).into_par_iter().map(record).sum()
        })
    }
}

impl GradientOracle for CoverageMultilinear<'_> {
    type Objective = Coverage;

    fn objective(&self) -> &Coverage {
        self.f
    }

    fn gradient(&self, x: &[f64], _rng: &mut SecureRng) -> Result<Gradient> {
        let (n, m) = (self.f.num_records(), self.f.ground_size());
        check_point(x, m)?;
        let inv_unit = 1.0 / self.unit; // a power of two: exact
        let work = |records: std::ops::Range<usize>, acc: &mut [i64]| {
            let mut prefix: Vec<f64> = Vec::new();
            for i in records {
                let list = &self.candidates[self.offsets[i]..self.offsets[i + 1]];
                // prefix[k] = Π_{l<k}(1 − x_l); the suffix product is carried backwards.
                prefix.clear();
                prefix.push(1.0);
                for &u in list {
                    let p = *prefix.last().expect("non-empty");
                    prefix.push(p * (1.0 - x[u as usize]));
                }
                let w = self.weights[i] * inv_unit;
                let mut suffix = 1.0f64;
                for (k, &u) in list.iter().enumerate().rev() {
                    acc[u as usize] += to_units(w * prefix[k] * suffix, self.max_units);
                    suffix *= 1.0 - x[u as usize];
                }
            }
        };
        let acc = accumulate(n, m, self.candidates.len(), work);
        Ok(exact_gradient(acc, self.unit, self.max_units as u128, n))
    }

    fn closed_form_value(&self, x: &[f64]) -> Option<Result<f64>> {
        Some(self.value(x))
    }

    fn method(&self) -> &'static str {
        "closed-form"
    }

    /// n times the grid: every record's term is rounded once to the grid.
    fn error_bound(&self) -> ErrorBound {
        exact_error(self.f.num_records(), self.unit)
    }
}

impl ClosedForm for Coverage {
    type Extension<'a> = CoverageMultilinear<'a>;

    fn multilinear(&self) -> Result<CoverageMultilinear<'_>> {
        CoverageMultilinear::new(self)
    }
}

// ---------------------------------------------------------------------------------------
// Sampling estimator.
// ---------------------------------------------------------------------------------------

/// The Hoeffding sample size: the smallest m such that m independent samples in a range R
/// estimate each of `coordinates` means within `relative_tolerance`·R, all at once, with
/// probability at least 1 − `failure`: m = ⌈ln(2·coordinates/γ) / (2τ²)⌉.
///
/// For the continuous greedy over T steps pass `coordinates` = |V|·T (a union bound over
/// steps too). With τ = ζ/(2r) (so that the loss of a base score, r·τ·R ≤ ζ·OPT/2, given
/// R ≤ OPT) this is the m ≥ 2r²·ln(2|V|T/γ)/ζ² of the reconstruction note (§7.2).
///
/// ```
/// use disguise::objective::hoeffding_samples;
/// // 100 coordinates within 5% of the range with probability 0.99: ⌈ln(20000)/0.005⌉.
/// assert_eq!(hoeffding_samples(0.05, 100, 0.01)?, 1981);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// τ or γ outside (0, 1), `coordinates` = 0, or a sample size above 2^24.
pub fn hoeffding_samples(
    relative_tolerance: f64,
    coordinates: usize,
    failure: f64,
) -> Result<usize> {
    if !(relative_tolerance > 0.0 && relative_tolerance < 1.0) {
        return Err(Error::param(
            "tolerance",
            format!("must be in (0, 1), got {relative_tolerance}"),
        ));
    }
    check_failure(failure)?;
    if coordinates == 0 {
        return Err(Error::param("coordinates", "must be at least 1"));
    }
    let m = ((2.0 * coordinates as f64 / failure).ln()
        / (2.0 * relative_tolerance * relative_tolerance))
        .ceil();
    if m > MAX_SAMPLES as f64 {
        return Err(Error::param(
            "tolerance",
            format!("needs {m} samples, more than the supported 2^24"),
        ));
    }
    Ok((m as usize).max(1))
}

/// The Hoeffding tolerance per unit of range of m samples for `coordinates` simultaneous
/// means at failure probability γ: √(ln(2·coordinates/γ)/(2m)) (the inverse of
/// [`hoeffding_samples`]).
pub fn hoeffding_tolerance(samples: usize, coordinates: usize, failure: f64) -> f64 {
    ((2.0 * coordinates.max(1) as f64 / failure).ln() / (2.0 * samples.max(1) as f64)).sqrt()
}

fn check_failure(failure: f64) -> Result<()> {
    if !(failure > 0.0 && failure < 1.0) {
        return Err(Error::param(
            "failure probability",
            format!("must be in (0, 1), got {failure}"),
        ));
    }
    Ok(())
}

/// The sampling estimator of ∇F for any [`SetFunction`] (CCPV 2011; reconstruction note §7.2).
///
/// Draws m random sets R₁, …, R_m ∼ x (each element independently with probability x_v,
/// exact Bernoulli draws from the secure generator) and estimates every coordinate from the
/// *same* sets (common random numbers):
/// ∂_v F(x) ≈ (1/m)·Σ_j [f(R_j ∪ {v}) − f(R_j ∖ {v})].
/// For v ∉ R_j that is the gain of v at R_j (one bulk [`SetFunction::gains`] call per sample);
/// for v ∈ R_j it is the gain of v at R_j ∖ {v} (rebuilt from prefix states).
///
/// # Sensitivity (data-independent samples)
/// The sets R_j depend only on x (public) and fresh randomness, never on the data. Each
/// sampled gain is floored to the grid g = 2^(⌊log₂ Λ⌋ − 30), Λ = max_s λ(s), before the
/// exact integer sum, where λ(s) is the objective's **gain** bound
/// [`SetFunction::gain_sensitivity`] at sets of size s: coordinate v uses the gain at R_j or
/// at R_j ∖ {v}, a different set for every v ∈ R_j, so the scores are *not* values shifted by
/// one common amount and a value bound would not do (for mutual information the gain bound
/// is about twice [`SetFunction::sensitivity`];
/// [`crate::privacy::proofs::gains_and_values`]). The floored gains move by at most
/// ⌈λ(s)/g⌉ units (⌊a/g⌋ − ⌊b/g⌋ ≤ ⌈(a−b)/g⌉), so for the same samples every coordinate
/// moves by at most Σ_j max(⌈λ(|R_j|)/g⌉, ⌈λ(|R_j| − 1)/g⌉) units — the `sensitivity_units`
/// returned, ≈ m·Λ. The privacy proofs condition on the samples, which is valid because they
/// are drawn independently of the data.
///
/// # Error
/// Unbiased up to the flooring (less than g per sample). For a monotone submodular f each
/// sampled difference lies in [0, R] with R = max_v f({v}) − f(∅), and with probability
/// ≥ 1 − γ every coordinate is within R·√(ln(2|V|/γ)/(2m)) + g of ∂_v F(x)
/// ([`ErrorBound`]; γ from [`SampledGradient::with_failure_probability`], default 0.01).
///
/// # Runtime
/// Per gradient, m·|V| marginal gains in m bulk calls, plus Σ_j |R_j|(|R_j| + 1)/2 inserts to
/// rebuild R_j ∖ {v}. m·|V| Bernoulli draws.
///
/// ```
/// use disguise::objective::{Coverage, GradientOracle, SampledGradient};
/// use disguise::SecureRng;
/// let f = Coverage::new(2, &[vec![0, 1]])?;
/// let est = SampledGradient::new(&f, 4000)?;
/// let g = est.gradient(&[0.5, 0.25], &mut SecureRng::insecure_from_seed(1))?;
/// assert!((g.partial(0) - 0.75).abs() < 0.05 && (g.partial(1) - 0.5).abs() < 0.05);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SampledGradient<'a, F: ?Sized> {
    f: &'a F,
    samples: usize,
    failure: f64,
}

impl<'a, F: SetFunction + ?Sized> SampledGradient<'a, F> {
    /// The estimator with m = `samples` sets per gradient (1 ≤ m ≤ 2^24; see
    /// [`hoeffding_samples`] to choose it).
    pub fn new(f: &'a F, samples: usize) -> Result<Self> {
        if samples == 0 || samples > MAX_SAMPLES {
            return Err(Error::param(
                "samples",
                format!("must be in 1..=2^24, got {samples}"),
            ));
        }
        Ok(Self {
            f,
            samples,
            failure: 0.01,
        })
    }

    /// Sets the γ at which [`ErrorBound::per_range`] is reported (it changes nothing else).
    pub fn with_failure_probability(mut self, failure: f64) -> Result<Self> {
        check_failure(failure)?;
        self.failure = failure;
        Ok(self)
    }

    /// The number of samples per gradient.
    pub fn samples(&self) -> usize {
        self.samples
    }

    /// Draws R ∼ x as a list (increasing order).
    fn draw(&self, x: &[f64], rng: &mut SecureRng) -> Result<Vec<usize>> {
        let mut set = Vec::new();
        for (v, &p) in x.iter().enumerate() {
            if bernoulli_f64(rng, p)? {
                set.push(v);
            }
        }
        Ok(set)
    }

    /// An estimate of F(x) from m fresh samples: (1/m)·Σ_j f(R_j), with the Hoeffding
    /// tolerance per unit of the range of f (√(ln(2/γ)/(2m))). Errors on an invalid x.
    pub fn value(&self, x: &[f64], rng: &mut SecureRng) -> Result<(f64, f64)> {
        check_point(x, self.f.ground_size())?;
        let mut total = 0.0;
        for _ in 0..self.samples {
            let set = self.draw(x, rng)?;
            self.check_size(set.len())?;
            total += self.f.evaluate(&set);
        }
        Ok((
            total / self.samples as f64,
            hoeffding_tolerance(self.samples, 1, self.failure),
        ))
    }

    fn check_size(&self, size: usize) -> Result<()> {
        let (n, max) = (self.f.ground_size(), self.f.max_solution_size());
        // Gains at R (size |R|) evaluate sets of size |R| + 1 unless R is everything.
        if size > max || (size == max && size < n) {
            return Err(Error::param(
                "objective",
                format!(
                    "{} can evaluate sets of at most {max} elements, but a sampled set has {size}",
                    self.f.name()
                ),
            ));
        }
        Ok(())
    }
}

impl<F: SetFunction + ?Sized> GradientOracle for SampledGradient<'_, F> {
    type Objective = F;

    fn objective(&self) -> &F {
        self.f
    }

    fn gradient(&self, x: &[f64], rng: &mut SecureRng) -> Result<Gradient> {
        let n = self.f.ground_size();
        check_point(x, n)?;
        // Gain bounds, not the greedy's λ: the sampled gains sit at different sets.
        let lambda_max = (0..=n)
            .map(|s| self.f.gain_sensitivity(s).get())
            .fold(0.0f64, f64::max);
        let exponent = ((lambda_max.to_bits() >> 52) & 0x7ff) as i32 - 1023; // ⌊log₂ Λ⌋
        let grid_exp = exponent - 30;
        let inv_grid = f64::from(-grid_exp).exp2(); // exact power of two (|grid_exp| ≤ 1054)
        let grid = f64::from(grid_exp).exp2();
        if !(inv_grid.is_finite() && grid > 0.0 && grid.is_normal()) {
            return Err(Error::param(
                "sensitivity",
                format!("{lambda_max} is too small or too large for the fixed-point grid"),
            ));
        }
        // ⌈λ/g⌉: an exact power-of-two scaling, then a ceiling.
        let units_of = |s: usize| (self.f.gain_sensitivity(s).get() * inv_grid).ceil() as u128;
        let floor_units = |d: f64, v: usize| -> Result<i128> {
            if !d.is_finite() {
                return Err(Error::NonFiniteScore { index: v, value: d });
            }
            let y = d * inv_grid;
            if y.abs() >= SAMPLED_MAX_UNITS {
                return Err(Error::Overflow(format!(
                    "a marginal gain of {d} is more than 2^96 grid units of the sensitivity"
                )));
            }
            // A negative d whose scaled value underflowed to −0 still floors to −1.
            Ok(if y == 0.0 && d < 0.0 {
                -1
            } else {
                y.floor() as i128
            })
        };
        let mut units = vec![0i128; n];
        let mut sensitivity_units: u128 = 0;
        let mut evaluations: u64 = 0;
        let mut member = vec![false; n];
        let mut outside: Vec<usize> = Vec::with_capacity(n);
        let mut gains: Vec<f64> = Vec::with_capacity(n);
        for _ in 0..self.samples {
            let set = self.draw(x, rng)?;
            self.check_size(set.len())?;
            let k = set.len();
            let mut per_sample = units_of(k);
            if k > 0 {
                per_sample = per_sample.max(units_of(k - 1));
            }
            sensitivity_units = sensitivity_units
                .checked_add(per_sample)
                .ok_or_else(|| Error::Overflow("sampled gradient sensitivity".into()))?;
            // Prefix states P_0..P_k (P_t holds the first t elements of R).
            let mut prefixes = Vec::with_capacity(k + 1);
            let mut state = self.f.empty();
            prefixes.push(state.clone());
            for &v in &set {
                self.f.insert(&mut state, v);
                prefixes.push(state.clone());
            }
            for &v in &set {
                member[v] = true;
            }
            outside.clear();
            outside.extend((0..n).filter(|&v| !member[v]));
            gains.clear();
            gains.resize(outside.len(), 0.0);
            self.f.gains(&prefixes[k], &outside, &mut gains);
            for (&v, &d) in outside.iter().zip(&gains) {
                units[v] += floor_units(d, v)?;
            }
            // v = R[t]: its gain at R ∖ {v} = P_t + R[t+1..].
            for t in 0..k {
                let mut without = prefixes[t].clone();
                for &w in &set[t + 1..] {
                    self.f.insert(&mut without, w);
                }
                let mut g = [0.0];
                self.f.gains(&without, &set[t..=t], &mut g);
                units[set[t]] += floor_units(g[0], set[t])?;
            }
            for &v in &set {
                member[v] = false;
            }
            evaluations += n as u64;
        }
        Ok(Gradient {
            units,
            unit: grid,
            samples: self.samples as u64,
            sensitivity_units,
            error: ErrorBound {
                absolute: grid,
                per_range: hoeffding_tolerance(self.samples, n, self.failure),
                failure_probability: self.failure,
            },
            evaluations,
        })
    }

    fn method(&self) -> &'static str {
        "sampled"
    }

    /// The grid 2^(⌊log₂ Λ⌋ − 30) ≤ Λ·2^-30 (Λ the largest gain bound; each sample's gain
    /// is floored to it once), and the Hoeffding part at this estimator's γ.
    fn error_bound(&self) -> ErrorBound {
        let n = self.f.ground_size();
        let lambda_max = (0..=n)
            .map(|s| self.f.gain_sensitivity(s).get())
            .fold(0.0f64, f64::max);
        ErrorBound {
            absolute: lambda_max * (-30f64).exp2(),
            per_range: hoeffding_tolerance(self.samples, n, self.failure),
            failure_probability: self.failure,
        }
    }
}

/// F(x) and ∇F(x) by enumerating all 2^|V| subsets: the reference for tests on tiny ground
/// sets (|V| ≤ 20). Not private, not fast: f64 sums of f(S)·Pr[R = S].
///
/// ```
/// use disguise::objective::{enumerate_multilinear, Coverage};
/// let f = Coverage::new(2, &[vec![0, 1]])?;
/// let (value, gradient) = enumerate_multilinear(&f, &[0.5, 0.25])?;
/// assert!((value - 0.625).abs() < 1e-15);
/// assert!((gradient[0] - 0.75).abs() < 1e-15 && (gradient[1] - 0.5).abs() < 1e-15);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// An invalid x, or |V| > 20.
pub fn enumerate_multilinear<F: SetFunction + ?Sized>(f: &F, x: &[f64]) -> Result<(f64, Vec<f64>)> {
    let n = f.ground_size();
    check_point(x, n)?;
    if n > 20 {
        return Err(Error::param(
            "ground set",
            format!("enumeration is limited to 20 elements, got {n}"),
        ));
    }
    let values: Vec<f64> = (0..1usize << n)
        .map(|mask| {
            let set: Vec<usize> = (0..n).filter(|v| mask >> v & 1 == 1).collect();
            f.evaluate(&set)
        })
        .collect();
    let prob = |mask: usize, skip: Option<usize>| -> f64 {
        (0..n)
            .filter(|&v| Some(v) != skip)
            .map(|v| if mask >> v & 1 == 1 { x[v] } else { 1.0 - x[v] })
            .product()
    };
    let value = (0..1usize << n).map(|s| values[s] * prob(s, None)).sum();
    let gradient = (0..n)
        .map(|v| {
            (0..1usize << n)
                .filter(|s| s >> v & 1 == 0)
                .map(|s| (values[s | 1 << v] - values[s]) * prob(s, Some(v)))
                .sum()
        })
        .collect();
    Ok((value, gradient))
}
