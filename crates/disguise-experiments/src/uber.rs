//! `disguise experiment uber`: Mitrovic et al. (2017) §6.1, Figure 1 — location privacy.
//!
//! 10,000 Uber pickups in Manhattan (April 2014) are the private records; the public
//! candidates are 33 landmarks or a 33-point grid. The objective is facility location with
//! the paper's normalised Manhattan distance, f_D(S) = Σ_i (1 − min(1, min_{j∈S} M(i, j))),
//! M = L1 distance in degrees / 0.266, which is 1-decomposable (sensitivity 1). Utility is
//! reported normalised, f_D(S)/n ∈ [0, 1].
//!
//! Methods: non-private greedy, greedy with the exponential mechanism (EM), greedy with
//! the large margin mechanism in both variants (Mitrovic et al.'s Algorithm 5, and
//! Chaudhuri et al. 2014), and uniformly random k-subsets. ε is the total budget of the
//! k rounds, δ = 2^-20, split either by basic composition (ε₀ = ε/k, δ₀ = δ/k: the paper's
//! setting) or by the accountant's best rule for that (ε, δ, k).
//!
//! Outputs (prefix `uber_`): `utility.csv` (tidy: one row per candidate set × sweep ×
//! composition × method × k × ε), `lmm_margins.csv` (how often the large margin
//! mechanisms found a margin in each round), `maps.csv` (the representative top-3 sets),
//! `pick_rates.csv` (how often each candidate is chosen at k = 3, ε = 0.1, basic
//! composition) and the figures `utility_k_*`, `utility_epsilon_*` and `map_*`.

use crate::palette::Algorithm;
use crate::plot::{LineChart, Map, Pick, Series, Style};
use crate::{Common, Context, Report, SUMMARY_COLUMNS, Summary, cell, pick_rates, short_name};
use anyhow::Context as _;
use disguise::SecureRng;
use disguise::constraint::Cardinality;
use disguise::data::read_columns;
use disguise::maximize::{Budget, Procedure, greedy};
use disguise::noise::sample_distinct;
use disguise::objective::{FacilityLocation, Metric, Normalizer, SetFunction};
use disguise::privacy::budget::{BudgetQuery, plan};
use disguise::privacy::compose::Rule;
use disguise::privacy::{Delta, Epsilon, Guarantee};
use disguise::select::SelectorKind;
use std::collections::HashMap;

/// Arguments of `disguise experiment uber`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    common: Common,
}

/// The paper's privacy parameters: total ε of the k-sweep and δ.
const EPSILON: f64 = 0.1;
const DELTA: f64 = 1.0 / (1u64 << 20) as f64;
/// The normaliser m of §6.1 (L1 distance in degrees across Manhattan).
const NORMALIZER: f64 = 0.266;
/// k of the ε-sweep and of the maps.
const K_FIXED: usize = 3;
const K_MAX: usize = 10;
const EPSILONS: [f64; 8] = [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0];
const PICKUPS: &str = "uber_nyc_apr14/pickups_manhattan_10k.csv";
const CANDIDATE_SETS: [(&str, &str, &str); 2] = [
    (
        "landmarks",
        "33 popular locations",
        "manhattan_candidates/landmarks_33.csv",
    ),
    ("grid", "33-point grid", "manhattan_candidates/grid_33.csv"),
];

/// A selection method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Method {
    Greedy,
    Em,
    Lmm,
    LmmChaudhuri,
    Random,
}

impl Method {
    pub(super) const ALL: [Method; 5] = [
        Method::Greedy,
        Method::Em,
        Method::Lmm,
        Method::LmmChaudhuri,
        Method::Random,
    ];

    /// Name in CSV files.
    pub(super) fn key(self) -> &'static str {
        match self {
            Method::Greedy => "non-private",
            Method::Em => "em",
            Method::Lmm => "lmm",
            Method::LmmChaudhuri => "lmm-chaudhuri",
            Method::Random => "random",
        }
    }

    /// Name in figure legends.
    pub(super) fn label(self) -> &'static str {
        match self {
            Method::Greedy => "non-private greedy",
            Method::Em => "EM greedy",
            Method::Lmm => "LMM greedy (Mitrovic et al.)",
            Method::LmmChaudhuri => "LMM greedy (Chaudhuri et al.)",
            Method::Random => "random",
        }
    }

    pub(super) fn mechanism(self) -> Option<SelectorKind> {
        match self {
            Method::Em => Some(SelectorKind::Exponential),
            Method::Lmm => Some(SelectorKind::LargeMargin),
            Method::LmmChaudhuri => Some(SelectorKind::LargeMarginChaudhuri),
            Method::Greedy | Method::Random => None,
        }
    }

    /// Figure style: black for non-private, grey dashed for random, palette for the rest.
    pub(super) fn style(self) -> Style {
        match self {
            Method::Greedy => Algorithm::NonPrivate.style(),
            Method::Em => Algorithm::Exponential.style(),
            Method::Lmm => Algorithm::LargeMargin.style(),
            Method::LmmChaudhuri => Algorithm::LargeMarginChaudhuri.style(),
            Method::Random => Algorithm::Random.style(),
        }
    }
}

