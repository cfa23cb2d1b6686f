//! Helpers shared by the unit tests of the library (compiled for tests only).

use crate::error::Error;
use crate::noise::SecureRng;
use crate::privacy::{Delta, Epsilon, Sensitivity};
use crate::select::Selector;

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

/// Asserts that `selector` rejects bad scores with typed errors, whatever its mechanism: an
/// empty list is [`Error::EmptyCandidates`], and the first non-finite score (NaN, ±∞, also
/// beyond the first vector chunk) is [`Error::NonFiniteScore`] with its index and value.
pub(crate) fn assert_rejects_bad_scores(selector: &dyn Selector) {
    let name = selector.name();
    let mut rng = SecureRng::insecure_from_seed(21);
    let mut pick = |scores: &[f64]| selector.select(scores, sens(1.0), &mut rng);
    assert_eq!(pick(&[]), Err(Error::EmptyCandidates), "{name}");
    let nan = pick(&[1.0, f64::NAN, 2.0]).unwrap_err();
    let flagged = matches!(nan, Error::NonFiniteScore { index: 1, value } if value.is_nan());
    assert!(flagged, "{name}: {nan:?}");
    let mut long = vec![0.0; 20];
    long[13] = f64::NEG_INFINITY;
    long[17] = f64::NAN;
    let first = Error::NonFiniteScore {
        index: 13,
        value: f64::NEG_INFINITY,
    };
    assert_eq!(pick(&long), Err(first), "{name}");
    let infinite = Error::NonFiniteScore {
        index: 0,
        value: f64::INFINITY,
    };
    assert_eq!(pick(&[f64::INFINITY]), Err(infinite), "{name}");
}
