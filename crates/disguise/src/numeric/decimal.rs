//! Privacy parameters as the decimals people type, exactly.
//!
//! A user types `--epsilon 0.1`; the double nearest 0.1 is 0.1000000000000000055…, so a
//! mechanism run at that double spends a hair more than 0.1, and three releases of 0.1, 0.1
//! and 0.1 add up, in floating point, to more than a limit of 0.3. disguise reads every
//! guarantee it reports and every budget it keeps as a **decimal**: the shortest decimal
//! that reads back as the double ([`shortest`]; what Rust's `{}` and Python's `repr` print).
//! Two rules make that decimal a proven bound:
//!
//! * a budget a user gives (a total ε or δ) is spent at [`at_most_typed`] — the largest
//!   double not above the decimal typed — so a release never spends more than what was
//!   typed;
//! * a bound computed by the accountant (rounded up in binary) is reported as [`tidy_up`] —
//!   the double whose shortest decimal is the decimal with the fewest digits at or above the
//!   bound, within a relative 2⁻⁵⁰ of it — so the printed decimal is never below the proof.
//!
//! With both, a limit and costs typed as decimals add up exactly (0.1 + 0.2 fits 0.3), and a
//! guarantee prints as the budget that was asked for. Sums and differences of such decimals
//! (a budget ledger's totals) are kept as exact rationals ([`Exact`]).

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::cmp::Ordering;

/// An exact rational number (a sum of decimals, or of squares of doubles).
pub type Exact = BigRational;

/// The exact value of the double `x` (finite).
pub fn exact(x: f64) -> Exact {
    BigRational::from_float(x).unwrap_or_else(Exact::zero)
}

/// The exact value of the shortest decimal that reads back as `x` (finite): `0.1` for the
/// double nearest 0.1, `1e-6` for the double nearest 10⁻⁶.
///
/// ```
/// use disguise::numeric::decimal::{exact, shortest};
/// use num_rational::BigRational;
/// assert_eq!(shortest(0.1), BigRational::new(1.into(), 10.into()));
/// assert!(shortest(0.1) < exact(0.1)); // the double is a hair above 0.1
/// ```
pub fn shortest(x: f64) -> Exact {
    if !x.is_finite() || x == 0.0 {
        return Exact::zero();
    }
    parse(&format!("{x:e}")).unwrap_or_else(|| exact(x))
}

/// Parses a decimal in plain or scientific notation (`0.25`, `-1.5e-3`, `7`) exactly.
pub fn parse(text: &str) -> Option<Exact> {
    let text = text.trim();
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().ok()?),
        None => (text, 0),
    };
    let (negative, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, mantissa.strip_prefix('+').unwrap_or(mantissa)),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !(int.chars().all(|c| c.is_ascii_digit()) && frac.chars().all(|c| c.is_ascii_digit())) {
        return None;
    }
    let digits: BigInt = format!("{int}{frac}").parse().ok()?;
    let scale = i64::from(exponent) - frac.len() as i64;
    let value = times_pow10(Exact::from_integer(digits), scale);
    Some(if negative { -value } else { value })
}

/// `value`·10^`power`, exactly.
fn times_pow10(value: Exact, power: i64) -> Exact {
    let ten = BigInt::from(10);
    let p = num_traits::pow(ten, power.unsigned_abs() as usize);
    if power >= 0 {
        value * Exact::from_integer(p)
    } else {
        value / Exact::from_integer(p)
    }
}

/// The largest double whose value is at most the shortest decimal of `x`: `x` itself when the
/// double is not above its decimal, else the next double down. A budget typed as `x` is
/// spent at this value, so that a release never spends more than the decimal typed.
///
/// ```
/// use disguise::numeric::decimal::{at_most_typed, exact, shortest};
/// let spent = at_most_typed(0.1);
/// assert!(exact(spent) <= shortest(0.1) && spent == 0.1f64.next_down());
/// assert_eq!(at_most_typed(0.5), 0.5); // exact in binary
/// ```
pub fn at_most_typed(x: f64) -> f64 {
    if !x.is_finite() || x <= 0.0 {
        return x;
    }
    if exact(x) <= shortest(x) {
        x
    } else {
        x.next_down()
    }
}

