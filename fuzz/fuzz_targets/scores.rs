//! Score files for `sample`: `read_scores` and `read_scores_from` (a stream).
//! The calls are in `crates/disguise/tests/support/parsers.rs`, shared with the test suite.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| disguise_fuzz::feed("scores", data));
