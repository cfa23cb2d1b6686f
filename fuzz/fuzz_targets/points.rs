//! Points/candidates CSV read straight into pairs: `read_points`.
//! The calls are in `crates/disguise/tests/support/parsers.rs`, shared with the test suite.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| disguise_fuzz::feed("points", data));
