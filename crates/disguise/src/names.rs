//! The one registry of names: every mechanism, composition rule, algorithm and metric a user
//! can name is an enum implementing [`Named`], which defines its name, aliases and help
//! once. Parsing ([`std::str::FromStr`]), printing ([`std::fmt::Display`]), the lists in
//! `--help` and error messages, and the names in every report all come from here, for the
//! library, the command line and the Python package alike.
//!
//! ```
//! use disguise::names::Named;
//! use disguise::select::SelectorKind;
//!
//! let m: SelectorKind = "LMM".parse()?; // case-insensitive, aliases accepted
//! assert_eq!(m, SelectorKind::LargeMargin);
//! assert_eq!(m.to_string(), "lmm");
//! let err = "magic".parse::<SelectorKind>().unwrap_err().to_string();
//! assert!(err.contains("expected one of em, em-monotone, lmm, lmm-chaudhuri"), "{err}");
//! # Ok::<(), disguise::Error>(())
//! ```

use crate::data::quote;
use crate::error::{Error, Result};

/// A closed set of values that users choose by name.
pub trait Named: Copy + PartialEq + Sized + 'static {
    /// What the values are, as error messages name the parameter (`mechanism`, `metric`).
    const KIND: &'static str;
    /// Every value, in the order lists show them.
    const ALL: &'static [Self];

    /// The canonical name (kebab-case), as parsed, printed and serialised.
    fn name(self) -> &'static str;

    /// Other names accepted when parsing (never printed).
    fn aliases(self) -> &'static [&'static str] {
        &[]
    }

    /// One line for lists such as `--help`: what choosing this value means.
    fn help(self) -> &'static str;

    /// The value named `name` (trimmed, ASCII case-insensitive, aliases accepted).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming [`Named::KIND`] and listing the valid names.
    fn from_name(name: &str) -> Result<Self> {
        Self::from_name_among(name, Self::ALL)
    }

    /// The value named `name` among `values` only (a task that accepts some of the values,
    /// such as [`Itemsets::MECHANISMS`](crate::task::Itemsets::MECHANISMS)), as
    /// [`Named::from_name`].
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming [`Named::KIND`] and listing `values`.
    ///
    /// ```
    /// use disguise::names::Named;
    /// use disguise::select::SelectorKind;
    /// use disguise::task::Itemsets;
    ///
    /// assert_eq!(SelectorKind::from_name_among("em", Itemsets::MECHANISMS)?, SelectorKind::Exponential);
    /// let err = SelectorKind::from_name_among("max", Itemsets::MECHANISMS).unwrap_err();
    /// assert!(err.to_string().ends_with("expected one of lmm, lmm-chaudhuri, em"), "{err}");
    /// # Ok::<(), disguise::Error>(())
    /// ```
    fn from_name_among(name: &str, values: &[Self]) -> Result<Self> {
        let wanted = name.trim();
        let named = |v: &Self| {
            v.name().eq_ignore_ascii_case(wanted)
                || v.aliases().iter().any(|a| a.eq_ignore_ascii_case(wanted))
        };
        if let Some(&v) = values.iter().find(|v| named(v)) {
            return Ok(v);
        }
        let (before, after) = if Self::ALL.iter().any(named) {
            ("", " does not apply here")
        } else {
            ("unknown ", "")
        };
        Err(Error::param(
            Self::KIND,
            format!(
                "{before}{} {}{after}; expected one of {}",
                Self::KIND,
                quote(wanted),
                Self::list(values)
            ),
        ))
    }

    /// The canonical names of [`Named::ALL`], in order.
    fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|v| v.name()).collect()
    }

    /// The canonical names of `values`, comma separated, as error messages list them.
    fn list(values: &[Self]) -> String {
        values
            .iter()
            .map(|v| v.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// `FromStr` and `Display` for a [`Named`] type, both through its name.
macro_rules! named_traits {
    ($($t:ty),* $(,)?) => {$(
        impl ::std::str::FromStr for $t {
            type Err = $crate::Error;
            fn from_str(s: &str) -> $crate::Result<Self> {
                <$t as $crate::names::Named>::from_name(s)
            }
        }
        impl ::std::fmt::Display for $t {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str($crate::names::Named::name(*self))
            }
        }
    )*};
}
pub(crate) use named_traits;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::objective::Metric;
    use crate::privacy::compose::Rule;
    use crate::select::SelectorKind;
    use crate::task::{Algorithm, CompositionChoice};

    /// Every name and alias of `T` parses back to its value, and no two values share one.
    fn round_trips<T: Named + std::fmt::Debug + std::str::FromStr<Err = Error> + ToString>() {
        let mut seen = std::collections::HashSet::new();
        for &v in T::ALL {
            assert_eq!(v.to_string(), v.name());
            assert_eq!(v.name().parse::<T>().unwrap(), v);
            assert_eq!(v.name().to_uppercase().parse::<T>().unwrap(), v);
            assert!(!v.help().is_empty(), "{v:?} has no help");
            for a in std::iter::once(v.name()).chain(v.aliases().iter().copied()) {
                assert_eq!(T::from_name(&format!(" {a} ")).unwrap(), v);
                assert!(seen.insert(a.to_ascii_lowercase()), "{a} names two values");
            }
        }
        let err = T::from_name("no-such-name").unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("invalid {}: unknown", T::KIND)),
            "{err}"
        );
        assert!(err.contains(&T::names().join(", ")), "{err}");
    }

    #[test]
    fn every_registry_round_trips() {
        round_trips::<SelectorKind>();
        round_trips::<Rule>();
        round_trips::<CompositionChoice>();
        round_trips::<Metric>();
        round_trips::<Algorithm>();
        round_trips::<crate::privacy::budget::CallKind>();
        round_trips::<crate::task::FeatureObjective>();
        round_trips::<crate::histogram::GammaRule>();
        #[cfg(feature = "ledger")]
        round_trips::<crate::ledger::Unit>();
    }

    #[test]
    fn long_unknown_names_are_quoted_briefly() {
        let err = Metric::from_name(&"x".repeat(10_000))
            .unwrap_err()
            .to_string();
        assert!(err.len() < 300 && err.contains("(10000 bytes)"), "{err}");
    }
}
