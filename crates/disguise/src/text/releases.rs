//! The single releases for people: frequent itemsets, a projected histogram, a decision
//! stump, the demo's facility location. A line that names one of the request's options names it as the front end spells
//! it: `flag` maps the library's name of a parameter (`items`, `rows`, `mechanism`,
//! `bounds_from_data`) to the front end's (`--items` on the command line).

use super::SEEDED;
use crate::apps::{ItemsetOutcome, ItemsetRelease};
use crate::histogram::{ProjectedHistogram, SyntheticRows};
use crate::numeric::display::{budget, fixed, group_digits, guarantee, input, sig, thousands};
use crate::task::{DemoReport, HISTOGRAM_NEIGHBOURS, HypothesisReport};
use std::fmt::Write as _;

/// The table of a frequent-itemset release: what was searched, one line per round (the
/// itemset, its margin and its noisy frequency), the budget — the total `epsilon` and
/// `delta` as typed, split over `top` rounds — and the guarantee. Public and released
/// values only: the exact counts are the report's diagnostics
/// ([`not_private_section`](super::not_private_section)). Each line ends with `\n`.
pub fn itemsets_table(
    r: &ItemsetRelease,
    epsilon: f64,
    delta: f64,
    top: usize,
    flag: &dyn Fn(&str) -> String,
) -> String {
    let mut out = String::new();
    let universe = match (&r.universe_size, r.universe_items) {
        (Some(k), Some(items)) => format!(
            "all C({items}, {}) = {} itemsets of {}",
            r.size,
            group_digits(k),
            flag("items")
        ),
        _ => "every itemset of size r (not enumerated; no item list)".to_string(),
    };
    let _ = writeln!(
        out,
        "{} transactions, itemsets of size {} (transactions cut to {} items), mechanism {}, \
         universe: {universe}",
        thousands(*r.transactions as u64),
        r.size,
        r.max_length,
        r.mechanism
    );
    out.push('\n');
    let _ = writeln!(
        out,
        "{:>5}  {:<40} {:>8} {:>12}",
        "round", "itemset", "margin ℓ", "noisy freq"
    );
    for p in &r.picks {
        let itemset = match (&*p.itemset, *p.outcome) {
            (Some(items), _) => format!("{{{}}}", items.join(" ")),
            (None, ItemsetOutcome::NoMargin) => "(no itemset: no margin found)".to_string(),
            (None, _) => "(no itemset: a zero-frequency pick)".to_string(),
        };
        let margin = p.margin.map_or("-".to_string(), |m| m.to_string());
        let noisy = p
            .noisy_frequency
            .map_or("-".to_string(), |f| format!("{f:.5}"));
        let _ = writeln!(
            out,
            "{:>5}  {:<40} {:>8} {:>12}",
            p.round, itemset, margin, noisy
        );
    }
    out.push('\n');
    let counts = match (r.count_epsilon, r.count_scale) {
        (Some(e), Some(b)) => format!(
            "; noisy frequencies: ε = {}, Laplace scale {} counts",
            budget(*e),
            sig(*b, 6)
        ),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "budget: total ε = {}, δ = {}; {top} selection round(s) at ε₀ = {}, δ₀ = {} (split by \
         {} composition){counts}",
        input(epsilon),
        input(delta),
        budget(*r.per_round_epsilon),
        budget(*r.per_round_delta),
        r.split_rule,
    );
    let plus = if r.count_epsilon.is_some() {
        ", plus the noisy frequencies by basic composition"
    } else {
        ""
    };
    let _ = write!(
        out,
        "guarantee: ({}, {})-differentially private (selection by {} composition{plus}; \
         neighbouring datasets differ in one transaction)",
        guarantee(*r.epsilon),
        guarantee(*r.delta),
        r.selection_guarantee.rule,
    );
    if !*r.secure_rng {
        out.push_str(SEEDED);
    }
    out.push('\n');
    out
}

