//! Projected-histogram benchmarks (Vinterbo 2012) on UCI Adult (adult.data + adult.test,
//! 48,842 rows; a synthetic table of the same shape when the data is absent):
//!
//! * the sparse thresholded histogram of all 15 columns (14 predictors discretized + the
//!   target), split into encoding, counting and noise;
//! * the same on the data replicated 1×, 2×, 4×, 8×, with a fixed threshold: time ∝ n;
//! * sparse against the naive dense construction on spaces small enough for the latter
//!   (the codes of the smallest space are written to `target/histogram-bench-space.csv` for
//!   an outside comparison, e.g. with diffprivlib's `histogramdd`);
//! * PRIVATEKD (k = 4), NONPRIVATEKD, MDA, the simulated choice of k, and the whole pipeline.
//!
//! Run: `cargo bench -p disguise --bench histogram`. Plain `std::time`; each line prints the
//! best and median of several repetitions.

use disguise::SecureRng;
use disguise::histogram::{
    Discretized, Domain, DomainSource, MixedRadix, ProjectionConfig, Schema, SparseLaplace, Table,
    cell_counts, discernibility_for, mda, nonprivate_kd, private_kd, projected_histogram,
    simulate_k,
};
use disguise::noise::Laplace;
use disguise::noise::bernoulli::uniform_below;
use disguise::privacy::Epsilon;
use std::path::PathBuf;
use std::time::Duration;
use timing::time;

#[path = "support/timing.rs"]
mod timing;

fn report(label: &str, extra: &str, (best, median): (Duration, Duration)) {
    println!(
        "{label:<58} best {:>9.3} ms  median {:>9.3} ms  {extra}",
        best.as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e3,
    );
}

