//! Distributed runs: several `disguise` processes on 127.0.0.1 (ports reserved at run time)
//! give the one-process result bit for bit, whatever the partition and the format of the
//! parts; a peer that dies or never comes makes the others fail with one line.
//!
//! Nothing here fails because the machine is slow: every process waits for its peers up to
//! [`PATIENCE`], except the one whose timeout a test makes fire, and a process is stopped or
//! killed once it runs, as seen in /proc, never after a guessed sleep.

#[cfg(target_os = "linux")]
mod faults;

use crate::common;

use common::cluster::{PATIENCE, Ports, TABLE_HEADER, connect_when_listening, table_row};
use common::{StdoutOk, dir_with, disguise, fails_with, words};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long a process that must fail at once, or at its short timeout, may take: generous
/// for a loaded machine, but short of the timeouts that must not fire (the default of 60 s,
/// and [`PATIENCE`]).
const AT_ONCE: Duration = Duration::from_secs(50);

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_disguise"))
}

/// A host file of a run, and the reservation of its ports: keep it until the run's
/// processes have ended. It reads as the file's path.
struct HostFile {
    path: PathBuf,
    ports: Ports,
}

impl std::ops::Deref for HostFile {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl HostFile {
    /// Process 0's line: its address.
    fn first(&self) -> String {
        self.ports.addresses().swap_remove(0)
    }
}

/// A host file for `processes` processes on local ports reserved for the run.
fn hosts(dir: &Path, processes: usize) -> HostFile {
    let ports = Ports::reserve(processes);
    let path = dir.join(format!("hosts-{processes}-{}.txt", std::process::id()));
    std::fs::write(&path, ports.addresses().join("\n") + "\n").expect("host file");
    HostFile { path, ports }
}

/// Process `i` of the host file with `args` (and a `--timeout` of [`PATIENCE`] unless they
/// give one), its output captured, ready to start.
fn process(dir: &Path, args: &[&str], hosts: &Path, i: usize, workers: usize) -> Command {
    let patience = PATIENCE.as_secs().to_string();
    let timeout: &[&str] = if args.contains(&"--timeout") {
        &[]
    } else {
        &["--timeout", &patience]
    };
    let mut command = Command::new(binary());
    command
        .current_dir(dir)
        .args(args)
        .args([
            "--hosts",
            &hosts.to_string_lossy(),
            "--process",
            &i.to_string(),
        ])
        .args(["--workers", &workers.to_string()])
        .args(timeout)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Starts process `i` of the host file with `args` (and a `--timeout` of [`PATIENCE`] unless
/// they give one).
fn start(dir: &Path, args: &[&str], hosts: &Path, i: usize, workers: usize) -> Child {
    process(dir, args, hosts, i, workers)
        .spawn()
        .expect("start disguise")
}

/// Runs the command on `processes` processes × `workers` threads: process 0's output, after
/// checking that the others printed nothing and succeeded.
fn cluster_run(dir: &Path, args: &[&str], processes: usize, workers: usize) -> Output {
    let hosts = hosts(dir, processes);
    // Start the others first: process 0 waits for them (and they for it) up to the timeout.
    let others: Vec<Child> = (1..processes)
        .map(|i| start(dir, args, &hosts, i, workers))
        .collect();
    let lead = start(dir, args, &hosts, 0, workers)
        .wait_with_output()
        .expect("process 0");
    for (i, child) in others.into_iter().enumerate() {
        let out = child.wait_with_output().expect("peer");
        assert!(
            out.status.success(),
            "process {}: {}",
            i + 1,
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "process {} printed", i + 1);
    }
    lead
}

/// [`cluster_run`] of a command that must succeed: process 0's standard output.
fn cluster_stdout(dir: &Path, args: &[String], processes: usize, workers: usize) -> Vec<u8> {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = cluster_run(dir, &a, processes, workers);
    assert!(
        out.status.success(),
        "{processes}×{workers} {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn generate(dir: &Path, out: &str, n: u64, parts: u64, format: &str) {
    generate_with(dir, out, n, parts, format, 40);
}

fn generate_with(dir: &Path, out: &str, n: u64, parts: u64, format: &str, candidates: usize) {
    let args = format!(
        "generate points --n {n} --parts {parts} --candidates {candidates} --out {out} \
         --format {format} --seed 4"
    );
    disguise(dir).args(words(&args)).assert().success();
}

const SELECT: &str = "select --candidates csv/candidates.csv --x x --y y --k 4 --epsilon 1 \
                      --delta 1e-6 --seed 13 --format json";

fn select_args<'a>(points: &'a str, extra: &'a str) -> Vec<&'a str> {
    let mut args = words(SELECT);
    args.extend(["--points", points]);
    args.extend(words(extra));
    args
}

#[test]
fn the_selection_is_the_same_for_every_partition_and_format() {
    let dir = dir_with("partitions", &[]);
    generate(&dir, "csv", 20_000, 5, "csv");
    generate(&dir, "parquet", 20_000, 3, "parquet");
    let one = disguise(&dir)
        .args(select_args("csv/points", ""))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&one).expect("json");
    assert_eq!(report["points"], 20_000);
    let check = |what: &str, out: &[u8]| {
        assert_eq!(
            String::from_utf8_lossy(out),
            String::from_utf8_lossy(&one),
            "{what}"
        );
    };
    // Threads of one process, and the same file read whole, in Parquet.
    let threads = disguise(&dir)
        .args(select_args("csv/points", "--workers 3"))
        .assert()
        .success();
    check("3 threads", &threads.get_output().stdout);
    let parquet = disguise(&dir)
        .args(select_args("parquet/points", ""))
        .assert()
        .success();
    check("Parquet parts", &parquet.get_output().stdout);
    for (processes, workers, points) in [
        (2, 1, "csv/points"),
        (4, 2, "csv/points"),
        (2, 2, "parquet/points/part-*"),
        (3, 1, "csv/points/part-00002.csv"),
    ] {
        let out = cluster_run(&dir, &select_args(points, ""), processes, workers);
        assert!(
            out.status.success(),
            "{processes}×{workers} on {points}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if points.ends_with(".csv") {
            // One part of the data: compared with the one-process run on the same file.
            let single = disguise(&dir)
                .args(select_args(points, ""))
                .output()
                .expect("run");
            assert_eq!(
                out.stdout, single.stdout,
                "one file dealt over {processes} processes"
            );
        } else {
            check(
                &format!("{processes} processes × {workers} workers"),
                &out.stdout,
            );
        }
    }
}

#[test]
fn a_peer_that_never_comes_is_one_line_after_the_timeout() {
    let dir = dir_with("absent", &[]);
    generate(&dir, "csv", 100, 1, "csv");
    let hosts = hosts(&dir, 2);
    let started = Instant::now();
    let out = Command::new(binary())
        .current_dir(&dir)
        .args(select_args("csv/points", "--timeout 1"))
        .args(["--hosts", &hosts.to_string_lossy(), "--process", "0"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("did not connect within 1 s"), "{stderr}");
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with("error:")).count(),
        1
    );
    assert!(out.stdout.is_empty());
    assert!(
        started.elapsed() < AT_ONCE,
        "it waited longer than its --timeout"
    );
}

#[test]
fn bad_cluster_options_are_refused() {
    let dir = dir_with("options", &[("hosts.txt", "127.0.0.1:1\n127.0.0.1:2\n")]);
    generate(&dir, "csv", 100, 1, "csv");
    for (extra, expected) in [
        ("--workers 0", "invalid --workers"),
        ("--hosts hosts.txt --process 2", "invalid --process"),
        ("--hosts hosts.txt", "--process"),
        ("--workers 2 --trials 3", "one trial"),
        ("--workers 2 --timeout 0", "invalid --timeout"),
    ] {
        fails_with(&dir, &select_args("csv/points", extra), expected);
    }
}

/// A peer killed mid-run: the survivor exits non-zero at once (not after its timeout), with
/// one error line and nothing on stdout. Both roles are killed in turn.
#[cfg(target_os = "linux")]
#[test]
fn a_peer_killed_mid_run_fails_the_others() {
    let dir = dir_with("killed", &[]);
    // Large enough to take seconds per round in a test build.
    generate_with(&dir, "big", 1_000_000, 2, "parquet", 100);
    let args = [
        "select",
        "--points",
        "big/points",
        "--candidates",
        "big/candidates.csv",
        "--x",
        "x",
        "--y",
        "y",
        "--k",
        "40",
        "--epsilon",
        "1",
        "--format",
        "json",
    ];
    for victim in [1usize, 0] {
        kill_peer(&dir, &args, victim);
    }
}

/// Waits until process `victim` of `children` has connected to its peers and runs (timely's
/// network threads exist, as /proc shows): `false` if a process of the run ended first (its
/// set-up did not complete).
#[cfg(target_os = "linux")]
fn connected(children: &mut [Child], victim: usize) -> bool {
    let tasks = format!("/proc/{}/task", children[victim].id());
    let deadline = Instant::now() + PATIENCE;
    loop {
        let running = std::fs::read_dir(&tasks).is_ok_and(|entries| {
            entries.flatten().any(|task| {
                std::fs::read_to_string(task.path().join("comm"))
                    .is_ok_and(|name| name.starts_with("timely:recv"))
            })
        });
        if running {
            return true;
        }
        if children
            .iter_mut()
            .any(|c| c.try_wait().expect("status").is_some())
        {
            return false;
        }
        assert!(Instant::now() < deadline, "the process never connected");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// As [`connected`], for a run whose timeouts are all long: its set-up must complete.
#[cfg(target_os = "linux")]
fn wait_until_connected(children: &mut [Child], victim: usize) {
    assert!(
        connected(children, victim),
        "a process ended before process {victim} connected"
    );
}

/// Starts `args` on 2 processes, kills process `victim` once it runs, and checks the survivor:
/// it fails at once (not after its timeout), with one error line naming the lost peer and
/// nothing on stdout.
#[cfg(target_os = "linux")]
fn kill_peer(dir: &Path, args: &[&str], victim: usize) {
    let hosts = hosts(dir, 2);
    let mut children: Vec<Child> = (0..2).map(|i| start(dir, args, &hosts, i, 1)).collect();
    wait_until_connected(&mut children, victim);
    let mut killed = children.remove(victim);
    let still_running = killed.try_wait().expect("status").is_none();
    killed.kill().expect("kill");
    let _ = killed.wait();
    let survivor = children.pop().expect("the other");
    let started = Instant::now();
    let out = survivor.wait_with_output().expect("survivor");
    assert!(
        still_running,
        "the run ended before the kill: make it longer"
    );
    assert!(
        started.elapsed() < AT_ONCE,
        "the survivor waited for its timeout"
    );
    assert!(
        !out.status.success(),
        "the survivor of killing {victim} must fail"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("process {victim} closed its connection"))
            || stderr.contains(&format!("process {victim} reset its connection")),
        "{stderr}"
    );
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with("error:")).count(),
        1,
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "no partial output");
}

/// The words of `head`, then `data` (one argument, whatever it holds), then those of `extra`.
fn command(head: &str, data: &str, extra: &str) -> Vec<String> {
    let mut a: Vec<String> = words(head).into_iter().map(String::from).collect();
    a.push(data.into());
    a.extend(words(extra).into_iter().map(String::from));
    a
}

/// The rows of a CSV table (header first) as a Parquet file: the first column INT32, the
/// others UTF-8 strings.
fn parquet_table(path: &Path, csv: &str) {
    use parquet::data_type::{ByteArray, ByteArrayType, Int32Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use std::sync::Arc;
    let mut lines = csv.lines();
    let names: Vec<&str> = lines.next().expect("header").split(',').collect();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let fields: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(c, n)| match c {
            0 => format!("REQUIRED INT32 {n};"),
            _ => format!("REQUIRED BYTE_ARRAY {n} (UTF8);"),
        })
        .collect();
    let schema = parquet::schema::parser::parse_message_type(&format!(
        "message t {{ {} }}",
        fields.join(" ")
    ))
    .expect("schema");
    let file = std::fs::File::create(path).expect("create");
    let props = Arc::new(WriterProperties::builder().build());
    let mut w = SerializedFileWriter::new(file, Arc::new(schema), props).expect("writer");
    let mut g = w.next_row_group().expect("group");
    for c in 0..names.len() {
        let mut col = g.next_column().expect("column").expect("one more");
        if c == 0 {
            let v: Vec<i32> = rows.iter().map(|r| r[0].parse().expect("int")).collect();
            col.typed::<Int32Type>()
                .write_batch(&v, None, None)
                .expect("write");
        } else {
            let v: Vec<ByteArray> = rows.iter().map(|r| r[c].into()).collect();
            col.typed::<ByteArrayType>()
                .write_batch(&v, None, None)
                .expect("write");
        }
        col.close().expect("close");
    }
    g.close().expect("group");
    w.close().expect("file");
}

/// A table of 4 predictors and a binary target, the same rows as one file and as 4 parts.
fn table(dir: &Path) {
    table_of(dir, 4000, true);
}

/// `rows` rows of the table in table.csv (and, if `parts`, cut into 4 parts), with its schema.
fn table_of(dir: &Path, rows: usize, parts: bool) {
    let (row, header) = (table_row, TABLE_HEADER);
    let mut all = header.to_string();
    (0..rows).for_each(|i| all.push_str(&row(i)));
    std::fs::write(dir.join("table.csv"), all).expect("write");
    let cuts = if parts {
        vec![0, 700, 701, 2500, rows]
    } else {
        vec![]
    };
    std::fs::create_dir_all(dir.join("parts")).expect("parts");
    std::fs::create_dir_all(dir.join("mixed")).expect("mixed");
    for (j, w) in cuts.windows(2).enumerate() {
        let mut text = header.to_string();
        (w[0]..w[1]).for_each(|i| text.push_str(&row(i)));
        std::fs::write(dir.join(format!("parts/part-{j}.csv")), &text).expect("write");
        // The same parts, every other one in Parquet.
        let mixed = dir.join(format!("mixed/part-{j}"));
        if j % 2 == 0 {
            parquet_table(&mixed.with_extension("parquet"), &text);
        } else {
            std::fs::write(mixed.with_extension("csv"), text).expect("write");
        }
    }
    std::fs::write(
        dir.join("schema.toml"),
        "target = \"sick\"\n\
         [[columns]]\nname = \"age\"\ntype = \"numeric\"\nbounds = [0, 100]\nbins = 5\n\
         [[columns]]\nname = \"colour\"\ntype = \"categorical\"\nlevels = [\"red\", \"green\", \"blue\"]\n\
         [[columns]]\nname = \"size\"\ntype = \"categorical\"\nlevels = [\"s\", \"m\", \"l\", \"xl\"]\n\
         [[columns]]\nname = \"noise\"\ntype = \"categorical\"\nlevels = [\"a\", \"b\"]\n\
         [[columns]]\nname = \"sick\"\ntype = \"categorical\"\nlevels = [\"no\", \"yes\"]\n",
    )
    .expect("schema");
}

/// A table release as a run printed it (`stdout`, JSON) and wrote it (`dir`'s out.csv, then
/// removed): the report without the `--data` it names, and the synthetic data.
fn release(dir: &Path, stdout: &[u8]) -> (serde_json::Value, String) {
    let mut report: serde_json::Value = serde_json::from_slice(stdout).expect("json");
    report.as_object_mut().expect("object").remove("data");
    let csv = std::fs::read_to_string(dir.join("out.csv")).expect("out.csv");
    std::fs::remove_file(dir.join("out.csv")).expect("remove");
    (report, csv)
}

/// The projected histogram (PRIVATEKD's choice, the released cells, the synthetic file) is
/// the one-process release for one file dealt row by row and for parts dealt whole.
#[test]
fn the_histogram_is_the_same_for_every_partition() {
    let dir = dir_with("histogram", &[]);
    table(&dir);
    let args = |data: &str, extra: &str| {
        command(
            "histogram --schema schema.toml --epsilon 2 --k 2 --gamma 0.5 --seed 3 --out \
             out.csv --format json --data",
            data,
            extra,
        )
    };
    let one = release(
        &dir,
        &disguise(&dir).args(args("table.csv", "")).stdout_ok(),
    );
    assert_eq!(one.0["k"], 2);
    assert!(one.1.lines().count() > 100, "{}", one.1);
    // In this process: threads, the parts, the parts half in Parquet.
    for (data, extra) in [("table.csv", "--workers 3"), ("parts", ""), ("mixed", "")] {
        let out = disguise(&dir).args(args(data, extra)).stdout_ok();
        assert_eq!(release(&dir, &out), one, "{data} {extra}");
    }
    for (processes, workers, data) in [
        (2, 1, "table.csv"),
        (2, 2, "parts"),
        (3, 1, "parts/part-*.csv"),
        (2, 2, "mixed"),
        (4, 2, "parts"),
    ] {
        let out = cluster_stdout(&dir, &args(data, ""), processes, workers);
        assert_eq!(release(&dir, &out), one, "{processes}×{workers} on {data}");
    }
    // Options a distributed release cannot honour.
    let bounds = args("table.csv", "--workers 2 --bounds-from-data");
    fails_with(&dir, &bounds, "--bounds-from-data cannot be used");
    let split = words(
        "histogram --schema schema.toml --data table.csv --epsilon 2 --k-split 1,2 --out \
         out.csv --workers 2",
    );
    fails_with(&dir, &split, "data splitting");
    assert!(!dir.join("out.csv").exists());
}

/// Feature selection by mutual information prints the one-process report for one file dealt
/// row by row and for parts dealt whole (and, the model being gathered once, for several
/// trials too).
#[test]
fn the_feature_selection_is_the_same_for_every_partition() {
    let dir = dir_with("features", &[]);
    table(&dir);
    let args = |data: &str, extra: &str| {
        command(
            "features --schema schema.toml --k 2 --epsilon 1 --seed 3 --trials 3 --format json \
             --data",
            data,
            extra,
        )
    };
    let run = |a: Vec<String>| disguise(&dir).args(a).stdout_ok();
    let one = run(args("table.csv", ""));
    let report: serde_json::Value = serde_json::from_slice(&one).expect("json");
    assert_eq!(report["records"], 4000, "{report}");
    assert_eq!(run(args("table.csv", "--workers 3")), one, "3 threads");
    assert_eq!(run(args("parts", "")), one, "the parts in one process");
    assert_eq!(run(args("mixed", "")), one, "Parquet and CSV parts");
    for (processes, workers, data) in [
        (2, 1, "table.csv"),
        (2, 2, "parts"),
        (3, 1, "parts/part-*.csv"),
        (3, 1, "mixed"),
        (4, 2, "table.csv"),
    ] {
        let out = cluster_stdout(&dir, &args(data, ""), processes, workers);
        assert_eq!(out, one, "{processes}×{workers} on {data}");
    }
    // Without a schema the workers could not agree on the categories.
    let schemaless = words("features --data table.csv --label sick --k 2 --epsilon 1 --workers 2");
    fails_with(&dir, &schemaless, "needs --schema");
    let discernibility = args("table.csv", "--workers 2 --objective discernibility");
    fails_with(&dir, &discernibility, "discernibility runs in one process");
}

/// Maximum coverage prints the one-process report — people, what was left out, picks — for
/// sets dealt line by line or by part, and for friend lists dealt by person.
#[test]
fn the_coverage_is_the_same_for_every_partition() {
    let dir = dir_with("cover", &[]);
    let names: Vec<String> = (0..20).map(|j| format!("c{j}")).collect();
    std::fs::write(dir.join("candidates.txt"), names.join("\n")).expect("write");
    // 3,000 people; some name an unknown "zz" (left out), some are covered by nobody.
    let line = |i: usize| -> String {
        let mut set: Vec<String> = (0..(i * 7) % 4)
            .map(|t| format!("c{}", (i * (t + 3) + t * t) % 20))
            .collect();
        if i.is_multiple_of(11) {
            set.push("zz".into());
        }
        set.join(" ") + "\n"
    };
    let all: String = (0..3000).map(line).collect();
    std::fs::write(dir.join("sets.dat"), all).expect("write");
    std::fs::create_dir_all(dir.join("sets")).expect("dir");
    for (j, w) in [0, 1000, 1001, 2400, 3000].windows(2).enumerate() {
        let part: String = (w[0]..w[1]).map(line).collect();
        std::fs::write(dir.join(format!("sets/part-{j}.dat")), part).expect("write");
    }
    // Friendships among the 20 candidates and one outsider.
    let edges: String = (0..300)
        .map(|e| {
            let (a, b) = ((e * 7) % 21, (e * 13 + 5) % 21);
            let name = |x: usize| {
                if x == 20 {
                    "out".to_string()
                } else {
                    format!("c{x}")
                }
            };
            format!("{} {}\n", name(a), name(b))
        })
        .collect();
    std::fs::write(dir.join("edges.txt"), edges).expect("write");
    let args = |input: &str, extra: &str| -> Vec<String> {
        let mut a: Vec<String> =
            words("cover --candidates candidates.txt --k 3 --epsilon 1 --seed 5 --format json")
                .into_iter()
                .map(String::from)
                .collect();
        a.extend(words(input).into_iter().map(String::from));
        a.extend(words(extra).into_iter().map(String::from));
        a
    };
    let run = |a: Vec<String>| disguise(&dir).args(a).stdout_ok();
    for (one_input, others) in [
        ("--sets sets.dat", vec!["--sets sets.dat", "--sets sets"]),
        ("--edges edges.txt", vec!["--edges edges.txt"]),
    ] {
        // The release, and (a diagnostic) what was left out and the exact values: the same
        // however the records are split.
        for diagnostics in ["", "--diagnostics"] {
            let one = run(args(one_input, diagnostics));
            let report: serde_json::Value = serde_json::from_slice(&one).expect("json");
            if diagnostics.is_empty() {
                assert!(report.get("dropped").is_none(), "{report}");
            } else {
                let dropped = &report["not_private"]["dropped"];
                assert!(dropped.as_u64().expect("dropped") > 0, "{report}");
            }
            let threads = format!("{diagnostics} --workers 3");
            assert_eq!(run(args(one_input, &threads)), one, "3 threads");
            for input in &others {
                assert_eq!(run(args(input, diagnostics)), one, "{input} in one process");
                for (processes, workers) in [(2, 1), (2, 2)] {
                    let out = cluster_stdout(&dir, &args(input, diagnostics), processes, workers);
                    assert_eq!(out, one, "{processes}×{workers} {input} {diagnostics}");
                }
            }
        }
    }
}

/// A peer killed while a histogram is being released: the survivor fails with one line, and
/// no synthetic file (nor a temporary one) is left behind.
#[cfg(target_os = "linux")]
#[test]
fn a_peer_killed_mid_release_leaves_no_output() {
    let dir = dir_with("killed-histogram", &[]);
    // Enough rows to take seconds to read, twice, in a test build.
    table_of(&dir, 3_000_000, false);
    let args =
        words("histogram --data table.csv --schema schema.toml --epsilon 1 --k 2 --out out.csv");
    kill_peer(&dir, &args, 1);
    let left: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("out") || n.starts_with(".out"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// Starts process i with `per_process[i]` (and the host file, --process i, --workers 1), the
/// others before process 0, and waits for all: their outputs in process order.
fn run_each(dir: &Path, per_process: &[Vec<String>], hosts: &Path) -> Vec<Output> {
    let mut children: Vec<(usize, Child)> = Vec::new();
    for i in (0..per_process.len()).rev() {
        let args: Vec<&str> = per_process[i].iter().map(String::as_str).collect();
        let child = start(dir, &args, hosts, i, 1);
        children.push((i, child));
    }
    let mut outs: Vec<(usize, Output)> = children
        .into_iter()
        .map(|(i, c)| (i, c.wait_with_output().expect("process")))
        .collect();
    outs.sort_by_key(|(i, _)| *i);
    outs.into_iter().map(|(_, o)| o).collect()
}

fn owned(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// Both processes stop with exit code 2 and one error line holding `needle`, before any
/// selection (nothing on stdout).
fn both_refuse(outs: &[Output], needle: &str, case: &str) {
    for (i, out) in outs.iter().enumerate() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{case}: process {i}: {stderr}");
        let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(errors.len(), 1, "{case}: process {i}: {stderr}");
        assert!(errors[0].contains(needle), "{case}: process {i}: {stderr}");
        assert!(out.stdout.is_empty(), "{case}: process {i} printed");
    }
}

fn copy_parts(from: &Path, to: &Path, keep: impl Fn(&str) -> bool) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if keep(&name) {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

/// The four ways an operator's processes may read the records other than exactly once — a
/// local folder each, the same data cut into other parts, a stray file, a missing part — are
/// refused by both processes before any record is read, naming the part.
#[test]
fn every_process_must_list_the_same_parts() {
    let dir = dir_with("listings", &[]);
    generate(&dir, "csv", 400, 4, "csv");
    generate(&dir, "csv8", 400, 8, "csv");
    let points = dir.join("csv/points");
    let mut names: Vec<String> = std::fs::read_dir(&points)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 4, "{names:?}");
    copy_parts(&points, &dir.join("even"), |n| {
        n == names[0] || n == names[2]
    });
    copy_parts(&points, &dir.join("odd"), |n| {
        n == names[1] || n == names[3]
    });
    copy_parts(&points, &dir.join("stray"), |_| true);
    std::fs::write(dir.join("stray/README.txt"), "these are the points\n").unwrap();
    copy_parts(&points, &dir.join("backup"), |_| true);
    std::fs::copy(
        points.join(&names[1]),
        dir.join(format!("backup/{}.bak", names[1])),
    )
    .unwrap();
    copy_parts(&points, &dir.join("missing"), |n| n != names[3]);
    let cases = [
        (
            "even",
            "odd",
            format!(
                "part {} is in process 1's listing but not in process 0's",
                names[1]
            ),
        ),
        // The same records cut into 8 parts: the first part already differs in size.
        (
            "csv/points",
            "csv8/points",
            format!("part {} has another size on process 1", names[0]),
        ),
        (
            "csv/points",
            "stray",
            "part README.txt is in process 1's listing".into(),
        ),
        (
            "csv/points",
            "backup",
            format!("part {}.bak is in process 1's listing", names[1]),
        ),
        (
            "csv/points",
            "missing",
            format!(
                "part {} is in process 0's listing but not in process 1's",
                names[3]
            ),
        ),
    ];
    for (mine, theirs, needle) in cases {
        let host_file = hosts(&dir, 2);
        let started = Instant::now();
        let per = [
            owned(&select_args(mine, "")),
            owned(&select_args(theirs, "")),
        ];
        let outs = run_each(&dir, &per, &host_file);
        // Process 0 names the first part of process 1's listing it lacks (or its own part
        // that process 1 lacks); process 1 names a differing part from its own side.
        let case = format!("{mine} / {theirs}");
        both_refuse(&outs, "--points: part ", &case);
        let lead = String::from_utf8_lossy(&outs[0].stderr);
        assert!(lead.contains(&needle), "{case}: {lead}");
        assert!(
            started.elapsed() < AT_ONCE,
            "{case}: they waited for their timeout"
        );
    }
    // The same data under another path is the same input: accepted.
    copy_parts(&points, &dir.join("copy"), |_| true);
    let host_file = hosts(&dir, 2);
    let per = [
        owned(&select_args("csv/points", "")),
        owned(&select_args("copy", "")),
    ];
    let outs = run_each(&dir, &per, &host_file);
    assert!(
        outs.iter().all(|o| o.status.success()),
        "{}",
        String::from_utf8_lossy(&outs[0].stderr)
    );
}

/// Another candidate order, another --normalizer, another command: every process stops at
/// once with exit code 2 and one line naming what differs — and no number from the data.
#[test]
fn every_process_must_run_the_same_request() {
    let dir = dir_with("requests", &[]);
    generate(&dir, "csv", 400, 2, "csv");
    let candidates = std::fs::read_to_string(dir.join("csv/candidates.csv")).unwrap();
    let mut lines: Vec<&str> = candidates.lines().collect();
    lines[1..].reverse();
    std::fs::write(dir.join("reordered.csv"), lines.join("\n") + "\n").unwrap();
    std::fs::copy(dir.join("csv/candidates.csv"), dir.join("same.csv")).unwrap();
    std::fs::write(dir.join("sets.dat"), "a b\nb\nc a\n").unwrap();
    std::fs::write(dir.join("names.txt"), "a b c\n").unwrap();
    let select = owned(&select_args("csv/points", ""));
    let with = |from: &str, to: &str| -> Vec<String> {
        select
            .iter()
            .map(|a| if a == from { to.to_string() } else { a.clone() })
            .collect()
    };
    let mut normalizer = select.clone();
    normalizer.extend(owned(&["--normalizer", "2"]));
    let cover = owned(&words(
        "cover --sets sets.dat --candidates names.txt --k 1 --epsilon 1 --seed 1 --format json",
    ));
    let cases = [
        (
            with("csv/candidates.csv", "reordered.csv"),
            "another --candidates",
        ),
        (normalizer, "--normalizer, which process"),
        (cover, "another command"),
    ];
    let digits = regex_free_numbers;
    for (theirs, needle) in cases {
        let host_file = hosts(&dir, 2);
        let started = Instant::now();
        let outs = run_each(&dir, &[select.clone(), theirs.clone()], &host_file);
        both_refuse(&outs, needle, &theirs.join(" "));
        for out in &outs {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let error = stderr
                .lines()
                .find(|l| l.starts_with("error:"))
                .unwrap_or_default();
            assert!(
                digits(error).iter().all(|n| *n <= 1),
                "a number in: {error}"
            );
        }
        assert!(
            started.elapsed() < AT_ONCE,
            "{needle}: they waited for their timeout"
        );
    }
    // Another path to the same candidates is the same request.
    let host_file = hosts(&dir, 2);
    let outs = run_each(
        &dir,
        &[select.clone(), with("csv/candidates.csv", "same.csv")],
        &host_file,
    );
    assert!(
        outs.iter().all(|o| o.status.success()),
        "{}",
        String::from_utf8_lossy(&outs[1].stderr)
    );
}

/// An option given on one process only is named, whichever side has it (the request used to
/// be compared option by option in order, so the first option after the missing one was
/// named: `--k` for `--normalizer`, `--directions` for `--seed`).
#[test]
fn an_option_given_on_one_process_only_is_named() {
    let dir = dir_with("one-sided", &[]);
    generate(&dir, "csv", 400, 2, "csv");
    let select = owned(&select_args("csv/points", ""));
    let mut normalizer = select.clone();
    normalizer.extend(owned(&["--normalizer", "2"]));
    let at = select.iter().position(|a| a == "--seed").expect("--seed");
    let mut unseeded = select.clone();
    unseeded.drain(at..at + 2);
    let cases = [
        (
            normalizer,
            "--normalizer",
            "process 1 was started with --normalizer, which process 0 was not given",
            "process 0 was started without --normalizer, which process 1 was given",
        ),
        (
            unseeded,
            "--seed",
            "process 1 was started without --seed, which process 0 was given",
            "process 0 was started with --seed, which process 1 was not given",
        ),
    ];
    for (theirs, option, lead, peer) in cases {
        let host_file = hosts(&dir, 2);
        let outs = run_each(&dir, &[select.clone(), theirs], &host_file);
        both_refuse(&outs, option, option);
        for (out, needle) in outs.iter().zip([lead, peer]) {
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(stderr.contains(needle), "{option}: {stderr}");
            assert!(!stderr.contains("differ at"), "{option}: {stderr}");
        }
    }
}

/// As [`run_each`], process i's standard input a pipe carrying `per_process[i].1` when
/// given (nothing otherwise): `/dev/stdin` among its arguments is then a stream, as in
/// `cat file | disguise … /dev/stdin` or `<(cat file)`.
fn run_fed(
    dir: &Path,
    per_process: &[(Vec<String>, Option<Vec<u8>>)],
    hosts: &Path,
) -> Vec<Output> {
    use std::io::Write;
    let mut started = Vec::new();
    for i in (0..per_process.len()).rev() {
        let (args, input) = &per_process[i];
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut command = process(dir, &args, hosts, i, 1);
        command.stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        let mut child = command.spawn().expect("start disguise");
        let writer = input.clone().map(|bytes| {
            let mut pipe = child.stdin.take().expect("stdin");
            // A process that refuses the stream closes it unread: the write then fails.
            std::thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            })
        });
        started.push((i, child, writer));
    }
    let mut outs: Vec<(usize, Output)> = started
        .into_iter()
        .map(|(i, child, writer)| {
            let out = child.wait_with_output().expect("process");
            if let Some(w) = writer {
                w.join().expect("writer");
            }
            (i, out)
        })
        .collect();
    outs.sort_by_key(|(i, _)| *i);
    outs.into_iter().map(|(_, o)| o).collect()
}

/// Records from a stream (a pipe, `<(…)`, /dev/stdin) can be neither compared by content
/// before they are read nor read once by each process or worker: a run over several
/// processes or worker threads refuses them at once, on every process that is given one,
/// before any record is read, with one line that says to write them to a file. (Before, two
/// processes fed the points and the points without their first row each listed a pipe "of
/// size 0", agreed, dealt rows of two different streams and released over 1 record less
/// than either holds, some counted twice.) One process with one worker reads a stream once,
/// as before.
#[test]
fn private_records_from_a_stream_are_refused_in_a_distributed_run() {
    let dir = dir_with("private-stream", &[]);
    generate(&dir, "csv", 400, 1, "csv");
    let file = "csv/points/part-00000.csv";
    let full = std::fs::read_to_string(dir.join(file)).expect("points");
    let mut lines: Vec<&str> = full.lines().collect();
    lines.remove(1);
    let short = lines.join("\n") + "\n";
    let args = owned(&select_args("/dev/stdin", ""));
    let host_file = hosts(&dir, 2);
    let outs = run_fed(
        &dir,
        &[
            (args.clone(), Some(full.clone().into_bytes())),
            (args.clone(), Some(short.into_bytes())),
        ],
        &host_file,
    );
    both_refuse(
        &outs,
        "--points /dev/stdin is not a regular file",
        "two streams",
    );
    let stderr = String::from_utf8_lossy(&outs[0].stderr);
    assert!(stderr.contains("write it to a file first"), "{stderr}");
    // Worker threads of one process would each read their rows of one stream.
    let threads = disguise(&dir)
        .args(select_args("/dev/stdin", "--workers 2"))
        .write_stdin(full.clone())
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&threads.stderr);
    assert_eq!(threads.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--points /dev/stdin is not a regular file"),
        "{stderr}"
    );
    assert!(threads.stdout.is_empty());
    // The table commands refuse a stream before their ledger reserves anything.
    table_of(&dir, 400, false);
    let table = std::fs::read_to_string(dir.join("table.csv")).expect("table");
    disguise(&dir)
        .args(words("ledger init b.ledger --default-limit 100"))
        .assert()
        .success();
    for head in [
        "histogram --schema schema.toml --epsilon 2 --k 2 --out out.csv",
        "synth --schema schema.toml --epsilon 2 --out out.csv",
        "features --label sick --k 2 --epsilon 1",
    ] {
        let line =
            format!("{head} --workers 2 --data /dev/stdin --ledger b.ledger --dataset piped-table");
        let out = disguise(&dir)
            .args(words(&line))
            .write_stdin(table.clone())
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{head}: {stderr}");
        assert!(
            stderr.starts_with("error: --data /dev/stdin is not a regular file"),
            "{head}: {stderr}"
        );
    }
    let ledger = disguise(&dir)
        .args(words("ledger show --ledger b.ledger --format json"))
        .stdout_ok();
    assert!(
        !String::from_utf8_lossy(&ledger).contains("piped-table"),
        "charged: {}",
        String::from_utf8_lossy(&ledger)
    );
    // One process, one worker: the stream is read once, as the file.
    let streamed = disguise(&dir)
        .args(select_args("/dev/stdin", ""))
        .write_stdin(full)
        .stdout_ok();
    assert_eq!(
        streamed,
        disguise(&dir).args(select_args(file, "")).stdout_ok()
    );
}

