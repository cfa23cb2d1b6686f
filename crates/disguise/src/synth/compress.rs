//! MST's domain compression: values a column's noisy 1-way marginal says are rare are merged
//! into one value before the tree and the 2-ways are measured, so that sparse columns (many
//! levels, few records) cost fewer noisy cells.

use super::model::Measured;
use crate::error::Result;
use crate::noise::SecureRng;
use crate::noise::bernoulli::uniform_below;

/// How each column's values map to the compressed domain (McKenna, Miklau, Sheldon 2021,
/// Section 4.1 and `compress_domain` of their code): a value whose noisy count is at least
/// 3σ (σ the noise standard deviation of one count) keeps a code of its own; the others share
/// one last code, whether two, one or no value is kept (a column with nothing kept becomes one
/// code). Decided from the released noisy 1-ways only: post-processing, no privacy cost.
///
/// Records drawn on the compressed domain are mapped back by [`Compression::expand`]: a
/// merged code becomes one of the values it stands for, uniformly at random (MST's rule).
///
/// A compression serializes (a kept model's file) and is checked when read back: every code
/// maps into its column's compressed domain, and merged codes are codes of the column.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "CompressionFile")]
pub struct Compression {
    /// For each column: original code → compressed code.
    maps: Vec<Vec<u32>>,
    /// For each column: the original codes merged into its last code (empty: none merged).
    merged: Vec<Vec<u32>>,
    /// The compressed domain sizes.
    sizes: Vec<usize>,
}

/// [`Compression`] as a file holds it.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CompressionFile {
    maps: Vec<Vec<u32>>,
    merged: Vec<Vec<u32>>,
    sizes: Vec<usize>,
}

impl TryFrom<CompressionFile> for Compression {
    type Error = crate::Error;

    fn try_from(f: CompressionFile) -> Result<Self> {
        let d = f.sizes.len();
        let ok = f.maps.len() == d
            && f.merged.len() == d
            && (0..d).all(|i| {
                let (map, size) = (&f.maps[i], f.sizes[i]);
                map.iter().all(|&c| (c as usize) < size)
                    && f.merged[i].iter().all(|&v| (v as usize) < map.len())
            });
        if !ok {
            return Err(crate::Error::param(
                "compression",
                "codes outside their column's domain",
            ));
        }
        Ok(Self {
            maps: f.maps,
            merged: f.merged,
            sizes: f.sizes,
        })
    }
}

/// The threshold of a kept value, in noise standard deviations (MST's).
pub const KEEP_SIGMAS: f64 = 3.0;

impl Compression {
    /// The compression the noisy 1-ways `ones` call for, at noise standard deviation `sd`
    /// per count.
    pub fn from_noisy(ones: &[Vec<f64>], sd: f64) -> Self {
        let mut maps = Vec::with_capacity(ones.len());
        let mut merged = Vec::with_capacity(ones.len());
        let mut sizes = Vec::with_capacity(ones.len());
        for y in ones {
            let keep: Vec<bool> = y.iter().map(|&c| c >= KEEP_SIGMAS * sd).collect();
            let kept = keep.iter().filter(|&&k| k).count();
            // MST's rule: every value kept, or the kept ones (none, one or more) plus one code
            // for all the rest.
            if kept == y.len() {
                maps.push((0..y.len() as u32).collect());
                merged.push(Vec::new());
                sizes.push(y.len());
                continue;
            }
            let mut map = vec![0u32; y.len()];
            let mut rest = Vec::new();
            let mut next = 0u32;
            for (v, &k) in keep.iter().enumerate() {
                if k {
                    map[v] = next;
                    next += 1;
                } else {
                    rest.push(v as u32);
                }
            }
            for &v in &rest {
                map[v as usize] = next;
            }
            maps.push(map);
            merged.push(rest);
            sizes.push(kept + 1);
        }
        Self {
            maps,
            merged,
            sizes,
        }
    }

    /// The compression as words, for a cluster's workers ([`Compression::from_words`]):
    /// d, then per column its original size, its map, its compressed size, the number of
    /// merged values and those values.
    pub fn to_words(&self) -> Vec<u64> {
        let mut out = vec![self.maps.len() as u64];
        for i in 0..self.maps.len() {
            out.push(self.maps[i].len() as u64);
            out.extend(self.maps[i].iter().map(|&c| u64::from(c)));
            out.push(self.sizes[i] as u64);
            out.push(self.merged[i].len() as u64);
            out.extend(self.merged[i].iter().map(|&c| u64::from(c)));
        }
        out
    }

