//! Public schemas: the column types, numeric bounds and categorical levels of a table, and
//! the format of its data file, read from a TOML file.
//!
//! # Why a schema
//! A histogram is private only if everything that shapes it *except the counts* is fixed
//! before the data is seen. Numeric columns are scaled into [0, 1] with bounds [min, max];
//! if those bounds were the data's own minimum and maximum, the release would reveal the
//! most extreme records (the bin midpoints move with them). Likewise the list of categorical
//! levels: a level observed only once names one person's value. So both come from the schema,
//! which must be written from public knowledge (a codebook, the sensor's range, the form's
//! options), never from the private file.
//!
//! [`DomainSource::Data`] (the CLI's `--bounds-from-data`) fills in what the schema leaves
//! out from the data itself, for exploration only: the release is then **not private** and is
//! marked as such ([`Table::inferred_columns`](super::Table::inferred_columns)).
//!
//! # Format
//! ```toml
//! name = "adult"          # optional, for messages
//! has_header = false      # default true: the first row names the columns
//! delimiter = ","         # one ASCII character (default ","); fields are trimmed, so ", " works
//! missing = "?"           # optional marker of a missing value
//! comment = "|"           # optional: lines starting with this character are skipped
//! target = "income"       # optional default target column
//!
//! [[columns]]
//! name = "age"
//! type = "numeric"
//! bounds = [17, 90]       # public [min, max]; values outside are clamped into it
//! bins = 10               # optional: overrides the paper's bandwidth rule
//!
//! [[columns]]
//! name = "capital-gain"
//! type = "numeric"
//! bounds = [0, 99999]
//! edges = [0, 0, 5000]    # optional, not with `bins`: public inner edges (below)
//! integer = true          # optional: values are integers, and are written as integers
//!
//! [[columns]]
//! name = "workclass"
//! type = "categorical"
//! levels = ["Private", "Self-emp-not-inc"]
//! nullable = true         # the column may hold the `missing` marker (its own level/bin)
//! aliases = { "Private." = "Private" }   # optional spellings mapped onto a level
//! ```
//!
//! *Bins.* A numeric column without `bins` or `edges` gets the bandwidth rule's number of
//! equal-width bins (a release uses at least 2). `edges = [e1, …]` are public inner edges:
//! finite, non-decreasing, within the bounds. A value on an edge falls in the bin to its
//! right (`[e1, e2)`; the last bin is closed at the upper bound); an edge listed twice
//! makes a one-value bin, so `edges = [0, 0, 5000]` over `[0, 99999]` gives the bins {0},
//! (0, 5000) and [5000, 99999], and a capital gain of 0 is written as 0. An edge at a bound
//! (listed once) changes nothing. See [`Bins`](super::Bins).
//!
//! *Integers.* `integer = true` makes equal-width bins fall on integer boundaries (one bin
//! per integer when there are fewer integers than bins) and writes values as integers;
//! edges that would make a bin holding no integer are refused. Bounds must be within ±2^53.
//!
//! *Missing values* (`missing` marker in a `nullable` column) are kept as a value of their
//! own — an extra level of a categorical column, an extra bin of a numeric one — and decoded
//! back to the marker. They are never dropped: dropping rows would make the number of records
//! depend on the data, while the privacy analysis treats n as public and fixed.
//! A marker in a column not declared `nullable`, and a categorical value that is not a listed
//! level (or alias), are errors naming the file, line and column.

use super::bin_rule::BinRule;
use crate::data::{Position, strip_bom};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnType {
    /// Values from a finite list of levels (strings).
    Categorical,
    /// Real numbers within public bounds, discretized into bins.
    Numeric,
}

