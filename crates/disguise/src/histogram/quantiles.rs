//! Private quantiles of one numeric column: the foundation of private bin edges.
//!
//! [`PrivateQuantiles`] releases m non-decreasing edges in the public bounds [lo, hi] at
//! target probabilities q₁ ≤ … ≤ q_m, with ε-differential privacy for replace-one
//! neighbours. The algorithm, its guarantee and its sampling are documented on
//! [`PrivateQuantiles`]; the proof is `docs/proofs/private-quantiles.md`
//! ([`crate::privacy::proofs`]).

use crate::error::{Error, Result};
use crate::noise::SecureRng;
use crate::noise::bernoulli::uniform_below;
use crate::noise::scaled_exp::ScaledExpCoin;
use crate::numeric::round::{add_up, div_down, div_up, mul_up};
use crate::privacy::{Epsilon, PrivacyCost, Sensitivity};
use crate::select::sample_exponential;
use num_bigint::{BigInt, BigUint};
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};

/// The most grid points a column may have (2⁴⁰ + 1: a run length fits a `u64` and a grid
/// index is exact in an `f64`).
///
/// ```
/// use disguise::histogram::{Grid, MAX_GRID_CELLS, PrivateQuantiles, Targets};
/// use disguise::privacy::Epsilon;
/// let too_fine = Grid::Cells(MAX_GRID_CELLS + 1);
/// assert!(PrivateQuantiles::new(0.0, 1.0, too_fine, Targets::Count(1), Epsilon::new(1.0)?).is_err());
/// # Ok::<(), disguise::Error>(())
/// ```
pub const MAX_GRID_CELLS: u64 = 1 << 40;

/// The most quantiles one call may release.
///
/// ```
/// use disguise::histogram::{Grid, MAX_QUANTILES, PrivateQuantiles, Targets};
/// use disguise::privacy::Epsilon;
/// let many = Targets::Count(MAX_QUANTILES + 1);
/// assert!(PrivateQuantiles::new(0.0, 1.0, Grid::Cells(64), many, Epsilon::new(1.0)?).is_err());
/// # Ok::<(), disguise::Error>(())
/// ```
pub const MAX_QUANTILES: usize = 1 << 16;

/// ln 2 rounded up: the double above `LN_2` (which is below ln 2 by about 2.3·10⁻¹⁷;
/// checked by the test `ln2_up_is_above_ln2`).
const LN2_UP: f64 = 0.693_147_180_559_945_4;

/// The public, finite set of values an edge can take.
///
/// Every record is snapped to its nearest grid point (after clamping into [lo, hi]) and
/// every edge is a grid point, so equal values share a point and two edges may coincide:
/// a point mass (a 0 held by 92 % of people) can get a bin of its own.
///
/// ```
/// use disguise::histogram::{Grid, PrivateQuantiles, Targets};
/// use disguise::privacy::Epsilon;
/// let eps = Epsilon::new(1.0)?;
/// let ages = PrivateQuantiles::new(17.0, 90.0, Grid::Integers, Targets::Count(3), eps)?;
/// assert_eq!(ages.grid_points(), 74);
/// let hours = PrivateQuantiles::new(0.0, 100.0, Grid::Cells(1 << 20), Targets::Count(3), eps)?;
/// assert_eq!(hours.grid_points(), (1 << 20) + 1);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grid {
    /// The integers lo, lo + 1, …, hi (lo and hi must be integers, hi − lo ≤ 2⁴⁰): for a
    /// column declared integer. Snapping rounds a value to the nearest integer.
    Integers,
    /// lo + i·(hi − lo)/c for i = 0, …, c: c equal cells (1 ≤ c ≤ 2⁴⁰). A record moves by at
    /// most half a cell when snapped, so an edge's rank is that of a value within
    /// (hi − lo)/(2c) of it; a finer grid costs nothing in privacy and only
    /// ln(c)·2/ε_call in the mechanism's additive rank error (see *Accuracy*).
    Cells(u64),
}

/// Which quantiles to release.
///
/// ```
/// use disguise::histogram::{Grid, PrivateQuantiles, Targets};
/// use disguise::privacy::Epsilon;
/// let eps = Epsilon::new(1.0)?;
/// let quartiles = PrivateQuantiles::new(0.0, 1.0, Grid::Cells(64), Targets::Count(3), eps)?;
/// assert_eq!(quartiles.targets(), &[0.25, 0.5, 0.75]);
/// let tails = Targets::Probabilities(vec![0.05, 0.95]);
/// assert_eq!(PrivateQuantiles::new(0.0, 1.0, Grid::Cells(64), tails, eps)?.targets(), &[0.05, 0.95]);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Targets {
    /// m evenly spaced quantiles, qₖ = k/(m + 1) for k = 1, …, m: the inner edges of m + 1
    /// equal-mass bins.
    Count(usize),
    /// The given target probabilities, each in [0, 1], non-decreasing.
    Probabilities(Vec<f64>),
}

/// What [`PrivateQuantiles::release`] returns.
///
/// ```
/// use disguise::histogram::{Grid, PrivateQuantiles, Targets};
/// use disguise::privacy::Epsilon;
/// use disguise::privacy::PrivacyCost;
/// let q = PrivateQuantiles::new(0.0, 8.0, Grid::Cells(8), Targets::Count(1), Epsilon::new(1.0)?)?;
/// let release = q.release(&[1.0, 2.0, 3.0], &mut disguise::SecureRng::from_os()?)?;
/// assert_eq!(release.edges[0], q.value_of(release.indices[0]));
/// assert_eq!(release.cost, PrivacyCost::Pure { epsilon: Epsilon::new(1.0)? });
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct QuantileRelease {
    /// The m released edges, non-decreasing, in [lo, hi]: grid points.
    pub edges: Vec<f64>,
    /// The same edges as grid indices (0 is lo).
    pub indices: Vec<u64>,
    /// The privacy cost of the whole call: ε-DP for replace-one neighbours.
    pub cost: PrivacyCost,
}

