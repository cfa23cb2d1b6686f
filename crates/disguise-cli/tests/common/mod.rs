//! Helpers shared by the CLI integration tests (`mod common;` in each target's `main.rs`).
//!
//! Each test binary uses only some of them, hence the `dead_code` allowance.
#![allow(dead_code)]

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// Ports reserved for distributed runs, and patient waits: shared with the library's tests.
#[path = "../../../disguise/tests/support/cluster.rs"]
pub mod cluster;

/// A fresh (emptied) directory `<suite>-tests/<test>` under Cargo's per-test temporary area,
/// holding the given files; `<suite>` is the name of the calling file (`select`,
/// `itemsets`, …), so that modules of one test binary may reuse test names.
#[track_caller]
pub fn dir_with(test: &str, files: &[(&str, &str)]) -> PathBuf {
    let caller = Path::new(std::panic::Location::caller().file());
    let suite = caller.file_stem().unwrap().to_str().unwrap();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{suite}-tests"))
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, contents) in files {
        std::fs::write(dir.join(name), contents).unwrap();
    }
    dir
}

/// A command line written as one string, split at white space: `words("select --k 3")`.
/// (Arguments holding spaces are passed as slices instead.)
pub fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// The `disguise` binary built by Cargo, run in `dir`.
pub fn disguise(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("disguise").unwrap();
    cmd.current_dir(dir);
    cmd
}

/// A command that must succeed: its stdout (and stderr).
pub trait StdoutOk {
    /// Runs the command, asserts exit code 0 and returns stdout.
    fn stdout_ok(&mut self) -> Vec<u8>;

    /// Runs the command, asserts exit code 0 and returns stdout and stderr as text.
    fn texts_ok(&mut self) -> (String, String);
}

impl StdoutOk for Command {
    fn stdout_ok(&mut self) -> Vec<u8> {
        self.assert().success().get_output().stdout.clone()
    }

    fn texts_ok(&mut self) -> (String, String) {
        let out = self.assert().success().get_output().clone();
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    }
}

