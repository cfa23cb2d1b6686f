//! Private bin edges: a numeric column whose schema gives neither `bins` nor `edges` is cut
//! where its data lie, and its values are later drawn where they lie inside each bin, paid
//! from a reported share of the release's budget.
//!
//! # What is released
//! For each such column, in two steps on its public grid (the integers of an integer column
//! with integer bounds, else 2²⁰ equal cells of the bounds):
//!
//! 1. **Point masses** ([`QUANTILE_PART`] = 20 % of the column's budget): the m − 1
//!    quantiles k/m, m = max(b, 8), by [`PrivateQuantiles`] (Kaplan, Schnapp, Stemmer 2022
//!    over Smith 2011, exact sampling). A grid point two or more of them land on is a point
//!    mass (capital gain 0 for 92 % of people, 40 hours a week for half).
//! 2. **Shape** (the other 80 %): the counts of K equal cells of the grid, each point mass
//!    and each bound's grid point a cell of its own, with discrete Laplace (pure ε) or discrete Gaussian (zCDP) noise,
//!    negative counts set to 0. K = clamp(⌊n/(8·sd)⌋, 16, 64) for the public n and the
//!    noise's sd (every grid point its own cell when the grid has fewer points).
//!
//! Cells are measured only when they pay ([`EdgeBudget::cells_pay`], public: n and the
//! column's budget): with fewer than 32 noise standard deviations of records (a few hundred
//! records, or many columns at a small ε) the column is in *quantile mode* instead — the
//! whole budget buys b + 1 quantiles (k/b and the tails 1/(2b), 1 − 1/(2b)), which are its
//! edges (a point chosen twice is a bin of its own), and values are drawn uniformly inside
//! their bins.
//!
//! Then, as post-processing of those released values, the column's inner edges cut the
//! noisy counts into b bins of equal noisy mass (b from the release's bin rule), a cell of
//! one grid point being a bin of its own ([`Bins::from_edges`](super::Bins::from_edges)),
//! and the noisy counts become the column's [`Density`](super::Density): a synthetic value
//! is drawn inside its bin from the cells the bin covers. Landsat's bands fill [39, 102] of
//! the bounds [0, 255]: the cells put the values there even when a bin reaches a bound.
//! Measured (EXPERIMENTS.md, *Numeric columns on raw values*): rank-based edges alone left
//! Landsat at a mean KS distance of 0.14 at ε = 1, the cells bring it to about 0.05.
//!
//! Records missing in a nullable column are not counted: to the column, replacing a record
//! may add or remove a value, which both steps' guarantees cover.
//!
//! # Guarantee
//! For replace-one neighbours (two tables of the same public n that differ in one record),
//! each column's edges cost what their [`EdgeBudget`] says, whatever b:
//! * [`EdgeBudget::Pure`]: ε-DP. The quantiles are 0.2ε-DP (the [`PrivateQuantiles`]
//!   guarantee, ε = units·ε_c); the cell counts have L1 sensitivity 2 (one count down, one
//!   up), so discrete Laplace of scale 2/(0.8ε) is 0.8ε-DP (Ghosh, Roughgarden,
//!   Sundararajan 2009); the cells are a function of the quantiles' output, so basic
//!   adaptive composition gives ε (Dwork–Roth 2014, Theorem 3.16);
//! * [`EdgeBudget::Zcdp`]: ρ-zCDP. Each of the quantiles' `units` exponential-mechanism
//!   calls is ε_c-bounded-range (its score moves by at most 1 and its weights are
//!   exp(ε_c·u/2)), hence ε_c²/8-zCDP (Cesar and Rogers 2021, Lemma 3.4): ε_c =
//!   √(8·0.2ρ/units); the cell counts have L2² sensitivity 2, so the discrete Gaussian of
//!   variance σ² = 1/(0.8ρ) is 2/(2σ²) = 0.8ρ-zCDP (Canonne, Kamath, Steinke 2020); zCDP
//!   composes adaptively: ρ. Every share is rounded down ([`EdgeBudget::split`]). The
//!   proof is in `docs/proofs/private-quantiles.md` (*Under zCDP*, *Private bin edges*).
//!
//! Columns compose by the release's rule (basic composition under pure ε, zCDP composition
//! under ρ), charged with the rest of the release to its guarantee and its ledger entry.

use super::bins::format_number;
use super::discretize::{DiscretizedFile, domains_for_schema};
use super::discretized::Discretized;
use super::quantiles::{Grid, GridCounts, MAX_GRID_CELLS, PrivateQuantiles, Targets};
use super::schema::DomainSource;
use super::schema::{ColumnType, Schema};
use super::table::{ColumnValues, SchemaReader, Table, Value, check_complete};
use crate::error::{Error, Result};
use crate::noise::CountNoise;
use crate::noise::SecureRng;
use crate::numeric::round::{div_down, div_up, sub_down};
use crate::privacy::{Epsilon, PrivacyCost};
use serde::Serialize;
use std::path::Path;

/// The share of a release's budget spent on private edges when some numeric column needs
/// them (of ε under pure ε-DP, of ρ under zCDP), split evenly over those columns.
/// Measured on Adult, Landsat and a numeric table at ε ∈ {0.3, 1, 3} (EXPERIMENTS.md,
/// *Numeric columns on raw values*).
pub const DEFAULT_EDGE_SHARE: f64 = 0.2;

/// The cells of the grid of a column that is not an integer grid: 2²⁰ (a record moves by at
/// most a millionth of the range; the rank error grows only with ln 2²⁰ ≈ 14).
pub const EDGE_GRID_CELLS: u64 = 1 << 20;

/// What one column's private edges may cost.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EdgeBudget {
    /// ε-DP per column (pure releases; basic composition).
    Pure {
        /// ε of one column's edges.
        epsilon: f64,
    },
    /// ρ-zCDP per column (releases accounted in zCDP).
    Zcdp {
        /// ρ of one column's edges.
        rho: f64,
    },
}

impl EdgeBudget {
    /// The share `share` ∈ (0, 1) of a pure budget ε, split over `columns` columns.
    ///
    /// # Errors
    /// A share outside (0, 1) or a per-column ε that is not positive.
    pub fn pure_share(epsilon: f64, share: f64, columns: usize) -> Result<Self> {
        Ok(Self::Pure {
            epsilon: pure_per_column(epsilon, share, columns)?,
        })
    }

    /// The cost of one column's edges.
    ///
    /// # Errors
    /// A budget that is not positive and finite.
    pub fn cost(&self) -> Result<PrivacyCost> {
        match *self {
            Self::Pure { epsilon } => Ok(PrivacyCost::Pure {
                epsilon: Epsilon::new(epsilon)?,
            }),
            Self::Zcdp { rho } => PrivacyCost::zcdp(rho),
        }
    }

