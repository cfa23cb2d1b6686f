//! `disguise experiment matroid`: private submodular maximization under matroid constraints
//! on the Uber pickups — the two experiments of Chaturvedi, Nguyễn & Zakynthinou (AAAI 2021)
//! with the private continuous greedy of Rafiey & Yoshida (2020), and a k-submodular
//! experiment (Rafiey & Yoshida 2020, Example 5.2).
//!
//! * **cardinality** (their Exp. 1, "20 grid 80 spurious"): pickups inside their
//!   quadrilateral, n = 100 per run, 100 candidates (a 4 × 5 strip grid and 80 copies of the
//!   north corner), k ∈ {10, …, 25}, ε = 0.1, δ = n^-1.5;
//! * **partition** (their Exp. 2, the greedy trap): pickups in their box, three locations,
//!   parts {0} and {1, 2} of capacity 1, n ∈ {1000, …, 10000}, ε = 0.1, δ = n^-1.5;
//! * **k-submodular**: k-type facility location, the 10,000 Manhattan pickups of
//!   `pickups_manhattan_10k.csv` (rebuilt from the raw file with their pickup hour) typed by
//!   shift (night 22–6, day 6–14, evening 14–22), the 33 landmarks, at most r locations, each
//!   staffed for one shift; ε = 0.1, δ = 10^-6.
//!
//! Methods: non-private greedy; private greedy (Mitrovic et al. Algorithm 2, exponential
//! mechanism); the private continuous greedy (exact exponential mechanism over bases, closed
//! form gradient, swap rounding) with T as in the paper's code (3 or 7) and with T = r²;
//! uniformly random bases; for k-submodular, Algorithm 3, Algorithm 4 (γ = 0.1) and random.
//! Every private method gets the same total (ε, δ), split over its calls by the accountant's
//! best rule (the per-round ε₀ and the rule are in the CSVs). Data are redrawn every 10 runs
//! (as in the authors' code), with the same draws for every method.
//!
//! Outputs (prefix `matroid_`): `cardinality.csv`, `partition.csv`, `ksub.csv` (one row per
//! method × x: mean, sd, standard error, ε₀, ε, δ, rule, evaluations), `reported.csv` (the
//! numbers of the authors' `reported_aaai_exp{1,2}.csv`, from the notes) and the figures
//! `cardinality`, `partition`, `ksub_utility`, `ksub_evaluations`.

use crate::palette::Algorithm;
use crate::plot::{LineChart, Marker, Point, Series, Style, Uncertainty};
use crate::{Common, Context, Report, Summary, cell};
use anyhow::Context as _;
use disguise::SecureRng;
use disguise::constraint::{Cardinality, Independence, Partition};
use disguise::data::read_columns;
use disguise::maximize::{
    Budget, ContinuousGreedy, MatroidBases, Procedure, continuous_greedy, greedy,
    k_submodular_greedy, k_submodular_sample_size, k_submodular_subsample_greedy, random_base,
    standard_greedy,
};
use disguise::noise::bernoulli::uniform_below;
use disguise::noise::sample_distinct;
use disguise::objective::{
    ClosedForm, FacilityLocation, KSubmodularFunction, Metric, Normalizer, SetFunction,
    k_type_facility_location,
};
use disguise::privacy::Guarantee;
use disguise::select::SelectorKind;

/// Which parts to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Part {
    Cardinality,
    Partition,
    KSubmodular,
    /// The greedy-trap gadget where the continuous greedy must win (coverage, r copies).
    Gadget,
}

/// Arguments of `disguise experiment matroid`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    common: Common,
    /// Run only these parts (comma-separated). Default: all three.
    /// Example: `--parts partition,k-submodular`.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "PART")]
    parts: Vec<Part>,
}

const RAW: &str = "uber_nyc_apr14/uber-raw-data-apr14.csv";
const LANDMARKS: &str = "manhattan_candidates/landmarks_33.csv";
const EPSILON: f64 = 0.1;
/// Runs that share one draw of the data (the authors' code).
const PER_DRAW: usize = 10;

// Exp. 1: quadrilateral N, E, S, W and its normaliser.
const QUAD: [[f64; 2]; 4] = [
    [40.82, -73.96],
    [40.80, -73.93],
    [40.70, -73.99197],
    [40.71315, -74.03],
];
const QUAD_NORM: f64 = 0.18685;
const CARD_N: usize = 100;
const CARD_KS: [usize; 6] = [10, 13, 16, 19, 22, 25];
const CARD_STEPS: usize = 3;
// Exp. 2: box, normaliser, locations.
const BOX: [[f64; 2]; 2] = [[40.743775, -74.003862], [40.814381, -73.931548]];
const BOX_NORM: f64 = 0.14292;
const TRAP: [[f64; 2]; 3] = [[40.75, -74.0025], [40.7525, -73.9975], [40.7825, -73.9575]];
const TRAP_NS: [usize; 10] = [1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000];
const TRAP_STEPS: usize = 7;
const POOL: usize = 10_000;
// k-submodular.
const KSUB_RS: [usize; 5] = [2, 4, 6, 8, 10];
const KSUB_DELTA: f64 = 1e-6;
const KSUB_GAMMA: f64 = 0.1;
/// The evaluation-count figure: a large ground set and ranks.
const EVAL_M: usize = 1000;
const EVAL_RS: [usize; 7] = [2, 5, 10, 20, 50, 100, 200];
const SHIFTS: [&str; 3] = ["night (22–6)", "day (6–14)", "evening (14–22)"];

/// The matroid methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Greedy,
    PrivateGreedy,
    ContinuousPaperT,
    ContinuousRankSquared,
    Random,
    /// The private greedy with its budget split by basic composition (the papers' setting).
    PrivateGreedyBasic,
    /// The continuous greedy (the authors' T) with basic composition.
    ContinuousPaperTBasic,
}

