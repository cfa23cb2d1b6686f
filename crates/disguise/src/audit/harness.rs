//! The black-box audit harness: a statistically valid lower bound on a mechanism's privacy
//! loss from samples on two neighbouring inputs.

use super::clopper_pearson::{lower_bound, upper_bound};
use crate::error::{Error, Result};
use crate::noise::SecureRng;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;
use std::hash::Hash;

/// Samples drawn per parallel task. Fixed (not derived from the thread count) so that a seeded
/// audit gives the same report on every machine.
const CHUNK: u64 = 4096;

/// The outputs of one chunk of runs with their counts, in order of first appearance.
type ChunkCounts<O> = Vec<(O, u64)>;

/// Which likelihood ratio an event bound refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// `ln((P[M(D) ∈ E] − δ) / P[M(D′) ∈ E])`.
    Forward,
    /// `ln((P[M(D′) ∈ E] − δ) / P[M(D) ∈ E])`.
    Backward,
}

/// Parameters of an [`audit`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AuditConfig {
    /// Runs of the mechanism on each of the two inputs (both splits together).
    pub samples_per_side: u64,
    /// Fraction of the runs used to *choose* candidate events; the rest evaluates them.
    /// Default 0.25.
    pub selection_fraction: f64,
    /// Probability that the reported bound is valid, jointly over all events and both
    /// directions (Bonferroni). Default `1 − 1e-6`: a correct mechanism is reported as a
    /// violation with probability at most 1e-6.
    pub confidence: f64,
    /// The δ of the claimed (ε, δ) guarantee, subtracted in the bound. Default 0.
    pub delta: f64,
    /// How many candidate events per direction are carried to the evaluation split.
    /// Default 4.
    pub events_per_direction: usize,
}

impl AuditConfig {
    /// The defaults above with `samples_per_side` runs on each input.
    pub fn new(samples_per_side: u64) -> Self {
        Self {
            samples_per_side,
            selection_fraction: 0.25,
            confidence: 1.0 - 1e-6,
            delta: 0.0,
            events_per_direction: 4,
        }
    }

    /// Sets the δ of the claimed guarantee.
    pub fn with_delta(mut self, delta: f64) -> Self {
        self.delta = delta;
        self
    }

    /// Sets the joint confidence level.
    pub fn with_confidence(mut self, confidence: f64) -> Self {
        self.confidence = confidence;
        self
    }

    /// Sets the fraction of runs used to choose events.
    pub fn with_selection_fraction(mut self, fraction: f64) -> Self {
        self.selection_fraction = fraction;
        self
    }

    /// Sets the number of events per direction that are evaluated.
    pub fn with_events_per_direction(mut self, events: usize) -> Self {
        self.events_per_direction = events;
        self
    }

    fn validate(&self) -> Result<()> {
        if self.samples_per_side < 2 {
            return Err(Error::param(
                "samples_per_side",
                "must be at least 2 (one run for each split)",
            ));
        }
        if !(self.selection_fraction > 0.0 && self.selection_fraction < 1.0) {
            return Err(Error::param(
                "selection_fraction",
                format!("must be in (0, 1), got {}", self.selection_fraction),
            ));
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(Error::param(
                "confidence",
                format!("must be in (0, 1), got {}", self.confidence),
            ));
        }
        if !(0.0..1.0).contains(&self.delta) {
            return Err(Error::InvalidDelta(self.delta));
        }
        if self.events_per_direction == 0 {
            return Err(Error::param("events_per_direction", "must be at least 1"));
        }
        Ok(())
    }

    /// The level α of each one-sided Clopper–Pearson bound: the joint failure probability
    /// `1 − confidence` split evenly over 2 directions × `events_per_direction` events × 2
    /// bounds (numerator lower, denominator upper).
    pub fn alpha_per_bound(&self) -> f64 {
        (1.0 - self.confidence) / (4.0 * self.events_per_direction as f64)
    }
}