    /// One column's budget split between its quantiles ([`QUANTILE_PART`]) and its cell
    /// counts: the rest, as the noise of a count vector whose replace-one sensitivity is
    /// L1 = 2, L2² = 2 — discrete Laplace of scale 2/ε_h under pure ε, discrete Gaussian of
    /// variance 1/ρ_h under zCDP (2/(2σ²) = ρ_h), every step rounded so that the two parts
    /// cost at most the whole.
    ///
    /// # Errors
    /// A budget too small to split.
    pub fn split(&self) -> Result<(EdgeBudget, CountNoise)> {
        let small = || Error::param("edge_share", "leaves no budget for the edges");
        let (q, h) = match *self {
            Self::Pure { epsilon: b } | Self::Zcdp { rho: b } => {
                let q = mul_down(b, QUANTILE_PART);
                (q, sub_down(b, q))
            }
        };
        if !(q > 0.0 && h > 0.0) {
            return Err(small());
        }
        Ok(match *self {
            Self::Pure { .. } => (
                Self::Pure { epsilon: q },
                CountNoise::Laplace {
                    scale: div_up(2.0, h),
                },
            ),
            Self::Zcdp { .. } => (
                Self::Zcdp { rho: q },
                CountNoise::Gaussian {
                    variance: div_up(1.0, h),
                },
            ),
        })
    }

    /// Whether a column's cells are worth measuring at this budget for n records: when the
    /// whole budget spent on cell counts would leave at least 32 noise standard deviations
    /// of records (16 cells holding 2 sd each, were the column spread evenly). Else the
    /// column is in *quantile mode*: the whole budget buys its edges as quantiles (k/b and
    /// two tails) and values are drawn uniformly inside their bins. Public: n and the budget.
    /// Measured (EXPERIMENTS.md, *Numeric columns on raw values*): Landsat at ε = 1 (n/sd
    /// ≈ 47) gains from the cells, wdbc at ε = 3 (n/sd ≈ 11) loses classifier AUC with them.
    pub fn cells_pay(&self, n: u64) -> bool {
        let sd = match *self {
            // Discrete Laplace of scale 2/ε: sd ≈ √2·2/ε.
            Self::Pure { epsilon } => std::f64::consts::SQRT_2 * 2.0 / epsilon,
            // Discrete Gaussian of variance 1/ρ.
            Self::Zcdp { rho } => (1.0 / rho).sqrt(),
        };
        n as f64 >= 32.0 * sd
    }

    /// The ε to give [`PrivateQuantiles::new`] for a request of `units` calls, such that the
    /// request costs at most this budget.
    fn request_epsilon(&self, units: u32) -> Result<Epsilon> {
        let u = f64::from(units);
        let e = match *self {
            Self::Pure { epsilon } => epsilon,
            Self::Zcdp { rho } => {
                // ε_c = √(8ρ/units) rounded down, then units·ε_c rounded down: the request's
                // own ε_c (= that / units, rounded down) is at most it.
                let ec = sqrt_down(div_down(8.0 * rho, u));
                mul_down(ec, u)
            }
        };
        Epsilon::new(e).map_err(|_| Error::param("edge_share", "leaves no budget for the edges"))
    }
}

/// ε of each column's edges when the share `share` ∈ (0, 1) of a pure budget ε is split over
/// `columns` columns, rounded down.
///
/// # Errors
/// A share outside (0, 1) or a per-column ε that is not positive.
pub(crate) fn pure_per_column(epsilon: f64, share: f64, columns: usize) -> Result<f64> {
    check_share(share)?;
    let e = div_down(epsilon * share, columns.max(1) as f64);
    Epsilon::new(e).map_err(|_| Error::param("edge_share", "leaves no ε for the edges"))?;
    Ok(e)
}

/// The share must be in (0, 1).
pub(crate) fn check_share(share: f64) -> Result<()> {
    if share > 0.0 && share < 1.0 {
        Ok(())
    } else {
        Err(Error::param(
            "edge_share",
            format!("must be in (0, 1), got {share}"),
        ))
    }
}

fn sqrt_down(x: f64) -> f64 {
    let s = x.sqrt();
    if s > 0.0 && s.mul_add(s, -x) > 0.0 {
        s.next_down()
    } else {
        s
    }
}

fn mul_down(a: f64, b: f64) -> f64 {
    let p = a * b;
    if a.mul_add(b, -p) < 0.0 {
        p.next_down()
    } else {
        p
    }
}

/// What [`EdgePlan::read_files`] read: the number of records, the planned columns' counts and
/// values, every other column's codes, and the values clamped per column.
pub(crate) struct EdgeReading {
    pub(crate) rows: usize,
    pub(crate) counts: Vec<GridCounts>,
    pub(crate) values: Vec<Vec<f64>>,
    pub(crate) codes: Vec<Option<crate::data::Codes>>,
    pub(crate) clipped: Vec<u64>,
}

/// One column that gets private edges: public facts only.
#[derive(Debug, Clone, PartialEq)]
struct EdgeColumn {
    index: usize,
    name: String,
    lo: f64,
    hi: f64,
    grid: Grid,
}

impl EdgeColumn {
    /// A request on this column's grid with m targets (m = 1 for counting only: the grid
    /// index of a value does not depend on the targets).
    fn request(&self, targets: Vec<f64>, epsilon: Epsilon) -> Result<PrivateQuantiles> {
        PrivateQuantiles::new(
            self.lo,
            self.hi,
            self.grid,
            Targets::Probabilities(targets),
            epsilon,
        )
    }

    /// Quantile mode's edges of released grid indices (non-decreasing): the cut below each
    /// chosen grid point, and for a point chosen twice or more also the cut above it, so that
    /// the point's own values make a bin. All edges distinct.
    fn quantile_edges(&self, indices: &[u64]) -> Vec<f64> {
        let mut points: Vec<u64> = Vec::new();
        for (i, &g) in indices.iter().enumerate() {
            if i > 0 && indices[i - 1] == g {
                continue;
            }
            points.push(g);
            if indices.get(i + 1) == Some(&g) {
                points.push(g + 1);
            }
        }
        let g = self.grid_points();
        points.retain(|&p| p > 0 && p < g);
        points.dedup();
        self.cuts(&points)
    }

