//! # disguise — differentially private selection and submodular maximization
//!
//! Choosing a few representative or informative items from sensitive data about people,
//! with a proven (ε, δ) guarantee attached to every result.
//!
//! The library is organised along the axes of `ARCHITECTURE.md`:
//!
//! * [`noise`] — the cryptographically secure generator [`SecureRng`] and exact samplers
//!   (the only place randomness comes from);
//! * [`select`] — private selection of one candidate from a score vector
//!   (exponential mechanism, two large margin mechanisms, report noisy max, argmax);
//! * [`privacy`] — validated privacy parameters and the accountant that composes the
//!   per-call costs into end-to-end guarantees;
//! * [`objective`] — submodular set functions with incremental bulk gains and proven
//!   sensitivities;
//! * [`constraint`] — cardinality, matroid and p-extendible constraints;
//! * [`maximize`] — the greedy family of algorithms (private and non-private);
//! * [`histogram`] — differentially private projected histograms (Vinterbo 2012): schemas
//!   with public domains, discretization, the sparse thresholded Laplace histogram,
//!   PRIVATEKD attribute selection and synthetic data release;
//! * [`learn`] — logistic regression (weighted, binary and multinomial), the private ERM
//!   baselines PLR/PMLR, AUC/Hand–Till metrics and stratified cross-validation;
//! * [`apps`] — applications of private selection (chaudhuri2014 §4): frequent itemsets with
//!   the large margin mechanism over the itemsets that occur (or the exponential mechanism
//!   over a public item list, the zero-frequency itemsets sampled as one block), and private
//!   hypothesis selection among decision stumps;
//! * [`audit`] — black-box empirical privacy audits, used by the test suite;
//! * `ledger` — the privacy budget ledger: every release on a data set recorded in an
//!   SQLite file, over-spending refused before anything is released (feature `ledger`);
//! * [`files`] — safe output: atomic writes that never go over an input;
//! * [`text`] — reports for people: the lines and tables a front end prints.
//!
//! ```
//! use disguise::prelude::*;
//!
//! let mut rng = SecureRng::from_os()?;
//! let em = Exponential::new(Epsilon::new(1.0)?);
//! let choice = em.select(&[3.0, 10.0, 4.0], Sensitivity::new(1.0)?, &mut rng)?;
//! assert!(choice.index < 3);
//! # Ok::<(), disguise::Error>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// `::disguise::…` paths, which #[derive(Disclose)] writes, work inside the crate too.
extern crate self as disguise;

pub mod apps;
pub mod audit;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod constraint;
pub mod data;
pub mod disclosure;
pub mod error;
pub mod files;
pub mod histogram;
pub mod learn;
#[cfg(feature = "ledger")]
pub mod ledger;
pub mod maximize;
pub mod memory;
pub mod names;
pub mod noise;
pub mod numeric;
pub mod objective;
pub mod privacy;
#[cfg(feature = "progress")]
pub mod progress;
pub mod select;
pub mod synth;
pub mod task;
#[cfg(test)]
mod testing;
pub mod text;

pub use error::{Error, Result};
pub use noise::SecureRng;

/// The short front door: everything a typical user needs in one `use`.
pub mod prelude {
    pub use crate::error::{Error, Result};
    pub use crate::noise::SecureRng;
    pub use crate::privacy::{Delta, Epsilon, Guarantee, PrivacyCost, Sensitivity};
    pub use crate::select::{Exponential, Selection, Selector, SelectorKind};
    pub use crate::task::{Reporting, Runnable, Select, WithPrivacy};
}
