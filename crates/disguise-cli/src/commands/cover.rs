//! `disguise cover`: private maximum coverage — choose k public candidates so that as many
//! people as possible are covered by at least one of them (Mitrovic et al. 2017, §3). A
//! shell over [`disguise::task::MaxCoverage`]: read the sets or the edge list, run, print.

use super::common::cluster::ClusterArgs;
use super::common::ledger::Charge;
use super::common::names::named_among;
use super::common::privacy::{PrivacyArgs, Shown, run_and_print};
use crate::output::{flag_of, flagged, spinner};
use anyhow::bail;
use disguise::apps::read_item_list;
use disguise::cluster::Place;
use disguise::disclosure::Diagnostic;
use disguise::ledger::Reserved;
use disguise::maximize::Solution;
use disguise::task::{
    Algorithm, ClusterTrials, CoverageInput, CoverageReport, MaxCoverage, Reporting, Runnable,
    TrialOptions,
};
use disguise::text::Labels;
use std::path::{Path, PathBuf};

const EXAMPLES: &str = "\
Examples:
  # 5 products that reach the most customers: one customer's purchases per line
  disguise cover --sets baskets.dat --candidates products.txt --k 5 --epsilon 1

  # 10 seed users who reach the most people through a friendship: one edge per line
  disguise cover --edges friends.txt --candidates users.txt --k 10 --epsilon 1 --delta 1e-6

Privacy unit: one record is one person's set. With --sets that is one line (the candidates
that cover this person); with --edges it is one person's friend list, and the guarantee
protects one edge: one line of the edge list replaced by another, which changes up to four
friend lists, so the output states group privacy of size 4 ((4ε, 4e^{3ε}·δ)) and a ledger
records it at the edge unit. Protecting everything about a person of a graph (all their
friendships) is not bounded: their degree is not.

Coverage counts are computed on the private records for evaluation: they are NOT covered by
the guarantee, which protects the chosen candidates only.";

/// Arguments of `disguise cover`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
#[command(mut_arg("algorithm", |a| a.value_parser(named_among(Algorithm::DISCRETE))))]
pub struct Args {
    /// One person per line: the candidates (names separated by spaces) that cover that
    /// person, as in FIMI transaction files; a blank line is a person nobody covers. A
    /// folder or glob of such files is read as their concatenation. Example: `--sets
    /// baskets.dat`.
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "edges",
        conflicts_with = "edges"
    )]
    sets: Option<PathBuf>,
    /// An undirected friendship graph, one edge per line (two names separated by white space
    /// or a comma; `#` starts a comment line). Each person's record is their friend list:
    /// choosing a person covers their friends. Example: `--edges friends.txt`.
    #[arg(long, value_name = "FILE")]
    edges: Option<PathBuf>,
    /// The PUBLIC list of candidates (names separated by spaces or newlines), fixed without
    /// looking at the data; with --edges, the people. Names not in it are dropped and
    /// counted. Example: `--candidates users.txt`.
    #[arg(long, value_name = "FILE")]
    candidates: PathBuf,
    /// Number of candidates to choose, 1 ≤ k ≤ number of candidates. Example: `--k 5`.
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    k: usize,
    #[command(flatten)]
    privacy: PrivacyArgs,
    #[command(flatten)]
    cluster: ClusterArgs,
}

/// `place`'s records of `path`: its sets (--sets) or friend lists (--edges), and what was
/// left out (not in --candidates, and self-loops).
fn read_share(
    input: CoverageInput,
    path: &Path,
    candidates: &[String],
    place: Place,
) -> disguise::Result<(Vec<Vec<usize>>, u64)> {
    match input {
        CoverageInput::Sets => disguise::cluster::read_sets_share(path, candidates, place),
        CoverageInput::Edges => disguise::cluster::read_friend_lists_share(path, candidates, place),
    }
}