impl Method {
    /// Every method run: the five of the main figures and the two basic-composition
    /// variants of the accounting figure.
    const RUN: [Method; 7] = [
        Method::Greedy,
        Method::PrivateGreedy,
        Method::ContinuousPaperT,
        Method::ContinuousRankSquared,
        Method::Random,
        Method::PrivateGreedyBasic,
        Method::ContinuousPaperTBasic,
    ];
    /// The accounting figure: each private method under the accountant's best rule and
    /// under basic composition.
    const ACCOUNTING: [Method; 4] = [
        Method::PrivateGreedy,
        Method::PrivateGreedyBasic,
        Method::ContinuousPaperT,
        Method::ContinuousPaperTBasic,
    ];
    const ALL: [Method; 5] = [
        Method::Greedy,
        Method::PrivateGreedy,
        Method::ContinuousPaperT,
        Method::ContinuousRankSquared,
        Method::Random,
    ];
    fn key(self) -> &'static str {
        match self {
            Method::Greedy => "non-private-greedy",
            Method::PrivateGreedy => "private-greedy",
            Method::ContinuousPaperT => "continuous-greedy",
            Method::ContinuousRankSquared => "continuous-greedy-r2",
            Method::Random => "random",
            Method::PrivateGreedyBasic => "private-greedy-basic",
            Method::ContinuousPaperTBasic => "continuous-greedy-basic",
        }
    }
    /// The key, label and style of this method's curve.
    fn series(self, steps: usize) -> (&'static str, String, Style) {
        (self.key(), self.label(steps), self.style())
    }

    fn label(self, steps: usize) -> String {
        match self {
            Method::Greedy => "non-private greedy".into(),
            Method::PrivateGreedy => "private greedy (Mitrovic Alg. 2)".into(),
            Method::ContinuousPaperT => format!("private continuous greedy, T = {steps}"),
            Method::ContinuousRankSquared => "private continuous greedy, T = r²".into(),
            Method::Random => "random base".into(),
            Method::PrivateGreedyBasic => "private greedy, basic composition".into(),
            Method::ContinuousPaperTBasic => {
                format!("private continuous greedy, T = {steps}, basic composition")
            }
        }
    }
    fn style(self) -> Style {
        match self {
            Method::Greedy => Algorithm::NonPrivate.style(),
            Method::PrivateGreedy => Algorithm::Exponential.style(),
            Method::ContinuousPaperT => Algorithm::ContinuousGreedy.style(),
            // The same algorithm with another step count: its colour, dashed.
            Method::ContinuousRankSquared => Algorithm::ContinuousGreedy
                .style()
                .dashed()
                .marker(Marker::Ring),
            Method::Random => Algorithm::Random.style(),
            // The same algorithm under basic composition: its colour, dashed, hollow.
            Method::PrivateGreedyBasic => {
                Algorithm::Exponential.style().dashed().marker(Marker::Ring)
            }
            Method::ContinuousPaperTBasic => Algorithm::ContinuousGreedy
                .style()
                .dashed()
                .marker(Marker::Ring),
        }
    }
}

/// One run's result.
#[derive(Debug, Clone)]
struct Outcome {
    value: f64,
    evaluations: u64,
    per_round: Option<f64>,
    guarantee: Option<Guarantee>,
}

/// Runs `method` on `f` under `constraint` with total (ε, δ).
fn run_method<C: MatroidBases>(
    method: Method,
    f: &FacilityLocation,
    constraint: &C,
    steps: usize,
    delta: f64,
    rng: &mut SecureRng,
) -> anyhow::Result<Outcome> {
    let basic = matches!(
        method,
        Method::PrivateGreedyBasic | Method::ContinuousPaperTBasic
    );
    let private = || -> anyhow::Result<Procedure<'static>> {
        let budget = if basic {
            Budget::total_by_rule(EPSILON, delta, disguise::privacy::compose::Rule::Basic)?
        } else {
            Budget::total(EPSILON, delta)?
        };
        Ok(Procedure::private(SelectorKind::Exponential, budget))
    };
    let s = match method {
        Method::Greedy => standard_greedy(f, constraint)?,
        Method::PrivateGreedy | Method::PrivateGreedyBasic => {
            greedy(f, constraint, &private()?, rng)?
        }
        Method::ContinuousPaperT
        | Method::ContinuousRankSquared
        | Method::ContinuousPaperTBasic => {
            let options = if method != Method::ContinuousRankSquared {
                ContinuousGreedy::new().with_steps(steps)
            } else {
                ContinuousGreedy::new()
            };
            continuous_greedy(&f.multilinear()?, constraint, &options, &private()?, rng)?
        }
        Method::Random => {
            let base = random_base(constraint, rng);
            return Ok(Outcome {
                value: f.evaluate(&base),
                evaluations: 0,
                per_round: None,
                guarantee: None,
            });
        }
    };
    Ok(Outcome {
        value: s.value,
        evaluations: s.gain_evaluations,
        per_round: s.budget_split.map(|b| b.per_round_epsilon),
        guarantee: s.guarantee,
    })
}

/// The raw pickups: position and hour.
struct Raw {
    points: Vec<[f64; 2]>,
    hours: Vec<u8>,
}

fn load_raw(ctx: &Context) -> anyhow::Result<Raw> {
    let path = ctx.data(RAW)?;
    ctx.note(&format!("matroid: reading {}", path.display()));
    let cols = read_columns(&path, &["lat", "lon"], Some("date/time"))?;
    let times = cols.text.context("the raw file has no Date/Time column")?;
    let hours = times
        .iter()
        .enumerate()
        .map(|(i, t)| {
            t.split(' ')
                .nth(1)
                .and_then(|hms| hms.split(':').next())
                .and_then(|h| h.parse::<u8>().ok())
                .filter(|&h| h < 24)
                .with_context(|| format!("{}: row {}: bad time {t:?}", path.display(), i + 1))
        })
        .collect::<anyhow::Result<Vec<u8>>>()?;
    let points = cols.numeric[0]
        .iter()
        .zip(&cols.numeric[1])
        .map(|(&a, &b)| [a, b])
        .collect();
    Ok(Raw { points, hours })
}

/// Whether p is inside the convex quadrilateral `q` (corners in order): the same side of
/// every edge (the authors' four half-plane tests).
fn in_quad(p: [f64; 2], q: &[[f64; 2]; 4]) -> bool {
    let mut sign = 0.0f64;
    for i in 0..4 {
        let (a, b) = (q[i], q[(i + 1) % 4]);
        let cross = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
        if cross == 0.0 {
            continue;
        }
        if sign == 0.0 {
            sign = cross.signum();
        } else if cross.signum() != sign {
            return false;
        }
    }
    true
}

/// A uniform sample of `size` of `points` (all of them if fewer).
fn subsample(
    points: &[[f64; 2]],
    size: usize,
    rng: &mut SecureRng,
) -> anyhow::Result<Vec<[f64; 2]>> {
    if points.len() <= size {
        return Ok(points.to_vec());
    }
    Ok(sample_distinct(rng, points.len() as u64, size)?
        .into_iter()
        .map(|i| points[i as usize])
        .collect())
}

