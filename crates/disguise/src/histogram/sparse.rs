//! The thresholded Laplace histogram of Vinterbo (2012), Section 2.1, built in expected time
//! linear in the data and the output, never enumerating the m cells.
//!
//! # The mechanism
//! h̃(x) = h(x) + Lap(2/ε) for every cell x of the space V (|V| = m), released when
//! h̃(x) > τ = A·ln(n)/ε (A = ½ by default, [`DEFAULT_A`]), omitted (zero) otherwise
//! (equations (3) and (4)).
//!
//! # Guarantee
//! ε-differential privacy (Vinterbo 2012, Proposition 1; Dwork, McSherry, Nissim, Smith
//! 2006) for the **replace-one** neighbouring relation: datasets D, D′ of the same size n that
//! differ in one record. Moving one record from cell x to cell y changes h by −1 at x and +1 at
//! y, so the histogram vector has L1 sensitivity 2 and Laplace noise of scale 2/ε per cell is
//! ε-DP; thresholding is post-processing. τ depends only on n, which this relation makes
//! public (the paper: "we do not consider the size of D private").
//!
//! *The grid.* Noise comes from the float-safe [`Laplace`] of `noise/`, which lives on a grid
//! g·ℤ and rounds its input to the grid; in general that adds g to the sensitivity. Here the
//! input is an integer count and g = 2^k with k ≤ 0 (we force k ≤ 0 when the default grid
//! would be coarser), so every count is *exactly* on the grid: the mechanism is exactly the
//! discrete Laplace mechanism on the integer vector h/g with L1 sensitivity 2/g and scale b/g,
//! i.e. ε = 2/b with no relaxation. [`SparseLaplace::epsilon`] is 2/b rounded up.
//!
//! # Construction (expected O(n' + q̂) after counting)
//! 1. The n′ non-empty cells and their counts (radix sort of the n codes: O(n·passes)).
//! 2. Each non-empty cell: h̃ = h + noise, kept if > τ.
//! 3. q̂ = the number of the m − n′ empty cells whose noise exceeds τ, drawn as an **exact**
//!    Binomial(m − n′, P(noise > τ)) for the grid noise ([`Laplace::upper_tail_count`]).
//! 4. q̂ distinct cells uniformly from [0, m) minus the non-empty ones
//!    ([`sample_distinct_excluding`]), each given a value from the noise's tail above τ
//!    ([`Laplace::sample_upper_tail`]).
//! 5. The union, **sorted by cell**: the order of the output must not tell the non-empty cells
//!    (step 2) from the others (step 4).
//!
//! *Same distribution as the dense construction.* In the dense construction every empty cell
//! is independently kept with probability p = P(noise > τ) and then carries noise | noise > τ.
//! So the set of kept empty cells has a Binomial(m − n′, p) size and, given its size, is a
//! uniform subset of the empty cells; the values are i.i.d. from the conditional tail,
//! independent of the set. Steps 3–4 sample exactly this (both samplers are exact for the grid
//! law; the tail value is converted to a double rounding up, which coincides with the dense
//! path's conversion below 2^53·g ≈ 4096·b). The test suite checks it against a dense
//! reference (`tests/api/histogram.rs`).
//!
//! *Blocks.* Steps 2–5 run separately on each of at most 1,024 runs of consecutive cells
//! (the cut depends on m only), block b drawing from stream b of a ChaCha20 key that the
//! release draws once from the caller's generator. The dense construction treats every cell
//! independently, so it is the union of its restrictions to the blocks, and each block's
//! sparse construction has the law of its restriction (the argument above, with the block for
//! the space): the union of independent blocks has the dense law. The point of the cut is
//! that a distributed release, each worker releasing the blocks it owns from the same key,
//! gives the one-process release bit for bit with a seeded generator.
//!
//! # Runtime and memory
//! Expected O(n·d) to encode, O(n) to count (radix sort), O(n′) to perturb, and
//! O((1 + q̂)·log m) for the binomial plus O(q̂) for the cells; memory O(n + q̂). E[q̂] ≈
//! m/(2·n^{A/2}), so m = 2^60 is fine when τ is large enough; [`SparseLaplace::release`]
//! refuses (before touching the data) a space whose *expected* number of spurious cells
//! m·P(noise > τ) exceeds [`MAX_EXPECTED_SPURIOUS`].

use crate::error::{Error, Result};
use crate::noise::{Laplace, sample_distinct_excluding};
use crate::numeric::round::div_up;
use crate::privacy::Epsilon;
use rand_core::{CryptoRng, Rng};
use serde::Serialize;
use std::collections::HashSet;

/// The paper's threshold constant A = ½ (τ = A·ln(n)/ε), after Lei (2011).
pub const DEFAULT_A: f64 = 0.5;

