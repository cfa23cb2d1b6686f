//! Golden tests: for a fixed seed, the JSON report of every command and experiment on small
//! fixed inputs, and every table file it writes, byte for byte.
//!
//! They pin behaviour while the code behind the commands is reorganised: a refactor must
//! leave every golden file unchanged. **A golden file is updated only for a change you can
//! name, in its own commit** (say in the message what changed in the output and why). To
//! rewrite them after such a change:
//!
//! ```text
//! DISGUISE_BLESS=1 DISGUISE_DATA=../shared/data cargo test -p disguise-cli --test data golden::
//! ```
//!
//! Inputs live in `tests/golden/inputs/` (written once by `make_inputs.py`, committed);
//! experiments read `$DISGUISE_DATA` and are reported *ignored* when it is absent (this
//! module of the `data` target runs through `disguise/tests/support/data_tests.rs`,
//! `harness = false`). Each case runs in a fresh folder holding a copy of the inputs, so
//! outputs are written there and paths in reports are relative. The only normalisation ([`normalise`]): the wall-clock
//! `"seconds"` of experiment reports and the data folder's absolute path.

use crate::data_tests;

use assert_cmd::Command;
use data_tests::DataTest;
use std::path::{Path, PathBuf};

/// One golden case: the arguments (after `disguise`), and the files it writes (relative to
/// its folder) that are compared too. `{DATA}` in an argument is the data folder.
struct Case {
    name: &'static str,
    /// The command line after `disguise`, split at white space (see [`split_args`]).
    args: &'static str,
    writes: &'static [&'static str],
}

/// What `{planar}` in a case's arguments stands for: the committed planar points and
/// candidates.
const PLANAR: &str = "--points points.csv --candidates candidates.csv --x x --y y";