/// How a total (ε, δ) is split over the k rounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Composition {
    /// ε₀ = ε/k, δ₀ = δ/k (the paper's setting).
    Basic,
    /// The accountant's best rule for (ε, δ, k).
    Best,
}

impl Composition {
    pub(super) const ALL: [Composition; 2] = [Composition::Basic, Composition::Best];

    pub(super) fn key(self) -> &'static str {
        match self {
            Composition::Basic => "basic",
            Composition::Best => "best",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Composition::Basic => "basic composition, ε₀ = ε/k",
            Composition::Best => "best composition rule",
        }
    }
}

/// The procedure of one run: argmax, or a mechanism with the total (ε, δ) split over k
/// rounds by `composition`. `decomposable` offers the decomposable rule to the best split.
pub(super) fn procedure(
    method: Method,
    composition: Composition,
    k: usize,
    epsilon: f64,
    delta: f64,
    decomposable: bool,
) -> anyhow::Result<Procedure<'static>> {
    let Some(mechanism) = method.mechanism() else {
        return Ok(Procedure::Argmax);
    };
    let budget = match composition {
        Composition::Best => Budget::total(epsilon, delta)?,
        Composition::Basic => {
            // Planned at most as typed, as every budget of the library.
            let query = BudgetQuery::new(epsilon, delta, k as u64)?
                .with_kind(
                    mechanism
                        .call_kind()
                        .ok_or_else(|| anyhow::anyhow!("{mechanism} has no call kind"))?,
                )
                .with_decomposable(decomposable);
            let basic = plan(&query)?
                .rules
                .into_iter()
                .find(|r| r.rule == Rule::Basic && r.valid)
                .context("basic composition cannot split this budget")?;
            Budget::PerRound {
                epsilon0: Epsilon::new(basic.per_round_epsilon.unwrap_or(0.0))?,
                delta0: Delta::new(basic.per_round_delta.unwrap_or(0.0))?,
                // Pure mechanisms are reported as pure ε-DP, as in the paper.
                delta: Delta::total(if mechanism.needs_delta() { delta } else { 0.0 })?,
            }
        }
    };
    Ok(Procedure::private(mechanism, budget))
}

/// Which parameter a configuration sweeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Sweep {
    K,
    Epsilon,
}

impl Sweep {
    fn key(self) -> &'static str {
        match self {
            Sweep::K => "k",
            Sweep::Epsilon => "epsilon",
        }
    }
}

/// One configuration; `composition` is `None` for the methods without a budget.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Config {
    set: usize,
    sweep: Sweep,
    composition: Option<Composition>,
    method: Method,
    k: usize,
    epsilon: f64,
}

impl Config {
    /// The columns of [`Config::cells`].
    const COLUMNS: [&str; 6] = [
        "candidates",
        "sweep",
        "composition",
        "method",
        "k",
        "epsilon",
    ];

    /// The CSV cells that name this configuration, `set_key` naming its candidate set:
    /// candidates, sweep, composition, method, k, epsilon.
    fn cells(&self, set_key: &str) -> [String; 6] {
        [
            set_key.to_string(),
            self.sweep.key().to_string(),
            self.composition
                .map_or("none", Composition::key)
                .to_string(),
            self.method.key().to_string(),
            self.k.to_string(),
            cell(self.epsilon),
        ]
    }
}

/// The result of one trial.
pub(super) struct Outcome {
    /// f(S)/n.
    pub utility: f64,
    /// The picks, in order.
    pub elements: Vec<usize>,
    /// Per round: whether a large margin mechanism found a margin (ℓ < candidates).
    pub margins: Vec<Option<bool>>,
    /// (ε₀, δ₀) of each round, for the private methods.
    pub per_round: Option<(f64, f64)>,
    /// The proven end-to-end guarantee, for the private methods.
    pub guarantee: Option<Guarantee>,
}

