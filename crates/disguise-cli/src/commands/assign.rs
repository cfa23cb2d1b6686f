//! `disguise assign`: private k-type facility location — choose public candidate locations
//! and give each one of k types, so that every private point is served by a nearby location
//! of its own type (Rafiey & Yoshida 2020, Example 5.2; Algorithms 3 and 4).

use super::common::KTypeArgs;
use super::common::coordinates::PlacesArgs;
use super::common::names::named_among;
use super::common::privacy::{PrivacyArgs, Shown, run_and_print};
use crate::output::{flag_of, flagged, spinner};
use disguise::maximize::Assignment;
use disguise::task::{Algorithm, Assign, AssignReport, Reporting, Runnable, read_typed_points};
use disguise::text::{self, Labels};

const EXAMPLES: &str = "\
Examples:
  # 6 waiting spots, each staffed in the morning or the evening shift; each pickup (with a
  # `shift` column) is served by the nearest spot of its own shift; (ε, δ) = (1, 1e-6)
  disguise assign --points pickups.csv --type-column shift --types morning,evening \\
      --candidates landmarks.csv --k 6 --epsilon 1 --delta 1e-6

  # the subsampled algorithm (Algorithm 4, γ = 0.05), at most 2 spots per neighbourhood
  disguise assign --points pickups.csv --type-column shift --types morning,evening,night \\
      --candidates landmarks.csv --constraint partition:neighbourhoods.csv \\
      --algorithm subsample --failure 0.05 --epsilon 1 --delta 1e-6 --format json

  # the non-private greedy baseline (½-approximation)
  disguise assign --points pickups.csv --type-column shift --types a,b --candidates c.csv \\
      --k 4 --mechanism max

Objective: f(X_1..X_k) = Σ_types Σ_points of that type (1 − min(1, d(point, nearest location
of its type)/m)): each point contributes at most 1, and a location holds one type. It is
monotone k-submodular with sensitivity 1 per marginal gain. Values are computed on the
private points for evaluation: they are NOT covered by the guarantee, which protects the
chosen (location, type) pairs only. The list --types is public; a point with any other
label is an error (naming it), so clean the data first.";

/// Arguments of `disguise assign`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
// The continuous greedy does not apply here: --help does not offer it.
#[command(mut_arg("algorithm", |a| a.value_parser(named_among(Algorithm::DISCRETE))))]
pub struct Args {
    #[command(flatten)]
    places: PlacesArgs,
    /// The points' column holding each point's type label. Example: `--type-column shift`.
    #[arg(long, value_name = "COL")]
    type_column: String,
    #[command(flatten)]
    kinds: KTypeArgs,
    #[command(flatten)]
    privacy: PrivacyArgs,
}

/// Runs `disguise assign`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let request = Assign {
        metric: args.places.metric,
        normalizer: args.places.normalizer,
        ..args.kinds.request(&args.privacy)
    };
    // Everything that needs no data is validated first, in the library.
    args.privacy.check_trials()?;
    args.privacy.check(|o| o.refuse_estimate("assign"))?;
    request.validate().map_err(|e| flagged(e, &flag_of))?;
    let charge = args.privacy.ledger.open()?;
    let places = &args.places;
    let quiet = args.privacy.quiet;
    let (candidates, names) = places.read_candidates(quiet)?;
    let m = candidates.len();
    disguise::files::check_input(&places.points)?;
    // Charged before a point is read, from the public candidates and options.
    let reserved = args.privacy.reserve(charge.as_ref(), || request.plan(m))?;
    let (points, record_types) = {
        let path = &places.points;
        let bar = spinner(&format!("reading points {}", path.display()), quiet);
        let [c0, c1] = places.coordinates.columns();
        let (columns, check) = ([c0.as_str(), c1.as_str()], places.coordinates.check());
        let (column, types) = (&args.type_column, &args.kinds.types);
        let read = read_typed_points(path, columns, check, column, types, &flag_of);
        bar.finish_and_clear();
        read?
    };
    let objective = request
        .objective(&points, &record_types, &candidates)
        .map_err(|e| flagged(e, &flag_of))?;
    drop(points);
    let prepared = request
        .prepare(&objective)
        .map_err(|e| flagged(e, &flag_of))?;
    let utility = |v: f64| prepared.utility(v);
    let note = "utility = f/n: each point contributes 1 − min(1, d/m) for the nearest location \
                of its own type";
    let labels = Labels::new(&names, &utility, note).typed(&args.kinds.types);
    let preamble = |r: &AssignReport| {
        let points = places.points.display().to_string();
        let candidates = places.candidates.display().to_string();
        let metric = places.metric_line(r.task.normalizer.map_or(f64::NAN, |m| *m));
        text::assign_preamble(r, &points, &candidates, &metric)
    };
    let run = |child: &mut disguise::SecureRng| prepared.run(child);
    let report = |a: &Assignment| prepared.report(a);
    let shown = Shown::new(labels, &preamble, &report);
    run_and_print(
        &args.privacy,
        reserved.as_ref(),
        prepared.max_picks(),
        &shown,
        run,
    )
}
