//! The integration tests of the `disguise` binary on the standard harness: one module per
//! command or area, all in one test binary (each binary links the library and the CLI, so
//! one binary instead of one per file saves most of the suite's build time). The tests that
//! read the real data, the experiments and the golden files are in `../data/`.

#[path = "../common/mod.rs"]
mod common;

mod assign;
mod bad_input;
mod budget;
mod cover;
mod cut;
mod demo;
mod distributed;
mod features;
mod histogram;
mod hypothesis;
mod itemsets;
mod ledger;
mod neighbours;
mod sample;
mod schema;
mod select;
mod synth;
mod topics;
