//! Distributed runs (`disguise::cluster`) in one process: the report of a seeded run is the
//! single-process report, bit for bit, for every partition of the records (the multi-process
//! runs are tested through the command line).
#![cfg(feature = "cluster")]

use crate::support::cluster::{PATIENCE, TABLE_HEADER, table_row};
use disguise::cluster::{Cluster, Place};
use disguise::prelude::*;
use disguise::select::SelectorKind;
use disguise::task::{Algorithm, Privacy};

/// Clustered planar records: a fixed pseudo-random sequence (no generator needed).
fn points(n: usize) -> Vec<[f64; 2]> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..n)
        .map(|i| {
            let centre = [(i % 5) as f64 * 2.0, (i % 3) as f64 * 3.0];
            [centre[0] + next() - 0.5, centre[1] + next() - 0.5]
        })
        .collect()
}

fn candidates() -> Vec<[f64; 2]> {
    (0..24)
        .map(|j| [(j % 6) as f64 * 1.7, (j / 6) as f64 * 2.2])
        .collect()
}

/// Row-dealt shards of `all`.
pub(crate) fn dealt(
    all: Vec<[f64; 2]>,
) -> impl Fn(Place) -> disguise::Result<Vec<[f64; 2]>> + Send + Sync {
    move |place| {
        Ok(all
            .iter()
            .enumerate()
            .filter(|(i, _)| place.owns_row(*i as u64))
            .map(|(_, p)| *p)
            .collect())
    }
}

fn same_for_every_partition(request: Select, n: usize) {
    let (all, cands) = (points(n), candidates());
    let one = request
        .run(&all, &cands, &mut SecureRng::insecure_from_seed(11))
        .expect("single process");
    for workers in [1, 2, 3, 7] {
        let spread = request
            .run_distributed(
                &Cluster::local(workers).expect("cluster"),
                dealt(all.clone()),
                &cands,
                &mut SecureRng::insecure_from_seed(11),
            )
            .expect("distributed");
        assert_eq!(spread.as_ref(), Some(&one), "{workers} workers");
    }
}

#[test]
fn exponential_mechanism_greedy_is_partition_independent() {
    same_for_every_partition(Select::new(5).epsilon(0.5).normalizer(2.0), 3000);
}

#[test]
fn large_margin_greedy_is_partition_independent() {
    let mut request = Select::new(4).normalizer(2.0);
    request.privacy = Privacy {
        epsilon: Some(1.0),
        delta: 1e-6,
        mechanism: SelectorKind::LargeMargin,
        ..request.privacy
    };
    same_for_every_partition(request, 2000);
}

#[test]
fn matroid_constraint_and_subsample_with_cost_are_partition_independent() {
    let dir = tempfile::tempdir().expect("temp dir");
    let groups = dir.path().join("groups.txt");
    let mut lines = String::from("group,capacity\ng0,1\ng1,1\ng2,2\ng3,1\nelement,group\n");
    for j in 0..24 {
        lines.push_str(&format!("{j},g{}\n", j % 4));
    }
    std::fs::write(&groups, lines).expect("write");
    let spec = format!("partition:{}", groups.display());
    same_for_every_partition(Select::constrained(spec).epsilon(2.0).normalizer(2.0), 1500);
    let subsample = Select::new(3)
        .epsilon(1.0)
        .normalizer(2.0)
        .cost(20.0)
        .algorithm(Algorithm::Subsample);
    same_for_every_partition(subsample, 1500);
}

#[test]
fn more_workers_than_records() {
    same_for_every_partition(Select::new(2).epsilon(1.0).normalizer(2.0), 5);
}

#[test]
fn a_worker_that_cannot_load_fails_the_run_with_its_error() {
    let err = Select::new(2)
        .epsilon(1.0)
        .normalizer(2.0)
        .run_distributed(
            &Cluster::local(3).expect("cluster"),
            |place: Place| {
                if place.worker == 2 {
                    Err(disguise::Error::parse("part-2.csv:7:3: not a number: 'x'"))
                } else {
                    Ok(points(10))
                }
            },
            &candidates(),
            &mut SecureRng::insecure_from_seed(1),
        )
        .expect_err("worker 2 fails");
    assert!(err.to_string().contains("part-2.csv:7:3"), "{err}");
}

