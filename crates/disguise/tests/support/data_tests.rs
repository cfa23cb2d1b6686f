//! The harness of the tests that need the real datasets (`$DISGUISE_DATA`).
//!
//! The standard test harness cannot decide at run time that a test is ignored, so a test
//! whose data is absent would have to pass silently. These targets run with
//! `harness = false` through `libtest-mimic`, which takes the standard harness's flags
//! (filters, `--ignored`, `--include-ignored`, `--list`, `--exact`, `--test-threads`) and
//! prints its summary, and each test declares the files it reads:
//!
//! * all files present: the test runs (and fails if it is broken);
//! * a file absent: the test is reported **ignored** in the summary (`--include-ignored`
//!   still runs it, and it then fails on the missing file);
//! * a file absent and `DISGUISE_REQUIRE_DATA` set (as `.ci/run` sets it): the test fails,
//!   naming the file.
//!
//! A target using this module is compiled without `--test`, so a `#[test]` function in it
//! would silently never run: every test is listed (in the target's `main`, or in a
//! `tests()` function of each of its modules), and [`run`] adds a test that fails if the
//! source of the target or of one of its modules holds a `#[test]` attribute.

// Each target uses only some of the helpers.
#![allow(dead_code)]

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::PathBuf;
use std::process::ExitCode;

/// One test: its name, the data files it reads (relative to `$DISGUISE_DATA`; empty for a
/// test that needs none) and its body, which panics on failure like a `#[test]` function.
pub struct DataTest {
    pub name: &'static str,
    pub needs: &'static [&'static str],
    pub run: fn(),
}

/// The tests of one module of a target (a file of its folder): its name, prefixed to the
/// names of its tests (`golden::select_em`; empty: no prefix), its text (`include_str!` of
/// its file, checked for `#[test]` attributes that would never run) and its tests.
pub struct Module {
    pub name: &'static str,
    pub source: &'static str,
    pub tests: Vec<DataTest>,
}

/// Runs the tests of `modules` with the command-line flags the standard harness takes and
/// returns the exit code (non-zero if any test failed).
pub fn run(modules: Vec<Module>) -> ExitCode {
    default_data_folder();
    let args = Arguments::from_args();
    let mut trials: Vec<Trial> = Vec::new();
    let mut sources = Vec::new();
    for module in modules {
        for test in module.tests {
            trials.push(trial(module.name, test));
        }
        sources.push((module.name, module.source));
    }
    trials.push(Trial::test("every_test_is_listed_in_main", move || {
        let stray: Vec<String> = sources
            .iter()
            .flat_map(|(module, source)| {
                source
                    .lines()
                    .enumerate()
                    .filter(|(_, line)| line.trim_start().starts_with("#[test]"))
                    .map(move |(i, _)| format!("{module}.rs:{}", i + 1))
            })
            .collect();
        if stray.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "#[test] at {stray:?}: this target has no standard harness; \
                 list the test in main (or the module's tests()) instead"
            )
            .into())
        }
    }));
    libtest_mimic::run(&args, trials).exit_code()
}

/// The README's default for this repository, `../shared/data` beside the checkout, when
/// `$DISGUISE_DATA` is not set: a test runs in its crate's folder, where the library's own
/// default (relative to the working directory) would not find it. The layout of the
/// repository is known here, in the tests, and nowhere in the library.
fn default_data_folder() {
    if std::env::var_os("DISGUISE_DATA").is_none() {
        let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
        // SAFETY: called first in `main`, before the harness (or anything else) starts a
        // thread that could read the environment.
        unsafe { std::env::set_var("DISGUISE_DATA", folder) };
    }
}

/// `test` as a trial named `module::name` (`name` if `module` is empty).
fn trial(module: &str, test: DataTest) -> Trial {
    let name = if module.is_empty() {
        test.name.to_string()
    } else {
        format!("{module}::{}", test.name)
    };
    let mut absent = false;
    for file in test.needs {
        match disguise::data::locate_for_test(file) {
            Ok(Some(_)) => {}
            Ok(None) => absent = true,
            // DISGUISE_REQUIRE_DATA is set: a missing file is a failure, not an ignore.
            Err(err) => {
                let message = format!("{err} (DISGUISE_REQUIRE_DATA is set)");
                return Trial::test(name, move || Err(Failed::from(message)));
            }
        }
    }
    let body = test.run;
    Trial::test(name, move || {
        body();
        Ok(())
    })
    .with_ignored_flag(absent)
}

/// The path of a real data file; panics (failing the test) with the reason when it is absent.
pub fn data_file(relative: &str) -> PathBuf {
    disguise::data::locate(relative).unwrap_or_else(|err| panic!("{err}"))
}