/// The largest expected number of spurious (empty-but-released) cells, m·P(noise > τ), that
/// [`SparseLaplace::release`] accepts: beyond it the output would not fit in memory in
/// reasonable time. Decided from public quantities only (m, ε, n, A).
pub const MAX_EXPECTED_SPURIOUS: f64 = 1e7;

/// The threshold τ = A·ln(n)/ε of Vinterbo (2012), Section 2.1.
///
/// ```
/// use disguise::histogram::threshold;
/// use disguise::privacy::Epsilon;
/// // A = ½, n = 100, ε = 0.5: τ = 0.5·ln(100)/0.5 = 4.60517…
/// let tau = threshold(100, Epsilon::new(0.5)?, 0.5)?;
/// assert!((tau - 100f64.ln()).abs() < 1e-12);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] for n = 0 or A not finite and ≥ 0.
pub fn threshold(n: u64, epsilon: Epsilon, a: f64) -> Result<f64> {
    if n == 0 {
        return Err(Error::param("n", "the threshold needs n ≥ 1 records"));
    }
    if !(a.is_finite() && a >= 0.0) {
        return Err(Error::param(
            "A",
            format!("must be finite and ≥ 0, got {a}"),
        ));
    }
    Ok(a * (n as f64).ln() / epsilon.get())
}

/// The thresholded Laplace histogram mechanism: noise scale b, threshold τ. See the
/// [module documentation](self) for the guarantee, the sparse construction and its runtime.
///
/// ```
/// use disguise::histogram::SparseLaplace;
/// use disguise::privacy::Epsilon;
/// use disguise::SecureRng;
/// let mut rng = SecureRng::insecure_from_seed(1);
/// // 1000 records, all in cell 7 of a space of 2^60 cells.
/// let codes = vec![7u64; 1000];
/// // With the paper's A = ½, about 2^60·½·1000^(−1/4) ≈ 10^17 empty cells would cross τ:
/// // refused before the data is touched.
/// let paper = SparseLaplace::new(Epsilon::new(1.0)?, 1000, 0.5)?;
/// assert!(paper.release(&mut rng, &codes, 1 << 60).is_err());
/// // A = 10 (τ = 69): about 2^60·½·e^(−34.5) ≈ 600 spurious cells, drawn in O(600).
/// let mech = SparseLaplace::new(Epsilon::new(1.0)?, 1000, 10.0)?;
/// assert!(mech.epsilon() <= 1.0);
/// let h = mech.release(&mut rng, &codes, 1 << 60)?;
/// assert!(h.cells().iter().any(|&(cell, v)| cell == 7 && v > 900.0));
/// assert!(h.support_size() > 400 && h.support_size() < 900);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SparseLaplace {
    laplace: Laplace,
    tau: f64,
    epsilon: f64,
    n: Option<u64>,
}

impl SparseLaplace {
    /// The paper's mechanism for n records at privacy ε: scale b = 2/ε (rounded up, so
    /// 2/b ≤ ε), threshold τ = A·ln(n)/ε ([`threshold`]).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for n = 0, n ≥ 2^53, a bad A, or a τ so large that the
    /// threshold comparison would not be exact (τ ≥ 2^52 grid steps, i.e. A·ln n ≳ 2^13).
    pub fn new(epsilon: Epsilon, n: u64, a: f64) -> Result<Self> {
        if n >= 1 << 53 {
            return Err(Error::param("n", format!("must be < 2^53, got {n}")));
        }
        let tau = threshold(n, epsilon, a)?;
        let scale = div_up(2.0, epsilon.get());
        let mut mech = Self::with_scale(scale, tau)?;
        mech.n = Some(n);
        Ok(mech)
    }

    /// A thresholded Laplace histogram with an explicit noise scale b and threshold τ ≥ 0.
    /// Its guarantee is ε = 2/b (see [`SparseLaplace::epsilon`]), whatever you intended; this
    /// constructor exists for experiments and for testing the auditor (a scale of 1/ε is the
    /// classic factor-2 bug and must be caught).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless b is finite and > 0 and 0 ≤ τ < 2^52·g (g the grid
    /// step, g ≤ b·2^−40).
    pub fn with_scale(scale: f64, tau: f64) -> Result<Self> {
        let mut laplace = Laplace::new(scale)?;
        if laplace.granularity_exponent() > 0 {
            // Keep integers on the grid (no sensitivity relaxation, see the module docs).
            laplace = Laplace::with_granularity_exponent(scale, 0)?;
        }
        if !(tau.is_finite() && tau >= 0.0) {
            return Err(Error::param(
                "tau",
                format!("must be finite and ≥ 0, got {tau}"),
            ));
        }
        // Outputs are exact doubles below 2^53·g, so "value > τ" is decided exactly.
        if tau >= laplace.granularity() * 2f64.powi(52) {
            return Err(Error::param(
                "tau",
                format!("threshold {tau} is too large for noise scale {scale} (A·ln n too large)"),
            ));
        }
        let epsilon = div_up(2.0, scale);
        Ok(Self {
            laplace,
            tau,
            epsilon,
            n: None,
        })
    }