/// A case's command line as arguments: split at white space, `{planar}` expanded.
fn split_args(line: &str) -> Vec<String> {
    line.replace("{planar}", PLANAR)
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// The cases on the committed inputs (no real data needed). Every one ends in
/// `--seed 1 --format json` (added by [`run_case`]) unless it has no seed (`budget`).
const CASES: &[Case] = &[
    Case {
        name: "select_em",
        args: "select {planar} --k 3 --epsilon 1 --delta 1e-6",
        writes: &[],
    },
    Case {
        name: "select_lmm",
        args: "select {planar} --k 3 --epsilon 1 --delta 1e-6 --mechanism lmm",
        writes: &[],
    },
    Case {
        name: "select_lmm_chaudhuri_basic",
        args: "select {planar} --k 3 --epsilon 2 --delta 1e-6 --mechanism lmm-chaudhuri --composition basic",
        writes: &[],
    },
    Case {
        name: "select_report_noisy_max_kov",
        args: "select {planar} --k 3 --epsilon 1 --delta 1e-6 --mechanism report-noisy-max --composition kov",
        writes: &[],
    },
    Case {
        name: "select_max",
        args: "select {planar} --k 3 --mechanism max --diagnostics",
        writes: &[],
    },
    Case {
        name: "select_cost_subsample",
        args: "select {planar} --epsilon 1 --k 3 --cost 5 --algorithm subsample",
        writes: &[],
    },
    Case {
        name: "select_partition",
        args: "select {planar} --epsilon 1 --delta 1e-6 --constraint partition:groups.csv",
        writes: &[],
    },
    Case {
        name: "select_subsample",
        args: "select {planar} --k 3 --epsilon 1 --delta 1e-6 --algorithm subsample",
        writes: &[],
    },
    Case {
        name: "select_continuous_greedy",
        args: "select {planar} --k 3 --epsilon 1 --delta 1e-6 --algorithm continuous-greedy",
        writes: &[],
    },
    Case {
        name: "select_decomposable_trials",
        args: "select {planar} --k 3 --epsilon 1 --delta 1e-6 --composition decomposable --trials 5",
        writes: &[],
    },
    Case {
        name: "select_haversine",
        args: "select --points pickups.csv --candidates spots.csv --k 2 --epsilon 1 --delta 1e-6 --metric haversine",
        writes: &[],
    },
    Case {
        name: "assign_greedy",
        args: "assign {planar} --type-column shift --types am,pm --k 2 --epsilon 1 --delta 1e-6",
        writes: &[],
    },
    Case {
        name: "assign_subsample",
        args: "assign {planar} --type-column shift --types am,pm --k 2 --epsilon 1 --delta 1e-6 --algorithm subsample --failure 0.1",
        writes: &[],
    },
    Case {
        name: "features_mutual_information",
        args: "features --data table.csv --label y --bins age:0:90:3 --k 2 --epsilon 1 --delta 1e-6",
        writes: &[],
    },
    Case {
        name: "features_mutual_information_lmm",
        args: "features --data table.csv --label y --exclude age --k 2 --epsilon 1 --delta 1e-6 --mechanism lmm",
        writes: &[],
    },
    Case {
        name: "features_discernibility",
        args: "features --data table.csv --label y --bins age:0:90:3 --k 2 --epsilon 1 --delta 1e-6 --objective discernibility --mechanism report-noisy-max",
        writes: &[],
    },
    Case {
        name: "cover_sets",
        args: "cover --sets transactions.dat --candidates items.txt --k 2 --epsilon 1",
        writes: &[],
    },
    Case {
        name: "cut_subsample",
        args: "cut --edges edges.txt --vertices vertices.txt --k 3 --epsilon 2",
        writes: &[],
    },
    Case {
        name: "topics_greedy",
        args: "topics --reach reach.txt --candidates seeds.txt --types news,sport --k 2 --epsilon 2",
        writes: &[],
    },
    Case {
        name: "topics_per_topic_subsample",
        args: "topics --reach reach.txt --candidates seeds.txt --types news,sport --k 2 --epsilon 2 --per-topic --algorithm subsample",
        writes: &[],
    },
    Case {
        name: "itemsets_fimi_lmm",
        args: "itemsets --transactions transactions.dat --size 2 --epsilon 4 --delta 1e-6 --top 3",
        writes: &[],
    },
    Case {
        name: "itemsets_csv_lmm_chaudhuri",
        args: "itemsets --transactions orders.csv --input-format csv --id-column order --item-column item --size 1 --epsilon 4 --delta 1e-6 --top 3 --mechanism lmm-chaudhuri",
        writes: &[],
    },
    Case {
        name: "itemsets_em_items",
        args: "itemsets --transactions transactions.dat --size 2 --epsilon 1 --delta 1e-6 --top 3 --mechanism em --items items.txt",
        writes: &[],
    },
    Case {
        name: "itemsets_em_items_diagnostics",
        args: "itemsets --transactions transactions.dat --size 2 --epsilon 1 --delta 1e-6 --top 3 --mechanism em --items items.txt --diagnostics",
        writes: &[],
    },
    Case {
        name: "hypothesis_schema_lmm",
        args: "hypothesis --data table.csv --schema table.schema.toml --positive 1 --epsilon 1 --delta 1e-6",
        writes: &[],
    },
    Case {
        name: "hypothesis_bounds_em",
        args: "hypothesis --data table.csv --label y --bounds 0:90 --thresholds 9 --mechanism em --epsilon 1 --test table.csv --diagnostics",
        writes: &[],
    },
    Case {
        name: "histogram_fixed_k",
        args: "histogram --data table.csv --schema table.schema.toml --epsilon 1 --k 2 --out synthetic.csv",
        writes: &["synthetic.csv"],
    },
    Case {
        name: "histogram_k_chosen",
        args: "histogram --data table.csv --schema table.schema.toml --epsilon 1 --out synthetic.csv",
        writes: &["synthetic.csv"],
    },
    Case {
        name: "histogram_k_split",
        args: "histogram --data table.csv --schema table.schema.toml --epsilon 1 --k-split 1,2,3 --out synthetic.csv",
        writes: &["synthetic.csv"],
    },
    Case {
        name: "synth_laplace",
        args: "synth --data table.csv --schema table.schema.toml --epsilon 1 --out synthetic.csv",
        writes: &["synthetic.csv"],
    },
    Case {
        name: "synth_gaussian",
        args: "synth --data table.csv --schema table.schema.toml --epsilon 1 --delta 1e-6 --method mst --out synthetic.csv",
        writes: &["synthetic.csv"],
    },
    Case {
        name: "synth_aim",
        args: "synth --data table.csv --schema table.schema.toml --epsilon 1 --delta 1e-6 --out synthetic.csv",
        writes: &["synthetic.csv"],
    },
    Case {
        name: "sample_em",
        args: "sample --scores scores.txt --sensitivity 1 --epsilon 1 --mechanism em --trials 1000",
        writes: &[],
    },
    Case {
        name: "sample_lmm",
        args: "sample --scores scores.txt --sensitivity 1 --epsilon 2 --delta 1e-6 --mechanism lmm --trials 1000",
        writes: &[],
    },
    Case {
        name: "sample_report_noisy_max",
        args: "sample --scores scores.txt --sensitivity 1 --epsilon 1 --mechanism report-noisy-max --trials 1000",
        writes: &[],
    },
    Case {
        name: "demo_default",
        args: "demo --no-map",
        writes: &[],
    },
    Case {
        name: "demo_data",
        args: "demo --data pickups.csv --candidates spots.csv --k 2 --no-map --diagnostics",
        writes: &[],
    },
    Case {
        name: "budget_bounded_range",
        args: "budget --epsilon 1 --delta 1e-6 --rounds 10",
        writes: &[],
    },
    Case {
        name: "budget_decomposable",
        args: "budget --epsilon 1 --delta 1e-6 --rounds 1000 --decomposable",
        writes: &[],
    },
    Case {
        name: "budget_pure",
        args: "budget --epsilon 0.5 --delta 0 --rounds 20 --kind pure",
        writes: &[],
    },
    Case {
        name: "budget_approximate",
        args: "budget --epsilon 1 --delta 1e-6 --rounds 5 --kind approximate",
        writes: &[],
    },
];

/// The experiments, each as small as its options allow, and the data files they read.
struct ExperimentCase {
    name: &'static str,
    args: &'static str,
    needs: &'static [&'static str],
}