/// Draws, for each of `groups` data draws, `n` points from `pool`.
fn draws(
    ctx: &mut Context,
    label: &str,
    pool: &[[f64; 2]],
    n: usize,
    groups: usize,
) -> anyhow::Result<Vec<Vec<[f64; 2]>>> {
    let jobs: Vec<usize> = (0..groups).collect();
    ctx.run_jobs(label, &jobs, |_, rng| subsample(pool, n, rng))
}

/// One summary row.
struct Row {
    method: &'static str,
    x: usize,
    values: Summary,
    evaluations: f64,
    per_round: Option<f64>,
    guarantee: Option<Guarantee>,
}

fn rows_csv(rows: &[Row]) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let header = vec![
        "method",
        "x",
        "runs",
        "mean",
        "sd",
        "se",
        "mean_evaluations",
        "per_round_epsilon",
        "epsilon",
        "delta",
        "rule",
    ];
    let opt = |v: Option<f64>| v.map_or_else(String::new, cell);
    let body = rows
        .iter()
        .map(|r| {
            vec![
                r.method.to_string(),
                r.x.to_string(),
                r.values.n.to_string(),
                cell(r.values.mean),
                cell(r.values.std),
                cell(r.values.std / (r.values.n as f64).sqrt()),
                cell(r.evaluations),
                opt(r.per_round),
                opt(r.guarantee.map(|g| g.epsilon)),
                opt(r.guarantee.map(|g| g.delta)),
                r.guarantee
                    .map_or_else(String::new, |g| g.rule.name().to_string()),
            ]
        })
        .collect();
    (header, body)
}

/// One row per (x, method) of a sweep whose jobs are `(x index, method index, trial)`, the
/// values divided by `scale(x)`.
fn summarise_jobs(
    jobs: &[(usize, usize, usize)],
    outcomes: &[Outcome],
    xs: &[usize],
    keys: &[&'static str],
    scale: impl Fn(usize) -> f64,
) -> Vec<Row> {
    let mut rows = Vec::new();
    for (xi, &x) in xs.iter().enumerate() {
        for (mi, &key) in keys.iter().enumerate() {
            let mine: Vec<&Outcome> = jobs
                .iter()
                .zip(outcomes)
                .filter(|((a, b, _), _)| *a == xi && *b == mi)
                .map(|(_, o)| o)
                .collect();
            rows.push(summarise(key, x, &mine, scale(x)));
        }
    }
    rows
}

/// The mean of `key`'s row at `x`.
fn mean_at(rows: &[Row], x: usize, key: &str) -> f64 {
    rows.iter()
        .find(|r| r.x == x && r.method == key)
        .expect("invariant: every method runs at every x")
        .values
        .mean
}

/// Adds one mean ± 95% curve per method.
fn mean_curves(
    mut chart: LineChart,
    rows: &[Row],
    methods: impl IntoIterator<Item = (&'static str, String, Style)>,
) -> LineChart {
    for (key, label, style) in methods {
        let points = rows
            .iter()
            .filter(|r| r.method == key)
            .map(|r| r.values.point(r.x as f64))
            .collect();
        chart = chart.series(Series::new(label, style).points(points));
    }
    chart
}

/// The methods the authors' tables report, in their column order.
const REPORTED: [Method; 4] = [
    Method::ContinuousPaperT,
    Method::Greedy,
    Method::PrivateGreedy,
    Method::Random,
];

/// The three figures of an instance, each with one message, saved as `name`,
/// `name_reported` and `name_accounting`: every method's mean curve as measured here; the
/// curves the authors published (`reported(i)` for the i-th of [`REPORTED`]), dashed, in each
/// method's colour, on the same y range; and each private method under the accountant's best
/// rule beside basic composition.
fn save_figures(
    ctx: &mut Context,
    name: &str,
    chart: LineChart,
    short: &str,
    rows: &[Row],
    steps: usize,
    reported: impl Fn(usize) -> Vec<Point>,
) -> anyhow::Result<()> {
    let mut accounting = chart.clone();
    accounting.title = format!("What the accounting adds: {short}");
    let accounting = mean_curves(
        accounting,
        rows,
        Method::ACCOUNTING.map(|m| m.series(steps)),
    );
    let mut published = chart.clone();
    published.title = format!("Published (Chaturvedi et al.): {short}");
    let mut measured = mean_curves(chart, rows, Method::ALL.map(|m| m.series(steps)));
    measured.title = format!("Measured: {}", measured.title);
    for (i, method) in REPORTED.into_iter().enumerate() {
        let style = Style {
            marker: Marker::None,
            dashed: true,
            ..method.style()
        };
        published = published.series(
            Series::new(format!("reported: {}", method.label(steps)), style).points(reported(i)),
        );
    }
    // One y range for both, so that the two panels can be compared at a glance.
    let ys = || {
        measured
            .series
            .iter()
            .chain(&published.series)
            .flat_map(|s| s.points.iter())
            .flat_map(|p| [p.y - p.err, p.y + p.err])
    };
    let lo = ys().fold(f64::INFINITY, f64::min);
    let hi = ys().fold(f64::NEG_INFINITY, f64::max);
    if lo.is_finite() && hi > lo {
        let pad = 0.05 * (hi - lo);
        measured = measured.y_range(lo - pad, hi + pad);
        published = published.y_range(lo - pad, hi + pad);
    }
    ctx.figure(name, &measured)?;
    ctx.figure(&format!("{name}_reported"), &published)?;
    ctx.figure(&format!("{name}_accounting"), &accounting)
}

fn summarise(method: &'static str, x: usize, outcomes: &[&Outcome], scale: f64) -> Row {
    let values: Vec<f64> = outcomes.iter().map(|o| o.value / scale).collect();
    Row {
        method,
        x,
        values: Summary::of(&values),
        evaluations: outcomes.iter().map(|o| o.evaluations as f64).sum::<f64>()
            / outcomes.len() as f64,
        per_round: outcomes.iter().find_map(|o| o.per_round),
        guarantee: outcomes.iter().find_map(|o| o.guarantee),
    }
}

/// The numbers of the authors' `reported_aaai_exp1.csv` (mean ± sd over 400 runs) and
/// `reported_aaai_exp2.csv` (per-point means), as recorded in the notes.
const REPORTED_CARD: [(usize, [f64; 8]); 6] = [
    (10, [76.17, 10.99, 88.85, 0.51, 76.23, 12.08, 72.32, 14.01]),
    (13, [79.79, 8.35, 88.88, 0.52, 78.51, 10.61, 76.69, 12.06]),
    (16, [81.65, 6.72, 88.85, 0.55, 79.99, 9.70, 79.84, 10.02]),
    (19, [82.89, 5.70, 88.82, 0.42, 81.61, 8.11, 81.31, 8.52]),
    (22, [84.06, 3.87, 88.99, 0.48, 83.59, 6.48, 82.78, 7.37]),
    (25, [84.76, 3.66, 88.98, 0.48, 84.90, 4.32, 84.17, 5.18]),
];
const REPORTED_TRAP: [(usize, [f64; 4]); 10] = [
    (1000, [0.7984, 0.7695, 0.7958, 0.7995]),
    (2000, [0.8004, 0.7714, 0.7999, 0.7974]),
    (3000, [0.7998, 0.7704, 0.7929, 0.7990]),
    (4000, [0.8006, 0.7720, 0.7944, 0.8001]),
    (5000, [0.8027, 0.7717, 0.7915, 0.8002]),
    (6000, [0.8004, 0.7717, 0.7927, 0.7982]),
    (7000, [0.7999, 0.7713, 0.7893, 0.7985]),
    (8000, [0.7968, 0.7712, 0.7844, 0.7999]),
    (9000, [0.7994, 0.7712, 0.7871, 0.7993]),
    (10000, [0.7999, 0.7712, 0.7842, 0.7991]),
];

/// Runs `disguise experiment matroid`.
pub fn run(args: Args) -> anyhow::Result<Report> {
    let parts = if args.parts.is_empty() {
        vec![
            Part::Cardinality,
            Part::Partition,
            Part::KSubmodular,
            Part::Gadget,
        ]
    } else {
        args.parts.clone()
    };
    let mut ctx = Context::new("matroid", args.common, 400)?;
    let raw = load_raw(&ctx)?;
    let mut table = Vec::new();
    write_reported(&mut ctx)?;
    if parts.contains(&Part::Cardinality) {
        cardinality(&mut ctx, &raw, &mut table)?;
    }
    if parts.contains(&Part::Partition) {
        partition(&mut ctx, &raw, &mut table)?;
    }
    if parts.contains(&Part::KSubmodular) {
        k_submodular(&mut ctx, &raw, &mut table)?;
    }
    if parts.contains(&Part::Gadget) {
        gadget(&mut ctx, &mut table)?;
    }
    Ok(ctx.finish(table))
}

/// People covered by x only, by x and y, … in one copy of the gadget: S (covered by x and
/// y), E (by y only, a few), T (by z only, one fewer than S).
const GADGET_S: usize = 100;
const GADGET_E: usize = 2;
/// Total ε of the ε sweep (copies fixed at [`GADGET_COPIES`]).
const GADGET_EPSILONS: [f64; 6] = [0.03, 0.1, 0.3, 1.0, 3.0, 10.0];
const GADGET_COPIES: usize = 4;
/// Copies r of the rank sweep (rank 2r; ε fixed at [`GADGET_EPSILON`]).
const GADGET_RANKS: [usize; 5] = [1, 2, 4, 8, 16];
const GADGET_EPSILON: f64 = 1.0;
const GADGET_DELTA: f64 = 1e-6;

/// The methods of the gadget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GMethod {
    Greedy,
    PrivateGreedy,
    Continuous,
    Random,
}

impl GMethod {
    const ALL: [GMethod; 4] = [
        GMethod::Greedy,
        GMethod::PrivateGreedy,
        GMethod::Continuous,
        GMethod::Random,
    ];
    fn key(self) -> &'static str {
        match self {
            GMethod::Greedy => "non-private-greedy",
            GMethod::PrivateGreedy => "private-greedy",
            GMethod::Continuous => "continuous-greedy",
            GMethod::Random => "random",
        }
    }
    fn label(self) -> &'static str {
        match self {
            GMethod::Greedy => "non-private greedy",
            GMethod::PrivateGreedy => "private greedy (Mitrovic Alg. 2)",
            GMethod::Continuous => "private continuous greedy, T = r²",
            GMethod::Random => "random base",
        }
    }
    fn style(self) -> Style {
        match self {
            GMethod::Greedy => Algorithm::NonPrivate.style(),
            GMethod::PrivateGreedy => Algorithm::Exponential.style(),
            GMethod::Continuous => Algorithm::ContinuousGreedy.style(),
            GMethod::Random => Algorithm::Random.style(),
        }
    }
}

