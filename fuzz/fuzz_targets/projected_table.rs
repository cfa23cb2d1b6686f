//! Tables projected and binned while streaming: `read_table_with` with arbitrary plans.
//! The calls are in `crates/disguise/tests/support/parsers.rs`, shared with the test suite.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| disguise_fuzz::feed("projected_table", data));