/// The relative window above a bound within which [`tidy_up`] looks for a short decimal.
const TIDY: f64 = 1.0 / (1u64 << 50) as f64;

/// The most significant digits a tidied bound may be moved to: two decimals of at most 15
/// digits are never within a relative 2⁻⁵⁰ of each other, so a tidied bound is never moved
/// past a budget typed with at most 15 digits.
const TIDY_DIGITS: u32 = 15;

/// The double to report for a bound `u` proven in binary (`u` ≥ 0, finite): its shortest
/// decimal is at least `u` — so printing it never understates the bound. When a decimal of
/// at most 15 significant digits lies in [u, u·(1 + 2⁻⁵⁰)], the one with the fewest digits
/// is reported (a bound a hair below a requested 1, 0.9999999999999999, reports as 1; a
/// single call at the double just below 0.1, [`at_most_typed`], as 0.1); otherwise the
/// smallest double whose shortest decimal is at least `u` (`u` itself or the next double).
/// A bound at most a budget typed with at most 15 significant digits is thus reported at
/// most as typed.
///
/// ```
/// use disguise::numeric::decimal::{exact, shortest, tidy_up};
/// assert_eq!(tidy_up(0.1f64.next_down()), 0.1);
/// assert_eq!(tidy_up(0.9999999999999999), 1.0);
/// let u = 0.1 + 0.2; // 0.30000000000000004
/// assert!(shortest(tidy_up(u)) >= exact(u));
/// ```
pub fn tidy_up(u: f64) -> f64 {
    if !u.is_finite() || u <= 0.0 {
        return u;
    }
    tidy_above(&exact(u), u)
}

/// The double whose shortest decimal is the tidiest decimal at or above `bound` > 0 (see
/// [`tidy_up`]); `start` is a double at most the answer (the bound's own double, or below).
fn tidy_above(bound: &Exact, start: f64) -> f64 {
    let cap = bound * (Exact::one() + exact(TIDY));
    for digits in 1..=TIDY_DIGITS {
        let d = ceil_significant(bound, digits);
        if d > cap {
            continue;
        }
        let v = to_f64(&d);
        if v.is_finite() && shortest(v) >= *bound {
            return v;
        }
    }
    // The shortest decimal of the next double up is above the bound (it is within half a
    // gap of that double), so this takes at most a step or two.
    let mut v = start;
    while shortest(v) < *bound {
        v = v.next_up();
    }
    v
}

/// [`tidy_up`], unless that would report more than `ceiling` (a budget typed with more than
/// 15 digits): then the smallest double whose shortest decimal is at least `u`, which is at
/// most `ceiling` whenever `u` is at most the decimal of `ceiling`.
pub fn tidy_up_at_most(u: f64, ceiling: f64) -> f64 {
    let t = tidy_up(u);
    if t <= ceiling || !u.is_finite() || u <= 0.0 {
        return t;
    }
    let bound = exact(u);
    let mut v = u;
    while shortest(v) < bound {
        v = v.next_up();
    }
    v
}

/// The largest double whose shortest decimal is at most `r` (r ≥ 0): what is left of a
/// budget, as a double that can be spent in full.
pub fn carrier_down(r: &Exact) -> f64 {
    if !r.is_positive() {
        return 0.0;
    }
    let mut v = to_f64(&floor_significant(r, 17));
    while v > 0.0 && shortest(v) > *r {
        v = v.next_down();
    }
    v
}

