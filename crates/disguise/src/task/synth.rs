//! [`Synth`]: a private synthetic copy of a whole table (every column of its schema), by MST
//! on the library's engine ([`crate::synth`]).
//!
//! Privacy: replace-one neighbours (n public); ε-DP with Laplace measurements, (ε, δ)-DP
//! with Gaussian ones; the schema's domains must be public. See [`crate::synth::Plan`].

use crate::disclosure::{Diagnostic, Disclose, Public, Released};
use crate::error::{Error, Result};
use crate::histogram::{BinRule, Discretized, Domain, EdgePlan, EdgeRelease, Schema};
use crate::noise::SecureRng;
use crate::privacy::{Delta, Epsilon};
use crate::synth::{
    AimOptions, CodedTable, DEFAULT_ITERATIONS, FitSummary, KeptModel, MeasurementNoise, Method,
    Plan, SynthConfig, Synthesis, Tally, synthesize,
};
use serde::Serialize;
use std::io::Write;

/// A whole-table synthetic-data release: the budget, the noise and how many records.
///
/// ```
/// use disguise::synth::MeasurementNoise;
/// use disguise::task::Synth;
/// let request = Synth::new(1.0);
/// assert_eq!(request.noise(), MeasurementNoise::Laplace);
/// let gaussian = Synth { delta: 1e-9, ..request.clone() };
/// assert_eq!(gaussian.noise(), MeasurementNoise::Gaussian);
/// assert!(Synth { epsilon: 0.0, ..request }.validate().is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Synth {
    /// Total ε.
    pub epsilon: f64,
    /// Total δ (0: pure ε-DP with Laplace noise).
    pub delta: f64,
    /// The measurements' noise; `None`: Gaussian when δ > 0, else Laplace.
    pub noise: Option<MeasurementNoise>,
    /// How many synthetic records to write; `None`: n, the table's (public) size.
    pub rows: Option<u64>,
    /// At most this many mirror-descent iterations of the fit.
    pub iterations: usize,
    /// The share of the budget spent on private bin edges when some numeric column has
    /// neither `bins` nor `edges` ([`crate::histogram::edges`]), in (0, 1).
    pub edge_share: f64,
    /// The synthesizer: MST, or AIM ([`crate::synth::aim`]; its target column is set by
    /// name in [`Synth::target`]).
    pub method: Method,
    /// The target column (AIM's workload holds every 3-way marginal that contains it).
    pub target: Option<String>,
}

/// What a synthetic-data release's guarantee protects against, as its report says it.
pub const SYNTH_NEIGHBOURS: &str =
    "replace-one: two tables of the same size n (public) that differ in one record";

impl Synth {
    /// Pure ε-DP with the defaults: Laplace noise, n records, [`DEFAULT_ITERATIONS`].
    pub fn new(epsilon: f64) -> Self {
        Self {
            epsilon,
            delta: 0.0,
            noise: None,
            rows: None,
            iterations: DEFAULT_ITERATIONS,
            edge_share: crate::histogram::DEFAULT_EDGE_SHARE,
            method: Method::Mst,
            target: None,
        }
    }

    /// The default request of a method by name (`"aim"`, `"mst"`; `None`: the default
    /// method at δ, AIM when δ > 0, else MST — AIM needs Gaussian noise). An unknown name
    /// gives MST (front ends offer only the two).
    pub fn with_method(method: Option<&str>, delta: f64) -> Self {
        let aim = match method {
            Some(m) => m == "aim",
            None => delta > 0.0,
        };
        if aim {
            Self::aim(f64::NAN, delta)
        } else {
            Self {
                delta,
                ..Self::new(f64::NAN)
            }
        }
    }

    /// AIM with its default options, at (ε, δ): Gaussian measurements.
    pub fn aim(epsilon: f64, delta: f64) -> Self {
        Self {
            delta,
            method: Method::Aim(AimOptions::default()),
            ..Self::new(epsilon)
        }
    }

    /// The noise used: the one asked, else Gaussian when δ > 0 (less noise for many
    /// columns), Laplace at δ = 0.
    pub fn noise(&self) -> MeasurementNoise {
        self.noise.unwrap_or(if self.delta > 0.0 {
            MeasurementNoise::Gaussian
        } else {
            MeasurementNoise::Laplace
        })
    }

    /// Validates every option that needs no data.
    ///
    /// # Errors
    /// An invalid ε or δ; Gaussian noise at δ = 0; zero iterations or records.
    pub fn validate(&self) -> Result<()> {
        self.config()?;
        if self.iterations == 0 {
            return Err(Error::param("iterations", "must be at least 1, got 0"));
        }
        if self.rows == Some(0) {
            return Err(Error::param("rows", "must be at least 1, got 0"));
        }
        crate::histogram::edges::check_share(self.edge_share)?;
        if let Method::Aim(o) = &self.method {
            if self.noise() != MeasurementNoise::Gaussian {
                return Err(Error::param(
                    "method",
                    "AIM measures with Gaussian noise and needs δ > 0 (give a delta, or use \
                     the mst method)",
                ));
            }
            if o.round_iterations == 0 || o.rounds == Some(0) || o.max_cells == 0 {
                return Err(Error::param(
                    "method",
                    "AIM needs at least 1 round, 1 iteration per round and 1 cell",
                ));
            }
        }
        if self.noise() == MeasurementNoise::Gaussian && self.delta == 0.0 {
            return Err(Error::param(
                "noise",
                "Gaussian measurements need δ > 0 (give a delta, or use Laplace noise)",
            ));
        }
        Ok(())
    }