/// A public file from a stream (a pipe, `<(…)`) is compared by its content, like a file: it
/// is read whole before the run, hashed, and the run reads those very bytes. Another
/// candidate order, or a schema with its levels reordered, stops both processes naming the
/// option (before, each process used its own and the run exited 0 with a result that was
/// neither's); the same content from a pipe on one process and a file on the other is one
/// request, and the result is the one-process result.
#[test]
fn public_files_from_a_stream_are_compared_by_content() {
    let dir = dir_with("public-stream", &[]);
    generate(&dir, "csv", 400, 2, "csv");
    let candidates = std::fs::read_to_string(dir.join("csv/candidates.csv")).unwrap();
    let mut lines: Vec<&str> = candidates.lines().collect();
    lines[1..].reverse();
    let reordered = lines.join("\n") + "\n";
    let select = owned(&select_args("csv/points", ""));
    let streamed: Vec<String> = select
        .iter()
        .map(|a| {
            if a == "csv/candidates.csv" {
                "/dev/stdin".to_string()
            } else {
                a.clone()
            }
        })
        .collect();
    let feed = |text: &str| Some(text.as_bytes().to_vec());
    let host_file = hosts(&dir, 2);
    let outs = run_fed(
        &dir,
        &[
            (streamed.clone(), feed(&candidates)),
            (streamed.clone(), feed(&reordered)),
        ],
        &host_file,
    );
    both_refuse(&outs, "another --candidates", "reordered candidates");
    let host_file = hosts(&dir, 2);
    let outs = run_fed(
        &dir,
        &[(streamed, feed(&candidates)), (select.clone(), None)],
        &host_file,
    );
    for out in &outs {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let one = disguise(&dir).args(&select).stdout_ok();
    assert_eq!(
        outs[0].stdout, one,
        "a pipe and a file of the same candidates"
    );

    // A schema from a stream, its levels reordered on process 1.
    table_of(&dir, 400, false);
    let schema = std::fs::read_to_string(dir.join("schema.toml")).unwrap();
    let reordered = schema.replace(
        "levels = [\"red\", \"green\", \"blue\"]",
        "levels = [\"blue\", \"green\", \"red\"]",
    );
    assert_ne!(schema, reordered);
    let histogram = owned(&words(
        "histogram --schema /dev/stdin --epsilon 2 --k 2 --gamma 0.5 --seed 3 --out out.csv \
         --format json --data table.csv",
    ));
    let host_file = hosts(&dir, 2);
    let outs = run_fed(
        &dir,
        &[
            (histogram.clone(), feed(&schema)),
            (histogram, feed(&reordered)),
        ],
        &host_file,
    );
    both_refuse(&outs, "another --schema", "reordered levels");
    assert!(!dir.join("out.csv").exists(), "nothing written");
}

/// The numbers in `text` (runs of digits).
fn regex_free_numbers(text: &str) -> Vec<u64> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect()
}

