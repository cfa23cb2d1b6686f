//! A discrete graphical model on a junction tree, fitted to noisy marginals over any sets of
//! columns, and its exact sampler: the estimation engine of AIM (McKenna, Mullins, Sheldon
//! and Miklau 2022, "AIM: An Adaptive and Iterative Mechanism for Differentially Private
//! Synthetic Data").
//!
//! # The model
//! Measured cliques q (sets of columns) carry log-potentials θ_q, and the model is the
//! exponential family p_θ(x) ∝ exp(Σ_q θ_q(x_q)). Its graph (every measured clique made
//! complete, plus every column) is triangulated by greedy elimination and its maximal
//! cliques are arranged in a junction tree ([`JunctionTree`]), on which the model is stored
//! as its calibrated clique marginals μ_C:
//!   p(x) = Π_C μ_C(x_C) / Π_{C ≠ root} μ_{S_C}(x_{S_C}),
//! with S_C the separator between C and its parent.
//!
//! # Estimation ([`GraphicalModel::fit`])
//! The estimator of McKenna, Sheldon and Miklau (2019, "Graphical-model based estimation and
//! inference for differential privacy", Algorithm 1, Private-PGM): θ minimises the weighted
//! least-squares loss
//!   L(μ) = Σ_measurements ‖n·μ_q − y_q‖² / (2 v_q)
//! over the marginals μ = μ(θ) it implies (per-cell variances v). Mirror descent on θ,
//! θ ← θ − α·∇_μ L(μ(θ)), with μ(θ) computed exactly by belief propagation on the junction
//! tree in log space (collect to the root, then distribute), and the step α found by the
//! Armijo rule of [`super::TreeModel::fit`] — this module generalises that tree of pairs to
//! arbitrary cliques. A fit can start from an earlier model's θ (a warm start), as AIM
//! refits after each new measurement.
//!
//! # Sampling ([`GraphicalModel::sample_rows`])
//! The root clique's joint law and, for every other clique in breadth-first order, the law
//! of its new columns given its separator's values are stored as integer weights summing to
//! 2⁵³ (the fitted probabilities rounded by largest remainders, each within 2⁻⁵³). A record
//! is drawn ancestrally by comparing 53 uniform bits with the integer cumulative weights: an
//! exact draw from the stored model, independent across records.
//!
//! A model serializes whole and is checked when read back: a valid junction tree (a clique
//! order with parents first, every column covered, the running-intersection property),
//! tables of the right sizes, probabilities that are finite and non-negative, and sampler
//! weights rising to 2⁵³ in every row.

use super::junction::{
    JunctionTree, JunctionTreeFile, NO_PARENT, check_clique, check_sizes, intersect, is_subset,
    minus, saturating_cells, table_cells, union,
};
use super::model::{
    Descent, FitSummary, Measured, TOTAL, cumulate, draw, logsumexp, mirror_descent,
    project_to_simplex, quantize,
};
use crate::error::{Error, Result};
use crate::noise::SecureRng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A discrete graphical model on a junction tree, fitted to noisy marginals (see the
/// [module documentation](self)): the columns' sizes, the junction tree, the fitted clique
/// marginals (probabilities, each table row-major over its clique's columns, the last
/// fastest) and the sampler's integer cumulative weights.
///
/// The log-potentials θ of a fit are kept for warm starts ([`GraphicalModel::fit`]) but not
/// serialized: a model read back from a file samples and answers marginals exactly as
/// before, and a fit warmed by it starts cold.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "GraphicalModelFile")]
pub struct GraphicalModel {
    sizes: Vec<usize>,
    tree: JunctionTree,
    /// Each junction-tree clique's fitted law.
    marginals: Vec<Vec<f64>>,
    /// For each clique, the sampler's cumulative weights of its new columns (those not in
    /// its separator) given each value of its separator: separator-major rows, each rising
    /// to 2⁵³. The root's separator is empty (one row).
    cumulative: Vec<Vec<u64>>,
    /// The log-potentials on the measured cliques, for warm starts.
    #[serde(skip)]
    theta: Vec<(Vec<usize>, Vec<f64>)>,
}

/// Equal models: the same sizes, tree, laws and sampler (θ, kept only for warm starts, is
/// not compared).
impl PartialEq for GraphicalModel {
    fn eq(&self, other: &Self) -> bool {
        self.sizes == other.sizes
            && self.tree == other.tree
            && self.marginals == other.marginals
            && self.cumulative == other.cumulative
    }
}

/// [`GraphicalModel`] as a file holds it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GraphicalModelFile {
    sizes: Vec<usize>,
    tree: JunctionTreeFile,
    marginals: Vec<Vec<f64>>,
    cumulative: Vec<Vec<u64>>,
}

impl TryFrom<GraphicalModelFile> for GraphicalModel {
    type Error = Error;

    fn try_from(f: GraphicalModelFile) -> Result<Self> {
        let bad = |what: String| Error::param("model", what);
        check_sizes(&f.sizes).map_err(bad)?;
        let tree = JunctionTree::from_file(f.tree, f.sizes.len()).map_err(bad)?;
        let k = tree.cliques.len();
        if f.marginals.len() != k || f.cumulative.len() != k {
            return Err(bad(format!("tables for other than its {k} cliques")));
        }
        for c in 0..k {
            let cells = table_cells(&f.sizes, &tree.cliques[c]);
            if cells.is_none_or(|n| f.marginals[c].len() != n || f.cumulative[c].len() != n) {
                return Err(bad(format!("clique {c}'s tables have the wrong sizes")));
            }
            if f.marginals[c].iter().any(|p| !(p.is_finite() && *p >= 0.0)) {
                return Err(bad(format!("clique {c} has a probability that is not one")));
            }
            let new = minus(&tree.cliques[c], &tree.separator(c));
            let width = table_cells(&f.sizes, &new).expect("a part of a table that fits");
            let rising = f.cumulative[c]
                .chunks(width)
                .all(|row| row.windows(2).all(|w| w[0] <= w[1]) && row.last() == Some(&TOTAL));
            if !rising {
                return Err(bad(format!(
                    "clique {c}'s sampler weights do not rise to 2^53"
                )));
            }
        }
        Ok(Self {
            sizes: f.sizes,
            tree,
            marginals: f.marginals,
            cumulative: f.cumulative,
            theta: Vec::new(),
        })
    }
}