    /// The configuration of [`synthesize`]: ε and δ spent at most as typed.
    ///
    /// # Errors
    /// An invalid ε or δ.
    pub fn config(&self) -> Result<SynthConfig> {
        let mut config = SynthConfig::new(
            Epsilon::total(self.epsilon)?,
            Delta::total(self.delta)?,
            self.noise(),
        );
        config.iterations = self.iterations;
        config.edge_share = self.edge_share;
        config.method = self.method;
        Ok(config)
    }

    /// The budget split for a table with `schema`'s columns, before any record is read (the
    /// numeric columns with neither `bins` nor `edges` get private edges).
    ///
    /// # Errors
    /// As [`Synth::validate`] and [`Plan::with_edges`]; a target that is not a column.
    pub fn budget(&self, schema: &Schema) -> Result<Plan> {
        self.validate()?;
        if let Some(t) = &self.target
            && schema.column_index(t).is_err()
        {
            return Err(Error::param(
                "target",
                format!("no column named '{t}' in the schema"),
            ));
        }
        let c = self.config()?;
        Plan::with_edges(
            schema.columns.len(),
            EdgePlan::count(schema),
            self.edge_share,
            c.epsilon,
            c.delta,
            c.noise,
        )
    }

    /// The private edges of `schema`'s numeric columns that have neither `bins` nor `edges`
    /// (read the data with [`EdgePlan::read`] or [`EdgePlan::discretize`]), each at its share
    /// of the budget.
    ///
    /// # Errors
    /// As [`Synth::budget`].
    pub fn edges(&self, schema: &Schema) -> Result<EdgePlan> {
        let plan = self.budget(schema)?;
        match plan.edges {
            Some(budget) => EdgePlan::new(schema, budget),
            None => Ok(EdgePlan::none()),
        }
    }

    /// What the release will spend on a table with `schema`'s columns, planned from the
    /// request alone: what a budget ledger reserves first.
    ///
    /// # Errors
    /// As [`Synth::budget`].
    pub fn plan(&self, schema: &Schema) -> Result<super::PrivacyReport> {
        let plan = self.budget(schema)?;
        let (calls, guarantee, rounds, per_round) = match self.method {
            Method::Mst => (
                plan.calls.clone(),
                plan.guarantee,
                plan.tree_rounds as usize,
                Some(Public::new(plan.tree_epsilon0)),
            ),
            // AIM's rounds are adaptive: at most the whole budget, the edges' share first.
            Method::Aim(_) => {
                let c = self.config()?;
                let (mut calls, rho) =
                    crate::synth::aim::edges_and_rest(&plan, c.epsilon, c.delta)?;
                calls.push((crate::privacy::PrivacyCost::zcdp(rho)?, 1));
                let mut accountant = crate::privacy::compose::Accountant::new();
                for &(call, k) in &calls {
                    accountant.record_many(call, k);
                }
                let guarantee = accountant
                    .compose(c.delta, crate::privacy::compose::ComposeOptions::default())?
                    .best
                    .ok_or_else(|| Error::param("epsilon", "no composition rule applies"))?;
                // At most T rounds of selection and measurement (AIM's plan), after the 1-ways.
                let rounds = match self.method {
                    Method::Aim(o) => o.rounds.unwrap_or(16 * schema.columns.len()),
                    Method::Mst => 0,
                };
                (calls, guarantee, rounds, None)
            }
        };
        Ok(super::PrivacyReport {
            per_round_epsilon: per_round,
            // Stated at the decimals typed, as the release states it.
            ..super::PrivacyReport::stating(
                Some(guarantee.within_typed(self.epsilon, self.delta)),
                rounds,
                calls,
            )
        })
    }

    /// The schema to read the data with: numeric columns without `bins` cut for noisy 2-way
    /// marginals ([`BinRule::Marginals`]) at this request's noise.
    ///
    /// # Errors
    /// As [`Synth::budget`].
    pub fn reading(&self, schema: &Schema) -> Result<Schema> {
        let plan = self.budget(schema)?;
        Ok(Schema {
            bin_rule: BinRule::Marginals,
            marginal_noise_sd: Some(plan.noise_sd().1),
            min_bins: 2,
            ..schema.clone()
        })
    }

