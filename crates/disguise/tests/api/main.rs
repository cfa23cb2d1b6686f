//! The library's integration tests on the standard harness: one module per area, all in one
//! test binary (each binary links the whole library, so one binary instead of one per file
//! saves most of the suite's build time). The tests on the real datasets are in
//! `../real_data.rs` (`harness = false`).

#[path = "../support/mod.rs"]
mod support;

mod apps;
mod audit;
mod cluster;
mod cluster_faults;
mod constraints;
mod continuous_greedy;
mod fuzz_inputs;
mod histogram;
mod k_submodular;
mod learn;
mod maximize;
mod objectives;
mod plans;
mod seeded_spends;