/// `copies` copies of the greedy trap on a partition matroid: in copy j, part {xⱼ} and part
/// {yⱼ, zⱼ}, capacity 1 each; xⱼ covers Sⱼ, yⱼ covers Sⱼ ∪ Eⱼ, zⱼ covers Tⱼ. The greedy takes
/// yⱼ (the largest), then xⱼ, which adds nothing: |S| + |E| per copy; the optimum {xⱼ, zⱼ}
/// has 2|S| − 1. Returns the objective, the constraint and OPT.
fn gadget_instance(
    copies: usize,
) -> anyhow::Result<(disguise::objective::Coverage, Partition, f64)> {
    let mut covers: Vec<Vec<usize>> = Vec::new();
    for j in 0..copies {
        let (x, y, z) = (3 * j, 3 * j + 1, 3 * j + 2);
        covers.extend(std::iter::repeat_n(vec![x, y], GADGET_S));
        covers.extend(std::iter::repeat_n(vec![y], GADGET_E));
        covers.extend(std::iter::repeat_n(vec![z], GADGET_S - 1));
    }
    let f = disguise::objective::Coverage::new(3 * copies, &covers)?;
    let groups: Vec<usize> = (0..3 * copies)
        .map(|e| 2 * (e / 3) + usize::from(e % 3 != 0))
        .collect();
    let constraint = Partition::new(groups, vec![1; 2 * copies])?;
    let opt = (copies * (2 * GADGET_S - 1)) as f64;
    Ok((f, constraint, opt))
}