    /// The release on `data` (read with [`Synth::reading`]'s schema and [`Synth::edges`]'
    /// private edges, which `edges` are), which is dropped as soon as its marginals are
    /// counted.
    ///
    /// # Errors
    /// As [`Synth::validate`] and [`synthesize`]; domains taken from the data are fine but
    /// the release is then marked not private; `edges` that are not the plan's.
    pub fn run(
        &self,
        data: Discretized,
        edges: Option<EdgeRelease>,
        rng: &mut SecureRng,
    ) -> Result<SynthRelease> {
        self.validate()?;
        let sizes = sizes_of(data.domains())?;
        let codes: Vec<_> = (0..data.width()).map(|c| data.codes(c)).collect();
        // The 2-ways are counted on the compressed domain only, once the noisy 1-ways have
        // decided it; the records are read through `tally` and freed with `data`.
        let tally = CodedTable::new(codes, &sizes, data.rows())?;
        let (names, domains) = (data.names().to_vec(), data.domains().to_vec());
        let private = data.is_private();
        self.on_marginals(tally, names, domains, private, edges, rng)
    }

    /// The release on the table in the data files `paths` (read with a complete `schema`,
    /// [`Synth::reading`]'s), spread over `cluster`: each worker counts the marginals of its
    /// share and only the counts cross the network, summed exactly; process 0 then runs the
    /// one-process release on them (with a seeded generator, the one-process release on the
    /// concatenated files, bit for bit). `None` in the other processes.
    ///
    /// # Errors
    /// As [`Synth::run`]; an incomplete schema; [`Error::Cluster`].
    #[cfg(feature = "cluster")]
    pub fn run_distributed(
        &self,
        cluster: &crate::cluster::Cluster,
        paths: Vec<std::path::PathBuf>,
        schema: &Schema,
        rng: &mut SecureRng,
    ) -> Result<Option<SynthRelease>> {
        self.validate()?;
        schema.validate()?;
        crate::histogram::table::check_complete(schema, crate::histogram::DomainSource::Schema)?;
        // The edges' draws are the one-process release's: a generator forked first.
        let edges = self.edges(schema)?;
        let edges_rng = (!edges.is_empty()).then(|| rng.fork());
        // Worker 0 releases with this generator and hands it back, as one process would
        // leave it; the others never touch the placeholder.
        let generator = std::mem::replace(rng, SecureRng::from_os()?);
        let request = self.clone();
        let out = cluster.synthesize(
            paths,
            schema.clone(),
            edges,
            edges_rng,
            move |tally, input| {
                let mut rng = generator;
                let release = request.on_marginals(
                    tally,
                    input.names,
                    input.domains,
                    true,
                    input.edges,
                    &mut rng,
                )?;
                Ok((release, rng))
            },
        )?;
        Ok(out.map(|(release, generator)| {
            *rng = generator;
            release
        }))
    }

    /// The release from the table's counts ([`Tally`]: a coded table in memory, or the sum
    /// of the workers' marginals).
    ///
    /// # Errors
    /// As [`synthesize`].
    pub fn on_marginals<T: Tally>(
        &self,
        marginals: T,
        names: Vec<String>,
        domains: Vec<Domain>,
        public_domains: bool,
        edges: Option<EdgeRelease>,
        rng: &mut SecureRng,
    ) -> Result<SynthRelease> {
        self.validate()?;
        let edge_columns = edges.as_ref().map_or(0, |e| e.columns.len());
        let mut config = SynthConfig {
            edge_columns,
            ..self.config()?
        };
        if let (Method::Aim(o), Some(t)) = (&mut config.method, &self.target) {
            let t = t.trim();
            o.target = Some(
                names
                    .iter()
                    .position(|n| n.trim().eq_ignore_ascii_case(t))
                    .ok_or_else(|| Error::param("target", format!("no column named '{t}'")))?,
            );
        }
        let mut synthesis = synthesize(marginals, &config, rng)?;
        // Stated at the decimals typed (the ledger adds those exactly), not the double a hair
        // below them that the run spent.
        synthesis.guarantee = synthesis.guarantee.within_typed(self.epsilon, self.delta);
        if let Some(e) = &edges
            && synthesis.edges != Some(e.budget)
        {
            return Err(Error::param(
                "edges",
                "the private edges were not drawn at this release's budget (use Synth::edges)",
            ));
        }
        Ok(SynthRelease {
            edges,
            rows: self.rows.unwrap_or(synthesis.rows),
            names,
            domains,
            public_domains,
            synthesis,
            values: crate::histogram::Values::default(),
        })
    }
}

/// The domain sizes as `usize`.
fn sizes_of(domains: &[Domain]) -> Result<Vec<usize>> {
    domains
        .iter()
        .map(|d| {
            usize::try_from(d.size())
                .map_err(|_| Error::Overflow(format!("a domain of {} codes", d.size())))
        })
        .collect()
}