/// With a key, the result is the keyless one bit for bit; a port scan and a stranger sending
/// garbage during the set-up are dropped with a warning and the run goes on; a process with
/// another key is refused.
#[test]
fn a_keyed_cluster_drops_strangers_and_gives_the_same_result() {
    let dir = dir_with("keyed", &[]);
    generate(&dir, "csv", 400, 2, "csv");
    cluster_key(&dir, "k.key");
    cluster_key(&dir, "other.key");
    let again = disguise(&dir)
        .args(words("cluster key --out k.key"))
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("never overwritten"));
    let plain = owned(&select_args("csv/points", ""));
    let expected = cluster_stdout(&dir, &plain, 2, 1);
    let keyed = owned(&select_args("csv/points", "--cluster-key k.key"));

    // Process 0 alone first: strangers knock while it waits for process 1.
    let host_file = hosts(&dir, 2);
    let address = host_file.first();
    let args: Vec<&str> = keyed.iter().map(String::as_str).collect();
    let spawn = |i: usize| start(&dir, &args, &host_file, i, 1);
    let lead = spawn(0);
    let scan = connect_when_listening(&address);
    drop(scan); // connect and close, as a port scan or a health check
    let mut stranger = std::net::TcpStream::connect(&address).unwrap();
    use std::io::Write;
    let _ = stranger.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    drop(stranger);
    let lead = join_process_1(&dir, &args, &host_file, lead);
    let stderr = String::from_utf8_lossy(&lead.stderr);
    assert_eq!(lead.stdout, expected, "the keyed run is the keyless one");
    assert!(
        stderr.matches("warning: dropped a connection from").count() >= 2,
        "{stderr}"
    );

    // Another key: the intruder is refused at once, and process 0 goes on waiting for the
    // real process 1, with which the run then gives the same result.
    let host_file = hosts(&dir, 2);
    let lead = start(&dir, &args, &host_file, 0, 1);
    let other = select_args("csv/points", "--cluster-key other.key");
    let intruder = start(&dir, &other, &host_file, 1, 1)
        .wait_with_output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&intruder.stderr);
    assert_eq!(intruder.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("same --cluster-key"), "{stderr}");
    let lead = join_process_1(&dir, &args, &host_file, lead);
    let stderr = String::from_utf8_lossy(&lead.stderr);
    assert_eq!(lead.stdout, expected, "after an intruder");
    assert!(
        stderr.contains("warning: dropped a connection from"),
        "{stderr}"
    );
}

