//! k-discernibility (Vinterbo 2012, equation (9)) over records spread across workers.
//!
//! Discernibility is not a sum over records: the pairs it counts span workers. But the
//! number of undiscerned different-target pairs of a partition,
//! P(S) = Σ_classes (C(size, 2) − Σ_labels C(count, 2)), depends only on the per-class label
//! counts, and those *are* sums over workers. So each class (the records sharing their values
//! on the chosen attributes S, named by those values as a mixed-radix key) has one owner
//! worker: every worker sends the owner its counts of (class, label) — for a gain, of (class,
//! candidate's value, label) — and the owner adds them up and computes the class's exact
//! share of P. Worker 0 adds the owners' integer shares: the same integers the one-process
//! objective computes, turned into the same floats by the same formula
//! (`objective::discernibility::pairs_value`), so the selector sees the same numbers and
//! a seeded run picks the same attributes.
//!
//! Trust model: beyond [`super`]'s, a worker sees the label counts of the classes it owns
//! (aggregates over every worker's records, as the histogram's cell counts are).

use super::sharded::Refinement;
use super::{Aggregate, Comm, Msg, Serve};
use crate::data::Codes;
use crate::error::{Error, Result};
use crate::objective::Properties;
use crate::objective::discernibility::{check_codes, impure_pairs, pairs_value, sensitivity};
use crate::privacy::Sensitivity;
use std::collections::HashMap;
use std::sync::Arc;

/// The public face of distributed discernibility over `ground` predictor attributes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DiscernibilityTotals {
    pub(crate) ground: usize,
}

impl Aggregate for DiscernibilityTotals {
    fn ground_size(&self) -> usize {
        self.ground
    }
    fn sensitivity(&self, _round: usize) -> Sensitivity {
        sensitivity()
    }
    fn gain_sensitivity(&self, _round: usize) -> Sensitivity {
        sensitivity()
    }
    fn properties(&self) -> Properties {
        Properties::MONOTONE
    }
    fn name(&self) -> &'static str {
        "discernibility"
    }
    fn max_solution_size(&self) -> usize {
        self.ground
    }
    fn gain_of(&self, total: i64, records: usize) -> f64 {
        pairs_value(total.max(0) as u64, records as f64)
    }
    fn value_of(&self, total: i128, records: usize) -> f64 {
        pairs_value(total.max(0) as u64, records as f64)
    }
}

/// The classes of one state: each record's class key (its values on the chosen attributes,
/// mixed radix in the order chosen) and the product of the chosen radices.
#[derive(Debug, Clone)]
struct Classes {
    keys: Vec<u128>,
    product: u128,
}

/// One worker's records for distributed discernibility, serving [`super::Sharded`]'s
/// commands.
pub(crate) struct DiscernibilityPart {
    columns: Vec<Arc<Codes>>,
    radices: Vec<u32>,
    labels: Arc<Codes>,
    label_count: u32,
    /// P(∅) over all workers: added by worker 0 to its share of a value.
    base: u64,
    states: HashMap<u64, Classes>,
}

impl DiscernibilityPart {
    /// This worker's predictor columns and labels (one code per record, every code below its
    /// radix); learns the label counts of all workers (one exchange).
    pub(crate) fn build(
        comm: &mut Comm<'_>,
        columns: Vec<Arc<Codes>>,
        radices: Vec<u32>,
        labels: Arc<Codes>,
        label_count: u32,
    ) -> Result<Self> {
        let checked = check_codes(&columns, &radices, &labels, label_count).map(|()| {
            let mut counts = vec![0u64; label_count as usize];
            for l in labels.iter() {
                counts[l as usize] += 1;
            }
            counts
        });
        let counts = comm.all_sum(checked)?;
        let total: u64 = counts.iter().sum();
        if total >= 1 << 32 {
            return Err(Error::param("labels", "at most 2^32 − 1 records"));
        }
        Ok(DiscernibilityPart {
            columns,
            radices,
            labels,
            label_count,
            base: impure_pairs(total, &counts),
            states: HashMap::new(),
        })
    }

    /// The key width after refining `classes` by attribute `a`, or an error (the same on
    /// every worker: it depends on the public radices only).
    fn refined_product(&self, classes: &Classes, a: usize) -> Result<u128> {
        let r = *self
            .radices
            .get(a)
            .ok_or_else(|| Error::Cluster(format!("attribute {a} out of range")))?;
        classes.product.checked_mul(u128::from(r)).ok_or_else(|| {
            Error::param(
                "k",
                "the chosen attributes have more than 2^128 value combinations: choose fewer",
            )
        })
    }

