//! The places of `select` and `assign`: the private points and the public candidates files,
//! their coordinate columns — latitude/longitude (checked to lie on the globe) or planar
//! x/y, the same in both files — the candidates' name column, and the distance that turns
//! them into facility location (metric and normaliser).

use crate::output::spinner;
use anyhow::bail;
use disguise::data::read_points;
use disguise::objective::Metric;
use std::path::PathBuf;

/// The points, the candidates and how distances between them are measured.
#[derive(clap::Args, Debug, Clone)]
pub struct PlacesArgs {
    /// The private points (one record per row): a CSV file with a header row, a Parquet file
    /// (`.parquet`), or a folder or pattern of such part files (`trips/`, `trips/part-*`).
    /// Example: `--points pickups.csv`.
    #[arg(long, value_name = "FILE")]
    pub points: PathBuf,
    /// CSV file of the public candidate locations, with the same coordinate columns and an
    /// optional name column. Candidate i (0-based, file order) is element i of a
    /// `--constraint` file. Example: `--candidates landmarks.csv`.
    #[arg(long, value_name = "FILE")]
    pub candidates: PathBuf,
    #[command(flatten)]
    pub coordinates: CoordinateArgs,
    /// Distance: manhattan (|Δ|₁, the paper's choice), euclidean, or haversine (great-circle
    /// km between lat/lon points).
    #[arg(long, value_parser = super::names::named::<Metric>(), default_value_t = Metric::Manhattan)]
    pub metric: Metric,
    /// The public distance m at which a candidate stops serving a point (similarity
    /// 1 − min(1, d/m)), in the coordinates' units (km for haversine). It must not be
    /// computed from the private points. Default: the diameter of the candidates' bounding
    /// box (public). Example: `--normalizer 0.266`.
    #[arg(long, value_name = "M", allow_negative_numbers = true)]
    pub normalizer: Option<f64>,
}

impl PlacesArgs {
    /// Checks the metric against the columns, then reads the candidates — their coordinates
    /// and names (`#i` where the file has none), in file order — and, without
    /// `--normalizer`, checks that the default normaliser can be computed from them (the
    /// error names the file).
    pub fn read_candidates(&self, quiet: bool) -> anyhow::Result<(Vec<[f64; 2]>, Vec<String>)> {
        self.coordinates.check_metric(self.metric)?;
        let path = &self.candidates;
        let [c0, c1] = self.coordinates.columns();
        let bar = spinner(&format!("reading candidates {}", path.display()), quiet);
        let names = Some(self.coordinates.name_column.as_str());
        let read = read_points(path, [&c0, &c1], names, self.coordinates.check());
        bar.finish_and_clear();
        let read = read?;
        let names = match read.names {
            Some(names) => names,
            None => (0..read.coords.len()).map(|i| format!("#{i}")).collect(),
        };
        if self.normalizer.is_none() {
            super::default_normalizer(self.metric, &read.coords, path)?;
        }
        Ok((read.coords, names))
    }

    /// The table line naming the metric and the normaliser `m` in force
    /// ([`disguise::text::metric_line`]).
    pub fn metric_line(&self, m: f64) -> String {
        let given = self.normalizer.is_some();
        disguise::text::metric_line(self.metric, m, given, &crate::output::flag_of)
    }

    /// The reader of the points for a worker of a run ([`Place::SOLE`](disguise::cluster::Place::SOLE)
    /// for a one-process run): `--points` is one CSV or Parquet file (a distributed run deals
    /// its rows over the workers) or a folder or pattern of parts (part j goes to process
    /// j mod P).
    pub fn loader(
        &self,
    ) -> anyhow::Result<
        impl Fn(disguise::cluster::Place) -> disguise::Result<Vec<[f64; 2]>>
        + Clone
        + Send
        + Sync
        + 'static,
    > {
        let parts = std::sync::Arc::new(disguise::data::Parts::resolve(&self.points)?);
        let [c0, c1] = self.coordinates.columns();
        let check = self.coordinates.check();
        Ok(move |place: disguise::cluster::Place| {
            disguise::cluster::read_points_share(&parts, [c0.as_str(), c1.as_str()], check, place)
        })
    }
}

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
    pub fn check(&self) -> impl Fn(usize, f64) -> Result<(), String> + Copy + use<> {
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