const EXPERIMENTS: &[ExperimentCase] = &[
    ExperimentCase {
        name: "experiment_uber",
        args: "experiment uber --trials 2",
        needs: &[
            "uber_nyc_apr14/uber-raw-data-apr14.csv",
            "manhattan_candidates/landmarks_33.csv",
            "manhattan_candidates/grid_33.csv",
        ],
    },
    ExperimentCase {
        name: "experiment_nhanes",
        args: "experiment nhanes --trials 2",
        needs: &["nhanes_diabetes/nhanes_2007_2012_diabetes_binary23.csv"],
    },
    ExperimentCase {
        name: "experiment_matroid",
        args: "experiment matroid --trials 2",
        needs: &[
            "uber_nyc_apr14/uber-raw-data-apr14.csv",
            "manhattan_candidates/landmarks_33.csv",
        ],
    },
    ExperimentCase {
        name: "experiment_margin",
        args: "experiment margin --trials 2",
        needs: &["fimi_chess/chess.dat"],
    },
    ExperimentCase {
        name: "experiment_histograms",
        args: "experiment histograms --trials 1 --quick --folds 2 --datasets iris,adult",
        needs: &["uci_iris/iris.data", "uci_adult/adult.data"],
    },
];

/// The tests of this module: the cases, the experiments, then the check of the files.
pub fn tests() -> Vec<DataTest> {
    let mut tests: Vec<DataTest> = Vec::new();
    // libtest-mimic takes plain `fn()` bodies: one per case, found by name at run time.
    macro_rules! case_tests {
        ($($i:literal)*) => {$(
            if $i < CASES.len() {
                tests.push(DataTest { name: CASES[$i].name, needs: &[], run: || run_case(&CASES[$i]) });
            }
        )*};
    }
    case_tests!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29
                30 31 32 33 34 35 36 37 38 39 40 41 42 43 44);
    macro_rules! experiment_tests {
        ($($i:literal)*) => {$(
            tests.push(DataTest {
                name: EXPERIMENTS[$i].name,
                needs: EXPERIMENTS[$i].needs,
                run: || run_experiment(&EXPERIMENTS[$i]),
            });
        )*};
    }
    experiment_tests!(0 1 2 3 4);
    tests.push(DataTest {
        name: "every_case_has_a_golden_file_and_no_file_is_orphaned",
        needs: &[],
        run: every_case_has_a_golden_file_and_no_file_is_orphaned,
    });
    tests
}

