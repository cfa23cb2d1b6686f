//! The coordinate columns of `select` and `assign`: latitude/longitude (checked to lie on
//! the globe) or planar x/y, the same in the points and the candidates file, and the
//! candidates' name column.

use anyhow::bail;
use disguise::objective::Metric;

/// The coordinate options shared by the commands that read points and candidates.
#[derive(clap::Args, Debug, Clone)]
pub struct CoordinateArgs {
    /// Latitude column of both files (case-insensitive; default `lat` unless `--x/--y`).
    /// Latitudes must lie in [-90, 90], longitudes in [-180, 180]. Example: `--lat Lat`.
    #[arg(long, value_name = "COL", conflicts_with_all = ["x", "y"])]
    lat: Option<String>,
    /// Longitude column of both files (case-insensitive; default `lon`). Example: `--lon Lon`.
    #[arg(long, value_name = "COL", conflicts_with_all = ["x", "y"])]
    lon: Option<String>,
    /// Planar x column (instead of --lat/--lon; not for haversine). Example: `--x easting`.
    #[arg(long, value_name = "COL", requires = "y")]
    x: Option<String>,
    /// Planar y column. Example: `--y northing`.
    #[arg(long, value_name = "COL", requires = "x")]
    y: Option<String>,
    /// Name column of the candidates file (used when present; else candidates are named by
    /// index).
    #[arg(long, value_name = "COL", default_value = "name")]
    pub name_column: String,
}

impl CoordinateArgs {
    /// Whether the columns are latitude and longitude (not planar x/y).
    pub fn geographic(&self) -> bool {
        self.x.is_none()
    }

    /// The two coordinate columns to read.
    pub fn columns(&self) -> [String; 2] {
        match (&self.x, &self.y) {
            (Some(x), Some(y)) => [x.clone(), y.clone()],
            _ => [
                self.lat.clone().unwrap_or_else(|| "lat".into()),
                self.lon.clone().unwrap_or_else(|| "lon".into()),
            ],
        }
    }

    /// An error for a metric the columns cannot serve (haversine needs lat/lon).
    pub fn check_metric(&self, metric: Metric) -> anyhow::Result<()> {
        if !self.geographic() && metric == Metric::Haversine {
            bail!("--metric haversine needs latitude/longitude columns (--lat/--lon), not --x/--y");
        }
        Ok(())
    }

    /// The check of one coordinate (column 0 or 1) while reading: on the globe for lat/lon,
    /// anything finite for x/y.
    pub fn check(&self) -> impl Fn(usize, f64) -> Result<(), String> + Copy {
        let geographic = self.geographic();
        move |c, v| {
            if geographic {
                disguise::data::geographic(c, v)
            } else {
                Ok(())
            }
        }
    }
}
