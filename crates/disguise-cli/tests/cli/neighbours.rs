//! The neighbour harness: what a release prints is a function of the public inputs and the
//! released values only.
//!
//! Every releasing command runs with one seed on pairs of neighbouring inputs under its
//! privacy unit — one record replaced, for graphs one line of the edge list — including the
//! adversarial shapes that stay valid input (a duplicate record, an out-of-bounds value that
//! is clamped, a self-loop or a record outside the candidates that is left out, a level or an
//! item seen once). Whenever the values the two runs released coincide (the picks, the
//! chosen attributes), their whole default output must be byte for byte the same in every
//! format: stdout, stderr, the exit code, the header of any file written, and — with a
//! budget ledger — the same again. Values released by a mechanism that differ between the
//! runs by nature (a noisy estimate, a fitted loss) are blanked in both before comparing,
//! and everything else must still agree. A count, a warning or a number of the private data
//! that reaches the default output makes the pair differ, and the test names the command,
//! the shape and the format.
//!
//! Each case also requires that most of its pairs coincide, so that it compares something:
//! large budgets make the mechanisms' choices stable under one replaced record.
//!
//! `DISGUISE_HARNESS_BIN=path/to/disguise` runs the harness against another build of the
//! binary (e.g. an older commit, to see what it catches there).

use crate::common::{dir_with, disguise};
use serde_json::Value;
use std::path::Path;

/// What one run shows by default.
#[derive(Debug, PartialEq, Eq)]
struct Shown {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// The first line (the header) of each file the command wrote.
    written: Vec<String>,
}

/// One command's harness: its arguments (the private file is `data.*`, public files beside
/// it), what it releases, and what released values it carries that differ by nature.
#[derive(Clone)]
struct Case {
    /// A name for messages.
    name: &'static str,
    /// The command line, without `--format`; the private file is named `data`.
    args: Vec<String>,
    /// Public files, the same for both neighbours.
    public: Vec<(&'static str, String)>,
    /// Files the command writes (their header lines are compared).
    writes: &'static [&'static str],
    /// The formats to compare (`--format F`).
    formats: &'static [&'static str],
    /// The released values of a JSON report: when they coincide, everything else must.
    released: fn(&Value) -> Value,
    /// JSON keys (at any depth) of released values that differ by nature, blanked.
    masked_keys: &'static [&'static str],
    /// Text lines holding such values (any line containing one of these), their numbers
    /// blanked.
    masked_lines: &'static [&'static str],
}

