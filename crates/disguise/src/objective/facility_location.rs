//! Facility location over private records and public candidates.

use super::metric::{EARTH_RADIUS_KM, Metric, Normalizer};
use super::{Properties, SetFunction};
use crate::error::{Error, Result};
use crate::privacy::Sensitivity;
use rayon::prelude::*;

/// Normalised distances and similarities are integers in [0, ONE]: units of 2^-22.
const ONE: i32 = 1 << 22;
const ONE_F: f32 = ONE as f32;
/// 2^-22, the value of one unit (exact in f64).
const UNIT: f64 = 1.0 / ONE as f64;
/// Adding 2^23 to an f32 in [0, 2^22] rounds it to an integer (the ulp of [2^23, 2^24) is 1),
/// and the bits of the sum are `MAGIC_BITS` + that integer: a float-to-integer rounding in
/// one vectorisable addition.
const MAGIC: f32 = 8_388_608.0;
const MAGIC_BITS: i32 = 0x4B00_0000;
/// Records per inner run: a run's sum of at most 512 terms ≤ 2^22 fits a u32 (≤ 2^31), and
/// a branch-free u32 reduction is what LLVM vectorises best, for baseline x86-64 (SSE2) and
/// wider targets alike.
const RUN: usize = 512;
/// Records per block: a block's columns (24 KiB) stay in L1 cache while every candidate is
/// scored against them.
const BLOCK: usize = 2048;
/// Below this many record × candidate pairs a round runs on the calling thread: spawning
/// rayon tasks would cost more than the work.
const PARALLEL_MIN_PAIRS: usize = 1 << 17;
/// Largest number of records: totals stay below 2^52 units, so every gain and value is an
/// exactly representable f64 (and [`Penalized`](super::Penalized) can subtract a cost
/// exactly).
const MAX_RECORDS: usize = 1 << 30;
/// Largest magnitude of a scaled candidate coordinate (keeps the f32 kernel finite).
const MAX_SCALED: f64 = 1e30;

/// Facility location: f(S) = Σ_i max_{j ∈ S} s(i, j), with f(∅) = 0, where i ranges over the
/// private records and j over the public candidates, and s(i, j) ∈ [0, 1] is a similarity.
///
/// Built from distances ([`FacilityLocation::new`]) the similarity is
/// s(i, j) = 1 − min(1, d(i, j)/m) for a [`Metric`] d and a public normaliser m, so
/// f(S) = Σ_i (1 − min(1, min_{j∈S} M(i, j))) with M = d/m: the objective of Mitrovic et al.
/// (2017) §6.1 (there f_D(S) = n − Σ_i min_{j∈S} M(i, j) with M ≤ 1, the same function).
/// Built from a dense n × m matrix ([`FacilityLocation::from_similarities`]) it is the
/// similarity form for small problems.
///
/// ```
/// use disguise::objective::{FacilityLocation, Metric, Normalizer, SetFunction};
///
/// let records = [[0.0, 0.0], [0.0, 1.0], [5.0, 5.0]];
/// let candidates = [[0.0, 0.5], [5.0, 4.0]];
/// let f = FacilityLocation::new(Metric::Manhattan, &records, &candidates, Normalizer::Fixed(2.0))?;
/// let s = f.empty();
/// let mut gains = [0.0; 2];
/// f.gains(&s, &[0, 1], &mut gains);
/// assert_eq!(gains, [1.5, 0.5]); // (0.75 + 0.75 + 0) and (0 + 0 + 0.5)
/// assert_eq!(f.evaluate(&[0, 1]), 2.0);
/// # Ok::<(), disguise::Error>(())
/// ```
///
/// # Sensitivity
/// λ = 1 in every round, under both replace-one and add/remove neighbouring datasets. f_D is
/// 1-decomposable (Mitrovic et al. 2017, Observation 6.1): f_D = Σ_i f_i with
/// f_i(S) = max_{j∈S} s(i, j) monotone submodular with values in [0, 1]. Record i contributes
/// max(0, s(i, v) − max_{j∈S} s(i, j)) ∈ [0, 1] to the gain of v, and the other records'
/// contributions do not depend on it (S is public), so changing, adding or removing one
/// record moves every gain by at most 1. The normaliser and the candidates must be public:
/// they are never computed from the records.
///
/// # Exactness
/// Distances are computed in f32 and the normalised distance min(1, d/m) is rounded to a
/// multiple of 2^-22, so the function actually maximised is facility location for the
/// similarities s̃(i, j) = 1 − round(2^22·min(1, d̃(i, j)/m))/2^22 ∈ [0, 1], within about 1e-6
/// of s(i, j) (the f32 distance d̃ has relative error ~1e-7: records are stored relative to
/// the candidates' centre, so precision does not degrade with large absolute coordinates;
/// for nearly antipodal points on the sphere the error grows to about 1e-5).
/// Every gain and value is an integer number of units summed in integer arithmetic and
/// converted exactly to f64. Hence:
/// * the returned gains are exactly f(S ∪ {v}) − f(S) for this function, which is exactly
///   monotone, submodular and 1-decomposable: the sensitivity bound holds for the very numbers
///   the selector sees, not only up to rounding;
/// * results are bit-identical for any number of threads and any summation order.
///
/// # Runtime
/// `gains` makes one pass over the records for all candidates: O(n · |candidates|) distance
/// evaluations, computed on the fly (no n × m matrix), in blocks of 2048 records that stay in
/// L1 cache while every candidate is scored, blocks spread over all cores with rayon. The
/// inner loop is a branch-free integer reduction that LLVM auto-vectorises (about 2·10⁹
/// Manhattan pairs per second per core with SSE2). `insert` is one parallel O(n) pass; a
/// one-candidate `gains` call (lazy greedy) is O(n). Memory: 12 bytes per record (16 for
/// Haversine) plus 4 bytes per record of state; the dense form stores 4 bytes per
/// record × candidate.
#[derive(Debug, Clone)]
pub struct FacilityLocation {
    n: usize,
    m: usize,
    geometry: Geometry,
    metric: Option<Metric>,
    normalizer: Option<f64>,
}