/// The summary of a projected-histogram release: the projection, the split of ε, the
/// histogram and its `written` synthetic records (in `out`, the file as the front end names
/// it), the guarantee and the release's notes. Each line ends with `\n`.
pub fn histogram_summary(
    release: &ProjectedHistogram,
    written: u64,
    out: &str,
    flag: &dyn Fn(&str) -> String,
) -> String {
    let mut text = String::new();
    let t = &mut text;
    let _ = writeln!(
        t,
        "projected histogram: {} records, {} predictors, target {}",
        thousands(*release.records as u64),
        release.predictors,
        release.target
    );
    let _ = writeln!(
        t,
        "  kept        {}  (k = {} of {}: {})",
        if release.attributes.is_empty() {
            "no predictor".to_string()
        } else {
            release.attributes.join(", ")
        },
        release.k,
        release.predictors,
        release.k_method
    );
    if let Some(edges) = &release.edges {
        let _ = writeln!(t, "  edges       {}", edges_line(edges));
    }
    if let Some(line) = values_line(&release.values) {
        let _ = writeln!(t, "  values      {line}");
    }
    if !release.dropped.is_empty() {
        let _ = writeln!(t, "  dropped     {}", names_list(&release.dropped));
    }
    if *release.epsilon_p > 0.0 {
        let _ = writeln!(
            t,
            "  projection  ε_p = {}, exponential mechanism in PRIVATEKD",
            guarantee(*release.epsilon_p)
        );
    } else {
        t.push_str("  projection  ε_p = 0 (k = every predictor: nothing to choose)\n");
    }
    let _ = writeln!(
        t,
        "  histogram   ε_h = {}, thresholded Laplace (scale 2/ε_h, τ = {}): {} cells ({}), {} \
         released, {} synthetic records -> {out}",
        guarantee(*release.epsilon_h),
        sig(*release.threshold, 4),
        thousands(*release.space_size),
        release.columns.join(" × "),
        thousands(*release.support_size as u64),
        thousands(written),
    );
    let _ = match &release.gamma_estimate {
        Some(est) => writeln!(
            t,
            "  split       {} (needs by the paper's estimate: projection {}, histogram {})",
            release.gamma_method,
            sig(est.epsilon_p, 3),
            sig(est.epsilon_h, 3)
        ),
        None => writeln!(
            t,
            "  split       γ = {} ({})",
            input(*release.gamma),
            release.gamma_method
        ),
    };
    if *release.rows == SyntheticRows::Records {
        let _ = writeln!(
            t,
            "  rows        n = {} (public), in proportion to the noisy counts (which would \
             give {}; {} noisy-counts)",
            thousands(*release.records as u64),
            thousands(*release.noisy_rows),
            flag("rows")
        );
    }
    let _ = match &release.guarantee {
        Some(g) if *release.secure_rng => writeln!(
            t,
            "  guarantee   ({}, {})-DP by {} composition; neighbours: {HISTOGRAM_NEIGHBOURS}",
            guarantee(g.epsilon),
            guarantee(g.delta),
            g.rule
        ),
        Some(g) => writeln!(
            t,
            "  guarantee   NONE: seeded run (would be ({}, {})-DP with a secure generator)",
            guarantee(g.epsilon),
            guarantee(g.delta)
        ),
        None => writeln!(
            t,
            "  guarantee   NONE: NOT PRIVATE (domains taken from the data)"
        ),
    };
    for note in release.notes.iter() {
        let _ = writeln!(t, "  note        {note}");
    }
    text
}

/// One line naming the columns a projected histogram's synthetic data keeps and the
/// predictors it drops (a front end prints it beside the file it writes: the file alone
/// cannot say what is missing).
pub fn histogram_columns_note(release: &ProjectedHistogram) -> String {
    let kept = if release.attributes.is_empty() {
        "no predictor".to_string()
    } else {
        let named: Vec<String> = release
            .attributes
            .iter()
            .map(|a| match release.bins.get(a) {
                Some(b) => format!("{a} in {b} bins"),
                None => a.clone(),
            })
            .collect();
        named.join(", ")
    };
    let mut line = format!(
        "the synthetic data keeps {} of {} predictors ({kept}) and the target {}",
        release.attributes.len(),
        release.attributes.len() + release.dropped.len(),
        release.target
    );
    if !release.dropped.is_empty() {
        let _ = write!(line, "; dropped: {}", names_list(&release.dropped));
    }
    line
}

