//! `disguise cut`: private maximum cut — choose at most k vertices of a graph whose edges are
//! private so that as many edges as possible run between them and the rest (the non-monotone
//! objective of Mitrovic et al. 2017, §4). A shell over [`disguise::task::MaxCut`]: read the
//! edge list, run, print.

use super::common::names::named_among;
use super::common::privacy::{PrivacyArgs, Shown, run_and_print};
use crate::output::{flag_of, flagged, spinner};
use disguise::apps::read_item_list;
use disguise::data::read_edge_list;
use disguise::disclosure::Diagnostic;
use disguise::maximize::Solution;
use disguise::task::{Algorithm, CutReport, MaxCut, Reporting, Runnable};
use disguise::text::Labels;
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  # 20 accounts that split a who-messaged-whom graph most: one edge per line
  disguise cut --edges messages.txt --vertices accounts.txt --k 20 --epsilon 1

Privacy unit: one edge (one line of --edges), replaced by another line (the number of lines is
public): a replaced edge moves the size of any cut by at most 1, and every round scores gains at
one set (cut sizes shifted by a common amount), so each selection is calibrated to λ = 1.
Protecting everything about one vertex (all its edges) is not bounded: its degree is not.

The default algorithm is the subsample-greedy, the paper's private algorithm with a guarantee
for a non-monotone objective ((1/e)(1 − 1/e)·OPT minus its privacy term, Theorem 4.1); it may
choose fewer than k vertices. The output is the chosen vertices and the guarantee; cut sizes
computed on the private edges are diagnostics (--diagnostics), NOT covered by the guarantee.";

/// Arguments of `disguise cut`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
#[command(mut_arg("algorithm", |a| a.value_parser(named_among(Algorithm::DISCRETE))))]
pub struct Args {
    /// An undirected graph, one edge per line (two vertex names separated by white space or
    /// a comma; `#` starts a comment line); repeated edges count once, self-loops never cross
    /// a cut. Example: `--edges messages.txt`.
    #[arg(long, value_name = "FILE")]
    edges: PathBuf,
    /// The PUBLIC list of vertices (names separated by spaces or newlines), fixed without
    /// looking at the data. Edges to names not in it are dropped and counted. Example:
    /// `--vertices accounts.txt`.
    #[arg(long, value_name = "FILE")]
    vertices: PathBuf,
    /// The most vertices to choose, 1 ≤ k ≤ number of vertices. Example: `--k 20`.
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    k: usize,
    #[command(flatten)]
    privacy: PrivacyArgs,
}

/// Runs `disguise cut`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let request = MaxCut {
        k: args.k,
        algorithm: args.privacy.algorithm,
        privacy: args.privacy.privacy(),
    };
    // Everything that needs no data is validated first, in the library.
    args.privacy.check_trials()?;
    request.validate().map_err(|e| flagged(e, &flag_of))?;
    let charge = args.privacy.ledger.open()?;
    let names = read_item_list(&args.vertices)?;
    // The edges are checked readable before anything is charged.
    disguise::files::check_input(&args.edges)?;
    // Charged before an edge is read, from the public vertices and options.
    let reserved = args
        .privacy
        .reserve(charge.as_ref(), || request.plan(names.len()))?;
    let bar = spinner(
        &format!("reading {}", args.edges.display()),
        args.privacy.quiet,
    );
    let graph = read_edge_list(&args.edges, &names);
    bar.finish_and_clear();
    let graph = graph?;
    let edges = graph.edge_pairs();
    let dropped = graph.dropped + graph.self_loops;
    // The lines read are the records (public); the edges left after merging are not.
    let records = usize::try_from(graph.edges).unwrap_or(usize::MAX);
    drop(graph);
    let objective = request
        .objective(names.len(), &edges)
        .map_err(|e| flagged(e, &flag_of))?;
    let n_edges = edges.len();
    drop(edges);
    let prepared = request
        .prepare(&objective, records, n_edges)
        .map_err(|e| flagged(e, &flag_of))?;
    let utility = |v: f64| prepared.utility(v);
    let note = "value = edges cut, utility = their share of the edge list's lines";
    let preamble = |r: &CutReport| disguise::text::cut_preamble(&r.task);
    let run = |child: &mut disguise::SecureRng| prepared.run(child);
    let report = |s: &Solution| {
        let mut r = prepared.report(s);
        r.task.dropped = Diagnostic::new(Some(dropped));
        r
    };
    let shown = Shown::new(Labels::new(&names, &utility, note), &preamble, &report);
    run_and_print(&args.privacy, reserved.as_ref(), args.k, &shown, run)
}
