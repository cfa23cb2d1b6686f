//! Embedded synthetic data: a Manhattan-like set of pickup locations with named candidate
//! waiting spots, so that examples and the `disguise demo` run with no file at all.
//!
//! This is **data synthesis, not privacy noise**: the generator is seeded on purpose, so
//! that every machine sees the same demo data. Nothing here protects anyone; the private
//! algorithms that run on the result draw their own noise from an OS-keyed
//! [`SecureRng`].

use crate::noise::SecureRng;
use crate::noise::gumbel::open_unit_f64;

/// The normaliser m = 0.266 of Mitrovic et al. (2017) §6.1: the Manhattan (L1) distance in
/// degrees between the two furthest apart points of Manhattan. Public, so it can scale
/// distances into similarities without touching private data.
pub const MANHATTAN_NORMALIZER: f64 = 0.266;

/// The latitude/longitude box of the synthetic data (the same axis-aligned Manhattan box
/// the real 10k-pickup sample of the experiments was cut from).
pub const MANHATTAN_BOX: ([f64; 2], [f64; 2]) = ([40.70, -74.02], [40.88, -73.91]);

/// A synthetic location dataset: private-looking records and public named candidates.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticLocations {
    /// The records (e.g. pickups), `[lat, lon]` in degrees.
    pub records: Vec<[f64; 2]>,
    /// The public candidates, `[lat, lon]` in degrees.
    pub candidates: Vec<[f64; 2]>,
    /// One name per candidate.
    pub candidate_names: Vec<String>,
    /// A public normaliser for Manhattan-metric facility location on this data
    /// ([`MANHATTAN_NORMALIZER`]).
    pub normalizer: f64,
}

/// A cluster of pickups: centre, share of the records, and spread in km along and across
/// the island's axis.
struct Hotspot {
    lat: f64,
    lon: f64,
    weight: f64,
    along_km: f64,
    across_km: f64,
}

/// Neighbourhood centres and shares, written to resemble where taxi pickups concentrate
/// (Midtown and the Villages heaviest, the north of the island light, a little Brooklyn and
/// Queens across the rivers). The shares sum to 0.97; the other 3 % are uniform over the box.
const HOTSPOTS: [Hotspot; 12] = [
    hs(40.7560, -73.9870, 0.20, 0.9, 0.6), // Midtown West / Times Square
    hs(40.7520, -73.9750, 0.10, 0.7, 0.5), // Midtown East / Grand Central
    hs(40.7420, -73.9950, 0.10, 0.7, 0.6), // Chelsea / Flatiron
    hs(40.7300, -73.9950, 0.12, 0.8, 0.8), // Greenwich and East Village
    hs(40.7200, -73.9980, 0.08, 0.7, 0.6), // SoHo / Lower East Side
    hs(40.7080, -74.0080, 0.07, 0.6, 0.4), // Financial District
    hs(40.7730, -73.9570, 0.10, 1.0, 0.5), // Upper East Side
    hs(40.7850, -73.9760, 0.08, 1.1, 0.5), // Upper West Side
    hs(40.8100, -73.9480, 0.04, 1.0, 0.6), // Harlem
    hs(40.8450, -73.9380, 0.02, 1.2, 0.4), // Washington Heights
    hs(40.7140, -73.9580, 0.04, 0.9, 0.7), // Williamsburg
    hs(40.7470, -73.9450, 0.02, 0.6, 0.6), // Long Island City
];

const fn hs(lat: f64, lon: f64, weight: f64, along_km: f64, across_km: f64) -> Hotspot {
    Hotspot {
        lat,
        lon,
        weight,
        along_km,
        across_km,
    }
}

/// Twenty public landmarks as candidate waiting spots (coordinates are public facts,
/// rounded to 4 decimals, about ±150 m).
const LANDMARKS: [(&str, f64, f64); 20] = [
    ("Empire State Building", 40.7484, -73.9857),
    ("Times Square", 40.7580, -73.9855),
    ("Grand Central Terminal", 40.7527, -73.9772),
    ("Penn Station", 40.7506, -73.9935),
    ("Union Square", 40.7359, -73.9906),
    ("Washington Square", 40.7308, -73.9973),
    ("Soho Grand Hotel", 40.7221, -74.0044),
    ("One World Trade Center", 40.7127, -74.0134),
    ("New York Stock Exchange", 40.7069, -74.0113),
    ("City Hall", 40.7128, -74.0060),
    ("Chelsea Market", 40.7424, -74.0061),
    ("Rockefeller Center", 40.7587, -73.9787),
    ("United Nations HQ", 40.7489, -73.9680),
    ("Grand Army Plaza", 40.7644, -73.9736),
    ("Lincoln Center", 40.7725, -73.9835),
    ("Metropolitan Museum", 40.7794, -73.9632),
    ("Natural History Museum", 40.7813, -73.9740),
    ("Columbia University", 40.8075, -73.9626),
    ("Apollo Theater", 40.8100, -73.9500),
    ("The Cloisters", 40.8649, -73.9319),
];