/// Column names for people: all of them up to 12, else the first 10 and how many more.
fn names_list(names: &[String]) -> String {
    if names.len() <= 12 {
        names.join(", ")
    } else {
        format!("{}, and {} more", names[..10].join(", "), names.len() - 10)
    }
}

/// The table of a private hypothesis selection: the class searched, the chosen stump, its
/// margin and the guarantee. Public and released values only: the accuracies are the
/// report's diagnostics ([`not_private_section`](super::not_private_section)). Each line
/// ends with `\n`.
pub fn hypothesis_table(report: &HypothesisReport, flag: &dyn Fn(&str) -> String) -> String {
    let mut text = String::new();
    let t = &mut text;
    let selection = &report.selection;
    let _ = writeln!(
        t,
        "{} records, {} hypotheses (decision stumps, {} thresholds per numeric column), \
         mechanism {}",
        report.records, selection.hypotheses, report.thresholds, report.mechanism
    );
    let _ = writeln!(
        t,
        "chosen: {}  (hypothesis #{})",
        report.hypothesis, selection.index
    );
    if let Some(m) = *selection.margin {
        let _ = writeln!(t, "margin ℓ = {m}");
    }
    let _ = match selection.guarantee {
        Some(g) if *report.private_domains => {
            let seeded = if *selection.secure_rng { "" } else { SEEDED };
            writeln!(
                t,
                "guarantee: ({}, {})-differentially private ({} composition; neighbouring \
                 datasets differ in one record){seeded}",
                guarantee(g.epsilon),
                guarantee(g.delta),
                g.rule
            )
        }
        Some(_) => writeln!(
            t,
            "guarantee: NONE — domains were taken from the data ({})",
            flag("bounds_from_data")
        ),
        None => writeln!(
            t,
            "guarantee: NONE — {} max is the non-private argmax",
            flag("mechanism")
        ),
    };
    text
}

/// The demo's table: what was chosen for how many pickups, the private picks with the
/// utility after each, private against non-private utility, the guarantee (void for a
/// run seeded with the option `flag("seed")` names) and the map. Each line ends with `\n`.
pub fn demo_table(out: &DemoReport, flag: &dyn Fn(&str) -> String) -> String {
    let mut text = String::new();
    let t = &mut text;
    let _ = writeln!(
        t,
        "disguise demo: choose {} of {} waiting spots to serve {} pickups,",
        out.k,
        out.candidates,
        thousands(*out.records as u64)
    );
    t.push_str("without revealing any one passenger's pickup (differential privacy).\n");
    let _ = writeln!(t, "data: {}", out.data);
    let _ = writeln!(
        t,
        "utility f(S)/n: the average over pickups of 1 − (distance to the nearest chosen \
         spot)/{}, so 1 = every pickup at a spot\n",
        input(*out.normalizer)
    );
    // The demo's diagnostics are its point: shown with their label (see `task::demo`).
    t.push_str("  #  private pick                      utility so far (exact, NOT private)\n");
    for (i, p) in out.private.iter().enumerate() {
        let _ = writeln!(
            t,
            "  {}  {:<32}  {}",
            i + 1,
            *p.name,
            fixed(*p.utility_after.reveal(), 4)
        );
    }
    let (private, exact) = (
        *out.private_utility.reveal(),
        *out.non_private_utility.reveal(),
    );
    let ratio = if exact > 0.0 {
        100.0 * private / exact
    } else {
        100.0
    };
    let _ = writeln!(
        t,
        "\nutility f(S)/n: private {}, non-private greedy {} (private reaches {ratio:.1} %)",
        fixed(private, 4),
        fixed(exact, 4)
    );
    t.push_str(
        "  (utilities are computed exactly on the pickups to show the quality of the picks: \
         they are NOT covered by the guarantee below, which protects the private picks only)\n",
    );
    let names: Vec<&str> = out
        .non_private
        .reveal()
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    let _ = writeln!(
        t,
        "non-private greedy picks (shown for comparison only: NOT private): {}",
        names.join(", ")
    );
    if let Some(g) = out.guarantee {
        let per_round = out.per_round_epsilon.map_or(String::new(), |e| {
            format!(", ε₀ = {} per round", budget(*e))
        });
        let _ = writeln!(
            t,
            "guarantee: ({}, {})-differential privacy for each passenger, for the private \
             picks (composition rule: {}{per_round})",
            guarantee(g.epsilon),
            guarantee(g.delta),
            g.rule.name()
        );
    }
    if !*out.secure_rng {
        let _ = writeln!(
            t,
            "           (void here: {} made the run reproducible and predictable)",
            flag("seed")
        );
    }
    let _ = match &out.map {
        Some(path) => writeln!(t, "map written to {path}"),
        None => writeln!(t, "(no map written)"),
    };
    text
}

