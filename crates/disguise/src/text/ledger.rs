//! The budget ledger for people: a limit in words, one line per data set, the table of
//! releases, and the audit log as CSV.

use crate::ledger::{Filter, Limit, Release, Spend, Status};
use crate::numeric::decimal::{rounded, typed};
use crate::numeric::display::{guarantee, thousands};
use std::cmp::Ordering;
use std::fmt::Write as _;

/// A limit in words: ε, δ and its filter (for zCDP, ρ and the part for approximate
/// releases). Budgets print as typed: the shortest decimal of each number; ρ, computed,
/// is rounded down (what is allowed is never overstated).
///
/// ```
/// let limit = disguise::ledger::Limit::new(2.0, 1e-6)?;
/// assert_eq!(disguise::text::limit_words(&limit), "ε = 2, δ = 1e-6 (basic filter)");
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn limit_words(l: &Limit) -> String {
    match (l.filter, l.rho) {
        (Filter::Zcdp, Some(rho)) => {
            let approximate = if l.approximate_delta > 0.0 || l.approximate_epsilon > 0.0 {
                format!(
                    "ε = {}, δ = {} of it for approximate releases",
                    typed(l.approximate_epsilon),
                    typed(l.approximate_delta)
                )
            } else {
                "none for approximate releases".to_string()
            };
            format!(
                "ε = {}, δ = {} (zcdp filter: ρ ≤ {} for pure and exponential-mechanism \
                 releases; {approximate})",
                typed(l.epsilon),
                typed(l.delta),
                rounded(rho, 6, Ordering::Less)
            )
        }
        _ => format!(
            "ε = {}, δ = {} ({} filter)",
            typed(l.epsilon),
            typed(l.delta),
            l.filter
        ),
    }
}

/// One line for a data set: its limit, its spend (ρ rounded up) and what is left (rounded
/// down; under zCDP, the ρ left and the (ε, δ) it is worth).
pub fn status_line(s: &Status) -> String {
    let limit = match &s.limit {
        Some(l) => format!("limit {}", limit_words(l)),
        None => "no limit".to_string(),
    };
    let releases = format!(
        "{} release{}",
        thousands(s.releases),
        if s.releases == 1 { "" } else { "s" }
    );
    let spent = match s.spent {
        Some(g) => match g.rho {
            Some(rho) if g.epsilon > 0.0 || g.delta > 0.0 => format!(
                "spent ρ = {}, and ε = {}, δ = {} by approximate releases, in {releases}",
                rounded(rho, 6, Ordering::Greater),
                typed(g.epsilon),
                typed(g.delta)
            ),
            Some(rho) => format!(
                "spent ρ = {} in {releases}",
                rounded(rho, 6, Ordering::Greater)
            ),
            None => format!(
                "spent ε = {}, δ = {} in {releases}",
                typed(g.epsilon),
                typed(g.delta)
            ),
        },
        None => "nothing spent".to_string(),
    };
    let left = match s.remaining {
        Some(r) => match (r.rho, r.pure_epsilon) {
            (Some(rho), Some(pure)) => {
                let approximate = match &s.limit {
                    Some(l) if l.approximate_delta > 0.0 || l.approximate_epsilon > 0.0 => {
                        format!(
                            "; ε = {}, δ = {} for approximate releases",
                            typed(r.approximate_epsilon.unwrap_or(0.0)),
                            typed(r.approximate_delta.unwrap_or(0.0))
                        )
                    }
                    _ => String::new(),
                };
                format!(
                    "; left ρ = {} (worth ε = {} at δ = {}; one pure release of ε ≤ {} \
                     fits){approximate}",
                    rounded(rho, 6, Ordering::Less),
                    rounded(r.epsilon, 6, Ordering::Less),
                    typed(r.delta),
                    rounded(pure, 6, Ordering::Less)
                )
            }
            _ => format!("; left ε = {}, δ = {}", typed(r.epsilon), typed(r.delta)),
        },
        None => String::new(),
    };
    let unit = match s.unit {
        Some(u) => format!(" ({u}-level)"),
        None => String::new(),
    };
    format!("data set {}{unit}: {limit}; {spent}{left}", s.dataset)
}

