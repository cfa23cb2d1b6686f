//! The command line end to end: each subcommand run as a process on small fixed files, with
//! the numbers that size its work (`--trials`, `--k`, `--size`, `--thresholds`, `--rounds`,
//! `--steps`, `--workers`, …) and its ε, δ, sensitivity, `--timeout` and the like drawn from
//! edge values, integers, floats and arbitrary text; `sample` also reads a fuzzed score file.
//!
//! A run fails when the process dies of a signal (abort, out-of-memory under a 4 GiB address
//! space limit), exits with a code other than 0 or 2, or prints a panic or allocation
//! failure. The binary is `$DISGUISE_BIN` (run.sh builds it). The child is not instrumented,
//! so this is mutation fuzzing over the argument structure, not coverage-guided.
//!
//! Failures do not stop the run: each distinct one is written to `artifacts/cli/` (the
//! command line, the score file, stderr) and counted; a run that takes over 5 s is killed
//! and counted as slow (legitimate work is allowed to take time; memory is what must stay
//! bounded).
#![no_main]

use arbitrary::Arbitrary;
use disguise_fuzz::write_input;
use libfuzzer_sys::fuzz_target;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const EDGE: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "0.5",
    "0.999999",
    "1e3",
    "1e6",
    "1e9",
    "1e12",
    "1e18",
    "1e308",
    "-1e308",
    "1e-308",
    "5e-324",
    "inf",
    "-inf",
    "NaN",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "",
    " 3",
    "1_000",
    "0x10",
    "+2",
    "1e",
    "١",
];

#[derive(Arbitrary, Debug)]
enum Value {
    Small(u8),
    Int(u64),
    Neg(i32),
    Float(f64),
    Edge(u8),
    Text(String),
}

impl Value {
    fn render(&self) -> String {
        match self {
            Value::Small(v) => v.to_string(),
            Value::Int(v) => v.to_string(),
            Value::Neg(v) => v.to_string(),
            Value::Float(v) => v.to_string(),
            Value::Edge(i) => EDGE[usize::from(*i) % EDGE.len()].to_string(),
            Value::Text(s) => s.chars().filter(|&c| c != '\0').collect(),
        }
    }
}

type Opt = Option<Value>;

#[derive(Arbitrary, Debug)]
enum Cmd {
    Select {
        k: Opt,
        epsilon: Opt,
        delta: Opt,
        normalizer: Opt,
        trials: Opt,
        mechanism: u8,
        algorithm: u8,
        steps: Opt,
        gradient: Opt,
        workers: Opt,
        timeout: Opt,
    },
    Features {
        k: Opt,
        epsilon: Opt,
        delta: Opt,
        trials: Opt,
        bins: Opt,
        mechanism: u8,
        workers: Opt,
        timeout: Opt,
    },
    Assign {
        k: Opt,
        epsilon: Opt,
        delta: Opt,
        trials: Opt,
        failure: Opt,
        algorithm: u8,
    },
    Itemsets {
        size: Opt,
        epsilon: Opt,
        delta: Opt,
        top: Opt,
        max_length: Opt,
        max_margin: Opt,
        count_share: Opt,
        em: bool,
    },
    Hypothesis {
        thresholds: Opt,
        epsilon: Opt,
        delta: Opt,
        mechanism: u8,
    },
    Histogram {
        epsilon: Opt,
        k: Opt,
        gamma: Opt,
        sigma: Opt,
        threshold: Opt,
        k_split: Opt,
        workers: Opt,
        timeout: Opt,
    },
    Sample {
        scores: Vec<u8>,
        epsilon: Opt,
        delta: Opt,
        sensitivity: Opt,
        trials: Opt,
        mechanism: u8,
    },
    Budget {
        epsilon: Opt,
        delta: Opt,
        rounds: Opt,
        kind: u8,
    },
    Cover {
        k: Opt,
        epsilon: Opt,
        delta: Opt,
        trials: Opt,
        edges: bool,
        algorithm: u8,
        workers: Opt,
        timeout: Opt,
    },
    Cut {
        k: Opt,
        epsilon: Opt,
        delta: Opt,
        cost_mechanism: u8,
        algorithm: u8,
    },
    Topics {
        k: Opt,
        epsilon: Opt,
        delta: Opt,
        per_topic: bool,
        algorithm: u8,
    },
}

