//! The CLI's tests that run through `disguise/tests/support/data_tests.rs`
//! (`harness = false`): those on the real datasets in `$DISGUISE_DATA`, the experiments and
//! the golden files. A test whose data is absent is reported *ignored*, and fails instead
//! when `DISGUISE_REQUIRE_DATA` is set (as `.ci/run` does). Each module lists its tests in
//! its `tests()`; they are named `module::test` (`golden::select_em`).

#[path = "../common/mod.rs"]
mod common;
#[path = "../../../disguise/tests/support/data_tests.rs"]
mod data_tests;

mod experiment;
mod experiment_histograms;
mod golden;
mod real_data;

use data_tests::{Module, run};
use std::process::ExitCode;

fn main() -> ExitCode {
    run(vec![
        Module {
            name: "main",
            source: include_str!("main.rs"),
            tests: Vec::new(),
        },
        Module {
            name: "experiment",
            source: include_str!("experiment.rs"),
            tests: experiment::tests(),
        },
        Module {
            name: "experiment_histograms",
            source: include_str!("experiment_histograms.rs"),
            tests: experiment_histograms::tests(),
        },
        Module {
            name: "golden",
            source: include_str!("golden.rs"),
            tests: golden::tests(),
        },
        Module {
            name: "real_data",
            source: include_str!("real_data.rs"),
            tests: real_data::tests(),
        },
    ])
}