/// Why a frequent-itemset release holds no itemset — the first round found no margin, or
/// without an item list picked the block of zero-frequency itemsets (its released outcome)
/// — with what would help (`items`: whether a public item list was given); `None` when some
/// round released one.
pub fn itemsets_nothing_released(
    r: &ItemsetRelease,
    items: bool,
    flag: &dyn Fn(&str) -> String,
) -> Option<String> {
    if r.picks.iter().any(|p| p.itemset.is_some()) {
        return None;
    }
    let help = if items {
        "a larger ε".to_string()
    } else {
        format!(
            "a larger ε, or a public {} list (then the exponential mechanism applies)",
            flag("items")
        )
    };
    let zero_block = r
        .picks
        .first()
        .is_some_and(|p| *p.outcome == ItemsetOutcome::ZeroFrequency);
    Some(if zero_block {
        format!(
            "the selection picked the block of zero-frequency itemsets at ε₀ = {} per round, \
             and without an item list there is none to name; {help} would help",
            budget(*r.per_round_epsilon)
        )
    } else {
        format!(
            "no margin was found up to {} {} at ε₀ = {} per round (the top itemsets' counts \
             are too close for this budget); {help} would help",
            flag("max_margin"),
            r.max_margin,
            budget(*r.per_round_epsilon)
        )
    })
}

/// How many transactions were cut to the longest length counted; `None` when none was. The
/// number cut is counted on the data: a diagnostic (NOT private), for a front end that
/// shows diagnostics.
pub fn itemsets_truncated(r: &ItemsetRelease, flag: &dyn Fn(&str) -> String) -> Option<String> {
    let truncated = *r.truncated.reveal();
    (truncated > 0).then(|| {
        let max_length = flag("max_length");
        format!(
            "{} of {} transactions are longer than {max_length} {} and were cut to their {} \
             smallest items (raise {max_length} to count them whole; NOT private: counted on \
             the data)",
            thousands(truncated as u64),
            thousands(*r.transactions as u64),
            r.max_length,
            r.max_length
        )
    })
}

/// Why a projected histogram released no cell (none passed the threshold), so that `out`
/// (the synthetic data as the front end names it) holds a header only, with what would
/// help; `None` when some cell was released.
pub fn histogram_nothing_released(
    release: &ProjectedHistogram,
    out: &str,
    flag: &dyn Fn(&str) -> String,
) -> Option<String> {
    (*release.support_size == 0).then(|| {
        format!(
            "no cell's noisy count passed the threshold τ = {} (n = {}, ε_h = {}), so {out} \
             holds a header only; a larger ε, or fewer or coarser columns (smaller {}, fewer \
             bins), would help",
            sig(*release.threshold, 4),
            thousands(*release.records as u64),
            guarantee(*release.epsilon_h),
            flag("k")
        )
    })
}

