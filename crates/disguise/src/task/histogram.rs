//! [`Histogram`]: release a private projected histogram of a table (Vinterbo 2012): k
//! predictors chosen privately by PRIVATEKD, a thresholded Laplace histogram over them and
//! the target, and a synthetic dataset drawn from it for training classifiers.
//!
//! Privacy: neighbouring tables differ in one record (replace-one); the guarantee is composed
//! from the projection's and the histogram's, as
//! [`projected_histogram`](crate::histogram::projected_histogram) documents. The schema
//! (bounds, levels) must be public; choosing k by simulation or on a public dataset costs
//! nothing, data splitting spends the projection budget.

use crate::disclosure::{Diagnostic, Disclose, Public};
use crate::error::{Error, Result};
use crate::histogram::{
    BinRule, DEFAULT_A, DEFAULT_SEED, DEFAULT_SIGMA, Discretized, GammaRule, KChoice,
    ProjectedHistogram, ProjectionConfig, Schema, SyntheticRows, projected_histogram,
};
use crate::noise::SecureRng;
use crate::privacy::Epsilon;
use serde::Serialize;

/// A private projected-histogram release: the budget and how k and γ are chosen.
///
/// ```
/// use disguise::task::Histogram;
///
/// let request = Histogram::new(1.0);
/// assert!(request.validate().is_ok());
/// assert!(Histogram { gamma: Some(1.5), ..request.clone() }.validate().is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    /// The total ε.
    pub epsilon: f64,
    /// A fixed k (1 ≤ k ≤ d − 1), chosen without looking at the data.
    pub k: Option<usize>,
    /// Choose k among these candidates by data splitting (instead of `k`).
    pub k_split: Option<Vec<usize>>,
    /// σ of MDA (when k is simulated, estimated on public data, or split), in [0, 1).
    pub sigma: f64,
    /// γ ∈ (0, 1], the histogram's share of ε; `None` estimates it.
    pub gamma: Option<f64>,
    /// How an estimated γ splits ε ([`GammaRule::Balanced`] by default; the paper's
    /// equation (11) is [`GammaRule::Paper`]).
    pub gamma_rule: GammaRule,
    /// The threshold constant A of τ = A·ln(n)/ε_h.
    pub threshold_constant: f64,
    /// How many synthetic records the release holds (default: n).
    pub rows: SyntheticRows,
    /// How many predictors the bandwidth rule counts for numeric columns without schema
    /// `bins` ([`BinRule::Released`] by default: those the release is expected to keep;
    /// [`BinRule::Paper`]: all of them). Applied by reading the data with
    /// [`Histogram::reading`]'s schema.
    pub bin_rule: BinRule,
    /// The share of ε spent on private bin edges when some numeric column has neither
    /// `bins` nor `edges` ([`crate::histogram::edges`]), in (0, 1).
    pub edge_share: f64,
}

impl Histogram {
    /// The defaults at budget ε: k simulated (σ = 0.1, the paper's), γ estimated and split
    /// by [`GammaRule::Balanced`], A = ½.
    pub fn new(epsilon: f64) -> Self {
        Self {
            epsilon,
            k: None,
            k_split: None,
            sigma: DEFAULT_SIGMA,
            gamma: None,
            gamma_rule: GammaRule::Balanced,
            threshold_constant: DEFAULT_A,
            rows: SyntheticRows::Records,
            bin_rule: BinRule::Released,
            edge_share: crate::histogram::DEFAULT_EDGE_SHARE,
        }
    }

    /// The private edges of the numeric columns of `schema` (the reading schema) that have
    /// neither `bins` nor `edges`: `edge_share`·ε split evenly over them, pure. Read the data
    /// with [`EdgePlan::read`](crate::histogram::EdgePlan::read) or
    /// [`EdgePlan::discretize`](crate::histogram::EdgePlan::discretize) and hand the
    /// release to [`Histogram::run_with_edges`].
    ///
    /// # Errors
    /// As [`Histogram::validate`].
    pub fn edges(&self, schema: &Schema) -> Result<crate::histogram::EdgePlan> {
        self.validate()?;
        // The paper's rule reproduces the paper: equal-width bins, no budget for edges.
        let k = if self.bin_rule == BinRule::Paper {
            0
        } else {
            crate::histogram::EdgePlan::count(schema)
        };
        if k == 0 {
            return Ok(crate::histogram::EdgePlan::none());
        }
        let budget = crate::histogram::EdgeBudget::pure_share(self.epsilon, self.edge_share, k)?;
        crate::histogram::EdgePlan::new(schema, budget)
    }