/// Starts process 1 of `host_file` with `args` while process 0 (`lead`) runs, waits for both
/// and checks that both succeeded: process 0's output.
fn join_process_1(dir: &Path, args: &[&str], host_file: &Path, lead: Child) -> Output {
    let peer = start(dir, args, host_file, 1, 1)
        .wait_with_output()
        .expect("process 1");
    let lead = lead.wait_with_output().expect("process 0");
    let stderr = |out: &Output| String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(lead.status.success(), "process 0: {}", stderr(&lead));
    assert!(peer.status.success(), "process 1: {}", stderr(&peer));
    lead
}

/// Makes a cluster key in `dir`'s file `name`.
fn cluster_key(dir: &Path, name: &str) {
    disguise(dir)
        .args(["cluster", "key", "--out", name])
        .assert()
        .success();
}

/// Without a key every host must be this machine; a host that does not resolve fails at once
/// with its name.
#[test]
fn hosts_beyond_this_machine_need_a_key_and_must_resolve() {
    let dir = dir_with(
        "remote",
        &[
            ("remote.txt", "127.0.0.1:1\n192.0.2.1:4000\n"),
            ("unknown.txt", "127.0.0.1:1\nno-such-host.invalid:4000\n"),
        ],
    );
    generate(&dir, "csv", 100, 1, "csv");
    let started = Instant::now();
    let remote = select_args("csv/points", "--hosts remote.txt --process 0");
    let stderr = fails_with(
        &dir,
        &remote,
        "192.0.2.1:4000 (process 1) is not this machine",
    );
    assert!(stderr.contains("disguise cluster key --out"), "{stderr}");
    let unknown = select_args("csv/points", "--hosts unknown.txt --process 0");
    fails_with(&dir, &unknown, "cannot resolve no-such-host.invalid:4000");
    assert!(started.elapsed() < AT_ONCE, "it waited as if for a peer");
    // A key in the environment is unused by a one-process run, which still works.
    disguise(&dir)
        .env("DISGUISE_CLUSTER_KEY", dir.join("absent.key"))
        .args(select_args("csv/points", ""))
        .assert()
        .success();
}

