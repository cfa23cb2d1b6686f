//! Vinterbo's projected histogram over records spread across workers: PRIVATEKD on
//! distributed discernibility ([`super::discernibility`]), then the thresholded Laplace
//! histogram with each cell's count summed by the worker that owns the cell's block, which
//! adds the noise and applies the threshold once.
//!
//! Process 0 runs the one-process release ([`crate::histogram::project`]) step for step with
//! its generator: k and γ from public quantities, PRIVATEKD's draws, then the release key.
//! With a seeded generator the blocks of cells ([`crate::histogram::sparse`]) are released
//! from that key wherever they are owned, so the synthetic data is the one-process run's, bit
//! for bit, for any partition of the records. With the secure generator each worker keys its
//! own blocks from the operating system instead: the key never leaves a worker, so no one
//! learns the noise of a block they do not own (the law is the same: independent blocks).
//!
//! Privacy: the guarantee is the one-process release's (ε-DP, replace-one neighbours): the
//! workers' counts add up to the table's counts exactly, and the mechanism applied to them is
//! the same. Trust model as in [`super`]; a worker also sees the summed counts of the cells
//! it owns before noise.

use super::discernibility::{DiscernibilityPart, DiscernibilityTotals};
use super::{Cluster, Comm, Link, Msg, Serve, Sharded};
use crate::error::{Error, Result};
use crate::histogram::discretized::predictors;
use crate::histogram::privatekd::DiscernibilityCodes;
use crate::histogram::project::{ProjectionConfig, Release, Rows, projected_counts, release};
use crate::histogram::sparse::{BlockKey, Blocks};
use crate::histogram::{
    Discretized, Domain, MixedRadix, ProjectedHistogram, Schema, SparseLaplace,
    ThresholdedHistogram, private_kd,
};
use crate::maximize::Solution;
use crate::noise::SecureRng;
use crate::objective::Discernibility;
use crate::privacy::Epsilon;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// The schema with the private edges written in, and their release (worker 0's).
type Resolved = (Schema, Option<crate::histogram::EdgeRelease>);

/// One worker's rows of the table.
struct HistogramPart {
    data: Discretized,
    discernibility: DiscernibilityPart,
}

impl HistogramPart {
    /// Reads this worker's rows ([`super::read_share`]) and builds its part of the
    /// discernibility objective.
    fn build(
        comm: &mut Comm<'_>,
        paths: &[PathBuf],
        schema: &Schema,
        target: usize,
    ) -> Result<Self> {
        let data = super::read_share(comm, paths, schema)?;
        let c = DiscernibilityCodes::of(&data, target)?;
        let discernibility =
            DiscernibilityPart::build(comm, c.columns, c.radices, c.labels, c.label_count)?;
        Ok(HistogramPart {
            data,
            discernibility,
        })
    }

    /// This worker's counts go to the owners of their cells' blocks (block b: worker
    /// b mod peers), which release their blocks.
    fn release(
        &self,
        comm: &mut Comm<'_>,
        columns: &[u64],
        scale: u64,
        tau: u64,
        key: &[u8],
    ) -> Result<Msg> {
        let peers = comm.place().peers;
        let columns: Vec<usize> = columns.iter().map(|&c| c as usize).collect();
        if columns.iter().any(|&c| c >= self.data.width()) {
            return Err(Error::Cluster("a column out of range".into()));
        }
        let mechanism = SparseLaplace::with_scale(f64::from_bits(scale), f64::from_bits(tau))?;
        // No key from process 0 (a secure run): this worker's blocks get a key of its own,
        // from the operating system, that nobody else ever sees.
        let key = if key.is_empty() {
            BlockKey::draw(&mut SecureRng::from_os()?)
        } else {
            BlockKey::from_bytes(key)?
        };
        let names: Vec<String> = columns
            .iter()
            .map(|&c| self.data.names()[c].clone())
            .collect();
        let radices: Vec<u64> = columns
            .iter()
            .map(|&c| self.data.domains()[c].size())
            .collect();
        let encoding = MixedRadix::new(&radices, &names)?;
        let blocks = Blocks::of(encoding.size());
        let codes: Vec<_> = columns.iter().map(|&c| self.data.codes(c)).collect();
        // A local failure still takes part in the exchange (its peers wait for it).
        let local = projected_counts(&encoding, &codes, self.data.rows());
        let mut out: Vec<Vec<(u64, u64)>> = vec![Vec::new(); peers];
        if let Ok(counts) = &local {
            for &(cell, count) in counts {
                out[(blocks.of_cell(cell) % peers as u64) as usize].push((cell, count));
            }
        }
        let got = comm.exchange(
            out.into_iter()
                .enumerate()
                .map(|(w, v)| (w as u64, Msg::Cells(v)))
                .collect(),
        )?;
        local?;
        let mut counts: Vec<(u64, u64)> = Vec::new();
        for m in got {
            match m {
                Msg::Cells(v) => counts.extend(v),
                other => return Err(Error::Cluster(format!("unexpected {other:?}"))),
            }
        }
        counts.sort_unstable();
        counts.dedup_by(|later, first| {
            let same = later.0 == first.0;
            if same {
                first.1 += later.1;
            }
            same
        });
        let mut released = Vec::new();
        let mut rest = &counts[..];
        for b in (comm.place().worker as u64..blocks.count()).step_by(peers) {
            let range = blocks.range(b);
            let start = rest.partition_point(|c| c.0 < range.start);
            let end = rest.partition_point(|c| c.0 < range.end);
            let cells = mechanism.release_block(&key, blocks, b, &rest[start..end])?;
            released.extend(cells.into_iter().map(|(c, v)| (c, v.to_bits())));
            rest = &rest[end..];
        }
        Ok(Msg::Released(released))
    }
}

