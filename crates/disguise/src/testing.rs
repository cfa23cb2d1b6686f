//! Helpers shared by the unit tests of the library (compiled for tests only).

use crate::privacy::{Delta, Epsilon, Sensitivity};

/// A valid ε (panics otherwise).
pub(crate) fn eps(e: f64) -> Epsilon {
    Epsilon::new(e).unwrap()
}

/// A valid δ (panics otherwise).
pub(crate) fn delta(d: f64) -> Delta {
    Delta::new(d).unwrap()
}

/// A valid sensitivity λ (panics otherwise).
pub(crate) fn sens(l: f64) -> Sensitivity {
    Sensitivity::new(l).unwrap()
}