impl GraphicalModel {
    /// Fits the model of the measured cliques to `measurements` (each a sorted set of
    /// columns and its noisy counts, row-major over the columns, with their variances) for
    /// a table of `n` records, in at most `iterations` mirror-descent steps (see the
    /// [module documentation](self)). A clique measured twice has one θ, fitted to both.
    ///
    /// Without `warm`, θ starts at the logarithm of the projected law of each measured
    /// single column ([`project_to_simplex`] of the precision-weighted counts) and 0
    /// elsewhere; with it, at the warm model's θ on the cliques it had and 0 on new ones. A
    /// model read from a file keeps no θ and warms nothing (the fit starts cold).
    ///
    /// ```
    /// use disguise::synth::{GraphicalModel, Measured};
    /// use disguise::SecureRng;
    /// // Two columns, measured alone and together, of 100 records.
    /// let measurements = vec![
    ///     (vec![0], Measured::uniform(vec![40.0, 60.0], 1.0)),
    ///     (vec![1], Measured::uniform(vec![50.0, 30.0, 20.0], 1.0)),
    ///     (vec![0, 1], Measured::uniform(vec![30.0, 5.0, 5.0, 20.0, 25.0, 15.0], 1.0)),
    /// ];
    /// let (model, summary) = GraphicalModel::fit(&[2, 3], &measurements, 100.0, 500, None)?;
    /// assert!(summary.final_loss < 1e-3);
    /// let joint = model.marginal(&[0, 1]);
    /// assert!((joint[0] - 0.30).abs() < 1e-3);
    /// let mut rng = SecureRng::insecure_from_seed(1);
    /// let mut rows = Vec::new();
    /// model.sample_rows(5, &mut rng, &mut rows);
    /// assert_eq!(rows.len(), 10);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for bad sizes, a bad clique, counts or variances of the
    /// wrong length, a variance that is not finite and positive, a count that is not
    /// finite, n not finite and positive, or a warm model over other sizes;
    /// [`Error::Memory`] when the model's tables would not fit in memory,
    /// [`Error::Overflow`] when one would have more cells than can be indexed.
    pub fn fit(
        sizes: &[usize],
        measurements: &[(Vec<usize>, Measured)],
        n: f64,
        iterations: usize,
        warm: Option<&GraphicalModel>,
    ) -> Result<(Self, FitSummary)> {
        check_sizes(sizes).map_err(|m| Error::param("sizes", m))?;
        let d = sizes.len();
        if !(n.is_finite() && n > 0.0) {
            return Err(Error::param(
                "n",
                format!("the number of records must be finite and > 0, got {n}"),
            ));
        }
        if let Some(w) = warm
            && w.sizes != sizes
        {
            return Err(Error::param("warm", "a model over other columns"));
        }
        // The distinct measured cliques, in the order they first appear.
        let mut ids: BTreeMap<&[usize], usize> = BTreeMap::new();
        let mut cliques: Vec<Vec<usize>> = Vec::new();
        let mut of = Vec::with_capacity(measurements.len());
        for (i, (c, m)) in measurements.iter().enumerate() {
            let bad =
                |what: String| Error::param("measurements", format!("measurement {i}: {what}"));
            check_clique(d, c).map_err(bad)?;
            let cells = table_cells(sizes, c);
            if cells.is_none_or(|k| m.counts.len() != k || m.variances.len() != k) {
                return Err(bad(format!("wrong number of counts for the columns {c:?}")));
            }
            if m.variances.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
                return Err(bad("a variance that is not finite and > 0".into()));
            }
            if m.counts.iter().any(|y| !y.is_finite()) {
                return Err(bad("a count that is not finite".into()));
            }
            let id = *ids.entry(c).or_insert_with(|| {
                cliques.push(c.clone());
                cliques.len() - 1
            });
            of.push(id);
        }
        let tree = JunctionTree::new(sizes, &cliques)?;
        let engine = Engine::new(sizes, &tree, &cliques)?;
        let problem = Problem {
            measurements,
            of: &of,
            cells: &engine.measured_cells,
            n,
        };
        let theta = start(sizes, &cliques, measurements, &of, n, warm);
        let mut work = engine.workspace();
        let marginals = engine.propagate(&theta, &mut work);
        let (loss, grad) = problem.loss(&marginals);
        let min_variance = measurements
            .iter()
            .flat_map(|(_, m)| m.variances.iter().copied())
            .fold(f64::INFINITY, f64::min);
        // Nothing measured: the uniform model is the fit.
        let iterations = if measurements.is_empty() {
            0
        } else {
            iterations
        };
        let descent = mirror_descent(
            Descent::start(theta, marginals, loss, grad),
            min_variance / n,
            iterations,
            |theta, grad, alpha| step(theta, grad, alpha),
            |theta| {
                let m = engine.propagate(theta, &mut work);
                let (l, g) = problem.loss(&m);
                (m, l, g)
            },
            |grad, old, new| dot_difference(grad, old, new, n),
        );
        let summary = descent.summary();
        // The clique laws of the accepted θ (the last pass may have been a rejected step).
        engine.propagate(&descent.theta, &mut work);
        let mut model = Self::from_marginals(sizes, tree, work.mu);
        model.theta = cliques.into_iter().zip(descent.theta).collect();
        Ok((model, summary))
    }

    /// The model of the clique laws `marginals` on `tree`, with its sampler.
    fn from_marginals(sizes: &[usize], tree: JunctionTree, marginals: Vec<Vec<f64>>) -> Self {
        let cumulative = (0..tree.cliques.len())
            .map(|c| {
                let cols = &tree.cliques[c];
                let sep = tree.separator(c);
                let new = minus(cols, &sep);
                let width = table_cells(sizes, &new).expect("a part of a table that fits");
                let rows = index_map(sizes, cols, &sep);
                let within = index_map(sizes, cols, &new);
                // The clique's law regrouped separator-major, then each row's conditional.
                let mut grouped = vec![0.0; marginals[c].len()];
                for (x, &p) in marginals[c].iter().enumerate() {
                    grouped[rows[x] as usize * width + within[x] as usize] = p;
                }
                grouped
                    .chunks(width)
                    .flat_map(|row| cumulate(&quantize(row)))
                    .collect()
            })
            .collect();
        Self {
            sizes: sizes.to_vec(),
            tree,
            marginals,
            cumulative,
            theta: Vec::new(),
        }
    }

    /// The domain sizes.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// The junction tree.
    pub fn tree(&self) -> &JunctionTree {
        &self.tree
    }

    /// The number of cells of the model's clique tables ([`JunctionTree::cells`]).
    pub fn cells(&self) -> u128 {
        self.tree.cells(&self.sizes)
    }

    /// The model's law of the columns `clique` (sorted, distinct), row-major over them in
    /// ascending order, summing to 1: exact, whether or not they lie in one clique of the
    /// junction tree. Columns spread over several cliques are eliminated along the smallest
    /// subtree that covers them, carrying the asked columns in the messages, so the cost
    /// grows with the product of their sizes.
    ///
    /// # Panics
    /// When `clique` is unsorted, repeats a column or names one out of range, or when a
    /// table of the elimination would have 2³² cells or more.
    pub fn marginal(&self, clique: &[usize]) -> Vec<f64> {
        if let Err(m) = check_clique(self.sizes.len(), clique)
            && !clique.is_empty()
        {
            panic!("marginal of {clique:?}: {m}");
        }
        let cliques = &self.tree.cliques;
        let host = (0..cliques.len())
            .filter(|&c| is_subset(clique, &cliques[c]))
            .min_by_key(|&c| (self.marginals[c].len(), c));
        let mut law = match host {
            Some(c) => sum_to(&self.sizes, &cliques[c], &self.marginals[c], clique),
            None => self.eliminate(clique),
        };
        let total: f64 = law.iter().sum();
        if total > 0.0 {
            for p in &mut law {
                *p /= total;
            }
        }
        law
    }

    /// The law of `query` (not inside one clique) by elimination on the smallest subtree
    /// covering it.
    fn eliminate(&self, query: &[usize]) -> Vec<f64> {
        let tree = &self.tree;
        let k = tree.cliques.len();
        let mut alive = vec![true; k];
        // Drop leaves until none can go: a leaf whose asked columns its one neighbour also
        // holds (by running intersection, every other clique holding them is beyond it).
        loop {
            let mut dropped = false;
            for leaf in 0..k {
                if !alive[leaf] {
                    continue;
                }
                let mut neighbours = (0..k).filter(|&u| {
                    alive[u] && u != leaf && (tree.parent[u] == leaf || tree.parent[leaf] == u)
                });
                let (Some(u), None) = (neighbours.next(), neighbours.next()) else {
                    continue;
                };
                if is_subset(&intersect(&tree.cliques[leaf], query), &tree.cliques[u]) {
                    alive[leaf] = false;
                    dropped = true;
                }
            }
            if !dropped {
                break;
            }
        }
        // The subtree is connected: its first clique in the order is an ancestor of the rest.
        let top = *tree
            .order
            .iter()
            .find(|&&c| alive[c])
            .expect("a clique covers every column");
        let mut incoming: Vec<Vec<Factor>> = vec![Vec::new(); k];
        for &c in tree.order.iter().rev() {
            if !alive[c] {
                continue;
            }
            let cols = &tree.cliques[c];
            // Only the clique's columns that its messages or the query need: the asked ones,
            // the separator with its parent and those with its live children. The others are
            // summed out of its law first, so a large clique on the way costs one pass over
            // its table, never its table times the asked columns carried through it.
            let needed: Vec<usize> = cols
                .iter()
                .copied()
                .filter(|v| {
                    query.binary_search(v).is_ok()
                        || (c != top && tree.cliques[tree.parent[c]].binary_search(v).is_ok())
                        || (0..k).any(|u| {
                            alive[u]
                                && tree.parent[u] == c
                                && tree.cliques[u].binary_search(v).is_ok()
                        })
                })
                .collect();
            let mut f = Factor {
                values: sum_to(&self.sizes, cols, &self.marginals[c], &needed),
                vars: needed,
            };
            if c != top {
                // p(x_N | x_S): the needed columns' law over the separator's (S ⊆ N).
                let sep = tree.separator(c);
                let law = sum_to(&self.sizes, &f.vars, &f.values, &sep);
                let to_sep = index_map(&self.sizes, &f.vars, &sep);
                for (v, &s) in f.values.iter_mut().zip(&to_sep) {
                    let q = law[s as usize];
                    *v = if q > 0.0 { *v / q } else { 0.0 };
                }
            }
            for m in std::mem::take(&mut incoming[c]) {
                f = f.product(&m, &self.sizes);
            }
            if c == top {
                return sum_to(&self.sizes, &f.vars, &f.values, query);
            }
            let keep: Vec<usize> = f
                .vars
                .iter()
                .copied()
                .filter(|v| {
                    query.binary_search(v).is_ok()
                        || tree.cliques[tree.parent[c]].binary_search(v).is_ok()
                })
                .collect();
            let values = sum_to(&self.sizes, &f.vars, &f.values, &keep);
            incoming[tree.parent[c]].push(Factor { vars: keep, values });
        }
        unreachable!("the top clique is in the order")
    }

    /// For each clique in order: its separator's columns with their strides in the rows of
    /// its sampler table, and its new columns.
    fn steps(&self) -> Vec<Step> {
        self.tree
            .order
            .iter()
            .map(|&c| {
                let sep = self.tree.separator(c);
                let mut strides = vec![0usize; sep.len()];
                let mut stride = 1;
                for (k, &v) in sep.iter().enumerate().rev() {
                    strides[k] = stride;
                    stride *= self.sizes[v];
                }
                let new = minus(&self.tree.cliques[c], &sep);
                let width = new.iter().map(|&v| self.sizes[v]).product();
                Step {
                    clique: c,
                    sep: sep.into_iter().zip(strides).collect(),
                    new,
                    width,
                }
            })
            .collect()
    }

    /// Draws `rows` records; record r's codes are `out[r·d..(r + 1)·d]` in column order.
    /// Each is an exact, independent draw from the stored integer weights: the root
    /// clique's columns, then each clique's new columns given its separator's values.
    pub fn sample_rows(&self, rows: usize, rng: &mut SecureRng, out: &mut Vec<u32>) {
        let d = self.sizes.len();
        let steps = self.steps();
        out.clear();
        out.resize(rows * d, 0);
        for x in out.chunks_mut(d) {
            for s in &steps {
                let row = s.row(x);
                let t = draw(
                    &self.cumulative[s.clique][row * s.width..(row + 1) * s.width],
                    rng,
                );
                s.decode(t, &self.sizes, x);
            }
        }
    }

    /// The probability the sampler gives the record `x` (from its integer weights; 0 for a
    /// code out of range).
    ///
    /// # Panics
    /// When `x` does not have one code per column.
    pub fn probability(&self, x: &[u32]) -> f64 {
        assert_eq!(x.len(), self.sizes.len(), "one code per column");
        if x.iter().zip(&self.sizes).any(|(&v, &s)| v as usize >= s) {
            return 0.0;
        }
        let mut p = 1.0;
        for s in self.steps() {
            let row = s.row(x);
            let mut t = 0;
            for &v in &s.new {
                t = t * self.sizes[v] + x[v] as usize;
            }
            let cum = &self.cumulative[s.clique][row * s.width..(row + 1) * s.width];
            let below = if t == 0 { 0 } else { cum[t - 1] };
            p *= (cum[t] - below) as f64 / TOTAL as f64;
        }
        p
    }
}