/// One run of `method` on the gadget at total ε `epsilon`: f(S)/OPT.
fn gadget_run(
    method: GMethod,
    f: &disguise::objective::Coverage,
    constraint: &Partition,
    opt: f64,
    epsilon: f64,
    rng: &mut SecureRng,
) -> anyhow::Result<f64> {
    let private = || -> anyhow::Result<Procedure<'static>> {
        Ok(Procedure::private(
            SelectorKind::Exponential,
            Budget::total(epsilon, GADGET_DELTA)?,
        ))
    };
    let value = match method {
        GMethod::Greedy => standard_greedy(f, constraint)?.value,
        GMethod::PrivateGreedy => greedy(f, constraint, &private()?, rng)?.value,
        GMethod::Continuous => {
            continuous_greedy(
                &f.multilinear()?,
                constraint,
                &ContinuousGreedy::new(),
                &private()?,
                rng,
            )?
            .value
        }
        GMethod::Random => f.evaluate(&random_base(constraint, rng)),
    };
    Ok(value / opt)
}

/// The gadget where the theory says the continuous greedy must beat the discrete greedy:
/// utility as a fraction of OPT against ε (fixed rank) and against the rank (fixed ε).
fn gadget(ctx: &mut Context, table: &mut Vec<String>) -> anyhow::Result<()> {
    ctx.note(&format!(
        "matroid/gadget: |S| = {GADGET_S}, |E| = {GADGET_E}, |T| = {} per copy; ε sweep at \
         {GADGET_COPIES} copies, rank sweep at ε = {GADGET_EPSILON}",
        GADGET_S - 1
    ));
    let sweeps: [(&str, Vec<(usize, f64)>); 2] = [
        (
            "epsilon",
            GADGET_EPSILONS
                .iter()
                .map(|&e| (GADGET_COPIES, e))
                .collect(),
        ),
        (
            "rank",
            GADGET_RANKS.iter().map(|&r| (r, GADGET_EPSILON)).collect(),
        ),
    ];
    for (sweep, points) in sweeps {
        let instances: Vec<_> = points
            .iter()
            .map(|&(copies, _)| gadget_instance(copies))
            .collect::<anyhow::Result<_>>()?;
        let mut jobs = Vec::new();
        for pi in 0..points.len() {
            for mi in 0..GMethod::ALL.len() {
                for t in 0..ctx.trials {
                    jobs.push((pi, mi, t));
                }
            }
        }
        let values = ctx.run_jobs(&format!("gadget {sweep}"), &jobs, |&(pi, mi, _), rng| {
            let (f, c, opt) = &instances[pi];
            gadget_run(GMethod::ALL[mi], f, c, *opt, points[pi].1, rng)
        })?;
        let x_of = |pi: usize| -> f64 {
            if sweep == "epsilon" {
                points[pi].1
            } else {
                (2 * points[pi].0) as f64
            }
        };
        let mut body = Vec::new();
        let mut chart = if sweep == "epsilon" {
            LineChart::new(
                format!(
                    "Greedy-trap gadget, rank {}: utility vs ε",
                    2 * GADGET_COPIES
                ),
                "total ε (log scale)",
                "f(S)/OPT, mean ± 95% CI",
            )
            .log_x()
        } else {
            LineChart::new(
                format!("Greedy-trap gadget, ε = {GADGET_EPSILON}: utility vs rank"),
                "rank r(M) = 2 × copies (log scale)",
                "f(S)/OPT, mean ± 95% CI",
            )
            .log_x()
        }
        .x_ticks((0..points.len()).map(x_of).collect())
        .uncertainty(Uncertainty::Band);
        for (mi, method) in GMethod::ALL.iter().enumerate() {
            let mut line = Vec::new();
            for pi in 0..points.len() {
                let xs: Vec<f64> = jobs
                    .iter()
                    .zip(&values)
                    .filter(|((p, m, _), _)| *p == pi && *m == mi)
                    .map(|(_, v)| *v)
                    .collect();
                let summary = Summary::of(&xs);
                line.push(summary.point(x_of(pi)));
                body.push(vec![
                    method.key().to_string(),
                    cell(x_of(pi)),
                    summary.n.to_string(),
                    cell(summary.mean),
                    cell(summary.std),
                ]);
            }
            chart = chart.series(Series::new(method.label(), method.style()).points(line));
        }
        ctx.csv(
            &format!("gadget_{sweep}"),
            &["method", sweep, "runs", "mean", "sd"],
            &body,
        )?;
        ctx.figure(&format!("gadget_{sweep}"), &chart)?;
        table.push(format!("gadget, {sweep} sweep (mean f(S)/OPT: greedy, private greedy, continuous greedy, random):"));
        for pi in 0..points.len() {
            let mean = |mi: usize| -> f64 {
                let xs: Vec<f64> = jobs
                    .iter()
                    .zip(&values)
                    .filter(|((p, m, _), _)| *p == pi && *m == mi)
                    .map(|(_, v)| *v)
                    .collect();
                Summary::of(&xs).mean
            };
            table.push(format!(
                "{:>8}  {:.3}  {:.3}  {:.3}  {:.3}",
                x_of(pi),
                mean(0),
                mean(1),
                mean(2),
                mean(3)
            ));
        }
    }
    Ok(())
}

fn write_reported(ctx: &mut Context) -> anyhow::Result<()> {
    // The authors' methods, in the order of their columns.
    const METHODS: [&str; 4] = [
        "continuous-greedy",
        "non-private-greedy",
        "private-greedy",
        "random",
    ];
    let mut rows = Vec::new();
    let mut push = |experiment: &str, x: usize, i: usize, mean: f64, sd: String| {
        let (experiment, method) = (experiment.to_string(), METHODS[i].to_string());
        rows.push(vec![experiment, method, x.to_string(), cell(mean), sd]);
    };
    for (k, v) in REPORTED_CARD {
        for i in 0..METHODS.len() {
            push("cardinality", k, i, v[2 * i], cell(v[2 * i + 1]));
        }
    }
    for (n, v) in REPORTED_TRAP {
        for (i, mean) in v.into_iter().enumerate() {
            push("partition", n, i, mean, String::new());
        }
    }
    ctx.csv(
        "reported",
        &["experiment", "method", "x", "mean", "sd"],
        &rows,
    )
}

