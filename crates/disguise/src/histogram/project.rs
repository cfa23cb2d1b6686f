//! The projected histogram of Vinterbo (2012), Section 2.3: PRIVATEKD with ε_p = (1 − γ)ε
//! onto k predictors plus the target, then the thresholded histogram with ε_h = γε of the
//! projected data.

use super::discretized::{Discretized, Domain, predictors};
use super::encode::MixedRadix;
use super::params::{DEFAULT_SEED, GammaParams, estimate_gamma, public_k, simulate_k_with};
use super::privatekd::{DEFAULT_SIGMA, discernibility_for, private_kd, select_k_by_splitting};
use super::release::write_synthetic_csv;
use super::sparse::{SparseLaplace, ThresholdedHistogram};
use crate::data::Codes;
use crate::disclosure::{Disclose, Public, Released};
use crate::error::{Error, Result};
use crate::maximize::Solution;
use crate::noise::SecureRng;
use crate::numeric::round::sub_down;
use crate::objective::Discernibility;
use crate::privacy::compose::{ComposeOptions, compose};
use crate::privacy::{Delta, Epsilon, Guarantee, PrivacyCost};
use serde::Serialize;
use std::io::Write;

/// How the projection size k is chosen (Section 2.3.1).
#[derive(Debug, Clone)]
pub enum KChoice {
    /// A fixed k (1 ≤ k ≤ d − 1), chosen without looking at the data.
    Given(usize),
    /// k = |MDA(f, D′, σ)| on the simulated data of
    /// [`simulated_data`](super::simulated_data) (public; no privacy cost).
    Simulated {
        /// σ (the paper: 0.1).
        sigma: f64,
        /// Seed of the simulation.
        seed: u64,
    },
    /// k = |MDA(f, D′, σ)| on a public dataset D′ with the same columns, discretized with the
    /// same domains (no privacy cost, provided D′ really is public).
    Public {
        /// The public data.
        data: Box<Discretized>,
        /// σ (the paper: 0.1).
        sigma: f64,
    },
    /// Chaudhuri et al.'s data splitting ([`select_k_by_splitting`]): chooses k *and* the
    /// attributes, spending the projection budget ε_p.
    Split {
        /// The candidate values of k (fixed in advance).
        candidates: Vec<usize>,
        /// σ (the paper: 0.1).
        sigma: f64,
    },
}

impl Default for KChoice {
    /// [`KChoice::Simulated`] with σ = 0.1, the paper's default.
    fn default() -> Self {
        KChoice::Simulated {
            sigma: DEFAULT_SIGMA,
            seed: DEFAULT_SEED,
        }
    }
}

/// How many synthetic records a release holds (post-processing: no privacy cost either way).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SyntheticRows {
    /// Exactly n, the public number of records, apportioned in proportion to the noisy
    /// counts ([`ThresholdedHistogram::apportioned`]): the table a user expects, with class
    /// shares those of the release.
    #[default]
    Records,
    /// ⌈h̃(x) − ½⌉ copies of every released cell, as in Vinterbo 2012 (the paper's
    /// experiments): spurious and small cells can make it far larger than n.
    NoisyCounts,
}

impl crate::names::Named for SyntheticRows {
    const KIND: &'static str = "synthetic rows";
    const ALL: &'static [Self] = &[SyntheticRows::Records, SyntheticRows::NoisyCounts];

    fn name(self) -> &'static str {
        match self {
            SyntheticRows::Records => "records",
            SyntheticRows::NoisyCounts => "noisy-counts",
        }
    }

    fn help(self) -> &'static str {
        match self {
            SyntheticRows::Records => {
                "Exactly n rows (n is public), in proportion to the noisy counts"
            }
            SyntheticRows::NoisyCounts => {
                "⌈h̃ − ½⌉ copies of every released cell, as in the paper (often more than n)"
            }
        }
    }
}

crate::names::named_traits!(SyntheticRows);

