//! `disguise select`: picks, JSON/CSV shapes, budgets and composition rules, trials, and
//! one-line errors with exit code 2 — on small files written here (the real data:
//! `real_data.rs`).

use crate::common;

use common::{
    StdoutOk, dir_with, disguise, fails_after_reservation, floats, help, indices, init_ledger,
    json, ledger_releases, one_line_error, with_defaults, words,
};
use std::path::PathBuf;

/// Four candidates on the corners of a 10 × 10 square (planar x/y); six points sitting exactly
/// on three of them: 3 on A, 2 on D, 1 on C. With normaliser 1 every point is served only by
/// the candidate it sits on (similarity 1, else 0), so f(S) counts the points on S.
const CANDIDATES: &str = "name,x,y\nA,0,0\nB,10,0\nC,0,10\nD,10,10\n";
const POINTS: &str = "x,y\n0,0\n0,0\n0,0\n10,10\n10,10\n0,10\n";

fn square(test: &str) -> PathBuf {
    dir_with(test, &[("c.csv", CANDIDATES), ("p.csv", POINTS)])
}

fn square_args() -> Vec<&'static str> {
    words("select --points p.csv --candidates c.csv --x x --y y --normalizer 1")
}

#[test]
fn max_picks_the_greedy_optimum_with_exact_utilities() {
    let dir = square("max_exact");
    let out = disguise(&dir)
        .args(square_args())
        .args(["--k", "3", "--mechanism", "max", "--format", "json"])
        .arg("--diagnostics")
        .stdout_ok();
    let doc = json(&out);
    assert_eq!(indices(&doc["selected"]), vec![0, 3, 2], "{doc}");
    assert_eq!(doc["names"], serde_json::json!(["A", "D", "C"]));
    // The exact values are diagnostics: under `not_private` only.
    assert!(
        doc.get("values").is_none() && doc.get("utility").is_none(),
        "{doc}"
    );
    let exact = &doc["not_private"];
    assert_eq!(floats(&exact["values"]), vec![3.0, 5.0, 6.0]);
    assert_eq!(floats(&exact["utility"]), vec![0.5, 5.0 / 6.0, 1.0]);
    assert_eq!(exact["final_utility"], 1.0);
    assert!(doc["guarantee"].is_null(), "{doc}");
    assert!(doc["per_round_epsilon"].is_null());
    assert_eq!(doc["normalizer"], 1.0);
    assert_eq!(doc["normalizer_source"], "given");
    assert_eq!(doc["points"], 6);
    assert_eq!(doc["candidates"], 4);
}

#[test]
fn table_output_states_the_lack_of_privacy_and_the_default_normaliser() {
    let dir = square("max_table");
    // Without --normalizer: the bounding-box diameter, Manhattan 10 + 10 = 20.
    let out = disguise(&dir)
        .args(["select", "--points", "p.csv", "--candidates", "c.csv"])
        .args(["--x", "x", "--y", "y", "--k", "2", "--mechanism", "max"])
        .arg("--diagnostics")
        .stdout_ok();
    let text = String::from_utf8(out).unwrap();
    // Printed for people: 20, not the debug form 20.0.
    assert!(text.contains("normaliser m = 20 "), "{text}");
    assert!(text.contains("bounding box"), "{text}");
    assert!(text.contains("NOT private"), "{text}");
    assert!(text.contains("f(S)/n"), "{text}");
    // The picks table names the picks, without their values.
    let a = text.find("  A\n").expect("A listed");
    let d = text.find("  D\n").expect("D listed");
    assert!(a < d, "A is picked before D:\n{text}");
}

