//! `disguise hypothesis`: the chosen stump, |H| from the grid, schema and --bounds inputs,
//! the held-out accuracy, the guarantee, and one-line errors with exit code 2.

use crate::common;

use common::{StdoutOk, dir_with, disguise, fails_with, json, words};
use predicates::prelude::*;

/// y = [a > 100] exactly, b is unrelated: 2000 rows with a, b ∈ [0, 255].
fn data() -> String {
    let mut s = String::from("a,b,y\n");
    for i in 0..2000u32 {
        let a = (i * 37) % 256;
        let b = (i * 101 + 7) % 256;
        s.push_str(&format!("{a},{b},{}\n", u32::from(a > 100)));
    }
    s
}

#[test]
fn finds_the_separating_stump_with_every_mechanism() {
    let dir = dir_with("separating", &[("d.csv", &data())]);
    for mechanism in ["em", "lmm", "lmm-chaudhuri", "report-noisy-max", "max"] {
        let out = disguise(&dir)
            .args(words("hypothesis --data d.csv --label y --bounds 0:255"))
            .args(["--thresholds", "254", "--mechanism", mechanism])
            .args(words("--epsilon 1 --delta 1e-6 --seed 4 --format json"))
            .args(["--test", "d.csv", "--diagnostics"])
            .stdout_ok();
        let doc = json(&out);
        assert_eq!(doc["hypotheses"], 2 + 2 * 254 * 2, "{doc}");
        assert_eq!(doc["records"], 2000);
        // Thresholds are k·255/255 = k: "a ≤ 100 → 0" separates exactly.
        let np = &doc["not_private"];
        assert_eq!(np["best_training_accuracy"], 1.0, "{doc}");
        assert!(
            np["training_accuracy"].as_f64().unwrap() >= 0.98,
            "{mechanism}: {doc}"
        );
        assert!(np["test_accuracy"].as_f64().unwrap() >= 0.98);
        assert!(
            doc["hypothesis"].as_str().unwrap().starts_with("a ≤"),
            "{doc}"
        );
        if mechanism == "max" {
            assert_eq!(doc["guarantee"], serde_json::Value::Null);
        } else {
            assert!(doc["guarantee"]["epsilon"].as_f64().unwrap() <= 1.0);
        }
        if mechanism.starts_with("lmm") {
            // ≈ 8 records per value of a, so stumps within the stopping threshold (≈ 460
            // records) of the best span ≈ 2·57 thresholds: ℓ is a fraction of |H|.
            assert!(doc["margin"].as_u64().unwrap() < 400, "{doc}");
        }
    }
}

#[test]
fn reads_a_schema_and_a_categorical_label() {
    let schema = r#"
name = "toy"
target = "y"
columns = [
    { name = "a", type = "numeric", bounds = [0, 255] },
    { name = "b", type = "numeric", bounds = [0, 255] },
    { name = "y", type = "categorical", levels = ["no", "yes"] },
]
"#;
    let csv = data().replace(",0\n", ",no\n").replace(",1\n", ",yes\n");
    let dir = dir_with("schema", &[("d.csv", &csv), ("s.toml", schema)]);
    let run = || {
        let mut command = disguise(&dir);
        command
            .args(words(
                "hypothesis --data d.csv --schema s.toml --positive yes",
            ))
            .args(words("--thresholds 254 --epsilon 1 --delta 1e-6 --seed 1"));
        command
    };
    run()
        .assert()
        .success()
        .stdout(predicate::str::contains("→ no, else yes"))
        .stdout(predicate::str::contains("1018 hypotheses"))
        .stdout(predicate::str::contains("accuracy").not())
        .stdout(predicate::str::contains(
            "guarantee: (1, 1e-6)-differentially private",
        ));
    // The accuracies after the release, in their own section.
    run()
        .arg("--diagnostics")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "guarantee: (1, 1e-6)-differentially private",
        ))
        .stdout(predicate::str::contains(
            "\n\nnot private — computed on the data",
        ))
        .stdout(predicate::str::contains("  best_training_accuracy: 1"));
}