/// One column of a [`Schema`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnSpec {
    /// The column's name (matched case-insensitively against a header row).
    pub name: String,
    /// Categorical or numeric.
    #[serde(rename = "type")]
    pub kind: ColumnType,
    /// Categorical only: the public list of levels, in encoding order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub levels: Option<Vec<String>>,
    /// Categorical only: other spellings of a level (e.g. `">50K." = ">50K"` for Adult's test
    /// file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aliases: Option<BTreeMap<String, String>>,
    /// Numeric only: the public [min, max]; values outside are clamped into it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<[f64; 2]>,
    /// Numeric only: a fixed number of bins (default: the paper's bandwidth rule,
    /// [`bin_count`](super::bin_count)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bins: Option<usize>,
    /// Numeric only: public inner bin edges, non-decreasing within the bounds; an edge
    /// listed twice makes a one-value bin ([`Bins::from_edges`](super::Bins::from_edges)).
    /// Not with `bins`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "edges_in_order"
    )]
    pub edges: Option<Vec<f64>>,
    /// Numeric only: the values are integers: bins hold integers and values are written as
    /// integers ([`Bins::integers`](super::Bins::integers)).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub integer: bool,
    /// Whether the column may hold the schema's `missing` marker.
    #[serde(default)]
    pub nullable: bool,
    /// Numeric only, with `edges`: the density values are drawn from inside their bins
    /// ([`Bins::with_density`](super::Bins::with_density)). Not read from a schema file:
    /// private bin edges release it with the edges.
    #[serde(skip)]
    pub density: Option<super::Density>,
}

impl ColumnSpec {
    /// A categorical column with the given levels.
    pub fn categorical(name: &str, levels: &[&str]) -> Self {
        Self {
            name: name.to_string(),
            kind: ColumnType::Categorical,
            levels: Some(levels.iter().map(|s| s.to_string()).collect()),
            aliases: None,
            bounds: None,
            bins: None,
            edges: None,
            integer: false,
            nullable: false,
            density: None,
        }
    }

    /// A numeric column with public bounds [lo, hi].
    pub fn numeric(name: &str, lo: f64, hi: f64) -> Self {
        Self {
            name: name.to_string(),
            kind: ColumnType::Numeric,
            levels: None,
            aliases: None,
            bounds: Some([lo, hi]),
            bins: None,
            edges: None,
            integer: false,
            nullable: false,
            density: None,
        }
    }
}

/// A table's public description: its columns and the format of its data file. See the
/// [module documentation](self) for the TOML format and why it exists.
///
/// ```
/// use disguise::histogram::{ColumnType, Schema};
/// let schema = Schema::from_toml_str(r#"
///     has_header = false
///     [[columns]]
///     name = "x"
///     type = "numeric"
///     bounds = [0, 10]
///     [[columns]]
///     name = "y"
///     type = "categorical"
///     levels = ["a", "b"]
/// "#, "example.toml")?;
/// assert_eq!(schema.columns.len(), 2);
/// assert_eq!(schema.columns[0].kind, ColumnType::Numeric);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Schema {
    /// A name for messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Whether the data file starts with a header row naming the columns (default true).
    /// Without one, the file's fields are the schema's columns, in order.
    #[serde(default = "default_true")]
    pub has_header: bool,
    /// The field separator: one ASCII character (default `,`). Fields are trimmed of
    /// surrounding whitespace, so Adult's `", "` is `delimiter = ","`.
    #[serde(default = "default_delimiter")]
    pub delimiter: String,
    /// The marker of a missing value (e.g. `?`), allowed in `nullable` columns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
    /// Lines starting with this ASCII character are skipped (e.g. `|` for Adult's test file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// The default target column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The columns.
    pub columns: Vec<ColumnSpec>,
    /// How many predictors the bandwidth rule counts for a numeric column without `bins`
    /// ([`BinRule`]): the paper's d − 1 (the default of a schema read from a file), or the
    /// columns a release is expected to keep, which a release sets
    /// ([`Histogram::reading`](crate::task::Histogram::reading)). Not part of the file.
    #[serde(skip)]
    pub bin_rule: BinRule,
    /// Under [`BinRule::Released`]: the number of predictors the
    /// release keeps, when it is fixed in advance (a given k); `None` simulates it. Not part
    /// of the file.
    #[serde(skip)]
    pub kept_predictors: Option<usize>,
    /// [`BinRule::Marginals`] only: the noise standard deviation
    /// of one count of a measured 2-way marginal (public: from ε, δ and the number of
    /// columns). Set by the synthesizer's reading schema, never read from a file.
    #[serde(skip)]
    pub marginal_noise_sd: Option<f64>,
    /// The fewest bins the bandwidth rule may give a numeric column without `bins` or
    /// `edges` (0 or 1: none). A release sets 2, so that a column is never made constant
    /// because there are many predictors for few records; the paper's experiments keep the
    /// rule exact. Not part of the file.
    #[serde(skip)]
    pub min_bins: usize,
}

