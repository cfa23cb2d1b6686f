//! Floating-point helpers, each in one place: directed rounding (`round`) and exact
//! decompositions of a double (`bits`) for the mechanisms and the accountant (internal), and
//! the mean and standard deviation of results ([`stats`]).

pub(crate) mod bits;
pub(crate) mod round;
pub mod stats;