/// A fitted synthesizer with the table's column names and domains: what `sample` draws from.
#[derive(Debug, Clone)]
pub struct SynthRelease {
    /// The column names, in the schema's order.
    pub names: Vec<String>,
    /// The columns' domains.
    pub domains: Vec<Domain>,
    /// Whether every domain was public (from the schema).
    pub public_domains: bool,
    /// How many records a release writes by default.
    pub rows: u64,
    /// The fitted model and its guarantee.
    pub synthesis: Synthesis,
    /// How numeric values are written (default: drawn uniformly inside their bins).
    pub values: crate::histogram::Values,
    /// The private edges the data was read with, if any column got them.
    pub edges: Option<EdgeRelease>,
}

impl SynthRelease {
    /// Whether the release carries its guarantee: public domains and a secure generator.
    pub fn is_private(&self) -> bool {
        self.public_domains && self.synthesis.secure_rng
    }

    /// Draws `rows` records, in chunks forked in order from `rng` (the same records whatever
    /// the number of threads), and hands each chunk's codes (row-major, one row per record)
    /// to `sink` in order.
    ///
    /// # Errors
    /// What `sink` returns.
    pub fn sample_codes<F>(&self, rows: u64, rng: &mut SecureRng, sink: F) -> Result<()>
    where
        F: FnMut(&[u32]) -> Result<()>,
    {
        let synthesis = &self.synthesis;
        crate::synth::kept::sample_chunks(
            rows,
            rng,
            |take, child, out| synthesis.sample_rows(take, child, out),
            sink,
        )
    }

    /// The model to keep: released quantities and public metadata only
    /// ([`crate::synth::kept`]); drawing from it later is post-processing.
    pub fn kept(&self) -> KeptModel {
        let g = &self.synthesis.guarantee;
        KeptModel {
            format: crate::synth::kept::FORMAT.to_string(),
            version: crate::synth::kept::VERSION,
            names: self.names.clone(),
            domains: self.domains.clone(),
            values: self.values,
            rows: self.rows,
            guarantee: crate::synth::kept::KeptGuarantee {
                epsilon: g.epsilon,
                delta: g.delta,
                rule: g.rule.name().to_string(),
                private: self.is_private(),
            },
            model: self.synthesis.model.clone(),
            compression: self.synthesis.compression.clone(),
        }
    }

    /// Writes `rows` records as CSV with a header (every column, in the schema's order; a
    /// level as the schema spells it, a numeric value as [`SynthRelease::values`] says:
    /// drawn uniformly inside its bin from a generator forked from `rng`, or its bin's
    /// midpoint); returns the number written.
    ///
    /// # Errors
    /// [`Error::Io`] if writing fails.
    pub fn write_csv<W: Write>(&self, writer: W, rows: u64, rng: &mut SecureRng) -> Result<u64> {
        self.write_observed(writer, rows, rng, |_| {})
    }

    /// [`SynthRelease::write_csv`], showing each record's codes to `observe` first.
    fn write_observed<W: Write>(
        &self,
        writer: W,
        rows: u64,
        rng: &mut SecureRng,
        observe: impl FnMut(&[u32]),
    ) -> Result<u64> {
        let synthesis = &self.synthesis;
        crate::synth::kept::write_csv_with(
            writer,
            (&self.names, &self.domains, self.values),
            rows,
            rng,
            |take, child, out| synthesis.sample_rows(take, child, out),
            observe,
        )
    }

    /// As [`SynthRelease::write_csv`], and each measured marginal of two or more columns
    /// beside the same marginal of the records written ([`Comparison`]): released values
    /// only (the noisy counts and the synthetic table), what `synth --report` draws.
    ///
    /// # Errors
    /// As [`SynthRelease::write_csv`].
    pub fn write_csv_compared<W: Write>(
        &self,
        writer: W,
        rows: u64,
        rng: &mut SecureRng,
    ) -> Result<(u64, Vec<Comparison>)> {
        let s = &self.synthesis;
        let sizes = s.compression.sizes();
        let mut compared: Vec<Comparison> = s
            .measured
            .iter()
            .filter(|m| m.columns.len() > 1)
            .map(|m| Comparison {
                columns: m.columns.iter().map(|&c| self.names[c].clone()).collect(),
                measured: m.counts.clone(),
                synthetic: vec![0; m.counts.len()],
                records: s.rows,
                rows,
            })
            .collect();
        let cliques: Vec<&[usize]> = s
            .measured
            .iter()
            .filter(|m| m.columns.len() > 1)
            .map(|m| &m.columns[..])
            .collect();
        let written = self.write_observed(writer, rows, rng, |record| {
            for (c, clique) in compared.iter_mut().zip(&cliques) {
                let cell = clique.iter().fold(0usize, |acc, &i| {
                    acc * sizes[i] + s.compression.code(i, record[i]) as usize
                });
                if let Some(slot) = c.synthetic.get_mut(cell) {
                    *slot += 1;
                }
            }
        })?;
        Ok((written, compared))
    }

