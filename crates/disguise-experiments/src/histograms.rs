//! `disguise experiment histograms`: Vinterbo (2012) §3, Figures 1 and 2 — classifiers
//! trained on differentially private projected histograms.
//!
//! Datasets (public UCI data, read with the shipped schemas, whose domains are public):
//! Iris (150 records, 4 predictors, 3 classes), Satellite = Statlog Landsat (sat.trn +
//! sat.tst, 6,435 records, 36 predictors, 6 classes) and Adult (adult.data + adult.test,
//! 48,842 records, 14 predictors, 2 classes; missing values "?" kept as a level). The paper's
//! fourth dataset, Infarct, is not public.
//!
//! Protocol: cross-validation stratified on the label (default 10 folds, `--trials`
//! repetitions with fresh folds, default 1); every method and setting of a dataset sees the
//! same folds. In each fold, [`evaluate_fold_with`] trains on the training rows only and
//! scores the held-out rows by AUC (Adult) or the Hand–Till AUC (Iris, Satellite):
//! * OLR/OMLR — (multinomial) logistic regression on the original training rows;
//! * HLR/HMLR — the same model on the synthetic release of a projected histogram of the
//!   training rows (weights = copies), baseline ε = 1, k and γ estimated by the library
//!   (σ = 0.1, A = B = ½, l = 0.05, p = 0.95);
//! * PLR/PMLR — objective perturbation at ε = 1 (PMLR: ε/q per one-vs-rest model), with the
//!   schema's public bounds.
//!
//! All three see the same features (see [`disguise::histogram::FeatureEncoding`]): numeric
//! columns scaled into [0, 1] by their public bounds (bin midpoints for released records),
//! categorical columns as indicators of all levels but the first. The estimated k is
//! [`KChoice::Simulated`]'s value, computed once per dataset and training size (it depends
//! only on the public n, d − 1 and q) and passed as a given k.
//!
//! Figure 2 varies one parameter of H(M)LR at a time (ε; k with γ estimated for it; γ with k
//! estimated) and reports the median CV AUC; the dots mark the baseline/estimated value at
//! the AUC of the ε series' baseline, as in the paper. Figure 1's H(M)LR is that baseline.
//!
//! Outputs (prefix `histograms_`): `folds.csv` (one row per fold × method × parameter
//! setting, with what each release chose), `figure1.csv` (box statistics), `figure2.csv`
//! (medians of the sweeps), `accounting.csv` and the figures `figure1`, `figure2`,
//! `gamma_<dataset>` (AUC over the γ grid with the estimated γ marked) and `accounting`
//! (what the accountant's best rule would give PRIVATEKD's k calls at δ = 10⁻⁶; at the
//! paper's δ = 0 it gives nothing), PNG + SVG. The full run takes about 22 s on 2 cores
//! (127 s and 100 MB resident with `--trials 5`): folds and releases are held as coded
//! rows ([`disguise::learn::CodedMatrix`]), never as dense features.

use crate::plot::{
    Axis, BoxPlot, DrawResult, Figure, LineChart, Marker, PALETTE, Point, Series, Style,
    nice_ticks, padded, tick_label,
};
use crate::{Common, Context, Report, cell};
use anyhow::Context as _;
use disguise::SecureRng;
use disguise::histogram::{
    Classifier, ColumnType, ColumnValues, DEFAULT_SEED, DEFAULT_SIGMA, Discretized, DomainSource,
    FoldOutcome, GammaRule, KChoice, ProjectionConfig, Schema, SyntheticRows, Table, bin_count,
    evaluate_fold_with, simulate_k_with,
};
use disguise::learn::{LogisticConfig, PlrConfig, StratifiedKFold};
use disguise::noise::sample_distinct;
use disguise::numeric::stats::mean;
use disguise::privacy::Epsilon;
use disguise::privacy::budget::{BudgetQuery, plan};
use disguise::privacy::compose::Rule;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::BTreeMap;

/// Arguments of `disguise experiment histograms`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    common: Common,
    /// Folds of the stratified cross-validation (the paper: 10). `--trials N` repeats the
    /// whole cross-validation N times with fresh folds (default 1). Example: `--folds 5`.
    #[arg(long, value_name = "K", default_value_t = 10)]
    folds: usize,
    /// The datasets, comma-separated (default: all three). Example: `--datasets iris,adult`.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "NAMES")]
    datasets: Vec<DatasetKey>,
    /// A quick run for smoke tests: three values per sweep, k ≤ 3, and every dataset
    /// replaced by a uniform random subsample of at most 1,000 records.
    #[arg(long)]
    quick: bool,
    /// The synthetic data HLR/HMLR train on: `noisy-counts` — ⌈h̃ − ½⌉ copies of each
    /// released cell, as in the paper (default); `records` — exactly n rows in proportion
    /// to the noisy counts, what `disguise histogram` writes by default.
    #[arg(long, value_name = "HOW", default_value = "noisy-counts")]
    rows: SyntheticRows,
    /// Beyond the paper: cut every numeric predictor into B equal bins over its public
    /// bounds instead of the paper's ⌈1/bw(n, d − 1) − ½⌉ (which gives one bin, i.e. no
    /// information, for Satellite's 36 predictors). Example: `--bins 4`.
    #[arg(long, value_name = "B", value_parser = clap::value_parser!(u32).range(1..=1_000))]
    bins: Option<u32>,
    /// How an estimated γ splits ε: `paper` (Vinterbo's equation (11); the default here, so
    /// that the experiment reproduces the paper), or beyond the paper `balanced` (the library's
    /// default) or `surplus`. Example: `--gamma-rule balanced`.
    #[arg(long, value_name = "RULE", default_value = "paper", value_parser = parse_gamma_rule)]
    gamma_rule: GammaRule,
}

/// A γ rule by name (`paper`, `surplus`).
fn parse_gamma_rule(text: &str) -> Result<GammaRule, String> {
    <GammaRule as disguise::names::Named>::from_name(text).map_err(|e| e.to_string())
}

