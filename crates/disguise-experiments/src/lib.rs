//! The experiments of the papers (`disguise experiment NAME --out DIR`): each reproduces a
//! table or figure, writing tidy CSV tables and figures (PNG + SVG) into DIR, and returns a
//! [`Report`] of what it wrote for the caller to print.
//!
//! Each experiment is one file in this crate with its own `Args` (which flattens
//! [`Common`]) and `run`; adding one is a new file plus one variant of [`Experiment`].
//! The shared harness lives here: locating the data, running trials in parallel with one
//! forked generator each (so results depend on `--seed` only, never on the number of
//! threads), a progress bar, summary statistics, and writing CSV files and figures.
//!
//! Experiments measure *utility* by running private algorithms many times on public
//! research data. Their outputs are not a private release: N trials on the same data
//! compose to N times the budget. That is also why `--seed` is offered without warnings.

mod histograms;
mod margin;
mod matroid;
mod nhanes;
pub mod palette;
pub mod plot;
mod uber;

use crate::plot::Figure;
use anyhow::{Context as _, bail};
use disguise::SecureRng;
use disguise::files::write_atomic;
use disguise::numeric::display::thousands;
use disguise::progress::bar as progress_bar;
use rayon::prelude::*;
use serde::Serialize;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The most trials per configuration an experiment runs. Every experiment keeps each trial's
/// result for its tables and figures (and some run a multiple of `--trials`), so the count
/// sizes memory; the papers use 10 to 100 trials, and at this limit a run takes days.
pub const MAX_TRIALS: usize = 100_000;

/// The experiments, as the subcommands of `disguise experiment`.
#[derive(clap::Subcommand)]
pub enum Experiment {
    /// Mitrovic et al. 2017 §6.1 (Figure 1): private facility location on Uber pickups.
    ///
    /// 10,000 Uber pickups in Manhattan with 33 landmark or 33 grid candidates: utility vs k,
    /// utility vs ε, and maps of representative picks, for non-private greedy, EM greedy, both
    /// LMM greedy variants and random sets.
    /// Example: `disguise experiment uber --out results --seed 1`.
    Uber(uber::Args),
    /// Mitrovic et al. 2017 §6.2 (Figure 2): private feature selection on NHANES diabetes.
    ///
    /// Naive-Bayes mutual information with diabetes of 23 binary health features of NHANES
    /// 2007–2012 adults: MI vs k, and how often each feature is chosen in the top 3.
    /// Example: `disguise experiment nhanes --out results --seed 1`.
    Nhanes(nhanes::Args),
    /// Chaturvedi et al. 2021 (cardinality "20 grid 80 spurious", the partition-matroid
    /// trap) with the private continuous greedy of Rafiey & Yoshida 2020, and k-type
    /// facility location by shift (k-submodular, Algorithms 3–4), on the Uber pickups.
    /// Example: `disguise experiment matroid --out results --seed 1`.
    Matroid(matroid::Args),
    /// Chaudhuri et al. 2014: the large margin mechanism in practice. Example (1) (EM's
    /// success decays with the universe size K, LMM's does not; K up to 10^200), private
    /// frequent pairs on FIMI chess and BMS-WebView-2 vs ε, and private decision-stump
    /// selection: test error vs |H|.
    /// Example: `disguise experiment margin --out results --seed 1`.
    Margin(margin::Args),
    /// Vinterbo 2012 §3 (Figures 1–2): classifiers trained on private projected histograms.
    ///
    /// Logistic regression on the synthetic release of a projected histogram (HLR/HMLR)
    /// against the original data (OLR/OMLR) and private ERM (PLR/PMLR), by stratified
    /// 10-fold CV on Adult, Iris and Satellite; median AUC as ε, k and γ vary.
    /// Example: `disguise experiment histograms --out results --seed 1`.
    Histograms(histograms::Args),
}

/// Runs one experiment: its tables and figures are written into `--out`; the report says
/// which.
pub fn run(experiment: Experiment) -> anyhow::Result<Report> {
    match experiment {
        Experiment::Uber(a) => uber::run(a),
        Experiment::Nhanes(a) => nhanes::run(a),
        Experiment::Matroid(a) => matroid::run(a),
        Experiment::Margin(a) => margin::run(a),
        Experiment::Histograms(a) => histograms::run(a),
    }
}

