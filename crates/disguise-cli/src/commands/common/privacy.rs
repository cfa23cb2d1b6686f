//! What the greedy commands (`select`, `features`, `assign`) share: the privacy options,
//! the trials runner that prints as trials finish, and the privacy lines of the report.

use super::names::{named, named_among};
use crate::output::{
    CsvOut, RowFormat, flag_of, flagged, print_json, progress_bar, rng_from_seed, spinner,
};
use anyhow::bail;
use disguise::SecureRng;
use disguise::disclosure::Diagnostic;
use disguise::numeric::stats::MeanStd;
use disguise::select::SelectorKind;
use disguise::task::{
    Algorithm, CompositionChoice, Picked, Privacy, Report, TrialOptions, Trials, trials,
};
use disguise::text::{self, Labels};

/// The privacy options shared by `select` and `features`.
#[derive(clap::Args, Debug, Clone)]
pub struct PrivacyArgs {
    /// Total privacy budget ε of the whole run (finite, > 0); required unless
    /// `--mechanism max`. Example: `--epsilon 1`.
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    pub epsilon: Option<f64>,
    /// Total δ ∈ [0, 1) of the whole run. δ > 0 enables the advanced, zCDP and decomposable
    /// rules and is required by lmm and lmm-chaudhuri. Example: `--delta 1e-6`.
    #[arg(
        long,
        value_name = "D",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    pub delta: f64,
    /// The selection mechanism of every round.
    #[arg(long, value_name = "NAME", value_parser = named_among(Privacy::MECHANISMS), default_value_t)]
    pub mechanism: SelectorKind,
    /// The greedy algorithm. `auto`: the one with a guarantee for this objective — greedy,
    /// or subsample for a non-monotone one (`cut`, `select --cost` without a constraint).
    #[arg(long, value_name = "NAME", value_parser = named::<Algorithm>(), default_value_t)]
    pub algorithm: Algorithm,
    /// How the total (ε, δ) is split over the rounds. `auto` takes the valid rule giving
    /// each round the most budget; naming a rule forces it (an error if it does not apply,
    /// e.g. decomposable or kov with lmm).
    #[arg(long, value_name = "RULE", value_parser = named::<CompositionChoice>(), default_value_t)]
    pub composition: CompositionChoice,
    /// Run N independent trials (in parallel, each with its own generator) and report the
    /// mean and standard deviation of the final utility. Each trial is one private run; the
    /// N results together compose to N times the budget. Example: `--trials 100`.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub trials: Option<u64>,
    /// Seed for a reproducible run (the same output for any number of threads). INSECURE:
    /// the noise is then predictable and protects no one (tests and experiments only).
    /// Example: `--seed 42`.
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Also release a private estimate of the choice's utility (the share of people
    /// covered, of edges cut, the facility-location utility) with its 95 % interval,
    /// spending this extra ε with the Laplace mechanism. The guarantee adds it by basic
    /// composition, and a ledger records it. select, cover and cut only; one trial. Example:
    /// `--estimate-utility 0.1`.
    #[arg(long, value_name = "EPS", allow_negative_numbers = true)]
    pub estimate_utility: Option<f64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: RowFormat,
    /// No progress output on stderr (it is never drawn when stderr is not a terminal).
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub diagnostics: super::DiagnosticsArg,
    #[command(flatten)]
    pub ledger: super::ledger::LedgerArgs,
}

impl PrivacyArgs {
    /// Checks `--trials` and `--estimate-utility` (the budget and mechanism are checked by
    /// the task's request).
    pub fn check_trials(&self) -> anyhow::Result<()> {
        self.check(TrialOptions::validate)?;
        self.diagnostics
            .allow_non_private(self.mechanism.is_private(), "--mechanism max")?;
        self.estimate()?;
        Ok(())
    }

    /// The library's trial options: `--trials`, `--estimate-utility`, the mechanism and
    /// whether the output is CSV rows ([`TrialOptions`]).
    pub fn trial_options(&self) -> TrialOptions {
        TrialOptions {
            trials: self.trials,
            estimate_utility: self.estimate_utility,
            mechanism: self.mechanism,
            rows: self.format == RowFormat::Csv,
        }
    }