    /// The release's report: public and released values only, and no clamped values
    /// counted (a front end that counted them sets [`SynthReport::clamped`]).
    pub fn report(&self) -> SynthReport {
        let s = &self.synthesis;
        let n = s.rows as f64;
        let sd =
            |noise: &crate::synth::CountNoise| crate::numeric::round::sqrt_up(noise.variance());
        // The compressed domain's sizes: post-processing of the noisy 1-ways.
        let sizes = Released::new(s.model.sizes());
        // Which marginals were measured: chosen by the exponential mechanism (released).
        let measured = Released::new(&s.measured);
        // The expected total-variation error that the noise alone puts on a measured marginal
        // before the fit, at most cells·sd/(2n) (E|Z| ≤ sd), averaged over the columns and
        // over the larger measured marginals: the cells are those of the released compression
        // and measurements, so the bound is released (post-processing), not public.
        let tv = |cells: usize, sd: f64| (cells as f64 * sd / (2.0 * n)).min(1.0);
        let mean = |v: Vec<f64>| v.iter().sum::<f64>() / v.len().max(1) as f64;
        let tv_of = |sizes: &[usize], m: &crate::synth::MeasuredMarginal| {
            tv(m.columns.iter().map(|&c| sizes[c]).product(), sd(&m.noise))
        };
        let noise_tv_one_way = sizes.as_map(|sizes| {
            mean(
                measured
                    .iter()
                    .filter(|m| m.columns.len() == 1)
                    .map(|m| tv_of(sizes, m))
                    .collect(),
            )
        });
        let noise_tv_two_way = sizes.as_map(|sizes| {
            mean(
                measured
                    .iter()
                    .filter(|m| m.columns.len() > 1)
                    .map(|m| tv_of(sizes, m))
                    .collect(),
            )
        });
        let names = |columns: &[usize]| columns.iter().map(|&c| self.names[c].clone()).collect();
        let mst = s.mst.as_ref();
        let one_way_sd = s.measured.first().map_or(0.0, |m| sd(&m.noise));
        SynthReport {
            data: None,
            out: None,
            private: Public::new(self.is_private()),
            neighbouring: SYNTH_NEIGHBOURS,
            columns: Public::new(self.names.clone()),
            // From the schema, n and the released private edges (the reading schema's rule
            // uses the plan's noise): released.
            bins: Released::new(
                self.names
                    .iter()
                    .zip(&self.domains)
                    .filter_map(|(name, d)| match d {
                        Domain::Numeric { bins, .. } => Some((name.clone(), bins.count())),
                        Domain::Categorical { .. } => None,
                    })
                    .collect(),
            ),
            // The release's choice and the schema's `integer`: public.
            values: Public::new(crate::histogram::written_values(
                &self.names,
                &self.domains,
                self.values,
            )),
            records: Public::new(s.rows),
            rows: Public::new(self.rows),
            // Which values were merged: a function of the noisy 1-ways.
            merged: Released::new(
                self.names
                    .iter()
                    .zip(s.compression.merged_counts())
                    .filter(|(_, k)| *k > 0)
                    .map(|(name, k)| (name.clone(), k))
                    .collect(),
            ),
            noise: Public::new(s.noise),
            method: Public::new(s.method.name()),
            measured: measured.as_map(|m| {
                m.iter()
                    .map(|m| MeasuredReport {
                        columns: names(&m.columns),
                        noise_sd: sd(&m.noise),
                        selection_epsilon: m.selection_epsilon,
                    })
                    .collect()
            }),
            tree: mst.map(|m| {
                Released::new(
                    m.tree
                        .iter()
                        .map(|&(i, j)| (self.names[i].clone(), self.names[j].clone()))
                        .collect(),
                )
            }),
            // The first 1-way's noise: every 1-way gets the same (public).
            one_way_noise_sd: Public::new(one_way_sd),
            two_way_noise_sd: mst.map(|m| Public::new(m.plan.noise_sd().1)),
            tree_epsilon0: mst.map(|m| Public::new(m.plan.tree_epsilon0)),
            noise_tv_one_way,
            noise_tv_two_way,
            // Fitted to the noisy marginals only: post-processing.
            fit: Released::new(s.fit),
            // Drawn by the private quantiles, charged in the plan.
            edges: self.edges.clone().map(Released::new),
            guarantee: s.guarantee,
            secure_rng: Public::new(s.secure_rng),
            clamped: Diagnostic::new(Vec::new()),
        }
    }
}

/// A measured marginal beside the synthetic table's: both released (the noisy counts, and
/// records drawn from the model fitted to them), on the compressed domain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// The marginal's columns.
    pub columns: Vec<String>,
    /// The noisy counts measured, row-major over the columns (the last fastest).
    pub measured: Vec<f64>,
    /// The synthetic table's counts on the same cells.
    pub synthetic: Vec<u64>,
    /// n, the table's (public) number of records: the measured counts' total.
    pub records: u64,
    /// The synthetic records counted.
    pub rows: u64,
}

