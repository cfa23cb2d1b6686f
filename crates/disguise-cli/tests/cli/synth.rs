//! `disguise synth`: every column released, the JSON report and its guarantee, the ledger's
//! charge (basic and zCDP filters), refusals in one line.

use crate::common;
use common::{
    HISTOGRAM_SCHEMA as SCHEMA, StdoutOk, dir_with, disguise, fails_with, histogram_rows, json,
    words,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn setup(test: &str) -> PathBuf {
    dir_with(
        &format!("synth-{test}"),
        &[("data.csv", &histogram_rows(3000)), ("schema.toml", SCHEMA)],
    )
}

fn synth(dir: &Path, extra: &str) -> assert_cmd::assert::Assert {
    disguise(dir)
        .args(words(
            "synth --data data.csv --schema schema.toml --out syn.csv",
        ))
        .args(words(extra))
        .assert()
}

#[test]
fn every_column_is_released_and_the_pairs_that_matter_survive() {
    let dir = setup("json");
    let out = synth(&dir, "--epsilon 3 --seed 4 --format json").success();
    let doc = json(&out.get_output().stdout);
    assert_eq!(
        doc["columns"],
        serde_json::json!(["age", "smoker", "region", "sick"])
    );
    assert_eq!(doc["records"], 3000);
    assert_eq!(doc["rows"], 3000);
    assert_eq!(doc["noise"], "laplace");
    assert_eq!(doc["private"], false, "a seeded run is not private");
    assert!(doc["guarantee"]["epsilon"].as_f64().unwrap() <= 3.0);
    assert_eq!(doc["guarantee"]["delta"], 0.0);
    assert_eq!(doc["tree"].as_array().unwrap().len(), 3);
    // sick = smoker in every record: the tree measures that pair, and the synthetic table
    // keeps it (a noise standard deviation of about 17 per count of 3,000 records).
    let pairs: Vec<String> = doc["tree"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("{}-{}", p[0].as_str().unwrap(), p[1].as_str().unwrap()))
        .collect();
    assert!(pairs.contains(&"smoker-sick".to_string()), "{pairs:?}");
    let text = std::fs::read_to_string(dir.join("syn.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("age,smoker,region,sick"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 3000);
    let same = rows.iter().filter(|r| r[1] == r[3]).count();
    assert!(same > 2700, "{same} of 3000 rows keep sick = smoker");
    let mut regions: HashMap<&str, usize> = HashMap::new();
    for r in &rows {
        *regions.entry(r[2]).or_default() += 1;
    }
    assert_eq!(regions.len(), 4, "{regions:?}");
    // The same seed, the same file.
    let first = text.clone();
    synth(&dir, "--epsilon 3 --seed 4 --quiet").success();
    assert_eq!(std::fs::read_to_string(dir.join("syn.csv")).unwrap(), first);
}

#[test]
fn gaussian_measurements_report_an_approximate_guarantee_and_the_table_says_so() {
    let dir = setup("gauss");
    let out = synth(&dir, "--epsilon 1 --delta 1e-6 --rows 500").success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(stdout.contains("discrete Gaussian"), "{stdout}");
    assert!(stdout.contains("(1, 1e-6)-DP by zCDP"), "{stdout}");
    assert!(stdout.contains("-> 500 synthetic records"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(dir.join("syn.csv"))
            .unwrap()
            .lines()
            .count(),
        501
    );
}

#[test]
fn the_ledger_charges_the_release_under_either_filter() {
    let dir = setup("ledger");
    disguise(&dir)
        .args(words("ledger init b.ledger --default-limit 2"))
        .assert()
        .success();
    synth(&dir, "--epsilon 1.5 --ledger b.ledger --dataset census -q").success();
    // 0.5 is left: a second release of 1 is refused before the data is read (exit 3).
    synth(&dir, "--epsilon 1 --ledger b.ledger --dataset census -q").code(3);
    let state = json(
        &disguise(&dir)
            .args(words("ledger show --ledger b.ledger --format json"))
            .stdout_ok(),
    );
    assert_eq!(state["datasets"][0]["spent"]["epsilon"], 1.5, "{state}");
    // Under a zCDP limit a Gaussian release spends its ρ, not ε²/2.
    disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --dataset logs --epsilon 1 --delta 1e-6 --rule zcdp",
        ))
        .assert()
        .success();
    for _ in 0..3 {
        synth(
            &dir,
            "--epsilon 0.5 --delta 1e-7 --ledger b.ledger --dataset logs -q",
        )
        .success();
    }
    let table = String::from_utf8(
        disguise(&dir)
            .args(words("ledger show --ledger b.ledger --dataset logs"))
            .stdout_ok(),
    )
    .unwrap();
    assert!(table.contains("in 3 releases"), "{table}");
}

#[test]
fn bad_requests_are_refused_in_one_line() {
    let dir = setup("bad");
    let base = "synth --data data.csv --schema schema.toml --out syn.csv";
    for (extra, needle) in [
        ("--epsilon 0", "epsilon"),
        ("--epsilon 1 --noise gaussian", "δ > 0"),
        ("--epsilon 1 --delta 1", "delta"),
        ("--epsilon 1 --rows 0", "rows"),
        ("--epsilon 1 --iterations 0", "iterations"),
    ] {
        let args: Vec<&str> = words(base).into_iter().chain(words(extra)).collect();
        common::fails_with(&dir, &args, needle);
    }
    let args = words("synth --data data.csv --schema schema.toml --out data.csv --epsilon 1");
    common::fails_with(&dir, &args, "data.csv");
    assert_eq!(
        std::fs::read_to_string(dir.join("data.csv")).unwrap(),
        histogram_rows(3000),
        "the input is untouched"
    );
}

#[test]
fn a_seeded_run_on_bad_data_prints_its_error_alone() {
    let dir = setup("seeded-bad");
    std::fs::write(
        dir.join("data.csv"),
        "age,smoker,region,sick\n40,maybe,north,no\n",
    )
    .unwrap();
    for command in ["synth", "histogram --target sick --k 1"] {
        let out = disguise(&dir)
            .args(words(command))
            .args(words(
                "--data data.csv --schema schema.toml --out syn.csv --epsilon 1 --seed 3",
            ))
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert_eq!(stderr.lines().count(), 1, "{command}: {stderr}");
        assert!(stderr.contains("data.csv:2"), "{command}: {stderr}");
    }
}

/// Values outside the schema's bounds are clamped into the edge bins; how many is an exact
/// count of the data: never in the default output (JSON, table or stderr), shown under
/// `not_private` with --diagnostics.
#[test]
fn clamped_values_are_counted_only_as_diagnostics() {
    let dir = setup("clamped");
    let mut rows = histogram_rows(600);
    rows.push_str("150,no,north,no\n-3,yes,south,yes\n");
    std::fs::write(dir.join("data.csv"), rows).unwrap();
    let run = |extra: &str| {
        disguise(&dir)
            .args(words(
                "synth --data data.csv --schema schema.toml --out syn.csv --epsilon 2 --seed 1",
            ))
            .args(words(extra))
            .texts_ok()
    };
    let (_, stdout) = common::clamped_only_as_diagnostics(&run, "age", 2);
    // The noise's total-variation bound is labelled for what it is computed on.
    assert!(
        stdout.contains("on the released domains and marginals"),
        "{stdout}"
    );
}

/// A misspelt data file, a schema without a domain and an output that cannot be written
/// are refused before the ledger is charged: exit 2, and the ledger records nothing.
#[test]
fn checks_that_need_no_data_come_before_the_ledger_charge() {
    let dir = setup("ledger-checks");
    std::fs::write(
        dir.join("no-bounds.toml"),
        SCHEMA.replace(", bounds = [0, 100]", ""),
    )
    .unwrap();
    common::refused_before_the_charge(
        &dir,
        "synth --epsilon 1 --ledger b.ledger --dataset d",
        "--data data.csv --schema schema.toml",
        &[
            (
                "--data data.csv --schema no-bounds.toml --out syn.csv",
                "age",
            ),
            (
                "--data dta.csv --schema schema.toml --out syn.csv",
                "dta.csv",
            ),
        ],
    );
}

/// The synthetic ages of a seeded run, as written.
fn ages(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("syn.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect()
}

#[test]
fn values_are_drawn_inside_their_bins_or_written_as_midpoints() {
    let dir = setup("values");
    let out = synth(&dir, "--epsilon 3 --seed 4 --format json --values midpoint").success();
    let doc = json(&out.get_output().stdout);
    assert_eq!(
        doc["values"],
        serde_json::json!({"age": {"values": "midpoint", "integer": false}})
    );
    // age has neither bins nor edges: cut at private quantiles, which the report lists.
    let mut cuts = vec![0.0];
    cuts.extend(
        doc["edges"]["columns"][0]["edges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.as_str().unwrap().parse::<f64>().unwrap()),
    );
    cuts.push(100.0);
    let midpoints: Vec<f64> = cuts.windows(2).map(|w| (w[0] + w[1]) / 2.0).collect();
    assert_eq!(
        doc["bins"]["age"].as_u64().unwrap() as usize,
        midpoints.len()
    );
    let written: std::collections::BTreeSet<String> = ages(&dir).into_iter().collect();
    // Every value is a midpoint of two consecutive cuts.
    for m in &written {
        let v = m.parse::<f64>().unwrap();
        assert!(
            midpoints.iter().any(|p| (p - v).abs() < 1e-9),
            "{m} is not a midpoint of {cuts:?}"
        );
    }
    // Uniform (the default): many distinct values, each in the bin its midpoint names, and
    // the same file again with the same seed.
    let out = synth(&dir, "--epsilon 3 --seed 4 --format json").success();
    let doc = json(&out.get_output().stdout);
    assert_eq!(doc["values"]["age"]["values"], "uniform");
    let uniform = ages(&dir);
    let distinct: std::collections::BTreeSet<&String> = uniform.iter().collect();
    assert!(distinct.len() > 1000, "{} distinct ages", distinct.len());
    assert!(
        uniform
            .iter()
            .all(|a| (0.0..=100.0).contains(&a.parse::<f64>().unwrap()))
    );
    synth(&dir, "--epsilon 3 --seed 4").success();
    assert_eq!(ages(&dir), uniform, "a seeded run is reproducible");
    // The text report says how values were written.
    let out = synth(&dir, "--epsilon 3 --seed 4").success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        text.contains("values      uniform within bins: age"),
        "{text}"
    );
}

#[test]
fn integer_columns_and_one_value_bins_are_written_as_such() {
    let schema = SCHEMA.replace(
        "{ name = \"age\", type = \"numeric\", bounds = [0, 100] }",
        "{ name = \"age\", type = \"numeric\", bounds = [0, 100], integer = true, edges = [20, 20, 50] }",
    );
    let dir = dir_with(
        "synth-integer",
        &[
            ("data.csv", &histogram_rows(3000)),
            ("schema.toml", &schema),
        ],
    );
    let out = synth(&dir, "--epsilon 3 --seed 4 --format json").success();
    let doc = json(&out.get_output().stdout);
    assert_eq!(
        doc["bins"]["age"], 4,
        "[0, 20), {{20}}, (20, 50), [50, 100]"
    );
    assert_eq!(doc["values"]["age"]["integer"], true);
    let ages = ages(&dir);
    assert!(
        ages.iter().all(|a| a.parse::<i64>().is_ok()),
        "integers only"
    );
    // One record in 60 is 20: the one-value bin gives 20 itself, about 50 times.
    let twenty = ages.iter().filter(|a| *a == "20").count();
    assert!((10..=150).contains(&twenty), "{twenty} records of age 20");
    // Bins and edges together are refused in one line naming the column.
    let both = schema.replace("integer = true,", "bins = 3,");
    std::fs::write(dir.join("schema.toml"), both).unwrap();
    let out = synth(&dir, "--epsilon 3").code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains("column 'age'") && err.contains("not both"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn an_excluded_column_is_neither_read_nor_written() {
    let dir = setup("exclude");
    let out = synth(&dir, "--epsilon 3 --seed 4 --format json --exclude REGION").success();
    let doc = json(&out.get_output().stdout);
    assert_eq!(doc["columns"], serde_json::json!(["age", "smoker", "sick"]));
    let text = std::fs::read_to_string(dir.join("syn.csv")).unwrap();
    assert_eq!(text.lines().next(), Some("age,smoker,sick"));
    let out = synth(&dir, "--epsilon 3 --exclude regoin").code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        err.contains("--exclude") && err.contains("no column 'regoin'") && err.contains("region"),
        "{err}"
    );
}

#[test]
fn a_kept_model_draws_more_rows_without_data_or_budget() {
    let dir = setup("kept");
    synth(&dir, "--epsilon 3 --seed 4 --save-model m.json --quiet").success();
    let text = std::fs::read_to_string(dir.join("m.json")).unwrap();
    let doc = json(text.as_bytes());
    assert_eq!(doc["format"], "disguise-synth-model");
    assert_eq!(doc["version"], 2);
    // The data and schema are not needed: remove them.
    std::fs::remove_file(dir.join("data.csv")).unwrap();
    let draw = |out: &str, extra: &str| {
        let args = format!("synth --model m.json --rows 250 --out {out} {extra}");
        disguise(&dir).args(words(&args)).assert().success()
    };
    let out = draw("a.csv", "--seed 9");
    let said = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(said.contains("250 records"), "{said}");
    assert!(said.contains("spent       nothing"), "{said}");
    draw("b.csv", "--seed 9");
    let a = std::fs::read_to_string(dir.join("a.csv")).unwrap();
    assert_eq!(a, std::fs::read_to_string(dir.join("b.csv")).unwrap());
    assert_eq!(a.lines().count(), 251);
    assert_eq!(a.lines().next(), Some("age,smoker,region,sick"));
    // Without --rows: the release's n; JSON names the guarantee and what was spent.
    let out = disguise(&dir)
        .args(words("synth --model m.json --out c.csv --format json"))
        .assert()
        .success();
    let doc = json(&out.get_output().stdout);
    assert_eq!(doc["rows"], 3000);
    assert!(doc["guarantee"]["epsilon"].as_f64().unwrap() <= 3.0);
    assert!(doc["spent"].as_str().unwrap().starts_with("nothing"));
    // A budget with a kept model, a damaged model, and a model over its own file: refused.
    // So are the fitting options, which a kept model cannot use (rather than ignoring them).
    for fit in [
        "--epsilon 1",
        "--iterations 5",
        "--method aim",
        "--target sick",
        "--edge-share 0.5",
        "--exclude age",
        "--noise laplace",
    ] {
        fails_with(
            &dir,
            &words(&format!("synth --model m.json --out d.csv {fit}")),
            "cannot be used with",
        );
    }
    std::fs::write(dir.join("bad.json"), &text[..text.len() / 3]).unwrap();
    fails_with(
        &dir,
        &words("synth --model bad.json --out d.csv"),
        "bad.json:1:",
    );
    fails_with(&dir, &words("synth --model m.json --out m.json"), "input");
    fails_with(
        &dir,
        &words("synth --out d.csv --epsilon 1"),
        "--data is required",
    );
}

#[test]
fn aim_measures_marginals_with_the_target_and_keeps_its_junction_tree() {
    let dir = setup("aim");
    // δ > 0: AIM by default.
    let out = synth(
        &dir,
        "--epsilon 2 --delta 1e-6 --seed 4 --format json --save-model m.json --report r.svg",
    )
    .success();
    let doc = json(&out.get_output().stdout);
    assert_eq!(doc["method"], "aim");
    assert!(doc.get("tree").is_none(), "{doc}");
    assert!(doc["guarantee"]["epsilon"].as_f64().unwrap() <= 2.0);
    assert!(doc["guarantee"]["delta"].as_f64().unwrap() <= 1e-6);
    let measured = doc["measured"].as_array().unwrap();
    // The 4 columns' 1-ways first, measured without a choice; then the rounds' choices.
    for m in &measured[..4] {
        assert_eq!(m["columns"].as_array().unwrap().len(), 1, "{m}");
        assert!(m.get("selection_epsilon").is_none(), "{m}");
    }
    assert!(measured.len() > 4, "{doc}");
    assert!(
        measured[4..]
            .iter()
            .all(|m| m["selection_epsilon"].as_f64().unwrap() > 0.0)
    );
    // sick = smoker: a marginal holding both is measured, and the table keeps it.
    let both = measured.iter().any(|m| {
        let c = m["columns"].to_string();
        c.contains("smoker") && c.contains("sick")
    });
    assert!(both, "{doc}");
    let text = std::fs::read_to_string(dir.join("syn.csv")).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let same = rows.iter().filter(|r| r[1] == r[3]).count();
    assert!(same > 2700, "{same} of 3000 rows keep sick = smoker");
    // The report draws the graph and every larger measured marginal, by column name.
    let svg = std::fs::read_to_string(dir.join("r.svg")).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..100]);
    for name in ["age", "smoker", "region", "sick", "measured (noisy)"] {
        assert!(svg.contains(name), "{name}");
    }
    // The kept model is a junction tree, and draws without data.
    let kept = std::fs::read_to_string(dir.join("m.json")).unwrap();
    assert!(kept.contains("\"junction\""), "{}", &kept[..200]);
    disguise(&dir)
        .args(words(
            "synth --model m.json --rows 100 --out more.csv --seed 1 -q",
        ))
        .assert()
        .success();
    let more = std::fs::read_to_string(dir.join("more.csv")).unwrap();
    assert_eq!(more.lines().count(), 101);
    // MST on request; AIM needs δ > 0 and a target that is a column, refused before any
    // record is read.
    let out = synth(
        &dir,
        "--epsilon 2 --delta 1e-6 --method mst --seed 4 --format json",
    )
    .success();
    let doc = json(&out.get_output().stdout);
    assert_eq!(doc["method"], "mst");
    assert_eq!(doc["tree"].as_array().unwrap().len(), 3);
    let base = "synth --data data.csv --schema schema.toml --out syn.csv --epsilon 1";
    for (extra, needle) in [
        ("--method aim", "δ > 0"),
        ("--delta 1e-6 --target nosuch", "nosuch"),
        ("--delta 1e-6 --report r.pdf", "neither .svg nor .png"),
        ("--delta 1e-6 --report data.csv", "data.csv"),
    ] {
        let args: Vec<&str> = words(base).into_iter().chain(words(extra)).collect();
        fails_with(&dir, &args, needle);
    }
}

#[test]
fn the_ledger_records_the_decimals_typed() {
    // ε = 0.1 three times into a limit of 0.3: each row reads 0.1 and nothing is left — not
    // 0.0999999999999999 each and "left ε = 3e-17".
    let dir = setup("decimals");
    disguise(&dir)
        .args(words("ledger init b.ledger --default-limit 0.3"))
        .assert()
        .success();
    for _ in 0..3 {
        synth(&dir, "--epsilon 0.1 --ledger b.ledger --dataset d -q").success();
    }
    let state = json(
        &disguise(&dir)
            .args(words("ledger show --ledger b.ledger --format json"))
            .stdout_ok(),
    );
    for row in state["releases"].as_array().unwrap() {
        assert_eq!(row["epsilon"], 0.1, "{row}");
    }
    let table = String::from_utf8(
        disguise(&dir)
            .args(words("ledger show --ledger b.ledger --dataset d"))
            .stdout_ok(),
    )
    .unwrap();
    assert!(
        table.contains("spent ε = 0.3, δ = 0 in 3 releases; left ε = 0,"),
        "{table}"
    );
}
