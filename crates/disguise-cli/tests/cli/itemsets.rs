//! `disguise itemsets`: the top itemsets, JSON shape, both input formats, the item list and
//! the fallbacks, guarantee composition, seeding, and one-line errors with exit code 2.

use crate::common;

use common::{StdoutOk, dir_with, disguise, fails_with, json, words};
use predicates::prelude::*;

/// 1500 × {1 2 5}, 1200 × {3 4}, 60 × {1 9}: the top pairs are {1 2}, {1 5}, {2 5}
/// (count 1500 each) then {3 4} (1200).
fn fimi() -> String {
    let mut s = String::new();
    s.push_str(&"2 1 5\n".repeat(1500));
    s.push_str(&"3 4\n".repeat(1200));
    s.push_str(&"9 1\n".repeat(60));
    s
}

/// The same transactions in long CSV format.
fn long_csv() -> String {
    let mut s = String::from("order,product\n");
    let mut id = 0;
    for (count, items) in [
        (1500, &["2", "1", "5"][..]),
        (1200, &["3", "4"]),
        (60, &["9", "1"]),
    ] {
        for _ in 0..count {
            for item in items {
                s.push_str(&format!("o{id},{item}\n"));
            }
            id += 1;
        }
    }
    s
}

#[test]
fn top_pairs_with_guarantee_in_json() {
    let dir = dir_with("top_pairs", &[("t.dat", &fimi())]);
    for mechanism in ["lmm", "lmm-chaudhuri"] {
        let out = disguise(&dir)
            .args(words("itemsets --transactions t.dat --size 2 --top 4"))
            .args([
                "--epsilon",
                "2",
                "--delta",
                "1e-6",
                "--mechanism",
                mechanism,
            ])
            .args(["--seed", "3", "--format", "json"])
            .assert()
            .success()
            .stderr(predicate::str::contains("NOT private"))
            .get_output()
            .stdout
            .clone();
        let doc = json(&out);
        assert_eq!(doc["transactions"], 2760, "{doc}");
        // The number of occurring itemsets is counted on the data: not in the release.
        assert!(doc.get("occurring").is_none(), "{doc}");
        let picks = doc["picks"].as_array().unwrap();
        assert_eq!(picks.len(), 4);
        let mut sets: Vec<String> = picks
            .iter()
            .map(|p| {
                let items: Vec<&str> = p["itemset"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| i.as_str().unwrap())
                    .collect();
                items.join(" ")
            })
            .collect();
        // The last pick is {3 4}; the first three are the count-1500 pairs in some order.
        assert_eq!(sets.pop().unwrap(), "3 4", "{doc}");
        sets.sort();
        assert_eq!(sets, ["1 2", "1 5", "2 5"], "{doc}");
        for p in picks {
            assert_eq!(p["outcome"], "itemset");
            assert!(p["margin"].as_u64().unwrap() >= 1);
            assert!(p["noisy_frequency"].as_f64().is_some());
        }
        assert!(doc["epsilon"].as_f64().unwrap() <= 2.0, "{doc}");
        assert!(doc["delta"].as_f64().unwrap() <= 1e-6);
        assert_eq!(doc["secure_rng"], false);
        assert_eq!(doc["universe_size"], serde_json::Value::Null);
    }
}

#[test]
fn csv_input_gives_the_same_release_as_fimi() {
    let dir = dir_with("csv", &[("t.dat", &fimi()), ("t.csv", &long_csv())]);
    let run = |args: &[&str]| {
        let out = disguise(&dir)
            .args(["itemsets", "--size", "2", "--top", "2", "--epsilon", "1"])
            .args(["--delta", "1e-6", "--seed", "11", "--format", "json"])
            .args(args)
            .stdout_ok();
        json(&out)
    };
    let a = run(&["--transactions", "t.dat"]);
    let b = run(&words(
        "--transactions t.csv --id-column order --item-column product",
    ));
    assert_eq!(a["picks"], b["picks"]);
    assert_eq!(a["transactions"], b["transactions"]);
}

