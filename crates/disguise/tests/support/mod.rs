//! Code shared by test targets (`mod support;`); not a test target itself.

pub mod cluster;
pub mod data_tests;
pub mod itemsets;
pub mod parsers;

use disguise::privacy::{Delta, Epsilon, Sensitivity};

/// A valid ε (panics otherwise).
#[allow(dead_code)]
pub fn eps(e: f64) -> Epsilon {
    Epsilon::new(e).unwrap()
}

/// A valid δ (panics otherwise).
#[allow(dead_code)]
pub fn delta(d: f64) -> Delta {
    Delta::new(d).unwrap()
}

/// A valid sensitivity λ (panics otherwise).
#[allow(dead_code)]
pub fn sens(l: f64) -> Sensitivity {
    Sensitivity::new(l).unwrap()
}
