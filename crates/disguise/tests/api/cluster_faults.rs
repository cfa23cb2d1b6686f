//! Faults of the wire between the processes of a distributed run: a connection reset as the
//! run ends or in its middle, a frame altered in transit. Each test starts this very test
//! binary twice, as processes 0 and 1 of a run (a real run of two OS processes), with a
//! relay on the link that makes the fault. Process 1 is told that process 0 listens at the
//! relay — which only the library can be told: through the command line every process must
//! read the same host file (the run's agreement compares it).
//!
//! Each run ends with the result — a fault after every result was received loses nothing —
//! or with an error that names the other process and the cause; never with a panic.
#![cfg(all(feature = "cluster", unix))]

use super::cluster::dealt;
use crate::support::cluster::{PATIENCE, Ports, connect_when_listening};
use disguise::cluster::{Cluster, ClusterKey};
use disguise::prelude::*;
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Set in the environment of a process this test binary starts as a process of a run:
/// `process|host,host|key file` (the key file may be empty).
const ROLE: &str = "DISGUISE_TEST_CLUSTER_ROLE";

/// The line a process of a run prints, before its outcome.
const OUTCOME: &str = "outcome: ";

/// Clustered planar records: a fixed pseudo-random sequence.
fn points(n: usize) -> Vec<[f64; 2]> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let jitter = (state >> 11) as f64 / (1u64 << 53) as f64;
            [(i % 4) as f64 * 2.0 + jitter, (i % 3) as f64 * 3.0 - jitter]
        })
        .collect()
}

fn candidates() -> Vec<[f64; 2]> {
    (0..16)
        .map(|j| [(j % 4) as f64 * 2.0, (j / 4) as f64 * 3.0])
        .collect()
}

/// The run every process makes: a seeded selection of 4 of 16 candidates over 400 points.
fn request() -> Select {
    Select::new(4).epsilon(1.0).normalizer(2.0)
}

fn seeded() -> SecureRng {
    SecureRng::insecure_from_seed(11)
}

/// What the one-process run releases, as process 0 prints it.
fn expected() -> String {
    let report = request()
        .run(&points(400), &candidates(), &mut seeded())
        .expect("one process");
    format!("released {}", serde_json::to_string(&report).expect("json"))
}

/// If this binary was started as a process of a run (by [`start`]): runs it, prints its
/// outcome on one line, and exits. Otherwise returns at once.
fn play_role() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let mut fields = role.split('|');
    let process: usize = fields.next().and_then(|p| p.parse().ok()).expect("process");
    let hosts: Vec<String> = fields
        .next()
        .expect("hosts")
        .split(',')
        .map(String::from)
        .collect();
    // Every fault here is seen at once: the timeout only bounds a hang.
    let mut cluster = Cluster::hosts(hosts, process, 1)
        .expect("hosts")
        .timeout(PATIENCE);
    if let Some(key) = fields.next().filter(|k| !k.is_empty()) {
        cluster = cluster.key(ClusterKey::read(Path::new(key)).expect("key"));
    }
    let load = dealt(points(400));
    let outcome = match request().run_distributed(&cluster, load, &candidates(), &mut seeded()) {
        Ok(Some(report)) => format!("released {}", serde_json::to_string(&report).expect("json")),
        Ok(None) => "served".to_string(),
        Err(e) => format!("failed: {e}"),
    };
    println!("{OUTCOME}{outcome}");
    std::process::exit(0);
}

/// Starts this test binary as process `process` of a run over `hosts`, playing the role of
/// the test `test` of this module.
fn start(test: &str, process: usize, hosts: &[String], key: Option<&Path>) -> Child {
    // The test's name as the harness knows it: the module path without the crate's.
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let role = format!(
        "{process}|{}|{}",
        hosts.join(","),
        key.map_or(String::new(), |k| k.display().to_string())
    );
    Command::new(std::env::current_exe().expect("this test binary"))
        .args([&format!("{module}::{test}"), "--exact", "--nocapture"])
        .args(["--test-threads", "1"])
        .env(ROLE, role)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start a process")
}

