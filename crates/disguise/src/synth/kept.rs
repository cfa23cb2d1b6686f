//! A kept model: a fitted synthesizer written to a file, from which more synthetic records
//! are drawn later without reading any data.
//!
//! # What the file holds
//! Released quantities and public metadata only: the column names and domains (the
//! schema's public levels and bounds, the released bin edges and cell densities), how
//! numeric values are written, the default number of rows (the public n), the release's
//! guarantee, the fitted tree model (its structure and laws, fitted to the noisy marginals
//! alone) and the compression of rare values (decided from the noisy 1-ways). Nothing in it
//! is computed from the records except through the release's mechanisms.
//!
//! # Guarantee
//! Drawing records from a kept model is post-processing of the release that made it
//! (Dwork–Roth 2014, Proposition 2.1): it costs no budget, whatever the number of rows or
//! draws, and every table drawn carries the release's (ε, δ) and no more.
//!
//! # Format
//! One JSON document, `format = "disguise-synth-model"`, `version = 1` (documented in
//! `docs/model-format.md`). A file of another format or version is refused; every part is
//! checked when read back (the tree, the laws' sizes, the sampler's weights, the domains and
//! codes agree), so a damaged or hand-edited file gives an error naming the problem, never a
//! panic.

use super::Model;
use super::compress::Compression;
use super::model::TreeModel;
use crate::error::{Error, Result};
use crate::histogram::{Domain, Values};
use crate::noise::SecureRng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;

/// The `format` field of a kept model's file.
pub const FORMAT: &str = "disguise-synth-model";

/// The version of the format this build writes (it also reads version 1, MST's tree model
/// before AIM's junction trees).
pub const VERSION: u32 = 2;

/// Records are drawn in chunks of this many, each from its own generator forked in order, so
/// that the output does not depend on the number of threads.
const CHUNK: usize = 1 << 14;

/// The guarantee of the release a model came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeptGuarantee {
    /// ε of the release.
    pub epsilon: f64,
    /// δ of the release.
    pub delta: f64,
    /// The composition rule that proved it.
    pub rule: String,
    /// Whether the release carried its guarantee (public domains, the secure generator).
    pub private: bool,
}

/// A fitted synthesizer as a file keeps it (see the [module documentation](self)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeptModel {
    /// Always [`FORMAT`].
    pub format: String,
    /// The format's version ([`VERSION`]).
    pub version: u32,
    /// The column names, in the schema's order.
    pub names: Vec<String>,
    /// The columns' domains (public levels and bounds, released edges and densities).
    pub domains: Vec<Domain>,
    /// How numeric values are written.
    pub values: Values,
    /// The default number of rows: the release's public n.
    pub rows: u64,
    /// The release's guarantee.
    pub guarantee: KeptGuarantee,
    /// The fitted model, on the compressed domain: `{"tree": …}` (MST) or `{"junction": …}`
    /// (AIM).
    pub model: Model,
    /// Which rare values were merged.
    pub compression: Compression,
}

/// What every version's file starts with.
#[derive(Deserialize)]
struct Header {
    format: String,
    version: u32,
}

/// Version 1: the model was always MST's tree.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeptModelV1 {
    format: String,
    /// 1 (read by [`Header`]).
    #[serde(rename = "version")]
    _version: u32,
    names: Vec<String>,
    domains: Vec<Domain>,
    values: Values,
    rows: u64,
    guarantee: KeptGuarantee,
    model: TreeModel,
    compression: Compression,
}

impl From<KeptModelV1> for KeptModel {
    fn from(v: KeptModelV1) -> Self {
        Self {
            format: v.format,
            version: VERSION,
            names: v.names,
            domains: v.domains,
            values: v.values,
            rows: v.rows,
            guarantee: v.guarantee,
            model: Model::Tree(v.model),
            compression: v.compression,
        }
    }
}