#[test]
fn private_run_reports_budget_split_and_guarantee() {
    let dir = square("private_json");
    for mechanism in ["em", "lmm", "lmm-chaudhuri", "report-noisy-max"] {
        let out = disguise(&dir)
            .args(square_args())
            .args(["--k", "2", "--epsilon", "0.8", "--delta", "1e-6"])
            .args(["--mechanism", mechanism, "--seed", "3", "--format", "json"])
            .stdout_ok();
        let doc = json(&out);
        assert_eq!(doc["mechanism"], mechanism);
        let selected = indices(&doc["selected"]);
        assert_eq!(selected.len(), 2, "{doc}");
        assert_ne!(selected[0], selected[1]);
        assert_eq!(doc["names"].as_array().unwrap().len(), 2);
        // The picks' exact utilities are diagnostics, absent from the release.
        for key in ["values", "utility", "final_utility", "not_private"] {
            assert!(doc.get(key).is_none(), "{key} in {doc}");
        }
        assert_eq!(doc["unit"], "record");
        let e0 = doc["per_round_epsilon"].as_f64().unwrap();
        // Two rounds: every rule gives each at least ε/(2·…) and basic gives exactly ε/2;
        // no valid split can exceed ε per round.
        assert!(e0 > 0.0 && e0 <= 0.8, "{doc}");
        let g = &doc["guarantee"];
        assert!(g["epsilon"].as_f64().unwrap() <= 0.8, "{doc}");
        assert!(g["delta"].as_f64().unwrap() <= 1e-6, "{doc}");
        assert!(g["rule"].is_string(), "{doc}");
        assert_eq!(doc["secure_rng"], false);
    }
}

#[test]
fn forced_composition_rules() {
    let dir = square("composition");
    let run = |rule: &str, mechanism: &str| {
        disguise(&dir)
            .args(square_args())
            .args(["--k", "3", "--epsilon", "0.6", "--delta", "1e-6"])
            .args(["--mechanism", mechanism, "--composition", rule])
            .args(["--seed", "1", "--format", "json"])
            .assert()
    };
    let basic = json(&run("basic", "em").success().get_output().stdout);
    assert_eq!(basic["composition"], "basic");
    let e0 = basic["per_round_epsilon"].as_f64().unwrap();
    assert!((e0 - 0.2).abs() < 1e-12 && 3.0 * e0 <= 0.6, "{basic}");
    // auto gives each round at least as much as any single rule.
    let auto = json(&run("auto", "em").success().get_output().stdout);
    for rule in ["basic", "advanced", "kov", "zcdp", "decomposable"] {
        let forced = json(&run(rule, "em").success().get_output().stdout);
        assert_eq!(forced["composition"], rule);
        assert!(
            auto["per_round_epsilon"].as_f64().unwrap()
                >= forced["per_round_epsilon"].as_f64().unwrap(),
            "auto {auto} vs {rule} {forced}"
        );
        assert!(forced["guarantee"]["epsilon"].as_f64().unwrap() <= 0.6);
    }
    // Rules that do not apply are one-line errors.
    for (rule, mechanism) in [
        ("decomposable", "lmm"),
        ("kov", "lmm"),
        ("zcdp", "lmm-chaudhuri"),
        ("decomposable", "report-noisy-max"),
    ] {
        let out = run(rule, mechanism).code(2).get_output().clone();
        assert!(out.stdout.is_empty());
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(rule), "{rule} {mechanism}: {err}");
        assert_eq!(
            err.trim_end()
                .lines()
                .filter(|l| l.starts_with("error"))
                .count(),
            1
        );
    }
    // The decomposable rule is proven for greedy only, not subsample-greedy.
    disguise(&dir)
        .args(square_args())
        .args(["--k", "2", "--epsilon", "0.6", "--delta", "1e-6"])
        .args(["--algorithm", "subsample", "--composition", "decomposable"])
        .assert()
        .code(2);
    // With max there is nothing to split.
    disguise(&dir)
        .args(square_args())
        .args(["--k", "2", "--mechanism", "max", "--composition", "basic"])
        .assert()
        .code(2);
}