/// The `--help` text of a subcommand (it must succeed).
pub fn help(command: &str) -> String {
    let out = Command::cargo_bin("disguise")
        .unwrap()
        .args([command, "--help"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

/// Parses stdout as exactly one JSON document.
pub fn json(output: &[u8]) -> serde_json::Value {
    serde_json::from_slice(output).expect("stdout is one JSON document")
}

/// A JSON array of numbers as `f64`s (panics if `v` is not one).
pub fn floats(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

/// A JSON array of non-negative integers as `u64`s (panics if `v` is not one).
pub fn indices(v: &serde_json::Value) -> Vec<u64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

/// Runs `disguise args…` in `dir` and asserts exit code 2 and a one-line stderr that
/// contains `needle`; returns that stderr.
pub fn fails_with<S>(dir: &Path, args: &[S], needle: &str) -> String
where
    S: AsRef<std::ffi::OsStr> + std::fmt::Debug,
{
    let out = disguise(dir)
        .args(args)
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(out).unwrap();
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "{args:?}: one line: {err}"
    );
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    err
}

/// `base` (a command and its default flags, `words`-style) with `extra` appended, leaving
/// out each default flag (and its value) that `extra` gives itself: clap rejects repeats.
pub fn with_defaults<'a>(base: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut words = base.split_whitespace();
    let mut args: Vec<&str> = words.next().into_iter().collect();
    let rest: Vec<&str> = words.collect();
    for pair in rest.chunks(2) {
        if !extra.contains(&pair[0]) {
            args.extend(pair);
        }
    }
    args.extend(extra);
    args
}

/// Runs `disguise args… extra…` in `dir` and asserts exit code 2, nothing on stdout, and
/// exactly one stderr line, which starts with `error: ` and contains `expected`; returns
/// that line.
fn error_line(dir: &Path, args: &[&str], extra: &[&str], expected: &str) -> String {
    let out = disguise(dir)
        .args(args)
        .args(extra)
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(out.stdout.is_empty(), "{args:?}: stdout not empty");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert!(
        err.contains(expected),
        "{args:?}: {err:?} lacks {expected:?}"
    );
    err
}

/// Runs `disguise args…` in `dir` and asserts exit code 2, nothing on stdout, and exactly
/// one stderr line that starts with `error: ` and contains `expected`; returns that line.
pub fn one_line_error(dir: &Path, args: &[&str], expected: &str) -> String {
    error_line(dir, args, &[], expected)
}

/// The number in column `col` of a CSV row read into a map (panics naming the column).
pub fn num(row: &std::collections::HashMap<String, String>, col: &str) -> f64 {
    row[col]
        .parse()
        .unwrap_or_else(|_| panic!("column {col} is not a number: {:?}", row[col]))
}

/// A figure written twice: `<base>.png` with the PNG signature and at least `min` pixels
/// (width, height), and `<base>.svg` mentioning each of `texts`.
pub fn check_figure(dir: &Path, base: &str, texts: &[&str], min: (u32, u32)) {
    let png = std::fs::read(dir.join(format!("{base}.png"))).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{base}.png");
    let be = |i: usize| u32::from_be_bytes(png[i..i + 4].try_into().unwrap());
    assert!(
        be(16) >= min.0 && be(20) >= min.1,
        "{base}.png is {}x{}",
        be(16),
        be(20)
    );
    let svg = std::fs::read_to_string(dir.join(format!("{base}.svg"))).unwrap();
    for t in texts {
        assert!(svg.contains(t), "{base}.svg lacks {t:?}");
    }
}

/// The schema of the `histogram` fixtures: a numeric age in [0, 100], two categorical
/// attributes and the categorical target `sick` (see [`histogram_rows`]).
pub const HISTOGRAM_SCHEMA: &str = r#"
has_header = true
target = "sick"
columns = [
    { name = "age", type = "numeric", bounds = [0, 100] },
    { name = "smoker", type = "categorical", levels = ["no", "yes"] },
    { name = "region", type = "categorical", levels = ["north", "south", "east", "west"] },
    { name = "sick", type = "categorical", levels = ["no", "yes"] },
]
"#;

/// `n` rows for [`HISTOGRAM_SCHEMA`], with a header: ages 20–79, one smoker in three, the
/// four regions in turn, and sick = smoker (so the target is learnable).
pub fn histogram_rows(n: usize) -> String {
    let mut csv = String::from("age,smoker,region,sick\n");
    for i in 0..n {
        let smoker = if i % 3 == 0 { "yes" } else { "no" };
        let region = ["north", "south", "east", "west"][i % 4];
        csv.push_str(&format!("{},{smoker},{region},{smoker}\n", 20 + i % 60));
    }
    csv
}

/// Creates the budget ledger `b.ledger` in `dir`, with a default limit of ε = 100 for every
/// data set.
pub fn init_ledger(dir: &Path) {
    disguise(dir)
        .args(["ledger", "init", "b.ledger", "--default-limit", "100"])
        .assert()
        .success();
}

/// The releases recorded in `dir`'s `b.ledger` (`ledger show --format json`).
pub fn ledger_releases(dir: &Path) -> Vec<serde_json::Value> {
    let out = disguise(dir)
        .args(["ledger", "show", "--ledger", "b.ledger", "--format", "json"])
        .stdout_ok();
    let doc = json(&out);
    doc["releases"]
        .as_array()
        .unwrap_or_else(|| panic!("no releases in {doc}"))
        .clone()
}

/// Each case of a table command (`command`, without its files) refused before the ledger
/// charges anything: `(files, needle)` — the files as options, and what the one-line error
/// names — run under a fresh `b.ledger` in `dir`; and the `valid` files with an output that
/// cannot be written (`--out /proc/syn.csv`: creating a file there fails even for root,
/// where a read-only folder does not). Afterwards the ledger holds no release.
pub fn refused_before_the_charge(dir: &Path, command: &str, valid: &str, cases: &[(&str, &str)]) {
    init_ledger(dir);
    let unwritable = format!("{valid} --out /proc/syn.csv");
    let mut all: Vec<(&str, &str)> = cases.to_vec();
    if cfg!(target_os = "linux") {
        all.push((&unwritable, "/proc"));
    }
    for (files, needle) in all {
        let args: Vec<&str> = words(command).into_iter().chain(words(files)).collect();
        fails_with(dir, &args, needle);
    }
    assert_eq!(ledger_releases(dir), Vec::<serde_json::Value>::new());
}

/// Runs `disguise args…` (a release under a ledger) in `dir` twice, the second time with
/// `--diagnostics`, both expected to fail after the ledger's reservation: each time exit
/// code 2, nothing on stdout and one stderr line saying what stays charged. Without
/// `--diagnostics` the line holds none of `hidden` (what the data held); with it, it holds
/// `detail`. Returns both lines.
pub fn fails_after_reservation(
    dir: &Path,
    args: &[&str],
    hidden: &[&str],
    detail: &str,
) -> (String, String) {
    let run = |extra: &[&str]| error_line(dir, args, extra, "stays charged");
    let plain = run(&[]);
    for h in hidden {
        assert!(!plain.contains(h), "{args:?}: {plain:?} shows {h:?}");
    }
    assert!(plain.contains("shown only with --diagnostics"), "{plain}");
    let shown = run(&["--diagnostics"]);
    assert!(
        shown.contains(detail),
        "{args:?}: {shown:?} lacks {detail:?}"
    );
    (plain, shown)
}

/// Runs a release through `run` (extra arguments → its stdout and stderr) in JSON and in a
/// table, and checks that neither output names a diagnostic: without `--diagnostics`, the
/// counts of clamped values and the "not private" section stay hidden.
pub fn hides_diagnostics(run: &dyn Fn(&str) -> (String, String)) {
    for format in ["json", "table"] {
        let (stdout, stderr) = run(&format!("--format {format}"));
        for text in [&stdout, &stderr] {
            for secret in ["clamped", "clipped", "not_private", "not private —"] {
                assert!(!text.contains(secret), "{format}: {secret} in {text}");
            }
        }
    }
}

/// Runs a release through `run` (extra arguments → its stdout and stderr) whose data put
/// `count` values of `column` outside the schema's bounds, and checks that how many were
/// clamped is an exact count shown only as a diagnostic: never by default
/// ([`hides_diagnostics`]), never on stderr, and with `--diagnostics` only under
/// `not_private` in JSON and in the table's "not private" section. Returns the JSON report
/// and the table's stdout, both with `--diagnostics`.
#[track_caller]
pub fn clamped_only_as_diagnostics(
    run: &dyn Fn(&str) -> (String, String),
    column: &str,
    count: u64,
) -> (serde_json::Value, String) {
    hides_diagnostics(run);
    let (stdout, stderr) = run("--format json --diagnostics");
    let doc = json(stdout.as_bytes());
    assert_eq!(
        doc["not_private"]["clamped"],
        serde_json::json!([[column, count]]),
        "{doc}"
    );
    assert!(doc.get("clamped").is_none(), "{doc}");
    assert!(!stderr.contains("clamped"), "{stderr}");
    let (table, _) = run("--diagnostics");
    let section = table
        .split_once("\n\nnot private")
        .unwrap_or_else(|| panic!("{table}"))
        .1;
    assert!(
        section.contains("clamped") && section.contains(column),
        "{table}"
    );
    (doc, table)
}