    /// This worker's share of P(S) for `classes`: the (class, label) counts go to the
    /// classes' owners, which add them up and count the pairs of the classes they own.
    fn undiscerned_share(&self, comm: &mut Comm<'_>, classes: &Classes) -> Result<u64> {
        let peers = comm.place().peers;
        let mut local: Vec<(u128, u32)> = classes
            .keys
            .iter()
            .zip(self.labels.iter())
            .map(|(&k, l)| (k, l))
            .collect();
        local.sort_unstable();
        let mut out: Vec<Vec<(u64, u64, u32, u64)>> = vec![Vec::new(); peers];
        for (key, label, count) in runs(&local) {
            out[owner(key, peers)].push((hi(key), lo(key), label, count));
        }
        let got = comm.exchange(messages(out, Msg::Classes))?;
        let mut all: Vec<(u64, u64, u32, u64)> = Vec::new();
        for m in got {
            match m {
                Msg::Classes(v) => all.extend(v),
                other => return Err(Error::Cluster(format!("unexpected {other:?}"))),
            }
        }
        all.sort_unstable();
        let mut share = 0u64;
        let mut per_label = vec![0u64; self.label_count as usize];
        let mut i = 0;
        while i < all.len() {
            let class = (all[i].0, all[i].1);
            let mut size = 0u64;
            while i < all.len() && (all[i].0, all[i].1) == class {
                per_label[all[i].2 as usize] += all[i].3;
                size += all[i].3;
                i += 1;
            }
            share += impure_pairs(size, &per_label);
            per_label.fill(0);
        }
        Ok(share)
    }

    /// This worker's answer for a state's value: its share of P(∅) − P(S) (worker 0 adds
    /// P(∅)).
    fn value_share(&self, comm: &mut Comm<'_>, classes: &Classes) -> Result<Msg> {
        let share = self.undiscerned_share(comm, classes)? as i64;
        let lead = comm.place().worker == 0;
        Ok(Msg::Total(if lead {
            self.base as i64 - share
        } else {
            -share
        }))
    }

    /// This worker's shares of P(S) − P(S ∪ {a}) for every candidate a: the counts of
    /// (class, a's value, label) go to the classes' owners, which compute, for each class
    /// they own, its undiscerned pairs minus those of its refinement by a.
    fn gains_share(
        &self,
        comm: &mut Comm<'_>,
        classes: &Classes,
        candidates: &[usize],
    ) -> Result<Msg> {
        let peers = comm.place().peers;
        let mut out: Vec<Vec<Refinement>> = vec![Vec::new(); peers];
        // The classes numbered densely once; then each candidate's (class, value, label)
        // counts in one pass over the records.
        let (class_of, keys) = dense_classes(&classes.keys);
        let q = u128::from(self.label_count);
        let n = class_of.len();
        let mut counts: Vec<u64> = Vec::new();
        let mut composite: Vec<u128> = Vec::new();
        for (i, &a) in candidates.iter().enumerate() {
            self.refined_product(classes, a)?;
            let r = u128::from(self.radices[a]);
            // At most 2^96: exact in u128.
            let cell = |class: u32, v: u32, l: u32| {
                (u128::from(class) * r + u128::from(v)) * q + u128::from(l)
            };
            let mut emit = |code: u128, count: u64| {
                let (class, rest) = (code / (r * q), code % (r * q));
                let key = keys[class as usize];
                out[owner(key, peers)].push((
                    i as u32,
                    hi(key),
                    lo(key),
                    (rest / q) as u32,
                    (rest % q) as u32,
                    count,
                ));
            };
            let cells = keys.len() as u128 * r * q;
            let records = class_of
                .iter()
                .zip(self.columns[a].iter())
                .zip(self.labels.iter());
            if cells <= (4 * n as u128).max(1 << 16) {
                // Few enough (class, value, label) cells for a dense counter.
                counts.clear();
                counts.resize(cells as usize, 0);
                for ((&class, v), l) in records {
                    counts[cell(class, v, l) as usize] += 1;
                }
                for (code, &c) in counts.iter().enumerate().filter(|(_, c)| **c > 0) {
                    emit(code as u128, c);
                }
            } else {
                composite.clear();
                composite.extend(records.map(|((&class, v), l)| cell(class, v, l)));
                composite.sort_unstable();
                for run in composite.chunk_by(|x, y| x == y) {
                    emit(run[0], run.len() as u64);
                }
            }
        }
        let got = comm.exchange(messages(out, Msg::Refine))?;
        let mut all: Vec<Refinement> = Vec::new();
        for m in got {
            match m {
                Msg::Refine(v) => all.extend(v),
                other => return Err(Error::Cluster(format!("unexpected {other:?}"))),
            }
        }
        all.sort_unstable();
        let q = self.label_count as usize;
        let mut shares = vec![0i64; candidates.len()];
        let (mut class_labels, mut value_labels) = (vec![0u64; q], vec![0u64; q]);
        let mut i = 0;
        while i < all.len() {
            // One class for one candidate: its pairs, minus those of its refinement.
            let class = (all[i].0, all[i].1, all[i].2);
            let (mut size, mut refined) = (0u64, 0u64);
            while i < all.len() && (all[i].0, all[i].1, all[i].2) == class {
                let value = all[i].3;
                let mut value_size = 0u64;
                while i < all.len()
                    && (all[i].0, all[i].1, all[i].2, all[i].3)
                        == (class.0, class.1, class.2, value)
                {
                    let (label, count) = (all[i].4 as usize, all[i].5);
                    value_labels[label] += count;
                    class_labels[label] += count;
                    value_size += count;
                    i += 1;
                }
                refined += impure_pairs(value_size, &value_labels);
                size += value_size;
                value_labels.fill(0);
            }
            let pairs = impure_pairs(size, &class_labels);
            class_labels.fill(0);
            shares[class.0 as usize] += pairs as i64 - refined as i64;
        }
        Ok(Msg::Units(shares))
    }