const MECHANISMS: &[&str] = &["em", "lmm", "lmm-chaudhuri", "report-noisy-max", "max"];

struct Fixtures {
    bin: PathBuf,
    dir: PathBuf,
}

fn fixtures() -> &'static Fixtures {
    static F: OnceLock<Fixtures> = OnceLock::new();
    F.get_or_init(|| {
        let bin = PathBuf::from(
            std::env::var_os("DISGUISE_BIN").expect("set DISGUISE_BIN to the disguise binary"),
        );
        let files: &[(&str, &str)] = &[
            (
                "points.csv",
                "lat,lon,type\n40.75,-73.98,a\n40.76,-73.97,b\n40.71,-74.0,a\n40.80,-73.95,b\n",
            ),
            (
                "candidates.csv",
                "name,lat,lon\nA,40.75,-73.98\nB,40.72,-74.0\nC,40.79,-73.96\n",
            ),
            (
                "features.csv",
                "label,a,b,c\n0,1,x,3\n1,2,y,3\n0,1,y,4\n1,2,x,4\n1,1,x,3\n0,2,y,4\n",
            ),
            ("transactions.dat", "1 2 3\n2 3 4\n1 3\n\n4 5 1 2\n2 5\n"),
            ("items.txt", "1 2 3 4 5 6\n"),
            ("reach.txt", "1:a 2:b\n3:a\n\n2:a 2:b 9:a 1:c\n"),
            ("edges.txt", "1 2\n2 3\n3 1\n4 5\n# a comment\n5,6\n6 6\n"),
            (
                "hypothesis.csv",
                "y,a,b\nyes,1,5\nno,2,4\nyes,3,3\nno,4,2\nyes,5,1\nno,6,0\n",
            ),
            (
                "histogram.csv",
                "y,age,city\nno,10,a\nyes,20,b\nno,30,c\nyes,40,a\nno,50,b\nyes,60,c\n",
            ),
            (
                "histogram.toml",
                "name = \"t\"\nhas_header = true\ntarget = \"y\"\n[[columns]]\nname = \"y\"\n\
                 type = \"categorical\"\nlevels = [\"no\", \"yes\"]\n[[columns]]\nname = \"age\"\n\
                 type = \"numeric\"\nbounds = [0, 100]\n[[columns]]\nname = \"city\"\n\
                 type = \"categorical\"\nlevels = [\"a\", \"b\", \"c\"]\n",
            ),
        ];
        let mut dir = PathBuf::new();
        for (name, text) in files {
            dir = write_input(name, text.as_bytes())
                .parent()
                .expect("scratch folder")
                .to_path_buf();
        }
        Fixtures { bin, dir }
    })
}

/// Appends whitespace-separated words; a word starting with `@` names a fixture file.
fn words(args: &mut Vec<String>, dir: &Path, line: &str) {
    args.extend(line.split_whitespace().map(|w| match w.strip_prefix('@') {
        Some(name) => dir.join(name).display().to_string(),
        None => w.to_string(),
    }));
}

/// Appends `flag value` for each fuzzed value that is present.
fn push(args: &mut Vec<String>, flags: &[(&str, &Opt)]) {
    for (flag, value) in flags {
        if let Some(v) = value {
            args.push(flag.to_string());
            args.push(v.render());
        }
    }
}

fn pick<'a>(names: &[&'a str], i: u8) -> &'a str {
    names[usize::from(i) % names.len()]
}

