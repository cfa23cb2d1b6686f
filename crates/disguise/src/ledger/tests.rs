use super::filter::Totals;
use super::*;
use crate::numeric::decimal::{Exact, shortest};
use crate::privacy::compose::Rule;
use num_traits::{Signed, Zero};
use std::path::PathBuf;

fn fresh() -> (tempfile::TempDir, PathBuf, Ledger) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("budget.ledger");
    let ledger = Ledger::create(&path).unwrap();
    (dir, path, ledger)
}

fn g(epsilon: f64, delta: f64) -> Guarantee {
    Guarantee {
        epsilon,
        delta,
        rule: Rule::Single,
    }
}

/// One record-level run with guarantee `guarantee`.
fn record(guarantee: Guarantee) -> Spend {
    Spend::protecting(Unit::Record, guarantee)
}

fn eps(e: f64) -> Epsilon {
    Epsilon::new(e).unwrap()
}

/// A release of one exponential-mechanism call at ε.
fn em(epsilon: f64) -> Spend {
    let mut spend = record(g(epsilon, 0.0));
    spend.calls = vec![(
        PrivacyCost::BoundedRange {
            epsilon: eps(epsilon),
        },
        1,
    )];
    spend
}

#[test]
fn a_limit_admits_releases_until_it_is_spent_and_nothing_is_recorded_when_refused() {
    let (_dir, _path, ledger) = fresh();
    ledger
        .set_limit("d", Limit::new(1.0, 0.0).unwrap())
        .unwrap();
    let spend = record(g(0.25, 0.0)).command("select --k 3");
    for _ in 0..4 {
        ledger.reserve("d", &spend).unwrap();
    }
    let err = ledger.reserve("d", &spend).unwrap_err();
    let Error::BudgetExceeded { dataset, message } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(dataset, "d");
    assert!(
        message.contains("spent ε = 1, δ = 0 in 4 releases")
            && message.contains("left ε = 0, δ = 0")
            && message.contains("basic filter"),
        "{message}"
    );
    assert_eq!(ledger.releases(Some("d")).unwrap().len(), 4);
    let status = ledger.status("d").unwrap();
    assert_eq!(status.releases, 4);
    let spent = status.spent.unwrap();
    assert_eq!(
        (spent.filter, spent.epsilon, spent.rho),
        (Filter::Basic, 1.0, None)
    );
    assert_eq!(status.remaining.unwrap().epsilon, 0.0);
}

#[test]
fn costs_that_add_up_exactly_to_the_limit_fit_and_what_is_left_prints_as_typed() {
    let (_dir, _path, ledger) = fresh();
    ledger
        .set_limit("car", Limit::new(0.3, 0.0).unwrap())
        .unwrap();
    ledger.reserve("car", &record(g(0.1, 0.0))).unwrap();
    assert_eq!(
        ledger.status("car").unwrap().remaining.unwrap().epsilon,
        0.2
    );
    ledger.reserve("car", &record(g(0.2, 0.0))).unwrap();
    let status = ledger.status("car").unwrap();
    assert_eq!(status.spent.unwrap().epsilon, 0.3);
    assert_eq!(status.remaining.unwrap().epsilon, 0.0);
    assert!(ledger.reserve("car", &record(g(1e-9, 0.0))).is_err());
    // 3 × 0.5 + 0.4 + 0.1 against 2, with δ typed too.
    ledger
        .set_limit("nursery", Limit::new(2.0, 3e-6).unwrap())
        .unwrap();
    for (e, d) in [(0.5, 1e-6), (0.5, 1e-6), (0.5, 0.0), (0.4, 1e-6)] {
        ledger.reserve("nursery", &record(g(e, d))).unwrap();
    }
    let left = ledger.status("nursery").unwrap().remaining.unwrap();
    assert_eq!((left.epsilon, left.delta), (0.1, 0.0));
    ledger.reserve("nursery", &record(g(0.1, 0.0))).unwrap();
    // The releases' runs multiply exactly too: 3 runs of 0.1.
    ledger
        .set_limit("runs", Limit::new(0.3, 0.0).unwrap())
        .unwrap();
    ledger
        .reserve("runs", &record(g(0.1, 0.0)).runs(3))
        .unwrap();
    assert!(ledger.reserve("runs", &record(g(0.1, 0.0))).is_err());
}

#[test]
fn a_pure_limit_adds_pure_releases_exactly_and_refuses_any_delta() {
    let (_dir, _path, ledger) = fresh();
    ledger
        .set_limit("e", Limit::new(10.0, 0.0).unwrap())
        .unwrap();
    let err = ledger
        .reserve("e", &record(g(0.1, 1e-9)))
        .unwrap_err()
        .to_string();
    assert!(err.contains("pure"), "{err}");
    assert!(ledger.releases(Some("e")).unwrap().is_empty());
    assert!(Limit::zcdp(1.0, 0.0).is_err());
}

#[test]
fn a_release_into_a_data_set_without_a_limit_is_refused_unless_the_ledger_has_a_default() {
    let (_dir, _path, ledger) = fresh();
    let err = ledger.reserve("adult", &em(0.5)).unwrap_err();
    let Error::BudgetExceeded { message, .. } = &err else {
        panic!("{err:?}");
    };
    assert!(
        message.contains("no limit") && message.contains("ledger limit --dataset adult"),
        "{message}"
    );
    assert!(ledger.releases(None).unwrap().is_empty());
    assert!(ledger.datasets().unwrap().is_empty());
    // A default limit is recorded as the data set's own at its first release.
    let default = Limit::new(1.0, 0.0).unwrap();
    ledger.set_default_limit(Some(default)).unwrap();
    assert_eq!(ledger.default_limit().unwrap(), Some(default));
    ledger.reserve("adult", &em(0.5)).unwrap();
    assert_eq!(ledger.limit("adult").unwrap(), Some(default));
    // Changing the default later does not change a data set's recorded limit.
    ledger
        .set_default_limit(Some(Limit::new(5.0, 0.0).unwrap()))
        .unwrap();
    ledger.reserve("adult", &em(0.5)).unwrap();
    assert!(ledger.reserve("adult", &em(0.5)).is_err());
    ledger.set_default_limit(None).unwrap();
    assert!(ledger.reserve("census", &em(0.5)).is_err());
}

#[test]
fn names_are_trimmed_and_names_alike_to_another_are_refused_with_a_suggestion() {
    let (_dir, _path, ledger) = fresh();
    ledger
        .set_limit(" car ", Limit::new(1.0, 0.0).unwrap())
        .unwrap();
    assert_eq!(ledger.datasets().unwrap(), ["car"]);
    ledger.reserve("car\t", &em(0.5)).unwrap();
    for alike in ["Car", "CAR", "c ar", " Car"] {
        let err = ledger.reserve(alike, &em(0.5)).unwrap_err();
        let Error::InvalidParameter { name, reason } = &err else {
            panic!("{alike}: {err:?}");
        };
        assert_eq!(*name, "dataset");
        assert!(reason.contains("did you mean \"car\""), "{reason}");
        assert!(
            ledger
                .set_limit(alike, Limit::new(9.0, 0.0).unwrap())
                .is_err()
        );
        assert!(
            ledger
                .resolve(alike)
                .unwrap_err()
                .to_string()
                .contains("did you mean")
        );
    }
    assert_eq!(ledger.resolve(" car").unwrap(), "car");
    assert!(
        ledger
            .resolve("cars")
            .unwrap_err()
            .to_string()
            .contains("no data set")
    );
    assert_eq!(ledger.datasets().unwrap(), ["car"]);
    assert_eq!(ledger.releases(None).unwrap().len(), 1);
}

#[test]
fn a_limit_is_fixed_by_the_first_release_it_can_be_lowered_not_raised_nor_refiltered() {
    let (_dir, _path, ledger) = fresh();
    // Before any release it may change freely.
    ledger
        .set_limit("d", Limit::new(1.0, 0.0).unwrap())
        .unwrap();
    ledger
        .set_limit("d", Limit::zcdp(2.0, 1e-6).unwrap())
        .unwrap();
    ledger
        .set_limit("d", Limit::new(1.0, 1e-6).unwrap())
        .unwrap();
    ledger.reserve("d", &em(0.25)).unwrap();
    let raised = ledger
        .set_limit("d", Limit::new(1.5, 1e-6).unwrap())
        .unwrap_err();
    assert!(
        raised.to_string().contains("lowered, not raised"),
        "{raised}"
    );
    let refiltered = ledger
        .set_limit("d", Limit::zcdp(1.0, 1e-6).unwrap())
        .unwrap_err();
    assert!(refiltered.to_string().contains("filter"), "{refiltered}");
    ledger
        .set_limit("d", Limit::new(0.5, 1e-6).unwrap())
        .unwrap();
    ledger.reserve("d", &em(0.25)).unwrap();
    assert!(ledger.reserve("d", &em(0.25)).is_err());
    assert_eq!(ledger.limit("d").unwrap().unwrap().epsilon, 0.5);
    // Below what is spent (0.5): refused in one line, the limit in force unchanged.
    let below = ledger
        .set_limit("d", Limit::new(0.25, 1e-6).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        below.contains("already spent ε = 0.5")
            && below.contains("ε = 0.25")
            && !below.contains('\n'),
        "{below}"
    );
    assert_eq!(ledger.limit("d").unwrap().unwrap().epsilon, 0.5);
    // Exactly what is spent is allowed: nothing more can be released.
    ledger
        .set_limit("d", Limit::new(0.5, 1e-6).unwrap())
        .unwrap();
}

