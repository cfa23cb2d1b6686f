//! Feature selection by mutual information over records spread across workers: the
//! naive-Bayes model depends on the records only through the contingency counts n_y and
//! n_{j,a,y} ([`MutualInformation::count_codes`]), which each worker counts on its records
//! and worker 0 adds up exactly; the selection then runs on process 0 on the summed model,
//! the one-process model bit for bit ([`MutualInformation::from_counts`]).

use super::{Cluster, Comm, Msg, Serve};
use crate::error::{Error, Result};
use crate::objective::MutualInformation;
use crate::task::FeatureTable;

/// One worker's rows of a feature table.
struct FeaturesPart {
    table: FeatureTable,
}

impl Serve for FeaturesPart {
    fn ready(&self) -> Msg {
        Msg::Ready {
            records: self.table.labels.len() as u64,
            ground: self.table.names.len() as u64,
            unit: 1.0,
        }
    }

    fn serve(&mut self, _comm: &mut Comm<'_>, command: &Msg) -> Result<Msg> {
        let t = &self.table;
        match command {
            Msg::Describe => Ok(Msg::Shape {
                names: t.names.clone(),
                arities: t.arities.clone(),
                label_levels: t.label_levels,
            }),
            Msg::Count => {
                MutualInformation::count_codes(&t.columns, &t.arities, &t.labels, t.label_levels)
                    .map(Msg::Counts)
            }
            Msg::Done => Ok(Msg::Ack),
            other => Err(Error::Cluster(format!("unexpected command {other:?}"))),
        }
    }
}

/// The public shape of a distributed feature table and its summed contingency counts.
pub(crate) struct FeatureCounts {
    /// The feature names, in column order.
    pub(crate) names: Vec<String>,
    /// Their numbers of categories.
    pub(crate) arities: Vec<u32>,
    /// The label's number of levels.
    pub(crate) label_levels: u32,
    /// [`MutualInformation::count_codes`] summed over the workers.
    pub(crate) counts: Vec<u64>,
}

impl Cluster {
    /// Loads a feature table on every worker (`load` may exchange, e.g. to learn the total
    /// number of rows, see [`super::read_share`]); returns in process 0 the shape all workers
    /// agree on and their summed contingency counts, `None` in the others.
    ///
    /// # Errors
    /// A worker's `load` error; workers whose tables differ in shape; as
    /// [`Cluster::maximize`].
    pub(crate) fn feature_counts<L>(&self, load: L) -> Result<Option<FeatureCounts>>
    where
        L: Fn(&mut Comm<'_>) -> Result<FeatureTable> + Send + Sync + 'static,
    {
        self.serve(
            move |comm: &mut Comm<'_>| Ok(FeaturesPart { table: load(comm)? }),
            |link, _| {
                let unexpected = |m: Option<Msg>| {
                    Error::Cluster(match m {
                        Some(m) => format!("unexpected answer {m:?}"),
                        None => "the workers did not answer".into(),
                    })
                };
                let (names, arities, label_levels) = match link.call(Msg::Describe) {
                    Some(Msg::Shape {
                        names,
                        arities,
                        label_levels,
                    }) => (names, arities, label_levels),
                    other => return Err(unexpected(other)),
                };
                let counts = match link.call(Msg::Count) {
                    Some(Msg::Counts(c)) => c,
                    other => return Err(unexpected(other)),
                };
                Ok(FeatureCounts {
                    names,
                    arities,
                    label_levels,
                    counts,
                })
            },
        )
    }
}
