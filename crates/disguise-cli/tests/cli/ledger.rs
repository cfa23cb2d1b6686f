//! The privacy budget ledger from the command line: `disguise ledger …`, `--ledger` on the
//! releasing commands, concurrent processes, and processes killed mid-release.

use crate::common;

use common::{HISTOGRAM_SCHEMA, StdoutOk, dir_with, disguise, histogram_rows, json, words};
use std::path::Path;
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

const POINTS: &str = "lon,lat\n0,0\n0.1,0\n5,5\n5.1,5\n1,1\n";
const CANDIDATES: &str = "name,lon,lat\na,0,0\nb,5,5\nc,9,0\n";

/// A directory with points, candidates and an initialised ledger `b.ledger` whose data sets
/// get a default limit of ε = 100 (pure).
fn setup(test: &str) -> std::path::PathBuf {
    let dir = dir_with(test, &[("points.csv", POINTS), ("cands.csv", CANDIDATES)]);
    disguise(&dir)
        .args(["ledger", "init", "b.ledger", "--default-limit", "100"])
        .assert()
        .success();
    dir
}

/// `select` charged to data set `pts` in `b.ledger`, with ε = 0.25 in total (δ = 0).
const SELECT: &str = "select --points points.csv --candidates cands.csv --k 2 --epsilon 0.25 \
                      --ledger b.ledger --dataset pts --format json -q";

/// The same, charged to data set `other`.
const SELECT_OTHER: &str = "select --points points.csv --candidates cands.csv --k 2 \
                            --epsilon 0.25 --ledger b.ledger --dataset other --format json -q";

fn show(dir: &Path) -> serde_json::Value {
    json(
        &disguise(dir)
            .args(words(
                "ledger show --ledger b.ledger --dataset pts --format json",
            ))
            .stdout_ok(),
    )
}

#[test]
fn releases_are_recorded_until_the_limit_then_refused_with_exit_3_and_nothing_printed() {
    let dir = setup("limit");
    disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --dataset pts --epsilon 0.5",
        ))
        .assert()
        .success();
    for _ in 0..2 {
        let out = disguise(&dir).args(words(SELECT)).stdout_ok();
        assert_eq!(json(&out)["selected"].as_array().unwrap().len(), 2);
    }
    let refused = disguise(&dir).args(words(SELECT)).output().unwrap();
    assert_eq!(refused.status.code(), Some(3));
    assert!(
        refused.stdout.is_empty(),
        "a refused release prints nothing"
    );
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("budget exceeded on data set pts")
            && stderr.contains("spent ε = 0.5")
            && stderr.contains("left ε = 0"),
        "{stderr}"
    );
    let state = show(&dir);
    let releases = state["releases"].as_array().unwrap();
    assert_eq!(releases.len(), 2);
    assert_eq!(releases[0]["epsilon"], 0.25);
    assert_eq!(releases[0]["delta"], 0.0);
    assert!(releases[0]["command"].as_str().unwrap().contains("--k 2"));
    assert_eq!(releases[0]["calls"][0]["kind"], "bounded_range");
    assert_eq!(releases[0]["calls"][0]["count"], 2);
    assert_eq!(state["remaining"]["epsilon"], 0.0);
    assert_eq!(state["datasets"][0]["spent"]["epsilon"], 0.5);
    // The table and the CSV audit log say the same.
    let table = String::from_utf8(
        disguise(&dir)
            .args(words("ledger show --ledger b.ledger"))
            .stdout_ok(),
    )
    .unwrap();
    assert!(
        table.contains(
            "data set pts (record-level): limit ε = 0.5, δ = 0 (basic filter); spent ε = 0.5, \
             δ = 0 in 2 releases; left ε = 0, δ = 0"
        ),
        "{table}"
    );
    disguise(&dir)
        .args(words("ledger export --ledger b.ledger --out audit.csv"))
        .assert()
        .success();
    let audit = std::fs::read_to_string(dir.join("audit.csv")).unwrap();
    assert_eq!(audit.lines().count(), 3, "{audit}");
    assert!(audit.starts_with("id,time,dataset,command,mechanism,runs,epsilon,delta,rule"));
    // A limit with releases can be lowered, not raised, nor given another filter.
    for change in ["--epsilon 0.75", "--epsilon 0.5 --delta 1e-6 --rule zcdp"] {
        let out = disguise(&dir)
            .args(words("ledger limit --ledger b.ledger --dataset pts"))
            .args(words(change))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{change}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    disguise(&dir).args(words(SELECT)).assert().code(3);
    // Lowering it below what is spent (0.5) would refuse everything after, silently: refused
    // in one line (exit 2); down to the spent amount is allowed.
    common::fails_with(
        &dir,
        &words("ledger limit --ledger b.ledger --dataset pts --epsilon 0.4"),
        "already spent ε = 0.5",
    );
    disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --dataset pts --epsilon 0.5",
        ))
        .assert()
        .success();
    disguise(&dir).args(words(SELECT)).assert().code(3);
}