#[test]
fn the_zcdp_filter_admits_many_small_releases_and_counts_their_calls_exactly() {
    let (_dir, _path, ledger) = fresh();
    let limit = Limit::zcdp(1.0, 1e-6).unwrap();
    let rho = limit.rho.unwrap();
    // ρ_L is the largest ρ whose conversion is at most ε_L.
    let conversion = crate::privacy::compose::zcdp_to_dp(rho, Delta::new(1e-6).unwrap()).unwrap();
    assert!(conversion <= 1.0, "{conversion}");
    let above =
        crate::privacy::compose::zcdp_to_dp(rho * (1.0 + 1e-9), Delta::new(1e-6).unwrap()).unwrap();
    assert!(above > 1.0 - 1e-9, "{above}");
    ledger.set_limit("logs", limit).unwrap();
    // Exponential-mechanism calls of ε = 0.05 cost 0.05²/8 each: ⌊ρ_L / 0.0003125⌋ fit, far
    // more than the 20 that basic composition of ε = 1 would admit.
    let each = 0.05f64 * 0.05 / 8.0;
    let fit = (rho / each).floor() as usize;
    assert!(fit > 60, "{fit}");
    for i in 0..fit {
        ledger
            .reserve("logs", &em(0.05))
            .unwrap_or_else(|e| panic!("{i}: {e}"));
    }
    let err = ledger.reserve("logs", &em(0.05)).unwrap_err().to_string();
    assert!(err.contains("zcdp filter") && err.contains("ρ ="), "{err}");
    let status = ledger.status("logs").unwrap();
    let spent = status.spent.unwrap();
    assert_eq!(spent.filter, Filter::Zcdp);
    assert!((spent.rho.unwrap() - fit as f64 * each).abs() < 1e-15);
    // A release's recorded calls are what it costs, not its own guarantee: 5 calls of 0.01
    // cost 5·0.01²/8, although the release's own ε is 0.05.
    let (_dir, _path, ledger) = fresh();
    ledger.set_limit("d", limit).unwrap();
    let mut greedy = record(g(0.05, 0.0));
    greedy.calls = vec![(PrivacyCost::BoundedRange { epsilon: eps(0.01) }, 5)];
    let receipt = ledger.reserve("d", &greedy.clone().runs(4)).unwrap();
    assert!((receipt.spent.rho.unwrap() - 20.0 * 0.0001 / 8.0).abs() < 1e-18);
    // Without recorded calls, a pure release costs ε²/2.
    let receipt = ledger.reserve("d", &record(g(0.1, 0.0))).unwrap();
    assert!((receipt.spent.rho.unwrap() - 0.00025 - 0.005).abs() < 1e-15);
}

#[test]
fn approximate_releases_under_zcdp_spend_their_own_part_by_basic_composition() {
    let lmm = |epsilon: f64, delta: f64| {
        let mut spend = record(g(epsilon, delta));
        spend.calls = vec![(
            PrivacyCost::Approximate {
                epsilon: eps(epsilon),
                delta: Delta::new(delta).unwrap(),
            },
            1,
        )];
        spend
    };
    let (_dir, _path, ledger) = fresh();
    ledger
        .set_limit("none", Limit::zcdp(1.0, 1e-6).unwrap())
        .unwrap();
    let err = ledger
        .reserve("none", &lmm(0.1, 1e-8))
        .unwrap_err()
        .to_string();
    assert!(err.contains("sets aside nothing for approximate"), "{err}");
    let limit = Limit::zcdp(1.0, 1e-6)
        .unwrap()
        .approximate(0.5, 5e-7)
        .unwrap();
    // The part for pure releases is what is left: ρ_L converts to (0.5, 5·10⁻⁷).
    assert!(limit.rho.unwrap() < Limit::zcdp(0.5, 5e-7).unwrap().rho.unwrap() * (1.0 + 1e-12));
    ledger.set_limit("part", limit).unwrap();
    for _ in 0..5 {
        ledger.reserve("part", &lmm(0.1, 1e-7)).unwrap();
    }
    let left = ledger.status("part").unwrap().remaining.unwrap();
    assert_eq!(
        (left.approximate_epsilon, left.approximate_delta),
        (Some(0.0), Some(0.0))
    );
    // What the untouched ρ_L is worth: the part of the limit for pure releases.
    assert_eq!((left.epsilon, left.delta), (0.5, 5e-7));
    assert!(ledger.reserve("part", &lmm(0.01, 1e-9)).is_err());
    // The pure part is untouched.
    ledger.reserve("part", &em(0.2)).unwrap();
    assert!(
        Limit::zcdp(1.0, 1e-6)
            .unwrap()
            .approximate(1.0, 0.0)
            .is_err()
    );
    assert!(
        Limit::new(1.0, 1e-6)
            .unwrap()
            .approximate(0.5, 1e-7)
            .is_err()
    );
}

#[test]
fn the_ledger_decides_as_the_filter_does_on_an_adaptive_sequence() {
    // The next ε is chosen from the previous release's output (here: a coin of the
    // sequence's own generator standing in for an output); every decision of the file is
    // the filter's on the exact totals.
    use rand_core::Rng;
    for limit in [
        Limit::new(1.0, 1e-6).unwrap(),
        Limit::zcdp(1.0, 1e-6).unwrap(),
    ] {
        let (_dir, _path, ledger) = fresh();
        ledger.set_limit("d", limit).unwrap();
        let mut rng = crate::SecureRng::insecure_from_seed(11);
        let mut totals = Totals::default();
        let mut epsilon = 0.1;
        for _ in 0..200 {
            let spend = em(epsilon);
            let mut after = totals.clone();
            after.add_spend(&spend).unwrap();
            let admitted = ledger.reserve("d", &spend).is_ok();
            assert_eq!(admitted, after.within(&limit), "{limit:?} at ε = {epsilon}");
            if admitted {
                totals = after;
            }
            epsilon = [0.01, 0.05, 0.1, 0.3][(rng.next_u64() % 4) as usize];
        }
        assert_eq!(ledger.status("d").unwrap().releases, totals.releases);
    }
}

/// The exact privacy of a whole adaptive interaction stopped by a filter: one person's bit x
/// is released again and again by randomized response (ε-DP, P[output = x] = e^ε/(1+e^ε));
/// the analyst picks the next ε from the last output (large after a 1, small after a 0),
/// falls back to the other value when the filter refuses, and stops when both are refused.
/// Transcripts are merged by the counts of (ε, output), which fix their privacy loss
/// L = Σ ±εᵢ and the filter's state; the result is, over all transcripts, the largest
/// |L| reached and the hockey-stick divergences Σ max(0, P_x − e^ε_L·P_x′) both ways.
fn adaptive_audit(
    small: f64,
    large: f64,
    admit: &dyn Fn(&Totals, &Spend) -> bool,
    epsilon_l: f64,
) -> (f64, f64, f64) {
    use std::collections::HashMap;
    // State: (small ones, small zeros, large ones, large zeros, last output) → (P₁, P₀).
    type State = (u32, u32, u32, u32, bool);
    let mut layer: HashMap<State, (f64, f64)> = HashMap::new();
    layer.insert((0, 0, 0, 0, false), (1.0, 1.0));
    let (mut max_loss, mut delta_10, mut delta_01) = (0.0f64, 0.0f64, 0.0f64);
    // The filter's totals depend on the number of releases of each size only.
    let mut cache: HashMap<(u32, u32), Totals> = HashMap::new();
    let mut totals_of = |s: &State| {
        cache
            .entry((s.0 + s.1, s.2 + s.3))
            .or_insert_with(|| {
                let mut t = Totals::default();
                for (count, e) in [(s.0 + s.1, small), (s.2 + s.3, large)] {
                    for _ in 0..count {
                        t.add_spend(&record(g(e, 0.0))).unwrap();
                    }
                }
                t
            })
            .clone()
    };
    while !layer.is_empty() {
        let mut next: HashMap<State, (f64, f64)> = HashMap::new();
        for (state, (p1, p0)) in layer {
            let totals = totals_of(&state);
            let preferred = if state.4 { large } else { small };
            let other = if state.4 { small } else { large };
            let choice = [preferred, other]
                .into_iter()
                .find(|&e| admit(&totals, &record(g(e, 0.0))));
            let Some(e) = choice else {
                let loss = f64::from(state.0) * small - f64::from(state.1) * small
                    + f64::from(state.2) * large
                    - f64::from(state.3) * large;
                max_loss = max_loss.max(loss.abs());
                delta_10 += (p1 - epsilon_l.exp() * p0).max(0.0);
                delta_01 += (p0 - epsilon_l.exp() * p1).max(0.0);
                continue;
            };
            let keep = e.exp() / (1.0 + e.exp());
            for output in [true, false] {
                // Under x = 1 the output is 1 with probability `keep`; under x = 0, 1 − keep.
                let (q1, q0) = if output {
                    (keep, 1.0 - keep)
                } else {
                    (1.0 - keep, keep)
                };
                let mut s = state;
                match (e == small, output) {
                    (true, true) => s.0 += 1,
                    (true, false) => s.1 += 1,
                    (false, true) => s.2 += 1,
                    (false, false) => s.3 += 1,
                }
                s.4 = output;
                let entry = next.entry(s).or_insert((0.0, 0.0));
                entry.0 += p1 * q1;
                entry.1 += p0 * q0;
            }
        }
        layer = next;
    }
    (max_loss, delta_10, delta_01)
}

