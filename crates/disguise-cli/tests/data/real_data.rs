//! CLI runs on the real datasets in `$DISGUISE_DATA` (default `../shared/data`): `select` on
//! the Uber pickups, `features` on NHANES, `hypothesis` and `histogram` on Adult, `itemsets`
//! on chess, and `experiment matroid`.
//!
//! This module of the `data` target runs through `disguise/tests/support/data_tests.rs`
//! (`harness = false`): a test whose data is absent is reported *ignored*, and fails instead
//! when `DISGUISE_REQUIRE_DATA` is set (as `.ci/run` does). Every test is listed in
//! [`tests`].

use crate::{common, data_tests};

use common::{StdoutOk, dir_with, disguise, fails_with, floats, indices, json, words};
use data_tests::{DataTest, data_file};
use std::path::{Path, PathBuf};

/// `disguise select --points POINTS --candidates CANDIDATES`, run in `dir`.
fn select_on(dir: &Path, points: &Path, candidates: &Path) -> assert_cmd::Command {
    let mut cmd = disguise(dir);
    cmd.arg("select").arg("--points").arg(points);
    cmd.arg("--candidates").arg(candidates);
    cmd
}

const PICKUPS_10K: &str = "uber_nyc_apr14/pickups_manhattan_10k.csv";
const PICKUPS_APRIL: &str = "uber_nyc_apr14/uber-raw-data-apr14.csv";
const LANDMARKS: &str = "manhattan_candidates/landmarks_33.csv";
const ADULT: &str = "uci_adult/adult.data";

/// The tests of this module (the target has no standard harness: each is listed here).
pub fn tests() -> Vec<DataTest> {
    vec![
        DataTest {
            name: "select::real_data_landmarks_non_private_greedy",
            needs: &[PICKUPS_10K, LANDMARKS],
            run: real_data_landmarks_non_private_greedy,
        },
        DataTest {
            name: "select::real_data_full_april_file",
            needs: &[PICKUPS_APRIL, LANDMARKS],
            run: real_data_full_april_file,
        },
        DataTest {
            name: "features::real_data_nhanes",
            needs: &["nhanes_diabetes/nhanes_2007_2012_diabetes_binary23.csv"],
            run: real_data_nhanes,
        },
        DataTest {
            name: "hypothesis::real_adult_with_its_schema",
            needs: &[ADULT, "uci_adult/adult.test"],
            run: real_adult_with_its_schema,
        },
        DataTest {
            name: "histogram::adult_through_the_shipped_schema",
            needs: &[ADULT],
            run: adult_through_the_shipped_schema,
        },
        DataTest {
            name: "itemsets::real_chess_top_pair",
            needs: &["fimi_chess/chess.dat"],
            run: real_chess_top_pair,
        },
        DataTest {
            name: "itemsets::real_chess_size_10_is_refused_at_once_with_the_estimate",
            needs: &["fimi_chess/chess.dat"],
            run: real_chess_size_10_is_refused_at_once_with_the_estimate,
        },
        DataTest {
            name: "assign::matroid_experiment_writes_its_tables_and_figures",
            needs: &[PICKUPS_APRIL, LANDMARKS],
            run: matroid_experiment_writes_its_tables_and_figures,
        },
    ]
}

// ---------------------------------------------------------------------------------------
// select (moved from select.rs)
// ---------------------------------------------------------------------------------------

