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
//! would silently never run: every test is listed in the target's `main`, and [`run`] adds
//! a test that fails if the target's source holds a `#[test]` attribute.

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

/// Runs `tests` with the command-line flags the standard harness takes and returns the exit
/// code (non-zero if any test failed). `source` is the target's own text
/// (`include_str!` of its file), checked for `#[test]` attributes that would never run.
pub fn run(source: &'static str, tests: Vec<DataTest>) -> ExitCode {
    default_data_folder();
    let args = Arguments::from_args();
    let mut trials: Vec<Trial> = tests.into_iter().map(trial).collect();
    trials.push(Trial::test("every_test_is_listed_in_main", move || {
        let stray: Vec<usize> = source
            .lines()
            .enumerate()
            .filter(|(_, line)| line.trim_start().starts_with("#[test]"))
            .map(|(i, _)| i + 1)
            .collect();
        if stray.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "#[test] on line(s) {stray:?}: this target has no standard harness; \
                 list the test in main instead"
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

fn trial(test: DataTest) -> Trial {
    let mut absent = false;
    for file in test.needs {
        match disguise::data::locate_for_test(file) {
            Ok(Some(_)) => {}
            Ok(None) => absent = true,
            // DISGUISE_REQUIRE_DATA is set: a missing file is a failure, not an ignore.
            Err(err) => {
                let message = format!("{err} (DISGUISE_REQUIRE_DATA is set)");
                return Trial::test(test.name, move || Err(Failed::from(message)));
            }
        }
    }
    let body = test.run;
    Trial::test(test.name, move || {
        body();
        Ok(())
    })
    .with_ignored_flag(absent)
}

/// The path of a real data file; panics (failing the test) with the reason when it is absent.
pub fn data_file(relative: &str) -> PathBuf {
    disguise::data::locate(relative).unwrap_or_else(|err| panic!("{err}"))
}