#[test]
fn exponential_mechanism_over_the_item_list() {
    let items = (1..=9)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    let dir = dir_with("em", &[("t.dat", &fimi()), ("items.txt", &items)]);
    let out = disguise(&dir)
        .args(words(
            "itemsets --transactions t.dat --size 2 --items items.txt",
        ))
        .args(words("--mechanism em --epsilon 1 --count-share 0 --seed 5"))
        .args(["--format", "json", "--diagnostics"])
        .stdout_ok();
    let doc = json(&out);
    assert_eq!(doc["universe_size"], "36", "{doc}");
    assert_eq!(doc["delta"], 0.0);
    assert!(doc["epsilon"].as_f64().unwrap() <= 1.0);
    assert_eq!(doc["picks"][0]["noisy_frequency"], serde_json::Value::Null);
    assert_eq!(doc["not_private"]["picks"][0]["true_count"], 1500, "{doc}");
    // em without the list is refused before reading data.
    disguise(&dir)
        .args(["itemsets", "--transactions", "t.dat", "--size", "2"])
        .args(["--mechanism", "em", "--epsilon", "1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--items"));
}

#[test]
fn no_margin_reports_no_itemset_in_the_table() {
    // 20 transactions: far below the stopping thresholds.
    let dir = dir_with("no_margin", &[("small.dat", &"1 2\n".repeat(20))]);
    disguise(&dir)
        .args(words(
            "itemsets --transactions small.dat --size 2 --epsilon 1",
        ))
        .args(["--delta", "1e-6", "--seed", "1"])
        .assert()
        .code(4)
        .stdout(predicate::str::contains("no itemset: no margin found"))
        .stdout(predicate::str::contains("guarantee: ("))
        .stderr(predicate::str::contains(
            "nothing released: no margin was found",
        ))
        .stderr(predicate::str::contains("--items"))
        // Said up front too: G₁ (hundreds) is above the 20 transactions.
        .stderr(predicate::str::contains(
            "note: the worst-case guarantee says nothing at these parameters (the release may still be good): a margin",
        ));
}

#[test]
fn an_item_list_makes_the_exponential_mechanism_the_default_and_cuts_are_counted() {
    // 3 transactions longer than --max-length 2; the rest pairs.
    let mut t = "1 2\n".repeat(30);
    t.push_str(&"3 4 5 6\n".repeat(3));
    let dir = dir_with("defaults", &[("t.dat", &t), ("items.txt", "1 2 3 4 5 6")]);
    let base = "itemsets --transactions t.dat --size 2 --epsilon 2 --seed 1 --format json";
    // How many were cut is counted on the data: said only with --diagnostics.
    let out = disguise(&dir)
        .args(words(base))
        .args(words("--items items.txt --max-length 2 --diagnostics"))
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "3 of 33 transactions are longer than --max-length 2",
        ))
        .get_output()
        .stdout
        .clone();
    let doc = json(&out);
    assert_eq!(doc["mechanism"], "em", "{doc}");
    assert_eq!(doc["not_private"]["truncated"], 3, "{doc}");
    let out = disguise(&dir)
        .args(words(base))
        .args(words("--items items.txt --max-length 2"))
        .assert()
        .success()
        .stderr(predicate::str::contains("longer than").not())
        .get_output()
        .stdout
        .clone();
    let doc = json(&out);
    assert_eq!(doc["mechanism"], "em", "{doc}");
    assert!(doc.get("truncated").is_none(), "{doc}");
}

