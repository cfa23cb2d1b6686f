//! `disguise select`: private facility location — choose k public candidate locations that
//! serve a set of private points well (Mitrovic et al. 2017, §6.1).
//!
//! Also home of what `select` and `features` share: the mechanism, algorithm and
//! composition choices, the budget → [`Procedure`] step, the parallel trials runner and the
//! per-run privacy report.

use crate::output::{
    CsvOut, RowFormat, budget, check_epsilon, fixed, guarantee, input, print_json, progress_bar,
    rng_from_seed, spinner, thousands,
};
use crate::trials::{Kept, PerPick, TrialPicks, stream};
use anyhow::{Context, bail};
use disguise::SecureRng;
use disguise::constraint::{Cardinality, Intersection, Matroid};
use disguise::data::read_points;
use disguise::maximize::{Budget, Mechanism, Procedure, Solution, greedy, subsample_greedy};
use disguise::numeric::stats::{MeanStd, mean_std};
use disguise::objective::{FacilityLocation, Metric, Normalizer};
use disguise::privacy::Guarantee;
use disguise::privacy::compose::Rule;
use serde::Serialize;
use std::path::{Path, PathBuf};

const EXAMPLES: &str = "\
Examples:
  # 5 waiting spots for 10,000 pickups, (ε, δ) = (1, 1e-6) in total, exponential mechanism
  disguise select --points pickups.csv --candidates landmarks.csv --k 5 --epsilon 1 --delta 1e-6

  # the paper's setting: Manhattan distance in degrees, normaliser 0.266, the non-private baseline
  disguise select --points pickups.csv --candidates landmarks.csv --k 3 --mechanism max \\
      --metric manhattan --normalizer 0.266

  # great-circle distances (km), columns named Lat/Lon, budget split by basic composition
  disguise select --points uber-raw-data-apr14.csv --lat Lat --lon Lon --candidates landmarks.csv \\
      --k 5 --epsilon 0.5 --metric haversine --normalizer 20 --composition basic

  # at most one spot per neighbourhood (partition file over candidate indices), JSON output
  disguise select --points pickups.csv --candidates landmarks.csv --epsilon 1 --delta 1e-6 \\
      --constraint partition:neighbourhoods.csv --format json

  # 100 seeded trials in parallel: mean and standard deviation of the final utility
  disguise select --points pickups.csv --candidates landmarks.csv --k 5 --epsilon 0.1 \\
      --mechanism lmm --delta 1e-6 --trials 100 --seed 7

Utility: f(S) = Σ_points (1 − min(1, d(point, nearest chosen candidate)/m)), so each point
contributes at most 1; the normalised utility printed after each pick is f(S)/n ∈ [0, 1] for
n points. Objective values and utilities are computed on the private points for evaluation:
they are NOT covered by the privacy guarantee, which protects the chosen candidates only.";

/// The selection mechanism of every round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum MechanismArg {
    /// The exponential mechanism (ε₀-DP, bounded range: every composition rule applies).
    #[default]
    Em,
    /// The large margin mechanism as in Mitrovic et al. 2017, Alg. 5 ((ε₀, δ₀)-DP; needs δ > 0).
    Lmm,
    /// The original large margin mechanism of Chaudhuri et al. 2014 ((ε₀, δ₀)-DP; needs δ > 0).
    LmmChaudhuri,
    /// Report noisy max with Laplace noise (pure ε₀-DP).
    ReportNoisyMax,
    /// The non-private argmax (standard greedy): NO privacy guarantee, a baseline.
    Max,
}

impl MechanismArg {
    /// The library mechanism, or `None` for the non-private argmax.
    fn mechanism(self) -> Option<Mechanism> {
        match self {
            MechanismArg::Em => Some(Mechanism::Exponential),
            MechanismArg::Lmm => Some(Mechanism::LargeMargin),
            MechanismArg::LmmChaudhuri => Some(Mechanism::LargeMarginChaudhuri),
            MechanismArg::ReportNoisyMax => Some(Mechanism::ReportNoisyMax),
            MechanismArg::Max => None,
        }
    }