/// Struct-of-arrays storage of the records and candidates for each kind of similarity.
/// Kernels compute the normalised distance u = 2^22·d/m (≥ 0 or NaN by construction).
#[derive(Debug, Clone)]
enum Geometry {
    /// Planar coordinates relative to a public origin, pre-multiplied by 2^22/m so that
    /// u = |Δx| + |Δy| or √(Δx² + Δy²) directly.
    Planar(Planar),
    /// Unit vectors relative to a public origin; u = asin(‖Δ‖/2) · `scale` with
    /// `scale` = 2 · 2^22 · R/m. `near` when m < R·π/3 (6671 km): then every pair with
    /// ‖Δ‖/2 > 1/2 is farther than m and the kernel skips the wide-angle branch of asin.
    Sphere(Sphere),
    /// `MAGIC_BITS` + the rounded normalised distance 2^22·(1 − s(i, c)), candidate-major:
    /// `dist[c * n + i]`.
    Dense { dist: Vec<i32> },
    /// Points with `dims` coordinates relative to a public origin, pre-multiplied by 2^22/m:
    /// the records column-major (`cols[k * n + i]`, so each coordinate streams), the
    /// candidates row-major (`cands[c * dims + k]`).
    Vectors {
        euclidean: bool,
        dims: usize,
        cols: Vec<f32>,
        cands: Vec<f32>,
    },
}

/// The columns of [`Geometry::Planar`]: records (`xs`, `ys`) and candidates (`cxs`, `cys`).
#[derive(Debug, Clone)]
struct Planar {
    euclidean: bool,
    xs: Vec<f32>,
    ys: Vec<f32>,
    cxs: Vec<f32>,
    cys: Vec<f32>,
}

/// The columns of [`Geometry::Sphere`]: records (`xs`, `ys`, `zs`) and candidates (`cxs`,
/// `cys`, `czs`), with the kernel's `near` branch and `scale`.
#[derive(Debug, Clone)]
struct Sphere {
    near: bool,
    xs: Vec<f32>,
    ys: Vec<f32>,
    zs: Vec<f32>,
    cxs: Vec<f32>,
    cys: Vec<f32>,
    czs: Vec<f32>,
    scale: f32,
}

/// The incremental state of [`FacilityLocation`]: for each record its normalised distance
/// to the solution, min(1, min_{j∈S} M(i, j)) in units of 2^-22 (1 for the empty set), and
/// the total gained, Σ_i (1 − that distance).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FacilityState {
    /// `MAGIC_BITS` + the distance in units, so the kernels compare raw float bits.
    rest: Vec<i32>,
    total: u64,
}

impl FacilityLocation {
    /// Facility location with s(i, j) = 1 − min(1, d(i, j)/m) for the `metric` d and the
    /// public `normalizer` m. Points are `[x, y]` (for [`Metric::Haversine`],
    /// `[latitude, longitude]` in degrees, distances in km).
    ///
    /// Errors if a coordinate is not finite or above 1e30 in magnitude, a latitude is outside
    /// [−90, 90], the normaliser is not in [1e-30, 1e30] or so small that the candidates'
    /// scaled coordinates overflow, or there are more than 2^30 records.
    ///
    /// Validation errors reveal that some record is malformed: clean private data before it
    /// reaches a private algorithm.
    pub fn new(
        metric: Metric,
        records: &[[f64; 2]],
        candidates: &[[f64; 2]],
        normalizer: Normalizer,
    ) -> Result<Self> {
        if records.len() > MAX_RECORDS {
            return Err(Error::param(
                "records",
                format!("at most 2^30 records are supported, got {}", records.len()),
            ));
        }
        for (i, &c) in candidates.iter().enumerate() {
            metric.check_point(c, "candidates", i)?;
        }
        for (i, &r) in records.iter().enumerate() {
            metric.check_point(r, "records", i)?;
        }
        let norm = normalizer.resolve(metric, candidates)?;
        let geometry = match metric {
            Metric::Manhattan | Metric::Euclidean => {
                // Distances are translation invariant: centring on the candidates' bounding
                // box (public) keeps the f32 coordinates small and so precise.
                let mut lo = [f64::INFINITY; 2];
                let mut hi = [f64::NEG_INFINITY; 2];
                for c in candidates {
                    for k in 0..2 {
                        lo[k] = lo[k].min(c[k]);
                        hi[k] = hi[k].max(c[k]);
                    }
                }
                let origin = if candidates.is_empty() {
                    [0.0; 2]
                } else {
                    [lo[0] / 2.0 + hi[0] / 2.0, lo[1] / 2.0 + hi[1] / 2.0]
                };
                let scale = f64::from(ONE) / norm;
                if candidates.iter().any(|c| {
                    ((c[0] - origin[0]) * scale).abs() > MAX_SCALED
                        || ((c[1] - origin[1]) * scale).abs() > MAX_SCALED
                }) {
                    return Err(Error::param(
                        "normalizer",
                        format!("{norm} is too small for the spread of the candidates"),
                    ));
                }
                // A record whose scaled coordinate overflows to ±∞ is farther than m from
                // every (finite) candidate, and its distance u = ∞ correctly gives s = 0.
                let col = |pts: &[[f64; 2]], k: usize| -> Vec<f32> {
                    pts.iter()
                        .map(|p| ((p[k] - origin[k]) * scale) as f32)
                        .collect()
                };
                Geometry::Planar(Planar {
                    euclidean: metric == Metric::Euclidean,
                    xs: col(records, 0),
                    ys: col(records, 1),
                    cxs: col(candidates, 0),
                    cys: col(candidates, 1),
                })
            }
            Metric::Haversine => {
                let unit = |p: &[f64; 2]| -> [f64; 3] {
                    let (lat, lon) = (p[0].to_radians(), p[1].to_radians());
                    [lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin()]
                };
                // The chord ‖u − c‖ is translation invariant: storing unit vectors relative
                // to the candidates' mean (public) keeps f32 precision for nearby points
                // (centimetres at city scale instead of about a metre).
                let mut origin = [0.0f64; 3];
                for c in candidates {
                    let u = unit(c);
                    for k in 0..3 {
                        origin[k] += u[k] / candidates.len() as f64;
                    }
                }
                let offsets = |pts: &[[f64; 2]]| -> [Vec<f32>; 3] {
                    let mut cols = [Vec::new(), Vec::new(), Vec::new()];
                    for p in pts {
                        let u = unit(p);
                        for k in 0..3 {
                            cols[k].push((u[k] - origin[k]) as f32);
                        }
                    }
                    cols
                };
                let [xs, ys, zs] = offsets(records);
                let [cxs, cys, czs] = offsets(candidates);
                Geometry::Sphere(Sphere {
                    // The margin absorbs the f32 error of ‖Δ‖ near 1/2.
                    near: norm < 0.999 * EARTH_RADIUS_KM * std::f64::consts::FRAC_PI_3,
                    xs,
                    ys,
                    zs,
                    cxs,
                    cys,
                    czs,
                    scale: (2.0 * f64::from(ONE) * EARTH_RADIUS_KM / norm) as f32,
                })
            }
        };
        Ok(Self {
            n: records.len(),
            m: candidates.len(),
            geometry,
            metric: Some(metric),
            normalizer: Some(norm),
        })
    }