/// One measured marginal in a [`SynthReport`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeasuredReport {
    /// Its columns.
    pub columns: Vec<String>,
    /// The noise standard deviation of each count.
    pub noise_sd: f64,
    /// ε of the exponential mechanism that chose it (none: measured without a choice).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selection_epsilon: Option<f64>,
}

/// The report of a [`Synth`] release: public and released values only
/// ([`crate::disclosure`]), and as a diagnostic shown only on request the values clamped
/// into the edge bins.
#[derive(Debug, Clone, Serialize, Disclose)]
pub struct SynthReport {
    /// The data files read (a front end's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Public<Vec<String>>>,
    /// The synthetic data file written (a front end's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub out: Option<Public<String>>,
    /// Whether the release carries its guarantee: public domains and a secure generator.
    pub private: Public<bool>,
    /// What neighbouring datasets differ in.
    pub neighbouring: &'static str,
    /// Every column, in the schema's order.
    pub columns: Public<Vec<String>>,
    /// The bins of each numeric column: the schema's, or those its released private edges
    /// make (their number from the rule's n and noise, less where quantiles coincide).
    pub bins: Released<std::collections::BTreeMap<String, usize>>,
    /// How each numeric column's values are written (uniform within its bin or its
    /// midpoint; integer or not).
    pub values: Public<std::collections::BTreeMap<String, crate::histogram::Written>>,
    /// n, the table's records (public).
    pub records: Public<u64>,
    /// The synthetic records written.
    pub rows: Public<u64>,
    /// For each column whose rare values were merged (MST's domain compression, on the
    /// noisy 1-ways), how many values share its merged value.
    pub merged: Released<std::collections::BTreeMap<String, usize>>,
    /// The measurements' noise.
    pub noise: Public<MeasurementNoise>,
    /// The synthesizer: `mst` or `aim`.
    pub method: Public<&'static str>,
    /// Every measured marginal, in order: its columns, the noise standard deviation of each
    /// count and the ε of the exponential mechanism that chose it (none for the 1-ways).
    pub measured: Released<Vec<MeasuredReport>>,
    /// MST: the measured pairs, in the order the exponential mechanism chose them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree: Option<Released<Vec<(String, String)>>>,
    /// The noise standard deviation of one count of a 1-way marginal.
    pub one_way_noise_sd: Public<f64>,
    /// MST: the noise standard deviation of one count of a 2-way marginal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub two_way_noise_sd: Option<Public<f64>>,
    /// MST: ε₀ of each exponential mechanism of the tree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree_epsilon0: Option<Public<f64>>,
    /// A bound on the expected total-variation error the noise alone puts on a 1-way
    /// marginal's measurement, before the fit (mean over the columns), on the released
    /// compressed domain.
    pub noise_tv_one_way: Released<f64>,
    /// The same for a measured marginal of 2 or more columns (mean over them).
    pub noise_tv_two_way: Released<f64>,
    /// How the fit to the noisy marginals went (its loss is measured against them, never
    /// against the data).
    pub fit: Released<FitSummary>,
    /// The private bin edges of the numeric columns that had neither `bins` nor `edges`:
    /// the mechanism, each column's budget and its released edges.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edges: Option<Released<EdgeRelease>>,
    /// The end-to-end guarantee.
    pub guarantee: crate::privacy::Guarantee,
    /// Whether the generator was the operating system's.
    pub secure_rng: Public<bool>,
    /// Values clamped into the edge bins, per numeric column that had any: exact counts
    /// from the data (NOT private: shown only under `not_private`); empty when none were
    /// clamped or none were counted (a distributed run).
    #[serde(skip)]
    pub clamped: Diagnostic<Vec<(String, u64)>>,
}