/// `DISGUISE_CLUSTER_KEY` set but empty names no key: a one-process run and a keyless run
/// of processes on this machine work as without the variable, and a host beyond this
/// machine asks for a key, not for a value of --cluster-key.
#[test]
fn an_empty_key_variable_means_no_key() {
    let dir = dir_with(
        "empty-key",
        &[("remote.txt", "127.0.0.1:1\n192.0.2.1:4000\n")],
    );
    generate(&dir, "csv", 400, 2, "csv");
    let args = select_args("csv/points", "");
    let alone = disguise(&dir).args(&args).stdout_ok();
    let empty = disguise(&dir)
        .env("DISGUISE_CLUSTER_KEY", "")
        .args(&args)
        .output()
        .expect("run");
    assert!(
        empty.status.success(),
        "{}",
        String::from_utf8_lossy(&empty.stderr)
    );
    assert_eq!(empty.stdout, alone);
    let host_file = hosts(&dir, 2);
    let children: Vec<Child> = (0..2)
        .rev()
        .map(|i| {
            process(&dir, &args, &host_file, i, 1)
                .env("DISGUISE_CLUSTER_KEY", "")
                .spawn()
                .expect("start disguise")
        })
        .collect();
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("process"))
        .collect();
    for out in &outs {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        outs[1].stdout, alone,
        "process 0 prints the one-process result"
    );
    let remote = disguise(&dir)
        .env("DISGUISE_CLUSTER_KEY", "")
        .args(select_args("csv/points", "--hosts remote.txt --process 0"))
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&remote.stderr);
    assert_eq!(remote.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is not this machine"), "{stderr}");
}