/// What one trial runs: a method, k picks, a total budget (ε, δ) and how it is split.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Spec {
    pub method: Method,
    /// `None` for the methods without a budget.
    pub composition: Option<Composition>,
    pub k: usize,
    pub epsilon: f64,
    pub delta: f64,
}

/// Runs one trial of `spec` on `f`, reporting f(S)/`n`.
pub(super) fn one_run<F: SetFunction>(
    f: &F,
    n: f64,
    spec: Spec,
    rng: &mut SecureRng,
) -> anyhow::Result<Outcome> {
    let Spec {
        method,
        composition,
        k,
        epsilon,
        delta,
    } = spec;
    let m = f.ground_size();
    if method == Method::Random {
        let picks: Vec<usize> = sample_distinct(rng, m as u64, k)?
            .into_iter()
            .map(|v| v as usize)
            .collect();
        return Ok(Outcome {
            utility: f.evaluate(&picks) / n,
            elements: picks,
            margins: Vec::new(),
            per_round: None,
            guarantee: None,
        });
    }
    let composition = composition.unwrap_or(Composition::Basic);
    let decomposable = f.properties().decomposable;
    let proc = procedure(method, composition, k, epsilon, delta, decomposable)?;
    let s = greedy(f, &Cardinality::new(m, k), &proc, rng)?;
    let margins = s
        .rounds
        .iter()
        .map(|r| r.margin.map(|ell| ell < r.candidates))
        .collect();
    let per_round = s.rounds.first().and_then(|r| r.cost.epsilon_delta());
    Ok(Outcome {
        utility: s.value / n,
        elements: s.elements,
        margins,
        per_round,
        guarantee: s.guarantee,
    })
}

