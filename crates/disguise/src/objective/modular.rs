//! A modular (additive) set function: each candidate has a weight, a set is worth the sum.

use super::{Properties, SetFunction};
use crate::error::{Error, Result};
use crate::privacy::Sensitivity;

/// f(S) = Σ_{v ∈ S} w_v for weights computed from the private data.
///
/// Modular functions are submodular (with equality in the diminishing-returns inequality),
/// and monotone when every weight is non-negative. Greedy over a matroid is then exact
/// without privacy (Rado–Edmonds): over the graphic matroid of a complete graph it is
/// Kruskal's maximum spanning tree, which is what the private greedy of Mitrovic et al.
/// (2017, Algorithm 2) becomes — the tree step of [`crate::synth`].
///
/// # Sensitivity
/// The caller declares λ, a bound on how far any one weight moves between neighbouring
/// datasets. A gain f(S ∪ {v}) − f(S) = w_v does not depend on S, so λ is both the
/// per-round [`SetFunction::sensitivity`] and the [`SetFunction::gain_sensitivity`].
///
/// ```
/// use disguise::constraint::Graphic;
/// use disguise::maximize::standard_greedy;
/// use disguise::objective::{Modular, SetFunction};
/// use disguise::privacy::Sensitivity;
/// // The edges of a triangle weighted 3, 1, 2: the maximum spanning tree keeps 3 and 2.
/// let f = Modular::new(vec![3.0, 1.0, 2.0], Sensitivity::new(1.0)?)?;
/// let g = Graphic::new(3, vec![(0, 1), (1, 2), (0, 2)])?;
/// assert_eq!(standard_greedy(&f, &g)?.elements, vec![0, 2]);
/// assert_eq!(f.evaluate(&[0, 2]), 5.0);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Modular {
    weights: Vec<f64>,
    lambda: Sensitivity,
}

impl Modular {
    /// The modular function of `weights`, each moving by at most `lambda` between
    /// neighbours.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a non-finite weight.
    pub fn new(weights: Vec<f64>, lambda: Sensitivity) -> Result<Self> {
        if let Some(i) = weights.iter().position(|w| !w.is_finite()) {
            return Err(Error::param(
                "weights",
                format!("weight {i} is {}, not a finite number", weights[i]),
            ));
        }
        Ok(Self { weights, lambda })
    }

    /// The weights.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }
}

impl SetFunction for Modular {
    /// The sum so far.
    type State = f64;

    fn ground_size(&self) -> usize {
        self.weights.len()
    }

    fn empty(&self) -> f64 {
        0.0
    }

    fn gains(&self, _state: &f64, candidates: &[usize], out: &mut [f64]) {
        for (o, &v) in out.iter_mut().zip(candidates) {
            *o = self.weights[v];
        }
    }

    fn insert(&self, state: &mut f64, v: usize) {
        *state += self.weights[v];
    }

    fn value(&self, state: &f64) -> f64 {
        *state
    }

    fn sensitivity(&self, _round: usize) -> Sensitivity {
        self.lambda
    }

    /// λ: a gain is one weight.
    fn gain_sensitivity(&self, _round: usize) -> Sensitivity {
        self.lambda
    }

    /// Monotone when no weight is negative; never decomposable (the weights need not be
    /// sums of per-record monotone terms).
    fn properties(&self) -> Properties {
        if self.weights.iter().all(|&w| w >= 0.0) {
            Properties::MONOTONE
        } else {
            Properties::NONE
        }
    }

    fn name(&self) -> &'static str {
        "modular"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gains_are_the_weights_whatever_the_set() {
        let f = Modular::new(vec![1.5, -2.0, 0.0], Sensitivity::new(2.0).unwrap()).unwrap();
        let mut s = f.empty();
        f.insert(&mut s, 0);
        let mut out = [0.0; 2];
        f.gains(&s, &[1, 2], &mut out);
        assert_eq!(out, [-2.0, 0.0]);
        assert_eq!(f.value(&s), 1.5);
        assert_eq!(f.properties(), Properties::NONE);
        assert_eq!(f.gain_sensitivity(3).get(), 2.0);
        assert!(Modular::new(vec![f64::NAN], Sensitivity::new(1.0).unwrap()).is_err());
    }
}
