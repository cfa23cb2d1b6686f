//! Distances between points in the plane or on the sphere, and the public normaliser that turns
//! a distance into a similarity in [0, 1].
//!
//! These are the f64 reference implementations. [`FacilityLocation`](super::FacilityLocation)
//! evaluates the same formulas in a vectorised f32 kernel; the tests check the two agree.

use crate::error::{Error, Result};
use crate::names::{Named, named_traits};
use serde::Serialize;

/// Mean Earth radius in km (IUGG), used by [`Metric::Haversine`].
pub const EARTH_RADIUS_KM: f64 = 6371.0088;

/// A distance between two points given as `[x, y]` pairs.
///
/// For [`Metric::Haversine`] a point is `[latitude, longitude]` in degrees and the distance is
/// the great-circle distance in km on a sphere of radius [`EARTH_RADIUS_KM`].
///
/// ```
/// use disguise::objective::Metric;
/// assert_eq!(Metric::Manhattan.distance([0.0, 0.0], [1.0, -2.0]), 3.0);
/// assert_eq!(Metric::Euclidean.distance([0.0, 0.0], [3.0, 4.0]), 5.0);
/// // JFK to LAX: 3974 km on the sphere (3983 km on the WGS-84 ellipsoid).
/// let d = Metric::Haversine.distance([40.6413, -73.7781], [33.9416, -118.4085]);
/// assert!((d - 3974.3).abs() < 0.1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// |x₁ − x₂| + |y₁ − y₂| (the paper's choice, Mitrovic et al. 2017 §6.1).
    Manhattan,
    /// √((x₁ − x₂)² + (y₁ − y₂)²).
    Euclidean,
    /// Great-circle distance in km between `[lat, lon]` points in degrees.
    Haversine,
}

impl Metric {
    /// The distance between `a` and `b` (f64 reference implementation).
    ///
    /// *Precision*: Manhattan and Euclidean are correctly rounded up to one or two roundings;
    /// Haversine uses `2R·asin(√h)` with `h = sin²(Δφ/2) + cos φ₁ cos φ₂ sin²(Δλ/2)`, accurate to
    /// about 1e-9 km except for nearly antipodal points.
    pub fn distance(self, a: [f64; 2], b: [f64; 2]) -> f64 {
        match self {
            Metric::Manhattan => (a[0] - b[0]).abs() + (a[1] - b[1]).abs(),
            Metric::Euclidean => (a[0] - b[0]).hypot(a[1] - b[1]),
            Metric::Haversine => {
                let (p1, p2) = (a[0].to_radians(), b[0].to_radians());
                let dp = p2 - p1;
                let dl = (b[1] - a[1]).to_radians();
                let h = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
                2.0 * EARTH_RADIUS_KM * h.sqrt().min(1.0).asin()
            }
        }
    }

    /// A short name for output (`manhattan`, `euclidean`, `haversine`).
    pub fn name(self) -> &'static str {
        match self {
            Metric::Manhattan => "manhattan",
            Metric::Euclidean => "euclidean",
            Metric::Haversine => "haversine",
        }
    }

    /// Checks that a point is valid for this metric: finite coordinates of magnitude at most
    /// 1e30 (so they survive the f32 kernel), and for Haversine a latitude in [−90, 90].
    pub(crate) fn check_point(self, p: [f64; 2], what: &'static str, index: usize) -> Result<()> {
        let ok_coord = |c: f64| c.is_finite() && c.abs() <= 1e30;
        if !ok_coord(p[0]) || !ok_coord(p[1]) {
            return Err(Error::param(
                what,
                format!("point {index} has a non-finite or huge coordinate: {p:?}"),
            ));
        }
        if self == Metric::Haversine && !(-90.0..=90.0).contains(&p[0]) {
            return Err(Error::param(
                what,
                format!("point {index} has latitude {} outside [-90, 90]", p[0]),
            ));
        }
        Ok(())
    }
}

impl Named for Metric {
    const KIND: &'static str = "metric";
    const ALL: &'static [Self] = &[Metric::Manhattan, Metric::Euclidean, Metric::Haversine];

    fn name(self) -> &'static str {
        Metric::name(self)
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            Metric::Manhattan => &["l1"],
            Metric::Euclidean => &["l2"],
            Metric::Haversine => &["great-circle"],
        }
    }

    fn help(self) -> &'static str {
        match self {
            Metric::Manhattan => "|Δx| + |Δy| (the paper's choice)",
            Metric::Euclidean => "√(Δx² + Δy²)",
            Metric::Haversine => "Great-circle km between latitude/longitude points in degrees",
        }
    }
}