/// Parameters of [`projected_histogram`].
#[derive(Debug, Clone)]
pub struct ProjectionConfig {
    /// Total privacy budget ε.
    pub epsilon: Epsilon,
    /// How k is chosen.
    pub k: KChoice,
    /// γ ∈ (0, 1], the histogram's share of ε; `None` estimates it (Section 2.3.2).
    pub gamma: Option<f64>,
    /// A (threshold) and the constants of the γ estimate.
    pub params: GammaParams,
    /// How many synthetic records the release holds (default: n).
    pub rows: SyntheticRows,
    /// The private bin edges the data was read with, already spent from `epsilon`: the
    /// projection and the histogram split what is left ([`super::edges`]).
    pub edges: Option<super::EdgeRelease>,
}

impl ProjectionConfig {
    /// ε with every other choice left to the paper's estimates (k simulated with σ = 0.1,
    /// γ estimated, A = B = ½, l = 0.05, p = 0.95).
    pub fn new(epsilon: Epsilon) -> Self {
        Self {
            epsilon,
            k: KChoice::default(),
            gamma: None,
            params: GammaParams::default(),
            rows: SyntheticRows::default(),
            edges: None,
        }
    }
}

/// A projected histogram release: what was chosen, what it cost, and the histogram.
///
/// Every field says what it is ([`crate::disclosure`]): [`Public`] values are functions of
/// the options, the schema's domains and the public number of records n; [`Released`] ones
/// are the mechanisms' outputs (PRIVATEKD's picks, the thresholded Laplace histogram) and
/// their post-processing. Nothing in it is computed from the records without noise, so it
/// has no diagnostics of its own. That holds for public domains: a release on domains taken
/// from the data (`private_domains` false, no guarantee) is a diagnostic as a whole, which
/// front ends show only on request.
#[derive(Debug, Clone, Serialize, Disclose)]
pub struct ProjectedHistogram {
    /// The target column.
    pub target: Public<String>,
    /// The predictors kept by the projection, in table order (the synthetic file's order):
    /// PRIVATEKD's picks (or every informative predictor when k = d − 1).
    pub attributes: Released<Vec<String>>,
    /// The number of bins of each kept numeric predictor (a value in the synthetic file is
    /// its bin's midpoint): the schema's bins (or the bandwidth rule's, from n) of the
    /// released attributes.
    #[serde(skip_serializing_if = "released_map_is_empty")]
    pub bins: Released<std::collections::BTreeMap<String, usize>>,
    /// The same predictors in the order PRIVATEKD picked them.
    pub selection_order: Released<Vec<String>>,
    /// The predictors left out of the release, in table order: those the projection did not
    /// pick and those with a single value (one bin), which carry no information.
    pub dropped: Released<Vec<String>>,
    /// The released columns (chosen attributes and target) in table order.
    pub columns: Released<Vec<String>>,
    /// Number of records n (public).
    pub records: Public<usize>,
    /// The number of predictors the projection could choose from: the d − 1 predictors but
    /// those with a single value (one bin), which carry no information (from the schema's
    /// domains and n).
    pub predictors: Public<usize>,
    /// k: given, or computed from public quantities (simulated or public data), except with
    /// data splitting ([`KChoice::Split`]), where the mechanism chose it: released either
    /// way (a public value is trivially so).
    pub k: Released<usize>,
    /// How k was chosen (with data splitting, naming the k chosen).
    pub k_method: Released<String>,
    /// γ: given, or estimated from public quantities.
    pub gamma: Public<f64>,
    /// How γ was chosen.
    pub gamma_method: Public<String>,
    /// What the paper's estimate (Section 2.3.2) says each step needs, when γ was estimated:
    /// budgets the split is computed from, not what was spent (that is
    /// [`epsilon_p`](Self::epsilon_p) and [`epsilon_h`](Self::epsilon_h)). From n, the
    /// domain sizes and k (public).
    pub gamma_estimate: Option<Public<super::params::GammaEstimate>>,
    /// Total ε requested.
    pub epsilon: Public<f64>,
    /// The private bin edges of the numeric columns that had neither `bins` nor `edges`,
    /// paid from ε before the projection and the histogram split the rest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edges: Option<Released<super::EdgeRelease>>,
    /// Budget spent on the projection.
    pub epsilon_p: Public<f64>,
    /// Budget of the histogram (the proven ε of its noise, ≤ γε).
    pub epsilon_h: Public<f64>,
    /// The threshold τ = A·ln(n)/ε_h.
    pub threshold: Public<f64>,
    /// m, the number of cells of the projected space: the product of the released columns'
    /// public domain sizes.
    pub space_size: Released<u64>,
    /// The number of released cells.
    pub support_size: Released<usize>,
    /// How the number of synthetic records was set.
    pub rows: Public<SyntheticRows>,
    /// The number of synthetic records: n, or Σ ⌈h̃ − ½⌉ with [`SyntheticRows::NoisyCounts`].
    pub synthetic_rows: Released<u64>,
    /// Σ ⌈h̃ − ½⌉, the records the raw noisy counts would give (what the paper's synthetic
    /// data holds), for comparison with n.
    pub noisy_rows: Released<u64>,
    /// The threshold against the counts n records can put in a cell, from public quantities
    /// and the released support: whether the release is expected to be mostly noise.
    pub usefulness: Released<crate::task::Usefulness>,
    /// The accountant's end-to-end guarantee (basic composition of the projection and the
    /// histogram); `None` when the run is not private (domains taken from the data).
    pub guarantee: Option<Guarantee>,
    /// Whether the domains were public (schema) — false with `--bounds-from-data`.
    pub private_domains: Public<bool>,
    /// Whether the generator was keyed by the operating system (false: seeded, reproducible,
    /// protects no one).
    pub secure_rng: Public<bool>,
    /// Remarks on the run (parameter adjustments, privacy warnings): from the options and
    /// public quantities.
    pub notes: Public<Vec<String>>,
    /// How each numeric column of the table is written in the synthetic file (uniform
    /// within its bin or its midpoint; integer or not): the release's and the schema's
    /// choices ([`ProjectedHistogram::with_values`]).
    pub values: Public<std::collections::BTreeMap<String, super::Written>>,
    /// The released histogram (written as the synthetic file).
    #[serde(skip)]
    #[disclose(internal)]
    histogram: ThresholdedHistogram,
    #[serde(skip)]
    #[disclose(internal)]
    written: super::Values,
    #[serde(skip)]
    #[disclose(internal)]
    names: Vec<String>,
    #[serde(skip)]
    #[disclose(internal)]
    all_domains: Vec<Domain>,
    #[serde(skip)]
    #[disclose(internal)]
    encoding: MixedRadix,
    #[serde(skip)]
    #[disclose(internal)]
    domains: Vec<Domain>,
}