    /// Runs one of the library's checks of [`TrialOptions`], its error named by its flag.
    pub fn check(
        &self,
        f: impl FnOnce(&TrialOptions) -> disguise::Result<()>,
    ) -> anyhow::Result<()> {
        f(&self.trial_options()).map_err(|e| flagged(e, &flag_of))
    }

    /// The ε of `--estimate-utility`, checked ([`TrialOptions::estimate`]).
    pub fn estimate(&self) -> anyhow::Result<Option<disguise::privacy::Epsilon>> {
        (self.trial_options().estimate()).map_err(|e| flagged(e, &flag_of))
    }

    /// Reserves in the ledger (if any) what the request plans to spend for all the trials,
    /// before the data is read ([`super::ledger::Charge::reserve`]); `plan` is the task's
    /// plan from public parameters.
    pub fn reserve(
        &self,
        charge: Option<&super::ledger::Charge>,
        plan: impl FnOnce() -> disguise::Result<disguise::task::PrivacyReport>,
    ) -> anyhow::Result<Option<disguise::ledger::Reserved>> {
        let Some(charge) = charge else {
            return Ok(None);
        };
        super::ledger::refuse_non_private(true, self.mechanism != SelectorKind::Argmax)?;
        let mut plan = plan().map_err(|e| flagged(e, &flag_of))?;
        if let Some(e) = self.estimate()? {
            // The estimate spends at most the ε typed (`estimate_noise`).
            plan = plan
                .with_estimate(e.get())
                .map_err(|e| flagged(e, &flag_of))?;
        }
        let reserved = charge.reserve(
            &plan,
            disguise::names::Named::name(self.mechanism),
            self.trials.unwrap_or(1),
            self.seed.is_none(),
        )?;
        Ok(Some(reserved))
    }

    /// The library's privacy options.
    pub fn privacy(&self) -> Privacy {
        Privacy {
            epsilon: self.epsilon,
            delta: self.delta,
            mechanism: self.mechanism,
            composition: self.composition,
        }
    }
}

/// What a picks command hands [`run_and_print`]: how its picks are named and valued
/// ([`Labels`]), its table's opening lines from the first trial's report (the budget line
/// and a blank line follow them) and the task's report of one run.
pub struct Shown<'a, T, P> {
    labels: Labels<'a>,
    preamble: &'a dyn Fn(&Report<P>) -> String,
    report: &'a dyn Fn(&T) -> Report<P>,
}

impl<'a, T, P> Shown<'a, T, P> {
    /// The labels, opening lines and report of a picks command.
    pub fn new(
        labels: Labels<'a>,
        preamble: &'a dyn Fn(&Report<P>) -> String,
        report: &'a dyn Fn(&T) -> Report<P>,
    ) -> Self {
        Self {
            labels,
            preamble,
            report,
        }
    }
}

