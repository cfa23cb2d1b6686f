//! `disguise features`: picks for both objectives, categorical handling and binning, JSON/CSV
//! shapes, trials, and one-line errors with exit code 2 — on small files written here (the
//! NHANES extract: `real_data.rs`).

use crate::common;

use common::{
    StdoutOk, dir_with, disguise, fails_after_reservation, floats, help, init_ledger, json,
    ledger_releases, one_line_error, with_defaults, words,
};

/// 40 records (CRLF, quoted fields): label `y` = i mod 2; `copy` is the label spelled yes/no;
/// `noise` = ⌊i/2⌋ mod 2 is exactly independent of y; `id` and `age` = i are numeric with 40
/// distinct values; `city` is text with a comma inside quotes.
fn table() -> String {
    let mut rows = vec!["y,copy,noise,id,age,city".to_string()];
    for i in 0..40 {
        let y = i % 2;
        let copy = if y == 1 { "yes" } else { "no" };
        let city = if i % 3 == 0 { "Rome" } else { "\"Paris, FR\"" };
        rows.push(format!("{y},{copy},{},{i},{i},{city}", (i / 2) % 2));
    }
    rows.join("\r\n") + "\r\n"
}

fn base() -> Vec<&'static str> {
    words("features --data t.csv --label y --exclude id --bins age:0:40:2")
}

#[test]
fn both_objectives_pick_the_copy_of_the_label() {
    let dir = dir_with("copy", &[("t.csv", &table())]);
    for objective in ["mutual-information", "discernibility"] {
        let out = disguise(&dir)
            .args(base())
            .args(["--k", "1", "--mechanism", "max", "--objective", objective])
            .args(["--format", "json", "--diagnostics"])
            .stdout_ok();
        let doc = json(&out);
        let exact = &doc["not_private"];
        assert_eq!(doc["objective"], objective);
        assert_eq!(doc["selected"], serde_json::json!([0]), "{doc}");
        assert_eq!(doc["names"], serde_json::json!(["copy"]));
        assert_eq!(
            doc["features"],
            serde_json::json!(["copy", "noise", "age", "city"])
        );
        assert_eq!(doc["label"], "y");
        // The label's levels were read from the data (no schema): a diagnostic.
        assert!(doc.get("label_levels").is_none(), "{doc}");
        assert_eq!(exact["label_levels_seen"], serde_json::json!(["0", "1"]));
        assert_eq!(doc["records"], 40);
        // The copy explains all of the label: one bit of mutual information (H(y) = 1), and
        // every pair with different labels discerned.
        assert!(
            doc.get("utility").is_none() && doc.get("values").is_none(),
            "{doc}"
        );
        let u = floats(&exact["utility"]);
        assert!((u[0] - 1.0).abs() < 1e-12, "{doc}");
        let v = floats(&exact["values"])[0];
        let expected = if objective == "discernibility" {
            2.0 * 400.0 / 40.0 // 20 × 20 unordered pairs, counted ordered, over n
        } else {
            1.0
        };
        assert!((v - expected).abs() < 1e-12, "{doc}");
        assert!(doc["guarantee"].is_null());
    }
}

#[test]
fn independent_feature_has_zero_gain() {
    // Without the copy, noise and the binned age (both independent of y) explain nothing.
    let dir = dir_with("independent", &[("t.csv", &table())]);
    let out = disguise(&dir)
        .args(base())
        .args(["--exclude", "copy,city", "--k", "2", "--mechanism", "max"])
        .args(["--format", "json", "--diagnostics"])
        .stdout_ok();
    let doc = json(&out);
    assert_eq!(doc["features"], serde_json::json!(["noise", "age"]));
    for v in floats(&doc["not_private"]["values"]) {
        assert!(v.abs() < 1e-12, "{doc}");
    }
}

#[test]
fn numeric_columns_with_many_values_need_bins_or_exclusion() {
    let dir = dir_with("numeric", &[("t.csv", &table())]);
    let args = words("features --data t.csv --label y --k 1 --epsilon 1");
    let err = one_line_error(
        &dir,
        &args,
        "column 'id' is numeric with 40 distinct values",
    );
    let hints = err.contains("--bins id:MIN:MAX:N") && err.contains("--exclude id");
    assert!(hints, "{err}");
    // Binned over public bounds, both numeric columns become 4-level features.
    let out = disguise(&dir)
        .args(["features", "--data", "t.csv", "--label", "y", "--k", "1"])
        .args(words("--bins id:0:40:4 --bins AGE:0:40:4 --mechanism max"))
        .args(["--format", "json", "--diagnostics"])
        .stdout_ok();
    assert_eq!(json(&out)["names"], serde_json::json!(["copy"]));
}