/// Whether a released map is empty (serde's `skip_serializing_if`).
fn released_map_is_empty<K, V>(map: &Released<std::collections::BTreeMap<K, V>>) -> bool {
    map.is_empty()
}

impl ProjectedHistogram {
    /// The released histogram over the projected space.
    pub fn histogram(&self) -> &ThresholdedHistogram {
        &self.histogram
    }

    /// The released histogram, given away (e.g. to turn a release of millions of cells into
    /// training rows while freeing it, [`super::drain_synthetic_cells_rev`]).
    pub fn into_histogram(self) -> ThresholdedHistogram {
        self.histogram
    }

    /// The encoding of the projected space (columns in [`ProjectedHistogram::columns`]
    /// order).
    pub fn encoding(&self) -> &MixedRadix {
        &self.encoding
    }

    /// The domains of the released columns.
    pub fn domains(&self) -> &[Domain] {
        &self.domains
    }

    /// Writes the synthetic dataset as CSV, its records in a random order drawn from `rng`
    /// (see [`write_synthetic_csv`]); returns the number of records written.
    ///
    /// # Errors
    /// [`Error::Io`] if writing fails.
    pub fn write_csv<W: Write>(&self, writer: W, rng: &mut SecureRng) -> Result<u64> {
        write_synthetic_csv(
            writer,
            &self.columns,
            &self.domains,
            &self.encoding,
            &self.histogram,
            self.written,
            rng,
        )
    }