/// One clique's part of a draw.
struct Step {
    clique: usize,
    /// The separator's columns and their strides.
    sep: Vec<(usize, usize)>,
    /// The columns drawn at this clique.
    new: Vec<usize>,
    /// The number of values of the new columns (a row's length).
    width: usize,
}

impl Step {
    /// The sampler row of the separator's values in `x`.
    fn row(&self, x: &[u32]) -> usize {
        self.sep.iter().map(|&(v, s)| x[v] as usize * s).sum()
    }

    /// Writes the new columns' values of index t (row-major) into `x`.
    fn decode(&self, mut t: usize, sizes: &[usize], x: &mut [u32]) {
        for &v in self.new.iter().rev() {
            x[v] = (t % sizes[v]) as u32;
            t /= sizes[v];
        }
    }
}

/// Everything a belief-propagation pass needs, computed once per fit: the tree, and index
/// maps from each clique's cells to its separator's and to the measured cliques it hosts.
struct Engine {
    parent: Vec<usize>,
    order: Vec<usize>,
    /// Each clique's number of cells.
    cells: Vec<usize>,
    /// Each clique's separator's number of cells (1 for the root).
    sep_cells: Vec<usize>,
    /// For each non-root clique: each of its cells' separator cell.
    to_sep: Vec<Vec<u32>>,
    /// For each non-root clique: each of its parent's cells' cell of that separator.
    parent_to_sep: Vec<Vec<u32>>,
    /// The measured cliques each clique hosts: the measured clique's index and each cell's
    /// cell in it (`None` when they are the same columns).
    hosted: Vec<Vec<(usize, Option<Vec<u32>>)>>,
    /// Each measured clique's number of cells.
    measured_cells: Vec<usize>,
}