/// The paper's baseline ε (also the ε of PLR/PMLR).
const EPSILON: f64 = 1.0;
const EPSILONS: [f64; 6] = [0.1, 0.25, 0.5, 1.0, 2.0, 4.0];
const GAMMAS: [f64; 9] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
const K_MAX: usize = 8;
const QUICK_ROWS: usize = 1000;
const QUICK_EPSILONS: [f64; 3] = [0.25, 1.0, 4.0];
const QUICK_GAMMAS: [f64; 3] = [0.25, 0.5, 0.75];
const QUICK_K_MAX: usize = 3;

/// Optimiser settings of OLR/OMLR and HLR/HMLR: Adult's rare levels make the
/// maximum-likelihood coefficients drift without bound, and L-BFGS would creep after them
/// for its whole default budget of 1000 iterations (8.7 s per fold) with the held-out AUC
/// unchanged in the 5th digit after 200.
const FIT: LogisticConfig = LogisticConfig {
    l2: 1e-6,
    max_iters: 300,
    tol_grad: 1e-6,
};

/// PLR/PMLR at ε = 1 with the default Λ rule; gradient tolerance 1e-8 instead of 1e-10: on
/// Adult the last digits cost 19 s per fit (the line search fights rounding) and change the
/// AUC by less than 1e-6.
fn plr() -> PlrConfig {
    PlrConfig {
        tol_grad: 1e-8,
        ..PlrConfig::new(EPSILON)
    }
}

/// A dataset of the experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
enum DatasetKey {
    /// UCI Iris.
    Iris,
    /// UCI Statlog (Landsat Satellite), the paper's "Satellite".
    #[value(alias = "satellite")]
    Landsat,
    /// UCI Adult.
    Adult,
}

impl DatasetKey {
    const ALL: [DatasetKey; 3] = [DatasetKey::Iris, DatasetKey::Landsat, DatasetKey::Adult];

    fn key(self) -> &'static str {
        match self {
            DatasetKey::Iris => "iris",
            DatasetKey::Landsat => "satellite",
            DatasetKey::Adult => "adult",
        }
    }

    fn title(self) -> &'static str {
        match self {
            DatasetKey::Iris => "Iris",
            DatasetKey::Landsat => "Satellite",
            DatasetKey::Adult => "Adult",
        }
    }

    /// The shipped schema (embedded: the domains are public, the binary needs no file).
    fn schema(self) -> (&'static str, &'static str) {
        match self {
            DatasetKey::Iris => (
                "iris.schema.toml",
                include_str!("../../disguise/schemas/iris.schema.toml"),
            ),
            DatasetKey::Landsat => (
                "landsat.schema.toml",
                include_str!("../../disguise/schemas/landsat.schema.toml"),
            ),
            DatasetKey::Adult => (
                "adult.schema.toml",
                include_str!("../../disguise/schemas/adult.schema.toml"),
            ),
        }
    }

    fn files(self) -> &'static [&'static str] {
        match self {
            DatasetKey::Iris => &["uci_iris/iris.data"],
            DatasetKey::Landsat => &["uci_landsat/sat.trn", "uci_landsat/sat.tst"],
            DatasetKey::Adult => &["uci_adult/adult.data", "uci_adult/adult.test"],
        }
    }

    fn color(self) -> RGBColor {
        match self {
            DatasetKey::Iris => PALETTE[3],
            DatasetKey::Landsat => PALETTE[4],
            DatasetKey::Adult => PALETTE[1],
        }
    }
}

/// A loaded dataset.
struct Dataset {
    key: DatasetKey,
    table: Table,
    target: usize,
    labels: Vec<u32>,
    classes: usize,
    predictors: usize,
    schema: Schema,
}

impl Dataset {
    /// The predictors a projection of `n` training rows can choose from: those whose
    /// discretized domain has two values or more (the bandwidth rule may cut a numeric
    /// predictor into one bin, which carries no information).
    fn informative(&self, n: usize) -> anyhow::Result<usize> {
        Ok(self.informative_sizes(n)?.len())
    }

    /// The domain sizes of those predictors, in table order.
    fn informative_sizes(&self, n: usize) -> anyhow::Result<Vec<u64>> {
        let domains = Discretized::domains_of(&self.schema, n as u64)?;
        Ok(domains
            .iter()
            .enumerate()
            .filter(|&(c, d)| c != self.target && d.size() >= 2)
            .map(|(_, d)| d.size())
            .collect())
    }
}

/// Which parameter an H(M)LR run varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Sweep {
    Epsilon,
    K,
    Gamma,
}

impl Sweep {
    fn key(self) -> &'static str {
        match self {
            Sweep::Epsilon => "epsilon",
            Sweep::K => "k",
            Sweep::Gamma => "gamma",
        }
    }
}

/// What a job trains. `k: None` and `gamma: None` are the library's estimates.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Method {
    Original,
    Private,
    Histogram {
        sweep: Sweep,
        epsilon: f64,
        k: Option<usize>,
        gamma: Option<f64>,
    },
}

impl Method {
    fn name(self, classes: usize) -> &'static str {
        let multi = classes > 2;
        match self {
            Method::Original if multi => "OMLR",
            Method::Original => "OLR",
            Method::Private if multi => "PMLR",
            Method::Private => "PLR",
            Method::Histogram { .. } if multi => "HMLR",
            Method::Histogram { .. } => "HLR",
        }
    }

    /// Whether this run is the baseline: ε = 1 with k and γ estimated (the ε series at 1).
    fn is_baseline(self) -> bool {
        matches!(self, Method::Histogram { sweep: Sweep::Epsilon, epsilon, .. } if epsilon == EPSILON)
    }
}

/// The records of one dataset a cross-validation runs on (all of them, or the `--quick`
/// subsample), with its folds.
struct Population {
    dataset: usize,
    repetition: usize,
    rows: Vec<usize>,
    folds: StratifiedKFold,
}

struct Job {
    population: usize,
    fold: usize,
    method: Method,
}

