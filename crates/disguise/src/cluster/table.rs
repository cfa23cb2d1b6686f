//! A worker's share of an input: a table read with a complete schema, points (CSV or
//! Parquet), sets (one per line), friend lists (from an edge list). An input is one file,
//! dealt row by row over all workers ([`Place::owns_row`]), or several parts, each going
//! whole to its owner ([`Place::owns_part`]: part j to process j mod P). [`Place::SOLE`]
//! reads the whole input: the share of a one-process run.

use super::{Comm, Place};
use crate::apps::{TransactionFormat, Transactions};
use crate::data::Parts;
use crate::error::Result;
use crate::histogram::edges::Released;
use crate::histogram::{Discretized, EdgePlan, EdgeRelease, GridCounts, Schema};
use std::path::{Path, PathBuf};

/// Which rows are `place`'s, `keep(file, row)`: one file is dealt row by row over all workers,
/// several files go whole to their owners.
fn share_of(place: super::Place, files: usize) -> impl Fn(usize, u64) -> bool {
    move |j, i| {
        if files == 1 {
            place.owns_row(i)
        } else {
            place.owns_part(j)
        }
    }
}

/// [`release_edges_share`] as every worker of a run calls it: nothing to do without planned
/// columns; worker 0 takes the generator from `rng` (filled by process 0 alone).
///
/// # Errors
/// As [`release_edges_share`].
pub(crate) fn edges_for_worker(
    comm: &mut Comm<'_>,
    paths: &[PathBuf],
    schema: &Schema,
    plan: &EdgePlan,
    rng: &std::sync::Mutex<Option<crate::SecureRng>>,
) -> Result<(Schema, Option<EdgeRelease>)> {
    if plan.is_empty() {
        return Ok((schema.clone(), None));
    }
    let mut rng = match comm.place().worker {
        0 => rng.lock().unwrap_or_else(|e| e.into_inner()).take(),
        _ => None,
    };
    release_edges_share(comm, paths, schema, plan, rng.as_mut())
}

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
    let keep = share_of(place, paths.len());
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

/// The private edges of `plan`'s columns over the whole table in `paths` (dealt as
/// [`read_share`] deals it): each worker counts its rows on the columns' grids and sends the
/// counts to worker 0 alone (for each grid point its share holds, how many of its records —
/// a column's values without the rest of any record; SCALING.md), which adds them up, draws
/// the edges with `rng` (the one-process release's draws, on the same sums) and sends them to
/// every worker. Returns `schema` with the edges written in and, in worker 0, the release.
/// Every worker must call it at the same point of a run (it exchanges twice); a worker's
/// error is every worker's.
///
/// # Errors
/// As [`read_share`] and [`EdgePlan::release`]; [`crate::Error::Cluster`].
pub fn release_edges_share(
    comm: &mut Comm<'_>,
    paths: &[PathBuf],
    schema: &Schema,
    plan: &EdgePlan,
    rng: Option<&mut crate::SecureRng>,
) -> Result<(Schema, Option<EdgeRelease>)> {
    use super::Msg;
    let place = comm.place();
    let keep = share_of(place, paths.len());
    let files: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    // [n, then per column: its number of grid points, then (point, count) pairs].
    let mine = plan.count_where(&files, schema, &keep).map(|(n, counts)| {
        let mut out = vec![n];
        for c in &counts {
            let pairs: Vec<(u64, u64)> = c.iter().collect();
            out.push(pairs.len() as u64);
            out.extend(pairs.into_iter().flat_map(|(g, k)| [g, k]));
        }
        out
    });
    let message = match &mine {
        Ok(v) => Msg::Counts(v.clone()),
        Err(e) => Msg::Failed(format!("worker {}: {e}", place.worker)),
    };
    let got = comm.exchange(vec![(0, message)])?;
    let columns = plan.columns().len();
    // Worker 0 adds the shares' counts up and draws; the others learn the edges from it.
    let drawn = (place.worker == 0).then(|| -> Result<(Schema, EdgeRelease)> {
        let mut n = 0u64;
        let mut counts = vec![GridCounts::default(); columns];
        for m in got {
            let part = match m {
                Msg::Counts(part) => part,
                Msg::Failed(why) => return Err(crate::Error::Cluster(why)),
                other => return Err(crate::Error::Cluster(format!("unexpected {other:?}"))),
            };
            let mut it = part.into_iter();
            let mut next = || {
                it.next()
                    .ok_or_else(|| crate::Error::Cluster("short counts".into()))
            };
            n += next()?;
            for c in counts.iter_mut() {
                for _ in 0..next()? {
                    let (g, k) = (next()?, next()?);
                    c.add(g, k);
                }
            }
        }
        let rng = rng.ok_or_else(|| crate::Error::Cluster("worker 0 has no generator".into()))?;
        plan.release(schema, n, &counts, rng)
    });
    let sent = match (&mine, &drawn) {
        (Err(e), _) => Err(crate::Error::Cluster(e.to_string())),
        (_, Some(Err(e))) => Err(crate::Error::Cluster(e.to_string())),
        (_, Some(Ok((resolved, _)))) => {
            let mut words = Vec::new();
            for r in plan.released(resolved) {
                r.encode(&mut words);
            }
            Ok(words)
        }
        (_, None) => Ok(Vec::new()),
    };
    let gathered = comm.all_gather(sent)?;
    let Some(from_zero) = gathered.into_iter().find(|v| !v.is_empty()) else {
        return Err(crate::Error::Cluster("no worker drew the edges".into()));
    };
    let mut it = from_zero.into_iter();
    let released = (0..columns)
        .map(|_| Released::decode(&mut it))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| crate::Error::Cluster("short edges".into()))?;
    let resolved = plan.with_released(schema, released)?;
    Ok((
        resolved,
        drawn.and_then(|d| d.ok()).map(|(_, release)| release),
    ))
}