    /// The name as written on the command line.
    pub fn name(self) -> &'static str {
        match self {
            MechanismArg::Em => "em",
            MechanismArg::Lmm => "lmm",
            MechanismArg::LmmChaudhuri => "lmm-chaudhuri",
            MechanismArg::ReportNoisyMax => "report-noisy-max",
            MechanismArg::Max => "max",
        }
    }
}

/// Which greedy algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum AlgorithmArg {
    /// Private greedy over all remaining candidates (Algorithms 1–2; any constraint).
    #[default]
    Greedy,
    /// Subsample-greedy (Algorithm 4): |V|/k random candidates per round, linear time;
    /// cardinality constraint only.
    Subsample,
    /// The private continuous greedy (Rafiey & Yoshida 2020; `select` only): T steps on the
    /// multilinear extension, each an exponential mechanism over the matroid's bases, then
    /// swap rounding. One matroid (--k or --constraint), --mechanism em or max; see --steps
    /// and --directions.
    ContinuousGreedy,
}

/// The composition rule that splits the total budget into per-round budgets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default)]
pub enum CompositionArg {
    /// The valid rule that gives each round the largest ε₀.
    #[default]
    Auto,
    /// Basic composition: ε₀ = ε/k.
    Basic,
    /// Advanced composition (needs δ > 0).
    Advanced,
    /// Optimal composition of Kairouz–Oh–Viswanath (em and report-noisy-max only).
    Kov,
    /// Bounded range / pure → zCDP → (ε, δ) (em and report-noisy-max; needs δ > 0).
    Zcdp,
    /// Decomposable objectives (Gupta et al.; em with greedy on facility location; δ > 0).
    Decomposable,
}

impl CompositionArg {
    fn rule(self) -> Option<Rule> {
        match self {
            CompositionArg::Auto => None,
            CompositionArg::Basic => Some(Rule::Basic),
            CompositionArg::Advanced => Some(Rule::Advanced),
            CompositionArg::Kov => Some(Rule::Kov),
            CompositionArg::Zcdp => Some(Rule::Zcdp),
            CompositionArg::Decomposable => Some(Rule::Decomposable),
        }
    }
}

/// The privacy options shared by `select` and `features`.
#[derive(clap::Args, Debug, Clone)]
pub struct PrivacyArgs {
    /// Total privacy budget ε of the whole run (finite, > 0); required unless
    /// `--mechanism max`. Example: `--epsilon 1`.
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    pub epsilon: Option<f64>,
    /// Total δ ∈ [0, 1) of the whole run. δ > 0 enables the advanced, zCDP and decomposable
    /// rules and is required by lmm and lmm-chaudhuri. Example: `--delta 1e-6`.
    #[arg(
        long,
        value_name = "D",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    pub delta: f64,
    /// The selection mechanism of every round.
    #[arg(long, value_enum, value_name = "NAME", default_value_t)]
    pub mechanism: MechanismArg,
    /// The greedy algorithm.
    #[arg(long, value_enum, value_name = "NAME", default_value_t)]
    pub algorithm: AlgorithmArg,
    /// How the total (ε, δ) is split over the rounds. `auto` takes the valid rule giving
    /// each round the most budget; naming a rule forces it (an error if it does not apply,
    /// e.g. decomposable or kov with lmm).
    #[arg(long, value_enum, value_name = "RULE", default_value_t)]
    pub composition: CompositionArg,
    /// Run N independent trials (in parallel, each with its own generator) and report the
    /// mean and standard deviation of the final utility. Each trial is one private run; the
    /// N results together compose to N times the budget. Example: `--trials 100`.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub trials: Option<u64>,
    /// Seed for a reproducible run (the same output for any number of threads). INSECURE:
    /// the noise is then predictable and protects no one (tests and experiments only).
    /// Example: `--seed 42`.
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: RowFormat,
    /// No progress output on stderr (it is never drawn when stderr is not a terminal).
    #[arg(long, short)]
    pub quiet: bool,
}

