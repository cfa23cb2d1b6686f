//! The synthesizer's reads of a table spread over a cluster ([`crate::synth::Tally`]): the
//! same two steps as in one process, each a sum over the workers' shares.
//!
//! 1. **1-ways**: every worker counts its rows' 1-ways; the counts are summed on every worker.
//! 2. **Larger marginals**: worker 0, which releases, decides the compression from its noisy
//!    1-ways and the marginals to count (MST: every 2-way; AIM: the workload's candidates),
//!    and sends both — released values and public choices — to every worker; each counts its
//!    rows on the compressed domain, and the counts are summed.
//!
//! Only counts and worker 0's released decisions cross the network; the sums are exactly the
//! one-process counts, so a seeded run releases bit for bit what one process releases. Every
//! worker takes part in both exchanges whatever happens: when worker 0 stops early (an error
//! before the 1-ways, or no second step), it tells the others ([`finish_leader`]).

use super::Comm;
use crate::data::Codes;
use crate::error::{Error, Result};
use crate::synth::marginals::count_ones;
use crate::synth::{CodedTable, Compression, Marginals, Tally};
use std::cell::Cell;

/// How far worker 0's release went through the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Nothing exchanged yet.
    Start,
    /// The 1-ways summed.
    Ones,
    /// The larger marginals summed: the protocol is over.
    Done,
}

/// Worker 0's [`Tally`]: its share's codes, summed with the others' through `comm`.
pub struct ClusterTally<'c, 'w> {
    comm: &'c mut Comm<'w>,
    codes: Vec<&'c Codes>,
    sizes: Vec<usize>,
    rows: u64,
    step: &'c Cell<Step>,
}

impl<'c, 'w> ClusterTally<'c, 'w> {
    /// Worker 0's tally of its share `codes` (of a table of `rows` records in all).
    pub(crate) fn new(
        comm: &'c mut Comm<'w>,
        codes: Vec<&'c Codes>,
        sizes: Vec<usize>,
        rows: u64,
        step: &'c Cell<Step>,
    ) -> Self {
        Self {
            comm,
            codes,
            sizes,
            rows,
            step,
        }
    }
}

/// The 1-ways of a share, flattened column after column.
fn local_ones(codes: &[&Codes], sizes: &[usize]) -> Result<Vec<u64>> {
    Ok(count_ones(codes, sizes, |_, v| v)?.concat())
}

/// The counts of `cliques` on a share, on the compressed domain, flattened.
fn local_counts(
    codes: &[&Codes],
    sizes: &[usize],
    compression: &Compression,
    cliques: &[Vec<usize>],
) -> Result<Vec<u64>> {
    let rows = codes.first().map_or(0, |c| c.len());
    let table = CodedTable::new(codes.to_vec(), sizes, rows)?;
    Ok(table.counts(compression, cliques)?.concat())
}

/// Splits `flat` into tables of `lengths`.
fn split(flat: &[u64], lengths: impl Iterator<Item = usize>) -> Result<Vec<Vec<u64>>> {
    let mut at = 0;
    let mut out = Vec::new();
    for l in lengths {
        let part = flat
            .get(at..at + l)
            .ok_or_else(|| Error::Cluster("short summed counts".into()))?;
        out.push(part.to_vec());
        at += l;
    }
    Ok(out)
}

/// Worker 0's request for step 2: a tag (1), the compression, the cliques.
fn request(compression: &Compression, cliques: &[Vec<usize>]) -> Vec<u64> {
    let mut words = vec![1];
    words.extend(compression.to_words());
    words.push(cliques.len() as u64);
    for c in cliques {
        words.push(c.len() as u64);
        words.extend(c.iter().map(|&i| i as u64));
    }
    words
}

/// Worker 0's word when it stops before step 2.
const STOP: u64 = 0;

impl Tally for ClusterTally<'_, '_> {
    fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    fn rows(&self) -> u64 {
        self.rows
    }

    fn ones(&mut self) -> Result<Vec<Vec<u64>>> {
        let sum = self.comm.all_sum(local_ones(&self.codes, &self.sizes))?;
        self.step.set(Step::Ones);
        split(&sum, self.sizes.iter().copied())
    }

    fn compressed(self, compression: &Compression) -> Result<Marginals> {
        let d = self.sizes.len();
        let cliques: Vec<Vec<usize>> = (0..d)
            .map(|i| vec![i])
            .chain((0..d).flat_map(|i| (i + 1..d).map(move |j| vec![i, j])))
            .collect();
        let rows = self.rows;
        let counts = self.counts(compression, &cliques)?;
        let mut flat = vec![rows];
        flat.extend(counts.into_iter().flatten());
        Marginals::from_flat(compression.sizes(), &flat)
    }

    fn counts(self, compression: &Compression, cliques: &[Vec<usize>]) -> Result<Vec<Vec<u64>>> {
        // The request goes to every worker (the others send nothing in this exchange).
        self.comm.all_gather(Ok(request(compression, cliques)))?;
        let local = local_counts(&self.codes, &self.sizes, compression, cliques);
        let sum = self.comm.all_sum(local)?;
        self.step.set(Step::Done);
        let sizes = compression.sizes();
        split(
            &sum,
            cliques
                .iter()
                .map(|c| c.iter().map(|&i| sizes[i]).product()),
        )
    }
}

/// Completes worker 0's part of the protocol after its release returned `outcome` at `step`:
/// an error before the 1-ways is every worker's; without a second step the others are told to
/// stop.
///
/// # Errors
/// [`Error::Cluster`] when a peer does not answer.
pub(crate) fn finish_leader<T>(comm: &mut Comm<'_>, step: Step, outcome: &Result<T>) -> Result<()> {
    match step {
        Step::Start => {
            let why = match outcome {
                Err(e) => e.to_string(),
                Ok(_) => "the release read no counts".to_string(),
            };
            // Every worker learns the error from the 1-ways' exchange; this one keeps its own.
            let _ = comm.all_sum(Err(Error::Cluster(why)));
            Ok(())
        }
        Step::Ones => comm.all_gather(Ok(vec![STOP])).map(|_| ()),
        Step::Done => Ok(()),
    }
}

/// Every other worker's part: its share's 1-ways, then the counts worker 0 asks for (or
/// nothing, when it stops).
///
/// # Errors
/// A peer's error; [`Error::Cluster`] for a malformed request.
pub(crate) fn follow(comm: &mut Comm<'_>, codes: &[&Codes], sizes: &[usize]) -> Result<()> {
    comm.all_sum(local_ones(codes, sizes))?;
    let gathered = comm.all_gather(Ok(Vec::new()))?;
    let Some(words) = gathered.into_iter().find(|w| !w.is_empty()) else {
        return Err(Error::Cluster("worker 0 sent no request".into()));
    };
    let mut it = words.into_iter();
    if it.next() == Some(STOP) {
        return Ok(());
    }
    let decoded = (|| {
        let compression = Compression::from_words(&mut it)?;
        let short = || Error::Cluster("short request".into());
        let k = it.next().ok_or_else(short)?;
        let mut cliques = Vec::new();
        for _ in 0..k {
            let l = it.next().ok_or_else(short)?;
            cliques.push(
                (0..l)
                    .map(|_| it.next().map(|w| w as usize).ok_or_else(short))
                    .collect::<Result<Vec<usize>>>()?,
            );
        }
        Ok((compression, cliques))
    })();
    let local = decoded
        .and_then(|(compression, cliques)| local_counts(codes, sizes, &compression, &cliques));
    comm.all_sum(local).map(|_| ())
}