/// Runs `disguise experiment histograms`.
pub fn run(args: Args) -> anyhow::Result<Report> {
    // No warning for --seed: experiments are not releases (see the module documentation of
    // `experiment`), as in the other experiments.
    let mut ctx = Context::new("histograms", args.common, 1)?;
    if args.folds < 2 {
        anyhow::bail!("--folds must be at least 2");
    }
    let mut keys = if args.datasets.is_empty() {
        DatasetKey::ALL.to_vec()
    } else {
        args.datasets.clone()
    };
    keys.sort();
    keys.dedup();
    let (epsilons, gammas, k_max): (&[f64], &[f64], usize) = if args.quick {
        (&QUICK_EPSILONS, &QUICK_GAMMAS, QUICK_K_MAX)
    } else {
        (&EPSILONS, &GAMMAS, K_MAX)
    };

    let mut datasets = Vec::new();
    for key in keys {
        let (name, text) = key.schema();
        let mut schema = Schema::from_toml_str(text, name)?;
        if let Some(bins) = args.bins {
            let target = schema.target.clone();
            for column in &mut schema.columns {
                if column.kind == ColumnType::Numeric && Some(&column.name) != target.as_ref() {
                    column.bins = Some(bins as usize);
                }
            }
        }
        let paths = key
            .files()
            .iter()
            .map(|f| ctx.data(f))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let refs: Vec<&std::path::Path> = paths.iter().map(|p| p.as_path()).collect();
        let table = Table::read(&refs, &schema, DomainSource::Schema)
            .with_context(|| format!("reading {}", key.title()))?;
        let target_name = schema
            .target
            .as_deref()
            .context("schema without a target")?;
        let target = schema.column_index(target_name)?;
        let ColumnValues::Categorical(labels) = table.column(target) else {
            anyhow::bail!("{}: the target is not categorical", key.title());
        };
        let labels = labels.to_vec();
        let classes = table.levels(target).map_or(0, <[String]>::len);
        let predictors = table.width() - 1;
        datasets.push(Dataset {
            key,
            table,
            target,
            labels,
            classes,
            predictors,
            schema,
        });
    }

    // Populations (dataset × repetition) with their folds.
    let specs: Vec<(usize, usize)> = (0..datasets.len())
        .flat_map(|d| (0..ctx.trials).map(move |r| (d, r)))
        .collect();
    let (quick, folds, rows, bins_given) = (args.quick, args.folds, args.rows, args.bins);
    let gamma_rule = args.gamma_rule;
    let populations = ctx.run_jobs("folds", &specs, |&(di, repetition), rng| {
        let d = &datasets[di];
        let n = d.table.rows();
        let rows: Vec<usize> = if quick && n > QUICK_ROWS {
            sample_distinct(rng, n as u64, QUICK_ROWS)?
                .into_iter()
                .map(|r| r as usize)
                .collect()
        } else {
            (0..n).collect()
        };
        let labels: Vec<u32> = rows.iter().map(|&r| d.labels[r]).collect();
        let folds = StratifiedKFold::new(&labels, folds, rng)?;
        Ok(Population {
            dataset: di,
            repetition,
            rows,
            folds,
        })
    })?;
    ctx.note(&format!(
        "histograms: {} with {}-fold stratified CV × {} repetition(s)",
        datasets
            .iter()
            .enumerate()
            .map(|(di, d)| format!("{} ({} records)", d.key.title(), records(&populations, di)))
            .collect::<Vec<_>>()
            .join(", "),
        args.folds,
        ctx.trials,
    ));
    // "10-fold CV", or "5 × 10-fold CV" with repetitions.
    let cv = if ctx.trials > 1 {
        format!("{} × {}-fold CV", ctx.trials, args.folds)
    } else {
        format!("{}-fold CV", args.folds)
    };

    // k = |MDA(f, D′, 0.1)| on the simulated data depends only on public (n, d − 1, q):
    // compute it once per dataset and training size instead of once per fold and setting.
    let mut sizes: Vec<(usize, usize)> = populations
        .iter()
        .flat_map(|p| {
            (0..p.folds.k()).map(move |f| (p.dataset, p.rows.len() - p.folds.test_indices(f).len()))
        })
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    // With no informative predictor (every numeric one in a single bin) there is nothing
    // to project on: k = 0, the release is the target's histogram alone.
    let simulated = ctx.run_jobs("estimating k", &sizes, |&(di, n), _rng| {
        let d = &datasets[di];
        let informative = d.informative(n)?;
        if informative == 0 {
            return Ok(0);
        }
        // The simulated predictors get the data's bins: --bins, else the paper's rule.
        let bins = match bins_given {
            Some(b) => b as usize,
            None => bin_count(n as u64, d.predictors)?,
        };
        Ok(simulate_k_with(
            n as u64,
            d.predictors,
            d.classes,
            bins,
            DEFAULT_SIGMA,
            DEFAULT_SEED,
        )?
        .min(informative))
    })?;
    let estimated_k: BTreeMap<(usize, usize), usize> = sizes.into_iter().zip(simulated).collect();

    // Every job: (population, fold, method). The ε series at ε = 1 is also Figure 1's
    // H(M)LR, as the paper's dots take the baseline AUC from it.
    let mut jobs = Vec::new();
    for (pi, p) in populations.iter().enumerate() {
        let d = &datasets[p.dataset];
        let mut methods = vec![Method::Original, Method::Private];
        for &epsilon in epsilons {
            methods.push(Method::Histogram {
                sweep: Sweep::Epsilon,
                epsilon,
                k: None,
                gamma: None,
            });
        }
        // The k sweep over the predictors a projection can choose (none on Satellite, whose
        // 36 predictors the bandwidth rule cuts into one bin each).
        let n_train = p.rows.len() - p.folds.test_indices(0).len();
        for k in 1..=k_max.min(d.informative(n_train)?) {
            methods.push(Method::Histogram {
                sweep: Sweep::K,
                epsilon: EPSILON,
                k: Some(k),
                gamma: None,
            });
        }
        for &gamma in gammas {
            methods.push(Method::Histogram {
                sweep: Sweep::Gamma,
                epsilon: EPSILON,
                k: None,
                gamma: Some(gamma),
            });
        }
        for fold in 0..p.folds.k() {
            for &method in &methods {
                jobs.push(Job {
                    population: pi,
                    fold,
                    method,
                });
            }
        }
    }
    let outcomes = ctx.run_jobs("histograms folds", &jobs, |job, rng| {
        run_job(
            &datasets,
            &populations,
            &estimated_k,
            rows,
            (bins_given, gamma_rule),
            job,
            rng,
        )
    })?;

    // The tidy table of every fold.
    let mut rows = Vec::new();
    for (job, o) in jobs.iter().zip(&outcomes) {
        let p = &populations[job.population];
        let d = &datasets[p.dataset];
        let (sweep, epsilon, k_req, gamma_req) = match job.method {
            Method::Original => ("none", None, None, None),
            Method::Private => ("none", Some(EPSILON), None, None),
            Method::Histogram {
                sweep,
                epsilon,
                k,
                gamma,
            } => (sweep.key(), Some(epsilon), k, gamma),
        };
        let r = o.release.as_ref();
        rows.push(vec![
            d.key.key().to_string(),
            p.repetition.to_string(),
            (job.fold + 1).to_string(),
            p.rows.len().to_string(),
            job.method.name(d.classes).to_string(),
            sweep.to_string(),
            epsilon.map_or(String::new(), cell),
            match (job.method, k_req) {
                (Method::Histogram { .. }, None) => "estimated".to_string(),
                (_, k) => k.map_or(String::new(), |k| k.to_string()),
            },
            match (job.method, gamma_req) {
                (Method::Histogram { .. }, None) => "estimated".to_string(),
                (_, g) => g.map_or(String::new(), cell),
            },
            cell(o.auc),
            if d.classes == 2 { "AUC" } else { "Hand-Till" }.to_string(),
            r.map_or(String::new(), |r| r.k.to_string()),
            r.map_or(String::new(), |r| cell(r.gamma)),
            r.map_or(String::new(), |r| cell(r.epsilon_p)),
            r.map_or(String::new(), |r| cell(r.epsilon_h)),
            r.and_then(|r| r.proven_epsilon).map_or(String::new(), cell),
            r.map_or(String::new(), |r| r.support_size.to_string()),
            r.map_or(String::new(), |r| r.synthetic_rows.to_string()),
            r.map_or(String::new(), |r| r.attributes.join(";")),
            o.train_rows.to_string(),
            o.test_rows.to_string(),
            o.converged.to_string(),
            o.note.clone().unwrap_or_default(),
        ]);
    }
    ctx.csv(
        "folds",
        &[
            "dataset",
            "repetition",
            "fold",
            "records",
            "method",
            "sweep",
            "epsilon",
            "k_requested",
            "gamma_requested",
            "auc",
            "metric",
            "k",
            "gamma",
            "epsilon_p",
            "epsilon_h",
            "proven_epsilon",
            "support_size",
            "synthetic_rows",
            "attributes",
            "train_rows",
            "test_rows",
            "converged",
            "note",
        ],
        &rows,
    )?;

    // Figure 1: the AUCs of the three methods at the baseline.
    let of = |di: usize, pred: &dyn Fn(Method) -> bool| -> Vec<&FoldOutcome> {
        jobs.iter()
            .zip(&outcomes)
            .filter(|(j, _)| populations[j.population].dataset == di && pred(j.method))
            .map(|(_, o)| o)
            .collect()
    };
    let mut fig1_rows = Vec::new();
    let mut panels = Vec::new();
    let mut table = vec![format!(
        "median CV AUC (Hand–Till for the multi-class sets), ε = {EPSILON}, k and γ estimated:"
    )];
    let mut baselines: Vec<Baseline> = Vec::new();
    for (di, d) in datasets.iter().enumerate() {
        let groups: [(Method, Vec<&FoldOutcome>); 3] = [
            (Method::Original, of(di, &|m| m == Method::Original)),
            (
                Method::Histogram {
                    sweep: Sweep::Epsilon,
                    epsilon: EPSILON,
                    k: None,
                    gamma: None,
                },
                of(di, &|m| m.is_baseline()),
            ),
            (Method::Private, of(di, &|m| m == Method::Private)),
        ];
        let metric = if d.classes == 2 {
            "AUC"
        } else {
            "Hand–Till AUC"
        };
        let mut bp = BoxPlot::new(
            format!(
                "{} ({} records, {} classes)",
                d.key.title(),
                records(&populations, di),
                d.classes
            ),
            format!("{cv} {metric}"),
        );
        bp.size = (520, 560);
        let mut medians = Vec::new();
        for (i, (method, outs)) in groups.iter().enumerate() {
            let name = method.name(d.classes);
            let aucs: Vec<f64> = outs.iter().map(|o| o.auc).collect();
            let s = Stats::of(&aucs);
            fig1_rows.push(vec![
                d.key.key().to_string(),
                name.to_string(),
                metric.to_string(),
                s.n.to_string(),
                cell(s.min),
                cell(s.q1),
                cell(s.median),
                cell(s.q3),
                cell(s.max),
                cell(s.mean),
            ]);
            medians.push(format!("{name} {:.3}", s.median));
            bp = bp.group(name, PALETTE[i], aucs);
        }
        let hist = &groups[1].1;
        let k = mode(hist.iter().filter_map(|o| o.release.as_ref().map(|r| r.k)));
        let gamma = mean(
            hist.iter()
                .filter_map(|o| o.release.as_ref().map(|r| r.gamma)),
        );
        table.push(format!(
            "  {:<10} {}   (estimated k = {}, mean estimated γ = {:.3})",
            d.key.title(),
            medians.join("  "),
            k.map_or("?".into(), |k| k.to_string()),
            gamma
        ));
        baselines.push(Baseline { k, gamma });
        panels.push(bp);
    }
    ctx.csv(
        "figure1",
        &[
            "dataset", "method", "metric", "n", "min", "q1", "median", "q3", "max", "mean",
        ],
        &fig1_rows,
    )?;
    ctx.figure(
        "figure1",
        &Panels {
            title: format!(
                "Vinterbo (2012) Figure 1: {cv} AUC at ε = {EPSILON} \
                 (O: original data, H: projected histogram, P: private ERM)"
            ),
            panels,
        },
    )?;

    // Figure 2: the medians of the sweeps.
    let mut fig2_rows = Vec::new();
    let mut series: BTreeMap<(Sweep, usize), Vec<(f64, Stats)>> = BTreeMap::new();
    for (di, d) in datasets.iter().enumerate() {
        let mut by_x: BTreeMap<(Sweep, u64), Vec<&FoldOutcome>> = BTreeMap::new();
        for (j, o) in jobs.iter().zip(&outcomes) {
            if populations[j.population].dataset != di {
                continue;
            }
            if let Method::Histogram {
                sweep,
                epsilon,
                k,
                gamma,
            } = j.method
            {
                let x = match sweep {
                    Sweep::Epsilon => epsilon,
                    Sweep::K => k.unwrap_or(0) as f64,
                    Sweep::Gamma => gamma.unwrap_or(f64::NAN),
                };
                by_x.entry((sweep, x.to_bits())).or_default().push(o);
            }
        }
        for ((sweep, xbits), outs) in by_x {
            let x = f64::from_bits(xbits);
            let aucs: Vec<f64> = outs.iter().map(|o| o.auc).collect();
            let s = Stats::of(&aucs);
            let used_gamma = mean(
                outs.iter()
                    .filter_map(|o| o.release.as_ref().map(|r| r.gamma)),
            );
            let used_k = mean(
                outs.iter()
                    .filter_map(|o| o.release.as_ref().map(|r| r.k as f64)),
            );
            let baseline = match sweep {
                Sweep::Epsilon => x == EPSILON,
                Sweep::K => baselines[di].k == Some(x as usize),
                Sweep::Gamma => false,
            };
            fig2_rows.push(vec![
                d.key.key().to_string(),
                records(&populations, di).to_string(),
                sweep.key().to_string(),
                cell(x),
                cell(s.median),
                cell(s.q1),
                cell(s.q3),
                s.n.to_string(),
                cell(used_k),
                cell(used_gamma),
                baseline.to_string(),
            ]);
            series.entry((sweep, di)).or_default().push((x, s));
        }
    }
    ctx.csv(
        "figure2",
        &[
            "dataset",
            "records",
            "sweep",
            "value",
            "median_auc",
            "q1",
            "q3",
            "n",
            "mean_k",
            "mean_gamma",
            "is_baseline",
        ],
        &fig2_rows,
    )?;
    let mut sweep_panels = Vec::new();
    for (sweep, title, x_label, log_x, ticks) in [
        (
            Sweep::Epsilon,
            "varying ε (k, γ estimated)",
            "ε (log scale)",
            true,
            epsilons.to_vec(),
        ),
        (
            Sweep::K,
            "varying k (ε = 1, γ estimated)",
            "k (projected predictors)",
            false,
            (1..=k_max).map(|k| k as f64).collect(),
        ),
        (
            Sweep::Gamma,
            "varying γ (ε = 1, k estimated)",
            "γ (histogram's share of ε)",
            false,
            gammas.to_vec(),
        ),
    ] {
        let mut panel = SweepPanel {
            title: title.to_string(),
            x_label: x_label.to_string(),
            log_x,
            ticks,
            lines: Vec::new(),
            dots: Vec::new(),
        };
        for (di, d) in datasets.iter().enumerate() {
            let Some(points) = series.get(&(sweep, di)) else {
                continue;
            };
            panel.lines.push((
                d.key.color(),
                points
                    .iter()
                    .map(|(x, s)| (*x, s.median, s.q1, s.q3))
                    .collect(),
            ));
            // The dot: the baseline/estimated value at the ε series' baseline AUC.
            let base = series
                .get(&(Sweep::Epsilon, di))
                .and_then(|pts| pts.iter().find(|(x, _)| *x == EPSILON))
                .map(|(_, s)| s.median);
            let x = match sweep {
                Sweep::Epsilon => Some(EPSILON),
                Sweep::K => baselines[di].k.map(|k| k as f64),
                Sweep::Gamma => Some(baselines[di].gamma).filter(|g| g.is_finite()),
            };
            if let (Some(x), Some(y)) = (x, base) {
                panel.dots.push((d.key.color(), x, y));
            }
        }
        sweep_panels.push(panel);
    }
    ctx.figure(
        "figure2",
        &SweepChart {
            title: format!(
                "Vinterbo (2012) Figure 2: median {cv} AUC of H(M)LR (band: quartiles) as ε, k and γ vary"
            ),
            panels: sweep_panels,
            legend: datasets
                .iter()
                .map(|d| (d.key.title().to_string(), d.key.color()))
                .collect(),
        },
    )?;

    // One γ figure per data set: the AUC over the γ grid, the paper's estimate and the
    // surplus and balanced rules' γ (beyond the paper) as vertical lines, so the reader sees how close
    // each lands to the best γ.
    for (di, d) in datasets.iter().enumerate() {
        let Some(points) = series.get(&(Sweep::Gamma, di)) else {
            continue;
        };
        let (Some(k), true) = (baselines[di].k, baselines[di].gamma.is_finite()) else {
            continue;
        };
        if k == 0 {
            continue; // no projection: γ is 1 and there is nothing to split
        }
        let n_train = populations
            .iter()
            .find(|p| p.dataset == di)
            .map(|p| p.rows.len() - p.folds.test_indices(0).len())
            .unwrap_or(0);
        let params = disguise::histogram::GammaParams {
            bins: bins_given.map(|b| b as usize),
            ..Default::default()
        };
        let sizes = d.informative_sizes(n_train)?;
        let estimate = disguise::histogram::estimate_gamma(
            n_train as u64,
            sizes.len(),
            d.classes,
            k,
            &params,
        )?
        .with_domains(n_train as u64, d.classes, k, &sizes, &params)?;
        let surplus = GammaRule::Surplus.gamma(EPSILON, &estimate);
        let balanced = GammaRule::Balanced.gamma(EPSILON, &estimate);
        // Mean ± 95 % CI over the folds at each γ of the grid.
        let means: Vec<Point> = points
            .iter()
            .map(|(g, _)| {
                let aucs: Vec<f64> = jobs
                    .iter()
                    .zip(&outcomes)
                    .filter(|(j, _)| {
                        populations[j.population].dataset == di
                            && matches!(j.method, Method::Histogram {
                                sweep: Sweep::Gamma,
                                gamma: Some(x),
                                ..
                            } if x == *g)
                    })
                    .map(|(_, o)| o.auc)
                    .collect();
                crate::Summary::of(&aucs).point(*g)
            })
            .collect();
        let lo = means
            .iter()
            .map(|p| p.y - p.err)
            .fold(f64::INFINITY, f64::min);
        let hi = means
            .iter()
            .map(|p| p.y + p.err)
            .fold(f64::NEG_INFINITY, f64::max);
        let vertical = |x: f64| vec![Point::new(x, lo, 0.0), Point::new(x, hi, 0.0)];
        let mut ticks: Vec<f64> = gammas.to_vec();
        ticks.push(1.0);
        let chart = LineChart::new(
            format!("{}: {cv} AUC vs γ at ε = {EPSILON}, k = {k}", d.key.title()),
            "γ (histogram's share of ε)",
            "AUC, mean ± 95% CI over the folds",
        )
        .x_ticks(ticks)
        .series(
            Series::new(
                "H(M)LR, mean over the folds",
                Style::of(0).color(d.key.color()).marker(Marker::Circle),
            )
            .points(means),
        )
        .series(
            Series::new(
                format!("paper's estimate γ = {}", tick_label(baselines[di].gamma)),
                Style::of(0).dashed().marker(Marker::None),
            )
            .points(vertical(baselines[di].gamma)),
        )
        .series(
            Series::new(
                format!(
                    "surplus rule γ = {} (beyond the paper)",
                    tick_label(surplus)
                ),
                Style::of(0)
                    .color(crate::plot::GREY)
                    .dashed()
                    .marker(Marker::None),
            )
            .points(vertical(surplus)),
        )
        .series(
            Series::new(
                format!(
                    "balanced rule γ = {} (beyond the paper; the default)",
                    tick_label(balanced)
                ),
                Style::of(0).color(d.key.color()).marker(Marker::None),
            )
            .points(vertical(balanced)),
        );
        ctx.figure(&format!("gamma_{}", d.key.key()), &chart)?;
    }

    // What the accountant could add: the ε_p of every release of the ε sweep, per data set.
    let mut releases = Vec::new();
    for (di, d) in datasets.iter().enumerate() {
        let Some(k) = baselines[di].k.filter(|&k| k > 0) else {
            continue;
        };
        let mut points = Vec::new();
        for &epsilon in epsilons {
            let used = mean(
                jobs.iter()
                    .zip(&outcomes)
                    .filter(|(j, _)| {
                        populations[j.population].dataset == di
                            && matches!(j.method, Method::Histogram {
                                sweep: Sweep::Epsilon,
                                epsilon: e,
                                ..
                            } if e == epsilon)
                    })
                    .filter_map(|(_, o)| o.release.as_ref().map(|r| r.epsilon_p)),
            );
            if used.is_finite() && used > 0.0 {
                points.push((epsilon, used));
            }
        }
        releases.push(Releases {
            title: d.key.title(),
            key: d.key.key(),
            color: d.key.color(),
            k,
            points,
        });
    }
    if !releases.is_empty() {
        accounting_figure(&mut ctx, &releases)?;
    }
    Ok(ctx.finish(table))
}