#[test]
fn errors_are_one_line_with_exit_code_2() {
    let dir = dir_with("errors", &[("t.dat", &fimi())]);
    for (args, needle) in [
        (
            vec!["--size", "0", "--epsilon", "1", "--delta", "1e-6"],
            "--size",
        ),
        (
            vec!["--size", "2", "--epsilon", "-1", "--delta", "1e-6"],
            "epsilon",
        ),
        (vec!["--size", "2", "--epsilon", "1"], "δ > 0"),
        (
            words("--size 2 --epsilon 1 --delta 1e-6 --count-share 1"),
            "--count-share",
        ),
        (
            words("--size 3 --epsilon 1 --delta 1e-6 --max-length 2"),
            "--max-length",
        ),
    ] {
        let full: Vec<&str> = ["itemsets", "--transactions", "t.dat"]
            .into_iter()
            .chain(args)
            .collect();
        fails_with(&dir, &full, needle);
    }
    disguise(&dir)
        .args(["itemsets", "--transactions", "missing.dat", "--size", "2"])
        .args(["--epsilon", "1", "--delta", "1e-6"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.dat"));
}

#[test]
fn max_candidates_bounds_the_counting_and_raises_the_limit() {
    // fimi(): 1500·C(3, 2) + 1200 + 60 = 5760 pairs to enumerate.
    let dir = dir_with("max_candidates", &[("t.dat", &fimi())]);
    let base = words("itemsets --transactions t.dat --size 2 --epsilon 1 --delta 1e-6");
    let mut refused = base.to_vec();
    refused.extend(["--max-candidates", "5759"]);
    fails_with(&dir, &refused, "would enumerate 5760 subsets");
    fails_with(&dir, &refused, "--max-candidates");
    disguise(&dir)
        .args(base)
        .args(["--max-candidates", "5760", "--seed", "1"])
        .assert()
        .success();
}

#[test]
fn a_byte_order_mark_is_not_an_item() {
    // The BOM used to become part of the first item ("\u{feff}2"), splitting its counts.
    let bom = format!("\u{feff}{}", fimi());
    let items = "\u{feff}1\n2\n3\n4\n5\n9\n";
    let dir = dir_with(
        "bom",
        &[
            ("plain.dat", &fimi()),
            ("bom.dat", &bom),
            ("items.txt", items),
        ],
    );
    let run = |file: &str, extra: &[&str]| {
        let out = disguise(&dir)
            .args(["itemsets", "--transactions", file])
            .args(words("--size 1 --top 3 --epsilon 2 --delta 1e-6 --seed 4"))
            .args(["--format", "json", "--diagnostics"])
            .args(extra)
            .stdout_ok();
        json(&out)
    };
    let (plain, with_bom) = (run("plain.dat", &[]), run("bom.dat", &[]));
    assert_eq!(plain["not_private"]["occurring"], 6, "{plain}");
    assert_eq!(with_bom["not_private"]["occurring"], 6, "{with_bom}");
    assert_eq!(plain["picks"], with_bom["picks"]);
    let listed = run("bom.dat", &["--items", "items.txt"]);
    assert_eq!(listed["universe_items"], 6, "{listed}");
    assert_eq!(listed["not_private"]["dropped_items"], 0, "{listed}");
}

#[test]
fn sizes_that_set_the_work_are_bounded_in_one_line() {
    let dir = dir_with("bounds", &[("t.dat", &fimi())]);
    let base = words("itemsets --transactions t.dat --size 2 --epsilon 1 --delta 1e-6");
    for (flag, value) in [
        ("--top", "1000000000000"),
        ("--max-margin", "1000000000000"),
    ] {
        let mut args = base.to_vec();
        args.extend([flag, value]);
        fails_with(&dir, &args, flag);
    }
    // Not UTF-8: file, line and byte column.
    std::fs::write(dir.join("bad.dat"), b"1 2\n3 \xff4\n").unwrap();
    let mut args = base.to_vec();
    args[2] = "bad.dat";
    fails_with(&dir, &args, "bad.dat:2:3: not valid UTF-8");
}

/// The names under which `--diagnostics` shows exact values (the keys of its `not_private`
/// section whose values are not containers, and the section's own): none may be in a release.
fn diagnostic_keys(with_diagnostics: &serde_json::Value) -> Vec<String> {
    fn leaves(v: &serde_json::Value, keys: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    if !(v.is_object() || v.is_array()) {
                        keys.push(k.clone());
                    }
                    leaves(v, keys);
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| leaves(v, keys)),
            _ => {}
        }
    }
    let mut keys = vec!["not_private".to_string()];
    leaves(&with_diagnostics["not_private"], &mut keys);
    keys
}

