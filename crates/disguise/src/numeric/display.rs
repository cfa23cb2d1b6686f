//! Numbers for people: significant digits, rounding that never crosses the value, digit
//! grouping, byte sizes and large counts in scientific notation, for reports printed for
//! people.
//!
//! Tables print numbers rounded to what they mean; JSON and CSV keep every bit. The rule of
//! thumb, which every command of the CLI follows:
//!
//! * a privacy guarantee (ε, δ a run *spent*): [`sig_up`] — rounded up, so the printed claim
//!   is never smaller than the proven one;
//! * a budget a user may copy and spend (per-round ε₀, δ₀): [`sig_down`] — rounded down, so
//!   spending the printed value never exceeds the safe one;
//! * anything else (inputs echoed back, normalisers, scores): [`sig`];
//! * utilities and shares, which live in [0, 1]: [`fixed`].

/// Significant digits of every privacy parameter printed for people.
pub const PRIVACY_DIGITS: usize = 4;

/// Which way [`round_sig`] rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// To the nearest.
    Nearest,
    /// Towards +∞: the printed number is at least the value.
    Up,
    /// Towards −∞: the printed number is at most the value.
    Down,
}

/// `x` with at most `digits` significant digits (1..=17), rounded to the nearest: plain
/// notation for 10⁻⁴ ≤ |x| < 10⁶, scientific outside (`1e-6`, `2.5e8`); trailing zeros are
/// dropped (`0.1`, not `0.1000`).
///
/// ```
/// use disguise::numeric::display::sig;
/// assert_eq!(sig(0.24669999999999703, 4), "0.2467");
/// assert_eq!(sig(9.5367431640625e-7, 3), "9.54e-7");
/// ```
pub fn sig(x: f64, digits: usize) -> String {
    round_sig(x, digits, Rounding::Nearest)
}

/// [`sig`] rounded up (for guarantees: the printed ε is never below the proven one).
pub fn sig_up(x: f64, digits: usize) -> String {
    round_sig(x, digits, Rounding::Up)
}

/// [`sig`] rounded down (for budgets to spend: the printed ε₀ is never above the safe one).
pub fn sig_down(x: f64, digits: usize) -> String {
    round_sig(x, digits, Rounding::Down)
}

/// Relative float noise the directed roundings of [`guarantee`] and [`budget`] ignore: the
/// accountant rounds every operation outwards, so a guarantee of exactly the requested 0.1
/// may come out one ulp above it, which should print as `0.1`, not `0.1001`.
const FLOAT_NOISE: f64 = 1e-12;

/// A privacy guarantee's ε or δ for people: [`PRIVACY_DIGITS`] digits, rounded up (up to a
/// relative 10⁻¹² of float noise).
pub fn guarantee(x: f64) -> String {
    sig_up(x * (1.0 - FLOAT_NOISE), PRIVACY_DIGITS)
}

/// A per-round budget (ε₀ or δ₀) for people: [`PRIVACY_DIGITS`] digits, rounded down (up to
/// a relative 10⁻¹² of float noise).
pub fn budget(x: f64) -> String {
    sig_down(x * (1.0 + FLOAT_NOISE), PRIVACY_DIGITS)
}

/// A number given by the user or derived from public inputs, echoed back: 6 significant
/// digits (what was typed reads back as typed).
pub fn input(x: f64) -> String {
    sig(x, 6)
}

/// `x` with exactly `decimals` decimals (utilities, shares, values in tables).
pub fn fixed(x: f64, decimals: usize) -> String {
    format!("{x:.decimals$}")
}

/// `x` to `digits` significant digits in the direction `rounding` (see [`sig`] for the
/// notation). The printed decimal reads back as a double that is ≥ x (`Up`) or ≤ x (`Down`).
pub fn round_sig(x: f64, digits: usize, rounding: Rounding) -> String {
    if x == 0.0 || !x.is_finite() {
        return if x == 0.0 { "0".into() } else { x.to_string() };
    }
    let digits = digits.clamp(1, 17);
    let first = format!("{:.*e}", digits - 1, x);
    let (mantissa, exponent) = first.split_once('e').expect("{:e} has an exponent");
    let mut exponent: i32 = exponent.parse().expect("{:e} exponent is an integer");
    let negative = mantissa.starts_with('-');
    let mut m: u64 = mantissa
        .trim_start_matches('-')
        .replace('.', "")
        .parse()
        .expect("{:e} mantissa is digits");
    let back: f64 = first.parse().expect("{:e} reads back");
    let outward = match rounding {
        Rounding::Nearest => None,
        Rounding::Up if back < x => Some(!negative),
        Rounding::Down if back > x => Some(negative),
        _ => None,
    };
    let low = 10u64.pow(digits as u32 - 1);
    match outward {
        Some(true) => {
            m += 1;
            if m == low * 10 {
                m = low;
                exponent += 1;
            }
        }
        Some(false) => {
            m -= 1;
            if m < low {
                m = low * 10 - 1;
                exponent -= 1;
            }
        }
        None => {}
    }
    let all = m.to_string();
    let significant = all.trim_end_matches('0');
    lay_out(negative, significant, i64::from(exponent))
}

/// 10000 → "10,000".
pub fn thousands(n: u64) -> String {
    group_digits(&n.to_string())
}