    /// The proven ε (pure DP, replace-one neighbours): 2/b rounded up (≤ the ε given to
    /// [`SparseLaplace::new`]).
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// The threshold τ.
    pub fn threshold(&self) -> f64 {
        self.tau
    }

    /// The noise scale b.
    pub fn scale(&self) -> f64 {
        self.laplace.scale()
    }

    /// P(noise > τ): the probability that an empty cell is released (≈ ½·n^{−A/2} for the
    /// paper's τ, equation (5) with h = 0).
    ///
    /// # Errors
    /// Never for a constructed mechanism (τ was validated).
    pub fn spurious_probability(&self) -> Result<f64> {
        self.laplace.upper_tail_probability(self.tau)
    }

    /// Releases the thresholded histogram of n records given by their cell codes (< m).
    /// Counts the codes (radix sort), then as [`SparseLaplace::release_counts`].
    ///
    /// # Errors
    /// As [`SparseLaplace::release_counts`], and [`Error::InvalidParameter`] for a code ≥ m.
    pub fn release<R: Rng + CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        codes: &[u64],
        m: u64,
    ) -> Result<ThresholdedHistogram> {
        self.check_space(m)?;
        let counts = cell_counts(codes, m)?;
        self.release_counts(rng, &counts, m)
    }

    /// Releases the thresholded histogram from the non-empty cells' counts: `(cell, count)`
    /// pairs with cells strictly increasing and < m, counts ≥ 1 (the n′ non-empty cells; every
    /// other cell of [0, m) is empty).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for m = 0, unsorted or out-of-range cells, zero counts,
    /// counts that do not sum to the n the mechanism was calibrated for, or a space whose
    /// expected number of spurious cells exceeds [`MAX_EXPECTED_SPURIOUS`] (checked first,
    /// from public quantities).
    pub fn release_counts<R: Rng + CryptoRng + ?Sized>(
        &self,
        rng: &mut R,
        counts: &[(u64, u64)],
        m: u64,
    ) -> Result<ThresholdedHistogram> {
        self.check_space(m)?;
        let mut total: u64 = 0;
        for (i, &(cell, count)) in counts.iter().enumerate() {
            if cell >= m || count == 0 || (i > 0 && counts[i - 1].0 >= cell) {
                return Err(Error::param(
                    "counts",
                    "cells must be strictly increasing and < m, with counts ≥ 1",
                ));
            }
            total = total.saturating_add(count);
        }
        if let Some(n) = self.n
            && total != n
        {
            return Err(Error::param(
                "counts",
                format!("the counts sum to {total} but the mechanism was calibrated for n = {n}"),
            ));
        }
        if total >= 1 << 53 {
            return Err(Error::param(
                "counts",
                "the counts must sum to less than 2^53",
            ));
        }
        // One key for the whole release, then each block of cells on its own stream of it.
        let key = BlockKey::draw(rng);
        let blocks = Blocks::of(m);
        let mut cells = Vec::with_capacity(counts.len());
        let mut rest = counts;
        for b in 0..blocks.count() {
            let end = blocks.range(b).end;
            let split = rest.partition_point(|&(cell, _)| cell < end);
            let (here, later) = rest.split_at(split);
            cells.extend(self.release_block(&key, blocks, b, here)?);
            rest = later;
        }
        Ok(self.histogram(m, cells))
    }

    /// The released cells of block `b` of the space `blocks` (its non-empty cells' `counts`,
    /// sorted, all inside the block), drawn from the block's own stream of `key`: steps 2–5
    /// of the construction on the block's cells alone. A block's output depends only on the
    /// key, the block and its counts — not on which worker releases it, nor in which order.
    pub(crate) fn release_block(
        &self,
        key: &BlockKey,
        blocks: Blocks,
        b: u64,
        counts: &[(u64, u64)],
    ) -> Result<Vec<(u64, f64)>> {
        let range = blocks.range(b);
        let mut rng = key.stream(b);
        let tau = self.tau;
        let mut kept = Vec::with_capacity(counts.len());
        for &(cell, count) in counts {
            if !range.contains(&cell) {
                return Err(Error::param("counts", "a cell outside its block"));
            }
            // count < 2^53 is an exact double, and an integer is on the grid (module docs).
            let v = self.laplace.sample(&mut rng, count as f64)?;
            if v > tau {
                kept.push((cell, v));
            }
        }
        let size = range.end - range.start;
        let empty = size - counts.len() as u64;
        let q = if empty == 0 {
            0
        } else {
            self.laplace.upper_tail_count(&mut rng, empty, tau)?
        };
        let mut spurious = Vec::new();
        if q > 0 {
            let q = usize::try_from(q)
                .map_err(|_| Error::Overflow(format!("{q} spurious cells do not fit in memory")))?;
            let nonempty: HashSet<u64> = counts.iter().map(|&(c, _)| c - range.start).collect();
            let cells = sample_distinct_excluding(&mut rng, size, q, &nonempty)?;
            // Room for the kept cells too: they are merged into this buffer.
            spurious.reserve(q + kept.len());
            for cell in cells {
                spurious.push((
                    range.start + cell,
                    self.laplace.sample_upper_tail(&mut rng, tau)?,
                ));
            }
        }
        Ok(merge_sorted(kept, spurious))
    }

    /// The released histogram of a space of m cells made of `cells` (sorted, all above τ).
    pub(crate) fn histogram(&self, m: u64, cells: Vec<(u64, f64)>) -> ThresholdedHistogram {
        ThresholdedHistogram {
            size: m,
            cells,
            threshold: self.tau,
            scale: self.laplace.scale(),
            epsilon: self.epsilon,
        }
    }

    /// Refuses a space whose expected number of spurious cells is beyond the limit.
    pub(crate) fn check_space(&self, m: u64) -> Result<()> {
        if m == 0 {
            return Err(Error::param("m", "the space must have at least one cell"));
        }
        let expected = m as f64 * self.laplace.upper_tail_probability(self.tau)?;
        if expected > MAX_EXPECTED_SPURIOUS {
            return Err(Error::param(
                "m",
                format!(
                    "about {expected:.3e} of the {m} empty cells would cross the threshold \
                     τ = {:.4} (more than {MAX_EXPECTED_SPURIOUS:e}): project onto fewer \
                     columns, use fewer bins, or raise A or ε",
                    self.tau
                ),
            ));
        }
        Ok(())
    }
}

