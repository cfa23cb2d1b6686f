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
    /// Input that could not be parsed (a score file, a CSV cell, ...): the message names the
    /// file and position; `source` is the underlying error, when there is one.
    #[error("{message}")]
    Parse {
        /// What is wrong and where (`file:line:column: …`).
        message: String,
        /// The error it comes from (a CSV or TOML parser's), if any.
        #[source]
        source: Option<Source>,
    },
    /// An I/O failure: the message names the path it concerns; `source` is the operating
    /// system's error, when there is one (shown after the message by front ends that print
    /// the chain of causes, as the command line does).
    #[error("{message}")]
    Io {
        /// The path or source concerned, and what was being done.
        message: String,
        /// The error it comes from, if any.
        #[source]
        source: Option<Source>,
    },
    /// The operating system's random source failed; no noise can be generated securely.
    #[error("the operating system's random source failed: {0}")]
    Entropy(String),
    /// A distributed run failed: a peer could not be reached, died, or stopped answering
    /// ([`crate::cluster`]). Nothing was released.
    #[error("{0}")]
    Cluster(String),
    /// A bug in disguise, caught before anything was released: a run charged more than its
    /// plan reserved in a ledger ([`crate::ledger::Reserved::check`]). Please report it.
    #[error("internal error: {0} (a bug in disguise; please report it)")]
    Internal(String),
    /// A privacy budget ledger could not be used: missing, not a ledger, corrupt, written by
    /// a newer version, or locked by another process past the timeout
    /// ([`crate::ledger`]). The ledger was not modified and nothing was released.
    #[error("{message}")]
    Ledger {
        /// The ledger file and what is wrong with it.
        message: String,
        /// The error it comes from (SQLite's), if any.
        #[source]
        source: Option<Source>,
    },
    /// A release refused by the budget ledger: with it, the data set's recorded releases
    /// would compose to more than its limit. Nothing was recorded and nothing released.
    #[error("{message}")]
    BudgetExceeded {
        /// The data set's name in the ledger.
        dataset: String,
        /// One line: what the release costs, what is spent and what is left.
        message: String,
    },
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

/// The underlying error of an [`Error::Io`] or [`Error::Parse`]: shared, so that
/// [`Error`] stays `Clone`, and compared by kind of message (its text).
#[derive(Debug, Clone)]
pub struct Source(std::sync::Arc<dyn std::error::Error + Send + Sync>);

impl Source {
    /// Wraps an error.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self(std::sync::Arc::new(error))
    }

    /// The wrapped error.
    pub fn get(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.0
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Source {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl PartialEq for Source {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

impl Error {
    /// An [`Error::Io`] without an underlying error.
    pub fn io(message: impl Into<String>) -> Self {
        Error::Io {
            message: message.into(),
            source: None,
        }
    }

    /// An [`Error::Io`] caused by `source` (which the message does not repeat).
    ///
    /// ```
    /// use std::error::Error as _;
    /// let e = disguise::Error::io_with("data.csv", std::io::Error::other("disk on fire"));
    /// assert_eq!(e.to_string(), "data.csv");
    /// assert_eq!(e.source().unwrap().to_string(), "disk on fire");
    /// ```
    pub fn io_with(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Error::Io {
            message: message.into(),
            source: Some(Source::new(source)),
        }
    }

    /// An [`Error::Parse`] without an underlying error.
    pub fn parse(message: impl Into<String>) -> Self {
        Error::Parse {
            message: message.into(),
            source: None,
        }
    }

    /// An [`Error::Parse`] caused by `source` (which the message does not repeat).
    pub fn parse_with(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Error::Parse {
            message: message.into(),
            source: Some(Source::new(source)),
        }
    }

    /// Shorthand for [`Error::InvalidParameter`].
    pub fn param(name: &'static str, reason: impl Into<String>) -> Self {
        Error::InvalidParameter {
            name,
            reason: reason.into(),
        }
    }
}
