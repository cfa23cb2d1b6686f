//! `disguise select`: private facility location — choose k public candidate locations that
//! serve a set of private points well (Mitrovic et al. 2017, §6.1). A shell over
//! [`disguise::task::Select`]: parse, read the two files, run the trials, print.

use super::common::cluster::ClusterArgs;
use super::common::coordinates::PlacesArgs;
use super::common::ledger::Charge;
use super::common::privacy::{PrivacyArgs, Shown, run_and_print};
use crate::output::{flag_of, flagged, spinner};
use anyhow::bail;
use disguise::maximize::{Directions, Solution};
use disguise::task::{
    ClusterTrials, ContinuousOptions, Reporting, Runnable, Select, SelectReport, TrialOptions,
};
use disguise::text::{self, Labels};

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

/// The closing note of the table.
const NOTE: &str = "utility = f(S)/n: each point contributes 1 − min(1, d/m) to f";
const NOTE_COST: &str =
    "utility = (f(S) − cost·|S|)/n: each point contributes 1 − min(1, d/m) to f";

/// Arguments of `disguise select`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    places: PlacesArgs,
    /// Number of locations to choose, 1 ≤ k ≤ number of candidates; optional with
    /// `--constraint` (then the constraint's rank). Example: `--k 5`.
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    k: Option<usize>,
    /// A matroid constraint over the candidates: `partition:FILE` (groups with capacities,
    /// see the partition file format), `cardinality:K`, `graphic:FILE`. Combined with
    /// `--k` when both are given. Example: `--constraint partition:neighbourhoods.csv`.
    #[arg(long, value_name = "SPEC")]
    constraint: Option<String>,
    /// A PUBLIC cost per chosen location, in points served: maximise f(S) − C·|S|, so a
    /// location is worth choosing only if it serves more than C points' worth. The objective
    /// is then non-monotone and may be negative, so no utility theorem applies: the default
    /// subsample-greedy's (Mitrovic et al. 2017, Theorem 4.1) needs f ≥ 0, and the report
    /// says "no guarantee". Example: `--cost 250`.
    #[arg(
        long,
        value_name = "C",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    cost: f64,
    #[command(flatten)]
    privacy: PrivacyArgs,
    #[command(flatten)]
    continuous: ContinuousArgs,
    #[command(flatten)]
    cluster: ClusterArgs,
}

/// Options of `--algorithm continuous-greedy` (ignored by the other algorithms).
#[derive(clap::Args, Debug, Clone)]
pub struct ContinuousArgs {
    /// Continuous greedy: the number of steps T (each one selector call, or r with
    /// `--directions sequential`; the total budget is split over them). Default r², the
    /// paper's Θ(r(M)²). Example: `--steps 10`.
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    pub steps: Option<usize>,
    /// Continuous greedy: how each step's base is chosen. `bases` — one exponential
    /// mechanism over all bases, sampled exactly (cardinality and partition constraints);
    /// `sequential` — r exponential-mechanism picks per step (any matroid); `sampled:N` —
    /// the exponential mechanism over N random bases per step (any matroid); `auto` —
    /// bases when possible, else sequential.
    #[arg(long, value_name = "RULE", default_value = "auto")]
    pub directions: String,
    /// Continuous greedy: estimate the gradient from N random sets per step instead of the
    /// exact closed form (slower and noisier; for comparison). Example: `--gradient-samples 50`.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub gradient_samples: Option<usize>,
}