/// Kilometres per degree of latitude, and of longitude at 40.79° N (the box's middle).
const KM_PER_DEG_LAT: f64 = 110.57;
const KM_PER_DEG_LON: f64 = 84.3;
/// Manhattan's street grid runs about 29° east of true north; clusters are stretched along it.
const AXIS_DEG: f64 = 29.0;

/// A Manhattan-like dataset of `records` pickups clustered around twelve neighbourhood
/// hotspots inside [`MANHATTAN_BOX`], with the twenty landmark candidates of the demo.
///
/// Deterministic: the same `(records, seed)` always gives the same data (seeded **data
/// synthesis**, not privacy noise; see the [module documentation](self)).
///
/// # Runtime
/// O(records): a few uniform draws per record (more only for the rare point that falls
/// outside the box and is drawn again).
///
/// ```
/// use disguise::data::synthetic::manhattan_like;
/// let city = manhattan_like(1000, 7);
/// assert_eq!(city.records.len(), 1000);
/// assert_eq!(city.candidates.len(), city.candidate_names.len());
/// assert_eq!(city, manhattan_like(1000, 7)); // reproducible
/// ```
pub fn manhattan_like(records: usize, seed: u64) -> SyntheticLocations {
    let mut rng = SecureRng::insecure_from_seed(seed);
    let (lo, hi) = MANHATTAN_BOX;
    let (sin, cos) = AXIS_DEG.to_radians().sin_cos();
    let mut out = Vec::with_capacity(records);
    while out.len() < records {
        let u = open_unit_f64(&mut rng);
        let mut acc = 0.0;
        let spot = HOTSPOTS.iter().find(|h| {
            acc += h.weight;
            u < acc
        });
        let point = match spot {
            Some(h) => {
                let (z1, z2) = standard_normal_pair(&mut rng);
                let (along, across) = (z1 * h.along_km, z2 * h.across_km);
                // Rotate from the island's frame (along = north-north-east) to east/north km.
                let east = along * sin + across * cos;
                let north = along * cos - across * sin;
                [
                    h.lat + north / KM_PER_DEG_LAT,
                    h.lon + east / KM_PER_DEG_LON,
                ]
            }
            None => [
                lo[0] + open_unit_f64(&mut rng) * (hi[0] - lo[0]),
                lo[1] + open_unit_f64(&mut rng) * (hi[1] - lo[1]),
            ],
        };
        // Four decimals, like the real data; points outside the box are drawn again.
        let point = point.map(|c| (c * 1e4).round() / 1e4);
        if (lo[0]..=hi[0]).contains(&point[0]) && (lo[1]..=hi[1]).contains(&point[1]) {
            out.push(point);
        }
    }
    SyntheticLocations {
        records: out,
        candidates: LANDMARKS.iter().map(|&(_, lat, lon)| [lat, lon]).collect(),
        candidate_names: LANDMARKS.iter().map(|&(n, _, _)| n.to_string()).collect(),
        normalizer: MANHATTAN_NORMALIZER,
    }
}

/// Two independent standard normal samples (Box–Muller; f64 quality, enough for synthesis).
fn standard_normal_pair(rng: &mut SecureRng) -> (f64, f64) {
    let r = (-2.0 * open_unit_f64(rng).ln()).sqrt();
    let theta = std::f64::consts::TAU * open_unit_f64(rng);
    (r * theta.cos(), r * theta.sin())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraint::Cardinality;
    use crate::maximize::standard_greedy;
    use crate::objective::{FacilityLocation, Metric, Normalizer};

    #[test]
    fn reproducible_in_the_box_and_seed_dependent() {
        let a = manhattan_like(5000, 1);
        assert_eq!(a, manhattan_like(5000, 1));
        assert_ne!(a.records, manhattan_like(5000, 2).records);
        let (lo, hi) = MANHATTAN_BOX;
        assert!(
            a.records
                .iter()
                .all(|p| p[0] >= lo[0] && p[0] <= hi[0] && p[1] >= lo[1] && p[1] <= hi[1])
        );
        assert_eq!(a.candidates.len(), 20);
        assert!(manhattan_like(0, 1).records.is_empty());
    }

    #[test]
    fn clustered_like_manhattan() {
        let city = manhattan_like(20_000, 3);
        let share = |lat: f64, lon: f64, km: f64| {
            city.records
                .iter()
                .filter(|p| {
                    let d = ((p[0] - lat) * KM_PER_DEG_LAT).hypot((p[1] - lon) * KM_PER_DEG_LON);
                    d < km
                })
                .count() as f64
                / city.records.len() as f64
        };
        // Midtown's hotspot holds 20 % of the mass (within 1.5 km: most of it, plus parts
        // of its neighbours); a circle of the same size around the Cloisters, far from any
        // hotspot, gets only background (3 % uniform over ~190 km², i.e. about 0.1 %).
        let midtown = share(40.7560, -73.9870, 1.5);
        let cloisters = share(40.8649, -73.9319, 1.5);
        assert!(midtown > 0.2, "midtown share {midtown}");
        assert!(cloisters < 0.01, "cloisters share {cloisters}");
    }

    #[test]
    fn greedy_picks_midtown_first() {
        let city = manhattan_like(10_000, 2014);
        let f = FacilityLocation::new(
            Metric::Manhattan,
            &city.records,
            &city.candidates,
            Normalizer::Fixed(city.normalizer),
        )
        .unwrap();
        let s = standard_greedy(&f, &Cardinality::new(city.candidates.len(), 3)).unwrap();
        let first = city.candidate_names[s.elements[0]].as_str();
        // The centre of mass is in Midtown / the Flatiron district.
        assert!(
            [
                "Empire State Building",
                "Times Square",
                "Penn Station",
                "Union Square"
            ]
            .contains(&first),
            "first pick {first}"
        );
        // Three picks cover most of the island: the normalised utility is high.
        assert!(s.value / 10_000.0 > 0.85, "utility {}", s.value / 10_000.0);
    }
}

