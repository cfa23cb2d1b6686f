//! [`Features`]: choose k columns of a table that are most informative about a label column —
//! mutual information under the naive Bayes model (Mitrovic et al. 2017, §6.2) or
//! k-discernibility (Vinterbo 2012) — by the private greedy or subsample-greedy.
//!
//! Privacy: each row is one person's record; neighbouring tables differ in one record
//! (replace-one) and the number of records n is public (the mutual-information sensitivity
//! depends on it: `docs/proofs/mutual-information.md`). The objectives report their
//! per-round sensitivity ([`SetFunction::sensitivity`]); each round is the mechanism's
//! selection at that sensitivity and the run is as private as the composition rule in the
//! report proves. The categories of each column are taken as given: if the set of values
//! itself is sensitive, declare the domains publicly before coding the table.

use super::usefulness::GreedyRun;
use super::{
    Algorithm, Privacy, PrivacyReport, Report, Reporting, Runnable, Usefulness, WithPrivacy,
};
use crate::constraint::{Cardinality, Independence};
use crate::data::Codes;
use crate::disclosure::{Diagnostic, Disclose, Public, Released};
use crate::error::{Error, Result};
use crate::maximize::{Procedure, Solution, greedy, planned, subsample_greedy};
use crate::names::{Named, named_traits};
use crate::noise::SecureRng;
use crate::objective::{Discernibility, MutualInformation, SetFunction};
use crate::privacy::Unit;
use serde::Serialize;
use std::sync::Arc;

mod read;
pub use read::{BinSpec, FeatureRead, FeatureSource, LabelledTable};

/// A column whose values are all numbers and that has more distinct values than this is
/// taken for a measurement (or an identifier) and must be binned over public bounds (or
/// excluded) before feature selection: as categories its values would be almost unique per
/// record. The command line and the Python package both refuse such a column.
pub const MAX_NUMERIC_LEVELS: usize = 32;

/// The objective of a feature selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FeatureObjective {
    /// I(label; features) in bits under the naive Bayes model.
    #[default]
    MutualInformation,
    /// Record pairs with different labels that the features tell apart.
    Discernibility,
}

impl Named for FeatureObjective {
    const KIND: &'static str = "objective";
    const ALL: &'static [Self] = &[
        FeatureObjective::MutualInformation,
        FeatureObjective::Discernibility,
    ];

    fn name(self) -> &'static str {
        match self {
            FeatureObjective::MutualInformation => "mutual-information",
            FeatureObjective::Discernibility => "discernibility",
        }
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            FeatureObjective::MutualInformation => &["mi"],
            FeatureObjective::Discernibility => &["k-discernibility"],
        }
    }

    fn help(self) -> &'static str {
        match self {
            FeatureObjective::MutualInformation => {
                "I(label; features) in bits under the naive Bayes model (Mitrovic et al. 2017 §6.2)"
            }
            FeatureObjective::Discernibility => {
                "k-discernibility: record pairs with different labels the features tell apart \
                 (Vinterbo 2012)"
            }
        }
    }
}

named_traits!(FeatureObjective);

/// A table coded for feature selection: one column of category codes per candidate feature
/// and the label's codes, every column with one code per record.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureTable {
    /// The name of every feature column.
    pub names: Vec<String>,
    /// The codes of every feature column (values in `0..arities[j]`).
    pub columns: Vec<Codes>,
    /// The number of categories of every feature column.
    pub arities: Vec<u32>,
    /// The label's codes (values in `0..label_levels`).
    pub labels: Codes,
    /// The number of label levels.
    pub label_levels: u32,
}