/// Runs `disguise experiment uber`.
pub fn run(args: Args) -> anyhow::Result<Report> {
    let mut ctx = Context::new("uber", args.common, 100)?;
    let pickups_path = ctx.data(PICKUPS)?;
    let cols = read_columns(&pickups_path, &["lat", "lon"], None)?;
    let pickups: Vec<[f64; 2]> = cols.numeric[0]
        .iter()
        .zip(&cols.numeric[1])
        .map(|(&la, &lo)| [la, lo])
        .collect();
    let n = pickups.len() as f64;

    struct CandidateSet {
        key: &'static str,
        title: &'static str,
        names: Vec<String>,
        points: Vec<[f64; 2]>,
        f: FacilityLocation,
    }
    let mut sets = Vec::new();
    for (key, title, file) in CANDIDATE_SETS {
        let path = ctx.data(file)?;
        let c = read_columns(&path, &["lat", "lon"], Some("name"))?;
        let points: Vec<[f64; 2]> = c.numeric[0]
            .iter()
            .zip(&c.numeric[1])
            .map(|(&la, &lo)| [la, lo])
            .collect();
        let names = match c.text {
            Some(names) => names.iter().map(|s| short_name(s)).collect(),
            None => {
                // The grid has no names: call each point by its row and column.
                let g = read_columns(&path, &["row", "col"], None)?;
                g.numeric[0]
                    .iter()
                    .zip(&g.numeric[1])
                    .map(|(r, c)| format!("grid row {r}, col {c}"))
                    .collect()
            }
        };
        let f = FacilityLocation::new(
            Metric::Manhattan,
            &pickups,
            &points,
            Normalizer::Fixed(NORMALIZER),
        )?;
        sets.push(CandidateSet {
            key,
            title,
            names,
            points,
            f,
        });
    }
    ctx.note(&format!(
        "uber: {} pickups, candidate sets {}, {} trials per configuration",
        pickups.len(),
        sets.iter()
            .map(|s| format!("{} ({})", s.key, s.points.len()))
            .collect::<Vec<_>>()
            .join(" and "),
        ctx.trials
    ));

    // Every configuration of both sweeps.
    let mut configs = Vec::new();
    for set in 0..sets.len() {
        for (sweep, points) in [
            (
                Sweep::K,
                (1..=K_MAX).map(|k| (k, EPSILON)).collect::<Vec<_>>(),
            ),
            (
                Sweep::Epsilon,
                EPSILONS.iter().map(|&e| (K_FIXED, e)).collect(),
            ),
        ] {
            for &(k, epsilon) in &points {
                for method in Method::ALL {
                    let comps: Vec<Option<Composition>> = if method.mechanism().is_some() {
                        Composition::ALL.iter().copied().map(Some).collect()
                    } else {
                        vec![None]
                    };
                    for composition in comps {
                        configs.push(Config {
                            set,
                            sweep,
                            composition,
                            method,
                            k,
                            epsilon,
                        });
                    }
                }
            }
        }
    }
    // Non-private greedy is deterministic: one trial.
    let trials_of = |c: &Config| {
        if c.method == Method::Greedy {
            1
        } else {
            ctx.trials
        }
    };
    let jobs: Vec<usize> = configs
        .iter()
        .enumerate()
        .flat_map(|(i, c)| std::iter::repeat_n(i, trials_of(c)))
        .collect();
    let outcomes = ctx.run_jobs("uber trials", &jobs, |&i, rng| {
        let c = &configs[i];
        let spec = Spec {
            method: c.method,
            composition: c.composition,
            k: c.k,
            epsilon: c.epsilon,
            delta: DELTA,
        };
        one_run(&sets[c.set].f, n, spec, rng)
    })?;
    let mut by_config: Vec<Vec<&Outcome>> = vec![Vec::new(); configs.len()];
    for (&i, o) in jobs.iter().zip(&outcomes) {
        by_config[i].push(o);
    }

    // The tidy table.
    let mut rows = Vec::new();
    let mut summaries: Summaries = HashMap::new();
    for (c, outs) in configs.iter().zip(&by_config) {
        let utilities: Vec<f64> = outs.iter().map(|o| o.utility).collect();
        let s = Summary::of(&utilities);
        let first = outs[0];
        let margin_rate = {
            let found: Vec<bool> = outs
                .iter()
                .flat_map(|o| o.margins.iter().flatten().copied())
                .collect();
            if found.is_empty() {
                String::new()
            } else {
                cell(found.iter().filter(|&&b| b).count() as f64 / found.len() as f64)
            }
        };
        let mut row = vec!["uber".to_string()];
        row.extend(c.cells(sets[c.set].key));
        row.push(cell(DELTA));
        row.extend(s.cells(first.per_round, first.guarantee));
        row.push(margin_rate);
        rows.push(row);
        let x = match c.sweep {
            Sweep::K => c.k as f64,
            Sweep::Epsilon => c.epsilon,
        };
        summaries
            .entry((c.set, c.sweep, c.composition, c.method))
            .or_default()
            .push((x, s));
    }
    let header = [
        &["experiment"][..],
        &Config::COLUMNS,
        &["delta"],
        &SUMMARY_COLUMNS,
        &["margin_rate"],
    ]
    .concat();
    ctx.csv("utility", &header, &rows)?;

    // Per-round margin rates of the large margin mechanisms, every configuration.
    let mut margin_rows = Vec::new();
    for (c, outs) in configs.iter().zip(&by_config) {
        if !matches!(c.method, Method::Lmm | Method::LmmChaudhuri) {
            continue;
        }
        for round in 0..c.k {
            let found: Vec<bool> = outs
                .iter()
                .filter_map(|o| o.margins.get(round).copied().flatten())
                .collect();
            let rate = found.iter().filter(|&&b| b).count() as f64 / found.len().max(1) as f64;
            let mut row = c.cells(sets[c.set].key).to_vec();
            row.extend([(round + 1).to_string(), cell(rate), found.len().to_string()]);
            margin_rows.push(row);
        }
    }
    let header = [&Config::COLUMNS[..], &["round", "margin_found_rate", "n"]].concat();
    ctx.csv("lmm_margins", &header, &margin_rows)?;

    // Figures 1(a)–(d), once per composition.
    for (si, set) in sets.iter().enumerate() {
        for comp in Composition::ALL {
            for sweep in [Sweep::K, Sweep::Epsilon] {
                let mut chart = match sweep {
                    Sweep::K => LineChart::new(
                        format!(
                            "{}: utility vs k (ε = {EPSILON}, {})",
                            set.title,
                            comp.title()
                        ),
                        "k (number of locations chosen)",
                        "normalised utility f(S)/n",
                    ),
                    Sweep::Epsilon => LineChart::new(
                        format!(
                            "{}: utility vs ε (k = {K_FIXED}, {})",
                            set.title,
                            comp.title()
                        ),
                        "total privacy budget ε",
                        "normalised utility f(S)/n",
                    )
                    .log_x()
                    .x_ticks(EPSILONS.to_vec()),
                };
                for method in Method::ALL {
                    let key_comp = method.mechanism().map(|_| comp);
                    let Some(points) = summaries.get(&(si, sweep, key_comp, method)) else {
                        continue;
                    };
                    let points = points.iter().map(|(x, s)| s.point(*x)).collect();
                    let series = Series::new(method.label(), method.style()).points(points);
                    chart = chart.series(series);
                }
                ctx.figure(
                    &format!("utility_{}_{}_{}", sweep.key(), set.key, comp.key()),
                    &chart,
                )?;
            }
        }
    }

    // Figures 1(e)–(h): maps with a representative top-3 set per method (the trial of
    // median utility at k = 3, ε = 0.1, basic composition) and each candidate's pick rate.
    let mut map_rows = Vec::new();
    let mut rate_rows = Vec::new();
    let mut table = vec![format!(
        "normalised utility f(S)/n at k = {K_FIXED}, ε = {EPSILON}, δ = 2^-20, basic composition \
         (mean ± 95% CI over trials):"
    )];
    for (si, set) in sets.iter().enumerate() {
        let lon_lat = |p: &[f64; 2]| [p[1], p[0]];
        let mut map = Map::geographic(
            format!(
                "{}: pickups (blue), candidates (rings), a representative top-{K_FIXED} set (red), \
                 pick rate (orange area), ε = {EPSILON}",
                set.title
            ),
            pickups.iter().map(lon_lat).collect(),
            set.points.iter().map(lon_lat).collect(),
        );
        map.panel_height = 820;
        table.push(format!("  {}:", set.title));
        for method in Method::ALL {
            let ci = configs.iter().position(|c| {
                c.set == si
                    && c.sweep == Sweep::K
                    && c.k == K_FIXED
                    && c.method == method
                    && c.composition.is_none_or(|x| x == Composition::Basic)
            });
            let Some(ci) = ci else { continue };
            let outs = &by_config[ci];
            let s = Summary::of(&outs.iter().map(|o| o.utility).collect::<Vec<_>>());
            table.push(format!(
                "    {:<32} {:.4} ± {:.4}",
                method.label(),
                s.mean,
                s.ci95()
            ));
            if method == Method::Random {
                continue;
            }
            // The representative run: the trial of median utility (ties to the earlier).
            let mut order: Vec<usize> = (0..outs.len()).collect();
            order.sort_by(|&a, &b| outs[a].utility.total_cmp(&outs[b].utility).then(a.cmp(&b)));
            let median = order[(order.len() - 1) / 2];
            let picks = &outs[median].elements;
            // How often each candidate is in the chosen set.
            let rate = pick_rates(outs.iter().map(|o| o.elements.as_slice()), set.points.len());
            for (v, r) in rate.iter().enumerate() {
                rate_rows.push(vec![
                    set.key.to_string(),
                    method.key().to_string(),
                    K_FIXED.to_string(),
                    cell(EPSILON),
                    set.names[v].clone(),
                    cell(*r),
                    outs.len().to_string(),
                ]);
            }
            let title = if method == Method::Greedy {
                format!("{}\n(deterministic)", method.label())
            } else {
                format!("{}\nmedian of {} trials", method.label(), outs.len())
            };
            map = map.weighted_panel(
                title,
                picks
                    .iter()
                    .map(|&v| Pick {
                        at: lon_lat(&set.points[v]),
                        label: set.names[v].clone(),
                    })
                    .collect(),
                rate,
            );
            map_rows.push(vec![
                set.key.to_string(),
                method.key().to_string(),
                K_FIXED.to_string(),
                cell(EPSILON),
                picks
                    .iter()
                    .map(|&v| set.names[v].as_str())
                    .collect::<Vec<_>>()
                    .join("; "),
                outs.len().to_string(),
                cell(set.f.evaluate(picks) / n),
            ]);
        }
        ctx.figure(&format!("map_{}", set.key), &map)?;
    }
    ctx.csv(
        "maps",
        &[
            "candidates",
            "method",
            "k",
            "epsilon",
            "set",
            "n",
            "utility",
        ],
        &map_rows,
    )?;
    ctx.csv(
        "pick_rates",
        &[
            "candidates",
            "method",
            "k",
            "epsilon",
            "candidate",
            "rate",
            "n",
        ],
        &rate_rows,
    )?;
    Ok(ctx.finish(table))
}

/// Per (candidate set, sweep, composition, method): the (x, summary) points of one curve.
type Summaries = HashMap<(usize, Sweep, Option<Composition>, Method), Vec<(f64, Summary)>>;