/// The outcome a process printed (or why it printed none: it panicked or was killed).
fn outcome(child: Child) -> String {
    let out = child.wait_with_output().expect("a process");
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The harness has begun a line ("test … ... ") before the test prints.
    match stdout.lines().find_map(|l| l.split_once(OUTCOME)) {
        Some((_, line)) => line.to_string(),
        None => format!(
            "no outcome ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// What the relay does to the link between processes 1 and 0.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Fault {
    /// Resets both connections as soon as either process ends its stream: the run's end.
    ResetAtEnd,
    /// Resets both connections at the first byte after the two hellos: mid-run.
    ResetMidRun,
    /// Flips a bit of the `n`th frame process 1 sends (frames of a keyed link: 2 bytes of
    /// length, big-endian, then the message).
    Flip(usize),
}

/// A relay that process 1 connects to as to process 0, forwarding to process 0 at `to` and
/// making `fault`: its address, and its thread, which says what it did.
fn relay(to: String, fault: Fault) -> (SocketAddr, JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("relay");
    let address = listener.local_addr().expect("address");
    let thread = std::thread::spawn(move || {
        listener.set_nonblocking(true).expect("nonblocking");
        let deadline = Instant::now() + PATIENCE;
        let one = loop {
            match listener.accept() {
                Ok((s, _)) => break s,
                Err(_) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                Err(e) => return format!("process 1 never came: {e}"),
            }
        };
        one.set_nonblocking(false).expect("blocking");
        let zero = connect_when_listening(&to);
        pump([one, zero], fault)
    });
    (address, thread)
}

/// Ends both connections with a reset (SO_LINGER 0, then close).
fn reset(streams: [TcpStream; 2]) {
    for s in &streams {
        rustix::net::sockopt::set_socket_linger(s, Some(Duration::ZERO)).expect("linger");
    }
}

/// Forwards between process 1 (`streams[0]`) and process 0 (`streams[1]`) on one thread,
/// making `fault`.
fn pump(streams: [TcpStream; 2], fault: Fault) -> String {
    for s in &streams {
        s.set_read_timeout(Some(Duration::from_millis(2)))
            .expect("timeout");
        s.set_nodelay(true).expect("nodelay");
    }
    let mut open = [true, true];
    // Bytes passed from each side, and its first 8 (a keyless hello's length).
    let mut passed = [0u64; 2];
    let mut head: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
    // Bytes of process 1's frames not yet complete, and how many frames passed.
    let mut pending: Vec<u8> = Vec::new();
    let mut frames = 0usize;
    let mut buf = vec![0u8; 1 << 16];
    let started = Instant::now();
    while open[0] || open[1] {
        if started.elapsed() > PATIENCE {
            return "the run did not end".into();
        }
        for from in 0..2 {
            if !open[from] {
                continue;
            }
            let to = 1 - from;
            let n = match (&streams[from]).read(&mut buf) {
                Ok(n) => n,
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    continue;
                }
                Err(_) => 0,
            };
            if n == 0 {
                if fault == Fault::ResetAtEnd {
                    reset(streams);
                    return format!("reset when process {to} ended its stream");
                }
                open[from] = false;
                let _ = streams[to].shutdown(Shutdown::Write);
                continue;
            }
            let mut data = buf[..n].to_vec();
            match fault {
                Fault::ResetMidRun => {
                    let before = passed[from];
                    passed[from] += n as u64;
                    let take = (8 - head[from].len()).min(n);
                    head[from].extend_from_slice(&data[..take]);
                    // Where a side's hello ends: its 8-byte length, then that many bytes.
                    let end = |side: usize| {
                        (head[side].len() == 8).then(|| {
                            8 + u64::from_le_bytes(head[side][..].try_into().expect("8 bytes"))
                        })
                    };
                    let done = |side: usize| end(side).is_some_and(|e| passed[side] >= e);
                    if let Some(mine) = end(from)
                        && passed[from] > mine
                        && done(to)
                    {
                        let keep = mine.saturating_sub(before) as usize;
                        let _ = (&streams[to]).write_all(&data[..keep]);
                        reset(streams);
                        return "reset mid-run".into();
                    }
                }
                Fault::Flip(k) if from == 0 => {
                    pending.extend_from_slice(&data);
                    data.clear();
                    while pending.len() >= 2 {
                        let len = u16::from_be_bytes([pending[0], pending[1]]) as usize;
                        if pending.len() < 2 + len {
                            break;
                        }
                        let mut frame: Vec<u8> = pending.drain(..2 + len).collect();
                        frames += 1;
                        if frames == k {
                            frame[2 + len / 2] ^= 1;
                        }
                        data.extend_from_slice(&frame);
                    }
                }
                _ => {}
            }
            if (&streams[to]).write_all(&data).is_err() {
                open[to] = false;
            }
        }
    }
    "no fault".into()
}

/// Processes 0 and 1 of the test `test`'s run through a relay making `fault`: their
/// outcomes, and what the relay did.
fn relayed(test: &str, fault: Fault, key: Option<&Path>) -> (String, String, String) {
    // Reserved until both processes have ended.
    let ports = Ports::reserve(2);
    let hosts = ports.addresses();
    let (through, relay) = relay(hosts[0].clone(), fault);
    let zero = start(test, 0, &hosts, key);
    let one = start(test, 1, &[through.to_string(), hosts[1].clone()], key);
    let one = outcome(one);
    let zero = outcome(zero);
    (zero, one, relay.join().expect("relay"))
}

/// A connection reset as the run ends, after every result was received: process 0 returns
/// its result (the one-process result) and process 1 ends as it does without a fault.
#[test]
fn a_reset_at_the_end_loses_nothing() {
    play_role();
    let expected = expected();
    for _ in 0..3 {
        let (zero, one, relay) =
            relayed("a_reset_at_the_end_loses_nothing", Fault::ResetAtEnd, None);
        assert!(relay.starts_with("reset when"), "{relay}");
        assert_eq!(zero, expected, "process 0 ({relay})");
        assert_eq!(one, "served", "process 1 ({relay})");
    }
}

/// A connection reset mid-run: both processes fail with an error naming the other process
/// and the reset — no panic, no result.
#[test]
fn a_reset_mid_run_names_the_peer() {
    play_role();
    let (zero, one, relay) = relayed("a_reset_mid_run_names_the_peer", Fault::ResetMidRun, None);
    assert_eq!(relay, "reset mid-run");
    for (process, outcome, other) in [(0, &zero, 1), (1, &one, 0)] {
        assert!(
            outcome.starts_with("failed: ")
                && outcome.contains(&format!("process {other} reset its connection")),
            "process {process}: {outcome}"
        );
    }
}

/// A bit flipped in a frame of a keyed link fails the run, and the receiving process says
/// that a frame from its peer failed authentication — not that the peer closed its
/// connection.
#[test]
fn an_altered_frame_is_named_as_such() {
    play_role();
    let dir = tempfile::tempdir().expect("temp dir");
    let key = dir.path().join("k.key");
    ClusterKey::generate()
        .expect("key")
        .write_new(&key)
        .expect("write the key");
    // Process 1's frames: the key exchange, the hello's length, the hello; then the run's.
    let (zero, one, relay) = relayed(
        "an_altered_frame_is_named_as_such",
        Fault::Flip(4),
        Some(&key),
    );
    assert!(
        zero.contains("a frame from process 1 failed authentication") && zero.contains("altered"),
        "process 0 ({relay}): {zero}"
    );
    assert!(
        one.starts_with("failed: ") && one.contains("process 0"),
        "process 1 ({relay}): {one}"
    );
}
