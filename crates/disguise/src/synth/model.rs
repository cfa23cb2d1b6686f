//! The tree-structured model fitted to noisy marginals, and its exact sampler.

use crate::error::{Error, Result};
use crate::noise::SecureRng;
use rand_core::Rng;
use serde::Serialize;

/// One noisy measurement of a marginal: the noisy counts and the noise variance of each.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// The noisy counts, row-major for a pair.
    pub counts: Vec<f64>,
    /// The noise variance of each count (a sum of k counts measured with variance v each
    /// has variance k·v).
    pub variances: Vec<f64>,
}

impl Measured {
    /// Counts measured with the same noise variance each.
    pub fn uniform(counts: Vec<f64>, variance: f64) -> Self {
        let variances = vec![variance; counts.len()];
        Self { counts, variances }
    }
}

/// How the fit went.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FitSummary {
    /// Mirror-descent iterations run.
    pub iterations: usize,
    /// The weighted squared error Σ‖μ − y‖²/(2v) at the start (the independence model of
    /// the projected 1-ways) and at the end.
    pub initial_loss: f64,
    /// The loss at the end.
    pub final_loss: f64,
}

/// A tree-structured distribution over d columns (a graphical model whose cliques are the
/// tree's edges): p(x) = p(x_root) · Π_{c ≠ root} p(x_c | x_parent(c)).
///
/// # Estimation (`TreeModel::fit`)
/// The noisy 1-way and 2-way marginals y are made consistent by the estimator of McKenna,
/// Sheldon and Miklau (2019, "Graphical-model based estimation and inference for
/// differential privacy", Algorithm 1), which MST uses: the model is the exponential family
/// p_θ(x) ∝ exp(Σᵢ θᵢ(xᵢ) + Σ_{(p,c)} θ_pc(x_p, x_c)) over the tree, and its parameters
/// minimise the weighted least-squares loss
///   L(μ) = Σ_cliques ‖n·μ_C − y_C‖² / (2 v_C)
/// over the marginals μ = μ(θ) it implies — a convex problem over the marginal polytope,
/// which for a tree is exactly the set of consistent non-negative marginals. Mirror descent
/// on θ: θ ← θ − α·∇_μ L(μ(θ)), with μ(θ) computed exactly by belief propagation (sum-product
/// on the tree in log space) and the step α found by the Armijo backtracking rule private-pgm
/// uses (doubled each iteration, halved until L falls by at least ½·α·∇L·(μ_old − μ_new)).
/// It starts from the independence model of the 1-ways' least-squares estimates.
///
/// # Sampling (`TreeModel::sample_rows`)
/// Every conditional p(x_c | x_parent = a) (and the root's law) is stored as integer weights
/// summing to 2⁵³ (the fitted probabilities rounded by largest remainders, each within 2⁻⁵³),
/// and a record is drawn ancestrally — the root, then each column given its parent — by
/// comparing 53 uniform bits with the integer cumulative weights: an exact draw from the
/// stored model, independent across records (random sampling, not a rounding of counts).
///
/// A model serializes whole (a kept model's file, [`crate::synth::kept`]) and is checked when
/// read back: a tree over the columns in breadth-first order, laws of the right sizes, and
/// cumulative weights that rise to 2⁵³ in every row.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(try_from = "TreeLaws")]
pub struct TreeModel {
    /// Its laws, checked when read from a file.
    laws: TreeLaws,
}

/// A model writes its laws as they are; reading checks them (`TryFrom<TreeLaws>`). Written
/// out because serde's `transparent` does not combine with `try_from`.
impl Serialize for TreeModel {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        self.laws.serialize(serializer)
    }
}

/// A [`TreeModel`]'s laws as a file holds them, not yet checked.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TreeLaws {
    sizes: Vec<usize>,
    /// Columns in breadth-first order from the root (order\[0\]).
    order: Vec<usize>,
    /// Each column's parent (`usize::MAX` for the root).
    parent: Vec<usize>,
    /// Each column's fitted 1-way law.
    ones: Vec<Vec<f64>>,
    /// For each non-root column c: the fitted joint law of (parent, c), parent-major.
    joints: Vec<Vec<f64>>,
    /// The sampler's integer cumulative weights: the root's law, and each non-root column's
    /// conditional rows (parent value major), each row ending at 2⁵³.
    cumulative: Vec<Vec<u64>>,
}