#[test]
fn an_adaptive_interaction_stopped_by_either_filter_keeps_its_guarantee_and_the_audit_catches_planted_errors()
 {
    let filter = |limit: Limit| {
        move |t: &Totals, s: &Spend| {
            let mut after = t.clone();
            after.add_spend(s).unwrap();
            after.within(&limit)
        }
    };
    // Basic, pure: every transcript's privacy loss is at most ε_L.
    let basic = Limit::new(1.0, 0.0).unwrap();
    let (loss, d10, d01) = adaptive_audit(0.1, 0.3, &filter(basic), 1.0);
    eprintln!("basic: largest loss {loss}, hockey-stick {d10:e} / {d01:e}");
    assert!(loss <= 1.0 + 1e-12 && loss > 0.99, "{loss}");
    assert!(d10 <= 1e-12 && d01 <= 1e-12, "{d10} {d01}");
    // Planted: a filter that checks the totals before the new release, not after.
    let before = |t: &Totals, _: &Spend| t.within(&basic);
    let (loss, _, _) = adaptive_audit(0.1, 0.3, &before, 1.0);
    eprintln!("basic, off by one: largest loss {loss}");
    assert!(loss > 1.1, "the off-by-one filter was not caught: {loss}");
    // zCDP: the hockey-stick divergence at ε_L stays below δ_L.
    let zcdp = Limit::zcdp(1.0, 1e-3).unwrap();
    let (loss, d10, d01) = adaptive_audit(0.05, 0.2, &filter(zcdp), 1.0);
    eprintln!("zcdp: largest loss {loss}, hockey-stick {d10:e} / {d01:e}");
    assert!(loss > 1.0, "the zCDP filter admits more than basic: {loss}");
    assert!(d10 <= 1e-3 && d01 <= 1e-3, "{d10} {d01}");
    // Planted: ρ_L taken as if the limit were one pure release (ε_L²/2).
    let mut wrong = zcdp;
    wrong.rho = Some(0.5);
    let (_, d10, d01) = adaptive_audit(0.1, 0.3, &filter(wrong), 1.0);
    eprintln!("zcdp with ρ_L = ε²/2: hockey-stick {d10:e} / {d01:e}");
    assert!(
        d10.max(d01) > 1e-3,
        "the wrong ρ_L was not caught: {d10} {d01}"
    );
}

#[test]
fn files_that_are_not_ledgers_are_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    // Missing.
    let missing = dir.path().join("missing.ledger");
    let err = Ledger::open(&missing).unwrap_err().to_string();
    assert!(err.contains("ledger init"), "{err}");
    assert!(!missing.exists());
    // Text.
    let text = dir.path().join("notes.txt");
    std::fs::write(
        &text,
        "not a database at all, just some words\n".repeat(100),
    )
    .unwrap();
    let before = std::fs::read(&text).unwrap();
    let err = Ledger::open(&text).unwrap_err().to_string();
    assert!(err.contains("not a disguise ledger"), "{err}");
    assert_eq!(std::fs::read(&text).unwrap(), before);
    // Another program's SQLite database.
    let other = dir.path().join("other.db");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
        .unwrap();
    let before = std::fs::read(&other).unwrap();
    let err = Ledger::open(&other).unwrap_err().to_string();
    assert!(err.contains("another program"), "{err}");
    assert_eq!(std::fs::read(&other).unwrap(), before);
    // A newer format.
    let newer = dir.path().join("newer.ledger");
    drop(Ledger::create(&newer).unwrap());
    rusqlite::Connection::open(&newer)
        .unwrap()
        .execute_batch(&format!("PRAGMA user_version = {};", FORMAT + 1))
        .unwrap();
    let before = std::fs::read(&newer).unwrap();
    let err = Ledger::open(&newer).unwrap_err().to_string();
    assert!(err.contains("newer disguise"), "{err}");
    assert_eq!(std::fs::read(&newer).unwrap(), before);
    // An existing file is never overwritten by create.
    let before = std::fs::read(&text).unwrap();
    let err = Ledger::create(&text).unwrap_err().to_string();
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(std::fs::read(&text).unwrap(), before);
}

#[test]
fn a_corrupted_ledger_is_refused_and_not_modified() {
    let (dir, path, ledger) = fresh();
    ledger
        .set_default_limit(Some(Limit::new(100.0, 0.0).unwrap()))
        .unwrap();
    // Seven data sets, their names far apart.
    let names = [
        "adult", "census", "nursery", "iris", "wine", "mushroom", "letter",
    ];
    for i in 0..200 {
        ledger
            .reserve(names[i % 7], &record(g(0.1, 0.0)).command("x".repeat(200)))
            .unwrap();
    }
    drop(ledger);
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 8192, "{}", bytes.len());
    // Scribble over the header and first cells of a page in the middle of the releases.
    let page = bytes.len() / 2 / 4096 * 4096;
    for b in &mut bytes[page..page + 200] {
        *b = 0xA5;
    }
    let damaged = dir.path().join("damaged.ledger");
    std::fs::write(&damaged, &bytes).unwrap();
    let err = Ledger::open(&damaged).unwrap_err().to_string();
    assert!(
        err.contains("corrupt") || err.contains("not a disguise ledger"),
        "{err}"
    );
    assert_eq!(std::fs::read(&damaged).unwrap(), bytes);
}

#[test]
fn a_ledger_locked_by_another_writer_times_out_with_a_clear_error() {
    let (_dir, path, ledger) = fresh();
    ledger
        .set_limit("d", Limit::new(1.0, 0.0).unwrap())
        .unwrap();
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE;").unwrap();
    let waiting = ledger
        .timeout(std::time::Duration::from_millis(200))
        .unwrap();
    let started = std::time::Instant::now();
    let err = waiting
        .reserve("d", &record(g(0.1, 0.0)))
        .unwrap_err()
        .to_string();
    assert!(started.elapsed() >= std::time::Duration::from_millis(150));
    assert!(
        err.contains("locked by another process") && err.contains("waited"),
        "{err}"
    );
    holder.execute_batch("ROLLBACK;").unwrap();
    waiting.reserve("d", &record(g(0.1, 0.0))).unwrap();
}

#[test]
fn names_and_spends_are_validated() {
    let (_dir, _path, ledger) = fresh();
    ledger
        .set_default_limit(Some(Limit::new(100.0, 0.5).unwrap()))
        .unwrap();
    assert!(ledger.reserve("", &record(g(0.1, 0.0))).is_err());
    assert!(ledger.reserve("a\nb", &record(g(0.1, 0.0))).is_err());
    assert!(
        ledger
            .reserve(&"x".repeat(300), &record(g(0.1, 0.0)))
            .is_err()
    );
    assert!(ledger.reserve("d", &record(g(f64::NAN, 0.0))).is_err());
    assert!(ledger.reserve("d", &record(g(0.1, 1.0))).is_err());
    assert!(ledger.reserve("d", &record(g(0.1, 0.0)).runs(0)).is_err());
    assert!(Limit::new(0.0, 0.0).is_err() && Limit::new(1.0, -1e-9).is_err());
    assert!(ledger.releases(None).unwrap().is_empty());
}

