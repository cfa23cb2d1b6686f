//! Exact binomial sampling for huge n: Binomial(2^60, 2^−50) in about a millisecond.
//!
//! # Algorithm
//! Successes are counted by skipping the failures between them: the number of failures
//! before the next success is G ~ Geometric(p), P(G ≥ j) = q^j with q = 1 − p, so a draw
//! needs about n·p geometric variates (p ≤ ½ after the symmetry Bin(n, p) = n − Bin(n, 1−p)).
//!
//! A geometric variate is drawn exactly, and truncated at the number R of trials left, via
//! its binary digits, which are **independent**: P(G = Σ dᵢ2^i) = (1−q)·∏ q^{dᵢ2^i} factorises,
//! so digit i is 1 with probability cᵢ = xᵢ/(1 + xᵢ), xᵢ = q^{2^i}, and ⌊G/2^L⌋ is geometric
//! with P(⌊G/2^L⌋ ≥ 1) = x_L. With 2^L ≥ R: one Bernoulli(x_L) decides "G ≥ 2^L ≥ R" (no
//! further success); otherwise the L low digits, drawn from the most significant down (to stop
//! as soon as the partial value reaches R), give G < 2^L.
//!
//! Each Bernoulli(v), v ∈ {xᵢ, cᵢ}, is "U < v" for a lazily drawn uniform U ∈ [0, 1),
//! decided with rigorous fixed-point bounds lo ≤ v·2^P ≤ hi: q is rounded down/up to P bits,
//! squared repeatedly rounding down for lo and up for hi, and c = x/(1+x) (increasing in x)
//! is bounded from those. A table at P = 64 in machine words decides almost every draw,
//! consuming only the bits of U up to the first one that separates U from the bounds
//! (about 2 bits on average; the unused bits of a word are kept for the next draw). If U's
//! first 64 bits fall between the bounds (probability about 2^(i+1−64) at level i),
//! big-integer tables at P₀ = 64·⌈(log2 n + 72)/64⌉ bits, then 2P₀, 4P₀, … are built on
//! demand and **the same U** is extended with fresh bits — randomness is never discarded,
//! so the decision is exactly "U < v".
//!
//! The same machinery accepts any q given by rigorous bounds at increasing precision (the
//! crate-internal `ProbabilityBounds`), which is how
//! [`Laplace::upper_tail_count`](super::Laplace::upper_tail_count) draws an exact
//! Binomial(n, P(noise > τ)) although that probability is transcendental.
//!
//! # Exactness
//! Exact: the output has exactly the Binomial(n, p) law for the rational p given, assuming
//! ideal uniform bits. No floating point is used.
//!
//! # Runtime
//! O((1 + n·min(p, 1−p))·log n) expected Bernoulli decisions, each O(1) word operations
//! except for the rare big-integer refinements above; plus O(log n) word operations per call
//! for the 64-bit table. Memory O(log n). Measured: about 1 ms for n = 2^60, p = 2^−50
//! (≈ 1024 successes, ≈ 62 000 decisions). For n·min(p, 1−p) beyond ~10^8 a draw takes
//! seconds: this sampler is made for huge n with moderate expected counts (the
//! sparse-histogram use case).

use crate::error::{Error, Result};
use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};
use rand_core::{CryptoRng, Rng};

/// An exact Binomial(n, p) sample for a rational p = `p_num / p_den` ∈ [0, 1].
///
/// See the [module documentation](self) for the algorithm.
///
/// # Exactness
/// Exact (integer arithmetic and random bits only).
///
/// # Runtime
/// O((1 + n·min(p, 1 − p))·log n) expected time; n = 2^60, p = 2^−50 (≈ 1024 successes)
/// takes about a millisecond.
///
/// # Errors
/// [`Error::InvalidParameter`] if `p_den` is 0 or `p_num > p_den`.
///
/// ```
/// use disguise::noise::{SecureRng, binomial};
/// use num_bigint::BigUint;
/// let mut rng = SecureRng::insecure_from_seed(1);
/// // Binomial(2^60, 2^-50): mean 1024.
/// let k = binomial(&mut rng, 1 << 60, &BigUint::from(1u32), &(BigUint::from(1u32) << 50))?;
/// assert!(k > 800 && k < 1250);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn binomial<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    n: u64,
    p_num: &BigUint,
    p_den: &BigUint,
) -> Result<u64> {
    binomial_with_precision(rng, n, p_num, p_den, None)
}