/// A decimal numeral of any length (a big count) in groups of three: "3583281" →
/// "3,583,281". Anything but ASCII digits is returned as it is.
pub fn group_digits(digits: &str) -> String {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return digits.to_string();
    }
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A number of bytes for people: `512 B`, `1.5 MB`, `96 TB` (powers of 1000).
pub fn bytes(n: u128) -> String {
    const UNITS: [&str; 7] = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{} {}", sig(value, 3), UNITS[unit])
    }
}

/// Significant digits `significant` (no trailing zeros) times 10^(exponent − its length + 1),
/// written as people read it: plainly from 10⁻⁴ to below 10⁶, else as `d.ddde±x`.
pub(crate) fn lay_out(negative: bool, significant: &str, exponent: i64) -> String {
    let sign = if negative { "-" } else { "" };
    if (-4..6).contains(&exponent) {
        let point = exponent + 1; // digits before the decimal point
        let body = if point <= 0 {
            format!("0.{}{significant}", "0".repeat((-point) as usize))
        } else if point as usize >= significant.len() {
            format!(
                "{significant}{}",
                "0".repeat(point as usize - significant.len())
            )
        } else {
            let (int, frac) = significant.split_at(point as usize);
            format!("{int}.{frac}")
        };
        format!("{sign}{body}")
    } else {
        let (lead, rest) = significant.split_at(1);
        let dot = if rest.is_empty() { "" } else { "." };
        format!("{sign}{lead}{dot}{rest}e{exponent}")
    }
}

/// A count for people: `4.7e13`, or in full below 10⁶.
pub(crate) fn scientific(x: f64) -> String {
    if x < 1e6 {
        x.to_string()
    } else {
        let exponent = x.log10().floor();
        let mantissa = x / 10f64.powf(exponent);
        // 9.96e7 rounds to "10.0": carry into the exponent.
        if format!("{mantissa:.1}") == "10.0" {
            format!("1.0e{}", exponent + 1.0)
        } else {
            format!("{mantissa:.1}e{exponent}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_digits_read_as_meant() {
        assert_eq!(sig(0.24669999999999703, 4), "0.2467");
        assert_eq!(sig(1.0, 4), "1");
        assert_eq!(sig(0.1, 6), "0.1");
        assert_eq!(sig(0.09999999999999999, 4), "0.1");
        assert_eq!(sig(1e-6, 4), "1e-6");
        assert_eq!(sig(9.5367431640625e-7, 3), "9.54e-7");
        assert_eq!(sig(123456.0, 3), "123000");
        assert_eq!(sig(1234567.0, 3), "1.23e6");
        assert_eq!(sig(99999.4, 6), "99999.4");
        assert_eq!(sig(20.0, 6), "20");
        assert_eq!(sig(0.266, 6), "0.266");
        assert_eq!(sig(-2.5e-7, 4), "-2.5e-7");
        assert_eq!(sig(1e308, 4), "1e308");
        assert_eq!(sig(0.0, 4), "0");
        assert_eq!(sig(f64::NAN, 4), "NaN");
        assert_eq!(sig(0.00012345, 3), "0.000123");
    }

    #[test]
    fn directed_rounding_never_crosses_the_value() {
        assert_eq!(sig_up(0.24661, 4), "0.2467");
        assert_eq!(sig_down(0.24669999999999703, 4), "0.2466");
        assert_eq!(sig_up(0.9999, 3), "1");
        assert_eq!(sig_down(1.0001e-3, 3), "0.001");
        assert_eq!(sig_down(0.999999, 3), "0.999");
        assert_eq!(sig_down(1e-3 * (1.0 - 1e-12), 3), "0.000999");
        assert_eq!(sig_up(-0.24669, 4), "-0.2466");
        assert_eq!(sig_down(-0.24661, 4), "-0.2467");
        // Exactly representable values are printed as they are.
        assert_eq!(sig_up(0.5, 4), "0.5");
        assert_eq!(sig_down(0.5, 4), "0.5");
        // The printed decimal reads back on the right side, over many magnitudes.
        let mut x = 1.234567891234e-12;
        while x < 1e12 {
            for d in 1..=6 {
                let up: f64 = sig_up(x, d).parse().unwrap();
                let down: f64 = sig_down(x, d).parse().unwrap();
                assert!(up >= x && down <= x, "{x} {d}: {up} {down}");
            }
            x *= 7.31;
        }
    }

    #[test]
    fn privacy_numbers_ignore_float_noise_only() {
        assert_eq!(guarantee(0.1 + 1e-17), "0.1");
        assert_eq!(guarantee(0.10000001), "0.1001");
        assert_eq!(guarantee(1e-6), "1e-6");
        assert_eq!(budget(0.009999999999999998), "0.01");
        assert_eq!(budget(0.015982937063770308), "0.01598");
        assert_eq!(budget(0.0099999), "0.009999");
        assert_eq!(guarantee(0.0), "0");
    }

    #[test]
    fn counts_and_sizes() {
        assert_eq!(thousands(10_000), "10,000");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(group_digits("3583281"), "3,583,281");
        assert_eq!(
            group_digits("123456789012345678901234"),
            "123,456,789,012,345,678,901,234"
        );
        assert_eq!(group_digits("n/a"), "n/a");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1_500_000), "1.5 MB");
        assert_eq!(bytes(96_000_000_000_000), "96 TB");
    }
}
