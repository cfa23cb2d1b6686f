//! The bad-input battery: every command, fed bad values and bad files, must fail the same
//! way — exit code 2, exactly one line on stderr starting with `error: `, no panic or
//! backtrace — and must do so promptly (a hang or a runaway allocation fails the case after
//! [`TIMEOUT`] instead of hanging the suite). Then the rules about outputs: no command
//! writes over one of its inputs, and an output is replaced whole or not at all.
//!
//! The files are small and written here; no real data is needed.

use crate::common;
use common::words;

use assert_cmd::Command;
use common::{HISTOGRAM_SCHEMA, dir_with, histogram_rows};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

/// How long one case may take: generous for a debug build on a loaded 2-core machine, far
/// below what a hang or an allocation of terabytes would take to notice.
const TIMEOUT: Duration = Duration::from_secs(60);

/// Planar points and four candidates on a 10 × 10 square.
const POINTS: &str = "x,y,shift\n0,0,a\n0,0,b\n10,10,a\n10,0,b\n5,5,a\n";
const CANDIDATES: &str = "name,x,y\nA,0,0\nB,10,0\nC,0,10\nD,10,10\n";
/// Geographic points and candidates for `demo` (columns lat, lon).
const LATLON: &str = "lat,lon\n40.75,-73.99\n40.76,-73.98\n40.70,-74.01\n";
const LATLON_CANDIDATES: &str = "name,lat,lon\nA,40.75,-73.99\nB,40.70,-74.00\n";
/// A feature-selection table: y depends on a.
const TABLE: &str = "y,a,b\n0,0,1\n1,1,0\n0,0,0\n1,1,1\n0,0,1\n1,1,0\n";
const SCORES: &str = "1\n5\n2\n";
/// FIMI transactions.
const TRANSACTIONS: &str = "1 2 3\n1 2\n2 3\n1 2 3\n";
/// Hypothesis data: y = [a > 4].
const STUMPS: &str = "a,y\n1,0\n2,0\n3,0\n5,1\n6,1\n7,1\n";

/// The folder with every file the cases use, fresh for `test`.
fn fixtures(test: &str) -> PathBuf {
    let dir = dir_with(
        test,
        &[
            ("p.csv", POINTS),
            ("c.csv", CANDIDATES),
            ("c1.csv", "name,x,y\nA,0,0\n"),
            ("same.csv", "name,x,y\nA,1,1\nB,1,1\n"),
            ("ll.csv", LATLON),
            ("llc.csv", LATLON_CANDIDATES),
            ("llc1.csv", "name,lat,lon\nA,40.75,-73.99\n"),
            ("llheader.csv", "lat,lon\n"),
            ("llbad.csv", "lat,lon\n40.7,-73.9\n40.8,zz\n"),
            ("lat95.csv", "lat,lon\n40.7,-73.9\n95,-73.9\n"),
            ("lon200.csv", "lat,lon\n40.7,-73.9\n40.7,-200\n"),
            ("tab.csv", TABLE),
            ("scores.txt", SCORES),
            ("t.dat", TRANSACTIONS),
            ("h.csv", STUMPS),
            ("schema.toml", HISTOGRAM_SCHEMA),
            ("data.csv", &histogram_rows(5)),
            ("empty.csv", ""),
            ("header.csv", "x,y\n"),
            ("malformed.csv", "x,y\n1,zz\n"),
            ("nan.csv", "x,y\nNaN,1\n"),
            ("bad.toml", "this is = = not toml"),
            ("nan.txt", "1\nNaN\n"),
            ("words.txt", "1\nabc\n"),
        ],
    );
    std::fs::create_dir_all(dir.join("folder.csv")).unwrap();
    dir
}