/// A process stopped mid-run: the other's timeout names it; resumed after the other has
/// ended, it exits at once.
#[cfg(target_os = "linux")]
#[test]
fn the_timeout_names_the_silent_process_and_a_late_one_exits_at_once() {
    let dir = dir_with("silent", &[]);
    generate_with(&dir, "big", 1_000_000, 2, "parquet", 100);
    let args = select_args("big/points", "");
    let mut args: Vec<&str> = args
        .into_iter()
        .filter(|a| *a != "csv/candidates.csv")
        .collect();
    let at = args.iter().position(|a| *a == "--candidates").unwrap();
    args.insert(at + 1, "big/candidates.csv");
    let args: Vec<String> = owned(&args)
        .into_iter()
        .map(|a| if a == "4" { "40".into() } else { a })
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // Process 0 alone has a short timeout: the wait for the stopped process 1 must fire.
    with_a_short_timeout(|timeout| {
        let host_file = hosts(&dir, 2);
        let mut args0 = args.clone();
        args0.extend(["--timeout", timeout]);
        let mut children = vec![
            start(&dir, &args0, &host_file, 0, 1),
            start(&dir, &args, &host_file, 1, 1),
        ];
        if !connected(&mut children, 1) {
            return set_up_failed(children);
        }
        let peer = children.pop().expect("process 1");
        signal("-STOP", &peer);
        let lead = children
            .pop()
            .expect("process 0")
            .wait_with_output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&lead.stderr);
        if set_up_too_slow(&stderr) {
            end(vec![peer]);
            return None;
        }
        assert_eq!(lead.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("heard nothing from process 1"), "{stderr}");
        resume_and_see_it_exit(peer);
        Some(())
    });
}

