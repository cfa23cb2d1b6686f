//! `disguise select --algorithm continuous-greedy`: the private continuous greedy of Rafiey &
//! Yoshida (2020) for facility location under one matroid. Its options ([`ContinuousArgs`],
//! flattened into `select`'s arguments) and the run, prepared once and shared by all trials
//! ([`Prepared`]).

use super::select::AlgorithmArg;
use crate::output::{check_memory, thousands};
use anyhow::bail;
use disguise::SecureRng;
use disguise::constraint::{Cardinality, Independence, Matroid};
use disguise::maximize::{ContinuousGreedy, Directions, Procedure, Solution, continuous_greedy};
use disguise::objective::{ClosedForm, FacilityLocation, FacilityMultilinear, SampledGradient};

/// Options of `--algorithm continuous-greedy` (ignored by the other algorithms).
#[derive(clap::Args, Debug, Clone)]
pub struct ContinuousArgs {
    /// Continuous greedy: the number of steps T (each one selector call, or r with
    /// `--directions sequential`; the total budget is split over them). Default r², the
    /// paper's Θ(r(M)²). Example: `--steps 10`.
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    pub steps: Option<usize>,
    /// Continuous greedy: how each step's base is chosen. `bases` — one exponential
    /// mechanism over all bases, sampled exactly (cardinality and partition constraints);
    /// `sequential` — r exponential-mechanism picks per step (any matroid); `sampled:N` —
    /// the exponential mechanism over N random bases per step (any matroid); `auto` —
    /// bases when possible, else sequential.
    #[arg(long, value_name = "RULE", default_value = "auto")]
    pub directions: String,
    /// Continuous greedy: estimate the gradient from N random sets per step instead of the
    /// exact closed form (slower and noisier; for comparison). Example: `--gradient-samples 50`.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub gradient_samples: Option<usize>,
}

/// Refuses, before anything runs, a number of steps or of sampled bases whose records would
/// not fit in memory: a run keeps one selector record per call (r per step with sequential
/// directions) and one base of r elements per step, and `sampled:N` draws N bases per step.
fn check_size(
    matroid: &Matroid,
    directions: Directions,
    steps: Option<usize>,
) -> anyhow::Result<()> {
    let rank = matroid.rank_bound() as u128;
    // The default T = r² (the paper's Θ(r(M)²)).
    let steps_value = steps.map_or((rank * rank).max(1), |t| t as u128);
    let what = match steps {
        Some(t) => format!("--steps {}", thousands(t as u64)),
        None => format!(
            "the default number of steps, r² = {} for rank r = {rank}",
            thousands(u64::try_from(steps_value).unwrap_or(u64::MAX))
        ),
    };
    // `auto` becomes sequential (r calls per step) on matroids without exact base sampling.
    let calls_per_step = match directions {
        Directions::Sequential | Directions::Auto => rank.max(1),
        _ => 1,
    };
    // Growing vectors may hold up to twice their length; a base is a vector of r indices.
    let round = 2 * std::mem::size_of::<disguise::maximize::Round>() as u128;
    let base = 2 * (32 + 8 * rank);
    let per_step = calls_per_step * round + base;
    check_memory(
        &what,
        steps_value.saturating_mul(per_step),
        "give a smaller --steps (each step keeps a record of its selector calls and its base)",
    )?;
    if let Directions::Sampled { count } = directions {
        check_memory(
            &format!("--directions sampled:{}", thousands(count as u64)),
            (count as u128).saturating_mul(32 + 8 * rank + 16),
            "sample fewer bases per step (each is a list of r candidates held at once)",
        )?;
    }
    Ok(())
}

/// The continuous greedy, ready to run any number of trials: the matroid, the options and
/// the precomputed closed form (or the sampling estimator).
pub struct Prepared<'a> {
    inner: Option<Inner<'a>>,
}

struct Inner<'a> {
    matroid: Matroid,
    options: ContinuousGreedy,
    gradient: Gradient<'a>,
}

enum Gradient<'a> {
    Closed(FacilityMultilinear<'a>),
    Sampled(SampledGradient<'a, FacilityLocation>),
}

impl<'a> Prepared<'a> {
    /// Validates the options and precomputes, when `algorithm` is the continuous greedy
    /// (otherwise does nothing). The constraint is one matroid: `--constraint SPEC` or
    /// `--k K`, not both (an intersection is not a matroid).
    pub fn new(
        algorithm: AlgorithmArg,
        objective: &'a FacilityLocation,
        constraint: Option<&str>,
        k: Option<usize>,
        candidates: usize,
        args: &ContinuousArgs,
    ) -> anyhow::Result<Self> {
        if algorithm != AlgorithmArg::ContinuousGreedy {
            if args.steps.is_some() || args.gradient_samples.is_some() || args.directions != "auto"
            {
                bail!(
                    "--steps, --directions and --gradient-samples apply only to --algorithm \
                     continuous-greedy"
                );
            }
            return Ok(Self { inner: None });
        }
        if args.steps == Some(0) {
            bail!("invalid --steps: the continuous greedy needs at least 1 step");
        }
        let directions = Directions::from_name(&args.directions)?;
        let matroid = match (constraint, k) {
            (Some(_), Some(_)) => bail!(
                "--algorithm continuous-greedy needs one matroid: give --k or --constraint, \
                 not both (their intersection is not a matroid)"
            ),
            (Some(spec), None) => Matroid::from_spec(spec, candidates)?,
            (None, Some(k)) => Matroid::Cardinality(Cardinality::new(candidates, k)),
            (None, None) => bail!("--k or --constraint is required"),
        };
        check_size(&matroid, directions, args.steps)?;
        let gradient = match args.gradient_samples {
            Some(m) => Gradient::Sampled(SampledGradient::new(objective, m)?),
            None => Gradient::Closed(objective.multilinear()?),
        };
        let options = ContinuousGreedy {
            steps: args.steps,
            directions,
        };
        Ok(Self {
            inner: Some(Inner {
                matroid,
                options,
                gradient,
            }),
        })
    }

    /// One run.
    pub fn run(
        &self,
        procedure: &Procedure<'_>,
        rng: &mut SecureRng,
    ) -> disguise::Result<Solution> {
        let Some(inner) = &self.inner else {
            return Err(disguise::Error::param(
                "algorithm",
                "the continuous greedy was not prepared",
            ));
        };
        match &inner.gradient {
            Gradient::Closed(g) => {
                continuous_greedy(g, &inner.matroid, &inner.options, procedure, rng)
            }
            Gradient::Sampled(g) => {
                continuous_greedy(g, &inner.matroid, &inner.options, procedure, rng)
            }
        }
    }
}
