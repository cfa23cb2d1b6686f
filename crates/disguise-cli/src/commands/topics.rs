//! `disguise topics`: private k-topic influence maximization — choose seeds and a topic for
//! each so that as many people as possible are reached (Rafiey & Yoshida 2020, Example 1.2:
//! a monotone k-submodular objective, by their private k-submodular greedy). A shell over
//! [`disguise::task::Assign`] with [`TopicCoverage`](disguise::objective::TopicCoverage).

use super::common::KTypeArgs;
use super::common::names::named_among;
use super::common::privacy::{PrivacyArgs, Shown, run_and_print};
use crate::output::{flag_of, flagged, spinner};
use disguise::apps::read_item_list;
use disguise::disclosure::Diagnostic;
use disguise::maximize::Assignment;
use disguise::objective::KSubmodularFunction;
use disguise::task::{
    Algorithm, AssignReport, PreparedAssign, Reach, Reporting, Runnable, read_reach,
};
use disguise::text::Labels;
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  # 10 accounts to seed, each with the news or the sport campaign: one person per line,
  # the (account:campaign) pairs whose message reaches them
  disguise topics --reach reach.txt --candidates accounts.txt --types news,sport --k 10 \\
      --epsilon 1 --delta 1e-6

A line of --reach is one person's record: the pairs `seed:topic` (separated by spaces) that
reach that person, e.g. `ann:news bob:sport` (a sampled live-edge graph of a k-topic cascade
gives them). The name after the last `:` is the topic. Pairs naming a seed not in
--candidates or a topic not in --types are dropped and counted.

Objective: the number of people reached by some chosen (seed, topic) pair; a seed carries one
topic; a person counts once however many pairs reach them (once per topic with --per-topic). Monotone k-submodular with
sensitivity 1 (one person's line changes any gain by at most 1), so each round is one
selection at λ = 1. The numbers reached are computed on the private records for evaluation:
they are NOT covered by the guarantee, which protects the chosen pairs only.";

/// Arguments of `disguise topics`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
#[command(mut_arg("algorithm", |a| a.value_parser(named_among(Algorithm::DISCRETE))))]
pub struct Args {
    /// One person per line: the `seed:topic` pairs that reach them, separated by spaces; a
    /// blank line is a person nobody reaches. Example: `--reach reach.txt`.
    #[arg(long, value_name = "FILE")]
    reach: PathBuf,
    /// The PUBLIC list of seeds (names separated by spaces or newlines), fixed without
    /// looking at the data. Example: `--candidates accounts.txt`.
    #[arg(long, value_name = "FILE")]
    candidates: PathBuf,
    #[command(flatten)]
    kinds: KTypeArgs,
    /// Count a person once per topic that reaches them, not once in all: ad-slot
    /// allocation (Rafiey & Yoshida 2020, Example 5.1: seeds are slots, topics agencies).
    #[arg(long)]
    per_topic: bool,
    #[command(flatten)]
    privacy: PrivacyArgs,
}

/// Runs `disguise topics`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let request = args.kinds.request(&args.privacy);
    // Everything that needs no data is validated first, in the library.
    args.privacy.check_trials()?;
    args.privacy.check(|o| o.refuse_estimate("topics"))?;
    request.validate().map_err(|e| flagged(e, &flag_of))?;
    let charge = args.privacy.ledger.open()?;
    let quiet = args.privacy.quiet;
    let names = read_item_list(&args.candidates)?;
    disguise::files::check_input(&args.reach)?;
    // Charged before a reach list is read, from the public candidates and options.
    let reserved = args
        .privacy
        .reserve(charge.as_ref(), || request.plan(names.len()))?;
    let bar = spinner(&format!("reading {}", args.reach.display()), quiet);
    let read = read_reach(&args.reach, &names, &args.kinds.types);
    bar.finish_and_clear();
    let Reach {
        lists: reach,
        dropped,
    } = read?;
    let m = names.len();
    let people = reach.len();
    if args.per_topic {
        let objective = request
            .per_type_objective(m, &reach)
            .map_err(|e| flagged(e, &flag_of))?;
        drop(reach);
        let prepared = request
            .prepare_reach(&objective, people, true)
            .map_err(|e| flagged(e, &flag_of))?;
        return report(&args, reserved.as_ref(), &prepared, &names, dropped);
    }
    let objective = request
        .reach_objective(m, &reach)
        .map_err(|e| flagged(e, &flag_of))?;
    drop(reach);
    let prepared = request
        .prepare_reach(&objective, people, false)
        .map_err(|e| flagged(e, &flag_of))?;
    report(&args, reserved.as_ref(), &prepared, &names, dropped)
}

/// Runs the trials of a prepared request and prints them.
fn report<F: KSubmodularFunction>(
    args: &Args,
    reserved: Option<&disguise::ledger::Reserved>,
    prepared: &PreparedAssign<'_, F>,
    names: &[String],
    dropped: u64,
) -> anyhow::Result<()> {
    let utility = |v: f64| prepared.utility(v);
    let note = "utility = share of people reached (of people × topics with --per-topic)";
    let labels = Labels::new(names, &utility, note).typed(&args.kinds.types);
    let preamble = |r: &AssignReport| disguise::text::topics_preamble(&r.task);
    let run = |child: &mut disguise::SecureRng| prepared.run(child);
    let report = |a: &Assignment| {
        let mut r = prepared.report(a);
        r.task.dropped = Diagnostic::new(Some(dropped));
        r
    };
    let shown = Shown::new(labels, &preamble, &report);
    run_and_print(&args.privacy, reserved, prepared.max_picks(), &shown, run)
}