/// [`binomial`] with p given as a double, read as the exact dyadic rational it represents
/// (so `0.1` means 3602879701896397/2^55, not 1/10).
///
/// # Errors
/// [`Error::InvalidParameter`] unless 0 ≤ p ≤ 1.
///
/// ```
/// use disguise::noise::{SecureRng, binomial_f64};
/// let mut rng = SecureRng::insecure_from_seed(2);
/// assert_eq!(binomial_f64(&mut rng, 10, 1.0)?, 10);
/// assert_eq!(binomial_f64(&mut rng, 10, 0.0)?, 0);
/// assert!(binomial_f64(&mut rng, 1000, 0.5)? <= 1000);
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn binomial_f64<R: Rng + CryptoRng + ?Sized>(rng: &mut R, n: u64, p: f64) -> Result<u64> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::param("p", format!("must be in [0, 1], got {p}")));
    }
    let (num, den) = dyadic(p);
    binomial(rng, n, &num, &den)
}

/// p ∈ [0, 1] as num/2^j exactly.
fn dyadic(p: f64) -> (BigUint, BigUint) {
    if p == 0.0 {
        return (BigUint::zero(), BigUint::one());
    }
    let bits = p.to_bits();
    let exp_field = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    let (m, e) = if exp_field == 0 {
        (frac, -1074i64)
    } else {
        (frac | (1u64 << 52), exp_field - 1075)
    };
    // p ≤ 1 means e ≤ 0 once m is at least 2^52 (normal) — and always for subnormals.
    let tz = m.trailing_zeros().min((-e) as u32);
    (
        BigUint::from(m >> tz),
        BigUint::one() << ((-e) as u64 - tz as u64),
    )
}

fn binomial_with_precision<R: Rng + CryptoRng + ?Sized>(
    rng: &mut R,
    n: u64,
    p_num: &BigUint,
    p_den: &BigUint,
    start_precision: Option<u64>,
) -> Result<u64> {
    if p_den.is_zero() {
        return Err(Error::param("p", "denominator must be > 0"));
    }
    if p_num > p_den {
        return Err(Error::param(
            "p",
            format!("must be in [0, 1], got {p_num}/{p_den}"),
        ));
    }
    if n == 0 || p_num.is_zero() {
        return Ok(0);
    }
    if p_num == p_den {
        return Ok(n);
    }
    // Count the rarer outcome: q = 1 − p' ≥ ½ where p' = min(p, 1 − p).
    let q_num_p = p_den - p_num; // numerator of 1 − p
    let flipped = p_num > &q_num_p;
    // If flipped we count failures, whose probability is 1 − p, so the skip parameter is p.
    let q_num = if flipped { p_num.clone() } else { q_num_p };
    let q = RationalQ {
        num: q_num,
        den: p_den.clone(),
    };
    let count = count_successes(rng, n, q, start_precision);
    Ok(if flipped { n - count } else { count })
}

/// A probability q ∈ [½, 1) known through rigorous fixed-point enclosures.
pub(crate) trait ProbabilityBounds {
    /// (lo, hi) with lo ≤ q·2^prec ≤ hi ≤ 2^prec and lo < 2^prec, for prec ≥ 64. The
    /// width hi − lo must stay bounded (a few units) as prec grows, so that refinement
    /// terminates.
    fn bounds(&self, prec: u64) -> (BigUint, BigUint);
}

/// q = num/den exactly (width ≤ 1 unit).
struct RationalQ {
    num: BigUint,
    den: BigUint,
}

impl ProbabilityBounds for RationalQ {
    fn bounds(&self, prec: u64) -> (BigUint, BigUint) {
        let scaled = &self.num << prec;
        (&scaled / &self.den, div_ceil_big(&scaled, &self.den))
    }
}