    /// The schema to read the data of this release with: `schema` with `target` as its
    /// target and this request's [`BinRule`] (and its k, when given), so that numeric columns
    /// without `bins` are cut for the columns the release keeps.
    ///
    /// ```
    /// use disguise::histogram::{BinRule, ColumnSpec, Schema, default_bins};
    /// use disguise::task::Histogram;
    /// let mut columns: Vec<ColumnSpec> =
    ///     (0..14).map(|i| ColumnSpec::numeric(&format!("x{i}"), 0.0, 1.0)).collect();
    /// columns.push(ColumnSpec::categorical("y", &["a", "b"]));
    /// let schema = Schema::new(columns)?;
    /// // 14 predictors for 48,842 records: 2 bins by the paper's rule, 5 for 4 kept.
    /// assert_eq!(default_bins(&schema, 48_842)?, 2);
    /// let request = Histogram { k: Some(4), ..Histogram::new(1.0) };
    /// let reading = request.reading(&schema, "y");
    /// assert_eq!(reading.bin_rule, BinRule::Released);
    /// assert_eq!(default_bins(&reading, 48_842)?, 5);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn reading(&self, schema: &Schema, target: &str) -> Schema {
        Schema {
            target: Some(target.to_string()),
            bin_rule: self.bin_rule,
            kept_predictors: self.k,
            // A release never makes a column constant; the paper's rule stays exact.
            min_bins: if self.bin_rule == BinRule::Paper {
                0
            } else {
                2
            },
            ..schema.clone()
        }
    }

    /// What the release will spend, planned from the request alone before any record is
    /// read: ε, pure (ε_p + ε_h ≤ ε: the projection's calls and the thresholded Laplace
    /// histogram compose by basic composition to at most the ε asked, spent at most as
    /// typed) — what a budget ledger reserves first. A release whose domains come from the
    /// data has no guarantee and is refused under a ledger before this.
    ///
    /// # Errors
    /// As [`Histogram::validate`].
    pub fn plan(&self) -> Result<super::PrivacyReport> {
        self.validate()?;
        let epsilon = crate::numeric::decimal::tidy_up(Epsilon::total(self.epsilon)?.get());
        Ok(super::PrivacyReport::stating(
            Some(crate::privacy::Guarantee {
                epsilon,
                delta: 0.0,
                rule: crate::privacy::compose::Rule::Basic,
            }),
            1,
            Vec::new(),
        ))
    }

    /// Validates every option that needs no data.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `k`, `k_split`, `gamma` or `sigma`, or an invalid ε.
    pub fn validate(&self) -> Result<()> {
        Epsilon::total(self.epsilon)?;
        crate::histogram::edges::check_share(self.edge_share)?;
        if self.k == Some(0) {
            return Err(Error::param("k", "must be at least 1, got 0"));
        }
        match &self.k_split {
            Some(_) if self.k.is_some() => {
                return Err(Error::param(
                    "k_split",
                    "give a fixed k or candidates, not both",
                ));
            }
            Some(c) if c.is_empty() || c.contains(&0) => {
                return Err(Error::param(
                    "k_split",
                    format!("candidates must be at least 1, got {c:?}"),
                ));
            }
            _ => {}
        }
        if let Some(g) = self.gamma
            && !(g > 0.0 && g <= 1.0)
        {
            return Err(Error::param("gamma", format!("must be in (0, 1], got {g}")));
        }
        if !(0.0..1.0).contains(&self.sigma) {
            return Err(Error::param(
                "sigma",
                format!("must be in [0, 1), got {}", self.sigma),
            ));
        }
        Ok(())
    }

    /// The configuration of [`projected_histogram`]; `public` (a public dataset with the
    /// same columns and domains) chooses k by MDA on it when neither `k` nor `k_split` is
    /// given.
    ///
    /// # Errors
    /// As [`Histogram::validate`].
    pub fn config(&self, public: Option<Discretized>) -> Result<ProjectionConfig> {
        self.validate()?;
        let k = match (self.k, &self.k_split, public) {
            (Some(k), _, _) => KChoice::Given(k),
            (None, Some(candidates), _) => KChoice::Split {
                candidates: candidates.clone(),
                sigma: self.sigma,
            },
            (None, None, Some(data)) => KChoice::Public {
                data: Box::new(data),
                sigma: self.sigma,
            },
            (None, None, None) => KChoice::Simulated {
                sigma: self.sigma,
                seed: DEFAULT_SEED,
            },
        };
        let mut config = ProjectionConfig::new(Epsilon::total(self.epsilon)?);
        config.k = k;
        config.gamma = self.gamma;
        config.params.a = self.threshold_constant;
        config.params.rule = self.gamma_rule;
        config.rows = self.rows;
        Ok(config)
    }

    /// The release on `data` with target column `target`.
    ///
    /// # Errors
    /// As [`Histogram::config`] and [`projected_histogram`].
    pub fn run(
        &self,
        data: &Discretized,
        target: usize,
        public: Option<Discretized>,
        rng: &mut SecureRng,
    ) -> Result<ProjectedHistogram> {
        self.run_with_edges(data, target, public, None, rng)
    }

    /// [`Histogram::run`] on data read with [`Histogram::edges`]' private edges, which
    /// `edges` are: their cost is part of the release's guarantee.
    ///
    /// # Errors
    /// As [`Histogram::run`].
    pub fn run_with_edges(
        &self,
        data: &Discretized,
        target: usize,
        public: Option<Discretized>,
        edges: Option<crate::histogram::EdgeRelease>,
        rng: &mut SecureRng,
    ) -> Result<ProjectedHistogram> {
        let config = ProjectionConfig {
            edges,
            ..self.config(public)?
        };
        projected_histogram(data, target, &config, rng)
    }

    /// Refuses what a distributed run (a front end's `--workers` or `--hosts`) cannot do,
    /// before the data is read: domains taken from the data (`bounds_from_data`: every
    /// worker must code its records with the same public domains) and data splitting (a
    /// random split of records spread over the workers).
    ///
    /// ```
    /// use disguise::task::Histogram;
    ///
    /// let request = Histogram { k_split: Some(vec![1, 2]), ..Histogram::new(1.0) };
    /// assert!(request.validate_distributed(false).is_err());
    /// assert!(Histogram::new(1.0).validate_distributed(true).is_err());
    /// assert!(Histogram::new(1.0).validate_distributed(false).is_ok());
    /// ```
    ///
    /// # Errors
    /// [`Error::Cluster`] saying which option a distributed run refuses and what to do.
    pub fn validate_distributed(&self, bounds_from_data: bool) -> Result<()> {
        if bounds_from_data {
            return Err(Error::Cluster(
                "--bounds-from-data cannot be used with --workers or --hosts: every worker must \
                 code its records with the same public domains (complete the schema's bounds \
                 and levels)"
                    .into(),
            ));
        }
        if self.k_split.is_some() {
            return Err(Error::Cluster(
                "--k-split cannot be used with --workers or --hosts: data splitting draws a \
                 random split of the records, which are spread over the workers (give --k, or \
                 let k be chosen on simulated or public data)"
                    .into(),
            ));
        }
        Ok(())
    }

    /// The release on the table in the data files `paths` (read with a complete `schema`:
    /// every domain public), spread over `cluster`: one file is dealt row by row over the
    /// workers; several files go whole to their owners (file j to process j mod P). Only
    /// per-class and per-cell counts cross the network, never records. The result in process
    /// 0 (with a seeded generator, [`Histogram::run`]'s on the concatenated files, bit for
    /// bit), `None` in the others. `public` are the files of a public dataset choosing k
    /// (see [`Histogram::config`]), read by process 0 with the private table's domains once
    /// the number of records is known.
    ///
    /// # Errors
    /// As [`Histogram::run`]; an incomplete schema; `k_split` (data splitting needs every
    /// record in one place); [`Error::Cluster`].
    #[cfg(feature = "cluster")]
    pub fn run_distributed(
        &self,
        cluster: &crate::cluster::Cluster,
        paths: Vec<std::path::PathBuf>,
        schema: &crate::histogram::Schema,
        target: usize,
        public: Vec<std::path::PathBuf>,
        rng: &mut SecureRng,
    ) -> Result<Option<ProjectedHistogram>> {
        self.validate()?;
        if self.k_split.is_some() {
            return Err(Error::param(
                "k_split",
                "data splitting draws a random split of the records, which are spread over \
                 the workers: give k, or let it be chosen on simulated or public data",
            ));
        }
        // Before any connection: a complete schema (public domains) and a target in it.
        schema.validate()?;
        crate::histogram::table::check_complete(schema, crate::histogram::DomainSource::Schema)?;
        let edges = self.edges(schema)?;
        if target >= schema.columns.len() {
            return Err(Error::param(
                "target",
                format!(
                    "column {target} does not exist ({} columns)",
                    schema.columns.len()
                ),
            ));
        }
        cluster.projected_histogram(paths, schema.clone(), target, edges, rng, |domains| {
            let public = if public.is_empty() {
                None
            } else {
                let files: Vec<&std::path::Path> = public.iter().map(|p| p.as_path()).collect();
                Some(Discretized::read_with_domains(
                    &files,
                    schema,
                    domains.to_vec(),
                )?)
            };
            self.config(public)
        })
    }
}

