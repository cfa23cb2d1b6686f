//! The one registry of names: every mechanism, composition rule, algorithm and metric a user
//! can name is an enum implementing [`Named`], which defines its name, aliases and help
//! once. Parsing ([`std::str::FromStr`]), printing ([`std::fmt::Display`]), the lists in
//! `--help` and error messages, and the names in every report all come from here, for the
//! library, the command line and the Python package alike.
//!
//! ```
//! use disguise::maximize::Mechanism;
//! use disguise::names::Named;
//!
//! let m: Mechanism = "LMM".parse()?; // case-insensitive, aliases accepted
//! assert_eq!(m, Mechanism::LargeMargin);
//! assert_eq!(m.to_string(), "lmm");
//! let err = "magic".parse::<Mechanism>().unwrap_err().to_string();
//! assert!(err.contains("expected one of em, lmm, lmm-chaudhuri, report-noisy-max"), "{err}");
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
        let wanted = name.trim();
        Self::ALL
            .iter()
            .copied()
            .find(|v| {
                v.name().eq_ignore_ascii_case(wanted)
                    || v.aliases().iter().any(|a| a.eq_ignore_ascii_case(wanted))
            })
            .ok_or_else(|| {
                Error::param(
                    Self::KIND,
                    format!(
                        "unknown {} {}; expected one of {}",
                        Self::KIND,
                        quote(wanted),
                        Self::names().join(", ")
                    ),
                )
            })
    }

    /// The canonical names of [`Named::ALL`], in order.
    fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|v| v.name()).collect()
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
    use crate::maximize::Mechanism;
    use crate::objective::Metric;
    use crate::privacy::compose::Rule;
    use crate::task::{Algorithm, CompositionChoice, MechanismChoice};

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
        round_trips::<Mechanism>();
        round_trips::<MechanismChoice>();
        round_trips::<Rule>();
        round_trips::<CompositionChoice>();
        round_trips::<Metric>();
        round_trips::<Algorithm>();
        round_trips::<crate::select::SelectorKind>();
        round_trips::<crate::apps::ItemsetMechanism>();
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