/// Private quantiles on a public grid: the recursive approximate quantiles of Kaplan,
/// Schnapp and Stemmer (2022) over Smith's (2011) exponential mechanism, both made discrete
/// and sampled exactly.
///
/// # Algorithm
/// Records are clamped into [lo, hi] and snapped to the [`Grid`] of G points (indices
/// 0, …, G − 1). The m targets are solved recursively (KSS 2022, Algorithm 1): a *node* holds
/// a contiguous range of targets, a candidate range [a, b] of grid indices and the records
/// in it. Its middle target q (the ⌊k/2⌋-th of its k targets) is chosen by one call of the
/// single-quantile mechanism below on the node's records; the result v splits the node into
/// a left node (targets below q, candidates [a, v], the records < v) and a right node
/// (targets above q, candidates [v, b], the records ≥ v). The root has all targets, all
/// records and candidates [0, G − 1], so the edges come out non-decreasing, and equal edges
/// are allowed (a right node's candidate v is its left end).
///
/// *Single quantile* (Smith 2011, Algorithm 2, on a grid): a node with n′ records whose
/// targets lie between the probabilities p_lo < p_hi of its enclosing edges (0 and 1 at the
/// root) aims at the local rank t = ⌊r·n′⌋, r = (q − p_lo)/(p_hi − p_lo) (r = 0 when
/// p_lo = p_hi), read as exact rationals. Each candidate grid index g has the integer score
///
/// ```text
/// u(g) = −dist(t, [L(g), L⁺(g)]) = −max(L(g) − t, t − L⁺(g), 0),
/// L(g) = #{records < g},  L⁺(g) = #{records ≤ g},
/// ```
///
/// zero exactly when the t-th record (in sorted order) sits at g — on a point mass every
/// target inside the mass scores 0 at the mass's grid point. g is drawn with probability
/// ∝ exp(ε_c·u(g)/2): the exponential mechanism with the counting measure on the grid (the
/// discrete form of Smith's interval weighting).
///
/// # Why this algorithm
/// * *Accuracy at small ε*: KSS pays at most two mechanisms per level of the recursion,
///   ⌈log₂(m + 1)⌉ levels (units = 2⌈log₂(m + 1)⌉ − 1 at most), where one mechanism per
///   quantile (Smith's mechanism m times, on global ranks) pays m: each call gets ε/9
///   instead of ε/31 for 31 edges, ε/7 instead of ε/9 for deciles. The price is KSS's
///   rescaling of ranks inside a node, which a split on a point mass biases (*Accuracy*). JointExp (Gillenwater, Joseph, Kulesza 2021) pays one joint mechanism but:
/// * *exact sampling*: JointExp samples from a dynamic program of sums of exponentials in
///   floating point, which cannot be made exact with integer arithmetic; here every draw is
///   one exact exponential mechanism over O(n′) runs (see *Precision*);
/// * *point masses*: the continuous mechanisms (Smith's intervals, JointExp) give equal
///   values zero-length intervals, which they never pick, and implementations break ties
///   by perturbing the data (KSS's public code adds small Gaussian noise), which spreads a
///   mass over an interval and leaves each target a sliver of its weight: on a grid a mass
///   keeps one point, with score 0 for every target inside it;
/// * *time*: O(n log n) to sort, O(n) per level (each record is in one node of a level),
///   O(n·log m + m) for the mechanisms: O(n log n + n log m) in all.
///
/// # Guarantee
/// **ε-differentially private for replace-one neighbours** (two columns with the same
/// number n of records, n public, that differ in one record). Proof
/// (`docs/proofs/private-quantiles.md`, [`crate::privacy::proofs`]):
/// * *Sensitivity 1.* Replacing a record inside a node leaves t and moves L(g), L⁺(g) by at
///   most 1; adding or removing one (n′ ± 1) moves t by 0 or ±1 in the same direction as
///   L(g), L⁺(g) (0 or ±1 each), so every u(g) moves by at most 1 either way. Each call is
///   the exponential mechanism with λ = 1, ε_c-DP (McSherry–Talwar 2007; Dwork–Roth 2014,
///   Theorem 3.10), the candidate range being a function of earlier outputs.
/// * *Levels.* Given the earlier levels' edges, the nodes of a level split the records by
///   value, so replacing x by x′ changes at most two nodes (x's, which loses it, and x′'s,
///   which gains it — one node if both are in it). A level with one node costs ε_c, a level
///   with two or more costs at most 2ε_c. KSS 2022 analyse neighbours that add or remove a
///   point (one ε/levels per call); the factor 2 for replace-one is proven in the note
///   (KSS's public code also divides by 2·levels for "swap" neighbours).
/// * *Composition* over the levels (adaptive, basic: Dwork–Roth 2014, Theorem 3.16):
///
/// ```text
/// ε = ε_c · Σ_levels min(2, nodes with a target at that level),
/// ```
///
/// a public function of m ([`PrivateQuantiles::units`]); ε_c = ε / units, rounded down.
/// For m = 1: ε_c = ε (Smith's mechanism); m = 9: units = 7; m = 31: 9.
///
/// n = 0 is valid and private: every score is 0, so each edge is uniform on its candidate
/// range — edges drawn from the public bounds alone, by the same code path.
///
/// # Precision: the sampling is exact
/// A node's candidates fall into runs of equal score: the gaps between distinct record
/// values and the values themselves, at most 2d + 1 runs for d distinct values. A run j of
/// len_j grid points and score s_j must be chosen with probability ∝ len_j·exp(ε_c·s_j/2),
/// then a uniform point in it. Two exact stages (the representative trick of
/// `apps::block`):
///
/// 1. each run gets a representative score ρ_j = s_j + (2/ε_c)·⌈log₂ len_j⌉·ln 2, computed
///    with every rounding upward (ρ_j = s_j when len_j = 1); the exact exponential mechanism
///    ([`sample_exponential`], ε_c, λ = 1, weights exp(ε_c·ρ_j/2)) proposes a run;
/// 2. the proposal is accepted with probability len_j·exp(−y_j), y_j = ε_c(ρ_j − s_j)/2 read
///    as an exact rational (≥ ⌈log₂ len_j⌉·ln 2 ≥ ln len_j, so the probability is ≤ 1), by
///    the exact coin Bernoulli(m·e^{−y}) of `noise::scaled_exp` (lazy uniform bits compared
///    with big-integer enclosures of e^{−y}); otherwise stage 1 is repeated.
///
/// A round returns run j with probability ∝ exp(ε_c ρ_j/2)·len_j·exp(−y_j) =
/// len_j·exp(ε_c s_j/2), so the accepted run has exactly the target law, and the uniform
/// point (exact, by rejection) completes the draw. Scores are integers below 2⁵³ (exact in
/// `f64`); the representatives are doubles whose exact values the samplers use; no
/// floating-point operation decides an outcome except through a certified bound. The
/// output law is exactly the mechanism's, given ideal random bits from the [`SecureRng`].
///
/// # Runtime
/// Per node: one pass over its sorted records; each round of stage 1 is one exact
/// exponential mechanism over the R ≤ 2d + 1 representatives (expected O(R), see
/// [`sample_exponential`]); a representative's weight is at most about twice its run's
/// weight (⌈log₂ len⌉ overshoots log₂ len by less than 1; upward rounding adds a relative
/// 10⁻¹⁵ or so), so the expected number of rounds is at most about 2, *whatever the data*: a concentrated mass (one run with all the weight)
/// is accepted at once, being a single grid point (len = 1). Big-integer work: one coin per
/// proposed run of length > 1, O(1) expected per call. As for every rejection sampler, the
/// time depends on the data, which the privacy guarantee does not cover.
///
/// # Accuracy
/// One call: with probability ≥ 1 − β the chosen point's score is ≥ −(2/ε_c)·ln(G′/β), G′
/// the node's candidate count ≤ G (McSherry–Talwar 2007; Dwork–Roth 2014, Theorem 3.11): a
/// rank error of at most (2/ε_c)·ln(G/β) records, so a finer grid costs only its logarithm.
/// On top, the grid moves every record by at most half a cell (none for [`Grid::Integers`]),
/// and KSS's rescaling assumes a node starts at its split's target rank: a split that lands
/// on a point mass sends the whole mass right, which moves the targets of the left node
/// down and of the right node down by at most the mass's size. A right node's targets that
/// fall inside the mass still get exactly its point — so a mass at the lower bound (the
/// common skew: 0 in capital gains, counts, amounts) is found exactly: the unit test
/// `the_deciles_of_a_point_mass_land_on_it_exactly` has all deciles of a column that is 0
/// for 91.7 % of 30,000 records at 0, at ε = 0.1 in all. A left node's targets inside a
/// mass in the middle of the range may land below it, and a target just above a mass may
/// land on it.
///
/// ```
/// use disguise::histogram::{Grid, PrivateQuantiles, Targets};
/// use disguise::privacy::Epsilon;
/// use disguise::SecureRng;
///
/// // Capital gain: 0 for most people.
/// let values: Vec<f64> = (0..2_000).map(|i| if i % 10 < 9 { 0.0 } else { f64::from(i) }).collect();
/// let quantiles = PrivateQuantiles::new(0.0, 99_999.0, Grid::Integers, Targets::Count(3), Epsilon::new(1.0)?)?;
/// let mut rng = SecureRng::from_os()?;
/// let release = quantiles.release(&values, &mut rng)?;
/// assert_eq!(release.edges.len(), 3);
/// assert!(release.edges.windows(2).all(|w| w[0] <= w[1]));
/// assert_eq!(release.edges, vec![0.0; 3]); // the quartiles are all 0
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PrivateQuantiles {
    lo: f64,
    hi: f64,
    grid: Grid,
    /// The largest grid index, G − 1.
    last: u64,
    targets: Vec<f64>,
    epsilon: Epsilon,
    /// ε_c, the budget of one exponential mechanism call.
    epsilon_call: Epsilon,
}