/// Binomial(n, 1 − q), exactly, for q given by rigorous bounds (see the module docs).
/// Expected O((1 + n(1 − q))·log n) Bernoulli decisions.
pub(crate) fn count_successes<R, Q>(rng: &mut R, n: u64, q: Q, start_precision: Option<u64>) -> u64
where
    R: Rng + CryptoRng + ?Sized,
    Q: ProbabilityBounds,
{
    if n == 0 {
        return 0;
    }
    let levels = 64 - (n - 1).leading_zeros() as usize; // 2^levels ≥ n
    let mut digits = GeometricDigits::new(q, levels, start_precision);
    let mut remaining = n;
    let mut count = 0u64;
    while remaining > 0 {
        match digits.geometric_below(rng, remaining) {
            Some(g) => {
                count += 1;
                remaining -= g + 1;
            }
            None => break,
        }
    }
    count
}

/// Rigorous fixed-point bounds lo ≤ v·2^P ≤ hi on one probability v.
#[derive(Debug, Clone)]
struct Bounds {
    lo: BigUint,
    hi: BigUint,
}

/// Bounds on xᵢ = q^{2^i} (i = 0..=levels) and cᵢ = xᵢ/(1 + xᵢ) (i < levels) at precision
/// P (big integers; used only when the 64-bit table cannot decide).
#[derive(Debug, Clone)]
struct Table {
    prec: u64,
    x: Vec<Bounds>,
    c: Vec<Bounds>,
}

/// ⌈a / b⌉ for big integers.
fn div_ceil_big(a: &BigUint, b: &BigUint) -> BigUint {
    let q = a / b;
    if &q * b == *a { q } else { q + 1u32 }
}

impl Table {
    fn new<Q: ProbabilityBounds>(q: &Q, levels: usize, prec: u64) -> Self {
        let one = BigUint::one() << prec;
        let (mut lo, hi) = q.bounds(prec);
        let mut hi = hi.min(one.clone());
        let mut x = Vec::with_capacity(levels + 1);
        let mut c = Vec::with_capacity(levels);
        for i in 0..=levels {
            if i < levels {
                // c = x/(1 + x) is increasing in x: floor at lo, ceiling at hi.
                let c_lo = (&lo << prec) / (&one + &lo);
                let c_hi = div_ceil_big(&(&hi << prec), &(&one + &hi));
                c.push(Bounds { lo: c_lo, hi: c_hi });
            }
            x.push(Bounds {
                lo: lo.clone(),
                hi: hi.clone(),
            });
            if i < levels {
                lo = (&lo * &lo) >> prec;
                hi = div_ceil_big(&(&hi * &hi), &one).min(one.clone());
            }
        }
        Self { prec, x, c }
    }
}

/// The same bounds at P = 64 in machine integers (values ≤ 2^64 held in u128): built in
/// O(levels) word operations per call, and enough to decide all but a ~2^(i+1−64) fraction
/// of the Bernoulli draws at level i.
#[derive(Debug, Clone)]
struct FastTable {
    x: Vec<(u128, u128)>,
    c: Vec<(u128, u128)>,
}

impl FastTable {
    const ONE: u128 = 1 << 64;

    fn new<Q: ProbabilityBounds>(q: &Q, levels: usize) -> Self {
        let (lo0, hi0) = q.bounds(64);
        let lo0 = lo0.to_u128().expect("q < 1");
        let hi0 = hi0.to_u128().unwrap_or(Self::ONE);
        let (mut lo, mut hi) = (lo0, hi0.min(Self::ONE));
        let mut x = Vec::with_capacity(levels + 1);
        let mut c = Vec::with_capacity(levels);
        for i in 0..=levels {
            if i < levels {
                // lo < 2^64 because q < 1, so lo·2^64 fits; hi may equal 2^64 (c = ½).
                let c_lo = (lo << 64) / (Self::ONE + lo);
                let c_hi = if hi == Self::ONE {
                    1 << 63
                } else {
                    (hi << 64).div_ceil(Self::ONE + hi)
                };
                c.push((c_lo, c_hi));
            }
            x.push((lo, hi));
            if i < levels {
                lo = (lo * lo) >> 64;
                hi = if hi == Self::ONE {
                    Self::ONE
                } else {
                    (hi * hi).div_ceil(Self::ONE)
                };
            }
        }
        Self { x, c }
    }
}

