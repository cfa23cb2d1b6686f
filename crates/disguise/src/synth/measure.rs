//! The synthesizer's budget and its noisy measurements of marginal counts.

use crate::error::{Error, Result};
use crate::names::{Named, named_traits};
pub use crate::noise::CountNoise;
use crate::numeric::round::{div_down, div_up, mul_up, nudge_down, sqrt_up};
use crate::privacy::compose::{Accountant, ComposeOptions, rho_for};
use crate::privacy::{Delta, Epsilon, Guarantee, PrivacyCost};
use serde::Serialize;

/// The noise of the marginal measurements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MeasurementNoise {
    /// Discrete Laplace on the counts: pure ε-DP, composed by basic composition.
    Laplace,
    /// Discrete Gaussian on the counts: ρ-zCDP, the whole run converted to (ε, δ) by the
    /// tight conversion of Canonne, Kamath and Steinke (2020) — MST's accounting. Needs δ > 0.
    Gaussian,
}

impl Named for MeasurementNoise {
    const KIND: &'static str = "noise";
    const ALL: &'static [Self] = &[MeasurementNoise::Gaussian, MeasurementNoise::Laplace];

    fn name(self) -> &'static str {
        match self {
            MeasurementNoise::Laplace => "laplace",
            MeasurementNoise::Gaussian => "gaussian",
        }
    }

    fn help(self) -> &'static str {
        match self {
            MeasurementNoise::Laplace => "discrete Laplace: pure ε-DP (the default when δ = 0)",
            MeasurementNoise::Gaussian => {
                "discrete Gaussian, zCDP converted to (ε, δ): less noise for many columns \
                 (the default when δ > 0)"
            }
        }
    }
}

named_traits!(MeasurementNoise);

/// One measured marginal, as released: its columns, the noise of each count and the ε of
/// the exponential mechanism that chose it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasuredMarginal {
    /// The marginal's columns (sorted).
    pub columns: Vec<usize>,
    /// The noise each count got.
    pub noise: CountNoise,
    /// ε of the exponential mechanism that chose it (`None`: measured without a choice,
    /// like every column's 1-way).
    pub selection_epsilon: Option<f64>,
    /// The noisy counts (released), on the compressed domain: row-major over the columns,
    /// the last fastest.
    #[serde(skip)]
    pub counts: Vec<f64>,
}

/// The budget of one synthesis: the three steps' shares and the noise each measurement gets,
/// fixed from public quantities (ε, δ, the number of columns d) before any record is read.
///
/// # Neighbours and sensitivities
/// Replace-one: two tables with the same n (public) that differ in one record. The record's
/// d values move one count in each 1-way marginal and one in each 2-way marginal, from the
/// cell of the old value to the new one:
/// * all d 1-way marginals together: L1 ≤ 2d, L2² ≤ 2d;
/// * the d − 1 measured 2-way marginals together: L1 ≤ 2(d − 1), L2² ≤ 2(d − 1);
/// * an edge's selection score, the L1 distance of its 2-way counts from a public model,
///   moves by at most 2 (the exponential mechanism's λ, see [`super::tree`]).
///
/// # The split (MST's: McKenna, Miklau, Sheldon 2021, Algorithm 1)
/// One third of the budget for each step: the 1-ways, the tree, the 2-ways.
/// * Laplace: ε/3 each (rounded down); 1-ways scale t₁ = 2d/(ε/3), 2-ways t₂ = 2(d − 1)/(ε/3),
///   the d − 1 exponential mechanisms ε₀ = (ε/3)/(d − 1) each: basic composition, ε-DP.
/// * Gaussian: ρ = the largest zCDP budget converting to (ε, δ) ([`rho_for`]), ρ/3 each:
///   σ₁² = d/(ρ/3), σ₂² = (d − 1)/(ρ/3), and ε₀ = √(8(ρ/3)/(d − 1)) (an ε₀-bounded-range
///   call is ε₀²/8-zCDP, Cesar–Rogers 2021): zCDP composition, (ε, δ)-DP.
///
/// Every share is rounded in the safe direction, and the composed guarantee is checked to be
/// within the budget asked (the shares shrink by a few doubles until it is).
///
/// # Private edges
/// When k numeric columns have neither public `bins` nor `edges`
/// ([`Plan::with_edges`]), a share s of the budget goes to their private bin edges first
/// ([`crate::histogram::edges`]): s·ε/k each under Laplace noise (pure ε-DP, basic
/// composition), s·ρ/k each under Gaussian noise (ρ-zCDP, zCDP composition), and the three
/// steps above split the rest, (1 − s)·ε or (1 − s)·ρ.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// The noise kind.
    pub noise: MeasurementNoise,
    /// The 1-way measurements' noise.
    pub ones: CountNoise,
    /// ε₀ of each exponential mechanism of the tree.
    pub tree_epsilon0: f64,
    /// The number of exponential mechanisms (d − 1).
    pub tree_rounds: u64,
    /// The 2-way measurements' noise.
    pub twos: CountNoise,
    /// What each column's private edges may cost, when some column gets them.
    pub edges: Option<crate::histogram::EdgeBudget>,
    /// How many columns get private edges.
    pub edge_columns: u64,
    /// The calls the guarantee composes.
    pub calls: Vec<(PrivacyCost, u64)>,
    /// The end-to-end guarantee.
    pub guarantee: Guarantee,
}