#[test]
fn the_default_output_is_the_release_and_the_exact_counts_come_with_diagnostics() {
    // A long transaction (cut to 4 items) and an item outside the list (dropped).
    let mut t = fimi();
    t.push_str(
        "1 2 3 4 5 6 7
",
    );
    t.push_str(
        "1 2 77
",
    );
    let items = (1..=9).map(|i| format!("{i}\n")).collect::<String>();
    let dir = dir_with("disclosure", &[("t.dat", &t), ("items.txt", &items)]);
    let base = words(
        "itemsets --transactions t.dat --size 2 --top 3 --epsilon 4 --delta 1e-6 --seed 2 \
         --max-length 4",
    );
    for list in [&[][..], &["--items", "items.txt"][..]] {
        let run = |extra: &[&str]| {
            disguise(&dir)
                .args(&base)
                .args(list)
                .args(extra)
                .stdout_ok()
        };
        // JSON: public options and the release only — no name the diagnostics show values
        // under (the exact counts, the occurrences, what was cut or dropped).
        let plain = json(&run(&["--format", "json"]));
        let both = json(&run(&["--format", "json", "--diagnostics"]));
        let keys = diagnostic_keys(&both);
        for expected in ["true_count", "occurs", "truncated", "dropped_items"] {
            assert!(keys.iter().any(|k| k == expected), "{list:?}: {keys:?}");
        }
        let text = plain.to_string();
        for key in &keys {
            assert!(
                !text.contains(&format!("\"{key}\"")),
                "{list:?}: {key} in {plain}"
            );
        }
        for p in plain["picks"].as_array().unwrap() {
            assert_eq!(p["outcome"], "itemset", "{list:?}: {p}");
        }
        // The table: no exact count, no occurrence, no diagnostics section.
        let table = String::from_utf8(run(&[])).unwrap();
        for needle in [
            "true",
            "does not occur",
            "NOT PRIVATE",
            "not private —",
            "distinct",
        ] {
            assert!(!table.contains(needle), "{list:?}: {needle} in {table}");
        }
        // With --diagnostics: the same release, and the exact values under not_private.
        assert_eq!(both["picks"], plain["picks"], "{list:?}");
        let np = &both["not_private"];
        assert_eq!(np["truncated"], 1, "{list:?}: {np}");
        assert_eq!(
            np["dropped_items"],
            if list.is_empty() { 0 } else { 1 },
            "{np}"
        );
        let picks = np["picks"].as_array().unwrap();
        assert_eq!(picks.len(), 3, "{np}");
        for p in picks {
            assert!(p["true_count"].as_u64().unwrap() >= 1200, "{np}");
            assert_eq!(p["occurs"], true, "{np}");
        }
        let table = String::from_utf8(run(&["--diagnostics"])).unwrap();
        let (release, section) = table.split_once("\n\nnot private").unwrap();
        assert!(!release.contains("true_count"), "{table}");
        assert!(section.contains("true_count: 1"), "{table}");
        assert!(section.contains("occurring: "), "{table}");
    }
}

#[test]
fn inputs_and_the_item_list_are_checked_before_the_ledger_is_charged() {
    let dir = dir_with(
        "ledger_checks",
        &[("t.dat", &fimi()), ("items.txt", "1 2 3\n")],
    );
    disguise(&dir)
        .args(["ledger", "init", "b.ledger"])
        .assert()
        .success();
    disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --default --epsilon 100 --delta 1e-3",
        ))
        .assert()
        .success();
    let base = "itemsets --epsilon 1 --delta 1e-6 --ledger b.ledger --dataset t -q";
    // A misspelt file, and an item list too short for the size: one line, exit 2.
    fails_with(
        &dir,
        &[words(base), words("--size 2 --transactions t.dta")].concat(),
        "t.dta",
    );
    fails_with(
        &dir,
        &[
            words(base),
            words("--size 4 --transactions t.dat --items items.txt"),
        ]
        .concat(),
        "none exist",
    );
    let show = |dir: &std::path::Path| {
        json(
            &disguise(dir)
                .args(words("ledger show --ledger b.ledger --format json"))
                .stdout_ok(),
        )
    };
    assert_eq!(show(&dir)["releases"].as_array().unwrap().len(), 0);
    // The same run on the file it meant is charged once.
    disguise(&dir)
        .args(words(base))
        .args(words("--size 2 --transactions t.dat --format json"))
        .assert()
        .success();
    assert_eq!(show(&dir)["releases"].as_array().unwrap().len(), 1);
}

/// A CSV file's columns are checked from its header alone, before the ledger charges:
/// a misspelt `--id-column` is refused with exit 2 and nothing is recorded.
#[test]
fn a_missing_csv_column_is_refused_before_anything_is_charged() {
    let dir = dir_with("csv-columns", &[("baskets.csv", &long_csv())]);
    common::init_ledger(&dir);
    fails_with(
        &dir,
        &words(
            "itemsets --transactions baskets.csv --id-column basket --item-column product \
             --size 2 --top 1 --epsilon 1 --delta 1e-6 --ledger b.ledger --dataset d",
        ),
        "no column 'basket'",
    );
    assert!(common::ledger_releases(&dir).is_empty());
}