#[test]
fn bounds_from_data_is_flagged_not_private() {
    let dir = dir_with("from_data", &[("d.csv", &data())]);
    disguise(&dir)
        .args(words(
            "hypothesis --data d.csv --label y --bounds-from-data",
        ))
        .args(["--epsilon", "1", "--mechanism", "em", "--diagnostics"])
        .assert()
        .success()
        .stderr(predicate::str::contains("NOT private"))
        .stdout(predicate::str::contains("guarantee: NONE"));
}

#[test]
fn the_non_private_modes_run_only_with_diagnostics_and_are_refused_before_reading() {
    let dir = dir_with("non_private", &[("d.csv", &data())]);
    // Refused in one line, exit 2, nothing on stdout — before the data is read (a missing
    // file gets the same line).
    for data in ["d.csv", "missing.csv"] {
        for (extra, needle) in [
            (
                "--bounds 0:255 --mechanism max",
                "invalid --mechanism max: it is not private",
            ),
            (
                "--bounds-from-data --mechanism em --epsilon 1",
                "invalid --bounds-from-data: it is not private",
            ),
            (
                "--bounds 0:255 --mechanism em --epsilon 1 --test d.csv",
                "invalid --test",
            ),
        ] {
            let args = [
                vec!["hypothesis", "--data", data, "--label", "y"],
                words(extra),
            ]
            .concat();
            let err = fails_with(&dir, &args, needle);
            assert!(err.contains("--diagnostics"), "{err}");
        }
    }
    // With --diagnostics they run, and say so.
    disguise(&dir)
        .args(words(
            "hypothesis --data d.csv --label y --bounds 0:255 --mechanism max --diagnostics",
        ))
        .assert()
        .success()
        .stdout(predicate::str::contains("guarantee: NONE"))
        .stdout(predicate::str::contains("training_accuracy"));
}

#[test]
fn the_default_output_is_the_stump_and_the_accuracies_come_with_diagnostics() {
    let dir = dir_with("disclosure", &[("d.csv", &data())]);
    let base = words(
        "hypothesis --data d.csv --label y --bounds 0:255 --thresholds 254 --epsilon 1 \
         --delta 1e-6 --seed 4",
    );
    let run = |extra: &[&str]| disguise(&dir).args(&base).args(extra).stdout_ok();
    let plain = json(&run(&["--format", "json"]));
    for key in ["accuracy", "not_private"] {
        assert!(!plain.to_string().contains(key), "{key} in {plain}");
    }
    assert!(
        plain["hypothesis"].as_str().unwrap().starts_with("a ≤"),
        "{plain}"
    );
    let table = String::from_utf8(run(&[])).unwrap();
    assert!(!table.contains("accuracy"), "{table}");
    assert!(!table.contains("not private —"), "{table}");
    let both = json(&run(&[
        "--format",
        "json",
        "--diagnostics",
        "--test",
        "d.csv",
    ]));
    for key in ["hypothesis", "index", "stump", "margin", "guarantee"] {
        assert_eq!(both[key], plain[key], "{key}");
    }
    let np = &both["not_private"];
    for key in [
        "training_accuracy",
        "best_training_accuracy",
        "test_accuracy",
    ] {
        assert!(np[key].as_f64().unwrap() >= 0.98, "{key}: {np}");
    }
}

#[test]
fn a_misspelt_data_file_is_refused_before_the_ledger_is_charged() {
    let dir = dir_with("ledger_checks", &[("d.csv", &data())]);
    disguise(&dir)
        .args(["ledger", "init", "b.ledger", "--default-limit", "100"])
        .assert()
        .success();
    let base = "hypothesis --label y --bounds 0:255 --mechanism em --epsilon 1 \
                --ledger b.ledger --dataset d -q --format json";
    fails_with(
        &dir,
        &[words(base), words("--data d.cvs")].concat(),
        "d.cvs",
    );
    let show = || {
        json(
            &disguise(&dir)
                .args(words("ledger show --ledger b.ledger --format json"))
                .stdout_ok(),
        )
    };
    assert_eq!(show()["releases"].as_array().unwrap().len(), 0);
    disguise(&dir)
        .args(words(base))
        .args(["--data", "d.csv"])
        .assert()
        .success();
    assert_eq!(show()["releases"].as_array().unwrap().len(), 1);
}