    /// The value that cuts below grid point g: the values that snap below g fall left of it.
    fn cut(&self, g: u64) -> f64 {
        let v = match self.grid {
            Grid::Integers => self.lo + g as f64,
            Grid::Cells(c) => {
                // Any value between the grid points g − 1 and g splits the records the same
                // way up to the grid's resolution: the shortest decimal in the middle half of
                // that gap, so that reports and schemas stay readable (a function of g alone:
                // post-processing).
                let w = (self.hi - self.lo) / c as f64;
                let at = |t: f64| self.lo + t * w;
                shortest_between(at(g as f64 - 0.75), at(g as f64 - 0.25))
            }
        };
        v.clamp(self.lo, self.hi)
    }

    /// The inner edges that cut the noisy cell counts `noisy` (cells `bounds`, as
    /// [`EdgeColumn::cell_bounds`]) into `bins` bins of equal noisy mass: the target k/b
    /// falls in the cell where the cumulative count crosses it, at the grid point its share
    /// of that cell's count gives; a one-point cell is cut on both sides (its own bin). No
    /// noisy mass at all: the grid's equal parts. Post-processing.
    fn edges_of(&self, bounds: &[u64], noisy: &[f64], bins: usize) -> Vec<f64> {
        let total: f64 = noisy.iter().sum();
        let weight = |j: usize| {
            if total > 0.0 {
                noisy[j]
            } else {
                (bounds[j + 1] - bounds[j]) as f64
            }
        };
        let total = if total > 0.0 {
            total
        } else {
            (bounds[bounds.len() - 1] - bounds[0]) as f64
        };
        let mut points = Vec::new();
        let (mut j, mut before) = (0, 0.0);
        for k in 1..bins {
            let t = total * k as f64 / bins as f64;
            while j + 1 < noisy.len() && before + weight(j) < t {
                before += weight(j);
                j += 1;
            }
            let (a, b) = (bounds[j], bounds[j + 1]);
            if b - a == 1 {
                points.extend([a, b]);
            } else {
                let share = ((t - before) / weight(j).max(f64::MIN_POSITIVE)).clamp(0.0, 1.0);
                points.push(a + ((b - a) as f64 * share).round() as u64);
            }
        }
        let g = self.grid_points();
        points.retain(|&p| p > 0 && p < g);
        points.sort_unstable();
        points.dedup();
        self.cuts(&points)
    }

    /// The cut values of increasing grid points in (0, G): [`EdgeColumn::cut`] of each, the
    /// upper bound listed twice when the last integer is a point of its own (`[…, hi, hi]`:
    /// the one-value bin {hi}, as [`Bins::from_edges`](super::Bins::from_edges) reads it).
    fn cuts(&self, points: &[u64]) -> Vec<f64> {
        let mut out: Vec<f64> = points.iter().map(|&p| self.cut(p)).collect();
        if out.last() == Some(&self.hi) {
            out.push(self.hi);
        }
        out
    }

    /// The number of grid points.
    fn grid_points(&self) -> u64 {
        match self.grid {
            Grid::Integers => (self.hi - self.lo) as u64 + 1,
            Grid::Cells(c) => c,
        }
    }

    /// The released density's cells over this column's grid as boundaries 0 = B₀ < B₁ < … <
    /// B_K = G (cell j holds grid points [B_j, B_{j+1})): `cells` equal parts of the grid
    /// (every grid point its own cell when the grid has fewer points), and a cell of its own
    /// for each point `masses` names and for the first and last grid points. A function of public values and released ones.
    fn cell_bounds(&self, cells: u64, masses: &[u64]) -> Vec<u64> {
        let g = self.grid_points();
        let mut b: Vec<u64> = if g <= cells {
            (0..=g).collect()
        } else {
            // j·G/K exactly in u128 (G ≤ 2^53, K ≤ 64).
            (0..=cells)
                .map(|j| (u128::from(j) * u128::from(g) / u128::from(cells)) as u64)
                .collect()
        };
        // The bounds' own points are cells too: 0 in amounts and top-codes are the common
        // masses, and a budget too small for the quantiles to find them still counts them.
        for &m in masses.iter().chain(&[0, g.saturating_sub(1)]) {
            b.push(m);
            b.push((m + 1).min(g));
        }
        b.sort_unstable();
        b.dedup();
        b
    }
}

/// The number in [a, b] with the fewest decimals (the midpoint if none has fewer than 17).
fn shortest_between(a: f64, b: f64) -> f64 {
    let mid = a + (b - a) / 2.0;
    for digits in 0..17 {
        let scale = 10f64.powi(digits);
        let v = (mid * scale).round() / scale;
        if (a..=b).contains(&v) {
            return v;
        }
    }
    mid
}

/// Which columns of a release get private edges and what each may cost: fixed from the
/// schema and the budget before any record is read.
///
/// ```
/// use disguise::histogram::{ColumnSpec, EdgeBudget, EdgePlan, Schema};
/// let mut gain = ColumnSpec::numeric("gain", 0.0, 99_999.0);
/// gain.integer = true;
/// let mut hours = ColumnSpec::numeric("hours", 1.0, 99.0);
/// hours.bins = Some(10); // public bins: no budget
/// let schema = Schema::new(vec![gain, hours, ColumnSpec::categorical("y", &["a", "b"])])?;
/// let plan = EdgePlan::new(&schema, EdgeBudget::Pure { epsilon: 0.05 })?;
/// assert_eq!(plan.columns(), vec!["gain".to_string()]);
/// # Ok::<(), disguise::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct EdgePlan {
    budget: EdgeBudget,
    columns: Vec<EdgeColumn>,
}

impl EdgePlan {
    /// How many columns of `schema` need private edges: numeric, with public bounds, and
    /// neither `bins` nor `edges`. A function of the schema alone.
    pub fn count(schema: &Schema) -> usize {
        schema.columns.iter().filter(|c| needs_edges(c)).count()
    }