impl Plan {
    /// The plan for d columns at (ε, δ) with `noise`, none of which gets private edges.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for d < 2, Gaussian noise at δ = 0, or a budget too small to
    /// split.
    pub fn new(
        columns: usize,
        epsilon: Epsilon,
        delta: Delta,
        noise: MeasurementNoise,
    ) -> Result<Self> {
        Self::with_edges(columns, 0, 0.0, epsilon, delta, noise)
    }

    /// The plan for d columns at (ε, δ) with `noise`, of which `edge_columns` get private
    /// edges from the share `edge_share` ∈ (0, 1) of the budget (see *Private edges*).
    ///
    /// # Errors
    /// As [`Plan::new`]; a share outside (0, 1) when some column gets edges.
    pub fn with_edges(
        columns: usize,
        edge_columns: usize,
        edge_share: f64,
        epsilon: Epsilon,
        delta: Delta,
        noise: MeasurementNoise,
    ) -> Result<Self> {
        if edge_columns > 0 {
            crate::histogram::edges::check_share(edge_share)?;
        }
        let k = edge_columns as f64;
        // The steps' part of the budget.
        let rest = if edge_columns > 0 {
            1.0 - edge_share
        } else {
            1.0
        };
        if columns < 2 {
            return Err(Error::param(
                "columns",
                format!("a synthetic table needs at least 2 columns, got {columns}"),
            ));
        }
        if noise == MeasurementNoise::Gaussian && delta.get() == 0.0 {
            return Err(Error::param(
                "noise",
                "Gaussian measurements need δ > 0 (give --delta, or use Laplace noise)",
            ));
        }
        let d = columns as f64;
        let rounds = (columns - 1) as u64;
        let mut shrink = 0u32;
        loop {
            let (ones, twos, epsilon0, edges) = match noise {
                MeasurementNoise::Laplace => {
                    let steps = epsilon.get() * rest;
                    let edges = (edge_columns > 0).then(|| crate::histogram::EdgeBudget::Pure {
                        epsilon: nudge_down(div_down(epsilon.get() * edge_share, k), shrink),
                    });
                    let third = nudge_down(div_down(steps, 3.0), shrink);
                    let ones = CountNoise::Laplace {
                        scale: div_up(2.0 * d, third),
                    };
                    let twos = CountNoise::Laplace {
                        scale: div_up(2.0 * (d - 1.0), third),
                    };
                    let epsilon0 = div_down(third, d - 1.0);
                    (ones, twos, epsilon0, edges)
                }
                MeasurementNoise::Gaussian => {
                    let rho = rho_for(epsilon.get(), delta.get())?;
                    let edges = (edge_columns > 0).then(|| crate::histogram::EdgeBudget::Zcdp {
                        rho: nudge_down(div_down(rho * edge_share, k), shrink),
                    });
                    let third = nudge_down(div_down(rho * rest, 3.0), shrink);
                    let ones = CountNoise::Gaussian {
                        variance: div_up(d, third),
                    };
                    let twos = CountNoise::Gaussian {
                        variance: div_up(d - 1.0, third),
                    };
                    let epsilon0 = nudge_down(div_down(third * 8.0, d - 1.0).sqrt(), 2);
                    (ones, twos, epsilon0, edges)
                }
            };
            let plan = Self::compose(
                noise,
                ones,
                twos,
                epsilon0,
                rounds,
                delta,
                edges,
                edge_columns,
            )?;
            if plan.guarantee.epsilon <= epsilon.get() || shrink > 64 {
                if plan.guarantee.epsilon > epsilon.get() {
                    return Err(Error::param(
                        "epsilon",
                        format!(
                            "ε = {} cannot be split over {columns} columns",
                            epsilon.get()
                        ),
                    ));
                }
                return Ok(plan);
            }
            shrink += 4;
        }
    }

