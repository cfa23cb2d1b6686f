//! Weighted coverage (maximum coverage): each private record is covered by a set of public
//! candidates.

use super::{Properties, SetFunction};
use crate::error::{Error, Result};
use crate::privacy::Sensitivity;
use rayon::prelude::*;

/// Largest number of records: with weights of at most 2^25 grid units, totals stay below
/// 2^53 and convert to f64 exactly.
const MAX_RECORDS: usize = 1 << 28;
/// Below this many incidences a `gains` call runs on the calling thread.
const PARALLEL_MIN_WORK: usize = 1 << 15;

/// Weighted coverage: f(S) = Σ_i w_i · [record i is covered by S], where record i is covered
/// when S contains one of the candidates listed for it (a sparse record × candidate
/// incidence), and the weights lie in [0, w_max] for a public bound w_max. With unit weights
/// this is maximum coverage: the number of records covered.
///
/// ```
/// use disguise::objective::{Coverage, SetFunction};
/// // Record 0 is covered by candidates 0 or 1, record 1 by 1, record 2 by 2.
/// let f = Coverage::new(3, &[vec![0, 1], vec![1], vec![2]])?;
/// let mut g = [0.0; 3];
/// f.gains(&f.empty(), &[0, 1, 2], &mut g);
/// assert_eq!(g, [1.0, 2.0, 1.0]);
/// assert_eq!(f.evaluate(&[1, 0]), 2.0);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Sensitivity
/// λ = w_max in every round, under replace-one and add/remove neighbouring datasets (a record
/// is its weight and its candidate list). f_D = Σ_i f_i with f_i(S) = w_i·[N(i) ∩ S ≠ ∅]
/// monotone submodular with values in [0, w_max], so f_D is w_max-decomposable (Gupta et al.
/// 2010): record i adds w_i·[v ∈ N(i), i not yet covered] ∈ [0, w_max] to the gain of v and
/// nothing to the others' contributions. w_max must be public (not computed from the data).
///
/// # Exactness
/// Weights are rounded *down* to multiples of the power of two g = 2^(⌊log₂ w_max⌋ − 24)
/// (a relative change below 2^-24 of w_max), so each record's contribution stays in
/// [0, w_max]. Sums are exact integer arithmetic converted exactly to f64: gains are exactly
/// the marginal gains of the (rounded-weight) coverage function, the sensitivity bound holds
/// for the numbers returned, and results do not depend on the thread count.
///
/// # Runtime
/// The incidence is stored by candidate (CSR): `gains` is one pass over the incidences of the
/// requested candidates, O(Σ_v |R(v)|), parallel over candidates; `insert(v)` is O(|R(v)|).
/// Memory: 4 bytes per incidence and 5 bytes per record.
#[derive(Debug, Clone)]
pub struct Coverage {
    n: usize,
    m: usize,
    /// Records covered by candidate v: `records[offsets[v]..offsets[v + 1]]`.
    offsets: Vec<usize>,
    records: Vec<u32>,
    /// Weights in grid units.
    weights: Vec<u32>,
    grid: f64,
    w_max: f64,
}

/// The incremental state of [`Coverage`]: which records are covered, and the covered weight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoverageState {
    covered: Vec<bool>,
    total: u64,
}

impl Coverage {
    /// Unweighted maximum coverage: `covers[i]` lists the candidates (`< num_candidates`)
    /// covering record i. Each record has weight 1 and λ = 1.
    pub fn new(num_candidates: usize, covers: &[Vec<usize>]) -> Result<Self> {
        Self::build(num_candidates, covers, None, 1.0)
    }

    /// Weighted coverage with public weight bound `w_max`: `weights[i] ∈ [0, w_max]` is
    /// record i's weight. Errors if a candidate index is out of range, a weight is outside
    /// [0, w_max] or NaN, `w_max` is not in [2^-900, 2^900], the lengths differ, or there are
    /// more than 2^28 records.
    pub fn weighted(
        num_candidates: usize,
        covers: &[Vec<usize>],
        weights: &[f64],
        w_max: f64,
    ) -> Result<Self> {
        if weights.len() != covers.len() {
            return Err(Error::param(
                "weights",
                format!("{} weights for {} records", weights.len(), covers.len()),
            ));
        }
        Self::build(num_candidates, covers, Some(weights), w_max)
    }