/// Checks that `order` lists the nodes of a tree (`parent[i]` each node's parent,
/// [`usize::MAX`] for the root) once each, the root first and every other node after its
/// parent, as a file of a tree model must; `node` names them in the error.
pub(super) fn check_tree_order(
    order: &[usize],
    parent: &[usize],
    node: &str,
) -> std::result::Result<(), String> {
    let n = parent.len();
    let mut seen = vec![false; n];
    for (at, &c) in order.iter().enumerate() {
        if c >= n || seen[c] {
            return Err(format!("the {node} order is not a permutation"));
        }
        let p = parent[c];
        let ok = if at == 0 {
            p == usize::MAX
        } else {
            p < n && seen[p]
        };
        if !ok {
            return Err(format!("{node} {c}'s parent does not come before it"));
        }
        seen[c] = true;
    }
    Ok(())
}

impl TryFrom<TreeLaws> for TreeModel {
    type Error = Error;

    fn try_from(f: TreeLaws) -> Result<Self> {
        let d = f.sizes.len();
        let bad = |what: String| Err(Error::param("model", what));
        if d == 0
            || [f.order.len(), f.parent.len(), f.ones.len(), f.joints.len()]
                .iter()
                .chain(&[f.cumulative.len()])
                .any(|&l| l != d)
        {
            return bad(format!("lists of other lengths than its {d} columns"));
        }
        if f.sizes.iter().any(|&s| s == 0 || s > u32::MAX as usize) {
            return bad("a column with no value".into());
        }
        if let Err(what) = check_tree_order(&f.order, &f.parent, "column") {
            return bad(what);
        }
        for c in 0..d {
            let s = f.sizes[c];
            let root = f.parent[c] == usize::MAX;
            let rows = if root { 1 } else { f.sizes[f.parent[c]] };
            let cells = rows.saturating_mul(s);
            let joint = if root { 0 } else { cells };
            if f.ones[c].len() != s || f.joints[c].len() != joint || f.cumulative[c].len() != cells
            {
                return bad(format!("column {c}'s laws have the wrong sizes"));
            }
            if f.ones[c]
                .iter()
                .chain(&f.joints[c])
                .any(|p| !(p.is_finite() && *p >= 0.0))
            {
                return bad(format!("column {c} has a probability that is not one"));
            }
            let rising = f.cumulative[c]
                .chunks(s)
                .all(|row| row.windows(2).all(|w| w[0] <= w[1]) && row.last() == Some(&TOTAL));
            if !rising {
                return bad(format!("column {c}'s sampler weights do not rise to 2^53"));
            }
        }
        Ok(Self { laws: f })
    }
}

pub(crate) const TOTAL: u64 = 1 << 53;

impl TreeModel {
    /// Fits the tree model with edges `edges` (pairs (i, j), i < j, spanning the columns) to
    /// the measured 1-ways `ones` (one per column) and 2-ways `twos` (one per edge, i-major),
    /// for a table of `n` records, in at most `iterations` mirror-descent steps.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the edges do not form a spanning tree or a
    /// measurement has the wrong size.
    pub fn fit(
        sizes: &[usize],
        edges: &[(usize, usize)],
        ones: &[Measured],
        twos: &[Measured],
        n: f64,
        iterations: usize,
    ) -> Result<(Self, FitSummary)> {
        let d = sizes.len();
        let (order, parent) = orient(d, edges)?;
        if ones.len() != d || twos.len() != edges.len() {
            return Err(Error::param(
                "measurements",
                "one per column and one per edge",
            ));
        }
        for (i, m) in ones.iter().enumerate() {
            if m.counts.len() != sizes[i] {
                return Err(Error::param(
                    "measurements",
                    format!("column {i}: wrong size"),
                ));
            }
        }
        // Each edge's measurement, oriented parent-major, stored at its child.
        let mut edge_y: Vec<Option<Measured>> = vec![None; d];
        for (&(i, j), m) in edges.iter().zip(twos) {
            if m.counts.len() != sizes[i] * sizes[j] {
                return Err(Error::param(
                    "measurements",
                    format!("pair ({i}, {j}): wrong size"),
                ));
            }
            let (p, c) = if parent[j] == i { (i, j) } else { (j, i) };
            edge_y[c] = Some(if p == i {
                m.clone()
            } else {
                Measured {
                    counts: transpose(&m.counts, sizes[i], sizes[j]),
                    variances: transpose(&m.variances, sizes[i], sizes[j]),
                }
            });
        }
        let fit = Fit {
            sizes,
            order: &order,
            parent: &parent,
            ones,
            edges: &edge_y,
            n,
        };
        // Start: the independence model of the projected 1-ways.
        let theta = Theta {
            node: ones
                .iter()
                .map(|m| {
                    project_to_simplex(&m.counts, n)
                        .iter()
                        .map(|&c| (c / n).max(1e-12).ln())
                        .collect()
                })
                .collect(),
            edge: (0..d)
                .map(|c| {
                    if parent[c] == usize::MAX {
                        Vec::new()
                    } else {
                        vec![0.0; sizes[parent[c]] * sizes[c]]
                    }
                })
                .collect(),
        };
        let marginals = fit.marginals(&theta);
        let (loss, grad) = fit.loss(&marginals);
        let min_variance = ones
            .iter()
            .flat_map(|m| m.variances.iter().copied())
            .chain(
                edge_y
                    .iter()
                    .flatten()
                    .flat_map(|m| m.variances.iter().copied()),
            )
            .fold(f64::INFINITY, f64::min);
        let descent = mirror_descent(
            Descent::start(theta, marginals, loss, grad),
            min_variance / n,
            iterations,
            |theta, grad, alpha| theta.step(grad, alpha),
            |theta| {
                let m = fit.marginals(theta);
                let (l, g) = fit.loss(&m);
                (m, l, g)
            },
            |grad, old, new| grad.dot_difference(old, new, n),
        );
        let summary = descent.summary();
        let model = Self::from_marginals(sizes, order, parent, descent.marginals)?;
        Ok((model, summary))
    }