/// The space [0, m) cut into at most [`Blocks::MAX`] runs of consecutive cells, released
/// independently (each with the exact law of the whole, see *Blocks* in the module docs).
/// The cut depends on m alone, so a release spread over workers, each releasing the blocks it
/// owns, equals the one-process release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Blocks {
    m: u64,
    len: u64,
}

impl Blocks {
    /// The most blocks: enough to spread a release over a thousand workers, few enough that
    /// a small space costs little (one binomial draw, ~10 µs, per block).
    pub(crate) const MAX: u64 = 1024;

    /// The blocks of a space of m ≥ 1 cells: ⌈m / MAX⌉ cells each, the last one shorter.
    pub(crate) fn of(m: u64) -> Self {
        Blocks {
            m,
            len: m.div_ceil(Self::MAX).max(1),
        }
    }

    /// The number of blocks.
    pub(crate) fn count(&self) -> u64 {
        self.m.div_ceil(self.len)
    }

    /// The block of a cell.
    // Used by distributed runs only.
    #[cfg_attr(not(feature = "cluster"), allow(dead_code))]
    pub(crate) fn of_cell(&self, cell: u64) -> u64 {
        cell / self.len
    }

    /// The cells of block b.
    pub(crate) fn range(&self, b: u64) -> std::ops::Range<u64> {
        let start = b.saturating_mul(self.len).min(self.m);
        start..start.saturating_add(self.len).min(self.m)
    }
}

/// The key of one release: 256 bits drawn from the caller's generator, from which block b
/// gets ChaCha20 stream b. Different streams of one key are independent, so the blocks'
/// noise is independent; a seeded run draws the same key, hence the same noise per block
/// wherever the block is released.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct BlockKey([u8; 32]);

impl BlockKey {
    pub(crate) fn draw<R: Rng + CryptoRng + ?Sized>(rng: &mut R) -> Self {
        let mut key = [0u8; 32];
        rng.fill_bytes(&mut key);
        BlockKey(key)
    }

    // Used by distributed runs only.
    #[cfg_attr(not(feature = "cluster"), allow(dead_code))]
    pub(crate) fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let key: [u8; 32] = bytes
            .try_into()
            .map_err(|_| Error::param("key", "a release key has 32 bytes"))?;
        Ok(BlockKey(key))
    }

    // Used by distributed runs only.
    #[cfg_attr(not(feature = "cluster"), allow(dead_code))]
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }

    fn stream(&self, b: u64) -> rand_chacha::ChaCha20Rng {
        use rand_core::SeedableRng;
        let mut rng = rand_chacha::ChaCha20Rng::from_seed(self.0);
        rng.set_stream(b);
        rng
    }
}

