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
    /// Work or memory that an input asks for beyond a documented limit, refused before any
    /// of it is spent (e.g. counting itemsets whose subsets would number 10^13).
    #[error("{what} (limit {}{})", show_limit(*.limit), raise.map(|r| format!(", raise it with {r}")).unwrap_or_default())]
    LimitExceeded {
        /// What the input asks for, with the estimate, e.g. "counting itemsets of size 10
        /// would enumerate 1.1e12 subsets of the transactions".
        what: String,
        /// The limit the estimate exceeds.
        limit: u64,
        /// The parameter that raises the limit, if one does (its library name; a front end
        /// names its own flag).
        raise: Option<&'static str>,
    },
    /// Memory an input asks for, estimated before anything is allocated, beyond what the
    /// machine has available ([`crate::memory::check`]).
    #[error("{what} would need about {} of memory, more than {}: {advice}", crate::numeric::display::bytes(*.needed), available.map(|a| format!("the {} available", crate::numeric::display::bytes(a.into()))).unwrap_or_else(|| "what this machine can address".into()))]
    Memory {
        /// What would hold the memory, e.g. "--trials 1e12 with --format json".
        what: String,
        /// The estimate, in bytes.
        needed: u128,
        /// The memory available when the estimate was made, if known.
        available: Option<u64>,
        /// What to do instead.
        advice: String,
    },
    /// An allocation sized by the input failed: the input needs more memory than there is.
    #[error("not enough memory for {0}")]
    OutOfMemory(String),
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

/// A limit for messages: powers of ten from 10⁴ on as `1e8`, other numbers in full.
fn show_limit(limit: u64) -> String {
    let digits = limit.to_string();
    let zeros = digits.len() - 1;
    if zeros >= 4 && digits.starts_with('1') && digits[1..].bytes().all(|b| b == b'0') {
        format!("1e{zeros}")
    } else {
        digits
    }
}

impl Error {
    /// Shorthand for [`Error::InvalidParameter`].
    pub fn param(name: &'static str, reason: impl Into<String>) -> Self {
        Error::InvalidParameter {
            name,
            reason: reason.into(),
        }
    }
}