/// Exp. 1: cardinality constraint, 20 grid + 80 spurious candidates.
fn cardinality(ctx: &mut Context, raw: &Raw, table: &mut Vec<String>) -> anyhow::Result<()> {
    let inside: Vec<[f64; 2]> = raw
        .points
        .iter()
        .copied()
        .filter(|&p| in_quad(p, &QUAD))
        .collect();
    let pool = draws(ctx, "cardinality pool", &inside, POOL, 1)?.remove(0);
    let [n_corner, e_corner, s_corner, w_corner] = QUAD;
    let mut candidates = Vec::new();
    for i in 0..4 {
        for j in 0..5 {
            let (a, b) = (j as f64 / 4.0, i as f64 / 19.0);
            candidates.push([
                s_corner[0] + a * (e_corner[0] - s_corner[0]) + b * (w_corner[0] - s_corner[0]),
                s_corner[1] + a * (e_corner[1] - s_corner[1]) + b * (w_corner[1] - s_corner[1]),
            ]);
        }
    }
    candidates.extend(std::iter::repeat_n(n_corner, 80));
    let groups = ctx.trials.div_ceil(PER_DRAW);
    let data = draws(ctx, "cardinality draws", &pool, CARD_N, groups)?;
    let objectives = data
        .iter()
        .map(|d| {
            FacilityLocation::new(
                Metric::Manhattan,
                d,
                &candidates,
                Normalizer::Fixed(QUAD_NORM),
            )
        })
        .collect::<disguise::Result<Vec<_>>>()?;
    ctx.note(&format!(
        "matroid/cardinality: {} pickups in the quadrilateral, pool {}, n = {CARD_N} per draw, \
         100 candidates, k ∈ {CARD_KS:?}",
        inside.len(),
        pool.len()
    ));
    let delta = (CARD_N as f64).powf(-1.5);
    let chart = LineChart::new(
        format!("cardinality, 20 grid + 80 spurious candidates, ε = {EPSILON}"),
        "k",
        "utility f(S) (max 100), mean ± 95% CI",
    );
    // The authors' table holds mean and sd over 400 runs: a 95% bar is 1.96·sd/20.
    let curve = |i: usize| {
        let (mean, sd) = (2 * i, 2 * i + 1);
        let at = |(k, v): &(usize, [f64; 8])| Point::new(*k as f64, v[mean], 1.96 * v[sd] / 20.0);
        REPORTED_CARD.iter().map(at).collect()
    };
    // Their means are at the even places of each row: CG, greedy, private greedy, random.
    let reported = REPORTED_CARD.map(|(k, v)| (k, [v[0], v[2], v[4], v[6]]));
    let sweep = Sweep {
        name: "cardinality",
        xs: &CARD_KS,
        per_x: &|_| 1.0,
        steps: CARD_STEPS,
        chart,
        short: format!("cardinality, ε = {EPSILON}"),
        curve: &curve,
        heading: "cardinality (mean utility out of 100; reported by Chaturvedi et al. in brackets):",
        x: ("k", 2),
        reported: &reported,
    };
    sweep.run(ctx, table, |ki, method, t, rng| {
        let c = Cardinality::new(candidates.len(), CARD_KS[ki]);
        run_method(
            method,
            &objectives[t / PER_DRAW],
            &c,
            CARD_STEPS,
            delta,
            rng,
        )
    })
}

/// Exp. 2: the partition-matroid greedy trap.
fn partition(ctx: &mut Context, raw: &Raw, table: &mut Vec<String>) -> anyhow::Result<()> {
    let inside: Vec<[f64; 2]> = raw
        .points
        .iter()
        .copied()
        .filter(|p| {
            (BOX[0][0]..=BOX[1][0]).contains(&p[0]) && (BOX[0][1]..=BOX[1][1]).contains(&p[1])
        })
        .collect();
    let pool = draws(ctx, "partition pool", &inside, POOL, 1)?.remove(0);
    let constraint = Partition::new(vec![0, 1, 1], vec![1, 1])?;
    let groups = ctx.trials.div_ceil(PER_DRAW);
    ctx.note(&format!(
        "matroid/partition: {} pickups in the box, pool {}, n ∈ {TRAP_NS:?}",
        inside.len(),
        pool.len()
    ));
    let mut objectives = Vec::new();
    for &n in &TRAP_NS {
        let data = draws(ctx, "partition draws", &pool, n, groups)?;
        objectives.push(
            data.iter()
                .map(|d| {
                    FacilityLocation::new(Metric::Manhattan, d, &TRAP, Normalizer::Fixed(BOX_NORM))
                })
                .collect::<disguise::Result<Vec<_>>>()?,
        );
    }
    let chart = LineChart::new(
        format!("partition trap {{0}} | {{1, 2}}, capacities 1, ε = {EPSILON}"),
        "number of pickups n",
        "utility per pickup, mean ± 95% CI",
    );
    let curve = |i: usize| {
        let at = |(n, v): &(usize, [f64; 4])| Point::new(*n as f64, v[i], 0.0);
        REPORTED_TRAP.iter().map(at).collect()
    };
    let sweep = Sweep {
        name: "partition",
        xs: &TRAP_NS,
        per_x: &|n| n as f64,
        steps: TRAP_STEPS,
        chart,
        short: format!("partition-matroid trap, ε = {EPSILON}"),
        curve: &curve,
        heading: "partition trap (mean utility per pickup; reported in brackets):",
        x: ("n", 4),
        reported: &REPORTED_TRAP,
    };
    sweep.run(ctx, table, |ni, method, t, rng| {
        let delta = (TRAP_NS[ni] as f64).powf(-1.5);
        let f = &objectives[ni][t / PER_DRAW];
        run_method(method, f, &constraint, TRAP_STEPS, delta, rng)
    })
}

/// One of the two experiments of Chaturvedi et al.: every method of [`Method::RUN`] at every
/// x, `ctx.trials` times, then its CSV, figures and summary table.
struct Sweep<'a> {
    /// The experiment's name: the files' and the progress bar's.
    name: &'static str,
    /// The x values.
    xs: &'a [usize],
    /// What a utility is divided by at x (1, or the number of records).
    per_x: &'a dyn Fn(usize) -> f64,
    /// The continuous greedy's T as in the authors' code.
    steps: usize,
    /// The figure, before its x ticks.
    chart: LineChart,
    /// The figures' short title.
    short: String,
    /// The authors' curve of method i ([`save_figures`]).
    curve: &'a dyn Fn(usize) -> Vec<Point>,
    /// The summary table's first line.
    heading: &'static str,
    /// The table's x column: name and decimals ([`push_comparison`]).
    x: (&'static str, usize),
    /// The authors' means ([`push_comparison`]).
    reported: &'a [(usize, [f64; 4])],
}

