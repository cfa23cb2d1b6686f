//! Axes shared by every figure: "nice" tick positions ([`nice_ticks`]), readable tick labels
//! ([`tick_label`]), padded data ranges ([`padded`]) and a linear axis with explicit ticks
//! ([`Axis`]).

use plotters::prelude::*;

/// A short, readable tick label: up to 4 significant digits, no trailing zeros.
pub fn tick_label(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return v.to_string();
    }
    let magnitude = v.abs().log10().floor() as i32;
    if !(-4..6).contains(&magnitude) {
        // A power of ten as 10ⁿ (the ticks of a log axis), anything else as m·10ⁿ.
        let mantissa = v / 10f64.powi(magnitude);
        let power = format!("10{}", superscript(magnitude));
        return if (mantissa.abs() - 1.0).abs() < 1e-9 {
            if v < 0.0 {
                format!("−{power}")
            } else {
                power
            }
        } else {
            format!("{}·{power}", tick_label(mantissa))
        };
    }
    let decimals = (3 - magnitude).clamp(0, 8) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// An integer in superscript digits (−12 → ⁻¹²).
fn superscript(n: i32) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut out = String::new();
    if n < 0 {
        out.push('⁻');
    }
    for d in n.unsigned_abs().to_string().bytes() {
        out.push(DIGITS[usize::from(d - b'0')]);
    }
    out
}

/// Evenly spaced "nice" ticks (steps of 1, 2 or 5 × 10^m) covering [lo, hi].
pub(crate) fn nice_ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    // Also catches NaN bounds.
    if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
        return vec![lo];
    }
    let raw = (hi - lo) / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// [lo, hi] of `values` widened by `pad` of the span on both sides (a unit span if empty
/// or flat).
pub(crate) fn padded(values: impl Iterator<Item = f64>, pad: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo < 1e-12 {
        let half = if lo == 0.0 { 0.5 } else { lo.abs() * 0.05 };
        return (lo - half, hi + half);
    }
    let d = (hi - lo) * pad;
    (lo - d, hi + d)
}

/// A linear f64 axis with explicit tick positions (plotters' `with_key_points` loses the
/// f64 tick formatter, so the mesh could not be labelled).
/// A linear axis with explicit tick positions (the ticks outside it are dropped), shared by
/// every figure.
#[derive(Clone)]
pub(crate) struct Axis {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Axis {
    pub(crate) fn new(lo: f64, hi: f64, ticks: Vec<f64>) -> Self {
        let ticks = ticks
            .into_iter()
            .filter(|t| *t >= lo.min(hi) && *t <= hi.max(lo))
            .collect();
        Self { lo, hi, ticks }
    }
}

impl Ranged for Axis {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        if self.hi == self.lo {
            return (limit.0 + limit.1) / 2;
        }
        let t = ((v - self.lo) / (self.hi - self.lo)).clamp(-10.0, 10.0);
        limit.0 + (f64::from(limit.1 - limit.0) * t).round() as i32
    }

    fn key_points<H: plotters::coord::ranged1d::KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::boxplot::wrap;

    #[test]
    fn ticks_are_nice() {
        let ticks = nice_ticks(0.0, 1.0, 5);
        let want = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0];
        assert_eq!(ticks.len(), want.len(), "{ticks:?}");
        assert!(
            ticks.iter().zip(want).all(|(t, w)| (t - w).abs() < 1e-12),
            "{ticks:?}"
        );
        let (lo, hi) = padded([0.5, 1.0].into_iter(), 0.1);
        assert!((lo - 0.45).abs() < 1e-12 && (hi - 1.05).abs() < 1e-12);
    }

    #[test]
    fn ticks_and_labels_are_readable() {
        let ticks: Vec<String> = nice_ticks(0.0, 1.0, 5)
            .into_iter()
            .map(tick_label)
            .collect();
        assert_eq!(ticks, ["0", "0.2", "0.4", "0.6", "0.8", "1"]);
        assert_eq!(tick_label(0.30000000000000004), "0.3");
        assert_eq!(tick_label(0.01), "0.01");
        assert_eq!(tick_label(10.0), "10");
        assert_eq!(tick_label(-73.95), "-73.95");
        // Powers of ten as 10ⁿ, not 1.0e50.
        assert_eq!(tick_label(1e50), "10⁵⁰");
        assert_eq!(tick_label(1e-7), "10⁻⁷");
        assert_eq!(tick_label(2.5e8), "2.5·10⁸");
        assert_eq!(
            wrap("a long label here", 7),
            vec!["a long", "label", "here"]
        );
    }
}