/// The buffers of belief propagation, reused across passes.
struct Workspace {
    /// Log-potentials plus the messages from the children.
    inside: Vec<Vec<f64>>,
    /// The clique laws (during the collect pass, the exponentiated insides).
    mu: Vec<Vec<f64>>,
    /// Per separator cell: the largest inside value, then the message (collect), then the
    /// separator's law over the normaliser (distribute).
    peak: Vec<Vec<f64>>,
    /// Per separator cell: Σ exp(inside − peak).
    acc: Vec<Vec<f64>>,
}

impl Engine {
    fn new(sizes: &[usize], tree: &JunctionTree, measured: &[Vec<usize>]) -> Result<Self> {
        let k = tree.cliques.len();
        let cells: Vec<u128> = tree
            .cliques
            .iter()
            .map(|c| saturating_cells(sizes, c))
            .collect();
        let total = cells.iter().fold(0u128, |a, &b| a.saturating_add(b));
        // The clique of fewest cells holding each measured clique.
        let host: Vec<usize> = measured
            .iter()
            .map(|q| {
                (0..k)
                    .filter(|&c| is_subset(q, &tree.cliques[c]))
                    .min_by_key(|&c| (cells[c], c))
                    .expect("the junction tree covers every measured clique")
            })
            .collect();
        // f64 tables: potentials, laws, the model's laws and regrouping; u64 weights; u32
        // index maps (two per separator, one per hosted clique of other columns).
        let mut map_cells = 0u128;
        for c in 0..k {
            if tree.parent[c] != NO_PARENT {
                map_cells = map_cells
                    .saturating_add(cells[c])
                    .saturating_add(cells[tree.parent[c]]);
            }
        }
        for (q, &c) in measured.iter().zip(&host) {
            if *q != tree.cliques[c] {
                map_cells = map_cells.saturating_add(cells[c]);
            }
        }
        crate::memory::check(
            &format!("the graphical model's tables ({total} cells)"),
            total
                .saturating_mul(40)
                .saturating_add(map_cells.saturating_mul(4)),
            "measure fewer or smaller marginals, or give columns fewer levels",
        )?;
        if let Some(&big) = cells.iter().find(|&&c| c > u32::MAX as u128) {
            return Err(Error::Overflow(format!(
                "a clique of the graphical model has {big} cells, more than 2^32 - 1"
            )));
        }
        let cells: Vec<usize> = cells.into_iter().map(|c| c as usize).collect();
        let mut sep_cells = vec![1; k];
        let mut to_sep = vec![Vec::new(); k];
        let mut parent_to_sep = vec![Vec::new(); k];
        for c in 0..k {
            let p = tree.parent[c];
            if p == NO_PARENT {
                continue;
            }
            let sep = tree.separator(c);
            sep_cells[c] = sep.iter().map(|&v| sizes[v]).product();
            to_sep[c] = index_map(sizes, &tree.cliques[c], &sep);
            parent_to_sep[c] = index_map(sizes, &tree.cliques[p], &sep);
        }
        let mut hosted = vec![Vec::new(); k];
        for (i, (q, &c)) in measured.iter().zip(&host).enumerate() {
            let map = (*q != tree.cliques[c]).then(|| index_map(sizes, &tree.cliques[c], q));
            hosted[c].push((i, map));
        }
        let measured_cells = measured
            .iter()
            .map(|q| q.iter().map(|&v| sizes[v]).product())
            .collect();
        Ok(Self {
            parent: tree.parent.clone(),
            order: tree.order.clone(),
            cells,
            sep_cells,
            to_sep,
            parent_to_sep,
            hosted,
            measured_cells,
        })
    }

    fn workspace(&self) -> Workspace {
        let tables = |sizes: &[usize]| sizes.iter().map(|&n| vec![0.0; n]).collect::<Vec<_>>();
        Workspace {
            inside: tables(&self.cells),
            mu: tables(&self.cells),
            peak: tables(&self.sep_cells),
            acc: tables(&self.sep_cells),
        }
    }

    /// Belief propagation in log space for the log-potentials `theta` (one table per
    /// measured clique): leaves every clique's law in `work.mu` and returns each measured
    /// clique's law.
    fn propagate(&self, theta: &[Vec<f64>], work: &mut Workspace) -> Vec<Vec<f64>> {
        let Workspace {
            inside,
            mu,
            peak,
            acc,
        } = work;
        for (c, table) in inside.iter_mut().enumerate() {
            table.fill(0.0);
            for (q, map) in &self.hosted[c] {
                let t = &theta[*q];
                match map {
                    None => table.iter_mut().zip(t).for_each(|(x, t)| *x += t),
                    Some(map) => table
                        .iter_mut()
                        .zip(map)
                        .for_each(|(x, &i)| *x += t[i as usize]),
                }
            }
        }
        // Collect: each clique's message to its parent, log Σ over its cells with each
        // separator value, each sum taken about its own largest term. exp(inside − peak)
        // is kept in mu: divided by the sum, it is the clique's law given its separator.
        for &c in self.order.iter().rev() {
            let p = self.parent[c];
            if p == NO_PARENT {
                continue;
            }
            let (map, peak, acc) = (&self.to_sep[c], &mut peak[c], &mut acc[c]);
            peak.fill(f64::NEG_INFINITY);
            for (&v, &s) in inside[c].iter().zip(map) {
                let m = &mut peak[s as usize];
                if v > *m {
                    *m = v;
                }
            }
            acc.fill(0.0);
            for ((e, &v), &s) in mu[c].iter_mut().zip(&inside[c]).zip(map) {
                let s = s as usize;
                let m = peak[s];
                // A separator value of no weight at all: its cells have none either.
                let x = if m == f64::NEG_INFINITY {
                    0.0
                } else {
                    (v - m).exp()
                };
                *e = x;
                acc[s] += x;
            }
            for (m, &a) in peak.iter_mut().zip(acc.iter()) {
                *m += a.ln();
            }
            for (x, &s) in inside[p].iter_mut().zip(&self.parent_to_sep[c]) {
                *x += peak[s as usize];
            }
        }
        let root = self.order[0];
        let log_z = logsumexp(inside[root].iter().copied());
        for (m, &v) in mu[root].iter_mut().zip(&inside[root]) {
            *m = (v - log_z).exp();
        }
        // Distribute, in probabilities: μ_C = p(x_C | x_S) · μ_S, with μ_S summed from the
        // parent's law.
        for &c in &self.order[1..] {
            let p = self.parent[c];
            let law = &mut peak[c];
            law.fill(0.0);
            for (&m, &s) in mu[p].iter().zip(&self.parent_to_sep[c]) {
                law[s as usize] += m;
            }
            for (l, &a) in law.iter_mut().zip(acc[c].iter()) {
                *l = if a > 0.0 { *l / a } else { 0.0 };
            }
            for (e, &s) in mu[c].iter_mut().zip(&self.to_sep[c]) {
                *e *= law[s as usize];
            }
        }
        let mut out: Vec<Vec<f64>> = self.measured_cells.iter().map(|&n| vec![0.0; n]).collect();
        for (c, hosted) in self.hosted.iter().enumerate() {
            for (q, map) in hosted {
                let o = &mut out[*q];
                match map {
                    None => o.copy_from_slice(&mu[c]),
                    Some(map) => {
                        for (&m, &i) in mu[c].iter().zip(map) {
                            o[i as usize] += m;
                        }
                    }
                }
            }
        }
        out
    }
}

