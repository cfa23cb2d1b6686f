//! What several commands share: argument groups, the trials runner and the report lines.
//! No command imports another; shared pieces live here.

pub mod cluster;
pub mod coordinates;
pub mod ledger;
pub mod names;
pub mod privacy;
pub mod table;

use crate::output::Format;
use disguise::objective::Metric;
use std::path::Path;

/// The default normaliser of facility location ([`disguise::task::default_normalizer`]),
/// with the candidates file and the flag that overrides it named in the error.
pub fn default_normalizer(
    metric: Metric,
    candidates: &[[f64; 2]],
    file: &Path,
) -> anyhow::Result<f64> {
    disguise::task::default_normalizer(metric, candidates).map_err(|e| match e {
        disguise::Error::InvalidParameter { reason, .. } => {
            anyhow::anyhow!("{}: {reason}, with --normalizer M", file.display())
        }
        other => other.into(),
    })
}

/// The options of a k-submodular selection (`assign`, `topics`): the public types, k or a
/// matroid on the chosen elements, and γ of the subsample algorithm.
#[derive(clap::Args, Debug, Clone)]
pub struct KTypeArgs {
    /// The k public types (type labels, or topics), comma-separated: type i is the i-th.
    /// Example: `--types morning,evening,night`.
    #[arg(long, value_name = "A,B,…", value_delimiter = ',', required = true)]
    pub types: Vec<String>,
    /// Number of elements (locations, seeds) to choose (|supp| ≤ k). Give --k or
    /// --constraint.
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    pub k: Option<usize>,
    /// A matroid on the chosen elements: `cardinality:K`, `partition:FILE`,
    /// `graphic:FILE` (instead of --k).
    #[arg(long, value_name = "SPEC", conflicts_with = "k")]
    pub constraint: Option<String>,
    /// γ of `--algorithm subsample` (Algorithm 4): the probability that some round's sample
    /// misses the optimum's remaining elements; smaller γ, larger samples. Default 0.1.
    #[arg(long, value_name = "G", allow_negative_numbers = true)]
    pub failure: Option<f64>,
}

impl KTypeArgs {
    /// The library request these options and `privacy` describe (the metric and normaliser
    /// at their defaults, for the caller to set).
    pub fn request(&self, privacy: &privacy::PrivacyArgs) -> disguise::task::Assign {
        disguise::task::Assign {
            k: self.k,
            constraint: self.constraint.clone(),
            algorithm: privacy.algorithm,
            failure: self.failure,
            privacy: privacy.privacy(),
            ..disguise::task::Assign::new(self.types.clone(), 1)
        }
    }
}

/// The layout of a table file given without a schema: `--no-header` and `--delimiter`
/// (a schema declares them itself, so both conflict with `--schema`).
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct LayoutArgs {
    /// Without --schema: the file has no header row; its columns are named `c1` … `cN` (for
    /// the options that name columns). Example: `--no-header --label c7`.
    #[arg(long, conflicts_with = "schema")]
    pub no_header: bool,
    /// Without --schema: the field separator, one ASCII character, or `tab`. Example:
    /// `--delimiter ';'`.
    #[arg(long, value_name = "CHAR", conflicts_with = "schema", value_parser = parse_delimiter)]
    pub delimiter: Option<u8>,
}

impl LayoutArgs {
    /// The library's layout (comma-separated with a header unless told otherwise).
    pub fn layout(self) -> disguise::data::TableLayout {
        disguise::data::TableLayout {
            delimiter: self.delimiter.unwrap_or(b','),
            has_header: !self.no_header,
        }
    }
}

/// A field separator: one ASCII character, or `tab`.
pub fn parse_delimiter(text: &str) -> Result<u8, String> {
    match text {
        "tab" | "\\t" | "\t" => Ok(b'\t'),
        t if t.len() == 1 && t.is_ascii() => Ok(t.as_bytes()[0]),
        t => Err(format!("one ASCII character or `tab`, got {t:?}")),
    }
}

/// One `note:` (a worst-case bound that says nothing) or `warning:` (a release expected to
/// be mostly noise) line on stderr when the run's a-priori utility bound is vacuous
/// ([`disguise::text::usefulness_line`]).
pub fn warn_if_vacuous(usefulness: &disguise::task::Usefulness) {
    if let Some((level, line)) = disguise::text::usefulness_line(usefulness) {
        eprintln!("{level}: {line}");
    }
}

impl RunArgs {
    /// Reserves in the ledger (if any) what a single release of `mechanism` plans to spend
    /// (`plan`: the task's plan from public parameters), before the data is read
    /// ([`ledger::Charge::reserve`]).
    pub fn reserve(
        &self,
        charge: Option<&ledger::Charge>,
        mechanism: &str,
        plan: impl FnOnce() -> disguise::Result<disguise::task::PrivacyReport>,
    ) -> anyhow::Result<Option<disguise::ledger::Reserved>> {
        let Some(charge) = charge else {
            return Ok(None);
        };
        let plan = plan().map_err(|e| crate::output::flagged(e, &crate::output::flag_of))?;
        Ok(Some(charge.reserve(
            &plan,
            mechanism,
            1,
            self.seed.is_none(),
        )?))
    }
}

/// `--diagnostics`: what a command shows beyond its release.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct DiagnosticsArg {
    /// Also show the diagnostics: values computed on the private data without noise (exact
    /// utilities and gains, counts of records left out or clamped, training accuracies), NOT
    /// covered by the guarantee, in a section of their own (`not_private` in JSON), for the
    /// data's curator. Without it the output is the release alone: a function of the public
    /// inputs and the released values. Also runs the non-private modes (`--mechanism max`,
    /// `--bounds-from-data`), whose whole output is a diagnostic.
    // Its own id: `value` is DeltaArg's too, and clap refuses two arguments of one id.
    #[arg(long = "diagnostics", id = "diagnostics")]
    value: bool,
}

impl DiagnosticsArg {
    /// Whether the diagnostics are shown.
    pub fn on(self) -> bool {
        self.value
    }

    /// Refuses a non-private mode (`what`, e.g. `--mechanism max`) unless the diagnostics
    /// were asked for: its whole output is computed from the data without noise.
    pub fn allow_non_private(self, private: bool, what: &str) -> anyhow::Result<()> {
        if !private && !self.value {
            anyhow::bail!(
                "invalid {what}: it is not private (its output is computed from the data \
                 without noise), so it runs only as a diagnostic: add --diagnostics, or \
                 choose a private alternative"
            );
        }
        Ok(())
    }
}

/// `--delta`: the δ of a whole release, 0 by default (pure ε-DP).
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct DeltaArg {
    /// δ ∈ [0, 1) of the whole release: 0 (the default) is pure ε-DP; the large margin
    /// mechanisms and Gaussian noise need δ > 0. Example: `--delta 1e-6`.
    #[arg(long = "delta", value_name = "D", default_value_t = 0.0)]
    #[arg(allow_negative_numbers = true)]
    pub value: f64,
}

/// The run options of the single-release commands (`itemsets`, `hypothesis`, `histogram`,
/// `synth`).
#[derive(clap::Args, Debug, Clone)]
pub struct RunArgs {
    /// Seed for a reproducible run. INSECURE: the output is then predictable and carries no
    /// privacy guarantee (tests and experiments only). Example: `--seed 42`.
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// No progress output or notes on stderr (warnings are always printed).
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub diagnostics: DiagnosticsArg,
    #[command(flatten)]
    pub ledger: ledger::LedgerArgs,
}
