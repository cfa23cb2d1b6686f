//! `disguise experiment margin`: the large margin mechanism in practice (Chaudhuri, Hsu &
//! Song 2014) — range-independence shown, and measured on the paper's two applications.
//!
//! 1. **Example (1)** of the paper: f(i, D) = |{j : D_j ≥ i}|/n with D = (1, …, 1), so item 1
//!    has count n and the other K − 1 items count 0. The success probability (item 1
//!    returned) of the exponential mechanism — exactly e^{nα/2}/(K − 1 + e^{nα/2}) — and of
//!    both large margin mechanisms (Mitrovic et al.'s `lmm`, Chaudhuri et al.'s
//!    `lmm-chaudhuri`), as K grows: from 10 to 10⁶ at a small n, and from 10 to 10²⁰⁰ at an
//!    n large enough for the margin search (the universe is never enumerated: the K − 1
//!    zero-score items are an implicit tail, sampled as one block).
//! 2. **Frequent itemsets** (§4.1) on FIMI chess and BMS-WebView-2: the true frequency of
//!    the returned pair relative to the most frequent one, vs ε, for the exponential
//!    mechanism over all C(|I|, 2) pairs of the item list and the large margin mechanisms
//!    over the pairs that occur (no item list).
//! 3. **Hypothesis selection** (§4.2): decision stumps over one informative and many noise
//!    features; the exact test error of the chosen stump vs |H|.
//!
//! Outputs (prefix `margin_`): `example1.csv`, `itemsets.csv`, `hypothesis.csv` and the
//! figures `example1_small_n`, `example1_large_k`, `itemsets_chess`, `itemsets_bms`,
//! `hypothesis_eps_*`, `hypothesis_margin` (PNG + SVG).

use crate::palette::Algorithm;
use crate::plot::{GREY, LineChart, Marker, Point, Series, Style};
use crate::{Common, Context, Report, Summary, cell};
use anyhow::Context as _;
use disguise::SecureRng;
use disguise::apps::hypothesis::{
    ColumnRef, FeatureSpec, HypothesisQuery, StumpClass, StumpRule, select_hypothesis,
};
use disguise::apps::{
    BlockChoice, ItemsetBudget, ItemsetCounts, ItemsetQuery, LargeMarginTail, MarginVariant,
    TailOutcome, TailSize, TransactionFormat, Transactions, mine_itemsets_with_budget,
    sample_exponential_with_block,
};
use disguise::audit::clopper_pearson;
use disguise::names::Named;
use disguise::privacy::{Delta, Epsilon, Sensitivity};
use disguise::select::SelectorKind;
use num_bigint::BigUint;
use num_traits::ToPrimitive;
use rand_core::Rng;
use std::time::Instant;

/// Arguments of `disguise experiment margin`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    common: Common,
}

/// δ of every private run.
const DELTA: f64 = 1e-6;
/// The public cap of the margin search in part 1.
const EXAMPLE_CAP: u64 = 1000;

/// The three private methods compared throughout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Em,
    Lmm,
    LmmChaudhuri,
}

impl Method {
    const ALL: [Method; 3] = [Method::Em, Method::Lmm, Method::LmmChaudhuri];

    fn key(self) -> &'static str {
        match self {
            Method::Em => "em",
            Method::Lmm => "lmm",
            Method::LmmChaudhuri => "lmm-chaudhuri",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Method::Em => "exponential mechanism",
            Method::Lmm => "LMM (Mitrovic et al.)",
            Method::LmmChaudhuri => "LMM (Chaudhuri et al.)",
        }
    }

    fn style(self) -> Style {
        match self {
            Method::Em => Algorithm::Exponential.style(),
            Method::Lmm => Algorithm::LargeMargin.style(),
            Method::LmmChaudhuri => Algorithm::LargeMarginChaudhuri.style(),
        }
    }

    fn variant(self) -> Option<MarginVariant> {
        match self {
            Method::Em => None,
            Method::Lmm => Some(MarginVariant::Mitrovic),
            Method::LmmChaudhuri => Some(MarginVariant::Chaudhuri),
        }
    }
}

