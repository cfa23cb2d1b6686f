//! The exponential mechanism over the bases of a matroid, sampled exactly without enumerating
//! them, and its helpers: the exponential mechanism over integer scores, the max-weight base
//! and a data-independent random base.
//!
//! The private continuous greedy (Rafiey & Yoshida 2020, Algorithms 1–2) picks each step's
//! direction y ∈ C ⊆ P(M) by the exponential mechanism on the linear score ⟨y, ∇F(x)⟩.
//! Taking C = the bases of M (the vertices of P(M)) loses nothing: a linear function with
//! non-negative coefficients is maximised over P(M) at a base. For a base B the score is
//! Σ_{e∈B} g_e, so the mechanism's distribution is a *product-weight* distribution,
//! Pr[B] ∝ Π_{e∈B} w_e with w_e = exp(c·g_e), c = ε/(2s) — for a uniform matroid a
//! conditional-Poisson distribution, for a partition matroid a product of those over the
//! blocks. [`exponential_base`] samples it exactly; see there for the algorithm and proof.

use crate::constraint::{Cardinality, Graphic, Independence, Matroid, Partition, Uniform};
use crate::error::{Error, Result};
use crate::noise::bernoulli::{BitPool, f64_parts, uniform_below};
use crate::privacy::Epsilon;
use num_bigint::BigUint;
use rand_core::{CryptoRng, Rng};
use serde::Serialize;

/// One block of a matroid whose bases are a product of uniform matroids: a base contains
/// exactly `size` elements of `elements` (and `size` ≤ `elements.len()`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Block {
    /// The block's elements (distinct, not shared with another block).
    pub elements: Vec<usize>,
    /// How many of them every base contains.
    pub size: usize,
}

/// Matroids whose bases the exact sampler can handle, i.e. whose bases are exactly the sets
/// taking `size` elements from each of some disjoint blocks and nothing else: uniform
/// matroids (one block) and partition matroids (one block per group). Elements in no block
/// are loops (never in a base).
///
/// For other matroids (graphic) [`MatroidBases::uniform_blocks`] returns `None`, and the
/// continuous greedy uses the oracle-only direction rules instead.
pub trait MatroidBases: Independence {
    /// The blocks, or `None` when the bases are not a product of uniform matroids.
    fn uniform_blocks(&self) -> Option<Vec<Block>>;
}

impl MatroidBases for Cardinality {
    fn uniform_blocks(&self) -> Option<Vec<Block>> {
        Some(vec![Block {
            elements: (0..self.ground_size()).collect(),
            size: self.rank_bound(),
        }])
    }
}

impl MatroidBases for Uniform {
    fn uniform_blocks(&self) -> Option<Vec<Block>> {
        // With k > 0, `can_add` on the empty set says whether v is on the shortlist; with
        // k = 0 the rank is 0 and no element is in a base.
        let elements: Vec<usize> = (0..self.ground_size())
            .filter(|&v| self.k() > 0 && self.can_add(&0, v))
            .collect();
        Some(vec![Block {
            size: self.rank_bound().min(elements.len()),
            elements,
        }])
    }
}

impl MatroidBases for Partition {
    fn uniform_blocks(&self) -> Option<Vec<Block>> {
        let mut blocks: Vec<Block> = (0..self.groups())
            .map(|_| Block {
                elements: Vec::new(),
                size: 0,
            })
            .collect();
        for v in 0..self.ground_size() {
            let g = self.group_of(v).expect("every element has a group");
            blocks[g].elements.push(v);
        }
        for (g, block) in blocks.iter_mut().enumerate() {
            block.size = self
                .capacity(g)
                .expect("group exists")
                .min(block.elements.len());
        }
        Some(blocks)
    }
}

impl MatroidBases for Graphic {
    fn uniform_blocks(&self) -> Option<Vec<Block>> {
        None
    }
}

impl MatroidBases for Matroid {
    fn uniform_blocks(&self) -> Option<Vec<Block>> {
        match self {
            Matroid::Cardinality(m) => m.uniform_blocks(),
            Matroid::Uniform(m) => m.uniform_blocks(),
            Matroid::Partition(m) => m.uniform_blocks(),
            Matroid::Graphic(m) => m.uniform_blocks(),
        }
    }
}