/// The table of releases: a header, then one line per release (a data set's name cut to
/// 12 characters, a seeded release marked NOT private). Each line ends with `\n`.
pub fn releases_table(releases: &[Release]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:>5}  {:<24}  {:<12}  {:>5}  {:>9}  {:>9}  {:<12}  command",
        "id", "time (UTC)", "data set", "runs", "ε", "δ", "rule"
    );
    for r in releases {
        let mut dataset = r.dataset.clone();
        if dataset.chars().count() > 12 {
            dataset = dataset.chars().take(11).collect::<String>() + "…";
        }
        let insecure = if r.secure {
            ""
        } else {
            " (seeded: NOT private)"
        };
        let _ = writeln!(
            out,
            "{:>5}  {:<24}  {:<12}  {:>5}  {:>9}  {:>9}  {:<12}  {}{insecure}",
            r.id,
            r.time,
            dataset,
            thousands(r.runs),
            typed(r.epsilon),
            typed(r.delta),
            r.rule,
            r.command
        );
    }
    out
}

/// Writes the audit log of `releases` as CSV: a header, then one row per release, every
/// number in full and the composed calls as `kind:ε:δxcount` joined by `;`. An error is
/// the writer's own (a closed pipe keeps its kind).
pub fn releases_csv(releases: &[Release], out: impl std::io::Write) -> std::io::Result<()> {
    // Rows of strings, all of the header's length: only writing can fail.
    let io = |e: csv::Error| match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => std::io::Error::other(format!("{other:?}")),
    };
    let mut csv = csv::Writer::from_writer(out);
    csv.write_record([
        "id",
        "time",
        "dataset",
        "command",
        "mechanism",
        "runs",
        "epsilon",
        "delta",
        "rule",
        "calls",
        "secure",
        "unit",
    ])
    .map_err(io)?;
    for r in releases {
        let calls: Vec<String> = r
            .calls
            .iter()
            .map(|c| format!("{}:{:?}:{:?}x{}", c.kind, c.epsilon, c.delta, c.count))
            .collect();
        csv.write_record([
            r.id.to_string(),
            r.time.clone(),
            r.dataset.clone(),
            r.command.clone(),
            r.mechanism.clone(),
            r.runs.to_string(),
            format!("{:?}", r.epsilon),
            format!("{:?}", r.delta),
            r.rule.clone(),
            calls.join(";"),
            r.secure.to_string(),
            r.unit.to_string(),
        ])
        .map_err(io)?;
    }
    csv.flush()
}

/// The line that says a ledger now gives each new data set a default `limit` at its first
/// release.
///
/// ```
/// let limit = disguise::ledger::Limit::new(1.0, 0.0)?;
/// assert_eq!(
///     disguise::text::default_limit_line(&limit),
///     "default limit for new data sets: ε = 1, δ = 0 (basic filter)"
/// );
/// # Ok::<(), disguise::Error>(())
/// ```
pub fn default_limit_line(limit: &Limit) -> String {
    format!("default limit for new data sets: {}", limit_words(limit))
}

/// The line that says how many releases of the audit log were written to `out`.
///
/// ```
/// let line = disguise::text::releases_written(1_200, std::path::Path::new("log.csv"));
/// assert_eq!(line, "wrote 1,200 releases to log.csv");
/// ```
pub fn releases_written(count: usize, out: &std::path::Path) -> String {
    let plural = if count == 1 { "" } else { "s" };
    let count = thousands(count as u64);
    format!("wrote {count} release{plural} to {}", out.display())
}

/// What a reservation left charged, in words that are the same for every data set: the
/// release `id` of `spend` (one run's guarantee, rounded up as every guarantee printed is,
/// and the number of runs released together) charged to `dataset` in the ledger at `path`.
///
/// ```
/// use disguise::ledger::{Spend, Unit};
/// use disguise::privacy::{Guarantee, compose::Rule};
/// let g = Guarantee { epsilon: 0.5, delta: 0.0, rule: Rule::Basic };
/// let spend = Spend::protecting(Unit::Record, g).runs(3);
/// let line = disguise::text::charged_line(7, &spend, "adult", std::path::Path::new("b.ledger"));
/// assert_eq!(line, "release 7 of 3 runs × (ε = 0.5, δ = 0) stays charged to adult in b.ledger");
/// ```
pub fn charged_line(id: i64, spend: &Spend, dataset: &str, path: &std::path::Path) -> String {
    let g = spend.guarantee;
    let each = format!("(ε = {}, δ = {})", guarantee(g.epsilon), guarantee(g.delta));
    let what = match spend.runs {
        1 => each,
        n => format!("{n} runs × {each}"),
    };
    let path = path.display();
    format!("release {id} of {what} stays charged to {dataset} in {path}")
}