#[test]
fn trials_are_reproducible_across_thread_counts_and_summarised() {
    let dir = square("trials");
    let run = |threads: &str, extra: &[&str]| {
        disguise(&dir)
            .env("RAYON_NUM_THREADS", threads)
            .args(square_args())
            .args(words("--k 2 --epsilon 0.5 --seed 11 --format json"))
            .args(extra)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    };
    let one = run("1", &["--trials", "40", "--diagnostics"]);
    let four = run("4", &["--trials", "40", "--diagnostics"]);
    assert_eq!(
        one, four,
        "a seeded run must not depend on the thread count"
    );
    let doc = json(&one);
    // Without --diagnostics: the same picks, and nothing of the exact utilities.
    let release = json(&run("4", &["--trials", "40"]));
    assert_eq!(release["selected"], doc["selected"]);
    for key in [
        "final_utility",
        "mean_utility",
        "std_utility",
        "utility",
        "not_private",
    ] {
        assert!(release.get(key).is_none(), "{key} in {release}");
    }
    let exact = &doc["not_private"];
    assert_eq!(doc["trials"], 40);
    let selected = doc["selected"].as_array().unwrap();
    assert_eq!(selected.len(), 40);
    assert!(selected.iter().all(|s| s.as_array().unwrap().len() == 2));
    assert_eq!(doc["names"].as_array().unwrap().len(), 40);
    let finals = floats(&exact["final_utility"]);
    assert_eq!(finals.len(), 40);
    let mean = finals.iter().sum::<f64>() / 40.0;
    let var = finals.iter().map(|u| (u - mean).powi(2)).sum::<f64>() / 39.0;
    assert!((exact["mean_utility"].as_f64().unwrap() - mean).abs() < 1e-12);
    assert!((exact["std_utility"].as_f64().unwrap() - var.sqrt()).abs() < 1e-12);
    // Per-trial utilities end in the final utility.
    for (u, f) in exact["utility"].as_array().unwrap().iter().zip(&finals) {
        assert_eq!(floats(u).last().unwrap(), f);
    }
    // With ε = 0.5 over 2 rounds on these scores the picks vary between trials (the
    // probability that 40 trials agree is below 1e-6).
    assert!(selected.iter().any(|s| s != &selected[0]), "{doc}");
    // Trial 1 of a seeded run is the same run as the seeded run without --trials.
    let single = json(&run("2", &[]));
    assert_eq!(single["selected"], selected[0]);
    assert!(single.get("mean_utility").is_none());
    let single = json(&run("2", &["--diagnostics"]));
    assert!(single["not_private"].get("mean_utility").is_none());
}

#[test]
fn csv_output_has_one_row_per_pick() {
    let dir = square("csv");
    let out = disguise(&dir)
        .args(square_args())
        .args(["--k", "2", "--mechanism", "max", "--format", "csv"])
        .arg("--diagnostics")
        .stdout_ok();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "trial,pick,index,name,not_private_value,not_private_utility,per_round_epsilon,epsilon,\
         delta,rule"
    );
    assert_eq!(lines[1], "1,1,0,A,3.0,0.5,,,,");
    assert_eq!(lines[2], "1,2,3,D,5.0,0.8333333333333334,,,,");
    assert_eq!(lines.len(), 3);
    // A private release's rows: the picks and the guarantee, no exact value.
    let out = disguise(&dir)
        .args(square_args())
        .args(words("--k 2 --epsilon 100 --seed 1 --format csv"))
        .stdout_ok();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "trial,pick,index,name,per_round_epsilon,epsilon,delta,rule"
    );
    assert_eq!(lines[1], "1,1,0,A,50.0,100.0,0.0,basic");
    assert_eq!(lines[2], "1,2,3,D,50.0,100.0,0.0,basic");
    assert_eq!(lines.len(), 3);
}