    /// The plan for `schema`'s columns that need edges, each at `budget`.
    ///
    /// # Errors
    /// A budget that is not positive and finite.
    pub fn new(schema: &Schema, budget: EdgeBudget) -> Result<Self> {
        budget.cost()?;
        let columns = schema
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| needs_edges(c))
            .map(|(index, c)| {
                let [lo, hi] = c.bounds.unwrap_or([0.0, 1.0]);
                let integers = c.integer
                    && lo.fract() == 0.0
                    && hi.fract() == 0.0
                    && hi - lo <= MAX_GRID_CELLS as f64
                    && lo.abs() <= 2f64.powi(52);
                EdgeColumn {
                    index,
                    name: c.name.trim().to_string(),
                    lo,
                    hi,
                    grid: if integers {
                        Grid::Integers
                    } else {
                        Grid::Cells(EDGE_GRID_CELLS)
                    },
                }
            })
            .collect();
        Ok(Self { budget, columns })
    }

    /// A plan with no column (a release that cuts every column by public rules).
    pub fn none() -> Self {
        Self {
            budget: EdgeBudget::Pure { epsilon: 1.0 },
            columns: Vec::new(),
        }
    }

    /// The names of the columns that get private edges, in the schema's order.
    pub fn columns(&self) -> Vec<String> {
        self.columns.iter().map(|c| c.name.clone()).collect()
    }

    /// Refuses a distributed release of a plan with columns: private edges need every value
    /// of a column in one place, which a cluster does not (yet) bring together.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the first column and the fix (public `bins` or
    /// `edges` in the schema).
    pub fn refuse_on_a_cluster(&self) -> Result<()> {
        let Some(first) = self.columns.first() else {
            return Ok(());
        };
        let more = match self.columns.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        Err(Error::param(
            "schema",
            format!(
                "column '{}'{more} has neither `bins` nor `edges`: a distributed run cannot \
                 draw private bin edges yet; give it public `bins = N` or `edges = [...]` in \
                 the schema",
                first.name
            ),
        ))
    }

    /// Whether no column needs edges.
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// The budget of each column.
    pub fn budget(&self) -> EdgeBudget {
        self.budget
    }

    /// The one reading of `paths` with a complete `schema` for a release with private edges:
    /// every column checked and coded as it is read — the planned columns kept as their
    /// values (8 bytes a value until their edges are drawn, then a code like the others) and
    /// counted on their grids — and the values clamped into the bounds counted per column (a
    /// diagnostic).
    ///
    /// # Errors
    /// As [`Table::read`](super::Table::read); no data rows.
    pub(crate) fn read_files(&self, paths: &[&Path], schema: &Schema) -> Result<EdgeReading> {
        let probes = self.probes()?;
        let width = schema.columns.len();
        let slot = self.slots(width);
        // Every other column's domain is fixed by the schema (the planned ones get a
        // placeholder here, and their own domains once their edges are drawn).
        let mut fixed = schema.clone();
        for c in &self.columns {
            fixed.columns[c.index].bins = Some(2);
        }
        let domains = super::Discretized::domains_of(&fixed, 0)?;
        let mut codes: Vec<Option<crate::data::Codes>> = domains
            .iter()
            .enumerate()
            .map(|(c, d)| {
                slot[c]
                    .is_none()
                    .then(|| crate::data::Codes::for_arity(d.size(), 0))
            })
            .collect();
        let mut kept: Vec<Vec<f64>> = vec![Vec::new(); self.columns.len()];
        let mut counts = vec![GridCounts::default(); self.columns.len()];
        let mut clipped = vec![0u64; width];
        let mut rows = 0usize;
        let reader = SchemaReader::new(schema);
        for path in paths {
            reader.scan(path, |file, c, value| {
                rows += usize::from(c == 0);
                let domain = &domains[c];
                if let super::Domain::Numeric { bins, .. } = domain
                    && let Value::Number(x) = value
                {
                    let (lo, hi) = bins.bounds();
                    clipped[c] += u64::from(!(lo..=hi).contains(&x));
                }
                if let Some(k) = slot[c] {
                    match value {
                        Value::Number(x) => {
                            counts[k].add(probes[k].index_of(x), 1);
                            kept[k].push(x);
                        }
                        _ => kept[k].push(f64::NAN),
                    }
                    return Ok(());
                }
                let code = match (domain, value) {
                    (super::Domain::Numeric { bins, .. }, Value::Number(x)) => bins.index(x) as u32,
                    (super::Domain::Numeric { bins, .. }, _) => bins.count() as u32,
                    (_, Value::Level(i)) => i,
                    (super::Domain::Categorical { levels, .. }, Value::Missing) => {
                        levels.len() as u32
                    }
                    _ => {
                        return Err(Error::parse(format!(
                            "{}:{}: a value outside the schema's domain",
                            file.shown(),
                            file.line()
                        )));
                    }
                };
                if let Some(column) = codes[c].as_mut() {
                    column.push(code);
                }
                Ok(())
            })?;
        }
        if rows == 0 {
            return Err(Error::param("data", "no data rows"));
        }
        Ok(EdgeReading {
            rows,
            counts,
            values: kept,
            codes,
            clipped,
        })
    }

    /// [`Discretized::read`] with private edges: when the plan has columns, one reading codes
    /// every other column and keeps the planned ones' values (8 bytes a value), counted on
    /// their grids; then `key` makes the generator, their edges are released
    /// ([`EdgePlan::release`], from a generator forked from it) and written into the schema,
    /// and the kept values are coded with them. The release is `None` when no
    /// column needed edges; `key` is then called after the reading. Either way a reading
    /// error comes before the generator is made (a seeded run warns only once it is sure to
    /// run).
    ///
    /// ```
    /// use disguise::histogram::{ColumnSpec, EdgeBudget, EdgePlan, Schema};
    /// use disguise::SecureRng;
    /// # let dir = std::env::temp_dir().join("disguise-doc-read-with-edges");
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// let path = dir.join("d.csv");
    /// let rows: String = (0..500).map(|i| format!("{},{}\n", i % 97, ["a", "b"][i % 2])).collect();
    /// std::fs::write(&path, format!("x,y\n{rows}")).unwrap();
    /// let schema = Schema::new(vec![ColumnSpec::numeric("x", 0.0, 1000.0), ColumnSpec::categorical("y", &["a", "b"])])?;
    /// let plan = EdgePlan::new(&schema, EdgeBudget::Pure { epsilon: 1.0 })?;
    /// let (read, edges, _rng) = plan.read(&[&path], &schema, || SecureRng::from_os())?;
    /// let edges = edges.expect("x has neither bins nor edges");
    /// assert_eq!(edges.columns[0].column, "x");
    /// assert!(read.schema.columns[0].edges.is_some());
    /// # Ok::<(), disguise::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Discretized::read`] and [`EdgePlan::release`]; `key`'s.
    pub fn read<E: From<Error>>(
        &self,
        paths: &[&Path],
        schema: &Schema,
        key: impl FnOnce() -> std::result::Result<SecureRng, E>,
    ) -> std::result::Result<(DiscretizedFile, Option<EdgeRelease>, SecureRng), E> {
        let plan = self;
        if plan.is_empty() {
            let read = Discretized::read(paths, schema, DomainSource::Schema)?;
            return Ok((read, None, key()?));
        }
        schema.validate()?;
        check_complete(schema, DomainSource::Schema)?;
        let reading = plan.read_files(paths, schema)?;
        let n = reading.rows;
        let mut rng = key()?;
        let (resolved, release) =
            plan.release(schema, n as u64, &reading.counts, &mut rng.fork())?;
        let domains = domains_for_schema(&resolved, n as u64, true)?;
        let slots = plan.slots(domains.len());
        let mut values = reading.values;
        let mut codes = Vec::with_capacity(domains.len());
        for ((c, coded), slot) in reading.codes.into_iter().enumerate().zip(&slots) {
            codes.push(match (coded, slot) {
                (Some(coded), _) => coded,
                (None, Some(k)) => {
                    let column = std::mem::take(&mut values[*k]);
                    EdgePlan::codes_of(&column, &domains[c])?
                }
                (None, None) => unreachable!("every column is coded or planned"),
            });
        }
        let clipped = resolved
            .names()
            .into_iter()
            .zip(reading.clipped)
            .filter(|&(_, k)| k > 0)
            .collect();
        let data = Discretized::from_compact(resolved.names(), domains, codes)?;
        let file = DiscretizedFile {
            data,
            schema: resolved,
            inferred: Vec::new(),
            clipped,
        };
        Ok((file, Some(release), rng))
    }

    /// [`Discretized::new`] with private edges for this plan's columns (see
    /// [`EdgePlan::read`]).
    ///
    /// # Errors
    /// As [`Discretized::new`] and [`EdgePlan::release`].
    pub fn discretize(
        &self,
        table: &Table,
        rng: &mut SecureRng,
    ) -> Result<(Discretized, Option<EdgeRelease>)> {
        let plan = self;
        if plan.is_empty() {
            return Ok((Discretized::new(table)?, None));
        }
        let slots = plan.slots(table.width());
        let mut counts = Vec::new();
        for (c, slot) in slots.iter().enumerate() {
            if slot.is_some() {
                let ColumnValues::Numeric(values) = table.column(c) else {
                    return Err(Error::param("schema", "a planned column is not numeric"));
                };
                counts.push(plan.counts_of(counts.len(), values)?);
            }
        }
        let n = table.rows() as u64;
        let (resolved, release) = plan.release(table.schema(), n, &counts, &mut rng.fork())?;
        let data = Discretized::with_domains(table, domains_for_schema(&resolved, n, true)?)?;
        Ok((data, Some(release)))
    }

    /// The rows `keep(file, row)` selects of `paths` (a worker's share), counted on the
    /// planned columns' grids: how many rows, and the counts. A complete `schema`.
    ///
    /// # Errors
    /// As [`Table::read`](super::Table::read).
    // Used by distributed runs only.
    #[cfg_attr(not(feature = "cluster"), allow(dead_code))]
    pub(crate) fn count_where(
        &self,
        paths: &[&Path],
        schema: &Schema,
        keep: &dyn Fn(usize, u64) -> bool,
    ) -> Result<(u64, Vec<GridCounts>)> {
        let probes = self.probes()?;
        let slot = self.slots(schema.columns.len());
        let mut counts = vec![GridCounts::default(); self.columns.len()];
        let reader = SchemaReader::new(schema);
        let mut n = 0u64;
        for (j, path) in paths.iter().enumerate() {
            let (mut row, mut kept) = (0u64, false);
            reader.scan(path, |_, c, value| {
                if c == 0 {
                    kept = keep(j, row);
                    row += 1;
                    n += u64::from(kept);
                }
                if let (true, Some(k), Value::Number(x)) = (kept, slot[c], value) {
                    counts[k].add(probes[k].index_of(x), 1);
                }
                Ok(())
            })?;
        }
        Ok((n, counts))
    }

    /// `schema` with released edges written into the planned columns, in order (as
    /// [`EdgePlan::release`] writes them): how every worker of a distributed run learns the
    /// edges process 0 drew.
    ///
    /// # Errors
    /// Another number of columns than planned.
    #[cfg_attr(not(feature = "cluster"), allow(dead_code))]
    pub(crate) fn with_released(&self, schema: &Schema, released: Vec<Released>) -> Result<Schema> {
        if released.len() != self.columns.len() {
            return Err(Error::param("edges", "edges for another number of columns"));
        }
        let mut resolved = schema.clone();
        for (c, r) in self.columns.iter().zip(released) {
            // Quantile mode releases no cells: values are drawn uniformly inside their bins.
            let density = if r.weights.is_empty() {
                None
            } else {
                Some(super::Density::new(
                    c.lo,
                    c.hi,
                    &r.cuts,
                    &r.weights,
                    c.grid == Grid::Integers,
                )?)
            };
            let col = &mut resolved.columns[c.index];
            col.edges = Some(r.edges);
            col.density = density;
        }
        Ok(resolved)
    }

    /// The released edges of the planned columns, in order, from a schema
    /// [`EdgePlan::release`] resolved.
    #[cfg_attr(not(feature = "cluster"), allow(dead_code))]
    pub(crate) fn released(&self, resolved: &Schema) -> Vec<Released> {
        self.columns
            .iter()
            .map(|c| {
                let col = &resolved.columns[c.index];
                Released {
                    edges: col.edges.clone().unwrap_or_default(),
                    cuts: col
                        .density
                        .as_ref()
                        .map(|d| d.cuts().to_vec())
                        .unwrap_or_default(),
                    weights: col
                        .density
                        .as_ref()
                        .map(|d| d.weights().to_vec())
                        .unwrap_or_default(),
                }
            })
            .collect()
    }

    /// The codes of a planned column's `values` (NaN: missing) in its released `domain`.
    pub(crate) fn codes_of(values: &[f64], domain: &super::Domain) -> Result<crate::data::Codes> {
        let super::Domain::Numeric { bins, .. } = domain else {
            return Err(Error::param("schema", "a planned column is not numeric"));
        };
        let mut codes = crate::data::Codes::for_arity(domain.size(), values.len());
        for &x in values {
            codes.push(if x.is_nan() {
                bins.count() as u32
            } else {
                bins.index(x) as u32
            });
        }
        Ok(codes)
    }

    /// The position of each schema column among the planned ones.
    pub(crate) fn slots(&self, width: usize) -> Vec<Option<usize>> {
        let mut slot = vec![None; width];
        for (k, c) in self.columns.iter().enumerate() {
            slot[c.index] = Some(k);
        }
        slot
    }

    /// Planned column `k`'s counts on its grid of `values` (NaN: missing).
    pub(crate) fn counts_of(&self, k: usize, values: &[f64]) -> Result<GridCounts> {
        let probe = self.columns[k].request(vec![0.5], Epsilon::new(1.0)?)?;
        let mut counts = GridCounts::default();
        for &v in values.iter().filter(|v| !v.is_nan()) {
            counts.add(probe.index_of(v), 1);
        }
        Ok(counts)
    }

    /// Requests used only to snap values to each column's grid.
    fn probes(&self) -> Result<Vec<PrivateQuantiles>> {
        self.columns
            .iter()
            .map(|c| c.request(vec![0.5], Epsilon::new(1.0)?))
            .collect()
    }

    /// Releases every planned column's edges and density from its counts (n: the table's
    /// public number of records, which fixes the number of bins by `schema`'s rule), and
    /// returns `schema` with them written into it, and what was released.
    ///
    /// Per column (see the [module documentation](self)): private quantiles find the point
    /// masses, noisy counts of cells measure the column's shape, and the edges are the
    /// quantiles k/b of those noisy counts (post-processing).
    ///
    /// # Errors
    /// As [`PrivateQuantiles::new`] (a budget too small), [`default_bins`](super::default_bins).
    pub fn release(
        &self,
        schema: &Schema,
        n: u64,
        counts: &[GridCounts],
        rng: &mut SecureRng,
    ) -> Result<(Schema, EdgeRelease)> {
        let mut released = Vec::with_capacity(self.columns.len());
        let mut columns = Vec::with_capacity(self.columns.len());
        // Cell mode: the quantiles' part of the budget and the cells' noise; quantile mode:
        // the whole budget on the quantiles.
        let split = if self.budget.cells_pay(n) {
            Some(self.budget.split()?)
        } else {
            None
        };
        if !self.columns.is_empty() {
            let bins = super::default_bins(schema, n)?.max(2);
            let (quantile_budget, targets) = match &split {
                Some((q, _)) => (*q, mass_targets(bins)),
                None => (self.budget, quantile_targets(bins)),
            };
            let m = targets.len();
            let cells = split
                .as_ref()
                .map(|(_, noise)| (cell_count(n, noise.variance().sqrt()), noise));
            for (c, counts) in self.columns.iter().zip(counts) {
                let units = c.request(targets.clone(), Epsilon::new(1.0)?)?.units();
                let q = c.request(targets.clone(), quantile_budget.request_epsilon(units)?)?;
                let found = q.release_counts(counts, rng)?;
                let mut masses: Vec<u64> = found
                    .indices
                    .windows(2)
                    .filter(|w| w[0] == w[1])
                    .map(|w| w[0])
                    .collect();
                masses.dedup();
                let (edges, cuts, noisy) = match cells {
                    Some((cells, noise)) => {
                        let bounds = c.cell_bounds(cells, &masses);
                        let mut exact = vec![0u64; bounds.len() - 1];
                        let last = exact.len() - 1;
                        for (g, k) in counts.iter() {
                            let j = bounds.partition_point(|&b| b <= g).saturating_sub(1);
                            exact[j.min(last)] += k;
                        }
                        let noisy: Vec<f64> = noise
                            .measure(&exact, rng)?
                            .into_iter()
                            .map(|y| y.max(0.0))
                            .collect();
                        let edges = c.edges_of(&bounds, &noisy, bins);
                        (edges, c.cuts(&bounds[1..bounds.len() - 1]), noisy)
                    }
                    None => (c.quantile_edges(&found.indices), Vec::new(), Vec::new()),
                };
                columns.push(ReleasedEdges {
                    column: c.name.clone(),
                    quantiles: m,
                    grid: match c.grid {
                        Grid::Integers => "integers".to_string(),
                        Grid::Cells(k) => format!("{k} cells"),
                    },
                    epsilon_per_call: q.epsilon_per_call().get(),
                    calls: q.units(),
                    masses: masses.iter().map(|&g| format_number(c.cut(g))).collect(),
                    edges: edges.iter().map(|&e| format_number(e)).collect(),
                    cell_cuts: cuts.iter().map(|&x| format_number(x)).collect(),
                    cell_counts: noisy.clone(),
                });
                released.push(Released {
                    edges,
                    cuts,
                    weights: noisy,
                });
            }
        }
        Ok((
            self.with_released(schema, released)?,
            EdgeRelease {
                mechanism: EDGE_MECHANISM,
                budget: self.budget,
                cell_noise: split.map(|(_, noise)| noise),
                columns,
            },
        ))
    }
}

