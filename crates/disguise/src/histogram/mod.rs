//! Differentially private projected histograms (Vinterbo, "Differentially Private Projected
//! Histograms: Construction and Use for Prediction", ECML-PKDD 2012).
//!
//! A synthetic dataset for training classifiers, with an ε-DP guarantee:
//!
//! 1. **Schema** ([`Schema`], [`Table`]): every column's domain — numeric bounds, categorical
//!    levels — is public, read from a TOML file, never from the data (the data would leak
//!    through it). Shipped schemas for the paper's UCI datasets live in
//!    `crates/disguise/schemas/` (Adult, Iris, Landsat).
//! 2. **Discretization** ([`Discretized`], [`bin_count`]): numeric columns scaled into [0, 1]
//!    with their public bounds and cut into ⌈1/bw(n, d − 1) − 0.5⌉ bins (Section 2.1.1).
//! 3. **Projection** ([`private_kd`], on the [`Discernibility`](crate::objective::Discernibility)
//!    objective): k predictors that best tell apart records with different targets, chosen
//!    with ε_p = (1 − γ)ε by the exponential mechanism inside the library's greedy driver
//!    (Section 2.2, Algorithm 1).
//! 4. **Histogram** ([`SparseLaplace`]): the projected data's cell counts plus Lap(2/ε_h)
//!    noise, kept above τ = A·ln(n)/ε_h, built in expected linear time without enumerating
//!    the m = ∏|Vᵢ| cells (Section 2.1), through the encoding [`MixedRadix`].
//! 5. **Release** ([`write_synthetic_csv`]): ⌈h̃ − ½⌉ copies of each released cell, decoded
//!    back to levels and bin midpoints, in a random order (not sorted by cell).
//!
//! k and γ can be given or estimated as in Sections 2.3.1–2.3.2 ([`simulate_k`],
//! [`estimate_gamma`], [`select_k_by_splitting`]). [`projected_histogram`] runs the whole
//! pipeline; [`evaluate_fold`] runs one cross-validation fold of the paper's Section 3
//! (OLR/HLR/PLR and their multinomial versions, scored by AUC or Hand–Till).
//!
//! # Guarantee
//! ε-DP for **replace-one** neighbours: two datasets with the same number n of records that
//! differ in one record (Definition 1 of the paper). n is public. The projection costs ε_p
//! (Theorem 1), the histogram ε_h (Proposition 1), composed sequentially.
//!
//! # Example
//! ```
//! use disguise::histogram::{
//!     ColumnSpec, Discretized, DomainSource, KChoice, ProjectionConfig, Schema, Table,
//!     projected_histogram,
//! };
//! use disguise::privacy::Epsilon;
//! use disguise::SecureRng;
//!
//! let schema = Schema::new(vec![
//!     ColumnSpec::numeric("age", 0.0, 100.0),
//!     ColumnSpec::categorical("smoker", &["no", "yes"]),
//!     ColumnSpec::categorical("sick", &["no", "yes"]),
//! ])?;
//! let rows: Vec<Vec<String>> = (0..400)
//!     .map(|i| {
//!         let smoker = if i % 3 == 0 { "yes" } else { "no" };
//!         vec![(20 + i % 60).to_string(), smoker.into(), smoker.into()]
//!     })
//!     .collect();
//! let table = Table::from_rows(&schema, &rows, DomainSource::Schema, "rows")?;
//! let data = Discretized::new(&table)?;
//! let mut config = ProjectionConfig::new(Epsilon::new(2.0)?);
//! config.k = KChoice::Given(1);
//! let mut rng = SecureRng::from_os()?;
//! let release = projected_histogram(&data, 2, &config, &mut rng)?;
//! assert_eq!(*release.k, 1);
//! assert!(release.guarantee.unwrap().epsilon <= 2.0);
//! let mut csv = Vec::new();
//! release.write_csv(&mut csv, &mut rng)?;
//! # Ok::<(), disguise::Error>(())
//! ```

pub mod bin_rule;
pub mod bins;
pub mod discretize;
pub mod discretized;
pub mod edges;
pub mod encode;
pub mod evaluate;
pub mod features;
pub mod params;
pub mod privatekd;
pub mod project;
pub mod quantiles;
pub mod release;
pub mod schema;
pub mod sparse;
pub mod table;

pub use bin_rule::{BinRule, bandwidth, bin_count};
pub use bins::{Bins, Density, Values};
pub use discretize::{DiscretizedFile, default_bins, domains_for};
pub use discretized::{Discretized, Domain, Written, written_values};
pub use edges::{DEFAULT_EDGE_SHARE, EdgeBudget, EdgePlan, EdgeRelease, ReleasedEdges};
pub use encode::MixedRadix;
pub use evaluate::{Classifier, FoldOutcome, ReleaseSummary, evaluate_fold, evaluate_fold_with};
pub use features::FeatureEncoding;
pub use params::{
    DEFAULT_B, DEFAULT_L, DEFAULT_P, DEFAULT_SAMPLES, DEFAULT_SEED, GammaEstimate, GammaParams,
    GammaRule, GammaSplit, HISTOGRAM_CAP, bin_masses, class_size, epsilon_h_required,
    epsilon_p_required, estimate_gamma, gamma_from, public_k, simulate_k, simulate_k_with,
    simulated_data, simulated_data_with,
};
pub use privatekd::{
    DEFAULT_SIGMA, Mda, SplitChoice, discernibility_for, mda, nonprivate_kd, private_kd,
    select_k_by_splitting,
};
pub use project::{
    KChoice, ProjectedHistogram, ProjectionConfig, SyntheticRows, projected_histogram,
};
pub use quantiles::{
    Grid, GridCounts, MAX_GRID_CELLS, MAX_QUANTILES, PrivateQuantiles, QuantileRelease, Targets,
};
pub use release::{
    drain_synthetic_cells_rev, for_each_synthetic_cell, for_each_synthetic_record_shuffled,
    synthetic_cells, write_synthetic_csv,
};
pub use schema::{
    ColumnSpec, ColumnType, DomainSource, ReadDomain, Schema, draft_schema, draft_schema_read,
};
pub use sparse::{
    DEFAULT_A, MAX_EXPECTED_SPURIOUS, SparseLaplace, ThresholdedHistogram, cell_counts, threshold,
};
pub use table::{ColumnValues, Table};