fn schema() -> Schema {
    Schema::from_path(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas/adult.schema.toml"))
        .expect("the shipped Adult schema parses")
}

/// Adult discretized with the paper's rule, or a random table with Adult's domains.
fn adult() -> Discretized {
    let schema = schema();
    let train = disguise::data::locate_for_test("uci_adult/adult.data")
        .ok()
        .flatten();
    let test = disguise::data::locate_for_test("uci_adult/adult.test")
        .ok()
        .flatten();
    if let (Some(train), Some(test)) = (train, test) {
        let table = Table::read(&[&train, &test], &schema, DomainSource::Schema).unwrap();
        return Discretized::new(&table).unwrap();
    }
    println!("(Adult data absent: a random table with Adult's domains and 48,842 rows)");
    let n = 48_842;
    let mut rng = SecureRng::insecure_from_seed(1);
    // Codes drawn directly in the schema's domains (2 bins per numeric column, as the
    // paper's rule gives for n = 48,842 and 14 predictors).
    let table_schema = schema;
    let domains: Vec<Domain> = table_schema
        .columns
        .iter()
        .map(|c| match &c.levels {
            Some(levels) => Domain::Categorical {
                levels: levels.clone(),
                missing: if c.nullable { Some("?".into()) } else { None },
            },
            None => {
                let [lo, hi] = c.bounds.unwrap();
                Domain::Numeric {
                    bins: disguise::histogram::Bins::new(lo, hi, 2).unwrap(),
                    missing: None,
                }
            }
        })
        .collect();
    let codes = domains
        .iter()
        .map(|d| {
            (0..n)
                .map(|_| uniform_below(&mut rng, d.size()) as u32)
                .collect()
        })
        .collect();
    Discretized::from_codes(table_schema.names(), domains, codes).unwrap()
}

fn encode_all(data: &Discretized, columns: &[usize]) -> (MixedRadix, Vec<u64>) {
    let names: Vec<String> = columns.iter().map(|&c| data.names()[c].clone()).collect();
    let radices: Vec<u64> = columns.iter().map(|&c| data.domains()[c].size()).collect();
    let enc = MixedRadix::new(&radices, &names).unwrap();
    let cols: Vec<&disguise::data::Codes> = columns.iter().map(|&c| data.codes(c)).collect();
    let mut codes = vec![0u64; data.rows()];
    enc.encode_codes_into(&cols, 0, &mut codes).unwrap();
    (enc, codes)
}

/// The naive construction: noise for every one of the m cells.
fn dense(rng: &mut SecureRng, lap: &Laplace, tau: f64, codes: &[u64], m: u64) -> Vec<(u64, f64)> {
    let mut h = vec![0u64; m as usize];
    for &c in codes {
        h[c as usize] += 1;
    }
    let mut out = Vec::new();
    for (cell, &count) in h.iter().enumerate() {
        let v = lap.sample(rng, count as f64).unwrap();
        if v > tau {
            out.push((cell as u64, v));
        }
    }
    out
}

fn main() {
    let data = adult();
    let n = data.rows();
    let target = data.column_index("income").unwrap();
    let mut rng = SecureRng::insecure_from_seed(7);
    println!("Adult: n = {n}, d = {} columns", data.width());

    // 1. All 15 columns.
    let all: Vec<usize> = (0..data.width()).collect();
    let (enc, codes) = encode_all(&data, &all);
    let m = enc.size();
    report(
        "encode 15 columns (O(n·d))",
        "",
        time(20, || encode_all(&data, &all)),
    );
    report(
        "count non-empty cells (radix sort)",
        "",
        time(20, || cell_counts(&codes, m).unwrap()),
    );
    for a in [2.0, 4.0] {
        let mech = SparseLaplace::new(Epsilon::new(1.0).unwrap(), n as u64, a).unwrap();
        let h = mech.release(&mut rng, &codes, m).unwrap();
        let extra = format!(
            "m = {m:.3e}, τ = {:.1}, E[spurious] = {:.0}, |S| = {}",
            mech.threshold(),
            m as f64 * mech.spurious_probability().unwrap(),
            h.support_size()
        );
        report(
            &format!("sparse histogram, all 15 columns, ε = 1, A = {a}"),
            &extra,
            time(10, || mech.release(&mut rng, &codes, m).unwrap()),
        );
    }
    let paper = SparseLaplace::new(Epsilon::new(1.0).unwrap(), n as u64, 0.5).unwrap();
    println!(
        "  (A = ½ on all 15 columns: E[spurious] = {:.2e} cells — refused, the reason to project)",
        m as f64 * paper.spurious_probability().unwrap()
    );

    // 2. Linear in n: replicate the codes, fixed τ so the output size stays comparable.
    let fixed = SparseLaplace::with_scale(2.0, 40.0).unwrap();
    for rep in [1usize, 2, 4, 8] {
        let big: Vec<u64> = (0..rep).flat_map(|_| codes.iter().copied()).collect();
        let t = time(7, || fixed.release(&mut rng, &big, m).unwrap());
        report(
            &format!("sparse histogram, n = {} ({rep}× Adult), τ = 40", big.len()),
            &format!(
                "{:.1} ns/record",
                t.0.as_secs_f64() * 1e9 / big.len() as f64
            ),
            t,
        );
    }

    // 3. Sparse vs dense on small spaces.
    let pick = |names: &[&str]| -> Vec<usize> {
        let mut v: Vec<usize> = names
            .iter()
            .map(|s| data.column_index(s).unwrap())
            .collect();
        v.sort_unstable();
        v
    };
    let spaces = [
        pick(&[
            "education",
            "occupation",
            "relationship",
            "race",
            "sex",
            "income",
        ]),
        pick(&[
            "native-country",
            "education",
            "occupation",
            "relationship",
            "sex",
            "income",
        ]),
    ];
    for (i, cols) in spaces.iter().enumerate() {
        let (enc, codes) = encode_all(&data, cols);
        let m = enc.size();
        let mech = SparseLaplace::new(Epsilon::new(1.0).unwrap(), n as u64, 0.5).unwrap();
        let lap = Laplace::new(mech.scale()).unwrap();
        let ts = time(10, || mech.release(&mut rng, &codes, m).unwrap());
        let td = time(5, || dense(&mut rng, &lap, mech.threshold(), &codes, m));
        report(&format!("sparse, m = {m}"), "", ts);
        report(
            &format!("dense (noise in all m cells), m = {m}"),
            &format!(
                "dense/sparse = {:.1}",
                td.0.as_secs_f64() / ts.0.as_secs_f64()
            ),
            td,
        );
        if i == 0 {
            // The projected codes, for timing diffprivlib.tools.histogramdd on the same space.
            let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../target/histogram-bench-space.csv");
            let mut text = String::new();
            let radices: Vec<String> = enc.radices().iter().map(u64::to_string).collect();
            text.push_str(&radices.join(","));
            text.push('\n');
            for c in &codes {
                let mut digits = vec![0u32; enc.len()];
                enc.decode(*c, &mut digits);
                let row: Vec<String> = digits.iter().map(u32::to_string).collect();
                text.push_str(&row.join(","));
                text.push('\n');
            }
            if std::fs::write(&path, text).is_ok() {
                println!("  (codes of this space written to {})", path.display());
            }
        }
    }

    // 4. Projection.
    let (f, _) = discernibility_for(&data, target).unwrap();
    let eps_p = Epsilon::new(0.8).unwrap();
    report(
        "PRIVATEKD k = 4 (14 attributes)",
        "",
        time(10, || private_kd(&f, 4, eps_p, &mut rng).unwrap()),
    );
    report(
        "NONPRIVATEKD k = 4",
        "",
        time(10, || nonprivate_kd(&f, 4).unwrap()),
    );
    report(
        "MDA σ = 0.1 (greedy over all 14)",
        "",
        time(10, || mda(&f, 0.1).unwrap()),
    );
    report(
        "simulated k (n records, 14 normal predictors, MDA)",
        "",
        time(5, || simulate_k(n as u64, 14, 2, 0.1, 1).unwrap()),
    );
    let config = ProjectionConfig::new(Epsilon::new(1.0).unwrap());
    report(
        "whole pipeline (k, γ estimated; PRIVATEKD; histogram)",
        "",
        time(5, || {
            projected_histogram(&data, target, &config, &mut rng).unwrap()
        }),
    );
}
