//! Whole-table private synthetic data: MST (McKenna, Miklau, Sheldon 2021, "Winning the NIST
//! Contest: A scalable and general approach to differentially private synthetic data",
//! Algorithm 1) on the library's own mechanisms.
//!
//! 1. **1-ways**: every column's counts, measured with noise ([`Plan`]); values whose noisy
//!    count is below 3σ are merged into one ([`Compression`], MST's domain compression).
//!    Only then are the 2-way marginals counted, on the compressed domain ([`Tally`]): a
//!    column of 10⁵ levels costs the cells it compresses to (one process; a cluster sums
//!    full marginals and compresses them).
//! 2. **Tree**: d − 1 pairs of columns, a maximum spanning tree of the pairs' scores (the L1
//!    error of the independence model of the noisy 1-ways on each pair) chosen by the private
//!    greedy of Mitrovic et al. (2017, Algorithm 2) over the graphic matroid with the
//!    exponential mechanism ([`tree::private_tree`]) — the library's one greedy driver and
//!    one exponential mechanism.
//! 3. **2-ways**: the chosen pairs' counts, measured with noise.
//! 4. **Estimation**: a tree-structured model fitted to the noisy marginals by mirror
//!    descent with exact belief propagation ([`TreeModel::fit`]).
//! 5. **Sampling**: records drawn independently from the model ([`TreeModel::sample_rows`]).
//!
//! # Guarantee
//! For **replace-one** neighbours (two tables of the same public n that differ in one
//! record): ε-DP with Laplace measurements (basic composition of three ε/3 steps), or
//! (ε, δ)-DP with Gaussian measurements (ρ-zCDP, ρ/3 per step, converted by Canonne, Kamath
//! and Steinke 2020). Sensitivities and the split are on [`Plan`]; the data is read only
//! through a [`Tally`] (exact counts), and everything after the three measurements is
//! post-processing (the compression included: a function of the noisy 1-ways).
//! The domains (levels, numeric bounds and bins) must be public.
//!
//! MST itself is calibrated for add/remove-one neighbours: replacing a record is removing
//! one and adding one, so its L1 and L2 sensitivities are 1 where ours are 2 and √2.
//!
//! ```
//! use disguise::data::Codes;
//! use disguise::privacy::{Delta, Epsilon};
//! use disguise::synth::{Marginals, MeasurementNoise, SynthConfig, synthesize};
//! use disguise::SecureRng;
//!
//! // 3 columns: b copies a, c is independent noise.
//! let mut cols = [Codes::new(), Codes::new(), Codes::new()];
//! for r in 0..3000u32 {
//!     cols[0].push(r % 3);
//!     cols[1].push(r % 3);
//!     cols[2].push((r / 7) % 2);
//! }
//! let m = Marginals::count(&[&cols[0], &cols[1], &cols[2]], &[3, 3, 2], 3000)?;
//! let config = SynthConfig::new(Epsilon::new(3.0)?, Delta::ZERO, MeasurementNoise::Laplace);
//! let mut rng = SecureRng::from_os()?;
//! let s = synthesize(m, &config, &mut rng)?;
//! assert!(s.guarantee.epsilon <= 3.0 && s.guarantee.delta == 0.0);
//! assert_eq!(s.mst.as_ref().map(|m| m.tree.len()), Some(2));
//! let mut rows = Vec::new();
//! s.sample_rows(10, &mut rng, &mut rows);
//! assert_eq!(rows.len(), 30);
//! # Ok::<(), disguise::Error>(())
//! ```

pub mod aim;
pub mod compress;
pub mod graphical;
pub mod junction;
pub mod kept;
pub mod marginals;
pub mod measure;
pub mod model;
pub mod tree;

pub use aim::{AimOptions, Workload};
pub use compress::Compression;
pub use graphical::GraphicalModel;
pub use junction::JunctionTree;
pub use kept::KeptModel;
pub use marginals::{CodedTable, Marginals, Tally};
pub use measure::{CountNoise, MeasuredMarginal, MeasurementNoise, Plan};
pub use model::{FitSummary, Measured, TreeModel};

use crate::disclosure::Diagnostic;
use crate::error::Result;
use crate::maximize::Solution;
use crate::noise::SecureRng;
use crate::privacy::{Delta, Epsilon, Guarantee, PrivacyCost};
use serde::{Deserialize, Serialize};

/// The default number of mirror-descent iterations (the fit usually stops earlier, when the
/// loss no longer falls).
pub const DEFAULT_ITERATIONS: usize = 1000;

/// The budget and options of [`synthesize`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SynthConfig {
    /// Which synthesizer.
    pub method: Method,
    /// Total ε.
    pub epsilon: Epsilon,
    /// Total δ (0 with Laplace noise).
    pub delta: Delta,
    /// The measurements' noise.
    pub noise: MeasurementNoise,
    /// At most this many mirror-descent iterations.
    pub iterations: usize,
    /// How many numeric columns got private edges ([`Plan::with_edges`]).
    pub edge_columns: usize,
    /// The share of the budget their edges took.
    pub edge_share: f64,
}