impl KeptModel {
    /// Checks that the parts agree: the format and version, one domain per name, and a
    /// compression that maps each domain's codes onto the model's domain.
    ///
    /// # Errors
    /// [`Error::Parse`] naming the first disagreement.
    pub fn check(&self) -> Result<()> {
        if self.format != FORMAT {
            return Err(Error::parse(format!(
                "not a disguise synthesizer model (format '{}')",
                self.format
            )));
        }
        if self.version != VERSION {
            return Err(Error::parse(format!(
                "model format version {} (this build reads version {VERSION})",
                self.version
            )));
        }
        let d = self.names.len();
        let sizes = self.model.sizes();
        if self.domains.len() != d || sizes.len() != d || self.compression.sizes() != sizes {
            return Err(Error::parse(format!(
                "{d} columns, but {} domains and a model of {} columns",
                self.domains.len(),
                sizes.len()
            )));
        }
        for (i, domain) in self.domains.iter().enumerate() {
            if self.compression.original_size(i) != domain.size() as usize {
                return Err(Error::parse(format!(
                    "column '{}': its domain has {} values, the model {}",
                    self.names[i],
                    domain.size(),
                    self.compression.original_size(i)
                )));
            }
        }
        Ok(())
    }

    /// Reads a kept model from `path` and checks it ([`KeptModel::check`]).
    ///
    /// # Errors
    /// [`Error::Io`] if the file cannot be read; [`Error::Parse`] (with `path`, line and
    /// column for malformed JSON) for anything else.
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::io_with(path.display().to_string(), e))?;
        let parse_error = |e: serde_json::Error| {
            Error::parse(format!(
                "{}:{}:{}: {}",
                path.display(),
                e.line(),
                e.column(),
                strip_position(&e.to_string())
            ))
        };
        let header: Header = serde_json::from_str(&text).map_err(parse_error)?;
        let model: KeptModel = if header.format == FORMAT && header.version == 1 {
            serde_json::from_str::<KeptModelV1>(&text)
                .map_err(parse_error)?
                .into()
        } else {
            serde_json::from_str(&text).map_err(parse_error)?
        };
        model
            .check()
            .map_err(|e| Error::parse(format!("{}: {e}", path.display())))?;
        Ok(model)
    }

    /// Writes this model to `path` atomically (a temporary file beside it, then renamed),
    /// never over one of `inputs`.
    ///
    /// # Errors
    /// [`Error::Io`] if writing fails or `path` is an input.
    pub fn save(&self, path: &Path, inputs: &[&Path]) -> Result<()> {
        crate::files::write_atomic(path, inputs, |w| {
            serde_json::to_writer(&mut *w, self).map_err(std::io::Error::other)?;
            w.write_all(b"\n")
        })
    }

    /// Draws `rows` records (codes of the original domains, row-major) into `out`.
    pub fn sample_rows(&self, rows: usize, rng: &mut SecureRng, out: &mut Vec<u32>) {
        self.model.sample_rows(rows, rng, out);
        self.compression.expand(out, rng);
    }

    /// Draws `rows` records in chunks forked in order from `rng` (the same records whatever
    /// the number of threads, and the same as the release that made the model draws), and
    /// hands each chunk's codes (row-major, one row per record) to `sink` in order.
    ///
    /// # Errors
    /// What `sink` returns.
    pub fn sample_codes<F>(&self, rows: u64, rng: &mut SecureRng, sink: F) -> Result<()>
    where
        F: FnMut(&[u32]) -> Result<()>,
    {
        sample_chunks(
            rows,
            rng,
            |take, child, out| self.sample_rows(take, child, out),
            sink,
        )
    }

    /// Writes `rows` records as CSV with a header, as [`crate::task::SynthRelease::write_csv`]
    /// does; returns the number written.
    ///
    /// # Errors
    /// [`Error::Io`] if writing fails.
    pub fn write_csv<W: Write>(&self, writer: W, rows: u64, rng: &mut SecureRng) -> Result<u64> {
        let table = (&self.names[..], &self.domains[..], self.values);
        write_csv_with(
            writer,
            table,
            rows,
            rng,
            |take, child, out| self.sample_rows(take, child, out),
            |_| {},
        )
    }
}

