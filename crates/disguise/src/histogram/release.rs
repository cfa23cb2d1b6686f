//! Synthetic data from a released histogram (Vinterbo 2012, Sections 2.1 and 3): ⌈h̃(x) − ½⌉
//! copies of every released cell x, decoded to the original column values (levels, bin
//! midpoints, the missing marker).
//!
//! Post-processing of the histogram: it costs no privacy, and its guarantee is the
//! histogram's.

use super::discretize::Domain;
use super::encode::MixedRadix;
use super::sparse::ThresholdedHistogram;
use crate::error::{Error, Result};
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

/// Writes the synthetic dataset as CSV with a header row (`names`), one line per synthetic
/// record: ⌈h̃(x) − ½⌉ lines for each released cell x, in cell order, with values decoded by
/// `domains` ([`Domain::decode`]). Returns the number of records written.
///
/// ```
/// use disguise::histogram::{
///     Bins, Domain, MixedRadix, SparseLaplace, write_synthetic_csv,
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
/// let rows = write_synthetic_csv(&mut out, &["x".into(), "y".into()], &domains, &enc, &h)?;
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
    let io = |e: csv::Error| Error::io_with("writing the synthetic data", e);
    let mut w = csv::Writer::from_writer(writer);
    w.write_record(names).map_err(io)?;
    let mut written = 0u64;
    let mut digits = vec![0u32; encoding.len()];
    let mut row: Vec<String> = vec![String::new(); encoding.len()];
    for &(cell, value) in histogram.cells() {
        let copies = ThresholdedHistogram::copies(value);
        if copies == 0 {
            continue;
        }
        encoding.decode(cell, &mut digits);
        for ((field, domain), &code) in row.iter_mut().zip(domains).zip(&digits) {
            *field = domain.decode(code);
        }
        for _ in 0..copies {
            w.write_record(&row).map_err(io)?;
        }
        written = written.saturating_add(copies);
    }
    w.flush()
        .map_err(|e| Error::io_with("writing the synthetic data", e))?;
    Ok(written)
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
    use crate::noise::SecureRng;
    use crate::privacy::Epsilon;

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
