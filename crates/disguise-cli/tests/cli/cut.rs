//! Integration tests of `disguise cut`: maximum cut of a graph whose edges are private.

use crate::common;

use common::{StdoutOk, dir_with, disguise, fails_with, json, words};

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
    let out = disguise(&dir)
        .args(words("cut --edges e.txt --vertices v.txt --k 2"))
        .args(words("--epsilon 40 --seed 3 --format json"))
        .stdout_ok();
    let doc = json(&out);
    assert_eq!(doc["objective"], "graph-cut");
    assert_eq!(doc["algorithm"], "subsample-greedy");
    assert_eq!(doc["vertices"], 122);
    assert_eq!(doc["edges"], 160);
    // The self-loop and the edge to a name not in the list.
    assert_eq!(doc["dropped"], 2);
    assert!(doc["privacy_unit"].as_str().unwrap().contains("one edge"));
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
        stdout.contains("maximum cut: 122 vertices, 160 edges"),
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
