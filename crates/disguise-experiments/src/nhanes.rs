//! `disguise experiment nhanes`: Mitrovic et al. (2017) §6.2, Figure 2 — feature selection.
//!
//! 17,698 adults of NHANES 2007–2012 (the closest public extract to the paper's 2007–2014
//! data: see the data README), 23 binary health features and the label `diabetes`. The
//! objective is the mutual information I(Y; X_S) in bits under the naive Bayes model, with the
//! library's proven per-round sensitivity (`docs/proofs/mutual-information.md`; the paper's
//! Claim 6.2, (2i + 1)·log₂(n)/n, is stated without a proof).
//! ε = 1 total, δ = 2^-20, split by basic composition (the paper) or the best rule.
//!
//! Outputs (prefix `nhanes_`): `mutual_information.csv` (tidy: composition × method × k),
//! `feature_rates.csv` (how often each feature is in the chosen top 3), `features.csv`
//! (each feature's mutual information alone), and the figures `mi_k_*` (Figure 2(b)) and
//! `top3_*` (Figure 2(c)).

use crate::plot::{BarChart, GREY, LineChart, Series};
use crate::uber::{Composition, Method, Spec, one_run};
use crate::{Common, Context, Report, SUMMARY_COLUMNS, Summary, cell, pick_rates};
use anyhow::{Context as _, bail};
use disguise::data::read_columns;
use disguise::objective::{MutualInformation, SetFunction};
use std::collections::HashMap;

/// Arguments of `disguise experiment nhanes`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    common: Common,
}

const DATA: &str = "nhanes_diabetes/nhanes_2007_2012_diabetes_binary23.csv";
const LABEL: &str = "diabetes";
const ID: &str = "SEQN";
const EPSILON: f64 = 1.0;
const DELTA: f64 = 1.0 / (1u64 << 20) as f64;
const K_MAX: usize = 10;
const K_TOP: usize = 3;