impl PrivateQuantiles {
    /// Validates a request: bounds lo < hi, finite (integers with hi − lo ≤ 2⁴⁰ for
    /// [`Grid::Integers`]); 1 ≤ c ≤ 2⁴⁰ cells for [`Grid::Cells`]; 1 ≤ m ≤ [`MAX_QUANTILES`]
    /// targets in [0, 1], non-decreasing; ε (already validated by [`Epsilon::new`]: finite,
    /// > 0) large enough that the sampler's representatives stay finite.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] named `lo`/`hi` (bounds), `grid`, `targets` or `epsilon`.
    /// Every check reads only public inputs.
    ///
    /// ```
    /// use disguise::histogram::{Grid, PrivateQuantiles, Targets};
    /// use disguise::privacy::Epsilon;
    /// let eps = Epsilon::new(1.0)?;
    /// assert!(PrivateQuantiles::new(5.0, 5.0, Grid::Cells(64), Targets::Count(3), eps).is_err());
    /// assert!(PrivateQuantiles::new(0.0, 1.0, Grid::Cells(64), Targets::Count(0), eps).is_err());
    /// let q = PrivateQuantiles::new(0.0, 1.0, Grid::Cells(64), Targets::Count(9), eps)?;
    /// assert_eq!(q.units(), 7);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn new(lo: f64, hi: f64, grid: Grid, targets: Targets, epsilon: Epsilon) -> Result<Self> {
        if !lo.is_finite() {
            return Err(Error::param("lo", format!("must be finite, got {lo}")));
        }
        if !hi.is_finite() {
            return Err(Error::param("hi", format!("must be finite, got {hi}")));
        }
        if lo >= hi {
            return Err(Error::param(
                "hi",
                format!("the bounds must satisfy lo < hi, got lo = {lo}, hi = {hi}"),
            ));
        }
        if !(hi - lo).is_finite() {
            return Err(Error::param("hi", "hi − lo overflows a double"));
        }
        let last = match grid {
            Grid::Integers => {
                if lo.fract() != 0.0 || hi.fract() != 0.0 {
                    return Err(Error::param(
                        "grid",
                        format!("an integer grid needs integer bounds, got [{lo}, {hi}]"),
                    ));
                }
                let width = hi - lo; // exact: both integers, and checked below
                if width > MAX_GRID_CELLS as f64 || lo.abs() > 2f64.powi(52) {
                    return Err(Error::param(
                        "grid",
                        format!(
                            "an integer grid holds at most 2^40 + 1 integers of magnitude below 2^52, got [{lo}, {hi}]"
                        ),
                    ));
                }
                width as u64
            }
            Grid::Cells(c) => {
                if c == 0 || c > MAX_GRID_CELLS {
                    return Err(Error::param(
                        "grid",
                        format!("the number of cells must be in [1, 2^40], got {c}"),
                    ));
                }
                c
            }
        };
        let targets = match targets {
            Targets::Count(m) => {
                check_count(m)?;
                (1..=m).map(|k| k as f64 / (m + 1) as f64).collect()
            }
            Targets::Probabilities(p) => {
                check_count(p.len())?;
                if let Some((i, &q)) = p
                    .iter()
                    .enumerate()
                    .find(|(_, q)| !(**q >= 0.0 && **q <= 1.0))
                {
                    return Err(Error::param(
                        "targets",
                        format!("target {i} is {q}, not a probability in [0, 1]"),
                    ));
                }
                if let Some(i) = p.windows(2).position(|w| w[0] > w[1]) {
                    return Err(Error::param(
                        "targets",
                        format!(
                            "must be non-decreasing, but target {} ({}) exceeds the next ({})",
                            i,
                            p[i],
                            p[i + 1]
                        ),
                    ));
                }
                p
            }
        };
        let units = level_units(targets.len());
        let epsilon_call = Epsilon::new(div_down(epsilon.get(), units as f64))
            .map_err(|_| Error::param("epsilon", format!("{} is too small", epsilon.get())))?;
        // The largest representative offset, (2/ε_c)·⌈log₂ G⌉·ln 2 with ⌈log₂ G⌉ ≤ 41, and
        // scores down to −n must stay finite whatever n (a public check, made here once).
        let offset = mul_up(div_up(2.0, epsilon_call.get()), mul_up(64.0, LN2_UP));
        if !add_up(offset, 2f64.powi(64)).is_finite() {
            return Err(Error::param(
                "epsilon",
                format!(
                    "{} is too small for {} quantiles (each mechanism would get {:e})",
                    epsilon.get(),
                    targets.len(),
                    epsilon_call.get()
                ),
            ));
        }
        Ok(Self {
            lo,
            hi,
            grid,
            last,
            targets,
            epsilon,
            epsilon_call,
        })
    }

    /// The target probabilities, in order.
    ///
    /// ```
    /// use disguise::histogram::{Grid, PrivateQuantiles, Targets};
    /// use disguise::privacy::Epsilon;
    /// let q = PrivateQuantiles::new(0.0, 1.0, Grid::Cells(4), Targets::Count(1), Epsilon::new(1.0)?)?;
    /// assert_eq!(q.targets(), &[0.5]);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn targets(&self) -> &[f64] {
        &self.targets
    }

    /// The number of grid points, G.
    ///
    /// ```
    /// use disguise::histogram::{Grid, PrivateQuantiles, Targets};
    /// use disguise::privacy::Epsilon;
    /// let q = PrivateQuantiles::new(-5.0, 5.0, Grid::Integers, Targets::Count(1), Epsilon::new(1.0)?)?;
    /// assert_eq!(q.grid_points(), 11);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn grid_points(&self) -> u64 {
        self.last + 1
    }

    /// Σ over the recursion's levels of min(2, nodes with a target): ε = units·ε_c (see
    /// *Guarantee*). A function of m alone.
    ///
    /// ```
    /// use disguise::histogram::{Grid, PrivateQuantiles, Targets};
    /// use disguise::privacy::Epsilon;
    /// let units = |m| PrivateQuantiles::new(0.0, 1.0, Grid::Cells(4), Targets::Count(m), Epsilon::new(1.0).unwrap()).unwrap().units();
    /// assert_eq!((units(1), units(3), units(31)), (1, 3, 9));
    /// ```
    pub fn units(&self) -> u32 {
        level_units(self.targets.len())
    }

    /// ε_c = ε/units (rounded down), the budget of each exponential mechanism call.
    ///
    /// ```
    /// use disguise::histogram::{Grid, PrivateQuantiles, Targets};
    /// use disguise::privacy::Epsilon;
    /// let q = PrivateQuantiles::new(0.0, 1.0, Grid::Cells(4), Targets::Count(3), Epsilon::new(0.3)?)?;
    /// assert!(q.epsilon_per_call().get() * 3.0 <= 0.3);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn epsilon_per_call(&self) -> Epsilon {
        self.epsilon_call
    }

    /// The cost of one [`release`](Self::release): ε-DP (pure) for replace-one neighbours.
    ///
    /// ```
    /// use disguise::histogram::{Grid, PrivateQuantiles, Targets};
    /// use disguise::privacy::{Epsilon, PrivacyCost};
    /// let q = PrivateQuantiles::new(0.0, 1.0, Grid::Cells(4), Targets::Count(7), Epsilon::new(0.5)?)?;
    /// assert_eq!(q.cost(), PrivacyCost::Pure { epsilon: Epsilon::new(0.5)? });
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn cost(&self) -> PrivacyCost {
        PrivacyCost::Pure {
            epsilon: self.epsilon,
        }
    }

    /// The grid index of a value: clamped into [lo, hi], then snapped to the nearest grid
    /// point. A function of the value and the public grid alone.
    ///
    /// ```
    /// use disguise::histogram::{Grid, PrivateQuantiles, Targets};
    /// use disguise::privacy::Epsilon;
    /// let q = PrivateQuantiles::new(0.0, 1.0, Grid::Cells(4), Targets::Count(1), Epsilon::new(1.0)?)?;
    /// assert_eq!(q.index_of(0.3), 1); // 1.2 cells: nearest point 1
    /// assert_eq!(q.index_of(-8.0), 0); // clamped
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn index_of(&self, value: f64) -> u64 {
        let x = value.clamp(self.lo, self.hi);
        let i = match self.grid {
            Grid::Integers => x.round() - self.lo,
            Grid::Cells(c) => ((x - self.lo) / (self.hi - self.lo) * c as f64).round(),
        };
        (i.max(0.0) as u64).min(self.last)
    }

    /// The value of grid index i ≤ G − 1, non-decreasing in i, lo at 0 and hi at G − 1.
    ///
    /// ```
    /// use disguise::histogram::{Grid, PrivateQuantiles, Targets};
    /// use disguise::privacy::Epsilon;
    /// let q = PrivateQuantiles::new(0.0, 1.0, Grid::Cells(4), Targets::Count(1), Epsilon::new(1.0)?)?;
    /// assert_eq!((q.value_of(0), q.value_of(1), q.value_of(4)), (0.0, 0.25, 1.0));
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn value_of(&self, index: u64) -> f64 {
        let i = index.min(self.last);
        if i == self.last {
            return self.hi;
        }
        match self.grid {
            Grid::Integers => self.lo + i as f64,
            Grid::Cells(c) => (self.lo + (self.hi - self.lo) * (i as f64 / c as f64)).min(self.hi),
        }
    }

    /// Releases the edges of `values` (any order; ±∞ are clamped like any value out of the
    /// bounds; n = 0 allowed).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] named `values` when a value is NaN (malformed input: the
    /// message names no position and no value).
    ///
    /// ```
    /// use disguise::histogram::{Grid, PrivateQuantiles, Targets};
    /// use disguise::privacy::Epsilon;
    /// let q = PrivateQuantiles::new(0.0, 10.0, Grid::Integers, Targets::Count(4), Epsilon::new(2.0)?)?;
    /// let mut rng = disguise::SecureRng::from_os()?;
    /// let edges = q.release(&[1.0, 2.0, 2.0, 5.0, 8.0, 40.0], &mut rng)?.edges;
    /// assert!(edges.windows(2).all(|w| w[0] <= w[1]) && edges.iter().all(|e| (0.0..=10.0).contains(e)));
    /// assert!(q.release(&[f64::NAN], &mut rng).is_err());
    /// // An empty column is valid: edges drawn from the bounds alone.
    /// assert_eq!(q.release(&[], &mut rng)?.edges.len(), 4);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn release(&self, values: &[f64], rng: &mut SecureRng) -> Result<QuantileRelease> {
        let mut counts = GridCounts::default();
        for &v in values {
            self.count(&mut counts, v)?;
        }
        self.release_counts(&counts, rng)
    }

    /// Adds one value to a column's [`GridCounts`]: snapped to its grid index
    /// ([`index_of`](Self::index_of)).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] named `values` when the value is NaN (the message names
    /// no value).
    pub fn count(&self, counts: &mut GridCounts, value: f64) -> Result<()> {
        if value.is_nan() {
            return Err(Error::param(
                "values",
                "a value is NaN; the column must be numbers",
            ));
        }
        counts.add(self.index_of(value), 1);
        Ok(())
    }

    /// Releases the edges of a column given as its counts on this request's grid (built
    /// with [`count`](Self::count), or summed over the parts of a table): the same law as
    /// [`release`](Self::release) on the values, which is a function of these counts only.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] named `values` when an index is beyond the grid.
    ///
    /// ```
    /// use disguise::histogram::{Grid, GridCounts, PrivateQuantiles, Targets};
    /// use disguise::privacy::Epsilon;
    /// let q = PrivateQuantiles::new(0.0, 10.0, Grid::Integers, Targets::Count(1), Epsilon::new(1.0)?)?;
    /// let mut counts = GridCounts::default();
    /// for v in [3.0, 3.0, 4.0] {
    ///     q.count(&mut counts, v)?;
    /// }
    /// assert_eq!(counts.total(), 3);
    /// let edge = q.release_counts(&counts, &mut disguise::SecureRng::from_os()?)?.edges[0];
    /// assert!((0.0..=10.0).contains(&edge));
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn release_counts(
        &self,
        counts: &GridCounts,
        rng: &mut SecureRng,
    ) -> Result<QuantileRelease> {
        self.release_with(counts, Sensitivity::new(1.0)?, rng)
    }

    /// [`release_counts`](Self::release_counts) with the score's sensitivity λ as a knob:
    /// λ = 1 is the mechanism; the tests plant λ = ½ (weights exp(ε_c·u)) to show that the
    /// audit catches a sensitivity error.
    fn release_with(
        &self,
        counts: &GridCounts,
        lambda: Sensitivity,
        rng: &mut SecureRng,
    ) -> Result<QuantileRelease> {
        if counts
            .counts
            .keys()
            .next_back()
            .is_some_and(|&i| i > self.last)
        {
            return Err(Error::param(
                "values",
                "a grid index is beyond the grid (counts made for another request)",
            ));
        }
        let runs: Vec<(u64, u64)> = counts.counts.iter().map(|(&i, &c)| (i, c)).collect();
        let indices = solve_all(
            &runs,
            self.last,
            &self.targets,
            self.epsilon_call,
            lambda,
            rng,
        )?;
        Ok(QuantileRelease {
            edges: indices.iter().map(|&i| self.value_of(i)).collect(),
            indices,
            cost: self.cost(),
        })
    }
}

