//! `disguise sample`: counts, JSON shape, stdin, seeding, and one-line errors with exit code 2.

use crate::common;

use common::{StdoutOk, dir_with, disguise, help, json, one_line_error, with_defaults, words};
use std::path::PathBuf;

/// A fresh directory under Cargo's per-test temporary area, holding `scores.txt`.
fn dir_with_scores(test: &str, contents: &str) -> PathBuf {
    dir_with(test, &[("scores.txt", contents)])
}

const SCORES: &str = "1.0\n5.0\n\n2.5\n-3\n";

#[test]
fn counts_sum_to_trials_for_every_mechanism() {
    let dir = dir_with_scores("every_mechanism", SCORES);
    for mechanism in ["em", "lmm", "lmm-chaudhuri", "report-noisy-max", "max"] {
        let out = disguise(&dir)
            .args(["sample", "--scores", "scores.txt", "--sensitivity", "1"])
            .args([
                "--epsilon",
                "1",
                "--delta",
                "1e-6",
                "--mechanism",
                mechanism,
            ])
            .args(["--trials", "500", "--seed", "7", "--format", "json"])
            .stdout_ok();
        let doc = json(&out);
        assert_eq!(doc["mechanism"], mechanism, "{doc}");
        assert_eq!(doc["trials"], 500);
        let counts: Vec<u64> = doc["counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect();
        assert_eq!(counts.len(), 4, "{doc}");
        assert_eq!(counts.iter().sum::<u64>(), 500, "{doc}");
        let guarantee = &doc["guarantee"];
        if mechanism == "max" {
            // The non-private baseline always picks the best score and has no guarantee.
            assert_eq!(counts, vec![0, 500, 0, 0]);
            assert!(guarantee["epsilon"].is_null() && guarantee["delta"].is_null());
        } else {
            assert_eq!(guarantee["epsilon"], 1.0, "{doc}");
            let delta = guarantee["delta"].as_f64().unwrap();
            let expected = if mechanism.starts_with("lmm") {
                1e-6
            } else {
                0.0
            };
            assert_eq!(delta, expected, "{mechanism}: {doc}");
        }
    }
}

#[test]
fn private_mechanisms_favour_the_best_score() {
    // With ε = 4 and a gap of 20λ, the exponential mechanism picks index 1 with probability
    // 1 − 3·e^{−36}-ish; a run of 200 seeded trials must pick it every time.
    let dir = dir_with_scores("favour", "0\n20\n0\n0\n");
    let out = disguise(&dir)
        .args(["sample", "--scores", "scores.txt", "--sensitivity", "1"])
        .args(["--epsilon", "4", "--mechanism", "em", "--trials", "200"])
        .args(["--seed", "1", "--format", "json"])
        .stdout_ok();
    assert_eq!(json(&out)["counts"], serde_json::json!([0, 200, 0, 0]));
}

#[test]
fn reads_standard_input() {
    let dir = dir_with_scores("stdin", "");
    let out = disguise(&dir)
        .args(words("sample --scores - --sensitivity 1 --epsilon 1"))
        .args(words("--mechanism report-noisy-max --trials 300 --seed 3"))
        .args(["--format", "json"])
        .write_stdin("3\n1\n2\n")
        .stdout_ok();
    let doc = json(&out);
    let total: u64 = doc["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(doc["counts"].as_array().unwrap().len(), 3);
    assert_eq!(total, 300);
}

#[test]
fn seeded_runs_reproduce_and_warn() {
    let dir = dir_with_scores("seeded", SCORES);
    let run = |seed: &str| {
        disguise(&dir)
            .args(["sample", "--scores", "scores.txt", "--sensitivity", "1"])
            .args(["--epsilon", "0.5", "--mechanism", "em", "--trials", "2000"])
            .args(["--seed", seed, "--format", "json"])
            .assert()
            .success()
            .get_output()
            .clone()
    };
    let (a, b, c) = (run("11"), run("11"), run("12"));
    assert_eq!(a.stdout, b.stdout);
    // Different seeds: 2000 draws over 4 indices agree exactly with negligible probability.
    assert_ne!(a.stdout, c.stdout);
    let stderr = String::from_utf8(a.stderr).unwrap();
    assert!(
        stderr.contains("reproducible") && stderr.contains("NOT private"),
        "{stderr}"
    );
}

#[test]
fn unseeded_runs_use_the_secure_generator_without_warning() {
    let dir = dir_with_scores("unseeded", SCORES);
    let out = disguise(&dir)
        .args(["sample", "--scores", "scores.txt", "--sensitivity", "1"])
        // ε = 5: the bound (2/ε)·ln(4/0.05) ≈ 1.8 is within the range 8, so no warning at all.
        .args(["--epsilon", "5", "--mechanism", "em", "--trials", "100"])
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.contains("index") && table.contains("count") && table.contains("picked most"),
        "{table}"
    );
}

#[test]
fn table_summarises_by_default_and_lists_every_score_on_request() {
    // 1,000 scores: the default table is a summary of the candidates picked most (it used to
    // print one line per score: 954 MB for 20M scores); --per-score lists them all.
    let scores: String = (0..1000).map(|i| format!("{}\n", i % 7)).collect();
    let dir = dir_with_scores("summary", &scores);
    let run = |extra: &[&str]| {
        let out = disguise(&dir)
            .args(["sample", "--scores", "scores.txt", "--sensitivity", "1"])
            .args(["--epsilon", "1", "--mechanism", "em", "--trials", "5000"])
            .args(["--seed", "2"])
            .args(extra)
            .stdout_ok();
        String::from_utf8(out).unwrap()
    };
    let summary = run(&[]);
    assert!(summary.lines().count() < 25, "{summary}");
    assert!(
        summary.contains("em: 5,000 runs, each (1, 0)-DP"),
        "{summary}"
    );
    assert!(
        summary.contains("1,000 scores (highest 6 at index 6)"),
        "{summary}"
    );
    assert!(summary.contains("picked most (10 of "), "{summary}");
    assert!(summary.contains("others"), "{summary}");
    // The rows shown are the most picked, in decreasing count, and shares are rounded.
    let rows: Vec<(u64, u64)> = summary
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("index"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty() && !l.trim_start().starts_with("others"))
        .map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            (
                cells[0].parse().unwrap(),
                cells[2].replace(',', "").parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(rows.len(), 10, "{summary}");
    assert!(rows.windows(2).all(|w| w[0].1 >= w[1].1), "{rows:?}");
    assert!(rows.iter().all(|&(i, _)| i % 7 == 6), "{rows:?}");
    let top3 = run(&["--top", "3"]);
    assert!(top3.contains("picked most (3 of "), "{top3}");
    let every = run(&["--per-score"]);
    assert_eq!(
        every.lines().count(),
        2 + 1000,
        "header lines plus one per score"
    );
}

#[test]
fn huge_scores_print_short() {
    // Scores of 1e308 used to print as 309-digit numbers.
    let dir = dir_with_scores("huge", "1e308\n-1e308\n1.5e308\n");
    let out = disguise(&dir)
        .args(["sample", "--scores", "scores.txt", "--sensitivity", "1"])
        .args(words("--epsilon 1 --mechanism em --trials 10 --per-score"))
        .stdout_ok();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("1.5e308") && text.contains("-1e308"),
        "{text}"
    );
    assert!(!text.contains("000000"), "{text}");
}

#[test]
fn extreme_sensitivities_are_one_line_errors_in_short_words() {
    for (mechanism, sensitivity, epsilon, needle) in [
        ("report-noisy-max", "1e308", "1", "λ = 1e308"),
        ("lmm", "1e-308", "700", "below the smallest normal double"),
    ] {
        assert_error(
            &format!("extreme_{mechanism}"),
            "1\n2\n",
            &[
                "--mechanism",
                mechanism,
                "--sensitivity",
                sensitivity,
                "--epsilon",
                epsilon,
                "--delta",
                "1e-6",
            ],
            needle,
        );
    }
}

#[test]
fn help_has_examples() {
    let text = help("sample");
    assert!(
        text.contains("Examples:") && text.contains("--per-score"),
        "{text}"
    );
}

/// Runs `sample` with `extra` arguments appended to a valid base command line (whose options
/// they override or complete) and asserts one `error: ...` line on stderr and exit code 2.
fn assert_error(test: &str, scores: &str, extra: &[&str], expected: &str) {
    let dir = dir_with_scores(test, scores);
    let base = "sample --scores scores.txt --sensitivity 1 --epsilon 1 --mechanism em --trials 10";
    let args = with_defaults(base, extra);
    one_line_error(&dir, &args, expected);
}

#[test]
fn bad_scores_are_one_line_errors_naming_the_line() {
    assert_error(
        "not_a_number",
        "1\n2\nabc\n",
        &[],
        "scores.txt:3:1: not a number: \"abc\"",
    );
    assert_error(
        "nan",
        "1\nNaN\n",
        &[],
        "scores.txt:2:1: not a finite number",
    );
    assert_error("inf", "inf\n", &[], "scores.txt:1:1: not a finite number");
    assert_error("empty", "", &[], "scores.txt: no scores");
    // A byte-order mark is not a bad score; a huge bad line is quoted briefly.
    let dir = dir_with_scores("bom", "\u{feff}1\r\n2\r\n");
    disguise(&dir)
        .args(["sample", "--scores", "scores.txt", "--sensitivity", "1"])
        .args(["--epsilon", "1", "--mechanism", "em", "--trials", "10"])
        .assert()
        .success();
    let huge = format!("1\n{}x\n", "7".repeat(10_000_000));
    let dir = dir_with_scores("huge_line", &huge);
    let out = disguise(&dir)
        .args(["sample", "--scores", "scores.txt", "--sensitivity", "1"])
        .args(["--epsilon", "1", "--mechanism", "em", "--trials", "10"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.len() < 200, "{} bytes of error", err.len());
    assert!(
        err.starts_with("error: scores.txt:2:1: not a number: \"7777"),
        "{err}"
    );
    assert_error(
        "missing",
        "1\n",
        &["--scores", "does-not-exist.txt"],
        "cannot read does-not-exist.txt",
    );
}

#[test]
fn bad_parameters_are_one_line_errors() {
    assert_error("eps0", "1\n", &["--epsilon", "0"], "epsilon");
    assert_error("epsneg", "1\n", &["--epsilon", "-1"], "epsilon");
    assert_error("epsnan", "1\n", &["--epsilon", "NaN"], "epsilon");
    assert_error("delta1", "1\n", &["--delta", "1"], "delta");
    assert_error("deltaneg", "1\n", &["--delta", "-0.1"], "delta");
    assert_error("lambda0", "1\n", &["--sensitivity", "0"], "sensitivity");
    assert_error("lambdaneg", "1\n", &["--sensitivity", "-2"], "sensitivity");
    assert_error("trials0", "1\n", &["--trials", "0"], "trials");
    assert_error("unknown", "1\n", &["--mechanism", "magic"], "magic");
    // The large margin mechanisms are only (ε, δ)-DP: δ = 0 is rejected.
    assert_error("lmm_delta0", "1\n", &["--mechanism", "lmm"], "delta");
}
