//! Points/candidates CSV: `read_columns` and `read_columns_checked`.
//! The calls are in `crates/disguise/tests/support/parsers.rs`, shared with the test suite.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| disguise_fuzz::feed("columns", data));