#[derive(Debug, Clone, Copy)]
enum Which {
    /// xᵢ = q^{2^i} = P(G ≥ 2^i).
    X(usize),
    /// cᵢ = P(digit i of G is 1).
    C(usize),
}

/// Exact truncated geometric draws for a fixed q, with lazily refined bound tables.
struct GeometricDigits<Q> {
    q: Q,
    levels: usize,
    fast: FastTable,
    /// Big-integer tables at precisions P₀, 2P₀, 4P₀, … (built on demand).
    tables: Vec<Table>,
    start_precision: u64,
    /// Test hook: skip the 64-bit table so every draw exercises the refinement path.
    force_slow: bool,
    /// Unused random bits, most significant first in the top `avail` bits of `buf`: a
    /// decision consumes only the bits of U it looked at (about 2 on average).
    buf: u128,
    avail: u32,
}

impl<Q: ProbabilityBounds> GeometricDigits<Q> {
    fn new(q: Q, levels: usize, start_precision: Option<u64>) -> Self {
        let fast = FastTable::new(&q, levels);
        // Bounds on x_i are within ~2^(i+1) units of 2^−P; 72 guard bits above the largest
        // level make an undecided comparison at P₀ a ~2^−63 event.
        let start = start_precision
            .unwrap_or((levels as u64 + 72).div_ceil(64) * 64)
            .max(64);
        Self {
            q,
            levels,
            fast,
            tables: Vec::new(),
            start_precision: start,
            force_slow: start_precision.is_some(),
            buf: 0,
            avail: 0,
        }
    }

    /// The next 64 unused random bits, without consuming them.
    #[inline]
    fn peek64<R: Rng + CryptoRng + ?Sized>(&mut self, rng: &mut R) -> u64 {
        if self.avail < 64 {
            self.buf |= (rng.next_u64() as u128) << (64 - self.avail);
            self.avail += 64;
        }
        (self.buf >> 64) as u64
    }

    #[inline]
    fn consume(&mut self, bits: u32) {
        debug_assert!(bits <= 64 && bits <= self.avail);
        self.buf <<= bits;
        self.avail -= bits;
    }

    /// Bernoulli(v) for v = xᵢ or cᵢ: "U < v" for a uniform U ∈ [0, 1).
    ///
    /// r = the next 64 bits of U. With v ∈ [lo, hi]/2^64: if r < lo then U < v, and the
    /// first bit where r and lo differ already certifies it, so only the bits up to that
    /// one are consumed (the rest are independent of the decision and stay in the buffer);
    /// symmetrically if r > hi − 1. Otherwise the 64 bits are kept as U's prefix and the
    /// comparison continues at higher precision.
    #[inline]
    fn bernoulli<R: Rng + CryptoRng + ?Sized>(&mut self, rng: &mut R, which: Which) -> bool {
        let (lo, hi) = match which {
            Which::X(i) => self.fast.x[i],
            Which::C(i) => self.fast.c[i],
        };
        if lo == FastTable::ONE {
            return true; // v = 1
        }
        if hi == 0 {
            return false; // v = 0
        }
        let r = self.peek64(rng);
        if !self.force_slow {
            let lo = lo as u64;
            if r < lo {
                self.consume(1 + (r ^ lo).leading_zeros());
                return true;
            }
            let h = (hi - 1) as u64; // hi ≤ 2^64, so hi − 1 fits
            if r > h {
                self.consume(1 + (r ^ h).leading_zeros());
                return false;
            }
        }
        self.consume(64);
        self.bernoulli_slow(rng, which, r)
    }