#[test]
fn private_runs_report_budget_and_guarantee() {
    let dir = dir_with("private", &[("t.csv", &table())]);
    for (objective, mechanism) in [
        ("mutual-information", "em"),
        ("mutual-information", "lmm"),
        ("discernibility", "report-noisy-max"),
        ("discernibility", "lmm-chaudhuri"),
    ] {
        let out = disguise(&dir)
            .args(base())
            .args(["--k", "2", "--epsilon", "2", "--delta", "1e-6"])
            .args(["--objective", objective, "--mechanism", mechanism])
            .args(["--seed", "4", "--format", "json"])
            .stdout_ok();
        let doc = json(&out);
        assert_eq!(doc["names"].as_array().unwrap().len(), 2, "{doc}");
        assert!(doc["per_round_epsilon"].as_f64().unwrap() <= 2.0);
        assert!(
            doc["guarantee"]["epsilon"].as_f64().unwrap() <= 2.0,
            "{doc}"
        );
        assert!(doc["guarantee"]["delta"].as_f64().unwrap() <= 1e-6, "{doc}");
    }
    // The decomposable rule does not apply to these objectives.
    let out = disguise(&dir)
        .args(base())
        .args(["--k", "2", "--epsilon", "1", "--delta", "1e-6"])
        .args(["--composition", "decomposable"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("decomposable")
    );
}

#[test]
fn trials_csv_and_reproducibility() {
    let dir = dir_with("trials", &[("t.csv", &table())]);
    let run = |threads: &str, format: &str| {
        disguise(&dir)
            .env("RAYON_NUM_THREADS", threads)
            .args(base())
            .args(words("--k 2 --epsilon 1 --trials 12 --seed 9"))
            .args(words(&format!("--format {format}")))
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    };
    let a = run("1", "json");
    assert_eq!(a, run("3", "json"));
    let doc = json(&a);
    assert_eq!(doc["names"].as_array().unwrap().len(), 12);
    for key in [
        "final_utility",
        "mean_utility",
        "std_utility",
        "not_private",
    ] {
        assert!(doc.get(key).is_none(), "{key} in {doc}");
    }
    // The exact utilities, on request: the same trials.
    let shown = json(&run("2", "json --diagnostics"));
    assert_eq!(shown["selected"], doc["selected"]);
    let exact = &shown["not_private"];
    let finals = floats(&exact["final_utility"]);
    assert_eq!(finals.len(), 12);
    let mean = finals.iter().sum::<f64>() / 12.0;
    assert!((exact["mean_utility"].as_f64().unwrap() - mean).abs() < 1e-12);
    assert!(exact["std_utility"].as_f64().unwrap() >= 0.0);
    let csv = String::from_utf8(run("2", "csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "trial,pick,index,name,per_round_epsilon,epsilon,delta,rule"
    );
    assert_eq!(lines.len(), 1 + 12 * 2);
    assert!(lines[1].starts_with("1,1,"));
    assert!(lines.last().unwrap().starts_with("12,2,"));
    let csv = String::from_utf8(run("2", "csv --diagnostics")).unwrap();
    let with_exact: Vec<&str> = csv.lines().collect();
    assert_eq!(
        with_exact[0],
        "trial,pick,index,name,not_private_value,not_private_utility,per_round_epsilon,\
         epsilon,delta,rule"
    );
    assert_eq!(with_exact.len(), lines.len());
}

#[test]
fn bad_input_is_one_line_exit_2_and_nothing_on_stdout() {
    // 200 distinct text values per column: three columns exceed the mutual-information
    // configuration limit (200³ > 2^22), two do not.
    let mut wide = vec!["y,a,b,c".to_string()];
    for i in 0..200 {
        wide.push(format!("{},a{i},b{i},c{i}", i % 2));
    }
    let wide = wide.join("\n") + "\n";
    let dir = dir_with(
        "errors",
        &[
            ("t.csv", &table()),
            ("empty.csv", ""),
            ("header.csv", "y,a\n"),
            ("ragged.csv", "y,a\n1,2\n1\n"),
            ("wide.csv", &wide),
            ("only.csv", "y,id\n1,7\n0,8\n"),
        ],
    );
    let cases: &[(&[&str], &str)] = &[
        (
            &["--data", "empty.csv", "--label", "y"],
            "empty.csv: empty file",
        ),
        (
            &["--data", "header.csv", "--label", "y"],
            "header.csv: no data rows",
        ),
        (
            &["--data", "ragged.csv", "--label", "y"],
            "expected 2 fields, found 1",
        ),
        (&["--data", "missing.csv", "--label", "y"], "missing.csv"),
        (&["--label", "outcome"], "no column 'outcome'"),
        (&["--label", "y", "--exclude", "idd"], "no column 'idd'"),
        (&["--label", "y", "--exclude", "id,y"], "label"),
        (
            &["--label", "y", "--exclude", "id", "--bins", "age:0:40"],
            "COL:MIN:MAX:N",
        ),
        (
            &["--label", "y", "--exclude", "id", "--bins", "age:5:5:2"],
            "MIN < MAX",
        ),
        (
            &["--label", "y", "--exclude", "id", "--bins", "city:0:1:2"],
            "t.csv:2:6: column 'city': not a number: \"Rome\"",
        ),
        (
            &["--label", "y", "--exclude", "id,age", "--k", "9"],
            "larger than the number of features (3: copy, noise, city)",
        ),
        (&["--label", "y", "--exclude", "id,age", "--k", "0"], "--k"),
        (
            &["--label", "y", "--exclude", "id,age", "--epsilon", "0"],
            "epsilon must be finite and > 0, got 0",
        ),
        (
            &["--label", "y", "--exclude", "id,age", "--epsilon", "inf"],
            "epsilon must be finite and > 0",
        ),
        (
            &["--label", "y", "--exclude", "id,age", "--mechanism", "lmm"],
            "needs δ > 0",
        ),
        (
            &["--data", "wide.csv", "--label", "y", "--k", "3"],
            "at most 2 of these features",
        ),
        (
            &["--data", "only.csv", "--label", "y", "--exclude", "id"],
            "no feature columns",
        ),
        (
            &[
                "--label",
                "y",
                "--exclude",
                "id,age",
                "--estimate-utility",
                "0.1",
            ],
            "invalid --estimate-utility: features has no utility with a public sensitivity",
        ),
    ];
    for (extra, expected) in cases {
        let args = with_defaults("features --data t.csv --k 1 --epsilon 1", extra);
        one_line_error(&dir, &args, expected);
    }
}

#[test]
fn help_has_examples_and_the_privacy_notes() {
    let text = help("features");
    for needle in [
        "Examples:",
        "disguise features --data",
        "--bins COL:MIN:MAX:N",
        "label's levels",
        "more than 32",
    ] {
        assert!(text.contains(needle), "help lacks {needle:?}");
    }
}

/// The reader's defects, seen by the user: a byte-order mark and bytes that are not UTF-8 in
/// an excluded column change nothing; a duplicate column, a header without rows, an empty
/// file and a huge bad cell are each one short line with the place.
#[test]
fn reader_edge_cases_name_file_line_and_column() {
    let plain = table();
    // `id` (excluded) holds bytes that are not UTF-8; the file starts with a BOM.
    let mut odd = b"\xef\xbb\xbf".to_vec();
    for (i, line) in plain.split("\r\n").enumerate() {
        if line.is_empty() {
            continue;
        }
        let mut fields: Vec<&[u8]> = line.split(',').map(str::as_bytes).collect();
        if i > 0 {
            fields[3] = b"\xff\xfe";
        }
        odd.extend(fields.join(&b","[..]));
        odd.extend(b"\r\n");
    }
    let mut big = String::from("y,copy,noise,id,age,city\n1,yes,0,1,");
    big.push_str(&"9".repeat(10_000_000));
    big.push_str("x,Rome\n");
    let dir = dir_with(
        "reader",
        &[
            ("t.csv", &plain),
            ("dup.csv", "y,a,A\n1,2,3\n"),
            ("header.csv", "y,a\r\n"),
            ("empty.csv", ""),
            ("big.csv", &big),
        ],
    );
    std::fs::write(dir.join("odd.csv"), odd).unwrap();
    let run = |file: &str| {
        disguise(&dir)
            .args([
                "features",
                "--data",
                file,
                "--label",
                "y",
                "--exclude",
                "id",
            ])
            .args(["--bins", "age:0:40:2", "--k", "2", "--mechanism", "max"])
            .args(["--format", "json", "--diagnostics"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    };
    assert_eq!(json(&run("odd.csv")), json(&run("t.csv")));
    let with = |file: &'static str| -> Vec<&'static str> {
        vec![
            "features",
            "--data",
            file,
            "--label",
            "y",
            "--k",
            "1",
            "--mechanism",
            "max",
            "--diagnostics",
        ]
    };
    one_line_error(
        &dir,
        &with("dup.csv"),
        "dup.csv:1: duplicate column 'A' (columns 2 and 3)",
    );
    one_line_error(
        &dir,
        &with("header.csv"),
        "header.csv: no data rows (only a header)",
    );
    one_line_error(
        &dir,
        &with("empty.csv"),
        "empty.csv: empty file (no header row)",
    );
    let mut args = with("big.csv");
    args.extend(["--exclude", "id", "--bins", "age:0:40:2"]);
    let out = disguise(&dir)
        .args(&args)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.len() < 300, "{} bytes of error", err.len());
    assert!(
        err.starts_with("error: big.csv:2:5: column 'age': not a number: \"9999"),
        "{err}"
    );
}

#[test]
fn only_the_algorithms_that_apply_are_offered() {
    let text = help("features");
    assert!(text.contains("subsample"), "{text}");
    assert!(!text.contains("continuous-greedy"), "{text}");
    let dir = dir_with("algorithms", &[("t.csv", "y,a\n0,1\n1,0\n")]);
    let args = words("features --data t.csv --label y --k 1 --epsilon 1");
    let mut args = args.to_vec();
    args.extend(["--algorithm", "continuous-greedy"]);
    one_line_error(&dir, &args, "continuous-greedy");
}

#[test]
fn headerless_files_are_refused_not_read_with_a_record_as_the_header() {
    let car = "vhigh,vhigh,2,2,small,low,unacc\nvhigh,vhigh,2,2,small,med,unacc\nlow,med,4,4,big,high,acc\n";
    let iris = "5.1,3.5,1.4,0.2,setosa\n4.9,3.0,1.4,0.2,setosa\n6.3,3.3,6.0,2.5,virginica\n";
    let dir = dir_with("headerless", &[("car.csv", car), ("iris.csv", iris)]);
    let run = |file: &str, label: &str| {
        let line = format!("features --data {file} --label {label} --k 1 --epsilon 1");
        words(&line)
            .into_iter()
            .map(String::from)
            .collect::<Vec<String>>()
    };
    let car_args = run("car.csv", "unacc");
    let car_args: Vec<&str> = car_args.iter().map(String::as_str).collect();
    one_line_error(
        &dir,
        &car_args,
        "car.csv:1: duplicate column 'vhigh' (columns 1 and 2)",
    );
    let iris_args = run("iris.csv", "setosa");
    let iris_args: Vec<&str> = iris_args.iter().map(String::as_str).collect();
    one_line_error(
        &dir,
        &iris_args,
        "iris.csv:1: the header row looks like data",
    );
}

/// A wdbc-like table: 569 records, a B/M diagnosis and 30 numeric measurements in [0, 100]
/// (each column's schema lines after its type: `domain`); f1, f2 and f3 separate the classes,
/// the others are noise. With `id`, a first column of record numbers (not in the schema).
fn wdbc_like(domain: &str, id: bool) -> (String, String) {
    let mut csv = String::from(if id { "id,diagnosis" } else { "diagnosis" });
    let mut schema = String::from("has_header = true\ntarget = \"diagnosis\"\n");
    schema.push_str(
        "[[columns]]\nname = \"diagnosis\"\ntype = \"categorical\"\nlevels = [\"B\", \"M\"]\n",
    );
    for j in 1..=30 {
        csv.push_str(&format!(",f{j}"));
        schema.push_str(&format!(
            "[[columns]]\nname = \"f{j}\"\ntype = \"numeric\"\n{domain}\n"
        ));
    }
    csv.push('\n');
    for i in 0..569u64 {
        let malignant = i % 3 == 0;
        if id {
            csv.push_str(&format!("{i},"));
        }
        csv.push_str(if malignant { "M" } else { "B" });
        for j in 1..=30u64 {
            let noise = (i * 7919 + j * 104_729) % 50;
            let v = if j <= 3 && malignant {
                50 + noise
            } else if j <= 3 {
                noise
            } else {
                (noise * 2 + i) % 100
            };
            csv.push_str(&format!(",{v}"));
        }
        csv.push('\n');
    }
    (csv, schema)
}

#[test]
fn thirty_numeric_columns_with_one_schema() {
    let (csv, schema) = wdbc_like("bounds = [0, 100]\nbins = 4", true);
    let dir = dir_with("wdbc", &[("wdbc.csv", &csv), ("wdbc.toml", &schema)]);
    let out = disguise(&dir)
        .args(words(
            "features --data wdbc.csv --schema wdbc.toml --k 3 --epsilon 10",
        ))
        .args(words("--seed 2 --format json"))
        .stdout_ok();
    let doc = json(&out);
    assert_eq!(doc["records"], 569, "{doc}");
    assert_eq!(doc["features"].as_array().unwrap().len(), 30, "{doc}");
    // The label's levels are the schema's: public, in the release.
    assert_eq!(doc["label_levels"], serde_json::json!(["B", "M"]), "{doc}");
    // The first pick is one of the separating columns (the label's entropy explained
    // whole); after it no column adds information, so the later picks are any.
    let first = doc["names"][0].as_str().unwrap();
    assert!(["f1", "f2", "f3"].contains(&first), "{doc}");
    assert!(doc.get("utility").is_none(), "{doc}");
    let shown = disguise(&dir)
        .args(words(
            "features --data wdbc.csv --schema wdbc.toml --k 3 --epsilon 10",
        ))
        .args(words("--seed 2 --format json --diagnostics"))
        .stdout_ok();
    let shown = json(&shown);
    assert_eq!(shown["names"], doc["names"], "{shown}");
    let utility = &shown["not_private"]["utility"];
    assert!(utility[0].as_f64().unwrap() > 0.99, "{shown}");
    // The a-priori bound is stated from public quantities (H(label), the per-round
    // sensitivities of mutual information at n = 569, 30 features, ε₀).
    let bound = doc["usefulness"]["bound"].as_str().unwrap();
    assert!(bound.contains("m = 30"), "{doc}");
    // At ε = 10 the privacy term (≈ 0.5 bit) is below 0.632·H(label) ≈ 0.58: not vacuous;
    // at ε = 1 it is ten times larger.
    assert_eq!(doc["usefulness"]["vacuous"], false, "{doc}");
    let out = disguise(&dir)
        .args(words(
            "features --data wdbc.csv --schema wdbc.toml --k 3 --epsilon 1",
        ))
        .args(words("--seed 2 --format json"))
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("note: the worst-case guarantee says nothing")
    );
    assert_eq!(json(&out.stdout)["usefulness"]["vacuous"], true);
    // Without the schema the same file needs 30 --bins flags, and says so for the first.
    let args = words("features --data wdbc.csv --label diagnosis --exclude id --k 3 --epsilon 1");
    one_line_error(&dir, &args, "column 'f1' is numeric");
}

/// wdbc-like measurements with public bounds wider than the data and no `bins`: two equal
/// bins over the bounds would put every value in one bin (every gain 0, random picks); cut
/// at private quantiles, the separating columns are found, and the edges are paid from ε.
#[test]
fn numeric_columns_without_bins_are_cut_at_private_quantiles() {
    let (csv, schema) = wdbc_like("bounds = [0, 250]", false);
    let dir = dir_with("wdbc-edges", &[("wdbc.csv", &csv), ("wdbc.toml", &schema)]);
    let run = |extra: &str| {
        disguise(&dir)
            .args(words(
                "features --data wdbc.csv --schema wdbc.toml --k 3 --epsilon 10 --seed 2",
            ))
            .args(words(extra))
            .stdout_ok()
    };
    let doc = json(&run("--format json"));
    let first = doc["names"][0].as_str().unwrap();
    assert!(["f1", "f2", "f3"].contains(&first), "{doc}");
    assert_eq!(
        doc["edges"]["columns"].as_array().unwrap().len(),
        30,
        "{doc}"
    );
    // 20 % of ε for the edges, the rest for the picks: (10, 0) in all.
    assert!(
        (doc["edges_epsilon"].as_f64().unwrap() - 2.0).abs() < 1e-9,
        "{doc}"
    );
    assert!(
        doc["guarantee"]["epsilon"].as_f64().unwrap() <= 10.0 + 1e-9,
        "{doc}"
    );
    assert!(
        (doc["per_round_epsilon"].as_f64().unwrap() - 8.0 / 3.0).abs() < 1e-9,
        "{doc}"
    );
    let text = String::from_utf8(run("")).unwrap();
    assert!(text.contains("ε = 2 for private bin edges"), "{text}");
    // With public bins the same columns are one bin's worth of values: no information.
    std::fs::write(
        dir.join("equal.toml"),
        schema.replace("bounds = [0, 250]\n", "bounds = [0, 250]\nbins = 2\n"),
    )
    .unwrap();
    let out = disguise(&dir)
        .args(words(
            "features --data wdbc.csv --schema equal.toml --k 3 --epsilon 10 --seed 2",
        ))
        .args(words("--format json --diagnostics"))
        .stdout_ok();
    let equal = json(&out);
    assert!(equal.get("edges").is_none(), "{equal}");
    assert_eq!(equal["not_private"]["final_utility"], 0.0, "{equal}");
    one_line_error(
        &dir,
        &words("features --data wdbc.csv --schema wdbc.toml --k 3 --epsilon 1 --edge-share 1"),
        "invalid --edge-share: must be in (0, 1)",
    );
}

#[test]
fn a_headerless_file_is_read_whole_with_no_header_and_a_delimiter() {
    // car-like, semicolon-separated, no header: the class copies the first column.
    let mut text = String::new();
    for i in 0..40 {
        let buying = ["vhigh", "low"][i % 2];
        let class = ["unacc", "acc"][i % 2];
        text.push_str(&format!("{buying};{};{class}\n", ["a", "b", "c"][i % 3]));
    }
    let dir = dir_with("no_header", &[("car.txt", &text)]);
    let out = disguise(&dir)
        .args(words(
            "features --data car.txt --no-header --delimiter ; --label c3",
        ))
        .args(words("--k 1 --epsilon 20 --seed 1 --format json"))
        .stdout_ok();
    let doc = json(&out);
    // Every line is a record (none taken as the header), columns named by position.
    assert_eq!(doc["records"], 40, "{doc}");
    assert_eq!(doc["features"], serde_json::json!(["c1", "c2"]), "{doc}");
    assert_eq!(doc["names"], serde_json::json!(["c1"]), "{doc}");
    let bad = words("features --data car.txt --delimiter ab --label c3 --k 1 --epsilon 1");
    one_line_error(&dir, &bad, "--delimiter");
}

#[test]
fn a_misspelt_file_is_refused_before_anything_is_charged() {
    let dir = dir_with("misspelt", &[("t.csv", &table())]);
    init_ledger(&dir);
    for data in ["tt.csv", "t.csv.gz"] {
        let mut args = with_defaults(
            "features --data t.csv --label y --exclude id --bins age:0:40:2 --k 1 --epsilon 1",
            &["--data", data],
        );
        args.extend(words("--ledger b.ledger --dataset t"));
        let err = one_line_error(&dir, &args, data);
        assert!(!err.contains("charged"), "{err}");
    }
    assert_eq!(ledger_releases(&dir), Vec::<serde_json::Value>::new());
}

#[test]
fn a_bad_cell_read_after_the_reservation_stays_charged_and_is_not_shown() {
    let mut data = table();
    data.push_str("1,yes,0,40,secret-age,Rome\r\n");
    let dir = dir_with("malformed", &[("t.csv", &data)]);
    init_ledger(&dir);
    let args = words(
        "features --data t.csv --label y --exclude id --bins age:0:40:2 --k 1 --epsilon 1 \
         --ledger b.ledger --dataset t",
    );
    fails_after_reservation(
        &dir,
        &args,
        &["secret-age", "t.csv:42", "column 'age'"],
        "t.csv:42:5: column 'age': not a number: \"secret-age\"",
    );
    assert_eq!(ledger_releases(&dir).len(), 2);
}
