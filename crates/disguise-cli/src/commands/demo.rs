//! `disguise demo`: the main job of disguise on an embedded default, for a newcomer.
//!
//! Choose k = 3 public waiting spots for taxi drivers so that a set of pickups is served as
//! well as possible (facility location, Mitrovic et al. 2017 §6.1), with a differential
//! privacy guarantee for every passenger. With no options it runs on 10,000 synthetic
//! Manhattan-like pickups generated in code (no file needed) and 20 named landmarks; with
//! `--data` it reads real pickups (columns `lat,lon`), with `--candidates` real spots
//! (`name,lat,lon`). It prints the private picks, their utility next to the non-private
//! greedy answer, the proven guarantee, and writes a map (PNG) to the current directory.

use crate::output::{Format, check_epsilon, flag_of, input, print_json, rng_from_seed, thousands};
use anyhow::bail;
use disguise::constraint::Cardinality;
use disguise::data::{geographic, manhattan_like, read_points};
use disguise::disclosure::{Diagnostic, Public};
use disguise::maximize::{Budget, Procedure, Solution, greedy, standard_greedy};
use disguise::objective::{FacilityLocation, Metric, Normalizer};
use disguise::select::SelectorKind;
use disguise::task::{DemoPick, DemoReport, ExactPick};
use disguise_experiments::plot::{self, Map, Pick};
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  # the built-in example: 3 spots for 10,000 synthetic pickups, ε = 0.1, map in
  # disguise-demo-map.png
  disguise demo

  # 5 spots, a larger budget, the map elsewhere
  disguise demo --k 5 --epsilon 1 --map picks.png

  # your own pickups (columns lat, lon) and candidate spots (name, lat, lon), JSON output
  disguise demo --data pickups.csv --candidates spots.csv --format json --no-map

The utilities printed next to the picks, the non-private greedy's picks and the map (every
pickup) are computed exactly on the pickups, to show how good the private picks are: they are
NOT covered by the privacy guarantee, which protects the picks only. The built-in pickups are
public, so the demo shows them; on your own pickups (--data) it runs only with --diagnostics
(for a private release of your data use `disguise select`).";

/// Arguments of `disguise demo`.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Number of spots to choose. Example: `--k 5`.
    #[arg(long, value_name = "K", default_value_t = 3)]
    k: usize,
    /// Total privacy budget ε of the whole selection (all k rounds). Example: `--epsilon 0.5`.
    #[arg(
        long,
        value_name = "E",
        default_value_t = 0.1,
        allow_negative_numbers = true
    )]
    epsilon: f64,
    /// Total δ of the selection (lets the accountant use its tighter rules).
    /// Example: `--delta 1e-6`.
    #[arg(
        long,
        value_name = "D",
        default_value_t = 1e-6,
        allow_negative_numbers = true
    )]
    delta: f64,
    /// Real pickups instead of the synthetic ones: a CSV file with columns `lat` and `lon`.
    /// Example: `--data ../shared/data/uber_nyc_apr14/pickups_manhattan_10k.csv`.
    #[arg(long, value_name = "FILE")]
    data: Option<PathBuf>,
    /// Candidate spots instead of the 20 built-in landmarks: a CSV file with columns
    /// `lat`, `lon` and optionally `name`.
    /// Example: `--candidates ../shared/data/manhattan_candidates/landmarks_33.csv`.
    #[arg(long, value_name = "FILE")]
    candidates: Option<PathBuf>,
    /// Distance (Manhattan metric, in degrees) at which a spot stops serving a pickup.
    /// Default: 0.266 (across Manhattan, as in the paper) for the built-in spots, else the
    /// diagonal of the candidates' bounding box. Example: `--normalizer 0.1`.
    #[arg(long, value_name = "M", allow_negative_numbers = true)]
    normalizer: Option<f64>,
    /// Where to write the map. Example: `--map picks.png`.
    #[arg(long, value_name = "FILE", default_value = "disguise-demo-map.png")]
    map: PathBuf,
    /// Do not write the map.
    #[arg(long)]
    no_map: bool,
    /// Seed for a reproducible run. INSECURE: the output is then predictable and carries
    /// no privacy guarantee (for tests and experiments only). Example: `--seed 42`.
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    #[command(flatten)]
    diagnostics: super::common::DiagnosticsArg,
}

impl Args {
    /// The input files given, which no output may overwrite.
    fn inputs(&self) -> Vec<&std::path::Path> {
        let given = self.data.iter().chain(&self.candidates);
        given.map(PathBuf::as_path).collect()
    }
}

