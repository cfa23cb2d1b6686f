//! Mean, standard deviation and quantiles, once: a two-pass function for values in memory and a
//! one-pass accumulator for streams of trials. Both give the mean as the plain sum divided
//! by the count.

/// The mean of the values (NaN for none).
///
/// ```
/// use disguise::numeric::stats::mean;
/// assert_eq!(mean([1.0, 2.0, 6.0].into_iter()), 3.0);
/// assert!(mean(std::iter::empty()).is_nan());
/// ```
pub fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (mut s, mut n) = (0.0, 0usize);
    for x in xs {
        s += x;
        n += 1;
    }
    if n == 0 { f64::NAN } else { s / n as f64 }
}

/// Mean and sample standard deviation (n − 1 in the denominator; 0 for one value, NaN for
/// none), in two passes.
///
/// ```
/// use disguise::numeric::stats::mean_std;
/// let (m, s) = mean_std(&[1.0, 3.0]);
/// assert_eq!(m, 2.0);
/// assert!((s - 2f64.sqrt()).abs() < 1e-15);
/// ```
pub fn mean_std(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

/// The `p`-quantile of sorted values by linear interpolation between order statistics
/// (Hyndman and Fan's type 7, the default of R and numpy); NaN for none.
///
/// ```
/// use disguise::numeric::stats::quantile;
/// assert_eq!(quantile(&[1.0, 2.0, 4.0], 0.5), 2.0);
/// assert_eq!(quantile(&[1.0, 2.0, 4.0], 0.75), 3.0);
/// assert!(quantile(&[], 0.5).is_nan());
/// ```
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * p;
    let (i, f) = (h.floor() as usize, h - h.floor());
    if i + 1 < sorted.len() {
        sorted[i] + f * (sorted[i + 1] - sorted[i])
    } else {
        sorted[i]
    }
}

/// Mean and sample standard deviation folded one value at a time (Welford's update, stable
/// for any number of values); the mean is the plain running sum divided by the count, as a
/// two-pass computation would give it.
#[derive(Debug, Clone, Copy, Default)]
pub struct MeanStd {
    n: u64,
    sum: f64,
    mean: f64,
    m2: f64,
}

impl MeanStd {
    /// Adds one value.
    pub fn push(&mut self, x: f64) {
        self.n += 1;
        self.sum += x;
        let delta = x - self.mean;
        self.mean += delta / self.n as f64;
        self.m2 += delta * (x - self.mean);
    }

    /// The mean (NaN for no values).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.sum / self.n as f64
        }
    }

    /// The sample standard deviation (n − 1 in the denominator; 0 for one value, NaN for
    /// none).
    pub fn std(&self) -> f64 {
        match self.n {
            0 => f64::NAN,
            1 => 0.0,
            n => (self.m2 / (n - 1) as f64).sqrt(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_std_match_two_passes() {
        let xs = [0.3, 0.7, 0.1, 0.9, 0.55, 0.25];
        let mut acc = MeanStd::default();
        for &x in &xs {
            acc.push(x);
        }
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
        assert_eq!(acc.mean(), mean);
        assert!((acc.std() - var.sqrt()).abs() < 1e-15);
        let mut one = MeanStd::default();
        one.push(2.0);
        assert_eq!((one.mean(), one.std()), (2.0, 0.0));
        assert!(MeanStd::default().mean().is_nan());
    }
}