#[test]
fn errors_are_one_line_with_exit_code_2() {
    let dir = dir_with("errors", &[("d.csv", &data())]);
    for (args, needle) in [
        (
            vec!["--label", "y", "--epsilon", "1", "--delta", "1e-6"],
            "public bounds",
        ),
        (
            words("--label y --bounds 5:1 --epsilon 1 --mechanism em"),
            "--bounds",
        ),
        (
            vec!["--label", "y", "--bounds", "0:255", "--epsilon", "1"],
            "δ > 0",
        ),
        (
            words("--label y --bounds 0:255 --epsilon 1 --mechanism gumbel"),
            "--mechanism",
        ),
        (
            vec!["--label", "y", "--bounds", "0:255", "--mechanism", "em"],
            "invalid --epsilon: required with the mechanism em",
        ),
        (
            words("--label zz --bounds 0:255 --epsilon 1 --mechanism em"),
            "zz",
        ),
    ] {
        let full: Vec<&str> = ["hypothesis", "--data", "d.csv"]
            .into_iter()
            .chain(args)
            .collect();
        fails_with(&dir, &full, needle);
    }
}

/// The reader's defects, seen by the user: a byte-order mark changes nothing; a duplicate
/// column and a bad label are one line naming file, line and column.
#[test]
fn reader_edge_cases_name_file_line_and_column() {
    let plain = data();
    let bad_label = format!("{plain}3,4,2\n"); // line 2002: a label of 2
    let dir = dir_with(
        "reader",
        &[
            ("d.csv", &plain),
            ("bom.csv", &format!("\u{feff}{plain}")),
            ("dup.csv", "a,b,y,A\n1,2,1,3\n"),
            ("label.csv", &bad_label),
        ],
    );
    let run = |file: &str| {
        disguise(&dir)
            .args([
                "hypothesis",
                "--data",
                file,
                "--label",
                "y",
                "--bounds",
                "0:255",
            ])
            .args(["--mechanism", "max", "--format", "json", "--diagnostics"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    };
    assert_eq!(json(&run("bom.csv")), json(&run("d.csv")));
    let base = [
        "hypothesis",
        "--label",
        "y",
        "--bounds",
        "0:255",
        "--mechanism",
        "max",
        "--diagnostics",
    ];
    for (file, needle) in [
        (
            "dup.csv",
            "dup.csv:1: duplicate column 'A' (columns 1 and 4)",
        ),
        (
            "label.csv",
            "label.csv:2002:3: column 'y': a numeric label must be 0 or 1, got 2",
        ),
    ] {
        let args: Vec<&str> = base.iter().copied().chain(["--data", file]).collect();
        fails_with(&dir, &args, needle);
    }
}

#[test]
fn huge_threshold_grids_are_refused_in_one_line() {
    // --thresholds 1e12 used to abort with a failed 32 TB allocation and a backtrace (exit
    // 134). Refused before reading the data; a grid that fits alone but not with every
    // column is refused once the columns are known, naming the class size.
    let dir = dir_with("huge_thresholds", &[("d.csv", &data())]);
    let args = |n: &'static str| {
        vec![
            "hypothesis",
            "--data",
            "d.csv",
            "--label",
            "y",
            "--bounds",
            "0:255",
            "--epsilon",
            "1",
            "--mechanism",
            "em",
            "--thresholds",
            n,
        ]
    };
    fails_with(
        &dir,
        &args("1000000000000"),
        "invalid --thresholds: at most 50000000",
    );
    fails_with(
        &dir,
        &args("30000000"),
        "= 120000002 hypotheses, each scored in memory; use fewer thresholds (limit 1e8)",
    );
}

#[test]
fn a_categorical_label_without_a_schema_takes_positive() {
    // wdbc-like: diagnosis M/B, M when radius > 15.
    let mut csv = String::from("diagnosis,radius\n");
    for i in 0..60 {
        let radius = 8.0 + i as f64 * 0.25;
        let label = if radius > 15.0 { "M" } else { "B" };
        csv.push_str(&format!("{label},{radius}\n"));
    }
    let dir = dir_with("categorical_label", &[("wdbc.csv", &csv)]);
    let base = "hypothesis --data wdbc.csv --label diagnosis --positive M";
    let out = disguise(&dir)
        .args(words(base))
        .args(words(
            "--mechanism max --bounds-from-data --thresholds 64 --format json --diagnostics",
        ))
        .stdout_ok();
    let doc = json(&out);
    assert_eq!(doc["records"], 60, "{doc}");
    assert_eq!(doc["not_private"]["training_accuracy"], 1.0, "{doc}");
    // A private run cannot take the label's levels from the data: one line naming --schema.
    let private = format!("{base} --mechanism em --epsilon 1 --bounds 0:40");
    fails_with(&dir, &words(&private), "--schema");
}

#[test]
fn the_exponential_mechanisms_bound_is_stated_and_a_vacuous_one_warns() {
    let mut csv = String::from("y,a\n");
    for i in 0..60 {
        csv.push_str(&format!("{},{i}\n", u8::from(i >= 30)));
    }
    let dir = dir_with("usefulness", &[("d.csv", &csv)]);
    let run = |epsilon: &str| {
        let out = disguise(&dir)
            .args(words(
                "hypothesis --data d.csv --label y --bounds 0:60 --mechanism em",
            ))
            .args(["--epsilon", epsilon, "--seed", "1", "--format", "json"])
            .output()
            .unwrap();
        assert!(out.status.success());
        (
            json(&out.stdout),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    // ε = 0.05: (2/ε)·ln(|H|/β) is hundreds of records, above the 30 a constant guess gets.
    let (doc, stderr) = run("0.05");
    assert_eq!(doc["usefulness"]["vacuous"], true, "{doc}");
    assert!(
        stderr.contains("note: the worst-case guarantee says nothing at these parameters"),
        "{stderr}"
    );
    // ε = 20: within about half a record of the best.
    let (doc, stderr) = run("20");
    assert_eq!(doc["usefulness"]["vacuous"], false, "{doc}");
    assert!(
        !stderr.contains("worst-case guarantee says nothing"),
        "{stderr}"
    );
    // The default large margin mechanism on 60 records: G₁ (hundreds) is above any gap.
    let out = disguise(&dir)
        .args(words("hypothesis --data d.csv --label y --bounds 0:60"))
        .args(words("--epsilon 1 --delta 1e-6 --seed 1 --format json"))
        .output()
        .unwrap();
    let doc = json(&out.stdout);
    assert!(
        doc["usefulness"]["bound"].as_str().unwrap().contains("G₁"),
        "{doc}"
    );
    assert_eq!(doc["usefulness"]["vacuous"], true, "{doc}");
}

#[test]
fn a_headerless_file_with_another_delimiter_is_read_with_no_header() {
    // The same table, semicolon-separated and without its header row.
    let body: String = data()
        .lines()
        .skip(1)
        .map(|l| l.replace(',', ";") + "\n")
        .collect();
    let dir = dir_with("headerless", &[("d.txt", &body)]);
    let out = disguise(&dir)
        .args(words(
            "hypothesis --data d.txt --no-header --delimiter ; --label c3",
        ))
        .args(words(
            "--bounds 0:255 --thresholds 254 --mechanism max --format json --diagnostics",
        ))
        .stdout_ok();
    let doc = json(&out);
    // Every record is read (none lost to a header) and the columns are c1 … c3.
    assert_eq!(doc["records"], 2000, "{doc}");
    assert!(
        doc["hypothesis"].as_str().unwrap().starts_with("c1 ≤"),
        "{doc}"
    );
    // Without --no-header the first record is refused as a header, naming the way out.
    fails_with(
        &dir,
        &words(
            "hypothesis --data d.txt --delimiter ; --label c3 --bounds 0:255 --mechanism max \
             --diagnostics",
        ),
        "the header row looks like data",
    );
    // The layout flags belong to files without a schema.
    std::fs::write(
        dir.join("s.toml"),
        "[[columns]]\nname = \"a\"\ntype = \"numeric\"\n",
    )
    .unwrap();
    fails_with(
        &dir,
        &words("hypothesis --data d.txt --schema s.toml --no-header --mechanism max --diagnostics"),
        "cannot be used with",
    );
}