/// Runs `disguise experiment margin`.
pub fn run(args: Args) -> anyhow::Result<Report> {
    let mut ctx = Context::new("margin", args.common, 100)?;
    let mut table = Vec::new();
    let start = Instant::now();
    example_one(&mut ctx, &mut table)?;
    let t1 = start.elapsed().as_secs_f64();
    itemsets(&mut ctx, &mut table)?;
    let t2 = start.elapsed().as_secs_f64();
    hypotheses(&mut ctx, &mut table)?;
    let t3 = start.elapsed().as_secs_f64();
    table.push(format!(
        "time: example (1) {t1:.1} s, itemsets {:.1} s, hypothesis selection {:.1} s",
        t2 - t1,
        t3 - t2
    ));
    Ok(ctx.finish(table))
}

// ---------------------------------------------------------------------------------------
// 1. Example (1)
// ---------------------------------------------------------------------------------------

/// One panel of Example (1): n, α and the K grid (as decimal exponents).
struct Panel {
    key: &'static str,
    n: u32,
    alpha: f64,
    log10_k: Vec<f64>,
}

/// K = 10^e as an integer (rounded for non-integer exponents).
fn k_of(log10_k: f64) -> BigUint {
    if log10_k.fract() == 0.0 {
        BigUint::from(10u32).pow(log10_k as u32)
    } else {
        BigUint::from(10f64.powf(log10_k).round() as u64)
    }
}

/// The exponential mechanism's exact success probability e^{nα/2}/(K − 1 + e^{nα/2}),
/// evaluated in logs (K up to 10²⁰⁰).
fn em_success(n: u32, alpha: f64, k: &BigUint) -> f64 {
    let a = f64::from(n) * alpha / 2.0;
    let km1 = (k - 1u32).to_f64().unwrap_or(f64::INFINITY);
    if km1 == 0.0 {
        return 1.0;
    }
    1.0 / (1.0 + (km1.ln() - a).exp())
}