    /// The plan of these measurements and mechanisms, and its guarantee by the accountant.
    #[allow(clippy::too_many_arguments)]
    fn compose(
        noise: MeasurementNoise,
        ones: CountNoise,
        twos: CountNoise,
        epsilon0: f64,
        rounds: u64,
        delta: Delta,
        edges: Option<crate::histogram::EdgeBudget>,
        edge_columns: usize,
    ) -> Result<Self> {
        let d = rounds as f64 + 1.0;
        let cost = |n: &CountNoise, l1: f64| -> Result<PrivacyCost> {
            Ok(match *n {
                CountNoise::Laplace { scale } => PrivacyCost::Pure {
                    epsilon: Epsilon::new(div_up(l1, scale))?,
                },
                // L2² = L1 here (each count moves by at most 1): ρ = Δ₂²/(2σ²).
                CountNoise::Gaussian { variance } => {
                    PrivacyCost::zcdp(div_up(l1, mul_up(2.0, variance)))?
                }
            })
        };
        let mut calls = Vec::new();
        if let Some(e) = edges {
            calls.push((e.cost()?, edge_columns as u64));
        }
        calls.extend([
            (cost(&ones, 2.0 * d)?, 1),
            (
                PrivacyCost::BoundedRange {
                    epsilon: Epsilon::new(epsilon0)?,
                },
                rounds,
            ),
            (cost(&twos, 2.0 * (d - 1.0))?, 1),
        ]);
        let mut accountant = Accountant::new();
        for &(c, k) in &calls {
            accountant.record_many(c, k);
        }
        let reporting = match noise {
            MeasurementNoise::Laplace => Delta::ZERO,
            MeasurementNoise::Gaussian => delta,
        };
        let composed = accountant.compose(reporting, ComposeOptions::default())?;
        let guarantee = composed.best.ok_or_else(|| {
            Error::param("epsilon", "no composition rule applies to the synthesis")
        })?;
        Ok(Self {
            noise,
            ones,
            tree_epsilon0: epsilon0,
            tree_rounds: rounds,
            twos,
            edges,
            edge_columns: edge_columns as u64,
            calls,
            guarantee,
        })
    }