/// Options every experiment takes (flatten into its `Args`).
#[derive(clap::Args, Debug, Clone)]
pub struct Common {
    /// Folder for the CSV tables and figures (created if missing).
    /// Example: `--out results`.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Trials per configuration, 1 to 100000 (default: the paper's number for this
    /// experiment). Example: `--trials 20`.
    #[arg(long, value_name = "N")]
    pub trials: Option<usize>,
    /// Seed for a reproducible run (same seed, same numbers, on any number of cores).
    /// Without it the generator is keyed by the operating system. Example: `--seed 1`.
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// No progress bar and no notes on stderr.
    #[arg(long)]
    pub quiet: bool,
    /// Folder holding the real data (default: `$DISGUISE_DATA`, else `../shared/data`).
    /// Example: `--data-dir ../shared/data`.
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
}

/// The state of one experiment run: options, the master generator, and what was written.
pub struct Context {
    /// The experiment's name (prefix of every file it writes).
    pub name: &'static str,
    /// The output folder.
    pub out: PathBuf,
    /// Trials per configuration.
    pub trials: usize,
    /// `--quiet`.
    pub quiet: bool,
    seed: Option<u64>,
    data_dir: Option<PathBuf>,
    rng: SecureRng,
    started: Instant,
    written: Vec<PathBuf>,
    /// The data files read so far: no output may be written over one of them.
    inputs: RefCell<Vec<PathBuf>>,
}

impl Context {
    /// Validates the common options, creates the output folder and keys the generator.
    pub fn new(name: &'static str, common: Common, default_trials: usize) -> anyhow::Result<Self> {
        let trials = common.trials.unwrap_or(default_trials);
        if trials == 0 {
            bail!("--trials must be at least 1");
        }
        if trials > MAX_TRIALS {
            bail!(
                "invalid --trials: {} is more than an experiment runs (at most {}: every \
                 trial's result is kept for the tables and figures)",
                thousands(trials as u64),
                thousands(MAX_TRIALS as u64)
            );
        }
        if common.out.exists() && !common.out.is_dir() {
            bail!(
                "--out {}: not a folder (the experiment writes several files into --out)",
                common.out.display()
            );
        }
        std::fs::create_dir_all(&common.out)
            .with_context(|| format!("cannot create the folder {}", common.out.display()))?;
        let rng = match common.seed {
            Some(seed) => SecureRng::insecure_from_seed(seed),
            None => SecureRng::from_os()?,
        };
        Ok(Self {
            name,
            out: common.out,
            trials,
            quiet: common.quiet,
            seed: common.seed,
            data_dir: common.data_dir,
            rng,
            started: Instant::now(),
            written: Vec::new(),
            inputs: RefCell::new(Vec::new()),
        })
    }

    /// The path of a data file given relative to the data folder (`--data-dir`, else
    /// [`disguise::data::locate`]); a missing file is an error naming where it was looked
    /// for.
    /// The file is remembered as an input of the run: no output is ever written over it.
    pub fn data(&self, relative: &str) -> anyhow::Result<PathBuf> {
        let path = match &self.data_dir {
            Some(dir) => {
                let path = dir.join(relative);
                if !path.is_file() {
                    bail!("data file {} not found (check --data-dir)", path.display())
                }
                path
            }
            None => disguise::data::locate(relative)?,
        };
        self.inputs.borrow_mut().push(path.clone());
        Ok(path)
    }

    /// Runs `write` on the inputs recorded so far, as the paths an output must not be.
    fn with_inputs<T>(&self, write: impl FnOnce(&[&Path]) -> T) -> T {
        let inputs = self.inputs.borrow();
        let refs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        write(&refs)
    }

    /// A note on stderr (unless `--quiet`).
    pub fn note(&self, message: &str) {
        if !self.quiet {
            eprintln!("{message}");
        }
    }