/// Runs the trials (one without `--trials`) in parallel and prints them as they finish:
/// table rows and CSV rows are written per trial and nothing per trial is kept, so any
/// `--trials` runs in constant memory; for JSON every trial's picks are kept compactly, after
/// checking that they fit ([`Trials::bytes`]). The generator is the OS's, or the seeded one
/// of `--seed`, keyed after those checks. `shown` says how a run is reported and printed;
/// `picks` bounds the picks of one trial. A vacuous a-priori bound is warned of on stderr
/// before any result. With a budget ledger the trials' cost was reserved by the caller
/// before the data was read (`reserved`); the first trial's guarantee is checked against it
/// before anything is printed. Then the task's report as JSON, or the table's closing lines
/// ([`text::picks_closing`]): a picks command's whole output. What is printed is the
/// release; the picks' exact values only with `--diagnostics`, in a section of their own.
pub fn run_and_print<T, P, F>(
    args: &PrivacyArgs,
    reserved: Option<&disguise::ledger::Reserved>,
    picks: usize,
    shown: &Shown<'_, T, P>,
    run: F,
) -> anyhow::Result<()>
where
    T: Picked,
    P: disguise::task::Params,
    F: Fn(&mut SecureRng) -> disguise::Result<T> + Sync,
{
    super::ledger::refuse_non_private(reserved.is_some(), args.mechanism != SelectorKind::Argmax)?;
    let (labels, diagnostics) = (&shown.labels, args.diagnostics.on());
    let count = args.trials.unwrap_or(1);
    let per_trial = args.trials.is_some();
    let bar = if per_trial {
        progress_bar(count, "trials", args.quiet)
    } else {
        spinner("selecting", args.quiet)
    };
    let typed = labels.types.is_some();
    let mut kept = match (args.format, args.trials) {
        (RowFormat::Json, Some(count)) => {
            // The diagnostics are kept beside the picks (and once more as JSON values).
            let bytes = Trials::bytes(count, picks, typed) * if diagnostics { 4 } else { 1 };
            disguise::memory::check(
                &format!(
                    "--trials {count} with --format json (every trial's picks are kept to print \
                     one document)"
                ),
                bytes,
                "use --format csv, which prints one row per pick as the trials run, or fewer \
                 trials",
            )?;
            Some(Trials::with_capacity(count, typed)?)
        }
        _ => None,
    };
    // Keyed only now, after every check: the warning of a seeded run is the last thing
    // printed before the results, never before an error.
    let mut rng = rng_from_seed(args.seed)?;
    let estimate = args.estimate()?;
    // The estimate's own generator, forked only when one is asked for (a seeded run without
    // it draws as before).
    let mut estimate_rng = estimate.map(|_| rng.fork());
    let mut first: Option<Report<P>> = None;
    // The exact final utilities, summarised: shown only as a diagnostic.
    let mut finals = MeanStd::default();
    let mut csv: Option<CsvOut> = None;
    trials::<T, F, _, anyhow::Error>(count, &mut rng, &|| bar.inc(1), run, |t, trial: T| {
        finals.push((labels.utility)(trial.solution().value));
        if t == 0 {
            let mut r = (shown.report)(&trial);
            if let (Some(e), Some(erng)) = (estimate, estimate_rng.as_mut()) {
                r = r.with_utility_estimate(e, erng)?;
            }
            // Reserved before the data was read, for all the trials: a run beyond what was
            // reserved (its guarantee, calls, unit) releases nothing.
            if let Some(reserved) = reserved {
                reserved.check(&r.privacy)?;
            }
            // Said before any result, in every format (it depends on public quantities only).
            if let Some(u) = &r.usefulness {
                bar.suspend(|| super::warn_if_vacuous(u));
            }
            if args.format == RowFormat::Table {
                let (e, d) = (args.epsilon, args.delta);
                let opening = text::picks_opening(&r, e, d, per_trial, typed, &flag_of);
                bar.suspend(|| print!("{}{opening}", (shown.preamble)(&r)));
            }
            if args.format == RowFormat::Csv {
                let header = text::picks_csv_header(typed, diagnostics);
                csv = Some(bar.suspend(|| CsvOut::new(&header))?);
            }
            first = Some(r);
        }
        match args.format {
            RowFormat::Json => {
                if let Some(kept) = kept.as_mut() {
                    kept.push(&trial, labels.utility)?;
                }
            }
            RowFormat::Csv => {
                let privacy = &first.as_ref().expect("trial 0 came first").privacy;
                let out = csv.as_mut().expect("the CSV starts at trial 0");
                for row in text::trial_csv_rows(t, &trial, labels, privacy, diagnostics) {
                    bar.suspend(|| out.row(&row))?;
                }
            }
            RowFormat::Table if per_trial => {
                bar.suspend(|| println!("{}", text::trial_line(t, &trial, labels)));
            }
            RowFormat::Table => {}
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    let Some(first) = first else {
        bail!("no trial was run");
    };
    match args.format {
        RowFormat::Json => match kept {
            Some(trials) => print_json(&first.with_trials(trials.named(labels.names)), diagnostics),
            None => print_json(&first.named(labels.names), diagnostics),
        },
        // Written row by row while the trials ran.
        RowFormat::Csv => csv.expect("the CSV starts at trial 0").finish(),
        RowFormat::Table => {
            let trials = args.trials.map(|n| (n, Diagnostic::new(finals)));
            let closing = text::picks_closing(&first, labels, trials, diagnostics, &flag_of);
            print!("{closing}");
            Ok(())
        }
    }
}
