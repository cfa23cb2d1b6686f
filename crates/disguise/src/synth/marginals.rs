//! The exact 1-way and 2-way marginal counts of a coded table: everything the synthesizer
//! reads from the data.

use super::compress::Compression;
use crate::data::Codes;
use crate::error::{Error, Result};
use rayon::prelude::*;

/// The exact counts of every 1-way and every 2-way marginal of a table of codes: column i
/// takes values 0..sizes\[i\], pair (i, j) with i < j is an sizes\[i\] × sizes\[j\] table in
/// row-major order (value a of i, value b of j at a·sizes\[j\] + b).
///
/// The synthesizer touches the private data only through these counts, and they are sums
/// over records: the marginals of a table spread over workers are the sums of the workers'
/// marginals ([`Marginals::to_flat`], [`Marginals::from_flat`]), exactly.
///
/// ```
/// use disguise::data::Codes;
/// use disguise::synth::Marginals;
/// let mut a = Codes::new();
/// let mut b = Codes::new();
/// for (x, y) in [(0, 1), (1, 1), (1, 0)] {
///     a.push(x);
///     b.push(y);
/// }
/// let m = Marginals::count(&[&a, &b], &[2, 2], 3)?;
/// assert_eq!(m.one(0), &[1, 2]);
/// assert_eq!(m.two(0, 1), &[0, 1, 1, 1]);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marginals {
    sizes: Vec<usize>,
    rows: u64,
    ones: Vec<Vec<u64>>,
    /// Pairs (i, j), i < j, in the order (0, 1), (0, 2), …, (1, 2), …
    twos: Vec<Vec<u64>>,
}

/// What the synthesizer reads from a table: its exact 1-way counts first, then — once the
/// noisy 1-ways have decided which rare values to merge — every 1-way and 2-way marginal on
/// the compressed domain. Both are sums over records.
pub trait Tally {
    /// The columns' domain sizes.
    fn sizes(&self) -> &[usize];
    /// n, the number of records.
    fn rows(&self) -> u64;
    /// Each column's exact counts.
    ///
    /// # Errors
    /// A code out of range.
    fn ones(&mut self) -> Result<Vec<Vec<u64>>>;
    /// Every marginal on the domain `compression` makes.
    ///
    /// # Errors
    /// [`Error::Memory`] when the compressed marginals do not fit.
    fn compressed(self, compression: &Compression) -> Result<Marginals>;
    /// The exact counts of each of `cliques` (sorted columns; a table row-major over them,
    /// the last column fastest) on the domain `compression` makes.
    ///
    /// # Errors
    /// [`Error::Memory`] when the tables do not fit; a clique this tally cannot count.
    fn counts(self, compression: &Compression, cliques: &[Vec<usize>]) -> Result<Vec<Vec<u64>>>;
}

/// Checks that tables over `cliques` of columns of `sizes` fit in memory; their cells.
fn check_cliques(sizes: &[usize], cliques: &[Vec<usize>]) -> Result<u128> {
    let mut total: u128 = 0;
    for c in cliques {
        if c.is_empty() || c.windows(2).any(|w| w[0] >= w[1]) || c.iter().any(|&i| i >= sizes.len())
        {
            return Err(Error::param(
                "cliques",
                format!("{c:?} is not a sorted set of columns"),
            ));
        }
        let cells = c
            .iter()
            .try_fold(1u128, |acc, &i| acc.checked_mul(sizes[i] as u128))
            .ok_or_else(|| Error::Overflow(format!("the table of columns {c:?}")))?;
        total = total.saturating_add(cells);
    }
    crate::memory::check(
        &format!("the measured marginals ({total} cells)"),
        total.saturating_mul(8),
        "give numeric columns fewer bins in the schema, or drop columns with many levels",
    )?;
    Ok(total)
}

/// Counted marginals (a cluster's sums): the 2-ways were counted on the full domain.
impl Tally for Marginals {
    fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    fn rows(&self) -> u64 {
        self.rows
    }

    fn ones(&mut self) -> Result<Vec<Vec<u64>>> {
        Ok(self.ones.clone())
    }

    fn compressed(self, compression: &Compression) -> Result<Marginals> {
        self.compressed_by(compression)
    }