impl SynthConfig {
    /// A configuration with the default iterations.
    pub fn new(epsilon: Epsilon, delta: Delta, noise: MeasurementNoise) -> Self {
        Self {
            method: Method::Mst,
            epsilon,
            delta,
            noise,
            iterations: DEFAULT_ITERATIONS,
            edge_columns: 0,
            edge_share: crate::histogram::DEFAULT_EDGE_SHARE,
        }
    }
}

/// Which synthesizer: MST (a tree of 2-ways, three steps) or AIM (adaptive rounds over a
/// workload of marginals, a junction tree).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    /// MST (McKenna, Miklau, Sheldon 2021): the module's steps above.
    Mst,
    /// AIM (McKenna, Mullins, Sheldon, Miklau 2022): [`aim`].
    Aim(AimOptions),
}

impl Method {
    /// The method's name, as the CLI spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Method::Mst => "mst",
            Method::Aim(_) => "aim",
        }
    }
}

/// The fitted model: a tree (MST) or a junction tree (AIM), on the compressed domain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Model {
    /// MST's tree of pairs.
    Tree(TreeModel),
    /// AIM's graphical model on a junction tree.
    Junction(GraphicalModel),
}

impl Model {
    /// The (compressed) domain sizes.
    pub fn sizes(&self) -> &[usize] {
        match self {
            Model::Tree(m) => m.sizes(),
            Model::Junction(m) => m.sizes(),
        }
    }

    /// Draws `rows` records on the compressed domain (row-major, one row per record).
    pub fn sample_rows(&self, rows: usize, rng: &mut SecureRng, out: &mut Vec<u32>) {
        match self {
            Model::Tree(m) => m.sample_rows(rows, rng, out),
            Model::Junction(m) => m.sample_rows(rows, rng, out),
        }
    }

    /// The model's cliques: the tree's pairs, or the junction tree's cliques.
    pub fn cliques(&self) -> Vec<Vec<usize>> {
        match self {
            Model::Tree(m) => m.edges().into_iter().map(|(i, j)| vec![i, j]).collect(),
            Model::Junction(m) => m.tree().cliques().to_vec(),
        }
    }
}

/// How MST chose its pairs.
#[derive(Debug, Clone)]
pub struct MstSteps {
    /// The budget split and noise.
    pub plan: Plan,
    /// The measured pairs (i < j), in the order the greedy chose them.
    pub tree: Vec<(usize, usize)>,
    /// The tree step's greedy run (its rounds, calls and guarantee). NOT private: its
    /// values are the exact sums of the chosen pairs' scores on the data, which the
    /// exponential mechanism protects but does not release; the pairs it chose are
    /// [`MstSteps::tree`] (released).
    pub selection: Diagnostic<Solution>,
}

/// A fitted synthesizer: the model, how it was made and what it guarantees.
#[derive(Debug, Clone)]
pub struct Synthesis {
    /// The method that made it.
    pub method: Method,
    /// The measurements' noise.
    pub noise: MeasurementNoise,
    /// Every measured marginal, in order: its columns, its noise and the ε of the
    /// exponential mechanism that chose it (released).
    pub measured: Vec<MeasuredMarginal>,
    /// MST's steps (`None` for AIM).
    pub mst: Option<MstSteps>,
    /// AIM's initial budget (`None` for MST).
    pub aim: Option<aim::AimBudget>,
    /// What each column's private edges cost, when some column got them.
    pub edges: Option<crate::histogram::EdgeBudget>,
    /// The calls the guarantee composes (the edges' first).
    pub calls: Vec<(PrivacyCost, u64)>,
    /// The fitted model, on the compressed domain.
    pub model: Model,
    /// Which rare values were merged before the larger marginals were counted.
    pub compression: Compression,
    /// How the fit went.
    pub fit: FitSummary,
    /// n, the table's (public) number of records.
    pub rows: u64,
    /// The end-to-end guarantee.
    pub guarantee: Guarantee,
    /// Whether every draw came from the operating system's generator.
    pub secure_rng: bool,
}

impl Synthesis {
    /// Draws `rows` records (codes of the original domains, row-major, one row per record)
    /// into `out`: from the model, with merged values expanded uniformly.
    pub fn sample_rows(&self, rows: usize, rng: &mut SecureRng, out: &mut Vec<u32>) {
        self.model.sample_rows(rows, rng, out);
        self.compression.expand(out, rng);
    }
}

/// Runs the configured method ([`Method`]) on the table `tally` counts.
///
/// # Errors
/// As [`synthesize_mst`] and [`aim::run`]; AIM without δ or with Laplace noise.
pub fn synthesize<T: Tally>(
    tally: T,
    config: &SynthConfig,
    rng: &mut SecureRng,
) -> Result<Synthesis> {
    match config.method {
        Method::Mst => synthesize_mst(tally, config, rng),
        Method::Aim(options) => synthesize_aim(tally, config, &options, rng),
    }
}