#[test]
fn the_continuous_greedy_is_refused() {
    let err = Select::new(2)
        .epsilon(1.0)
        .algorithm(Algorithm::ContinuousGreedy)
        .run_distributed(
            &Cluster::local(2).expect("cluster"),
            |_| Ok(points(10)),
            &candidates(),
            &mut SecureRng::insecure_from_seed(1),
        )
        .expect_err("refused");
    assert!(err.to_string().contains("one process"), "{err}");
}

#[test]
fn coverage_is_partition_independent() {
    use disguise::task::MaxCoverage;
    // 3,000 people, each covered by 1–3 of 30 candidates (a fixed pattern).
    let covers: Vec<Vec<usize>> = (0..3000usize)
        .map(|i| {
            let mut c = vec![i % 30, (i * 7 + 3) % 30];
            if i % 3 == 0 {
                c.push((i / 3) % 11);
            }
            c.sort_unstable();
            c.dedup();
            c
        })
        .collect();
    let request = MaxCoverage::new(4).epsilon(1.0);
    let one = request
        .run(30, &covers, &mut SecureRng::insecure_from_seed(5))
        .expect("one process");
    for workers in [2, 5] {
        let shared = covers.clone();
        let spread = request
            .run_distributed(
                &Cluster::local(workers).expect("cluster"),
                move |comm| {
                    let place = comm.place();
                    Ok(shared
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| place.owns_row(*i as u64))
                        .map(|(_, c)| c.clone())
                        .collect())
                },
                30,
                &mut SecureRng::insecure_from_seed(5),
            )
            .expect("distributed");
        assert_eq!(spread.as_ref(), Some(&one), "{workers} workers");
    }
}

#[test]
fn feature_selection_by_mutual_information_is_partition_independent() {
    use disguise::task::{FeatureTable, Features};
    // 2,000 rows, 6 features of arities 2–4, a binary label that features 1 and 4 predict.
    let rows = 2000usize;
    let arities = vec![2u32, 3, 4, 2, 3, 4];
    let label: Vec<u32> = (0..rows).map(|i| ((i * 37) % 11 < 5) as u32).collect();
    let columns: Vec<Vec<u32>> = arities
        .iter()
        .enumerate()
        .map(|(j, &a)| {
            (0..rows)
                .map(|i| match j {
                    1 | 4 if (i * 13 + j) % 7 != 0 => label[i] * (a - 1),
                    _ => ((i * (j + 3) + i / 7) % a as usize) as u32,
                })
                .collect()
        })
        .collect();
    let names: Vec<String> = (0..arities.len()).map(|j| format!("f{j}")).collect();
    let table = |keep: &dyn Fn(usize) -> bool| FeatureTable {
        names: names.clone(),
        columns: columns
            .iter()
            .map(|c| {
                c.iter()
                    .enumerate()
                    .filter(|(i, _)| keep(*i))
                    .map(|(_, v)| *v)
                    .collect::<Vec<u32>>()
                    .into()
            })
            .collect(),
        arities: arities.clone(),
        labels: label
            .iter()
            .enumerate()
            .filter(|(i, _)| keep(*i))
            .map(|(_, v)| *v)
            .collect::<Vec<u32>>()
            .into(),
        label_levels: 2,
    };
    let request = Features::new(3).epsilon(2.0);
    // The workers' tables share a schema's public domains, so the distributed run takes the
    // label's 2 levels as public (its a-priori bound uses them): the one-process run that
    // does the same.
    let one = {
        use disguise::task::Reporting;
        request
            .prepare(table(&|_| true))
            .expect("one process")
            .with_public_label_levels(2)
            .run_report(&mut SecureRng::insecure_from_seed(3))
            .expect("one process")
    };
    for workers in [2, 3] {
        let shards: Vec<FeatureTable> =
            (0..workers).map(|w| table(&|i| i % workers == w)).collect();
        let spread = request
            .run_distributed(
                &Cluster::local(workers).expect("cluster"),
                move |comm| Ok(shards[comm.place().worker].clone()),
                &mut SecureRng::insecure_from_seed(3),
            )
            .expect("distributed");
        assert_eq!(spread.as_ref(), Some(&one), "{workers} workers");
    }
    // Workers whose tables code a feature with different arities cannot be summed.
    let mut odd = table(&|i| i % 2 == 1);
    odd.arities[0] = 5;
    let shards = [table(&|i| i % 2 == 0), odd];
    let err = request
        .run_distributed(
            &Cluster::local(2).expect("cluster"),
            move |comm| Ok(shards[comm.place().worker].clone()),
            &mut SecureRng::insecure_from_seed(3),
        )
        .expect_err("different shapes");
    assert!(err.to_string().contains("different columns"), "{err}");
}