/// Runs `disguise args` in `dir` within [`TIMEOUT`]; `Err` describes a failed expectation.
fn check_one_line_exit_2(dir: &Path, args: &[&str]) -> Result<(), String> {
    let out = Command::cargo_bin("disguise")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .timeout(TIMEOUT)
        .output()
        .map_err(|e| format!("did not finish within {TIMEOUT:?}: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Shown with --nocapture (or on failure): the message of every case, for review.
    eprintln!("disguise {}\n    {}", args.join(" "), stderr.trim_end());
    let mut problems = Vec::new();
    if out.status.code() != Some(2) {
        problems.push(format!("exit status {:?}, not 2", out.status));
    }
    if stderr.lines().count() != 1 {
        problems.push(format!("{} lines on stderr, not 1", stderr.lines().count()));
    }
    if !stderr.starts_with("error: ") {
        problems.push("stderr does not start with `error: `".to_string());
    }
    for bad in ["panicked", "backtrace", "RUST_BACKTRACE", "internal error"] {
        if stderr.contains(bad) {
            problems.push(format!("stderr contains {bad:?}"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{}; stderr: {stderr:?}", problems.join(", ")))
    }
}

/// Runs every case (a command line split on spaces), collecting all failures before
/// failing, so one run shows every broken case.
fn battery(test: &str, cases: &[&str]) {
    let dir = fixtures(test);
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let args: Vec<&str> = case.split_whitespace().collect();
            check_one_line_exit_2(&dir, &args)
                .err()
                .map(|why| format!("disguise {case}\n    {why}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Bad ε and δ values, appended to a valid command line.
const BAD_PRIVACY: [&str; 9] = [
    "--epsilon NaN",
    "--epsilon inf",
    "--epsilon 0",
    "--epsilon -1",
    "--epsilon 1e308",
    "--delta 1",
    "--delta -0.1",
    "--delta NaN",
    "--delta 2",
];

/// `base` with each of `BAD_PRIVACY` (the flag named there replaces the base's own value,
/// whose default is used otherwise).
fn with_bad_privacy(base: &str, epsilon: &str, delta: &str) -> Vec<String> {
    BAD_PRIVACY
        .iter()
        .map(|bad| {
            let (e, d) = if bad.starts_with("--epsilon") {
                (bad.to_string(), delta.to_string())
            } else {
                (epsilon.to_string(), bad.to_string())
            };
            format!("{base} {e} {d}")
        })
        .collect()
}

fn run_battery(test: &str, cases: Vec<String>) {
    let refs: Vec<&str> = cases.iter().map(String::as_str).collect();
    battery(test, &refs);
}

#[test]
fn demo() {
    let mut cases = with_bad_privacy("demo --no-map", "--epsilon 1", "--delta 1e-6");
    cases.extend(
        [
            "demo --no-map --k 0",
            "demo --no-map --k 21",
            "demo --no-map --k 1000000000000",
            "demo --no-map --k 99999999999999999999999",
            "demo --no-map --normalizer 0",
            "demo --no-map --normalizer NaN",
            "demo --no-map --normalizer -1",
            "demo --diagnostics --no-map --data missing.csv",
            "demo --diagnostics --no-map --data empty.csv",
            "demo --diagnostics --no-map --data llheader.csv",
            "demo --diagnostics --no-map --data llbad.csv",
            "demo --diagnostics --no-map --data lat95.csv",
            "demo --diagnostics --no-map --data lon200.csv",
            "demo --diagnostics --no-map --data ll.csv --candidates lat95.csv",
            "demo --diagnostics --no-map --data folder.csv",
            "demo --diagnostics --no-map --data ll.csv --candidates missing.csv",
            "demo --diagnostics --no-map --data ll.csv --candidates empty.csv",
            "demo --diagnostics --no-map --data ll.csv --candidates llc1.csv",
            "demo --diagnostics --no-map --data ll.csv --candidates llc.csv --k 3",
            "demo --diagnostics --data ll.csv --map ll.csv",
            "demo --diagnostics --data ll.csv --candidates llc.csv --k 2 --map ./llc.csv",
            "demo --diagnostics --data ll.csv --map no-such-folder/map.png",
            "demo --diagnostics --data ll.csv --map folder.csv",
            // On a user's data the demo runs only as a diagnostic.
            "demo --no-map --data ll.csv --candidates llc.csv",
            "demo --no-map --format yaml",
            "demo --no-map --unknown-flag",
        ]
        .map(String::from),
    );
    run_battery("demo", cases);
}

#[test]
fn budget() {
    let mut cases = with_bad_privacy("budget --rounds 10", "--epsilon 1", "--delta 1e-6");
    cases.extend(
        [
            "budget --epsilon 1 --delta 1e-6 --rounds 0",
            "budget --epsilon 1 --delta 1e-6 --rounds -5",
            "budget --epsilon 1 --delta 1e-6 --rounds 99999999999999999999999",
            "budget --epsilon 1 --delta 1e-6",
            // No rule applies: approximate calls need δ > 0.
            "budget --epsilon 1 --delta 0 --rounds 10 --kind approximate",
            "budget --epsilon 1 --delta 1e-6 --rounds 10 --kind nonsense",
        ]
        .map(String::from),
    );
    run_battery("budget", cases);
}

#[test]
fn sample() {
    let base = "sample --scores scores.txt --sensitivity 1 --mechanism em --trials 10";
    let mut cases = with_bad_privacy(base, "--epsilon 1", "--delta 0");
    let s = "sample --sensitivity 1 --epsilon 1 --mechanism em";
    cases.extend([
        format!("{s} --trials 10 --scores missing.txt"),
        format!("{s} --trials 10 --scores empty.csv"),
        format!("{s} --trials 10 --scores folder.csv"),
        format!("{s} --trials 10 --scores nan.txt"),
        format!("{s} --trials 10 --scores words.txt"),
        format!("{s} --scores scores.txt --trials 0"),
        format!("{s} --scores scores.txt --trials -1"),
        format!("{s} --scores scores.txt --trials 99999999999999999999999"),
        "sample --scores scores.txt --epsilon 1 --mechanism em --trials 1 --sensitivity 0".into(),
        "sample --scores scores.txt --epsilon 1 --mechanism em --trials 1 --sensitivity NaN".into(),
        "sample --scores scores.txt --epsilon 1 --mechanism em --trials 1 --sensitivity -1".into(),
        "sample --scores scores.txt --epsilon 1 --mechanism em --trials 1 --sensitivity inf".into(),
        "sample --scores scores.txt --sensitivity 1e308 --epsilon 1 --mechanism \
             report-noisy-max --trials 1"
            .into(),
        "sample --scores scores.txt --sensitivity 1e-308 --epsilon 700 --delta 1e-6 \
             --mechanism lmm --trials 1"
            .into(),
        "sample --scores scores.txt --sensitivity 1 --epsilon 1 --mechanism lmm --trials 1".into(),
        "sample --scores scores.txt --sensitivity 1 --epsilon 1 --mechanism magic --trials 1"
            .into(),
    ]);
    run_battery("sample", cases);
}

#[test]
fn select() {
    let base = "select --points p.csv --candidates c.csv --x x --y y --k 2";
    let mut cases = with_bad_privacy(base, "--epsilon 1", "--delta 1e-6");
    let ok = "--epsilon 1 --delta 1e-6";
    let files = "--points p.csv --candidates c.csv --x x --y y";
    cases.extend([
        format!("select {files} {ok} --k 0"),
        format!("select {files} {ok} --k 5"),
        format!("select {files} {ok} --k 1000000000000"),
        format!("select {files} {ok} --k 99999999999999999999999"),
        format!("{base} {ok} --trials 0"),
        format!("{base} {ok} --trials 1000000000000 --format json"),
        format!("{base} {ok} --trials 99999999999999999999999"),
        format!("{base} {ok} --normalizer 0"),
        format!("{base} {ok} --normalizer NaN"),
        format!("{base} --epsilon 1 --mechanism lmm --delta 0"),
        format!("{base} --mechanism em"),
        format!("{base} {ok} --algorithm continuous-greedy --steps 1000000000000"),
        format!("{base} {ok} --algorithm continuous-greedy --directions sampled:1000000000000"),
        format!("{base} {ok} --algorithm continuous-greedy --gradient-samples 1000000000000"),
        format!("{base} {ok} --constraint partition:missing.csv"),
        format!("{base} {ok} --constraint nonsense"),
        format!("select --points p.csv --candidates c1.csv --x x --y y --k 1 {ok}"),
        format!("select --points p.csv --candidates same.csv --x x --y y --k 1 {ok}"),
        format!("select --points missing.csv --candidates c.csv --x x --y y --k 1 {ok}"),
        format!("select --points empty.csv --candidates c.csv --x x --y y --k 1 {ok}"),
        format!("select --points header.csv --candidates c.csv --x x --y y --k 1 {ok}"),
        format!("select --points malformed.csv --candidates c.csv --x x --y y --k 1 {ok}"),
        format!("select --points nan.csv --candidates c.csv --x x --y y --k 1 {ok}"),
        format!("select --points folder.csv --candidates c.csv --x x --y y --k 1 {ok}"),
        format!("select --points p.csv --candidates empty.csv --x x --y y --k 1 {ok}"),
        format!("select --points p.csv --candidates header.csv --x x --y y --k 1 {ok}"),
        format!("select --points p.csv --candidates folder.csv --x x --y y --k 1 {ok}"),
        format!("select --points p.csv --candidates c.csv --x nope --y y --k 1 {ok}"),
    ]);
    run_battery("select", cases);
}

#[test]
fn features() {
    let base = "features --data tab.csv --label y --k 1";
    let mut cases = with_bad_privacy(base, "--epsilon 1", "--delta 1e-6");
    let ok = "--epsilon 1 --delta 1e-6";
    cases.extend([
        format!("features --data tab.csv --label y {ok} --k 0"),
        format!("features --data tab.csv --label y {ok} --k 3"),
        format!("features --data tab.csv --label y {ok} --k 1000000000000"),
        format!("{base} {ok} --trials 0"),
        format!("{base} {ok} --trials 1000000000000 --format json"),
        format!("features --data tab.csv --k 1 {ok} --label nope"),
        format!("features --data tab.csv --label y --k 1 {ok} --bins a:0:1"),
        format!("features --data tab.csv --label y --k 1 {ok} --bins a:0:1:99999999999"),
        format!("features --data missing.csv --label y --k 1 {ok}"),
        format!("features --data empty.csv --label y --k 1 {ok}"),
        format!("features --data header.csv --label x --k 1 {ok}"),
        format!("features --data folder.csv --label y --k 1 {ok}"),
        format!("{base} {ok} --algorithm continuous-greedy"),
    ]);
    run_battery("features", cases);
}

#[test]
fn assign() {
    let base = "assign --points p.csv --type-column shift --types a,b --candidates c.csv --x x \
                --y y --k 2";
    let mut cases = with_bad_privacy(base, "--epsilon 1", "--delta 1e-6");
    let ok = "--epsilon 1 --delta 1e-6";
    let files = "--points p.csv --type-column shift --candidates c.csv --x x --y y";
    cases.extend([
        format!("assign {files} --types a,b {ok} --k 0"),
        format!("assign {files} --types a,b {ok} --k 5"),
        format!("assign {files} --types a,b {ok} --k 1000000000000"),
        format!("{base} {ok} --trials 0"),
        format!("{base} {ok} --trials 1000000000000 --format json"),
        format!("assign {files} --types a,a --k 1 {ok}"),
        format!("assign {files} --types a --k 1 {ok}"),
        format!("assign {files} --types a,b --k 1 {ok} --algorithm subsample --failure 2"),
        format!(
            "assign --points p.csv --type-column shift --types a,b --candidates c1.csv --x x \
             --y y --k 1 {ok}"
        ),
        format!(
            "assign --points empty.csv --type-column shift --types a,b --candidates c.csv --x x \
             --y y --k 1 {ok}"
        ),
        format!(
            "assign --points folder.csv --type-column shift --types a,b --candidates c.csv \
             --x x --y y --k 1 {ok}"
        ),
        format!(
            "assign --points p.csv --type-column nope --types a,b --candidates c.csv --x x --y y \
             --k 1 {ok}"
        ),
    ]);
    run_battery("assign", cases);
}

#[test]
fn itemsets() {
    let base = "itemsets --transactions t.dat --size 2";
    let mut cases = with_bad_privacy(base, "--epsilon 1", "--delta 1e-6");
    let ok = "--epsilon 1 --delta 1e-6";
    cases.extend([
        format!("itemsets --transactions t.dat {ok} --size 0"),
        format!("itemsets --transactions t.dat {ok} --size 99999999999999999999999"),
        format!("{base} {ok} --top 0"),
        format!("{base} {ok} --top 99999999999999999999999"),
        format!("itemsets --transactions missing.dat --size 2 {ok}"),
        format!("itemsets --transactions empty.csv --size 2 {ok}"),
        format!("itemsets --transactions folder.csv --size 2 {ok}"),
        format!("{base} {ok} --items missing.txt"),
    ]);
    run_battery("itemsets", cases);
}

#[test]
fn hypothesis() {
    let base = "hypothesis --data h.csv --label y --bounds 0:10";
    let mut cases = with_bad_privacy(base, "--epsilon 1", "--delta 1e-6");
    let ok = "--epsilon 1 --delta 1e-6";
    cases.extend([
        format!("{base} {ok} --thresholds 99999999999999999999999"),
        format!("{base} {ok} --thresholds 0"),
        format!("hypothesis --data h.csv --bounds 0:10 {ok} --label nope"),
        format!("hypothesis --data h.csv --label y {ok} --bounds 10:0"),
        format!("hypothesis --data missing.csv --label y --bounds 0:10 {ok}"),
        format!("hypothesis --data empty.csv --label y --bounds 0:10 {ok}"),
        format!("hypothesis --data header.csv --label y --bounds 0:10 {ok}"),
        format!("hypothesis --data folder.csv --label y --bounds 0:10 {ok}"),
        format!("{base} {ok} --test missing.csv"),
    ]);
    run_battery("hypothesis", cases);
}

#[test]
fn histogram() {
    let base = "histogram --data data.csv --schema schema.toml --out syn.csv";
    let cases = [
        format!("{base} --epsilon NaN"),
        format!("{base} --epsilon inf"),
        format!("{base} --epsilon 0"),
        format!("{base} --epsilon -1"),
        format!("{base} --epsilon 1e308"),
        format!("{base} --epsilon 1 --k 0"),
        format!("{base} --epsilon 1 --k 1000000000000"),
        format!("{base} --epsilon 1 --k 99999999999999999999999"),
        format!("{base} --epsilon 1 --gamma 0"),
        format!("{base} --epsilon 1 --gamma 2"),
        format!("{base} --epsilon 1 --sigma 1"),
        format!("{base} --epsilon 1 --target nope"),
        "histogram --data missing.csv --schema schema.toml --out syn.csv --epsilon 1".into(),
        "histogram --data empty.csv --schema schema.toml --out syn.csv --epsilon 1".into(),
        "histogram --data folder.csv --schema schema.toml --out syn.csv --epsilon 1".into(),
        "histogram --data data.csv --schema missing.toml --out syn.csv --epsilon 1".into(),
        "histogram --data data.csv --schema bad.toml --out syn.csv --epsilon 1".into(),
        "histogram --data data.csv --schema folder.csv --out syn.csv --epsilon 1".into(),
        // Outputs that are inputs, or cannot be written.
        "histogram --data data.csv --schema schema.toml --epsilon 1 --out data.csv".into(),
        "histogram --data data.csv --schema schema.toml --epsilon 1 --out ./data.csv".into(),
        "histogram --data data.csv --schema schema.toml --epsilon 1 --out schema.toml".into(),
        "histogram --data data.csv --schema schema.toml --epsilon 1 --out folder.csv".into(),
        "histogram --data data.csv --schema schema.toml --epsilon 1 --out missing/syn.csv".into(),
    ];
    run_battery("histogram", cases.to_vec());
}

#[test]
fn experiment() {
    let cases = [
        "experiment uber --out results --trials 0",
        "experiment uber --out results --trials 1000000000000",
        "experiment uber --out results --trials 99999999999999999999999",
        "experiment nhanes --out results --trials 1000000000000",
        "experiment margin --out results --trials 1000000000000",
        "experiment matroid --out results --trials 1000000000000",
        "experiment histograms --out results --trials 1000000000000",
        "experiment uber --out results --data-dir no-such-folder",
        "experiment uber --out p.csv --data-dir no-such-folder",
        "experiment nonsense --out results",
    ];
    battery("experiment", &cases);
}

#[test]
fn top_level() {
    battery(
        "top_level",
        // (No arguments at all prints the usage, as is customary, and exits 2.)
        &["nonsense", "select --points", "--no-such-flag"],
    );
}

// ---------------------------------------------------------------------------------------
// Outputs never overwrite an input, and are replaced whole or not at all
// ---------------------------------------------------------------------------------------

fn histogram_cmd(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("disguise").unwrap();
    cmd.current_dir(dir)
        .args(["histogram", "--data", "data.csv", "--schema", "schema.toml"])
        .args(["--epsilon", "1", "--seed", "3", "--k", "1"])
        .timeout(TIMEOUT);
    cmd
}

#[test]
fn histogram_never_writes_over_its_input_by_any_path() {
    let dir = fixtures("histogram_over_input");
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.join("data.csv"), dir.join("link.csv")).unwrap();
    let before = std::fs::read(dir.join("data.csv")).unwrap();
    let schema = std::fs::read(dir.join("schema.toml")).unwrap();
    let absolute = dir.join("data.csv").display().to_string();
    let mut outs = vec!["data.csv", "./data.csv", "schema.toml", absolute.as_str()];
    if cfg!(unix) {
        outs.push("link.csv");
    }
    for out in outs {
        let output = histogram_cmd(&dir).args(["--out", out]).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "--out {out}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("refusing to write over") && stderr.contains("input"),
            "--out {out}: {stderr}"
        );
        assert_eq!(
            std::fs::read(dir.join("data.csv")).unwrap(),
            before,
            "--out {out}"
        );
        assert_eq!(std::fs::read(dir.join("schema.toml")).unwrap(), schema);
    }
    // Nothing was left behind (no temporary files).
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

#[test]
fn histogram_output_in_a_missing_folder_is_one_line() {
    let dir = fixtures("histogram_missing_folder");
    let output = histogram_cmd(&dir)
        .args(["--out", "no/such/folder/syn.csv"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("does not exist"), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[test]
fn an_older_output_is_replaced_whole() {
    let dir = fixtures("histogram_replace");
    // A long older file: a write that did not truncate would leave its tail behind.
    let old = format!("old\n{}", "stale line\n".repeat(10_000));
    std::fs::write(dir.join("syn.csv"), &old).unwrap();
    histogram_cmd(&dir)
        .args(["--out", "syn.csv"])
        .assert()
        .success();
    let new = std::fs::read_to_string(dir.join("syn.csv")).unwrap();
    // The header of the release: the projected attributes, then the target.
    assert!(new.lines().next().unwrap().ends_with(",sick"), "{new}");
    assert!(!new.contains("stale"), "the older file's tail survived");
    let header_fields = new.lines().next().unwrap().split(',').count();
    assert!(
        new.lines()
            .skip(1)
            .all(|l| l.split(',').count() == header_fields)
    );
}

#[test]
fn demo_map_is_never_written_over_an_input() {
    let dir = fixtures("demo_map_input");
    let before = std::fs::read(dir.join("llc.csv")).unwrap();
    for map in ["llc.csv", "ll.csv"] {
        let out = Command::cargo_bin("disguise")
            .unwrap()
            .current_dir(&dir)
            .args(words(
                "demo --data ll.csv --candidates llc.csv --k 2 --diagnostics",
            ))
            .args(["--map", map])
            .timeout(TIMEOUT)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--map {map}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains("refusing to write over"), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    assert_eq!(std::fs::read(dir.join("llc.csv")).unwrap(), before);
}

// ---------------------------------------------------------------------------------------
// Large counts stream instead of allocating
// ---------------------------------------------------------------------------------------

/// The peak resident memory of a running process, from /proc (Linux).
#[cfg(target_os = "linux")]
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn a_trillion_trials_stream_rows_in_constant_memory() {
    // `--trials 1000000000000` used to abort with an allocation failure before the first
    // trial (one generator per trial forked up front, every solution collected). Now rows
    // come out as trials finish: read some, check the memory, stop the run.
    let dir = fixtures("trillion");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("disguise"))
        .current_dir(&dir)
        .args(["select", "--points", "p.csv", "--candidates", "c.csv"])
        .args(["--x", "x", "--y", "y", "--k", "2", "--epsilon", "1"])
        .args(words("--trials 1000000000000 --format csv --seed 1"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let header = lines.next().unwrap().unwrap();
    assert!(header.starts_with("trial,pick,index"), "{header}");
    let mut last = String::new();
    for _ in 0..20_000 {
        last = lines.next().expect("rows keep coming").unwrap();
    }
    // 2 picks per trial: row 20,000 belongs to trial 10,000.
    assert!(last.starts_with("10000,2,"), "{last}");
    #[cfg(target_os = "linux")]
    {
        let peak = peak_rss_kib(child.id());
        assert!(peak < 200 * 1024, "peak RSS {peak} KiB");
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_closed_stdout_ends_the_run_quietly() {
    // `disguise … | head -1`: the reader goes away; the run stops without a panic message.
    let dir = fixtures("broken_pipe");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("disguise"))
        .current_dir(&dir)
        .args(["select", "--points", "p.csv", "--candidates", "c.csv"])
        // ε large enough that the utility bound is not vacuous: no warning on stderr.
        .args(["--x", "x", "--y", "y", "--k", "2", "--epsilon", "20"])
        .args(["--trials", "1000000000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert!(first.starts_with("facility location"), "{first}");
    drop(out);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(output.status.code(), Some(141));
}

#[test]
fn a_panic_is_one_line_naming_a_bug_with_exit_code_70() {
    // No user input reaches a panic (the battery above checks that); this checks the last
    // line of defence itself, with the panic the binary raises for this test only.
    let out = Command::cargo_bin("disguise")
        .unwrap()
        .env("DISGUISE_TEST_INTERNAL_ERROR", "1")
        .args(["budget", "--epsilon", "1", "--delta", "0", "--rounds", "1"])
        .timeout(TIMEOUT)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(70));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: internal error: ")
            && stderr.contains("this is a bug in disguise; please report it")
            && !stderr.contains("backtrace"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn top_level_help_describes_each_command() {
    let out = Command::cargo_bin("disguise")
        .unwrap()
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let line = |command: &str| {
        help.lines()
            .find(|l| l.trim_start().starts_with(&format!("{command} ")))
            .unwrap_or_else(|| panic!("{command} missing:\n{help}"))
            .to_string()
    };
    // These two were swapped.
    assert!(line("features").contains("feature selection"), "{help}");
    assert!(line("itemsets").contains("frequent itemsets"), "{help}");
    assert!(
        line("hypothesis").contains("hypothesis selection"),
        "{help}"
    );
    for command in ["histogram", "sample", "budget", "demo"] {
        let out = Command::cargo_bin("disguise")
            .unwrap()
            .args([command, "--help"])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("Examples:") && text.contains(&format!("disguise {command}")),
            "{command} --help lacks examples:\n{text}"
        );
    }
}

/// One command line per reader of user files, with `{F}` where the file under test goes
/// (the other files are the valid fixtures).
const READERS: [&str; 10] = [
    "select --points {F} --candidates c.csv --k 1 --epsilon 1 --delta 1e-6 --x x --y y",
    "select --points p.csv --candidates {F} --k 1 --epsilon 1 --delta 1e-6 --x x --y y",
    "assign --points {F} --type-column shift --types a,b --candidates c.csv --k 1 --epsilon 1 --delta 1e-6 --x x --y y",
    "features --data {F} --label y --k 1 --epsilon 1 --delta 1e-6",
    "histogram --data {F} --schema schema.toml --out syn.csv --epsilon 1",
    "itemsets --transactions {F} --size 1 --epsilon 1 --delta 1e-6",
    "itemsets --transactions {F} --id-column y --item-column a --size 1 --epsilon 1 --delta 1e-6",
    "hypothesis --data {F} --label y --bounds 0:10 --epsilon 1 --delta 1e-6",
    "sample --scores {F} --sensitivity 1 --epsilon 1 --mechanism em --trials 3",
    "demo --data {F} --no-map --diagnostics",
];

#[test]
fn coordinates_off_the_globe_name_the_file_line_and_column() {
    let dir = fixtures("globe");
    for (file, needle) in [
        (
            "lat95.csv",
            "lat95.csv:3:1: column 'lat': latitude 95 is outside [-90, 90]",
        ),
        (
            "lon200.csv",
            "lon200.csv:3:2: column 'lon': longitude -200 is outside [-180, 180]",
        ),
    ] {
        let demo = ["demo", "--no-map", "--diagnostics", "--data", file];
        common::fails_with(&dir, &demo, needle);
        let args = [
            "select",
            "--points",
            file,
            "--candidates",
            "llc.csv",
            "--k",
            "1",
        ];
        common::fails_with(
            &dir,
            &[&args[..], &["--epsilon", "1", "--delta", "1e-6"]].concat(),
            needle,
        );
    }
}

#[test]
fn an_endless_line_is_refused_in_bounded_memory() {
    // /dev/zero never ends a line: every reader stops after MAX_LINE_BYTES (64 MiB) with one
    // line instead of growing a buffer until the allocator aborts (it did: exit 134).
    if !Path::new("/dev/zero").exists() {
        return; // not a Unix-like system: nothing to read from
    }
    let mut cases: Vec<String> = READERS
        .iter()
        .map(|r| r.replace("{F}", "/dev/zero"))
        .collect();
    cases.push("histogram --data data.csv --schema /dev/zero --out syn.csv --epsilon 1".into());
    let dir = fixtures("endless");
    for case in &cases {
        let args: Vec<&str> = case.split_whitespace().collect();
        check_one_line_exit_2(&dir, &args).unwrap_or_else(|e| panic!("disguise {case}: {e}"));
        common::fails_with(&dir, &args, "longer than 64 MiB");
    }
}

#[test]
fn a_duplicate_column_is_refused_by_every_reader_naming_both_positions() {
    let dir = fixtures("duplicates");
    let files = [
        ("dup_points.csv", "x,y,x,shift\n0,0,1,a\n1,1,2,b\n"),
        ("dup_candidates.csv", "name,x,y,y\nA,0,0,0\nB,1,1,1\n"),
        ("dup_table.csv", "y,a,a\n0,0,1\n1,1,0\n"),
        ("dup_orders.csv", "y,a,A\n1,2,3\n2,3,4\n"),
        ("dup_latlon.csv", "lat,lon,lat\n40.75,-73.99,40.7\n"),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let cases = [
        (
            READERS[0],
            "dup_points.csv",
            "duplicate column 'x' (columns 1 and 3)",
        ),
        (
            READERS[1],
            "dup_candidates.csv",
            "duplicate column 'y' (columns 3 and 4)",
        ),
        (
            READERS[2],
            "dup_points.csv",
            "duplicate column 'x' (columns 1 and 3)",
        ),
        (
            READERS[3],
            "dup_table.csv",
            "duplicate column 'a' (columns 2 and 3)",
        ),
        (
            READERS[4],
            "dup_table.csv",
            "duplicate column 'a' (columns 2 and 3)",
        ),
        (READERS[6], "dup_orders.csv", "repeats column 2"),
        (
            READERS[7],
            "dup_table.csv",
            "duplicate column 'a' (columns 2 and 3)",
        ),
        (
            READERS[9],
            "dup_latlon.csv",
            "duplicate column 'lat' (columns 1 and 3)",
        ),
    ];
    for (reader, file, needle) in cases {
        let case = reader.replace("{F}", file);
        let args: Vec<&str> = case.split_whitespace().collect();
        common::fails_with(&dir, &args, needle);
        common::fails_with(&dir, &args, &format!("{file}:1"));
    }
    // A schema naming a column twice.
    std::fs::write(
        dir.join("dup.toml"),
        "[[columns]]\nname = \"age\"\ntype = \"numeric\"\nbounds = [0, 100]\n\
         [[columns]]\nname = \"age\"\ntype = \"numeric\"\nbounds = [0, 100]\n",
    )
    .unwrap();
    common::fails_with(
        &dir,
        &words("histogram --data data.csv --schema dup.toml --out s.csv --epsilon 1"),
        "column 'age' is listed twice",
    );
}

#[test]
fn a_byte_order_mark_changes_nothing() {
    // The same files with and without a UTF-8 byte-order mark, in two folders under the same
    // names: every reader gives byte-identical output for a fixed seed.
    let plain = fixtures("bom-plain");
    let marked = fixtures("bom-marked");
    for entry in std::fs::read_dir(&plain).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let mut bytes = "\u{feff}".as_bytes().to_vec();
            bytes.extend(std::fs::read(&path).unwrap());
            std::fs::write(marked.join(path.file_name().unwrap()), bytes).unwrap();
        }
    }
    let files = [
        "p.csv",
        "c.csv",
        "p.csv",
        "tab.csv",
        "data.csv",
        "t.dat",
        "h.csv",
        "h.csv",
        "scores.txt",
        "ll.csv",
    ];
    for (reader, file) in READERS.iter().zip(files) {
        let mut case = reader.replace("{F}", file);
        if file == "h.csv" && case.starts_with("itemsets") {
            case = case.replace(
                "--id-column y --item-column a",
                "--id-column a --item-column y",
            );
        }
        if case.starts_with("demo") {
            case.push_str(" --candidates llc.csv --k 1");
        }
        case.push_str(" --seed 1 --format json");
        let args: Vec<&str> = case.split_whitespace().collect();
        let run = |dir: &Path| {
            let out = Command::cargo_bin("disguise")
                .unwrap()
                .current_dir(dir)
                .args(&args)
                .timeout(TIMEOUT)
                .output()
                .unwrap();
            // 4: the run completed and released nothing (itemsets on 4 transactions find
            // no margin); its report is still printed and compared.
            assert!(
                matches!(out.status.code(), Some(0 | 4)),
                "disguise {case}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            out.stdout
        };
        let (a, b) = (run(&plain), run(&marked));
        assert!(!a.is_empty(), "disguise {case}: no output");
        assert_eq!(
            String::from_utf8_lossy(&a),
            String::from_utf8_lossy(&b),
            "disguise {case}"
        );
    }
}