/// Runs `disguise experiment nhanes`.
pub fn run(args: Args) -> anyhow::Result<Report> {
    let mut ctx = Context::new("nhanes", args.common, 1000)?;
    let path = ctx.data(DATA)?;
    // The header names the columns: every one but the id and the label is a feature.
    let header = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .lines()
        .next()
        .map(str::to_string)
        .unwrap_or_default();
    let names: Vec<String> = header
        .split(',')
        .map(|h| h.trim().trim_matches('"').to_string())
        .filter(|h| h != ID && h != LABEL && !h.is_empty())
        .collect();
    if names.is_empty() {
        bail!("{}: no feature columns", path.display());
    }
    let mut wanted: Vec<&str> = names.iter().map(String::as_str).collect();
    wanted.push(LABEL);
    let cols = read_columns(&path, &wanted, None)?;
    let to_binary = |col: &Vec<f64>, name: &str| -> anyhow::Result<Vec<u32>> {
        col.iter()
            .enumerate()
            .map(|(i, &v)| match v {
                0.0 => Ok(0),
                1.0 => Ok(1),
                _ => bail!(
                    "{}: row {}: column {name} is {v}, not 0 or 1",
                    path.display(),
                    i + 2
                ),
            })
            .collect()
    };
    let features: Vec<Vec<u32>> = names
        .iter()
        .zip(&cols.numeric)
        .map(|(name, col)| to_binary(col, name))
        .collect::<anyhow::Result<_>>()?;
    let labels = to_binary(&cols.numeric[names.len()], LABEL)?;
    let f = MutualInformation::new(&features, &vec![2; names.len()], &labels, 2)?;
    let m = names.len();
    ctx.note(&format!(
        "nhanes: {} records, {} features, {} trials per configuration",
        labels.len(),
        m,
        ctx.trials
    ));

    // Every feature on its own (reference for the reader; not a private release).
    let alone: Vec<f64> = (0..m).map(|v| f.evaluate(&[v])).collect();
    let mut by_alone: Vec<usize> = (0..m).collect();
    by_alone.sort_by(|&a, &b| alone[b].total_cmp(&alone[a]).then(a.cmp(&b)));
    ctx.csv(
        "features",
        &["feature", "mutual_information_alone", "rank"],
        &by_alone
            .iter()
            .enumerate()
            .map(|(r, &v)| vec![names[v].clone(), cell(alone[v]), (r + 1).to_string()])
            .collect::<Vec<_>>(),
    )?;

    #[derive(Clone, Copy)]
    struct Config {
        composition: Option<Composition>,
        method: Method,
        k: usize,
    }
    let mut configs = Vec::new();
    for k in 1..=K_MAX {
        for method in Method::ALL {
            if method.mechanism().is_some() {
                for c in Composition::ALL {
                    configs.push(Config {
                        composition: Some(c),
                        method,
                        k,
                    });
                }
            } else {
                configs.push(Config {
                    composition: None,
                    method,
                    k,
                });
            }
        }
    }
    let trials = ctx.trials;
    let jobs: Vec<usize> = configs
        .iter()
        .enumerate()
        .flat_map(|(i, c)| {
            std::iter::repeat_n(
                i,
                if c.method == Method::Greedy {
                    1
                } else {
                    trials
                },
            )
        })
        .collect();
    let outcomes = ctx.run_jobs("nhanes trials", &jobs, |&i, rng| {
        let c = configs[i];
        let spec = Spec {
            method: c.method,
            composition: c.composition,
            k: c.k,
            epsilon: EPSILON,
            delta: DELTA,
        };
        one_run(&f, 1.0, spec, rng)
    })?;
    let mut by_config: Vec<Vec<_>> = (0..configs.len()).map(|_| Vec::new()).collect();
    for (&i, o) in jobs.iter().zip(&outcomes) {
        by_config[i].push(o);
    }

    let mut rows = Vec::new();
    let mut curves: Curves = HashMap::new();
    for (c, outs) in configs.iter().zip(&by_config) {
        let s = Summary::of(&outs.iter().map(|o| o.utility).collect::<Vec<_>>());
        let first = outs[0];
        let mut row = vec![
            "nhanes".to_string(),
            c.composition.map_or("none", Composition::key).to_string(),
            c.method.key().to_string(),
            c.k.to_string(),
            cell(EPSILON),
            cell(DELTA),
        ];
        row.extend(s.cells(first.per_round, first.guarantee));
        rows.push(row);
        curves
            .entry((c.composition, c.method))
            .or_default()
            .push((c.k as f64, s));
    }
    let header = [
        "experiment",
        "composition",
        "method",
        "k",
        "epsilon",
        "delta",
    ];
    ctx.csv(
        "mutual_information",
        &[&header[..], &SUMMARY_COLUMNS].concat(),
        &rows,
    )?;

    // Figure 2(b): mutual information vs k.
    for comp in Composition::ALL {
        let rule = match comp {
            Composition::Basic => "basic composition, ε₀ = ε/k",
            Composition::Best => "best composition rule",
        };
        let mut chart = LineChart::new(
            format!("NHANES diabetes: I(Y; X_S) vs k (ε = {EPSILON}, {rule})"),
            "k (number of features chosen)",
            "mutual information with diabetes (bits)",
        );
        for method in Method::ALL {
            let key = (method.mechanism().map(|_| comp), method);
            if let Some(points) = curves.get(&key) {
                let points = points.iter().map(|(x, s)| s.point(*x)).collect();
                chart = chart.series(Series::new(method.label(), method.style()).points(points));
            }
        }
        ctx.figure(&format!("mi_k_{}", comp.key()), &chart)?;
    }

    // Figure 2(c): how often each feature is in the chosen top 3.
    let mut rate_rows = Vec::new();
    let mut table = vec![format!(
        "mutual information I(Y; X_S) in bits at k = {K_TOP}, ε = {EPSILON}, δ = 2^-20 \
         (mean ± 95% CI over trials), and the three features chosen most often:"
    )];
    for comp in Composition::ALL {
        let categories: Vec<String> = by_alone.iter().map(|&v| names[v].clone()).collect();
        let mut bars = BarChart::new(
            format!(
                "How often each feature is among the {K_TOP} chosen (ε = {EPSILON}, {} composition)",
                comp.key()
            ),
            format!("fraction of trials (features by decreasing MI alone; random = {K_TOP}/{m})"),
            categories,
        )
        .value_range(0.0, 1.04);
        if comp == Composition::Basic {
            table.push(String::new());
        }
        table.push(format!("  {} composition:", comp.key()));
        for method in Method::ALL {
            let key_comp = method.mechanism().map(|_| comp);
            let Some(ci) = configs
                .iter()
                .position(|c| c.k == K_TOP && c.method == method && c.composition == key_comp)
            else {
                continue;
            };
            let outs = &by_config[ci];
            let rate = pick_rates(outs.iter().map(|o| o.elements.as_slice()), m);
            for v in 0..m {
                rate_rows.push(vec![
                    comp.key().to_string(),
                    method.key().to_string(),
                    K_TOP.to_string(),
                    names[v].clone(),
                    cell(rate[v]),
                    outs.len().to_string(),
                ]);
            }
            let s = Summary::of(&outs.iter().map(|o| o.utility).collect::<Vec<_>>());
            let mut top: Vec<usize> = (0..m).collect();
            top.sort_by(|&a, &b| rate[b].total_cmp(&rate[a]).then(a.cmp(&b)));
            table.push(format!(
                "    {:<30} {:.4} ± {:.4}   {}",
                method.label(),
                s.mean,
                s.ci95(),
                top[..K_TOP]
                    .iter()
                    .map(|&v| format!("{} {:.0}%", names[v], 100.0 * rate[v]))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            if method != Method::Random {
                let color = if method == Method::Greedy {
                    GREY
                } else {
                    method.style().color
                };
                bars = bars.series(
                    method.label(),
                    color,
                    by_alone.iter().map(|&v| rate[v]).collect(),
                );
            }
        }
        ctx.figure(&format!("top{K_TOP}_{}", comp.key()), &bars)?;
    }
    ctx.csv(
        "feature_rates",
        &["composition", "method", "k", "feature", "rate", "n"],
        &rate_rows,
    )?;
    Ok(ctx.finish(table))
}

/// Per (composition, method): the (x, summary) points of one curve.
type Curves = HashMap<(Option<Composition>, Method), Vec<(f64, Summary)>>;