/// The certified bound for one event (a set of outputs) on the evaluation split.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EventBound<O> {
    /// Which ratio: `Forward` puts D in the numerator.
    pub direction: Direction,
    /// The outputs forming the event, most telling first.
    pub outputs: Vec<O>,
    /// Runs on the numerator input (evaluation split) whose output fell in the event.
    pub numerator_hits: u64,
    /// Runs on the denominator input (evaluation split) whose output fell in the event.
    pub denominator_hits: u64,
    /// Evaluation runs per input.
    pub trials: u64,
    /// Clopper–Pearson lower bound on the event's probability under the numerator input.
    pub numerator_lower: f64,
    /// Clopper–Pearson upper bound on the event's probability under the denominator input.
    pub denominator_upper: f64,
    /// `ln((numerator_lower − δ) / denominator_upper)`; −∞ when `numerator_lower ≤ δ`.
    pub epsilon_lower: f64,
}

/// How often one output occurred on each input (both splits).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutputCount<O> {
    /// The output.
    pub output: O,
    /// Runs on D that produced it.
    pub d: u64,
    /// Runs on D′ that produced it.
    pub d_prime: u64,
}

/// The result of an [`audit`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditReport<O> {
    /// The certified lower bound on the privacy loss ε (at least 0): with probability at least
    /// `config.confidence`, the mechanism is **not** (ε′, δ)-DP for any ε′ below it.
    pub epsilon_lower: f64,
    /// The evaluated event with the largest bound (`None` only if every bound was −∞).
    pub best: Option<EventBound<O>>,
    /// Every evaluated event, in the order forward then backward, best candidate first.
    pub events: Vec<EventBound<O>>,
    /// Every output seen, in order of first appearance, with its counts on D and D′.
    pub counts: Vec<OutputCount<O>>,
    /// The configuration used.
    pub config: AuditConfig,
}

impl<O> AuditReport<O> {
    /// Whether the audit refutes a claimed ε (with the δ of the configuration): true when the
    /// certified lower bound exceeds it. A `true` answer is wrong with probability at most
    /// `1 − config.confidence`; a `false` answer proves nothing.
    pub fn violates(&self, claimed_epsilon: f64) -> bool {
        self.epsilon_lower > claimed_epsilon
    }
}