impl Sweep<'_> {
    /// Runs `method` at x index `xi` for trial `t` with `run`, then writes everything.
    fn run(
        self,
        ctx: &mut Context,
        table: &mut Vec<String>,
        run: impl Fn(usize, Method, usize, &mut SecureRng) -> anyhow::Result<Outcome> + Sync,
    ) -> anyhow::Result<()> {
        let mut jobs = Vec::new();
        for xi in 0..self.xs.len() {
            for mi in 0..Method::RUN.len() {
                jobs.extend((0..ctx.trials).map(|t| (xi, mi, t)));
            }
        }
        let label = format!("{} runs", self.name);
        let outcomes = ctx.run_jobs(&label, &jobs, |&(xi, mi, t), rng| {
            run(xi, Method::RUN[mi], t, rng)
        })?;
        let keys = Method::RUN.map(Method::key);
        let rows = summarise_jobs(&jobs, &outcomes, self.xs, &keys, self.per_x);
        let (header, body) = rows_csv(&rows);
        ctx.csv(self.name, &header, &body)?;
        let chart = (self.chart)
            .x_ticks(self.xs.iter().map(|&x| x as f64).collect())
            .uncertainty(Uncertainty::Bars);
        let (name, short, steps) = (self.name, &self.short, self.steps);
        save_figures(ctx, name, chart, short, &rows, steps, self.curve)?;
        push_comparison(table, self.heading, self.x, steps, &rows, self.reported);
        Ok(())
    }
}

/// The summary table of one experiment: for each x, every method's mean utility and, in
/// brackets, the mean the authors reported (`reported` holds, per x, theirs for the
/// continuous greedy with `steps` steps, the greedy, the private greedy and random; they did
/// not run T = r²). `x` is the column's name and the decimals of every number.
fn push_comparison(
    table: &mut Vec<String>,
    title: &str,
    (x, decimals): (&str, usize),
    steps: usize,
    rows: &[Row],
    reported: &[(usize, [f64; 4])],
) {
    let continuous = format!("CG T={steps}");
    let shown = [
        (Method::Greedy, "greedy", Some(1)),
        (Method::PrivateGreedy, "private greedy", Some(2)),
        (Method::ContinuousPaperT, continuous.as_str(), Some(0)),
        (Method::ContinuousRankSquared, "CG T=r²", None),
        (Method::Random, "random", Some(3)),
    ];
    table.push(title.into());
    let mut header = format!("{x:>6}");
    for (_, name, _) in &shown {
        header.push_str(&format!("  {name:>16}"));
    }
    table.push(header);
    for &(at, theirs) in reported {
        let mut line = format!("{at:>6}");
        for &(method, _, place) in &shown {
            let ours = mean_at(rows, at, method.key());
            let theirs = place.map_or(String::new(), |i| format!("[{:.decimals$}]", theirs[i]));
            line.push_str(&format!("  {ours:>7.decimals$} {theirs:>8}"));
        }
        table.push(line);
    }
    table.push(String::new());
}

/// The k-submodular methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KMethod {
    Greedy,
    Algorithm3,
    Algorithm4,
    Random,
}

impl KMethod {
    const ALL: [KMethod; 4] = [
        KMethod::Greedy,
        KMethod::Algorithm3,
        KMethod::Algorithm4,
        KMethod::Random,
    ];
    fn key(self) -> &'static str {
        match self {
            KMethod::Greedy => "non-private-greedy",
            KMethod::Algorithm3 => "private-algorithm-3",
            KMethod::Algorithm4 => "private-algorithm-4",
            KMethod::Random => "random",
        }
    }
    fn label(self) -> &'static str {
        match self {
            KMethod::Greedy => "non-private k-submodular greedy",
            KMethod::Algorithm3 => "private greedy (Algorithm 3)",
            KMethod::Algorithm4 => "private subsampled greedy (Algorithm 4, γ = 0.1)",
            KMethod::Random => "random locations and shifts",
        }
    }
    fn style(self) -> Style {
        match self {
            KMethod::Greedy => Algorithm::NonPrivate.style(),
            KMethod::Algorithm3 => Algorithm::Exponential.style(),
            KMethod::Algorithm4 => Algorithm::Subsampled.style(),
            KMethod::Random => Algorithm::Random.style(),
        }
    }
}

