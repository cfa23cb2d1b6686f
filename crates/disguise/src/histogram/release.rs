//! Synthetic data from a released histogram (Vinterbo 2012, Sections 2.1 and 3): ⌈h̃(x) − ½⌉
//! copies of every released cell x, decoded to the original column values (levels, bin
//! midpoints, the missing marker).
//!
//! Post-processing of the histogram: it costs no privacy, and its guarantee is the
//! histogram's.

use super::bins::Values;
use super::discretized::Domain;
use super::encode::MixedRadix;
use super::sparse::ThresholdedHistogram;
use crate::error::{Error, Result};
use crate::noise::SecureRng;
use crate::noise::bernoulli::uniform_below;
use std::io::Write;

/// The released cells decoded to their codes (one per column), with the number of synthetic
/// records ⌈h̃ − ½⌉ of each; cells with zero copies are left out. Sorted by cell.
///
/// This holds a vector per cell; [`for_each_synthetic_cell`] visits the same cells without
/// storing them.
///
/// # Errors
/// [`Error::InvalidParameter`] if the encoding's space differs from the histogram's.
pub fn synthetic_cells(
    histogram: &ThresholdedHistogram,
    encoding: &MixedRadix,
) -> Result<Vec<(Vec<u32>, u64)>> {
    let mut out = Vec::with_capacity(histogram.support_size());
    for_each_synthetic_cell(histogram, encoding, |digits, copies| {
        out.push((digits.to_vec(), copies));
        Ok(())
    })?;
    Ok(out)
}

/// Calls `f(codes, copies)` for every released cell with at least one synthetic record, in
/// cell order: its codes (one per column, decoded into one reused buffer) and its number of
/// synthetic records ⌈h̃ − ½⌉. The cells of [`synthetic_cells`], in O(columns) memory.
///
/// ```
/// use disguise::histogram::{MixedRadix, SparseLaplace, for_each_synthetic_cell};
/// use disguise::privacy::Epsilon;
/// use disguise::SecureRng;
/// let enc = MixedRadix::new(&[2, 3], &["x", "y"])?;
/// let mech = SparseLaplace::new(Epsilon::new(5.0)?, 40, 0.5)?;
/// let mut rng = SecureRng::insecure_from_seed(2);
/// // 40 records in cell (1, 2) = code 5.
/// let h = mech.release_counts(&mut rng, &[(5, 40)], 6)?;
/// let mut seen = Vec::new();
/// for_each_synthetic_cell(&h, &enc, |codes, copies| {
///     seen.push((codes.to_vec(), copies));
///     Ok(())
/// })?;
/// assert!(seen.iter().any(|(c, n)| c == &[1, 2] && (36..=44).contains(n)));
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] if the encoding's space differs from the histogram's; the
/// first error of `f`, which ends the visit.
pub fn for_each_synthetic_cell<F>(
    histogram: &ThresholdedHistogram,
    encoding: &MixedRadix,
    mut f: F,
) -> Result<()>
where
    F: FnMut(&[u32], u64) -> Result<()>,
{
    check(histogram, encoding)?;
    let mut digits = vec![0u32; encoding.len()];
    for &(cell, value) in histogram.cells() {
        let copies = ThresholdedHistogram::copies(value);
        if copies == 0 {
            continue;
        }
        encoding.decode(cell, &mut digits);
        f(&digits, copies)?;
    }
    Ok(())
}

/// [`for_each_synthetic_cell`] for a histogram given away: the same calls in **decreasing**
/// cell order, while the histogram's memory is returned in chunks of 2¹⁶ cells as they are
/// visited, so that what `f` builds from a release of millions of cells does not sit next to
/// the whole release (the chunks are given back to the allocator; the operating system gets
/// them when the allocator returns them, as glibc does at once for a large buffer).
///
/// ```
/// use disguise::histogram::{
///     MixedRadix, SparseLaplace, drain_synthetic_cells_rev, synthetic_cells,
/// };
/// use disguise::privacy::Epsilon;
/// use disguise::SecureRng;
/// let enc = MixedRadix::new(&[2, 3], &["x", "y"])?;
/// let mech = SparseLaplace::new(Epsilon::new(5.0)?, 60, 0.5)?;
/// let mut rng = SecureRng::insecure_from_seed(2);
/// let h = mech.release_counts(&mut rng, &[(1, 20), (5, 40)], 6)?;
/// let mut want = synthetic_cells(&h, &enc)?;
/// want.reverse();
/// let mut seen = Vec::new();
/// drain_synthetic_cells_rev(h, &enc, |codes, copies| {
///     seen.push((codes.to_vec(), copies));
///     Ok(())
/// })?;
/// assert_eq!(seen, want);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// As [`for_each_synthetic_cell`].
pub fn drain_synthetic_cells_rev<F>(
    histogram: ThresholdedHistogram,
    encoding: &MixedRadix,
    f: F,
) -> Result<()>
where
    F: FnMut(&[u32], u64) -> Result<()>,
{
    drain_in_chunks(histogram, encoding, 1 << 16, f)
}

