//! Exact views of a double: m·2^e, powers of two, scaling by 2^e.

/// A finite double as m·2^e exactly, |m| < 2^53, e ≥ −1074.
pub fn decompose(x: f64) -> (i64, i32) {
    debug_assert!(x.is_finite());
    let bits = x.to_bits();
    let exp_field = ((bits >> 52) & 0x7ff) as i32;
    let frac = (bits & ((1u64 << 52) - 1)) as i64;
    let (m, e) = if exp_field == 0 {
        (frac, -1074)
    } else {
        (frac | (1i64 << 52), exp_field - 1075)
    };
    if bits >> 63 == 1 { (-m, e) } else { (m, e) }
}

/// 2^e as a double for −1074 ≤ e ≤ 1023 (exact).
pub fn pow2(e: i32) -> f64 {
    debug_assert!((-1074..=1023).contains(&e));
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

/// x·2^e, exact whenever the result is representable (x an integer-valued double ≥ 1 or 0,
/// and e ≥ −1074 − 64 so that at most one rounding step happens).
pub fn ldexp(mut x: f64, mut e: i64) -> f64 {
    while e > 1023 {
        x *= pow2(1023);
        e -= 1023;
        if x.is_infinite() {
            return x;
        }
    }
    while e < -1022 {
        x *= pow2(-1022);
        e += 1022;
    }
    x * pow2(e as i32)
}