#[test]
fn budgets_typed_as_decimals_add_up_exactly_and_print_as_typed() {
    let dir = setup("exact");
    disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --dataset car --epsilon 0.3",
        ))
        .assert()
        .success();
    let select = |epsilon: &str| {
        disguise(&dir)
            .args(words(
                "select --points points.csv --candidates cands.csv --k 1 --ledger b.ledger \
                 --dataset car -q --format json --epsilon",
            ))
            .arg(epsilon)
            .output()
            .unwrap()
    };
    assert!(select("0.1").status.success());
    let table = String::from_utf8(
        disguise(&dir)
            .args(words("ledger show --ledger b.ledger --dataset car"))
            .stdout_ok(),
    )
    .unwrap();
    assert!(
        table.contains("spent ε = 0.1, δ = 0 in 1 release; left ε = 0.2, δ = 0"),
        "{table}"
    );
    assert!(select("0.2").status.success(), "0.1 + 0.2 fits 0.3");
    let refused = select("0.01");
    assert_eq!(refused.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("spent ε = 0.3, δ = 0 in 2 releases; left ε = 0, δ = 0"),
        "{stderr}"
    );
}

#[test]
fn names_must_be_given_limited_and_not_alike_to_another() {
    let dir = dir_with(
        "names",
        &[("points.csv", POINTS), ("cands.csv", CANDIDATES)],
    );
    disguise(&dir)
        .args(["ledger", "init", "b.ledger"])
        .assert()
        .success();
    let select = |extra: &str| {
        disguise(&dir)
            .args(words(
                "select --points points.csv --candidates cands.csv --k 1 --epsilon 0.5 -q \
                 --format json --ledger b.ledger",
            ))
            .args(shell_words(extra).into_iter().filter(|w| !w.is_empty()))
            .output()
            .unwrap()
    };
    // No name: refused before anything is read.
    let out = select("");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing --dataset"));
    // A name without a limit (and no default): exit 3, one line naming the command.
    let out = select("--dataset car");
    assert_eq!(out.status.code(), Some(3));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("ledger limit --dataset car"), "{stderr}");
    disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --dataset car --epsilon 1",
        ))
        .assert()
        .success();
    assert!(select("--dataset car").status.success());
    // Trimmed; names alike are refused with a suggestion, and create nothing.
    let padded = disguise(&dir)
        .args(words(
            "select --points points.csv --candidates cands.csv --k 1 --epsilon 0.5 -q \
             --format json --ledger b.ledger",
        ))
        .args(["--dataset", " car "])
        .output()
        .unwrap();
    assert!(padded.status.success());
    for alike in ["Car", "CAR"] {
        let out = select(&format!("--dataset {alike}"));
        assert_eq!(out.status.code(), Some(2), "{alike}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("did you mean \"car\""), "{stderr}");
    }
    let out = disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --dataset Car --epsilon 5",
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let all = show_all(&dir);
    assert_eq!(all["datasets"].as_array().unwrap().len(), 1);
    assert_eq!(all["releases"].as_array().unwrap().len(), 2);
    // The environment names the ledger.
    disguise(&dir)
        .args(words(
            "select --points points.csv --candidates cands.csv --k 1 --epsilon 0.5 -q \
             --dataset car",
        ))
        .env("DISGUISE_LEDGER", "b.ledger")
        .assert()
        .code(3);
    assert_eq!(show_all(&dir)["releases"].as_array().unwrap().len(), 2);
    // A default limit is recorded for a new data set at its first release.
    disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --default --epsilon 2 --delta 1e-6",
        ))
        .assert()
        .success();
    assert!(select("--dataset adult").status.success());
    let all = show_all(&dir);
    assert_eq!(all["default_limit"]["epsilon"], 2.0);
    let adult = all["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["dataset"] == "adult")
        .unwrap()
        .clone();
    assert_eq!(adult["limit"]["epsilon"], 2.0);
    assert_eq!(adult["limit"]["filter"], "basic");
}