/// [`drain_synthetic_cells_rev`] with chunks of `chunk` ≥ 1 cells.
fn drain_in_chunks<F>(
    histogram: ThresholdedHistogram,
    encoding: &MixedRadix,
    chunk: usize,
    mut f: F,
) -> Result<()>
where
    F: FnMut(&[u32], u64) -> Result<()>,
{
    check(&histogram, encoding)?;
    let mut cells = histogram.into_cells();
    let mut digits = vec![0u32; encoding.len()];
    while !cells.is_empty() {
        let start = cells.len().saturating_sub(chunk.max(1));
        for &(cell, value) in cells[start..].iter().rev() {
            let copies = ThresholdedHistogram::copies(value);
            if copies == 0 {
                continue;
            }
            encoding.decode(cell, &mut digits);
            f(&digits, copies)?;
        }
        cells.truncate(start);
        cells.shrink_to_fit();
    }
    Ok(())
}

/// Calls `f(cell)` once for each synthetic record (⌈h̃ − ½⌉ copies of every released cell)
/// in a uniformly random order: every ordering of the records is equally likely. The order
/// is drawn from `rng` after the release, so it is post-processing and costs no privacy; it
/// keeps a synthetic table from listing its records sorted by cell.
///
/// *Method*: the remaining copies of the s released cells sit in a Fenwick tree; each record
/// draws r uniform below the number remaining ([`uniform_below`], exact) and takes the cell
/// whose run of copies holds r. O(s) memory and O(log s) time per record.
///
/// # Errors
/// [`Error::InvalidParameter`] if the records number more than 2⁶⁴ − 1; the first error of
/// `f`, which ends the visit.
pub fn for_each_synthetic_record_shuffled<F>(
    histogram: &ThresholdedHistogram,
    rng: &mut SecureRng,
    mut f: F,
) -> Result<()>
where
    F: FnMut(u64) -> Result<()>,
{
    let cells: Vec<(u64, u64)> = histogram
        .cells()
        .iter()
        .map(|&(cell, value)| (cell, ThresholdedHistogram::copies(value)))
        .filter(|&(_, copies)| copies > 0)
        .collect();
    let Some(mut remaining) = cells
        .iter()
        .try_fold(0u64, |sum, &(_, c)| sum.checked_add(c))
    else {
        return Err(Error::param(
            "release",
            "more than 2^64 − 1 synthetic records",
        ));
    };
    // tree[i] (1-based) holds the copies of cells (i − lowbit(i), i].
    let s = cells.len();
    let mut tree = vec![0u64; s + 1];
    for (i, &(_, copies)) in cells.iter().enumerate() {
        tree[i + 1] += copies;
        let parent = (i + 1) + ((i + 1) & (i + 1).wrapping_neg());
        if parent <= s {
            tree[parent] += tree[i + 1];
        }
    }
    let top = if s == 0 { 0 } else { 1usize << s.ilog2() };
    while remaining > 0 {
        // The cell whose copies hold position r: the largest prefix of cells with at most r
        // copies ends just before it.
        let mut r = uniform_below(rng, remaining);
        let (mut at, mut step) = (0usize, top);
        while step > 0 {
            if at + step <= s && tree[at + step] <= r {
                at += step;
                r -= tree[at];
            }
            step >>= 1;
        }
        f(cells[at].0)?;
        let mut i = at + 1;
        while i <= s {
            tree[i] -= 1;
            i += i & i.wrapping_neg();
        }
        remaining -= 1;
    }
    Ok(())
}