/// The smallest double whose shortest decimal is at least `r` (r ≥ 0), tidied as
/// [`tidy_up`]: what is spent, as a double that never understates it.
pub fn carrier_up(r: &Exact) -> f64 {
    if !r.is_positive() {
        return 0.0;
    }
    let start = to_f64(&floor_significant(r, 17)).next_down();
    tidy_above(r, start)
}

/// The nearest double to the exact `r` (for decimals of at most 17 digits, the double they
/// read back as).
pub fn to_f64(r: &Exact) -> f64 {
    decimal_string(r, 40, Ordering::Equal)
        .parse()
        .unwrap_or(f64::NAN)
}

/// The decimal with `digits` significant digits at or above `r` > 0.
fn ceil_significant(r: &Exact, digits: u32) -> Exact {
    round_significant(r, digits, true)
}

/// The decimal with `digits` significant digits at or below `r` > 0.
fn floor_significant(r: &Exact, digits: u32) -> Exact {
    round_significant(r, digits, false)
}

/// `r` > 0 rounded to `digits` significant digits, up or down.
fn round_significant(r: &Exact, digits: u32, up: bool) -> Exact {
    let e = floor_log10(r);
    let scale = i64::from(digits) - 1 - e;
    let scaled = times_pow10(r.clone(), scale);
    let m = if up { scaled.ceil() } else { scaled.floor() };
    times_pow10(m, -scale)
}

/// ⌊log₁₀ r⌋ for r > 0, exactly.
fn floor_log10(r: &Exact) -> i64 {
    let approx = r.to_f64().map_or(0.0, f64::log10);
    let mut e = if approx.is_finite() {
        approx.floor() as i64
    } else {
        // Outside the range of doubles: count digits of numerator and denominator.
        r.numer().to_string().len() as i64 - r.denom().to_string().len() as i64
    };
    while times_pow10(Exact::one(), e) > *r {
        e -= 1;
    }
    while times_pow10(Exact::one(), e + 1) <= *r {
        e += 1;
    }
    e
}

/// A budget or guarantee `x` as people type it: its shortest decimal, in the notation of
/// [`decimal_string`] (`0.1`, `1e-6`, `0.30000000000000004`).
///
/// ```
/// use disguise::numeric::decimal::typed;
/// assert_eq!((typed(0.1), typed(1e-6), typed(2.0)), ("0.1".into(), "1e-6".into(), "2".into()));
/// ```
pub fn typed(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    decimal_string(&shortest(x), 17, Ordering::Equal)
}

/// A computed quantity `x` (ρ, ε) for people: its shortest decimal to `digits` significant
/// digits, rounded towards `rounding` (`Greater`: up, for what is spent; `Less`: down, for what is left).
pub fn rounded(x: f64, digits: u32, rounding: Ordering) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    decimal_string(&shortest(x), digits, rounding)
}

