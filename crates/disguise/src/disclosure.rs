//! What a release may show, by type: [`Public`], [`Released`] and [`Diagnostic`] values, and
//! the [`Disclose`] trait of the reports built from them.
//!
//! # The rule
//!
//! A release's default output — what a front end prints, writes or returns — is a function
//! of the public inputs (options, schema, public files, the public number of records n) and
//! of values released by a mechanism, with their post-processing. Anything computed from
//! the private data without noise is a *diagnostic*: shown only on request (`--diagnostics`,
//! Python's `diagnostics=True`), in a section of its own (`not_private`), never mixed into
//! the release.
//!
//! # How the compiler keeps it
//!
//! Every report type derives [`Disclose`] beside `serde::Serialize`. The derive accepts a
//! field only if its type says what it is:
//!
//! * [`Public<T>`]: a function of public inputs. Constructing one is a claim, made where the
//!   value is computed ([`Public::new`]);
//! * [`Released<T>`]: a mechanism's output or post-processing of released and public values
//!   ([`Released::map`]);
//! * another report, or an `Option`/`Vec`/`Box` of one; the few domain types that are public
//!   by nature (a [`Guarantee`](crate::privacy::Guarantee) the accountant computed from the
//!   planned calls, a mechanism's name) are listed at the end of this file with the reason;
//! * [`Diagnostic<T>`]: it has no `Serialize`, `Display` or revealing `Debug`, so it cannot be
//!   printed by the default printers; the field must be `#[serde(skip)]` (serde's derive
//!   refuses it otherwise) and appears only in [`Disclose::not_private`];
//! * `#[disclose(internal)]` with `#[serde(skip)]`: bookkeeping no printer shows (the calls a
//!   ledger composes).
//!
//! A raw `usize` or `f64` field does not compile:
//!
//! ```compile_fail
//! use disguise::disclosure::Disclose;
//! #[derive(serde::Serialize, Disclose)]
//! struct Leaky {
//!     edges: usize, // the trait `Disclose` is not implemented for `usize`
//! }
//! ```
//!
//! nor does a diagnostic in the default serialisation:
//!
//! ```compile_fail
//! use disguise::disclosure::{Diagnostic, Disclose};
//! #[derive(serde::Serialize, Disclose)]
//! struct Leaky {
//!     edges: Diagnostic<usize>, // `Diagnostic<usize>` is not `Serialize`
//! }
//! ```
//!
//! A report that keeps both:
//!
//! ```
//! use disguise::disclosure::{Diagnostic, Disclose, Public, shown};
//! #[derive(serde::Serialize, Disclose)]
//! struct CutSummary {
//!     records: Public<usize>,
//!     #[serde(skip)]
//!     edges: Diagnostic<usize>,
//! }
//! let r = CutSummary { records: Public::new(7), edges: Diagnostic::new(4) };
//! assert_eq!(serde_json::to_string(&shown(&r, false)).unwrap(), r#"{"records":7}"#);
//! assert_eq!(
//!     serde_json::to_string(&shown(&r, true)).unwrap(),
//!     r#"{"records":7,"not_private":{"edges":4}}"#
//! );
//! ```
//!
//! The types keep a value's kind visible where a report declares it; the neighbour harness
//! of the test suite (RELIABILITY.md) checks the claims: every command's default output is
//! byte-identical on neighbouring data sets whenever the released values coincide.

use serde::{Serialize, Serializer};
use std::fmt;
use std::ops::Deref;

pub use disguise_derive::Disclose;
#[doc(hidden)]
pub use serde_json::Value;

/// A value computed from public inputs only: options, a schema, public files, the public
/// number of records. Serialised and displayed as the value itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Public<T>(T);

impl<T> Public<T> {
    /// Claims `value` public: write it where the value is computed from public inputs.
    pub const fn new(value: T) -> Self {
        Self(value)
    }

    /// The value.
    pub fn into_inner(self) -> T {
        self.0
    }

    /// A function of this public value: public too.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Public<U> {
        Public(f(self.0))
    }
}

impl<T> Deref for Public<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: fmt::Display> fmt::Display for Public<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<T> From<T> for Public<T> {
    fn from(value: T) -> Self {
        Self(value)
    }
}

/// A value released by a mechanism (the picks of the exponential mechanism, a noisy count,
/// a synthetic row), or post-processing of released and public values. Serialised and
/// displayed as the value itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Released<T>(T);

impl<T> Released<T> {
    /// Claims `value` released: write it where a mechanism's output is taken.
    pub const fn new(value: T) -> Self {
        Self(value)
    }

    /// The value.
    pub fn into_inner(self) -> T {
        self.0
    }