    fn from_marginals(
        sizes: &[usize],
        order: Vec<usize>,
        parent: Vec<usize>,
        marginals: Marginals,
    ) -> Result<Self> {
        let d = sizes.len();
        let mut cumulative = vec![Vec::new(); d];
        let root = order[0];
        cumulative[root] = cumulate(&quantize(&marginals.node[root]));
        for c in 0..d {
            if c == root {
                continue;
            }
            let (sp, sc) = (sizes[parent[c]], sizes[c]);
            let mut rows = Vec::with_capacity(sp * sc);
            for a in 0..sp {
                rows.extend(cumulate(&quantize(
                    &marginals.edge[c][a * sc..(a + 1) * sc],
                )));
            }
            cumulative[c] = rows;
        }
        Ok(Self {
            laws: TreeLaws {
                sizes: sizes.to_vec(),
                order,
                parent,
                ones: marginals.node,
                joints: marginals.edge,
                cumulative,
            },
        })
    }

    /// The domain sizes.
    pub fn sizes(&self) -> &[usize] {
        &self.laws.sizes
    }

    /// The tree's edges (i < j), in the sampler's order.
    pub fn edges(&self) -> Vec<(usize, usize)> {
        self.laws.order[1..]
            .iter()
            .map(|&c| (c.min(self.laws.parent[c]), c.max(self.laws.parent[c])))
            .collect()
    }

    /// The fitted 1-way law of column i.
    pub fn one(&self, i: usize) -> &[f64] {
        &self.laws.ones[i]
    }

    /// The law the sampler draws column c from given its parent's value a (the root: its
    /// own law, whatever a), from the stored integer weights.
    pub fn conditional(&self, c: usize, a: usize) -> Vec<f64> {
        let s = self.laws.sizes[c];
        let row = if c == self.laws.order[0] {
            &self.laws.cumulative[c][..]
        } else {
            &self.laws.cumulative[c][a * s..(a + 1) * s]
        };
        let mut prev = 0u64;
        row.iter()
            .map(|&x| {
                let p = (x - prev) as f64 / TOTAL as f64;
                prev = x;
                p
            })
            .collect()
    }

    /// The probability the sampler gives the record `x` (for tests and small tables).
    pub fn probability(&self, x: &[u32]) -> f64 {
        let root = self.laws.order[0];
        let mut p = self.conditional(root, 0)[x[root] as usize];
        for &c in &self.laws.order[1..] {
            p *= self.conditional(c, x[self.laws.parent[c]] as usize)[x[c] as usize];
        }
        p
    }

    /// The fitted 2-way law of columns i and j (i-major), whether or not they are an edge:
    /// Σ over the path between them, by one sweep from i.
    pub fn pair(&self, i: usize, j: usize) -> Vec<f64> {
        let (si, sj) = (self.laws.sizes[i], self.laws.sizes[j]);
        let mut out = vec![0.0; si * sj];
        for a in 0..si {
            let law = self.given(i, a);
            for b in 0..sj {
                out[a * sj + b] = self.laws.ones[i][a] * law[j][b];
            }
        }
        out
    }