    /// The release writing numeric values as `values` says (default
    /// [`Values::Uniform`](super::Values::Uniform)): post-processing, no privacy cost.
    pub fn with_values(mut self, values: super::Values) -> Self {
        self.written = values;
        self.values = Public::new(super::written_values(
            &self.names,
            &self.all_domains,
            values,
        ));
        self
    }

    /// How numeric values are written ([`ProjectedHistogram::with_values`]).
    pub fn written(&self) -> super::Values {
        self.written
    }
}

/// Builds a differentially private projected histogram of `data` for the target column
/// `target` (Vinterbo 2012, Section 2.3).
///
/// 1. k from `config.k` (given, simulated MDA, MDA on public data, or data splitting);
/// 2. γ given or estimated ([`estimate_gamma`]); ε_h = γε, ε_p = ε − ε_h;
/// 3. the projection: [`private_kd`] with ε_p onto k predictors (or, with
///    [`KChoice::Split`], [`select_k_by_splitting`] with ε_p); when k = d − 1 there is no
///    choice to make, the projection keeps every predictor and costs nothing (γ = 1);
/// 4. the thresholded histogram ([`SparseLaplace`]) with ε_h of the data projected onto the
///    chosen attributes and the target.
///
/// # Guarantee
/// ε-differential privacy for replace-one neighbours (datasets of the same public size n
/// differing in one record): the projection is ε_p-DP (Theorem 1), the histogram ε_h-DP
/// given the projection (Proposition 1), and they compose sequentially (basic composition)
/// to ε_p + ε_h ≤ ε; the returned guarantee is the accountant's. Requires that every domain
/// (bounds, levels) is public ([`Discretized::is_private`]), otherwise no guarantee is given.
/// The simulations that choose k and γ use only public quantities and a seeded generator.
///
/// # Runtime
/// O(k·d·n) for the projection, O(n·k) to encode, expected O(n + n′ + q̂) for the
/// histogram; plus the simulation of k (O(n·d) and one MDA run) when k is not given.
///
/// # Errors
/// [`Error::InvalidParameter`] for fewer than 2 records, a bad target, k or γ out of range,
/// γ = 1 with k < d − 1 (nothing left for the projection), and the errors of the steps.
pub fn projected_histogram(
    data: &Discretized,
    target: usize,
    config: &ProjectionConfig,
    rng: &mut SecureRng,
) -> Result<ProjectedHistogram> {
    let (objective, _) = discernibility_for(data, target)?;
    release(&Table { data, objective }, target, config, rng)
}

/// Where the records of a release are: a table in this process, or the workers of a cluster
/// (`cluster::histogram`). Everything else of the release is computed from public quantities
/// (names, domains, n) in [`release`], in the same order with the same generator either way.
pub(crate) trait Rows {
    /// The columns' names.
    fn names(&self) -> &[String];
    /// The columns' domains.
    fn domains(&self) -> &[Domain];
    /// n, the number of records.
    fn rows(&self) -> usize;
    /// Whether the domains are public.
    fn is_private(&self) -> bool;
    /// PRIVATEKD onto k predictors with ε_p.
    fn project(&self, k: usize, epsilon_p: Epsilon, rng: &mut SecureRng) -> Result<Solution>;
    /// The objective of the records when they are all in this process: data splitting (k
    /// by [`select_k_by_splitting`]) draws a random split of them, which a cluster cannot.
    fn in_one_process(&self) -> Option<&Discernibility>;
    /// The thresholded histogram of the records projected onto `release.columns`.
    fn histogram(&self, release: &Release<'_>, rng: &mut SecureRng)
    -> Result<ThresholdedHistogram>;
}

/// The histogram a release draws: the projection's columns (table order), their mixed-radix
/// code and the thresholded Laplace mechanism.
pub(crate) struct Release<'a> {
    pub columns: &'a [usize],
    pub encoding: &'a MixedRadix,
    pub mechanism: &'a SparseLaplace,
}