// The key is noise: it never appears in logs.
impl std::fmt::Debug for BlockKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BlockKey(…)")
    }
}

/// Merges two cell lists sorted by cell with disjoint cells, in `b`'s buffer: it grows by
/// `a.len()` (no reallocation when that room was reserved, as [`SparseLaplace::release_counts`]
/// does) and is filled from the back, so that no unread cell of `b` is overwritten (the write
/// position is always i + j ≥ j). No second buffer of the whole release: millions of spurious
/// cells are merged in their own memory.
fn merge_sorted(a: Vec<(u64, f64)>, mut b: Vec<(u64, f64)>) -> Vec<(u64, f64)> {
    if a.is_empty() {
        return b;
    }
    if b.is_empty() {
        return a;
    }
    let (mut i, mut j) = (a.len(), b.len());
    b.resize(i + j, (0, 0.0));
    while i > 0 {
        // The largest remaining cell goes to position i + j − 1.
        if j > 0 && b[j - 1].0 > a[i - 1].0 {
            b[i + j - 1] = b[j - 1];
            j -= 1;
        } else {
            b[i + j - 1] = a[i - 1];
            i -= 1;
        }
    }
    b
}

/// A released thresholded histogram: the cells whose noisy count exceeded τ, with those
/// noisy counts, sorted by cell. Every other cell of [0, m) is 0. It is read back (a kept
/// or pickled release: released values only) with its parts checked: cells strictly
/// increasing and below m, every count finite and above τ, a positive scale and ε.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(try_from = "HistogramParts")]
pub struct ThresholdedHistogram {
    size: u64,
    cells: Vec<(u64, f64)>,
    threshold: f64,
    scale: f64,
    epsilon: f64,
}

/// A [`ThresholdedHistogram`] as read, before its parts are checked.
#[derive(serde::Deserialize)]
struct HistogramParts {
    size: u64,
    cells: Vec<(u64, f64)>,
    threshold: f64,
    scale: f64,
    epsilon: f64,
}

impl TryFrom<HistogramParts> for ThresholdedHistogram {
    type Error = String;

    fn try_from(p: HistogramParts) -> std::result::Result<Self, String> {
        if p.size == 0 {
            return Err("a histogram of no cells".into());
        }
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if !(p.threshold.is_finite() && positive(p.scale) && positive(p.epsilon)) {
            return Err(format!(
                "invalid threshold {}, scale {} or epsilon {}",
                p.threshold, p.scale, p.epsilon
            ));
        }
        let mut last = None;
        for &(cell, count) in &p.cells {
            if cell >= p.size || last.is_some_and(|l| l >= cell) {
                return Err(format!(
                    "cell {cell} out of order or outside the {} cells",
                    p.size
                ));
            }
            if !(count.is_finite() && count > p.threshold) {
                return Err(format!(
                    "cell {cell}: count {count} not above the threshold {}",
                    p.threshold
                ));
            }
            last = Some(cell);
        }
        Ok(Self {
            size: p.size,
            cells: p.cells,
            threshold: p.threshold,
            scale: p.scale,
            epsilon: p.epsilon,
        })
    }
}

impl ThresholdedHistogram {
    /// The released (cell, noisy count) pairs, sorted by cell, every count > τ.
    pub fn cells(&self) -> &[(u64, f64)] {
        &self.cells
    }

    /// The released (cell, noisy count) pairs, sorted by cell, given away (for consumers that
    /// free them as they go, see [`super::drain_synthetic_cells_rev`]).
    pub fn into_cells(self) -> Vec<(u64, f64)> {
        self.cells
    }

    /// m, the number of cells of the space.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The threshold τ.
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// The noise scale b.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The proven ε of the release (see [`SparseLaplace::epsilon`]).
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// |S|: the number of released cells.
    pub fn support_size(&self) -> usize {
        self.cells.len()
    }

    /// The number of synthetic records of a released count v: ⌈v − 0.5⌉ (Vinterbo 2012,
    /// Section 3: h_D̃(x) = ⌈h̃(x) − 0.5⌉, i.e. rounding to the nearest integer with halves
    /// rounded down), saturating at `u64::MAX`.
    ///
    /// ```
    /// use disguise::histogram::ThresholdedHistogram;
    /// assert_eq!(ThresholdedHistogram::copies(2.5), 2);
    /// assert_eq!(ThresholdedHistogram::copies(2.500001), 3);
    /// assert_eq!(ThresholdedHistogram::copies(0.4), 0);
    /// ```
    pub fn copies(value: f64) -> u64 {
        let c = (value - 0.5).ceil();
        if c <= 0.0 {
            0
        } else if c >= u64::MAX as f64 {
            u64::MAX
        } else {
            c as u64
        }
    }