#[test]
fn a_real_selection_is_charged_its_guarantee_and_its_calls() {
    use crate::task::{Select, WithPrivacy};
    let (_dir, _path, ledger) = fresh();
    ledger
        .set_limit("p", Limit::new(2.0, 1e-6).unwrap())
        .unwrap();
    let points = [[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]];
    let candidates = [[0.0, 0.0], [5.0, 5.0], [9.0, 0.0]];
    let request = Select::new(2).epsilon(1.0).delta(1e-6);
    let mut rng = crate::SecureRng::insecure_from_seed(3);
    let plan = request.plan(candidates.len()).unwrap();
    let report = ledger
        .charge("p", "test", &plan, &mut rng, |rng| {
            request.run(&points, &candidates, rng)
        })
        .unwrap();
    let releases = ledger.releases(Some("p")).unwrap();
    assert_eq!(releases.len(), 1);
    let r = &releases[0];
    let g = report.privacy.guarantee.unwrap();
    assert_eq!(
        (r.epsilon, r.delta, r.rule.as_str()),
        (g.epsilon, g.delta, g.rule.name())
    );
    assert_eq!(r.command, "test");
    assert!(!r.secure, "a seeded run is recorded as insecure");
    assert_eq!(r.calls.len(), 1);
    assert_eq!(r.calls[0].count, 2);
    assert_eq!(r.calls[0].kind, "bounded_range");
    assert_eq!(
        Some(r.calls[0].epsilon),
        report.privacy.per_round_epsilon.map(|e| *e)
    );
    // The argmax is refused before it runs, and not recorded.
    let argmax = Select::new(2).mechanism(crate::select::SelectorKind::Argmax);
    let plan = argmax.plan(candidates.len()).unwrap();
    let err = ledger
        .charge(
            "p",
            "test",
            &plan,
            &mut rng,
            |_| -> crate::Result<crate::task::SelectReport> {
                unreachable!("refused before it runs")
            },
        )
        .unwrap_err();
    assert!(err.to_string().contains("not private"), "{err}");
    assert_eq!(ledger.releases(None).unwrap().len(), 1);
}

#[test]
fn releases_of_another_privacy_unit_are_refused_on_a_data_set_and_nothing_is_recorded() {
    let (_dir, _path, ledger) = fresh();
    let people = record(g(0.5, 0.0));
    let edges = record(g(0.5, 0.0)).unit(Unit::Edge);
    ledger
        .set_default_limit(Some(Limit::new(100.0, 0.0).unwrap()))
        .unwrap();
    ledger.reserve("graph", &edges).unwrap();
    ledger.reserve("graph", &edges).unwrap();
    let err = ledger.reserve("graph", &people).unwrap_err();
    let Error::InvalidParameter { name, reason } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(*name, "dataset");
    assert!(
        reason.contains("edge-level") && reason.contains("record-level"),
        "{reason}"
    );
    assert_eq!(ledger.releases(Some("graph")).unwrap().len(), 2);
    let status = ledger.status("graph").unwrap();
    assert_eq!((status.unit, status.releases), (Some(Unit::Edge), 2));
    // The other way round too, and each unit composes on a data set of its own.
    ledger.reserve("people", &people).unwrap();
    assert!(ledger.reserve("people", &edges).is_err());
    assert_eq!(ledger.status("people").unwrap().unit, Some(Unit::Record));
    assert_eq!(ledger.status("empty").unwrap().unit, None);
    let units: Vec<Unit> = ledger
        .releases(None)
        .unwrap()
        .iter()
        .map(|r| r.unit)
        .collect();
    assert_eq!(units, [Unit::Edge, Unit::Edge, Unit::Record]);
}

#[test]
fn a_cut_report_spends_at_the_edge_level_and_the_others_at_the_record_level() {
    use crate::task::{MaxCut, Select, WithPrivacy};
    let mut rng = crate::SecureRng::insecure_from_seed(1);
    let edges = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)];
    let cut = MaxCut::new(1)
        .epsilon(1.0)
        .run(4, &edges, &mut rng)
        .unwrap();
    assert_eq!(cut.spend().unwrap().unwrap().unit, Unit::Edge);
    let points = [[0.0, 0.0], [0.1, 0.0], [5.0, 5.0]];
    let select = Select::new(1)
        .epsilon(1.0)
        .run(&points, &points, &mut rng)
        .unwrap();
    assert_eq!(select.spend().unwrap().unwrap().unit, Unit::Record);
}

/// The tables of format 1, as the first ledger version wrote them.
const FORMAT_1: &str = "
CREATE TABLE limits (id INTEGER PRIMARY KEY, dataset TEXT NOT NULL, time TEXT NOT NULL,
    epsilon REAL NOT NULL CHECK (epsilon > 0),
    delta REAL NOT NULL CHECK (delta >= 0 AND delta < 1)) STRICT;
CREATE TABLE releases (id INTEGER PRIMARY KEY AUTOINCREMENT, dataset TEXT NOT NULL,
    time TEXT NOT NULL, command TEXT NOT NULL, mechanism TEXT NOT NULL,
    runs INTEGER NOT NULL CHECK (runs >= 1), epsilon REAL NOT NULL CHECK (epsilon > 0),
    delta REAL NOT NULL CHECK (delta >= 0 AND delta < 1), rule TEXT NOT NULL,
    secure INTEGER NOT NULL) STRICT;
CREATE TABLE calls (release INTEGER NOT NULL REFERENCES releases (id), kind TEXT NOT NULL,
    epsilon REAL NOT NULL CHECK (epsilon > 0),
    delta REAL NOT NULL CHECK (delta >= 0 AND delta < 1),
    count INTEGER NOT NULL CHECK (count >= 1)) STRICT;
";

#[test]
fn a_format_1_ledger_is_upgraded_in_place_and_its_cut_releases_become_edge_level() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.ledger");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(&format!(
            "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 1; {FORMAT_1}"
        ))
        .unwrap();
        for (dataset, command) in [
            (
                "g",
                "/usr/local/bin/disguise cut --edges g.csv --k 3 --ledger b.ledger",
            ),
            (
                "p",
                "disguise select --points p.csv --candidates c.csv --k 2",
            ),
            ("q", "disguise cutlery --k 2"),
            ("g", "'/opt/my tools/disguise' cut --edges g.csv"),
        ] {
            c.execute(
                "INSERT INTO releases (dataset, time, command, mechanism, runs, epsilon, \
                 delta, rule, secure) VALUES (?1, 't', ?2, 'em', 1, 0.5, 0, 'basic', 1)",
                rusqlite::params![dataset, command],
            )
            .unwrap();
        }
    }
    let ledger = Ledger::open(&path).unwrap();
    let units: Vec<(String, Unit)> = ledger
        .releases(None)
        .unwrap()
        .into_iter()
        .map(|r| (r.dataset, r.unit))
        .collect();
    assert_eq!(
        units,
        [
            ("g".into(), Unit::Edge),
            ("p".into(), Unit::Record),
            ("q".into(), Unit::Record),
            ("g".into(), Unit::Edge),
        ]
    );
    let version: i32 = rusqlite::Connection::open(&path)
        .unwrap()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, FORMAT);
    assert_eq!(ledger.integrity_check().unwrap(), "ok");
    // Opening again changes nothing; the upgraded file takes new releases with their unit.
    drop(ledger);
    let ledger = Ledger::open(&path).unwrap();
    ledger
        .set_limit("new", Limit::new(1.0, 0.0).unwrap())
        .unwrap();
    ledger.reserve("new", &record(g(0.5, 0.0))).unwrap();
    assert_eq!(ledger.releases(Some("new")).unwrap()[0].unit, Unit::Record);
    // `p` had a release and no limit: its limit is what it spent, and nothing more fits.
    assert_eq!(
        ledger.limit("p").unwrap(),
        Some(Limit::new(0.5, 0.0).unwrap())
    );
    assert!(ledger.reserve("p", &record(g(0.5, 0.0))).is_err());
    assert_eq!(ledger.releases(Some("p")).unwrap().len(), 1);
}

#[test]
fn a_format_2_ledger_gets_basic_filters_and_loses_its_content_hash_names() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.ledger");
    let hash_a = format!("sha256:{}", "a".repeat(64));
    let hash_b = format!("sha256:{}", "b".repeat(64));
    {
        let c = format_2(&path);
        c.execute(
            "INSERT INTO limits (dataset, time, epsilon, delta) VALUES ('adult', 't0', 1, 0)",
            [],
        )
        .unwrap();
        // A user's own name `unnamed-1` is kept: the renamed data sets take free names.
        for (dataset, time) in [
            (hash_b.as_str(), "t1"),
            ("adult", "t2"),
            (hash_a.as_str(), "t3"),
            ("unnamed-1", "t4"),
            (hash_b.as_str(), "t5"),
        ] {
            c.execute(
                "INSERT INTO releases (dataset, time, command, mechanism, runs, epsilon, \
                 delta, rule, secure) VALUES (?1, ?2, 'disguise select', 'em', 1, 0.25, 0, \
                 'single', 1)",
                rusqlite::params![dataset, time],
            )
            .unwrap();
        }
    }
    let ledger = Ledger::open(&path).unwrap();
    assert_eq!(
        ledger.datasets().unwrap(),
        ["adult", "unnamed-1", "unnamed-2", "unnamed-3"]
    );
    let names: Vec<String> = ledger
        .releases(None)
        .unwrap()
        .into_iter()
        .map(|r| r.dataset)
        .collect();
    assert_eq!(
        names,
        ["unnamed-2", "adult", "unnamed-3", "unnamed-1", "unnamed-2"]
    );
    let bytes = std::fs::read(&path).unwrap();
    assert!(
        !bytes.windows(7).any(|w| w == b"sha256:"),
        "a content hash is left in the file"
    );
    let limit = ledger.limit("adult").unwrap().unwrap();
    assert_eq!((limit.filter, limit.epsilon), (Filter::Basic, 1.0));
    assert_eq!(ledger.default_limit().unwrap(), None);
    ledger.reserve("adult", &em(0.5)).unwrap();
    assert!(ledger.reserve("adult", &em(0.5)).is_err());
    assert_eq!(ledger.integrity_check().unwrap(), "ok");
}