fn real_data_landmarks_non_private_greedy() {
    let (points, candidates) = (
        data_file("uber_nyc_apr14/pickups_manhattan_10k.csv"),
        data_file("manhattan_candidates/landmarks_33.csv"),
    );
    let dir = dir_with("real_landmarks", &[]);
    let out = select_on(&dir, &points, &candidates)
        .args(["--k", "3", "--mechanism", "max", "--metric", "manhattan"])
        .args(["--normalizer", "0.266", "--format", "json", "--diagnostics"])
        .stdout_ok();
    let doc = json(&out);
    // The data README's sanity check (non-private greedy, m = 0.266, Manhattan metric: a
    // diagnostic run).
    let names: Vec<&str> = doc["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(names[0], "Empire State Building");
    assert_eq!(names[1], "Soho Grand Hotel");
    assert!(names[2].starts_with("Grand Army Plaza"), "{names:?}");
    assert!(doc.get("utility").is_none(), "{doc}");
    let u = floats(&doc["not_private"]["utility"]);
    assert!(
        u.windows(2).all(|w| w[0] <= w[1]) && u[2] <= 1.0 && u[0] > 0.5,
        "{u:?}"
    );
}

fn real_data_full_april_file() {
    let (points, candidates) = (
        data_file("uber_nyc_apr14/uber-raw-data-apr14.csv"),
        data_file("manhattan_candidates/landmarks_33.csv"),
    );
    let dir = dir_with("real_april", &[]);
    let start = std::time::Instant::now();
    let out = select_on(&dir, &points, &candidates)
        .args(["--lat", "Lat", "--lon", "Lon", "--k", "5", "--epsilon", "1"])
        .args([
            "--delta",
            "1e-6",
            "--metric",
            "haversine",
            "--normalizer",
            "20",
        ])
        .args(["--format", "json"])
        .stdout_ok();
    let elapsed = start.elapsed();
    let doc = json(&out);
    assert_eq!(doc["points"], 564_516);
    assert_eq!(indices(&doc["selected"]).len(), 5);
    assert!(doc["guarantee"]["epsilon"].as_f64().unwrap() <= 1.0);
    assert_eq!(doc["secure_rng"], true);
    assert_eq!(doc["unit"], "record");
    assert!(
        doc.get("not_private").is_none() && doc.get("values").is_none(),
        "{doc}"
    );
    // Seconds on an idle machine; the bound stops only a hang or a slowdown by orders of
    // magnitude, as a loaded machine must not fail the test (timing is the benches' task).
    assert!(elapsed.as_secs_f64() < 300.0, "took {elapsed:?}");
}

// ---------------------------------------------------------------------------------------
// features (moved from features.rs)
// ---------------------------------------------------------------------------------------

fn real_data_nhanes() {
    let path = data_file("nhanes_diabetes/nhanes_2007_2012_diabetes_binary23.csv");
    let dir = dir_with("real_nhanes", &[]);
    let run = |extra: &[&str]| {
        let out = disguise(&dir)
            .args(["features", "--data"])
            .arg(&path)
            .args([
                "--label",
                "diabetes",
                "--exclude",
                "SEQN",
                "--format",
                "json",
            ])
            .args(extra)
            .stdout_ok();
        json(&out)
    };
    // The README's sanity check: insulin_now has by far the highest mutual information with
    // diabetes (0.107 bits), then age_ge_45.
    let doc = run(&["--k", "2", "--mechanism", "max", "--diagnostics"]);
    assert_eq!(
        doc["names"],
        serde_json::json!(["insulin_now", "age_ge_45"])
    );
    let exact = &doc["not_private"];
    assert!((floats(&exact["values"])[0] - 0.107).abs() < 5e-4, "{doc}");
    assert_eq!(doc["records"], 17_698);
    assert_eq!(doc["features"].as_array().unwrap().len(), 23);
    // Without a schema the label's levels are read from the data: a diagnostic.
    assert!(doc.get("label_levels").is_none(), "{doc}");
    assert_eq!(exact["label_levels_seen"], serde_json::json!(["0", "1"]));
    // A private run with a generous budget, both objectives.
    for objective in ["mutual-information", "discernibility"] {
        let doc = run(&[
            "--k",
            "3",
            "--epsilon",
            "1",
            "--delta",
            "1e-6",
            "--objective",
            objective,
        ]);
        assert_eq!(doc["names"].as_array().unwrap().len(), 3);
        assert!(doc["guarantee"]["epsilon"].as_f64().unwrap() <= 1.0);
        assert_eq!(doc["secure_rng"], true);
        assert!(doc.get("not_private").is_none(), "{doc}");
    }
}

// ---------------------------------------------------------------------------------------
// hypothesis (moved from hypothesis.rs)
// ---------------------------------------------------------------------------------------

fn real_adult_with_its_schema() {
    let train = data_file("uci_adult/adult.data");
    let test = train.with_file_name("adult.test");
    let schema =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../disguise/schemas/adult.schema.toml");
    let dir = dir_with("adult", &[]);
    let out = disguise(&dir)
        .args(["hypothesis", "--data", train.to_str().unwrap()])
        .args(["--schema", schema.to_str().unwrap(), "--positive", ">50K"])
        .args(["--test", test.to_str().unwrap(), "--thresholds", "100"])
        .args(words(
            "--epsilon 1 --delta 1e-6 --seed 3 --format json --diagnostics",
        ))
        .stdout_ok();
    let doc = json(&out);
    assert_eq!(doc["records"], 32561);
    // The best stump (capital gain) is ≈ 80% accurate; the majority class ≈ 76%.
    assert!(
        doc["not_private"]["test_accuracy"].as_f64().unwrap() > 0.78,
        "{doc}"
    );
}

// ---------------------------------------------------------------------------------------
// histogram (moved from histogram.rs)
// ---------------------------------------------------------------------------------------

/// The real Adult files through the shipped schema.
fn adult_through_the_shipped_schema() {
    let train = data_file("uci_adult/adult.data");
    let schema =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../disguise/schemas/adult.schema.toml");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("histogram-tests/adult");
    std::fs::create_dir_all(&dir).unwrap();
    let out = disguise(&dir)
        .args(["histogram", "--data"])
        .arg(&train)
        .arg("--schema")
        .arg(&schema)
        .args([
            "--epsilon",
            "1",
            "--out",
            "adult-synthetic.csv",
            "--seed",
            "1",
        ])
        .args(["--format", "json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["records"], 32_561);
    // The paper's simulation keeps k̂ = 4 of 14 predictors at its 2 bins; numeric columns are
    // cut for those 4 (bw = (ln n/n)^(1/5) = 0.200: 5 bins) at the quantiles of their noisy
    // cell counts; 7 private quantiles (eighths) look for point masses: capital-gain, 0 for
    // 92 % of people, gets the bin [0, 1) of its own.
    let edges = doc["edges"]["columns"].as_array().expect("private edges");
    assert_eq!(edges.len(), 6, "{doc}");
    assert!(edges.iter().all(|e| e["quantiles"] == 7), "{doc}");
    let gain = edges
        .iter()
        .find(|e| e["column"] == "capital-gain")
        .unwrap();
    assert_eq!(gain["masses"][0], "0", "{doc}");
    assert_eq!(gain["edges"][0], "1", "{doc}");
    let k = doc["k"].as_u64().unwrap();
    assert!((2..=6).contains(&k), "{doc}");
    if let Some(bins) = doc["bins"].as_object() {
        assert!(
            bins.values()
                .all(|b| (2..=8).contains(&b.as_u64().unwrap())),
            "{doc}"
        );
    }
    assert_eq!(doc["target"], "income");
    assert!(doc["guarantee"]["epsilon"].as_f64().unwrap() <= 1.0);
}

// ---------------------------------------------------------------------------------------
// itemsets (moved from itemsets.rs)
// ---------------------------------------------------------------------------------------

fn real_chess_top_pair() {
    let path = data_file("fimi_chess/chess.dat");
    let dir = dir_with("chess", &[]);
    let out = disguise(&dir)
        .args([
            "itemsets",
            "--transactions",
            path.to_str().unwrap(),
            "--size",
            "2",
        ])
        .args(words(
            "--epsilon 1 --delta 1e-6 --seed 2 --format json --diagnostics",
        ))
        .stdout_ok();
    let doc = json(&out);
    assert_eq!(doc["transactions"], 3196);
    // The best pair has count 3184; ℓ is a few hundred, so the pick is close to it.
    assert!(
        doc["not_private"]["picks"][0]["true_count"]
            .as_u64()
            .unwrap()
            >= 3184 - 200,
        "{doc}"
    );
}

fn real_chess_size_10_is_refused_at_once_with_the_estimate() {
    // This run used to grow to 11.7 GB before it was killed: 3196·C(37, 10) ≈ 1.1e12 subsets.
    let path = data_file("fimi_chess/chess.dat");
    let dir = dir_with("chess10", &[]);
    let path = path.to_str().unwrap();
    fails_with(
        &dir,
        &[
            "itemsets",
            "--transactions",
            path,
            "--size",
            "10",
            "--epsilon",
            "1",
            "--delta",
            "1e-6",
        ],
        "counting itemsets of size 10 would enumerate 1.1e12 subsets of the transactions \
         (limit 1e8, raise it with --max-candidates N)",
    );
}

// ---------------------------------------------------------------------------------------
// assign (moved from assign.rs)
// ---------------------------------------------------------------------------------------

fn matroid_experiment_writes_its_tables_and_figures() {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("assign-tests/matroid");
    let _ = std::fs::remove_dir_all(&out);
    disguise(Path::new("."))
        .args([
            "experiment",
            "matroid",
            "--trials",
            "3",
            "--seed",
            "1",
            "--quiet",
        ])
        .args(["--parts", "partition,k-submodular", "--out"])
        .arg(&out)
        .assert()
        .success();
    for file in [
        "matroid_reported.csv",
        "matroid_partition.csv",
        "matroid_partition.png",
        "matroid_partition.svg",
        "matroid_ksub.csv",
        "matroid_ksub_utility.png",
        "matroid_ksub_evaluations.svg",
        "matroid_ksub_evaluations.csv",
    ] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
    // The non-private greedy falls into the trap: utility ≈ 0.765 per pickup at every n.
    let text = std::fs::read_to_string(out.join("matroid_partition.csv")).unwrap();
    let greedy: Vec<f64> = text
        .lines()
        .filter(|l| l.starts_with("non-private-greedy,"))
        .map(|l| l.split(',').nth(3).unwrap().parse().unwrap())
        .collect();
    assert_eq!(greedy.len(), 10);
    assert!(
        greedy.iter().all(|&u| (0.74..0.79).contains(&u)),
        "{greedy:?}"
    );
    // k-submodular: the non-private greedy beats random at every r.
    let text = std::fs::read_to_string(out.join("matroid_ksub.csv")).unwrap();
    let mean = |method: &str, r: &str| -> f64 {
        text.lines()
            .find(|l| l.starts_with(&format!("{method},{r},")))
            .unwrap()
            .split(',')
            .nth(3)
            .unwrap()
            .parse()
            .unwrap()
    };
    for r in ["2", "4", "6", "8", "10"] {
        assert!(mean("non-private-greedy", r) > mean("random", r));
    }
}
