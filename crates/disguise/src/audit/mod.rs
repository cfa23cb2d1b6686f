//! Empirical privacy audits: statistical checks that a mechanism does what its proof says.
//!
//! A privacy proof is about a distribution; an implementation draws samples. The audit
//! checks the samples in three ways, all run by the test suite:
//!
//! 1. **Exact goodness of fit** ([`gof::chi_square`] against [`exact`] distributions): for
//!    small instances whose output distribution can be computed exactly, many samples are
//!    tested against it. Catches any sampling bug, privacy-relevant or not.
//! 2. **Black-box privacy-loss lower bound** ([`audit`]): run a mechanism many times on two
//!    neighbouring inputs and certify, with Clopper–Pearson intervals
//!    ([`clopper_pearson()`]), a lower bound
//!    `ε_lower = max_E ln((p_lo(D) − δ) / p_hi(D′))` over output events E and both
//!    directions. If `ε_lower` exceeds the claimed ε, the implementation is refuted — with a
//!    false-alarm probability of at most `1 − confidence` (1e-6 by default).
//! 3. **Testing the tester**: the test suite (`crates/disguise/tests/api/audit.rs`) runs the
//!    harness on deliberately broken mechanisms (the exponential mechanism with its factor 2
//!    forgotten, the monotone mechanism on non-monotone neighbours, a sparse-vector step that
//!    releases its noisy value) and asserts that each is flagged, so a passing audit of the
//!    real mechanisms means something.
//!
//! # What a passing audit means
//! `ε_lower` is a **lower** bound: it can certify that a mechanism is *not* private
//! (a bug, stated with confidence), never that it is. Passing shows that on the worst-case
//! neighbours tried, with the sample size used, no event revealed more than the claimed loss.

pub mod clopper_pearson;
pub mod exact;
pub mod gof;
mod harness;

pub use clopper_pearson::{Interval, clopper_pearson};
pub use harness::{AuditConfig, AuditReport, Direction, EventBound, OutputCount, audit};