    /// The law of every column given column i = a (propagated along the tree).
    fn given(&self, i: usize, a: usize) -> Vec<Vec<f64>> {
        let d = self.laws.sizes.len();
        let mut law: Vec<Option<Vec<f64>>> = vec![None; d];
        let mut point = vec![0.0; self.laws.sizes[i]];
        point[a] = 1.0;
        law[i] = Some(point);
        // Neighbours: parent and children, with the joint stored at the child.
        let mut stack = vec![i];
        while let Some(u) = stack.pop() {
            let lu = law[u].clone().expect("set before pushing");
            let unseen: Vec<usize> = (0..d)
                .filter(|&v| {
                    law[v].is_none() && (self.laws.parent[v] == u || self.laws.parent[u] == v)
                })
                .collect();
            for v in unseen {
                let next = if self.laws.parent[v] == u {
                    // u is v's parent: p(v | u) from the joint at v.
                    let sv = self.laws.sizes[v];
                    let mut out = vec![0.0; sv];
                    for (x, &w) in lu.iter().enumerate() {
                        let row = &self.laws.joints[v][x * sv..(x + 1) * sv];
                        let total: f64 = row.iter().sum();
                        if w == 0.0 || total <= 0.0 {
                            continue;
                        }
                        for (o, &r) in out.iter_mut().zip(row) {
                            *o += w * r / total;
                        }
                    }
                    out
                } else if self.laws.parent[u] == v {
                    // v is u's parent: p(v | u) from the joint at u.
                    let (sv, su) = (self.laws.sizes[v], self.laws.sizes[u]);
                    let joint = &self.laws.joints[u];
                    let mut out = vec![0.0; sv];
                    for (y, &w) in lu.iter().enumerate() {
                        let total: f64 = (0..sv).map(|x| joint[x * su + y]).sum();
                        if w == 0.0 || total <= 0.0 {
                            continue;
                        }
                        for (x, o) in out.iter_mut().enumerate() {
                            *o += w * joint[x * su + y] / total;
                        }
                    }
                    out
                } else {
                    continue;
                };
                law[v] = Some(next);
                stack.push(v);
            }
        }
        law.into_iter().map(|l| l.unwrap_or_default()).collect()
    }

    /// Draws `rows` records; record r's codes are `out[r·d..(r + 1)·d]` in column order.
    pub fn sample_rows(&self, rows: usize, rng: &mut SecureRng, out: &mut Vec<u32>) {
        let d = self.laws.sizes.len();
        out.clear();
        out.resize(rows * d, 0);
        let root = self.laws.order[0];
        for r in 0..rows {
            let x = &mut out[r * d..(r + 1) * d];
            x[root] = draw(&self.laws.cumulative[root], rng) as u32;
            for &c in &self.laws.order[1..] {
                let s = self.laws.sizes[c];
                let a = x[self.laws.parent[c]] as usize;
                x[c] = draw(&self.laws.cumulative[c][a * s..(a + 1) * s], rng) as u32;
            }
        }
    }
}

/// Where mirror descent stands: the parameters, their marginals, loss and gradient, the
/// iterations run and the loss it started from.
pub(crate) struct Descent<T, M> {
    pub(crate) theta: T,
    pub(crate) marginals: M,
    pub(crate) loss: f64,
    pub(crate) grad: M,
    pub(crate) iterations: usize,
    initial_loss: f64,
}

impl<T, M> Descent<T, M> {
    /// The state a descent starts from: θ and its marginals, loss and gradient.
    pub(crate) fn start(theta: T, marginals: M, loss: f64, grad: M) -> Self {
        Self {
            theta,
            marginals,
            loss,
            grad,
            iterations: 0,
            initial_loss: loss,
        }
    }

    /// How the fit went so far, as both fits report it.
    pub(crate) fn summary(&self) -> FitSummary {
        FitSummary {
            iterations: self.iterations,
            initial_loss: self.initial_loss,
            final_loss: self.loss,
        }
    }
}

/// Mirror descent on the log-potentials θ with private-pgm's Armijo rule, from `start`
/// (evaluated) for at most `iterations` steps, shared by the tree and junction-tree fits: the
/// step α (first `alpha`) doubles each iteration and halves (at most 30 times) until the loss
/// falls by at least ½·α·∇L·(μ_old − μ_new); it stops when no step is accepted or the loss
/// falls by less than 10⁻¹² of itself. `step(θ, ∇, α)` = θ − α∇, `evaluate(θ)` = (μ, L, ∇),
/// `dot(∇, μ_old, μ_new)` = ∇L·(n·μ_old − n·μ_new).
pub(crate) fn mirror_descent<T, M>(
    start: Descent<T, M>,
    alpha: f64,
    iterations: usize,
    step: impl Fn(&T, &M, f64) -> T,
    mut evaluate: impl FnMut(&T) -> (M, f64, M),
    dot: impl Fn(&M, &M, &M) -> f64,
) -> Descent<T, M> {
    let mut at = start;
    let mut alpha = alpha;
    for _ in 0..iterations {
        at.iterations += 1;
        alpha *= 2.0;
        let mut accepted = None;
        for _ in 0..30 {
            let candidate = step(&at.theta, &at.grad, alpha);
            let (next, next_loss, next_grad) = evaluate(&candidate);
            let decrease = 0.5 * alpha * dot(&at.grad, &at.marginals, &next);
            if next_loss.is_finite() && at.loss - next_loss >= decrease {
                accepted = Some((candidate, next, next_loss, next_grad));
                break;
            }
            alpha *= 0.5;
        }
        let Some((t, m, l, g)) = accepted else { break };
        let improvement = at.loss - l;
        at = Descent {
            theta: t,
            marginals: m,
            loss: l,
            grad: g,
            iterations: at.iterations,
            initial_loss: at.initial_loss,
        };
        if improvement <= 1e-12 * at.loss.max(1.0) {
            break;
        }
    }
    at
}