/// The δ at which the accounting figure asks what the best rule would add.
const ACCOUNTING_DELTA: f64 = 1e-6;

/// The releases of one data set's ε sweep: its estimated k and the mean ε_p at each ε.
struct Releases {
    title: &'static str,
    key: &'static str,
    color: RGBColor,
    k: usize,
    points: Vec<(f64, f64)>,
}

/// The per-call ε₀ the accountant's best rule would give PRIVATEKD's k exponential-mechanism
/// calls at (ε_p, δ), relative to basic composition's ε_p/k, and that best rule.
fn best_over_basic(epsilon_p: f64, k: usize, delta: f64) -> anyhow::Result<(f64, Rule)> {
    let plan = plan(&BudgetQuery::new(epsilon_p, delta, k as u64)?)?;
    let basic = plan
        .rules
        .iter()
        .find(|r| r.rule == Rule::Basic)
        .and_then(|r| r.per_round_epsilon)
        .context("basic composition cannot split this budget")?;
    let best = plan.best.context("no rule splits this budget")?;
    Ok((best.per_round_epsilon / basic, best.rule))
}

/// `histograms_accounting`: the release is pure ε-DP (δ = 0), where nothing beats basic
/// composition; this figure shows what the accountant's best rule would give PRIVATEKD's k
/// calls if the user accepted δ = 10⁻⁶, at the ε_p the experiment's releases used, and at
/// larger k for reference.
fn accounting_figure(ctx: &mut Context, releases: &[Releases]) -> anyhow::Result<()> {
    let grid: Vec<f64> = (0..=30)
        .map(|i| 10f64.powf(-2.0 + f64::from(i) / 10.0))
        .collect();
    let mut ks: Vec<usize> = releases.iter().map(|r| r.k).collect();
    ks.extend([8, 16]);
    ks.sort_unstable();
    ks.dedup();
    let mut rows = Vec::new();
    let mut chart = LineChart::new(
        "PRIVATEKD's k calls at δ = 10⁻⁶: best rule against basic composition",
        "ε_p (the projection's share of ε, log scale)",
        "per-call ε₀, best rule / basic composition",
    )
    .log_x()
    .x_ticks(vec![0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0]);
    for (i, &k) in ks.iter().enumerate() {
        let owners: Vec<&str> = releases
            .iter()
            .filter(|r| r.k == k)
            .map(|r| r.title)
            .collect();
        let name = if owners.is_empty() {
            format!("k = {k} (for reference)")
        } else {
            format!("k = {k} (estimated for {})", owners.join(", "))
        };
        let mut points = Vec::new();
        for &epsilon_p in &grid {
            let (ratio, rule) = best_over_basic(epsilon_p, k, ACCOUNTING_DELTA)?;
            points.push(Point::new(epsilon_p, ratio, 0.0));
            rows.push(vec![
                "grid".to_string(),
                String::new(),
                k.to_string(),
                String::new(),
                cell(epsilon_p),
                cell(ACCOUNTING_DELTA),
                rule.name().to_string(),
                cell(ratio),
            ]);
        }
        // A data set's k in its colour (its releases lie on it); the references grey,
        // dashed, told apart by their markers.
        let style = match releases.iter().find(|r| r.k == k) {
            Some(r) => Style::of(0).color(r.color).marker(Marker::None),
            None => Style::of(0)
                .color(crate::plot::GREY)
                .dashed()
                .marker(if i % 2 == 0 {
                    Marker::Cross
                } else {
                    Marker::Triangle
                }),
        };
        chart = chart.series(Series::new(name, style).points(points));
    }
    for r in releases {
        let mut points = Vec::new();
        for &(epsilon, epsilon_p) in &r.points {
            let (ratio, rule) = best_over_basic(epsilon_p, r.k, ACCOUNTING_DELTA)?;
            points.push(Point::new(epsilon_p, ratio, 0.0));
            rows.push(vec![
                "release".to_string(),
                r.key.to_string(),
                r.k.to_string(),
                cell(epsilon),
                cell(epsilon_p),
                cell(ACCOUNTING_DELTA),
                rule.name().to_string(),
                cell(ratio),
            ]);
        }
        points.sort_by(|a, b| a.x.total_cmp(&b.x));
        chart = chart.series(
            Series::new(
                format!("{}: the releases of the ε sweep", r.title),
                Style::of(0).color(r.color).marker(Marker::Circle),
            )
            .points(points),
        );
    }
    ctx.csv(
        "accounting",
        &[
            "what",
            "dataset",
            "k",
            "epsilon",
            "epsilon_p",
            "delta",
            "best_rule",
            "best_over_basic",
        ],
        &rows,
    )?;
    ctx.figure("accounting", &chart)
}