#[test]
fn quoted_crlf_files_and_names_with_commas() {
    let dir = dir_with(
        "quoted",
        &[
            (
                "c.csv",
                "\"Name\",\"Lat\",\"Lon\"\r\n\"Spot, north\",40.80,-73.95\r\n\"Spot, south\",40.70,-74.01\r\n",
            ),
            (
                "p.csv",
                "\"Date/Time\",\"Lat\",\"Lon\",\"Base\"\r\n\"4/1/2014 0:11:00\",40.70,-74.01,\"B1\"\r\n\"4/1/2014 0:12:00\",40.70,-74.01,\"B1\"\r\n\"4/1/2014 0:13:00\",40.80,-73.95,\"B2\"\r\n",
            ),
        ],
    );
    let out = disguise(&dir)
        .args(["select", "--points", "p.csv", "--candidates", "c.csv"])
        .args(words(
            "--lat Lat --lon Lon --k 1 --mechanism max --diagnostics",
        ))
        .args(["--metric", "haversine", "--format", "json"])
        .stdout_ok();
    let doc = json(&out);
    assert_eq!(doc["names"], serde_json::json!(["Spot, south"]));
    assert_eq!(doc["metric"], "haversine");
}

#[test]
fn partition_constraint_limits_each_group() {
    // A and D are in a group of capacity 1: the optimum A, D is infeasible.
    let dir = dir_with(
        "partition",
        &[
            ("c.csv", CANDIDATES),
            ("p.csv", POINTS),
            (
                "groups.csv",
                "group,capacity\nad,1\nbc,2\nelement,group\n0,ad\n1,bc\n2,bc\n3,ad\n",
            ),
        ],
    );
    let out = disguise(&dir)
        .args(square_args())
        .args(["--mechanism", "max", "--constraint", "partition:groups.csv"])
        .args(["--format", "json", "--diagnostics"])
        .stdout_ok();
    let doc = json(&out);
    // Without --k the constraint's rank (1 + 2 = 3) is the number of picks.
    assert_eq!(indices(&doc["selected"]), vec![0, 2, 1], "{doc}");
    assert_eq!(doc["k"], 3);
    // With --k 2 both apply.
    let out = disguise(&dir)
        .args(square_args())
        .args(["--mechanism", "max", "--constraint", "partition:groups.csv"])
        .args(["--k", "2", "--format", "json", "--diagnostics"])
        .stdout_ok();
    assert_eq!(indices(&json(&out)["selected"]), vec![0, 2]);
}

#[test]
fn bad_input_is_one_line_exit_2_and_nothing_on_stdout() {
    let dir = dir_with(
        "errors",
        &[
            (
                "c.csv",
                "name,lat,lon\nA,40.75,-73.98\nB,40.72,-74.00\nC,40.80,-73.95\n",
            ),
            ("p.csv", "lat,lon\n40.75,-73.98\n40.74,-73.99\n"),
            ("bad.csv", "Lat,Lon\n40.75,-73.98\n40.74,abc\n"),
            ("nan.csv", "lat,lon\n40.75,-73.98\nNaN,-73.9\n"),
            ("inf.csv", "lat,lon\n40.75,inf\n"),
            ("lat.csv", "lat,lon\n40.75,-73.98\n91.5,-73.9\n"),
            ("empty.csv", ""),
            ("header.csv", "lat,lon\n"),
            ("xy.csv", "x,y\n1,2\n"),
            ("ragged.csv", "lat,lon\n40.7,-73.9\n40.7\n"),
        ],
    );
    let cases: &[(&[&str], &str)] = &[
        (
            &["--points", "bad.csv", "--lat", "Lat", "--lon", "Lon"],
            "bad.csv:3:2: column 'Lon': not a number: \"abc\"",
        ),
        (
            &["--points", "nan.csv"],
            "nan.csv:3:1: column 'lat': not a finite number",
        ),
        (
            &["--points", "inf.csv"],
            "inf.csv:2:2: column 'lon': not a finite number",
        ),
        (
            &["--points", "lat.csv"],
            "lat.csv:3:1: column 'lat': latitude 91.5 is outside [-90, 90]",
        ),
        (&["--points", "empty.csv"], "empty.csv: empty file"),
        (&["--points", "header.csv"], "header.csv: no data rows"),
        (
            &["--points", "xy.csv"],
            "xy.csv: no column 'lat' (columns: x, y)",
        ),
        (&["--points", "ragged.csv"], "expected 2 fields, found 1"),
        // The cause from the operating system follows the file, on the same line.
        (
            &["--points", "missing.csv"],
            "missing.csv: No such file or directory",
        ),
        (
            &["--k", "4"],
            "4 is larger than the number of candidates (3",
        ),
        (&["--k", "0"], "--k"),
        (&["--epsilon", "0"], "epsilon must be finite and > 0, got 0"),
        (
            &["--epsilon", "-2"],
            "epsilon must be finite and > 0, got -2",
        ),
        (&["--epsilon", "nan"], "epsilon must be finite and > 0"),
        (&["--delta", "1"], "delta must be in [0, 1)"),
        (&["--mechanism", "lmm"], "needs δ > 0"),
        (&["--normalizer", "-1"], "--normalizer"),
        (&["--trials", "0"], "--trials"),
        (&["--mechanism", "gumbel"], "gumbel"),
        (
            &["--metric", "haversine", "--x", "lat", "--y", "lon"],
            "haversine",
        ),
        (&["--constraint", "partition:nope.csv"], "nope.csv"),
    ];
    for (extra, expected) in cases {
        let base = "select --candidates c.csv --points p.csv --k 2 --epsilon 1";
        let args = with_defaults(base, extra);
        one_line_error(&dir, &args, expected);
    }
    // --epsilon is required for private mechanisms.
    one_line_error(
        &dir,
        &words("select --points p.csv --candidates c.csv --k 1"),
        "invalid --epsilon: required with the mechanism em",
    );
}