/// AIM on the table `tally` counts: the private edges' share first (as MST's plan splits
/// it), AIM's rounds on the zCDP budget left.
fn synthesize_aim<T: Tally>(
    tally: T,
    config: &SynthConfig,
    options: &AimOptions,
    rng: &mut SecureRng,
) -> Result<Synthesis> {
    let d = tally.sizes().len();
    let n = tally.rows();
    check_rows(n)?;
    if config.noise != MeasurementNoise::Gaussian {
        return Err(crate::Error::param(
            "method",
            "AIM measures with Gaussian noise (give a delta > 0, or use --method mst)",
        ));
    }
    // The edges cost what MST's plan gives them; AIM gets the rest of ρ.
    let plan = plan_of(d, config)?;
    let (edge_calls, rho) = aim::edges_and_rest(&plan, config.epsilon, config.delta)?;
    let (run, guarantee) = aim::run(
        tally,
        rho,
        options,
        config.iterations,
        &edge_calls,
        config.epsilon,
        config.delta,
        rng,
    )?;
    let mut calls = edge_calls;
    calls.extend(run.calls);
    Ok(Synthesis {
        method: config.method,
        noise: MeasurementNoise::Gaussian,
        measured: run.rounds,
        mst: None,
        aim: Some(run.budget),
        edges: plan.edges,
        calls,
        model: Model::Junction(run.model),
        compression: run.compression,
        fit: run.fit,
        rows: n,
        guarantee,
        secure_rng: rng.is_secure(),
    })
}

/// MST's plan for d columns under `config` (AIM takes its private edges' prices from it).
fn plan_of(d: usize, config: &SynthConfig) -> Result<Plan> {
    Plan::with_edges(
        d,
        config.edge_columns,
        config.edge_share,
        config.epsilon,
        config.delta,
        config.noise,
    )
}

fn check_rows(n: u64) -> Result<()> {
    if n < 2 {
        return Err(crate::Error::param(
            "rows",
            format!("a synthetic table needs at least 2 records, got {n}"),
        ));
    }
    Ok(())
}

/// Runs MST on the table `tally` counts (see the [module docs](self)): its 1-ways, then its
/// marginals on the compressed domain ([`Tally`]), dropped as soon as they are counted.
///
/// # Errors
/// As [`Plan::new`] (fewer than 2 columns, Gaussian noise without δ); fewer than 2 records;
/// the mechanisms' errors.
pub fn synthesize_mst<T: Tally>(
    mut tally: T,
    config: &SynthConfig,
    rng: &mut SecureRng,
) -> Result<Synthesis> {
    let d = tally.sizes().len();
    let n = tally.rows();
    check_rows(n)?;
    let plan = plan_of(d, config)?;
    let nf = n as f64;
    let exact = tally.ones()?;
    let noisy: Vec<Vec<f64>> = exact
        .iter()
        .map(|one| plan.ones.measure(one, rng))
        .collect::<Result<_>>()?;
    drop(exact);
    // Rare values merged (post-processing of the noisy 1-ways), then everything on the
    // compressed domain: the same sensitivities, fewer noisy cells.
    let variance = plan.ones.variance();
    let compression = Compression::from_noisy(&noisy, variance.sqrt());
    let ones: Vec<Measured> = noisy
        .iter()
        .enumerate()
        .map(|(i, y)| compression.measured_one(i, y, variance))
        .collect();
    let compressed = tally.compressed(&compression)?;
    let laws: Vec<Vec<f64>> = ones
        .iter()
        .map(|m| {
            model::project_to_simplex(&m.counts, nf)
                .into_iter()
                .map(|c| c / nf)
                .collect()
        })
        .collect();
    let (scores, lambda) = tree::scores(&compressed, &laws)?;
    let (edges, selection) = tree::private_tree(scores, lambda, d, plan.tree_epsilon0, rng)?;
    let twos: Vec<Measured> = edges
        .iter()
        .map(|&(i, j)| {
            Ok(Measured::uniform(
                plan.twos.measure(compressed.two(i, j), rng)?,
                plan.twos.variance(),
            ))
        })
        .collect::<Result<_>>()?;
    drop(compressed);
    let (model, fit) = TreeModel::fit(
        compression.sizes(),
        &edges,
        &ones,
        &twos,
        nf,
        config.iterations,
    )?;
    let mut measured: Vec<MeasuredMarginal> = ones
        .iter()
        .enumerate()
        .map(|(i, m)| MeasuredMarginal {
            columns: vec![i],
            noise: plan.ones.clone(),
            selection_epsilon: None,
            counts: m.counts.clone(),
        })
        .collect();
    measured.extend(
        edges
            .iter()
            .zip(&twos)
            .map(|(&(i, j), m)| MeasuredMarginal {
                columns: vec![i, j],
                noise: plan.twos.clone(),
                selection_epsilon: Some(plan.tree_epsilon0),
                counts: m.counts.clone(),
            }),
    );
    Ok(Synthesis {
        method: Method::Mst,
        noise: plan.noise,
        measured,
        aim: None,
        edges: plan.edges,
        calls: plan.calls.clone(),
        guarantee: plan.guarantee,
        compression,
        model: Model::Tree(model),
        mst: Some(MstSteps {
            plan,
            tree: edges,
            selection: Diagnostic::new(selection),
        }),
        fit,
        rows: n,
        secure_rng: rng.is_secure(),
    })
}