/// The share of each column's edge budget spent on the quantiles that find its point
/// masses; the rest buys the noisy cell counts. Measured on Landsat and Adult (EXPERIMENTS.md,
/// *Numeric columns on raw values*): the cells carry the shape, the quantiles only need to
/// agree on a point.
pub const QUANTILE_PART: f64 = 0.2;

/// The number of equal cells of a column's density: as many as keep a column spread evenly
/// over its bounds at eight noise standard deviations `sd` per cell, between 16 and 64.
fn cell_count(n: u64, sd: f64) -> u64 {
    let k = n as f64 / (8.0 * sd.max(1e-9));
    if k.is_finite() {
        (k as u64).clamp(16, 64)
    } else {
        64
    }
}

/// Quantile mode's targets for b bins: k/b for k = 1, …, b − 1, and the tails 1/(2b) and
/// 1 − 1/(2b), which keep the outer bins (they reach the public bounds) to half a bin's mass.
fn quantile_targets(bins: usize) -> Vec<f64> {
    let b = bins.clamp(2, super::MAX_QUANTILES - 1);
    let tail = 1.0 / (2 * b) as f64;
    let mut t = vec![tail];
    t.extend((1..b).map(|k| k as f64 / b as f64));
    t.push(1.0 - tail);
    t
}