#[test]
fn help_has_examples() {
    let text = help("select");
    for needle in [
        "Examples:",
        "disguise select --points",
        "f(S)/n",
        "--composition",
        "--trials",
    ] {
        assert!(text.contains(needle), "help lacks {needle:?}");
    }
}

/// The reader's defects, seen by the user: a byte-order mark and an unused column holding
/// bytes that are not UTF-8 change nothing; a duplicate column, a header without rows and a
/// huge bad cell are one short line each, naming file, line and column.
#[test]
fn reader_edge_cases_name_file_line_and_column() {
    let dir = square("reader");
    let mut odd = b"\xef\xbb\xbfjunk,".to_vec();
    for (i, line) in POINTS.lines().enumerate() {
        odd.extend(if i == 0 { &b""[..] } else { &b"\xff,"[..] });
        odd.extend(line.as_bytes());
        odd.extend(b"\r\n");
    }
    std::fs::write(dir.join("odd.csv"), odd).unwrap();
    let run = |points: &str| {
        let mut args = square_args();
        args[2] = points;
        disguise(&dir)
            .args(&args)
            .args(["--k", "2", "--mechanism", "max", "--format", "json"])
            .arg("--diagnostics")
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    };
    assert_eq!(json(&run("odd.csv")), json(&run("p.csv")));
    let mut big = String::from("x,y\n0,");
    big.push_str(&"5".repeat(10_000_000));
    big.push_str("e\n");
    std::fs::write(dir.join("big.csv"), big).unwrap();
    std::fs::write(dir.join("dup.csv"), "x,y,X\n0,0,1\n").unwrap();
    std::fs::write(dir.join("header.csv"), "x,y\n").unwrap();
    for (file, needle) in [
        (
            "dup.csv",
            "dup.csv:1: duplicate column 'X' (columns 1 and 3)",
        ),
        ("header.csv", "header.csv: no data rows (only a header)"),
        ("big.csv", "big.csv:2:2: column 'y': not a number: \"5555"),
    ] {
        let mut args = square_args();
        args[2] = file;
        args.extend(["--k", "2", "--mechanism", "max", "--diagnostics"]);
        let err = one_line_error(&dir, &args, needle);
        assert!(err.len() < 300, "{} bytes of error", err.len());
    }
}