/// The one line of a release that failed after its budget was reserved (`charged`: what
/// stays charged, [`charged_line`]), the same for every data set: the `reason`, which may
/// depend on the private data, only with `diagnostics` (the option named by `flag`).
/// Before a reservation (`charged` is `None`) the reason alone.
///
/// ```
/// let flag = |p: &str| format!("--{p}");
/// assert_eq!(disguise::text::failure_line("no such file", None, false, &flag), "no such file");
/// let line = disguise::text::failure_line("bad cell", Some("release 1 …"), false, &flag);
/// assert!(line.ends_with("shown only with --diagnostics") && !line.contains("bad cell"));
/// ```
pub fn failure_line(
    reason: &str,
    charged: Option<&str>,
    diagnostics: bool,
    flag: &dyn Fn(&str) -> String,
) -> String {
    let option = flag("diagnostics");
    match charged {
        None => reason.to_string(),
        Some(charged) if diagnostics => format!(
            "the release failed after its budget was reserved; {charged}; the reason (NOT \
             private, shown because of {option}): {reason}"
        ),
        Some(charged) => format!(
            "the release failed after its budget was reserved; {charged}; the reason depends \
             on the private data and is shown only with {option}"
        ),
    }
}

/// A command line as the audit log records it: each argument shell-quoted when it needs it.
///
/// ```
/// let line = disguise::text::command_line(["disguise", "select", "--k", "3", "it's"]);
/// assert_eq!(line, "disguise select --k 3 'it'\\''s'");
/// ```
pub fn command_line<A: AsRef<std::ffi::OsStr>>(args: impl IntoIterator<Item = A>) -> String {
    let quoted = args.into_iter().map(|a| {
        let a = a.as_ref().to_string_lossy().into_owned();
        let plain = !a.is_empty()
            && a.chars()
                .all(|c| c.is_alphanumeric() || "-_./=:,+@%^".contains(c));
        if plain {
            a
        } else {
            format!("'{}'", a.replace('\'', "'\\''"))
        }
    });
    quoted.collect::<Vec<_>>().join(" ")
}

/// What `disguise ledger show` prints: the ledger, its default limit, each data set's
/// [`status_line`], then the [`releases_table`]. Each line ends with `\n`.
pub fn overview_text(o: &crate::ledger::Overview) -> String {
    let mut out = format!("ledger {}\n", o.ledger.display());
    if let Some(limit) = &o.default_limit {
        let _ = writeln!(
            out,
            "default limit for new data sets: {}",
            limit_words(limit)
        );
    }
    if o.datasets.is_empty() {
        out.push_str("(no data set: set a limit with `disguise ledger limit`)\n");
    }
    for s in &o.datasets {
        let _ = writeln!(out, "{}", status_line(s));
    }
    if !o.releases.is_empty() {
        out.push('\n');
        out.push_str(&releases_table(&o.releases));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::Unit;

    fn release(dataset: &str, secure: bool) -> Release {
        Release {
            id: 7,
            dataset: dataset.into(),
            time: "2026-01-01T00:00:00Z".into(),
            command: "disguise select".into(),
            mechanism: "em".into(),
            runs: 1_000,
            epsilon: 0.5,
            delta: 0.0,
            rule: "basic".into(),
            calls: Vec::new(),
            secure,
            unit: Unit::Record,
        }
    }

    #[test]
    fn a_release_row_cuts_long_names_and_marks_seeded_runs() {
        let table = releases_table(&[release("a-very-long-data-set-name", false)]);
        let row = table.lines().nth(1).unwrap();
        assert!(row.contains("a-very-long…"), "{row}");
        assert!(row.contains("1,000"), "{row}");
        assert!(
            row.ends_with("disguise select (seeded: NOT private)"),
            "{row}"
        );
    }

    #[test]
    fn the_audit_log_has_a_header_and_a_row_per_release() {
        let mut out = Vec::new();
        releases_csv(&[release("adult", true)], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("id,time,dataset,"));
        assert!(
            lines[1].starts_with("7,2026-01-01T00:00:00Z,adult,"),
            "{}",
            lines[1]
        );
    }
}