/// A private feature selection: k, the objective, the algorithm and the privacy options.
///
/// ```
/// use disguise::prelude::*;
/// use disguise::task::{FeatureTable, Features, WithPrivacy};
///
/// // The label is column 0 exactly; column 1 is noise.
/// let y: Vec<u32> = (0..200).map(|i| i % 2).collect();
/// let noise: Vec<u32> = (0..200).map(|i| (i / 2) % 2).collect();
/// let table = FeatureTable {
///     names: vec!["copy".into(), "noise".into()],
///     columns: vec![y.clone().into(), noise.into()],
///     arities: vec![2, 2],
///     labels: y.into(),
///     label_levels: 2,
/// };
/// let report = Features::new(1).epsilon(5.0).run(table, &mut SecureRng::insecure_from_seed(1))?;
/// assert_eq!(report.choice.selected.len(), 1);
/// assert!(report.privacy.guarantee.unwrap().epsilon <= 5.0);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Features {
    /// The number of features to choose.
    pub k: usize,
    /// The objective.
    pub objective: FeatureObjective,
    /// The greedy algorithm: greedy, subsample or auto (the greedy,
    /// [`Features::chosen_algorithm`]).
    pub algorithm: Algorithm,
    /// The budget, mechanism and composition rule.
    pub privacy: Privacy,
    /// How many numeric columns of a schema get private bin edges
    /// ([`FeatureSource::edge_columns`](super::FeatureSource::edge_columns); 0 for a table
    /// coded by public rules alone): their edges take [`Features::edge_share`] of ε, the
    /// picks the rest.
    pub edge_columns: usize,
    /// The share of ε spent on private bin edges when `edge_columns` > 0, in (0, 1).
    pub edge_share: f64,
}

impl WithPrivacy for Features {
    fn privacy_mut(&mut self) -> &mut Privacy {
        &mut self.privacy
    }
}

impl Features {
    /// k features by mutual information, the private greedy and the exponential mechanism;
    /// set the budget with [`Features::epsilon`].
    pub fn new(k: usize) -> Self {
        Self {
            k,
            objective: FeatureObjective::default(),
            algorithm: Algorithm::Auto,
            privacy: Privacy::default(),
            edge_columns: 0,
            edge_share: crate::histogram::DEFAULT_EDGE_SHARE,
        }
    }

    /// The privacy of the picks: the whole budget, or what private edges leave of ε.
    fn selection_privacy(&self) -> Result<Privacy> {
        if self.edge_columns == 0 {
            return Ok(self.privacy);
        }
        crate::histogram::edges::check_share(self.edge_share)?;
        let epsilon = self.privacy.epsilon.map(|e| {
            crate::numeric::round::sub_down(e, crate::numeric::round::mul_up(e, self.edge_share))
        });
        Ok(Privacy {
            epsilon,
            ..self.privacy
        })
    }

    /// ε of each column's private edges (`edge_share`·ε split evenly), when there are any.
    fn edge_epsilon(&self) -> Result<Option<f64>> {
        if self.edge_columns == 0 {
            return Ok(None);
        }
        let Some(epsilon) = self.privacy.epsilon else {
            return Err(Error::param(
                "epsilon",
                "private bin edges need a budget (give ε, or public bins in the schema)",
            ));
        };
        crate::histogram::edges::pure_per_column(epsilon, self.edge_share, self.edge_columns)
            .map(Some)
    }

    /// The private edges of `schema`'s numeric columns that have neither `bins` nor `edges`,
    /// each at its share of ε (read the table with
    /// [`FeatureSource::read`](super::FeatureSource::read)).
    ///
    /// # Errors
    /// As [`Features::validate`]; a count of such columns other than `edge_columns`.
    pub fn edges(&self, schema: &crate::histogram::Schema) -> Result<crate::histogram::EdgePlan> {
        let count = crate::histogram::EdgePlan::count(schema);
        if count != self.edge_columns {
            return Err(Error::param(
                "edge_columns",
                format!(
                    "the request plans private edges for {} columns, the schema has {count}",
                    self.edge_columns
                ),
            ));
        }
        match self.edge_epsilon()? {
            Some(epsilon) => crate::histogram::EdgePlan::new(
                schema,
                crate::histogram::EdgeBudget::Pure { epsilon },
            ),
            None => Ok(crate::histogram::EdgePlan::none()),
        }
    }

    /// The objective.
    pub fn objective(mut self, objective: FeatureObjective) -> Self {
        self.objective = objective;
        self
    }

    /// The algorithm that runs: the one asked for, or the greedy for [`Algorithm::Auto`].
    pub fn chosen_algorithm(&self) -> Algorithm {
        self.algorithm.or(Algorithm::Greedy)
    }

