//! The tree step: which d − 1 pairs of columns to measure, chosen privately as a maximum
//! spanning tree by the library's private greedy on the graphic matroid.

use super::marginals::Marginals;
use crate::constraint::Graphic;
use crate::error::{Error, Result};
use crate::maximize::{Budget, Procedure, Solution, greedy};
use crate::noise::SecureRng;
use crate::objective::Modular;
use crate::privacy::Sensitivity;
use crate::select::SelectorKind;

/// The grid (in counts) the independence model's expected counts are rounded to, so that
/// every score is an exact integer number of grid steps (see [`scores`]).
const GRID: f64 = 1.0 / 1024.0;

/// Every pair's score: the L1 distance between its 2-way counts and the counts the
/// independence model of the (public) estimated 1-ways predicts, n·p̂ᵢ(a)·p̂ⱼ(b) — MST's
/// score (McKenna, Miklau, Sheldon 2021, Section 4: the error of the current model on the
/// pair), large where the pair's columns depend on each other.
///
/// # Sensitivity
/// The model is computed from released measurements only, so it is the same for
/// neighbouring tables; replacing one record moves one count of the pair's table down by 1
/// and one up by 1, so the exact score moves by at most 2. The model's counts are rounded to
/// multiples of 2⁻¹⁰ and the score summed exactly in integers; its conversion to a double
/// rounds to nearest, which adds at most 2·2⁻⁵³·S_max with S_max ≤ 2n the largest score. The
/// λ returned is 2 + n·2⁻⁵⁰, rounded up: a bound on the change of the doubles the mechanism
/// sees.
///
/// Returns the scores in pair order ((0, 1), (0, 2), …) and λ.
pub fn scores(marginals: &Marginals, ones: &[Vec<f64>]) -> Result<(Vec<f64>, Sensitivity)> {
    let d = marginals.width();
    let n = marginals.rows() as f64;
    let sizes = marginals.sizes();
    let mut out = Vec::with_capacity(d * (d - 1) / 2);
    for i in 0..d {
        for j in i + 1..d {
            let counts = marginals.two(i, j);
            let mut total: i128 = 0;
            for a in 0..sizes[i] {
                for b in 0..sizes[j] {
                    let expected = n * ones[i][a] * ones[j][b];
                    let model = (expected / GRID).round() as i128;
                    let count = i128::from(counts[a * sizes[j] + b]) * 1024;
                    total += (count - model).abs();
                }
            }
            out.push(total as f64 * GRID);
        }
    }
    let lambda = crate::numeric::round::nudge_up(2.0 + n * 2f64.powi(-50), 2);
    Ok((out, Sensitivity::new(lambda)?))
}

/// The pairs of d columns, in the order of [`scores`], as the edges of the complete graph.
pub fn complete_graph(d: usize) -> Result<Graphic> {
    let edges = (0..d)
        .flat_map(|i| (i + 1..d).map(move |j| (i, j)))
        .collect();
    Graphic::new(d, edges)
}

/// The private maximum spanning tree: Algorithm 2 of Mitrovic et al. (2017) (the private
/// greedy under a matroid constraint) over the graphic matroid of the complete graph on the
/// columns, on the modular function of the pairs' scores, with the exponential mechanism at
/// ε₀ per round. It makes exactly d − 1 rounds (the rank), each ε₀-DP (ε₀-bounded range) for
/// scores of sensitivity λ — the same mechanism and driver as every other selection in the
/// library. Returns the chosen pairs (i < j) in the order chosen, and the run.
///
/// # Errors
/// As [`greedy`].
pub fn private_tree(
    scores: Vec<f64>,
    lambda: Sensitivity,
    d: usize,
    epsilon0: f64,
    rng: &mut SecureRng,
) -> Result<(Vec<(usize, usize)>, Solution)> {
    let graph = complete_graph(d)?;
    let objective = Modular::new(scores, lambda)?;
    let procedure = Procedure::private(
        SelectorKind::Exponential,
        Budget::per_round(epsilon0, 0.0, 0.0)?,
    );
    let solution = greedy(&objective, &graph, &procedure, rng)?;
    let edges = solution
        .elements
        .iter()
        .map(|&e| graph.edges()[e])
        .collect::<Vec<_>>();
    if edges.len() != d - 1 {
        return Err(Error::param(
            "tree",
            format!("the greedy chose {} pairs, not {}", edges.len(), d - 1),
        ));
    }
    Ok((edges, solution))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Codes;

    #[test]
    fn dependent_pairs_score_high_and_the_tree_spans() {
        // Columns 0 and 1 equal, column 2 independent of both.
        let mut c = [Codes::new(), Codes::new(), Codes::new()];
        for r in 0..400u32 {
            c[0].push(r % 2);
            c[1].push(r % 2);
            c[2].push((r / 2) % 2);
        }
        let m = Marginals::count(&[&c[0], &c[1], &c[2]], &[2, 2, 2], 400).unwrap();
        let half = vec![vec![0.5, 0.5]; 3];
        let (s, lambda) = scores(&m, &half).unwrap();
        assert_eq!(s, vec![400.0, 0.0, 0.0]);
        assert!(lambda.get() > 2.0 && lambda.get() < 2.0001);
        let mut rng = SecureRng::insecure_from_seed(3);
        let (edges, run) = private_tree(s, lambda, 3, 5.0, &mut rng).unwrap();
        assert_eq!(edges.len(), 2);
        assert_eq!(edges[0], (0, 1));
        assert_eq!(run.planned_rounds, 2);
    }
}