impl crate::ledger::Spends for SynthRelease {
    fn spend(&self) -> Result<Option<crate::ledger::Spend>> {
        let s = &self.synthesis;
        let mechanism = match s.method {
            Method::Mst => "synthetic data (MST: 1-ways, private tree, 2-ways)".to_string(),
            Method::Aim(_) => format!(
                "synthetic data (AIM: 1-ways, {} chosen marginals)",
                s.measured.len().saturating_sub(s.model.sizes().len())
            ),
        };
        Ok(Some(crate::ledger::Spend {
            calls: s.calls.clone(),
            mechanism,
            secure: s.secure_rng,
            ..crate::ledger::Spend::new(s.guarantee)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::histogram::{ColumnSpec, DomainSource, Table};
    use crate::synth::Marginals;

    fn table(rows: usize) -> Discretized {
        let schema = Schema::new(vec![
            ColumnSpec::numeric("age", 0.0, 100.0),
            ColumnSpec::categorical("smoker", &["no", "yes"]),
            ColumnSpec::categorical("sick", &["no", "yes"]),
        ])
        .unwrap();
        let data: Vec<Vec<String>> = (0..rows)
            .map(|i| {
                let smoker = if i % 3 == 0 { "yes" } else { "no" };
                vec![(20 + i % 60).to_string(), smoker.into(), smoker.into()]
            })
            .collect();
        let t = Table::from_rows(&schema, &data, DomainSource::Schema, "rows").unwrap();
        Discretized::new(&t).unwrap()
    }

    #[test]
    fn seeded_output_is_the_same_on_one_thread_and_many() {
        let data = table(3000);
        let request = Synth {
            rows: Some(50_000),
            ..Synth::new(2.0)
        };
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let mut rng = SecureRng::insecure_from_seed(5);
                let release = request.run(data.clone(), None, &mut rng).unwrap();
                let mut out = Vec::new();
                release.write_csv(&mut out, release.rows, &mut rng).unwrap();
                out
            })
        };
        let one = run(1);
        assert_eq!(one, run(3));
        assert_eq!(one.iter().filter(|&&b| b == b'\n').count(), 50_001);
    }

    /// A release with a private-edges column (edges and a cell density) and a categorical one.
    fn release_with_edges(seed: u64) -> SynthRelease {
        let mut gain = ColumnSpec::numeric("gain", 0.0, 999.0);
        gain.integer = true;
        let schema = Schema::new(vec![gain, ColumnSpec::categorical("y", &["a", "b"])]).unwrap();
        let data: Vec<Vec<String>> = (0..4000)
            .map(|i| {
                let g = if i % 4 == 0 { 0 } else { 100 + (i * 37) % 300 };
                vec![g.to_string(), ["a", "b"][i % 2].to_string()]
            })
            .collect();
        let request = Synth::new(4.0);
        let reading = request.reading(&schema).unwrap();
        let table = Table::from_rows(&reading, &data, DomainSource::Schema, "rows").unwrap();
        let mut rng = SecureRng::insecure_from_seed(seed);
        let (coded, edges) = request
            .edges(&reading)
            .unwrap()
            .discretize(&table, &mut rng)
            .unwrap();
        request.run(coded, edges, &mut rng).unwrap()
    }

    #[test]
    fn a_kept_model_draws_what_the_release_draws_and_refuses_damage() {
        let release = release_with_edges(7);
        let kept = release.kept();
        assert!(matches!(&kept.domains[0], Domain::Numeric { .. }));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("model.json");
        kept.save(&path, &[]).unwrap();
        let loaded = crate::synth::KeptModel::load(&path).unwrap();
        assert_eq!(loaded, kept);
        // The same generator draws the same table from the release and from the file.
        let draw = |f: &dyn Fn(&mut Vec<u8>, &mut SecureRng)| {
            let mut rng = SecureRng::insecure_from_seed(11);
            let mut out = Vec::new();
            f(&mut out, &mut rng);
            out
        };
        let from_release = draw(&|out, rng| {
            release.write_csv(out, 3000, rng).unwrap();
        });
        let from_file = draw(&|out, rng| {
            loaded.write_csv(out, 3000, rng).unwrap();
        });
        assert_eq!(from_release, from_file);
        // Values are drawn from the density: the point mass at 0 keeps about a quarter.
        let text = String::from_utf8(from_file).unwrap();
        let zeros = text.lines().skip(1).filter(|l| l.starts_with("0,")).count();
        assert!((600..900).contains(&zeros), "{zeros}");
        // Damage is refused with the reason, never a panic.
        let json = std::fs::read_to_string(&path).unwrap();
        // A version-1 file (MST's tree, before junction trees) reads as the same model.
        let mut v1: serde_json::Value = serde_json::from_str(&json).unwrap();
        v1["version"] = 1.into();
        v1["model"] = v1["model"]["tree"].take();
        let old = dir.path().join("v1.json");
        std::fs::write(&old, v1.to_string()).unwrap();
        assert_eq!(crate::synth::KeptModel::load(&old).unwrap(), kept);
        for (from, to, needle) in [
            ("\"version\":2", "\"version\":9", "version 9"),
            (
                "\"format\":\"disguise-synth-model\"",
                "\"format\":\"x\"",
                "not a disguise",
            ),
            ("\"names\":[\"gain\",", "\"names\":[", "columns"),
        ] {
            assert!(json.contains(from), "{from}");
            std::fs::write(&path, json.replacen(from, to, 1)).unwrap();
            let e = crate::synth::KeptModel::load(&path)
                .unwrap_err()
                .to_string();
            assert!(e.contains(needle), "{e}");
        }
        std::fs::write(&path, &json[..json.len() / 2]).unwrap();
        let e = crate::synth::KeptModel::load(&path)
            .unwrap_err()
            .to_string();
        assert!(e.contains("model.json:1:"), "{e}");
    }

    #[test]
    fn columns_of_a_hundred_thousand_levels_cost_what_they_compress_to() {
        // Two identifier-like columns of 10⁵ levels each, most records on three of them: the
        // full 2-way marginal would be 10¹⁰ cells (80 GB, refused); compressed, a few.
        let levels: Vec<String> = (0..100_000).map(|i| format!("v{i}")).collect();
        let refs: Vec<&str> = levels.iter().map(String::as_str).collect();
        let schema = Schema::new(vec![
            ColumnSpec::categorical("a", &refs),
            ColumnSpec::categorical("b", &refs),
            ColumnSpec::categorical("y", &["no", "yes"]),
        ])
        .unwrap();
        let data: Vec<Vec<String>> = (0..6000)
            .map(|i| {
                let common = i % 10 < 9;
                let a = if common { i % 3 } else { 1000 + i * 7 };
                let b = if common { (i + 1) % 3 } else { 2000 + i * 13 };
                vec![
                    format!("v{a}"),
                    format!("v{b}"),
                    ["no", "yes"][i % 2].into(),
                ]
            })
            .collect();
        let t = Table::from_rows(&schema, &data, DomainSource::Schema, "rows").unwrap();
        let coded = Discretized::new(&t).unwrap();
        let codes: Vec<_> = (0..3).map(|c| coded.codes(c)).collect();
        let full = Marginals::count(&codes, &[100_000, 100_000, 2], 6000).unwrap_err();
        assert!(matches!(full, Error::Memory { .. }), "{full:?}");
        let mut rng = SecureRng::insecure_from_seed(3);
        // MST's 3σ rule lets about 0.13 % of the empty levels through on noise alone (about
        // 135 of 10⁵ under Gaussian noise; several hundred under discrete Laplace's heavier
        // tails): a few hundred levels, 10⁴–10⁵ cells instead of 10¹⁰.
        // MST, and AIM with its 3-way (a, b, y) among the candidates.
        for request in [
            Synth {
                delta: 1e-9,
                iterations: 50,
                ..Synth::new(3.0)
            },
            Synth {
                iterations: 50,
                target: Some("y".into()),
                ..Synth::aim(3.0, 1e-9)
            },
        ] {
            let release = request.run(coded.clone(), None, &mut rng).unwrap();
            let sizes = release.synthesis.model.sizes();
            assert!(sizes[0] <= 400 && sizes[1] <= 400, "{sizes:?}");
            assert_eq!(release.report().merged.len(), 2);
            let mut out = Vec::new();
            release.write_csv(&mut out, 100, &mut rng).unwrap();
            assert_eq!(String::from_utf8(out).unwrap().lines().count(), 101);
        }
    }

    #[test]
    fn the_report_shows_clamped_values_only_as_diagnostics() {
        use crate::disclosure::shown;
        let mut rng = SecureRng::insecure_from_seed(2);
        let release = Synth::new(2.0).run(table(600), None, &mut rng).unwrap();
        let report = SynthReport {
            clamped: Diagnostic::new(vec![("age".to_string(), 3)]),
            ..release.report()
        };
        let default = serde_json::to_value(shown(&report, false)).unwrap();
        let text = default.to_string();
        assert!(
            !text.contains("clamped") && !text.contains("not_private"),
            "{text}"
        );
        // Every other field is in the release: public or released.
        for key in [
            "columns",
            "bins",
            "merged",
            "tree",
            "fit",
            "noise_tv_two_way",
        ] {
            assert!(default.get(key).is_some(), "{key}: {text}");
        }
        let asked = serde_json::to_value(shown(&report, true)).unwrap();
        assert_eq!(
            asked["not_private"],
            serde_json::json!({"clamped": [["age", 3]]})
        );
        // The tree's greedy run, whose values are the pairs' exact scores, is a diagnostic.
        let mst = release.synthesis.mst.as_ref().unwrap();
        let run = mst.selection.reveal();
        assert_eq!(run.elements.len(), 2);
        assert!(format!("{:?}", mst.selection).contains("not shown"));
    }

    #[test]
    fn the_release_reports_its_guarantee_and_tree() {
        let data = table(3000);
        let mut rng = SecureRng::insecure_from_seed(9);
        let release = Synth {
            delta: 1e-6,
            ..Synth::new(1.0)
        }
        .run(data, None, &mut rng)
        .unwrap();
        let report = release.report();
        assert_eq!(*report.noise, MeasurementNoise::Gaussian);
        assert!(report.guarantee.epsilon <= 1.0 && report.guarantee.delta <= 1e-6);
        assert_eq!(report.tree.as_ref().map(|t| t.len()), Some(2));
        // Every 1-way and the tree's 2 pairs, listed with their noise (released).
        assert_eq!(report.measured.len(), 3 + 2);
        assert!(!*report.private, "a seeded run is not private");
        assert!(*report.noise_tv_two_way > 0.0 && *report.noise_tv_two_way < 1.0);
        let spend = crate::ledger::Spends::spend(&release).unwrap().unwrap();
        assert_eq!(spend.calls.len(), 3);
        // Gaussian noise without δ is refused before any record is read.
        let err = Synth {
            noise: Some(MeasurementNoise::Gaussian),
            ..Synth::new(1.0)
        }
        .validate()
        .unwrap_err()
        .to_string();
        assert!(err.contains("δ > 0"), "{err}");
    }
}