/// The refusal of a look-alike name: a parameter error naming `dataset` that suggests
/// `existing`.
fn assert_did_you_mean(result: Result<impl std::fmt::Debug>, existing: &str, what: &str) {
    let err = result.unwrap_err();
    let Error::InvalidParameter { name, reason } = &err else {
        panic!("{what}: {err:?}");
    };
    assert_eq!(*name, "dataset", "{what}");
    assert!(
        reason.contains(&format!("did you mean {existing:?}")),
        "{what}: {reason}"
    );
}

#[test]
fn invisible_characters_unicode_spellings_and_full_width_letters_are_look_alikes_refused_everywhere()
 {
    let (_dir, _path, ledger) = fresh();
    ledger
        .set_limit("adult", Limit::new(1.0, 0.0).unwrap())
        .unwrap();
    ledger
        .set_limit("café", Limit::new(1.0, 0.0).unwrap())
        .unwrap();
    ledger.reserve("adult", &em(0.25)).unwrap();
    for (alike, existing) in [
        ("\u{feff}adult", "adult"),                            // byte order mark
        ("adu\u{200b}lt", "adult"),                            // zero-width space
        ("\u{ff41}\u{ff44}\u{ff55}\u{ff4c}\u{ff54}", "adult"), // full width
        ("Adu\u{00ad}lt", "adult"),                            // soft hyphen, case
        ("cafe\u{301}", "café"),                               // decomposed é
        ("CAFE\u{301}", "café"),
    ] {
        assert_did_you_mean(ledger.reserve(alike, &em(0.25)), existing, alike);
        assert_did_you_mean(
            ledger.set_limit(alike, Limit::new(9.0, 0.0).unwrap()),
            existing,
            alike,
        );
        assert_did_you_mean(ledger.resolve(alike), existing, alike);
        assert_did_you_mean(ledger.status(alike), existing, alike);
        assert_did_you_mean(ledger.limit(alike), existing, alike);
        assert_did_you_mean(ledger.overview(Some(alike)), existing, alike);
        assert_did_you_mean(ledger.releases(Some(alike)), existing, alike);
    }
    // Nothing was recorded for them; a name of invisible characters only is empty.
    assert_eq!(ledger.datasets().unwrap(), ["adult", "café"]);
    assert_eq!(ledger.releases(None).unwrap().len(), 1);
    for empty in ["\u{feff}", "\u{200b}\u{2060}"] {
        let err = ledger.reserve(empty, &em(0.25)).unwrap_err().to_string();
        assert!(err.contains("empty"), "{empty:?}: {err}");
    }
    // The names themselves still work, and an unknown name far from both is no look-alike.
    assert_eq!(ledger.status("adult").unwrap().releases, 1);
    assert_eq!(ledger.resolve(" café ").unwrap(), "café");
    assert_eq!(ledger.status("census").unwrap().releases, 0);
}

#[test]
fn an_older_ledgers_name_with_invisible_characters_is_itself_and_its_look_alikes_are_refused() {
    let (_dir, path, ledger) = fresh();
    drop(ledger);
    // As an earlier version recorded them: names taken as given, invisible characters kept.
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        for name in ["\u{feff}adult", "zero\u{200b}width"] {
            c.execute(
                "INSERT INTO limits (dataset, time, epsilon, delta) VALUES (?1, 't', 1, 0)",
                [name],
            )
            .unwrap();
        }
    }
    let ledger = Ledger::open(&path).unwrap();
    for (alike, existing) in [
        ("adult", "\u{feff}adult"),
        ("ADULT", "\u{feff}adult"),
        ("\u{ff41}dult", "\u{feff}adult"),
        ("zerowidth", "zero\u{200b}width"),
        ("zero\u{2060}width", "zero\u{200b}width"),
    ] {
        assert_did_you_mean(ledger.reserve(alike, &em(0.25)), existing, alike);
        assert_did_you_mean(
            ledger.set_limit(alike, Limit::new(9.0, 0.0).unwrap()),
            existing,
            alike,
        );
        assert_did_you_mean(ledger.status(alike), existing, alike);
        assert_did_you_mean(ledger.resolve(alike), existing, alike);
    }
    // Given exactly, the held name is itself.
    ledger.reserve("\u{feff}adult", &em(0.25)).unwrap();
    assert_eq!(ledger.status("\u{feff}adult").unwrap().releases, 1);
    assert_eq!(ledger.datasets().unwrap().len(), 2);
    // The overview of the whole ledger reads every held name.
    assert_eq!(ledger.overview(None).unwrap().datasets.len(), 2);
}

#[test]
fn a_spend_is_reserved_at_the_unit_its_plan_states_and_a_run_of_another_unit_is_refused() {
    let (_dir, _path, ledger) = fresh();
    ledger
        .set_default_limit(Some(Limit::new(10.0, 0.0).unwrap()))
        .unwrap();
    let mut rng = crate::SecureRng::insecure_from_seed(1);
    let edges = em(0.5).unit(Unit::Edge);
    let run = ledger
        .charge("g", "test", &edges, &mut rng, |_| Ok(edges.clone()))
        .unwrap();
    assert_eq!(run.unit, Unit::Edge);
    assert_eq!(ledger.releases(Some("g")).unwrap()[0].unit, Unit::Edge);
    // A run whose report protects another unit than its plan is not returned.
    let err = ledger
        .charge("g", "test", &edges, &mut rng, |_| Ok(em(0.5)))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("internal error") && err.contains("record-level"),
        "{err}"
    );
}

#[test]
fn a_coverage_plan_on_a_friendship_graph_spends_at_the_edge_level() {
    use crate::task::{CoverageInput, MaxCoverage, WithPrivacy};
    let mut request = MaxCoverage::new(2).epsilon(1.0);
    request.input = CoverageInput::Edges;
    let plan = request.plan(5).unwrap();
    assert_eq!(plan.spend().unwrap().unwrap().unit, Unit::Edge);
    let plan = MaxCoverage::new(2).epsilon(1.0).plan(5).unwrap();
    assert_eq!(plan.spend().unwrap().unwrap().unit, Unit::Record);
}

/// A release of `count` exponential-mechanism calls at ε₀ = `each`, reported as (ε, δ).
fn calls_of(epsilon: f64, delta: f64, count: u64, each: f64) -> Spend {
    Spend {
        calls: vec![(PrivacyCost::BoundedRange { epsilon: eps(each) }, count)],
        ..record(g(epsilon, delta))
    }
}

#[test]
fn a_run_whose_calls_cost_more_rho_than_reserved_is_refused_though_its_guarantee_matches() {
    let (_dir, _path, ledger) = fresh();
    ledger
        .set_limit("d", Limit::zcdp(10.0, 1e-6).unwrap())
        .unwrap();
    let mut rng = crate::SecureRng::insecure_from_seed(2);
    // Planned: 10 calls of 0.1, (1, 10⁻⁶) by zCDP. The run reports the same (ε, δ), but its
    // calls are of 0.2: four times the ρ the zCDP filter charged.
    let planned = calls_of(1.0, 1e-6, 10, 0.1);
    let err = ledger
        .charge("d", "test", &planned, &mut rng, |_| {
            Ok(calls_of(1.0, 1e-6, 10, 0.2))
        })
        .unwrap_err();
    let Error::InvalidParameter { name, reason } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(*name, "ledger");
    assert!(reason.contains("internal error"), "{reason}");
    // More calls than reserved, or of another kind, likewise; the run as planned is returned.
    let more = |_: &mut crate::SecureRng| Ok(calls_of(1.0, 1e-6, 11, 0.1));
    assert!(
        ledger
            .charge("d", "test", &planned, &mut rng, more)
            .is_err()
    );
    let pure = |_: &mut crate::SecureRng| {
        Ok(Spend {
            calls: vec![(PrivacyCost::Pure { epsilon: eps(0.1) }, 10)],
            ..record(g(1.0, 1e-6))
        })
    };
    assert!(
        ledger
            .charge("d", "test", &planned, &mut rng, pure)
            .is_err()
    );
    let same = |_: &mut crate::SecureRng| Ok(calls_of(1.0, 1e-6, 10, 0.1));
    assert!(ledger.charge("d", "test", &planned, &mut rng, same).is_ok());
    // Every attempt was reserved before it ran: a run that fails its check stays charged.
    assert_eq!(ledger.releases(Some("d")).unwrap().len(), 4);
}