    /// Facility location over points with `dims` coordinates each (feature vectors), for
    /// [`Metric::Manhattan`] or [`Metric::Euclidean`]: `records` and `candidates` are
    /// row-major (`records[i * dims + k]` is coordinate k of record i), and s(i, j) =
    /// 1 − min(1, d(i, j)/m). [`Normalizer::CandidateBoundingBox`] is the distance between
    /// the opposite corners of the candidates' box in `dims` dimensions. With `dims` = 2 this
    /// is exactly [`FacilityLocation::new`] (the same numbers, bit for bit).
    ///
    /// ```
    /// use disguise::objective::{FacilityLocation, Metric, Normalizer, SetFunction};
    /// // Three records and two candidates in three dimensions.
    /// let records = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 4.0, 4.0, 4.0];
    /// let candidates = [0.0, 0.0, 0.5, 4.0, 4.0, 4.0];
    /// let f = FacilityLocation::from_vectors(
    ///     Metric::Manhattan, 3, &records, &candidates, Normalizer::Fixed(2.0))?;
    /// assert_eq!(f.evaluate(&[0]), 1.5); // 0.75 + 0.75 + 0
    /// assert_eq!(f.evaluate(&[0, 1]), 2.5);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// Haversine (points on the sphere are `[lat, lon]`: use [`FacilityLocation::new`]),
    /// `dims` = 0, lengths that are not multiples of `dims`, a coordinate that is not finite
    /// or above 1e30 in magnitude, a normaliser as [`FacilityLocation::new`] refuses, or more
    /// than 2^30 records.
    pub fn from_vectors(
        metric: Metric,
        dims: usize,
        records: &[f64],
        candidates: &[f64],
        normalizer: Normalizer,
    ) -> Result<Self> {
        if metric == Metric::Haversine {
            return Err(Error::param(
                "metric",
                "haversine takes [latitude, longitude] points: two coordinates, not vectors",
            ));
        }
        if dims == 0 {
            return Err(Error::param("dims", "points need at least one coordinate"));
        }
        for (name, values) in [("records", records), ("candidates", candidates)] {
            if values.len() % dims != 0 {
                return Err(Error::param(
                    name,
                    format!("{} values are not rows of {dims} coordinates", values.len()),
                ));
            }
        }
        if dims == 2 {
            // The same memory seen as pairs (the lengths are even): no copy, and the planar
            // constructor checks every coordinate.
            let (records, _) = records.as_chunks::<2>();
            let (candidates, _) = candidates.as_chunks::<2>();
            return Self::new(metric, records, candidates, normalizer);
        }
        for (name, values) in [("records", records), ("candidates", candidates)] {
            if let Some(k) = values.iter().position(|v| !v.is_finite() || v.abs() > 1e30) {
                return Err(Error::param(
                    name,
                    format!(
                        "row {}, coordinate {}: {} is not a finite number of at most 1e30 in \
                         magnitude",
                        k / dims,
                        k % dims,
                        values[k]
                    ),
                ));
            }
        }
        let (n, m) = (records.len() / dims, candidates.len() / dims);
        if n > MAX_RECORDS {
            return Err(Error::param(
                "records",
                format!("at most 2^30 records are supported, got {n}"),
            ));
        }
        // The candidates' bounding box (public): its centre is the origin, its diagonal the
        // default normaliser.
        let mut lo = vec![f64::INFINITY; dims];
        let mut hi = vec![f64::NEG_INFINITY; dims];
        for c in candidates.chunks_exact(dims) {
            for k in 0..dims {
                lo[k] = lo[k].min(c[k]);
                hi[k] = hi[k].max(c[k]);
            }
        }
        let origin: Vec<f64> = if m == 0 {
            vec![0.0; dims]
        } else {
            (0..dims).map(|k| lo[k] / 2.0 + hi[k] / 2.0).collect()
        };
        let norm = match normalizer {
            Normalizer::Fixed(v) => v,
            Normalizer::CandidateBoundingBox if m == 0 => 0.0,
            Normalizer::CandidateBoundingBox => {
                let spans = (0..dims).map(|k| hi[k] - lo[k]);
                if metric == Metric::Euclidean {
                    spans.map(|d| d * d).sum::<f64>().sqrt()
                } else {
                    spans.sum()
                }
            }
            Normalizer::CandidateDiameter => {
                let mut d: f64 = 0.0;
                let rows: Vec<&[f64]> = candidates.chunks_exact(dims).collect();
                for (i, a) in rows.iter().enumerate() {
                    for b in &rows[i + 1..] {
                        let diffs = a.iter().zip(b.iter()).map(|(x, y)| (x - y).abs());
                        d = d.max(if metric == Metric::Euclidean {
                            diffs.map(|t| t * t).sum::<f64>().sqrt()
                        } else {
                            diffs.sum()
                        });
                    }
                }
                d
            }
        };
        let norm = Normalizer::Fixed(norm).resolve(metric, &[])?;
        let scale = f64::from(ONE) / norm;
        let cands: Vec<f32> = candidates
            .chunks_exact(dims)
            .flat_map(|c| {
                (0..dims)
                    .map(|k| (c[k] - origin[k]) * scale)
                    .collect::<Vec<_>>()
            })
            .map(|v| v as f32)
            .collect();
        if cands.iter().any(|v| v.abs() > MAX_SCALED as f32) {
            return Err(Error::param(
                "normalizer",
                format!("{norm} is too small for the spread of the candidates"),
            ));
        }
        let mut cols = vec![0f32; n * dims];
        for (i, r) in records.chunks_exact(dims).enumerate() {
            for k in 0..dims {
                // An overflow to ±∞ is a record farther than m from every candidate (s = 0).
                cols[k * n + i] = ((r[k] - origin[k]) * scale) as f32;
            }
        }
        Ok(Self {
            n,
            m,
            geometry: Geometry::Vectors {
                euclidean: metric == Metric::Euclidean,
                dims,
                cols,
                cands,
            },
            metric: Some(metric),
            normalizer: Some(norm),
        })
    }