// The error radii of x̂ = fl(ĉ·fl(gap)) with ĉ = fl(ε / fl(2s)), for the exact x = ε·gap/(2s)
// with integers gap, s ≥ 1, are those of the exponential mechanism (`TAU`, `ALPHA`, `BIG_K`
// in `select/exponential.rs`, proven there), with the integer conversions in place of the
// subtraction: fl(2s) = 2s(1+θ₁) (a u128 → f64 conversion rounds to nearest; 2s ≥ 2 is
// normal), ĉ = c(1+θ₂)/(1+θ₁) when ĉ is normal (checked; otherwise every acceptance is
// computed exactly), fl(gap) = gap(1+θ₃), x̂ = ĉ·fl(gap)·(1+θ₄) + η with |η| ≤ 2⁻¹⁰⁷⁵ on
// underflow: the same |x − x̂| ≤ 4.01u·x̂ + 2⁻¹⁰⁷⁴.
use crate::select::exponential::{ALPHA, BIG_K, TAU};

/// Bernoulli(exp(−ε·gap/(2s))) for integer gaps, exactly: the acceptance test shared by every
/// sampler in this module.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ExpRate {
    epsilon: f64,
    /// 2s.
    den: u128,
    c_hat: f64,
    fast: bool,
}

impl ExpRate {
    /// The rate c = ε/(2s) for a score sensitivity of `sensitivity` ≥ 1 integer units.
    pub(crate) fn new(epsilon: Epsilon, sensitivity: u128) -> Result<Self> {
        if sensitivity == 0 {
            return Err(Error::param(
                "sensitivity",
                "the score sensitivity must be at least one unit",
            ));
        }
        let den = sensitivity
            .checked_mul(2)
            .ok_or_else(|| Error::Overflow(format!("2 × sensitivity {sensitivity}")))?;
        let den_f = den as f64;
        let c_hat = epsilon.get() / den_f;
        Ok(Self {
            epsilon: epsilon.get(),
            den,
            c_hat,
            fast: den_f.is_normal() && c_hat.is_normal(),
        })
    }

    /// c as an `f64` (approximate; only used to *choose* tilts).
    pub(crate) fn approx(&self) -> f64 {
        self.c_hat
    }

    /// Bernoulli(exp(−c·gap)), exactly.
    #[inline]
    pub(crate) fn accept<R: Rng + CryptoRng + ?Sized>(
        &self,
        pool: &mut BitPool<'_, R>,
        gap: u128,
    ) -> bool {
        if gap == 0 {
            return true;
        }
        if !self.fast {
            return pool.exp_neg_above(0, || self.exact(gap));
        }
        let x_hat = self.c_hat * gap as f64;
        if x_hat.is_infinite() {
            // ĉ·fl(gap) ≥ f64::MAX, so x ≥ (1 − 2⁻⁵⁰)·f64::MAX > BIG_K.
            return pool.exp_neg_above(BIG_K, || self.exact(gap));
        }
        pool.exp_neg_enclosed(x_hat, TAU, ALPHA, || self.exact(gap))
    }

    /// x = ε·gap/(2s) as an exact fraction.
    #[cold]
    fn exact(&self, gap: u128) -> (BigUint, BigUint) {
        let (_, mantissa, exponent) = f64_parts(self.epsilon);
        let mut num = BigUint::from(mantissa) * BigUint::from(gap);
        let mut den = BigUint::from(self.den);
        if exponent >= 0 {
            num <<= exponent as u32;
        } else {
            den <<= (-exponent) as u32;
        }
        (num, den)
    }

    /// Bernoulli(a/(1 + a)) with a = exp(−c·gap), exactly, by the two-coin Bernoulli factory:
    /// flip a fair coin; tails → false; heads → Bernoulli(a): true on success, else restart.
    /// Then P = a/2 + (1 − a)/2·P, i.e. P = a/(1 + a). Expected ≤ 2 rounds.
    #[inline]
    fn logistic<R: Rng + CryptoRng + ?Sized>(&self, pool: &mut BitPool<'_, R>, gap: u128) -> bool {
        loop {
            if pool.bits(1) == 0 {
                return false;
            }
            if self.accept(pool, gap) {
                return true;
            }
        }
    }
}