/// A table in this process and its discernibility objective.
struct Table<'d> {
    data: &'d Discretized,
    objective: Discernibility,
}

impl Rows for Table<'_> {
    fn names(&self) -> &[String] {
        self.data.names()
    }
    fn domains(&self) -> &[Domain] {
        self.data.domains()
    }
    fn rows(&self) -> usize {
        self.data.rows()
    }
    fn is_private(&self) -> bool {
        self.data.is_private()
    }
    fn project(&self, k: usize, epsilon_p: Epsilon, rng: &mut SecureRng) -> Result<Solution> {
        private_kd(&self.objective, k, epsilon_p, rng)
    }
    fn in_one_process(&self) -> Option<&Discernibility> {
        Some(&self.objective)
    }
    /// Counts the projected codes of this process's table, then draws the noise.
    fn histogram(
        &self,
        release: &Release<'_>,
        rng: &mut SecureRng,
    ) -> Result<ThresholdedHistogram> {
        let (columns, encoding, mechanism) = (release.columns, release.encoding, release.mechanism);
        let code_columns: Vec<&Codes> = columns.iter().map(|&c| self.data.codes(c)).collect();
        let counts = projected_counts(encoding, &code_columns, self.data.rows())?;
        mechanism.release_counts(rng, &counts, encoding.size())
    }
}