fn args_for(cmd: &Cmd, dir: &Path) -> Vec<String> {
    let mut a: Vec<String> = Vec::new();
    match cmd {
        Cmd::Select {
            k,
            epsilon,
            delta,
            normalizer,
            trials,
            mechanism,
            algorithm,
            steps,
            gradient,
            workers,
            timeout,
        } => {
            words(
                &mut a,
                dir,
                "select --points @points.csv --candidates @candidates.csv",
            );
            a.extend(["--mechanism", pick(MECHANISMS, *mechanism)].map(String::from));
            let algorithms = ["greedy", "subsample", "continuous-greedy"];
            a.extend(["--algorithm", pick(&algorithms, *algorithm)].map(String::from));
            push(
                &mut a,
                &[
                    ("--k", k),
                    ("--epsilon", epsilon),
                    ("--delta", delta),
                    ("--normalizer", normalizer),
                    ("--trials", trials),
                    ("--steps", steps),
                    ("--gradient-samples", gradient),
                ],
            );
            push(&mut a, &[("--workers", workers), ("--timeout", timeout)]);
        }
        Cmd::Features {
            k,
            epsilon,
            delta,
            trials,
            bins,
            mechanism,
            workers,
            timeout,
        } => {
            words(&mut a, dir, "features --data @features.csv --label label");
            a.extend(["--mechanism", pick(MECHANISMS, *mechanism)].map(String::from));
            let flags = [("--k", k), ("--epsilon", epsilon), ("--delta", delta)];
            push(&mut a, &flags);
            push(&mut a, &[("--trials", trials)]);
            if let Some(b) = bins {
                a.push("--bins".into());
                a.push(format!("a:0:10:{}", b.render()));
            }
            push(&mut a, &[("--workers", workers), ("--timeout", timeout)]);
        }
        Cmd::Assign {
            k,
            epsilon,
            delta,
            trials,
            failure,
            algorithm,
        } => {
            words(
                &mut a,
                dir,
                "assign --points @points.csv --type-column type --types a,b \
                 --candidates @candidates.csv",
            );
            let algorithms = ["greedy", "subsample"];
            a.extend(["--algorithm", pick(&algorithms, *algorithm)].map(String::from));
            let flags = [("--k", k), ("--epsilon", epsilon), ("--delta", delta)];
            push(&mut a, &flags);
            push(&mut a, &[("--trials", trials), ("--failure", failure)]);
        }
        Cmd::Itemsets {
            size,
            epsilon,
            delta,
            top,
            max_length,
            max_margin,
            count_share,
            em,
        } => {
            words(&mut a, dir, "itemsets --transactions @transactions.dat");
            if *em {
                words(&mut a, dir, "--mechanism em --items @items.txt");
            }
            push(
                &mut a,
                &[
                    ("--size", size),
                    ("--epsilon", epsilon),
                    ("--delta", delta),
                    ("--top", top),
                    ("--max-length", max_length),
                    ("--max-margin", max_margin),
                    ("--count-share", count_share),
                ],
            );
        }
        Cmd::Hypothesis {
            thresholds,
            epsilon,
            delta,
            mechanism,
        } => {
            words(
                &mut a,
                dir,
                "hypothesis --data @hypothesis.csv --label y --positive yes --bounds-from-data",
            );
            a.extend(["--mechanism", pick(MECHANISMS, *mechanism)].map(String::from));
            let flags = [
                ("--thresholds", thresholds),
                ("--epsilon", epsilon),
                ("--delta", delta),
            ];
            push(&mut a, &flags);
        }
        Cmd::Histogram {
            epsilon,
            k,
            gamma,
            sigma,
            threshold,
            k_split,
            workers,
            timeout,
        } => {
            words(
                &mut a,
                dir,
                "histogram --data @histogram.csv --schema @histogram.toml --out @synthetic.csv",
            );
            push(
                &mut a,
                &[
                    ("--epsilon", epsilon),
                    ("--k", k),
                    ("--gamma", gamma),
                    ("--sigma", sigma),
                    ("--threshold-constant", threshold),
                    ("--k-split", k_split),
                ],
            );
            push(&mut a, &[("--workers", workers), ("--timeout", timeout)]);
        }
        Cmd::Sample {
            scores,
            epsilon,
            delta,
            sensitivity,
            trials,
            mechanism,
        } => {
            let path = write_input("scores.txt", scores);
            a.extend([
                "sample".into(),
                "--scores".into(),
                path.display().to_string(),
            ]);
            a.extend(["--mechanism", pick(MECHANISMS, *mechanism)].map(String::from));
            let flags = [("--epsilon", epsilon), ("--delta", delta)];
            push(&mut a, &flags);
            push(
                &mut a,
                &[("--sensitivity", sensitivity), ("--trials", trials)],
            );
        }
        Cmd::Budget {
            epsilon,
            delta,
            rounds,
            kind,
        } => {
            let kinds = ["bounded-range", "pure", "approximate"];
            a.extend(["budget", "--kind", pick(&kinds, *kind)].map(String::from));
            push(
                &mut a,
                &[
                    ("--epsilon", epsilon),
                    ("--delta", delta),
                    ("--rounds", rounds),
                ],
            );
        }
        Cmd::Cover {
            k,
            epsilon,
            delta,
            trials,
            edges,
            algorithm,
            workers,
            timeout,
        } => {
            let input = if *edges {
                "--edges @edges.txt"
            } else {
                "--sets @transactions.dat"
            };
            words(
                &mut a,
                dir,
                &format!("cover {input} --candidates @items.txt"),
            );
            let algorithms = ["greedy", "subsample"];
            a.extend(["--algorithm", pick(&algorithms, *algorithm)].map(String::from));
            let flags = [("--k", k), ("--epsilon", epsilon), ("--delta", delta)];
            push(&mut a, &flags);
            push(&mut a, &[("--trials", trials)]);
            push(&mut a, &[("--workers", workers), ("--timeout", timeout)]);
        }
        Cmd::Cut {
            k,
            epsilon,
            delta,
            cost_mechanism,
            algorithm,
        } => {
            words(&mut a, dir, "cut --edges @edges.txt --vertices @items.txt");
            let algorithms = ["subsample", "greedy"];
            a.extend(["--algorithm", pick(&algorithms, *algorithm)].map(String::from));
            a.extend(["--mechanism", pick(MECHANISMS, *cost_mechanism)].map(String::from));
            let flags = [("--k", k), ("--epsilon", epsilon), ("--delta", delta)];
            push(&mut a, &flags);
        }
        Cmd::Topics {
            k,
            epsilon,
            delta,
            per_topic,
            algorithm,
        } => {
            words(
                &mut a,
                dir,
                "topics --reach @reach.txt --candidates @items.txt --types a,b",
            );
            if *per_topic {
                a.push("--per-topic".into());
            }
            let algorithms = ["greedy", "subsample"];
            a.extend(["--algorithm", pick(&algorithms, *algorithm)].map(String::from));
            let flags = [("--k", k), ("--epsilon", epsilon), ("--delta", delta)];
            push(&mut a, &flags);
        }
    }
    // Reproducible, machine-readable and, where the command draws one, without progress bars.
    let tail = match cmd {
        Cmd::Budget { .. } => "--format json",
        Cmd::Itemsets { .. } | Cmd::Histogram { .. } | Cmd::Sample { .. } => {
            "--seed 1 --format json"
        }
        _ => "--seed 1 --format json --quiet",
    };
    words(&mut a, dir, tail);
    a
}