/// The exponential mechanism over an explicit list of integer scores: index i with
/// probability exactly ∝ exp(ε·qᵢ/(2s)), qᵢ = `scores[i]`, s = `sensitivity` (same units).
///
/// Rejection from uniform proposals with exact Bernoulli(exp(−ε(q_max − qᵢ)/(2s))) acceptance,
/// as in [`Exponential`](crate::select::Exponential), but on exact integers (i128), so that
/// sums of many fixed-point gradient coordinates stay exact whatever their size.
///
/// # Guarantee
/// ε-DP and ε-bounded-range whenever every score moves by at most s between neighbours
/// (McSherry & Talwar 2007).
///
/// # Exactness
/// Exact for the integer scores and the `f64` ε read as an exact rational (proof on
/// [`exponential_base`] and in `select/exponential.rs`).
///
/// # Runtime
/// Expected n/Σⱼexp(−xⱼ) ≤ n proposals.
///
/// ```
/// use disguise::maximize::exponential_units;
/// use disguise::privacy::Epsilon;
/// let mut rng = disguise::SecureRng::insecure_from_seed(3);
/// let i = exponential_units(&mut rng, &[0, 1_000_000, 5], Epsilon::new(1.0)?, 1)?;
/// assert_eq!(i, 1);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// An empty list or `sensitivity` = 0.
pub fn exponential_units<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    scores: &[i128],
    epsilon: Epsilon,
    sensitivity: u128,
) -> Result<usize> {
    let rate = ExpRate::new(epsilon, sensitivity)?;
    let q_max = *scores.iter().max().ok_or(Error::EmptyCandidates)?;
    if scores.len() == 1 {
        return Ok(0);
    }
    let mut pool = BitPool::new(rng);
    let n = scores.len() as u64;
    loop {
        let i = pool.uniform_below(n) as usize;
        if rate.accept(&mut pool, q_max.abs_diff(scores[i])) {
            return Ok(i);
        }
    }
}