#[test]
fn the_greedys_utility_bound_is_stated_and_a_vacuous_one_warns() {
    // 6 points: at ε = 1 the privacy term 2·k·ln 4/ε₀ dwarfs f ≤ 6.
    let dir = square("usefulness_small");
    let out = disguise(&dir)
        .args(square_args())
        .args(words("--k 2 --epsilon 1 --seed 1 --format json"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("note: the worst-case guarantee says nothing at these parameters (the release may still be good): E[f(S)] ≥ 0.632·OPT"),
        "{stderr}"
    );
    let doc = json(&out.stdout);
    assert_eq!(doc["usefulness"]["vacuous"], true, "{doc}");
    // 6,000 points (the same six, 1,000 times) at ε = 10: the term is about 11, no warning.
    let mut many = String::from("x,y\n");
    for line in POINTS.lines().skip(1) {
        many.push_str(&format!("{line}\n").repeat(1000));
    }
    let dir = dir_with(
        "usefulness_large",
        &[("c.csv", CANDIDATES), ("p.csv", &many)],
    );
    let out = disguise(&dir)
        .args(square_args())
        .args(words("--k 2 --epsilon 10 --seed 1 --format json"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("worst-case guarantee says nothing"),
        "{stderr}"
    );
    let doc = json(&out.stdout);
    assert_eq!(doc["usefulness"]["vacuous"], false, "{doc}");
    // The large margin mechanism: whether a round's gap can clear G₁ (6,000 points: yes).
    let out = disguise(&dir)
        .args(square_args())
        .args(words(
            "--k 2 --epsilon 10 --delta 1e-6 --mechanism lmm --seed 1 --format json",
        ))
        .stdout_ok();
    let doc = json(&out);
    assert!(
        doc["usefulness"]["bound"].as_str().unwrap().contains("G₁"),
        "{doc}"
    );
    assert_eq!(doc["usefulness"]["vacuous"], false, "{doc}");
}

#[test]
fn a_cost_per_location_makes_the_objective_non_monotone() {
    let dir = square("cost");
    // Argmax greedy on f(S) − 1.5·|S|: A (3 − 1.5), then D (+2 − 1.5), then C (+1 − 1.5).
    let out = disguise(&dir)
        .args(square_args())
        .args(words(
            "--k 3 --cost 1.5 --mechanism max --format json --algorithm greedy --diagnostics",
        ))
        .stdout_ok();
    let doc = json(&out);
    assert_eq!(doc["names"], serde_json::json!(["A", "D", "C"]), "{doc}");
    assert_eq!(floats(&doc["not_private"]["values"]), vec![1.5, 2.0, 1.5]);
    assert_eq!(doc["cost"], 1.5);
    assert_eq!(doc["objective"], "penalized");
    // Private greedy: no guarantee on a non-monotone objective, said on stderr even for CSV.
    let out = disguise(&dir)
        .args(square_args())
        .args(words(
            "--k 2 --cost 1.5 --epsilon 1 --seed 1 --format csv --algorithm greedy",
        ))
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.contains("the greedy has no approximation guarantee on a non-monotone"),
        "{stderr}"
    );
    // With a cost the default is the subsample-greedy, whose Theorem 4.1 needs f ≥ 0, which
    // f − cost·|S| is not: no guarantee, said on stderr.
    let out = disguise(&dir)
        .args(square_args())
        .args(words("--k 2 --cost 1.5 --epsilon 1 --seed 1 --format json"))
        .assert()
        .success();
    let doc = json(&out.get_output().stdout);
    assert_eq!(doc["algorithm"], "subsample-greedy", "{doc}");
    let bound = doc["usefulness"]["bound"].as_str().unwrap();
    assert!(bound.starts_with("no guarantee: Theorem 4.1"), "{bound}");
    assert!(bound.contains("needs f ≥ 0"), "{bound}");
    assert_eq!(doc["usefulness"]["vacuous"], true);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.contains("note: the worst-case guarantee says nothing"),
        "{stderr}"
    );
    // Without a cost, no cost field.
    let out = disguise(&dir)
        .args(square_args())
        .args(words("--k 1 --mechanism max --format json --diagnostics"))
        .stdout_ok();
    assert!(json(&out).get("cost").is_none());
    for (args, needle) in [
        (
            "--k 1 --cost -1 --epsilon 1",
            "invalid --cost: must be in [0, 536870912]",
        ),
        (
            "--k 1 --cost 2 --epsilon 1 --algorithm continuous-greedy",
            "invalid --cost: the continuous greedy needs a monotone objective",
        ),
    ] {
        let out = disguise(&dir)
            .args(square_args())
            .args(words(args))
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(stderr.contains(needle), "{stderr}");
    }
}

