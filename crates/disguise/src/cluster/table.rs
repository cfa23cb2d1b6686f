//! A worker's share of a table read with a complete schema.

use super::Comm;
use crate::error::Result;
use crate::histogram::{Discretized, Schema};
use std::path::{Path, PathBuf};

/// This worker's rows of the table in `paths`, read with the complete `schema` (every domain
/// public) and coded as a one-process read of all the files would code them: one file is
/// dealt row by row over all workers ([`super::Place::owns_row`]), several files go whole to
/// their owners ([`super::Place::owns_part`]: file j to process j mod P). The number of bins
/// of the paper's rule depends on the total number of rows, learned first (one exchange); a
/// worker may end up with no rows.
///
/// Every worker must call it at the same point of a run (it exchanges twice); a worker's
/// reading error is every worker's.
///
/// # Errors
/// As [`Discretized::read`] with [`DomainSource::Schema`](crate::histogram::DomainSource);
/// an incomplete schema; [`crate::Error::Cluster`].
pub fn read_share(comm: &mut Comm<'_>, paths: &[PathBuf], schema: &Schema) -> Result<Discretized> {
    let place = comm.place();
    let single = paths.len() == 1;
    let keep = move |j: usize, i: u64| {
        if single {
            place.owns_row(i)
        } else {
            place.owns_part(j)
        }
    };
    let paths: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let mine = Discretized::count_where(&paths, schema, &keep);
    let n = comm.all_sum(mine.map(|n| vec![n]))?[0];
    let read = Discretized::read_where(&paths, schema, n, &keep).map(|(d, _)| d);
    // Everyone learns whether everyone could read its rows.
    let status = match &read {
        Ok(_) => Ok(Vec::new()),
        Err(e) => Err(crate::Error::Cluster(e.to_string())),
    };
    comm.all_sum(status)?;
    read
}