impl PrivacyArgs {
    /// Validates the options that need no data (ε, δ, trials) and builds the procedure.
    pub fn procedure(&self) -> anyhow::Result<Procedure<'static>> {
        if self.trials == Some(0) {
            bail!("invalid --trials: must be at least 1");
        }
        let Some(mechanism) = self.mechanism.mechanism() else {
            if self.composition != CompositionArg::Auto {
                bail!(
                    "invalid --composition: --mechanism max is not private, there is no budget \
                     to split"
                );
            }
            // The budget flags, if given, must still be sane (they are ignored otherwise).
            if let Some(e) = self.epsilon {
                check_epsilon("--epsilon", e)?;
            }
            disguise::privacy::Delta::new(self.delta)?;
            return Ok(Procedure::Argmax);
        };
        let Some(epsilon) = self.epsilon else {
            bail!(
                "--epsilon is required with --mechanism {} (the total privacy budget, e.g. \
                 --epsilon 1)",
                self.mechanism.name()
            );
        };
        check_epsilon("--epsilon", epsilon)?;
        if mechanism.needs_delta() && self.delta <= 0.0 {
            disguise::privacy::Delta::new(self.delta)?;
            bail!(
                "invalid --delta: --mechanism {} needs δ > 0, e.g. --delta 1e-6",
                self.mechanism.name()
            );
        }
        let budget = match self.composition.rule() {
            None => Budget::total(epsilon, self.delta)?,
            Some(rule) => Budget::total_by_rule(epsilon, self.delta, rule)?,
        };
        Ok(Procedure::private(mechanism, budget))
    }
}

/// One trial's result as the shared printer sees it: a [`Solution`] and, for k-submodular
/// runs, the type of each pick.
pub trait Trial: Send {
    /// The run.
    fn solution(&self) -> &Solution;
    /// The type of each pick (empty unless the run assigns types).
    fn types(&self) -> &[usize] {
        &[]
    }
}

impl Trial for Solution {
    fn solution(&self) -> &Solution {
        self
    }
}

impl Trial for disguise::maximize::Assignment {
    fn solution(&self) -> &Solution {
        &self.solution
    }
    fn types(&self) -> &[usize] {
        &self.types
    }
}

/// How the shared printer labels picks: element names, type names (k-submodular runs) and
/// the utility of an objective value.
pub struct Labels<'a> {
    /// Name of every element.
    pub names: &'a [String],
    /// Name of every type; `None` for runs without types.
    pub types: Option<&'a [String]>,
    /// The utility of an objective value (e.g. f(S)/n).
    pub utility: &'a dyn Fn(f64) -> f64,
}

impl Labels<'_> {
    /// "name" or "name (type)" of pick `i` of a trial.
    fn pick(&self, element: usize, types: &[usize], i: usize) -> String {
        match (self.types, types.get(i)) {
            (Some(names), Some(&t)) => format!("{} ({})", self.names[element], names[t]),
            _ => self.names[element].clone(),
        }
    }
}

/// What the trials left for the caller to print: the first trial (the single run without
/// `--trials`), its privacy report, the mean and standard deviation of the final utility,
/// and — for `--format json` only — every trial's picks.
pub struct Outcome<T> {
    /// The first trial.
    pub first: T,
    /// Its privacy report (the same for every trial: it depends on the options only).
    pub privacy: PrivacyReport,
    /// Mean final utility over the trials.
    pub mean: f64,
    /// Sample standard deviation of the final utility.
    pub std: f64,
    /// Every trial's picks (JSON output only; empty otherwise).
    pub kept: Kept,
}