/// A synthetic clustered planar data set of any size, for benchmarks and tests of large runs:
/// point i is a function of (seed, i) alone, so parts can be written in any order, in
/// parallel, in any format, and the same seed always gives the same points.
///
/// Points fall in 16 Gaussian clusters in the box [0, 100]² (centres, spreads and Zipf-like
/// shares drawn from the seed); 2% are uniform over the box. Candidates are uniform over the
/// box. Data synthesis, not privacy noise: the generator is seeded on purpose.
///
/// ```
/// use disguise::data::ClusteredPoints;
/// let g = ClusteredPoints::new(7);
/// assert_eq!(g.point(123_456), ClusteredPoints::new(7).point(123_456));
/// assert_ne!(g.point(1), ClusteredPoints::new(8).point(1));
/// assert_eq!(g.candidates(10).len(), 10);
/// ```
#[derive(Debug, Clone)]
pub struct ClusteredPoints {
    seed: u64,
    /// (x, y, σ, cumulative share) per cluster.
    clusters: Vec<(f64, f64, f64, f64)>,
}

/// Clusters of [`ClusteredPoints`].
const CLUSTERS: usize = 16;

/// Streams of the counter-based generator, kept apart.
const POINTS: u64 = 1;
const CENTRES: u64 = 2;
const CANDIDATES: u64 = 3;

impl ClusteredPoints {
    /// The data set of `seed`.
    pub fn new(seed: u64) -> Self {
        let mut total = 0.0;
        let mut clusters: Vec<(f64, f64, f64, f64)> = (0..CLUSTERS as u64)
            .map(|j| {
                let u = |k| unit(mix(seed, CENTRES, j * 4 + k));
                total += 1.0 / ((j + 1) as f64).powf(0.8);
                (
                    10.0 + 80.0 * u(0),
                    10.0 + 80.0 * u(1),
                    0.5 + 4.5 * u(2),
                    total,
                )
            })
            .collect();
        for c in &mut clusters {
            c.3 /= total;
        }
        ClusteredPoints { seed, clusters }
    }

    /// Point `i` as `[x, y]`.
    pub fn point(&self, i: u64) -> [f64; 2] {
        let u = |k| unit(mix(self.seed, POINTS, i.wrapping_mul(4).wrapping_add(k)));
        let pick = u(0);
        if pick < 0.02 {
            return [100.0 * u(1), 100.0 * u(2)];
        }
        let share = (pick - 0.02) / 0.98;
        let &(cx, cy, sigma, _) = self
            .clusters
            .iter()
            .find(|c| share < c.3)
            .unwrap_or(&self.clusters[CLUSTERS - 1]);
        // Box–Muller: two independent standard normals from two uniforms in (0, 1].
        let (r, theta) = (
            (-2.0 * (1.0 - u(1)).ln()).sqrt(),
            std::f64::consts::TAU * u(2),
        );
        [cx + sigma * r * theta.cos(), cy + sigma * r * theta.sin()]
    }

    /// `m` candidate points, uniform over the box.
    pub fn candidates(&self, m: usize) -> Vec<[f64; 2]> {
        (0..m as u64)
            .map(|j| {
                let u = |k| unit(mix(self.seed, CANDIDATES, j * 2 + k));
                [100.0 * u(0), 100.0 * u(1)]
            })
            .collect()
    }
}

/// SplitMix64 of (seed, stream, counter): a counter-based generator of independent-looking
/// 64-bit words.
fn mix(seed: u64, stream: u64, counter: u64) -> u64 {
    let mut z = seed
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(stream.wrapping_mul(0xd1b5_4a32_d192_ed03))
        .wrapping_add(counter.wrapping_mul(0x8cb9_2ba7_2f3d_8dd7))
        .wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A uniform number in [0, 1) from the top 53 bits.
fn unit(word: u64) -> f64 {
    (word >> 11) as f64 / (1u64 << 53) as f64
}