/// What a projected-histogram release's guarantee protects against, as its report says it.
pub const HISTOGRAM_NEIGHBOURS: &str =
    "replace-one: two datasets of the same size n (public) that differ in one record";

/// The report of a [`Histogram`] release: the release (k, γ, the chosen attributes, the
/// budget split, the guarantee, the usefulness), whether it is private, the neighbour
/// relation, and the front end's files — public and released values only
/// ([`crate::disclosure`]) — and, as a diagnostic shown only on request, how many values of
/// each numeric column were clamped into its edge bins.
///
/// ```
/// use disguise::disclosure::{Diagnostic, shown};
/// use disguise::histogram::{ColumnSpec, Discretized, DomainSource, Schema, Table};
/// use disguise::task::{Histogram, HistogramReport};
/// use disguise::SecureRng;
/// let schema = Schema::new(vec![
///     ColumnSpec::numeric("age", 0.0, 100.0),
///     ColumnSpec::categorical("sick", &["no", "yes"]),
/// ])?;
/// let rows: Vec<Vec<String>> = (0..200)
///     .map(|i| vec![(i % 90).to_string(), if i % 3 == 0 { "yes" } else { "no" }.into()])
///     .collect();
/// let data = Discretized::new(&Table::from_rows(&schema, &rows, DomainSource::Schema, "rows")?)?;
/// let release = Histogram::new(1.0).run(&data, 1, None, &mut SecureRng::from_os()?)?;
/// let report = HistogramReport {
///     clamped: Diagnostic::new(vec![("age".to_string(), 2)]),
///     ..HistogramReport::of(&release)
/// };
/// let default = serde_json::to_value(shown(&report, false)).unwrap();
/// assert!(default.get("clamped").is_none() && default.get("not_private").is_none());
/// let asked = serde_json::to_value(shown(&report, true)).unwrap();
/// assert_eq!(asked["not_private"]["clamped"], serde_json::json!([["age", 2]]));
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, Serialize, Disclose)]
pub struct HistogramReport<'a> {
    /// The data files read (a front end's; absent when the data came in memory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Public<Vec<String>>>,
    /// The synthetic data file written (a front end's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub out: Option<Public<String>>,
    /// Whether the release carries its guarantee: public domains and a secure generator.
    pub private: Public<bool>,
    /// The release.
    #[serde(flatten)]
    pub release: &'a ProjectedHistogram,
    /// What neighbouring datasets differ in.
    pub neighbouring: &'static str,
    /// Values clamped into the edge bins, per numeric column that had any: exact counts
    /// from the data, a diagnostic for the data's owner (NOT private: shown only under
    /// `not_private`); empty when none were clamped or none were counted (a distributed
    /// run).
    #[serde(skip)]
    pub clamped: Diagnostic<Vec<(String, u64)>>,
}

