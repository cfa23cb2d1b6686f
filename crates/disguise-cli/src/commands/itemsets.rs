//! `disguise itemsets`: private frequent itemset mining (Chaudhuri, Hsu & Song 2014, §4.1) —
//! the most frequent itemsets of size r, with the large margin mechanism over the itemsets
//! that occur, or the exponential mechanism over the full universe of a public item list.

use super::common::names::named_among;
use super::common::{DeltaArg, RunArgs, warn_if_vacuous};
use crate::output::{NothingReleased, flag_of, flagged, print_report, rng_from_seed, spinner};
use disguise::apps::{
    DEFAULT_MAX_CANDIDATES, DEFAULT_MAX_LENGTH, DEFAULT_MAX_MARGIN, TransactionFormat,
    Transactions, read_item_list,
};
use disguise::names::Named;
use disguise::select::SelectorKind;
use disguise::task::Itemsets;
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  # the most frequent pair of chess.dat (FIMI format), large margin mechanism
  disguise itemsets --transactions chess.dat --size 2 --epsilon 1 --delta 1e-6

  # the top 5 triples, and the exponential mechanism over all C(75, 3) triples of a public list
  disguise itemsets --transactions chess.dat --size 3 --top 5 --epsilon 1 --delta 1e-6 \\
      --items chess_items.txt --mechanism em

  # a CSV with one (order, product) pair per row, transactions cut to 20 items, JSON output
  disguise itemsets --transactions orders.csv --id-column order --item-column product \\
      --size 2 --epsilon 0.5 --delta 1e-6 --max-length 20 --format json

Neighbouring datasets differ in one transaction replaced by another; the number of
transactions n is public. Every itemset's frequency then changes by at most 1/n.

Transactions longer than --max-length B keep their B smallest items (integers by value first,
then other names by their bytes): a rule that looks at that transaction only.

Counting enumerates every r-subset of every (cut) transaction: sum over t of C(min(|t|, B), r)
subsets. That number is computed first, from the transaction lengths alone, and a count above
--max-candidates (default 1e8: at most about 15 s of CPU and 2 GB, measured) is refused at
once with the estimate. Size 10 on chess.dat, for instance, would enumerate 1.1e12.

Without --items the universe (all r-subsets of every possible item) is never enumerated: the
large margin mechanism searches for a margin among the itemsets that occur, followed by the
zero-frequency ones. If it picks a zero-frequency itemset, or finds no margin up to
--max-margin, it reports 'no itemset' and stops. With --items (where the default mechanism is
the exponential one) a large margin mechanism falls back to the exponential mechanism over the
whole universe and names a uniformly random zero-frequency itemset instead. Either way the
output is (ε, δ)-DP (see the library docs of disguise::apps::itemsets).

When no round releases an itemset, the report is printed, one 'nothing released:' line on
stderr says why, and the exit status is 4.

The output is the release: the itemsets, margins and noisy frequencies (--count-share). With
--diagnostics it also shows, in a section of its own ('not_private' in JSON), values computed on
the private data for evaluation, NOT private: each pick's true count and frequency and whether
it occurs, the number of distinct itemsets that occur, of transactions cut to --max-length
(also a note on stderr) and of items dropped for not being in --items.";

/// The layout of the transactions file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum InputFormat {
    /// One transaction per line, items separated by spaces (FIMI).
    Fimi,
    /// CSV with a header and one (transaction id, item) pair per row.
    Csv,
}

