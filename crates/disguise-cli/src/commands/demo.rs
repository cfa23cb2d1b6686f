//! `disguise demo`: one private selection on an embedded synthetic example.
//!
//! The example: 2,000 synthetic residents each name their favourite of twelve public waiting
//! spots; we privately release the most popular spot. One resident changing their answer moves
//! every count by at most 1, so the counts have sensitivity λ = 1.

use crate::output::{Format, print_json};
use disguise::prelude::*;
use serde::Serialize;

/// Arguments of `disguise demo`.
#[derive(clap::Args)]
pub struct Args {
    /// Privacy budget ε of the selection (one exponential-mechanism call).
    #[arg(long, default_value_t = 0.5)]
    epsilon: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

const SPOTS: [&str; 12] = [
    "Union Square",
    "Grand Central",
    "Penn Station",
    "Times Square",
    "Columbus Circle",
    "Wall Street",
    "Washington Square",
    "Bryant Park",
    "Herald Square",
    "City Hall",
    "Lincoln Center",
    "Chelsea Market",
];

/// The embedded synthetic dataset: each resident's favourite spot, drawn from a fixed
/// Zipf-like popularity profile. The generator is seeded because this is *data synthesis*
/// (the same demo data on every machine), not privacy noise.
fn synthetic_votes(residents: usize) -> Vec<usize> {
    use rand_core::Rng;
    let weights: Vec<f64> = (0..SPOTS.len()).map(|i| 1.0 / (i as f64 + 1.5)).collect();
    let total: f64 = weights.iter().sum();
    let mut data_rng = SecureRng::insecure_from_seed(2014);
    (0..residents)
        .map(|_| {
            let u = (data_rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
            let mut acc = 0.0;
            weights
                .iter()
                .position(|w| {
                    acc += w;
                    u < acc
                })
                .unwrap_or(SPOTS.len() - 1)
        })
        .collect()
}

#[derive(Serialize)]
struct DemoOutput {
    residents: usize,
    candidates: Vec<&'static str>,
    counts: Vec<f64>,
    selected: usize,
    name: &'static str,
    rank: usize,
    mechanism: &'static str,
    guarantee: Guarantee,
}

/// Runs `disguise demo`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let epsilon = Epsilon::new(args.epsilon)?;
    let votes = synthetic_votes(2000);
    let mut counts = vec![0.0; SPOTS.len()];
    for &v in &votes {
        counts[v] += 1.0;
    }
    let mut rng = SecureRng::from_os()?;
    let em = Exponential::new(epsilon);
    let choice = em.select(&counts, Sensitivity::new(1.0)?, &mut rng)?;
    let rank = 1 + counts.iter().filter(|&&c| c > counts[choice.index]).count();
    let guarantee = Guarantee {
        epsilon: epsilon.get(),
        delta: 0.0,
        rule: disguise::privacy::compose::Rule::Single,
    };
    let out = DemoOutput {
        residents: votes.len(),
        candidates: SPOTS.to_vec(),
        counts,
        selected: choice.index,
        name: SPOTS[choice.index],
        rank,
        mechanism: em.name(),
        guarantee,
    };
    match args.format {
        Format::Json => print_json(&out),
        Format::Table => {
            println!(
                "disguise demo: the most popular of {} waiting spots among {} synthetic residents",
                SPOTS.len(),
                out.residents
            );
            println!("(true counts are shown for comparison; only the choice is private)\n");
            println!("  {:<20} {:>6}", "spot", "count");
            for (i, name) in SPOTS.iter().enumerate() {
                let mark = if i == out.selected { "  <- chosen" } else { "" };
                println!("  {:<20} {:>6}{mark}", name, out.counts[i]);
            }
            println!(
                "\nchosen: {} (rank {} by true count), exponential mechanism",
                out.name, out.rank
            );
            println!(
                "guarantee: ({}, {})-differential privacy for any one resident's answer",
                out.guarantee.epsilon, out.guarantee.delta
            );
            Ok(())
        }
    }
}
