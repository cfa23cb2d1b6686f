//! Directed rounding: every `*_up` result is ≥ the exact value of the operation on the
//! given doubles, every `*_down` result ≤ it. The accountant and every mechanism that must
//! round a privacy parameter conservatively use these.

/// `true` when |x| is too small for the error-free transformations to be exact.
fn tiny(x: f64) -> bool {
    x.abs() < 1e-290
}

/// A rounded-down result that overflowed to +∞ from finite inputs is `f64::MAX`.
fn overflow_down(v: f64, finite_inputs: bool) -> f64 {
    if v == f64::INFINITY && finite_inputs {
        f64::MAX
    } else {
        v
    }
}

/// a + b rounded up (two-sum: the rounding error of a + b is exactly representable).
pub fn add_up(a: f64, b: f64) -> f64 {
    let s = a + b;
    if !s.is_finite() {
        return s;
    }
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    if err > 0.0 { s.next_up() } else { s }
}

/// a + b rounded down.
pub fn add_down(a: f64, b: f64) -> f64 {
    let s = a + b;
    if !s.is_finite() {
        return overflow_down(s, a.is_finite() && b.is_finite());
    }
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    if err < 0.0 { s.next_down() } else { s }
}

/// a − b rounded down.
pub fn sub_down(a: f64, b: f64) -> f64 {
    add_down(a, -b)
}

/// a · b rounded up (the residual a·b − p is exact through `mul_add` unless it underflows).
pub fn mul_up(a: f64, b: f64) -> f64 {
    let p = a * b;
    if !p.is_finite() {
        return p;
    }
    if tiny(p) {
        return if a == 0.0 || b == 0.0 { p } else { p.next_up() };
    }
    if a.mul_add(b, -p) > 0.0 {
        p.next_up()
    } else {
        p
    }
}

/// a / b rounded up, for b > 0.
pub fn div_up(a: f64, b: f64) -> f64 {
    debug_assert!(b > 0.0);
    let q = a / b;
    if !q.is_finite() {
        return q;
    }
    if tiny(q) || tiny(b) {
        return if a == 0.0 { q } else { q.next_up() };
    }
    // a − q·b > 0 means the exact quotient is above q.
    if (-q).mul_add(b, a) > 0.0 {
        q.next_up()
    } else {
        q
    }
}

/// a / b rounded down, for b > 0.
pub fn div_down(a: f64, b: f64) -> f64 {
    debug_assert!(b > 0.0);
    let q = a / b;
    if !q.is_finite() {
        return overflow_down(q, a.is_finite() && b.is_finite());
    }
    if tiny(q) || tiny(b) {
        return if a == 0.0 { q } else { q.next_down() };
    }
    if (-q).mul_add(b, a) < 0.0 {
        q.next_down()
    } else {
        q
    }
}

/// √x rounded up, for x ≥ 0.
pub fn sqrt_up(x: f64) -> f64 {
    let s = x.sqrt();
    if !s.is_finite() || x == 0.0 {
        return s;
    }
    if tiny(x) {
        return s.next_up();
    }
    if (-s).mul_add(s, x) > 0.0 {
        s.next_up()
    } else {
        s
    }
}

/// x², rounded up.
pub fn sq_up(x: f64) -> f64 {
    mul_up(x, x)
}

/// Moves `v` up by `n` ulps (for results of `ln`, `exp`, … which are accurate to about
/// one ulp but not correctly rounded).
pub fn nudge_up(mut v: f64, n: u32) -> f64 {
    for _ in 0..n {
        v = v.next_up();
    }
    v
}

/// Moves `v` down by `n` ulps.
pub fn nudge_down(mut v: f64, n: u32) -> f64 {
    for _ in 0..n {
        v = v.next_down();
    }
    v
}

/// ln(1/δ) rounded up, for δ ∈ (0, 1).
pub fn ln_inv_up(delta: f64) -> f64 {
    -nudge_down(delta.ln(), 2)
}

/// A count as `f64`, rounded up.
pub fn count_up(k: u64) -> f64 {
    let f = k as f64;
    if (f as u128) < k as u128 {
        f.next_up()
    } else {
        f
    }
}