/// Runs `disguise select`.
pub fn run(args: Args) -> anyhow::Result<()> {
    // Everything that needs no data is validated first, in the library.
    args.privacy.check_trials()?;
    let request = args.request()?;
    request.validate().map_err(|e| flagged(e, &flag_of))?;
    let charge = (args.privacy.ledger).open_on(&args.cluster)?;
    let charge = charge.as_ref();
    if let Some(cluster) = args.cluster.cluster(&[("--points", &args.places.points)])? {
        return run_distributed(&args, request, cluster, charge);
    }
    let places = &args.places;
    let quiet = args.privacy.quiet;
    let (candidates, names) = args.candidates(quiet)?;
    let m = candidates.len();
    disguise::files::check_input(&places.points)?;
    // Charged before a point is read, from the public candidates and options.
    let reserved = args.privacy.reserve(charge, || request.plan(m))?;
    // One file, a folder or a pattern of CSV or Parquet parts (all of them, in one process).
    let bar = spinner(
        &format!("reading points {}", places.points.display()),
        quiet,
    );
    let points = places.loader()?(disguise::cluster::Place::SOLE);
    bar.finish_and_clear();
    let points = points?;
    let objective = request
        .objective(&points, &candidates)
        .map_err(|e| anyhow::anyhow!("cannot build the facility-location objective: {e}"))?;
    drop(points);
    let prepared = request
        .prepare(&objective)
        .map_err(|e| flagged(e, &flag_of))?;
    let utility = |v: f64| prepared.utility(v);
    let note = if args.cost > 0.0 { NOTE_COST } else { NOTE };
    let preamble = |r: &SelectReport| preamble(places, r, "");
    let run = |child: &mut disguise::SecureRng| prepared.run(child);
    let report = |s: &Solution| prepared.report(s);
    let shown = Shown::new(Labels::new(&names, &utility, note), &preamble, &report);
    run_and_print(&args.privacy, reserved.as_ref(), prepared.k(), &shown, run)
}

/// The table's opening lines: the data, the metric, the algorithm and any cost; `layout`
/// says how a distributed run's points were spread.
fn preamble(places: &PlacesArgs, r: &SelectReport, layout: &str) -> String {
    let t = &r.task;
    let points = format!("{}{layout}", places.points.display());
    let candidates = places.candidates.display().to_string();
    let metric = places.metric_line(*t.normalizer);
    text::select_preamble(t, &points, &candidates, &metric)
}

/// `disguise select` with `--workers` or `--hosts`: every process reads the public candidates
/// and its own part of the points; process 0 runs the algorithm and prints as a one-process
/// run does, the others print nothing.
fn run_distributed(
    args: &Args,
    request: Select,
    cluster: disguise::cluster::Cluster,
    charge: Option<&Charge>,
) -> anyhow::Result<()> {
    args.privacy.check(TrialOptions::one_trial)?;
    let places = &args.places;
    let (candidates, names) = args.candidates(true)?;
    let m = candidates.len();
    // Process 0 charges before any process reads a point or any choice crosses the network.
    let reserved = args.privacy.reserve(charge, || request.plan(m))?;
    let load = places.loader()?;
    let trials = ClusterTrials::new();
    let trial = |rng: &mut disguise::SecureRng| {
        request.distributed_trial(&cluster, load.clone(), &candidates, rng)
    };
    if trials.serve(&cluster, trial)? {
        return Ok(());
    }
    let records = || {
        trials
            .report()
            .map_or(f64::NAN, |r: &SelectReport| *r.task.points as f64)
    };
    let utility = |v: f64| v / records();
    let layout = format!(
        "; {} processes × {} workers",
        cluster.processes(),
        cluster.workers()
    );
    let preamble = |r: &SelectReport| preamble(places, r, &layout);
    let run = |child: &mut disguise::SecureRng| trials.keep(trial(child)?);
    let reported = |_: &Solution| trials.report().expect("reported").clone();
    let shown = Shown::new(Labels::new(&names, &utility, NOTE), &preamble, &reported);
    run_and_print(
        &args.privacy,
        reserved.as_ref(),
        args.k.unwrap_or(0),
        &shown,
        run,
    )
}

impl Args {
    /// The public candidates and their names, after checking that k fits them.
    fn candidates(&self, quiet: bool) -> anyhow::Result<(Vec<[f64; 2]>, Vec<String>)> {
        let (candidates, names) = self.places.read_candidates(quiet)?;
        let m = candidates.len();
        if let Some(k) = self.k
            && k > m
        {
            bail!(
                "invalid --k: {k} is larger than the number of candidates ({m} in {})",
                self.places.candidates.display()
            );
        }
        Ok((candidates, names))
    }

    /// The library request these arguments describe.
    fn request(&self) -> anyhow::Result<Select> {
        let c = &self.continuous;
        let directions = Directions::from_name(&c.directions).map_err(|e| flagged(e, &flag_of))?;
        Ok(Select {
            k: self.k,
            constraint: self.constraint.clone(),
            metric: self.places.metric,
            normalizer: self.places.normalizer,
            algorithm: self.privacy.algorithm,
            continuous: ContinuousOptions {
                steps: c.steps,
                directions,
                gradient_samples: c.gradient_samples,
            },
            cost: self.cost,
            privacy: self.privacy.privacy(),
        })
    }
}
