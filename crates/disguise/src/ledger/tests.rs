use super::*;
use crate::privacy::compose::{Accountant, Rule};
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

fn eps(e: f64) -> Epsilon {
    Epsilon::new(e).unwrap()
}

#[test]
fn a_limit_admits_releases_until_it_is_spent_and_nothing_is_recorded_when_refused() {
    let (_dir, _path, ledger) = fresh();
    ledger
        .set_limit("d", Limit::new(1.0, 0.0).unwrap())
        .unwrap();
    let spend = Spend::new(g(0.25, 0.0)).command("select --k 3");
    for _ in 0..4 {
        ledger.reserve("d", &spend).unwrap();
    }
    let err = ledger.reserve("d", &spend).unwrap_err();
    let Error::BudgetExceeded { dataset, message } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(dataset, "d");
    assert!(
        message.contains("spent ε = 1") && message.contains("left ε = 0"),
        "{message}"
    );
    assert_eq!(ledger.releases(Some("d")).unwrap().len(), 4);
    let status = ledger.status("d").unwrap();
    assert_eq!(status.releases, 4);
    assert_eq!(status.spent.unwrap().rule, Rule::Basic);
    assert_eq!(status.remaining.unwrap().epsilon, 0.0);
    // Another data set has its own budget; one without a limit is never refused.
    for _ in 0..10 {
        ledger.reserve("other", &spend).unwrap();
    }
    let other = ledger.status("other").unwrap();
    assert!(other.limit.is_none() && other.remaining.is_none());
    assert!((other.spent.unwrap().epsilon - 2.5).abs() < 1e-12);
    assert_eq!(ledger.datasets().unwrap(), ["d", "other"]);
}

#[test]
fn a_pure_limit_composes_pure_releases_exactly_and_refuses_any_delta() {
    let (_dir, _path, ledger) = fresh();
    ledger
        .set_limit("d", Limit::new(0.5, 0.0).unwrap())
        .unwrap();
    ledger.reserve("d", &Spend::new(g(0.5, 0.0))).unwrap();
    assert_eq!(ledger.status("d").unwrap().spent.unwrap().epsilon, 0.5);
    ledger
        .set_limit("e", Limit::new(10.0, 0.0).unwrap())
        .unwrap();
    let err = ledger
        .reserve("e", &Spend::new(g(0.1, 1e-9)))
        .unwrap_err()
        .to_string();
    assert!(err.contains("pure"), "{err}");
    assert!(ledger.releases(Some("e")).unwrap().is_empty());
}

#[test]
fn composition_in_the_ledger_is_the_accountants_for_the_same_costs() {
    // Releases of one call each, of every kind; the ledger's spend must be the accountant's
    // best for the same sequence of costs at the limit's δ.
    let costs = [
        PrivacyCost::BoundedRange { epsilon: eps(0.1) },
        PrivacyCost::BoundedRange { epsilon: eps(0.1) },
        PrivacyCost::Pure { epsilon: eps(0.05) },
        PrivacyCost::BoundedRange { epsilon: eps(0.2) },
    ];
    for delta in [0.0, 1e-6] {
        let (_dir, _path, ledger) = fresh();
        ledger
            .set_limit("d", Limit::new(100.0, delta).unwrap())
            .unwrap();
        let mut accountant = Accountant::new();
        for (i, &cost) in costs.iter().enumerate() {
            let (e, d) = cost.epsilon_delta().unwrap();
            let mut spend = Spend::new(g(e, d));
            spend.calls = vec![(cost, 1)];
            let receipt = ledger.reserve("d", &spend).unwrap();
            accountant.record(cost);
            let best = accountant
                .compose(Delta::new(delta).unwrap(), ComposeOptions::default())
                .unwrap()
                .best
                .unwrap();
            assert_eq!(
                receipt.spent,
                Some(best),
                "after release {i} at δ = {delta}"
            );
            assert_eq!(ledger.status("d").unwrap().spent, Some(best));
        }
    }
    // Approximate calls (the large margin mechanisms) compose by the advanced rule at best.
    let (_dir, _path, ledger) = fresh();
    ledger
        .set_limit("d", Limit::new(100.0, 1e-3).unwrap())
        .unwrap();
    let lmm = PrivacyCost::Approximate {
        epsilon: eps(0.1),
        delta: Delta::new(1e-6).unwrap(),
    };
    let mut accountant = Accountant::new();
    for _ in 0..50 {
        let mut spend = Spend::new(g(0.1, 1e-6));
        spend.calls = vec![(lmm, 1)];
        ledger.reserve("d", &spend).unwrap();
        accountant.record(lmm);
    }
    let best = accountant
        .compose(Delta::new(1e-3).unwrap(), ComposeOptions::default())
        .unwrap()
        .best;
    assert_eq!(ledger.status("d").unwrap().spent, best);
    assert_eq!(best.unwrap().rule, Rule::Advanced);
}