    fn state(&self, id: u64) -> Result<&Classes> {
        self.states
            .get(&id)
            .ok_or_else(|| Error::Cluster(format!("no state {id} on this worker")))
    }
}

impl Serve for DiscernibilityPart {
    fn ready(&self) -> Msg {
        Msg::Ready {
            records: self.labels.len() as u64,
            ground: self.columns.len() as u64,
            unit: 1.0,
        }
    }

    fn serve(&mut self, comm: &mut Comm<'_>, command: &Msg) -> Result<Msg> {
        match command {
            Msg::Empty(id) => {
                let classes = Classes {
                    keys: vec![0; self.labels.len()],
                    product: 1,
                };
                let answer = self.value_share(comm, &classes)?;
                self.states.insert(*id, classes);
                Ok(answer)
            }
            Msg::Clone { from, to } => {
                let classes = self.state(*from)?.clone();
                self.states.insert(*to, classes);
                Ok(Msg::Ack)
            }
            Msg::Forget(id) => {
                self.states.remove(id);
                Ok(Msg::Ack)
            }
            Msg::Gains { state, candidates } => {
                let candidates: Vec<usize> = candidates.iter().map(|&c| c as usize).collect();
                let classes = self.state(*state)?;
                self.gains_share(comm, classes, &candidates)
            }
            Msg::Insert { state, v } => {
                let a = *v as usize;
                let mut classes = self.state(*state)?.clone();
                let product = self.refined_product(&classes, a)?;
                let r = u128::from(self.radices[a]);
                for (key, v) in classes.keys.iter_mut().zip(self.columns[a].iter()) {
                    *key = *key * r + u128::from(v);
                }
                classes.product = product;
                let answer = self.value_share(comm, &classes)?;
                self.states.insert(*state, classes);
                Ok(answer)
            }
            Msg::Done => Ok(Msg::Ack),
            other => Err(Error::Cluster(format!("unexpected command {other:?}"))),
        }
    }
}

/// Each record's class as a dense number (in order of first appearance), and the classes'
/// keys.
fn dense_classes(keys: &[u128]) -> (Vec<u32>, Vec<u128>) {
    let mut ids: HashMap<u128, u32> = HashMap::new();
    let mut unique = Vec::new();
    let class_of = keys
        .iter()
        .map(|&k| {
            *ids.entry(k).or_insert_with(|| {
                unique.push(k);
                (unique.len() - 1) as u32
            })
        })
        .collect();
    (class_of, unique)
}

