//! Proofs of the privacy steps that the library does not take from a published theorem.
//!
//! Each submodule is one file of the repository's `docs/proofs/` folder, included verbatim so
//! that the proof is versioned, reviewed and rendered with the code that relies on it. The
//! overview of which rule, mechanism and objective rests on which proof (paper, file or
//! audit) is the table in `ARCHITECTURE.md`.

#[doc = include_str!("../../../../docs/proofs/decomposable-greedy.md")]
pub mod decomposable_greedy {}

#[doc = include_str!("../../../../docs/proofs/gains-and-values.md")]
pub mod gains_and_values {}

#[doc = include_str!("../../../../docs/proofs/mutual-information.md")]
pub mod mutual_information {}

#[doc = include_str!("../../../../docs/proofs/ledger-composition.md")]
pub mod ledger_composition {}

#[doc = include_str!("../../../../docs/proofs/utility-bounds.md")]
pub mod utility_bounds {}

#[doc = include_str!("../../../../docs/proofs/synthetic-data.md")]
pub mod synthetic_data {}

#[doc = include_str!("../../../../docs/proofs/private-quantiles.md")]
pub mod private_quantiles {}
