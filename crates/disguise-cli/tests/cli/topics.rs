//! Integration tests of `disguise topics`: k-topic influence maximization from the command line.

use crate::common;

use common::{StdoutOk, dir_with, disguise, fails_with, json, words};

/// 300 people: ann's news reaches 0–119, bob's sport reaches 100–199, cat's news every 7th;
/// pairs naming a seed or topic not in the public lists (zed, cooking) are dropped.
fn reach() -> String {
    let mut text = String::new();
    for u in 0..300 {
        let mut pairs = Vec::new();
        if u < 120 {
            pairs.push("ann:news");
        }
        if (100..200).contains(&u) {
            pairs.push("bob:sport");
        }
        if u % 7 == 0 {
            pairs.push("cat:news");
        }
        if u % 11 == 0 {
            pairs.push("zed:news");
        }
        if u % 13 == 0 {
            pairs.push("bob:cooking");
        }
        text.push_str(&pairs.join(" "));
        text.push('\n');
    }
    text
}

#[test]
fn seeds_and_topics_that_reach_the_most_people() {
    let dir = dir_with(
        "topics",
        &[("reach.txt", &reach()), ("seeds.txt", "ann bob cat dan\n")],
    );
    let run = |extra: &str| {
        let out = disguise(&dir)
            .args(words(
                "topics --reach reach.txt --candidates seeds.txt --types news,sport",
            ))
            .args(words("--k 2 --epsilon 10 --seed 1 --format json"))
            .args(words(extra))
            .stdout_ok();
        json(&out)
    };
    let doc = run("");
    assert_eq!(doc["objective"], "topic-coverage", "{doc}");
    assert_eq!(doc["records"], 300);
    assert_eq!(doc["unit"], "record");
    assert_eq!(doc["names"], serde_json::json!(["ann", "bob"]), "{doc}");
    assert_eq!(doc["types"], serde_json::json!([0, 1]));
    // What was left out and the people reached are counted on the data: diagnostics.
    for key in ["dropped", "values", "not_private"] {
        assert!(doc.get(key).is_none(), "{key} in {doc}");
    }
    let shown = run("--diagnostics");
    assert_eq!(shown["names"], doc["names"], "{shown}");
    // zed:news on 28 lines, bob:cooking on 24.
    assert_eq!(shown["not_private"]["dropped"], 28 + 24, "{shown}");
    assert_eq!(
        shown["not_private"]["values"],
        serde_json::json!([120.0, 200.0])
    );
    let bound = doc["usefulness"]["bound"].as_str().unwrap();
    assert!(bound.contains("Theorem 5.3"), "{bound}");
    assert_eq!(doc["usefulness"]["vacuous"], false);
    assert!(doc["guarantee"]["epsilon"].as_f64().unwrap() <= 10.0 + 1e-9);
    // Ad allocation: persons 100–119 count for both topics.
    let out = disguise(&dir)
        .args(words(
            "topics --reach reach.txt --candidates seeds.txt --types news,sport",
        ))
        .args(words(
            "--k 2 --per-topic --mechanism max --format json --diagnostics",
        ))
        .stdout_ok();
    let doc = json(&out);
    assert_eq!(doc["objective"], "ad-allocation", "{doc}");
    assert_eq!(
        doc["not_private"]["values"],
        serde_json::json!([120.0, 220.0]),
        "{doc}"
    );
}

#[test]
fn a_small_budget_warns_and_bad_options_are_one_line() {
    let dir = dir_with(
        "topics-bad",
        &[("reach.txt", &reach()), ("seeds.txt", "ann bob cat dan\n")],
    );
    let out = disguise(&dir)
        .args(words(
            "topics --reach reach.txt --candidates seeds.txt --types news,sport",
        ))
        .args(words("--k 2 --epsilon 0.01 --seed 1 --format csv"))
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.contains("note: the worst-case guarantee says nothing at these parameters"),
        "{stderr}"
    );
    fails_with(
        &dir,
        &words(
            "topics --reach reach.txt --candidates seeds.txt --types news,sport --k 5 --epsilon 1",
        ),
        "invalid --k: 5 is larger than the number of candidates (4)",
    );
    fails_with(
        &dir,
        &words(
            "topics --reach reach.txt --candidates seeds.txt --types news,news --k 1 --epsilon 1",
        ),
        "a label is listed twice",
    );
    fails_with(
        &dir,
        &words("topics --reach missing.txt --candidates seeds.txt --types a --k 1 --epsilon 1"),
        "missing.txt",
    );
}