/// Arguments of `disguise itemsets`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// The transactions: FIMI (one per line, items separated by spaces; a blank line is an
    /// empty transaction) or CSV (see --input-format). Example: `--transactions chess.dat`.
    #[arg(long, value_name = "FILE")]
    transactions: PathBuf,
    /// Itemset size r ≥ 1. Example: `--size 2`.
    #[arg(long, value_name = "R")]
    size: usize,
    /// Total privacy budget ε > 0 (all rounds, and the noisy frequencies). Example:
    /// `--epsilon 1`.
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    epsilon: f64,
    #[command(flatten)]
    delta: DeltaArg,
    /// Number T of itemsets, chosen one after another (peeling), the budget split over them;
    /// at most 100000. Example: `--top 5`.
    #[arg(long, value_name = "T", default_value_t = 1)]
    top: usize,
    /// The selection mechanism. Default: `em` with --items (the exponential mechanism over
    /// the whole public universe finds the top itemsets at much smaller ε than the margin
    /// search needs), `lmm` without.
    #[arg(long, value_name = "NAME", value_parser = named_among(Itemsets::MECHANISMS))]
    mechanism: Option<SelectorKind>,
    /// A PUBLIC list of the possible items (names separated by spaces or newlines), fixed
    /// without looking at the data. Defines the universe: needed by `em`; with the large
    /// margin mechanisms it names zero-frequency picks. Items not in it are dropped.
    /// Example: `--items items.txt`.
    #[arg(long, value_name = "FILE")]
    items: Option<PathBuf>,
    /// Maximum transaction length B: longer transactions keep their B smallest items.
    #[arg(long, value_name = "B", default_value_t = DEFAULT_MAX_LENGTH)]
    max_length: usize,
    /// Refuse to count when that would enumerate more than N subsets of the transactions
    /// (sum of C(min(|t|, B), r)), checked before counting. The default 1e8 takes at most
    /// about 15 s of CPU and 2 GB (measured worst case: every subset a distinct itemset).
    /// Example: `--max-candidates 1000000000`.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CANDIDATES)]
    max_candidates: u64,
    /// Largest margin ℓ the large margin search tests (a public cap; it bounds the running
    /// time when there is no margin; at most 2^30, about 2.5 minutes). Example:
    /// `--max-margin 100000`.
    #[arg(long, value_name = "M", default_value_t = DEFAULT_MAX_MARGIN)]
    max_margin: u64,
    /// Share of ε spent on releasing noisy frequencies of the chosen itemsets (Laplace); 0
    /// releases none. Example: `--count-share 0`.
    #[arg(
        long,
        value_name = "S",
        default_value_t = 0.1,
        allow_negative_numbers = true
    )]
    count_share: f64,
    /// Layout of --transactions (default: csv for a `.csv` file, else fimi).
    #[arg(long, value_enum, value_name = "FORMAT")]
    input_format: Option<InputFormat>,
    /// Transaction id column of a CSV file. Example: `--id-column InvoiceNo`.
    #[arg(long, value_name = "COL", default_value = "transaction")]
    id_column: String,
    /// Item column of a CSV file. Example: `--item-column StockCode`.
    #[arg(long, value_name = "COL", default_value = "item")]
    item_column: String,
    #[command(flatten)]
    run: RunArgs,
}

/// Runs `disguise itemsets`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let request = Itemsets {
        size: args.size,
        top: args.top,
        mechanism: args.mechanism,
        epsilon: args.epsilon,
        delta: args.delta.value,
        max_margin: args.max_margin,
        count_share: args.count_share,
        max_length: args.max_length,
        max_candidates: args.max_candidates,
    };
    request
        .validate(args.items.is_some())
        .map_err(|e| flagged(e, &flag_of))?;
    // Everything that needs no private data is checked before the ledger is charged: the
    // transactions can be read, and the public item list (read whole: it is public) admits
    // itemsets of this size that the counting can key.
    disguise::files::check_input(&args.transactions)?;
    let items = match &args.items {
        Some(path) => {
            let items = read_item_list(path)?;
            request
                .check_items(&items)
                .map_err(|e| flagged(e, &flag_of))?;
            Some(items)
        }
        None => None,
    };
    let charge = args.run.ledger.open()?;
    let csv = args.input_format.map(|f| f == InputFormat::Csv);
    let layout = TransactionFormat::of(&args.transactions, csv, &args.id_column, &args.item_column);
    // A CSV file's columns, from its header row alone.
    Transactions::check_header(&args.transactions, &layout)?;
    // Charged before a transaction is read, from the options alone.
    let reserved = args.run.reserve(
        charge.as_ref(),
        request.chosen_mechanism(args.items.is_some()).name(),
        || request.plan(args.items.is_some()),
    )?;

    let bar = spinner(
        &format!("reading {}", args.transactions.display()),
        args.run.quiet,
    );
    let transactions = Transactions::read(&args.transactions, &layout, items.as_deref());
    bar.finish_and_clear();
    let transactions = transactions?;
    let bar = spinner(
        &format!("counting itemsets of size {}", args.size),
        args.run.quiet,
    );
    let counts = request.count(&transactions);
    bar.finish_and_clear();
    let counts = counts.map_err(|e| match e {
        // Name the flag that raises the limit.
        disguise::Error::LimitExceeded { what, limit, .. } => disguise::Error::LimitExceeded {
            what,
            limit,
            raise: Some("--max-candidates N"),
        },
        e => e,
    })?;
    let mut rng = rng_from_seed(args.run.seed)?;
    let release = request.release(&transactions, &counts, &mut rng)?;
    if let Some(reserved) = &reserved {
        reserved.check(&release)?;
    }
    let report = request.report(&transactions, release)?;
    warn_if_vacuous(&report.usefulness);
    let release = &report.release;
    let diagnostics = args.run.diagnostics.on();
    // How many transactions were cut is counted on the data: a diagnostic (also in the
    // not-private section), noted on stderr only with --diagnostics, and not with -q.
    if diagnostics
        && !args.run.quiet
        && let Some(note) = disguise::text::itemsets_truncated(release, &flag_of)
    {
        eprintln!("note: {note}");
    }
    let (epsilon, delta) = (args.epsilon, args.delta.value);
    print_report(args.run.format, &report, diagnostics, || {
        disguise::text::itemsets_table(release, epsilon, delta, args.top, &flag_of)
    })?;
    let items = args.items.is_some();
    if let Some(why) = disguise::text::itemsets_nothing_released(release, items, &flag_of) {
        return Err(NothingReleased(why).into());
    }
    Ok(())
}