/// The loss of a fit: the measurements and the clique each is of.
struct Problem<'a> {
    measurements: &'a [(Vec<usize>, Measured)],
    /// Each measurement's distinct clique.
    of: &'a [usize],
    /// Each distinct clique's number of cells.
    cells: &'a [usize],
    n: f64,
}

impl Problem<'_> {
    /// The loss and its gradient in μ (counts) on each distinct clique: Σ ‖nμ − y‖²/(2v),
    /// Σ (nμ − y)/v over the clique's measurements.
    fn loss(&self, mu: &[Vec<f64>]) -> (f64, Vec<Vec<f64>>) {
        let mut loss = 0.0;
        let mut grad: Vec<Vec<f64>> = self.cells.iter().map(|&k| vec![0.0; k]).collect();
        for ((_, y), &q) in self.measurements.iter().zip(self.of) {
            for ((g, &p), (&y, &v)) in grad[q]
                .iter_mut()
                .zip(&mu[q])
                .zip(y.counts.iter().zip(&y.variances))
            {
                let r = self.n * p - y;
                loss += r * r / (2.0 * v);
                *g += r / v;
            }
        }
        (loss, grad)
    }
}

/// The starting log-potentials (see [`GraphicalModel::fit`]).
fn start(
    sizes: &[usize],
    cliques: &[Vec<usize>],
    measurements: &[(Vec<usize>, Measured)],
    of: &[usize],
    n: f64,
    warm: Option<&GraphicalModel>,
) -> Vec<Vec<f64>> {
    let cells = |q: &[usize]| q.iter().map(|&v| sizes[v]).product::<usize>();
    if let Some(w) = warm.filter(|w| !w.theta.is_empty()) {
        return cliques
            .iter()
            .map(|q| {
                w.theta
                    .iter()
                    .find(|(c, t)| c == q && t.len() == cells(q))
                    .map_or_else(|| vec![0.0; cells(q)], |(_, t)| t.clone())
            })
            .collect();
    }
    cliques
        .iter()
        .enumerate()
        .map(|(id, q)| {
            if q.len() != 1 {
                return vec![0.0; cells(q)];
            }
            // The precision-weighted counts of the column's measurements, projected.
            let mut num = vec![0.0; cells(q)];
            let mut den = vec![0.0; cells(q)];
            for ((_, m), _) in measurements.iter().zip(of).filter(|(_, o)| **o == id) {
                for k in 0..num.len() {
                    num[k] += m.counts[k] / m.variances[k];
                    den[k] += 1.0 / m.variances[k];
                }
            }
            let y: Vec<f64> = num.iter().zip(&den).map(|(a, b)| a / b).collect();
            project_to_simplex(&y, n)
                .iter()
                .map(|&c| (c / n).max(1e-12).ln())
                .collect()
        })
        .collect()
}

/// θ − α·g.
fn step(theta: &[Vec<f64>], grad: &[Vec<f64>], alpha: f64) -> Vec<Vec<f64>> {
    theta
        .iter()
        .zip(grad)
        .map(|(t, g)| t.iter().zip(g).map(|(t, g)| t - alpha * g).collect())
        .collect()
}

/// ∇L · (n·μ_old − n·μ_new).
fn dot_difference(grad: &[Vec<f64>], old: &[Vec<f64>], new: &[Vec<f64>], n: f64) -> f64 {
    grad.iter()
        .zip(old.iter().zip(new))
        .map(|(g, (a, b))| {
            g.iter()
                .zip(a.iter().zip(b))
                .map(|(g, (a, b))| g * n * (a - b))
                .sum::<f64>()
        })
        .sum()
}

/// A table over sorted columns, row-major.
#[derive(Clone)]
struct Factor {
    vars: Vec<usize>,
    values: Vec<f64>,
}

impl Factor {
    /// The pointwise product, over the union of the columns.
    fn product(&self, other: &Factor, sizes: &[usize]) -> Factor {
        let vars = union(&self.vars, &other.vars);
        let a = index_map(sizes, &vars, &self.vars);
        let b = index_map(sizes, &vars, &other.vars);
        let values = a
            .iter()
            .zip(&b)
            .map(|(&i, &j)| self.values[i as usize] * other.values[j as usize])
            .collect();
        Factor { vars, values }
    }
}

/// The table `values` over `cols` summed down to the columns `keep` ⊆ `cols`.
fn sum_to(sizes: &[usize], cols: &[usize], values: &[f64], keep: &[usize]) -> Vec<f64> {
    let map = index_map(sizes, cols, keep);
    let mut out = vec![0.0; keep.iter().map(|&v| sizes[v]).product()];
    for (&v, &i) in values.iter().zip(&map) {
        out[i as usize] += v;
    }
    out
}