    /// Undecided after 64 bits: extend the same U and refine the bounds until they separate.
    #[cold]
    fn bernoulli_slow<R: Rng + CryptoRng + ?Sized>(
        &mut self,
        rng: &mut R,
        which: Which,
        u0: u64,
    ) -> bool {
        let mut words = vec![u0]; // most significant first
        let mut table = 0;
        loop {
            if table == self.tables.len() {
                let prec = match self.tables.last() {
                    Some(t) => t.prec * 2,
                    None => self.start_precision,
                };
                self.tables.push(Table::new(&self.q, self.levels, prec));
            }
            let prec = self.tables[table].prec;
            while (words.len() as u64) * 64 < prec {
                words.push(rng.next_u64());
            }
            // u = the first `prec` bits of U (whole words, then the excess shifted out).
            let digits: Vec<u32> = words
                .iter()
                .rev()
                .flat_map(|w| [*w as u32, (*w >> 32) as u32])
                .collect();
            let u = BigUint::new(digits) >> (words.len() as u64 * 64 - prec);
            let t = &self.tables[table];
            let b = match which {
                Which::X(i) => &t.x[i],
                Which::C(i) => &t.c[i],
            };
            // (u + 1)/2^P ≤ lo/2^P, i.e. u < lo, certifies U < v.
            if u < b.lo {
                return true;
            }
            if u >= b.hi {
                return false;
            }
            table += 1;
        }
    }

