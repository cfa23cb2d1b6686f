//! User-defined objectives from a closure.
//!
//! Two ways to plug in your own f_D:
//! * implement [`SetFunction`] directly (the trait-based adapter): full control, incremental
//!   state, bulk gains;
//! * wrap a closure that evaluates f_D(S) from scratch in [`FnObjective`], declaring its
//!   sensitivity: the simplest route when f_D is cheap.

use super::{Properties, SetFunction};
use crate::privacy::Sensitivity;
use rayon::prelude::*;
use std::fmt;

/// The declared per-round sensitivity of an [`FnObjective`].
type RoundSensitivity = Box<dyn Fn(usize) -> Sensitivity + Send + Sync>;

/// A set function given by a closure `f(S) -> f64` that evaluates f_D from scratch, with a
/// sensitivity declared by the user.
///
/// ```
/// use disguise::objective::{FnObjective, SetFunction};
/// use disguise::privacy::Sensitivity;
///
/// // Private data: each person's set of liked items; f(S) = people who like something in S.
/// let likes: Vec<Vec<usize>> = vec![vec![0], vec![0, 2], vec![1]];
/// let f = FnObjective::new(3, Sensitivity::new(1.0)?, move |s: &[usize]| {
///     likes.iter().filter(|l| l.iter().any(|v| s.contains(v))).count() as f64
/// })
/// .monotone()
/// .with_name("likes");
/// let mut g = [0.0; 3];
/// f.gains(&f.empty(), &[0, 1, 2], &mut g);
/// assert_eq!(g, [2.0, 1.0, 1.0]);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Sensitivity
/// Declared, not proven: [`SetFunction::sensitivity`] returns what was passed to
/// [`FnObjective::new`] (or [`FnObjective::with_round_sensitivity`]). It must bound
/// |(f_D(S ∪ v) − f_D(S)) − (f_D′(S ∪ v) − f_D′(S))| for every neighbouring D, D′, every v and
/// every S of that round's size; the privacy guarantee of any algorithm run on this objective
/// is only as good as that claim. Likewise the declared [`Properties`] (default: neither
/// monotone nor decomposable, the conservative choice) select which guarantees apply.
///
/// # Exactness
/// Gains are computed as f(S ∪ {v}) − f(S) in f64.
///
/// # Runtime
/// One evaluation of f per candidate per round, in parallel over candidates (f must be `Sync`);
/// `insert` evaluates f once. The set is passed in insertion order without duplicates.
pub struct FnObjective<F> {
    ground: usize,
    f: F,
    sensitivity: RoundSensitivity,
    properties: Properties,
    name: &'static str,
}

/// The state of an [`FnObjective`]: the current set and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct FnState {
    set: Vec<usize>,
    member: Vec<bool>,
    value: f64,
}

impl FnState {
    /// The elements of S in insertion order.
    pub fn elements(&self) -> &[usize] {
        &self.set
    }
}

impl<F> fmt::Debug for FnObjective<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnObjective")
            .field("ground", &self.ground)
            .field("properties", &self.properties)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl<F: Fn(&[usize]) -> f64 + Sync> FnObjective<F> {
    /// f over the ground set `0..ground_size`, with the same declared sensitivity every round.
    pub fn new(ground_size: usize, sensitivity: Sensitivity, f: F) -> Self {
        Self {
            ground: ground_size,
            f,
            sensitivity: Box::new(move |_| sensitivity),
            properties: Properties::NONE,
            name: "user-defined",
        }
    }

    /// Declares a sensitivity that depends on the round (|S| before the round, 0-based).
    pub fn with_round_sensitivity(
        mut self,
        sensitivity: impl Fn(usize) -> Sensitivity + Send + Sync + 'static,
    ) -> Self {
        self.sensitivity = Box::new(sensitivity);
        self
    }

    /// Declares f monotone (f(S) ≤ f(T) for S ⊆ T).
    pub fn monotone(mut self) -> Self {
        self.properties.monotone = true;
        self
    }

    /// Declares f λ-decomposable: f_D = Σ_x f_x with each f_x monotone submodular with values
    /// in [0, λ], λ being the declared sensitivity. Enables the decomposable composition
    /// rule, so only declare it when it is true.
    pub fn decomposable(mut self) -> Self {
        self.properties.decomposable = true;
        self
    }

    /// Sets the name shown in output.
    pub fn with_name(mut self, name: &'static str) -> Self {
        self.name = name;
        self
    }
}

impl<F: Fn(&[usize]) -> f64 + Sync> SetFunction for FnObjective<F> {
    type State = FnState;

    fn ground_size(&self) -> usize {
        self.ground
    }

    fn empty(&self) -> FnState {
        FnState {
            set: Vec::new(),
            member: vec![false; self.ground],
            value: (self.f)(&[]),
        }
    }

    /// f(S ∪ {v}) − f(S) for each candidate, in parallel; 0 for members of S. Panics if a
    /// candidate is ≥ `ground_size()` or the lengths differ.
    fn gains(&self, state: &FnState, candidates: &[usize], out: &mut [f64]) {
        assert_eq!(candidates.len(), out.len(), "one output per candidate");
        let gain = |buf: &mut Vec<usize>, (o, &v): (&mut f64, &usize)| {
            *o = if state.member[v] {
                0.0
            } else {
                buf.push(v);
                let with = (self.f)(buf);
                buf.pop();
                with - state.value
            };
        };
        if candidates.len() < 2 {
            let mut buf = state.set.clone();
            out.iter_mut()
                .zip(candidates)
                .for_each(|pair| gain(&mut buf, pair));
        } else {
            out.par_iter_mut()
                .zip(candidates)
                .for_each_init(|| state.set.clone(), gain);
        }
    }

    fn insert(&self, state: &mut FnState, v: usize) {
        if !state.member[v] {
            state.member[v] = true;
            state.set.push(v);
            state.value = (self.f)(&state.set);
        }
    }

    fn value(&self, state: &FnState) -> f64 {
        state.value
    }

    /// The declared sensitivity for this round.
    fn sensitivity(&self, round: usize) -> Sensitivity {
        (self.sensitivity)(round)
    }

    /// The declared λ: the declaration is a bound on every single marginal gain (see
    /// *Sensitivity*).
    fn gain_sensitivity(&self, round: usize) -> Sensitivity {
        self.sensitivity(round)
    }

    /// The declared properties.
    fn properties(&self) -> Properties {
        self.properties
    }

    fn name(&self) -> &'static str {
        self.name
    }
}