    /// Post-processing: a function of a released value (and of public ones) is released.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Released<U> {
        Released(f(self.0))
    }

    /// Post-processing of a borrowed released value.
    pub fn as_map<U>(&self, f: impl FnOnce(&T) -> U) -> Released<U> {
        Released(f(&self.0))
    }

    /// The value to fill in place, for the library's builders of released values.
    pub(crate) fn fill(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T> Deref for Released<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: fmt::Display> fmt::Display for Released<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A value computed from the private data without noise: an exact utility, a count of
/// dropped records, a training accuracy. NOT covered by any guarantee.
///
/// It cannot be printed by accident: no `Serialize`, no `Display`, and its `Debug` does not
/// show the value. [`Diagnostic::reveal`] gives it to a caller who asked for diagnostics;
/// front ends show it under `not_private` ([`shown`]).
///
/// ```
/// use disguise::disclosure::Diagnostic;
/// let exact = Diagnostic::new(0.8712);
/// assert_eq!(format!("{exact:?}"), "Diagnostic(not shown: NOT private)");
/// assert_eq!(*exact.reveal(), 0.8712);
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Diagnostic<T>(T);

impl<T> Diagnostic<T> {
    /// Marks `value`, computed from the private data without noise, as a diagnostic.
    pub const fn new(value: T) -> Self {
        Self(value)
    }

    /// The value, for a caller who asked for diagnostics (NOT private).
    pub fn reveal(&self) -> &T {
        &self.0
    }

    /// The value, taken (NOT private).
    pub fn into_revealed(self) -> T {
        self.0
    }

    /// A function of a diagnostic is a diagnostic.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Diagnostic<U> {
        Diagnostic(f(self.0))
    }

    /// A function of a borrowed diagnostic is a diagnostic.
    pub fn as_map<U>(&self, f: impl FnOnce(&T) -> U) -> Diagnostic<U> {
        Diagnostic(f(&self.0))
    }

    /// The value to fill in place, for the library's builders of diagnostics.
    pub(crate) fn fill(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T> fmt::Debug for Diagnostic<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Diagnostic(not shown: NOT private)")
    }
}

/// A report whose serialisation shows only public and released values, and whose
/// diagnostics [`Disclose::not_private`] gathers apart. Derive it (`#[derive(Disclose)]`):
/// the derive checks every field's kind (see the module documentation).
pub trait Disclose: Serialize {
    /// The report's diagnostics as one JSON object (fields nested as in the report), `None`
    /// when it has none. Computed only when asked for.
    fn not_private(&self) -> Option<Value> {
        None
    }
}

impl<T: Serialize> Disclose for Public<T> {}
impl<T: Serialize> Disclose for Released<T> {}

impl<D: Disclose> Disclose for Option<D> {
    fn not_private(&self) -> Option<Value> {
        self.as_ref().and_then(Disclose::not_private)
    }
}

impl<D: Disclose> Disclose for Vec<D> {
    fn not_private(&self) -> Option<Value> {
        self.as_slice().not_private()
    }
}

impl<D: Disclose> Disclose for [D] {
    /// One entry per element (`null` for those without) when any element has diagnostics.
    fn not_private(&self) -> Option<Value> {
        let each: Vec<Option<Value>> = self.iter().map(Disclose::not_private).collect();
        if each.iter().all(Option::is_none) {
            return None;
        }
        Some(Value::Array(
            each.into_iter().map(|v| v.unwrap_or(Value::Null)).collect(),
        ))
    }
}

impl<D: Disclose + ?Sized> Disclose for Box<D> {
    fn not_private(&self) -> Option<Value> {
        (**self).not_private()
    }
}

impl<D: Disclose + ?Sized> Disclose for &D {
    fn not_private(&self) -> Option<Value> {
        (**self).not_private()
    }
}

/// Text written into the program: names of objectives, algorithms, units and notes. A
/// `'static` string cannot be built from data read at run time (short of leaking it).
impl Disclose for &'static str {}

/// The diagnostics a derived [`Disclose::not_private`] gathers: one JSON object.
#[doc(hidden)]
#[derive(Default)]
pub struct NotPrivate(serde_json::Map<String, Value>);

impl NotPrivate {
    /// Reveals a diagnostic under `key`: the one place a diagnostic is serialised.
    pub fn reveal<T: Serialize>(&mut self, key: &str, value: &Diagnostic<T>) {
        let json = serde_json::to_value(&value.0)
            .unwrap_or_else(|e| Value::String(format!("(not representable: {e})")));
        self.0.insert(key.to_string(), json);
    }

    /// A part's diagnostics under its `key`, if it has any.
    pub fn nest<D: Disclose + ?Sized>(&mut self, key: &str, value: &D) {
        if let Some(v) = value.not_private() {
            self.0.insert(key.to_string(), v);
        }
    }

    /// A flattened part's diagnostics, merged into this object.
    pub fn flatten<D: Disclose + ?Sized>(&mut self, value: &D) {
        match value.not_private() {
            Some(Value::Object(map)) => self.0.extend(map),
            Some(other) => {
                self.0.insert("value".into(), other);
            }
            None => {}
        }
    }

    /// The object, `None` when empty.
    pub fn finish(self) -> Option<Value> {
        (!self.0.is_empty()).then_some(Value::Object(self.0))
    }
}

/// A report as a front end shows it: its default serialisation, and with `diagnostics` its
/// [`Disclose::not_private`] object appended under the key `not_private`.
pub fn shown<R: Disclose + ?Sized>(report: &R, diagnostics: bool) -> Shown<'_, R> {
    Shown {
        report,
        not_private: if diagnostics {
            report.not_private()
        } else {
            None
        },
    }
}

