//! Command-line values from the library's registry of names ([`disguise::names`]): the
//! accepted values, their aliases and their `--help` lines all come from there.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use disguise::names::Named;

/// The value parser of a flag that takes one of the names of `T`.
pub fn named<T: Named + Clone + Send + Sync>() -> impl TypedValueParser<Value = T> {
    named_among(T::ALL)
}

/// The value parser of a flag that takes one of `values` only (a command where the others
/// do not apply): `--help` lists just these, and the others are refused by clap.
pub fn named_among<T: Named + Clone + Send + Sync>(
    values: &'static [T],
) -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(values.iter().map(|v| {
        PossibleValue::new(v.name())
            .help(v.help())
            .aliases(v.aliases().iter().copied())
    }))
    .try_map(|name| T::from_name(&name))
}