/// Limits the child's address space so that a runaway allocation fails instead of
/// swapping the machine.
fn limit_memory(cmd: &mut Command) {
    const LIMIT: libc::rlim_t = 4 << 30;
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: LIMIT,
                rlim_max: LIMIT,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

fuzz_target!(|cmd: Cmd| {
    let fx = fixtures();
    let args = args_for(&cmd, &fx.dir);
    let mut command = Command::new(&fx.bin);
    command
        .args(&args)
        .current_dir(&fx.dir)
        .env("RAYON_NUM_THREADS", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    limit_memory(&mut command);
    let mut child = command.spawn().expect("spawn the disguise binary");
    let mut stderr = child.stderr.take().expect("piped stderr");
    // Read stderr on a thread so a chatty child cannot block on a full pipe.
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.by_ref().take(1 << 20).read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            break Some(status);
        }
        if start.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_micros(200));
    };
    let stderr = String::from_utf8_lossy(&reader.join().unwrap_or_default()).into_owned();
    let Some(status) = status else {
        eprintln!("cli: slow (killed after 5 s): {args:?}");
        return;
    };
    let crashed = status.signal().is_some()
        || !matches!(status.code(), Some(0) | Some(2))
        || stderr.contains("panicked")
        || stderr.contains("memory allocation");
    if crashed {
        // One artifact per (subcommand, first stderr line without numbers).
        let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let shape: String = first
            .chars()
            .filter(|c| !c.is_ascii_digit())
            .take(80)
            .collect();
        let key = format!("{}|{:?}|{}", args[0], status.signal(), shape);
        let name = format!("{:016x}", fnv1a(key.as_bytes()));
        let dir = PathBuf::from("artifacts/cli");
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join(&name);
        if !path.exists() {
            let scores = match &cmd {
                Cmd::Sample { scores, .. } => format!("scores file: {scores:?}\n"),
                _ => String::new(),
            };
            let report = format!("status: {status:?}\nargs: {args:?}\n{scores}stderr:\n{stderr}\n");
            let _ = std::fs::write(&path, report);
            eprintln!("cli: FAILURE {name}: {status:?} {args:?}\n{first}");
        }
    }
});

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
