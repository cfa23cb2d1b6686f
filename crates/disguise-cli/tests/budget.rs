//! Integration tests of `disguise budget`.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn budget() -> Command {
    let mut cmd = Command::cargo_bin("disguise").unwrap();
    cmd.arg("budget");
    cmd
}

const EXAMPLE: [&str; 6] = [
    "--epsilon",
    "0.1",
    "--delta",
    "9.5367431640625e-7",
    "--rounds",
    "10",
];

fn json(extra: &[&str]) -> Value {
    let out = budget()
        .args(EXAMPLE)
        .args(extra)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn close(v: &Value, want: f64, tol: f64) {
    let got = v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"));
    assert!((got - want).abs() <= tol, "got {got}, want {want} ± {tol}");
}

#[test]
fn table_lists_every_rule_and_the_winner() {
    budget().args(EXAMPLE).assert().success().stdout(
        predicate::str::contains("basic")
            .and(predicate::str::contains("advanced"))
            .and(predicate::str::contains("kov"))
            .and(predicate::str::contains("zcdp"))
            .and(predicate::str::contains("decomposable").not())
            .and(predicate::str::contains("0.01 "))
            .and(predicate::str::contains("best: zcdp"))
            .and(predicate::str::contains("0.0159829")),
    );
}

#[test]
fn json_fields_and_values() {
    let v = json(&[]);
    assert_eq!(v["rounds"], 10);
    assert_eq!(v["epsilon"], 0.1);
    assert_eq!(v["delta"], 9.5367431640625e-7);
    let rules = v["rules"].as_array().unwrap();
    let names: Vec<&str> = rules.iter().map(|r| r["rule"].as_str().unwrap()).collect();
    assert_eq!(names, ["basic", "advanced", "kov", "zcdp"]);
    for r in rules {
        assert_eq!(r["valid"], true);
        assert!(r["per_round_epsilon"].is_f64());
    }
    // Reference values: closed forms and bisections on the same formulas in Python.
    close(&rules[0]["per_round_epsilon"], 0.01, 1e-15);
    close(&rules[1]["per_round_epsilon"], 0.005994820597487048, 1e-12);
    close(&rules[2]["per_round_epsilon"], 0.01009290532429511, 1e-9);
    close(&rules[3]["per_round_epsilon"], 0.015982937063770308, 1e-11);
    assert_eq!(v["best"]["rule"], "zcdp");
    assert_eq!(
        v["best"]["per_round_epsilon"],
        rules[3]["per_round_epsilon"]
    );
}

#[test]
fn decomposable_flag_adds_the_rule() {
    let v = json(&["--decomposable"]);
    let rules = v["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 5);
    let dec = &rules[4];
    assert_eq!(dec["rule"], "decomposable");
    assert_eq!(dec["valid"], true);
    // 2·ln(1 + 0.1/G(2^-20)), G(δ) = e^θ with e^θ = 1 + θ + ln(1/δ) (the replace-one proof of
    // the decomposable rule, docs/proofs/decomposable-greedy.md).
    close(&dec["per_round_epsilon"], 0.0112431272879817, 1e-12);
    // Independent of k: wins at 100,000 rounds.
    let out = budget()
        .args(["--epsilon", "0.1", "--delta", "1e-6", "--rounds", "100000"])
        .args(["--decomposable", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["best"]["rule"], "decomposable");
}

#[test]
fn approximate_kind_splits_delta() {
    let v = json(&["--kind", "approximate"]);
    let rules = v["rules"].as_array().unwrap();
    assert_eq!(rules[0]["rule"], "basic");
    assert_eq!(rules[0]["valid"], true);
    assert!(rules[0]["per_round_delta"].as_f64().unwrap() * 10.0 <= 9.5367431640625e-7);
    assert_eq!(rules[2]["valid"], false);
    assert!(rules[2]["per_round_epsilon"].is_null());
    assert_eq!(rules[3]["valid"], false);
}

fn fails_with_one_line(args: &[&str], mentions: &str) {
    let out = budget().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "args {args:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "stderr: {stderr:?}");
    assert!(stderr.starts_with("error:"), "stderr: {stderr:?}");
    assert!(stderr.contains(mentions), "stderr: {stderr:?}");
    assert!(out.stdout.is_empty());
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    fails_with_one_line(
        &["--epsilon", "-1", "--delta", "1e-6", "--rounds", "10"],
        "epsilon",
    );
    fails_with_one_line(
        &["--epsilon", "0", "--delta", "1e-6", "--rounds", "10"],
        "epsilon",
    );
    fails_with_one_line(
        &["--epsilon", "NaN", "--delta", "1e-6", "--rounds", "10"],
        "epsilon",
    );
    fails_with_one_line(
        &["--epsilon", "1", "--delta", "1", "--rounds", "10"],
        "delta",
    );
    fails_with_one_line(
        &["--epsilon", "1", "--delta", "-0.1", "--rounds", "10"],
        "delta",
    );
    fails_with_one_line(
        &["--epsilon", "1", "--delta", "1e-6", "--rounds", "0"],
        "rounds",
    );
    fails_with_one_line(
        &["--epsilon", "1", "--delta", "1e-6", "--rounds", "-3"],
        "rounds",
    );
}