    /// Validates every option that needs no data and builds the selection procedure.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the option, or an invalid ε or δ.
    pub fn validate(&self) -> Result<Procedure<'static>> {
        let algorithm = self.chosen_algorithm();
        self.edge_epsilon()?;
        super::discrete(
            &self.selection_privacy()?,
            self.k,
            algorithm,
            super::CONTINUOUS_IN_SELECT,
        )
    }

    /// What a run will spend choosing among `features` columns (public: the table's
    /// header), planned before any record is read ([`crate::maximize::planned`]; neither
    /// objective is decomposable): the report's privacy, which a budget ledger reserves
    /// first.
    ///
    /// # Errors
    /// As [`Features::validate`]; k larger than the features.
    pub fn plan(&self, features: usize) -> Result<PrivacyReport> {
        let procedure = self.validate()?;
        super::k_fits(self.k, features, "features")?;
        let rounds = match self.chosen_algorithm() {
            Algorithm::Subsample => self.k,
            _ => Cardinality::new(features, self.k).rank_bound(),
        };
        let report = PrivacyReport::planned(&planned(&procedure, rounds, false)?, Unit::Record);
        match self.edge_epsilon()? {
            Some(e) => report.with_edges(e, self.edge_columns as u64),
            None => Ok(report),
        }
    }

    /// Builds the objective on `table` and checks that k fits it. The table's columns move
    /// into the objective (mutual information keeps only its counts).
    ///
    /// # Errors
    /// As [`Features::validate`]; k larger than the number of features or than the objective
    /// can hold; columns of different lengths.
    pub fn prepare(&self, table: FeatureTable) -> Result<PreparedFeatures> {
        let procedure = self.validate()?;
        let records = table.labels.len();
        let (model, scale) = match self.objective {
            FeatureObjective::MutualInformation => {
                let f = MutualInformation::from_codes(
                    &table.columns,
                    &table.arities,
                    &table.labels,
                    table.label_levels,
                )?;
                let h = entropy_bits(&table.labels, table.label_levels);
                (Model::MutualInformation(f), h)
            }
            FeatureObjective::Discernibility => {
                let f = Discernibility::from_codes(
                    table.columns.into_iter().map(Arc::new).collect(),
                    table.arities,
                    Arc::new(table.labels),
                    table.label_levels,
                )?;
                let max = f.max_value();
                (Model::Discernibility(f), max)
            }
        };
        self.prepare_model(table.names, model, scale, records, procedure)
    }

    /// The checks that need the objective, and the prepared request.
    fn prepare_model(
        &self,
        names: Vec<String>,
        model: Model,
        scale: f64,
        records: usize,
        procedure: Procedure<'static>,
    ) -> Result<PreparedFeatures> {
        let d = names.len();
        if self.k > d {
            return Err(Error::param(
                "k",
                format!(
                    "{} is larger than the number of features ({d}: {})",
                    self.k,
                    names.join(", ")
                ),
            ));
        }
        let (limit, name) = match &model {
            Model::MutualInformation(f) => (f.max_solution_size(), f.name()),
            Model::Discernibility(f) => (f.max_solution_size(), f.name()),
        };
        if self.k > limit {
            return Err(Error::param(
                "k",
                format!(
                    "the {name} objective can hold at most {limit} of these features at once \
                     (the product of their numbers of categories is too large); choose k ≤ \
                     {limit} or bin the columns more coarsely"
                ),
            ));
        }
        // Without public levels, at most one level per record.
        let max_value = self.objective.max_value(records, u32::MAX);
        Ok(PreparedFeatures {
            edges: None,
            request: self.clone(),
            names,
            model,
            scale,
            max_value,
            records,
            procedure,
        })
    }

    /// One private selection on `table`.
    ///
    /// # Errors
    /// As [`Features::prepare`].
    pub fn run(&self, table: FeatureTable, rng: &mut SecureRng) -> Result<FeaturesReport> {
        self.prepare(table)?.run_report(rng)
    }
}

