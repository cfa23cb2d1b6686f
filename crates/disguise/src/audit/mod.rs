//! Empirical privacy audits (black-box lower bounds on the privacy loss).