#[test]
fn a_zcdp_limit_admits_more_small_releases_than_basic_composition() {
    let dir = setup("zcdp");
    disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --dataset pts --epsilon 1 --delta 1e-6 --rule zcdp",
        ))
        .assert()
        .success();
    // What is left is ρ_L, worth the limit's own (ε, δ); none of it for approximate releases.
    let left = &show(&dir)["remaining"];
    assert_eq!(
        (left["epsilon"].as_f64(), left["delta"].as_f64()),
        (Some(1.0), Some(1e-6))
    );
    assert_eq!(left["approximate_epsilon"], 0.0);
    assert_eq!(left["approximate_delta"], 0.0);
    let table = String::from_utf8(
        disguise(&dir)
            .args(words("ledger show --ledger b.ledger --dataset pts"))
            .stdout_ok(),
    )
    .unwrap();
    assert!(table.contains("(worth ε = 1 at δ = 1e-6;"), "{table}");
    // 1 exponential-mechanism call of ε = 0.1 costs ρ = 0.00125: 19 fit in ρ_L ≈ 0.0244,
    // against 10 by basic composition.
    let run = || {
        disguise(&dir)
            .args(words(
                "select --points points.csv --candidates cands.csv --k 1 --epsilon 0.1 \
                 --ledger b.ledger --dataset pts -q --format json",
            ))
            .output()
            .unwrap()
    };
    for i in 0..19 {
        assert!(run().status.success(), "release {i}");
    }
    let out = run();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("zcdp filter") && stderr.contains("ρ = 0.00125"),
        "{stderr}"
    );
    let table = String::from_utf8(
        disguise(&dir)
            .args(words("ledger show --ledger b.ledger --dataset pts"))
            .stdout_ok(),
    )
    .unwrap();
    assert!(table.contains("(zcdp filter: ρ ≤ 0.0243559"), "{table}");
    assert!(
        table.contains("spent ρ = 0.02375 in 19 releases"),
        "{table}"
    );
    // What the ρ left (≈ 0.0006) is worth, at the limit's δ: far less than the limit's ε,
    // and more than nothing.
    let left = &show(&dir)["remaining"];
    let epsilon = left["epsilon"].as_f64().unwrap();
    assert!(epsilon > 0.0 && epsilon < 0.2, "{left}");
    assert_eq!(left["delta"], 1e-6);
    assert!(
        table.contains("(worth ε = 0.") && table.contains("at δ = 1e-6;"),
        "{table}"
    );
    assert!(stderr.contains("(worth ε = 0."), "{stderr}");
}

/// `select` under ledger `b.ledger` on the data set `name`, with the flags `extra`: the
/// output.
fn select_in(dir: &Path, name: &str, extra: &[&str]) -> std::process::Output {
    disguise(dir)
        .args(words(
            "select --points points.csv --candidates cands.csv --k 1 --epsilon 0.25 -q \
             --format json --ledger b.ledger --dataset",
        ))
        .arg(name)
        .args(extra)
        .output()
        .unwrap()
}

/// A limit of ε = 1 in `b.ledger` for each of `names`.
fn limit_each(dir: &Path, names: &[&str]) {
    for name in names {
        disguise(dir)
            .args(words(
                "ledger limit --ledger b.ledger --epsilon 1 --dataset",
            ))
            .arg(name)
            .assert()
            .success();
    }
}

/// The one line of a refusal with exit code 2 that suggests `existing`; and whether it says
/// how to confirm a new data set.
fn refused_as_typo(out: &std::process::Output, existing: &str) -> bool {
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("did you mean \"{existing}\"?")),
        "{stderr}"
    );
    stderr.contains("--new-dataset")
}

