//! Integration tests of `disguise cover`: maximum coverage over sets or a friendship graph.

use crate::common;

use common::{
    StdoutOk, dir_with, disguise, fails_with, init_ledger, json, ledger_releases, one_line_error,
    words,
};

/// A friendship graph of 200 people: u0 has 80 friends, u1 60, u2 40 (disjoint), and a
/// sparse background of 150 other edges among the rest; the candidate list names everyone.
fn graph() -> (String, String) {
    let mut edges = String::from("# friendships\n");
    let mut next = 3;
    for (hub, friends) in [(0, 80), (1, 60), (2, 40)] {
        for _ in 0..friends {
            edges.push_str(&format!("u{hub} u{next}\n"));
            next = 3 + (next - 2) % 197;
        }
    }
    for i in 0..150 {
        let (a, b) = (3 + (i * 7) % 197, 3 + (i * 13 + 5) % 197);
        if a != b {
            edges.push_str(&format!("u{a},u{b}\n"));
        }
    }
    let users: Vec<String> = (0..200).map(|i| format!("u{i}")).collect();
    (edges, users.join(" "))
}

#[test]
fn a_friendship_graph_from_the_command_line() {
    let (edges, users) = graph();
    let dir = dir_with("graph", &[("friends.txt", &edges), ("users.txt", &users)]);
    let out = disguise(&dir)
        .args(words(
            "cover --edges friends.txt --candidates users.txt --k 3",
        ))
        .args(words("--epsilon 30 --seed 4 --format json"))
        .stdout_ok();
    let doc = json(&out);
    assert_eq!(doc["input"], "edges");
    assert_eq!(doc["records"], 200);
    // At ε = 30 the three hubs win (their gains lead by ≥ 20 people, λ = 1).
    let mut names: Vec<String> = doc["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    names.sort();
    assert_eq!(names, ["u0", "u1", "u2"], "{doc}");
    // Replacing one friendship changes up to four friend lists: the guarantee is stated
    // per edge, group privacy of size 4, four times the friend lists' (ε₀ per round is the
    // friend lists' split of --epsilon 30).
    let g = doc["guarantee"]["epsilon"].as_f64().unwrap();
    assert_eq!(g, 120.0, "{doc}");
    assert_eq!(doc["per_round_epsilon"], 10.0, "{doc}");
    assert_eq!(doc["unit"], "edge", "{doc}");
    assert!(
        doc["privacy_unit"]
            .as_str()
            .unwrap()
            .contains("four friend lists"),
        "{doc}"
    );
    // What was read and left out is a diagnostic.
    assert!(
        doc.get("dropped").is_none() && doc.get("values").is_none(),
        "{doc}"
    );
    // The table says the same in words.
    let table = disguise(&dir)
        .args(words(
            "cover --edges friends.txt --candidates users.txt --k 3",
        ))
        .args(words("--epsilon 1 --delta 1e-6 --seed 4"))
        .stdout_ok();
    let table = String::from_utf8(table).unwrap();
    assert!(
        table.contains("privacy unit: one friendship")
            && table.contains("group privacy of size 4")
            && table.contains("neighbouring graphs differ in one edge, replaced"),
        "{table}"
    );
    // (1, 10⁻⁶) for the friend lists is (4, 4e³·10⁻⁶) for an edge.
    assert!(
        table.contains("guarantee: (4, 8.035e-5)-differentially private"),
        "{table}"
    );
}

#[test]
fn sets_one_person_per_line_with_names_outside_the_list_counted() {
    // 50 people covered by a, 30 by b, 10 by c; "x" is not a candidate.
    let mut sets = String::new();
    for i in 0..90 {
        let item = if i < 50 {
            "a"
        } else if i < 80 {
            "b"
        } else {
            "c"
        };
        sets.push_str(&format!("{item} x\n"));
    }
    sets.push('\n'); // a person nobody covers
    let dir = dir_with("sets", &[("s.dat", &sets), ("c.txt", "a b c d")]);
    let run = |extra: &[&str]| {
        let out = disguise(&dir)
            .args(words(
                "cover --sets s.dat --candidates c.txt --k 2 --epsilon 20 --seed 1",
            ))
            .args(words("--format json"))
            .args(extra)
            .stdout_ok();
        json(&out)
    };
    let doc = run(&[]);
    // The number of people (lines) is public; what was left out is counted on the data.
    assert_eq!(doc["records"], 91, "{doc}");
    assert_eq!(doc["names"], serde_json::json!(["a", "b"]), "{doc}");
    assert_eq!(doc["unit"], "record", "{doc}");
    for key in ["dropped", "values", "utility", "not_private"] {
        assert!(doc.get(key).is_none(), "{key} in {doc}");
    }
    assert!(doc.get("edge_guarantee").is_none());
    let shown = run(&["--diagnostics"]);
    assert_eq!(shown["names"], doc["names"], "{shown}");
    let exact = &shown["not_private"];
    assert_eq!(exact["dropped"], 90, "{shown}");
    assert_eq!(exact["values"], serde_json::json!([50.0, 80.0]), "{shown}");
}

#[test]
fn bad_input_is_one_line() {
    let dir = dir_with(
        "errors",
        &[
            ("e.txt", "a b\nb c d\n"),
            ("ok.txt", "a b\nb c\n"),
            ("c.txt", "a b c"),
            ("dup.txt", "a b a"),
            ("none.txt", "# nothing\n"),
        ],
    );
    let base = "cover --candidates c.txt --epsilon 1 --k 1";
    let with = |extra: &str| {
        words(&format!("{base} {extra}"))
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let run = |extra: &str, needle: &str| {
        let args = with(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        fails_with(&dir, &args, needle);
    };
    run("--edges e.txt", "e.txt:2: an edge is two node names, got 3");
    run("--edges none.txt", "none.txt: no edges");
    run("--edges missing.txt", "missing.txt");
    let ok_edges = "cover --edges ok.txt --candidates c.txt --epsilon 1 --k 4";
    fails_with(
        &dir,
        &words(ok_edges),
        "invalid --k: 4 is larger than the number of candidates (3)",
    );
    fails_with(
        &dir,
        &words("cover --edges e.txt --candidates dup.txt --epsilon 1 --k 1"),
        "twice",
    );
    fails_with(&dir, &words(base), "--sets");
    fails_with(
        &dir,
        &words("cover --sets e.txt --edges e.txt --candidates c.txt --k 1 --epsilon 1"),
        "--edges",
    );
    run(
        "--edges e.txt --algorithm continuous-greedy",
        "continuous-greedy",
    );
}

#[test]
fn a_private_estimate_of_the_coverage_is_in_the_guarantee_and_the_ledger() {
    let (edges, users) = graph();
    let dir = dir_with(
        "estimate",
        &[("friends.txt", &edges), ("users.txt", &users)],
    );
    let base = "cover --edges friends.txt --candidates users.txt --k 3 --epsilon 1 --delta 1e-6";
    let out = disguise(&dir)
        .args(words(base))
        .args(words("--estimate-utility 0.5 --seed 3 --format json"))
        .stdout_ok();
    let doc = json(&out);
    let e = &doc["utility_estimate"];
    // Replacing one friendship moves four friend lists, so the share covered by 4/200,
    // and the estimate's ε = 0.5 is for the edge, as the picks' (4, 4e³·1e-6) is.
    assert_eq!(e["sensitivity"], 0.02, "{doc}");
    assert_eq!(e["epsilon"], 0.5, "{doc}");
    assert!(
        (e["noise_scale"].as_f64().unwrap() - 0.04).abs() < 1e-9,
        "{doc}"
    );
    let (low, estimate, high) = (
        e["low"].as_f64().unwrap(),
        e["estimate"].as_f64().unwrap(),
        e["high"].as_f64().unwrap(),
    );
    assert!(
        0.0 <= low && low <= estimate && estimate <= high && high <= 1.0,
        "{doc}"
    );
    // The 95 % interval is ± b·ln 20 wide (less where the range clips it).
    assert!(high - low <= 2.0 * 0.04 * 20f64.ln() + 1e-6, "{doc}");
    let picks = doc["selection_guarantee"]["epsilon"].as_f64().unwrap();
    assert_eq!(picks, 4.0, "{doc}");
    assert_eq!(doc["guarantee"]["epsilon"], 4.5, "{doc}");
    assert_eq!(doc["guarantee"]["rule"], "basic", "{doc}");
    assert_eq!(
        doc["guarantee"]["delta"], doc["selection_guarantee"]["delta"],
        "{doc}"
    );
    // The table prints the estimate and the sum.
    let table = disguise(&dir)
        .args(words(base))
        .args(words("--estimate-utility 0.5 --seed 3"))
        .stdout_ok();
    let table = String::from_utf8(table).unwrap();
    assert!(
        table.contains("utility estimate (private, Laplace, ε = 0.5): ")
            && table.contains("for the picks and the utility estimate together")
            && table.contains("and ε = 0.5 for the utility estimate"),
        "{table}"
    );
    // A ledger charges the picks and the estimate: 4.5 of the edge's 5.
    disguise(&dir)
        .args(words("ledger init l.db"))
        .assert()
        .success();
    disguise(&dir)
        .args(words(
            "ledger limit --ledger l.db --dataset g --epsilon 5 --delta 1e-4",
        ))
        .assert()
        .success();
    let charged = format!("{base} --estimate-utility 0.5 --ledger l.db --dataset g -q");
    disguise(&dir).args(words(&charged)).stdout_ok();
    let show = json(
        &disguise(&dir)
            .args(words("ledger show --ledger l.db --dataset g --format json"))
            .stdout_ok(),
    );
    let spent = show.to_string();
    assert!(spent.contains("\"epsilon\":4.5"), "{spent}");
    // A second release would exceed the limit: refused with exit code 3.
    let refused = disguise(&dir).args(words(&charged)).output().unwrap();
    assert_eq!(refused.status.code(), Some(3));
}

#[test]
fn an_estimate_is_refused_where_it_cannot_be_made() {
    let (edges, users) = graph();
    let dir = dir_with(
        "no-estimate",
        &[("friends.txt", &edges), ("users.txt", &users)],
    );
    let base = "cover --edges friends.txt --candidates users.txt --k 3";
    for (extra, needle) in [
        (
            "--epsilon 1 --estimate-utility 0",
            "invalid --estimate-utility: epsilon must be",
        ),
        (
            "--epsilon 1 --estimate-utility 0.1 --trials 3",
            "drop --trials",
        ),
        (
            "--epsilon 1 --estimate-utility 0.1 --format csv",
            "use --format table or json",
        ),
        (
            "--mechanism max --diagnostics --estimate-utility 0.1",
            "would protect nothing",
        ),
    ] {
        let args = format!("{base} {extra}");
        fails_with(&dir, &words(&args), needle);
    }
}

#[test]
fn an_estimate_over_workers_is_the_one_process_estimate() {
    let (edges, users) = graph();
    let dir = dir_with(
        "estimate-workers",
        &[("friends.txt", &edges), ("users.txt", &users)],
    );
    let run = |extra: &str| {
        disguise(&dir)
            .args(words(
                "cover --edges friends.txt --candidates users.txt --k 3 --epsilon 1",
            ))
            .args(words("--estimate-utility 0.5 --seed 9 --format json"))
            .args(words(extra))
            .stdout_ok()
    };
    let one = run("");
    assert!(json(&one)["utility_estimate"]["estimate"].is_f64());
    assert_eq!(one, run("--workers 2"));
}

#[test]
fn max_without_diagnostics_is_refused_naming_diagnostics() {
    let (edges, users) = graph();
    let dir = dir_with(
        "max_refused",
        &[("friends.txt", &edges), ("users.txt", &users)],
    );
    for input in ["--edges friends.txt", "--sets friends.txt"] {
        let args = format!("cover {input} --candidates users.txt --k 3 --mechanism max");
        let err = one_line_error(&dir, &words(&args), "--diagnostics");
        assert!(err.contains("--mechanism max"), "{err}");
    }
    // With it, the non-private greedy runs, as a diagnostic.
    let out = disguise(&dir)
        .args(words(
            "cover --edges friends.txt --candidates users.txt --k 3 --mechanism max",
        ))
        .args(words("--diagnostics --format json"))
        .stdout_ok();
    let doc = json(&out);
    assert_eq!(doc["names"], serde_json::json!(["u0", "u1", "u2"]), "{doc}");
    assert!(doc["guarantee"].is_null(), "{doc}");
    assert_eq!(
        doc["not_private"]["values"],
        serde_json::json!([80.0, 140.0, 180.0]),
        "{doc}"
    );
}

#[test]
fn a_misspelt_file_is_refused_before_anything_is_charged() {
    let (edges, users) = graph();
    let dir = dir_with(
        "misspelt",
        &[("friends.txt", &edges), ("users.txt", &users)],
    );
    init_ledger(&dir);
    for input in [
        "--edges friend.txt --candidates users.txt",
        "--sets friend.txt --candidates users.txt",
        "--edges friends.txt --candidates user.txt",
    ] {
        let args =
            format!("cover {input} --k 3 --epsilon 1 --ledger b.ledger --dataset g --format json");
        let missing = if input.contains("friend.txt") {
            "friend.txt"
        } else {
            "user.txt"
        };
        let err = one_line_error(&dir, &words(&args), missing);
        assert!(!err.contains("charged"), "{err}");
    }
    assert_eq!(ledger_releases(&dir), Vec::<serde_json::Value>::new());
}

#[test]
fn a_friendship_graph_is_charged_four_times_per_edge_in_the_ledger() {
    let (edges, users) = graph();
    let dir = dir_with(
        "ledger_edge",
        &[("friends.txt", &edges), ("users.txt", &users)],
    );
    init_ledger(&dir);
    let out = disguise(&dir)
        .args(words(
            "cover --edges friends.txt --candidates users.txt --k 3 --epsilon 0.5 -q",
        ))
        .args(words("--ledger b.ledger --dataset g --format json"))
        .stdout_ok();
    let doc = json(&out);
    assert_eq!(doc["guarantee"]["epsilon"], 2.0, "{doc}");
    let releases = ledger_releases(&dir);
    assert_eq!(releases.len(), 1, "{releases:?}");
    let release = &releases[0];
    assert_eq!(release["unit"], "edge", "{release}");
    assert_eq!(release["epsilon"], 2.0, "{release}");
    // The data set's budget is an edge's: its overview says so.
    let table = disguise(&dir)
        .args(words("ledger show --ledger b.ledger"))
        .stdout_ok();
    let table = String::from_utf8(table).unwrap();
    assert!(table.contains("data set g (edge-level)"), "{table}");
    assert!(table.contains("spent ε = 2,"), "{table}");
}