/// `disguise cover` with `--workers` or `--hosts`: every process reads the public candidates
/// and its workers' people; process 0 runs the selection and prints what a one-process run
/// prints, the others print nothing.
fn run_distributed(
    args: &Args,
    request: MaxCoverage,
    cluster: disguise::cluster::Cluster,
    charge: Option<&Charge>,
) -> anyhow::Result<()> {
    args.privacy.check(TrialOptions::one_trial)?;
    let candidates = std::sync::Arc::new(read_item_list(&args.candidates)?);
    let m = candidates.len();
    // Process 0 charges before any process reads a person or any choice crosses the network.
    let reserved = args.privacy.reserve(charge, || request.plan(m))?;
    // What the workers left out, added up by all and kept by process 0's first worker.
    let dropped = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let kept = std::sync::Arc::clone(&dropped);
    let (input, path) = (args.input(), args.sets.clone().or(args.edges.clone()));
    let load = move |comm: &mut disguise::cluster::Comm<'_>| {
        let place = comm.place();
        // Every worker of --edges reads every edge; what was left out is counted once.
        let read = match &path {
            Some(path) => read_share(input, path, &candidates, place),
            None => Err(disguise::Error::param("sets", "give --sets or --edges")),
        };
        let total = comm.all_sum(read.as_ref().map(|r| vec![r.1]).map_err(Clone::clone))?;
        if place.worker == 0 {
            kept.store(total[0], std::sync::atomic::Ordering::Relaxed);
        }
        read.map(|r| r.0)
    };
    let trials = ClusterTrials::new();
    let trial =
        |rng: &mut disguise::SecureRng| request.distributed_trial(&cluster, load.clone(), m, rng);
    if trials.serve(&cluster, trial)? {
        return Ok(());
    }
    let names = read_item_list(&args.candidates)?;
    let records = || {
        trials
            .report()
            .map_or(0, |r: &CoverageReport| *r.task.records)
    };
    let utility = |v: f64| v / records().max(1) as f64;
    let run = |child: &mut disguise::SecureRng| trials.keep(trial(child)?);
    let reported = |_: &Solution| {
        let mut r: CoverageReport = trials.report().expect("reported").clone();
        r.task.dropped = Diagnostic::new(Some(dropped.load(std::sync::atomic::Ordering::Relaxed)));
        r
    };
    print(args, reserved.as_ref(), &names, &utility, &reported, run)
}

/// Runs the trials and prints them, as a table or JSON: `report` is the task's report of a
/// run, `utility` the task's utility of a value.
fn print(
    args: &Args,
    reserved: Option<&Reserved>,
    names: &[String],
    utility: &dyn Fn(f64) -> f64,
    report: &dyn Fn(&Solution) -> CoverageReport,
    run: impl Fn(&mut disguise::SecureRng) -> disguise::Result<Solution> + Sync,
) -> anyhow::Result<()> {
    let note = "value = people covered, utility = their share";
    let preamble = |r: &CoverageReport| disguise::text::coverage_preamble(&r.task);
    let shown = Shown::new(Labels::new(names, utility, note), &preamble, report);
    run_and_print(&args.privacy, reserved, args.k, &shown, run)
}

impl Args {
    /// What the records are: sets, or friend lists given as edges.
    fn input(&self) -> CoverageInput {
        if self.edges.is_some() {
            CoverageInput::Edges
        } else {
            CoverageInput::Sets
        }
    }
}

/// Runs `disguise cover`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let request = MaxCoverage {
        k: args.k,
        algorithm: args.privacy.algorithm,
        privacy: args.privacy.privacy(),
        input: args.input(),
    };
    // Everything that needs no data is validated first, in the library.
    args.privacy.check_trials()?;
    request.validate().map_err(|e| flagged(e, &flag_of))?;
    let private = args.sets.as_ref().or(args.edges.as_ref());
    let inputs: Vec<&std::path::Path> = private.iter().map(|p| p.as_path()).collect();
    // A release on --edges protects one edge: the task's plan states it (group privacy of
    // four friend lists) and its unit, which the ledger records, as for `cut`.
    let charge = (args.privacy.ledger).open_on(&args.cluster)?;
    let charge = charge.as_ref();
    let flag = if args.sets.is_some() {
        "--sets"
    } else {
        "--edges"
    };
    let listed: Vec<(&str, &std::path::Path)> = inputs.iter().map(|p| (flag, *p)).collect();
    if let Some(cluster) = args.cluster.cluster(&listed)? {
        return run_distributed(&args, request, cluster, charge);
    }
    // Charged before a person is read, from the public candidates and options.
    let names = read_item_list(&args.candidates)?;
    let Some(path) = private else {
        bail!("give --sets FILE or --edges FILE");
    };
    disguise::files::check_input(path)?;
    let reserved = args.privacy.reserve(charge, || request.plan(names.len()))?;
    let bar = spinner(&format!("reading {}", path.display()), args.privacy.quiet);
    let read = read_share(args.input(), path, &names, Place::SOLE);
    bar.finish_and_clear();
    let (covers, dropped) = read?;
    let objective = request
        .objective(names.len(), &covers)
        .map_err(|e| flagged(e, &flag_of))?;
    drop(covers);
    let prepared = request
        .prepare(&objective)
        .map_err(|e| flagged(e, &flag_of))?;
    let utility = |v: f64| prepared.utility(v);
    let report = |s: &Solution| {
        let mut r = prepared.report(s);
        r.task.dropped = Diagnostic::new(Some(dropped));
        r
    };
    let run = |child: &mut disguise::SecureRng| prepared.run(child);
    print(&args, reserved.as_ref(), &names, &utility, &report, run)
}