/// A column's records as counts on a quantile request's grid: how many records snapped to
/// each grid index. Memory grows with the distinct indices (at most min(n, G)), not with n;
/// counts of the parts of a table add up ([`merge`](Self::merge)) to the whole's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GridCounts {
    counts: std::collections::BTreeMap<u64, u64>,
    total: u64,
}

impl GridCounts {
    /// Adds `count` records at grid index `index`.
    pub fn add(&mut self, index: u64, count: u64) {
        if count > 0 {
            *self.counts.entry(index).or_insert(0) += count;
            self.total += count;
        }
    }

    /// Adds another part's counts.
    pub fn merge(&mut self, other: &GridCounts) {
        for (&i, &c) in &other.counts {
            self.add(i, c);
        }
    }

    /// The number of records counted.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The (grid index, count) pairs, by index.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.counts.iter().map(|(&i, &c)| (i, c))
    }
}

fn check_count(m: usize) -> Result<()> {
    if m == 0 {
        return Err(Error::param(
            "targets",
            "at least one quantile is needed, got 0",
        ));
    }
    if m > MAX_QUANTILES {
        return Err(Error::param(
            "targets",
            format!("at most {MAX_QUANTILES} quantiles, got {m}"),
        ));
    }
    Ok(())
}

/// How the recursion splits k targets: the middle one (index ⌊k/2⌋), then ⌊k/2⌋ on the left
/// and k − ⌊k/2⌋ − 1 on the right.
fn split(k: usize) -> (usize, usize) {
    (k / 2, k - k / 2 - 1)
}

