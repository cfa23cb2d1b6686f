//! `disguise assign` (k-type facility location, Algorithms 3–4 of Rafiey & Yoshida 2020) and
//! `disguise select --algorithm continuous-greedy`: picks, JSON shapes, budgets, and
//! one-line errors with exit code 2, on small files written here.

use crate::common;

use common::{StdoutOk, dir_with, disguise, fails_with, indices, json, words};
use std::path::PathBuf;

/// Four candidates on the corners of a 10 × 10 square; with normaliser 1 a point is served
/// only by the candidate it sits on. Three `am` points on A, one `am` on C, two `pm` on D,
/// one `pm` on A.
const CANDIDATES: &str = "name,x,y\nA,0,0\nB,10,0\nC,0,10\nD,10,10\n";
const POINTS: &str = "x,y,shift\n0,0,am\n0,0,am\n0,0,am\n0,10,am\n10,10,pm\n10,10,pm\n0,0,pm\n";

fn square(test: &str) -> PathBuf {
    dir_with(test, &[("c.csv", CANDIDATES), ("p.csv", POINTS)])
}

fn assign_args() -> Vec<&'static str> {
    words(
        "assign --points p.csv --type-column shift --types am,pm --candidates c.csv --x x --y y --normalizer 1",
    )
}

#[test]
fn non_private_assign_picks_the_greedy_assignment() {
    let dir = square("max");
    let out = disguise(&dir)
        .args(assign_args())
        .args(["--k", "3", "--mechanism", "max", "--format", "json"])
        .arg("--diagnostics")
        .stdout_ok();
    let doc = json(&out);
    // A as am (3), D as pm (2), then C as am (1); A cannot also be pm.
    assert_eq!(indices(&doc["selected"]), vec![0, 3, 2], "{doc}");
    assert_eq!(indices(&doc["types"]), vec![0, 1, 0]);
    assert_eq!(doc["names"], serde_json::json!(["A", "D", "C"]));
    // The values and the points of each type are counted on the data: diagnostics.
    for key in ["values", "points_per_type", "gain_evaluations"] {
        assert!(doc.get(key).is_none(), "{key} in {doc}");
    }
    let exact = &doc["not_private"];
    assert_eq!(exact["values"], serde_json::json!([3.0, 5.0, 6.0]));
    assert_eq!(exact["points_per_type"], serde_json::json!([4, 3]));
    assert_eq!(exact["gain_evaluations"], 2 * (4 + 3 + 2));
    assert!(doc["guarantee"].is_null());
}

#[test]
fn private_assign_reports_the_guarantee_for_both_algorithms() {
    let dir = square("private");
    for algorithm in ["greedy", "subsample"] {
        let out = disguise(&dir)
            .args(assign_args())
            .args(words("--k 2 --epsilon 0.5 --seed 4 --format json"))
            .args(["--algorithm", algorithm])
            .stdout_ok();
        let doc = json(&out);
        let want = if algorithm == "greedy" {
            "k-submodular-greedy"
        } else {
            "k-submodular-subsample-greedy"
        };
        assert_eq!(doc["algorithm"], want);
        assert_eq!(indices(&doc["selected"]).len(), 2);
        assert_eq!(doc["rounds"], 2);
        assert!(doc["guarantee"]["epsilon"].as_f64().unwrap() <= 0.5);
        assert_eq!(doc["per_round_epsilon"], 0.25);
        assert_eq!(doc["unit"], "record");
        assert!(doc.get("not_private").is_none(), "{doc}");
        assert!(doc.get("points_per_type").is_none(), "{doc}");
    }
}

#[test]
fn assign_trials_and_csv() {
    let dir = square("trials");
    let out = disguise(&dir)
        .args(assign_args())
        .args(["--k", "2", "--epsilon", "1", "--seed", "5", "--trials", "4"])
        .args(["--format", "csv"])
        .stdout_ok();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "trial,pick,index,name,type,per_round_epsilon,epsilon,delta,rule"
    );
    assert_eq!(lines.len(), 1 + 4 * 2, "{text}");
    // The exact values in columns of their own, on request.
    let out = disguise(&dir)
        .args(assign_args())
        .args(["--k", "2", "--epsilon", "1", "--seed", "5", "--trials", "4"])
        .args(["--format", "csv", "--diagnostics"])
        .stdout_ok();
    let text = String::from_utf8(out).unwrap();
    let exact_lines: Vec<&str> = text.lines().collect();
    assert!(
        exact_lines[0]
            .starts_with("trial,pick,index,name,type,not_private_value,not_private_utility,")
    );
    assert_eq!(exact_lines.len(), lines.len(), "{text}");
    // JSON: one list per trial, typed picks, and (diagnostics) each trial's final utility
    // (the last of its utilities) as select and features give it.
    let run = |extra: &[&str]| {
        let out = disguise(&dir)
            .args(assign_args())
            .args(["--k", "2", "--epsilon", "1", "--seed", "5", "--trials", "4"])
            .args(["--format", "json"])
            .args(extra)
            .stdout_ok();
        json(&out)
    };
    let doc = run(&[]);
    for key in ["selected", "types"] {
        assert_eq!(doc[key].as_array().map(Vec::len), Some(4), "{key}: {doc}");
    }
    for key in [
        "utility",
        "gain_evaluations",
        "final_utility",
        "not_private",
    ] {
        assert!(doc.get(key).is_none(), "{key} in {doc}");
    }
    let shown = run(&["--diagnostics"]);
    assert_eq!(shown["selected"], doc["selected"]);
    assert_eq!(shown["types"], doc["types"]);
    let exact = &shown["not_private"];
    for key in ["utility", "gain_evaluations", "final_utility"] {
        assert_eq!(
            exact[key].as_array().map(Vec::len),
            Some(4),
            "{key}: {shown}"
        );
    }
    for t in 0..4 {
        let last = exact["utility"][t]
            .as_array()
            .unwrap()
            .last()
            .unwrap()
            .clone();
        assert_eq!(exact["final_utility"][t], last, "{shown}");
    }
}