#[test]
fn a_new_dataset_one_or_two_edits_from_another_is_refused_unless_confirmed_new() {
    let dir = setup("typos");
    limit_each(&dir, &["nursery", "adult"]);
    // One letter off, two letters transposed, or in another case too: a typo, refused by a
    // release and by a limit, with the way to confirm a new data set.
    for (typo, existing) in [
        ("nursry", "nursery"),
        ("adlut", "adult"),
        ("Nursry", "nursery"),
        ("adult-2", "adult"),
    ] {
        assert!(refused_as_typo(&select_in(&dir, typo, &[]), existing));
        let limit = disguise(&dir)
            .args(words(
                "ledger limit --ledger b.ledger --epsilon 5 --dataset",
            ))
            .arg(typo)
            .output()
            .unwrap();
        assert!(refused_as_typo(&limit, existing), "{typo}");
        // Looked up, it is suggested the name, with nothing to confirm.
        let shown = disguise(&dir)
            .args(words("ledger show --ledger b.ledger --dataset"))
            .arg(typo)
            .output()
            .unwrap();
        assert!(!refused_as_typo(&shown, existing), "{typo}");
    }
    let all = show_all(&dir);
    assert_eq!(all["datasets"].as_array().unwrap().len(), 2);
    assert!(all["releases"].as_array().unwrap().is_empty());
    // Three edits away is another data set (it gets the default limit).
    assert!(select_in(&dir, "adult-v2", &[]).status.success());
    // Another case is never a new data set, even confirmed.
    for (name, existing) in [("ADULT", "adult"), ("Adult-V2", "adult-v2")] {
        let out = select_in(&dir, name, &["--new-dataset"]);
        assert!(!refused_as_typo(&out, existing));
        assert!(String::from_utf8_lossy(&out.stderr).contains("only by case"));
    }
    let out = disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --epsilon 1 --dataset Nursery --new-dataset",
        ))
        .output()
        .unwrap();
    assert!(!refused_as_typo(&out, "nursery"));
    // Confirmed new, by a limit or by a release: afterwards the name works without it.
    let out = disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --epsilon 2 --dataset nursry --new-dataset",
        ))
        .stdout_ok();
    assert!(String::from_utf8_lossy(&out).contains("data set nursry: limit ε = 2"));
    assert!(select_in(&dir, "nursry", &[]).status.success());
    assert!(
        select_in(&dir, "adlut", &["--new-dataset"])
            .status
            .success()
    );
    assert!(select_in(&dir, "adlut", &[]).status.success());
    disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --epsilon 0.5 --dataset adlut",
        ))
        .assert()
        .success();
    let all = show_all(&dir);
    let names: Vec<&str> = all["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["dataset"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["adlut", "adult", "adult-v2", "nursery", "nursry"]);
    assert_eq!(all["releases"].as_array().unwrap().len(), 4);
    // The flag names a data set.
    let out = disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --epsilon 1 --default --new-dataset",
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // Without a default limit, a confirmed new name near another is advised a limit that
    // confirms it too (exit 3, one line), never the plain command that would be refused.
    disguise(&dir)
        .args(words("ledger init c.ledger"))
        .assert()
        .success();
    disguise(&dir)
        .args(words(
            "ledger limit --ledger c.ledger --epsilon 1 --dataset nursery",
        ))
        .assert()
        .success();
    let out = disguise(&dir)
        .args(words(
            "select --points points.csv --candidates cands.csv --k 1 --epsilon 0.25 -q \
             --ledger c.ledger --dataset nursry --new-dataset",
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("`disguise ledger limit --dataset nursry --new-dataset --epsilon E`"),
        "{stderr}"
    );
}

#[test]
fn trials_are_charged_together_and_a_pure_limit_refuses_delta() {
    let dir = setup("trials");
    disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --dataset pts --epsilon 1",
        ))
        .assert()
        .success();
    // 5 trials of 0.25 exceed 1: refused as a whole, nothing printed.
    let out = disguise(&dir)
        .args(words(SELECT))
        .args(["--trials", "5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("(5 runs)"));
    disguise(&dir)
        .args(words(SELECT))
        .args(["--trials", "4"])
        .assert()
        .success();
    assert_eq!(show(&dir)["releases"][0]["runs"], 4);
    // δ > 0 under a pure limit: a large margin mechanism's calls are (ε₀, δ₀)-DP. (An
    // exponential-mechanism run reported with δ > 0 is charged as its pure calls.)
    disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --dataset other --epsilon 10",
        ))
        .assert()
        .success();
    let out = disguise(&dir)
        .args(words(SELECT_OTHER))
        .args(["--delta", "1e-6", "--mechanism", "lmm"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("pure"), "{stderr}");
    disguise(&dir)
        .args(words(SELECT_OTHER))
        .args(["--delta", "1e-6"])
        .assert()
        .success();
}