/// The exponential mechanism over the bases of a product of uniform matroids: returns a base
/// B (a `size`-subset of every block) with probability exactly
///
/// ```text
/// Pr[B] = exp(ε·q(B)/(2s)) / Σ_{B′} exp(ε·q(B′)/(2s)),   q(B) = Σ_{e∈B} scores[e],
/// ```
///
/// where s = `base_sensitivity` bounds the change of q(B) between neighbours (for the
/// continuous greedy, r·K for a per-coordinate sensitivity of K units). Elements are
/// returned in increasing order.
///
/// # Algorithm (exact conditional Poisson sampling by rejection)
/// Write c = ε/(2s) and w_e = exp(c·g_e), g_e = `scores[e]`. Since
/// exp(c·q(B)) = Π_{e∈B} w_e, the target is the product-weight distribution
/// Pr\[B\] ∝ Π_{e∈B} w_e, which factors over the blocks (a base is an independent choice of a
/// subset in each block), so each block is sampled on its own. In a block of m elements with
/// base size r:
/// 1. choose an integer tilt θ (in floating point, by bisection, so that
///    Σ_e σ(c(g_e − θ)) ≈ r with σ the logistic function) — *any* θ gives the same output
///    distribution, θ only sets the speed;
/// 2. include each element independently with probability p_e = σ(c(g_e − θ)), i.e. with odds
///    p_e/(1 − p_e) = w_e·exp(−cθ);
/// 3. accept if exactly r elements were included, otherwise repeat from 2.
///
/// *Proof of exactness.* Step 2 returns the set S with probability
/// Π_{e∈S} p_e·Π_{e∉S}(1 − p_e) = Π_e (1 − p_e)·Π_{e∈S} w_e·exp(−c·θ·|S|). Conditioned on
/// |S| = r, the factors Π_e(1 − p_e) and exp(−cθr) are constants, so Pr[S | |S| = r] ∝
/// Π_{e∈S} w_e — exactly the target, for every θ. Rejection until |S| = r samples that
/// conditional distribution exactly (a trial is abandoned as soon as its size is certain to
/// be wrong, which does not change which trials are accepted). Each inclusion is an exact
/// Bernoulli(σ(y)), y = c(g_e − θ): with a = exp(−c·|g_e − θ|), σ(y) = 1/(1 + a) for y ≥ 0
/// and a/(1 + a) for y < 0, and Bernoulli(a/(1 + a)) is the two-coin Bernoulli factory on a
/// fair bit and a Bernoulli(a) (P = a/2 + (1 − a)/2·P ⇒ P = a/(1 + a)). Bernoulli(a) is the
/// library's exact Bernoulli(exp(−x)) for the exact rational x = ε·|g_e − θ|/(2s) (a
/// certified `f64` enclosure decides almost every draw; undecided draws continue with
/// exact big-integer digits — `noise/bernoulli.rs`). Floating point only chooses θ and
/// decides comparisons it can prove. So the output distribution is exact for the integer
/// scores, the integer sensitivity and the `f64` ε read as an exact rational, given ideal
/// uniform bits. Checked against enumeration by the chi-square tests in
/// `tests/api/continuous_greedy.rs`.
///
/// # Guarantee
/// ε-DP and ε-bounded-range if q(B) moves by at most s between neighbouring datasets for
/// every base B (McSherry & Talwar 2007): this *is* the exponential mechanism over the
/// finite range of all bases, only sampled without listing them.
///
/// # Runtime
/// Per block O(m·log m) to sort and O(m·60) to tilt, then O(m) exact Bernoulli draws per
/// trial (each ≤ 2 fair bits and ≤ 2 Bernoulli(exp(−x)) in expectation). With θ tuned, the
/// acceptance probability is the probability that a Poisson-binomial variable hits its
/// mean r, which by the local central limit theorem is ≈ 1/√(2π·Σ_e p_e(1 − p_e)) ≥
/// 1/√(2π·r(1 − r/m)) + o(1): about 10 trials for r = 25, m = 100, and fewer the more
/// the scores separate (confident mechanisms accept at once).
///
/// ```
/// use disguise::maximize::{exponential_base, Block};
/// use disguise::privacy::Epsilon;
/// let mut rng = disguise::SecureRng::insecure_from_seed(5);
/// let blocks = [Block { elements: vec![0, 1, 2, 3], size: 2 }];
/// // Elements 1 and 3 are far better: the base {1, 3} wins with overwhelming probability.
/// let base = exponential_base(&mut rng, &blocks, &[0, 1 << 40, 0, 1 << 40], Epsilon::new(1.0)?, 2)?;
/// assert_eq!(base, vec![1, 3]);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// A block element outside `scores` or in two blocks, a block `size` above its length, or
/// `base_sensitivity` = 0.
pub fn exponential_base<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    blocks: &[Block],
    scores: &[i128],
    epsilon: Epsilon,
    base_sensitivity: u128,
) -> Result<Vec<usize>> {
    check_blocks(blocks, scores.len())?;
    let rate = ExpRate::new(epsilon, base_sensitivity)?;
    let mut pool = BitPool::new(rng);
    let mut base = Vec::new();
    for block in blocks {
        conditional_poisson(&mut pool, block, scores, &rate, &mut base);
    }
    base.sort_unstable();
    Ok(base)
}