/// The index whose cumulative weight first exceeds 53 uniform bits.
pub(crate) fn draw(cumulative: &[u64], rng: &mut SecureRng) -> usize {
    let u = rng.next_u64() >> 11;
    cumulative.partition_point(|&c| c <= u)
}

/// Probabilities (any non-negative weights) as integers summing to 2⁵³, by largest
/// remainders; all-zero weights become uniform.
pub(crate) fn quantize(weights: &[f64]) -> Vec<u64> {
    let total: f64 = weights.iter().map(|w| w.max(0.0)).sum();
    let k = weights.len();
    if !(total > 0.0 && total.is_finite()) {
        let base = TOTAL / k as u64;
        let mut out = vec![base; k];
        for slot in out.iter_mut().take((TOTAL - base * k as u64) as usize) {
            *slot += 1;
        }
        return out;
    }
    let scaled: Vec<f64> = weights
        .iter()
        .map(|w| w.max(0.0) / total * TOTAL as f64)
        .collect();
    let mut out: Vec<u64> = scaled
        .iter()
        .map(|&x| (x.floor() as u64).min(TOTAL))
        .collect();
    let sum: u64 = out.iter().sum();
    if sum > TOTAL {
        // Rounding pushed the floors over: take the excess from the largest.
        let mut excess = sum - TOTAL;
        while excess > 0 {
            let i = (0..k).max_by_key(|&i| out[i]).expect("k ≥ 1");
            let take = excess.min(out[i]);
            out[i] -= take;
            excess -= take;
        }
        return out;
    }
    let mut left = TOTAL - sum;
    let mut by_remainder: Vec<usize> = (0..k).collect();
    by_remainder.sort_by(|&a, &b| {
        let ra = scaled[a] - scaled[a].floor();
        let rb = scaled[b] - scaled[b].floor();
        rb.total_cmp(&ra).then(a.cmp(&b))
    });
    let mut i = 0;
    while left > 0 {
        out[by_remainder[i % k]] += 1;
        left -= 1;
        i += 1;
    }
    out
}

pub(crate) fn cumulate(weights: &[u64]) -> Vec<u64> {
    let mut acc = 0u64;
    weights
        .iter()
        .map(|&w| {
            acc += w;
            acc
        })
        .collect()
}

fn transpose(v: &[f64], rows: usize, cols: usize) -> Vec<f64> {
    let mut out = vec![0.0; v.len()];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = v[r * cols + c];
        }
    }
    out
}

/// The Euclidean projection of `y` onto {x ≥ 0, Σx = total} (Duchi et al. 2008): the
/// least-squares estimate of a marginal with known total from its noisy counts.
pub fn project_to_simplex(y: &[f64], total: f64) -> Vec<f64> {
    let mut sorted = y.to_vec();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let mut acc = 0.0;
    let mut shift = (y.iter().sum::<f64>() - total) / y.len() as f64;
    for (k, &v) in sorted.iter().enumerate() {
        acc += v;
        let t = (acc - total) / (k + 1) as f64;
        if v - t > 0.0 {
            shift = t;
        } else {
            break;
        }
    }
    y.iter().map(|&v| (v - shift).max(0.0)).collect()
}

/// Breadth-first order from column 0 and each column's parent, or an error unless `edges`
/// form a spanning tree of d columns.
/// A breadth-first search of the graph `adjacent` from node 0, its neighbours taken in the
/// order listed: each node's parent ([`usize::MAX`] for the root and the nodes not reached)
/// and the nodes in the order reached.
pub(super) fn breadth_first(adjacent: &[Vec<usize>]) -> (Vec<usize>, Vec<usize>) {
    let mut parent = vec![usize::MAX; adjacent.len()];
    let mut seen = vec![false; adjacent.len()];
    let mut order = vec![0];
    seen[0] = true;
    let mut at = 0;
    while at < order.len() {
        let u = order[at];
        at += 1;
        for &v in &adjacent[u] {
            if !seen[v] {
                seen[v] = true;
                parent[v] = u;
                order.push(v);
            }
        }
    }
    (parent, order)
}

