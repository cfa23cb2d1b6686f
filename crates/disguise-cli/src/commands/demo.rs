//! `disguise demo`: the main job of disguise on an embedded default, for a newcomer.
//!
//! Choose k = 3 public waiting spots for taxi drivers so that a set of pickups is served as
//! well as possible (facility location, Mitrovic et al. 2017 §6.1), with a differential
//! privacy guarantee for every passenger. With no options it runs on 10,000 synthetic
//! Manhattan-like pickups generated in code (no file needed) and 20 named landmarks; with
//! `--data` it reads real pickups (columns `lat,lon`), with `--candidates` real spots
//! (`name,lat,lon`). It prints the private picks, their utility next to the non-private
//! greedy answer, the proven guarantee, and writes a map (PNG) to the current directory.

use crate::output::{Format, flag_of, flagged, print_json, rng_from_seed};
use anyhow::bail;
use disguise::objective::Metric;
use disguise::task::{Demo, DemoPlaces};
use disguise_experiments::plot::{self, Map};
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
    let request = Demo {
        k: args.k,
        epsilon: args.epsilon,
        delta: args.delta,
        normalizer: args.normalizer,
    };
    // Validate before touching data or the generator.
    request.validate().map_err(said)?;
    // The comparison and the map show the pickups' exact values: public when built in.
    args.diagnostics
        .allow_non_private(args.data.is_none(), "--data (the demo on your own pickups)")?;
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
    let places = DemoPlaces::read(args.data.as_deref(), args.candidates.as_deref())?;
    if let (Some(path), None) = (&args.candidates, args.normalizer) {
        // Its error names the candidates' file and the flag that replaces the default.
        super::common::default_normalizer(Metric::Manhattan, &places.candidates, path)?;
    }
    let request = request.for_places(&places).map_err(said)?;
    let mut rng = rng_from_seed(args.seed)?;
    let run = request.run(&places, &mut rng)?;
    let map_path = if args.no_map {
        None
    } else {
        // Never over an input (the pickups or the candidates), never half-written.
        let map = Map::demo(&request, &places, &run);
        plot::save_png(&map, &args.map, &args.inputs())?;
        Some(args.map.display().to_string())
    };
    let out = request.report(&places, &run, map_path);
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

/// The demo's errors as the command line says them: `--k must be at least 1`.
fn said(error: disguise::Error) -> anyhow::Error {
    match error {
        disguise::Error::InvalidParameter {
            name: name @ ("k" | "normalizer"),
            reason,
        } => anyhow::anyhow!("--{name} {reason}"),
        other => flagged(other, &flag_of),
    }
}