/// How the numeric columns' values are written, grouped by how (`None` without numeric
/// columns): `uniform within bins: age, hours; uniform integers within bins: capital-gain`.
pub fn values_line(
    values: &std::collections::BTreeMap<String, crate::histogram::Written>,
) -> Option<String> {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for (name, how) in values {
        let how = how.to_string();
        match groups.iter_mut().find(|(h, _)| *h == how) {
            Some((_, names)) => names.push(name),
            None => groups.push((how, vec![name])),
        }
    }
    (!groups.is_empty()).then(|| {
        groups
            .iter()
            .map(|(how, names)| format!("{how}: {}", names.join(", ")))
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// One line on a release's private bin edges: which columns, how many quantiles and cells,
/// the mechanism's cost per column.
pub fn edges_line(e: &crate::histogram::EdgeRelease) -> String {
    use crate::histogram::EdgeBudget;
    let columns: Vec<String> = e.columns.iter().map(|c| c.column.clone()).collect();
    let quantiles = e.columns.first().map_or(0, |c| c.quantiles);
    let cost = match e.budget {
        EdgeBudget::Pure { epsilon } => format!("ε = {} per column", sig(epsilon, 3)),
        EdgeBudget::Zcdp { rho } => format!("ρ = {} per column (zCDP)", sig(rho, 3)),
    };
    let n = columns.len();
    let cells = e.columns.first().map_or(0, |c| c.cell_counts.len());
    let how = if cells == 0 {
        format!("cut at {quantiles} private quantiles each")
    } else {
        format!(
            "cut where the data lie ({quantiles} private quantiles for point masses, \
             ~{cells} noisy cell counts each"
        )
    };
    let close = if cells == 0 { " (" } else { "; " };
    format!(
        "{n} column{} {how}{close}{cost}, in the guarantee): {}",
        if n == 1 { "" } else { "s" },
        columns.join(", ")
    )
}

/// The summary of records drawn from a kept synthesizer model. Each line ends with `\n`.
pub fn kept_summary(r: &crate::synth::kept::DrawReport) -> String {
    let g = &*r.guarantee;
    let guarantee = format!(
        "({}, {})-DP by {}",
        guarantee(g.epsilon),
        guarantee(g.delta),
        g.rule
    );
    let mut text = format!(
        "synthetic data: {} records × {} columns drawn from the kept model {} -> {}\n",
        thousands(*r.rows),
        r.columns.len(),
        *r.model,
        *r.out
    );
    let _ = writeln!(
        text,
        "  guarantee   that of the release that made the model: {guarantee}{}",
        if g.private {
            ""
        } else {
            " — but that release was not private (a seeded generator or domains from the data)"
        }
    );
    let _ = writeln!(text, "  spent       {}", r.spent);
    text
}

/// The summary of a whole-table synthetic-data release, `written` records to `out`. Each line
/// ends with `\n`.
pub fn synth_summary(r: &crate::task::SynthReport, written: u64, out: &str) -> String {
    use crate::synth::MeasurementNoise;
    let mut text = String::new();
    let t = &mut text;
    let _ = writeln!(
        t,
        "synthetic data: {} records × {} columns -> {} synthetic records in {out}",
        thousands(*r.records),
        r.columns.len(),
        thousands(written)
    );
    let noise = match *r.noise {
        MeasurementNoise::Laplace => "discrete Laplace",
        MeasurementNoise::Gaussian => "discrete Gaussian",
    };
    let larger: Vec<&crate::task::MeasuredReport> =
        r.measured.iter().filter(|m| m.columns.len() > 1).collect();
    match (&r.tree, &r.two_way_noise_sd) {
        (Some(tree), Some(sd2)) => {
            let _ = writeln!(
                t,
                "  marginals   every 1-way ({noise}, sd {} per count) and {} 2-ways (sd {})",
                sig(*r.one_way_noise_sd, 3),
                tree.len(),
                sig(**sd2, 3)
            );
        }
        _ => {
            let sds = larger.iter().map(|m| m.noise_sd);
            let (lo, hi) = (
                sds.clone().fold(f64::INFINITY, f64::min),
                sds.fold(0.0, f64::max),
            );
            let _ = writeln!(
                t,
                "  marginals   every 1-way ({noise}, sd {} per count), then {} chosen in rounds \
                 (sd {} to {})",
                sig(*r.one_way_noise_sd, 3),
                larger.len(),
                sig(lo.min(hi), 3),
                sig(hi, 3)
            );
        }
    }
    if !r.merged.is_empty() {
        let merged: Vec<String> = r.merged.iter().map(|(c, k)| format!("{c} ({k})")).collect();
        let _ = writeln!(
            t,
            "  merged      rare values (noisy count below 3σ) into one per column: {}",
            merged.join(", ")
        );
    }
    if let Some(edges) = &r.edges {
        let _ = writeln!(t, "  edges       {}", edges_line(edges));
    }
    if let Some(line) = values_line(&r.values) {
        let _ = writeln!(t, "  values      {line}");
    }
    if let (Some(tree), Some(e0)) = (&r.tree, &r.tree_epsilon0) {
        let tree: Vec<String> = tree.iter().map(|(a, b)| format!("{a}–{b}")).collect();
        let _ = writeln!(
            t,
            "  tree        {} (exponential mechanism, ε₀ = {} per pair)",
            tree.join(", "),
            sig(**e0, 3)
        );
    } else {
        let chosen: Vec<String> = larger.iter().map(|m| m.columns.join("–")).collect();
        let eps = larger.iter().filter_map(|m| m.selection_epsilon);
        let (lo, hi) = (
            eps.clone().fold(f64::INFINITY, f64::min),
            eps.fold(0.0, f64::max),
        );
        let _ = writeln!(
            t,
            "  chosen      {} (exponential mechanism on AIM's score, ε {} to {} per round)",
            chosen.join(", "),
            sig(lo.min(hi), 3),
            sig(hi, 3)
        );
    }
    let _ = writeln!(
        t,
        "  fit         {} mirror-descent iterations, loss {} -> {}",
        r.fit.iterations,
        sig(r.fit.initial_loss, 3),
        sig(r.fit.final_loss, 3)
    );
    let _ = writeln!(
        t,
        "  noise       before the fit, expected total-variation error of a measurement at most \
         {} (1-way) and {} (larger), on the released domains and marginals",
        sig(*r.noise_tv_one_way, 2),
        sig(*r.noise_tv_two_way, 2)
    );
    let g = &r.guarantee;
    let rule = match *r.noise {
        MeasurementNoise::Laplace => "basic composition",
        MeasurementNoise::Gaussian => "zCDP (converted by Canonne–Kamath–Steinke)",
    };
    let _ = if *r.private {
        writeln!(
            t,
            "  guarantee   ({}, {})-DP by {rule}; neighbours: {}",
            guarantee(g.epsilon),
            guarantee(g.delta),
            r.neighbouring
        )
    } else if *r.secure_rng {
        writeln!(
            t,
            "  guarantee   NONE: NOT PRIVATE (domains taken from the data)"
        )
    } else {
        writeln!(
            t,
            "  guarantee   NONE: seeded run (would be ({}, {})-DP with a secure generator)",
            guarantee(g.epsilon),
            guarantee(g.delta)
        )
    };
    text
}

/// The warning a front end prints when the noise alone may move a measured 2-way marginal
/// by half its mass or more on average (released quantities: the report's `noise_tv_two_way`,
/// from the released compression and tree), or `None`.
pub fn synth_noise_warning(r: &crate::task::SynthReport) -> Option<String> {
    (*r.noise_tv_two_way >= 0.5).then(|| {
        format!(
            "the noise may move a measured 2-way marginal by up to {} in total variation \
             before the fit: pairs of columns will be reproduced poorly (give numeric columns \
             fewer bins, merge rare levels, or spend more ε)",
            sig(*r.noise_tv_two_way, 2)
        )
    })
}