/// `r` ≥ 0 as a decimal for people: exact when it has at most `digits` significant digits
/// (every sum of typed decimals), else rounded to `digits` digits towards `rounding`
/// (`Greater`: up, `Less`: down, `Equal`: nearest). Plain notation for 10⁻⁴ ≤ r < 10⁶,
/// scientific outside (`1e-6`), as [`super::display::sig`] prints.
///
/// ```
/// use disguise::numeric::decimal::{parse, decimal_string};
/// use std::cmp::Ordering;
/// let third = parse("0.1").unwrap() + parse("0.2").unwrap();
/// assert_eq!(decimal_string(&third, 17, Ordering::Greater), "0.3");
/// assert_eq!(decimal_string(&parse("2e-6").unwrap(), 17, Ordering::Greater), "2e-6");
/// ```
pub fn decimal_string(r: &Exact, digits: u32, rounding: Ordering) -> String {
    if r.is_zero() {
        return "0".to_string();
    }
    let negative = r.is_negative();
    let magnitude = r.abs();
    let e = floor_log10(&magnitude);
    let scale = i64::from(digits) - 1 - e;
    let scaled = times_pow10(magnitude, scale);
    let up = match rounding {
        Ordering::Greater => !negative,
        Ordering::Less => negative,
        Ordering::Equal => scaled.fract() * Exact::from_integer(2.into()) >= Exact::one(),
    };
    let mut m = if scaled.is_integer() {
        scaled.to_integer()
    } else if up {
        scaled.ceil().to_integer()
    } else {
        scaled.floor().to_integer()
    };
    let mut exponent = e;
    // Rounding up may carry into one more digit (9.99… → 10.0).
    if m.to_string().len() as u32 > digits {
        m = m.div_floor(&BigInt::from(10));
        exponent += 1;
    }
    let all = m.to_string();
    let significant = all.trim_end_matches('0');
    let significant = if significant.is_empty() {
        "0"
    } else {
        significant
    };
    super::display::lay_out(negative, significant, exponent)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(text: &str) -> Exact {
        parse(text).unwrap()
    }

    #[test]
    fn shortest_is_what_people_typed() {
        for (x, text) in [
            (0.1, "0.1"),
            (0.3, "0.3"),
            (1e-6, "1e-6"),
            (2.0, "2"),
            (700.0, "700"),
        ] {
            assert_eq!(shortest(x), d(text), "{x}");
        }
        assert_eq!(shortest(0.1 + 0.2), d("0.30000000000000004"));
    }

    #[test]
    fn typed_budgets_are_spent_at_most_as_typed() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..5_000 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let x = f64::from_bits(0x3c00_0000_0000_0000 + rng % 0x0800_0000_0000_0000);
            let s = at_most_typed(x);
            assert!(exact(s) <= shortest(x), "{x:e}");
            assert!(s == x || s == x.next_down(), "{x:e}");
        }
    }

    #[test]
    fn tidy_bounds_never_print_below_the_bound_and_are_short() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..5_000 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let u = f64::from_bits(0x3c00_0000_0000_0000 + rng % 0x0800_0000_0000_0000);
            let t = tidy_up(u);
            assert!(shortest(t) >= exact(u) && t >= u, "{u:e} → {t:e}");
            assert!(t <= u.next_up().max(u * (1.0 + 2.0 * TIDY)));
            // Never past a value typed with at most 15 digits at or above the bound.
            let typed = to_f64(&floor_significant(&exact(u), 12));
            assert!(tidy_up(at_most_typed(typed)) <= typed, "{typed:e}");
        }
        // A bound a hair below a typed value prints as the typed value.
        for x in [0.1, 0.2, 0.3, 1.0, 2.5e-7, 0.7, 3.0] {
            assert_eq!(tidy_up(at_most_typed(x)), x, "{x}");
        }
    }

    #[test]
    fn exact_sums_of_typed_decimals_fit_exactly() {
        let typed = |x: f64| shortest(x);
        assert_eq!(typed(0.1) + typed(0.2), typed(0.3));
        let five = typed(0.5);
        assert_eq!(&five + &five + &five + typed(0.4) + typed(0.1), typed(2.0));
        assert_eq!(carrier_down(&(typed(0.3) - typed(0.2))), 0.1);
        assert_eq!(carrier_up(&(typed(0.1) + typed(0.2))), 0.3);
    }

    #[test]
    fn decimals_print_exactly_or_rounded_the_safe_way() {
        let third = d("1") / d("3");
        assert_eq!(decimal_string(&third, 4, Ordering::Greater), "0.3334");
        assert_eq!(decimal_string(&third, 4, Ordering::Less), "0.3333");
        assert_eq!(decimal_string(&d("0.99999"), 3, Ordering::Greater), "1");
        assert_eq!(
            decimal_string(&d("123456789"), 17, Ordering::Equal),
            "1.23456789e8"
        );
        assert_eq!(
            decimal_string(&d("0.00012"), 17, Ordering::Equal),
            "0.00012"
        );
        assert_eq!(parse("1.5e-3"), Some(d("0.0015")));
        assert_eq!(parse("abc"), None);
    }
}