impl<'a> HistogramReport<'a> {
    /// The report of `release`, without files and with no clamped values counted.
    pub fn of(release: &'a ProjectedHistogram) -> Self {
        Self {
            data: None,
            out: None,
            private: Public::new(release.guarantee.is_some() && *release.secure_rng),
            release,
            neighbouring: HISTOGRAM_NEIGHBOURS,
            clamped: Diagnostic::new(Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_refused_with_their_names() {
        let ok = Histogram::new(1.0);
        let cases = [
            (
                Histogram {
                    k: Some(0),
                    ..ok.clone()
                },
                "invalid k",
            ),
            (
                Histogram {
                    k: Some(2),
                    k_split: Some(vec![2]),
                    ..ok.clone()
                },
                "not both",
            ),
            (
                Histogram {
                    k_split: Some(vec![]),
                    ..ok.clone()
                },
                "invalid k_split",
            ),
            (
                Histogram {
                    gamma: Some(0.0),
                    ..ok.clone()
                },
                "invalid gamma",
            ),
            (
                Histogram {
                    sigma: 1.0,
                    ..ok.clone()
                },
                "invalid sigma",
            ),
            (
                Histogram {
                    epsilon: -1.0,
                    ..ok.clone()
                },
                "epsilon",
            ),
        ];
        for (request, expected) in cases {
            let err = request.validate().unwrap_err().to_string();
            assert!(err.contains(expected), "{err} (expected {expected})");
        }
        // The k choice follows the options.
        let split = Histogram {
            k_split: Some(vec![2, 3]),
            ..ok.clone()
        };
        assert!(matches!(
            split.config(None).unwrap().k,
            KChoice::Split { .. }
        ));
        assert!(matches!(
            ok.config(None).unwrap().k,
            KChoice::Simulated { .. }
        ));
        let fixed = Histogram { k: Some(3), ..ok };
        assert!(matches!(fixed.config(None).unwrap().k, KChoice::Given(3)));
    }
}