/// A numeric column with neither `bins` nor `edges` is cut at private quantiles: over a
/// cluster each worker counts its share on the column's grid, worker 0 draws the edges from
/// the summed counts, every worker codes its share with them — the one-process release's
/// edges, synthetic records and histogram, bit for bit with a seeded generator.
#[test]
fn private_edges_over_a_cluster_are_the_one_process_edges() {
    use disguise::histogram::Schema;
    use disguise::task::{Histogram, Synth};
    let dir = tempfile::tempdir().expect("temp dir");
    let schema = Schema::from_toml_str(
        r#"
        columns = [
            { name = "age", type = "numeric", bounds = [0, 120], integer = true },
            { name = "gain", type = "numeric", bounds = [0, 1000] },
            { name = "sick", type = "categorical", levels = ["no", "yes"] },
        ]
        "#,
        "test.toml",
    )
    .expect("schema");
    let mut text = String::from("age,gain,sick\n");
    for i in 0..2400u64 {
        let gain = if i % 10 < 7 {
            0.0
        } else {
            (i * 37 % 900) as f64 + 0.5
        };
        text.push_str(&format!(
            "{},{gain},{}\n",
            20 + (i * 7) % 60,
            ["no", "yes"][(i % 3 == 0) as usize]
        ));
    }
    let whole = dir.path().join("all.csv");
    std::fs::write(&whole, &text).expect("write");
    let paths = [whole.as_path()];
    let request = Synth::new(2.0);
    let reading = request.reading(&schema).expect("reading");
    let plan = request.edges(&reading).expect("plan");
    let (read, edges, mut rng) = plan
        .read(&paths, &reading, || {
            Ok::<_, disguise::Error>(SecureRng::insecure_from_seed(3))
        })
        .expect("one process");
    let one = request.run(read.data, edges, &mut rng).expect("synth");
    let mut one_csv = Vec::new();
    one.write_csv(&mut one_csv, one.rows, &mut rng)
        .expect("csv");
    for workers in [1, 3] {
        let mut rng = SecureRng::insecure_from_seed(3);
        let spread = request
            .run_distributed(
                &Cluster::local(workers).expect("cluster"),
                vec![whole.clone()],
                &reading,
                &mut rng,
            )
            .expect("distributed")
            .expect("process 0 has the result");
        assert_eq!(spread.edges, one.edges, "{workers} workers");
        assert!(spread.edges.is_some());
        let mut csv = Vec::new();
        spread
            .write_csv(&mut csv, spread.rows, &mut rng)
            .expect("csv");
        assert_eq!(csv, one_csv, "{workers} workers");
    }
    // The projected histogram likewise.
    let request = Histogram {
        k: Some(1),
        ..Histogram::new(2.0)
    };
    let reading = request.reading(&schema, "sick");
    let plan = request.edges(&reading).expect("plan");
    let (read, edges, mut rng) = plan
        .read(&paths, &reading, || {
            Ok::<_, disguise::Error>(SecureRng::insecure_from_seed(4))
        })
        .expect("one process");
    let one = request
        .run_with_edges(&read.data, 2, None, edges, &mut rng)
        .expect("histogram");
    let mut rng = SecureRng::insecure_from_seed(4);
    let spread = request
        .run_distributed(
            &Cluster::local(2).expect("cluster"),
            vec![whole.clone()],
            &reading,
            2,
            Vec::new(),
            &mut rng,
        )
        .expect("distributed")
        .expect("process 0 has the result");
    assert_eq!(spread.edges, one.edges);
    assert_eq!(spread.guarantee, one.guarantee);
    assert_eq!(spread.attributes, one.attributes);
}