/// [`projected_histogram`] on records wherever they are.
pub(crate) fn release<R: Rows>(
    data: &R,
    target: usize,
    config: &ProjectionConfig,
    rng: &mut SecureRng,
) -> Result<ProjectedHistogram> {
    let n = data.rows();
    if n < 2 {
        return Err(Error::param(
            "data",
            format!("needs at least 2 records, got {n}"),
        ));
    }
    let predictors = predictors(data.domains(), target)?;
    let d1 = predictors.len();
    let q = usize::try_from(data.domains()[target].size())
        .map_err(|_| Error::param("target", "too many target levels"))?;
    let mut notes = Vec::new();
    // Private edges were paid first, from the same ε (pure: basic composition).
    let mut costs: Vec<PrivacyCost> = Vec::new();
    let mut eps = config.epsilon.get();
    if let Some(edges) = &config.edges {
        let super::EdgeBudget::Pure { epsilon } = edges.budget else {
            return Err(Error::param(
                "edges",
                "a projected histogram is pure ε-DP: its edges must have a pure budget",
            ));
        };
        let k = edges.columns.len();
        costs.extend(std::iter::repeat_n(
            PrivacyCost::Pure {
                epsilon: Epsilon::new(epsilon)?,
            },
            k,
        ));
        eps = sub_down(eps, crate::numeric::round::mul_up(epsilon, k as f64));
        if eps <= 0.0 {
            return Err(Error::param("edges", "the edges leave no budget"));
        }
    }
    // The simulations behind k and γ model the predictors as the paper does, s bins each;
    // when the schema cuts every numeric predictor into the same given number of bins, that
    // is s (the paper's rule would model Landsat's 4-bin predictors as 1-bin ones).
    let params = GammaParams {
        bins: config
            .params
            .bins
            .or_else(|| schema_bins(data.domains(), &predictors)),
        ..config.params
    };

    // 1. k (public computations only, except for the split, which runs below).
    let (mut k, mut k_method) = match &config.k {
        // Every predictor has a single value: there is nothing to project on, and the
        // release is the target's histogram alone (whatever k was asked, except by a split).
        KChoice::Simulated { .. } | KChoice::Public { .. } if d1 == 0 => {
            notes.push(
                "no predictor has two values or more (a numeric predictor cut into one bin \
                 by the bandwidth rule carries no information): the release is the target's \
                 histogram alone; give the numeric columns `bins = N` in the schema for more"
                    .to_string(),
            );
            (0, "no informative predictor".to_string())
        }
        KChoice::Given(k) => {
            if *k == 0 || *k > d1 {
                return Err(Error::param(
                    "k",
                    format!(
                        "must be between 1 and the number of predictors with two values or \
                         more, {d1}, got {k}"
                    ),
                ));
            }
            (*k, "given".to_string())
        }
        KChoice::Simulated { sigma, seed } => (
            simulate_k_with(
                n as u64,
                d1,
                q,
                params.simulated_bins(n as u64, d1)?,
                *sigma,
                *seed,
            )?,
            format!("MDA (σ = {sigma}) on simulated data"),
        ),
        KChoice::Public {
            data: public,
            sigma,
        } => {
            check_same_layout(data.domains(), public)?;
            let (public_objective, _) = discernibility_for(public, target)?;
            (
                public_k(&public_objective, *sigma)?,
                format!("MDA (σ = {sigma}) on public data"),
            )
        }
        KChoice::Split { candidates, sigma } => {
            if candidates.is_empty() || candidates.iter().any(|&c| c == 0 || c > d1) {
                return Err(Error::param(
                    "k",
                    format!("split candidates must be in [1, {d1}], got {candidates:?}"),
                ));
            }
            (
                *candidates.iter().max().expect("non-empty"),
                format!("data splitting (Chaudhuri et al., σ = {sigma})"),
            )
        }
    };
    let split = matches!(config.k, KChoice::Split { .. });
    let trivial = k >= d1 && !split;

    // 2. γ.
    let (gamma, gamma_method, gamma_estimate) = if trivial {
        if config.gamma.is_some_and(|g| g != 1.0) {
            notes.push(format!(
                "k = d − 1 = {d1}: every predictor is kept, the projection needs no budget, so \
                 γ = 1 and the whole ε goes to the histogram"
            ));
        }
        (1.0, "k = d − 1: no projection".to_string(), None)
    } else {
        match config.gamma {
            Some(g) => {
                if !(g > 0.0 && g <= 1.0) {
                    return Err(Error::param("gamma", format!("must be in (0, 1], got {g}")));
                }
                (g, "given".to_string(), None)
            }
            None => {
                let sizes: Vec<u64> = predictors
                    .iter()
                    .map(|&c| data.domains()[c].size())
                    .collect();
                let est = estimate_gamma(n as u64, d1, q, k, &params)?
                    .with_domains(n as u64, q, k, &sizes, &params)?;
                let split = config.params.rule.split(eps, &est);
                notes.extend(split.note);
                let largest = if matches!(config.k, KChoice::Split { .. }) {
                    format!(", with k = {k}, the largest candidate")
                } else {
                    String::new()
                };
                let method = format!(
                    "{} γ rule{largest}",
                    crate::names::Named::name(config.params.rule)
                );
                (split.gamma, method, Some(est))
            }
        }
    };

    // 3. Budgets: ε_h = γε, ε_p = ε − ε_h (rounded down), so ε_p + ε_h ≤ ε.
    let eps_h_budget = if gamma == 1.0 { eps } else { gamma * eps };
    let eps_p = if gamma == 1.0 {
        0.0
    } else {
        sub_down(eps, eps_h_budget).max(0.0)
    };
    if !trivial && eps_p <= 0.0 {
        return Err(Error::param(
            "gamma",
            format!("γ = {gamma} leaves no budget for projecting onto k = {k} < {d1} predictors"),
        ));
    }

    // 4. The projection.
    let elements: Vec<usize> = if trivial {
        (0..d1).collect()
    } else if let KChoice::Split { candidates, sigma } = &config.k {
        let Some(objective) = data.in_one_process() else {
            return Err(Error::param(
                "k_split",
                "data splitting draws a random split of the records, which are spread over the \
                 workers: give k, or let it be chosen on simulated or public data",
            ));
        };
        let choice =
            select_k_by_splitting(objective, candidates, Epsilon::new(eps_p)?, *sigma, rng)?;
        costs.push(PrivacyCost::Pure {
            epsilon: Epsilon::new(choice.epsilon)?,
        });
        k = choice.k;
        k_method = format!("{k_method}: chose k = {k} among {candidates:?}");
        choice.elements
    } else {
        let solution = data.project(k, Epsilon::new(eps_p)?, rng)?;
        costs.extend(solution.costs());
        solution.elements
    };
    let selection_order: Vec<String> = elements
        .iter()
        .map(|&a| data.names()[predictors[a]].clone())
        .collect();
    let mut columns: Vec<usize> = elements.iter().map(|&a| predictors[a]).collect();
    columns.push(target);
    columns.sort_unstable();
    let attributes: Vec<String> = columns
        .iter()
        .filter(|&&c| c != target)
        .map(|&c| data.names()[c].clone())
        .collect();
    // How many bins each kept numeric predictor has (the release's values are their
    // midpoints): from the schema and n, for the released columns.
    let bins: std::collections::BTreeMap<String, usize> = columns
        .iter()
        .filter(|&&c| c != target)
        .filter_map(|&c| match &data.domains()[c] {
            Domain::Numeric { bins, .. } => Some((data.names()[c].clone(), bins.count())),
            Domain::Categorical { .. } => None,
        })
        .collect();
    let dropped: Vec<String> = (0..data.names().len())
        .filter(|c| *c != target && !columns.contains(c))
        .map(|c| data.names()[c].clone())
        .collect();

    // 5. The histogram of the projected data.
    let names: Vec<String> = columns.iter().map(|&c| data.names()[c].clone()).collect();
    let domains: Vec<Domain> = columns.iter().map(|&c| data.domains()[c].clone()).collect();
    let radices: Vec<u64> = domains.iter().map(Domain::size).collect();
    let encoding = MixedRadix::new(&radices, &names)?;
    let mechanism = SparseLaplace::new(Epsilon::new(eps_h_budget)?, n as u64, config.params.a)?;
    let release_of = Release {
        columns: &columns,
        encoding: &encoding,
        mechanism: &mechanism,
    };
    let histogram = data.histogram(&release_of, rng)?;
    let (noisy_rows, support_size) = (histogram.synthetic_rows(), histogram.support_size());
    let histogram = match config.rows {
        SyntheticRows::Records => histogram.apportioned(n as u64),
        SyntheticRows::NoisyCounts => histogram,
    };
    costs.push(PrivacyCost::Pure {
        epsilon: Epsilon::new(mechanism.epsilon())?,
    });

    // 6. The guarantee, computed by the accountant.
    let composition = compose(&costs, Delta::ZERO, ComposeOptions::default())?;
    let private_domains = data.is_private();
    let guarantee = if private_domains {
        composition.best
    } else {
        notes.push(
            "NOT PRIVATE: some column bounds or levels were taken from the data \
             (--bounds-from-data); the release reveals them"
                .to_string(),
        );
        None
    };
    if !rng.is_secure() {
        notes.push("seeded generator: the run is reproducible and protects no one".to_string());
    }
    // The outputs of the two mechanisms (PRIVATEKD or the split, and the thresholded
    // histogram), and their post-processing with public domains.
    let support = Released::new(support_size);
    let usefulness = support.map(|support| {
        crate::task::Usefulness::histogram(
            n,
            mechanism.epsilon(),
            config.params.a,
            encoding.size(),
            support,
            noisy_rows,
        )
    });
    Ok(ProjectedHistogram {
        // From the schema's domains (public) and the default choice.
        values: Public::new(super::written_values(
            data.names(),
            data.domains(),
            super::Values::default(),
        )),
        written: super::Values::default(),
        names: data.names().to_vec(),
        all_domains: data.domains().to_vec(),
        target: Public::new(data.names()[target].clone()),
        attributes: Released::new(attributes),
        bins: Released::new(bins),
        selection_order: Released::new(selection_order),
        dropped: Released::new(dropped),
        columns: Released::new(names),
        records: Public::new(n),
        predictors: Public::new(d1),
        k: Released::new(k),
        k_method: Released::new(k_method),
        gamma: Public::new(gamma),
        gamma_method: Public::new(gamma_method),
        gamma_estimate: gamma_estimate.map(Public::new),
        epsilon: Public::new(config.epsilon.get()),
        edges: config.edges.clone().map(Released::new),
        epsilon_p: Public::new(eps_p),
        epsilon_h: Public::new(mechanism.epsilon()),
        threshold: Public::new(mechanism.threshold()),
        space_size: Released::new(encoding.size()),
        support_size: support,
        usefulness,
        rows: Public::new(config.rows),
        synthetic_rows: Released::new(histogram.synthetic_rows()),
        noisy_rows: Released::new(noisy_rows),
        guarantee,
        private_domains: Public::new(private_domains),
        secure_rng: Public::new(rng.is_secure()),
        notes: Public::new(notes),
        histogram,
        encoding,
        domains,
    })
}