/// Writes the synthetic dataset as CSV with a header row (`names`), one line per synthetic
/// record: ⌈h̃(x) − ½⌉ lines for each released cell x, in a uniformly random order drawn
/// from `rng` ([`for_each_synthetic_record_shuffled`]), with values decoded by
/// `domains` as `values` says ([`Domain::write`]: drawn uniformly inside their bins, or
/// bin midpoints). Returns the number of records written.
///
/// ```
/// use disguise::histogram::{
///     Bins, Domain, MixedRadix, SparseLaplace, Values, write_synthetic_csv,
/// };
/// use disguise::privacy::Epsilon;
/// use disguise::SecureRng;
/// let domains = vec![
///     Domain::Numeric { bins: Bins::new(0.0, 10.0, 2)?, missing: None },
///     Domain::Categorical { levels: vec!["no".into(), "yes".into()], missing: None },
/// ];
/// let enc = MixedRadix::new(&[2, 2], &["x", "y"])?;
/// // 40 records in cell (bin 1, "yes") = code 3.
/// let mech = SparseLaplace::new(Epsilon::new(5.0)?, 40, 0.5)?;
/// let mut rng = SecureRng::insecure_from_seed(2);
/// let h = mech.release_counts(&mut rng, &[(3, 40)], 4)?;
/// let mut out = Vec::new();
/// let names = ["x".to_string(), "y".to_string()];
/// let rows = write_synthetic_csv(&mut out, &names, &domains, &enc, &h, Values::Midpoint, &mut rng)?;
/// let text = String::from_utf8(out).unwrap();
/// assert!(text.starts_with("x,y\n"));
/// assert_eq!(text.lines().count() as u64, rows + 1);
/// // About 40 copies of the midpoint of bin 1 with "yes" (noise scale 2/ε = 0.4).
/// let hits = text.lines().filter(|l| *l == "7.5,yes").count();
/// assert!((36..=44).contains(&hits));
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] if names, domains and encoding disagree; [`Error::Io`] if
/// writing fails.
pub fn write_synthetic_csv<W: Write>(
    writer: W,
    names: &[String],
    domains: &[Domain],
    encoding: &MixedRadix,
    histogram: &ThresholdedHistogram,
    values: Values,
    rng: &mut SecureRng,
) -> Result<u64> {
    check(histogram, encoding)?;
    if names.len() != encoding.len() || domains.len() != encoding.len() {
        return Err(Error::param(
            "release",
            format!(
                "{} names and {} domains for a {}-column encoding",
                names.len(),
                domains.len(),
                encoding.len()
            ),
        ));
    }
    if let Some(i) = (0..domains.len()).find(|&i| domains[i].size() != encoding.radices()[i]) {
        return Err(Error::param(
            "release",
            format!(
                "column '{}': domain size differs from the encoding's radix",
                names[i]
            ),
        ));
    }
    let mut out = CodedCsv::new(writer, names, domains, values, rng)?;
    let mut digits = vec![0u32; encoding.len()];
    for_each_synthetic_record_shuffled(histogram, rng, |cell| {
        encoding.decode(cell, &mut digits);
        out.record(&digits)
    })?;
    out.finish()
}

/// A CSV writer of coded records, the one every synthetic table is written with: a header
/// of the column names, then each record's codes decoded by its column's domain (a level as
/// the schema spells it, a numeric value drawn uniformly inside its bin or its bin's
/// midpoint, [`Values`]).
pub(crate) struct CodedCsv<'d, W: Write> {
    writer: csv::Writer<W>,
    domains: &'d [Domain],
    row: Vec<String>,
    written: u64,
    /// The generator of uniform values (a fork of the run's, taken once, so that a seeded
    /// run is reproducible); `None` writes midpoints and draws nothing.
    uniform: Option<SecureRng>,
}

fn csv_io(e: csv::Error) -> Error {
    Error::io_with("writing the synthetic data", e)
}

impl<'d, W: Write> CodedCsv<'d, W> {
    /// Writes the header `names` (one per domain). Uniform values fork their generator from
    /// `rng` here when a column is numeric; midpoints (and a table without numeric columns)
    /// leave `rng` untouched.
    pub(crate) fn new(
        writer: W,
        names: &[String],
        domains: &'d [Domain],
        values: Values,
        rng: &mut SecureRng,
    ) -> Result<Self> {
        let mut writer = csv::Writer::from_writer(writer);
        writer.write_record(names).map_err(csv_io)?;
        let numeric = domains.iter().any(|d| matches!(d, Domain::Numeric { .. }));
        Ok(Self {
            writer,
            domains,
            row: vec![String::new(); domains.len()],
            written: 0,
            uniform: (values == Values::Uniform && numeric).then(|| rng.fork()),
        })
    }

    /// Writes one record, its codes in the columns' order.
    pub(crate) fn record(&mut self, codes: &[u32]) -> Result<()> {
        for ((field, domain), &code) in self.row.iter_mut().zip(self.domains).zip(codes) {
            match &mut self.uniform {
                Some(rng) => domain.write(code, Values::Uniform, rng, field),
                None => *field = domain.decode(code),
            }
        }
        self.writer.write_record(&self.row).map_err(csv_io)?;
        self.written += 1;
        Ok(())
    }

    /// Flushes; returns the number of records written.
    pub(crate) fn finish(mut self) -> Result<u64> {
        self.writer
            .flush()
            .map_err(|e| Error::io_with("writing the synthetic data", e))?;
        Ok(self.written)
    }
}