/// Reads `edges`, refusing at its place in the file what needs no bounds to refuse: an edge
/// that is not finite, smaller than the one before, or listed more than twice.
fn edges_in_order<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Option<Vec<f64>>, D::Error> {
    use serde::de::Error as _;
    let edges = Vec::<f64>::deserialize(deserializer)?;
    for (i, &e) in edges.iter().enumerate() {
        if !e.is_finite() {
            return Err(D::Error::custom(format!(
                "edge {} is {e}: edges must be finite numbers",
                i + 1
            )));
        }
        if i > 0 && e < edges[i - 1] {
            return Err(D::Error::custom(format!(
                "edges must be non-decreasing: edge {} = {e} follows {}",
                i + 1,
                edges[i - 1]
            )));
        }
        if i > 1 && e == edges[i - 1] && e == edges[i - 2] {
            return Err(D::Error::custom(format!(
                "edge {e} is listed more than twice (twice makes the one-value bin {{{e}}})"
            )));
        }
    }
    Ok(Some(edges))
}

/// The reason of an [`Error::InvalidParameter`] (without its parameter's name).
fn reason(e: Error) -> String {
    match e {
        Error::InvalidParameter { reason, .. } => reason,
        other => other.to_string(),
    }
}

fn default_true() -> bool {
    true
}

fn default_delimiter() -> String {
    ",".to_string()
}

impl Schema {
    /// A schema with these columns and the defaults (header row, `,`, no missing marker).
    ///
    /// # Errors
    /// As [`Schema::validate`].
    pub fn new(columns: Vec<ColumnSpec>) -> Result<Self> {
        let schema = Self {
            name: None,
            has_header: true,
            delimiter: default_delimiter(),
            missing: None,
            comment: None,
            target: None,
            columns,
            bin_rule: BinRule::Paper,
            kept_predictors: None,
            marginal_noise_sd: None,
            min_bins: 0,
        };
        schema.validate()?;
        Ok(schema)
    }

    /// Parses and validates a TOML schema; `source` names it in error messages.
    ///
    /// # Errors
    /// [`Error::Parse`] for TOML that does not parse or has unknown keys, naming the place
    /// (`schema.toml:3:8: unknown variant ...`), and the errors of [`Schema::validate`]. A
    /// UTF-8 byte-order mark is ignored.
    pub fn from_toml_str(text: &str, source: &str) -> Result<Self> {
        let text = strip_bom(text);
        let schema: Schema =
            toml::from_str(text).map_err(|e| Error::parse(toml_message(&e, text, source)))?;
        schema
            .validate()
            .map_err(|e| Error::parse(format!("{source}: {e}")))?;
        Ok(schema)
    }

    /// Parses and validates a schema given as JSON (a Python dict's): an error names the key
    /// path where it is, `columns[3].type: missing` or `columns[0]: unknown variant …`, never
    /// a position in the JSON text, which the user never wrote.
    ///
    /// ```
    /// use disguise::histogram::Schema;
    /// let text = r#"{"columns": [{"name": "a", "type": "categorical", "levels": ["x"]},
    ///                              {"name": "b", "levels": ["y"]}]}"#;
    /// let e = Schema::from_json_str(text).unwrap_err().to_string();
    /// assert!(e.contains("columns[1].type: missing"), "{e}");
    /// ```
    ///
    /// # Errors
    /// [`Error::Parse`] naming the key path, and the errors of [`Schema::validate`].
    pub fn from_json_str(text: &str) -> Result<Self> {
        let schema: Schema = serde_json::from_str(text).map_err(|e| {
            Error::parse(format!(
                "schema: {}",
                json_key_path(text).unwrap_or_else(|| e.to_string())
            ))
        })?;
        schema.validate()?;
        Ok(schema)
    }

    /// Reads a TOML schema file.
    ///
    /// # Errors
    /// [`Error::Io`] if the file cannot be read, otherwise as [`Schema::from_toml_str`].
    pub fn from_path(path: &Path) -> Result<Self> {
        let shown = path.display().to_string();
        let text = crate::data::read_text(path, &shown)?;
        Self::from_toml_str(&text, &shown)
    }