/// Runs `disguise demo`.
pub fn run(args: Args) -> anyhow::Result<()> {
    // Validate before touching data or the generator.
    check_epsilon("--epsilon", args.epsilon)?;
    let total = Budget::total(args.epsilon, args.delta)?;
    // The comparison and the map show the pickups' exact values: public when built in.
    args.diagnostics
        .allow_non_private(args.data.is_none(), "--data (the demo on your own pickups)")?;
    if args.k == 0 {
        bail!("--k must be at least 1");
    }
    if let Some(m) = args.normalizer
        && !(m.is_finite() && m > 0.0)
    {
        bail!("--normalizer must be a positive number, got {m}");
    }
    // The map's path is checked before any work: never an input, in a folder that exists.
    if !args.no_map {
        disguise::files::refuse_input(&args.map, &args.inputs())?;
        let folder = match args.map.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => std::path::Path::new("."),
        };
        if !folder.is_dir() {
            bail!(
                "--map {}: the folder {} does not exist (create it first, or use --no-map)",
                args.map.display(),
                folder.display()
            );
        }
        if args.map.is_dir() {
            bail!(
                "--map {}: is a folder; give a file name",
                args.map.display()
            );
        }
    }
    // The embedded default: seeded synthesis of the *data* (same demo everywhere), not of
    // the privacy noise, which comes from the OS below.
    let city = manhattan_like(10_000, 2014);
    let (records, source) = match &args.data {
        Some(path) => (read_lat_lon(path)?, path.display().to_string()),
        None => (
            city.records.clone(),
            "10,000 synthetic Manhattan-like pickups (built in)".to_string(),
        ),
    };
    let (candidates, names, default_norm) = match &args.candidates {
        Some(path) => {
            let cols = read_points(path, ["lat", "lon"], Some("name"), geographic)?;
            let points = cols.coords;
            let names = match cols.names {
                Some(n) => n,
                None => (1..=points.len()).map(|i| format!("spot {i}")).collect(),
            };
            // Only when it is used: --normalizer may replace it.
            let default = match args.normalizer {
                Some(m) => m,
                None => super::common::default_normalizer(Metric::Manhattan, &points, path)?,
            };
            (points, names, Normalizer::Fixed(default))
        }
        None => (
            city.candidates.clone(),
            city.candidate_names.clone(),
            Normalizer::Fixed(city.normalizer),
        ),
    };
    if args.k > candidates.len() {
        bail!(
            "--k {} is more than the {} candidates",
            args.k,
            candidates.len()
        );
    }
    let normalizer = args.normalizer.map_or(default_norm, Normalizer::Fixed);
    let f = FacilityLocation::new(Metric::Manhattan, &records, &candidates, normalizer)?;
    let n = records.len().max(1) as f64;
    let constraint = Cardinality::new(candidates.len(), args.k);

    let mut rng = rng_from_seed(args.seed)?;
    let private = greedy(
        &f,
        &constraint,
        &Procedure::private(SelectorKind::Exponential, total),
        &mut rng,
    )?;
    let exact = standard_greedy(&f, &constraint)?;

    let map_path = if args.no_map {
        None
    } else {
        let lon_lat = |p: &[f64; 2]| [p[1], p[0]];
        let as_picks = |s: &Solution| -> Vec<Pick> {
            s.elements
                .iter()
                .map(|&v| Pick {
                    at: lon_lat(&candidates[v]),
                    label: names[v].clone(),
                })
                .collect()
        };
        let mut map = Map::geographic(
            format!(
                "disguise demo: {} waiting spots for {} pickups",
                args.k,
                thousands(records.len() as u64)
            ),
            records.iter().map(lon_lat).collect(),
            candidates.iter().map(lon_lat).collect(),
        )
        .panel(
            format!(
                "private (ε = {}, δ = {})",
                input(args.epsilon),
                input(args.delta)
            ),
            as_picks(&private),
        )
        .panel("non-private greedy (for comparison)", as_picks(&exact));
        map.panel_height = 700;
        // Never over an input (the pickups or the candidates), never half-written.
        plot::save_png(&map, &args.map, &args.inputs())?;
        Some(args.map.display().to_string())
    };

    let out = DemoReport {
        data: Public::new(source),
        records: Public::new(records.len()),
        candidates: Public::new(candidates.len()),
        k: Public::new(args.k),
        normalizer: Public::new(f.normalizer().unwrap_or(f64::NAN)),
        mechanism: "exponential mechanism (greedy, Algorithm 1 of Mitrovic et al. 2017)",
        private: DemoPick::of(&private, &candidates, &names, records.len()),
        private_utility: Diagnostic::new(private.value / n),
        non_private: ExactPick::of(&exact, &names, records.len()),
        non_private_utility: Diagnostic::new(exact.value / n),
        guarantee: private.guarantee,
        per_round_epsilon: private
            .budget_split
            .map(|b| Public::new(b.per_round_epsilon)),
        secure_rng: Public::new(private.secure_rng),
        map: map_path.map(Public::new),
    };
    match args.format {
        // The demo shows its diagnostics (see `disguise::task::demo`).
        Format::Json => print_json(&out, true),
        Format::Table => {
            print!("{}", disguise::text::demo_table(&out, &flag_of));
            println!(
                "\nnext: `disguise demo --data FILE --candidates FILE` for your own data, \
                 `disguise --help` for everything else"
            );
            Ok(())
        }
    }
}

/// Reads `lat,lon` points from a CSV file (streaming, 16 bytes per point).
fn read_lat_lon(path: &std::path::Path) -> anyhow::Result<Vec<[f64; 2]>> {
    Ok(read_points(path, ["lat", "lon"], None, geographic)?.coords)
}