#[test]
fn unusable_ledgers_and_options_are_refused_with_one_line_and_left_untouched() {
    let dir = setup("bad");
    std::fs::write(dir.join("notes.txt"), "just words\n".repeat(50)).unwrap();
    let cases: &[(&str, &str)] = &[
        ("--ledger missing.ledger --dataset d", "ledger init"),
        ("--ledger notes.txt --dataset d", "not a disguise ledger"),
        ("--ledger b.ledger --dataset ''", "invalid --dataset"),
        (
            "--ledger b.ledger --dataset d --mechanism max",
            "add --diagnostics",
        ),
        // Even as a diagnostic, the non-private baseline has nothing a ledger can record.
        (
            "--ledger b.ledger --dataset d --mechanism max --diagnostics",
            "a budget ledger cannot account for it",
        ),
        (
            "--ledger b.ledger --dataset d --ledger-timeout -1",
            "invalid --ledger-timeout",
        ),
    ];
    for (extra, needle) in cases {
        let mut args = words("select --points points.csv --candidates cands.csv --k 1 --epsilon 1");
        let extra: Vec<String> = shell_words(extra);
        let out = disguise(&dir).args(&args).args(&extra).output().unwrap();
        args.clear();
        assert_eq!(out.status.code(), Some(2), "{extra:?}");
        assert!(out.stdout.is_empty(), "{extra:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.lines().count(), 1, "{extra:?}: {stderr}");
        assert!(stderr.contains(needle), "{extra:?}: {stderr}");
    }
    assert!(!dir.join("missing.ledger").exists());
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "just words\n".repeat(50)
    );
    // --dataset without a ledger is a mistake, not ignored.
    disguise(&dir)
        .args(words(
            "select --points points.csv --candidates cands.csv --k 1 --epsilon 1 --dataset x",
        ))
        .env_remove("DISGUISE_LEDGER")
        .assert()
        .code(2);
    // A ledger is created once.
    disguise(&dir)
        .args(["ledger", "init", "b.ledger"])
        .assert()
        .code(2);
    disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --dataset d --epsilon 0",
        ))
        .assert()
        .code(2);
    disguise(&dir)
        .args(words("ledger show"))
        .env_remove("DISGUISE_LEDGER")
        .assert()
        .code(2);
}

/// Splits at spaces, with '' as an empty argument.
fn shell_words(s: &str) -> Vec<String> {
    s.split(' ')
        .map(|w| {
            if w == "''" {
                String::new()
            } else {
                w.to_string()
            }
        })
        .collect()
}