/// Runs `attempt` with a short `--timeout` (its argument, in seconds) for the processes whose
/// wait on a stopped peer must fire, and — each time the attempt finds the machine too slow
/// for it (returns `None`: a set-up that did not complete in time, or a process slower than
/// the timeout before the stop) — again with twice that, up to [`PATIENCE`]. So the timeout
/// is derived from how fast the machine is now, and an attempt fails only on what no
/// slowness explains.
#[cfg(target_os = "linux")]
fn with_a_short_timeout<T>(mut attempt: impl FnMut(&str) -> Option<T>) -> T {
    let mut seconds = 3;
    loop {
        if let Some(done) = attempt(&seconds.to_string()) {
            return done;
        }
        assert!(
            seconds < PATIENCE.as_secs(),
            "the machine stayed too slow for a timeout of {seconds} s"
        );
        eprintln!("the machine was too slow for --timeout {seconds}: again with twice that");
        seconds *= 2;
    }
}

/// Kills `children` (stopped or not): what they said on standard error.
#[cfg(target_os = "linux")]
fn end(children: Vec<Child>) -> String {
    let mut said = String::new();
    for mut child in children {
        let _ = child.kill();
        let out = child.wait_with_output().expect("a process");
        said.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    said
}

/// Ends an attempt of [`with_a_short_timeout`] in which a process ended before the run began:
/// kills the others and says to try again — provided that a process said that the set-up took
/// longer than its timeout. Anything else fails the test.
#[cfg(target_os = "linux")]
fn set_up_failed<T>(children: Vec<Child>) -> Option<T> {
    let said = end(children);
    assert!(
        set_up_too_slow(&said),
        "a process ended before the run began: {said}"
    );
    None
}

/// Whether `stderr` says that the set-up did not complete within a short timeout: the
/// machine, not the fault made, was too slow.
#[cfg(target_os = "linux")]
fn set_up_too_slow(stderr: &str) -> bool {
    stderr.contains("did not connect within") || stderr.contains("could not reach process")
}

/// Sends `signal` (`-STOP`, `-CONT`) to `child`.
#[cfg(target_os = "linux")]
fn signal(signal: &str, child: &Child) {
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success(), "kill {signal}");
}