/// Runs the trials (one without `--trials`) in parallel and prints them as they finish:
/// table rows and CSV rows are written per trial and nothing per trial is kept, so any
/// `--trials` runs in constant memory; for JSON every trial's picks are kept compactly, after
/// checking that they fit ([`Kept::for_trials`]). The generator is the OS's, or the seeded
/// one of `--seed`, keyed after those checks. `preamble` prints the table's opening lines
/// from the first trial; `picks` bounds the picks of one trial. The caller prints the JSON
/// document and the table's closing lines from the returned [`Outcome`].
pub fn run_and_print<T, F>(
    args: &PrivacyArgs,
    picks: usize,
    labels: &Labels<'_>,
    preamble: &dyn Fn(&T, &PrivacyReport),
    run: F,
) -> anyhow::Result<Option<Outcome<T>>>
where
    T: Trial + Clone,
    F: Fn(&mut SecureRng) -> disguise::Result<T> + Sync,
{
    let count = args.trials.unwrap_or(1);
    let per_trial = args.trials.is_some();
    let bar = if per_trial {
        progress_bar(count, "trials", args.quiet)
    } else {
        spinner("selecting", args.quiet)
    };
    let mut kept = match args.format {
        RowFormat::Json => Kept::for_trials(
            count,
            picks,
            labels.types.is_some(),
            &format!("--trials {count}"),
        )?,
        _ => Kept::default(),
    };
    // Keyed only now, after every check: the warning of a seeded run is the last thing
    // printed before the results, never before an error.
    let mut rng = rng_from_seed(args.seed)?;
    let mut first: Option<(T, PrivacyReport)> = None;
    let mut finals = MeanStd::default();
    let mut csv: Option<CsvOut> = None;
    let typed = labels.types.is_some();
    stream(count, &mut rng, &bar, run, |t, trial: T| {
        let s = trial.solution();
        let utility = (labels.utility)(s.value);
        finals.push(utility);
        if t == 0 {
            let privacy = PrivacyReport::of(s);
            if args.format == RowFormat::Table {
                bar.suspend(|| {
                    preamble(&trial, &privacy);
                    if per_trial {
                        let chosen = if typed { "chosen (type)" } else { "chosen" };
                        println!(
                            "{:>6}  {:>12}  {chosen}, in order",
                            "trial", "final utility"
                        );
                    }
                });
            }
            if args.format == RowFormat::Csv {
                let mut header = vec!["trial", "pick", "index", "name"];
                if typed {
                    header.push("type");
                }
                header.extend([
                    "value",
                    "utility",
                    "per_round_epsilon",
                    "epsilon",
                    "delta",
                    "rule",
                ]);
                csv = Some(bar.suspend(|| CsvOut::new(&header))?);
            }
            first = Some((trial.clone(), privacy));
        }
        match args.format {
            RowFormat::Json => kept.push(TrialPicks {
                elements: &s.elements,
                values: &s.values,
                types: trial.types(),
                utility,
                evaluations: s.gain_evaluations,
            })?,
            RowFormat::Csv => {
                let (_, privacy) = first.as_ref().expect("trial 0 came first");
                let cells = guarantee_cells(privacy);
                let out = csv.as_mut().expect("the CSV starts at trial 0");
                for (i, (&v, &value)) in s.elements.iter().zip(&s.values).enumerate() {
                    let mut row = vec![
                        (t + 1).to_string(),
                        (i + 1).to_string(),
                        v.to_string(),
                        labels.names[v].clone(),
                    ];
                    if let (Some(names), Some(&ty)) = (labels.types, trial.types().get(i)) {
                        row.push(names[ty].clone());
                    }
                    row.push(format!("{value:?}"));
                    row.push(format!("{:?}", (labels.utility)(value)));
                    row.extend(cells.iter().cloned());
                    bar.suspend(|| out.row(&row))?;
                }
            }
            RowFormat::Table if per_trial => {
                let chosen: Vec<String> = s
                    .elements
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| labels.pick(v, trial.types(), i))
                    .collect();
                bar.suspend(|| {
                    println!(
                        "{:>6}  {:>12}  {}",
                        t + 1,
                        fixed(utility, 6),
                        chosen.join("; ")
                    )
                });
            }
            RowFormat::Table => {}
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    let Some((first, privacy)) = first else {
        bail!("no trial was run");
    };
    if let Some(out) = csv {
        out.finish()?;
        return Ok(None);
    }
    let (mean, std) = if args.format == RowFormat::Json {
        // The two-pass formula on the kept values (the same bits as before streaming).
        mean_std(kept.finals())
    } else {
        (finals.mean(), finals.std())
    };
    if args.format == RowFormat::Table {
        if let Some(trials) = args.trials {
            println!();
            println!(
                "final utility over {} trials: mean {}, standard deviation {}",
                thousands(trials),
                fixed(mean, 6),
                fixed(std, 6)
            );
        } else {
            print_picks_table(&first, labels);
        }
    }
    Ok(Some(Outcome {
        first,
        privacy,
        mean,
        std,
        kept,
    }))
}

/// The default normaliser of facility location: the diameter of the candidates' bounding box
/// (public, since the candidates are). When it cannot serve — one candidate, or all of them
/// at one place, so the diameter is 0 — the message names the file and says to give
/// `--normalizer`.
pub fn default_normalizer(
    metric: Metric,
    candidates: &[[f64; 2]],
    file: &Path,
) -> anyhow::Result<f64> {
    Normalizer::CandidateBoundingBox
        .resolve(metric, candidates)
        .map_err(|_| {
            let why = match candidates {
                [] => "there are no candidates".to_string(),
                [_] => "there is only one candidate".to_string(),
                [first, rest @ ..] if rest.iter().all(|c| c == first) => {
                    format!("all {} candidates are at the same place", candidates.len())
                }
                _ => "their bounding box is too small or too large to measure distances with \
                     (its diameter must be in [1e-30, 1e30])"
                    .to_string(),
            };
            anyhow::anyhow!(
                "{}: {why}, so the default normaliser (the diameter of the candidates' \
                 bounding box) cannot be used: give --normalizer M, the public distance at \
                 which a candidate stops serving a point (e.g. --normalizer 0.266)",
                file.display()
            )
        })
}

/// What a run spent: the per-round budget, the rule that set it, and the end-to-end
/// guarantee with the rule that proved it (all `None` for the non-private argmax).
#[derive(Debug, Clone, Serialize)]
pub struct PrivacyReport {
    /// The per-round ε₀ every selector call used.
    pub per_round_epsilon: Option<f64>,
    /// The per-round δ₀ (0 except for the large margin mechanisms).
    pub per_round_delta: Option<f64>,
    /// The composition rule that split the total budget into per-round budgets.
    pub composition: Option<&'static str>,
    /// The number of selector calls the guarantee covers.
    pub rounds: usize,
    /// The end-to-end guarantee (the best rule the accountant could apply).
    pub guarantee: Option<Guarantee>,
}

impl PrivacyReport {
    /// The report of one run.
    pub fn of(solution: &Solution) -> Self {
        let split = solution.budget_split;
        Self {
            per_round_epsilon: split.map(|b| b.per_round_epsilon),
            per_round_delta: split.map(|b| b.per_round_delta),
            composition: split.map(|b| b.rule.name()),
            rounds: solution.planned_rounds,
            guarantee: solution.guarantee,
        }
    }

    /// The budget line of the table output.
    pub fn budget_line(&self, args: &PrivacyArgs) -> String {
        match (self.per_round_epsilon, self.composition) {
            (Some(e0), Some(rule)) => {
                let d0 = match self.per_round_delta {
                    Some(d0) if d0 > 0.0 => format!(", δ₀ = {}", budget(d0)),
                    _ => String::new(),
                };
                format!(
                    "budget: total ε = {}, δ = {}, split by {rule} composition into \
                     ε₀ = {}{d0} per round over {} rounds",
                    input(args.epsilon.unwrap_or(f64::NAN)),
                    input(args.delta),
                    budget(e0),
                    self.rounds
                )
            }
            _ => "budget: none (--mechanism max is the non-private baseline)".to_string(),
        }
    }

    /// The guarantee line(s) of the table output.
    pub fn guarantee_line(&self, trials: Option<u64>, secure: bool) -> String {
        let mut line = match self.guarantee {
            Some(g) => format!(
                "guarantee: ({}, {})-differentially private, proved by {} composition \
                 (neighbouring datasets differ in one record)",
                guarantee(g.epsilon),
                guarantee(g.delta),
                g.rule
            ),
            None => "guarantee: NONE — NOT private (--mechanism max is the non-private \
                     greedy baseline)"
                .to_string(),
        };
        if let (Some(n), Some(_)) = (trials, self.guarantee) {
            let n = thousands(n);
            line.push_str(&format!(
                "\n           for each trial; the {n} trials together spend {n} times as much"
            ));
        }
        if !secure && self.guarantee.is_some() {
            line.push_str(
                "\n           (only with a secure generator: this seeded run is NOT private)",
            );
        }
        line
    }
}

/// The guarantee as CSV cells: ε, δ, rule (empty when there is none).
pub fn guarantee_cells(report: &PrivacyReport) -> [String; 4] {
    let opt = |x: Option<f64>| x.map_or_else(String::new, |v| format!("{v:?}"));
    [
        opt(report.per_round_epsilon),
        opt(report.guarantee.map(|g| g.epsilon)),
        opt(report.guarantee.map(|g| g.delta)),
        report
            .guarantee
            .map_or_else(String::new, |g| g.rule.name().to_string()),
    ]
}

/// Arguments of `disguise select`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// CSV file of the private points (one record per row, with a header row).
    /// Example: `--points pickups.csv`.
    #[arg(long, value_name = "FILE")]
    points: PathBuf,
    /// CSV file of the public candidate locations, with the same coordinate columns and an
    /// optional name column. Candidate i (0-based, file order) is element i of a
    /// `--constraint` file. Example: `--candidates landmarks.csv`.
    #[arg(long, value_name = "FILE")]
    candidates: PathBuf,
    /// Latitude column of both files (case-insensitive; default `lat` unless `--x/--y`).
    /// Latitudes must lie in [-90, 90], longitudes in [-180, 180]. Example: `--lat Lat`.
    #[arg(long, value_name = "COL", conflicts_with_all = ["x", "y"])]
    lat: Option<String>,
    /// Longitude column of both files (case-insensitive; default `lon`). Example: `--lon Lon`.
    #[arg(long, value_name = "COL", conflicts_with_all = ["x", "y"])]
    lon: Option<String>,
    /// Planar x column (instead of --lat/--lon; not for haversine). Example: `--x easting`.
    #[arg(long, value_name = "COL", requires = "y")]
    x: Option<String>,
    /// Planar y column. Example: `--y northing`.
    #[arg(long, value_name = "COL", requires = "x")]
    y: Option<String>,
    /// Name column of the candidates file (used when present; else candidates are named by
    /// index).
    #[arg(long, value_name = "COL", default_value = "name")]
    name_column: String,
    /// Number of locations to choose, 1 ≤ k ≤ number of candidates; optional with
    /// `--constraint` (then the constraint's rank). Example: `--k 5`.
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    k: Option<usize>,
    /// Distance: manhattan (|Δ|₁, the paper's choice), euclidean, or haversine (great-circle
    /// km between lat/lon points).
    #[arg(long, value_enum, default_value_t = MetricArg::Manhattan)]
    metric: MetricArg,
    /// The public distance m at which a candidate stops serving a point (similarity
    /// 1 − min(1, d/m)), in the coordinates' units (km for haversine). It must not be
    /// computed from the private points. Default: the diameter of the candidates' bounding
    /// box (public). Example: `--normalizer 0.266`.
    #[arg(long, value_name = "M", allow_negative_numbers = true)]
    normalizer: Option<f64>,
    /// A matroid constraint over the candidates: `partition:FILE` (groups with capacities,
    /// see the partition file format), `cardinality:K`, `graphic:FILE`. Combined with
    /// `--k` when both are given. Example: `--constraint partition:neighbourhoods.csv`.
    #[arg(long, value_name = "SPEC")]
    constraint: Option<String>,
    #[command(flatten)]
    privacy: PrivacyArgs,
    // The options of --algorithm continuous-greedy (commands/continuous.rs).
    #[command(flatten)]
    continuous: super::continuous::ContinuousArgs,
}

/// A distance for `--metric`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum MetricArg {
    Manhattan,
    Euclidean,
    Haversine,
}