#[test]
fn eight_processes_racing_for_a_limit_that_allows_five_release_exactly_five() {
    let bin = assert_cmd::cargo::cargo_bin("disguise");
    for round in 0..12 {
        let dir = setup(&format!("race-{round}"));
        disguise(&dir)
            .args(words(
                "ledger limit --ledger b.ledger --dataset pts --epsilon 1.25",
            ))
            .assert()
            .success();
        let children: Vec<_> = (0..8)
            .map(|_| {
                StdCommand::new(&bin)
                    .current_dir(&dir)
                    .args(words(SELECT))
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outputs: Vec<_> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        let codes: Vec<Option<i32>> = outputs.iter().map(|o| o.status.code()).collect();
        let released = outputs
            .iter()
            .filter(|o| o.status.code() == Some(0) && !o.stdout.is_empty())
            .count();
        let refused = outputs
            .iter()
            .filter(|o| o.status.code() == Some(3) && o.stdout.is_empty())
            .count();
        assert_eq!((released, refused), (5, 3), "round {round}: {codes:?}");
        let state = show(&dir);
        assert_eq!(
            state["releases"].as_array().unwrap().len(),
            5,
            "round {round}"
        );
        assert_eq!(state["datasets"][0]["spent"]["epsilon"], 1.25);
    }
}

#[test]
fn a_release_killed_at_any_moment_leaves_an_intact_ledger_and_no_output_without_its_record() {
    let dir = dir_with(
        "kill",
        &[
            ("data.csv", &histogram_rows(3000)),
            ("schema.toml", HISTOGRAM_SCHEMA),
        ],
    );
    disguise(&dir)
        .args(["ledger", "init", "b.ledger", "--default-limit", "100"])
        .assert()
        .success();
    let bin = assert_cmd::cargo::cargo_bin("disguise");
    let command = |i: usize| {
        let mut cmd = StdCommand::new(&bin);
        cmd.current_dir(&dir)
            .args(words(
                "histogram --data data.csv --schema schema.toml --epsilon 1 --k 2 \
                 --ledger b.ledger --dataset d --format json",
            ))
            .args(["--out", &format!("out-{i}.csv")])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        cmd
    };
    // How long one release takes now, to spread the kills over it (outputs from out-1000.csv
    // on): the faster of two runs at first, as the first pays for a cold start, then timed
    // again every ten runs, as the machine's load changes (timed once, the kills came too
    // late to kill enough runs when the load fell, or too early to let any finish when it
    // rose).
    let time = |i: usize| {
        let started = Instant::now();
        assert!(command(i).status().unwrap().success());
        started.elapsed().as_micros() as u64
    };
    let mut full = time(1000).min(time(1001));
    // A fixed sequence of kill times (a linear congruential sequence) from 0 to 1.2× the
    // run's duration, so every phase is hit: start-up, reading, releasing, recording,
    // writing, exit. At least 60 runs, and more until 20 were killed and one finished.
    let mut state: u64 = 12345;
    let (mut runs, mut outputs, mut killed) = (0, 0, 0);
    while runs < 60 || killed < 20 || outputs < 1 {
        assert!(
            runs < 1000,
            "of {runs} runs, {killed} were killed before they ended and {outputs} finished"
        );
        if runs > 0 && runs % 10 == 0 {
            full = time(1000 + runs);
        }
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let at = (state >> 33) % (full * 6 / 5 + 1);
        let mut child = command(runs).spawn().unwrap();
        std::thread::sleep(Duration::from_micros(at));
        if child.try_wait().unwrap().is_none() {
            let _ = child.kill(); // SIGKILL
            killed += 1;
        }
        let _ = child.wait();
        outputs += usize::from(dir.join(format!("out-{runs}.csv")).exists());
        runs += 1;
    }
    // The ledger opens, is intact, and every output that exists has its record.
    let check = rusqlite::Connection::open(dir.join("b.ledger")).unwrap();
    let verdict: String = check
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(verdict, "ok");
    drop(check);
    let state = show_all(&dir);
    let commands: Vec<String> = state["releases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["command"].as_str().unwrap().to_string())
        .collect();
    for i in 0..runs {
        let out = format!("out-{i}.csv");
        if dir.join(&out).exists() {
            assert!(
                commands
                    .iter()
                    .any(|c| c.ends_with(&format!("--out {out}"))),
                "{out} exists without its record"
            );
        }
        // No temporary output file is left behind as if it were an output.
        assert!(!dir.join(format!("{out}.tmp")).exists());
    }
}

fn show_all(dir: &Path) -> serde_json::Value {
    json(
        &disguise(dir)
            .args(words("ledger show --ledger b.ledger --format json"))
            .stdout_ok(),
    )
}

#[test]
fn every_releasing_command_takes_the_ledger() {
    for command in [
        "select",
        "cover",
        "cut",
        "features",
        "itemsets",
        "hypothesis",
        "histogram",
        "assign",
        "topics",
        "synth",
    ] {
        let help = common::help(command);
        assert!(
            help.contains("--ledger <FILE>")
                && help.contains("--dataset <NAME>")
                && help.contains("--new-dataset"),
            "{command}"
        );
    }
}

#[test]
fn a_distributed_run_is_recorded_once_by_process_0() {
    let dir = setup("distributed");
    disguise(&dir)
        .args(words(SELECT))
        .args(["--workers", "2"])
        .assert()
        .success();
    assert_eq!(show(&dir)["releases"].as_array().unwrap().len(), 1);
    // Over several hosts as on one: the data set must be named.
    std::fs::write(dir.join("hosts.txt"), "127.0.0.1:1\n127.0.0.1:2\n").unwrap();
    let out = disguise(&dir)
        .args(words(
            "select --points points.csv --candidates cands.csv --k 1 --epsilon 1 \
             --ledger b.ledger --hosts hosts.txt --process 0",
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing --dataset"));
}

#[test]
fn a_data_set_holds_one_privacy_unit_and_show_and_export_name_it() {
    let dir = setup("units");
    std::fs::write(dir.join("e.txt"), "a b\nb c\nc d\nd a\na c\n").unwrap();
    std::fs::write(dir.join("v.txt"), "a\nb\nc\nd\n").unwrap();
    let cut = "cut --edges e.txt --vertices v.txt --k 1 --epsilon 0.5 --ledger b.ledger \
               --dataset pts --format json -q";
    disguise(&dir).args(words(cut)).stdout_ok();
    // `select` protects a person's record, `cut` an edge: not one budget.
    let refused = disguise(&dir).args(words(SELECT)).output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(refused.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("edge-level") && stderr.contains("record-level"),
        "{stderr}"
    );
    let doc = show(&dir);
    assert_eq!(doc["releases"].as_array().unwrap().len(), 1);
    assert_eq!(doc["releases"][0]["unit"], "edge");
    assert_eq!(doc["datasets"][0]["unit"], "edge");
    let table = String::from_utf8(
        disguise(&dir)
            .args(words("ledger show --ledger b.ledger"))
            .stdout_ok(),
    )
    .unwrap();
    assert!(table.contains("data set pts (edge-level)"), "{table}");
    // Under its own name the record-level release is recorded.
    disguise(&dir).args(words(SELECT_OTHER)).stdout_ok();
    let csv = String::from_utf8(
        disguise(&dir)
            .args(words("ledger export --ledger b.ledger"))
            .stdout_ok(),
    )
    .unwrap();
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().ends_with(",secure,unit"));
    let units: Vec<&str> = lines.map(|l| l.rsplit(',').next().unwrap()).collect();
    assert_eq!(units, ["edge", "record"]);
    // `--out -` is standard output too, never a file named `-`.
    let dashed = disguise(&dir)
        .args(words("ledger export --ledger b.ledger --out -"))
        .stdout_ok();
    assert_eq!(String::from_utf8(dashed).unwrap(), csv);
    assert!(!dir.join("-").exists());
}

#[test]
fn the_cost_is_reserved_before_the_data_is_read_and_a_failed_run_stays_charged() {
    let dir = setup("before");
    disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --dataset pts --epsilon 0.5",
        ))
        .assert()
        .success();
    std::fs::write(dir.join("bad.csv"), "lon,lat\n0,0\nnot a number,1\n").unwrap();
    let select = |points: &str| {
        disguise(&dir)
            .args(words(
                "select --candidates cands.csv --k 1 --epsilon 0.25 --ledger b.ledger \
                 --dataset pts -q --format json --points",
            ))
            .arg(points)
            .output()
            .unwrap()
    };
    // A file that cannot be opened is refused before anything is charged.
    let out = select("missing.csv");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("missing.csv") && !stderr.contains("charged"),
        "{stderr}"
    );
    assert_eq!(show(&dir)["releases"].as_array().unwrap().len(), 0);
    // A run that fails on its data after the reservation stays charged, and says so in a
    // line that is the same for every data set.
    let out = select("bad.csv");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("of (ε = 0.25, δ = 0) stays charged to pts in b.ledger")
            && !stderr.contains("not a number"),
        "{stderr}"
    );
    assert_eq!(show(&dir)["releases"].as_array().unwrap().len(), 1);
    assert!(select("points.csv").status.success());
    // Now the budget is spent: refused before the points are read (a bad row would be exit
    // code 2 after a reservation).
    let out = select("bad.csv");
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(show(&dir)["releases"].as_array().unwrap().len(), 2);
}