/// A projected-histogram release (PRIVATEKD on distributed discernibility, then the
/// thresholded histogram released block by block by the cells' owners) equals the
/// one-process release for one file dealt row by row and for several files dealt whole.
#[test]
fn projected_histograms_are_partition_independent() {
    use disguise::histogram::{Discretized, DomainSource, Schema};
    use disguise::task::Histogram;
    let dir = tempfile::tempdir().expect("temp dir");
    let schema = Schema::from_toml_str(
        r#"
        columns = [
            { name = "age", type = "numeric", bounds = [0, 100], bins = 5 },
            { name = "colour", type = "categorical", levels = ["red", "green", "blue"] },
            { name = "size", type = "categorical", levels = ["s", "m", "l", "xl"] },
            { name = "noise", type = "categorical", levels = ["a", "b"] },
            { name = "sick", type = "categorical", levels = ["no", "yes"] },
        ]
        "#,
        "test.toml",
    )
    .expect("schema");
    let (row, header) = (table_row, TABLE_HEADER);
    let rows = 3000;
    let whole = dir.path().join("all.csv");
    let mut text = header.to_string();
    (0..rows).for_each(|i| text.push_str(&row(i)));
    std::fs::write(&whole, &text).expect("write");
    // The same rows in 5 files of uneven sizes.
    let cuts = [0, 100, 1300, 1301, 2200, rows];
    let parts: Vec<std::path::PathBuf> = cuts
        .windows(2)
        .enumerate()
        .map(|(j, w)| {
            let path = dir.path().join(format!("part-{j}.csv"));
            let mut text = header.to_string();
            (w[0]..w[1]).for_each(|i| text.push_str(&row(i)));
            std::fs::write(&path, text).expect("write");
            path
        })
        .collect();
    let read = Discretized::read(&[whole.as_path()], &schema, DomainSource::Schema).expect("read");
    let target = 4;
    for request in [
        Histogram::new(1.0),
        Histogram {
            k: Some(2),
            gamma: Some(0.5),
            ..Histogram::new(2.0)
        },
    ] {
        let one = request
            .run(
                &read.data,
                target,
                None,
                &mut SecureRng::insecure_from_seed(5),
            )
            .expect("one process");
        let mut one_csv = Vec::new();
        one.write_csv(&mut one_csv, &mut SecureRng::insecure_from_seed(5))
            .expect("csv");
        for (workers, paths) in [
            (1, vec![whole.clone()]),
            (3, vec![whole.clone()]),
            (2, parts.clone()),
            (4, parts.clone()),
        ] {
            let spread = request
                .run_distributed(
                    &Cluster::local(workers).expect("cluster"),
                    paths.clone(),
                    &schema,
                    target,
                    Vec::new(),
                    &mut SecureRng::insecure_from_seed(5),
                )
                .expect("distributed")
                .expect("process 0 has the result");
            let mut csv = Vec::new();
            spread
                .write_csv(&mut csv, &mut SecureRng::insecure_from_seed(5))
                .expect("csv");
            let what = format!("{workers} workers, {} files", paths.len());
            assert_eq!(spread.attributes, one.attributes, "{what}");
            assert_eq!(spread.histogram(), one.histogram(), "{what}");
            assert_eq!(csv, one_csv, "{what}");
        }
        assert!(one.histogram().support_size() > 3);
        assert!(
            request.k.is_none() || *one.k < *one.predictors,
            "PRIVATEKD chose among the predictors"
        );
    }
    // A secure run: each worker keys its own blocks, so the noise differs from run to run,
    // but the projection and the space are the seeded run's kind, and the big cells survive.
    let request = Histogram {
        k: Some(2),
        gamma: Some(0.5),
        ..Histogram::new(4.0)
    };
    let secure = request
        .run_distributed(
            &Cluster::local(3).expect("cluster"),
            vec![whole.clone()],
            &schema,
            target,
            Vec::new(),
            &mut SecureRng::from_os().expect("os"),
        )
        .expect("distributed")
        .expect("process 0 has the result");
    assert!(*secure.secure_rng && secure.guarantee.is_some());
    assert_eq!(*secure.k, 2);
    assert!(secure.histogram().support_size() > 3);
    assert_eq!(*secure.synthetic_rows, rows as u64);
    // Data splitting needs the records in one place.
    let split = Histogram {
        k_split: Some(vec![1, 2]),
        ..Histogram::new(1.0)
    };
    let err = split
        .run_distributed(
            &Cluster::local(2).expect("cluster"),
            vec![whole],
            &schema,
            target,
            Vec::new(),
            &mut SecureRng::insecure_from_seed(5),
        )
        .expect_err("refused");
    assert!(err.to_string().contains("data splitting"), "{err}");
}