#[cfg(feature = "cluster")]
impl Features {
    /// [`Features::run`] (mutual information) over records spread on a
    /// [`Cluster`](crate::cluster::Cluster): `load` gives each worker its rows as a
    /// [`FeatureTable`] (it may exchange with the other workers, e.g.
    /// [`read_share`](crate::cluster::read_share) learns the total number of rows for the
    /// bins). Every worker's table must have the same names, arities and label levels (a
    /// schema's public domains: codes must mean the same everywhere). The naive-Bayes model
    /// needs only the counts n_y and n_{j,a,y}: each worker counts its rows, process 0 adds
    /// the counts exactly and runs the greedy on the model they give, so the guarantee and,
    /// with a seeded `rng`, the report are those of [`Features::prepare`] on all the rows
    /// with [`PreparedFeatures::with_public_label_levels`] (the schema's levels are public,
    /// so the a-priori bound uses their number). The report in process 0, `None` elsewhere.
    ///
    /// # Errors
    /// As [`Features::run`]; discernibility is refused; a worker's `load` error, tables of
    /// different shapes, codes outside the arities; [`Error::Cluster`].
    pub fn run_distributed<L>(
        &self,
        cluster: &crate::cluster::Cluster,
        load: L,
        rng: &mut SecureRng,
    ) -> Result<Option<FeaturesReport>>
    where
        L: Fn(&mut crate::cluster::Comm<'_>) -> Result<FeatureTable> + Send + Sync + 'static,
    {
        let Some(prepared) = self.prepare_distributed(cluster, load)? else {
            return Ok(None);
        };
        prepared.run_report(rng).map(Some)
    }

    /// [`Features::prepare`] over records spread on a cluster, as
    /// [`Features::run_distributed`] gathers them: the model of the summed counts, in
    /// process 0 (`None` elsewhere), ready for any number of trials without further traffic.
    ///
    /// # Errors
    /// As [`Features::run_distributed`].
    pub fn prepare_distributed<L>(
        &self,
        cluster: &crate::cluster::Cluster,
        load: L,
    ) -> Result<Option<PreparedFeatures>>
    where
        L: Fn(&mut crate::cluster::Comm<'_>) -> Result<FeatureTable> + Send + Sync + 'static,
    {
        if self.edge_columns > 0 {
            return Err(Error::param(
                "edge_columns",
                "a distributed run cannot draw private bin edges yet: give the numeric columns \
                 public `bins = N` or `edges = [...]` in the schema",
            ));
        }
        let procedure = self.validate()?;
        if self.objective != FeatureObjective::MutualInformation {
            return Err(Error::param(
                "objective",
                "a distributed feature selection maximises mutual information (its model is a \
                 sum of counts); discernibility runs in one process",
            ));
        }
        let Some(c) = cluster.feature_counts(load)? else {
            return Ok(None);
        };
        let f = MutualInformation::from_counts(&c.arities, c.label_levels, &c.counts)?;
        let label_counts = &c.counts[..c.label_levels as usize];
        let records = label_counts.iter().sum::<u64>() as usize;
        let scale = entropy_of_counts(label_counts);
        let model = Model::MutualInformation(f);
        // The workers' tables share a schema's public domains (see above).
        self.prepare_model(c.names, model, scale, records, procedure)
            .map(|p| Some(p.with_public_label_levels(c.label_levels)))
    }
}

/// The objective built on the data.
enum Model {
    MutualInformation(MutualInformation),
    Discernibility(Discernibility),
}

/// A [`Features`] request ready to run any number of trials.
pub struct PreparedFeatures {
    request: Features,
    /// The private edges the table was read with (reported; charged whenever the request
    /// plans edges).
    edges: Option<crate::histogram::EdgeRelease>,
    names: Vec<String>,
    model: Model,
    /// What utilities divide by (from the data: evaluation only).
    scale: f64,
    /// The largest value the objective can take, from public quantities only.
    max_value: f64,
    records: usize,
    procedure: Procedure<'static>,
}

impl PreparedFeatures {
    /// The same, the label's number of levels L being public (a schema's, or classes the
    /// user names): the a-priori bound then uses log₂ min(L, n) (or Turán's bound for L
    /// classes) rather than at most one level per record.
    pub fn with_public_label_levels(mut self, levels: u32) -> Self {
        self.max_value = self.request.objective.max_value(self.records, levels);
        self
    }

    /// The same, the table having been read with these private edges (drawn at the
    /// request's [`Features::edges`]): reported with the picks.
    ///
    /// # Errors
    /// Edges for another number of columns than the request plans.
    pub fn with_edges(mut self, edges: Option<crate::histogram::EdgeRelease>) -> Result<Self> {
        let count = edges.as_ref().map_or(0, |e| e.columns.len());
        if count != self.request.edge_columns {
            return Err(Error::param(
                "edges",
                format!(
                    "edges for {count} columns, but the request plans {}",
                    self.request.edge_columns
                ),
            ));
        }
        self.edges = edges;
        Ok(self)
    }
}

impl Runnable for PreparedFeatures {
    type Output = Solution;

    fn run(&self, rng: &mut SecureRng) -> Result<Solution> {
        match &self.model {
            Model::MutualInformation(f) => self.run_on(f, rng),
            Model::Discernibility(f) => self.run_on(f, rng),
        }
    }
}

impl PreparedFeatures {
    /// The names of the candidate features.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The number of records the model was built on.
    pub fn records(&self) -> usize {
        self.records
    }

    /// What a utility divides values by: H(label) in bits for mutual information, the most
    /// discernible pairs for discernibility. Computed from the data, like the utilities:
    /// for evaluation, not covered by the guarantee, and never part of the usefulness bound
    /// ([`PreparedFeatures::max_value`] is).
    pub fn scale(&self) -> Diagnostic<f64> {
        Diagnostic::new(self.scale)
    }

    /// The largest value the objective can take on any table of this many records and
    /// label levels — public quantities only, so the usefulness bound that uses it costs
    /// no privacy: log₂ min(L, n) bits for mutual information, 2·t(n, L)/n for
    /// discernibility (see [`FeatureObjective::max_value`]).
    pub fn max_value(&self) -> f64 {
        self.max_value
    }

    fn run_on<F: SetFunction>(&self, f: &F, rng: &mut SecureRng) -> Result<Solution> {
        let k = self.request.k;
        match self.request.chosen_algorithm() {
            Algorithm::Subsample => subsample_greedy(f, k, &self.procedure, rng),
            _ => greedy(
                f,
                &Cardinality::new(f.ground_size(), k),
                &self.procedure,
                rng,
            ),
        }
    }
}

impl Reporting for PreparedFeatures {
    type Params = FeaturesParams;

    /// The utility of an objective value (0 when there is nothing to explain).
    fn utility(&self, value: f64) -> f64 {
        if self.scale > 0.0 {
            value / self.scale
        } else {
            0.0
        }
    }

    /// The greedy's a-priori utility for a run, from public quantities only: the
    /// objective's per-round sensitivities, the number of features and ε₀
    /// ([`Usefulness::greedy_rounds`]); the objective is at most
    /// [`PreparedFeatures::max_value`] (n and the number of label levels, not the label's
    /// distribution); for the large margin mechanisms, whether round 1's gap can clear G₁
    /// at all ([`Usefulness::margin_of_gains`]). `None` for report noisy max and the
    /// argmax.
    fn usefulness(&self, solution: &Solution) -> Option<Usefulness> {
        let rounds = 0..solution.planned_rounds;
        let lambdas: Vec<f64> = match &self.model {
            Model::MutualInformation(f) => rounds.map(|r| f.sensitivity(r).get()).collect(),
            Model::Discernibility(f) => rounds.map(|r| f.sensitivity(r).get()).collect(),
        };
        GreedyRun {
            mechanism: self.request.privacy.mechanism,
            algorithm: self.request.chosen_algorithm(),
            matroids: 0,
            lambdas: &lambdas,
            f_max: self.max_value,
            m: self.names.len(),
            counts: false,
            monotone: true,
            non_negative: true,
        }
        .usefulness(solution)
    }

    /// The task's public parameters as a report states them (the label's name and levels
    /// are the front end's to add: the table holds codes only).
    fn params(&self, solution: &Solution) -> FeaturesParams {
        FeaturesParams {
            objective: solution.objective,
            algorithm: solution.algorithm,
            mechanism: self.request.privacy.mechanism.name(),
            label: None,
            label_levels: None,
            label_levels_seen: Diagnostic::new(None),
            utility_scale: Diagnostic::new(self.scale),
            clamped: Diagnostic::new(Vec::new()),
            records: Public::new(self.records),
            features: Public::new(self.names.clone()),
            k: Public::new(self.request.k),
            edges: self.edges.clone().map(Released::new),
        }
    }

    fn unit(&self) -> Unit {
        Unit::Record
    }
    fn names(&self) -> Option<&[String]> {
        Some(&self.names)
    }

    /// The picks' privacy, and the private edges' whenever the request plans them (charged
    /// even if the table was not read with them: never less than what was spent).
    fn privacy(&self, run: &Solution) -> PrivacyReport {
        let report = PrivacyReport::of(run, self.unit());
        match self.request.edge_epsilon() {
            Ok(Some(e)) => report
                .with_edges(e, self.request.edge_columns as u64)
                .unwrap_or_else(|_| PrivacyReport::of(run, self.unit())),
            _ => report,
        }
    }
}

/// The report of one [`Features`] run ([`Report`] with [`FeaturesParams`]): the values are
/// the objective after each pick, the utility I/H(label) or F/F_max. Computed on the private
/// data for evaluation: they are NOT covered by the guarantee, which protects the selection
/// only.
pub type FeaturesReport = Report<FeaturesParams>;

/// The parameters of a [`Features`] run as its [`Report`] states them.
#[derive(Debug, Clone, PartialEq, Serialize, Disclose)]
pub struct FeaturesParams {
    /// The objective.
    pub objective: &'static str,
    /// The algorithm that ran.
    pub algorithm: &'static str,
    /// The selection of every round.
    pub mechanism: &'static str,
    /// The label column's name, when the front end knows it (a header's name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<Public<String>>,
    /// The label's levels, when they are public (a schema's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_levels: Option<Public<Vec<String>>>,
    /// The label's levels as read from the data, when no schema gave them (NOT private).
    #[serde(skip)]
    pub label_levels_seen: Diagnostic<Option<Vec<String>>>,
    /// What utilities divide by: the label's entropy H in bits (mutual information), or the
    /// most pairs F_max the features can tell apart (discernibility), of the data (NOT
    /// private).
    #[serde(skip)]
    pub utility_scale: Diagnostic<f64>,
    /// The values outside a schema's bounds, clamped into its edge bins, counted per column
    /// (NOT private).
    #[serde(skip)]
    pub clamped: Diagnostic<Vec<(String, u64)>>,
    /// The number of records.
    pub records: Public<usize>,
    /// The candidate features, in column order (a header's names); `selected` indexes into
    /// it.
    pub features: Public<Vec<String>>,
    /// The number of features chosen.
    pub k: Public<usize>,
    /// The private bin edges of the schema's numeric columns that had neither `bins` nor
    /// `edges`: the mechanism, each column's budget and its edges.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edges: Option<Released<crate::histogram::EdgeRelease>>,
}

impl super::Params for FeaturesParams {
    fn mechanism(&self) -> &'static str {
        self.mechanism
    }
    /// None: the utility I(X_S; Y)/H(Y) divides by the label's entropy, itself private.
    fn utility_scale(&self) -> Result<super::UtilityScale> {
        Err(Error::param(
            "estimate_utility",
            "the features' utility I(X_S; Y)/H(Y) divides by the label's entropy, which is \
             itself private: it has no public sensitivity to estimate it by",
        ))
    }
}

impl FeatureObjective {
    /// The largest value this objective can take on any table of n = `records` records whose
    /// label has L = `label_levels` levels: a bound from public quantities (n, and the label's levels,
    /// which the request takes as given like every column's categories), never from the data.
    ///
    /// * Mutual information: I(Y; X_S) ≤ H(Y) under the naive Bayes model (conditional entropy
    ///   is non-negative), and the entropy of a distribution on at most min(L, n) labels with
    ///   positive count is at most log₂ min(L, n) bits (attained by balanced labels and a
    ///   feature that copies them). H(Y) of the data would be tighter, but it is a statistic of
    ///   the private labels: printing it in the bound would release it.
    /// * Discernibility: F(S) = 2·|π(S) ∩ π(f)|/n ≤ 2·P/n, with P the unordered pairs with
    ///   different labels. Records with labels in L classes form a complete L-partite graph on
    ///   n vertices, whose edge count is at most the Turán number
    ///   t(n, L) = C(n, 2) − Σ_classes C(size, 2) at balanced class sizes (⌊n/L⌋ or ⌈n/L⌉;
    ///   Turán's theorem), attained by balanced labels and a key feature. So F ≤ 2·t(n, L)/n
    ///   ≤ n(1 − 1/L).
    ///
    /// ```
    /// use disguise::task::FeatureObjective;
    /// assert_eq!(FeatureObjective::MutualInformation.max_value(1000, 4), 2.0);
    /// // 300 records in 3 balanced classes: C(300, 2) − 3·C(100, 2) = 30,000 pairs, F = 200.
    /// assert_eq!(FeatureObjective::Discernibility.max_value(300, 3), 200.0);
    /// ```
    pub fn max_value(self, records: usize, label_levels: u32) -> f64 {
        let n = records as u64;
        let classes = u64::from(label_levels).min(n);
        match self {
            FeatureObjective::MutualInformation => {
                if classes <= 1 {
                    0.0
                } else {
                    (classes as f64).log2()
                }
            }
            FeatureObjective::Discernibility => {
                if classes <= 1 {
                    return 0.0;
                }
                let pairs = |m: u64| u128::from(m) * u128::from(m.saturating_sub(1)) / 2;
                let (size, larger) = (n / classes, n % classes);
                let within = u128::from(larger) * pairs(size + 1)
                    + u128::from(classes - larger) * pairs(size);
                2.0 * (pairs(n) - within) as f64 / n as f64
            }
        }
    }
}

/// Entropy of the label in bits (from its counts).
fn entropy_bits(labels: &Codes, levels: u32) -> f64 {
    let mut counts = vec![0u64; levels as usize];
    for y in labels {
        counts[y as usize] += 1;
    }
    entropy_of_counts(&counts)
}

/// H in bits of the distribution of these class counts.
fn entropy_of_counts(counts: &[u64]) -> f64 {
    let n = counts.iter().sum::<u64>() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> FeatureTable {
        let y: Vec<u32> = (0..300).map(|i| i % 3).collect();
        let half: Vec<u32> = y.iter().map(|&v| u32::from(v == 0)).collect();
        let noise: Vec<u32> = (0..300).map(|i| (i / 3) % 2).collect();
        FeatureTable {
            names: vec!["copy".into(), "half".into(), "noise".into()],
            columns: vec![y.clone().into(), half.into(), noise.into()],
            arities: vec![3, 2, 2],
            labels: y.into(),
            label_levels: 3,
        }
    }

    #[test]
    fn the_informative_features_are_chosen_in_order() {
        let report = Features::new(2)
            .epsilon(50.0)
            .run(table(), &mut SecureRng::insecure_from_seed(2))
            .unwrap();
        assert_eq!(*report.choice.names.unwrap(), ["copy", "half"]);
        // The exact copy explains all of H(label).
        let utility = report.choice.utility.reveal();
        assert!((utility[0] - 1.0).abs() < 1e-9, "{utility:?}");
        let report = Features::new(1)
            .objective(FeatureObjective::Discernibility)
            .epsilon(50.0)
            .run(table(), &mut SecureRng::insecure_from_seed(2))
            .unwrap();
        assert_eq!(*report.choice.names.unwrap(), ["copy"]);
        assert_eq!(*report.choice.final_utility.reveal(), 1.0);
    }

    #[test]
    fn sizes_and_options_are_refused_with_their_names() {
        let err = Features::new(4)
            .epsilon(1.0)
            .run(table(), &mut SecureRng::insecure_from_seed(1))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "invalid k: 4 is larger than the number of features (3: copy, half, noise)"
        );
        let err = Features::new(0)
            .epsilon(1.0)
            .validate()
            .unwrap_err()
            .to_string();
        assert_eq!(err, "invalid k: must be at least 1");
        let mut continuous = Features::new(1).epsilon(1.0);
        continuous.algorithm = Algorithm::ContinuousGreedy;
        assert!(
            continuous
                .validate()
                .unwrap_err()
                .to_string()
                .contains("facility location")
        );
    }

