//! Public item lists (`itemsets --items`): `read_item_list`, then used to read a file.
//! The calls are in `crates/disguise/tests/support/parsers.rs`, shared with the test suite.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| disguise_fuzz::feed("item_list", data));