    /// Facility location with given similarities: `similarities` is the row-major
    /// `num_records × num_candidates` matrix of s(i, j) ∈ [0, 1].
    ///
    /// Errors if the length does not match, an entry is NaN or outside [0, 1], or there are
    /// more than 2^30 records. Memory: 4 bytes per entry.
    ///
    /// ```
    /// use disguise::objective::{FacilityLocation, SetFunction};
    /// let f = FacilityLocation::from_similarities(2, 2, &[1.0, 0.5, 0.0, 0.25])?;
    /// assert_eq!(f.evaluate(&[0]), 1.0);
    /// assert_eq!(f.evaluate(&[0, 1]), 1.25);
    /// # Ok::<(), disguise::Error>(())
    /// ```
    pub fn from_similarities(
        num_records: usize,
        num_candidates: usize,
        similarities: &[f64],
    ) -> Result<Self> {
        let len = num_records.checked_mul(num_candidates).ok_or_else(|| {
            Error::Overflow(format!("{num_records} × {num_candidates} similarities"))
        })?;
        if similarities.len() != len {
            return Err(Error::param(
                "similarities",
                format!(
                    "expected {num_records} × {num_candidates} = {len} entries, got {}",
                    similarities.len()
                ),
            ));
        }
        if num_records > MAX_RECORDS {
            return Err(Error::param(
                "similarities",
                format!("at most 2^30 records are supported, got {num_records}"),
            ));
        }
        if let Some(k) = similarities.iter().position(|s| !(0.0..=1.0).contains(s)) {
            return Err(Error::param(
                "similarities",
                format!(
                    "entry ({}, {}) = {} is not in [0, 1]",
                    k / num_candidates,
                    k % num_candidates,
                    similarities[k]
                ),
            ));
        }
        let mut dist = vec![0i32; len];
        for (i, row) in similarities.chunks_exact(num_candidates.max(1)).enumerate() {
            for (c, &s) in row.iter().enumerate() {
                // s · 2^22 is exact; rounding to the nearest unit is the only approximation.
                let units = (s * f64::from(ONE)).round() as i32;
                dist[c * num_records + i] = MAGIC_BITS + ONE - units;
            }
        }
        Ok(Self {
            n: num_records,
            m: num_candidates,
            geometry: Geometry::Dense { dist },
            metric: None,
            normalizer: None,
        })
    }

    /// The number of private records n.
    pub fn num_records(&self) -> usize {
        self.n
    }

    /// The metric, or `None` for the dense similarity form.
    pub fn metric(&self) -> Option<Metric> {
        self.metric
    }

    /// The resolved normaliser m, or `None` for the dense similarity form.
    pub fn normalizer(&self) -> Option<f64> {
        self.normalizer
    }

    /// The similarity s̃(i, j) the objective uses (a multiple of 2^-22 within about 1e-6 of
    /// 1 − min(1, d(i, j)/m)). Panics if `record` or `candidate` is out of range.
    pub fn similarity(&self, record: usize, candidate: usize) -> f64 {
        assert!(record < self.n && candidate < self.m, "index out of range");
        let mut rest = [MAGIC_BITS + ONE];
        self.kernel_insert(candidate, record, &mut rest);
        f64::from(MAGIC_BITS + ONE - rest[0]) * UNIT
    }

    /// Σ_i max(0, rest_i − u(i, c)) over the records `start..start + rest.len()`.
    fn kernel_gain(&self, c: usize, start: usize, rest: &[i32]) -> u64 {
        let r = start..start + rest.len();
        match &self.geometry {
            Geometry::Planar(g) => {
                let (cx, cy, xs, ys) = (g.cxs[c], g.cys[c], &g.xs[r.clone()], &g.ys[r]);
                if g.euclidean {
                    fold2(xs, ys, rest, |x, y| planar::<true>(x, y, cx, cy))
                } else {
                    fold2(xs, ys, rest, |x, y| planar::<false>(x, y, cx, cy))
                }
            }
            Geometry::Sphere(g) => {
                let (cx, cy, cz, s) = (g.cxs[c], g.cys[c], g.czs[c], g.scale);
                let (xs, ys, zs) = (&g.xs[r.clone()], &g.ys[r.clone()], &g.zs[r]);
                if g.near {
                    fold3(xs, ys, zs, rest, |x, y, z| {
                        sphere::<true>(x, y, z, cx, cy, cz, s)
                    })
                } else {
                    fold3(xs, ys, zs, rest, |x, y, z| {
                        sphere::<false>(x, y, z, cx, cy, cz, s)
                    })
                }
            }
            Geometry::Dense { dist } => {
                let col = &dist[c * self.n + start..c * self.n + start + rest.len()];
                fold1(col, rest)
            }
            Geometry::Vectors { .. } => {
                let mut units = [0i32; BLOCK];
                let mut total = 0;
                for (j, rest) in rest.chunks(BLOCK).enumerate() {
                    let units = &mut units[..rest.len()];
                    self.vector_units(c, start + j * BLOCK, units);
                    total += fold1(units, rest);
                }
                total
            }
        }
    }

