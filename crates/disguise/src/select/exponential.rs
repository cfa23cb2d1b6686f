//! The exponential mechanism (placeholder being replaced in this session).
use super::{Selection, Selector};
use crate::error::{Error, Result};
use crate::noise::SecureRng;
use crate::privacy::{Epsilon, PrivacyCost, Sensitivity};

/// The exponential mechanism.
#[derive(Debug, Clone, Copy)]
pub struct Exponential {
    epsilon: Epsilon,
}
impl Exponential {
    /// A mechanism with budget ε.
    pub fn new(epsilon: Epsilon) -> Self {
        Self { epsilon }
    }
}
impl Selector for Exponential {
    fn select(&self, scores: &[f64], _s: Sensitivity, _rng: &mut SecureRng) -> Result<Selection> {
        if scores.is_empty() {
            return Err(Error::EmptyCandidates);
        }
        Err(Error::param("exponential", "not yet implemented"))
    }
    fn cost(&self) -> PrivacyCost {
        PrivacyCost::BoundedRange { epsilon: self.epsilon }
    }
    fn name(&self) -> &'static str {
        "em"
    }
}
