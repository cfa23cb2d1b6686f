//! Separable k-submodular functions f(X₁, …, X_k) = Σᵢ fᵢ(Xᵢ): k-type facility location
//! (Example 5.2) and ad-slot allocation (Example 5.1) of Rafiey & Yoshida (2020).

use super::KSubmodularFunction;
use crate::error::{Error, Result};
use crate::objective::{Coverage, FacilityLocation, Metric, Normalizer, SetFunction};
use crate::privacy::Sensitivity;

/// f(X₁, …, X_k) = Σᵢ fᵢ(Xᵢ) for set functions f₁, …, f_k over the same ground set, with the
/// Xᵢ disjoint (one type per element).
///
/// *k-submodularity.* If every fᵢ is monotone submodular, f is monotone k-submodular:
/// Δ_{v,i}f(x) = fᵢ(Xᵢ ∪ {v}) − fᵢ(Xᵢ) ≥ 0 (pairwise monotone, monotone), and it only grows
/// when Xᵢ shrinks (orthant submodular: x ⪯ y means Xᵢ ⊆ Yᵢ); by Ward & Živný (2014) that is
/// k-submodularity.
///
/// # Sensitivity
/// Δ_{v,i}f = fᵢ(Xᵢ ∪ {v}) − fᵢ(Xᵢ) is a marginal gain of fᵢ alone, so it moves by at most
/// fᵢ's **gain** bound λᵢ(|Xᵢ|) ([`SetFunction::gain_sensitivity`]) between neighbours —
/// whatever the other fⱼ do, and even if one record feeds several fᵢ (a user present in
/// several influence graphs). The scores of one round sit at a different set Xᵢ for every
/// type, so they are not values shifted by a common amount: a part whose
/// [`SetFunction::sensitivity`] only bounds values (mutual information) needs its gain bound
/// ([`crate::privacy::proofs::gains_and_values`]). The sensitivity in round j is
/// maxᵢ max_{s ≤ j} λᵢ(s) (|Xᵢ| ≤ j).
///
/// ```
/// use disguise::objective::{Coverage, KSubmodularFunction, Separable};
/// // Two agencies; user 0 is influenced by slot 0 in agency 0's graph, by slot 1 in agency 1's.
/// let f = Separable::new(vec![Coverage::new(2, &[vec![0]])?, Coverage::new(2, &[vec![1]])?], "ads")?;
/// let mut g = [0.0; 4];
/// f.gains(&f.empty(), &[0, 1], &mut g);
/// assert_eq!(g, [1.0, 0.0, 0.0, 1.0]); // (slot 0 → agency 0), (slot 1 → agency 1)
/// assert_eq!(f.evaluate(&[(0, 0), (1, 1)]), 2.0); // the user counts once per agency
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Separable<F> {
    parts: Vec<F>,
    name: &'static str,
}

impl<F: SetFunction> Separable<F> {
    /// Σᵢ `parts[i]`(Xᵢ) with k = `parts.len()` types. Errors if there is no part or the
    /// parts have different ground sizes.
    pub fn new(parts: Vec<F>, name: &'static str) -> Result<Self> {
        let Some(first) = parts.first() else {
            return Err(Error::param("types", "at least one type is needed"));
        };
        let n = first.ground_size();
        if let Some(i) = parts.iter().position(|p| p.ground_size() != n) {
            return Err(Error::param(
                "types",
                format!(
                    "type {i} has {} elements, type 0 has {n}",
                    parts[i].ground_size()
                ),
            ));
        }
        Ok(Self { parts, name })
    }

    /// The per-type set functions.
    pub fn parts(&self) -> &[F] {
        &self.parts
    }
}

impl<F: SetFunction> KSubmodularFunction for Separable<F> {
    type State = Vec<F::State>;

    fn ground_size(&self) -> usize {
        self.parts[0].ground_size()
    }

    fn types(&self) -> usize {
        self.parts.len()
    }

    fn empty(&self) -> Vec<F::State> {
        self.parts.iter().map(SetFunction::empty).collect()
    }

    fn gains(&self, state: &Vec<F::State>, elements: &[usize], out: &mut [f64]) {
        let k = self.parts.len();
        assert_eq!(
            out.len(),
            elements.len() * k,
            "one output per (element, type)"
        );
        let mut part = vec![0.0; elements.len()];
        for (i, (f, s)) in self.parts.iter().zip(state).enumerate() {
            f.gains(s, elements, &mut part);
            for (j, &g) in part.iter().enumerate() {
                out[j * k + i] = g;
            }
        }
    }