#[test]
fn runs_of_a_greedy_release_compose_over_all_their_calls() {
    // 20 runs of a 5-round exponential-mechanism greedy at ε₀ = 0.1: by zCDP over the 100
    // calls (ρ = 100·0.1²/8), far below basic composition of the runs' guarantees (20·0.5).
    let em = PrivacyCost::BoundedRange { epsilon: eps(0.1) };
    let mut spend = Spend::new(g(0.5, 0.0)).runs(20);
    spend.calls = vec![(em, 5)];
    let spent = total(&[spend.clone()], Delta::new(1e-6).unwrap())
        .unwrap()
        .unwrap();
    let mut accountant = Accountant::new();
    accountant.record_many(em, 100);
    let expected = accountant
        .compose(Delta::new(1e-6).unwrap(), ComposeOptions::default())
        .unwrap()
        .best
        .unwrap();
    assert_eq!(spent, expected);
    assert!(spent.epsilon < 3.0, "{spent:?}");
    // Without its calls the same release composes by its guarantees (pure: zCDP ε²/2).
    spend.calls.clear();
    let coarse = total(&[spend], Delta::new(1e-6).unwrap()).unwrap().unwrap();
    assert!(coarse.epsilon > spent.epsilon);
    assert!(coarse.epsilon <= 10.0);
}