/// The quantile targets that look for point masses: k/m for m = max(b, 8) (a point mass
/// holding 2/m of the records is hit twice).
fn mass_targets(bins: usize) -> Vec<f64> {
    let m = bins.clamp(8, super::MAX_QUANTILES - 1);
    (1..m).map(|k| k as f64 / m as f64).collect()
}

/// One column's released values: inner edges and the density's cuts and weights.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Released {
    pub(crate) edges: Vec<f64>,
    pub(crate) cuts: Vec<f64>,
    pub(crate) weights: Vec<f64>,
}

#[cfg_attr(not(feature = "cluster"), allow(dead_code))]
impl Released {
    /// Appends these values to a message: each list as its length, then its doubles' bits.
    pub(crate) fn encode(&self, out: &mut Vec<u64>) {
        for list in [&self.edges, &self.cuts, &self.weights] {
            out.push(list.len() as u64);
            out.extend(list.iter().map(|v| v.to_bits()));
        }
    }

    /// Reads what [`Released::encode`] wrote (`None` when the message is short).
    pub(crate) fn decode(words: &mut impl Iterator<Item = u64>) -> Option<Self> {
        let mut list = || -> Option<Vec<f64>> {
            let len = usize::try_from(words.next()?).ok()?;
            let v: Vec<f64> = words.take(len).map(f64::from_bits).collect();
            (v.len() == len).then_some(v)
        };
        Some(Self {
            edges: list()?,
            cuts: list()?,
            weights: list()?,
        })
    }
}