/// A report and, when asked for, its diagnostics ([`shown`]).
pub struct Shown<'a, R: ?Sized> {
    report: &'a R,
    not_private: Option<Value>,
}

impl<R: Disclose + ?Sized> Shown<'_, R> {
    /// The diagnostics shown, if any.
    pub fn not_private(&self) -> Option<&Value> {
        self.not_private.as_ref()
    }
}

impl<R: Disclose + ?Sized> Serialize for Shown<'_, R> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Both<'a, R: Serialize + ?Sized> {
            #[serde(flatten)]
            report: &'a R,
            not_private: &'a Value,
        }
        match &self.not_private {
            None => self.report.serialize(serializer),
            Some(not_private) => Both {
                report: self.report,
                not_private,
            }
            .serialize(serializer),
        }
    }
}

/// Types that are public by nature, each with the reason.
mod by_nature {
    use super::Disclose;

    /// The accountant's guarantee of the planned calls: a function of the options and of
    /// public sizes (rounds are charged as planned, never as run).
    impl Disclose for crate::privacy::Guarantee {}
    /// A composition rule's name.
    impl Disclose for crate::privacy::compose::Rule {}
    /// A mechanism's name, as the options chose it.
    impl Disclose for crate::select::SelectorKind {}
    /// What one call costs: fixed by the options and the plan.
    impl Disclose for crate::privacy::PrivacyCost {}
    /// What neighbours differ in: fixed by the task.
    impl Disclose for crate::privacy::Unit {}
    /// A budget ledger's overview (`ledger show`): the ledger's own records — each release's
    /// data set name, command, time, mechanism and the spend reserved for it from its
    /// options and public sizes, the limits its curator set — and the ledger's path. Public
    /// with respect to the data: a ledger records what releases cost, never a value read
    /// from the data they were made on.
    #[cfg(feature = "ledger")]
    impl Disclose for crate::ledger::Overview {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Disclose)]
    struct Inner {
        n: Public<usize>,
        #[serde(skip)]
        exact: Diagnostic<f64>,
    }

    #[derive(Serialize, Disclose)]
    struct Outer<C> {
        #[serde(flatten)]
        inner: Inner,
        picks: Released<Vec<usize>>,
        each: Vec<Inner>,
        choice: C,
        #[serde(skip_serializing_if = "Option::is_none")]
        maybe: Option<Inner>,
        #[serde(skip)]
        #[disclose(internal)]
        #[allow(dead_code)]
        calls: Vec<u8>,
        #[serde(skip)]
        #[serde(rename = "dropped_records")]
        dropped: Diagnostic<u64>,
    }

    #[derive(Serialize, Disclose)]
    enum Outcome {
        Nothing,
        Picked {
            index: Released<usize>,
            #[serde(skip)]
            score: Diagnostic<f64>,
        },
    }

    fn outer() -> Outer<Outcome> {
        let inner = |n, exact| Inner {
            n: Public::new(n),
            exact: Diagnostic::new(exact),
        };
        Outer {
            inner: inner(10, 0.5),
            picks: Released::new(vec![3, 1]),
            each: vec![inner(1, 1.5), inner(2, 2.5)],
            choice: Outcome::Picked {
                index: Released::new(3),
                score: Diagnostic::new(7.0),
            },
            maybe: None,
            calls: vec![1],
            dropped: Diagnostic::new(4),
        }
    }

    #[test]
    fn the_default_shows_public_and_released_values_only() {
        let json = serde_json::to_value(shown(&outer(), false)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "n": 10,
                "picks": [3, 1],
                "each": [{"n": 1}, {"n": 2}],
                "choice": {"Picked": {"index": 3}},
            })
        );
        let text = serde_json::to_string(&outer()).unwrap();
        for secret in ["0.5", "1.5", "2.5", "7", "4"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert!(!format!("{:?}", Diagnostic::new(0.5)).contains("0.5"));
    }

    #[test]
    fn diagnostics_gather_under_not_private_as_the_report_nests_them() {
        let json = serde_json::to_value(shown(&outer(), true)).unwrap();
        assert_eq!(
            json["not_private"],
            serde_json::json!({
                "exact": 0.5,
                "each": [{"exact": 1.5}, {"exact": 2.5}],
                "choice": {"score": 7.0},
                "dropped_records": 4,
            })
        );
        // The release itself is unchanged beside it.
        assert_eq!(json["picks"], serde_json::json!([3, 1]));
        let empty = Outcome::Nothing;
        assert!(empty.not_private().is_none());
        assert!(shown(&empty, true).not_private().is_none());
    }

    #[test]
    fn kinds_map_as_they_should() {
        assert_eq!(*Public::new(2).map(|x| x * 2), 4);
        assert_eq!(*Released::new(3).map(|x| x + 1), 4);
        assert_eq!(Diagnostic::new(5).map(|x| x + 1).into_revealed(), 6);
        assert_eq!(Released::new(vec![1]).as_map(Vec::len).into_inner(), 1);
        assert_eq!(Public::new(1.5).to_string(), "1.5");
    }
}