/// Errors unless the blocks are disjoint, inside `0..n`, with feasible sizes.
fn check_blocks(blocks: &[Block], n: usize) -> Result<()> {
    let mut seen = vec![false; n];
    for (b, block) in blocks.iter().enumerate() {
        if block.size > block.elements.len() {
            return Err(Error::param(
                "blocks",
                format!(
                    "block {b} asks for {} of its {} elements",
                    block.size,
                    block.elements.len()
                ),
            ));
        }
        for &e in &block.elements {
            match seen.get_mut(e) {
                Some(s) if !*s => *s = true,
                Some(_) => {
                    return Err(Error::param(
                        "blocks",
                        format!("element {e} is in two blocks"),
                    ));
                }
                None => {
                    return Err(Error::param(
                        "blocks",
                        format!("element {e} has no score (there are {n})"),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Appends an exact sample of one block (see [`exponential_base`]) to `out`.
fn conditional_poisson<R: Rng + CryptoRng + ?Sized>(
    pool: &mut BitPool<'_, R>,
    block: &Block,
    scores: &[i128],
    rate: &ExpRate,
    out: &mut Vec<usize>,
) {
    let (m, r) = (block.elements.len(), block.size);
    if r == 0 {
        return;
    }
    if r == m {
        out.extend_from_slice(&block.elements);
        return;
    }
    // Best first: a trial then usually fills up early and is abandoned as soon as one more
    // element is included; any fixed order is exact.
    let mut order = block.elements.clone();
    order.sort_unstable_by(|&a, &b| scores[b].cmp(&scores[a]).then(a.cmp(&b)));
    let theta = tilt(&order, scores, r, rate.approx());
    let mut chosen: Vec<usize> = Vec::with_capacity(r + 1);
    'trial: loop {
        chosen.clear();
        for (pos, &e) in order.iter().enumerate() {
            if chosen.len() + (m - pos) < r {
                continue 'trial; // too few left to reach r
            }
            let g = scores[e];
            let gap = g.abs_diff(theta);
            let include = if g >= theta {
                !rate.logistic(pool, gap) // σ(y) = 1/(1 + a) = 1 − a/(1 + a)
            } else {
                rate.logistic(pool, gap) // σ(−|y|) = a/(1 + a)
            };
            if include {
                chosen.push(e);
                if chosen.len() > r {
                    continue 'trial;
                }
            }
        }
        if chosen.len() == r {
            out.extend_from_slice(&chosen);
            return;
        }
    }
}

/// An integer tilt θ with Σ_e σ(c·(g_e − θ)) ≈ r, by bisection in `f64` until the bracket is
/// below 0.01/c. Only efficiency depends on it (see [`exponential_base`]).
fn tilt(order: &[usize], scores: &[i128], r: usize, c: f64) -> i128 {
    let g: Vec<f64> = order.iter().map(|&e| scores[e] as f64).collect();
    let sigma = |z: f64| {
        if z >= 0.0 {
            1.0 / (1.0 + (-z).exp())
        } else {
            let t = z.exp();
            t / (1.0 + t)
        }
    };
    let expected = |theta: f64| g.iter().map(|&v| sigma(c * (v - theta))).sum::<f64>();
    let reach = (40.0 / c).min(1e300);
    let (lo_g, hi_g) = (g[g.len() - 1], g[0]);
    let (mut lo, mut hi) = (lo_g - reach, hi_g + reach);
    for _ in 0..200 {
        // (Written so that a NaN width also stops.)
        let wide = (hi - lo) * c > 0.01;
        if !wide {
            break;
        }
        let mid = lo / 2.0 + hi / 2.0;
        if expected(mid) > r as f64 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // `as` saturates at the i128 range (and maps NaN to 0): every integer θ is valid.
    (lo / 2.0 + hi / 2.0).round() as i128
}

/// A maximum-weight base of a matroid for the integer `scores` (non-private): the greedy
/// algorithm over the elements by decreasing score (lower index first on ties), which is
/// optimal for every matroid (Rado–Edmonds). Used by the non-private continuous greedy.
///
/// *Runtime*: a sort and |V| independence checks.
pub fn max_weight_base<C: Independence + ?Sized>(constraint: &C, scores: &[i128]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..constraint.ground_size().min(scores.len())).collect();
    order.sort_by(|&a, &b| scores[b].cmp(&scores[a]).then(a.cmp(&b)));
    greedy_base(constraint, &order)
}

/// A random base drawn *independently of any data*: the greedy base of a uniformly random
/// order of the ground set. For uniform and partition matroids it is a uniform base; for a
/// graphic matroid it is a random spanning forest (not uniform). Used as the explicit
/// candidate set of the sampled direction rule (Algorithm 2 of Rafiey & Yoshida).
///
/// *Runtime*: |V| uniform draws and |V| independence checks.
pub fn random_base<C, R>(constraint: &C, rng: &mut R) -> Vec<usize>
where
    C: Independence + ?Sized,
    R: Rng + CryptoRng + ?Sized,
{
    let n = constraint.ground_size();
    let mut order: Vec<usize> = (0..n).collect();
    for j in 0..n {
        let k = j + uniform_below(rng, (n - j) as u64) as usize;
        order.swap(j, k);
    }
    greedy_base(constraint, &order)
}

/// Adds the elements of `order` that keep the set independent; returns them sorted.
fn greedy_base<C: Independence + ?Sized>(constraint: &C, order: &[usize]) -> Vec<usize> {
    let mut state = constraint.empty();
    let mut base = Vec::new();
    let rank = constraint.rank_bound();
    for &v in order {
        if base.len() == rank {
            break;
        }
        if constraint.can_add(&state, v) {
            constraint.insert(&mut state, v);
            base.push(v);
        }
    }
    base.sort_unstable();
    base
}