/// Audits a mechanism empirically on one pair of neighbouring inputs.
///
/// Runs `mechanism(rng, input)` `config.samples_per_side` times on each of `d` and `d_prime`
/// and returns a lower confidence bound on its privacy loss:
///
/// ```text
/// ε_lower = max over events E and both directions of ln((p_lo(D) − δ) / p_hi(D′)),
/// ```
///
/// where `p_lo`, `p_hi` are one-sided Clopper–Pearson bounds on `P[M(D) ∈ E]` and
/// `P[M(D′) ∈ E]`.
///
/// # Method
/// The runs on each input are split in two. On the *selection* split the outputs are ranked
/// by their empirical likelihood ratio, and candidate events — each single output and each
/// set of the top-j outputs (the Neyman–Pearson shape of the optimal event) — are scored by
/// the bound they are predicted to certify on the evaluation split (a Wilson approximation).
/// The best `events_per_direction` candidates per direction are then evaluated on the
/// independent *evaluation* split with exact Clopper–Pearson bounds, each at level
/// [`AuditConfig::alpha_per_bound`]. Because the events are fixed before the evaluation split
/// is looked at, and the levels add up to `1 − confidence` (union bound), the reported
/// `epsilon_lower` is a valid lower bound with probability at least `config.confidence`.
///
/// # What it proves
/// * If `report.violates(ε)`, the mechanism is not (ε, δ)-DP on these neighbours — and this
///   claim is a false alarm with probability at most `1 − config.confidence` (1e-6 by
///   default), whatever the mechanism.
/// * If not, nothing is proved: the bound is a **lower** bound, limited by the chosen
///   neighbours, the events tried and the sample size. Passing is evidence, not proof.
///
/// # Outputs
/// `O` must be a discrete output (an index, a tuple, a bucketed value): the events are sets of
/// outputs seen on the selection split, so a continuous output must be rounded or bucketed by
/// the caller (which is itself post-processing and cannot increase the privacy loss).
///
/// # Runtime and determinism
/// Runs are drawn in parallel (rayon) in chunks of 4096 with child generators forked from
/// `rng` in a fixed order, so a seeded `rng` gives the same report on any number of threads.
/// The first error returned by the mechanism (in chunk order) is returned.
///
/// ```
/// use disguise::audit::{audit, AuditConfig};
/// use disguise::SecureRng;
/// use rand_core::Rng;
///
/// // Randomized response on one bit with P[truth] = 3/4: exactly ln 3 ≈ 1.10-DP.
/// let rr = |rng: &mut SecureRng, bit: &bool| -> disguise::Result<bool> {
///     Ok(if rng.next_u32() % 4 < 3 { *bit } else { !*bit })
/// };
/// let mut rng = SecureRng::insecure_from_seed(1);
/// let report = audit(rr, &true, &false, &AuditConfig::new(200_000), &mut rng)?;
/// assert!(!report.violates(3f64.ln()));
/// assert!(report.violates(0.9)); // a claimed ε = 0.9 is refuted
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn audit<I, O, M>(
    mechanism: M,
    d: &I,
    d_prime: &I,
    config: &AuditConfig,
    rng: &mut SecureRng,
) -> Result<AuditReport<O>>
where
    I: Sync + ?Sized,
    O: Eq + Hash + Clone + Send,
    M: Fn(&mut SecureRng, &I) -> Result<O> + Sync,
{
    config.validate()?;
    let n = config.samples_per_side;
    let n_select = ((n as f64 * config.selection_fraction).round() as u64).clamp(1, n - 1);
    let n_eval = n - n_select;

    // Batches: 0 = D (selection), 1 = D′ (selection), 2 = D (evaluation), 3 = D′ (evaluation).
    let sizes = [n_select, n_select, n_eval, n_eval];
    let mut tasks = Vec::new();
    for (batch, &size) in sizes.iter().enumerate() {
        let mut start = 0;
        while start < size {
            let len = CHUNK.min(size - start);
            tasks.push((batch, len, rng.fork()));
            start += len;
        }
    }
    let chunk_counts: Vec<(usize, Result<ChunkCounts<O>>)> = tasks
        .into_par_iter()
        .map(|(batch, len, mut child)| {
            let input = if batch % 2 == 0 { d } else { d_prime };
            (batch, run_chunk(&mechanism, input, len, &mut child))
        })
        .collect();

    // Merge in task order, numbering outputs by first appearance (deterministic).
    let mut ids: HashMap<O, usize> = HashMap::new();
    let mut outputs: Vec<O> = Vec::new();
    let mut counts: [Vec<u64>; 4] = Default::default();
    for (batch, chunk) in chunk_counts {
        for (output, count) in chunk? {
            let id = match ids.get(&output) {
                Some(&id) => id,
                None => {
                    ids.insert(output.clone(), outputs.len());
                    outputs.push(output);
                    for c in counts.iter_mut() {
                        c.push(0);
                    }
                    outputs.len() - 1
                }
            };
            counts[batch][id] += count;
        }
    }

    let alpha = config.alpha_per_bound();
    // z for the Wilson predictions; exact bounds are used for the reported values.
    let z = std::f64::consts::SQRT_2 * statrs::function::erf::erfc_inv(2.0 * alpha);
    let mut events = Vec::new();
    for (direction, num, den) in [(Direction::Forward, 0, 1), (Direction::Backward, 1, 0)] {
        let candidates = choose_events(
            &counts[num],
            &counts[den],
            n_select,
            n_eval,
            config.delta,
            z,
            config.events_per_direction,
        );
        for event in candidates {
            let numerator_hits: u64 = event.iter().map(|&i| counts[num + 2][i]).sum();
            let denominator_hits: u64 = event.iter().map(|&i| counts[den + 2][i]).sum();
            let numerator_lower = lower_bound(numerator_hits, n_eval, alpha)?;
            let denominator_upper = upper_bound(denominator_hits, n_eval, alpha)?;
            let epsilon_lower = if numerator_lower > config.delta {
                ((numerator_lower - config.delta) / denominator_upper).ln()
            } else {
                f64::NEG_INFINITY
            };
            events.push(EventBound {
                direction,
                outputs: event.iter().map(|&i| outputs[i].clone()).collect(),
                numerator_hits,
                denominator_hits,
                trials: n_eval,
                numerator_lower,
                denominator_upper,
                epsilon_lower,
            });
        }
    }

    let best = events
        .iter()
        .filter(|e| e.epsilon_lower > f64::NEG_INFINITY)
        .max_by(|a, b| a.epsilon_lower.total_cmp(&b.epsilon_lower))
        .cloned();
    let epsilon_lower = best.as_ref().map_or(0.0, |b| b.epsilon_lower.max(0.0));
    let counts = outputs
        .into_iter()
        .enumerate()
        .map(|(i, output)| OutputCount {
            output,
            d: counts[0][i] + counts[2][i],
            d_prime: counts[1][i] + counts[3][i],
        })
        .collect();
    Ok(AuditReport {
        epsilon_lower,
        best,
        events,
        counts,
        config: *config,
    })
}