fn orient(d: usize, edges: &[(usize, usize)]) -> Result<(Vec<usize>, Vec<usize>)> {
    if d == 0 || edges.len() + 1 != d {
        return Err(Error::param(
            "tree",
            format!("{} edges cannot span {d} columns as a tree", edges.len()),
        ));
    }
    let mut adjacent = vec![Vec::new(); d];
    for &(i, j) in edges {
        if i >= d || j >= d || i == j {
            return Err(Error::param(
                "tree",
                format!("edge ({i}, {j}) is not a pair of columns"),
            ));
        }
        adjacent[i].push(j);
        adjacent[j].push(i);
    }
    let (parent, order) = breadth_first(&adjacent);
    if order.len() != d {
        return Err(Error::param(
            "tree",
            "the edges do not connect every column",
        ));
    }
    Ok((order, parent))
}

/// Log-potentials θ of the model.
#[derive(Clone)]
struct Theta {
    node: Vec<Vec<f64>>,
    /// At each non-root child c: θ_pc, parent-major.
    edge: Vec<Vec<f64>>,
}

impl Theta {
    fn step(&self, grad: &Marginals, alpha: f64) -> Theta {
        let sub =
            |t: &Vec<f64>, g: &Vec<f64>| t.iter().zip(g).map(|(t, g)| t - alpha * g).collect();
        Theta {
            node: self
                .node
                .iter()
                .zip(&grad.node)
                .map(|(t, g)| sub(t, g))
                .collect(),
            edge: self
                .edge
                .iter()
                .zip(&grad.edge)
                .map(|(t, g)| sub(t, g))
                .collect(),
        }
    }
}

/// Probabilities (or gradients) on every clique: nodes, and edges stored at their child.
#[derive(Clone)]
struct Marginals {
    node: Vec<Vec<f64>>,
    edge: Vec<Vec<f64>>,
}

impl Marginals {
    /// ∇L · (n·μ_old − n·μ_new) for a gradient `self`.
    fn dot_difference(&self, old: &Marginals, new: &Marginals, n: f64) -> f64 {
        let mut s = 0.0;
        for (g, (a, b)) in self.node.iter().zip(old.node.iter().zip(&new.node)) {
            s += g
                .iter()
                .zip(a.iter().zip(b))
                .map(|(g, (a, b))| g * n * (a - b))
                .sum::<f64>();
        }
        for (g, (a, b)) in self.edge.iter().zip(old.edge.iter().zip(&new.edge)) {
            s += g
                .iter()
                .zip(a.iter().zip(b))
                .map(|(g, (a, b))| g * n * (a - b))
                .sum::<f64>();
        }
        s
    }
}

struct Fit<'a> {
    sizes: &'a [usize],
    order: &'a [usize],
    parent: &'a [usize],
    ones: &'a [Measured],
    edges: &'a [Option<Measured>],
    n: f64,
}

pub(crate) fn logsumexp(v: impl Iterator<Item = f64> + Clone) -> f64 {
    let m = v.clone().fold(f64::NEG_INFINITY, f64::max);
    if m == f64::NEG_INFINITY {
        return m;
    }
    m + v.map(|x| (x - m).exp()).sum::<f64>().ln()
}