/// `place`'s points of `parts` (CSV files, or Parquet by their extension with the feature
/// `parquet`): the two
/// `columns`, each value checked by `check` (column 0 or 1, the value) while reading.
///
/// # Errors
/// The readers' ([`crate::data::read_points_where`],
/// [`crate::data::parquet::read_points_parquet`]), at their `file:line:column`.
pub fn read_points_share(
    parts: &Parts,
    columns: [&str; 2],
    check: impl Fn(usize, f64) -> std::result::Result<(), String> + Copy,
    place: Place,
) -> Result<Vec<[f64; 2]>> {
    let read = |file: &Path, keep: &mut dyn FnMut(u64) -> bool| {
        #[cfg(feature = "parquet")]
        if crate::data::parquet::is_parquet(file) {
            return crate::data::parquet::read_points_parquet(file, columns, check, keep);
        }
        crate::data::read_points_where(file, columns, check, keep)
    };
    if parts.is_single() {
        return read(&parts.files()[0], &mut |i| place.owns_row(i));
    }
    let mut mine = Vec::new();
    for (j, file) in parts.files().iter().enumerate() {
        if place.owns_part(j) {
            mine.extend(read(file, &mut |_| true)?);
        }
    }
    Ok(mine)
}

/// `place`'s sets of `path` (a file, or a folder or glob of parts), one per line as in FIMI
/// transaction files: each the indices in `candidates` of the names on its line. Returns the
/// sets and the number of names left out for not being candidates.
///
/// # Errors
/// As [`Transactions::read`], at the file's `line:column`.
pub fn read_sets_share(
    path: &Path,
    candidates: &[String],
    place: Place,
) -> Result<(Vec<Vec<usize>>, u64)> {
    let parts = Parts::resolve(path)?;
    let single = parts.is_single();
    let (mut sets, mut dropped) = (Vec::new(), 0u64);
    for (j, file) in parts.files().iter().enumerate() {
        let read = if single {
            Transactions::read_fimi_where(file, Some(candidates), &mut |i| place.owns_row(i))?
        } else if place.owns_part(j) {
            Transactions::read(file, &TransactionFormat::Fimi, Some(candidates))?
        } else {
            continue;
        };
        sets.extend(
            read.rows()
                .map(|row| row.iter().map(|&i| i as usize).collect()),
        );
        dropped += read.dropped_items();
    }
    Ok((sets, dropped))
}

/// `place`'s friend lists of the edge list `path` over the people `nodes`: every worker reads
/// every edge and keeps its people's lists (person i is row i). Returns the lists and the
/// edges left out (an endpoint not in `nodes`, or a self-loop), counted for the whole file
/// by worker 0 only (0 elsewhere), so that the workers' counts add up to it.
///
/// # Errors
/// As [`crate::data::read_edge_list_where`].
pub fn read_friend_lists_share(
    path: &Path,
    nodes: &[String],
    place: Place,
) -> Result<(Vec<Vec<usize>>, u64)> {
    let graph = crate::data::read_edge_list_where(path, nodes, &|i| place.owns_row(i as u64))?;
    let lists = graph
        .lists
        .into_iter()
        .enumerate()
        .filter(|(i, _)| place.owns_row(*i as u64))
        .map(|(_, l)| l)
        .collect();
    let left_out = if place.worker == 0 {
        graph.dropped + graph.self_loops
    } else {
        0
    };
    Ok((lists, left_out))
}