    /// The 1-ways and 2-ways only: a cluster sums the 2-ways and no larger marginal.
    fn counts(self, compression: &Compression, cliques: &[Vec<usize>]) -> Result<Vec<Vec<u64>>> {
        check_cliques(compression.sizes(), cliques)?;
        let m = self.compressed_by(compression)?;
        cliques
            .iter()
            .map(|c| match c[..] {
                [i] => Ok(m.one(i).to_vec()),
                [i, j] => Ok(m.two(i, j).to_vec()),
                _ => Err(Error::param(
                    "method",
                    format!(
                        "a marginal of {} columns is counted in one process only (a cluster \
                         sums 1-ways and 2-ways): use --method mst, or no target",
                        c.len()
                    ),
                )),
            })
            .collect()
    }
}

/// A coded table in memory: the 2-ways are counted only on the compressed domain, so a
/// column of 10⁵ levels that compresses to a few costs the memory of a few.
#[derive(Debug)]
pub struct CodedTable<'a> {
    codes: Vec<&'a Codes>,
    sizes: Vec<usize>,
    rows: usize,
}

impl<'a> CodedTable<'a> {
    /// The columns `codes` (each with `rows` codes below `sizes[i]`).
    ///
    /// # Errors
    /// Mismatched lengths.
    pub fn new(codes: Vec<&'a Codes>, sizes: &[usize], rows: usize) -> Result<Self> {
        if codes.len() != sizes.len() || codes.iter().any(|c| c.len() != rows) {
            return Err(Error::param("codes", "columns of other lengths or count"));
        }
        Ok(Self {
            codes,
            sizes: sizes.to_vec(),
            rows,
        })
    }
}

impl Tally for CodedTable<'_> {
    fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    fn rows(&self) -> u64 {
        self.rows as u64
    }

    fn ones(&mut self) -> Result<Vec<Vec<u64>>> {
        count_ones(&self.codes, &self.sizes, |_, v| v)
    }

    fn compressed(self, compression: &Compression) -> Result<Marginals> {
        Marginals::count_mapped(&self.codes, compression.sizes(), self.rows, |i, v| {
            compression.code(i, v)
        })
    }

    fn counts(self, compression: &Compression, cliques: &[Vec<usize>]) -> Result<Vec<Vec<u64>>> {
        let sizes = compression.sizes();
        check_cliques(sizes, cliques)?;
        cliques
            .par_iter()
            .map(|c| {
                let mut counts = vec![0u64; c.iter().map(|&i| sizes[i]).product()];
                let mut cell = vec![0usize; self.rows];
                for &i in c {
                    let s = sizes[i];
                    for (x, v) in cell.iter_mut().zip(self.codes[i].iter()) {
                        let code = compression.code(i, v) as usize;
                        if code >= s {
                            return Err(Error::param(
                                "codes",
                                format!("column {i} has code {v} outside its domain"),
                            ));
                        }
                        *x = *x * s + code;
                    }
                }
                for x in cell {
                    counts[x] += 1;
                }
                Ok(counts)
            })
            .collect()
    }
}

/// Each column's counts of its codes mapped by `map(column, code)`, in parallel.
///
/// # Errors
/// [`Error::InvalidParameter`] for a mapped code ≥ its column's size.
pub(crate) fn count_ones<M>(codes: &[&Codes], sizes: &[usize], map: M) -> Result<Vec<Vec<u64>>>
where
    M: Fn(usize, u32) -> u32 + Sync,
{
    codes
        .par_iter()
        .zip(sizes.par_iter())
        .enumerate()
        .map(|(i, (c, &s))| {
            let mut counts = vec![0u64; s];
            for v in c.iter().map(|v| map(i, v)) {
                let slot = counts.get_mut(v as usize).ok_or_else(|| {
                    Error::param("codes", format!("column {i} has code {v} ≥ {s}"))
                })?;
                *slot += 1;
            }
            Ok(counts)
        })
        .collect()
}

/// The number of cells of all 1-way and 2-way marginals of columns with these sizes, or
/// `None` on overflow.
pub fn cell_count(sizes: &[usize]) -> Option<u128> {
    let mut total: u128 = 0;
    for (i, &a) in sizes.iter().enumerate() {
        total = total.checked_add(a as u128)?;
        for &b in &sizes[i + 1..] {
            total = total.checked_add((a as u128).checked_mul(b as u128)?)?;
        }
    }
    Some(total)
}

/// Checks that the marginals of columns with `sizes` fit in memory (8 bytes per cell).
///
/// # Errors
/// [`Error::Memory`] or [`Error::Overflow`] naming the cell count.
pub fn check_size(sizes: &[usize]) -> Result<u128> {
    let cells = cell_count(sizes)
        .ok_or_else(|| Error::Overflow("the marginals' cell count overflows".to_string()))?;
    crate::memory::check(
        &format!("the 1-way and 2-way marginals ({cells} cells)"),
        cells.saturating_mul(8),
        "give numeric columns fewer bins in the schema, or drop columns with many levels",
    )?;
    Ok(cells)
}

