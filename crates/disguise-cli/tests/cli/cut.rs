//! Integration tests of `disguise cut`: maximum cut of a graph whose edges are private.

use crate::common;

use common::{
    StdoutOk, dir_with, disguise, fails_after_reservation, fails_with, init_ledger, json,
    ledger_releases, one_line_error, words,
};

/// Two stars of 60 leaves each (centres a and b) and a sparse ring among the leaves; the
/// vertex list names everyone.
fn graph() -> (String, String) {
    let mut edges = String::from("# who messaged whom\n");
    for (centre, first) in [("a", 0), ("b", 60)] {
        for leaf in first..first + 60 {
            edges.push_str(&format!("{centre} v{leaf}\n"));
        }
    }
    for leaf in (0..120).step_by(3) {
        edges.push_str(&format!("v{leaf},v{}\n", (leaf + 1) % 120));
    }
    edges.push_str("a a\nv1 stranger\n");
    let mut vertices: Vec<String> = (0..120).map(|i| format!("v{i}")).collect();
    vertices.extend(["a".into(), "b".into()]);
    (edges, vertices.join("\n"))
}

#[test]
fn the_two_centres_cut_the_most_edges() {
    let (edges, vertices) = graph();
    let dir = dir_with("cut", &[("e.txt", &edges), ("v.txt", &vertices)]);
    let run = |extra: &[&str]| {
        let out = disguise(&dir)
            .args(words("cut --edges e.txt --vertices v.txt --k 2"))
            .args(words("--epsilon 40 --seed 3 --format json"))
            .args(extra)
            .stdout_ok();
        json(&out)
    };
    let doc = run(&[]);
    assert_eq!(doc["objective"], "graph-cut");
    assert_eq!(doc["algorithm"], "subsample-greedy");
    assert_eq!(doc["vertices"], 122);
    // The records are the edge list's lines (public); the distinct edges left and what was
    // left out are counted on the data: diagnostics only.
    assert_eq!(doc["records"], 162, "{doc}");
    for key in ["edges", "dropped", "values", "utility", "not_private"] {
        assert!(doc.get(key).is_none(), "{key} in {doc}");
    }
    assert!(doc["privacy_unit"].as_str().unwrap().contains("one edge"));
    assert_eq!(doc["unit"], "edge", "{doc}");
    let shown = run(&["--diagnostics"]);
    assert_eq!(shown["selected"], doc["selected"], "{shown}");
    assert_eq!(shown["not_private"]["edges"], 160, "{shown}");
    // The self-loop and the edge to a name not in the list.
    assert_eq!(shown["not_private"]["dropped"], 2, "{shown}");
    let bound = doc["usefulness"]["bound"].as_str().unwrap();
    assert!(bound.contains("Theorem 4.1, non-monotone"), "{bound}");
    // Each round is calibrated to a cut's value bound, λ = 1 (a gain may move by 2, but
    // gains at one set are values shifted by a common amount).
    assert!(bound.contains("λ = 1"), "{bound}");
    // The bound's largest value is the public number of lines read (162: 160 edges, a
    // self-loop and an edge to a stranger), not the 160 edges left, a statistic of the data.
    assert!(bound.ends_with("f is at most 162"), "{bound}");
    // The subsample-greedy sees |V|/k = 61 candidates a round; at ε = 40 whichever centre
    // it sees wins, and every pick cuts at least one star's 60 edges.
    let picks = doc["names"].as_array().unwrap();
    assert!(!picks.is_empty(), "{doc}");
    assert!(
        picks.iter().any(|p| p == "a" || p == "b"),
        "a centre is chosen: {doc}"
    );
    let g = doc["guarantee"]["epsilon"].as_f64().unwrap();
    assert!(g <= 40.0 + 1e-9, "{doc}");
}

#[test]
fn the_greedy_is_said_to_have_no_guarantee() {
    let (edges, vertices) = graph();
    let dir = dir_with("cut-greedy", &[("e.txt", &edges), ("v.txt", &vertices)]);
    let out = disguise(&dir)
        .args(words(
            "cut --edges e.txt --vertices v.txt --k 2 --algorithm greedy",
        ))
        .args(words("--epsilon 1 --seed 3"))
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.contains("note: the worst-case guarantee says nothing at these parameters (the release may still be good): the greedy has no approximation"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        stdout.contains("maximum cut: 122 vertices, 162 edge-list lines"),
        "{stdout}"
    );
    // The distinct edges (160) are a diagnostic; the guarantee names the unit.
    assert!(!stdout.contains("160"), "{stdout}");
    assert!(
        stdout.contains("(neighbouring graphs differ in one edge, replaced)"),
        "{stdout}"
    );
}

