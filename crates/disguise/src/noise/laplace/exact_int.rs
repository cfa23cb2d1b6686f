//! Exact integers and their conversion to doubles: the grid value g·(n + Z) of the
//! float-safe Laplace is an exact integer times a power of two, rounded to a double only at
//! the end; the input is rounded to the grid exactly from its mantissa and exponent.

use crate::numeric::bits::{decompose, ldexp};
use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{Signed, ToPrimitive, Zero};

/// How to convert an exact grid value to a double.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rounding {
    /// Round to nearest, ties to even (IEEE default).
    NearestEven,
    /// Round towards +∞.
    Up,
}

/// An exact integer, in an `i128` when it fits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Int {
    Small(i128),
    Big(BigInt),
}

impl Int {
    pub(super) fn from_biguint(v: BigUint) -> Int {
        match v.to_i128() {
            Some(s) => Int::Small(s),
            None => Int::Big(BigInt::from_biguint(Sign::Plus, v)),
        }
    }

    pub(super) fn into_bigint(self) -> BigInt {
        match self {
            Int::Small(v) => BigInt::from(v),
            Int::Big(b) => b,
        }
    }

    pub(super) fn is_zero(&self) -> bool {
        match self {
            Int::Small(v) => *v == 0,
            Int::Big(b) => b.is_zero(),
        }
    }

    pub(super) fn neg(self) -> Int {
        match self {
            Int::Small(v) => match v.checked_neg() {
                Some(n) => Int::Small(n),
                None => Int::Big(-BigInt::from(v)),
            },
            Int::Big(b) => Int::Big(-b),
        }
    }

    pub(super) fn add(self, other: Int) -> Int {
        if let (Int::Small(a), Int::Small(b)) = (&self, &other)
            && let Some(s) = a.checked_add(*b)
        {
            return Int::Small(s);
        }
        let sum = self.into_bigint() + other.into_bigint();
        match sum.to_i128() {
            Some(s) => Int::Small(s),
            None => Int::Big(sum),
        }
    }

    /// The double nearest to (or just above, for [`Rounding::Up`]) self·2^k, k ≥ −1074.
    pub(crate) fn to_f64(&self, k: i32, rounding: Rounding) -> f64 {
        let (negative, top, sticky, shift) = match self {
            Int::Small(v) => {
                let mag = v.unsigned_abs();
                if mag >> 64 == 0 {
                    (*v < 0, mag as u64, false, 0i64)
                } else {
                    let sh = 64 - mag.leading_zeros(); // bits beyond the top 64
                    let top = (mag >> sh) as u64;
                    let sticky = mag & ((1u128 << sh) - 1) != 0;
                    (*v < 0, top, sticky, sh as i64)
                }
            }
            Int::Big(b) => {
                let mag = b.magnitude();
                let bits = mag.bits();
                if bits <= 64 {
                    (b.is_negative(), mag.to_u64().unwrap_or(0), false, 0)
                } else {
                    let sh = bits - 64;
                    let top = (mag >> sh).to_u64().expect("64 top bits");
                    let sticky = mag.trailing_zeros().is_some_and(|tz| tz < sh);
                    (b.is_negative(), top, sticky, sh as i64)
                }
            }
        };
        // Round the magnitude `top + (sticky ? fraction : 0)` to 53 significant bits.
        let away_from_zero = match rounding {
            Rounding::NearestEven => None,
            Rounding::Up => Some(!negative),
        };
        let bits = 64 - top.leading_zeros();
        let drop = bits.saturating_sub(53);
        let mut mantissa = if drop == 0 { top } else { top >> drop };
        let rem = if drop == 0 {
            0
        } else {
            top & ((1u64 << drop) - 1)
        };
        let inexact = rem != 0 || sticky;
        if inexact {
            let round_up = match away_from_zero {
                Some(up) => up,
                None => {
                    // `sticky` implies `top` has 64 bits, so inexact implies drop ≥ 11.
                    let half = 1u64 << (drop - 1);
                    rem > half || (rem == half && (sticky || mantissa & 1 == 1))
                }
            };
            if round_up {
                mantissa += 1; // may become 2^53: still exact as a double
            }
        }
        let magnitude = ldexp(mantissa as f64, shift + drop as i64 + k as i64);
        if negative { -magnitude } else { magnitude }
    }
}

/// v·2^d as an [`Int`].
pub(super) fn shift_left_int(v: i128, d: u32) -> Int {
    let lz = v.unsigned_abs().leading_zeros();
    if d + 1 < lz {
        Int::Small(v << d)
    } else {
        Int::Big(BigInt::from(v) << d)
    }
}

/// round(x / 2^k) with ties towards +∞, exactly, for finite x.
pub(super) fn round_to_grid(x: f64, k: i32) -> Int {
    let (m, e) = decompose(x);
    if e >= k {
        shift_left_int(m as i128, (e - k) as u32)
    } else {
        let d = (k - e) as u32;
        if d > 60 {
            // |m| < 2^53 ≤ 2^(d−1): m/2^d ∈ (−½, ½), which rounds to 0.
            Int::Small(0)
        } else {
            // ⌊(m + 2^(d−1)) / 2^d⌋ with an arithmetic (flooring) shift.
            Int::Small(((m as i128) + (1i128 << (d - 1))) >> d)
        }
    }
}