/// Runs the mechanism `len` times and counts its outputs in order of first appearance.
fn run_chunk<I, O, M>(
    mechanism: &M,
    input: &I,
    len: u64,
    rng: &mut SecureRng,
) -> Result<ChunkCounts<O>>
where
    I: ?Sized,
    O: Eq + Hash + Clone,
    M: Fn(&mut SecureRng, &I) -> Result<O>,
{
    let mut index: HashMap<O, usize> = HashMap::new();
    let mut list: Vec<(O, u64)> = Vec::new();
    for _ in 0..len {
        let output = mechanism(rng, input)?;
        match index.get(&output) {
            Some(&i) => list[i].1 += 1,
            None => {
                index.insert(output.clone(), list.len());
                list.push((output, 1));
            }
        }
    }
    Ok(list)
}

/// Chooses up to `k` events (sets of output ids) on the selection split for the ratio
/// `num / den`, best predicted bound first.
fn choose_events(
    num: &[u64],
    den: &[u64],
    n_select: u64,
    n_eval: u64,
    delta: f64,
    z: f64,
    k: usize,
) -> Vec<Vec<usize>> {
    // Outputs seen on the selection split, ranked by smoothed likelihood ratio; ties by id so
    // the ranking is deterministic.
    let mut ranked: Vec<usize> = (0..num.len()).filter(|&i| num[i] + den[i] > 0).collect();
    let ratio = |i: usize| (num[i] as f64 + 0.5) / (den[i] as f64 + 0.5);
    ranked.sort_by(|&a, &b| ratio(b).total_cmp(&ratio(a)).then(a.cmp(&b)));

    let predict = |x: u64, y: u64| {
        let lo = wilson(x as f64 / n_select as f64, n_eval as f64, z, false);
        let hi = wilson(y as f64 / n_select as f64, n_eval as f64, z, true);
        if lo > delta {
            ((lo - delta) / hi).ln()
        } else {
            f64::NEG_INFINITY
        }
    };
    // Candidates: (predicted bound, is_prefix, rank position).
    let mut candidates: Vec<(f64, bool, usize)> = Vec::with_capacity(2 * ranked.len());
    let (mut x, mut y) = (0u64, 0u64);
    for (pos, &i) in ranked.iter().enumerate() {
        x += num[i];
        y += den[i];
        candidates.push((predict(x, y), true, pos));
        if pos > 0 {
            // (The singleton of rank 0 is the prefix of length 1.)
            candidates.push((predict(num[i], den[i]), false, pos));
        }
    }
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    candidates
        .into_iter()
        .take(k)
        .map(|(_, prefix, pos)| {
            if prefix {
                ranked[..=pos].to_vec()
            } else {
                vec![ranked[pos]]
            }
        })
        .collect()
}