/// Σ over levels of min(2, nodes with ≥ 1 target at that level), for m targets.
fn level_units(m: usize) -> u32 {
    let mut level = vec![m];
    let mut units = 0u32;
    while !level.is_empty() {
        units += level.len().min(2) as u32;
        level = level
            .iter()
            .flat_map(|&k| {
                let (l, r) = split(k);
                [l, r]
            })
            .filter(|&k| k > 0)
            .collect();
    }
    units
}

/// Runs the recursion on (grid index, count) pairs sorted by index; returns the m edges'
/// indices.
fn solve_all(
    sorted: &[(u64, u64)],
    last: u64,
    targets: &[f64],
    epsilon_call: Epsilon,
    lambda: Sensitivity,
    rng: &mut SecureRng,
) -> Result<Vec<u64>> {
    let mut out = vec![0u64; targets.len()];
    let node = Node {
        records: sorted,
        n: sorted.iter().map(|&(_, c)| c).sum(),
        a: 0,
        b: last,
        p_lo: 0.0,
        p_hi: 1.0,
    };
    solve(&node, targets, &mut out, epsilon_call, lambda, rng)?;
    Ok(out)
}

/// One node of the recursion: its records ((index, count) pairs sorted by index, all in
/// [a, b]) and how many they are, its candidate range and the target probabilities of its
/// enclosing edges.
struct Node<'a> {
    records: &'a [(u64, u64)],
    n: u64,
    a: u64,
    b: u64,
    p_lo: f64,
    p_hi: f64,
}

fn solve(
    node: &Node<'_>,
    targets: &[f64],
    out: &mut [u64],
    epsilon_call: Epsilon,
    lambda: Sensitivity,
    rng: &mut SecureRng,
) -> Result<()> {
    if targets.is_empty() {
        return Ok(());
    }
    let (k, _) = split(targets.len());
    let q = targets[k];
    let t = local_rank(q, node.p_lo, node.p_hi, node.n);
    let v = sample_quantile(node.records, node.a, node.b, t, epsilon_call, lambda, rng)?;
    out[k] = v;
    let cut = node.records.partition_point(|&(x, _)| x < v);
    let below: u64 = node.records[..cut].iter().map(|&(_, c)| c).sum();
    let left = Node {
        records: &node.records[..cut],
        n: below,
        a: node.a,
        b: v,
        p_lo: node.p_lo,
        p_hi: q,
    };
    let right = Node {
        records: &node.records[cut..],
        n: node.n - below,
        a: v,
        b: node.b,
        p_lo: q,
        p_hi: node.p_hi,
    };
    let (out_left, rest) = out.split_at_mut(k);
    solve(&left, &targets[..k], out_left, epsilon_call, lambda, rng)?;
    solve(
        &right,
        &targets[k + 1..],
        &mut rest[1..],
        epsilon_call,
        lambda,
        rng,
    )
}

/// t = ⌊r·n′⌋, r = (q − p_lo)/(p_hi − p_lo) clamped to [0, 1] (0 when p_lo = p_hi), in exact
/// rational arithmetic on the stored doubles.
fn local_rank(q: f64, p_lo: f64, p_hi: f64, n: u64) -> u64 {
    if p_hi <= p_lo || q <= p_lo || n == 0 {
        return 0;
    }
    if q >= p_hi {
        return n;
    }
    let rat = |v: f64| BigRational::from_float(v).expect("a finite probability");
    let r = (rat(q) - rat(p_lo)) / (rat(p_hi) - rat(p_lo));
    let t = (r * BigRational::from_integer(BigInt::from(n))).floor();
    t.to_integer().to_u64().expect("t ≤ n").min(n)
}

/// A run of candidate grid indices with one score.
struct Run {
    start: u64,
    len: u64,
    score: f64,
}

/// The runs of equal score over candidates [a, b] for records given as (index, count) pairs
/// sorted by index (all in [a, b]) and the local rank t: the gaps between distinct values
/// and the values themselves.
fn runs(records: &[(u64, u64)], a: u64, b: u64, t: u64) -> Vec<Run> {
    let score = |below: u64, upto: u64| -> f64 {
        // −max(L − t, t − L⁺, 0): integers ≤ n < 2⁵³, exact in f64.
        let d = below.saturating_sub(t).max(t.saturating_sub(upto));
        -(d as f64)
    };
    let mut out = Vec::new();
    let mut next = a; // the first candidate not yet in a run
    let mut below = 0u64;
    for &(u, c) in records {
        if u > next {
            out.push(Run {
                start: next,
                len: u - next,
                score: score(below, below),
            });
        }
        out.push(Run {
            start: u,
            len: 1,
            score: score(below, below + c),
        });
        below += c;
        next = u + 1;
    }
    if next <= b {
        out.push(Run {
            start: next,
            len: b - next + 1,
            score: score(below, below),
        });
    }
    out
}

