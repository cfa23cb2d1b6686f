//! Rigorous bounds on the upper tail of the discrete Laplace, P(Z ≥ z₀) = e^{−z₀·s/t}/(1 +
//! e^{−s/t}), to any precision: what the exact tail counts of sparse histograms
//! ([`super::Laplace::upper_tail_count`]) are drawn from.

use crate::noise::binomial::ProbabilityBounds;
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};

/// 1 − P(Z ≥ z₀) for the discrete Laplace with scale t/s, where
/// P(Z ≥ z₀) = exp(−z₀·s/t) / (1 + exp(−s/t)), known through rigorous bounds.
pub(super) struct TailQ {
    pub(super) e_num: BigUint,
    pub(super) e_den: BigUint,
    pub(super) r_num: BigUint,
    pub(super) r_den: BigUint,
}

impl TailQ {
    /// (lo, hi) with lo ≤ P(Z ≥ z₀)·2^prec ≤ hi.
    pub(super) fn p_bounds(&self, prec: u64) -> (BigUint, BigUint) {
        const GUARD: u64 = 8;
        let w = prec + GUARD;
        let one = BigUint::one() << w;
        let (e_lo, e_hi) = exp_neg_bounds(&self.e_num, &self.e_den, w);
        let (r_lo, r_hi) = exp_neg_bounds(&self.r_num, &self.r_den, w);
        // p = e/(1 + r): increasing in e, decreasing in r.
        let p_lo = (&e_lo << w) / (&one + &r_hi);
        let p_hi = div_ceil_big(&(&e_hi << w), &(&one + &r_lo));
        (
            p_lo >> GUARD,
            div_ceil_big(&p_hi, &(BigUint::one() << GUARD)),
        )
    }
}

impl ProbabilityBounds for TailQ {
    fn bounds(&self, prec: u64) -> (BigUint, BigUint) {
        let one = BigUint::one() << prec;
        let (p_lo, p_hi) = self.p_bounds(prec);
        // p ≤ ½ and p_hi ≥ 1, so both stay in range and lo < 2^prec.
        (&one - p_hi.min(one.clone()), one - p_lo)
    }
}

/// ⌈a / b⌉.
pub(super) fn div_ceil_big(a: &BigUint, b: &BigUint) -> BigUint {
    let (q, r) = a.div_rem(b);
    if r.is_zero() { q } else { q + 1u32 }
}

/// Rigorous bounds lo ≤ exp(−num/den)·2^prec ≤ hi with hi − lo a few units (den > 0;
/// prec ≤ 2^20 keeps the accumulated rounding error far below the 64 guard bits).
///
/// exp(−y) = exp(−1)^⌊y⌋ · exp(−{y}); each exp(−f), f ∈ [0, 1], is the alternating Taylor
/// series Σ (−f)^k/k!, whose terms decrease, computed in fixed point with 64 guard bits:
/// every term is rounded down (error ≤ k units at step k) and the tail after the first
/// vanishing term is bounded by that term, so the total error is ≤ K² + K + 1 units for
/// K terms. The integer power uses square-and-multiply rounding lo down and hi up.
pub(super) fn exp_neg_bounds(num: &BigUint, den: &BigUint, prec: u64) -> (BigUint, BigUint) {
    debug_assert!(!den.is_zero());
    // exp(−y) < 2^−prec once y ≥ prec + 1 (> prec·ln 2).
    if num >= &(den * BigUint::from(prec + 1)) {
        return (BigUint::zero(), BigUint::one());
    }
    const GUARD: u64 = 64;
    let w = prec + GUARD;
    let one = BigUint::one() << w;
    let (whole, frac) = num.div_rem(den);
    let whole = whole.to_u64().expect("whole part ≤ prec");
    let (f_lo, f_hi) = exp_neg_unit_bounds(&frac, den, w);
    let (mut lo, mut hi) = (f_lo, f_hi);
    if whole > 0 {
        let (e_lo, e_hi) = exp_neg_unit_bounds(&BigUint::one(), &BigUint::one(), w);
        // Square-and-multiply for exp(−1)^whole, rounding lo down and hi up.
        let (mut p_lo, mut p_hi) = (one.clone(), one.clone());
        for bit in (0..64 - whole.leading_zeros()).rev() {
            p_lo = (&p_lo * &p_lo) >> w;
            p_hi = div_ceil_big(&(&p_hi * &p_hi), &one);
            if (whole >> bit) & 1 == 1 {
                p_lo = (&p_lo * &e_lo) >> w;
                p_hi = div_ceil_big(&(&p_hi * &e_hi), &one);
            }
        }
        lo = (&lo * &p_lo) >> w;
        hi = div_ceil_big(&(&hi * &p_hi), &one);
    }
    let hi = div_ceil_big(&hi, &(BigUint::one() << GUARD)).min(BigUint::one() << prec);
    (lo >> GUARD, hi)
}

/// Bounds on exp(−f)·2^w for f = num/den ∈ [0, 1].
fn exp_neg_unit_bounds(num: &BigUint, den: &BigUint, w: u64) -> (BigUint, BigUint) {
    let one = BigUint::one() << w;
    let mut term = one.clone(); // t_k ≤ f^k/k!·2^w, off by at most k units
    let mut even = one.clone();
    let mut odd = BigUint::zero();
    let mut k: u64 = 0;
    while !term.is_zero() {
        k += 1;
        term = (&term * num) / (den * BigUint::from(k));
        if k % 2 == 1 {
            odd += &term;
        } else {
            even += &term;
        }
    }
    // Error: ≤ Σ_{j<k} j ≤ k² from rounding, plus the tail ≤ exact t_k ≤ k units.
    let err = BigUint::from(k * k + k + 1);
    let sum = even - odd; // ≥ exp(−1)·2^w − err > 0
    let lo = if sum > err {
        &sum - &err
    } else {
        BigUint::zero()
    };
    let hi = (sum + err).min(one);
    (lo, hi)
}