/// The runs of equal (key, label) in a sorted list, with their lengths.
fn runs(sorted: &[(u128, u32)]) -> impl Iterator<Item = (u128, u32, u64)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        let first = *sorted.get(i)?;
        let start = i;
        while i < sorted.len() && sorted[i] == first {
            i += 1;
        }
        Some((first.0, first.1, (i - start) as u64))
    })
}

/// The worker that owns a class: a fixed mix of its key (the same in every process).
fn owner(key: u128, peers: usize) -> usize {
    let mut z = (hi(key) ^ lo(key).rotate_left(29)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) % peers as u64) as usize
}

fn hi(key: u128) -> u64 {
    (key >> 64) as u64
}

fn lo(key: u128) -> u64 {
    key as u64
}

/// One message per worker (an empty one too: every worker hears from every other).
fn messages<T>(per_worker: Vec<Vec<T>>, wrap: fn(Vec<T>) -> Msg) -> Vec<(u64, Msg)> {
    per_worker
        .into_iter()
        .enumerate()
        .map(|(w, v)| (w as u64, wrap(v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::{Cluster, Sharded};
    use crate::objective::{Discernibility, SetFunction};

    /// Every gain and value of distributed discernibility equals the one-process objective's,
    /// bit for bit, along a chain of insertions, for several worker counts.
    #[test]
    fn distributed_gains_and_values_are_the_local_ones() {
        // Small domains (dense counting) and wide ones (300 × 300 × 3 cells: sorted).
        same_as_local(vec![3, 5, 2, 7]);
        same_as_local(vec![300, 300, 5, 2]);
    }

    fn same_as_local(radices: Vec<u32>) {
        let n = 900usize;
        let labels: Vec<u32> = (0..n).map(|i| ((i * 31) % 17 % 3) as u32).collect();
        let columns: Vec<Vec<u32>> = radices
            .iter()
            .enumerate()
            .map(|(a, &r)| {
                (0..n)
                    .map(|i| {
                        ((i * (a + 2) + labels[i] as usize * a + i / 11 + i * i * a) % r as usize)
                            as u32
                    })
                    .collect()
            })
            .collect();
        let local = Discernibility::new(columns.clone(), radices.clone(), labels.clone(), 3)
            .expect("objective");
        let chain = [3usize, 0, 2];
        let mut want = Vec::new();
        let mut state = local.empty();
        for &a in &chain {
            let mut g = vec![0.0; 4];
            local.gains(&state, &[0, 1, 2, 3], &mut g);
            want.push((
                local.value(&state).to_bits(),
                g.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            ));
            local.insert(&mut state, a);
        }
        want.push((local.value(&state).to_bits(), Vec::new()));
        for workers in [1, 2, 5] {
            let (columns, radices, labels) = (columns.clone(), radices.clone(), labels.clone());
            let got = Cluster::local(workers)
                .expect("cluster")
                .serve(
                    move |comm: &mut Comm<'_>| {
                        let place = comm.place();
                        let mine = |v: &Vec<u32>| -> Arc<Codes> {
                            let kept: Vec<u32> = v
                                .iter()
                                .enumerate()
                                .filter(|(i, _)| place.owns_row(*i as u64))
                                .map(|(_, &x)| x)
                                .collect();
                            Arc::new(Codes::from(kept))
                        };
                        DiscernibilityPart::build(
                            comm,
                            columns.iter().map(mine).collect(),
                            radices.clone(),
                            mine(&labels),
                            3,
                        )
                    },
                    |link, records| {
                        let totals = DiscernibilityTotals { ground: 4 };
                        let f = Sharded::new(&totals, records, link);
                        let mut got = Vec::new();
                        let mut state = f.empty();
                        for &a in &chain {
                            let mut g = vec![0.0; 4];
                            f.gains(&state, &[0, 1, 2, 3], &mut g);
                            got.push((
                                f.value(&state).to_bits(),
                                g.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                            ));
                            // A copy refined apart leaves the original as it was.
                            let mut copy = state.clone();
                            f.insert(&mut copy, (a + 1) % 4);
                            f.insert(&mut state, a);
                        }
                        got.push((f.value(&state).to_bits(), Vec::new()));
                        Ok(got)
                    },
                )
                .expect("run")
                .expect("process 0");
            assert_eq!(got, want, "{workers} workers");
        }
        assert!(want[0].1.iter().all(|&g| f64::from_bits(g) > 0.0));
    }
}