#[test]
fn a_real_selection_is_charged_its_guarantee_and_its_calls() {
    use crate::task::{Select, WithPrivacy};
    let (_dir, _path, ledger) = fresh();
    let points = [[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]];
    let candidates = [[0.0, 0.0], [5.0, 5.0], [9.0, 0.0]];
    let request = Select::new(2).epsilon(1.0).delta(1e-6);
    let mut rng = crate::SecureRng::insecure_from_seed(3);
    let report = ledger
        .charge("p", "test", || request.run(&points, &candidates, &mut rng))
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
    assert_eq!(Some(r.calls[0].epsilon), report.privacy.per_round_epsilon);
    // The argmax is refused, and not recorded.
    let argmax = Select::new(2).mechanism(crate::task::MechanismChoice::Argmax);
    let err = ledger
        .charge("p", "test", || argmax.run(&points, &candidates, &mut rng))
        .unwrap_err();
    assert!(err.to_string().contains("not private"), "{err}");
    assert_eq!(ledger.releases(None).unwrap().len(), 1);
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
    for i in 0..200 {
        ledger
            .reserve(
                &format!("d{}", i % 7),
                &Spend::new(g(0.1, 0.0)).command("x".repeat(200)),
            )
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
        .reserve("d", &Spend::new(g(0.1, 0.0)))
        .unwrap_err()
        .to_string();
    assert!(started.elapsed() >= std::time::Duration::from_millis(150));
    assert!(
        err.contains("locked by another process") && err.contains("waited"),
        "{err}"
    );
    holder.execute_batch("ROLLBACK;").unwrap();
    waiting.reserve("d", &Spend::new(g(0.1, 0.0))).unwrap();
}

#[test]
fn names_and_spends_are_validated() {
    let (_dir, _path, ledger) = fresh();
    assert!(ledger.reserve("", &Spend::new(g(0.1, 0.0))).is_err());
    assert!(ledger.reserve("a\nb", &Spend::new(g(0.1, 0.0))).is_err());
    assert!(
        ledger
            .reserve(&"x".repeat(300), &Spend::new(g(0.1, 0.0)))
            .is_err()
    );
    assert!(ledger.reserve("d", &Spend::new(g(f64::NAN, 0.0))).is_err());
    assert!(ledger.reserve("d", &Spend::new(g(0.1, 1.0))).is_err());
    assert!(
        ledger
            .reserve("d", &Spend::new(g(0.1, 0.0)).runs(0))
            .is_err()
    );
    assert!(Limit::new(0.0, 0.0).is_err() && Limit::new(1.0, -1e-9).is_err());
    assert!(ledger.releases(None).unwrap().is_empty());
}

#[test]
fn the_default_name_is_the_content_hash_of_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.csv");
    let b = dir.path().join("b.csv");
    std::fs::write(&a, "x\n1\n").unwrap();
    std::fs::write(&b, "x\n1\n").unwrap();
    let name_a = name_of_files(&[a.as_path()]).unwrap();
    // The SHA-256 of 8 length bytes (4, little-endian) then the content, computed apart.
    let mut expected = Sha256Check::default();
    expected.update(&4u64.to_le_bytes());
    expected.update(b"x\n1\n");
    assert_eq!(name_a, format!("sha256:{}", expected.hex()));
    assert_eq!(name_a, name_of_files(&[b.as_path()]).unwrap());
    // Where one file ends matters: a|b differs from one file holding both.
    let ab = dir.path().join("ab.csv");
    std::fs::write(&ab, "x\n1\nx\n1\n").unwrap();
    assert_ne!(
        name_of_files(&[a.as_path(), b.as_path()]).unwrap(),
        name_of_files(&[ab.as_path()]).unwrap()
    );
    std::fs::write(&b, "x\n2\n").unwrap();
    assert_ne!(name_a, name_of_files(&[b.as_path()]).unwrap());
    assert!(name_of_files(&[dir.path()]).is_err());
    assert!(name_of_files(&[]).is_err());
}

/// SHA-256 through the `sha2` crate's one-shot API, to check the streaming one.
#[derive(Default)]
struct Sha256Check(Vec<u8>);

impl Sha256Check {
    fn update(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
    fn hex(&self) -> String {
        use sha2::Digest;
        sha2::Sha256::digest(&self.0)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

#[test]
fn releases_of_another_privacy_unit_are_refused_on_a_data_set_and_nothing_is_recorded() {
    let (_dir, _path, ledger) = fresh();
    let people = Spend::new(g(0.5, 0.0));
    let edges = Spend::new(g(0.5, 0.0)).unit(Unit::Edge);
    ledger.reserve("g", &edges).unwrap();
    ledger.reserve("g", &edges).unwrap();
    let err = ledger.reserve("g", &people).unwrap_err();
    let Error::InvalidParameter { name, reason } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(*name, "dataset");
    assert!(
        reason.contains("edge-level") && reason.contains("record-level"),
        "{reason}"
    );
    assert_eq!(ledger.releases(Some("g")).unwrap().len(), 2);
    let status = ledger.status("g").unwrap();
    assert_eq!((status.unit, status.releases), (Some(Unit::Edge), 2));
    // The other way round too, and each unit composes on a data set of its own.
    ledger.reserve("p", &people).unwrap();
    assert!(ledger.reserve("p", &edges).is_err());
    assert_eq!(ledger.status("p").unwrap().unit, Some(Unit::Record));
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
    ledger.reserve("p", &Spend::new(g(0.5, 0.0))).unwrap();
    assert_eq!(ledger.releases(Some("p")).unwrap().len(), 2);
}