    fn build(
        num_candidates: usize,
        covers: &[Vec<usize>],
        weights: Option<&[f64]>,
        w_max: f64,
    ) -> Result<Self> {
        let n = covers.len();
        if n > MAX_RECORDS {
            return Err(Error::param(
                "records",
                format!("at most 2^28 records are supported, got {n}"),
            ));
        }
        // The bound keeps the grid a normal f64 power of two.
        if !(w_max.is_finite() && (2f64.powi(-900)..=2f64.powi(900)).contains(&w_max)) {
            return Err(Error::param(
                "w_max",
                format!("must be finite and in [2^-900, 2^900], got {w_max}"),
            ));
        }
        let exponent = ((w_max.to_bits() >> 52) & 0x7ff) as i32 - 1023; // ⌊log₂ w_max⌋
        let grid = pow2(exponent - 24);
        let mut units = Vec::with_capacity(n);
        for i in 0..n {
            let w = weights.map_or(1.0, |w| w[i]);
            if !(0.0..=w_max).contains(&w) {
                return Err(Error::param(
                    "weights",
                    format!("weight of record {i} is {w}, not in [0, {w_max}]"),
                ));
            }
            // w / grid is exact (a power-of-two scaling) and below 2^25; flooring keeps
            // every contribution at most w_max.
            units.push((w / grid).floor() as u32);
        }
        // Transpose to candidate-major (CSR), dropping duplicate (record, candidate) pairs
        // which would otherwise count a record twice.
        let mut counts = vec![0usize; num_candidates + 1];
        let mut seen: Vec<usize> = Vec::new();
        let mut lists: Vec<Vec<usize>> = Vec::with_capacity(n);
        for (i, list) in covers.iter().enumerate() {
            seen.clear();
            seen.extend_from_slice(list);
            seen.sort_unstable();
            seen.dedup();
            if let Some(&v) = seen.last()
                && v >= num_candidates
            {
                return Err(Error::param(
                    "covers",
                    format!("record {i} lists candidate {v}, but there are {num_candidates}"),
                ));
            }
            for &v in &seen {
                counts[v + 1] += 1;
            }
            lists.push(seen.clone());
        }
        for v in 0..num_candidates {
            counts[v + 1] += counts[v];
        }
        let offsets = counts.clone();
        let mut fill = counts;
        let mut records = vec![0u32; offsets[num_candidates]];
        for (i, list) in lists.iter().enumerate() {
            for &v in list {
                records[fill[v]] = i as u32;
                fill[v] += 1;
            }
        }
        Ok(Self {
            n,
            m: num_candidates,
            offsets,
            records,
            weights: units,
            grid,
            w_max,
        })
    }

    /// The number of private records.
    pub fn num_records(&self) -> usize {
        self.n
    }

    /// The public weight bound w_max (the sensitivity).
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// The records candidate `v` covers (each once, in increasing order). Panics if `v` is
    /// out of range. (Used by the closed-form multilinear extension.)
    pub fn records_covered_by(&self, v: usize) -> impl Iterator<Item = usize> + '_ {
        self.records[self.offsets[v]..self.offsets[v + 1]]
            .iter()
            .map(|&i| i as usize)
    }

    /// Record `i`'s weight as the objective uses it (rounded down to the weight grid, so in
    /// [0, w_max]). Panics if `i` is out of range.
    pub fn weight(&self, i: usize) -> f64 {
        f64::from(self.weights[i]) * self.grid
    }

    /// The uncovered weight (in grid units) of the records candidate v covers.
    fn gain_units(&self, state: &CoverageState, v: usize) -> u64 {
        self.records[self.offsets[v]..self.offsets[v + 1]]
            .iter()
            .map(|&i| {
                let i = i as usize;
                // Branch-free: multiply by "not yet covered".
                u64::from(self.weights[i]) * u64::from(!state.covered[i])
            })
            .sum()
    }
}