#[test]
fn within_reservation_compares_what_every_filter_charges_and_matches_calls_by_kind_and_cost() {
    let reserved = calls_of(1.0, 1e-6, 10, 0.1);
    assert!(within_reservation(&reserved, &reserved));
    assert!(within_reservation(&reserved, &calls_of(0.5, 1e-7, 5, 0.1)));
    // Fewer calls of a smaller cost, a smaller guarantee: covered.
    assert!(within_reservation(
        &reserved,
        &calls_of(1.0, 1e-6, 10, 0.05)
    ));
    // A larger ε or δ, ρ, count, or runs: not.
    assert!(!within_reservation(
        &reserved,
        &calls_of(1.1, 1e-6, 10, 0.1)
    ));
    assert!(!within_reservation(
        &reserved,
        &calls_of(1.0, 2e-6, 10, 0.1)
    ));
    assert!(!within_reservation(
        &reserved,
        &calls_of(1.0, 1e-6, 10, 0.11)
    ));
    assert!(!within_reservation(
        &reserved,
        &calls_of(1.0, 1e-6, 10, 0.1).runs(2)
    ));
    assert!(within_reservation(
        &reserved.clone().runs(2),
        &calls_of(1.0, 1e-6, 20, 0.1)
    ));
    // A run that reports no calls is held to its guarantee, its calls taken as reserved.
    assert!(within_reservation(&reserved, &record(g(1.0, 1e-6))));
    assert!(!within_reservation(&reserved, &record(g(1.5, 1e-6))));
    // But a run with calls where none were reserved is not covered.
    assert!(!within_reservation(
        &record(g(1.0, 1e-6)),
        &calls_of(1.0, 1e-6, 10, 0.1)
    ));
    // Approximate calls are matched on ε and δ together: two reserved calls, (0.2, 10⁻⁹)
    // and (0.1, 10⁻⁸), cover (0.1, 10⁻⁹) and (0.2, 10⁻⁹)? No: (0.2, 10⁻⁹) needs the first,
    // then (0.1, 10⁻⁹) fits the second. And (0.15, 10⁻⁸) fits neither.
    let lmm = |pairs: &[(f64, f64)]| Spend {
        calls: pairs
            .iter()
            .map(|&(e, d)| {
                (
                    PrivacyCost::Approximate {
                        epsilon: eps(e),
                        delta: Delta::new(d).unwrap(),
                    },
                    1,
                )
            })
            .collect(),
        ..record(g(0.3, 1e-6))
    };
    let two = lmm(&[(0.2, 1e-9), (0.1, 1e-8)]);
    assert!(within_reservation(&two, &lmm(&[(0.1, 1e-9), (0.2, 1e-9)])));
    assert!(within_reservation(&two, &lmm(&[(0.1, 1e-8), (0.2, 1e-9)])));
    assert!(!within_reservation(&two, &lmm(&[(0.15, 1e-8)])));
    assert!(!within_reservation(&two, &lmm(&[(0.2, 1e-9), (0.2, 1e-9)])));
    // The greedy needs the right reserved call when two fit: (0.1, 10⁻⁹) could take either,
    // and must leave (0.2, 10⁻⁸) to the call that needs it.
    let both = lmm(&[(0.2, 1e-8), (0.1, 1e-9)]);
    assert!(within_reservation(&both, &lmm(&[(0.1, 1e-9), (0.2, 1e-8)])));
    assert!(within_reservation(
        &both,
        &lmm(&[(0.05, 1e-9), (0.15, 1e-9)])
    ));
}

/// An empty ledger of format 2 (format 1 with units) at `path`, open.
fn format_2(path: &std::path::Path) -> rusqlite::Connection {
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(&format!(
        "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 1; {FORMAT_1}"
    ))
    .unwrap();
    c.execute_batch(
        "ALTER TABLE releases ADD COLUMN unit TEXT NOT NULL DEFAULT 'record' \
         CHECK (unit IN ('record', 'edge')); PRAGMA user_version = 2;",
    )
    .unwrap();
    c
}

/// An old ledger (format 2) holding releases on `old` without a limit, and on `kept` with
/// its limit.
fn format_2_with_releases_and_no_limit(path: &std::path::Path) {
    let c = format_2(path);
    c.execute(
        "INSERT INTO limits (dataset, time, epsilon, delta) VALUES ('kept', 't0', 1, 1e-6)",
        [],
    )
    .unwrap();
    for (dataset, epsilon, delta) in [
        ("old", 0.1, 0.0),
        ("kept", 0.25, 0.0),
        ("old", 0.2, 1e-7),
        ("old", 0.45, 0.0),
    ] {
        c.execute(
            "INSERT INTO releases (dataset, time, command, mechanism, runs, epsilon, delta, \
             rule, secure) VALUES (?1, 't', 'disguise select', 'em', 1, ?2, ?3, 'basic', 1)",
            rusqlite::params![dataset, epsilon, delta],
        )
        .unwrap();
    }
}

#[test]
fn an_older_data_set_with_releases_and_no_limit_gets_the_limit_it_spent_and_admits_no_more() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.ledger");
    format_2_with_releases_and_no_limit(&path);
    let ledger = Ledger::open(&path).unwrap();
    // 0.1 + 0.2 + 0.45 = 0.75 and 10⁻⁷, exactly.
    let limit = ledger.limit("old").unwrap().unwrap();
    assert_eq!(
        (limit.epsilon, limit.delta, limit.filter),
        (0.75, 1e-7, Filter::Basic)
    );
    let status = ledger.status("old").unwrap();
    let left = status.remaining.unwrap();
    assert_eq!((left.epsilon, left.delta), (0.0, 0.0));
    // No further release, even with a default limit in the ledger.
    ledger
        .set_default_limit(Some(Limit::new(100.0, 1e-3).unwrap()))
        .unwrap();
    let err = ledger.reserve("old", &em(0.01)).unwrap_err();
    assert!(matches!(err, Error::BudgetExceeded { .. }), "{err:?}");
    // Its limit cannot be raised: one line saying why.
    let err = ledger
        .set_limit("old", Limit::new(5.0, 1e-6).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("lowered, not raised") && !err.contains('\n'),
        "{err}"
    );
    assert_eq!(ledger.releases(Some("old")).unwrap().len(), 3);
    // A data set that had its limit keeps it.
    let kept = ledger.limit("kept").unwrap().unwrap();
    assert_eq!((kept.epsilon, kept.delta), (1.0, 1e-6));
    ledger.reserve("kept", &em(0.5)).unwrap();
    assert_eq!(ledger.integrity_check().unwrap(), "ok");
}

#[test]
fn releases_recorded_without_a_limit_take_none_afterwards_nor_a_default() {
    // A file of the current format whose releases have no limit (written by hand, or by a
    // version between formats): refused both ways, with one line saying why.
    let (_dir, path, ledger) = fresh();
    drop(ledger);
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "INSERT INTO releases (dataset, time, command, mechanism, runs, epsilon, delta, \
             rule, secure) VALUES ('d', 't', 'disguise select', 'em', 1, 0.5, 0, 'basic', 1)",
            [],
        )
        .unwrap();
    let ledger = Ledger::open(&path).unwrap();
    let err = ledger
        .set_limit("d", Limit::new(1.0, 0.0).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("without a limit")
            && err.contains("after seeing their outputs")
            && !err.contains('\n'),
        "{err}"
    );
    ledger
        .set_default_limit(Some(Limit::new(100.0, 0.0).unwrap()))
        .unwrap();
    let err = ledger.reserve("d", &em(0.1)).unwrap_err().to_string();
    assert!(err.contains("without a limit"), "{err}");
    assert_eq!(ledger.limit("d").unwrap(), None);
    assert_eq!(ledger.releases(Some("d")).unwrap().len(), 1);
}