/// One draw of the single-quantile mechanism: grid index g ∈ [a, b] with probability
/// ∝ exp(ε_c·u(g)/(2λ)), exactly (the two stages of *Precision* on [`PrivateQuantiles`]).
fn sample_quantile(
    records: &[(u64, u64)],
    a: u64,
    b: u64,
    t: u64,
    epsilon_call: Epsilon,
    lambda: Sensitivity,
    rng: &mut SecureRng,
) -> Result<u64> {
    let runs = runs(records, a, b, t);
    if let [only] = runs.as_slice() {
        // One run (e.g. no records in the node): it is chosen with probability 1.
        return Ok(only.start + uniform_below(rng, only.len));
    }
    let (eps, lam) = (epsilon_call.get(), lambda.get());
    // 2λ/ε rounded up: the score offset that multiplies a weight by e.
    let unit = div_up(mul_up(2.0, lam), eps);
    let reps: Vec<f64> = runs
        .iter()
        .map(|r| {
            if r.len == 1 {
                r.score
            } else {
                let bits = 64 - (r.len - 1).leading_zeros(); // ⌈log₂ len⌉ ≥ 1
                add_up(r.score, mul_up(unit, mul_up(f64::from(bits), LN2_UP)))
            }
        })
        .collect();
    let rat = |v: f64| BigRational::from_float(v).expect("finite");
    loop {
        let j = sample_exponential(rng, &reps, epsilon_call, lambda, 2)?;
        let run = &runs[j];
        if run.len > 1 {
            // y = ε(ρ − s)/(2λ) exactly; len·e^{−y} ≤ 1 since y ≥ ⌈log₂ len⌉·ln 2.
            let y = rat(eps) * (rat(reps[j]) - rat(run.score))
                / (rat(lam) * BigRational::from_integer(BigInt::from(2)));
            debug_assert!(!y.is_zero());
            let coin = ScaledExpCoin::new(&BigUint::from(run.len), &y);
            debug_assert!(coin.certified_at_most_one());
            if !coin.flip(rng) {
                continue;
            }
        }
        return Ok(run.start + uniform_below(rng, run.len));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::gof::chi_square;
    use crate::audit::{AuditConfig, audit};
    use crate::noise::scaled_exp::exp_neg_enclosure;
    use crate::testing::{eps, sens};
    use std::collections::HashMap;

    /// Sorted grid indices as (index, count) pairs.
    fn pairs(sorted: &[u64]) -> Vec<(u64, u64)> {
        let mut counts = GridCounts::default();
        for &i in sorted {
            counts.add(i, 1);
        }
        counts.iter().collect()
    }

    fn request(lo: f64, hi: f64, grid: Grid, targets: Targets, e: f64) -> PrivateQuantiles {
        PrivateQuantiles::new(lo, hi, grid, targets, eps(e)).unwrap()
    }

    /// The exact joint law of the edges' grid indices, computed point by point over the grid
    /// (no runs, no representatives, no rejection): an independent reference for the
    /// sampler. Probabilities in f64 (max-shifted exponentials).
    fn exact_law(
        records: &[u64],
        (a, b): (u64, u64),
        (p_lo, p_hi): (f64, f64),
        targets: &[f64],
        e: f64,
        lambda: f64,
    ) -> HashMap<Vec<u64>, f64> {
        let mut law = HashMap::new();
        if targets.is_empty() {
            law.insert(Vec::new(), 1.0);
            return law;
        }
        let k = targets.len() / 2;
        let q = targets[k];
        let n = records.len() as f64;
        let r = if p_hi > p_lo {
            ((q - p_lo) / (p_hi - p_lo)).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let t = (r * n + 1e-9).floor();
        let scores: Vec<f64> = (a..=b)
            .map(|g| {
                let below = records.iter().filter(|&&x| x < g).count() as f64;
                let upto = records.iter().filter(|&&x| x <= g).count() as f64;
                -(below - t).max(t - upto).max(0.0)
            })
            .collect();
        let top = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let w: Vec<f64> = scores
            .iter()
            .map(|s| (e * (s - top) / (2.0 * lambda)).exp())
            .collect();
        let z: f64 = w.iter().sum();
        for (i, g) in (a..=b).enumerate() {
            let pv = w[i] / z;
            let left: Vec<u64> = records.iter().copied().filter(|&x| x < g).collect();
            let right: Vec<u64> = records.iter().copied().filter(|&x| x >= g).collect();
            let ll = exact_law(&left, (a, g), (p_lo, q), &targets[..k], e, lambda);
            let rl = exact_law(&right, (g, b), (q, p_hi), &targets[k + 1..], e, lambda);
            for (lk, lp) in &ll {
                for (rk, rp) in &rl {
                    let mut key = lk.clone();
                    key.push(g);
                    key.extend_from_slice(rk);
                    *law.entry(key).or_insert(0.0) += pv * lp * rp;
                }
            }
        }
        law
    }

    /// The exact law of a request on values (snapped and sorted as the release does).
    fn law_of(q: &PrivateQuantiles, values: &[f64], lambda: f64) -> HashMap<Vec<u64>, f64> {
        let mut g: Vec<u64> = values.iter().map(|&v| q.index_of(v)).collect();
        g.sort_unstable();
        exact_law(
            &g,
            (0, q.last),
            (0.0, 1.0),
            q.targets(),
            q.epsilon_per_call().get(),
            lambda,
        )
    }

    /// Draws `draws` releases and tests their joint counts against the exact law by
    /// chi-square; fails at p < 1e-4 (false-alarm rate 1e-4 per call).
    fn assert_follows_law(q: &PrivateQuantiles, values: &[f64], draws: u64, seed: u64) {
        let law = law_of(q, values, 1.0);
        let keys: Vec<Vec<u64>> = law.keys().cloned().collect();
        let index: HashMap<&Vec<u64>, usize> =
            keys.iter().enumerate().map(|(i, k)| (k, i)).collect();
        let mut counts = vec![0u64; keys.len()];
        let mut rng = SecureRng::insecure_from_seed(seed);
        for _ in 0..draws {
            let r = q.release(values, &mut rng).unwrap();
            let i = *index
                .get(&r.indices)
                .unwrap_or_else(|| panic!("impossible {:?}", r.indices));
            counts[i] += 1;
        }
        let probs: Vec<f64> = keys.iter().map(|k| law[k]).collect();
        let total: f64 = probs.iter().sum();
        assert!((total - 1.0).abs() < 1e-9);
        let probs: Vec<f64> = probs.iter().map(|p| p / total).collect();
        let test = chi_square(&counts, &probs).unwrap();
        assert!(test.p_value > 1e-4, "{test:?}\n{counts:?}\n{probs:?}");
    }

    #[test]
    fn ln2_up_is_above_ln2_and_is_the_next_double() {
        use crate::noise::bernoulli::f64_to_ratio;
        assert_eq!(LN2_UP, std::f64::consts::LN_2.next_up());
        // e^{−LN2_UP} < ½ < e^{−LN_2}, with certified enclosures at 128 bits.
        let half = BigUint::from(1u32) << 127u32;
        let (num, den) = f64_to_ratio(LN2_UP);
        let (_, hi) = exp_neg_enclosure(&num, &den, 128);
        assert!(hi < half);
        let (num, den) = f64_to_ratio(std::f64::consts::LN_2);
        let (lo, _) = exp_neg_enclosure(&num, &den, 128);
        assert!(lo > half);
    }

    #[test]
    fn units_count_one_per_lone_node_and_two_per_level_otherwise() {
        let units: Vec<u32> = [1, 2, 3, 4, 7, 9, 15, 31, 1000]
            .iter()
            .map(|&m| level_units(m))
            .collect();
        // m = 1: one call; m = 2: two levels of one node; m = 3: 1 + 2; m = 9: levels of
        // 1, 2, 4, 2 nodes; m = 2^k − 1: 2k − 1.
        assert_eq!(units, vec![1, 2, 3, 4, 5, 7, 7, 9, 19]);
        let q = request(0.0, 1.0, Grid::Cells(8), Targets::Count(9), 0.7);
        assert_eq!(q.units(), 7);
        assert!(q.epsilon_per_call().get() * 7.0 <= 0.7);
        assert_eq!(q.cost(), PrivacyCost::Pure { epsilon: eps(0.7) });
    }

    #[test]
    fn runs_tile_the_candidates_with_the_pointwise_scores() {
        let mut rng = SecureRng::insecure_from_seed(1);
        for trial in 0..200 {
            let (a, b) = (uniform_below(&mut rng, 5), 5 + uniform_below(&mut rng, 20));
            let n = uniform_below(&mut rng, 12) as usize;
            let mut recs: Vec<u64> = (0..n)
                .map(|_| a + uniform_below(&mut rng, b - a + 1))
                .collect();
            recs.sort_unstable();
            let t = uniform_below(&mut rng, n as u64 + 1);
            let rs = runs(&pairs(&recs), a, b, t);
            let mut next = a;
            for r in &rs {
                assert_eq!(r.start, next, "trial {trial}");
                assert!(r.len >= 1);
                for g in r.start..r.start + r.len {
                    let below = recs.iter().filter(|&&x| x < g).count() as i64;
                    let upto = recs.iter().filter(|&&x| x <= g).count() as i64;
                    let t = t as i64;
                    let naive = -(below - t).max(t - upto).max(0);
                    assert_eq!(r.score, naive as f64, "trial {trial} g {g}");
                }
                next = r.start + r.len;
            }
            assert_eq!(next, b + 1);
        }
    }

    #[test]
    fn one_quantile_follows_its_exact_law() {
        // Ties (three records at 4), an empty stretch and a bound mass; ε = 1: 10 outcomes.
        let q = request(
            0.0,
            9.0,
            Grid::Integers,
            Targets::Probabilities(vec![0.5]),
            1.0,
        );
        let values = [0.0, 4.0, 4.0, 4.0, 7.0, 9.0, 12.0];
        assert_follows_law(&q, &values, 100_000, 2);
    }

    #[test]
    fn long_runs_follow_their_exact_law() {
        // 2^20 cells, records at four points: runs of up to ~500,000 grid points, so every
        // draw goes through the representative and the Bernoulli(len·e^{−y}) coin. Outcomes
        // grouped by run; the law is len·exp(ε·s/2) per run (chi-square, false alarm 1e-4).
        let c = 1u64 << 20;
        let q = request(
            0.0,
            1.0,
            Grid::Cells(c),
            Targets::Probabilities(vec![0.4]),
            0.8,
        );
        let values = [0.1, 0.1, 0.5, 0.75, 0.75, 0.75, 0.9];
        let mut g: Vec<u64> = values.iter().map(|&v| q.index_of(v)).collect();
        g.sort_unstable();
        let t = local_rank(0.4, 0.0, 1.0, g.len() as u64);
        let rs = runs(&pairs(&g), 0, c, t);
        let logw: Vec<f64> = rs
            .iter()
            .map(|r| (r.len as f64).ln() + 0.8 * r.score / 2.0)
            .collect();
        let top = logw.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let w: Vec<f64> = logw.iter().map(|l| (l - top).exp()).collect();
        let z: f64 = w.iter().sum();
        let probs: Vec<f64> = w.iter().map(|x| x / z).collect();
        let mut counts = vec![0u64; rs.len()];
        let mut rng = SecureRng::insecure_from_seed(3);
        for _ in 0..40_000 {
            let i = q.release(&values, &mut rng).unwrap().indices[0];
            let j = rs
                .iter()
                .position(|r| i >= r.start && i < r.start + r.len)
                .unwrap();
            counts[j] += 1;
        }
        let test = chi_square(&counts, &probs).unwrap();
        assert!(test.p_value > 1e-4, "{test:?} {counts:?} {probs:?}");
    }

    #[test]
    fn three_quantiles_follow_their_exact_joint_law() {
        // The recursion (root, then both children) against the pointwise reference: 6 grid
        // points, ties, a point mass at the lower bound; 3 levels' worth of outcomes.
        let q = request(0.0, 5.0, Grid::Integers, Targets::Count(3), 2.4);
        let values = [0.0, 0.0, 0.0, 2.0, 3.0, 3.0, 5.0];
        assert_follows_law(&q, &values, 100_000, 4);
        let q = request(
            0.0,
            5.0,
            Grid::Integers,
            Targets::Probabilities(vec![0.1, 0.5, 0.5, 0.9]),
            3.0,
        );
        assert_follows_law(&q, &values, 100_000, 5);
    }

    #[test]
    fn an_empty_column_gives_edges_from_the_bounds_alone() {
        // n = 0: the same code path; every score is 0, so the median is uniform on the grid
        // and three quantiles follow the exact law of the empty column (chi-square).
        let q = request(-2.0, 2.0, Grid::Integers, Targets::Count(1), 1.0);
        assert_follows_law(&q, &[], 20_000, 6);
        let q = request(0.0, 4.0, Grid::Cells(4), Targets::Count(3), 1.0);
        assert_follows_law(&q, &[], 20_000, 7);
        let mut rng = SecureRng::insecure_from_seed(8);
        let r = q.release(&[], &mut rng).unwrap();
        assert!(r.edges.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn the_deciles_of_a_point_mass_land_on_it_exactly() {
        // Capital gain on Adult: 0 for 91.7 % of people. 30,000 records, 27,510 zeros, the
        // rest spread over [114, 99,999]; integer grid of 100,000 points; deciles at
        // ε = 0.1 in all (ε_c = 0.1/7). Every true decile is 0. The nearest competing
        // target is 3,510 ranks from the mass's end, so a wrong edge has total probability
        // below 10⁵·e^{−(0.1/7)·3510/2} ≈ 1.4·10⁻⁶ per edge: the 20 runs × 9 edges fail
        // with probability < 3·10⁻⁴ (the false-alarm rate).
        let mut values = vec![0.0; 27_510];
        values.extend((0..2_490u64).map(|i| (114 + (i * 7_919) % 99_886) as f64));
        let q = request(0.0, 99_999.0, Grid::Integers, Targets::Count(9), 0.1);
        let mut rng = SecureRng::insecure_from_seed(9);
        for _ in 0..20 {
            let r = q.release(&values, &mut rng).unwrap();
            assert_eq!(r.edges, vec![0.0; 9]);
        }
        // The 99th percentile is well above the mass: it does not stick to 0.
        let q = request(
            0.0,
            99_999.0,
            Grid::Integers,
            Targets::Probabilities(vec![0.99]),
            1.0,
        );
        let r = q.release(&values, &mut rng).unwrap();
        assert!(r.edges[0] > 50_000.0, "{:?}", r.edges);
    }

    /// All replace-one neighbours of `base` on the grid of `q` (one record moved to every
    /// other grid point), with the exact largest |ln P(o|D)/P(o|D′)| over outputs o.
    fn exact_losses(q: &PrivateQuantiles, base: &[f64], lambda: f64) -> Vec<(f64, Vec<f64>)> {
        let p = law_of(q, base, lambda);
        let mut out = Vec::new();
        for i in 0..base.len() {
            for g in 0..=q.last {
                let mut other = base.to_vec();
                other[i] = q.value_of(g);
                if other[i] == base[i] {
                    continue;
                }
                let pp = law_of(q, &other, lambda);
                let loss = p
                    .iter()
                    .map(|(k, &a)| (a.ln() - pp[k].ln()).abs())
                    .fold(0.0, f64::max);
                out.push((loss, other));
            }
        }
        out
    }

    #[test]
    fn the_exact_privacy_loss_is_within_epsilon_and_a_halved_sensitivity_is_not() {
        // Exact audit: the exact laws on every replace-one neighbour of two small columns.
        // m = 1 (one call at ε): the loss never exceeds ε (up to f64 error), comes close to
        // it, and exceeds it with λ = ½ planted. m = 3 (units 3: the root at ε_c, the second
        // level at 2ε_c): the loss stays within ε and exceeds one call's ε_c, so the levels'
        // losses do add up; λ = ½ doubles it (on columns this small the true loss stays near
        // ε/2, so the planted error shows as the doubling rather than as a loss above ε).
        let e = 1.5;
        let q = request(0.0, 5.0, Grid::Integers, Targets::Count(1), e);
        let worst = |q: &PrivateQuantiles, base: &[f64], lambda: f64| {
            exact_losses(q, base, lambda)
                .iter()
                .map(|l| l.0)
                .fold(0.0, f64::max)
        };
        let base = [0.0, 1.0, 1.0, 3.0, 4.0];
        let good = worst(&q, &base, 1.0);
        assert!(good <= e + 1e-9 && good > 0.5 * e, "m 1: {good}");
        let bad = worst(&q, &base, 0.5);
        assert!(bad > 1.1 * e, "m 1: planted error not visible: {bad}");

        let q = request(0.0, 5.0, Grid::Integers, Targets::Count(3), e);
        let base = [0.0, 0.0, 2.0, 3.0, 5.0];
        let good = worst(&q, &base, 1.0);
        let call = q.epsilon_per_call().get();
        assert!(
            good <= e + 1e-9 && good > 1.2 * call,
            "m 3: {good} (ε_c {call})"
        );
        let bad = worst(&q, &base, 0.5);
        assert!(
            bad > 1.8 * good,
            "m 3: planted error not visible: {bad} vs {good}"
        );
    }

    #[test]
    fn the_sampler_passes_the_audit_and_a_halved_sensitivity_is_caught() {
        // Black-box audit of the real sampler (`audit`, Clopper–Pearson at joint confidence
        // 1 − 10⁻⁶: a correct mechanism is refuted with probability ≤ 10⁻⁶) on the worst
        // replace-one neighbours found by the exact audit above. The negative control is the
        // same code with λ = ½ (the score's sensitivity halved), which must be refuted.
        let e = 1.0;
        let q = request(0.0, 5.0, Grid::Integers, Targets::Count(1), e);
        let base = vec![0.0, 1.0, 1.0, 3.0, 4.0];
        let (loss, other) = exact_losses(&q, &base, 1.0)
            .into_iter()
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .unwrap();
        let (bad_loss, bad_other) = exact_losses(&q, &base, 0.5)
            .into_iter()
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .unwrap();
        assert!(loss <= e + 1e-9 && bad_loss > 1.3 * e, "{loss} {bad_loss}");
        let q = &q;
        let run = |lambda: f64| {
            move |rng: &mut SecureRng, values: &Vec<f64>| {
                let mut counts = GridCounts::default();
                for &v in values {
                    q.count(&mut counts, v).unwrap();
                }
                q.release_with(&counts, sens(lambda), rng)
                    .map(|r| r.indices[0])
            }
        };
        let mut rng = SecureRng::insecure_from_seed(10);
        let config = AuditConfig::new(60_000);
        let good = audit(run(1.0), &base, &other, &config, &mut rng).unwrap();
        assert!(!good.violates(e), "eps_lower {}", good.epsilon_lower);
        let bad = audit(run(0.5), &base, &bad_other, &config, &mut rng).unwrap();
        assert!(
            bad.violates(e),
            "planted error missed: eps_lower {}",
            bad.epsilon_lower
        );
    }

    #[test]
    fn invalid_requests_are_refused_with_typed_errors() {
        let e = eps(1.0);
        let name = |r: Result<PrivateQuantiles>| match r {
            Err(Error::InvalidParameter { name, .. }) => name,
            other => panic!("{other:?}"),
        };
        // (lo, hi, grid, targets, ε, the parameter named).
        let cells = |c| Grid::Cells(c);
        let count = |m| Targets::Count(m);
        let probabilities = |p: &[f64]| Targets::Probabilities(p.to_vec());
        let cases = [
            (1.0, 1.0, cells(4), count(1), e, "hi"),
            (2.0, 1.0, cells(4), count(1), e, "hi"),
            (f64::NAN, 1.0, cells(4), count(1), e, "lo"),
            (0.0, f64::INFINITY, cells(4), count(1), e, "hi"),
            (-f64::MAX, f64::MAX, cells(4), count(1), e, "hi"),
            (0.0, 1.5, Grid::Integers, count(1), e, "grid"),
            (0.0, 1e13, Grid::Integers, count(1), e, "grid"),
            (0.0, 1.0, cells(0), count(1), e, "grid"),
            (0.0, 1.0, cells(MAX_GRID_CELLS + 1), count(1), e, "grid"),
            (0.0, 1.0, cells(4), count(0), e, "targets"),
            (0.0, 1.0, cells(4), count(MAX_QUANTILES + 1), e, "targets"),
            (0.0, 1.0, cells(4), probabilities(&[]), e, "targets"),
            (
                0.0,
                1.0,
                cells(4),
                probabilities(&[0.5, f64::NAN]),
                e,
                "targets",
            ),
            (0.0, 1.0, cells(4), probabilities(&[0.5, 1.5]), e, "targets"),
            (0.0, 1.0, cells(4), probabilities(&[0.6, 0.5]), e, "targets"),
            (0.0, 1.0, cells(4), count(1), eps(1e-307), "epsilon"),
        ];
        for (lo, hi, grid, targets, epsilon, expected) in cases {
            let what = format!("[{lo}, {hi}], {grid:?}, {targets:?}");
            assert_eq!(
                name(PrivateQuantiles::new(lo, hi, grid, targets, epsilon)),
                expected,
                "{what}"
            );
        }
        // ε itself is validated by its type: ε ≤ 0 and NaN never reach the mechanism.
        assert_eq!(Epsilon::new(0.0), Err(Error::InvalidEpsilon(0.0)));
        assert!(matches!(Epsilon::new(f64::NAN), Err(Error::InvalidEpsilon(v)) if v.is_nan()));
        assert!(matches!(Epsilon::new(-1.0), Err(Error::InvalidEpsilon(_))));
        // A NaN value is malformed input, refused without naming where it is.
        let q = request(0.0, 1.0, Grid::Cells(4), Targets::Count(1), 1.0);
        let mut rng = SecureRng::insecure_from_seed(11);
        let err = q.release(&[0.5, f64::NAN], &mut rng).unwrap_err();
        assert!(
            matches!(err, Error::InvalidParameter { name: "values", .. }),
            "{err:?}"
        );
        assert!(!err.to_string().contains('1'), "{err}");
    }

    #[test]
    fn values_are_clamped_and_snapped_and_edges_are_monotone() {
        let q = request(-1.0, 1.0, Grid::Cells(8), Targets::Count(3), 1.0);
        assert_eq!(q.grid_points(), 9);
        assert_eq!(q.index_of(-7.0), 0);
        assert_eq!(q.index_of(f64::NEG_INFINITY), 0);
        assert_eq!(q.index_of(f64::INFINITY), 8);
        assert_eq!(q.index_of(0.0), 4);
        assert_eq!(q.index_of(0.2), 5); // 0.2 is 4.8 cells from −1: nearest point 5
        assert_eq!(q.value_of(0), -1.0);
        assert_eq!(q.value_of(8), 1.0);
        assert_eq!(q.value_of(5), 0.25);
        let values: Vec<f64> = (0..=8).map(|i| q.value_of(i)).collect();
        assert!(values.windows(2).all(|w| w[0] < w[1]));
        let odd = request(0.1, 0.7, Grid::Cells(3), Targets::Count(1), 1.0);
        let v: Vec<f64> = (0..=3).map(|i| odd.value_of(i)).collect();
        assert!(
            v.windows(2).all(|w| w[0] <= w[1]) && v[0] == 0.1 && v[3] == 0.7,
            "{v:?}"
        );
        let ints = request(-3.0, 3.0, Grid::Integers, Targets::Count(1), 1.0);
        assert_eq!(ints.index_of(0.4), 3);
        assert_eq!(ints.index_of(-2.6), 0);
        assert_eq!(ints.value_of(6), 3.0);
        // Out-of-bounds values are clamped: the release equals that of the clamped column.
        let wild = [-1e300, -0.5, 0.3, 7.0, f64::INFINITY];
        let tame = [-1.0, -0.5, 0.3, 1.0, 1.0];
        let a = q
            .release(&wild, &mut SecureRng::insecure_from_seed(12))
            .unwrap();
        let b = q
            .release(&tame, &mut SecureRng::insecure_from_seed(12))
            .unwrap();
        assert_eq!(a, b);
        assert!(a.edges.windows(2).all(|w| w[0] <= w[1]));
        assert!(a.edges.iter().all(|&x| (-1.0..=1.0).contains(&x)));
    }
}