#[test]
fn bad_input_is_refused_in_one_line() {
    let (edges, vertices) = graph();
    let dir = dir_with(
        "cut-bad",
        &[
            ("e.txt", &edges),
            ("v.txt", &vertices),
            ("none.txt", "# empty\n"),
        ],
    );
    fails_with(
        &dir,
        &words("cut --edges e.txt --vertices v.txt --k 200 --epsilon 1"),
        "invalid --k: 200 is larger than the number of vertices (122)",
    );
    fails_with(
        &dir,
        &words(
            "cut --edges e.txt --vertices v.txt --k 2 --algorithm continuous-greedy --epsilon 1",
        ),
        "continuous-greedy",
    );
    fails_with(
        &dir,
        &words("cut --edges none.txt --vertices v.txt --k 2 --epsilon 1"),
        "none.txt",
    );
}

#[test]
fn the_estimates_sensitivity_is_one_over_the_lines() {
    // Two lines, the same edge twice or two edges: 2 records either way, so a line moves
    // the share of lines cut by 1/2, whatever the lines hold.
    let dir = dir_with(
        "cut-estimate",
        &[
            ("twice.txt", "a b\na b\n"),
            ("two.txt", "a b\nc d\n"),
            ("v.txt", "a b c d"),
        ],
    );
    for file in ["twice.txt", "two.txt"] {
        let out = disguise(&dir)
            .args(["cut", "--edges", file])
            .args(words(
                "--vertices v.txt --k 1 --epsilon 1 --estimate-utility 0.5",
            ))
            .args(words("--seed 1 --format json"))
            .stdout_ok();
        let doc = json(&out);
        assert_eq!(doc["records"], 2, "{file}: {doc}");
        let e = &doc["utility_estimate"];
        assert_eq!(e["sensitivity"], 0.5, "{file}: {doc}");
        assert!(
            (e["noise_scale"].as_f64().unwrap() - 1.0).abs() < 1e-9,
            "{file}: {doc}"
        );
        assert_eq!(doc["guarantee"]["epsilon"], 1.5, "{file}: {doc}");
    }
}

#[test]
fn an_edge_list_of_self_loops_and_strangers_releases() {
    // No edge is left: a valid, empty graph, whose release is the picks over zero gains.
    let dir = dir_with(
        "cut-loops",
        &[
            ("loops.txt", "a a\nb b\nc stranger\n"),
            ("v.txt", "a b c d"),
        ],
    );
    let out = disguise(&dir)
        .args(words(
            "cut --edges loops.txt --vertices v.txt --k 2 --epsilon 1",
        ))
        .args(words("--format json"))
        .stdout_ok();
    let doc = json(&out);
    assert_eq!(doc["records"], 3, "{doc}");
    assert!(doc["names"].as_array().unwrap().len() <= 2, "{doc}");
    assert_eq!(doc["guarantee"]["epsilon"], 1.0, "{doc}");
    assert!(doc.get("not_private").is_none(), "{doc}");
    let out = disguise(&dir)
        .args(words(
            "cut --edges loops.txt --vertices v.txt --k 2 --epsilon 1",
        ))
        .args(words("--format json --diagnostics"))
        .stdout_ok();
    let exact = &json(&out)["not_private"];
    assert_eq!(exact["edges"], 0, "{exact}");
    assert_eq!(exact["dropped"], 3, "{exact}");
}

#[test]
fn a_misspelt_file_is_refused_before_anything_is_charged() {
    let (edges, vertices) = graph();
    let dir = dir_with("cut-misspelt", &[("e.txt", &edges), ("v.txt", &vertices)]);
    init_ledger(&dir);
    for (files, missing) in [
        ("--edges edge.txt --vertices v.txt", "edge.txt"),
        ("--edges e.txt --vertices vertex.txt", "vertex.txt"),
    ] {
        let args = format!("cut {files} --k 2 --epsilon 1 --ledger b.ledger --dataset g");
        let err = one_line_error(&dir, &words(&args), missing);
        assert!(!err.contains("charged"), "{err}");
    }
    assert_eq!(ledger_releases(&dir), Vec::<serde_json::Value>::new());
}

#[test]
fn a_malformed_line_read_after_the_reservation_stays_charged_and_is_not_shown() {
    let dir = dir_with(
        "cut-malformed",
        &[("e.txt", "a b\nsecret-x y z\n"), ("v.txt", "a b c d")],
    );
    init_ledger(&dir);
    let args =
        words("cut --edges e.txt --vertices v.txt --k 1 --epsilon 1 --ledger b.ledger --dataset g");
    fails_after_reservation(
        &dir,
        &args,
        &["e.txt:2", "got 3"],
        "e.txt:2: an edge is two node names, got 3",
    );
    let releases = ledger_releases(&dir);
    assert_eq!(releases.len(), 2, "{releases:?}");
    assert!(releases.iter().all(|r| r["unit"] == "edge"), "{releases:?}");
}