impl Marginals {
    /// Counts the marginals of the columns `codes` (each with `rows` codes, column i's codes
    /// below `sizes[i]`). The pairs are counted in parallel; the result does not depend on
    /// the number of threads.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for mismatched lengths or a code out of range;
    /// [`Error::Memory`] as [`check_size`].
    pub fn count(codes: &[&Codes], sizes: &[usize], rows: usize) -> Result<Self> {
        Self::count_mapped(codes, sizes, rows, |_, v| v)
    }

    /// As [`Marginals::count`], of the codes mapped by `map(column, code)` (each mapped code
    /// below `sizes[column]`): the marginals of a compressed table, counted without the
    /// uncompressed ones.
    ///
    /// # Errors
    /// As [`Marginals::count`].
    pub fn count_mapped<M>(codes: &[&Codes], sizes: &[usize], rows: usize, map: M) -> Result<Self>
    where
        M: Fn(usize, u32) -> u32 + Sync,
    {
        if codes.len() != sizes.len() {
            return Err(Error::param(
                "codes",
                format!("{} columns for {} sizes", codes.len(), sizes.len()),
            ));
        }
        if let Some(i) = codes.iter().position(|c| c.len() != rows) {
            return Err(Error::param(
                "codes",
                format!("column {i} has {} rows, not {rows}", codes[i].len()),
            ));
        }
        check_size(sizes)?;
        let d = sizes.len();
        let ones = count_ones(codes, sizes, &map)?;
        let pairs: Vec<(usize, usize)> = (0..d)
            .flat_map(|i| (i + 1..d).map(move |j| (i, j)))
            .collect();
        // Codes are in range (checked above), so a·s_j + b is a cell of the pair.
        let twos: Vec<Vec<u64>> = pairs
            .par_iter()
            .map(|&(i, j)| {
                let sj = sizes[j];
                let mut counts = vec![0u64; sizes[i] * sj];
                for (a, b) in codes[i].iter().zip(codes[j].iter()) {
                    counts[map(i, a) as usize * sj + map(j, b) as usize] += 1;
                }
                counts
            })
            .collect();
        Ok(Self {
            sizes: sizes.to_vec(),
            rows: rows as u64,
            ones,
            twos,
        })
    }

    /// These marginals on the domain `compression` makes (cells summed).
    ///
    /// # Errors
    /// As [`Marginals::from_flat`] (never, for a compression of these columns).
    pub fn compressed_by(&self, compression: &Compression) -> Result<Marginals> {
        let sizes = compression.sizes();
        let mut flat = vec![self.rows];
        for i in 0..self.width() {
            let mut counts = vec![0u64; sizes[i]];
            for (v, &c) in self.one(i).iter().enumerate() {
                counts[compression.code(i, v as u32) as usize] += c;
            }
            flat.extend(counts);
        }
        for i in 0..self.width() {
            for (j, &oj) in self.sizes.iter().enumerate().skip(i + 1) {
                let sj = sizes[j];
                let mut counts = vec![0u64; sizes[i] * sj];
                for (cell, &c) in self.two(i, j).iter().enumerate() {
                    let (a, b) = ((cell / oj) as u32, (cell % oj) as u32);
                    let to = compression.code(i, a) as usize * sj + compression.code(j, b) as usize;
                    counts[to] += c;
                }
                flat.extend(counts);
            }
        }
        Marginals::from_flat(sizes, &flat)
    }

    /// The domain sizes.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// The number of columns.
    pub fn width(&self) -> usize {
        self.sizes.len()
    }

    /// The number of records counted.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Column i's counts.
    pub fn one(&self, i: usize) -> &[u64] {
        &self.ones[i]
    }

    /// The counts of pair (i, j), i < j, row-major (i's value major).
    pub fn two(&self, i: usize, j: usize) -> &[u64] {
        &self.twos[pair_index(self.sizes.len(), i, j)]
    }

    /// Every count in one vector (the 1-ways, then the pairs in order), for summing across
    /// workers.
    pub fn to_flat(&self) -> Vec<u64> {
        let mut out = Vec::new();
        out.push(self.rows);
        for v in self.ones.iter().chain(&self.twos) {
            out.extend_from_slice(v);
        }
        out
    }

