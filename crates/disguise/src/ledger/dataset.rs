//! The name of a data set in a ledger: given by the caller, trimmed, and never one that
//! differs from another only by case or white space.

use crate::error::{Error, Result};

/// The longest data set name a ledger accepts, in bytes.
const MAX_NAME: usize = 256;

/// Checks a data set name and returns it trimmed of surrounding white space: 1 to 256
/// bytes, no control characters.
///
/// ```
/// use disguise::ledger::check_name;
/// assert_eq!(check_name("  car ")?, "car");
/// assert!(check_name(" ").is_err());
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] naming `dataset`.
pub fn check_name(name: &str) -> Result<&str> {
    let name = name.trim();
    if name.is_empty() {
        return Err(Error::param("dataset", "the name is empty"));
    }
    if name.len() > MAX_NAME {
        return Err(Error::param(
            "dataset",
            format!("the name is {} bytes long, at most {MAX_NAME}", name.len()),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(Error::param(
            "dataset",
            "the name contains a control character",
        ));
    }
    Ok(name)
}

/// What two names that a person would take for the same data set share: lower case, white
/// space removed (`Car`, ` car` and `c ar` are all `car`).
pub(crate) fn likeness(name: &str) -> String {
    name.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The refusal of `name` when `existing` is a different name alike to it.
pub(crate) fn did_you_mean(name: &str, existing: &str) -> Error {
    Error::param(
        "dataset",
        format!(
            "no data set {name:?} in the ledger; did you mean {existing:?}? (the names differ \
             only by case or white space, which would give the same data a second budget)"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_alike_share_their_likeness_and_others_do_not() {
        assert_eq!(likeness("Car"), likeness(" car"));
        assert_eq!(likeness("c ar"), "car");
        assert_ne!(likeness("car"), likeness("cars"));
        assert_eq!(check_name(" car\t").unwrap(), "car");
        assert!(check_name("a\u{7}b").is_err());
        assert!(check_name(&"x".repeat(300)).is_err());
    }
}