    /// Reads a compression that [`Compression::to_words`] wrote, checked as a file's.
    ///
    /// # Errors
    /// Short or inconsistent words.
    pub fn from_words(words: &mut impl Iterator<Item = u64>) -> Result<Self> {
        let short = || crate::Error::param("compression", "short words");
        let mut next = || words.next().ok_or_else(short);
        let small = |w: u64| u32::try_from(w).map_err(|_| short());
        let d = next()? as usize;
        let (mut maps, mut merged, mut sizes) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..d {
            let s = next()?;
            maps.push(
                (0..s)
                    .map(|_| small(next()?))
                    .collect::<Result<Vec<u32>>>()?,
            );
            sizes.push(next()? as usize);
            let k = next()?;
            merged.push(
                (0..k)
                    .map(|_| small(next()?))
                    .collect::<Result<Vec<u32>>>()?,
            );
        }
        Self::try_from(CompressionFile {
            maps,
            merged,
            sizes,
        })
    }

    /// The compressed domain sizes.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// The compressed code of column i's value v (`u32::MAX` for a value outside the
    /// column's domain, which a count then refuses).
    pub fn code(&self, i: usize, v: u32) -> u32 {
        self.maps[i].get(v as usize).copied().unwrap_or(u32::MAX)
    }

    /// Column i's number of values before compression.
    pub fn original_size(&self, i: usize) -> usize {
        self.maps[i].len()
    }

    /// How many values each column merged (0: none).
    pub fn merged_counts(&self) -> Vec<usize> {
        self.merged.iter().map(Vec::len).collect()
    }

    /// A noisy 1-way on the compressed domain: kept values as measured, the merged value the
    /// sum of its values' noisy counts, with the variance of that sum.
    pub fn measured_one(&self, column: usize, y: &[f64], variance: f64) -> Measured {
        let size = self.sizes[column];
        let mut counts = vec![0.0; size];
        let mut variances = vec![0.0; size];
        for (v, &c) in y.iter().enumerate() {
            let to = self.maps[column][v] as usize;
            counts[to] += c;
            variances[to] += variance;
        }
        Measured { counts, variances }
    }

    /// Maps records drawn on the compressed domain (row-major, one row per record) back to
    /// the original codes, in place: a merged code becomes one of its values uniformly.
    pub fn expand(&self, records: &mut [u32], rng: &mut SecureRng) {
        let d = self.sizes.len();
        if self.merged.iter().all(Vec::is_empty) {
            return;
        }
        // The inverse maps of the kept values.
        let kept: Vec<Vec<u32>> = self
            .maps
            .iter()
            .zip(&self.merged)
            .map(|(map, merged)| {
                let keep = map.len() - merged.len();
                let mut inverse = vec![0u32; keep];
                // Merged values map to the last code, `keep`: the others are the kept ones.
                for (v, &to) in map.iter().enumerate() {
                    if (to as usize) < keep {
                        inverse[to as usize] = v as u32;
                    }
                }
                inverse
            })
            .collect();
        for record in records.chunks_mut(d) {
            for (c, code) in record.iter_mut().enumerate() {
                let merged = &self.merged[c];
                if merged.is_empty() {
                    continue;
                }
                *code = match kept[c].get(*code as usize) {
                    Some(&v) => v,
                    None => merged[uniform_below(rng, merged.len() as u64) as usize],
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rare_values_are_merged_and_expanded_uniformly() {
        // Column 0: values 1 and 3 are rare; column 1 keeps everything.
        let noisy = vec![vec![50.0, 1.0, 40.0, -2.0], vec![30.0, 30.0]];
        let c = Compression::from_noisy(&noisy, 5.0);
        assert_eq!(c.sizes(), &[3, 2]);
        assert_eq!(c.merged_counts(), vec![2, 0]);
        let m = c.measured_one(0, &noisy[0], 2.0);
        assert_eq!(m.counts, vec![50.0, 40.0, -1.0]);
        assert_eq!(m.variances, vec![2.0, 2.0, 4.0]);
        // Merged codes come back as 1 or 3, about evenly; kept ones exactly.
        let mut rng = SecureRng::insecure_from_seed(8);
        let mut records: Vec<u32> = (0..4000).flat_map(|i| [2u32 - (i % 2) * 2, 1]).collect();
        c.expand(&mut records, &mut rng);
        let rare: Vec<u32> = records
            .chunks(2)
            .filter(|r| r[0] != 0)
            .map(|r| r[0])
            .collect();
        assert_eq!(rare.len(), 2000);
        assert!(rare.iter().all(|&v| v == 1 || v == 3));
        let ones = rare.iter().filter(|&&v| v == 1).count();
        // Binomial(2000, ½): within 5 sd (false alarm below 10⁻⁶).
        assert!((ones as f64 - 1000.0).abs() < 5.0 * 22.4, "{ones}");
        // One value kept: it and one code for the rest (MST's rule); none kept: one code.
        let one = Compression::from_noisy(&[vec![50.0, 1.0, 2.0], vec![1.0, 2.0]], 5.0);
        assert_eq!(one.sizes(), &[2, 1]);
        assert_eq!(one.merged_counts(), vec![2, 2]);
        let mut records = vec![0u32, 0, 1, 0];
        one.expand(&mut records, &mut rng);
        assert_eq!(records[0], 0);
        assert!(records[2] == 1 || records[2] == 2);
        assert!(records[1] < 2 && records[3] < 2);
    }
}
