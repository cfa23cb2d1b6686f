//! FIMI and CSV transaction files: `Transactions::read`, with and without a public item
//! list, then itemsets counted (bounded work).
//! The calls are in `crates/disguise/tests/support/parsers.rs`, shared with the test suite.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| disguise_fuzz::feed("transactions", data));