    /// The normalised distances (in units, as [`to_units`]) of the records
    /// `start..start + out.len()` to candidate `c`, for the [`Geometry::Vectors`] form: one
    /// pass per coordinate over a contiguous column, so each vectorises.
    fn vector_units(&self, c: usize, start: usize, out: &mut [i32]) {
        let Geometry::Vectors {
            euclidean,
            dims,
            cols,
            cands,
        } = &self.geometry
        else {
            unreachable!("called for the vector form only");
        };
        let mut acc = [0f32; BLOCK];
        let acc = &mut acc[..out.len()];
        let centre = &cands[c * dims..(c + 1) * dims];
        for (k, &ck) in centre.iter().enumerate() {
            let col = &cols[k * self.n + start..k * self.n + start + out.len()];
            if *euclidean {
                for (a, &x) in acc.iter_mut().zip(col) {
                    let d = x - ck;
                    *a += d * d;
                }
            } else {
                for (a, &x) in acc.iter_mut().zip(col) {
                    *a += (x - ck).abs();
                }
            }
        }
        for (o, &a) in out.iter_mut().zip(acc.iter()) {
            *o = to_units(if *euclidean { a.sqrt() } else { a });
        }
    }

    /// rest_i ← min(rest_i, u(i, c)) over the records `start..start + rest.len()`; returns
    /// the sum of the decreases (the gain of c on these records).
    fn kernel_insert(&self, c: usize, start: usize, rest: &mut [i32]) -> u64 {
        let r = start..start + rest.len();
        let mut total = 0u64;
        let mut apply = |rest: &mut i32, u: i32| {
            total += u64::from(excess(*rest, u));
            *rest = (*rest).min(u);
        };
        match &self.geometry {
            Geometry::Planar(g) => {
                let (cx, cy) = (g.cxs[c], g.cys[c]);
                for ((b, &x), &y) in rest.iter_mut().zip(&g.xs[r.clone()]).zip(&g.ys[r]) {
                    let u = if g.euclidean {
                        planar::<true>(x, y, cx, cy)
                    } else {
                        planar::<false>(x, y, cx, cy)
                    };
                    apply(b, u);
                }
            }
            Geometry::Sphere(g) => {
                let (cx, cy, cz, s) = (g.cxs[c], g.cys[c], g.czs[c], g.scale);
                let pts = g.xs[r.clone()].iter().zip(&g.ys[r.clone()]).zip(&g.zs[r]);
                for (b, ((&x, &y), &z)) in rest.iter_mut().zip(pts) {
                    apply(
                        b,
                        if g.near {
                            sphere::<true>(x, y, z, cx, cy, cz, s)
                        } else {
                            sphere::<false>(x, y, z, cx, cy, cz, s)
                        },
                    );
                }
            }
            Geometry::Dense { dist } => {
                let col = &dist[c * self.n + start..c * self.n + start + rest.len()];
                for (b, &u) in rest.iter_mut().zip(col) {
                    apply(b, u);
                }
            }
            Geometry::Vectors { .. } => {
                let mut units = [0i32; BLOCK];
                for (j, rest) in rest.chunks_mut(BLOCK).enumerate() {
                    let units = &mut units[..rest.len()];
                    self.vector_units(c, start + j * BLOCK, units);
                    for (b, &u) in rest.iter_mut().zip(units.iter()) {
                        apply(b, u);
                    }
                }
            }
        }
        total
    }

    /// Adds the gains (in units) of every candidate over the records of block `b`.
    fn block_gains(&self, b: usize, rest: &[i32], candidates: &[usize], acc: &mut [u64]) {
        let start = b * BLOCK;
        let rest = &rest[start..(start + BLOCK).min(self.n)];
        for (a, &c) in acc.iter_mut().zip(candidates) {
            *a += self.kernel_gain(c, start, rest);
        }
    }
}

/// `MAGIC_BITS` + round(min(u, 2^22)) for a normalised distance u ≥ 0 (NaN counts as 2^22,
/// i.e. similarity 0). The result compares directly with a state entry.
#[inline(always)]
fn to_units(u: f32) -> i32 {
    let u = if u < ONE_F { u } else { ONE_F };
    (u + MAGIC).to_bits() as i32
}

/// The normalised distance of a planar record (x, y) to the candidate (cx, cy), coordinates
/// pre-scaled by 2^22/m.
#[inline(always)]
fn planar<const EUCLIDEAN: bool>(x: f32, y: f32, cx: f32, cy: f32) -> i32 {
    let (dx, dy) = (x - cx, y - cy);
    to_units(if EUCLIDEAN {
        (dx * dx + dy * dy).sqrt()
    } else {
        dx.abs() + dy.abs()
    })
}

/// The normalised distance between a unit vector and a candidate's (both relative to the same
/// origin): the central angle is θ = 2·asin(‖u − c‖/2), the chord formula, which unlike
/// 1 − cos θ keeps full f32 relative precision for nearby points. With `NEAR` (normaliser
/// below 60° of arc) a half-chord above 1/2 is simply "farther than m".
#[inline(always)]
fn sphere<const NEAR: bool>(x: f32, y: f32, z: f32, cx: f32, cy: f32, cz: f32, scale: f32) -> i32 {
    let (dx, dy, dz) = (x - cx, y - cy, z - cz);
    let half_chord = 0.5 * (dx * dx + dy * dy + dz * dz).sqrt();
    if NEAR {
        let h = if half_chord < 0.5 { half_chord } else { 0.5 };
        let u = asin_small(h) * scale;
        to_units(if half_chord > 0.5 { ONE_F } else { u })
    } else {
        let h = if half_chord < 1.0 { half_chord } else { 1.0 };
        to_units(asin_unit(h) * scale)
    }
}