#[test]
fn coverage_of_a_friendship_graph_is_charged_per_edge_and_shares_a_budget_with_cut() {
    let dir = setup("friends");
    std::fs::write(dir.join("e.txt"), "a b\nb c\nc d\nd a\na c\n").unwrap();
    std::fs::write(dir.join("v.txt"), "a\nb\nc\nd\n").unwrap();
    disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --dataset graph --epsilon 2.5",
        ))
        .assert()
        .success();
    let cover = "cover --edges e.txt --candidates v.txt --k 1 --epsilon 0.5 --ledger b.ledger \
                 --dataset graph --format json -q";
    disguise(&dir).args(words(cover)).stdout_ok();
    let graph = json(
        &disguise(&dir)
            .args(words(
                "ledger show --ledger b.ledger --dataset graph --format json",
            ))
            .stdout_ok(),
    );
    let release = &graph["releases"][0];
    // Replacing one friendship changes up to four friend lists: (4ε, 4e^{3ε}·δ) by group
    // privacy, at edge level.
    assert_eq!(release["unit"], "edge");
    assert_eq!(release["epsilon"], 2.0);
    assert_eq!(release["calls"][0]["epsilon"], 2.0);
    // `cut` on the same graph spends from the same budget: 2 + 0.5 = 2.5 fits exactly.
    let cut = "cut --edges e.txt --vertices v.txt --k 1 --epsilon 0.5 --ledger b.ledger \
               --dataset graph --format json -q";
    disguise(&dir).args(words(cut)).stdout_ok();
    let refused = disguise(&dir).args(words(cut)).output().unwrap();
    assert_eq!(refused.status.code(), Some(3));
    // A record-level release is refused on the graph's data set, without advice to rename it.
    let sets = "cover --sets e.txt --candidates v.txt --k 1 --epsilon 0.1 --ledger b.ledger \
                --dataset graph --format json -q";
    let out = disguise(&dir).args(words(sets)).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("edge-level") && !stderr.contains("another data set name"),
        "{stderr}"
    );
}

