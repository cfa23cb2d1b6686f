//! The budget ledger: how long a reservation takes (one `BEGIN IMMEDIATE` transaction with
//! its commit to disk) as the data set's recorded releases grow, and `status`.
//!
//! `cargo bench -p disguise --bench ledger` (the ledger files go to a temporary folder; set
//! `TMPDIR` to measure another disk).

use disguise::ledger::{Ledger, Limit, Spend};
use disguise::privacy::compose::Rule;
use disguise::privacy::{Epsilon, Guarantee, PrivacyCost};
use std::time::Instant;

/// One greedy run's spend: 5 exponential-mechanism calls at ε₀ = 0.01.
fn spend() -> Spend {
    let mut spend = Spend::new(Guarantee {
        epsilon: 0.05,
        delta: 0.0,
        rule: Rule::Basic,
    })
    .command("bench");
    spend.calls = vec![(
        PrivacyCost::BoundedRange {
            epsilon: Epsilon::new(0.01).unwrap(),
        },
        5,
    )];
    spend
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    println!("recorded releases | reserve (median of 20) | status (median of 20)");
    for recorded in [0usize, 1_000, 10_000, 100_000] {
        let path = dir.path().join(format!("bench-{recorded}.ledger"));
        drop(Ledger::create(&path).unwrap());
        // The earlier releases, inserted in one transaction (as `reserve` would record them).
        {
            let mut connection = rusqlite::Connection::open(&path).unwrap();
            let tx = connection.transaction().unwrap();
            for _ in 0..recorded {
                tx.execute(
                    "INSERT INTO releases (dataset, time, command, mechanism, runs, epsilon, \
                     delta, rule, secure) VALUES ('d', '2026-01-01T00:00:00Z', 'bench', 'em', \
                     1, 0.05, 0.0, 'basic', 1)",
                    [],
                )
                .unwrap();
                let id = tx.last_insert_rowid();
                tx.execute(
                    "INSERT INTO calls (release, kind, epsilon, delta, count) \
                     VALUES (?1, 'bounded_range', 0.01, 0.0, 5)",
                    [id],
                )
                .unwrap();
            }
            tx.commit().unwrap();
        }
        let ledger = Ledger::open(&path).unwrap();
        ledger
            .set_limit("d", Limit::new(1e9, 1e-6).unwrap())
            .unwrap();
        let spend = spend();
        let mut reserve = Vec::new();
        let mut status = Vec::new();
        for _ in 0..20 {
            let t = Instant::now();
            ledger.reserve("d", &spend).unwrap();
            reserve.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            std::hint::black_box(ledger.status("d").unwrap());
            status.push(t.elapsed().as_secs_f64());
        }
        reserve.sort_by(f64::total_cmp);
        status.sort_by(f64::total_cmp);
        println!(
            "{recorded:>17} | {:>18.2} ms | {:>18.2} ms",
            reserve[10] * 1e3,
            status[10] * 1e3
        );
    }
}