/// The number of records dataset `di` is evaluated on.
fn records(populations: &[Population], di: usize) -> usize {
    populations
        .iter()
        .find(|p| p.dataset == di)
        .map_or(0, |p| p.rows.len())
}

/// The estimated k (most frequent over the folds) and the mean estimated γ of the baseline.
struct Baseline {
    k: Option<usize>,
    gamma: f64,
}

fn run_job(
    datasets: &[Dataset],
    populations: &[Population],
    estimated_k: &BTreeMap<(usize, usize), usize>,
    rows: SyntheticRows,
    (bins, gamma_rule): (Option<u32>, GammaRule),
    job: &Job,
    rng: &mut SecureRng,
) -> anyhow::Result<FoldOutcome> {
    let p = &populations[job.population];
    let d = &datasets[p.dataset];
    let to_rows = |idx: Vec<usize>| -> Vec<usize> { idx.into_iter().map(|i| p.rows[i]).collect() };
    let train = to_rows(p.folds.train_indices(job.fold));
    let test = to_rows(p.folds.test_indices(job.fold));
    let classifier = match job.method {
        Method::Original => Classifier::Original,
        Method::Private => Classifier::Private(plr()),
        Method::Histogram {
            epsilon, k, gamma, ..
        } => {
            let mut config = ProjectionConfig::new(Epsilon::new(epsilon)?);
            // KChoice::Simulated's value, computed once (see `estimated_k`).
            let k = match k {
                Some(k) => k,
                None => *estimated_k
                    .get(&(p.dataset, train.len()))
                    .context("k was not estimated for this training size")?,
            };
            config.k = if k == 0 {
                // Nothing to project on: the library says so in the release's notes.
                KChoice::Simulated {
                    sigma: DEFAULT_SIGMA,
                    seed: DEFAULT_SEED,
                }
            } else {
                KChoice::Given(k)
            };
            config.gamma = gamma;
            // γ's estimate simulates predictors with the data's bins too.
            config.params.bins = bins.map(|b| b as usize);
            config.params.rule = gamma_rule;
            // The paper's synthetic data (⌈h̃ − ½⌉ copies of each released cell) unless
            // --rows records asks for n rows.
            config.rows = rows;
            Classifier::Histogram(config)
        }
    };
    evaluate_fold_with(&d.table, d.target, &train, &test, &classifier, &FIT, rng).with_context(
        || {
            format!(
                "{} fold {} of {}",
                d.key.title(),
                job.fold + 1,
                job.method.name(d.classes),
            )
        },
    )
}