#[test]
fn a_dataset_spelled_with_invisible_characters_full_width_or_decomposed_letters_is_refused() {
    let dir = setup("lookalikes");
    limit_each(&dir, &["adult", "café"]);
    let select = |name: &str| select_in(&dir, name, &[]);
    assert!(select("adult").status.success());
    let alike = [
        ("\u{feff}adult", "\"adult\""),
        ("adu\u{200b}lt", "\"adult\""),
        ("\u{ff41}\u{ff44}\u{ff55}\u{ff4c}\u{ff54}", "\"adult\""),
        ("cafe\u{301}", "\"café\""),
    ];
    for (name, existing) in alike {
        let refused = select(name);
        assert_eq!(refused.status.code(), Some(2), "{name:?}");
        assert!(refused.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("invalid dataset")
                && stderr.contains(&format!("did you mean {existing}")),
            "{name:?}: {stderr}"
        );
        // The ledger's own commands refuse it too.
        for command in [
            "ledger limit --ledger b.ledger --epsilon 9 --dataset",
            "ledger show --ledger b.ledger --dataset",
            "ledger export --ledger b.ledger --dataset",
        ] {
            let out = disguise(&dir)
                .args(words(command))
                .arg(name)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{command} {name:?}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.contains("did you mean"),
                "{command} {name:?}: {stderr}"
            );
        }
    }
    // Invisible characters only: an empty name.
    let out = select("\u{feff}\u{200b}");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty"));
    let all = show_all(&dir);
    assert_eq!(all["datasets"].as_array().unwrap().len(), 2);
    assert_eq!(all["releases"].as_array().unwrap().len(), 1);
}

#[test]
fn a_data_set_of_an_older_ledger_with_releases_and_no_limit_takes_no_more_releases() {
    let dir = dir_with(
        "legacy",
        &[("points.csv", POINTS), ("cands.csv", CANDIDATES)],
    );
    // A ledger of format 2: releases were recorded without a limit.
    {
        let c = rusqlite::Connection::open(dir.join("b.ledger")).unwrap();
        c.execute_batch(
            "PRAGMA application_id = 1682394212; PRAGMA user_version = 2;
             CREATE TABLE limits (id INTEGER PRIMARY KEY, dataset TEXT NOT NULL,
                 time TEXT NOT NULL, epsilon REAL NOT NULL, delta REAL NOT NULL) STRICT;
             CREATE TABLE releases (id INTEGER PRIMARY KEY AUTOINCREMENT,
                 dataset TEXT NOT NULL, time TEXT NOT NULL, command TEXT NOT NULL,
                 mechanism TEXT NOT NULL, runs INTEGER NOT NULL, epsilon REAL NOT NULL,
                 delta REAL NOT NULL, rule TEXT NOT NULL, secure INTEGER NOT NULL,
                 unit TEXT NOT NULL DEFAULT 'record') STRICT;
             CREATE TABLE calls (release INTEGER NOT NULL, kind TEXT NOT NULL,
                 epsilon REAL NOT NULL, delta REAL NOT NULL, count INTEGER NOT NULL) STRICT;
             INSERT INTO releases (dataset, time, command, mechanism, runs, epsilon, delta,
                 rule, secure) VALUES ('pts', 't', 'disguise select', 'em', 2, 0.25, 0,
                 'basic', 1);",
        )
        .unwrap();
    }
    // Its limit is what it spent: nothing is left, and a higher one is refused in one line.
    let state = show(&dir);
    assert_eq!(state["datasets"][0]["limit"]["epsilon"], 0.5);
    assert_eq!(state["remaining"]["epsilon"], 0.0);
    let out = disguise(&dir)
        .args(words(
            "ledger limit --ledger b.ledger --dataset pts --epsilon 2",
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("lowered, not raised"), "{stderr}");
    let refused = disguise(&dir).args(words(SELECT)).output().unwrap();
    assert_eq!(refused.status.code(), Some(3));
    assert!(refused.stdout.is_empty());
    assert_eq!(show(&dir)["releases"].as_array().unwrap().len(), 1);
}