/// What drawing from a kept model reports: public and released values only (the model is
/// released; the rows drawn and the files are the user's choices).
#[derive(Debug, Clone, PartialEq, Serialize, crate::disclosure::Disclose)]
pub struct DrawReport {
    /// The model file.
    pub model: crate::disclosure::Public<String>,
    /// The output file.
    pub out: crate::disclosure::Public<String>,
    /// The records written.
    pub rows: crate::disclosure::Public<u64>,
    /// The columns, in order.
    pub columns: crate::disclosure::Released<Vec<String>>,
    /// The guarantee of the release that made the model: every table drawn from it carries
    /// this and no more.
    pub guarantee: crate::disclosure::Released<KeptGuarantee>,
    /// What drawing spent: nothing.
    pub spent: &'static str,
}

/// [`DrawReport::spent`]: drawing is post-processing.
pub const SPENT_NOTHING: &str =
    "nothing: drawing from a kept model is post-processing of its release";

impl KeptModel {
    /// The report of drawing `rows` records from this model (kept at `model`) into `out`.
    pub fn report(&self, model: &str, out: &str, rows: u64) -> DrawReport {
        use crate::disclosure::{Public, Released};
        DrawReport {
            model: Public::new(model.to_string()),
            out: Public::new(out.to_string()),
            rows: Public::new(rows),
            columns: Released::new(self.names.clone()),
            guarantee: Released::new(self.guarantee.clone()),
            spent: SPENT_NOTHING,
        }
    }
}

/// serde_json's message without its own " at line L column C" (the caller puts the file's
/// position first).
fn strip_position(message: &str) -> &str {
    message
        .rfind(" at line ")
        .map_or(message, |at| &message[..at])
}

/// Writes `rows` records drawn by `draw` (as [`sample_chunks`]) as CSV with a header over
/// `table` (names, domains, how numeric values are written; numeric values drawn from a
/// generator forked from `rng` first), showing each record's codes to `observe` before it is
/// written; returns the number written. What releases and kept models write.
///
/// # Errors
/// [`Error::Io`] if writing fails.
pub(crate) fn write_csv_with<W, D>(
    writer: W,
    table: (&[String], &[Domain], Values),
    rows: u64,
    rng: &mut SecureRng,
    draw: D,
    mut observe: impl FnMut(&[u32]),
) -> Result<u64>
where
    W: Write,
    D: Fn(usize, &mut SecureRng, &mut Vec<u32>) + Sync,
{
    let (names, domains, values) = table;
    let mut out = crate::histogram::release::CodedCsv::new(writer, names, domains, values, rng)?;
    let d = names.len();
    sample_chunks(rows, rng, draw, |chunk| {
        chunk.chunks(d).try_for_each(|record| {
            observe(record);
            out.record(record)
        })
    })?;
    out.finish()
}

/// Draws `rows` records in chunks forked in order from `rng` (the same records whatever the
/// number of threads), each chunk by `draw(take, chunk_rng, out)`, and hands each chunk's
/// codes to `sink` in order.
pub(crate) fn sample_chunks<D, F>(
    rows: u64,
    rng: &mut SecureRng,
    draw: D,
    mut sink: F,
) -> Result<()>
where
    D: Fn(usize, &mut SecureRng, &mut Vec<u32>) + Sync,
    F: FnMut(&[u32]) -> Result<()>,
{
    let mut left = rows;
    // A batch of chunks per round: parallel, and bounded in memory.
    let batch = rayon::current_num_threads().max(1) * 4;
    while left > 0 {
        let mut jobs: Vec<(usize, SecureRng)> = Vec::with_capacity(batch);
        while left > 0 && jobs.len() < batch {
            let take = (left.min(CHUNK as u64)) as usize;
            jobs.push((take, rng.fork()));
            left -= take as u64;
        }
        let chunks: Vec<Vec<u32>> = jobs
            .into_par_iter()
            .map(|(take, mut child)| {
                let mut out = Vec::new();
                draw(take, &mut child, &mut out);
                out
            })
            .collect();
        for chunk in &chunks {
            sink(chunk)?;
        }
    }
    Ok(())
}