    #[test]
    fn the_usefulness_bound_reads_no_statistic_of_the_labels() {
        // Two tables with the same n, label levels and feature arities: balanced labels, and
        // labels where one class holds 90% of the records. H(label) and the discernible pairs
        // differ; the usefulness bound must not, since it is printed as a function of
        // public quantities.
        let with_labels = |labels: Vec<u32>| FeatureTable {
            names: vec!["copy".into(), "noise".into()],
            columns: vec![
                labels.clone().into(),
                (0..300).map(|i| i % 2).collect::<Vec<u32>>().into(),
            ],
            arities: vec![3, 2],
            labels: labels.into(),
            label_levels: 3,
        };
        let balanced: Vec<u32> = (0..300).map(|i| i % 3).collect();
        let skewed: Vec<u32> = (0..300)
            .map(|i| if i % 10 == 0 { 1 + i % 2 } else { 0 })
            .collect();
        for (objective, max, shown) in [
            // log₂ 3 = 1.58496…, printed rounded up.
            (FeatureObjective::MutualInformation, 3f64.log2(), "1.5850"),
            // C(300, 2) − 3·C(100, 2) = 30,000 pairs: F ≤ 2·30,000/300.
            (FeatureObjective::Discernibility, 200.0, "200"),
        ] {
            let request = Features::new(1).objective(objective).epsilon(1.0);
            // The 3 levels are public (a schema's).
            let prepared = |labels: &Vec<u32>| {
                let p = request.prepare(with_labels(labels.clone())).unwrap();
                p.with_public_label_levels(3)
            };
            let (a, b) = (prepared(&balanced), prepared(&skewed));
            assert_ne!(a.scale(), b.scale(), "{objective}: the data differ");
            assert_eq!(a.max_value(), max, "{objective}");
            assert_eq!(b.max_value(), max, "{objective}");
            let bound = |p: &PreparedFeatures| {
                let s = p.run(&mut SecureRng::insecure_from_seed(1)).unwrap();
                p.usefulness(&s).unwrap()
            };
            let (ua, ub) = (bound(&a), bound(&b));
            assert_eq!(ua, ub, "{objective}");
            assert!(
                ua.bound.ends_with(&format!("f is at most {shown}")),
                "{}",
                ua.bound
            );
        }
    }

