//! The library's one error type. Every fallible public function returns [`Result`].

/// Everything that can go wrong in `disguise`, each variant naming the offending input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// ε must be a finite number strictly greater than zero.
    #[error("epsilon must be finite and > 0, got {0}")]
    InvalidEpsilon(f64),
    /// δ must lie in [0, 1).
    #[error("delta must be in [0, 1), got {0}")]
    InvalidDelta(f64),
    /// A sensitivity (the largest change of a score between neighbouring datasets) must be
    /// finite and strictly positive.
    #[error("sensitivity must be finite and > 0, got {0}")]
    InvalidSensitivity(f64),
    /// A score handed to a selector is NaN or infinite.
    #[error("score at index {index} is not finite: {value}")]
    NonFiniteScore {
        /// Position of the score in the input.
        index: usize,
        /// The offending value.
        value: f64,
    },
    /// A selection was asked of an empty candidate list.
    #[error("no candidates to select from (the score list is empty)")]
    EmptyCandidates,
    /// A parameter outside its documented domain.
    #[error("invalid {name}: {reason}")]
    InvalidParameter {
        /// The parameter's name as the user knows it.
        name: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A size or count that does not fit the integer type that must hold it.
    #[error("size overflow: {0}")]
    Overflow(String),
    /// Input that could not be parsed (a score file, a CSV cell, ...).
    #[error("{0}")]
    Parse(String),
    /// An I/O failure, with the path or source it concerns.
    #[error("{0}")]
    Io(String),
    /// The operating system's random source failed; no noise can be generated securely.
    #[error("the operating system's random source failed: {0}")]
    Entropy(String),
}

/// Shorthand for `std::result::Result<T, disguise::Error>`.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Shorthand for [`Error::InvalidParameter`].
    pub fn param(name: &'static str, reason: impl Into<String>) -> Self {
        Error::InvalidParameter {
            name,
            reason: reason.into(),
        }
    }
}
