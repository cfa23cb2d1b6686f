//! Numeric helpers, each in one place: directed rounding (`round`) and exact
//! decompositions of a double (`bits`) for the mechanisms and the accountant (internal), and
//! the mean and standard deviation of results ([`stats`]), numbers printed for people
//! ([`display`]: significant digits rounded towards the safe side, `10,000`, `1.5 MB`), and
//! binomial coefficients ([`combinatorics`]).

pub(crate) mod bits;
pub mod combinatorics;
pub mod decimal;
pub mod display;
pub(crate) mod round;
pub mod stats;