/// For each cell of the table over `cols` (row-major), its cell in the table over
/// `sub` ⊆ `cols`. Built column by column, so each index costs one addition.
///
/// # Panics
/// When the table over `cols` has 2³² cells or more.
fn index_map(sizes: &[usize], cols: &[usize], sub: &[usize]) -> Vec<u32> {
    let cells = table_cells(sizes, cols).filter(|&n| n <= u32::MAX as usize);
    let cells = cells.expect("a table of fewer than 2^32 cells");
    let mut strides = vec![0usize; cols.len()];
    let mut stride = 1;
    let mut left = sub.len();
    for (k, &v) in cols.iter().enumerate().rev() {
        if left > 0 && sub[left - 1] == v {
            strides[k] = stride;
            stride *= sizes[v];
            left -= 1;
        }
    }
    debug_assert_eq!(left, 0, "{sub:?} ⊆ {cols:?}");
    let mut map = Vec::with_capacity(cells);
    map.push(0u32);
    let mut next = Vec::with_capacity(cells);
    for (k, &v) in cols.iter().enumerate() {
        let s = strides[k] as u32;
        next.clear();
        for &i in &map {
            next.extend((0..sizes[v] as u32).map(|a| i + a * s));
        }
        std::mem::swap(&mut map, &mut next);
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::Rng;

    /// Uniform on [−w, w].
    fn uniform(rng: &mut SecureRng, w: f64) -> f64 {
        ((rng.next_u64() >> 11) as f64 / TOTAL as f64 * 2.0 - 1.0) * w
    }

    fn random_theta(sizes: &[usize], cliques: &[Vec<usize>], seed: u64) -> Vec<Vec<f64>> {
        let mut rng = SecureRng::insecure_from_seed(seed);
        cliques
            .iter()
            .map(|q| {
                (0..table_cells(sizes, q).unwrap())
                    .map(|_| uniform(&mut rng, 1.5))
                    .collect()
            })
            .collect()
    }

    /// Every record's codes, row-major (the last column fastest).
    fn records(sizes: &[usize]) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new()];
        for &s in sizes {
            out = out
                .into_iter()
                .flat_map(|x| {
                    (0..s).map(move |a| {
                        let mut y = x.clone();
                        y.push(a);
                        y
                    })
                })
                .collect();
        }
        out
    }

    /// The cell of the record x in the table over `cols`.
    fn cell(sizes: &[usize], cols: &[usize], x: &[usize]) -> usize {
        cols.iter().fold(0, |a, &v| a * sizes[v] + x[v])
    }

    /// The joint law p ∝ exp(Σ θ_q) by enumeration, in the order of [`records`].
    fn brute_joint(sizes: &[usize], cliques: &[Vec<usize>], theta: &[Vec<f64>]) -> Vec<f64> {
        let w: Vec<f64> = records(sizes)
            .iter()
            .map(|x| {
                cliques
                    .iter()
                    .zip(theta)
                    .map(|(q, t)| t[cell(sizes, q, x)])
                    .sum::<f64>()
                    .exp()
            })
            .collect();
        let z: f64 = w.iter().sum();
        w.iter().map(|w| w / z).collect()
    }

    fn brute_marginal(sizes: &[usize], joint: &[f64], cols: &[usize]) -> Vec<f64> {
        let mut out = vec![0.0; table_cells(sizes, cols).unwrap()];
        for (x, p) in records(sizes).iter().zip(joint) {
            out[cell(sizes, cols, x)] += p;
        }
        out
    }

    fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
    }

    /// Every non-empty set of columns of d.
    fn subsets(d: usize) -> Vec<Vec<usize>> {
        (1..1usize << d)
            .map(|m| (0..d).filter(|&i| m >> i & 1 == 1).collect())
            .collect()
    }

    #[test]
    fn belief_propagation_is_exact_on_a_model_with_a_cycle() {
        let sizes = [2usize, 3, 2, 3];
        let cliques = vec![
            vec![0, 1],
            vec![1, 2],
            vec![2, 3],
            vec![0, 3],
            vec![0, 1, 2],
            vec![3],
        ];
        let theta = random_theta(&sizes, &cliques, 5);
        let tree = JunctionTree::new(&sizes, &cliques).unwrap();
        let engine = Engine::new(&sizes, &tree, &cliques).unwrap();
        let mut work = engine.workspace();
        let measured = engine.propagate(&theta, &mut work);
        let joint = brute_joint(&sizes, &cliques, &theta);
        for (q, mu) in cliques.iter().zip(&measured) {
            let exact = brute_marginal(&sizes, &joint, q);
            assert!(close(mu, &exact, 1e-12), "{q:?}: {mu:?} {exact:?}");
        }
        for (c, mu) in tree.cliques().iter().zip(&work.mu) {
            assert!(close(mu, &brute_marginal(&sizes, &joint, c), 1e-12));
        }
        // Every set of columns, in one clique or not, through the model's own query.
        let model = GraphicalModel::from_marginals(&sizes, tree, work.mu);
        for q in subsets(4) {
            let got = model.marginal(&q);
            let exact = brute_marginal(&sizes, &joint, &q);
            assert!(close(&got, &exact, 1e-12), "{q:?}: {got:?} {exact:?}");
        }
        // Propagating again in the same buffers gives the same laws.
        let mut work2 = engine.workspace();
        engine.propagate(&random_theta(&sizes, &cliques, 6), &mut work2);
        assert_eq!(engine.propagate(&theta, &mut work2), measured);
    }

    #[test]
    fn columns_far_apart_are_not_carried_through_a_large_clique() {
        // {4, 0} – {0, 1, 2, 3} – {3, 5}: asking for (4, 5) used to carry column 4's 500
        // values through the middle clique's 20⁴ cells (8·10⁷ cells, 640 MB); summed down to
        // its separators first, the middle costs one pass and the messages 20·500 cells.
        let sizes = [20usize, 20, 20, 20, 500, 500];
        let uniform = |cells: usize, n: f64| Measured::uniform(vec![n / cells as f64; cells], 1.0);
        let n = 1e4;
        let measurements = vec![
            (vec![0, 1, 2, 3], uniform(20usize.pow(4), n)),
            (vec![0, 4], uniform(10_000, n)),
            (vec![3, 5], uniform(10_000, n)),
        ];
        let (model, _) = GraphicalModel::fit(&sizes, &measurements, n, 1, None).unwrap();
        assert!(
            model
                .tree()
                .cliques()
                .iter()
                .all(|c| !c.contains(&4) || !c.contains(&5))
        );
        let law = model.marginal(&[4, 5]);
        assert_eq!(law.len(), 250_000);
        assert!((law.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert!(
            law.iter().all(|&p| (p - 4e-6).abs() < 1e-9),
            "uniform in, uniform out"
        );
    }

    #[test]
    fn marginals_across_cliques_are_exact() {
        // A chain of 3-way cliques: {0, 3}, {1, 4}, {0, 2, 4} lie in no one clique.
        let sizes = [2usize, 3, 2, 2, 3];
        let cliques = vec![vec![0, 1, 2], vec![1, 2, 3], vec![2, 3, 4]];
        let theta = random_theta(&sizes, &cliques, 11);
        let tree = JunctionTree::new(&sizes, &cliques).unwrap();
        assert_eq!(tree.cliques(), &cliques[..]);
        let engine = Engine::new(&sizes, &tree, &cliques).unwrap();
        let mut work = engine.workspace();
        engine.propagate(&theta, &mut work);
        let model = GraphicalModel::from_marginals(&sizes, tree, work.mu);
        let joint = brute_joint(&sizes, &cliques, &theta);
        let mut across = 0;
        for q in subsets(5) {
            across += usize::from(!cliques.iter().any(|c| is_subset(&q, c)));
            let got = model.marginal(&q);
            let exact = brute_marginal(&sizes, &joint, &q);
            assert!(close(&got, &exact, 1e-12), "{q:?}: {got:?} {exact:?}");
            assert!((got.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
        assert!(across >= 10, "{across}");
        assert!(close(
            &model.marginal(&[0, 3]),
            &brute_marginal(&sizes, &joint, &[0, 3]),
            1e-12
        ));
    }

    /// The exact measurements n·μ_q of the law p ∝ exp(Σ θ) on `measured`.
    fn exact_measurements(
        sizes: &[usize],
        joint: &[f64],
        measured: &[Vec<usize>],
        n: f64,
    ) -> Vec<(Vec<usize>, Measured)> {
        measured
            .iter()
            .map(|q| {
                let counts = brute_marginal(sizes, joint, q)
                    .iter()
                    .map(|p| p * n)
                    .collect();
                (q.clone(), Measured::uniform(counts, 1.0))
            })
            .collect()
    }

    #[test]
    fn the_fit_recovers_a_law_that_factorises_over_the_measured_cliques() {
        let sizes = [2usize, 3, 2, 3];
        let factors = vec![vec![0, 1, 2], vec![2, 3]];
        let joint = brute_joint(&sizes, &factors, &random_theta(&sizes, &factors, 21));
        let n = 1000.0;
        let measured = vec![
            vec![0],
            vec![1],
            vec![2],
            vec![3],
            vec![0, 1, 2],
            vec![2, 3],
        ];
        let ms = exact_measurements(&sizes, &joint, &measured, n);
        let (model, summary) = GraphicalModel::fit(&sizes, &ms, n, 5000, None).unwrap();
        assert!(
            summary.final_loss < 1e-6 * summary.initial_loss,
            "{summary:?}"
        );
        // The law is in the model's family, so every marginal is recovered, also those of
        // columns in no one measured clique.
        for q in subsets(4) {
            let got = model.marginal(&q);
            let exact = brute_marginal(&sizes, &joint, &q);
            assert!(close(&got, &exact, 1e-4), "{q:?}: {got:?} {exact:?}");
        }
    }

    #[test]
    fn negative_noisy_counts_fit_to_consistent_valid_laws() {
        let sizes = [3usize, 2, 2];
        let m = |v: Vec<f64>| Measured::uniform(v, 100.0);
        let ms = vec![
            (vec![0], m(vec![60.0, -15.0, 55.0])),
            (vec![1], m(vec![40.0, 60.0])),
            (vec![0, 1], m(vec![30.0, 35.0, -4.0, -9.0, 20.0, 22.0])),
            (vec![1, 2], m(vec![-3.0, 45.0, 70.0, -12.0])),
            (vec![0, 2], m(vec![50.0, 2.0, -7.0, -1.0, 10.0, 46.0])),
            // Measured twice: one θ, fitted to both.
            (vec![1], m(vec![38.0, 57.0])),
        ];
        let (model, summary) = GraphicalModel::fit(&sizes, &ms, 100.0, 2000, None).unwrap();
        assert!(summary.final_loss < summary.initial_loss, "{summary:?}");
        assert_eq!(model.theta.len(), 5);
        for law in &model.marginals {
            assert!(law.iter().all(|&p| p >= 0.0));
            assert!((law.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        }
        // Neighbouring cliques agree on their separator.
        let tree = model.tree();
        for c in 0..tree.cliques().len() {
            if tree.parent[c] == NO_PARENT {
                continue;
            }
            let p = tree.parent[c];
            let sep = tree.separator(c);
            let a = sum_to(&sizes, &tree.cliques[c], &model.marginals[c], &sep);
            let b = sum_to(&sizes, &tree.cliques[p], &model.marginals[p], &sep);
            assert!(close(&a, &b, 1e-12), "{a:?} {b:?}");
        }
        // The negatively measured value gets little mass.
        assert!(model.marginal(&[0])[1] < 0.05);
    }

    #[test]
    fn a_warm_start_reaches_the_loss_in_fewer_iterations() {
        // As AIM refits: the model of all measurements but the last one warms the fit of all.
        let sizes = [3usize, 2, 4, 2];
        let factors = vec![vec![0, 1], vec![1, 2], vec![2, 3], vec![0, 3]];
        let joint = brute_joint(&sizes, &factors, &random_theta(&sizes, &factors, 31));
        let n = 2000.0;
        let mut rng = SecureRng::insecure_from_seed(32);
        let mut ms = exact_measurements(&sizes, &joint, &[vec![0], vec![1], vec![2], vec![3]], n);
        ms.extend(exact_measurements(&sizes, &joint, &factors, n));
        for (_, m) in &mut ms {
            for y in &mut m.counts {
                *y += uniform(&mut rng, 20.0);
            }
        }
        let (first, _) = GraphicalModel::fit(&sizes, &ms[..7], n, 5000, None).unwrap();
        let (cold_model, cold) = GraphicalModel::fit(&sizes, &ms, n, 5000, None).unwrap();
        let (warm_model, warm) = GraphicalModel::fit(&sizes, &ms, n, 5000, Some(&first)).unwrap();
        assert!(warm.initial_loss < cold.initial_loss, "{warm:?} {cold:?}");
        assert!(
            (warm.final_loss - cold.final_loss).abs() <= 1e-6 * cold.final_loss,
            "{warm:?} {cold:?}"
        );
        assert!(close(
            &warm_model.marginal(&[0, 2]),
            &cold_model.marginal(&[0, 2]),
            1e-4
        ));
        // The iterations to come within 0.1 % of the optimum: a fit capped at k iterations
        // is the first k of a longer one, so its loss falls with k (binary search).
        let target = 1.001 * cold.final_loss;
        let needed = |w: Option<&GraphicalModel>| {
            let (mut lo, mut hi) = (0, 5000);
            while lo < hi {
                let k = (lo + hi) / 2;
                let (_, s) = GraphicalModel::fit(&sizes, &ms, n, k, w).unwrap();
                if s.final_loss <= target {
                    hi = k
                } else {
                    lo = k + 1
                }
            }
            lo
        };
        let (from_cold, from_warm) = (needed(None), needed(Some(&first)));
        assert!(
            2 * from_warm < from_cold,
            "warm {from_warm}, cold {from_cold}"
        );
        // A fit warmed by its own result starts where it ended.
        let (_, again) = GraphicalModel::fit(&sizes, &ms, n, 5000, Some(&cold_model)).unwrap();
        assert!((again.initial_loss - cold.final_loss).abs() <= 1e-9 * cold.final_loss);
        assert!(again.iterations < cold.iterations, "{again:?}");
        assert!(again.final_loss <= again.initial_loss);
        // A warm model over other columns is refused.
        assert!(GraphicalModel::fit(&[3, 2], &ms[..2], n, 10, Some(&first)).is_err());
    }

    /// A model over 4 columns with a 4-cycle of measured pairs.
    fn cycle_model() -> GraphicalModel {
        let sizes = [2usize, 3, 2, 3];
        let factors = vec![vec![0, 1], vec![1, 2], vec![2, 3], vec![0, 3]];
        let joint = brute_joint(&sizes, &factors, &random_theta(&sizes, &factors, 41));
        let mut measured = vec![vec![0], vec![1], vec![2], vec![3]];
        measured.extend(factors);
        let ms = exact_measurements(&sizes, &joint, &measured, 500.0);
        GraphicalModel::fit(&sizes, &ms, 500.0, 1000, None)
            .unwrap()
            .0
    }

    #[test]
    fn the_sampler_draws_the_stored_law() {
        // χ² of 100,000 records over all 2·3·2·3 = 36 cells against the sampler's own
        // probabilities; false alarm 10⁻⁴.
        let model = cycle_model();
        let sizes = model.sizes().to_vec();
        let all = records(&sizes);
        let probs: Vec<f64> = all
            .iter()
            .map(|x| model.probability(&x.iter().map(|&v| v as u32).collect::<Vec<_>>()))
            .collect();
        assert!((probs.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        // The sampler's law is the model's joint, up to the weights' rounding.
        assert!(close(&probs, &model.marginal(&[0, 1, 2, 3]), 1e-12));
        assert_eq!(model.probability(&[2, 0, 0, 0]), 0.0);
        let mut rng = SecureRng::insecure_from_seed(17);
        let mut rows = Vec::new();
        model.sample_rows(100_000, &mut rng, &mut rows);
        assert_eq!(rows.len(), 400_000);
        let mut observed = vec![0u64; all.len()];
        for r in rows.chunks(4) {
            let x: Vec<usize> = r.iter().map(|&v| v as usize).collect();
            observed[cell(&sizes, &[0, 1, 2, 3], &x)] += 1;
        }
        crate::noise::gof::chi_square_test(&observed, &probs, 1e-4);
    }

    #[test]
    fn a_model_round_trips_through_serde_and_damaged_files_are_refused() {
        let model = cycle_model();
        let json = serde_json::to_string(&model).unwrap();
        let back: GraphicalModel = serde_json::from_str(&json).unwrap();
        assert_eq!(back, model);
        assert!(back.theta.is_empty());
        let draw = |m: &GraphicalModel| {
            let mut rng = SecureRng::insecure_from_seed(3);
            let mut rows = Vec::new();
            m.sample_rows(1000, &mut rng, &mut rows);
            rows
        };
        assert_eq!(draw(&back), draw(&model));
        assert_eq!(back.marginal(&[1, 3]), model.marginal(&[1, 3]));

        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        let refused = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut v = value.clone();
            edit(&mut v);
            let err = serde_json::from_value::<GraphicalModel>(v).unwrap_err();
            err.to_string()
        };
        let e = refused(&|v| {
            v["marginals"][0].as_array_mut().unwrap().pop();
        });
        assert!(e.contains("wrong sizes"), "{e}");
        let e = refused(&|v| {
            let row = v["cumulative"][1].as_array_mut().unwrap();
            let last = row.len() - 1;
            row[last] = serde_json::json!(TOTAL - 1);
        });
        assert!(e.contains("2^53"), "{e}");
        let e = refused(&|v| v["marginals"][0][0] = serde_json::json!(-0.5));
        assert!(e.contains("not one"), "{e}");
        let e = refused(&|v| v["extra"] = serde_json::json!(1));
        assert!(e.contains("unknown field"), "{e}");
        let e = refused(&|v| v["tree"]["order"] = serde_json::json!([1, 0]));
        assert!(e.contains("parent"), "{e}");

        // A chain 0 – 1 – 2 – 3 of pairs: moving column 0 into the last clique breaks the
        // running intersection (its cliques are no longer connected), sizes unchanged.
        let sizes = [2usize, 3, 2, 3];
        let ms: Vec<_> = [vec![0, 1], vec![1, 2], vec![2, 3]]
            .into_iter()
            .map(|q| {
                let k = table_cells(&sizes, &q).unwrap();
                (q, Measured::uniform(vec![1.0; k], 1.0))
            })
            .collect();
        let (chain, _) = GraphicalModel::fit(&sizes, &ms, 6.0, 50, None).unwrap();
        assert_eq!(
            chain.tree().cliques(),
            &[vec![0, 1], vec![1, 2], vec![2, 3]]
        );
        let mut v = serde_json::to_value(&chain).unwrap();
        assert!(serde_json::from_value::<GraphicalModel>(v.clone()).is_ok());
        v["tree"]["cliques"][2] = serde_json::json!([0, 3]);
        let e = serde_json::from_value::<GraphicalModel>(v)
            .unwrap_err()
            .to_string();
        assert!(e.contains("running intersection"), "{e}");
    }

    #[test]
    fn belief_propagation_on_fifteen_columns_is_consistent_and_timed() {
        // 15 columns of 2 to 20 levels, 10 three-way cliques and every 1-way.
        let sizes: Vec<usize> = (0..15).map(|i| 2 + (i * 7) % 19).collect();
        let mut rng = SecureRng::insecure_from_seed(51);
        let mut cliques: Vec<Vec<usize>> = (0..15).map(|i| vec![i]).collect();
        while cliques.len() < 25 {
            let mut q: Vec<usize> = (0..3).map(|_| (rng.next_u64() % 15) as usize).collect();
            q.sort_unstable();
            q.dedup();
            if q.len() == 3 && !cliques.contains(&q) {
                cliques.push(q);
            }
        }
        let tree = JunctionTree::new(&sizes, &cliques).unwrap();
        let engine = Engine::new(&sizes, &tree, &cliques).unwrap();
        let theta = random_theta(&sizes, &cliques, 52);
        let mut work = engine.workspace();
        let passes = 20;
        let started = std::time::Instant::now();
        let mut measured = Vec::new();
        for _ in 0..passes {
            measured = engine.propagate(&theta, &mut work);
        }
        let per_pass = started.elapsed() / passes;
        eprintln!(
            "belief propagation: {} cliques, {} cells, {per_pass:?} per pass",
            tree.cliques().len(),
            tree.cells(&sizes)
        );
        // Each column's law from its own measured clique and from a 3-way one agree.
        for (q, mu) in cliques.iter().zip(&measured).skip(15) {
            assert!((mu.iter().sum::<f64>() - 1.0).abs() < 1e-9);
            for (k, &v) in q.iter().enumerate() {
                let from_three = sum_to(&sizes, q, mu, &[v]);
                assert!(close(&from_three, &measured[v], 1e-12), "{q:?} {k}");
            }
        }
    }
}