#[test]
fn lowering_a_limits_delta_to_0_can_admit_a_release_the_original_limit_refuses() {
    // Why "the lowered limit admits a subset of the original's" is false: under a pure
    // limit a release reported with δ > 0 is charged the basic composition of its pure
    // calls, not its own (ε, δ). Calls exact in binary, so the sums are exact.
    let (_dir, _path, ledger) = fresh();
    let original = Limit::new(1.0, 1e-6).unwrap();
    ledger.set_limit("d", original).unwrap();
    // 7 calls of 0.125 (Σ 0.875), reported (0.8, 10⁻⁶) by a rule for δ > 0.
    let first = calls_of(0.8, 1e-6, 7, 0.125);
    ledger.reserve("d", &first).unwrap();
    let lowered = Limit::new(1.0, 0.0).unwrap();
    ledger.set_limit("d", lowered).unwrap();
    let second = calls_of(0.1, 1e-9, 1, 0.125);
    ledger.reserve("d", &second).unwrap();
    let mut both = Totals::default();
    both.add_spend(&first).unwrap();
    both.add_spend(&second).unwrap();
    assert!(both.within(&lowered), "0.875 + 0.125 = 1, pure");
    assert!(!both.within(&original), "δ: 10⁻⁶ + 10⁻⁹ > 10⁻⁶");
}

/// The charges one release alone gets: its own (ε, δ) times its runs, and its pure charge
/// π (the basic filter's under a pure limit; `None` when it has none).
fn own_and_pure(spend: &Spend) -> (Exact, Exact, Option<Exact>) {
    let mut t = Totals::default();
    t.add_spend(spend).unwrap();
    let pure = t.pure.delta.is_zero().then_some(t.pure.epsilon);
    (t.all.epsilon, t.all.delta, pure)
}

#[test]
fn limits_lowered_during_an_adaptive_interaction_keep_its_releases_within_the_first_limit() {
    // The argument of docs/proofs/ledger-composition.md ("Changing a limit"), on the file's
    // own decisions: each admitted release i is charged gᵢ = (min(εᵢ, πᵢ), δᵢ) while the
    // limit in force has δ > 0 and (πᵢ, 0) once it is pure (each a guarantee of release i,
    // fixed before it runs), and whatever the lowerings, chosen from the outputs,
    // G + max(Φ, 0) ≤ (ε₁, δ₁) after every step — G = Σ gᵢ, Φ what is left of the limit in
    // force: (ε − min(Σεⱼ, Σπⱼ), δ − Σδⱼ), or (ε − Σπⱼ, 0) under a pure limit — so G stays
    // within the first limit, and the basic filter's theorem, for any such charges, gives
    // the transcript (ε₁, δ₁).
    use rand_core::Rng;
    let mut rng = crate::SecureRng::insecure_from_seed(5);
    let mut pick = move |n: usize| (rng.next_u64() % n as u64) as usize;
    let lmm = |epsilon: f64, delta: f64| Spend {
        calls: vec![(
            PrivacyCost::Approximate {
                epsilon: eps(epsilon),
                delta: Delta::new(delta).unwrap(),
            },
            1,
        )],
        ..record(g(epsilon, delta))
    };
    let first = Limit::new(1.0, 1e-6).unwrap();
    let (e1, d1) = (shortest(first.epsilon), shortest(first.delta));
    let mut switched = 0;
    for _ in 0..60 {
        let (_dir, _path, ledger) = fresh();
        ledger.set_limit("d", first).unwrap();
        let mut limit = first;
        let mut totals = Totals::default();
        let (mut g_eps, mut g_del) = (Exact::zero(), Exact::zero());
        let potential = |t: &Totals, l: &Limit| -> (Exact, Exact) {
            let pi = t.pure.delta.is_zero().then(|| t.pure.epsilon.clone());
            if l.delta == 0.0 {
                // No pure charge for some release: nothing more is admitted, Φ⁺ = 0.
                let left = pi.map_or(Exact::zero(), |p| shortest(l.epsilon) - p);
                (left, Exact::zero())
            } else {
                let b = match pi {
                    Some(p) if p < t.all.epsilon => p,
                    _ => t.all.epsilon.clone(),
                };
                (shortest(l.epsilon) - b, shortest(l.delta) - &t.all.delta)
            }
        };
        let positive = |x: Exact| if x.is_positive() { x } else { Exact::zero() };
        for _ in 0..40 {
            if pick(5) == 0 {
                // Lower the limit: ε to one of these at most the current one, δ kept, halved
                // or 0.
                let epsilon = [1.0f64, 0.875, 0.75, 0.5][pick(4)].min(limit.epsilon);
                let delta = [limit.delta, limit.delta / 2.0, 0.0][pick(3)];
                let lowered = Limit::new(epsilon, delta).unwrap();
                let (before_e, before_d) = potential(&totals, &limit);
                if !totals.within(&lowered) {
                    // Below what is spent: refused, the limit in force stays.
                    let e = ledger.set_limit("d", lowered).unwrap_err();
                    assert!(e.to_string().contains("already spent"), "{e}");
                } else {
                    ledger.set_limit("d", lowered).unwrap();
                    if limit.delta > 0.0 && delta == 0.0 {
                        switched += 1;
                    }
                    limit = lowered;
                    let (after_e, after_d) = potential(&totals, &limit);
                    assert!(positive(after_e) <= positive(before_e));
                    assert!(positive(after_d) <= positive(before_d));
                }
            }
            let each = [0.0625, 0.125][pick(2)];
            let k = 1 + pick(2) as u64;
            let sum = each * k as f64;
            let spend = match pick(4) {
                0 => record(g(each, 0.0)),
                // Reported below the calls' sum at δ > 0, or a hair above it (rounded up).
                1 => calls_of(sum * 0.75, 1e-7, k, each),
                2 => calls_of(sum + 1.0 / 1024.0, 2e-7, k, each),
                _ => lmm(each, 1e-7),
            };
            let mut after = totals.clone();
            after.add_spend(&spend).unwrap();
            let admitted = ledger.reserve("d", &spend).is_ok();
            assert_eq!(admitted, after.within(&limit));
            if !admitted {
                continue;
            }
            let (own_e, own_d, pi) = own_and_pure(&spend);
            if limit.delta > 0.0 {
                g_eps += match pi {
                    Some(p) if p < own_e => p,
                    _ => own_e,
                };
                g_del += own_d;
            } else {
                g_eps += pi.expect("a release admitted under a pure limit has a pure charge");
            }
            totals = after;
            let (left_e, left_d) = potential(&totals, &limit);
            assert!(!left_e.is_negative() && !left_d.is_negative());
            assert!(&g_eps + left_e <= e1 && &g_del + left_d <= d1);
        }
        assert!(g_eps <= e1 && g_del <= d1);
    }
    assert!(switched > 10, "{switched}");
}

/// The refusal of a typo: a parameter error naming `dataset` that suggests `existing`, the
/// number of edits, and (when the call would create the data set) how to confirm a new one.
fn assert_typo(result: Result<impl std::fmt::Debug>, existing: &str, edits: &str, creates: bool) {
    let err = result.unwrap_err();
    let Error::InvalidParameter { name, reason } = &err else {
        panic!("{existing}: {err:?}");
    };
    assert_eq!(*name, "dataset");
    assert!(
        reason.contains(&format!("did you mean {existing:?}? ({edits} from it"))
            && !reason.contains('\n'),
        "{reason}"
    );
    let confirm = reason.contains("--new-dataset") && reason.contains("new=True");
    assert_eq!(confirm, creates, "{reason}");
}