impl From<MetricArg> for Metric {
    fn from(m: MetricArg) -> Self {
        match m {
            MetricArg::Manhattan => Metric::Manhattan,
            MetricArg::Euclidean => Metric::Euclidean,
            MetricArg::Haversine => Metric::Haversine,
        }
    }
}

/// The JSON document of `select` (single run or trials).
#[derive(Serialize)]
struct Report<'a> {
    objective: &'static str,
    algorithm: &'static str,
    mechanism: &'static str,
    constraint: &'static str,
    metric: &'static str,
    normalizer: f64,
    normalizer_source: &'static str,
    points: usize,
    candidates: usize,
    k: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    trials: Option<u64>,
    /// Indices (single run) or one list per trial.
    selected: PerPick<'a>,
    names: PerPick<'a>,
    values: PerPick<'a>,
    utility: PerPick<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    final_utility: Option<&'a [f64]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mean_utility: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    std_utility: Option<f64>,
    #[serde(flatten)]
    privacy: &'a PrivacyReport,
    secure_rng: bool,
}

/// Runs `disguise select`.
pub fn run(args: Args) -> anyhow::Result<()> {
    // Everything that needs no data is validated first.
    let procedure = args.privacy.procedure()?;
    let metric = Metric::from(args.metric);
    let geographic = args.x.is_none();
    let (c0, c1) = match (&args.x, &args.y) {
        (Some(x), Some(y)) => (x.clone(), y.clone()),
        _ => (
            args.lat.clone().unwrap_or_else(|| "lat".into()),
            args.lon.clone().unwrap_or_else(|| "lon".into()),
        ),
    };
    if !geographic && metric == Metric::Haversine {
        bail!("--metric haversine needs latitude/longitude columns (--lat/--lon), not --x/--y");
    }
    if args.k == Some(0) {
        bail!("invalid --k: must be at least 1");
    }
    if args.k.is_none() && args.constraint.is_none() {
        bail!("--k is required (the number of locations to choose), e.g. --k 5");
    }
    if args.privacy.algorithm == AlgorithmArg::Subsample && args.constraint.is_some() {
        bail!(
            "--algorithm subsample supports only a cardinality constraint (--k), not --constraint"
        );
    }
    if let Some(m) = args.normalizer
        && !(m.is_finite() && m > 0.0)
    {
        bail!("invalid --normalizer: must be finite and > 0, got {m}");
    }

    let quiet = args.privacy.quiet;
    let read = |path: &Path, what: &str, names: Option<&str>| {
        let bar = spinner(&format!("reading {what} {}", path.display()), quiet);
        let check = |c: usize, v: f64| {
            if geographic {
                disguise::data::geographic(c, v)
            } else {
                Ok(())
            }
        };
        // Straight into one [f64; 2] per row: no intermediate columns.
        let points = read_points(path, [c0.as_str(), c1.as_str()], names, check);
        bar.finish_and_clear();
        points
    };
    let cand = read(&args.candidates, "candidates", Some(&args.name_column))?;
    let points = read(&args.points, "points", None)?.coords;
    let candidates = cand.coords;
    let m = candidates.len();
    let names: Vec<String> = match cand.names {
        Some(names) => names,
        None => (0..m).map(|i| format!("#{i}")).collect(),
    };
    if let Some(k) = args.k
        && k > m
    {
        bail!(
            "invalid --k: {k} is larger than the number of candidates ({m} in {})",
            args.candidates.display()
        );
    }

    let (normalizer, normalizer_source) = match args.normalizer {
        Some(v) => (Normalizer::Fixed(v), "given"),
        None => (
            Normalizer::Fixed(default_normalizer(metric, &candidates, &args.candidates)?),
            "candidate_bounding_box",
        ),
    };
    let objective = FacilityLocation::new(metric, &points, &candidates, normalizer)
        .with_context(|| "cannot build the facility-location objective".to_string())?;
    drop(points);
    let n = objective.num_records();

    let mut parts = Vec::new();
    if let Some(spec) = &args.constraint {
        parts.push(Matroid::from_spec(spec, m)?);
    }
    if let Some(k) = args.k {
        parts.push(Matroid::from(Cardinality::new(m, k)));
    }
    let constraint = Intersection::new(parts)?;
    let k = args.k.unwrap_or_else(|| {
        use disguise::constraint::Independence;
        constraint.rank_bound()
    });

    // --algorithm continuous-greedy: one matroid and the closed form, prepared once.
    let continuous = super::continuous::Prepared::new(
        args.privacy.algorithm,
        &objective,
        args.constraint.as_deref(),
        args.k,
        m,
        &args.continuous,
    )?;

    let algorithm = args.privacy.algorithm;
    let resolved_m = objective.normalizer().unwrap_or(f64::NAN);
    let scale = n as f64;
    let utility = |v: f64| v / scale;
    let labels = Labels {
        names: &names,
        types: None,
        utility: &utility,
    };
    let preamble = |first: &Solution, privacy: &PrivacyReport| {
        println!(
            "facility location: {} points ({}), {} candidates ({})",
            thousands(n as u64),
            args.points.display(),
            thousands(m as u64),
            args.candidates.display()
        );
        let source = if normalizer_source == "given" {
            "given with --normalizer".to_string()
        } else {
            "default: the diameter of the candidates' bounding box".to_string()
        };
        let unit = if metric == Metric::Haversine {
            " km"
        } else {
            ""
        };
        println!(
            "metric {}, normaliser m = {}{unit} ({source})",
            metric.name(),
            input(resolved_m)
        );
        println!(
            "algorithm {}, mechanism {}, constraint {}, k = {k}",
            first.algorithm,
            args.privacy.mechanism.name(),
            first.constraint
        );
        println!("{}", privacy.budget_line(&args.privacy));
        println!();
    };
    let Some(outcome) = run_and_print(
        &args.privacy,
        k,
        &labels,
        &preamble,
        |child| match algorithm {
            AlgorithmArg::Greedy => greedy(&objective, &constraint, &procedure, child),
            AlgorithmArg::Subsample => subsample_greedy(&objective, k, &procedure, child),
            AlgorithmArg::ContinuousGreedy => continuous.run(&procedure, child),
        },
    )?
    else {
        return Ok(()); // CSV: written while the trials ran
    };
    let first = &outcome.first;
    let privacy = &outcome.privacy;
    let secure = first.secure_rng;
    match args.privacy.format {
        RowFormat::Json => {
            let per_trial = args.privacy.trials.is_some();
            let kept = &outcome.kept;
            print_json(&Report {
                objective: first.objective,
                algorithm: first.algorithm,
                mechanism: args.privacy.mechanism.name(),
                constraint: first.constraint,
                metric: metric.name(),
                normalizer: resolved_m,
                normalizer_source,
                points: n,
                candidates: m,
                k,
                trials: args.privacy.trials,
                selected: PerPick {
                    kept,
                    per_trial,
                    cell: &|j| serde_json::json!(kept.element(j)),
                },
                names: PerPick {
                    kept,
                    per_trial,
                    cell: &|j| serde_json::json!(names[kept.element(j)]),
                },
                values: PerPick {
                    kept,
                    per_trial,
                    cell: &|j| serde_json::json!(kept.value(j)),
                },
                utility: PerPick {
                    kept,
                    per_trial,
                    cell: &|j| serde_json::json!(utility(kept.value(j))),
                },
                final_utility: per_trial.then(|| kept.finals()),
                mean_utility: per_trial.then_some(outcome.mean),
                std_utility: per_trial.then_some(outcome.std),
                privacy,
                secure_rng: secure,
            })
        }
        RowFormat::Csv => Ok(()),
        RowFormat::Table => {
            println!();
            println!(
                "utility = f(S)/n: each point contributes 1 − min(1, d/m) to f; values are \
                 computed on the private points (evaluation only, not part of the release)"
            );
            println!("{}", privacy.guarantee_line(args.privacy.trials, secure));
            Ok(())
        }
    }
}

