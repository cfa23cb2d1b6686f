//! Utility said up front: what the paper's analysis promises for a run's public parameters,
//! and a flag when that promise is vacuous, so that a useless release is announced before
//! anyone trains on it.

use serde::Serialize;

/// The a-priori utility of a run, from public quantities only (n, ε, the sizes of the
/// space; never the data), so stating it costs no privacy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Usefulness {
    /// The bound or condition the analysis gives, in words with its numbers.
    pub bound: String,
    /// Whether it is vacuous: the release is then expected to be mostly noise.
    pub vacuous: bool,
    /// What would help, when vacuous.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<String>,
}

impl Usefulness {
    /// The projected histogram's threshold against the counts the data can put in a cell.
    ///
    /// A cell is released when its noisy count exceeds τ = A·ln(n)/ε_h (Vinterbo 2012,
    /// Section 2.2); the noise has scale 2/ε_h. n records spread over the `cells` of the
    /// projected space give n/cells per cell on average: when τ is above that, most true
    /// cells stay below the threshold and what is released is dominated by the noise of the
    /// few largest cells and by spurious ones; when τ ≥ n even a cell holding every record
    /// needs the noise to pass.
    ///
    /// ```
    /// use disguise::task::Usefulness;
    /// assert!(Usefulness::histogram(120, 2394.0, 64).vacuous);
    /// assert!(!Usefulness::histogram(30_000, 20.0, 64).vacuous);
    /// ```
    pub fn histogram(n: usize, threshold: f64, cells: u64) -> Self {
        let n_f = n as f64;
        let even = n_f / (cells.max(1) as f64);
        let bound = format!(
            "a cell is released when its noisy count exceeds τ = {:.4}; the {n} records spread \
             evenly over the {cells} cells would give {:.4} per cell",
            threshold, even
        );
        let vacuous = threshold >= even;
        let advice = vacuous.then(|| {
            if threshold >= n_f {
                "τ ≥ n: no cell can pass on its records alone, the release is noise; a larger \
                 ε (τ falls as 1/ε), or more records, would help"
                    .to_string()
            } else {
                "a larger ε, or fewer or coarser columns (smaller k, fewer levels or bins), \
                 would help"
                    .to_string()
            }
        });
        Self {
            bound,
            vacuous,
            advice,
        }
    }
}