/// A projected space too large to release is refused by process 0 before any worker draws,
/// with the one-process message (not after the workers spent the timeout drawing).
#[test]
fn a_space_too_large_to_release_is_refused_as_in_one_process() {
    use disguise::histogram::{Discretized, DomainSource, Schema};
    use disguise::task::Histogram;
    let dir = tempfile::tempdir().expect("temp dir");
    let levels: Vec<String> = (0..100).map(|v| format!("\"{v}\"")).collect();
    let mut toml = String::new();
    for c in 0..6 {
        toml.push_str(&format!(
            "[[columns]]\nname = \"c{c}\"\ntype = \"categorical\"\nlevels = [{}]\n",
            levels.join(", ")
        ));
    }
    toml.push_str("[[columns]]\nname = \"y\"\ntype = \"categorical\"\nlevels = [\"a\", \"b\"]\n");
    let schema = Schema::from_toml_str(&toml, "wide.toml").expect("schema");
    let mut text = String::from("c0,c1,c2,c3,c4,c5,y\n");
    for i in 0..60 {
        let cells: Vec<String> = (0..6).map(|c| ((i * (c + 7)) % 100).to_string()).collect();
        text.push_str(&format!("{},{}\n", cells.join(","), ["a", "b"][i % 2]));
    }
    let path = dir.path().join("wide.csv");
    std::fs::write(&path, text).expect("write");
    let request = Histogram {
        k: Some(6),
        ..Histogram::new(1.0)
    };
    let read = Discretized::read(&[path.as_path()], &schema, DomainSource::Schema).expect("read");
    let one = request
        .run(&read.data, 6, None, &mut SecureRng::insecure_from_seed(1))
        .expect_err("too large");
    // The workers wait for each other up to the timeout: a long one, which the refusal must
    // not wait for.
    let started = std::time::Instant::now();
    let spread = request
        .run_distributed(
            &Cluster::local(2).expect("cluster").timeout(PATIENCE),
            vec![path],
            &schema,
            6,
            Vec::new(),
            &mut SecureRng::insecure_from_seed(1),
        )
        .expect_err("too large");
    assert_eq!(spread.to_string(), one.to_string());
    assert!(
        one.to_string().contains("would cross the threshold"),
        "{one}"
    );
    assert!(
        started.elapsed() < PATIENCE / 2,
        "it waited for the timeout"
    );
}