/// Box statistics (quartiles by linear interpolation, R's type 7) and the mean.
#[derive(Debug, Clone, Copy)]
struct Stats {
    n: usize,
    min: f64,
    q1: f64,
    median: f64,
    q3: f64,
    max: f64,
    mean: f64,
}

impl Stats {
    fn of(xs: &[f64]) -> Self {
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        let q = |p: f64| disguise::numeric::stats::quantile(&v, p);
        Self {
            n: v.len(),
            min: q(0.0),
            q1: q(0.25),
            median: q(0.5),
            q3: q(0.75),
            max: q(1.0),
            mean: mean(v.iter().copied()),
        }
    }
}

/// The most frequent value (ties to the smallest).
fn mode(xs: impl Iterator<Item = usize>) -> Option<usize> {
    let mut counts: BTreeMap<usize, usize> = BTreeMap::new();
    for x in xs {
        *counts.entry(x).or_default() += 1;
    }
    counts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(&x, _)| x)
}

const FONT: &str = "sans-serif";

/// Figures side by side under a common title.
struct Panels<F> {
    title: String,
    panels: Vec<F>,
}

impl<F: Figure> Figure for Panels<F> {
    fn size(&self) -> (u32, u32) {
        let w: u32 = self.panels.iter().map(|p| p.size().0).sum();
        let h = self.panels.iter().map(|p| p.size().1).max().unwrap_or(400);
        (w.max(400), h + 44)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let body = root.titled(&self.title, (FONT, 21).into_font().style(FontStyle::Bold))?;
        let mut rest = body;
        for (i, p) in self.panels.iter().enumerate() {
            if i + 1 == self.panels.len() {
                p.draw(&rest)?;
            } else {
                let (left, right) = rest.split_horizontally(p.size().0);
                p.draw(&left)?;
                rest = right;
            }
        }
        Ok(())
    }
}