/// asin(a) for a ∈ [0, 1/2]: the small-argument branch of [`asin_unit`] (no square root).
#[inline(always)]
fn asin_small(a: f32) -> f32 {
    let z = a * a;
    ((((4.216_32e-2 * z + 2.418_131e-2) * z + 4.547_002_6e-2) * z + 7.495_300_3e-2) * z
        + 1.666_675_2e-1)
        * z
        * a
        + a
}

/// asin(a) for a ∈ [0, 1], branch-free so it vectorises (Cephes `asinf`: relative error
/// below 3e-7 in f32). Never negative: both branches are sums of non-negative terms, or
/// π/2 − 2·asin(√((1 − a)/2)) ≥ π/2 − 2·asin(1/2) > 0.
#[inline(always)]
fn asin_unit(a: f32) -> f32 {
    let big = a > 0.5;
    let z = if big { 0.5 * (1.0 - a) } else { a * a };
    let x = if big { z.sqrt() } else { a };
    let p = ((((4.216_32e-2 * z + 2.418_131e-2) * z + 4.547_002_6e-2) * z + 7.495_300_3e-2) * z
        + 1.666_675_2e-1)
        * z
        * x
        + x;
    if big {
        std::f32::consts::FRAC_PI_2 - 2.0 * p
    } else {
        p
    }
}

/// max(0, rest − u) for two entries in `MAGIC_BITS` + [0, 2^22]: at most 2^22.
#[inline(always)]
fn excess(rest: i32, u: i32) -> u32 {
    let t = rest - u;
    (if t > 0 { t } else { 0 }) as u32
}

/// Σ_i max(0, rest_i − dist(x_i, y_i)). The sum runs in u32 over runs of [`RUN`] records
/// (at most 2^31, no overflow) so LLVM's loop vectoriser turns it into a SIMD integer
/// reduction; runs are added in u64.
#[inline(always)]
fn fold2(xs: &[f32], ys: &[f32], rest: &[i32], dist: impl Fn(f32, f32) -> i32) -> u64 {
    let runs = xs.chunks(RUN).zip(ys.chunks(RUN)).zip(rest.chunks(RUN));
    runs.map(|((xs, ys), rest)| {
        let run = xs.iter().zip(ys).zip(rest);
        u64::from(run.fold(0u32, |acc, ((&x, &y), &r)| {
            acc.wrapping_add(excess(r, dist(x, y)))
        }))
    })
    .sum()
}

/// [`fold2`] for three coordinates.
#[inline(always)]
fn fold3(
    xs: &[f32],
    ys: &[f32],
    zs: &[f32],
    rest: &[i32],
    dist: impl Fn(f32, f32, f32) -> i32,
) -> u64 {
    let runs = xs
        .chunks(RUN)
        .zip(ys.chunks(RUN))
        .zip(zs.chunks(RUN))
        .zip(rest.chunks(RUN));
    runs.map(|(((xs, ys), zs), rest)| {
        let run = xs.iter().zip(ys).zip(zs).zip(rest);
        u64::from(run.fold(0u32, |acc, (((&x, &y), &z), &r)| {
            acc.wrapping_add(excess(r, dist(x, y, z)))
        }))
    })
    .sum()
}

/// [`fold2`] for precomputed distances.
#[inline(always)]
fn fold1(dist: &[i32], rest: &[i32]) -> u64 {
    let runs = dist.chunks(RUN).zip(rest.chunks(RUN));
    runs.map(|(dist, rest)| {
        let run = dist.iter().zip(rest);
        u64::from(run.fold(0u32, |acc, (&d, &r)| acc.wrapping_add(excess(r, d))))
    })
    .sum()
}

/// Gains and values are whole numbers of 2^-22 similarity units (see *Exactness*).
#[cfg(feature = "cluster")]
impl crate::cluster::Summable for FacilityLocation {
    fn unit(&self) -> f64 {
        UNIT
    }

    fn records(&self) -> usize {
        self.n
    }
}

impl SetFunction for FacilityLocation {
    type State = FacilityState;

    fn ground_size(&self) -> usize {
        self.m
    }

    fn empty(&self) -> FacilityState {
        FacilityState {
            rest: vec![MAGIC_BITS + ONE; self.n],
            total: 0,
        }
    }

    /// One pass over the records for all `candidates` (see the type's *Runtime*). Panics if a
    /// candidate is ≥ `ground_size()` or the lengths differ.
    fn gains(&self, state: &FacilityState, candidates: &[usize], out: &mut [f64]) {
        assert_eq!(candidates.len(), out.len(), "one output per candidate");
        assert!(
            candidates.iter().all(|&c| c < self.m),
            "candidate out of range"
        );
        let blocks = self.n.div_ceil(BLOCK);
        let pairs = self.n.saturating_mul(candidates.len());
        let sums = if pairs < PARALLEL_MIN_PAIRS || blocks < 2 {
            let mut acc = vec![0u64; candidates.len()];
            for b in 0..blocks {
                self.block_gains(b, &state.rest, candidates, &mut acc);
            }
            acc
        } else {
            // Integer sums are associative: any split and reduction order gives the same bits.
            (0..blocks)
                .into_par_iter()
                .fold(
                    || vec![0u64; candidates.len()],
                    |mut acc, b| {
                        self.block_gains(b, &state.rest, candidates, &mut acc);
                        acc
                    },
                )
                .reduce(
                    || vec![0u64; candidates.len()],
                    |mut a, b| {
                        a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                        a
                    },
                )
        };
        for (o, s) in out.iter_mut().zip(sums) {
            *o = s as f64 * UNIT;
        }
    }