/// The non-empty cells of the projected rows and their counts, sorted by cell (what
/// [`cell_counts`](super::cell_counts) gives for the rows' codes), in little memory: a dense
/// counter per cell when the space is small next to the data (at most one byte per record),
/// else the rows' codes sorted in place (eight bytes per record, not the three copies of
/// encoding, copying and radix sorting).
pub(crate) fn projected_counts(
    encoding: &MixedRadix,
    columns: &[&Codes],
    n: usize,
) -> Result<Vec<(u64, u64)>> {
    const BLOCK: usize = 1 << 12;
    let m = encoding.size();
    if m <= (n as u64 / 8).max(BLOCK as u64) {
        let mut counts = vec![0u64; m as usize];
        let mut block = vec![0u64; BLOCK];
        let mut start = 0;
        while start < n {
            let len = BLOCK.min(n - start);
            encoding.encode_codes_into(columns, start, &mut block[..len])?;
            for &code in &block[..len] {
                counts[code as usize] += 1;
            }
            start += len;
        }
        return Ok(counts
            .into_iter()
            .enumerate()
            .filter(|&(_, c)| c > 0)
            .map(|(cell, c)| (cell as u64, c))
            .collect());
    }
    let mut codes = vec![0u64; n];
    encoding.encode_codes_into(columns, 0, &mut codes)?;
    codes.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for code in codes {
        match out.last_mut() {
            Some((cell, count)) if *cell == code => *count += 1,
            _ => out.push((code, 1)),
        }
    }
    Ok(out)
}

/// The number of bins every numeric predictor shares (a schema's `bins = N` on each, or the
/// paper's rule on each), when there are numeric predictors and they agree; `None` otherwise.
fn schema_bins(domains: &[Domain], predictors: &[usize]) -> Option<usize> {
    let mut counts = predictors.iter().filter_map(|&c| match &domains[c] {
        Domain::Numeric { bins, .. } => Some(bins.count()),
        Domain::Categorical { .. } => None,
    });
    let first = counts.next()?;
    counts.all(|c| c == first).then_some(first)
}

fn check_same_layout(private: &[Domain], public: &Discretized) -> Result<()> {
    if private.len() != public.width()
        || private
            .iter()
            .zip(public.domains())
            .any(|(a, b)| a.size() != b.size())
    {
        return Err(Error::param(
            "public data",
            "the public dataset must have the same columns and domains as the private one \
             (discretize it with the private table's domains)",
        ));
    }
    Ok(())
}
