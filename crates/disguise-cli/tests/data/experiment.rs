//! `disguise experiment uber|nhanes`: run each with a few trials into a temporary folder and
//! check that the tables and figures exist and say what they claim. These tests need the
//! real data: this module of the `data` target runs through
//! `disguise/tests/support/data_tests.rs` (`harness = false`), which reports a test whose
//! data is absent as *ignored* (and fails it instead when DISGUISE_REQUIRE_DATA is set, as CI
//! does). Every test is listed in [`tests`].
//!
//! Every run uses a fixed seed, so each assertion is deterministic; the margins quoted in
//! comments say how far the observed values are from the thresholds.

use crate::{common, data_tests};

use assert_cmd::Command;
use common::{check_figure, num};
use data_tests::DataTest;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The tests of this module (the target has no standard harness: each is listed here).
pub fn tests() -> Vec<DataTest> {
    vec![
        DataTest {
            name: "uber_tables_and_figures",
            needs: &[
                "uber_nyc_apr14/pickups_manhattan_10k.csv",
                "manhattan_candidates/landmarks_33.csv",
                "manhattan_candidates/grid_33.csv",
            ],
            run: uber_tables_and_figures,
        },
        DataTest {
            name: "nhanes_tables_and_figures",
            needs: &["nhanes_diabetes/nhanes_2007_2012_diabetes_binary23.csv"],
            run: nhanes_tables_and_figures,
        },
        DataTest {
            name: "missing_data_and_bad_options_are_one_line_errors",
            needs: &[],
            run: missing_data_and_bad_options_are_one_line_errors,
        },
    ]
}

