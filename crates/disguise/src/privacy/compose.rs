//! Composition of adaptive mechanism calls into an end-to-end guarantee.

use serde::Serialize;

/// A composition rule the accountant can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// Basic composition: (Σε, Σδ).
    Basic,
    /// Advanced composition (Dwork–Rothblum–Vadhan; mitrovic2017 Thm 3.2).
    Advanced,
    /// Optimal composition of k homogeneous pure-DP calls (Kairouz–Oh–Viswanath 2015).
    Kov,
    /// Bounded range → zCDP → (ε, δ) (Dong–Durfee–Rogers 2020, Cesar–Rogers 2021, tight
    /// conversion of Canonne–Kamath–Steinke 2020).
    Zcdp,
    /// Decomposable objectives (Gupta et al. 2010; mitrovic2017 Thm 3.1).
    Decomposable,
    /// No composition: the single call's own guarantee.
    Single,
}