    /// The release rescaled to exactly `n` synthetic records: every released cell's noisy
    /// count h̃(x) (all > τ ≥ 0) is replaced by an integer share of n in proportion to it,
    /// by largest remainders (Hamilton's apportionment: ⌊n·h̃(x)/Σh̃⌋, then one more to the
    /// cells with the largest fractional parts, ties by lower cell, until the total is n).
    /// Cells whose share is 0 are dropped. Post-processing of the release: no privacy cost.
    ///
    /// n is public under the replace-one neighbour relation, so a synthetic table of the
    /// original size says nothing new, while the raw counts carry Σ⌈h̃ − ½⌉ rows, which noise
    /// on many spurious or small cells can inflate far beyond n.
    ///
    /// ```
    /// use disguise::histogram::SparseLaplace;
    /// use disguise::privacy::Epsilon;
    /// use disguise::SecureRng;
    /// let mech = SparseLaplace::new(Epsilon::new(1.0)?, 100, 0.5)?;
    /// let mut rng = SecureRng::insecure_from_seed(4);
    /// let h = mech.release_counts(&mut rng, &[(0, 60), (3, 40)], 4)?;
    /// let h = h.apportioned(100);
    /// assert_eq!(h.synthetic_rows(), 100);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn apportioned(mut self, n: u64) -> Self {
        let total: f64 = self.cells.iter().map(|&(_, v)| v.max(0.0)).sum();
        if self.cells.is_empty() || !(total > 0.0 && total.is_finite()) {
            self.cells.clear();
            return self;
        }
        let quotas: Vec<f64> = self
            .cells
            .iter()
            .map(|&(_, v)| n as f64 * (v.max(0.0) / total))
            .collect();
        let mut counts: Vec<u64> = quotas.iter().map(|q| q.floor() as u64).collect();
        let given: u64 = counts.iter().sum();
        // The order in which the remainder is handed out (or, if rounding gave too much,
        // taken back): by fractional part, then by cell.
        let mut order: Vec<usize> = (0..counts.len()).collect();
        let frac = |i: usize| quotas[i] - quotas[i].floor();
        order.sort_by(|&a, &b| frac(b).total_cmp(&frac(a)).then(a.cmp(&b)));
        if given <= n {
            let mut rest = n - given;
            for &i in order.iter().cycle().take(order.len().saturating_mul(2)) {
                if rest == 0 {
                    break;
                }
                counts[i] += 1;
                rest -= 1;
            }
        } else {
            let mut excess = given - n;
            for &i in order.iter().rev() {
                if excess == 0 {
                    break;
                }
                if counts[i] > 0 {
                    counts[i] -= 1;
                    excess -= 1;
                }
            }
        }
        self.cells = self
            .cells
            .iter()
            .zip(&counts)
            .filter(|&(_, &c)| c > 0)
            .map(|(&(cell, _), &c)| (cell, c as f64))
            .collect();
        self
    }

    /// The total number of synthetic records Σ ⌈h̃(x) − 0.5⌉ over the released cells
    /// (saturating).
    pub fn synthetic_rows(&self) -> u64 {
        self.cells
            .iter()
            .fold(0u64, |acc, &(_, v)| acc.saturating_add(Self::copies(v)))
    }
}

/// The non-empty cells of a list of codes < m and their counts, sorted by cell: an LSD radix
/// sort on the bytes that m − 1 needs (a pass is skipped when all codes share that byte),
/// then run-length counting. O(n·⌈log₂ m / 8⌉) time, O(n) extra memory.
///
/// ```
/// use disguise::histogram::cell_counts;
/// assert_eq!(cell_counts(&[5, 1, 5, 9, 1, 5], 10)?, vec![(1, 2), (5, 3), (9, 1)]);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] for a code ≥ m.
pub fn cell_counts(codes: &[u64], m: u64) -> Result<Vec<(u64, u64)>> {
    if let Some(&bad) = codes.iter().find(|&&c| c >= m) {
        return Err(Error::param(
            "codes",
            format!("code {bad} is outside the space [0, {m})"),
        ));
    }
    let mut keys = codes.to_vec();
    radix_sort(&mut keys, m);
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &k in &keys {
        match out.last_mut() {
            Some((cell, count)) if *cell == k => *count += 1,
            _ => out.push((k, 1)),
        }
    }
    Ok(out)
}