/// The real data folder, absolute, if it exists.
fn data_root() -> Option<PathBuf> {
    std::fs::canonicalize(disguise::data::data_root()).ok()
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn bless() -> bool {
    std::env::var_os("DISGUISE_BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// A fresh folder for `case` holding a copy of every input file.
fn case_dir(case: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("golden")
        .join(case);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(golden_dir().join("inputs")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// What may differ between two correct runs: the wall-clock `"seconds"` of an experiment
/// report, and the data folder's absolute path (`<DATA>`).
fn normalise(text: &str) -> String {
    let data = data_root();
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let line = match line.trim_start().strip_prefix("\"seconds\": ") {
            Some(rest) => {
                let indent = &line[..line.len() - line.trim_start().len()];
                let comma = if rest.ends_with(',') { "," } else { "" };
                format!("{indent}\"seconds\": 0{comma}")
            }
            None => line.to_string(),
        };
        let line = match &data {
            Some(root) => line.replace(&root.display().to_string(), "<DATA>"),
            None => line,
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Compares `got` with the golden file `name`, or writes it when blessing.
fn check(name: &str, got: &str) {
    let path = golden_dir().join(name);
    if bless() {
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (write it with DISGUISE_BLESS=1, for a change you can name)",
            path.display()
        )
    });
    if want != got {
        let (line, (w, g)) = want
            .lines()
            .chain(std::iter::repeat("<end of file>"))
            .zip(got.lines().chain(std::iter::repeat("<end of file>")))
            .enumerate()
            .find(|(_, (w, g))| w != g)
            .unwrap_or((0, ("", "")));
        panic!(
            "{} differs at line {}:\n  expected: {w}\n  got:      {g}\n(update it with \
             DISGUISE_BLESS=1 only for a change you can name, in its own commit)",
            path.display(),
            line + 1
        );
    }
}

fn disguise(dir: &Path, args: &[String]) -> String {
    let out = Command::cargo_bin("disguise")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    // Exit status 4: the run completed and released nothing (its report is the golden file,
    // and stderr says so).
    let stderr = String::from_utf8_lossy(&out.stderr);
    let nothing = out.status.code() == Some(4) && stderr.contains("nothing released: ");
    assert!(
        out.status.success() || nothing,
        "disguise {}: {}\n{stderr}",
        args.join(" "),
        out.status,
    );
    String::from_utf8(out.stdout).expect("UTF-8 report")
}

fn run_case(case: &Case) {
    let dir = case_dir(case.name);
    let mut args = split_args(case.args);
    if args[0] != "budget" {
        args.extend(["--seed", "1"].map(String::from));
    }
    args.extend(["--format", "json"].map(String::from));
    let report = disguise(&dir, &args);
    check(&format!("{}.json", case.name), &normalise(&report));
    for file in case.writes {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        check(&format!("{}.{file}", case.name), &normalise(&text));
    }
}

fn run_experiment(case: &ExperimentCase) {
    let dir = case_dir(case.name);
    let mut args = split_args(case.args);
    args.extend(["--out", "out", "--seed", "1", "--quiet", "--format", "json"].map(String::from));
    let data = data_root().expect("the data folder (the case lists what it reads)");
    args.extend(["--data-dir".to_string(), data.display().to_string()]);
    let report = disguise(&dir, &args);
    check(&format!("{}.json", case.name), &normalise(&report));
    let mut tables: Vec<PathBuf> = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    tables.sort();
    assert!(!tables.is_empty(), "{}: no CSV tables written", case.name);
    for table in tables {
        let file = table.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&table).unwrap();
        check(&format!("{}.{file}", case.name), &normalise(&text));
    }
}

fn every_case_has_a_golden_file_and_no_file_is_orphaned() {
    let names: Vec<&str> = CASES
        .iter()
        .map(|c| c.name)
        .chain(EXPERIMENTS.iter().map(|c| c.name))
        .collect();
    assert!(CASES.len() <= 45, "raise the case_tests! list in tests()");
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "two cases share a name");
    let mut seen_json = Vec::new();
    for entry in std::fs::read_dir(golden_dir()).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_file() || path.file_name().is_some_and(|n| n == "README.md") {
            continue;
        }
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let case = names
            .iter()
            .filter(|n| file.starts_with(&format!("{n}.")))
            .max_by_key(|n| n.len())
            .unwrap_or_else(|| panic!("{file}: no case of that name (orphaned golden file)"));
        if file == format!("{case}.json") {
            seen_json.push(*case);
        }
    }
    for case in CASES {
        assert!(
            seen_json.contains(&case.name),
            "{}: no golden file {}.json",
            case.name,
            case.name
        );
    }
}