    /// Checks the schema's consistency: at least one column; distinct non-empty names; levels
    /// only on categorical columns, bounds and bins only on numeric ones; distinct levels;
    /// finite bounds with min < max; bins ≥ 1; aliases pointing at listed levels; a
    /// one-character ASCII delimiter and comment; a non-empty missing marker that is not a
    /// level; `nullable` only with a missing marker.
    ///
    /// Levels and bounds may be absent (they are then required from the data, which is not
    /// private: see [`DomainSource`]).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the column and the problem.
    pub fn validate(&self) -> Result<()> {
        if self.columns.is_empty() {
            return Err(Error::param("schema", "no columns"));
        }
        single_ascii("delimiter", &self.delimiter)?;
        if let Some(c) = &self.comment {
            single_ascii("comment", c)?;
        }
        if let Some(m) = &self.missing
            && m.trim().is_empty()
        {
            return Err(Error::param(
                "schema",
                "the missing marker must not be empty or blank",
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for col in &self.columns {
            let name = col.name.trim();
            if name.is_empty() {
                return Err(Error::param("schema", "a column has an empty name"));
            }
            if !seen.insert(name.to_ascii_lowercase()) {
                return Err(Error::param(
                    "schema",
                    format!("column '{name}' is listed twice"),
                ));
            }
            let bad = |what: &str| Err(Error::param("schema", format!("column '{name}': {what}")));
            if col.nullable && self.missing.is_none() {
                return bad("nullable = true needs a schema-level `missing` marker");
            }
            match col.kind {
                ColumnType::Categorical => {
                    if col.bounds.is_some()
                        || col.bins.is_some()
                        || col.edges.is_some()
                        || col.integer
                    {
                        return bad(
                            "bounds, bins, edges and integer apply to numeric columns only",
                        );
                    }
                    if let Some(levels) = &col.levels {
                        if levels.is_empty() {
                            return bad("the level list is empty");
                        }
                        let mut distinct = std::collections::HashSet::new();
                        for level in levels {
                            if level.trim() != level || level.is_empty() {
                                return bad(&format!(
                                    "level {level:?} is empty or has surrounding spaces \
                                     (fields are trimmed)"
                                ));
                            }
                            if !distinct.insert(level.as_str()) {
                                return bad(&format!("level {level:?} is listed twice"));
                            }
                            if self.missing.as_deref() == Some(level.as_str()) {
                                return bad(&format!(
                                    "level {level:?} is the missing marker; declare the column \
                                     nullable instead"
                                ));
                            }
                        }
                        if let Some(aliases) = &col.aliases {
                            for (from, to) in aliases {
                                if !distinct.contains(to.as_str()) {
                                    return bad(&format!(
                                        "alias {from:?} maps to {to:?}, which is not a level"
                                    ));
                                }
                            }
                        }
                    } else if col.aliases.is_some() {
                        return bad("aliases need a level list");
                    }
                }
                ColumnType::Numeric => {
                    if col.levels.is_some() || col.aliases.is_some() {
                        return bad("levels and aliases apply to categorical columns only");
                    }
                    if let Some([lo, hi]) = col.bounds
                        && !(lo.is_finite() && hi.is_finite() && lo < hi)
                    {
                        return bad(&format!(
                            "bounds must be finite with min < max, got [{lo}, {hi}]"
                        ));
                    }
                    if col.bins == Some(0) {
                        return bad("bins must be at least 1");
                    }
                    if col.bins.is_some() && col.edges.is_some() {
                        return bad(
                            "give either bins = N (equal width) or edges = [...], not both",
                        );
                    }
                    if let Some(edges) = &col.edges {
                        let Some([lo, hi]) = col.bounds else {
                            return bad("edges need public bounds = [min, max]");
                        };
                        let bins = super::Bins::from_edges(lo, hi, edges).map_err(|e| {
                            Error::param("schema", format!("column '{name}': {}", reason(e)))
                        })?;
                        if col.integer
                            && let Some(bin) = bins.first_without_integer()
                        {
                            return bad(&format!(
                                "integer = true, but the edges make the bin {bin}, which holds no \
                                 integer"
                            ));
                        }
                    }
                    if col.integer
                        && let Some([lo, hi]) = col.bounds
                        && let Err(e) = super::Bins::new(lo, hi, 1).and_then(super::Bins::integers)
                    {
                        return bad(&format!("integer = true: {}", reason(e)));
                    }
                }
            }
        }
        Ok(())
    }

    /// The index of the column named `name` (case-insensitive).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] listing the columns when there is none.
    pub fn column_index(&self, name: &str) -> Result<usize> {
        self.columns
            .iter()
            .position(|c| c.name.trim().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| {
                Error::param(
                    "column",
                    format!(
                        "no column '{name}' in the schema (columns: {})",
                        self.names().join(", ")
                    ),
                )
            })
    }

    /// The schema without the columns `exclude` names (case-insensitive): a data file read
    /// with it skips them, so they are neither read into a model nor written.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`exclude`) for a name that is not a column (listing the
    /// columns), for a file without a header row (its fields are the schema's columns in
    /// order), or when no column would be left.
    pub fn without(&self, exclude: &[String]) -> Result<Schema> {
        if exclude.is_empty() {
            return Ok(self.clone());
        }
        if !self.has_header {
            return Err(Error::param(
                "exclude",
                "needs a data file with a header row (has_header = true): without one, the \
                 file's fields are the schema's columns in order (remove the column from the \
                 schema instead)",
            ));
        }
        let mut drop = vec![false; self.columns.len()];
        for name in exclude {
            let i = self.column_index(name).map_err(|_| {
                Error::param(
                    "exclude",
                    format!(
                        "no column '{name}' in the schema (columns: {})",
                        self.names().join(", ")
                    ),
                )
            })?;
            drop[i] = true;
        }
        let columns: Vec<ColumnSpec> = self
            .columns
            .iter()
            .zip(&drop)
            .filter(|(_, d)| !**d)
            .map(|(c, _)| c.clone())
            .collect();
        if columns.is_empty() {
            return Err(Error::param("exclude", "excludes every column"));
        }
        Ok(Schema {
            columns,
            ..self.clone()
        })
    }

    /// The column a task is about: `given` (an option, the `what` column: `label`,
    /// `target`), else the schema's `target`.
    ///
    /// ```
    /// let schema = disguise::histogram::Schema::from_toml_str(r#"
    ///     target = "y"
    ///     [[columns]]
    ///     name = "y"
    ///     type = "categorical"
    ///     levels = ["a", "b"]
    /// "#, "schema.toml")?;
    /// let flag = |p: &str| format!("--{p}");
    /// assert_eq!(schema.target_or(None, "label", &flag)?, "y");
    /// assert_eq!(schema.target_or(Some("x"), "label", &flag)?, "x");
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Parse`] when neither names one, saying to give the option (as `flag` spells
    /// it) or set the schema's `target`.
    pub fn target_or(
        &self,
        given: Option<&str>,
        what: &str,
        flag: &dyn Fn(&str) -> String,
    ) -> Result<String> {
        match (given, &self.target) {
            (Some(t), _) => Ok(t.to_string()),
            (None, Some(t)) => Ok(t.clone()),
            (None, None) => Err(Error::parse(format!(
                "no {what} column: give {} or set `target` in the schema",
                flag(what)
            ))),
        }
    }

    /// The schema's `target` when it names one of its columns (an excluded target is none).
    pub fn default_target(&self) -> Option<String> {
        self.target.clone().filter(|t| self.column_index(t).is_ok())
    }

    /// The column names, in order.
    pub fn names(&self) -> Vec<String> {
        self.columns
            .iter()
            .map(|c| c.name.trim().to_string())
            .collect()
    }

    /// The columns whose domain is not fully public in this schema: numeric columns without
    /// bounds and categorical columns without levels.
    pub fn incomplete_columns(&self) -> Vec<String> {
        self.columns
            .iter()
            .filter(|c| match c.kind {
                ColumnType::Categorical => c.levels.is_none(),
                ColumnType::Numeric => c.bounds.is_none(),
            })
            .map(|c| c.name.trim().to_string())
            .collect()
    }

    /// The schema as TOML (e.g. to save a schema completed from data for review).
    ///
    /// # Errors
    /// [`Error::Parse`] if serialisation fails (it does not for a validated schema).
    pub fn to_toml_string(&self) -> Result<String> {
        toml::to_string(self).map_err(|e| Error::parse(e.to_string()))
    }
}

/// Where a schema given as JSON fails, as a key path and serde's reason: the first column
/// that does not deserialize on its own, else the top level; `None` for text that is not
/// JSON at all (serde's own message then says where).
fn json_key_path(text: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let reason = |e: serde_json::Error, at: &str| {
        let message = e.to_string();
        // "missing field `type`" names the key: make it part of the path.
        match message
            .strip_prefix("missing field `")
            .and_then(|m| m.split('`').next())
        {
            Some(field) if at.is_empty() => format!("{field}: missing"),
            Some(field) => format!("{at}.{field}: missing"),
            None if at.is_empty() => message,
            None => format!("{at}: {message}"),
        }
    };
    if let Some(columns) = value.get("columns").and_then(|c| c.as_array()) {
        for (i, column) in columns.iter().enumerate() {
            if let Err(e) = serde_json::from_value::<ColumnSpec>(column.clone()) {
                return Some(reason(e, &format!("columns[{i}]")));
            }
        }
    }
    serde_json::from_value::<Schema>(value)
        .err()
        .map(|e| reason(e, ""))
}

/// A draft schema as TOML for a table whose column `names` are known (from its header, or
/// given for a headerless file) and laid out as `layout` says: every column numeric, or categorical when `categorical`
/// names it (case-insensitive), each domain left empty to be filled in from public
/// knowledge — the draft does not parse until every one is, so that no domain is taken from
/// the data by accident. Only the names are used: no private statistic leaks into it.
///
/// ```
/// use disguise::data::TableLayout;
/// let names = ["age".to_string(), "sex".to_string()];
/// let layout = TableLayout::default();
/// let draft = disguise::histogram::draft_schema(&names, &["SEX".into()], Some("sex"), layout)?;
/// assert!(draft.contains("target = \"sex\"\n"));
/// assert!(draft.contains("name = \"sex\"\ntype = \"categorical\""));
/// assert!(disguise::histogram::Schema::from_toml_str(&draft, "draft").is_err());
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// [`Error::Parse`] when `categorical` or `target` names a column not in `names`.
pub fn draft_schema(
    names: &[String],
    categorical: &[String],
    target: Option<&str>,
    layout: crate::data::TableLayout,
) -> Result<String> {
    draft_schema_read(names, categorical, target, layout, &[])
}

/// A domain read from the data for a draft ([`draft_schema_read`]): NOT private.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadDomain {
    /// The distinct values of a categorical column, as read.
    Levels(Vec<String>),
    /// The smallest and largest value of a numeric column, as read.
    Bounds(f64, f64),
}

/// [`draft_schema`] with the domains of some columns filled in from the data (`read`, one
/// entry per column, `None` or missing for a domain left to fill in), each marked in the
/// draft as read from the data and NOT private until confirmed as public knowledge: a
/// diagnostic that a front end writes only when asked for (Python's
/// `draft_schema(..., domains="data")`). The levels and bounds of a table are exact values
/// of its records — a rare level says that someone has it, a bound is one person's value —
/// so a release on such a schema is private only if every one of them is in fact public.
///
/// ```
/// use disguise::data::TableLayout;
/// use disguise::histogram::{ReadDomain, Schema, draft_schema_read};
/// let names = ["age".to_string(), "sex".to_string()];
/// let read = [Some(ReadDomain::Bounds(17.0, 90.0)), Some(ReadDomain::Levels(vec!["F".into(), "M".into()]))];
/// let draft = draft_schema_read(&names, &["sex".into()], Some("sex"), TableLayout::default(), &read)?;
/// assert!(draft.contains("bounds = [17.0, 90.0] # READ FROM THE DATA"));
/// assert!(Schema::from_toml_str(&draft, "draft").is_ok());
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// As [`draft_schema`]; [`Error::Parse`] for a read domain that does not fit its column's
/// type (bounds of a categorical column, levels of a numeric one) or non-finite bounds.
pub fn draft_schema_read(
    names: &[String],
    categorical: &[String],
    target: Option<&str>,
    layout: crate::data::TableLayout,
    read: &[Option<ReadDomain>],
) -> Result<String> {
    let known = |name: &str| names.iter().any(|n| n.eq_ignore_ascii_case(name));
    for name in categorical.iter().map(String::as_str).chain(target) {
        if !known(name.trim()) {
            return Err(Error::parse(format!(
                "no column {:?} (columns: {})",
                name,
                names.join(", ")
            )));
        }
    }
    let is_categorical = |name: &str| {
        categorical
            .iter()
            .any(|c| c.trim().eq_ignore_ascii_case(name))
    };
    let mut out = String::new();
    out.push_str("# Draft schema (docs/schema.md). Fill in every domain from PUBLIC knowledge —\n");
    out.push_str("# documentation, standards, round figures — never from the data itself.\n");
    if read.iter().any(Option::is_some) {
        out.push_str(
            "# WARNING: the domains marked READ FROM THE DATA are exact values of the private\n\
             # records (NOT private). Replace each with public knowledge, or confirm that it\n\
             # is public, before any release uses this schema.\n",
        );
    }
    out.push_str(&format!(
        "has_header = {}\ndelimiter = {}\n",
        layout.has_header,
        toml_string(&char::from(layout.delimiter).to_string())
    ));
    if let Some(target) = target {
        out.push_str(&format!("target = {}\n", toml_string(target.trim())));
    }
    const READ: &str = "# READ FROM THE DATA (NOT private): confirm it is public";
    for (i, name) in names.iter().enumerate() {
        out.push_str(&format!("\n[[columns]]\nname = {}\n", toml_string(name)));
        let domain = read.get(i).and_then(Option::as_ref);
        let wrong = |what: &str| Error::parse(format!("column {name:?}: {what}"));
        if is_categorical(name) {
            match domain {
                None => out.push_str(
                    "type = \"categorical\"\nlevels = [] # FILL IN: every possible value\n",
                ),
                Some(ReadDomain::Levels(levels)) => {
                    let listed: Vec<String> = levels.iter().map(|l| toml_string(l)).collect();
                    out.push_str(&format!(
                        "type = \"categorical\"\nlevels = [{}] {READ}\n",
                        listed.join(", ")
                    ));
                }
                Some(ReadDomain::Bounds(..)) => {
                    return Err(wrong("bounds read for a categorical column"));
                }
            }
        } else {
            match domain {
                None => out.push_str(
                    "type = \"numeric\"\nbounds = [] # FILL IN: [min, max]\n# bins = 8  # optional\n",
                ),
                Some(&ReadDomain::Bounds(lo, hi)) if lo.is_finite() && hi.is_finite() && lo <= hi => {
                    out.push_str(&format!(
                        "type = \"numeric\"\nbounds = [{lo:?}, {hi:?}] {READ}\n# bins = 8  # optional\n"
                    ));
                }
                Some(ReadDomain::Bounds(lo, hi)) => {
                    return Err(wrong(&format!("bounds [{lo}, {hi}] are not finite and ordered")));
                }
                Some(ReadDomain::Levels(_)) => {
                    return Err(wrong("levels read for a numeric column"));
                }
            }
        }
    }
    Ok(out)
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Where the domains (levels, bounds) of a table's columns come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DomainSource {
    /// Only from the schema: a column without levels or bounds is an error. The only choice
    /// for a private release.
    #[default]
    Schema,
    /// From the schema where it gives them, otherwise from the data (levels seen, sorted;
    /// [min, max] seen). **Not private**: the domains themselves reveal records. For
    /// exploration only; results are marked as not private.
    Data,
}

fn single_ascii(what: &'static str, s: &str) -> Result<()> {
    if s.len() == 1 && s.is_ascii() && s != "\"" && s != "\n" && s != "\r" {
        Ok(())
    } else {
        Err(Error::param(
            what,
            format!("must be a single ASCII character (not a quote or newline), got {s:?}"),
        ))
    }
}

/// A TOML error as one line: `source:line:column: message` when the parser knows the place
/// (column = 1-based character in the line), at most a few hundred characters.
fn toml_message(e: &toml::de::Error, text: &str, source: &str) -> String {
    let one_line = |m: &str| {
        m.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let message = match e.span().filter(|span| span.start <= text.len()) {
        Some(span) => {
            let start = (0..=span.start)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0);
            let before = &text[..start];
            let line = before.matches('\n').count() as u64 + 1;
            let column = before[before.rfind('\n').map_or(0, |i| i + 1)..]
                .chars()
                .count() as u64
                + 1;
            format!(
                "{}: {}",
                Position::new(source, line).column(column),
                one_line(e.message())
            )
        }
        None => format!("{source}: {}", one_line(&e.to_string())),
    };
    const LIMIT: usize = 300;
    match message.char_indices().nth(LIMIT) {
        None => message,
        Some((cut, _)) => format!("{}…", &message[..cut]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_column_tables_read_as_the_table_array() {
        let tables = "target = \"y\"\n[[columns]]\nname = \"y\"\ntype = \"categorical\"\n\
                      levels = [\"a\", \"b\"]\n[[columns]]\nname = \"x\"\n\
                      type = \"numeric\"\nbounds = [0, 9]\nbins = 3\n";
        let inline = r#"target = "y"
columns = [
    { name = "y", type = "categorical", levels = ["a", "b"] },
    { name = "x", type = "numeric", bounds = [0, 9], bins = 3 },
]
"#;
        let a = Schema::from_toml_str(tables, "a.toml").unwrap();
        let b = Schema::from_toml_str(inline, "b.toml").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.columns.len(), 2);
    }

    #[test]
    fn parses_and_rejects() {
        let ok = r#"
            has_header = false
            missing = "?"
            [[columns]]
            name = "a"
            type = "categorical"
            levels = ["x", "y"]
            nullable = true
            aliases = { "x." = "x" }
            [[columns]]
            name = "b"
            type = "numeric"
            bounds = [0, 1.5]
        "#;
        let s = Schema::from_toml_str(ok, "s.toml").unwrap();
        assert!(!s.has_header);
        assert_eq!(s.columns[1].bounds, Some([0.0, 1.5]));
        assert_eq!(s.column_index("B").unwrap(), 1);
        assert!(s.incomplete_columns().is_empty());
        let again = Schema::from_toml_str(&s.to_toml_string().unwrap(), "again").unwrap();
        assert_eq!(again, s);

        let cases = [
            (
                "[[columns]]\nname = \"a\"\ntype = \"numeric\"\nbounds = [2, 1]\n",
                "min < max",
            ),
            (
                "[[columns]]\nname = \"a\"\ntype = \"text\"\n",
                "unknown variant",
            ),
            (
                "[[columns]]\nname = \"a\"\ntype = \"numeric\"\nlevel = [1]\n",
                "unknown field",
            ),
            (
                "[[columns]]\nname = \"a\"\ntype = \"categorical\"\nlevels = [\"x\", \"x\"]\n",
                "listed twice",
            ),
            (
                "[[columns]]\nname = \"a\"\ntype = \"categorical\"\nnullable = true\n",
                "missing",
            ),
            (
                "delimiter = \", \"\n[[columns]]\nname = \"a\"\ntype = \"numeric\"\n",
                "single",
            ),
            ("columns = []\n", "no columns"),
        ];
        for (text, needle) in cases {
            let e = Schema::from_toml_str(text, "bad.toml")
                .unwrap_err()
                .to_string();
            assert!(e.contains("bad.toml") && e.contains(needle), "{e}");
        }
        // TOML errors name the place; a byte-order mark is not an error.
        let e = Schema::from_toml_str("[[columns]]\nname = \"a\"\ntype = \"text\"\n", "s.toml")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("s.toml:3:8: unknown variant"), "{e}");
        let long = format!(
            "[[columns]]\nname = \"a\"\ntype = \"{}\"\n",
            "x".repeat(100_000)
        );
        let e = Schema::from_toml_str(&long, "s.toml")
            .unwrap_err()
            .to_string();
        assert!(e.len() < 1000, "{} bytes", e.len());
        let bom = "\u{feff}[[columns]]\nname = \"a\"\ntype = \"numeric\"\n";
        assert!(Schema::from_toml_str(bom, "s.toml").is_ok());
    }
}