impl Fit<'_> {
    /// The model's clique marginals (probabilities) by sum-product on the tree, in log space.
    fn marginals(&self, theta: &Theta) -> Marginals {
        let d = self.sizes.len();
        let s = self.sizes;
        // inside[c]: θ_c plus the messages from c's children.
        let mut inside: Vec<Vec<f64>> = theta.node.clone();
        let mut up: Vec<Vec<f64>> = vec![Vec::new(); d];
        for &c in self.order.iter().rev() {
            let p = self.parent[c];
            if p == usize::MAX {
                continue;
            }
            let sc = s[c];
            let msg: Vec<f64> = (0..s[p])
                .map(|a| logsumexp((0..sc).map(|b| theta.edge[c][a * sc + b] + inside[c][b])))
                .collect();
            for (x, m) in inside[p].iter_mut().zip(&msg) {
                *x += m;
            }
            up[c] = msg;
        }
        let mut down: Vec<Vec<f64>> = vec![Vec::new(); d];
        down[self.order[0]] = vec![0.0; s[self.order[0]]];
        let mut edge = vec![Vec::new(); d];
        let mut node = vec![Vec::new(); d];
        let root = self.order[0];
        let log_z = logsumexp(inside[root].iter().copied());
        for &c in self.order {
            let p = self.parent[c];
            if p != usize::MAX {
                let sc = s[c];
                // Everything at p except c's own message (down[p] is set: p comes first).
                let g: Vec<f64> = (0..s[p])
                    .map(|a| inside[p][a] + down[p][a] - up[c][a])
                    .collect();
                down[c] = (0..sc)
                    .map(|b| logsumexp((0..s[p]).map(|a| theta.edge[c][a * sc + b] + g[a])))
                    .collect();
                let mut joint = vec![0.0; s[p] * sc];
                for a in 0..s[p] {
                    for b in 0..sc {
                        joint[a * sc + b] =
                            (g[a] + theta.edge[c][a * sc + b] + inside[c][b] - log_z).exp();
                    }
                }
                edge[c] = joint;
            }
            node[c] = inside[c]
                .iter()
                .zip(&down[c])
                .map(|(a, b)| (a + b - log_z).exp())
                .collect();
        }
        Marginals { node, edge }
    }

    /// The loss and its gradient in μ (counts): Σ ‖nμ − y‖²/(2v), (nμ − y)/v.
    fn loss(&self, m: &Marginals) -> (f64, Marginals) {
        let mut loss = 0.0;
        let mut part = |mu: &[f64], y: &Measured| -> Vec<f64> {
            mu.iter()
                .zip(y.counts.iter().zip(&y.variances))
                .map(|(&p, (&y_, &v))| {
                    let r = self.n * p - y_;
                    loss += r * r / (2.0 * v);
                    r / v
                })
                .collect()
        };
        let node = m
            .node
            .iter()
            .zip(self.ones)
            .map(|(mu, y)| part(mu, y))
            .collect();
        let edge = m
            .edge
            .iter()
            .zip(self.edges)
            .map(|(mu, y)| match y {
                Some(y) => part(mu, y),
                None => Vec::new(),
            })
            .collect();
        (loss, Marginals { node, edge })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn belief_propagation_is_exact_on_a_small_tree() {
        // 3 columns, edges (0,1), (1,2); random potentials; brute-force marginals.
        let sizes = [2usize, 3, 2];
        let (order, parent) = orient(3, &[(0, 1), (1, 2)]).unwrap();
        let theta = Theta {
            node: vec![vec![0.1, -0.3], vec![0.5, 0.0, -1.0], vec![0.2, 0.4]],
            edge: vec![
                Vec::new(),
                vec![0.3, -0.2, 0.9, 0.0, 0.1, -0.5],
                vec![1.0, -1.0, 0.0, 0.5, -0.4, 0.2],
            ],
        };
        let dummy: Vec<Measured> = sizes
            .iter()
            .map(|&s| Measured::uniform(vec![0.0; s], 1.0))
            .collect();
        let fit = Fit {
            sizes: &sizes,
            order: &order,
            parent: &parent,
            ones: &dummy,
            edges: &[None, None, None],
            n: 1.0,
        };
        let m = fit.marginals(&theta);
        let mut joint = [0.0; 12];
        let mut z = 0.0;
        for x0 in 0..2 {
            for x1 in 0..3 {
                for x2 in 0..2 {
                    let w = (theta.node[0][x0]
                        + theta.node[1][x1]
                        + theta.node[2][x2]
                        + theta.edge[1][x0 * 3 + x1]
                        + theta.edge[2][x1 * 2 + x2])
                        .exp();
                    joint[(x0 * 3 + x1) * 2 + x2] = w;
                    z += w;
                }
            }
        }
        for x1 in 0..3 {
            let p: f64 = (0..2)
                .flat_map(|x0| (0..2).map(move |x2| (x0, x2)))
                .map(|(x0, x2)| joint[(x0 * 3 + x1) * 2 + x2])
                .sum::<f64>()
                / z;
            assert!((m.node[1][x1] - p).abs() < 1e-12);
            for x2 in 0..2 {
                let q: f64 = (0..2).map(|x0| joint[(x0 * 3 + x1) * 2 + x2]).sum::<f64>() / z;
                assert!((m.edge[2][x1 * 2 + x2] - q).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn the_fit_recovers_exact_marginals_and_stays_consistent() {
        // A chain 0 – 1 – 2 with exact (noise-free) measurements of a tree distribution.
        let sizes = [2usize, 2, 3];
        let n = 1000.0;
        let p01 = [0.3, 0.1, 0.2, 0.4]; // p(x0, x1)
        let p12_given = [[0.6, 0.3, 0.1], [0.1, 0.2, 0.7]]; // p(x2 | x1)
        let p1 = [p01[0] + p01[2], p01[1] + p01[3]];
        let mut p12 = vec![0.0; 6];
        for a in 0..2 {
            for b in 0..3 {
                p12[a * 3 + b] = p1[a] * p12_given[a][b];
            }
        }
        let p0 = vec![p01[0] + p01[1], p01[2] + p01[3]];
        let p2: Vec<f64> = (0..3).map(|b| p12[b] + p12[3 + b]).collect();
        let scaled = |v: &[f64]| Measured::uniform(v.iter().map(|x| x * n).collect(), 4.0);
        let (model, summary) = TreeModel::fit(
            &sizes,
            &[(0, 1), (1, 2)],
            &[scaled(&p0), scaled(&p1), scaled(&p2)],
            &[scaled(&p01), scaled(&p12)],
            n,
            2000,
        )
        .unwrap();
        assert!(
            summary.final_loss < 1e-3 * summary.initial_loss.max(1.0),
            "{summary:?}"
        );
        let fitted = model.pair(1, 2);
        for (f, t) in fitted.iter().zip(&p12) {
            assert!((f - t).abs() < 1e-3, "{fitted:?} {p12:?}");
        }
        // A pair that is not an edge follows the path.
        let p02 = model.pair(0, 2);
        let mut expected = vec![0.0; 6];
        for x0 in 0..2 {
            for x1 in 0..2 {
                for x2 in 0..3 {
                    expected[x0 * 3 + x2] += p01[x0 * 2 + x1] * p12_given[x1][x2];
                }
            }
        }
        for (f, t) in p02.iter().zip(&expected) {
            assert!((f - t).abs() < 1e-3, "{p02:?} {expected:?}");
        }
    }

    #[test]
    fn negative_noisy_counts_fit_to_a_valid_law() {
        let sizes = [3usize, 2];
        let m = |v: Vec<f64>| Measured::uniform(v, 100.0);
        let (model, _) = TreeModel::fit(
            &sizes,
            &[(0, 1)],
            &[m(vec![60.0, -15.0, 55.0]), m(vec![40.0, 60.0])],
            &[m(vec![30.0, 35.0, -4.0, -9.0, 20.0, 22.0])],
            100.0,
            500,
        )
        .unwrap();
        for c in 0..2 {
            let total: f64 = model.one(c).iter().sum();
            assert!((total - 1.0).abs() < 1e-9);
            assert!(model.one(c).iter().all(|&p| p >= 0.0));
        }
        assert!(model.one(0)[1] < 0.05);
    }

    #[test]
    fn the_sampler_draws_the_stored_law() {
        // χ² of 60,000 records over all 2·3·2 = 12 cells against the model's own
        // probabilities; false alarm 10⁻⁴.
        let sizes = [2usize, 3, 2];
        let m = |v: Vec<f64>| Measured::uniform(v, 1.0);
        let (model, _) = TreeModel::fit(
            &sizes,
            &[(0, 1), (1, 2)],
            &[
                m(vec![30.0, 70.0]),
                m(vec![20.0, 50.0, 30.0]),
                m(vec![45.0, 55.0]),
            ],
            &[
                m(vec![15.0, 10.0, 5.0, 5.0, 40.0, 25.0]),
                m(vec![15.0, 5.0, 20.0, 30.0, 10.0, 20.0]),
            ],
            100.0,
            500,
        )
        .unwrap();
        let mut rng = SecureRng::insecure_from_seed(17);
        let mut rows = Vec::new();
        model.sample_rows(60_000, &mut rng, &mut rows);
        let mut observed = vec![0u64; 12];
        let mut probs = vec![0.0; 12];
        for x0 in 0..2u32 {
            for x1 in 0..3u32 {
                for x2 in 0..2u32 {
                    let cell = ((x0 * 3 + x1) * 2 + x2) as usize;
                    probs[cell] = model.probability(&[x0, x1, x2]);
                }
            }
        }
        assert!((probs.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        for r in rows.chunks(3) {
            observed[((r[0] * 3 + r[1]) * 2 + r[2]) as usize] += 1;
        }
        crate::noise::gof::chi_square_test(&observed, &probs, 1e-4);
    }

    #[test]
    fn quantized_laws_sum_to_two_to_the_53() {
        for w in [
            vec![0.2, 0.3, 0.5],
            vec![0.0, 0.0],
            vec![1e-300, 1.0, 1e300],
            vec![1.0 / 3.0; 3],
        ] {
            let q = quantize(&w);
            assert_eq!(q.iter().sum::<u64>(), TOTAL, "{w:?}");
        }
        assert!(orient(3, &[(0, 1), (0, 1)]).is_err());
        assert!(orient(3, &[(0, 1)]).is_err());
        let p = project_to_simplex(&[5.0, -2.0, 1.0], 4.0);
        assert!(
            (p.iter().sum::<f64>() - 4.0).abs() < 1e-12 && p[1] == 0.0,
            "{p:?}"
        );
    }
}