/// The released picks of a selection report (one run or many trials).
fn picks(report: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for key in ["selected", "types", "names", "trials"] {
        if let Some(v) = report.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    Value::Object(out)
}

/// The binary the harness runs.
fn binary(dir: &Path) -> assert_cmd::Command {
    match std::env::var_os("DISGUISE_HARNESS_BIN") {
        Some(bin) => {
            let mut cmd = assert_cmd::Command::new(bin);
            cmd.current_dir(dir);
            cmd
        }
        None => disguise(dir),
    }
}

impl Case {
    /// A selection command (`line`, without `--format`): its picks are released, a utility
    /// estimate is blanked; compared in every format.
    fn selection(name: &'static str, line: &str) -> Self {
        Case {
            name,
            args: args(line),
            public: Vec::new(),
            writes: &[],
            formats: &["json", "table", "csv"],
            released: picks,
            masked_keys: &["estimate", "low", "high"],
            masked_lines: &["utility estimate"],
        }
    }

    /// The same with a public file `name` holding `content`.
    fn with(mut self, name: &'static str, content: &str) -> Self {
        self.public.push((name, content.to_string()));
        self
    }

    /// Runs the case on `data` in `format`, in a folder of its own (`tag` names it), with a
    /// fresh budget ledger when `ledger` is set.
    fn run(&self, tag: &str, data: &str, format: &str, ledger: bool) -> Shown {
        let mut files: Vec<(&str, &str)> =
            self.public.iter().map(|(n, c)| (*n, c.as_str())).collect();
        files.push(("data", data));
        let dir = dir_with(&format!("{}-{tag}-{format}-{ledger}", self.name), &files);
        let mut args: Vec<String> = self.args.clone();
        args.extend(["--format".into(), format.into()]);
        if ledger {
            binary(&dir)
                .args([
                    "ledger",
                    "init",
                    "budget.ledger",
                    "--default-limit",
                    "700,0.5",
                ])
                .assert()
                .success();
            args.extend(["--ledger", "budget.ledger", "--dataset", "people"].map(String::from));
        }
        let out = binary(&dir).args(&args).output().unwrap();
        let written = self
            .writes
            .iter()
            .map(|name| {
                std::fs::read_to_string(dir.join(name))
                    .map(|text| text.lines().next().unwrap_or("").to_string())
                    .unwrap_or_else(|e| format!("(not written: {})", e.kind()))
            })
            .collect();
        Shown {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            written,
        }
    }

    /// The output with the values that differ by nature blanked.
    fn masked(&self, mut shown: Shown, format: &str) -> Shown {
        if format == "json" {
            if let Ok(mut v) = serde_json::from_str::<Value>(&shown.stdout) {
                blank_keys(&mut v, self.masked_keys);
                shown.stdout = serde_json::to_string_pretty(&v).unwrap();
            }
        } else {
            shown.stdout = blank_lines(&shown.stdout, self.masked_lines);
        }
        shown.stderr = blank_lines(&shown.stderr, self.masked_lines);
        shown
    }

    /// Checks every pair: where the released values coincide, the default outputs agree in
    /// every format (and under a ledger). At least `min_share` of the pairs must coincide.
    fn check(&self, pairs: &[(&str, String, String)]) {
        let mut compared = 0;
        for (shape, d, d2) in pairs {
            let (a, b) = (
                self.run("a", d, "json", false),
                self.run("b", d2, "json", false),
            );
            assert_eq!(a.code, Some(0), "{}: {shape}: {}", self.name, a.stderr);
            let released = |s: &Shown| {
                serde_json::from_str::<Value>(&s.stdout)
                    .map(|v| (self.released)(&v))
                    .unwrap_or(Value::Null)
            };
            if released(&a) != released(&b) || b.code != a.code {
                continue;
            }
            compared += 1;
            for &format in self.formats {
                for ledger in [false, true] {
                    if ledger && format != "json" {
                        continue;
                    }
                    let a = self.masked(self.run("a", d, format, ledger), format);
                    let b = self.masked(self.run("b", d2, format, ledger), format);
                    assert_eq!(
                        a,
                        b,
                        "{}: the neighbours differ by {shape}; their {format} output{} differs \
                         although the released values coincide",
                        self.name,
                        if ledger { " under a ledger" } else { "" }
                    );
                }
            }
        }
        assert!(
            compared * 2 >= pairs.len(),
            "{}: only {compared} of {} pairs released the same values: the harness compared \
             too little (raise ε)",
            self.name,
            pairs.len()
        );
    }
}

/// Removes `keys` wherever they occur in `v`.
fn blank_keys(v: &mut Value, keys: &[&str]) {
    match v {
        Value::Object(map) => {
            for key in keys {
                if map.contains_key(*key) {
                    map.insert((*key).into(), Value::String("(masked)".into()));
                }
            }
            map.values_mut().for_each(|x| blank_keys(x, keys));
        }
        Value::Array(items) => items.iter_mut().for_each(|x| blank_keys(x, keys)),
        _ => {}
    }
}

/// `text` with every number blanked in the lines that contain one of `needles`.
fn blank_lines(text: &str, needles: &[&str]) -> String {
    text.lines()
        .map(|line| {
            if needles.iter().any(|n| line.contains(n)) {
                let mut out = String::new();
                let mut in_number = false;
                for c in line.chars() {
                    let digit = c.is_ascii_digit() || (in_number && (c == '.' || c == ','));
                    if digit {
                        if !in_number {
                            out.push('#');
                        }
                        in_number = true;
                    } else {
                        in_number = false;
                        out.push(c);
                    }
                }
                out
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `data` with line `i` (0-based, counting the header if any) replaced by `line`.
fn replaced(data: &str, i: usize, line: &str) -> String {
    let mut lines: Vec<&str> = data.lines().collect();
    lines[i] = line;
    lines.join("\n") + "\n"
}

/// Neighbouring pairs of `data`: for each `(shape, line, with)`, the data set with line
/// `line` replaced by `with`, against `data` itself.
fn pairs(
    data: &str,
    shapes: &[(&'static str, usize, &str)],
) -> Vec<(&'static str, String, String)> {
    shapes
        .iter()
        .map(|&(shape, i, with)| (shape, data.to_string(), replaced(data, i, with)))
        .collect()
}

fn args(line: &str) -> Vec<String> {
    line.split_whitespace().map(String::from).collect()
}

/// Points in three clusters around three of four candidates, with a header.
fn points() -> String {
    let mut out = String::from("x,y\n");
    for i in 0..60 {
        let (cx, cy) = [(0.0, 0.0), (5.0, 5.0), (9.0, 1.0)][i % 3];
        let d = (i as f64) * 0.013;
        out.push_str(&format!("{:.3},{:.3}\n", cx + d, cy - d));
    }
    out
}

const CANDIDATES: &str = "name,x,y\nsouth,0,0\nnorth,5,5\neast,9,1\nfar,20,20\n";

#[test]
fn select_prints_only_its_release() {
    let case = Case::selection(
        "select",
        "select --points data --candidates candidates.csv --x x --y y --k 2 --epsilon 40 \
         --seed 3",
    )
    .with("candidates.csv", CANDIDATES);
    let data = points();
    case.check(&pairs(
        &data,
        &[
            ("a duplicate record", 1, "0.013,-0.013"),
            ("a point outside the candidates' box", 2, "500,-300"),
            ("a point on a candidate", 3, "20,20"),
            ("a point between clusters", 4, "2.5,2.5"),
        ],
    ));
}

#[test]
fn select_with_an_estimate_and_trials_prints_only_its_release() {
    // The estimate is released: noisy, it differs between the neighbours by nature, and is
    // blanked.
    let estimate = Case::selection(
        "select-estimate",
        "select --points data --candidates candidates.csv --x x --y y --k 2 --epsilon 40 \
         --estimate-utility 1 --seed 5",
    )
    .with("candidates.csv", CANDIDATES);
    let data = points();
    let shapes = [
        ("a duplicate record", 1, "0.013,-0.013"),
        ("a point outside the candidates' box", 2, "500,-300"),
    ];
    estimate.check(&pairs(&data, &shapes));
    let trials = Case::selection(
        "select-trials",
        "select --points data --candidates candidates.csv --x x --y y --k 2 --epsilon 40 \
         --trials 3 --seed 5",
    )
    .with("candidates.csv", CANDIDATES);
    trials.check(&pairs(&data, &shapes));
}

/// Sets over candidates a–d: most people covered by a, then b.
fn sets() -> String {
    let mut out = String::new();
    for i in 0..50 {
        out.push_str(["a\n", "a d\n", "a\n", "b\n", "b c\n"][i % 5]);
    }
    out
}

#[test]
fn cover_prints_only_its_release() {
    let case = Case::selection(
        "cover-sets",
        "cover --sets data --candidates candidates.txt --k 2 --epsilon 40 --seed 2",
    )
    .with("candidates.txt", "a\nb\nc\nd\n");
    let data = sets();
    case.check(&pairs(
        &data,
        &[
            ("a duplicate record", 1, "a b"),
            ("a record outside the candidates", 2, "zed"),
            ("a record partly outside the candidates", 3, "a zed yan"),
        ],
    ));
    let estimate = Case::selection(
        "cover-sets-estimate",
        "cover --sets data --candidates candidates.txt --k 2 --epsilon 40 --estimate-utility 1 \
         --seed 2",
    )
    .with("candidates.txt", "a\nb\nc\nd\n");
    estimate.check(&pairs(
        &data,
        &[("a record outside the candidates", 2, "zed")],
    ));
}

/// A graph on u0–u9: a hub u0 joined to everyone, a few more edges.
fn edges() -> String {
    let mut out = String::new();
    for v in 1..10 {
        out.push_str(&format!("u0 u{v}\n"));
    }
    for (a, b) in [(1, 2), (3, 4), (5, 6), (7, 8), (2, 9), (1, 9)] {
        out.push_str(&format!("u{a} u{b}\n"));
    }
    out
}

const VERTICES: &str = "u0 u1 u2 u3 u4 u5 u6 u7 u8 u9\n";

#[test]
fn cover_edges_prints_only_its_release() {
    let case = Case::selection(
        "cover-edges",
        "cover --edges data --candidates vertices.txt --k 2 --epsilon 40 --estimate-utility 1 \
         --seed 4",
    )
    .with("vertices.txt", VERTICES);
    case.check(&pairs(
        &edges(),
        &[
            ("a repeated edge", 10, "u0 u1"),
            ("a self-loop", 11, "u3 u3"),
            ("an edge to a vertex not in the list", 12, "u5 stranger"),
        ],
    ));
}

#[test]
fn cut_prints_only_its_release() {
    let line = "cut --edges data --vertices vertices.txt --k 1 --epsilon 40 \
                --estimate-utility 1 --seed 4";
    let case = Case::selection("cut", line).with("vertices.txt", VERTICES);
    case.check(&pairs(
        &edges(),
        &[
            ("a repeated edge", 10, "u0 u1"),
            ("a self-loop", 11, "u3 u3"),
            ("an edge to a vertex not in the list", 12, "u5 stranger"),
            ("a new edge", 13, "u3 u6"),
        ],
    ));
    // The review's pair: `a b / a b` against `a b / c d`.
    let tiny = Case::selection("cut-tiny", line).with("vertices.txt", "a b c d\n");
    tiny.check(&[("a repeated edge", "a b\na b\n".into(), "a b\nc d\n".into())]);
}

/// A table: a label that copies column `copy`, a noisy column, a numeric column in [0, 100].
fn table() -> String {
    let mut out = String::from("copy,noise,age,label\n");
    for i in 0..80 {
        let label = ["yes", "no"][i % 2];
        let copy = ["p", "q"][i % 2];
        let noise = ["r", "s", "t"][(i / 2) % 3];
        out.push_str(&format!("{copy},{noise},{},{label}\n", 20 + (i * 7) % 60));
    }
    out
}

const TABLE_SCHEMA: &str = r#"target = "label"
[[columns]]
name = "copy"
type = "categorical"
levels = ["p", "q", "z"]
[[columns]]
name = "noise"
type = "categorical"
levels = ["r", "s", "t"]
[[columns]]
name = "age"
type = "numeric"
bounds = [0, 100]
bins = 4
[[columns]]
name = "label"
type = "categorical"
levels = ["yes", "no"]
"#;

#[test]
fn features_prints_only_its_release() {
    let schema = Case::selection(
        "features-schema",
        "features --data data --schema schema.toml --k 1 --epsilon 40 --seed 6",
    )
    .with("schema.toml", TABLE_SCHEMA);
    let data = table();
    let shapes = [
        ("a duplicate record", 1, "p,r,20,yes"),
        ("an out-of-bounds value", 2, "q,s,250,no"),
        ("a level seen once", 3, "z,t,30,yes"),
    ];
    schema.check(&pairs(&data, &shapes));
    let free = Case::selection(
        "features",
        "features --data data --label label --exclude age --k 1 --epsilon 40 --seed 6",
    );
    free.check(&pairs(
        &data,
        &[
            ("a duplicate record", 1, "p,r,20,yes"),
            ("a level seen once", 3, "z,t,30,yes"),
            ("a label seen once", 4, "p,t,30,maybe"),
        ],
    ));
}

/// Typed points: morning points near two candidates, evening near the other two.
fn typed_points() -> String {
    let mut out = String::from("x,y,shift\n");
    for i in 0..60 {
        let (cx, cy, shift) = [(0.0, 0.0, "m"), (5.0, 5.0, "e"), (9.0, 1.0, "m")][i % 3];
        let d = (i as f64) * 0.011;
        out.push_str(&format!("{:.3},{:.3},{shift}\n", cx + d, cy + d));
    }
    out
}

#[test]
fn assign_and_topics_print_only_their_release() {
    let assign = Case::selection(
        "assign",
        "assign --points data --candidates candidates.csv --x x --y y --type-column shift \
         --types m,e --k 2 --epsilon 40 --delta 1e-6 --seed 8",
    )
    .with("candidates.csv", CANDIDATES);
    assign.check(&pairs(
        &typed_points(),
        &[
            ("a duplicate record", 1, "0.011,0.011,e"),
            ("a record of the other type", 2, "5.011,5.011,m"),
            ("a point far outside", 3, "300,300,e"),
        ],
    ));
    let mut reach = String::new();
    for i in 0..40 {
        reach.push_str(
            [
                "s1:news s2:sport\n",
                "s1:news\n",
                "s3:sport s1:sport\n",
                "s2:news\n",
            ][i % 4],
        );
    }
    let topics = Case::selection(
        "topics",
        "topics --reach data --candidates seeds.txt --types news,sport --k 2 --epsilon 40 \
         --delta 1e-6 --seed 8",
    )
    .with("seeds.txt", "s1 s2 s3\n");
    topics.check(&pairs(
        &reach,
        &[
            ("a duplicate record", 1, "s1:news s2:sport"),
            ("a record naming an unknown seed", 2, "s9:news"),
            ("a record naming an unknown topic", 3, "s1:weather"),
        ],
    ));
}

/// The released fields of a histogram or synth report: the attributes kept, the model's
/// structure.
fn kept(report: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for key in [
        "attributes",
        "selection_order",
        "dropped",
        "columns",
        "k",
        "tree",
        "merged",
        "edges",
    ] {
        if let Some(v) = report.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    Value::Object(out)
}

#[test]
fn histogram_and_synth_print_only_their_release() {
    let data = table();
    let shapes = [
        ("a duplicate record", 1, "p,r,20,yes"),
        ("an out-of-bounds value", 2, "q,s,250,no"),
        ("a level seen once", 3, "z,t,30,yes"),
        ("a record of another class", 4, "p,s,41,yes"),
    ];
    let histogram = Case {
        name: "histogram",
        args: args(
            "histogram --data data --schema schema.toml --epsilon 20 --seed 7 --out synthetic.csv",
        ),
        public: vec![("schema.toml", TABLE_SCHEMA.into())],
        writes: &["synthetic.csv"],
        formats: &["json", "table"],
        released: kept,
        // Released by the thresholded Laplace histogram: its noisy counts, and what the
        // report computes from them.
        masked_keys: &["support_size", "noisy_rows", "usefulness"],
        masked_lines: &["released", "would give", "expected to be"],
    };
    histogram.check(&pairs(&data, &shapes));
    let synth = Case {
        name: "synth",
        args: args(
            "synth --data data --schema schema.toml --epsilon 20 --seed 7 --out synthetic.csv",
        ),
        // The fit is measured against the noisy marginals: released, and different between
        // neighbours by nature.
        masked_keys: &["initial_loss", "final_loss", "iterations"],
        masked_lines: &["fit "],
        ..histogram.clone()
    };
    synth.check(&pairs(&data, &shapes));
    // AIM (δ > 0): its rounds, their noise and ε are released (annealing reads only the
    // model fitted to noisy counts).
    let aim = Case {
        name: "synth (AIM)",
        args: args(
            "synth --data data --schema schema.toml --epsilon 20 --delta 1e-6 --seed 7 --out \
             synthetic.csv",
        ),
        ..synth.clone()
    };
    aim.check(&pairs(&data, &shapes));
    // age without bins: cut at private quantiles, released and in the report (an integer
    // column, so that neighbours' edges often coincide at a large ε).
    let edges_schema = TABLE_SCHEMA.replace("bins = 4", "integer = true");
    for case in [histogram, synth] {
        let case = Case {
            name: if case.name == "synth" {
                "synth (private edges)"
            } else {
                "histogram (private edges)"
            },
            public: vec![("schema.toml", edges_schema.clone())],
            ..case
        };
        case.check(&pairs(&data, &shapes));
    }
}

#[test]
fn itemsets_and_hypothesis_print_only_their_release() {
    let mut tx = String::new();
    for i in 0..100 {
        tx.push_str(["a b c\n", "a b\n", "b c d\n", "a c\n", "a b d\n"][i % 5]);
    }
    let shapes = [
        ("a duplicate transaction", 1, "a b c"),
        ("an item seen once", 2, "a b zz"),
        ("a long transaction", 3, "a b c d e f g h i j k l"),
    ];
    // The released itemsets, their rounds, outcomes and margins.
    let picked = |report: &Value| {
        let mut picks = report.get("picks").cloned().unwrap_or(Value::Null);
        blank_keys(&mut picks, &["noisy_frequency"]);
        picks
    };
    let itemsets = Case {
        name: "itemsets",
        args: args(
            "itemsets --transactions data --size 2 --top 2 --epsilon 20 --delta 1e-6 --seed 1",
        ),
        public: vec![],
        writes: &[],
        formats: &["json", "table"],
        released: picked,
        masked_keys: &["noisy_frequency"],
        masked_lines: &["{"],
    };
    itemsets.check(&pairs(&tx, &shapes));
    let listed = Case {
        name: "itemsets-items",
        args: args(
            "itemsets --transactions data --items items.txt --size 2 --top 2 --epsilon 20 \
             --seed 1",
        ),
        public: vec![("items.txt", "a b c d e\n".into())],
        ..itemsets
    };
    listed.check(&pairs(
        &tx,
        &[
            ("a duplicate transaction", 1, "a b c"),
            ("an item outside the list", 2, "a b zz"),
            ("a transaction of items never seen", 3, "e"),
        ],
    ));
    let chosen = |report: &Value| {
        serde_json::json!([
            report.get("hypothesis"),
            report.get("index"),
            report.get("margin")
        ])
    };
    let hypothesis = Case {
        name: "hypothesis",
        args: args(
            "hypothesis --data data --schema schema.toml --label label --positive yes \
             --epsilon 20 --delta 1e-6 --seed 1",
        ),
        public: vec![("schema.toml", TABLE_SCHEMA.into())],
        writes: &[],
        formats: &["json", "table"],
        released: chosen,
        masked_keys: &[],
        masked_lines: &[],
    };
    hypothesis.check(&pairs(
        &table(),
        &[
            ("a duplicate record", 1, "p,r,20,yes"),
            ("an out-of-bounds value", 2, "q,s,250,no"),
            ("a level seen once", 3, "z,t,30,yes"),
        ],
    ));
}

#[test]
fn demo_on_private_data_runs_only_as_a_diagnostic() {
    let dir = dir_with("demo", &[("data", "lat,lon\n40.75,-73.99\n40.76,-73.98\n")]);
    let out = binary(&dir)
        .args(["demo", "--data", "data", "--no-map", "--seed", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--diagnostics"), "{err}");
}

#[test]
fn the_harness_catches_a_private_count_in_the_output() {
    // A negative control: the same pair compared with a released value that is in fact a
    // statistic of the data — the number of lines left out — must be caught.
    let case = Case {
        name: "control",
        args: args(
            "cover --sets data --candidates candidates.txt --k 2 --epsilon 40 --seed 2 --diagnostics",
        ),
        public: vec![("candidates.txt", "a\nb\nc\nd\n".into())],
        writes: &[],
        formats: &["json"],
        released: picks,
        masked_keys: &[],
        masked_lines: &[],
    };
    let data = sets();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        case.check(&pairs(
            &data,
            &[("a record outside the candidates", 2, "zed")],
        ));
    }))
    .expect_err("the harness missed the diagnostics printed by --diagnostics");
    let message = caught.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.contains("json output differs although the released values coincide"),
        "{message}"
    );
}