/// k-type facility location on the Manhattan pickups typed by shift.
fn k_submodular(ctx: &mut Context, raw: &Raw, table: &mut Vec<String>) -> anyhow::Result<()> {
    // Rebuild pickups_manhattan_10k.csv (same box, same deterministic stride) with hours.
    let in_box: Vec<usize> = (0..raw.points.len())
        .filter(|&i| {
            let [la, lo] = raw.points[i];
            (40.70..=40.88).contains(&la) && (-74.02..=-73.91).contains(&lo)
        })
        .collect();
    let big_n = in_box.len();
    let picked: Vec<usize> = (0..POOL).map(|m| in_box[m * big_n / POOL]).collect();
    let records: Vec<[f64; 2]> = picked.iter().map(|&i| raw.points[i]).collect();
    let shift = |h: u8| match h {
        6..=13 => 1,
        14..=21 => 2,
        _ => 0,
    };
    let types: Vec<usize> = picked.iter().map(|&i| shift(raw.hours[i])).collect();
    let cand_path = ctx.data(LANDMARKS)?;
    let c = read_columns(&cand_path, &["lat", "lon"], Some("name"))?;
    let candidates: Vec<[f64; 2]> = c.numeric[0]
        .iter()
        .zip(&c.numeric[1])
        .map(|(&a, &b)| [a, b])
        .collect();
    let f = k_type_facility_location(
        Metric::Manhattan,
        &records,
        &types,
        SHIFTS.len(),
        &candidates,
        Normalizer::Fixed(0.266),
    )?;
    let mut per_type = [0usize; 3];
    for &t in &types {
        per_type[t] += 1;
    }
    ctx.note(&format!(
        "matroid/k-submodular: {} pickups ({} of {big_n} in the box, strided) by shift {:?}, \
         {} landmarks, r ∈ {KSUB_RS:?}",
        records.len(),
        records.len(),
        per_type,
        candidates.len()
    ));
    let n = records.len() as f64;
    let m = candidates.len();
    let mut jobs = Vec::new();
    for ri in 0..KSUB_RS.len() {
        for mi in 0..KMethod::ALL.len() {
            let trials = if KMethod::ALL[mi] == KMethod::Greedy {
                1
            } else {
                ctx.trials
            };
            for t in 0..trials {
                jobs.push((ri, mi, t));
            }
        }
    }
    let outcomes = ctx.run_jobs("k-submodular runs", &jobs, |&(ri, mi, _), rng| {
        let r = KSUB_RS[ri];
        let c = Cardinality::new(m, r);
        let private = Procedure::private(
            SelectorKind::Exponential,
            Budget::total(EPSILON, KSUB_DELTA)?,
        );
        let a = match KMethod::ALL[mi] {
            KMethod::Greedy => k_submodular_greedy(&f, &c, &Procedure::Argmax, rng)?,
            KMethod::Algorithm3 => k_submodular_greedy(&f, &c, &private, rng)?,
            KMethod::Algorithm4 => {
                k_submodular_subsample_greedy(&f, &c, KSUB_GAMMA, &private, rng)?
            }
            KMethod::Random => {
                let picks = sample_distinct(rng, m as u64, r)?;
                let pairs: Vec<(usize, usize)> = picks
                    .into_iter()
                    .map(|v| (v as usize, uniform_below(rng, SHIFTS.len() as u64) as usize))
                    .collect();
                return Ok(Outcome {
                    value: f.evaluate(&pairs),
                    evaluations: 0,
                    per_round: None,
                    guarantee: None,
                });
            }
        };
        debug_assert!(c.is_independent(&a.solution.elements));
        Ok(Outcome {
            value: a.solution.value,
            evaluations: a.solution.gain_evaluations,
            per_round: a.solution.budget_split.map(|b| b.per_round_epsilon),
            guarantee: a.solution.guarantee,
        })
    })?;
    let keys = KMethod::ALL.map(KMethod::key);
    let rows = summarise_jobs(&jobs, &outcomes, &KSUB_RS, &keys, |_| n);
    let (header, body) = rows_csv(&rows);
    ctx.csv("ksub", &header, &body)?;
    let chart = LineChart::new(
        format!("k-type facility location: pickups by shift (k = 3), ε = {EPSILON}"),
        "number of locations r",
        "utility per pickup, mean ± 95% CI",
    )
    .x_ticks(KSUB_RS.iter().map(|&r| r as f64).collect())
    .uncertainty(Uncertainty::Bars);
    let chart = mean_curves(
        chart,
        &rows,
        KMethod::ALL.map(|m| (m.key(), m.label().to_string(), m.style())),
    );
    ctx.figure("ksub_utility", &chart)?;
    // Evaluations. Under a cardinality constraint the counts are data-independent:
    // Algorithm 3 scores k·(m − j) pairs in round j, Algorithm 4 k·m_j (the library's
    // `k_submodular_sample_size`; the runs above measured exactly these for m = 33). Shown
    // for a large ground set, where the subsampling pays off.
    let k = f.types();
    let (big_m, rs) = (EVAL_M, EVAL_RS);
    let alg3 = |r: usize| (0..r).map(|j| k * (big_m - j)).sum::<usize>() as f64;
    let alg4 = |r: usize| {
        (0..r)
            .map(|j| k * k_submodular_sample_size(big_m - j, j, r, KSUB_GAMMA))
            .sum::<usize>() as f64
    };
    let bound = |r: usize| {
        let h: f64 = (1..=r).map(|i| 1.0 / i as f64).sum();
        k as f64 * (big_m as f64 * h * (r as f64 / KSUB_GAMMA).ln() + r as f64)
    };
    let mut eval_rows = Vec::new();
    for &r in &rs {
        eval_rows.push(vec![
            big_m.to_string(),
            r.to_string(),
            cell(alg3(r)),
            cell(alg4(r)),
            cell(bound(r)),
        ]);
    }
    for &r in &KSUB_RS {
        eval_rows.push(vec![
            m.to_string(),
            r.to_string(),
            cell((0..r).map(|j| k * (m - j)).sum::<usize>() as f64),
            cell(
                (0..r)
                    .map(|j| k * k_submodular_sample_size(m - j, j, r, KSUB_GAMMA))
                    .sum::<usize>() as f64,
            ),
            cell({
                let h: f64 = (1..=r).map(|i| 1.0 / i as f64).sum();
                k as f64 * (m as f64 * h * (r as f64 / KSUB_GAMMA).ln() + r as f64)
            }),
        ]);
    }
    ctx.csv(
        "ksub_evaluations",
        &[
            "candidates",
            "r",
            "algorithm_3",
            "algorithm_4",
            "algorithm_4_bound",
        ],
        &eval_rows,
    )?;
    let line = |g: &dyn Fn(usize) -> f64| -> Vec<Point> {
        rs.iter()
            .map(|&r| Point::new(r as f64, g(r), 0.0))
            .collect()
    };
    let chart = LineChart::new(
        format!("Gain evaluations, k = 3 types, m = {big_m} candidates"),
        "number of locations r",
        "marginal gains evaluated per run",
    )
    .log_x()
    .x_ticks(rs.iter().map(|&r| r as f64).collect())
    .series(
        Series::new(KMethod::Algorithm3.label(), KMethod::Algorithm3.style()).points(line(&alg3)),
    )
    .series(
        Series::new(KMethod::Algorithm4.label(), KMethod::Algorithm4.style()).points(line(&alg4)),
    )
    .series(
        Series::new(
            "bound k·(m·H_r·ln(r/γ) + r)",
            // Algorithm 4's bound: its colour, dashed, no markers.
            Algorithm::Subsampled.style().dashed().marker(Marker::None),
        )
        .points(line(&bound)),
    );
    ctx.figure("ksub_evaluations", &chart)?;
    table.push("k-type facility location (mean utility per pickup; evaluations):".into());
    table.push(format!(
        "{:>4}  {:>8}  {:>16}  {:>16}  {:>8}",
        "r", "greedy", "Algorithm 3", "Algorithm 4", "random"
    ));
    for &r in &KSUB_RS {
        let get = |m: KMethod| {
            rows.iter()
                .find(|x| x.x == r && x.method == m.key())
                .expect("invariant: every method runs at every r")
        };
        table.push(format!(
            "{r:>4}  {:>8.4}  {:>7.4} ({:>6.0})  {:>7.4} ({:>6.0})  {:>8.4}",
            get(KMethod::Greedy).values.mean,
            get(KMethod::Algorithm3).values.mean,
            get(KMethod::Algorithm3).evaluations,
            get(KMethod::Algorithm4).values.mean,
            get(KMethod::Algorithm4).evaluations,
            get(KMethod::Random).values.mean,
        ));
    }
    Ok(())
}