    /// Runs `f` once per job in parallel, each call with its own generator forked from the
    /// master generator in job order (so the results depend on the seed, not on
    /// scheduling), with a progress bar labelled `label`. Results are in job order.
    pub fn run_jobs<J, T, F>(&mut self, label: &str, jobs: &[J], f: F) -> anyhow::Result<Vec<T>>
    where
        J: Sync,
        T: Send,
        F: Fn(&J, &mut SecureRng) -> anyhow::Result<T> + Sync,
    {
        let mut rngs: Vec<SecureRng> = Vec::new();
        rngs.try_reserve_exact(jobs.len())
            .map_err(|_| anyhow::anyhow!("{label}: not enough memory for {} jobs", jobs.len()))?;
        rngs.extend(jobs.iter().map(|_| self.rng.fork()));
        let bar = progress_bar(jobs.len() as u64, label, self.quiet);
        let results = jobs
            .par_iter()
            .zip(rngs)
            .map(|(job, mut rng)| {
                let out = f(job, &mut rng);
                bar.inc(1);
                out
            })
            .collect::<anyhow::Result<Vec<T>>>();
        bar.finish_and_clear();
        results
    }

    /// Writes `<out>/<name>_<file>.csv` with a header row (atomically, never over an input).
    pub fn csv(&mut self, file: &str, header: &[&str], rows: &[Vec<String>]) -> anyhow::Result<()> {
        let path = self.out.join(format!("{}_{file}.csv", self.name));
        self.with_inputs(|inputs| {
            write_atomic(&path, inputs, |out| {
                let mut w = csv::Writer::from_writer(out);
                w.write_record(header)?;
                for row in rows {
                    w.write_record(row)?;
                }
                w.flush()
            })
        })?;
        self.written.push(path);
        Ok(())
    }

    /// Writes `<out>/<name>_<file>.png` and `.svg` (atomically, never over an input).
    pub fn figure(&mut self, file: &str, figure: &impl Figure) -> anyhow::Result<()> {
        let base = self.out.join(format!("{}_{file}", self.name));
        let paths = self.with_inputs(|inputs| plot::save(figure, &base, inputs))?;
        self.written.extend(paths);
        Ok(())
    }

    /// The report of the run: the files written, the seed and the time, with the
    /// experiment's own `table` lines (shown by [`Report`]'s `Display` only).
    pub fn finish(self, table: Vec<String>) -> Report {
        Report {
            experiment: self.name,
            trials: self.trials,
            seed: self.seed,
            seconds: self.started.elapsed().as_secs_f64(),
            files: self
                .written
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
            out: self.out,
            table,
        }
    }
}

/// What an experiment run wrote. Serialised (JSON) it lists the files with their paths; shown
/// (`Display`) it is the experiment's summary table, then the files by name.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The experiment's name.
    pub experiment: &'static str,
    /// Trials per configuration.
    pub trials: usize,
    /// The seed, or `None` when the generator was keyed by the operating system.
    pub seed: Option<u64>,
    /// Wall-clock time of the run.
    pub seconds: f64,
    /// Every file written, in order.
    pub files: Vec<String>,
    /// The output folder.
    #[serde(skip)]
    pub out: PathBuf,
    /// The experiment's own summary lines for people.
    #[serde(skip)]
    pub table: Vec<String>,
}

/// Public by nature: an experiment runs the papers' mechanisms on public data sets (the
/// papers' benchmarks and synthetic data, never a user's private data), so its report —
/// the experiment's name, trials, seed, wall-clock time and the files written — and the
/// files themselves (exact utilities included) disclose nothing private.
impl disguise::disclosure::Disclose for Report {}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for line in &self.table {
            writeln!(f, "{line}")?;
        }
        if !self.table.is_empty() {
            writeln!(f)?;
        }
        let seed = self
            .seed
            .map_or("from the OS".to_string(), |s| s.to_string());
        writeln!(
            f,
            "experiment {}: {} trials per configuration, seed {seed}, {:.1} s",
            self.experiment, self.trials, self.seconds
        )?;
        writeln!(
            f,
            "wrote {} files to {}:",
            self.files.len(),
            self.out.display()
        )?;
        for file in &self.files {
            let path = Path::new(file);
            let name = path.file_name().map(Path::new).unwrap_or(path);
            writeln!(f, "  {}", name.display())?;
        }
        Ok(())
    }
}