#[test]
fn assign_errors_are_one_line() {
    let dir = square("errors");
    let mut a = assign_args();
    a.extend(["--k", "2", "--epsilon", "1"]);
    let with = |extra: &[&'static str]| {
        let mut v = a.clone();
        v.extend_from_slice(extra);
        v
    };
    fails_with(
        &dir,
        &with(&["--algorithm", "continuous-greedy"]),
        "continuous-greedy",
    );
    fails_with(&dir, &with(&["--failure", "0.1"]), "--failure");
    fails_with(
        &dir,
        &with(&["--algorithm", "subsample", "--failure", "2"]),
        "--failure",
    );
    let mut bad_types = assign_args();
    bad_types[6] = "am";
    bad_types.extend(["--k", "2", "--epsilon", "1"]);
    // The first point whose type is not `am`: line 6 of p.csv, column 3.
    fails_with(
        &dir,
        &bad_types,
        "p.csv:6:3: column 'shift': type \"pm\" is not in --types",
    );
    let mut dup = assign_args();
    dup[6] = "am,am";
    dup.extend(["--k", "2", "--epsilon", "1"]);
    fails_with(&dir, &dup, "twice");
    let mut no_k = assign_args();
    no_k.extend(["--epsilon", "1"]);
    fails_with(&dir, &no_k, "invalid --k: k or a constraint is required");
}

// ---------------------------------------------------------------------------------------
// select --algorithm continuous-greedy
// ---------------------------------------------------------------------------------------

fn select_args() -> Vec<&'static str> {
    words(
        "select --points p.csv --candidates c.csv --x x --y y --normalizer 1 --algorithm continuous-greedy",
    )
}

#[test]
fn select_continuous_greedy_non_private_finds_the_optimum() {
    let dir = square("cg_max");
    let out = disguise(&dir)
        .args(select_args())
        .args(words(
            "--k 2 --mechanism max --format json --seed 1 --diagnostics",
        ))
        .stdout_ok();
    let doc = json(&out);
    assert_eq!(doc["algorithm"], "continuous-greedy");
    // A serves 4 points, D 2: every step's max-weight base is {A, D}.
    let mut s = indices(&doc["selected"]);
    s.sort_unstable();
    assert_eq!(s, vec![0, 3], "{doc}");
}

#[test]
fn select_continuous_greedy_splits_the_budget_over_the_steps() {
    let dir = square("cg_private");
    for (directions, calls) in [("bases", 5u64), ("sequential", 10), ("sampled:8", 5)] {
        let out = disguise(&dir)
            .args(select_args())
            .args(["--k", "2", "--epsilon", "1", "--steps", "5", "--seed", "2"])
            .args(["--directions", directions, "--format", "json"])
            .stdout_ok();
        let doc = json(&out);
        assert_eq!(doc["rounds"], calls, "{directions}: {doc}");
        assert_eq!(indices(&doc["selected"]).len(), 2);
        let e0 = doc["per_round_epsilon"].as_f64().unwrap();
        assert!((e0 - 1.0 / calls as f64).abs() < 1e-12, "{e0}");
        assert!(doc["guarantee"]["epsilon"].as_f64().unwrap() <= 1.0);
    }
    // Default T = r² = 4 steps.
    let out = disguise(&dir)
        .args(select_args())
        .args(words("--k 2 --epsilon 1 --seed 3 --format json"))
        .stdout_ok();
    assert_eq!(json(&out)["rounds"], 4);
}

#[test]
fn select_continuous_greedy_errors_are_one_line() {
    let dir = dir_with(
        "cg_errors",
        &[
            ("c.csv", CANDIDATES),
            ("p.csv", POINTS),
            (
                "g.csv",
                "group,capacity\nleft,1\nright,1\nelement,group\n0,left\n1,left\n2,right\n3,right\n",
            ),
        ],
    );
    let with = |extra: &[&'static str]| {
        let mut v = select_args();
        v.extend_from_slice(extra);
        v
    };
    fails_with(
        &dir,
        &with(&words("--k 2 --constraint partition:g.csv --epsilon 1")),
        "one matroid",
    );
    fails_with(
        &dir,
        &with(&words("--k 2 --epsilon 1 --delta 1e-6 --mechanism lmm")),
        "exponential mechanism",
    );
    fails_with(
        &dir,
        &with(&["--k", "2", "--epsilon", "1", "--steps", "0"]),
        "--steps",
    );
    fails_with(
        &dir,
        &with(&["--k", "2", "--epsilon", "1", "--directions", "vertices"]),
        "directions",
    );
    // Options of the continuous greedy with another algorithm.
    let mut greedy = select_args();
    greedy.truncate(11);
    greedy.extend(["--k", "2", "--epsilon", "1", "--steps", "3"]);
    fails_with(&dir, &greedy, "--steps");
    // A partition matroid alone works.
    disguise(&dir)
        .args(with(&words(
            "--constraint partition:g.csv --epsilon 1 --seed 1",
        )))
        .assert()
        .success();
}