    #[test]
    fn the_largest_values_are_attained_and_not_exceeded() {
        // Turán: n = 7 records in L = 3 classes: sizes 3, 2, 2, so C(7, 2) − 3 − 1 − 1 = 16
        // pairs with different labels, F = 32/7; and never more than n(1 − 1/L).
        let d = FeatureObjective::Discernibility;
        assert_eq!(d.max_value(7, 3), 32.0 / 7.0);
        for n in 1..40 {
            for l in 0..6 {
                let bound = if l == 0 {
                    0.0
                } else {
                    n as f64 * (1.0 - 1.0 / f64::from(l))
                };
                assert!(d.max_value(n, l) <= bound + 1e-12, "{n} {l}");
            }
        }
        assert_eq!(d.max_value(5, 1), 0.0);
        let mi = FeatureObjective::MutualInformation;
        assert_eq!(mi.max_value(2, 8), 1.0); // two records carry at most one bit
        assert_eq!(mi.max_value(100, 1), 0.0);
        // A key feature on balanced labels attains both.
        let y: Vec<u32> = (0..7).map(|i| i % 3).collect();
        let table = FeatureTable {
            names: vec!["key".into()],
            columns: vec![y.clone().into()],
            arities: vec![3],
            labels: y.into(),
            label_levels: 3,
        };
        let f = Features::new(1)
            .objective(FeatureObjective::Discernibility)
            .epsilon(1.0);
        let p = f.prepare(table).unwrap().with_public_label_levels(3);
        assert_eq!(*p.scale().reveal(), p.max_value());
    }

    #[test]
    fn without_public_levels_the_bound_allows_a_level_per_record() {
        // Levels read from the data are a statistic of it: the bound then takes L = n, the
        // most a data set of n records can have, the same for every data set.
        let y: Vec<u32> = (0..8).map(|i| i % 2).collect();
        let table = || FeatureTable {
            names: vec!["key".into()],
            columns: vec![y.clone().into()],
            arities: vec![2],
            labels: y.clone().into(),
            label_levels: 2,
        };
        let mi = Features::new(1).epsilon(1.0);
        assert_eq!(mi.prepare(table()).unwrap().max_value(), 3.0); // log₂ 8
        let public = mi.prepare(table()).unwrap().with_public_label_levels(2);
        assert_eq!(public.max_value(), 1.0);
    }

    #[test]
    fn entropy_of_label_counts() {
        let codes = |v: Vec<u32>| Codes::from(v);
        assert_eq!(entropy_bits(&codes(vec![0, 1, 0, 1]), 2), 1.0);
        assert_eq!(entropy_bits(&codes(vec![1, 1, 1]), 2), 0.0);
        assert!((entropy_bits(&codes(vec![0, 1, 2, 3]), 4) - 2.0).abs() < 1e-15);
    }
}