/// Wilson score bound for a proportion `p` observed in `n` trials (lower or upper).
fn wilson(p: f64, n: f64, z: f64, upper: bool) -> f64 {
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    if upper {
        (centre + half).min(1.0)
    } else {
        (centre - half).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::Rng;

    /// A biased coin: outputs `true` with probability `p_num / 2^32` given on the input.
    fn coin(rng: &mut SecureRng, p: &u64) -> Result<bool> {
        Ok(u64::from(rng.next_u32()) < *p)
    }

    #[test]
    fn identical_inputs_give_no_evidence() {
        // Same distribution on both sides: the true loss is 0; the bound must stay ≤ 0 + noise
        // of the confidence level (false alarm ≤ 1e-6 for any positive claim).
        let half = 1u64 << 31;
        let mut rng = SecureRng::insecure_from_seed(3);
        let report = audit(coin, &half, &half, &AuditConfig::new(100_000), &mut rng).unwrap();
        assert!(report.epsilon_lower < 0.05, "{}", report.epsilon_lower);
        assert_eq!(report.counts.len(), 2);
        let total: u64 = report.counts.iter().map(|c| c.d + c.d_prime).sum();
        assert_eq!(total, 200_000);
    }

    #[test]
    fn detects_a_known_ratio_and_stays_below_it() {
        // P_D[true] = 0.6, P_D′[true] = 0.2: the true loss is ln 3 ≈ 1.0986 (event {true});
        // backward, {false}: ln(0.8/0.4) = ln 2.
        let (p, q) = ((0.6 * 2f64.powi(32)) as u64, (0.2 * 2f64.powi(32)) as u64);
        let mut rng = SecureRng::insecure_from_seed(4);
        let report = audit(coin, &p, &q, &AuditConfig::new(400_000), &mut rng).unwrap();
        let best = report.best.as_ref().unwrap();
        assert_eq!(best.direction, Direction::Forward);
        assert_eq!(best.outputs, vec![true]);
        // With 300k evaluation runs per side the bound sits ≈ 0.03 below ln 3 (the
        // Clopper–Pearson margins at α = 6e-8, ± 0.004 sampling noise), and never above it
        // except with probability ≤ 1e-6.
        assert!(report.epsilon_lower < 3f64.ln());
        assert!(
            report.epsilon_lower > 3f64.ln() - 0.06,
            "{}",
            report.epsilon_lower
        );
        assert!(report.violates(1.0) && !report.violates(1.1));
    }

    #[test]
    fn delta_is_subtracted() {
        // With δ = 0.5, the event {true} gives ln((0.6 − 0.5)/0.2) < 0 and {false} backward
        // ln((0.8 − 0.5)/0.4) < 0: no positive bound remains.
        let (p, q) = ((0.6 * 2f64.powi(32)) as u64, (0.2 * 2f64.powi(32)) as u64);
        let mut rng = SecureRng::insecure_from_seed(5);
        let config = AuditConfig::new(100_000).with_delta(0.5);
        let report = audit(coin, &p, &q, &config, &mut rng).unwrap();
        assert_eq!(report.epsilon_lower, 0.0);
    }

    #[test]
    fn seeded_audits_are_reproducible() {
        let (p, q) = (1u64 << 31, 1u64 << 30);
        let config = AuditConfig::new(20_000);
        let a = audit(coin, &p, &q, &config, &mut SecureRng::insecure_from_seed(9)).unwrap();
        let b = audit(coin, &p, &q, &config, &mut SecureRng::insecure_from_seed(9)).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn rejects_bad_configs_and_propagates_errors() {
        let mut rng = SecureRng::insecure_from_seed(1);
        let p = 1u64 << 31;
        for config in [
            AuditConfig::new(1),
            AuditConfig::new(100).with_selection_fraction(1.0),
            AuditConfig::new(100).with_confidence(1.0),
            AuditConfig::new(100).with_delta(1.0),
            AuditConfig::new(100).with_events_per_direction(0),
        ] {
            assert!(audit(coin, &p, &p, &config, &mut rng).is_err());
        }
        let failing = |_: &mut SecureRng, _: &u64| -> Result<bool> { Err(Error::EmptyCandidates) };
        let err = audit(failing, &p, &p, &AuditConfig::new(100), &mut rng).unwrap_err();
        assert_eq!(err, Error::EmptyCandidates);
    }
}
