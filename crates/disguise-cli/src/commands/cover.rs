//! `disguise cover`: private maximum coverage — choose k public candidates so that as many
//! people as possible are covered by at least one of them (Mitrovic et al. 2017, §3). A
//! shell over [`disguise::task::MaxCoverage`]: read the sets or the edge list, run, print.

use super::common::names::named_among;
use super::common::privacy::{Labels, PrivacyArgs, print_closing, run_and_print};
use crate::output::{flag_of, flagged, guarantee, spinner, thousands};
use anyhow::bail;
use disguise::apps::{TransactionFormat, Transactions, read_item_list};
use disguise::data::read_edge_list;
use disguise::maximize::Solution;
use disguise::privacy::Guarantee;
use disguise::task::{Algorithm, MaxCoverage, PrivacyReport, Runnable, Usefulness};
use serde::Serialize;
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  # 5 products that reach the most customers: one customer's purchases per line
  disguise cover --sets baskets.dat --candidates products.txt --k 5 --epsilon 1

  # 10 seed users who reach the most people through a friendship: one edge per line
  disguise cover --edges friends.txt --candidates users.txt --k 10 --epsilon 1 --delta 1e-6

Privacy unit: one record is one person's set. With --sets that is one line (the candidates
that cover this person); with --edges it is one person's friend list, and a single friendship
sits in two friend lists, so protecting one friendship costs twice: the output gives that
edge-level guarantee too ((2ε, 2e^ε·δ), group privacy). Protecting everything about a
person of a graph (all their friendships) is not bounded: their degree is not.

Coverage counts are computed on the private records for evaluation: they are NOT covered by
the guarantee, which protects the chosen candidates only.";

/// The algorithms of this command.
const DISCRETE: &[Algorithm] = &[Algorithm::Greedy, Algorithm::Subsample];

/// Arguments of `disguise cover`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
#[command(mut_arg("algorithm", |a| a.value_parser(named_among(DISCRETE))))]
pub struct Args {
    /// One person per line: the candidates (names separated by spaces) that cover that
    /// person, as in FIMI transaction files; a blank line is a person nobody covers.
    /// Example: `--sets baskets.dat`.
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
}

/// The fields of `cover`'s JSON report before the picks ([`print_closing`]).
#[derive(Serialize)]
struct Head {
    objective: &'static str,
    algorithm: &'static str,
    mechanism: &'static str,
    input: &'static str,
    records: usize,
    candidates: usize,
    k: usize,
    /// Set members (--sets) or edges (--edges) left out for naming no candidate.
    dropped: u64,
    privacy_unit: &'static str,
    /// With --edges: the guarantee for one friendship (two records).
    #[serde(skip_serializing_if = "Option::is_none")]
    edge_guarantee: Option<Guarantee>,
    /// The greedy's a-priori utility bound (exponential mechanism).
    #[serde(skip_serializing_if = "Option::is_none")]
    usefulness: Option<Usefulness>,
}

/// What was read: one record per person, the candidates' names, and what was left out.
struct Input {
    covers: Vec<Vec<usize>>,
    names: Vec<String>,
    dropped: u64,
    kind: &'static str,
}

const SETS_UNIT: &str = "one person's set (one line of --sets), replace-one";
const EDGES_UNIT: &str = "one person's friend list (replace-one); one friendship changes two \
                          lists: see edge_guarantee";

fn read(args: &Args) -> anyhow::Result<Input> {
    let candidates = read_item_list(&args.candidates)?;
    let quiet = args.privacy.quiet;
    if let Some(path) = &args.sets {
        let bar = spinner(&format!("reading {}", path.display()), quiet);
        let sets = Transactions::read(path, &TransactionFormat::Fimi, Some(&candidates));
        bar.finish_and_clear();
        let sets = sets?;
        let covers = sets
            .rows()
            .map(|row| row.iter().map(|&i| i as usize).collect())
            .collect();
        return Ok(Input {
            covers,
            names: sets.items().to_vec(),
            dropped: sets.dropped_items(),
            kind: "sets",
        });
    }
    let Some(path) = &args.edges else {
        bail!("give --sets FILE or --edges FILE");
    };
    let bar = spinner(&format!("reading {}", path.display()), quiet);
    let graph = read_edge_list(path, &candidates);
    bar.finish_and_clear();
    let graph = graph?;
    Ok(Input {
        covers: graph.lists,
        names: candidates,
        dropped: graph.dropped + graph.self_loops,
        kind: "edges",
    })
}

/// Runs `disguise cover`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let request = MaxCoverage {
        k: args.k,
        algorithm: args.privacy.algorithm_or(Algorithm::Greedy),
        privacy: args.privacy.privacy(),
    };
    // Everything that needs no data is validated first, in the library.
    args.privacy.check_trials()?;
    request.validate().map_err(|e| flagged(e, &flag_of))?;
    let input = read(&args)?;
    let m = input.names.len();
    let objective = request
        .objective(m, &input.covers)
        .map_err(|e| flagged(e, &flag_of))?;
    let n = input.covers.len();
    drop(input.covers);
    let prepared = request
        .prepare(&objective)
        .map_err(|e| flagged(e, &flag_of))?;
    let names = &input.names;
    let utility = |v: f64| prepared.utility(v);
    let labels = Labels::new(names, &utility);
    let edges = input.kind == "edges";
    let unit = if edges { EDGES_UNIT } else { SETS_UNIT };
    let edge_guarantee =
        |privacy: &PrivacyReport| privacy.guarantee.filter(|_| edges).map(|g| g.group(2));
    let preamble = |first: &Solution| {
        let what = if edges {
            "people (friend lists)"
        } else {
            "people (sets)"
        };
        println!(
            "maximum coverage: {} {what}, {} candidates; {} left out (not in --candidates)",
            thousands(n as u64),
            thousands(m as u64),
            thousands(input.dropped)
        );
        println!(
            "algorithm {}, mechanism {}, k = {}",
            first.algorithm, args.privacy.mechanism, args.k
        );
        println!("privacy unit: {unit}");
        if let Some(g) = edge_guarantee(&PrivacyReport::of(first)) {
            println!(
                "one friendship (two friend lists): ({}, {})-DP by group privacy",
                guarantee(g.epsilon),
                guarantee(g.delta)
            );
        }
    };
    let run = |child: &mut disguise::SecureRng| prepared.run(child);
    let judge = |s: &Solution| prepared.usefulness(s);
    let outcome = run_and_print(&args.privacy, args.k, &labels, &preamble, &judge, run)?;
    let head = |first: &Solution| Head {
        objective: "coverage",
        algorithm: first.algorithm,
        mechanism: disguise::names::Named::name(args.privacy.mechanism),
        input: input.kind,
        records: n,
        candidates: m,
        k: args.k,
        dropped: input.dropped,
        privacy_unit: unit,
        edge_guarantee: edge_guarantee(&PrivacyReport::of(first)),
        usefulness: prepared.usefulness(first),
    };
    let note = "utility = share of people covered; coverage is computed on the private \
                records (evaluation only, not part of the release)";
    print_closing(&args.privacy, outcome.as_ref(), &head, &labels, note)
}