/// 2^e for a normal exponent, built from its bits (exact).
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// Gains and values are whole numbers of the weight grid (2^-24 for unweighted coverage).
#[cfg(feature = "cluster")]
impl crate::cluster::Summable for Coverage {
    fn unit(&self) -> f64 {
        self.grid
    }

    fn records(&self) -> usize {
        self.n
    }
}

impl SetFunction for Coverage {
    type State = CoverageState;

    fn ground_size(&self) -> usize {
        self.m
    }

    fn empty(&self) -> CoverageState {
        CoverageState {
            covered: vec![false; self.n],
            total: 0,
        }
    }

    /// Panics if a candidate is ≥ `ground_size()` or the lengths differ.
    fn gains(&self, state: &CoverageState, candidates: &[usize], out: &mut [f64]) {
        assert_eq!(candidates.len(), out.len(), "one output per candidate");
        let work: usize = candidates
            .iter()
            .map(|&v| self.offsets[v + 1] - self.offsets[v])
            .sum();
        let gain = |(o, &v): (&mut f64, &usize)| *o = self.gain_units(state, v) as f64 * self.grid;
        if work < PARALLEL_MIN_WORK {
            out.iter_mut().zip(candidates).for_each(gain);
        } else {
            out.par_iter_mut().zip(candidates).for_each(gain);
        }
    }

    fn insert(&self, state: &mut CoverageState, v: usize) {
        for &i in &self.records[self.offsets[v]..self.offsets[v + 1]] {
            let i = i as usize;
            if !state.covered[i] {
                state.covered[i] = true;
                state.total += u64::from(self.weights[i]);
            }
        }
    }

    fn value(&self, state: &CoverageState) -> f64 {
        state.total as f64 * self.grid
    }

    /// λ = w_max in every round (see *Sensitivity* on the type).
    fn sensitivity(&self, _round: usize) -> Sensitivity {
        Sensitivity::new(self.w_max).expect("w_max validated finite and > 0")
    }

    /// The same λ: it is a bound on every single marginal gain (see *Sensitivity*).
    fn gain_sensitivity(&self, round: usize) -> Sensitivity {
        self.sensitivity(round)
    }

    /// Monotone and w_max-decomposable.
    fn properties(&self) -> Properties {
        Properties::MONOTONE_DECOMPOSABLE
    }

    fn name(&self) -> &'static str {
        "coverage"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_round_down_to_a_power_of_two_grid() {
        let f = Coverage::weighted(1, &[vec![0], vec![0]], &[0.3, 1.0], 1.0).unwrap();
        assert_eq!(f.grid, 2f64.powi(-24));
        let v = f.evaluate(&[0]);
        assert!(v <= 1.3 && 1.3 - v < 2.0 * 2f64.powi(-24), "{v}");
        // w_max not a power of two: the top weight still rounds to at most w_max.
        let f = Coverage::weighted(1, &[vec![0]], &[3.7], 3.7).unwrap();
        assert!(f.evaluate(&[0]) <= 3.7 && f.evaluate(&[0]) > 3.7 - 1e-6);
    }

    #[test]
    fn invalid_inputs_are_errors() {
        assert!(Coverage::new(2, &[vec![2]]).is_err());
        assert!(Coverage::weighted(2, &[vec![0]], &[1.5], 1.0).is_err());
        assert!(Coverage::weighted(2, &[vec![0]], &[f64::NAN], 1.0).is_err());
        assert!(Coverage::weighted(2, &[vec![0]], &[0.5], 0.0).is_err());
        assert!(Coverage::weighted(2, &[vec![0]], &[0.5, 0.5], 1.0).is_err());
        assert!(Coverage::weighted(2, &[vec![0]], &[0.5], f64::INFINITY).is_err());
    }

    #[test]
    fn duplicates_in_a_record_count_once() {
        let f = Coverage::new(2, &[vec![1, 1, 0, 1]]).unwrap();
        let mut g = [0.0; 2];
        f.gains(&f.empty(), &[0, 1], &mut g);
        assert_eq!(g, [1.0, 1.0]);
        assert_eq!(f.evaluate(&[0, 1]), 1.0);
    }
}
