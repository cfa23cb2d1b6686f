//! The numbers a user types that size work or are checked before it starts, through the
//! library functions the commands hand them to: budget plans (`budget`, `--composition`),
//! itemset budgets (`itemsets --size/--top/--max-length/--max-margin/--count-share`),
//! cardinality and `--constraint` specs, the selectors on a score vector (`sample`: ε,
//! δ, sensitivity, extreme scores), and the histogram's parameters (`--k`, `--gamma`,
//! `--sigma`, `--threshold-constant`, `--k-split`) run on a fixed small table.
#![no_main]

use arbitrary::Arbitrary;
use disguise::apps::{ItemsetBudget, ItemsetQuery};
use disguise::constraint::{Matroid, Uniform};
use disguise::histogram::{
    Discretized, DomainSource, GammaParams, KChoice, ProjectionConfig, Schema, Table, bin_count,
    epsilon_h_required, epsilon_p_required, estimate_gamma, gamma_from, projected_histogram,
};
use disguise::prelude::*;
use disguise::privacy::budget::{BudgetQuery, CallKind, plan};
use disguise::select::SelectorKind;
use disguise::select::{Argmax, LargeMargin, ReportNoisyMax};
use disguise_fuzz::write_input;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

#[derive(Arbitrary, Debug)]
struct Input {
    epsilon: f64,
    delta: f64,
    rounds: u64,
    kind: u8,
    decomposable: bool,
    top: usize,
    mechanism: u8,
    max_margin: u64,
    count_share: f64,
    size: usize,
    max_length: usize,
    ground: u16,
    k: usize,
    spec: String,
    sensitivity: f64,
    scores: Vec<f64>,
    seed: u64,
    hist: Hist,
}

#[derive(Arbitrary, Debug)]
struct Hist {
    k: u8,
    k_value: usize,
    k_split: Vec<usize>,
    gamma: Option<f64>,
    sigma: f64,
    threshold_constant: f64,
    // Shape of the data (bounded: they come from a file already in memory).
    n: u32,
    predictors: u8,
    q: u8,
    b: f64,
    l: f64,
    z: f64,
    p: f64,
}

/// Twelve rows of a three-column table, discretized once.
fn table() -> &'static Discretized {
    static DATA: OnceLock<Discretized> = OnceLock::new();
    DATA.get_or_init(|| {
        let schema = Schema::from_toml_str(
            r#"
name = "tiny"
has_header = true
target = "y"
columns = [
    { name = "y", type = "categorical", levels = ["no", "yes"] },
    { name = "age", type = "numeric", bounds = [0, 100], bins = 3 },
    { name = "city", type = "categorical", levels = ["a", "b", "c"] },
]
"#,
            "tiny",
        )
        .expect("fixed schema");
        let rows = "y,age,city\nno,10,a\nyes,20,b\nno,30,c\nyes,40,a\nno,50,b\nyes,60,c\n\
                    no,70,a\nyes,80,b\nno,90,c\nyes,15,a\nno,25,b\nyes,35,c\n";
        let path = write_input("tiny.csv", rows.as_bytes());
        let table = Table::read(&[&path], &schema, DomainSource::Schema).expect("fixed table");
        Discretized::new(&table).expect("fixed table discretizes")
    })
}

fuzz_target!(|input: Input| {
    let mut rng = SecureRng::insecure_from_seed(input.seed);

    // budget / --composition: any round count (the KOV rule costs O(√k) per evaluation up to
    // KOV_MAX_ROUNDS = 10⁷, at most about half a second).
    let rounds = input.rounds;
    if let Ok(query) = BudgetQuery::new(input.epsilon, input.delta, rounds) {
        let kind = match input.kind % 3 {
            0 => CallKind::BoundedRange,
            1 => CallKind::Pure,
            _ => CallKind::Approximate,
        };
        let _ = plan(&query.with_kind(kind).with_decomposable(input.decomposable));
    }

    // itemsets
    if let (Ok(eps), Ok(delta)) = (Epsilon::new(input.epsilon), Delta::new(input.delta)) {
        let mechanism = match input.mechanism % 3 {
            0 => SelectorKind::LargeMargin,
            1 => SelectorKind::LargeMarginChaudhuri,
            _ => SelectorKind::Exponential,
        };
        let query = ItemsetQuery::new(eps, delta)
            .top(input.top)
            .mechanism(mechanism)
            .max_margin(input.max_margin)
            .count_share(input.count_share);
        let _ = ItemsetBudget::new(&query, input.size, input.max_length);
    }

    // --k and --constraint over a ground set of candidates
    let ground = usize::from(input.ground);
    let _ = Uniform::new(ground, input.k);
    let _ = Matroid::from_spec(&input.spec, ground);

    // sample: the selectors on a score vector
    if let (Ok(eps), Ok(delta), Ok(sens)) = (
        Epsilon::new(input.epsilon),
        Delta::new(input.delta),
        Sensitivity::new(input.sensitivity),
    ) {
        let scores = &input.scores[..input.scores.len().min(64)];
        let mut selectors: Vec<Box<dyn Selector>> = vec![
            Box::new(Exponential::new(eps)),
            Box::new(ReportNoisyMax::new(eps)),
            Box::new(Argmax),
        ];
        if let Ok(s) = LargeMargin::new(eps, delta) {
            selectors.push(Box::new(s));
        }
        if let Ok(s) = LargeMargin::chaudhuri(eps, delta) {
            selectors.push(Box::new(s));
        }
        for selector in &selectors {
            if let Ok(pick) = selector.select(scores, sens, &mut rng) {
                assert!(pick.index < scores.len());
            }
        }
    }

    // histogram parameters
    let h = &input.hist;
    let n = u64::from(h.n);
    let predictors = usize::from(h.predictors);
    let q = usize::from(h.q);
    let _ = bin_count(n, predictors);
    let _ = epsilon_p_required(n, h.k_value, predictors, q, h.b, h.l);
    let _ = epsilon_h_required(n, h.z, h.p, h.threshold_constant);
    let _ = gamma_from(h.z, h.b);
    let params = GammaParams {
        a: h.threshold_constant,
        ..GammaParams::default()
    };
    if n <= 100_000 && predictors <= 50 {
        let _ = estimate_gamma(n, predictors, q, h.k_value.min(64), &params);
    }
    if let Ok(eps) = Epsilon::new(input.epsilon) {
        let k = match h.k % 3 {
            0 => KChoice::Given(h.k_value),
            1 => KChoice::Simulated {
                sigma: h.sigma,
                seed: input.seed,
            },
            _ => KChoice::Split {
                candidates: h.k_split.iter().take(8).copied().collect(),
                sigma: h.sigma,
            },
        };
        let config = ProjectionConfig {
            epsilon: eps,
            k,
            gamma: h.gamma,
            params,
            rows: Default::default(),
        };
        let data = table();
        let target = data.column_index("y").expect("fixed column");
        let _ = projected_histogram(data, target, &config, &mut rng);
    }
});