#[test]
fn a_new_name_one_or_two_edits_from_an_existing_one_is_refused_unless_confirmed_new() {
    let (_dir, _path, ledger) = fresh();
    ledger
        .set_limit("nursery", Limit::new(1.0, 0.0).unwrap())
        .unwrap();
    ledger
        .set_limit("adult", Limit::new(1.0, 0.0).unwrap())
        .unwrap();
    // A release could create a data set: the ledger has a default limit.
    ledger
        .set_default_limit(Some(Limit::new(1.0, 0.0).unwrap()))
        .unwrap();
    for (typo, existing, edits) in [
        ("nursry", "nursery", "1 edit"),  // a letter dropped
        ("adlut", "adult", "1 edit"),     // two adjacent letters transposed
        ("Nursry", "nursery", "1 edit"),  // and another case
        ("adult-2", "adult", "2 edits"),  // two letters added
        ("aduIt ", "adult", "1 edit"),    // a capital I for an l, trimmed
        ("nurseyr", "nursery", "1 edit"), // transposed at the end
        ("nurser", "nursery", "1 edit"),  // nearer the one than the other
    ] {
        assert_typo(ledger.reserve(typo, &em(0.25)), existing, edits, true);
        assert_typo(
            ledger.set_limit(typo, Limit::new(5.0, 0.0).unwrap()),
            existing,
            edits,
            true,
        );
        // Looking a typo up suggests the name too, with nothing to confirm.
        assert_typo(ledger.status(typo), existing, edits, false);
        assert_typo(ledger.resolve(typo), existing, edits, false);
        assert_typo(ledger.limit(typo), existing, edits, false);
        assert_typo(ledger.releases(Some(typo)), existing, edits, false);
    }
    assert_eq!(ledger.datasets().unwrap(), ["adult", "nursery"]);
    assert!(ledger.releases(None).unwrap().is_empty());
    // Three edits away is another name: taken (here with the default limit).
    ledger.reserve("adult-v2", &em(0.25)).unwrap();
    ledger
        .set_limit("nursing", Limit::new(1.0, 0.0).unwrap())
        .unwrap();
    // Confirmed new, by a limit: its own budget, and its exact name works afterwards
    // without the confirmation, as does the name it is near.
    ledger
        .set_limit(Name::new_dataset("nursry"), Limit::new(2.0, 0.0).unwrap())
        .unwrap();
    ledger.reserve("nursry", &em(0.25)).unwrap();
    ledger
        .set_limit("nursry", Limit::new(1.5, 0.0).unwrap())
        .unwrap();
    ledger.reserve("nursery", &em(0.25)).unwrap();
    assert_eq!(ledger.limit("nursry").unwrap().unwrap().epsilon, 1.5);
    assert_eq!(ledger.limit("nursery").unwrap().unwrap().epsilon, 1.0);
    // Confirmed new, by a release into the default limit.
    let receipt = ledger.reserve(Name::new_dataset("adlut"), &em(0.25));
    assert!(receipt.is_ok(), "{receipt:?}");
    assert_eq!(ledger.status("adlut").unwrap().releases, 1);
    // A name that differs only by case is never new, confirmed or not.
    for alike in ["NURSERY", "Adlut", "adult-V2"] {
        let err = ledger
            .set_limit(Name::new_dataset(alike), Limit::new(1.0, 0.0).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("did you mean")
                && err.contains("only by case")
                && !err.contains("--new-dataset"),
            "{alike}: {err}"
        );
        assert!(ledger.reserve(Name::new_dataset(alike), &em(0.25)).is_err());
    }
    // A confirmation of a name near nothing, or held already, changes nothing.
    ledger
        .set_limit(Name::new_dataset("census"), Limit::new(1.0, 0.0).unwrap())
        .unwrap();
    ledger
        .reserve(Name::new_dataset("census"), &em(0.25))
        .unwrap();
    assert_eq!(
        ledger.datasets().unwrap(),
        [
            "adlut", "adult", "adult-v2", "census", "nursery", "nursing", "nursry"
        ]
    );
}

#[test]
fn without_a_limit_a_confirmed_new_name_near_another_is_advised_a_limit_confirmed_new() {
    let (_dir, _path, ledger) = fresh();
    ledger
        .set_limit("nursery", Limit::new(1.0, 0.0).unwrap())
        .unwrap();
    // Not confirmed: the typo is refused before the missing limit is mentioned.
    assert_typo(
        ledger.reserve("nursry", &em(0.25)),
        "nursery",
        "1 edit",
        true,
    );
    // Confirmed: no limit, and the advice to set one confirms the name new too.
    let err = ledger
        .reserve(Name::new_dataset("nursry"), &em(0.25))
        .unwrap_err();
    let Error::BudgetExceeded { message, .. } = &err else {
        panic!("{err:?}");
    };
    assert!(
        message.contains("no limit")
            && message.contains("ledger limit --dataset nursry --new-dataset --epsilon E")
            && message.contains("new=True")
            && message.contains("near the data set \"nursery\""),
        "{message}"
    );
    // A name near nothing is advised the plain command.
    let err = ledger.reserve("census", &em(0.25)).unwrap_err().to_string();
    assert!(
        err.contains("ledger limit --dataset census --epsilon E")
            && !err.contains("--new-dataset")
            && !err.contains("new=True"),
        "{err}"
    );
    assert!(ledger.releases(None).unwrap().is_empty());
    assert_eq!(ledger.datasets().unwrap(), ["nursery"]);
}

#[test]
fn what_is_left_under_zcdp_is_the_epsilon_the_rho_left_converts_to_at_the_limits_delta() {
    use crate::privacy::compose::zcdp_to_dp;
    let delta = Delta::new(1e-6).unwrap();
    let (_dir, _path, ledger) = fresh();
    ledger
        .set_limit("logs", Limit::zcdp(1.0, 1e-6).unwrap())
        .unwrap();
    // Before any release: the limit's own ε and δ, which ρ_L converts to (a hair below).
    let untouched = ledger.status("logs").unwrap().remaining.unwrap();
    assert_eq!((untouched.epsilon, untouched.delta), (1.0, 1e-6));
    assert_eq!(
        (untouched.approximate_epsilon, untouched.approximate_delta),
        (Some(0.0), Some(0.0))
    );
    // (The ρ left is ρ_L rounded down to a decimal; the conversion, computed, is within a
    // few units in the last place of its own value, and not monotone at that scale.)
    let converted = zcdp_to_dp(untouched.rho.unwrap(), delta).unwrap();
    assert!((converted - 1.0).abs() < 1e-9, "{converted}");
    // Each release leaves strictly less: the conversion of the ρ left, rounded down (4
    // calls of ε = 0.2 cost ρ = 4 · 0.2²/8 = 0.02 of ρ_L ≈ 0.0245).
    let mut before = untouched.epsilon;
    for _ in 0..4 {
        ledger.reserve("logs", &em(0.2)).unwrap();
        let left = ledger.status("logs").unwrap().remaining.unwrap();
        let converted = zcdp_to_dp(left.rho.unwrap(), delta).unwrap();
        assert!(
            left.epsilon < before
                && left.epsilon <= converted
                && left.epsilon > converted * (1.0 - 1e-12),
            "{left:?} after {before}: {converted}"
        );
        assert_eq!(left.delta, 1e-6);
        before = left.epsilon;
    }
    // Spent to the last bit of ρ: nothing is left, worth nothing.
    let (_dir, _path, ledger) = fresh();
    let limit = Limit::zcdp(1.0, 1e-6).unwrap();
    ledger.set_limit("all", limit).unwrap();
    let mut spend = record(Guarantee {
        epsilon: 1.0,
        delta: 1e-6,
        rule: Rule::Zcdp,
    });
    spend.calls = vec![(PrivacyCost::zcdp(limit.rho.unwrap()).unwrap(), 1)];
    ledger.reserve("all", &spend).unwrap();
    let left = ledger.status("all").unwrap().remaining.unwrap();
    assert_eq!(
        (left.epsilon, left.delta, left.rho, left.pure_epsilon),
        (0.0, 1e-6, Some(0.0), Some(0.0))
    );
    // A part set aside for approximate releases is left apart: the ρ part is worth the rest.
    let (_dir, _path, ledger) = fresh();
    let limit = Limit::zcdp(1.0, 1e-6)
        .unwrap()
        .approximate(0.25, 2.5e-7)
        .unwrap();
    ledger.set_limit("part", limit).unwrap();
    let left = ledger.status("part").unwrap().remaining.unwrap();
    assert_eq!(
        (
            left.epsilon,
            left.delta,
            left.approximate_epsilon,
            left.approximate_delta
        ),
        (0.75, 7.5e-7, Some(0.25), Some(2.5e-7))
    );
    // The basic filter's is what is left of the limit, as before.
    ledger
        .set_limit("plain", Limit::new(1.0, 1e-6).unwrap())
        .unwrap();
    ledger.reserve("plain", &em(0.25)).unwrap();
    let left = ledger.status("plain").unwrap().remaining.unwrap();
    assert_eq!(
        (
            left.epsilon,
            left.delta,
            left.rho,
            left.pure_epsilon,
            left.approximate_epsilon
        ),
        (0.75, 1e-6, None, None, None)
    );
}

#[test]
fn a_run_whose_calls_cost_more_than_reserved_is_an_internal_error_though_its_guarantee_matches() {
    use crate::task::{Select, WithPrivacy};
    let plan = Select::new(3).epsilon(1.0).delta(1e-6).plan(10).unwrap();
    let reserved = Reserved {
        spend: Some(plan.spend().unwrap().unwrap().runs(4)),
    };
    // The run as planned, one of the 4 trials: within.
    reserved.check(&plan).unwrap();
    // The same guarantee, but calls of twice the ε: 4× the ρ a zCDP limit charged.
    let mut run = plan.clone();
    run.calls = (run.calls.iter())
        .map(|&(cost, n)| match cost {
            PrivacyCost::BoundedRange { epsilon } => {
                let epsilon = Epsilon::new(2.0 * epsilon.get()).unwrap();
                (PrivacyCost::BoundedRange { epsilon }, n)
            }
            other => (other, n),
        })
        .collect();
    assert_eq!(run.guarantee, plan.guarantee);
    let err = reserved.check(&run).unwrap_err();
    assert!(matches!(err, Error::Internal(_)), "{err}");
    let text = err.to_string();
    assert!(
        text.starts_with("internal error: the run spends more than was reserved"),
        "{text}"
    );
    // A larger guarantee.
    let mut larger = plan.clone();
    larger.guarantee.as_mut().unwrap().epsilon *= 1.5;
    assert!(reserved.check(&larger).is_err());
    // Nothing reserved: any private run is beyond it.
    assert!(Reserved { spend: None }.check(&plan).is_err());
}