    /// One parallel pass updating each record's distance to the solution. Panics if `v` is
    /// out of range.
    fn insert(&self, state: &mut FacilityState, v: usize) {
        assert!(v < self.m, "candidate out of range");
        let update = |(b, rest): (usize, &mut [i32])| self.kernel_insert(v, b * BLOCK, rest);
        let added: u64 = if self.n < PARALLEL_MIN_PAIRS {
            state.rest.chunks_mut(BLOCK).enumerate().map(update).sum()
        } else {
            state
                .rest
                .par_chunks_mut(BLOCK)
                .enumerate()
                .map(update)
                .sum()
        };
        state.total += added;
    }

    fn value(&self, state: &FacilityState) -> f64 {
        state.total as f64 * UNIT
    }

    /// λ = 1 in every round (see *Sensitivity* on the type).
    fn sensitivity(&self, _round: usize) -> Sensitivity {
        Sensitivity::new(1.0).expect("1 is a valid sensitivity")
    }

    /// The same λ: it is a bound on every single marginal gain (see *Sensitivity*).
    fn gain_sensitivity(&self, round: usize) -> Sensitivity {
        self.sensitivity(round)
    }

    /// Monotone and 1-decomposable.
    fn properties(&self) -> Properties {
        Properties::MONOTONE_DECOMPOSABLE
    }

    fn name(&self) -> &'static str {
        "facility-location"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_units_rounds_and_clamps() {
        let units = |u: f32| to_units(u) - MAGIC_BITS;
        assert_eq!(units(0.0), 0);
        assert_eq!(units(-0.0), 0);
        assert_eq!(units(f32::NAN), ONE);
        assert_eq!(units(f32::INFINITY), ONE);
        assert_eq!(units(1e30), ONE);
        assert_eq!(units(ONE_F), ONE);
        assert_eq!(units(1.4), 1);
        assert_eq!(units(1.6), 2);
        assert_eq!(units(12345.0), 12345);
    }

    #[test]
    fn asin_matches_libm() {
        let mut worst: f64 = 0.0;
        for k in 0..=10_000 {
            let a = k as f32 / 10_000.0;
            let exact = f64::from(a).asin();
            let got = f64::from(asin_unit(a));
            assert!(got >= 0.0);
            worst = worst.max((got - exact).abs() / exact.max(1e-30));
        }
        assert!(worst < 5e-7, "relative error {worst}");
    }

    #[test]
    fn kernel_matches_reference_distances() {
        // A Manhattan-sized box with the paper's normaliser, and a 10 km one for Haversine.
        let cands = [[40.75, -73.98], [40.70, -74.01], [40.80, -73.95]];
        let recs: Vec<[f64; 2]> = (0..500)
            .map(|i| {
                let t = i as f64 / 500.0;
                [40.68 + 0.15 * t, -74.03 + 0.1 * ((7.0 * t) % 1.0)]
            })
            .collect();
        for metric in [Metric::Manhattan, Metric::Euclidean, Metric::Haversine] {
            let norm = if metric == Metric::Haversine {
                10.0
            } else {
                0.266
            };
            assert_kernel(metric, &recs, &cands, norm, 2e-6);
        }
    }

    /// Every similarity of the kernel is within `tolerance` of 1 − min(1, d/m) in f64.
    fn assert_kernel(
        metric: Metric,
        recs: &[[f64; 2]],
        cands: &[[f64; 2]],
        norm: f64,
        tolerance: f64,
    ) {
        let f = FacilityLocation::new(metric, recs, cands, Normalizer::Fixed(norm)).unwrap();
        for (i, r) in recs.iter().enumerate() {
            for (j, c) in cands.iter().enumerate() {
                let exact = 1.0 - (metric.distance(*r, *c) / norm).min(1.0);
                let got = f.similarity(i, j);
                let close = (got - exact).abs() < tolerance;
                assert!(close, "{metric:?}, m = {norm} ({i},{j}): {got} vs {exact}");
            }
        }
    }

    #[test]
    fn haversine_kernel_is_accurate_at_global_scale() {
        // Both asin branches: normalisers above and below 60° of arc (6671 km), points all
        // over the globe including near-antipodal pairs.
        let pts: Vec<[f64; 2]> = (0..400)
            .map(|i| {
                let t = i as f64 / 400.0;
                [-89.0 + 178.0 * ((13.0 * t) % 1.0), -180.0 + 360.0 * t]
            })
            .collect();
        let cands = [[0.0, 0.0], [45.0, 90.0], [-30.0, -150.0], [89.9, 10.0]];
        for norm in [5000.0, 6600.0, 7000.0, 20_015.0] {
            // f32 chords lose precision near antipodes (asin is steep near 1).
            assert_kernel(Metric::Haversine, &pts, &cands, norm, 1e-5);
        }
    }

    #[test]
    fn extreme_points_keep_contributions_in_range() {
        // Records astronomically far away, antipodal, or on top of a candidate: every
        // similarity stays in [0, 1] (the sensitivity proof needs nothing more).
        let cands = [[0.0, 0.0], [1.0, 1.0]];
        let recs = [
            [1e30, -1e30],
            [0.0, 0.0],
            [-1e30, 1e30],
            [1.0, 1.0],
            [0.5, 0.5],
        ];
        for metric in [Metric::Manhattan, Metric::Euclidean] {
            let f = FacilityLocation::new(metric, &recs, &cands, Normalizer::Fixed(1e-20)).unwrap();
            for i in 0..recs.len() {
                for j in 0..2 {
                    let s = f.similarity(i, j);
                    assert!((0.0..=1.0).contains(&s));
                }
            }
            assert_eq!(f.similarity(1, 0), 1.0);
            assert_eq!(f.similarity(0, 0), 0.0);
        }
        let cands = [[90.0, 0.0], [-90.0, 180.0], [0.0, 0.0]];
        let recs = [[-90.0, 0.0], [90.0, 45.0], [0.0, 180.0], [0.0, 0.0]];
        let f = FacilityLocation::new(Metric::Haversine, &recs, &cands, Normalizer::Fixed(1e-3))
            .unwrap();
        for i in 0..recs.len() {
            for j in 0..cands.len() {
                let s = f.similarity(i, j);
                assert!((0.0..=1.0).contains(&s), "{s}");
            }
        }
        assert_eq!(f.similarity(1, 0), 1.0); // both at the north pole
        assert_eq!(f.similarity(3, 2), 1.0);
        assert_eq!(f.similarity(2, 2), 0.0);
        // A normaliser so small the candidates' scaled coordinates overflow is an error.
        assert!(
            FacilityLocation::new(
                Metric::Manhattan,
                &recs,
                &[[0.0, 0.0], [1e20, 0.0]],
                Normalizer::Fixed(1e-20)
            )
            .is_err()
        );
    }

