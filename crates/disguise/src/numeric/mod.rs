//! Floating-point helpers shared by the mechanisms and the accountant, each in one place:
//! directed rounding ([`round`]) and exact decompositions of a double ([`bits`]).

pub(crate) mod bits;
pub(crate) mod round;