fn out_dir(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("experiment-tests")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// A CSV file as rows of column name → value.
fn read_csv(path: &Path) -> (Vec<String>, Vec<HashMap<String, String>>) {
    let mut r = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    let rows = r
        .records()
        .map(|rec| {
            let rec = rec.unwrap();
            header
                .iter()
                .cloned()
                .zip(rec.iter().map(str::to_string))
                .collect()
        })
        .collect();
    (header, rows)
}

fn run(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("disguise")
        .unwrap()
        .args(args)
        .output()
        .unwrap()
}

fn uber_tables_and_figures() {
    let dir = out_dir("uber");
    let out = run(&[
        "experiment",
        "uber",
        "--out",
        dir.to_str().unwrap(),
        "--trials",
        "4",
        "--seed",
        "7",
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("wrote 24 files"), "{stdout}");

    let (header, rows) = read_csv(&dir.join("uber_utility.csv"));
    assert_eq!(
        header.join(","),
        "experiment,candidates,sweep,composition,method,k,epsilon,delta,mean,std,n,epsilon0,\
         delta0,proven_epsilon,proven_delta,rule,margin_rate"
    );
    // 2 candidate sets × (10 k + 8 ε) × (greedy + random + 3 mechanisms × 2 compositions).
    assert_eq!(rows.len(), 2 * 18 * 8);
    let get = |set: &str, sweep: &str, comp: &str, method: &str, k: usize, eps: f64| {
        rows.iter()
            .find(|r| {
                r["candidates"] == set
                    && r["sweep"] == sweep
                    && r["composition"] == comp
                    && r["method"] == method
                    && r["k"] == k.to_string()
                    && (num(r, "epsilon") - eps).abs() < 1e-12
            })
            .unwrap_or_else(|| panic!("no row {set} {sweep} {comp} {method} {k} {eps}"))
    };
    for r in &rows {
        let mean = num(r, "mean");
        assert!((0.0..=1.0).contains(&mean), "utility {mean} outside [0, 1]");
        let n = num(r, "n");
        assert_eq!(
            n,
            if r["method"] == "non-private" {
                1.0
            } else {
                4.0
            }
        );
        if r["composition"] == "basic" {
            // Basic composition: k·ε₀ ≤ ε and k·δ₀ ≤ δ, and the proven total within budget.
            let (k, eps, delta) = (num(r, "k"), num(r, "epsilon"), num(r, "delta"));
            assert!(k * num(r, "epsilon0") <= eps * (1.0 + 1e-12), "{r:?}");
            assert!(k * num(r, "delta0") <= delta * (1.0 + 1e-12), "{r:?}");
        }
        if r["composition"] != "none" {
            assert!(
                num(r, "proven_epsilon") <= num(r, "epsilon") * (1.0 + 1e-12),
                "{r:?}"
            );
            assert!(
                num(r, "proven_delta") <= num(r, "delta") * (1.0 + 1e-12),
                "{r:?}"
            );
        }
    }
    for set in ["landmarks", "grid"] {
        let mut previous = 0.0;
        for k in 1..=10 {
            let greedy = num(get(set, "k", "none", "non-private", k, 0.1), "mean");
            let random = num(get(set, "k", "none", "random", k, 0.1), "mean");
            // Greedy's sets are nested, and f is monotone: its value never decreases in k.
            assert!(greedy >= previous, "{set}: greedy decreased at k = {k}");
            previous = greedy;
            // Observed gap ≥ 0.01 at every k (0.08 at k = 1).
            assert!(
                greedy > random,
                "{set} k = {k}: greedy {greedy} ≤ random {random}"
            );
        }
        // At ε = 1 the private greedy is close to the non-private one and far above random
        // (observed: within 0.005 of greedy, 0.03–0.09 above random).
        let greedy = num(get(set, "epsilon", "none", "non-private", 3, 1.0), "mean");
        let random = num(get(set, "epsilon", "none", "random", 3, 1.0), "mean");
        for method in ["em", "lmm", "lmm-chaudhuri"] {
            let private = num(get(set, "epsilon", "basic", method, 3, 1.0), "mean");
            assert!(
                private > random + 0.01,
                "{set} {method}: {private} vs random {random}"
            );
            assert!(
                private > greedy - 0.02,
                "{set} {method}: {private} vs greedy {greedy}"
            );
        }
    }

    let (_, margins) = read_csv(&dir.join("uber_lmm_margins.csv"));
    // 2 sets × 2 compositions × 2 LMM variants × (1 + 2 + … + 10 rounds of the k-sweep
    // + 8 ε values × 3 rounds).
    assert_eq!(margins.len(), 2 * 2 * 2 * (55 + 24));
    for r in &margins {
        let rate = num(r, "margin_found_rate");
        assert!((0.0..=1.0).contains(&rate), "{r:?}");
        // The paper's observation (§6.1): a margin is found, if ever, in the first round;
        // later gains are too small for the fixed threshold (observed: exactly 0 after
        // round 1 in every configuration).
        if num(r, "round") >= 2.0 {
            assert_eq!(rate, 0.0, "{r:?}");
        }
    }

    let (_, maps) = read_csv(&dir.join("uber_maps.csv"));
    assert_eq!(maps.len(), 2 * 4);
    for r in &maps {
        assert_eq!(r["set"].split("; ").count(), 3, "{r:?}");
    }
    let greedy_landmarks = maps
        .iter()
        .find(|r| r["candidates"] == "landmarks" && r["method"] == "non-private")
        .unwrap();
    // The data README's sanity check: the paper's three landmarks.
    assert_eq!(
        greedy_landmarks["set"],
        "Empire State Building; Soho Grand Hotel; Grand Army Plaza"
    );
    let (_, picks) = read_csv(&dir.join("uber_pick_rates.csv"));
    for set in ["landmarks", "grid"] {
        for method in ["non-private", "em", "lmm", "lmm-chaudhuri"] {
            // Every trial picks 3 distinct candidates: the rates sum to 3.
            let total: f64 = picks
                .iter()
                .filter(|r| r["candidates"] == set && r["method"] == method)
                .map(|r| num(r, "rate"))
                .sum();
            assert!(
                (total - 3.0).abs() < 1e-9,
                "{set} {method}: rates sum to {total}"
            );
        }
    }

    for set in ["landmarks", "grid"] {
        for comp in ["basic", "best"] {
            check_figure(
                &dir,
                &format!("uber_utility_k_{set}_{comp}"),
                &[
                    "EM greedy",
                    "non-private greedy",
                    "random",
                    "LMM greedy (Chaudhuri et al.)",
                ],
                (600, 300),
            );
            check_figure(
                &dir,
                &format!("uber_utility_epsilon_{set}_{comp}"),
                &["0.005", "EM greedy"],
                (600, 300),
            );
        }
    }
    check_figure(
        &dir,
        "uber_map_landmarks",
        &["1. Empire State Building", "EM greedy"],
        (600, 300),
    );
    check_figure(&dir, "uber_map_grid", &["non-private greedy"], (600, 300));
}

fn nhanes_tables_and_figures() {
    let dir = out_dir("nhanes");
    let args = |d: &Path| {
        vec![
            "experiment".to_string(),
            "nhanes".into(),
            "--out".into(),
            d.to_str().unwrap().into(),
            "--trials".into(),
            "10".into(),
            "--seed".into(),
            "3".into(),
            "--quiet".into(),
        ]
    };
    let a = args(&dir);
    let out = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let (_, features) = read_csv(&dir.join("nhanes_features.csv"));
    assert_eq!(features.len(), 23);
    // The data README: insulin_now carries 0.107 bits, far above the next (age_ge_45, 0.049).
    assert_eq!(features[0]["feature"], "insulin_now");
    assert!((num(&features[0], "mutual_information_alone") - 0.107).abs() < 0.001);
    assert_eq!(features[1]["feature"], "age_ge_45");

    let (header, rows) = read_csv(&dir.join("nhanes_mutual_information.csv"));
    assert_eq!(
        header[..9].join(","),
        "experiment,composition,method,k,epsilon,delta,mean,std,n"
    );
    assert_eq!(rows.len(), 10 * 8);
    let mean = |comp: &str, method: &str, k: usize| {
        let r = rows
            .iter()
            .find(|r| r["composition"] == comp && r["method"] == method && r["k"] == k.to_string())
            .unwrap_or_else(|| panic!("no row {comp} {method} {k}"));
        num(r, "mean")
    };
    let mut previous = 0.0;
    for k in 1..=10 {
        let greedy = mean("none", "non-private", k);
        assert!(greedy >= previous - 1e-12, "greedy MI decreased at k = {k}");
        previous = greedy;
        // Observed: greedy ≥ random + 0.09 at every k.
        assert!(greedy > mean("none", "random", k) + 0.05, "k = {k}");
        for r in rows.iter().filter(|r| r["k"] == k.to_string()) {
            assert!(
                num(r, "mean") >= 0.0 && num(r, "mean") <= greedy + 0.05,
                "{r:?}"
            );
        }
    }
    // EM with ε = 1 finds most of the greedy value at k = 3 (observed 0.127 of 0.163; random
    // 0.038).
    assert!(mean("basic", "em", 3) > 0.1);

    let (_, rates) = read_csv(&dir.join("nhanes_feature_rates.csv"));
    for comp in ["basic", "best"] {
        for method in ["non-private", "em", "lmm", "lmm-chaudhuri", "random"] {
            let these: Vec<_> = rates
                .iter()
                .filter(|r| r["composition"] == comp && r["method"] == method)
                .collect();
            assert_eq!(these.len(), 23);
            let total: f64 = these.iter().map(|r| num(r, "rate")).sum();
            assert!((total - 3.0).abs() < 1e-9, "{comp} {method}: {total}");
        }
        let insulin_em = rates
            .iter()
            .find(|r| {
                r["composition"] == comp && r["method"] == "em" && r["feature"] == "insulin_now"
            })
            .unwrap();
        // Observed 99 % over 1000 trials; fewer than 7 of 10 would have probability < 1e-4.
        assert!(num(insulin_em, "rate") >= 0.7, "{insulin_em:?}");
    }
    for comp in ["basic", "best"] {
        check_figure(
            &dir,
            &format!("nhanes_mi_k_{comp}"),
            &["EM greedy", "random", "bits"],
            (600, 300),
        );
        check_figure(
            &dir,
            &format!("nhanes_top3_{comp}"),
            &["insulin_now", "EM greedy"],
            (600, 300),
        );
    }

    // The same seed gives the same numbers, whatever the thread scheduling.
    let again = out_dir("nhanes-again");
    let a = args(&again);
    let out = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.status.success());
    assert_eq!(
        std::fs::read_to_string(dir.join("nhanes_mutual_information.csv")).unwrap(),
        std::fs::read_to_string(again.join("nhanes_mutual_information.csv")).unwrap()
    );
}

fn missing_data_and_bad_options_are_one_line_errors() {
    let dir = out_dir("errors");
    for (args, needle) in [
        (
            vec![
                "experiment",
                "uber",
                "--data-dir",
                "/nonexistent-disguise-data",
            ],
            "not found",
        ),
        (
            vec![
                "experiment",
                "nhanes",
                "--data-dir",
                "/nonexistent-disguise-data",
            ],
            "not found",
        ),
        (
            vec!["experiment", "uber", "--trials", "0"],
            "--trials must be at least 1",
        ),
    ] {
        let mut full = args.clone();
        full.extend(["--out", dir.to_str().unwrap()]);
        let out = run(&full);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(needle),
            "{stderr}"
        );
    }
    let out = run(&["experiment", "nosuch", "--out", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}