/// Resumes the stopped `child` (SIGCONT) after the others have ended, and checks that it
/// exits at once with code 2 (its peers are gone), not after a timeout of its own.
#[cfg(target_os = "linux")]
fn resume_and_see_it_exit(child: Child) {
    signal("-CONT", &child);
    let resumed = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(resumed.elapsed() < AT_ONCE, "the resumed process lingered");
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A numeric column with neither `bins` nor `edges` is cut at private quantiles in a
/// distributed release too, with the one-process release's edges and output (`--seed`);
/// `features` cannot draw them over a cluster yet: exit 2 before any connection and any
/// charge, one line naming the column and the fix.
#[test]
fn a_distributed_release_draws_the_private_edges_of_one_process() {
    let dir = dir_with("synth-edges", &[]);
    table(&dir);
    let schema = std::fs::read_to_string(dir.join("schema.toml")).unwrap();
    std::fs::write(dir.join("schema.toml"), schema.replace("bins = 5\n", "")).unwrap();
    let report = |out: &[u8]| release(&dir, out);
    for command in [
        "synth --schema schema.toml --epsilon 2 --seed 3 --out out.csv --format json --data table.csv",
        "histogram --schema schema.toml --epsilon 2 --k 2 --seed 3 --out out.csv --format json --data table.csv",
    ] {
        let one = report(&disguise(&dir).args(words(command)).stdout_ok());
        assert!(one.0["edges"]["columns"][0]["column"] == "age", "{}", one.0);
        let spread = report(
            &disguise(&dir)
                .args(words(command))
                .args(["--workers", "2"])
                .stdout_ok(),
        );
        assert_eq!(spread, one, "{command}");
        // Two processes: the same again.
        let args: Vec<String> = words(command).into_iter().map(String::from).collect();
        let spread = report(&cluster_stdout(&dir, &args, 2, 1));
        assert_eq!(spread, one, "2 processes: {command}");
    }
    let features = "features --schema schema.toml --k 1 --epsilon 2 --data table.csv --workers 2";
    let out = disguise(&dir).args(words(features)).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("'age'") && stderr.contains("bins = N"),
        "{stderr}"
    );
    // Before the ledger's charge.
    common::init_ledger(&dir);
    let charged =
        words("features --k 1 --epsilon 1 --ledger b.ledger --dataset d --data table.csv");
    let args: Vec<&str> = charged
        .into_iter()
        .chain(words("--schema schema.toml --workers 2"))
        .collect();
    fails_with(&dir, &args, "'age'");
    assert_eq!(
        common::ledger_releases(&dir),
        Vec::<serde_json::Value>::new()
    );
}

/// Whole-table synthetic data (the tree or AIM's rounds, the fit, the synthetic file) is the
/// one-process release for one file dealt row by row and for parts dealt whole: the workers'
/// counts, 1-ways and then the compressed marginals worker 0 asks for, add up to the
/// table's exactly.
#[test]
fn synthetic_data_is_the_same_for_every_partition() {
    let dir = dir_with("synth", &[]);
    table(&dir);
    // MST (δ = 0), and AIM with its 3-ways that hold the target (δ > 0).
    for method in ["", "--delta 1e-6"] {
        let args = |data: &str, extra: &str| {
            command(
                &format!(
                    "synth --schema schema.toml --epsilon 2 --seed 3 --out out.csv --format json \
                     {method} --data"
                ),
                data,
                extra,
            )
        };
        let one = release(
            &dir,
            &disguise(&dir).args(args("table.csv", "")).stdout_ok(),
        );
        assert!(one.1.lines().count() > 100, "{}", one.1);
        let three_way = one.0["measured"]
            .as_array()
            .expect("measured")
            .iter()
            .any(|m| m["columns"].as_array().is_some_and(|c| c.len() == 3));
        assert_eq!(three_way, !method.is_empty(), "{}", one.0);
        for (data, extra) in [("table.csv", "--workers 3"), ("parts", "")] {
            let out = disguise(&dir).args(args(data, extra)).stdout_ok();
            assert_eq!(release(&dir, &out), one, "{method}: {data} {extra}");
        }
        for (processes, workers, data) in [(2, 1, "table.csv"), (2, 2, "parts")] {
            let out = cluster_stdout(&dir, &args(data, ""), processes, workers);
            let what = format!("{method}: {processes}×{workers} on {data}");
            assert_eq!(release(&dir, &out), one, "{what}");
        }
    }
}
