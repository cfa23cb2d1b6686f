//! Ranking metrics: the binary AUC and the Hand–Till multi-class AUC.

use super::{Matrix, checked_weights};
use crate::error::{Error, Result};

/// The area under the ROC curve: the probability that a random positive example scores
/// higher than a random negative one, **ties counted half** (the Mann–Whitney statistic
/// `U / (n₊ n₋)`; equal to the rank-sum formula `(R₊ − n₊(n₊+1)/2) / (n₊ n₋)` with mid-ranks).
///
/// With `weights`, each example counts `wᵢ` times: `Σ_{i∈+, j∈−} wᵢ wⱼ ([sᵢ > sⱼ] +
/// ½[sᵢ = sⱼ]) / (W₊ W₋)`.
///
/// *Runtime*: O(n log n) (one sort, then one pass over groups of tied scores).
///
/// ```
/// use disguise::learn::auc;
/// // Positives score 0.9 and 0.5; negatives 0.5 and 0.1. Of the 4 pairs, 3 are ordered
/// // correctly and one is a tie: AUC = (3 + 0.5) / 4.
/// let a = auc(&[0.9, 0.5, 0.5, 0.1], &[true, true, false, false], None)?;
/// assert_eq!(a, 0.875);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// Lengths that differ, a non-finite score, invalid weights, or no positive or no negative
/// example (with positive weight).
pub fn auc(scores: &[f64], positive: &[bool], weights: Option<&[f64]>) -> Result<f64> {
    if scores.len() != positive.len() {
        return Err(Error::param(
            "positive",
            format!("{} labels for {} scores", positive.len(), scores.len()),
        ));
    }
    if scores.is_empty() {
        return Err(Error::param("scores", "no examples"));
    }
    if let Some(i) = scores.iter().position(|s| !s.is_finite()) {
        return Err(Error::param(
            "scores",
            format!("score {i} is not finite: {}", scores[i]),
        ));
    }
    let w = checked_weights(weights, scores.len())?;
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    let (mut total_pos, mut total_neg) = (0.0, 0.0);
    let mut neg_below = 0.0;
    let mut sum = 0.0;
    let mut start = 0;
    while start < order.len() {
        let s = scores[order[start]];
        let mut end = start;
        let (mut gp, mut gn) = (0.0, 0.0);
        while end < order.len() && scores[order[end]] == s {
            let i = order[end];
            if positive[i] {
                gp += w[i];
            } else {
                gn += w[i];
            }
            end += 1;
        }
        sum += gp * (neg_below + 0.5 * gn);
        neg_below += gn;
        total_pos += gp;
        total_neg += gn;
        start = end;
    }
    if total_pos <= 0.0 || total_neg <= 0.0 {
        return Err(Error::param(
            "positive",
            "the AUC needs at least one positive and one negative example",
        ));
    }
    Ok(sum / (total_pos * total_neg))
}

/// The Hand–Till multi-class AUC (Hand and Till 2001, *Machine Learning* 45:171–186):
///
/// ```text
/// M = 2 / (c(c−1)) · Σ_{i<j} (Â(i|j) + Â(j|i)) / 2
/// ```
///
/// where `Â(i|j)` is the [`auc`] of the scores `probs[·][i]` on the examples of classes `i`
/// (positive) and `j` (negative) only. `probs` is `n × K` (column `k` = the estimated
/// probability, or any score, of class `k`); `labels` are in `0..K`.
///
/// The sum runs over the `c` classes that **occur** in `labels` (with positive weight): a test
/// fold that misses a class still gets a score from the pairs it can rank.
///
/// ```
/// use disguise::learn::{hand_till, Matrix};
/// // Perfect ranking for every pair of classes gives M = 1.
/// let p = Matrix::new(3, 3, vec![0.8, 0.1, 0.1, 0.1, 0.8, 0.1, 0.1, 0.1, 0.8])?;
/// assert_eq!(hand_till(&p, &[0, 1, 2], None)?, 1.0);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Errors
/// Lengths that differ, a label `>= K`, invalid weights, or fewer than two classes present.
pub fn hand_till(probs: &Matrix, labels: &[u32], weights: Option<&[f64]>) -> Result<f64> {
    if probs.nrows() != labels.len() {
        return Err(Error::param(
            "labels",
            format!(
                "{} labels for {} rows of scores",
                labels.len(),
                probs.nrows()
            ),
        ));
    }
    let w = checked_weights(weights, labels.len())?;
    let k = probs.ncols();
    let mut class_weight = vec![0.0; k];
    for (i, (&c, &wi)) in labels.iter().zip(w.iter()).enumerate() {
        let slot = class_weight.get_mut(c as usize).ok_or_else(|| {
            Error::param(
                "labels",
                format!("label {c} at row {i} has no score column (K = {k})"),
            )
        })?;
        *slot += wi;
    }
    let present: Vec<usize> = (0..k).filter(|&c| class_weight[c] > 0.0).collect();
    let c = present.len();
    if c < 2 {
        return Err(Error::param(
            "labels",
            format!("the Hand-Till AUC needs at least 2 classes present, found {c}"),
        ));
    }
    let mut total = 0.0;
    for (a, &ci) in present.iter().enumerate() {
        for &cj in &present[a + 1..] {
            let rows: Vec<usize> = (0..labels.len())
                .filter(|&r| labels[r] as usize == ci || labels[r] as usize == cj)
                .collect();
            let wij: Vec<f64> = rows.iter().map(|&r| w[r]).collect();
            let is_i: Vec<bool> = rows.iter().map(|&r| labels[r] as usize == ci).collect();
            let is_j: Vec<bool> = is_i.iter().map(|b| !b).collect();
            let si: Vec<f64> = rows.iter().map(|&r| probs.get(r, ci)).collect();
            let sj: Vec<f64> = rows.iter().map(|&r| probs.get(r, cj)).collect();
            let a_ij = auc(&si, &is_i, Some(&wij))?;
            let a_ji = auc(&sj, &is_j, Some(&wij))?;
            total += 0.5 * (a_ij + a_ji);
        }
    }
    Ok(2.0 * total / (c as f64 * (c as f64 - 1.0)))
}