impl Serve for HistogramPart {
    fn ready(&self) -> Msg {
        self.discernibility.ready()
    }

    fn serve(&mut self, comm: &mut Comm<'_>, command: &Msg) -> Result<Msg> {
        match command {
            Msg::Release {
                columns,
                scale,
                tau,
                key,
            } => self.release(comm, columns, *scale, *tau, key),
            other => self.discernibility.serve(comm, other),
        }
    }
}

/// Process 0's view of the distributed table: public names, domains and n, and the link.
struct Remote<'l> {
    link: &'l Arc<Link>,
    names: Vec<String>,
    domains: Vec<Domain>,
    rows: usize,
    target: usize,
}

impl Rows for Remote<'_> {
    fn names(&self) -> &[String] {
        &self.names
    }
    fn domains(&self) -> &[Domain] {
        &self.domains
    }
    fn rows(&self) -> usize {
        self.rows
    }
    fn is_private(&self) -> bool {
        true
    }
    fn project(&self, k: usize, epsilon_p: Epsilon, rng: &mut SecureRng) -> Result<Solution> {
        let ground = predictors(&self.domains, self.target)?.len();
        let totals = DiscernibilityTotals { ground };
        private_kd(
            &Sharded::new(&totals, self.rows, self.link),
            k,
            epsilon_p,
            rng,
        )
    }
    fn in_one_process(&self) -> Option<&Discernibility> {
        None
    }
    /// Each worker counts its records and noises the blocks it owns; process 0 gathers the
    /// released cells.
    fn histogram(
        &self,
        release: &Release<'_>,
        rng: &mut SecureRng,
    ) -> Result<ThresholdedHistogram> {
        let (mechanism, size) = (release.mechanism, release.encoding.size());
        // Refused here, before any worker starts drawing, as the one-process release refuses
        // it; then the key is drawn where the one-process release draws it. Only a seeded
        // run sends it to the workers (to give the one-process release bit for bit): a secure
        // run's workers draw their own, so that no worker, and nothing on the links, holds
        // the noise of blocks it does not own.
        mechanism.check_space(size)?;
        let key = BlockKey::draw(rng);
        let key = if rng.is_secure() {
            Vec::new()
        } else {
            key.bytes().to_vec()
        };
        let answer = self.link.call(Msg::Release {
            columns: release.columns.iter().map(|&c| c as u64).collect(),
            scale: mechanism.scale().to_bits(),
            tau: mechanism.threshold().to_bits(),
            key,
        });
        match answer {
            Some(Msg::Released(cells)) => Ok(mechanism.histogram(
                size,
                cells
                    .into_iter()
                    .map(|(c, v)| (c, f64::from_bits(v)))
                    .collect(),
            )),
            Some(other) => Err(Error::Cluster(format!("unexpected answer {other:?}"))),
            None => Err(Error::Cluster("the release failed".into())),
        }
    }
}

impl Cluster {
    /// [`crate::histogram::projected_histogram`] of the table in `paths` (read with the
    /// complete `schema`; one file is dealt row by row over the workers, several files go
    /// whole to their owners, part j to process j mod P), released by this cluster. The
    /// result in process 0, `None` in the others.
    ///
    /// # Errors
    /// As [`crate::histogram::projected_histogram`]; data splitting is refused; as
    /// [`Cluster::maximize`].
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn projected_histogram<C>(
        &self,
        paths: Vec<PathBuf>,
        schema: Schema,
        target: usize,
        edges: crate::histogram::EdgePlan,
        rng: &mut SecureRng,
        config: C,
    ) -> Result<Option<ProjectedHistogram>>
    where
        C: FnOnce(&[Domain]) -> Result<ProjectionConfig>,
    {
        let names = schema.names();
        // Private edges first (the one-process release's draws: a generator forked first),
        // drawn by worker 0 in this process; its schema and release reach the driver here.
        let edges_rng = Arc::new(Mutex::new((!edges.is_empty()).then(|| rng.fork())));
        let drawn: Arc<Mutex<Option<Resolved>>> = Arc::default();
        let kept = Arc::clone(&drawn);
        let public = schema.clone();
        self.serve(
            move |comm: &mut Comm<'_>| {
                let (schema, released) =
                    super::table::edges_for_worker(comm, &paths, &schema, &edges, &edges_rng)?;
                if comm.place().worker == 0 {
                    *kept.lock().unwrap_or_else(|e| e.into_inner()) =
                        Some((schema.clone(), released));
                }
                HistogramPart::build(comm, &paths, &schema, target)
            },
            |link, rows| {
                let (resolved, released) = drawn
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .take()
                    .unwrap_or((public, None));
                let domains = Discretized::domains_of(&resolved, rows as u64)?;
                let config = ProjectionConfig {
                    edges: released,
                    ..config(&domains)?
                };
                let remote = Remote {
                    link,
                    names,
                    domains,
                    rows,
                    target,
                };
                release(&remote, target, &config, rng)
            },
        )
    }
}