/// The mechanism's name in reports.
pub const EDGE_MECHANISM: &str = "point masses by private quantiles (Kaplan–Schnapp–Stemmer 2022 \
     recursion over Smith 2011's exponential mechanism, exact sampling on a public grid), then \
     noisy counts of cells (edges at their quantiles, values drawn from them)";

/// A numeric column with public bounds that neither `bins` nor `edges` cut.
fn needs_edges(c: &super::ColumnSpec) -> bool {
    c.kind == ColumnType::Numeric && c.bins.is_none() && c.edges.is_none() && c.bounds.is_some()
}

/// What private edges released: the mechanism, each column's budget, and its edges.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EdgeRelease {
    /// The mechanism.
    pub mechanism: &'static str,
    /// What each column's edges cost.
    pub budget: EdgeBudget,
    /// The noise of each column's cell counts (its part of `budget`).
    pub cell_noise: Option<CountNoise>,
    /// Each column's released edges.
    pub columns: Vec<ReleasedEdges>,
}

/// One column's released edges.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReleasedEdges {
    /// The column.
    pub column: String,
    /// How many quantiles were released to find point masses.
    pub quantiles: usize,
    /// The grid the quantiles were chosen on.
    pub grid: String,
    /// ε_c of each exponential-mechanism call.
    pub epsilon_per_call: f64,
    /// The calls a neighbouring pair can tell apart (the request's units).
    pub calls: u32,
    /// The values two or more quantiles landed on: each a cell (and a bin) of its own.
    pub masses: Vec<String>,
    /// The inner edges, as the schema's `edges` would list them (a value listed twice is a
    /// one-value bin).
    pub edges: Vec<String>,
    /// The inner cuts of the density's cells.
    pub cell_cuts: Vec<String>,
    /// The cells' noisy counts, negative ones set to 0: the density values are drawn from.
    pub cell_counts: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::histogram::{ColumnSpec, DomainSource, Table};

    fn schema() -> Schema {
        let mut gain = ColumnSpec::numeric("gain", 0.0, 99_999.0);
        gain.integer = true;
        let x = ColumnSpec::numeric("x", -1.0, 1.0);
        Schema::new(vec![gain, x, ColumnSpec::categorical("y", &["a", "b"])]).unwrap()
    }

    /// An integer column over 0..=99.
    fn gain_column() -> EdgeColumn {
        EdgeColumn {
            index: 0,
            name: "gain".into(),
            lo: 0.0,
            hi: 99.0,
            grid: Grid::Integers,
        }
    }

    /// [`schema`] with the marginals' bin rule at a given noise sd (a public quantity).
    fn marginal_schema(sd: f64) -> Schema {
        Schema {
            min_bins: 2,
            bin_rule: crate::histogram::BinRule::Marginals,
            marginal_noise_sd: Some(sd),
            ..schema()
        }
    }

    #[test]
    fn a_point_mass_gets_a_bin_of_its_own_and_the_edges_are_valid() {
        let schema = marginal_schema(5.0);
        let rows: Vec<Vec<String>> = (0..4000)
            .map(|i| {
                let gain = if i % 10 < 9 { 0 } else { 1000 + i };
                let x = (i % 200) as f64 / 100.0 - 1.0;
                vec![gain.to_string(), x.to_string(), "a".into()]
            })
            .collect();
        let table = Table::from_rows(&schema, &rows, DomainSource::Schema, "rows").unwrap();
        let plan = EdgePlan::new(&schema, EdgeBudget::Pure { epsilon: 1.0 }).unwrap();
        assert_eq!(plan.columns(), vec!["gain", "x"]);
        let counts: Vec<GridCounts> = (0..2)
            .map(|k| {
                let super::super::ColumnValues::Numeric(v) = table.column(k) else {
                    panic!("numeric")
                };
                plan.counts_of(k, v).unwrap()
            })
            .collect();
        assert_eq!(counts[0].total(), 4000);
        let mut rng = SecureRng::insecure_from_seed(1);
        let (resolved, release) = plan.release(&schema, 4000, &counts, &mut rng).unwrap();
        let gain = resolved.columns[0].edges.clone().unwrap();
        // 0 is chosen by most quantiles: the bin [0, 1), which holds 0 alone.
        assert_eq!(gain[0], 1.0, "{gain:?}");
        assert_eq!(release.columns[0].masses, vec!["0".to_string()]);
        let domains = crate::histogram::Discretized::domains_of(&resolved, 4000).unwrap();
        for d in &domains[..2] {
            assert!(d.size() >= 2, "{d:?}");
        }
        assert_eq!(release.columns.len(), 2);
        assert!(release.columns[1].grid.contains("cells"));
    }

    #[test]
    fn few_records_per_noise_sd_get_quantile_edges_and_no_cells() {
        // Landsat at ε = 1 (ρ = 8.3e-5 a column: sd 110, n = 5,148 ≈ 47 sd) measures cells;
        // wdbc at ε = 3 (ρ = 6e-4: sd 41, n = 455 ≈ 11 sd) does not.
        assert!(EdgeBudget::Zcdp { rho: 8.3e-5 }.cells_pay(5148));
        assert!(!EdgeBudget::Zcdp { rho: 6e-4 }.cells_pay(455));
        assert!(EdgeBudget::Pure { epsilon: 1.0 }.cells_pay(100));
        assert!(!EdgeBudget::Pure { epsilon: 0.01 }.cells_pay(4000));
        let schema = marginal_schema(5.0);
        let plan = EdgePlan::new(&schema, EdgeBudget::Pure { epsilon: 0.01 }).unwrap();
        let mut counts = vec![GridCounts::default(); 2];
        counts[0].add(0, 3600);
        counts[0].add(5000, 400);
        counts[1].add(1 << 19, 4000);
        let mut rng = SecureRng::insecure_from_seed(2);
        let (resolved, release) = plan.release(&schema, 4000, &counts, &mut rng).unwrap();
        assert_eq!(release.cell_noise, None);
        for (c, col) in release.columns.iter().zip(&resolved.columns) {
            assert!(c.cell_counts.is_empty() && c.cell_cuts.is_empty(), "{c:?}");
            assert!(col.density.is_none());
            let edges = col.edges.as_ref().unwrap();
            assert!(edges.windows(2).all(|w| w[0] < w[1]), "{edges:?}");
        }
        let domains = crate::histogram::Discretized::domains_of(&resolved, 4000).unwrap();
        assert!(domains[0].size() >= 2);
    }

    #[test]
    fn zcdp_budgets_cost_what_they_say() {
        for (rho, units) in [(1e-4, 7u32), (0.01, 1), (0.3, 9)] {
            let b = EdgeBudget::Zcdp { rho };
            let e = b.request_epsilon(units).unwrap().get();
            let ec = div_down(e, f64::from(units));
            assert!(f64::from(units) * ec * ec / 8.0 <= rho);
            assert!(f64::from(units) * ec * ec / 8.0 >= 0.999 * rho);
        }
        assert!(EdgeBudget::pure_share(1.0, 1.0, 3).is_err());
        assert!(EdgeBudget::pure_share(1.0, 0.0, 3).is_err());
    }

    #[test]
    fn cuts_fall_between_grid_points_and_a_last_integer_is_a_bin_of_its_own() {
        let c = EdgeColumn {
            index: 0,
            name: "x".into(),
            lo: 0.0,
            hi: 1.0,
            grid: Grid::Cells(4),
        };
        // Cells of 0.25: the cut below point 2 lies between points 1 and 2, the shortest
        // decimal in the middle half of that gap.
        assert_eq!(c.cuts(&[2, 3]), vec![0.4, 0.6]);
        assert_eq!(shortest_between(15.61393, 15.61397), 15.61395);
        assert_eq!(shortest_between(0.16, 0.24), 0.2);
        let ints = EdgeColumn {
            grid: Grid::Integers,
            hi: 9.0,
            ..c
        };
        assert_eq!(ints.grid_points(), 10);
        // Point 9 (the value 9) alone: listed twice, the one-value bin {9}.
        assert_eq!(ints.cuts(&[1, 9]), vec![1.0, 9.0, 9.0]);
        let bins = crate::histogram::Bins::from_edges(0.0, 9.0, &ints.cuts(&[1, 9])).unwrap();
        assert_eq!(bins.count(), 3);
    }

    #[test]
    fn cells_are_equal_parts_of_the_grid_with_a_cell_for_each_mass() {
        let c = gain_column();
        // The bounds' points 0 and 99 are cells of their own.
        assert_eq!(c.cell_bounds(4, &[]), vec![0, 1, 25, 50, 75, 99, 100]);
        assert_eq!(
            c.cell_bounds(4, &[0, 40]),
            vec![0, 1, 25, 40, 41, 50, 75, 99, 100]
        );
        // Fewer grid points than cells: one cell per point.
        let small = EdgeColumn { hi: 3.0, ..c };
        assert_eq!(small.cell_bounds(16, &[3]), vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn edges_cut_the_noisy_counts_into_equal_parts_and_a_one_point_cell_is_a_bin() {
        let c = gain_column();
        // Cells [0, 1) (the mass at 0), [1, 50), [50, 100): 80, 10, 10 of 100.
        let bounds = [0, 1, 50, 100];
        // Four bins: the targets 1/4, 2/4, 3/4 all fall in the mass: cut on both sides.
        assert_eq!(c.edges_of(&bounds, &[80.0, 10.0, 10.0], 4), vec![1.0]);
        // Twenty bins: 17/20 falls halfway into [1, 50) (1 + 24.5, rounded), 18/20 at its
        // end, 19/20 halfway into [50, 100).
        let e = c.edges_of(&bounds, &[80.0, 10.0, 10.0], 20);
        assert_eq!(e, vec![1.0, 26.0, 50.0, 75.0]);
        // No noisy mass at all: the grid's equal parts.
        assert_eq!(c.edges_of(&[0, 50, 100], &[0.0, 0.0], 2), vec![50.0]);
    }

    #[test]
    fn a_split_budget_costs_at_most_the_whole() {
        for b in [1e-6, 0.01, 0.3, 7.0] {
            let (q, noise) = EdgeBudget::Pure { epsilon: b }.split().unwrap();
            let EdgeBudget::Pure { epsilon: eq } = q else {
                panic!("pure")
            };
            let CountNoise::Laplace { scale } = noise else {
                panic!("laplace")
            };
            // Cells: L1 sensitivity 2 at scale t costs 2/t.
            assert!(eq + 2.0 / scale <= b, "{b}");
            assert!(eq + 2.0 / scale >= b * (1.0 - 1e-12));
            let (q, noise) = EdgeBudget::Zcdp { rho: b }.split().unwrap();
            let (EdgeBudget::Zcdp { rho: rq }, CountNoise::Gaussian { variance }) = (q, noise)
            else {
                panic!("zcdp")
            };
            // Cells: L2² = 2 at σ² costs 2/(2σ²).
            assert!(rq + 1.0 / variance <= b, "{b}");
            assert!(rq + 1.0 / variance >= b * (1.0 - 1e-12));
        }
    }

    #[test]
    fn a_file_and_a_table_are_coded_alike_and_out_of_bounds_values_counted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.csv");
        let mut text = String::from("gain,x,y\n");
        for i in 0..1500u64 {
            let gain = if i % 10 < 8 {
                0
            } else {
                500 + (i * 37) % 90_000
            };
            let x = ((i * 7919) % 2000) as f64 / 1000.0 - 1.0;
            text.push_str(&format!("{gain},{x},{}\n", ["a", "b"][(i % 2) as usize]));
        }
        text.push_str("120000,5,a\n"); // both numeric values out of bounds
        std::fs::write(&path, &text).unwrap();
        let schema = marginal_schema(3.0);
        let plan = EdgePlan::new(&schema, EdgeBudget::Pure { epsilon: 2.0 }).unwrap();
        let (file, edges, _) = plan
            .read(&[path.as_path()], &schema, || {
                Ok::<_, Error>(SecureRng::insecure_from_seed(4))
            })
            .unwrap();
        assert_eq!(
            file.clipped,
            vec![("gain".to_string(), 1), ("x".to_string(), 1)]
        );
        let table = Table::read(&[path.as_path()], &schema, DomainSource::Schema).unwrap();
        let mut rng = SecureRng::insecure_from_seed(4);
        let (data, table_edges) = plan.discretize(&table, &mut rng).unwrap();
        assert_eq!(edges, table_edges);
        assert_eq!(file.data, data);
        // The point mass at 0 is a bin of its own: 80 % of the first column's codes are 0.
        let zeros = (0..data.rows())
            .filter(|&i| data.codes(0).get(i) == 0)
            .count();
        assert_eq!(zeros, 1200);
    }
}