    /// Draws G ~ Geometric (P(G ≥ j) = q^j) and returns Some(G) if G < r, None otherwise.
    fn geometric_below<R: Rng + CryptoRng + ?Sized>(&mut self, rng: &mut R, r: u64) -> Option<u64> {
        debug_assert!(r >= 1);
        let l = 64 - (r - 1).leading_zeros() as usize; // smallest l with 2^l ≥ r
        debug_assert!(l <= self.levels);
        if self.bernoulli(rng, Which::X(l)) {
            return None; // G ≥ 2^l ≥ r
        }
        let mut g = 0u64;
        for i in (0..l).rev() {
            if self.bernoulli(rng, Which::C(i)) {
                g |= 1 << i;
                if g >= r {
                    return None; // the lower digits can only increase G
                }
            }
        }
        Some(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::SecureRng;
    use crate::noise::gof::{assert_within, chi_square_test};
    use statrs::distribution::{Binomial as StatrsBinomial, Discrete};

    fn pmf_test(n: u64, p_num: u64, p_den: u64, draws: usize, seed: u64, prec: Option<u64>) {
        let mut rng = SecureRng::insecure_from_seed(seed);
        let (num, den) = (BigUint::from(p_num), BigUint::from(p_den));
        let mut counts = vec![0u64; n as usize + 1];
        for _ in 0..draws {
            let k = binomial_with_precision(&mut rng, n, &num, &den, prec).unwrap();
            counts[k as usize] += 1;
        }
        let reference = StatrsBinomial::new(p_num as f64 / p_den as f64, n).unwrap();
        let mut probs: Vec<f64> = (0..=n).map(|k| reference.pmf(k)).collect();
        // Absorb the floating-point rounding of the reference pmf into the largest cell.
        let total: f64 = probs.iter().sum();
        let argmax = (0..probs.len())
            .max_by(|&a, &b| probs[a].partial_cmp(&probs[b]).unwrap())
            .unwrap();
        probs[argmax] += 1.0 - total;
        chi_square_test(&counts, &probs, 1e-4);
    }

    #[test]
    fn binomial_matches_pmf() {
        // Chi-square at false-alarm rate 1e-4 each.
        pmf_test(20, 3, 10, 50_000, 301, None);
        pmf_test(1000, 1, 100, 20_000, 302, None);
        pmf_test(1000, 9, 10, 20_000, 303, None); // symmetry path
        pmf_test(1, 1, 2, 20_000, 304, None);
        pmf_test(7, 1, 2, 20_000, 305, None);
    }

    #[test]
    fn slow_refinement_path_is_exact() {
        // Starting at P = 64 bits makes the fast comparison undecided often (q near 1,
        // high levels), exercising precision doubling with the same uniform.
        pmf_test(1000, 1, 100, 10_000, 306, Some(64));
        pmf_test(30, 1, 3, 10_000, 307, Some(64));
    }

    /// Chi-square (false alarm 1e-4) of truncated geometric draws G | "G < r or not" for
    /// q = num/den, binned into `bins` equal-width bins of [0, r) plus the "G ≥ r" cell:
    /// P(a ≤ G < b) = q^a − q^b exactly.
    fn check_truncated_geometric(
        num: u64,
        den: u64,
        r: u64,
        bins: u64,
        draws: usize,
        force: Option<u64>,
    ) {
        let mut rng = SecureRng::insecure_from_seed(312 + num + r);
        let levels = 64 - (r - 1).leading_zeros() as usize;
        let q = RationalQ {
            num: BigUint::from(num),
            den: BigUint::from(den),
        };
        let mut digits = GeometricDigits::new(q, levels, force);
        let width = r.div_ceil(bins);
        let mut counts = vec![0u64; bins as usize + 1];
        for _ in 0..draws {
            match digits.geometric_below(&mut rng, r) {
                Some(g) => {
                    assert!(g < r);
                    counts[(g / width) as usize] += 1;
                }
                None => counts[bins as usize] += 1,
            }
        }
        let qf = num as f64 / den as f64;
        let mut probs: Vec<f64> = (0..bins)
            .map(|b| qf.powf((b * width) as f64) - qf.powf(((b + 1) * width).min(r) as f64))
            .collect();
        probs.push(qf.powf(r as f64));
        chi_square_test(&counts, &probs, 1e-4);
    }

    #[test]
    fn geometric_digit_frequencies() {
        // Given G < 2^L, the digits below L are independent with P(digit i) = cᵢ =
        // xᵢ/(1 + xᵢ), xᵢ = q^{2^i}, and P(G ≥ 2^L) = x_L. 10^6 draws; each frequency within
        // 5 standard errors (false alarm < 6e-7 per check, < 2e-5 overall). Detects a 0.5 %
        // relative error in any cᵢ.
        for (num, den, l) in [(9u64, 10u64, 6usize), (1023, 1024, 12)] {
            let mut rng = SecureRng::insecure_from_seed(320 + l as u64);
            let q = RationalQ {
                num: BigUint::from(num),
                den: BigUint::from(den),
            };
            let mut digits = GeometricDigits::new(q, l, None);
            let draws = 1_000_000u64;
            let mut ones = vec![0u64; l];
            let mut below = 0u64;
            for _ in 0..draws {
                if let Some(g) = digits.geometric_below(&mut rng, 1 << l) {
                    below += 1;
                    for (i, count) in ones.iter_mut().enumerate() {
                        *count += (g >> i) & 1;
                    }
                }
            }
            let qf = num as f64 / den as f64;
            let x_l = qf.powf((1u64 << l) as f64);
            let (n, p) = (draws as f64, 1.0 - x_l);
            assert_within(
                below as f64,
                n * p,
                (n * p * (1.0 - p)).sqrt(),
                5.0,
                "G < 2^L",
            );
            for (i, &count) in ones.iter().enumerate() {
                let x = qf.powf((1u64 << i) as f64);
                let c = x / (1.0 + x);
                let m = below as f64;
                assert_within(
                    count as f64,
                    m * c,
                    (m * c * (1.0 - c)).sqrt(),
                    5.0,
                    "digit",
                );
            }
        }
    }

    #[test]
    fn truncated_geometric_digits_are_exact() {
        // The digit machinery on its own, with more power than the binomial tests: a 1 %
        // error in one digit probability fails these.
        check_truncated_geometric(9, 10, 50, 50, 200_000, None);
        check_truncated_geometric(1023, 1024, 3000, 40, 200_000, None);
        check_truncated_geometric(1, 2, 5, 5, 100_000, None);
        // The same through the big-integer refinement path only.
        check_truncated_geometric(9, 10, 50, 50, 30_000, Some(64));
        check_truncated_geometric(1023, 1024, 3000, 40, 30_000, Some(64));
    }

    #[test]
    fn huge_n_tiny_p_has_right_moments() {
        // n = 2^60, p = 2^-50: mean np = 1024, variance np(1−p) ≈ 1024. 200 draws.
        // Mean: z-bound 5 (false alarm < 6e-7). Variance: the sample variance of 200
        // near-normal draws has sd ≈ σ²·sqrt(2/199); bound 5 sd (false alarm ≈ 1e-5,
        // allowing for the chi-square skew).
        let mut rng = SecureRng::insecure_from_seed(308);
        let num = BigUint::one();
        let den = BigUint::one() << 50u32;
        let draws = 200;
        let xs: Vec<f64> = (0..draws)
            .map(|_| binomial(&mut rng, 1 << 60, &num, &den).unwrap() as f64)
            .collect();
        let mean = xs.iter().sum::<f64>() / draws as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (draws - 1) as f64;
        assert_within(mean, 1024.0, (1024.0f64 / draws as f64).sqrt(), 5.0, "mean");
        assert_within(
            var,
            1024.0,
            1024.0 * (2.0f64 / 199.0).sqrt(),
            5.0,
            "variance",
        );
    }

    #[test]
    fn huge_n_with_p_near_one_uses_symmetry() {
        // p = 1 − 2^-50 on n = 2^60: n − Bin(n, 2^-50); fast only thanks to the flip.
        let mut rng = SecureRng::insecure_from_seed(309);
        let den = BigUint::one() << 50u32;
        let num = &den - 1u32;
        let k = binomial(&mut rng, 1 << 60, &num, &den).unwrap();
        let failures = (1u64 << 60) - k;
        assert!(failures > 800 && failures < 1250, "{failures}");
    }

    #[test]
    fn edge_cases_and_errors() {
        let mut rng = SecureRng::insecure_from_seed(310);
        let one = BigUint::one();
        let zero = BigUint::zero();
        let two = BigUint::from(2u32);
        assert_eq!(binomial(&mut rng, 0, &one, &two).unwrap(), 0);
        assert_eq!(binomial(&mut rng, 1 << 60, &zero, &two).unwrap(), 0);
        assert_eq!(binomial(&mut rng, u64::MAX, &two, &two).unwrap(), u64::MAX);
        assert_eq!(binomial_f64(&mut rng, u64::MAX, 1.0).unwrap(), u64::MAX);
        assert_eq!(binomial_f64(&mut rng, 5, 0.0).unwrap(), 0);
        assert!(binomial(&mut rng, 5, &one, &zero).is_err());
        assert!(binomial(&mut rng, 5, &BigUint::from(3u32), &two).is_err());
        for bad in [-0.1, 1.5, f64::NAN, f64::INFINITY] {
            assert!(binomial_f64(&mut rng, 5, bad).is_err());
        }
        // u64::MAX trials with a tiny p still works (levels = 64).
        let k = binomial_f64(&mut rng, u64::MAX, 2f64.powi(-60)).unwrap();
        assert!(k < 100, "{k}");
    }

    #[test]
    fn dyadic_reading_is_exact() {
        assert_eq!(dyadic(0.5), (BigUint::one(), BigUint::from(2u32)));
        assert_eq!(dyadic(1.0), (BigUint::one(), BigUint::one()));
        assert_eq!(dyadic(0.75), (BigUint::from(3u32), BigUint::from(4u32)));
        let (n, d) = dyadic(0.1);
        assert_eq!(n, BigUint::from(3602879701896397u64));
        assert_eq!(d, BigUint::one() << 55u32);
        let (n, d) = dyadic(f64::from_bits(1));
        assert_eq!((n, d), (BigUint::one(), BigUint::one() << 1074u32));
    }

    #[test]
    fn binomial_f64_matches_pmf() {
        // Chi-square at 1e-4 via the f64 front end (p = 0.3 read as its dyadic value).
        let mut rng = SecureRng::insecure_from_seed(311);
        let n = 20u64;
        let mut counts = vec![0u64; 21];
        for _ in 0..50_000 {
            counts[binomial_f64(&mut rng, n, 0.3).unwrap() as usize] += 1;
        }
        let reference = StatrsBinomial::new(0.3, n).unwrap();
        let mut probs: Vec<f64> = (0..=n).map(|k| reference.pmf(k)).collect();
        let total: f64 = probs.iter().sum();
        probs[6] += 1.0 - total;
        chi_square_test(&counts, &probs, 1e-4);
    }
}