    /// The scale σ (standard deviation) of one noisy count of a 1-way and of a 2-way
    /// marginal, for people.
    pub fn noise_sd(&self) -> (f64, f64) {
        (sqrt_up(self.ones.variance()), sqrt_up(self.twos.variance()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_stay_within_the_budget_asked() {
        for (eps, delta, noise) in [
            (1.0, 0.0, MeasurementNoise::Laplace),
            (0.1, 0.0, MeasurementNoise::Laplace),
            (0.3, 1e-9, MeasurementNoise::Gaussian),
            (3.0, 1e-6, MeasurementNoise::Gaussian),
        ] {
            for d in [2usize, 15, 37] {
                let plan = Plan::new(
                    d,
                    Epsilon::total(eps).unwrap(),
                    Delta::total(delta).unwrap(),
                    noise,
                )
                .unwrap();
                assert!(plan.guarantee.epsilon <= eps, "{eps} {d} {plan:?}");
                assert!(plan.guarantee.delta <= delta, "{delta} {plan:?}");
                assert_eq!(plan.tree_rounds, d as u64 - 1);
                // Not wasteful: within 1 % of the budget.
                assert!(plan.guarantee.epsilon >= 0.99 * eps, "{plan:?}");
            }
        }
        // With private edges for some columns: within the budget, the edges' share as asked,
        // the steps' noise larger accordingly.
        for (eps, delta, noise) in [
            (1.0, 0.0, MeasurementNoise::Laplace),
            (1.0, 1e-9, MeasurementNoise::Gaussian),
            (0.3, 1e-9, MeasurementNoise::Gaussian),
        ] {
            let e = Epsilon::total(eps).unwrap();
            let d = Delta::total(delta).unwrap();
            let bare = Plan::new(15, e, d, noise).unwrap();
            let plan = Plan::with_edges(15, 6, 0.2, e, d, noise).unwrap();
            assert!(plan.guarantee.epsilon <= eps, "{plan:?}");
            assert!(plan.guarantee.epsilon >= 0.99 * eps, "{plan:?}");
            assert_eq!(plan.edge_columns, 6);
            assert_eq!(plan.calls[0].1, 6);
            match (plan.edges.unwrap(), noise) {
                (crate::histogram::EdgeBudget::Pure { epsilon }, MeasurementNoise::Laplace) => {
                    assert!((epsilon * 6.0 - 0.2 * eps).abs() < 1e-9)
                }
                (crate::histogram::EdgeBudget::Zcdp { rho }, MeasurementNoise::Gaussian) => {
                    let total = rho_for(eps, delta).unwrap();
                    assert!((rho * 6.0 - 0.2 * total).abs() < 1e-9 * total)
                }
                other => panic!("{other:?}"),
            }
            // The steps get 80 %: their noise grows by 1/0.8 in variance (Gaussian) or in
            // scale (Laplace).
            let ratio = plan.ones.variance() / bare.ones.variance();
            let expected = match noise {
                MeasurementNoise::Laplace => 1.0 / 0.64,
                MeasurementNoise::Gaussian => 1.0 / 0.8,
            };
            assert!((ratio / expected - 1.0).abs() < 1e-6, "{ratio}");
        }
        assert!(
            Plan::with_edges(
                15,
                6,
                1.0,
                Epsilon::new(1.0).unwrap(),
                Delta::ZERO,
                MeasurementNoise::Laplace
            )
            .is_err()
        );
        let laplace = Plan::new(
            15,
            Epsilon::new(3.0).unwrap(),
            Delta::ZERO,
            MeasurementNoise::Laplace,
        )
        .unwrap();
        // t₁ = 2·15/1 = 30 and t₂ = 2·14/1 = 28.
        assert!(
            matches!(laplace.ones, CountNoise::Laplace { scale } if (scale - 30.0).abs() < 1e-9)
        );
        assert!(
            matches!(laplace.twos, CountNoise::Laplace { scale } if (scale - 28.0).abs() < 1e-9)
        );
        assert!(
            Plan::new(
                15,
                Epsilon::new(1.0).unwrap(),
                Delta::ZERO,
                MeasurementNoise::Gaussian
            )
            .is_err()
        );
        assert!(
            Plan::new(
                1,
                Epsilon::new(1.0).unwrap(),
                Delta::ZERO,
                MeasurementNoise::Laplace
            )
            .is_err()
        );
    }
}