/// LSD radix sort of keys < m, one byte per pass.
fn radix_sort(keys: &mut Vec<u64>, m: u64) {
    let n = keys.len();
    if n < 2 {
        return;
    }
    let bits = 64 - (m - 1).leading_zeros();
    let passes = bits.div_ceil(8);
    let mut buf = vec![0u64; n];
    for pass in 0..passes {
        let shift = pass * 8;
        let mut count = [0usize; 256];
        for &k in keys.iter() {
            count[((k >> shift) & 0xff) as usize] += 1;
        }
        if count.contains(&n) {
            continue; // every key has the same byte here: the pass would not move anything
        }
        let mut start = [0usize; 256];
        let mut sum = 0;
        for (s, &c) in start.iter_mut().zip(count.iter()) {
            *s = sum;
            sum += c;
        }
        for &k in keys.iter() {
            let b = ((k >> shift) & 0xff) as usize;
            buf[start[b]] = k;
            start[b] += 1;
        }
        std::mem::swap(keys, &mut buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::noise::SecureRng;

    #[test]
    fn blocks_cut_every_space_into_consecutive_runs() {
        for m in [1u64, 2, 1023, 1024, 1025, 5000, 1 << 40, u64::MAX] {
            let blocks = Blocks::of(m);
            assert!((1..=Blocks::MAX).contains(&blocks.count()), "m = {m}");
            let mut next = 0u64;
            for b in 0..blocks.count() {
                let r = blocks.range(b);
                assert_eq!(r.start, next, "m = {m}, block {b}");
                assert!(r.end > r.start, "m = {m}, block {b} is empty");
                assert_eq!(blocks.of_cell(r.start), b);
                assert_eq!(blocks.of_cell(r.end - 1), b);
                next = r.end;
            }
            assert_eq!(next, m, "the blocks cover [0, {m})");
        }
    }

    /// A release is the concatenation of its blocks, each a function of the key, the block
    /// and its counts: releasing the blocks separately, in any order, gives the same cells.
    #[test]
    fn blocks_released_apart_give_the_whole_release() {
        let m = 2500u64;
        let mut counts: Vec<(u64, u64)> = (0..1500).map(|i| (i * 7 % m, 2)).collect();
        counts.sort_unstable();
        let total: u64 = counts.iter().map(|c| c.1).sum();
        let mech = SparseLaplace::new(Epsilon::new(0.8).unwrap(), total, 0.5).unwrap();
        let mut rng = SecureRng::insecure_from_seed(11);
        let whole = mech.release_counts(&mut rng, &counts, m).unwrap();
        // The same key, drawn again from the same seed, released block by block backwards.
        let key = BlockKey::draw(&mut SecureRng::insecure_from_seed(11));
        let blocks = Blocks::of(m);
        let mut parts = Vec::new();
        for b in (0..blocks.count()).rev() {
            let r = blocks.range(b);
            let here: Vec<(u64, u64)> = counts
                .iter()
                .copied()
                .filter(|c| r.contains(&c.0))
                .collect();
            parts.push(mech.release_block(&key, blocks, b, &here).unwrap());
        }
        parts.reverse();
        let cells: Vec<(u64, f64)> = parts.into_iter().flatten().collect();
        assert_eq!(whole.cells(), &cells[..]);
        assert!(whole.support_size() > 100, "{}", whole.support_size());
        // A cell handed to the wrong block is refused.
        assert!(mech.release_block(&key, blocks, 0, &[(m - 1, 1)]).is_err());
    }

    /// A release read back from its JSON is the same release; a damaged one is refused.
    #[test]
    fn a_release_reads_back_from_json_and_damaged_parts_are_refused() {
        let mech = SparseLaplace::new(Epsilon::new(1.0).unwrap(), 100, 0.5).unwrap();
        let mut rng = SecureRng::insecure_from_seed(4);
        let h = mech
            .release_counts(&mut rng, &[(0, 60), (3, 40)], 4)
            .unwrap();
        let text = serde_json::to_string(&h).unwrap();
        let back: ThresholdedHistogram = serde_json::from_str(&text).unwrap();
        assert_eq!(back, h);
        let damaged = [
            r#"{"size":4,"cells":[[3,50.0],[0,60.0]],"threshold":1.0,"scale":2.0,"epsilon":1.0}"#,
            r#"{"size":4,"cells":[[4,50.0]],"threshold":1.0,"scale":2.0,"epsilon":1.0}"#,
            r#"{"size":4,"cells":[[1,0.5]],"threshold":1.0,"scale":2.0,"epsilon":1.0}"#,
            r#"{"size":4,"cells":[],"threshold":1.0,"scale":0.0,"epsilon":1.0}"#,
            r#"{"size":0,"cells":[],"threshold":1.0,"scale":2.0,"epsilon":1.0}"#,
        ];
        for text in damaged {
            assert!(
                serde_json::from_str::<ThresholdedHistogram>(text).is_err(),
                "{text}"
            );
        }
    }

    /// Apportioning gives exactly n rows, every cell within one of its exact quota n·h̃/Σh̃,
    /// on random releases of every size (including n smaller than the number of cells).
    #[test]
    fn apportioned_release_has_exactly_n_rows_in_proportion() {
        let mut rng = SecureRng::insecure_from_seed(5);
        for round in 0..200 {
            let cells = 1 + (rng.next_u64() % 50) as usize;
            let values: Vec<(u64, f64)> = (0..cells as u64)
                .map(|c| (c * 3, 0.5 + (rng.next_u64() % 10_000) as f64 / 7.0))
                .collect();
            let n = [0u64, 1, 7, 1000, 123_457][round % 5];
            let h = ThresholdedHistogram {
                size: 3 * cells as u64,
                cells: values.clone(),
                threshold: 0.5,
                scale: 1.0,
                epsilon: 1.0,
            };
            let out = h.apportioned(n);
            assert_eq!(out.synthetic_rows(), n, "round {round}");
            let total: f64 = values.iter().map(|v| v.1).sum();
            for &(cell, v) in &values {
                let quota = n as f64 * v / total;
                let got = out
                    .cells()
                    .iter()
                    .find(|c| c.0 == cell)
                    .map_or(0.0, |c| c.1);
                assert!(
                    (got - quota).abs() < 1.0 + 1e-9,
                    "cell {cell}: {got} vs {quota}"
                );
            }
        }
    }

    /// The in-place merge equals sorting the union, on random disjoint lists of every shape
    /// (either empty, interleaved, one entirely before the other).
    #[test]
    fn merge_in_place_equals_the_sorted_union() {
        let mut rng = SecureRng::insecure_from_seed(21);
        for round in 0..300 {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let spread = [2u64, 5, 1000][round % 3];
            for cell in 0..(rng.next_u64() % 60) {
                let v = cell as f64 + 0.5;
                match rng.next_u64() % spread {
                    0 => a.push((cell, v)),
                    1 => b.push((cell, -v)),
                    _ => {}
                }
            }
            if round % 7 == 0 {
                // One list entirely after the other.
                let shift = 1000;
                a.iter_mut().for_each(|c| c.0 += shift);
            }
            let mut want: Vec<(u64, f64)> = a.iter().chain(&b).copied().collect();
            want.sort_by_key(|c| c.0);
            let got = merge_sorted(a.clone(), b.clone());
            assert_eq!(got, want, "round {round}");
            if !a.is_empty() && !b.is_empty() {
                let mut b2 = b.clone();
                b2.reserve_exact(a.len());
                let ptr = b2.as_ptr();
                let merged = merge_sorted(a, b2);
                assert_eq!(merged.as_ptr(), ptr, "merged in b's reserved buffer");
            }
        }
    }

    #[test]
    fn radix_sort_sorts() {
        let mut rng = SecureRng::insecure_from_seed(3);
        for m in [1u64, 2, 255, 256, 257, 1 << 20, 1 << 40, u64::MAX] {
            let mut keys: Vec<u64> = (0..1000)
                .map(|_| crate::noise::bernoulli::uniform_below(&mut rng, m))
                .collect();
            let mut expected = keys.clone();
            expected.sort_unstable();
            radix_sort(&mut keys, m);
            assert_eq!(keys, expected, "m = {m}");
        }
    }

    #[test]
    fn validates_inputs() {
        let mech = SparseLaplace::new(Epsilon::new(1.0).unwrap(), 3, DEFAULT_A).unwrap();
        let mut rng = SecureRng::insecure_from_seed(1);
        assert!(mech.release_counts(&mut rng, &[(2, 1), (1, 2)], 4).is_err());
        assert!(mech.release_counts(&mut rng, &[(1, 0), (2, 3)], 4).is_err());
        assert!(mech.release_counts(&mut rng, &[(1, 1), (2, 1)], 4).is_err()); // sums to 2 ≠ 3
        assert!(mech.release_counts(&mut rng, &[(1, 3)], 4).is_ok());
        assert!(mech.release(&mut rng, &[0, 1, 4], 4).is_err());
        // τ ≈ 0.55: about half of 2^62 empty cells would cross it.
        let e = mech.release(&mut rng, &[0, 1, 2], 1 << 62).unwrap_err();
        assert!(e.to_string().contains("would cross the threshold"), "{e}");
        assert!(SparseLaplace::with_scale(0.0, 1.0).is_err());
        assert!(SparseLaplace::with_scale(1.0, -1.0).is_err());
        assert!(SparseLaplace::with_scale(1.0, 1e300).is_err());
    }
}