#[test]
fn max_without_diagnostics_is_refused_naming_diagnostics() {
    let dir = square("max_refused");
    let mut args = square_args();
    args.extend(["--k", "2", "--mechanism", "max"]);
    let err = one_line_error(&dir, &args, "--diagnostics");
    assert!(err.contains("--mechanism max"), "{err}");
    assert!(err.contains("not private"), "{err}");
}

#[test]
fn a_misspelt_file_is_refused_before_anything_is_charged() {
    let dir = square("misspelt");
    init_ledger(&dir);
    for (flag, file) in [("--points", "pts.csv"), ("--candidates", "cands.csv")] {
        let mut args = with_defaults(
            "select --points p.csv --candidates c.csv --x x --y y --k 2 --epsilon 1",
            &[flag, file],
        );
        args.extend(words("--ledger b.ledger --dataset d"));
        let err = one_line_error(&dir, &args, file);
        assert!(!err.contains("charged"), "{err}");
    }
    assert_eq!(ledger_releases(&dir), Vec::<serde_json::Value>::new());
}

#[test]
fn a_malformed_row_read_after_the_reservation_stays_charged_and_is_not_shown() {
    let dir = square("malformed");
    std::fs::write(dir.join("bad.csv"), "x,y\n0,0\n0,secret-cell\n").unwrap();
    init_ledger(&dir);
    let args = words(
        "select --points bad.csv --candidates c.csv --x x --y y --k 2 --epsilon 1 \
         --ledger b.ledger --dataset d",
    );
    let (plain, _) = fails_after_reservation(
        &dir,
        &args,
        &["secret-cell", "bad.csv:3", "column 'y'", "not a number"],
        "bad.csv:3:2: column 'y': not a number: \"secret-cell\"",
    );
    // What stays charged is said, and is what the ledger holds: both failed runs.
    assert!(
        plain.contains("of (ε = 1, δ = 0) stays charged to d in b.ledger"),
        "{plain}"
    );
    assert_eq!(ledger_releases(&dir).len(), 2);
}

#[test]
fn the_table_ends_with_the_diagnostics_only_when_asked_for() {
    let dir = square("table_diagnostics");
    let run = |extra: &[&str]| {
        let out = disguise(&dir)
            .args(square_args())
            .args(words("--k 3 --epsilon 100 --seed 1"))
            .args(extra)
            .stdout_ok();
        String::from_utf8(out).unwrap()
    };
    let release = run(&[]);
    let shown = run(&["--diagnostics"]);
    // At ε = 100 the picks are the greedy's: A (3 points), D (5), C (6 of 6).
    let (a, d, c) = (
        release.find("  A\n").expect("A"),
        release.find("  D\n").expect("D"),
        release.find("  C\n").expect("C"),
    );
    assert!(a < d && d < c, "{release}");
    // The diagnostics come after the whole release, in a section of their own, last.
    let rest = shown
        .strip_prefix(release.as_str())
        .unwrap_or_else(|| panic!("the release is not the start of:\n{shown}"));
    let section = rest.trim_start_matches('\n');
    assert!(section.starts_with("not private"), "{section}");
    for line in [
        "  values: 3.0, 5.0, 6.0",
        "  utility: 0.5, 0.8333333333333334, 1.0",
        "  final_utility: 1.0",
    ] {
        assert!(section.contains(line), "{line:?} not in:\n{section}");
    }
    // Without --diagnostics no number of that section appears.
    for number in ["3.0", "5.0", "6.0", "0.5", "0.8333", "1.0"] {
        assert!(!release.contains(number), "{number} in:\n{release}");
    }
    assert!(!release.contains("not private"), "{release}");
}
