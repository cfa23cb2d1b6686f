//! Code shared by test targets (`mod support;`); not a test target itself.

pub mod data_tests;
pub mod parsers;
