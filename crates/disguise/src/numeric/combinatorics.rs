//! Counting subsets: the binomial coefficient C(n, k) exactly ([`binomial`]), capped in
//! machine integers (`binomial_capped`) and as a logarithm for messages (`log10_binomial`).
//! Used by itemset mining (the universe of r-subsets, the work of counting them) and kept
//! here because nothing in it is about itemsets.

use num_bigint::BigUint;
use num_traits::{One, Zero};

/// C(n, k) exactly.
///
/// The work grows with the result's size (k multiplications of numbers of up to
/// log₂ C(n, k) bits); [`Transactions::count_itemsets`](crate::apps::Transactions::count_itemsets)
/// and [`mine_itemsets`](crate::apps::mine_itemsets) bound what they ask of it.
pub fn binomial(n: u64, k: u64) -> BigUint {
    if k > n {
        return BigUint::zero();
    }
    let k = k.min(n - k);
    let mut acc = BigUint::one();
    for i in 0..k {
        acc = acc * (n - i) / (i + 1);
    }
    acc
}

/// C(n, k) if it is at most `cap`, else `None`, in at most ~130 steps: the partial products
/// C(n, i), i ≤ min(k, n − k), grow with i (at least doubling up to i = 2), so the first
/// one above `cap` settles it.
pub(crate) fn binomial_capped(n: u64, k: u64, cap: u128) -> Option<u128> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut acc: u128 = 1;
    for i in 0..k {
        // C(n, i + 1) = acc·(n − i)/(i + 1) exactly, without forming acc·(n − i): with
        // acc = q·(i + 1) + m, it is q·(n − i) + m·(n − i)/(i + 1) (both terms integers).
        let (d, f) = (u128::from(i + 1), u128::from(n - i));
        let (q, m) = (acc / d, acc % d);
        acc = q.checked_mul(f)?.checked_add(m * f / d)?;
        if acc > cap {
            return None;
        }
    }
    Some(acc)
}

/// log₁₀ C(n, k) in floating point (for messages).
pub(crate) fn log10_binomial(n: u64, k: u64) -> f64 {
    use statrs::function::gamma::ln_gamma;
    let (n, k) = (n as f64, k as f64);
    (ln_gamma(n + 1.0) - ln_gamma(k + 1.0) - ln_gamma(n - k + 1.0)) / std::f64::consts::LN_10
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials() {
        assert_eq!(binomial(75, 3), BigUint::from(67_525u32));
        assert_eq!(binomial(3340, 2), BigUint::from(5_576_130u32));
        assert_eq!(binomial(3, 5), BigUint::zero());
        assert_eq!(binomial(10, 0), BigUint::one());
        // The capped version agrees wherever it answers, and answers up to its cap.
        for n in [0u64, 1, 5, 37, 64, 75, 200, 3340] {
            for k in 0..=n.min(70) {
                let exact = binomial(n, k);
                match binomial_capped(n, k, u128::MAX) {
                    Some(c) => assert_eq!(BigUint::from(c), exact, "C({n}, {k})"),
                    None => assert!(exact.bits() > 128, "C({n}, {k})"),
                }
                let small = binomial_capped(n, k, 1000);
                assert_eq!(
                    small.is_some(),
                    exact <= BigUint::from(1000u32),
                    "C({n}, {k})"
                );
            }
        }
        // Near the top of u128: C(131, 65) < 2^128 < C(133, 66).
        assert_eq!(
            binomial_capped(131, 65, u128::MAX).map(BigUint::from),
            Some(binomial(131, 65))
        );
        assert_eq!(binomial_capped(133, 66, u128::MAX), None);
        assert!(binomial_capped(u64::MAX, 2, u128::MAX).is_some());
        assert_eq!(binomial_capped(u64::MAX, 3, u128::MAX), None);
    }
}
