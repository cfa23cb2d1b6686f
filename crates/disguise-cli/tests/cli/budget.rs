//! Integration tests of `disguise budget`.

use crate::common;

use assert_cmd::Command;
use common::StdoutOk;
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
        .stdout_ok();
    serde_json::from_slice(&out).unwrap()
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
            // 0.015982937063770308 rounded down to 4 significant digits: spending the
            // printed value stays within the total.
            .and(predicate::str::contains("ε₀ = 0.01598 per round"))
            .and(predicate::str::contains("0.015982937").not()),
    );
}

#[test]
fn per_round_values_are_rounded_down_for_people_and_exact_in_json() {
    // Advanced composition gives 0.0059948205974870…: the table shows 0.005994 (down, never
    // 0.005995), the JSON every digit.
    let out = budget().args(EXAMPLE).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let advanced = text
        .lines()
        .find(|l| l.starts_with("advanced"))
        .expect("advanced row");
    assert!(advanced.contains("0.005994 "), "{advanced}");
    assert!(!text.contains("0.0059948"), "{text}");
    assert!(
        text.contains("total budget ε = 0.1, δ = 9.53674e-7"),
        "{text}"
    );
    // JSON keeps every digit of the exact value.
    let v = json(&[]);
    close(
        &v["rules"][1]["per_round_epsilon"],
        0.005994820597487048,
        1e-12,
    );
}

#[test]
fn no_rule_that_fits_is_a_failure_with_the_reasons() {
    // Approximate calls need δ > 0: no rule applies. The table still shows why, and the
    // command fails with one line (it used to exit 0 after "best: none").
    let out = budget()
        .args(["--epsilon", "1", "--delta", "0", "--rounds", "5"])
        .args(["--kind", "approximate"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: no composition rule fits")
            && stderr.contains("need δ > 0")
            && stderr.contains("5 rounds"),
        "{stderr}"
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("basic") && stdout.contains("best: none"),
        "{stdout}"
    );
    // The same with JSON: the document, then the failure.
    let out = budget()
        .args(["--epsilon", "1", "--delta", "0", "--rounds", "5"])
        .args(["--kind", "approximate", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["best"].is_null());
}

#[test]
fn huge_epsilon_is_refused_in_one_line() {
    fails_with_one_line(
        &["--epsilon", "1e308", "--delta", "1e-6", "--rounds", "2"],
        "--epsilon: 1e308 is too large (at most 700)",
    );
}

#[test]
fn help_has_examples() {
    budget()
        .arg("--help")
        .assert()
        .success()
        .stdout(
            predicate::str::contains("Examples:").and(predicate::str::contains(
                "disguise budget --epsilon 0.1 --delta 1e-6 --rounds 10",
            )),
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