named_traits!(Metric);

/// The distance m at which similarity reaches zero: s(i, j) = 1 − min(1, d(i, j)/m).
///
/// The normaliser must not depend on the private records (it would leak through the scores),
/// so it is either given by the user or computed from the public candidates.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Normalizer {
    /// A user-given public bound, e.g. the paper's m = 0.266 (the Manhattan distance between
    /// the two furthest apart points of Manhattan, in degrees).
    Fixed(f64),
    /// The distance between opposite corners of the candidates' bounding box (for Haversine:
    /// from (lat_min, lon_min) to (lat_max, lon_max)). Public, since candidates are public.
    CandidateBoundingBox,
    /// The largest distance between two candidates (O(m²) to compute; public).
    CandidateDiameter,
}

impl Normalizer {
    /// The normaliser's value for these candidates. Errors if it is not finite and strictly
    /// positive (e.g. a bounding box of a single candidate).
    pub fn resolve(self, metric: Metric, candidates: &[[f64; 2]]) -> Result<f64> {
        let value = match self {
            Normalizer::Fixed(m) => m,
            Normalizer::CandidateBoundingBox => {
                let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
                for c in candidates {
                    for k in 0..2 {
                        lo[k] = lo[k].min(c[k]);
                        hi[k] = hi[k].max(c[k]);
                    }
                }
                if candidates.is_empty() {
                    0.0
                } else {
                    metric.distance(lo, hi)
                }
            }
            Normalizer::CandidateDiameter => {
                let mut d: f64 = 0.0;
                for (i, a) in candidates.iter().enumerate() {
                    for b in &candidates[i + 1..] {
                        d = d.max(metric.distance(*a, *b));
                    }
                }
                d
            }
        };
        // The kernel divides 2^22 by the normaliser in f32: keep that finite and non-zero.
        if value.is_finite() && (1e-30..=1e30).contains(&value) {
            Ok(value)
        } else {
            Err(Error::param(
                "normalizer",
                format!("must be finite and in [1e-30, 1e30], got {value}"),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn haversine_known_distances() {
        // JFK–LAX: 3974.34 km on the mean-radius sphere (3983 km on the WGS-84 ellipsoid,
        // the figure airline tables quote; a sphere is 0.2 % short on this route).
        let d = Metric::Haversine.distance([40.6413, -73.7781], [33.9416, -118.4085]);
        assert!((d - 3974.34).abs() < 0.01, "{d}");
        // Rosetta Code's worked example: BNA–LAX is 2887.2599506 km with R = 6372.8 km.
        let bna = Metric::Haversine.distance([36.12, -86.67], [33.94, -118.40]);
        assert!(
            (bna * 6372.8 / EARTH_RADIUS_KM - 2887.2599506).abs() < 1e-6,
            "{bna}"
        );
        // A quarter meridian is πR/2.
        let q = Metric::Haversine.distance([0.0, 0.0], [90.0, 0.0]);
        assert!((q - std::f64::consts::FRAC_PI_2 * EARTH_RADIUS_KM).abs() < 1e-9);
        // One degree of longitude on the equator is πR/180.
        let e = Metric::Haversine.distance([0.0, 10.0], [0.0, 11.0]);
        assert!((e - std::f64::consts::PI * EARTH_RADIUS_KM / 180.0).abs() < 1e-9);
        // Antipodes: πR.
        let a = Metric::Haversine.distance([0.0, 0.0], [0.0, 180.0]);
        assert!((a - std::f64::consts::PI * EARTH_RADIUS_KM).abs() < 1e-6);
    }

    #[test]
    fn normalizers() {
        let c = [[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]];
        assert_eq!(
            Normalizer::CandidateBoundingBox.resolve(Metric::Manhattan, &c),
            Ok(3.0)
        );
        assert_eq!(
            Normalizer::CandidateDiameter.resolve(Metric::Manhattan, &c),
            Ok(3.0)
        );
        assert_eq!(
            Normalizer::CandidateDiameter.resolve(Metric::Euclidean, &c),
            Ok(5f64.sqrt())
        );
        assert!(
            Normalizer::Fixed(0.0)
                .resolve(Metric::Manhattan, &c)
                .is_err()
        );
        assert!(
            Normalizer::Fixed(f64::NAN)
                .resolve(Metric::Manhattan, &c)
                .is_err()
        );
        assert!(
            Normalizer::CandidateBoundingBox
                .resolve(Metric::Manhattan, &c[..1])
                .is_err()
        );
        assert_eq!("L1".parse::<Metric>(), Ok(Metric::Manhattan));
        assert!("cosine".parse::<Metric>().is_err());
    }
}