/// The columns [`Summary::cells`] fills: the summary of the trials, then the per-round cost
/// and the proven end-to-end guarantee of their procedure.
pub const SUMMARY_COLUMNS: [&str; 8] = [
    "mean",
    "std",
    "n",
    "epsilon0",
    "delta0",
    "proven_epsilon",
    "proven_delta",
    "rule",
];

/// Mean, sample standard deviation and count of a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// The mean.
    pub mean: f64,
    /// The sample standard deviation (n − 1 in the denominator; 0 for n ≤ 1).
    pub std: f64,
    /// The sample size.
    pub n: usize,
}

impl Summary {
    /// The summary of `xs` (NaN mean for an empty sample).
    pub fn of(xs: &[f64]) -> Self {
        let n = xs.len();
        let (mean, std) = disguise::numeric::stats::mean_std(xs);
        // An empty sample has no spread to show (its mean stays NaN).
        let std = if n == 0 { 0.0 } else { std };
        Self { mean, std, n }
    }

    /// The cells of [`SUMMARY_COLUMNS`]; empty where a run has no per-round cost or no
    /// guarantee (a non-private baseline).
    pub fn cells(
        &self,
        per_round: Option<(f64, f64)>,
        guarantee: Option<disguise::privacy::Guarantee>,
    ) -> [String; 8] {
        let (eps0, delta0) =
            per_round.map_or((String::new(), String::new()), |(e, d)| (cell(e), cell(d)));
        [
            cell(self.mean),
            cell(self.std),
            self.n.to_string(),
            eps0,
            delta0,
            guarantee.map_or(String::new(), |g| cell(g.epsilon)),
            guarantee.map_or(String::new(), |g| cell(g.delta)),
            guarantee.map_or(String::new(), |g| g.rule.name().to_string()),
        ]
    }

    /// The mean at `x` with its 95 % half-width, a point of a curve with a band.
    pub fn point(&self, x: f64) -> plot::Point {
        plot::Point::new(x, self.mean, self.ci95())
    }

    /// Half-width of a normal 95 % confidence interval for the mean, 1.96·std/√n.
    pub fn ci95(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            1.96 * self.std / (self.n as f64).sqrt()
        }
    }
}

/// For each of `m` elements, the fraction of the `sets` that contain it (counted exactly,
/// divided once).
pub fn pick_rates<'a>(sets: impl ExactSizeIterator<Item = &'a [usize]>, m: usize) -> Vec<f64> {
    let total = sets.len();
    let mut counts = vec![0usize; m];
    for set in sets {
        for &v in set {
            counts[v] += 1;
        }
    }
    counts
        .into_iter()
        .map(|c| c as f64 / total.max(1) as f64)
        .collect()
}

/// A number for a CSV cell: shortest round-trip form.
pub fn cell(x: f64) -> String {
    x.to_string()
}

/// A shortened display name: the part before any parenthesis, trimmed.
pub fn short_name(name: &str) -> String {
    name.split(" (").next().unwrap_or(name).trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_matches_hand_computation() {
        let s = Summary::of(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(s.mean, 2.5);
        assert!((s.std - (5.0f64 / 3.0).sqrt()).abs() < 1e-15);
        assert_eq!(s.n, 4);
        assert!((s.ci95() - 1.96 * s.std / 2.0).abs() < 1e-15);
        assert_eq!(Summary::of(&[7.0]).std, 0.0);
    }

    #[test]
    fn pick_rates_count_exactly() {
        let sets: [&[usize]; 4] = [&[0, 1], &[1, 2], &[1], &[0, 2]];
        assert_eq!(pick_rates(sets.into_iter(), 4), [0.5, 0.75, 0.5, 0.0]);
    }

    #[test]
    fn short_names_drop_parentheses() {
        assert_eq!(
            short_name("New York Public Library (Stephen A. Schwarzman Building)"),
            "New York Public Library"
        );
        assert_eq!(short_name("Times Square"), "Times Square");
    }
}