/// One panel of Figure 2: a median-AUC line per dataset and the baseline dots.
struct SweepPanel {
    title: String,
    x_label: String,
    log_x: bool,
    ticks: Vec<f64>,
    /// Per data set: its colour and its points.
    lines: Vec<(RGBColor, Vec<SweepPoint>)>,
    dots: Vec<(RGBColor, f64, f64)>,
}

/// One point of a sweep: (x, median, first quartile, third quartile) over the folds.
type SweepPoint = (f64, f64, f64, f64);

/// Figure 2: three sweep panels sharing the y axis, with a legend strip.
struct SweepChart {
    title: String,
    panels: Vec<SweepPanel>,
    legend: Vec<(String, RGBColor)>,
}

impl Figure for SweepChart {
    fn size(&self) -> (u32, u32) {
        (460 * self.panels.len().max(1) as u32, 600)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let body = root.titled(&self.title, (FONT, 21).into_font().style(FontStyle::Bold))?;
        let (w, h) = body.dim_in_pixel();
        let (plots, legend) = body.split_vertically(h.saturating_sub(52));
        // One y range for all panels, so that they compare at a glance.
        let ys = self.panels.iter().flat_map(|p| {
            p.lines
                .iter()
                .flat_map(|(_, l)| l.iter().flat_map(|q| [q.1, q.2, q.3]))
        });
        let (y_lo, y_hi) = padded(ys, 0.06);
        let y_ticks = nice_ticks(y_lo, y_hi, 8);
        let areas = plots.split_evenly((1, self.panels.len().max(1)));
        for (p, area) in self.panels.iter().zip(&areas) {
            let tx = |x: f64| if p.log_x { x.log10() } else { x };
            let xt: Vec<f64> = p.ticks.iter().map(|&x| tx(x)).collect();
            // The range covers the ticks and the dots (an estimated γ may fall outside the
            // swept values).
            let (x_lo, x_hi) = padded(
                xt.iter()
                    .copied()
                    .chain(p.dots.iter().map(|&(_, x, _)| tx(x))),
                0.06,
            );
            let mut chart = ChartBuilder::on(area)
                .caption(&p.title, (FONT, 18).into_font())
                .margin(14)
                .x_label_area_size(52)
                .y_label_area_size(66)
                .build_cartesian_2d(
                    Axis::new(x_lo, x_hi, xt.clone()),
                    Axis::new(y_lo, y_hi, y_ticks.clone()),
                )?;
            let log = p.log_x;
            let x_fmt = move |v: &f64| tick_label(if log { 10f64.powf(*v) } else { *v });
            chart
                .configure_mesh()
                .x_desc(&p.x_label)
                .y_desc("median CV AUC")
                .x_label_formatter(&x_fmt)
                .y_label_formatter(&|v| tick_label(*v))
                .label_style((FONT, 14).into_font())
                .axis_desc_style((FONT, 15).into_font())
                .bold_line_style(BLACK.mix(0.08))
                .light_line_style(TRANSPARENT)
                .draw()?;
            for (color, pts) in &p.lines {
                // The band between the quartiles over the folds, under the median line.
                let band: Vec<(f64, f64)> = pts
                    .iter()
                    .map(|&(x, _, q1, _)| (tx(x), q1))
                    .chain(pts.iter().rev().map(|&(x, _, _, q3)| (tx(x), q3)))
                    .collect();
                chart.draw_series(std::iter::once(Polygon::new(
                    band,
                    color.mix(0.15).filled(),
                )))?;
                let pts: Vec<(f64, f64)> = pts.iter().map(|&(x, y, _, _)| (tx(x), y)).collect();
                chart.draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))?;
                chart.draw_series(pts.iter().map(|&q| Circle::new(q, 3, color.filled())))?;
            }
            for &(color, x, y) in &p.dots {
                chart.draw_series(std::iter::once(
                    EmptyElement::at((tx(x), y))
                        + Circle::new((0, 0), 8, color.filled())
                        + Circle::new((0, 0), 8, BLACK.stroke_width(2)),
                ))?;
            }
        }
        // The legend strip: one entry per dataset, then the dot.
        let font = TextStyle::from((FONT, 16).into_font());
        let mut entries: Vec<(String, Option<RGBColor>)> = self
            .legend
            .iter()
            .map(|(n, c)| (n.clone(), Some(*c)))
            .collect();
        entries.push((
            "baseline ε = 1 / estimated k and γ (AUC of the ε series at ε = 1)".to_string(),
            None,
        ));
        let mut widths = Vec::new();
        for (label, _) in &entries {
            widths.push(legend.estimate_text_size(label, &font)?.0 as i32 + 44);
        }
        let total: i32 = widths.iter().sum::<i32>() + 24 * (entries.len() as i32 - 1);
        let mut x = (w as i32 - total).max(0) / 2;
        let y = 22;
        for ((label, color), width) in entries.iter().zip(&widths) {
            match color {
                Some(c) => {
                    legend.draw(&PathElement::new(
                        vec![(x, y), (x + 30, y)],
                        c.stroke_width(3),
                    ))?;
                }
                None => {
                    legend.draw(&Circle::new((x + 15, y), 8, GREY_FILL.filled()))?;
                    legend.draw(&Circle::new((x + 15, y), 8, BLACK.stroke_width(2)))?;
                }
            }
            legend.draw(&Text::new(label.clone(), (x + 40, y - 9), font.clone()))?;
            x += width + 24;
        }
        Ok(())
    }
}

const GREY_FILL: RGBColor = RGBColor(190, 190, 190);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_follow_type_7_quartiles() {
        let s = Stats::of(&[4.0, 1.0, 3.0, 2.0, 5.0]);
        assert_eq!(
            (s.min, s.q1, s.median, s.q3, s.max),
            (1.0, 2.0, 3.0, 4.0, 5.0)
        );
        assert_eq!(s.mean, 3.0);
        let s = Stats::of(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!((s.q1, s.median, s.q3), (1.75, 2.5, 3.25));
        assert!(Stats::of(&[]).median.is_nan());
    }

    #[test]
    fn mode_prefers_the_most_frequent_then_the_smallest() {
        assert_eq!(mode([4, 2, 4, 2, 3].into_iter()), Some(2));
        assert_eq!(mode([5, 4, 4].into_iter()), Some(4));
        assert_eq!(mode(std::iter::empty()), None);
    }
}