/// The table of one run: one line per pick (with its type for k-submodular runs) and the
/// objective value and utility after it.
pub fn print_picks_table<T: Trial>(trial: &T, labels: &Labels<'_>) {
    let s = trial.solution();
    let width = s
        .elements
        .iter()
        .map(|&v| labels.names[v].chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let type_names = labels.types;
    let type_width = type_names
        .map(|t| {
            t.iter()
                .map(|n| n.chars().count())
                .max()
                .unwrap_or(0)
                .max(10)
        })
        .unwrap_or(0);
    let type_cell = |name: &str| match type_names {
        Some(_) => format!("  {name:<type_width$}"),
        None => String::new(),
    };
    println!(
        "{:>4}  {:>6}  {:<width$}{}  {:>14}  {:>10}",
        "pick",
        "index",
        "name",
        type_cell("type"),
        "value",
        "utility"
    );
    for (i, (&v, &value)) in s.elements.iter().zip(&s.values).enumerate() {
        let ty = match (type_names, trial.types().get(i)) {
            (Some(names), Some(&t)) => type_cell(&names[t]),
            _ => type_cell(""),
        };
        println!(
            "{:>4}  {v:>6}  {:<width$}{ty}  {:>14}  {:>10}",
            i + 1,
            labels.names[v],
            fixed(value, 4),
            fixed((labels.utility)(value), 6)
        );
    }
    if s.elements.is_empty() {
        println!("(nothing was chosen)");
    }
}
