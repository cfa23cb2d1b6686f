//! Constraint files and specs (`--constraint`): partition files, edge lists, `KIND:ARG`.
//! The calls are in `crates/disguise/tests/support/parsers.rs`, shared with the test suite.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| disguise_fuzz::feed("constraints", data));