fn check(histogram: &ThresholdedHistogram, encoding: &MixedRadix) -> Result<()> {
    if histogram.size() != encoding.size() {
        return Err(Error::param(
            "release",
            format!(
                "the histogram has {} cells but the encoding {}",
                histogram.size(),
                encoding.size()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::histogram::SparseLaplace;
    use crate::privacy::Epsilon;

    /// A histogram whose cells have exactly the given numbers of copies.
    fn exact(copies: &[(u64, u64)]) -> ThresholdedHistogram {
        let mech = SparseLaplace::new(Epsilon::new(1.0).unwrap(), 10, 0.5).unwrap();
        let cells = copies.iter().map(|&(c, n)| (c, n as f64)).collect();
        mech.histogram(64, cells)
    }

    #[test]
    fn the_shuffle_visits_every_record_once() {
        let h = exact(&[(3, 5), (9, 0), (17, 1), (40, 12), (63, 2)]);
        let mut seen = std::collections::BTreeMap::new();
        let mut order = Vec::new();
        let mut rng = SecureRng::insecure_from_seed(1);
        for_each_synthetic_record_shuffled(&h, &mut rng, |cell| {
            *seen.entry(cell).or_insert(0u64) += 1;
            order.push(cell);
            Ok(())
        })
        .unwrap();
        assert_eq!(
            seen.into_iter().collect::<Vec<_>>(),
            [(3, 5), (17, 1), (40, 12), (63, 2)]
        );
        assert!(!order.is_sorted(), "{order:?}");
        let mut none = 0;
        for_each_synthetic_record_shuffled(&exact(&[]), &mut rng, |_| {
            none += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(none, 0);
    }

    /// Every ordering of the records is equally likely: the 3 orders of {A, B, B} and the 12
    /// of {A, B, C, C} over 60,000 shuffles each, by a chi-square test at a false-alarm rate
    /// of 10⁻³ per multiset (fixed seed).
    #[test]
    fn every_order_is_equally_likely() {
        // The 0.999 quantiles of chi-square with 2 and 11 degrees of freedom.
        for (copies, critical) in [
            (vec![(0, 1), (1, 2)], 13.816),
            (vec![(0, 1), (1, 1), (2, 2)], 31.264),
        ] {
            let h = exact(&copies);
            let mut rng = SecureRng::insecure_from_seed(7);
            let mut counts = std::collections::HashMap::new();
            let trials = 60_000;
            for _ in 0..trials {
                let mut order = Vec::new();
                for_each_synthetic_record_shuffled(&h, &mut rng, |c| {
                    order.push(c);
                    Ok(())
                })
                .unwrap();
                *counts.entry(order).or_insert(0u64) += 1;
            }
            let orders = if copies.len() == 2 { 3 } else { 12 };
            assert_eq!(counts.len(), orders);
            let expected = trials as f64 / orders as f64;
            let chi2: f64 = counts
                .values()
                .map(|&o| (o as f64 - expected).powi(2) / expected)
                .sum();
            assert!(chi2 < critical, "chi² = {chi2} over {orders} orders");
        }
    }

    #[test]
    fn visiting_the_cells_gives_the_synthetic_cells() {
        let enc = MixedRadix::new(&[3, 4, 2], &["a", "b", "c"]).unwrap();
        let mech = SparseLaplace::new(Epsilon::new(0.5).unwrap(), 60, 0.5).unwrap();
        let mut rng = SecureRng::insecure_from_seed(4);
        let h = mech
            .release_counts(&mut rng, &[(1, 20), (7, 30), (23, 10)], enc.size())
            .unwrap();
        let mut seen = Vec::new();
        for_each_synthetic_cell(&h, &enc, |d, c| {
            seen.push((d.to_vec(), c));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, synthetic_cells(&h, &enc).unwrap());
        assert!(!seen.is_empty());
        // Draining visits the same cells backwards.
        let mut drained = Vec::new();
        drain_synthetic_cells_rev(h.clone(), &enc, |d, c| {
            drained.push((d.to_vec(), c));
            Ok(())
        })
        .unwrap();
        drained.reverse();
        assert_eq!(drained, seen);
        // In chunks smaller than the release (chunk boundaries inside it).
        for chunk in [1, 2, 3, seen.len()] {
            let mut drained = Vec::new();
            drain_in_chunks(h.clone(), &enc, chunk, |d, c| {
                drained.push((d.to_vec(), c));
                Ok(())
            })
            .unwrap();
            drained.reverse();
            assert_eq!(drained, seen, "chunk {chunk}");
        }
        let total: u64 = seen.iter().map(|s| s.1).sum();
        assert_eq!(total, h.synthetic_rows());
        // The visitor's first error ends the visit.
        let mut calls = 0;
        let e = for_each_synthetic_cell(&h, &enc, |_, _| {
            calls += 1;
            Err(Error::param("f", "stop"))
        });
        assert!(e.is_err() && calls == 1);
        // A histogram of another space is refused.
        let other = MixedRadix::new(&[3, 4], &["a", "b"]).unwrap();
        assert!(for_each_synthetic_cell(&h, &other, |_, _| Ok(())).is_err());
    }
}