    #[test]
    fn invalid_inputs_are_errors() {
        let c = [[0.0, 0.0]];
        let fixed = Normalizer::Fixed(1.0);
        assert!(FacilityLocation::new(Metric::Manhattan, &[[f64::NAN, 0.0]], &c, fixed).is_err());
        assert!(FacilityLocation::new(Metric::Manhattan, &[[0.0, 1e31]], &c, fixed).is_err());
        assert!(FacilityLocation::new(Metric::Haversine, &[[91.0, 0.0]], &c, fixed).is_err());
        assert!(
            FacilityLocation::new(Metric::Haversine, &c, &[[0.0, f64::INFINITY]], fixed).is_err()
        );
        assert!(FacilityLocation::from_similarities(2, 2, &[0.0; 3]).is_err());
        assert!(FacilityLocation::from_similarities(1, 2, &[0.5, 1.5]).is_err());
        assert!(FacilityLocation::from_similarities(1, 2, &[0.5, f64::NAN]).is_err());
        assert!(FacilityLocation::from_similarities(usize::MAX, 2, &[]).is_err());
    }

    /// Records and candidates in d dimensions from a fixed generator (no randomness crate).
    fn vectors(n: usize, m: usize, dims: usize) -> (Vec<f64>, Vec<f64>) {
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64 * 10.0 - 5.0
        };
        let records = (0..n * dims).map(|_| next()).collect();
        let candidates = (0..m * dims).map(|_| next()).collect();
        (records, candidates)
    }

    #[test]
    fn vectors_match_the_exact_similarities_in_several_dimensions() {
        for metric in [Metric::Manhattan, Metric::Euclidean] {
            for dims in [1, 3, 7] {
                let (n, m) = (3000, 6);
                let (records, candidates) = vectors(n, m, dims);
                let f = FacilityLocation::from_vectors(
                    metric,
                    dims,
                    &records,
                    &candidates,
                    Normalizer::CandidateBoundingBox,
                )
                .unwrap();
                let norm = f.normalizer().unwrap();
                let dist = |a: &[f64], b: &[f64]| -> f64 {
                    let d = a.iter().zip(b).map(|(x, y)| (x - y).abs());
                    match metric {
                        Metric::Euclidean => d.map(|t| t * t).sum::<f64>().sqrt(),
                        _ => d.sum(),
                    }
                };
                let exact = |set: &[usize]| -> f64 {
                    records
                        .chunks(dims)
                        .map(|r| {
                            set.iter()
                                .map(|&c| {
                                    let cand = &candidates[c * dims..(c + 1) * dims];
                                    1.0 - (dist(r, cand) / norm).min(1.0)
                                })
                                .fold(0.0, f64::max)
                        })
                        .sum()
                };
                for set in [vec![0], vec![1, 4], vec![0, 2, 3, 5]] {
                    let got = f.evaluate(&set);
                    // f32 distances: about d·1e-7 relative, plus rounding to 2^-22 units.
                    let tol = n as f64 * (dims as f64 * 1e-6 + 1e-6);
                    assert!(
                        (got - exact(&set)).abs() <= tol,
                        "{metric:?} d = {dims} {set:?}: {got} vs {}",
                        exact(&set)
                    );
                }
                // Gains in one pass agree with values after insertion, exactly.
                let mut state = f.empty();
                let mut gains = [0.0; 6];
                f.gains(&state, &[0, 1, 2, 3, 4, 5], &mut gains);
                f.insert(&mut state, 2);
                assert_eq!(f.value(&state), gains[2]);
            }
        }
    }

    #[test]
    fn two_dimensional_vectors_are_the_planar_objective() {
        let (records, candidates) = vectors(500, 4, 2);
        let pairs = |v: &[f64]| -> Vec<[f64; 2]> { v.chunks(2).map(|p| [p[0], p[1]]).collect() };
        for metric in [Metric::Manhattan, Metric::Euclidean] {
            let a = FacilityLocation::from_vectors(
                metric,
                2,
                &records,
                &candidates,
                Normalizer::CandidateBoundingBox,
            )
            .unwrap();
            let b = FacilityLocation::new(
                metric,
                &pairs(&records),
                &pairs(&candidates),
                Normalizer::CandidateBoundingBox,
            )
            .unwrap();
            assert_eq!(a.evaluate(&[0, 3]), b.evaluate(&[0, 3]));
            assert_eq!(a.normalizer(), b.normalizer());
        }
    }

    #[test]
    fn invalid_vectors_are_errors_naming_the_place() {
        let ok = [0.0, 1.0, 2.0];
        let err = |r: &[f64], c: &[f64], dims: usize, metric: Metric| {
            FacilityLocation::from_vectors(metric, dims, r, c, Normalizer::Fixed(1.0))
                .unwrap_err()
                .to_string()
        };
        assert!(err(&ok, &ok, 3, Metric::Haversine).contains("haversine"));
        assert!(err(&ok, &ok, 0, Metric::Euclidean).contains("at least one coordinate"));
        assert!(err(&ok, &[1.0, 2.0], 3, Metric::Euclidean).contains("rows of 3"));
        let e = err(&[0.0, f64::NAN, 1.0], &ok, 3, Metric::Manhattan);
        assert!(e.contains("row 0, coordinate 1: NaN"), "{e}");
        // A single candidate has no bounding box to normalise by.
        let single = FacilityLocation::from_vectors(
            Metric::Euclidean,
            3,
            &ok,
            &ok,
            Normalizer::CandidateBoundingBox,
        );
        assert!(single.is_err());
    }
}