    fn insert(&self, state: &mut Vec<F::State>, v: usize, t: usize) {
        self.parts[t].insert(&mut state[t], v);
    }

    fn value(&self, state: &Vec<F::State>) -> f64 {
        self.parts.iter().zip(state).map(|(f, s)| f.value(s)).sum()
    }

    fn sensitivity(&self, round: usize) -> Sensitivity {
        let mut best = self.parts[0].gain_sensitivity(0);
        for f in &self.parts {
            for s in 0..=round {
                let l = f.gain_sensitivity(s);
                if l.get() > best.get() {
                    best = l;
                }
            }
        }
        best
    }

    fn monotone(&self) -> bool {
        self.parts.iter().all(|f| f.properties().monotone)
    }

    fn name(&self) -> &'static str {
        self.name
    }
}

/// k-type facility location (Rafiey & Yoshida 2020, Example 5.2, with private records as
/// the customers): each record has a type in `0..k` (e.g. the shift of an Uber pickup), each
/// candidate location receives at most one facility of one type, and a record is served by
/// the closest facility *of its own type*:
/// f(X₀, …, X_{k−1}) = Σᵢ Σ_{records r of type i} (1 − min(1, min_{j∈Xᵢ} d(r, j)/m)).
/// It is [`Separable`] over one [`FacilityLocation`] per type (built from that type's
/// records), so it is monotone k-submodular with λ = 1 (one record changes only its own
/// type's facility-location function, by at most 1 per gain).
///
/// Example 5.2's "cost of sending resource type i" is the special case where every record
/// counts for every type (pass the records once per type).
///
/// # Errors
/// `k` = 0, a record type ≥ k, lengths that differ, or any [`FacilityLocation::new`] error.
pub fn k_type_facility_location(
    metric: Metric,
    records: &[[f64; 2]],
    record_types: &[usize],
    k: usize,
    candidates: &[[f64; 2]],
    normalizer: Normalizer,
) -> Result<Separable<FacilityLocation>> {
    if k == 0 {
        return Err(Error::param("types", "at least one type is needed"));
    }
    if records.len() != record_types.len() {
        return Err(Error::param(
            "record types",
            format!("{} types for {} records", record_types.len(), records.len()),
        ));
    }
    if let Some(i) = record_types.iter().position(|&t| t >= k) {
        return Err(Error::param(
            "record types",
            format!("record {i} has type {}, but k = {k}", record_types[i]),
        ));
    }
    // The normaliser is resolved once on the public candidates, so every type uses the same.
    let norm = Normalizer::Fixed(normalizer.resolve(metric, candidates)?);
    let parts = (0..k)
        .map(|t| {
            let mine: Vec<[f64; 2]> = records
                .iter()
                .zip(record_types)
                .filter(|&(_, &rt)| rt == t)
                .map(|(r, _)| *r)
                .collect();
            FacilityLocation::new(metric, &mine, candidates, norm)
        })
        .collect::<Result<Vec<_>>>()?;
    Separable::new(parts, "k-type-facility-location")
}

/// Ad-slot allocation with k agencies (Rafiey & Yoshida 2020, Example 5.1): `num_slots` ad
/// slots, agency i's bipartite influence graph Gᵢ given per user (`graphs[i][u]` lists the
/// slots that influence user u if agency i holds them; every graph lists the same users).
/// f(X₀, …, X_{k−1}) = Σᵢ |N_{Gᵢ}(Xᵢ)|: a user influenced by several agencies counts once per
/// agency. [`Separable`] over one [`Coverage`] per agency: monotone k-submodular with λ = 1
/// (a user's edges in all graphs are its private data; it adds at most 1 to any gain).
///
/// # Errors
/// No agency, graphs with different numbers of users, or a slot id ≥ `num_slots`.
pub fn ad_allocation(num_slots: usize, graphs: &[Vec<Vec<usize>>]) -> Result<Separable<Coverage>> {
    if let Some(first) = graphs.first()
        && let Some(i) = graphs.iter().position(|g| g.len() != first.len())
    {
        return Err(Error::param(
            "graphs",
            format!(
                "graph {i} has {} users, graph 0 has {}",
                graphs[i].len(),
                first.len()
            ),
        ));
    }
    let parts = graphs
        .iter()
        .map(|g| Coverage::new(num_slots, g))
        .collect::<Result<Vec<_>>>()?;
    Separable::new(parts, "ad-allocation")
}