fn example_one(ctx: &mut Context, table: &mut Vec<String>) -> anyhow::Result<()> {
    let trials = ctx.trials * 10;
    let panels = [
        Panel {
            key: "small_n",
            n: 20,
            alpha: 1.0,
            log10_k: (2..=12).map(|i| f64::from(i) / 2.0).collect(),
        },
        Panel {
            key: "large_k",
            n: 500,
            alpha: 1.0,
            log10_k: std::iter::once(1.0)
                .chain((1..=20).map(|i| f64::from(10 * i)))
                .collect(),
        },
    ];
    struct Job {
        panel: usize,
        k: usize,
        method: Method,
    }
    let mut jobs = Vec::new();
    for (p, panel) in panels.iter().enumerate() {
        for k in 0..panel.log10_k.len() {
            for method in Method::ALL {
                jobs.push(Job {
                    panel: p,
                    k,
                    method,
                });
            }
        }
    }
    let results = ctx.run_jobs("example (1)", &jobs, |job, rng| {
        let panel = &panels[job.panel];
        let k = k_of(panel.log10_k[job.k]);
        let explicit = [f64::from(panel.n)];
        let eps = Epsilon::new(panel.alpha)?;
        let lambda = Sensitivity::new(1.0)?;
        let tail = k.clone() - 1u32;
        let mut successes = 0u64;
        match job.method.variant() {
            None => {
                for _ in 0..trials {
                    let c =
                        sample_exponential_with_block(rng, &explicit, 0.0, &tail, eps, lambda, 2)?;
                    successes += u64::from(c == BlockChoice::Index(0));
                }
            }
            Some(variant) => {
                let m = LargeMarginTail::new(variant, eps, Delta::new(DELTA)?, EXAMPLE_CAP)?;
                let tail = TailSize::Finite(tail);
                for _ in 0..trials {
                    let s = m.select(&explicit, 0.0, &tail, lambda, rng)?;
                    successes += u64::from(s.outcome == TailOutcome::Explicit(0));
                }
            }
        }
        Ok(successes)
    })?;

    let mut rows = Vec::new();
    for (job, &successes) in jobs.iter().zip(&results) {
        let panel = &panels[job.panel];
        let k = k_of(panel.log10_k[job.k]);
        let ci = clopper_pearson(successes, trials as u64, 0.95)?;
        rows.push(vec![
            panel.key.to_string(),
            panel.n.to_string(),
            cell(panel.alpha),
            cell(DELTA),
            k.to_string(),
            cell(panel.log10_k[job.k]),
            job.method.key().to_string(),
            trials.to_string(),
            successes.to_string(),
            cell(successes as f64 / trials as f64),
            cell(ci.lower),
            cell(ci.upper),
            cell(em_success(panel.n, panel.alpha, &k)),
        ]);
    }
    ctx.csv(
        "example1",
        &[
            "panel",
            "n",
            "alpha",
            "delta",
            "K",
            "log10_K",
            "method",
            "trials",
            "successes",
            "success_rate",
            "ci95_low",
            "ci95_high",
            "em_exact",
        ],
        &rows,
    )?;

    for (p, panel) in panels.iter().enumerate() {
        let title = format!(
            "Example (1): D = (1, …, 1), n = {}, α = {}, δ = {DELTA:e}",
            panel.n, panel.alpha
        );
        let mut chart = LineChart::new(
            title,
            "universe size K (log scale)",
            "P(returns the maximiser, item 1)",
        )
        .log_x()
        .y_range(0.0, 1.05);
        let xs: Vec<f64> = panel.log10_k.iter().map(|e| 10f64.powf(*e)).collect();
        let exact: Vec<Point> = panel
            .log10_k
            .iter()
            .zip(&xs)
            .map(|(&e, &x)| Point::new(x, em_success(panel.n, panel.alpha, &k_of(e)), 0.0))
            .collect();
        chart = chart.series(
            Series::new(
                "EM, exact: exp(nα/2)/(K − 1 + exp(nα/2))",
                Style::of(0).color(GREY).dashed().marker(Marker::None),
            )
            .points(exact),
        );
        for method in Method::ALL {
            let points = jobs
                .iter()
                .zip(&results)
                .filter(|(j, _)| j.panel == p && j.method == method)
                .map(|(j, &s)| {
                    let rate = s as f64 / trials as f64;
                    let ci = clopper_pearson(s, trials as u64, 0.95).expect("valid");
                    Point::new(xs[j.k], rate, (ci.upper - ci.lower) / 2.0)
                })
                .collect();
            let name = format!("{} (simulated)", method.label());
            chart = chart.series(Series::new(name, method.style()).points(points));
        }
        if panel.key == "large_k" {
            chart = chart.x_ticks((0..=4).map(|i| 10f64.powi(50 * i)).collect());
        }
        ctx.figure(&format!("example1_{}", panel.key), &chart)?;
        let last = |method: Method| {
            jobs.iter()
                .zip(&results)
                .filter(|(j, _)| j.panel == p && j.method == method)
                .map(|(_, &s)| s as f64 / trials as f64)
                .next_back()
                .unwrap_or(f64::NAN)
        };
        let log10_k = *panel
            .log10_k
            .last()
            .expect("invariant: every panel has at least one K");
        table.push(format!(
            "example (1), n = {}: at K = 10^{}: EM {:.3} (exact {:.3}), LMM {:.3}, LMM-Chaudhuri {:.3}",
            panel.n,
            log10_k,
            last(Method::Em),
            em_success(panel.n, panel.alpha, &k_of(log10_k)),
            last(Method::Lmm),
            last(Method::LmmChaudhuri)
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// 2. Frequent itemsets on real data
// ---------------------------------------------------------------------------------------

const ITEMSET_EPSILONS: [f64; 8] = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0];

/// A method of part 2: a mechanism, with or without the public item list.
struct ItemsetMethod {
    key: &'static str,
    label: &'static str,
    style: Style,
    mechanism: SelectorKind,
    item_list: bool,
}

const ITEMSET_METHODS: [ItemsetMethod; 4] = [
    ItemsetMethod {
        key: "em",
        label: "EM over all pairs of the item list",
        style: Style {
            color: crate::plot::PALETTE[1], // Algorithm::Exponential
            dashed: false,
            marker: Marker::Triangle,
        },
        mechanism: SelectorKind::Exponential,
        item_list: true,
    },
    ItemsetMethod {
        key: "lmm",
        label: "LMM (Mitrovic et al.), no item list",
        style: Style {
            color: crate::plot::PALETTE[2],
            dashed: false,
            marker: Marker::Ring,
        },
        mechanism: SelectorKind::LargeMargin,
        item_list: false,
    },
    ItemsetMethod {
        key: "lmm-chaudhuri",
        label: "LMM (Chaudhuri et al.), no item list",
        style: Style {
            color: crate::plot::PALETTE[4], // Algorithm::LargeMarginChaudhuri
            dashed: false,
            marker: Marker::Square,
        },
        mechanism: SelectorKind::LargeMarginChaudhuri,
        item_list: false,
    },
    ItemsetMethod {
        key: "lmm-item-list",
        label: "LMM (Mitrovic et al.), item list (EM fallback)",
        style: Style {
            color: crate::plot::PALETTE[2], // Algorithm::LargeMargin, a variant: dashed
            dashed: true,
            marker: Marker::Cross,
        },
        mechanism: SelectorKind::LargeMargin,
        item_list: true,
    },
];

/// A dataset of part 2: transactions read with and without the public item list.
struct Dataset {
    key: &'static str,
    title: &'static str,
    with_list: Transactions,
    counts_list: ItemsetCounts,
    without: Transactions,
    counts: ItemsetCounts,
    best: u64,
}

fn load(
    ctx: &Context,
    key: &'static str,
    title: &'static str,
    file: &str,
    list: Option<Vec<String>>,
) -> anyhow::Result<Dataset> {
    let path = ctx.data(file)?;
    let without = Transactions::read(&path, &TransactionFormat::Fimi, None)?;
    // Without a published catalogue the items seen stand in for the public list (a caveat
    // for BMS-WebView-2; chess's items 1..75 are public by construction).
    let list = list.unwrap_or_else(|| without.items().to_vec());
    let with_list = Transactions::read(&path, &TransactionFormat::Fimi, Some(&list))?;
    let counts = without.count_itemsets(2, disguise::apps::DEFAULT_MAX_LENGTH)?;
    let counts_list = with_list.count_itemsets(2, disguise::apps::DEFAULT_MAX_LENGTH)?;
    let best = counts.counts().iter().copied().max().map_or(0, u64::from);
    Ok(Dataset {
        key,
        title,
        with_list,
        counts_list,
        without,
        counts,
        best,
    })
}

fn itemsets(ctx: &mut Context, table: &mut Vec<String>) -> anyhow::Result<()> {
    let trials = (ctx.trials / 5).max(4);
    let chess_items: Vec<String> = (1..=75).map(|i| i.to_string()).collect();
    let datasets = [
        load(
            ctx,
            "chess",
            "FIMI chess (3,196 transactions, 75 items)",
            "fimi_chess/chess.dat",
            Some(chess_items),
        )?,
        load(
            ctx,
            "bms",
            "BMS-WebView-2 (77,512 sessions, 3,340 items)",
            "fimi_bms_webview2/BMS2_itemset_mining.txt",
            None,
        )?,
    ];
    struct Job {
        data: usize,
        method: usize,
        epsilon: usize,
    }
    let mut jobs = Vec::new();
    for data in 0..datasets.len() {
        for method in 0..ITEMSET_METHODS.len() {
            for epsilon in 0..ITEMSET_EPSILONS.len() {
                for _ in 0..trials {
                    jobs.push(Job {
                        data,
                        method,
                        epsilon,
                    });
                }
            }
        }
    }
    let results = ctx.run_jobs("frequent pairs", &jobs, |job, rng| {
        let d = &datasets[job.data];
        let m = &ITEMSET_METHODS[job.method];
        let query = ItemsetQuery::new(
            Epsilon::new(ITEMSET_EPSILONS[job.epsilon])?,
            Delta::new(DELTA)?,
        )
        .mechanism(m.mechanism);
        let (t, c) = if m.item_list {
            (&d.with_list, &d.counts_list)
        } else {
            (&d.without, &d.counts)
        };
        let budget = ItemsetBudget::new(&query, 2, c.max_length())?;
        let r = mine_itemsets_with_budget(t, c, &query, &budget, rng)?;
        let p = &r.picks[0];
        // The papers' public data: the pick's exact count is the experiment's measure.
        Ok((*p.true_count.reveal(), *p.occurs.reveal(), *p.margin))
    })?;

    let mut rows = Vec::new();
    for (d, data) in datasets.iter().enumerate() {
        let mut chart = LineChart::new(
            format!("Most frequent pair, {}", data.title),
            "ε (log scale)",
            "frequency of the returned pair / highest frequency",
        )
        .log_x()
        .y_range(0.0, 1.05);
        let mut summary = Vec::new();
        for (mi, method) in ITEMSET_METHODS.iter().enumerate() {
            let mut points = Vec::new();
            for (e, &epsilon) in ITEMSET_EPSILONS.iter().enumerate() {
                let runs: Vec<&(u64, bool, Option<u64>)> = jobs
                    .iter()
                    .zip(&results)
                    .filter(|(j, _)| j.data == d && j.method == mi && j.epsilon == e)
                    .map(|(_, r)| r)
                    .collect();
                let rel: Vec<f64> = runs.iter().map(|r| r.0 as f64 / data.best as f64).collect();
                // No itemset, or (with the item list) a pair that does not occur.
                let none = runs.iter().filter(|r| !r.1).count();
                let margins: Vec<f64> = runs.iter().filter_map(|r| r.2).map(|m| m as f64).collect();
                let s = Summary::of(&rel);
                let margin = if margins.is_empty() {
                    String::new()
                } else {
                    cell(Summary::of(&margins).mean)
                };
                rows.push(vec![
                    data.key.to_string(),
                    method.key.to_string(),
                    cell(epsilon),
                    cell(DELTA),
                    runs.len().to_string(),
                    cell(s.mean),
                    cell(s.ci95()),
                    cell(s.mean * data.best as f64 / data.with_list.len() as f64),
                    cell(none as f64 / runs.len() as f64),
                    margin,
                    data.best.to_string(),
                    data.counts.len().to_string(),
                ]);
                points.push(s.point(epsilon));
                if epsilon == 1.0 || epsilon == 0.1 {
                    summary.push(format!("{} {:.3} (ε = {epsilon})", method.key, s.mean));
                }
            }
            chart = chart.series(Series::new(method.label, method.style).points(points));
        }
        ctx.figure(&format!("itemsets_{}", data.key), &chart)?;
        table.push(format!(
            "itemsets, {}: relative frequency of the returned pair: {}",
            data.key,
            summary.join(", ")
        ));
    }
    ctx.csv(
        "itemsets",
        &[
            "dataset",
            "method",
            "epsilon",
            "delta",
            "trials",
            "relative_frequency_mean",
            "relative_frequency_ci95",
            "frequency_mean",
            "no_itemset_or_zero_rate",
            "margin_mean",
            "best_count",
            "occurring_pairs",
        ],
        &rows,
    )?;
    Ok(())
}

// ---------------------------------------------------------------------------------------
// 3. Hypothesis selection
// ---------------------------------------------------------------------------------------

/// Training records of part 3.
const RECORDS: usize = 2000;
/// Label noise: y = 1(x₀ > ½) flipped with this probability.
const FLIP: f64 = 0.15;
/// Grid thresholds per column.
const THRESHOLDS: usize = 49;
/// Noise columns per configuration (|H| = 2 + 2·49·(d + 1)).
const NOISE_COLUMNS: [usize; 9] = [0, 3, 10, 30, 100, 300, 1000, 3000, 10000];
const HYPOTHESIS_EPSILONS: [f64; 4] = [0.02, 0.05, 0.2, 1.0];

/// Exact test error of stump `i`: on x₀ with threshold t, 0.15 + 0.7·|t − ½| when it
/// predicts 1 above t, 0.15 + 0.7·(1 − |t − ½|) when it predicts 1 below; ½ for every noise
/// stump and both constants (P(y = 1) = ½ and the prediction is independent of y).
fn test_error(class: &StumpClass, i: usize) -> f64 {
    let s = class.stump(i);
    match s.rule {
        StumpRule::LessEq {
            column: 0,
            threshold,
        } => {
            let d = (threshold - 0.5).abs();
            let wrong_clean = if s.if_true { 1.0 - d } else { d };
            FLIP + (1.0 - 2.0 * FLIP) * wrong_clean
        }
        _ => 0.5,
    }
}

fn uniform(rng: &mut SecureRng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

fn hypotheses(ctx: &mut Context, table: &mut Vec<String>) -> anyhow::Result<()> {
    let trials = (ctx.trials / 2).max(4);
    // The data of each configuration: scores of the whole class (columns generated and
    // scored one at a time, so memory stays at one column).
    let datasets = ctx.run_jobs("stump classes", &NOISE_COLUMNS, |&d, rng| {
        let x0: Vec<f64> = (0..RECORDS).map(|_| uniform(rng)).collect();
        let labels: Vec<bool> = x0
            .iter()
            .map(|&x| (x > 0.5) != (uniform(rng) < FLIP))
            .collect();
        let spec = |c: usize| FeatureSpec::Numeric {
            name: format!("x{c}"),
            lo: 0.0,
            hi: 1.0,
        };
        let class = StumpClass::new((0..=d).map(spec).collect(), THRESHOLDS, true)?;
        let pos = labels.iter().filter(|&&y| y).count() as f64;
        let mut scores = vec![RECORDS as f64 - pos, pos];
        let mut column = x0;
        for c in 0..=d {
            if c > 0 {
                column.iter_mut().for_each(|x| *x = uniform(rng));
            }
            let single = StumpClass::new(vec![spec(c)], THRESHOLDS, false)?;
            scores.extend(single.correct_counts(&[ColumnRef::Numeric(&column)], &labels)?);
        }
        anyhow::ensure!(scores.len() == class.len(), "class layout mismatch");
        Ok((class, scores))
    })?;
    struct Job {
        data: usize,
        method: Option<Method>,
        epsilon: usize,
    }
    let mut jobs = Vec::new();
    for data in 0..NOISE_COLUMNS.len() {
        jobs.push(Job {
            data,
            method: None,
            epsilon: 0,
        });
        for method in Method::ALL {
            for epsilon in 0..HYPOTHESIS_EPSILONS.len() {
                for _ in 0..trials {
                    jobs.push(Job {
                        data,
                        method: Some(method),
                        epsilon,
                    });
                }
            }
        }
    }
    let results = ctx.run_jobs("hypothesis selection", &jobs, |job, rng| {
        let (class, scores) = &datasets[job.data];
        let query = HypothesisQuery {
            mechanism: match job.method {
                Some(method) => SelectorKind::from_name(method.key())?,
                None => SelectorKind::Argmax,
            },
            epsilon: Epsilon::total(HYPOTHESIS_EPSILONS[job.epsilon])?,
            delta: Delta::total(DELTA)?,
        };
        let s = select_hypothesis(class, scores, RECORDS, &query, rng)
            .context("hypothesis selection")?;
        Ok((test_error(class, *s.index), *s.margin))
    })?;

    let mut rows = Vec::new();
    let mut margin_chart = LineChart::new(
        format!("Margin found by the large margin mechanisms, ε = 1, δ = {DELTA:e}"),
        "number of hypotheses |H| (log scale)",
        "margin ℓ (size of the top set sampled from), mean",
    )
    .log_x();
    for (e, &epsilon) in HYPOTHESIS_EPSILONS.iter().enumerate() {
        let mut chart = LineChart::new(
            format!("Stumps on 1 informative + d noise features, n = {RECORDS}, ε = {epsilon}"),
            "number of hypotheses |H| (log scale)",
            "test error of the chosen stump (exact)",
        )
        // Each ε its own y range: at ε = 1 every method is within 0.003 of the ERM, at
        // ε = 0.02 they span 0.15–0.5; one shared axis would flatten the former.
        .log_x();
        let erm: Vec<Point> = (0..NOISE_COLUMNS.len())
            .map(|d| {
                let err = jobs
                    .iter()
                    .zip(&results)
                    .find(|(j, _)| j.data == d && j.method.is_none())
                    .map(|(_, r)| r.0)
                    .unwrap_or(f64::NAN);
                Point::new(datasets[d].0.len() as f64, err, 0.0)
            })
            .collect();
        chart =
            chart.series(Series::new("non-private ERM", Algorithm::NonPrivate.style()).points(erm));
        let mut at_largest = Vec::new();
        for method in Method::ALL {
            let mut points = Vec::new();
            let mut margin_points = Vec::new();
            for (d, &noise) in NOISE_COLUMNS.iter().enumerate() {
                let runs: Vec<&(f64, Option<usize>)> = jobs
                    .iter()
                    .zip(&results)
                    .filter(|(j, _)| j.data == d && j.method == Some(method) && j.epsilon == e)
                    .map(|(_, r)| r)
                    .collect();
                let errs: Vec<f64> = runs.iter().map(|r| r.0).collect();
                let h = datasets[d].0.len();
                let found = runs.iter().filter(|r| r.1.is_some_and(|m| m < h)).count();
                let margins: Vec<f64> = runs.iter().filter_map(|r| r.1).map(|m| m as f64).collect();
                let s = Summary::of(&errs);
                rows.push(vec![
                    cell(epsilon),
                    cell(DELTA),
                    noise.to_string(),
                    h.to_string(),
                    method.key().to_string(),
                    runs.len().to_string(),
                    cell(s.mean),
                    cell(s.ci95()),
                    if method == Method::Em {
                        String::new()
                    } else {
                        cell(found as f64 / runs.len() as f64)
                    },
                    if margins.is_empty() {
                        String::new()
                    } else {
                        cell(Summary::of(&margins).mean)
                    },
                ]);
                points.push(s.point(h as f64));
                if !margins.is_empty() {
                    let m = Summary::of(&margins);
                    margin_points.push(m.point(h as f64));
                }
                if d + 1 == NOISE_COLUMNS.len() {
                    at_largest.push(format!("{} {:.3}", method.key(), s.mean));
                }
            }
            chart = chart.series(Series::new(method.label(), method.style()).points(points));
            if epsilon == 1.0 && method != Method::Em {
                margin_chart = margin_chart
                    .series(Series::new(method.label(), method.style()).points(margin_points));
            }
        }
        let file = format!("hypothesis_eps_{}", cell(epsilon).replace('.', "_"));
        ctx.figure(&file, &chart)?;
        table.push(format!(
            "hypothesis, ε = {epsilon}: test error at |H| = {}: {}",
            datasets.last().map_or(0, |d| d.0.len()),
            at_largest.join(", ")
        ));
    }
    ctx.figure("hypothesis_margin", &margin_chart)?;
    ctx.csv(
        "hypothesis",
        &[
            "epsilon",
            "delta",
            "noise_features",
            "hypotheses",
            "method",
            "trials",
            "test_error_mean",
            "test_error_ci95",
            "margin_found_rate",
            "margin_mean",
        ],
        &rows,
    )?;
    Ok(())
}