    /// The marginals of columns with `sizes` from a vector made by [`Marginals::to_flat`]
    /// (or a sum of such vectors).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the length does not match the sizes.
    pub fn from_flat(sizes: &[usize], flat: &[u64]) -> Result<Self> {
        let cells = cell_count(sizes)
            .ok_or_else(|| Error::Overflow("the marginals' cell count overflows".to_string()))?;
        if flat.len() as u128 != cells + 1 {
            return Err(Error::param(
                "marginals",
                format!("{} counts for {} cells", flat.len(), cells + 1),
            ));
        }
        let d = sizes.len();
        let mut at = 1;
        let mut take = |len: usize| {
            let v = flat[at..at + len].to_vec();
            at += len;
            v
        };
        let ones = sizes.iter().map(|&s| take(s)).collect();
        let mut twos = Vec::new();
        for i in 0..d {
            for j in i + 1..d {
                twos.push(take(sizes[i] * sizes[j]));
            }
        }
        Ok(Self {
            sizes: sizes.to_vec(),
            rows: flat[0],
            ones,
            twos,
        })
    }
}

/// The position of pair (i, j), i < j, among the pairs of d columns in order.
pub(crate) fn pair_index(d: usize, i: usize, j: usize) -> usize {
    debug_assert!(i < j && j < d);
    // Pairs before row i: (d − 1) + (d − 2) + … + (d − i).
    i * (2 * d - i - 1) / 2 + (j - i - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marginals_compress_by_summing_merged_cells() {
        // Column 0: values 1 and 3 are rare; column 1 keeps everything.
        let c = Compression::from_noisy(&[vec![50.0, 1.0, 40.0, -2.0], vec![30.0, 30.0]], 5.0);
        let mut cols = [Codes::new(), Codes::new()];
        for (a, b) in [(0, 0), (1, 1), (2, 0), (3, 1), (3, 1)] {
            cols[0].push(a);
            cols[1].push(b);
        }
        let full = Marginals::count(&[&cols[0], &cols[1]], &[4, 2], 5).unwrap();
        let small = full.compressed_by(&c).unwrap();
        assert_eq!(small.one(0), &[1, 1, 3]);
        assert_eq!(small.two(0, 1), &[1, 0, 1, 0, 0, 3]);
    }

    fn column(v: &[u32]) -> Codes {
        let mut c = Codes::new();
        for &x in v {
            c.push(x);
        }
        c
    }

    #[test]
    fn pairs_are_indexed_in_order_and_flat_round_trips() {
        let d = 5;
        let mut k = 0;
        for i in 0..d {
            for j in i + 1..d {
                assert_eq!(pair_index(d, i, j), k);
                k += 1;
            }
        }
        let (a, b, c) = (
            column(&[0, 1, 2, 2]),
            column(&[1, 0, 1, 1]),
            column(&[0, 0, 0, 1]),
        );
        let m = Marginals::count(&[&a, &b, &c], &[3, 2, 2], 4).unwrap();
        assert_eq!(m.two(0, 2), &[1, 0, 1, 0, 1, 1]);
        assert_eq!(m.two(1, 2), &[1, 0, 2, 1]);
        let flat = m.to_flat();
        assert_eq!(Marginals::from_flat(&[3, 2, 2], &flat).unwrap(), m);
        assert!(Marginals::from_flat(&[3, 2], &flat).is_err());
        // Sums of workers' marginals are the whole table's.
        let top = Marginals::count(
            &[&column(&[0, 1]), &column(&[1, 0]), &column(&[0, 0])],
            &[3, 2, 2],
            2,
        )
        .unwrap();
        let bottom = Marginals::count(
            &[&column(&[2, 2]), &column(&[1, 1]), &column(&[0, 1])],
            &[3, 2, 2],
            2,
        )
        .unwrap();
        let sum: Vec<u64> = top
            .to_flat()
            .iter()
            .zip(bottom.to_flat())
            .map(|(x, y)| x + y)
            .collect();
        assert_eq!(Marginals::from_flat(&[3, 2, 2], &sum).unwrap(), m);
    }

    #[test]
    fn codes_out_of_range_are_refused() {
        let a = column(&[0, 3]);
        let err = Marginals::count(&[&a], &[3], 2).unwrap_err().to_string();
        assert!(err.contains("code 3"), "{err}");
        assert!(cell_count(&[usize::MAX, usize::MAX, 2]).is_none());
    }
}
